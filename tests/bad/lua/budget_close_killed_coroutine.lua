-- A coroutine stopped by the budget keeps hooks off: closing it in the next
-- frame must not run its looping __close.
local co
function update()
  if not co then
    co = coroutine.create(function()
      local x <close> = setmetatable({}, {__close = function() while true do end end})
      while true do end
    end)
    coroutine.resume(co)
  end
  assert(coroutine.close(co))
end
