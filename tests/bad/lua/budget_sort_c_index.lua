-- A sort of 2^31 elements fetched through a C function (tostring) as __index:
-- no Lua instruction runs in it, only C calls, which the watchdog's poke stops.
function update()
  table.sort(setmetatable({}, {__len = function() return (1 << 31) - 2 end, __index = tostring}))
end
