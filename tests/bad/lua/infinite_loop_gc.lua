-- A finalizer that would never return: refused, since hooks cannot stop it.
setmetatable({}, {__gc = function() while true do end end})
function update() end
