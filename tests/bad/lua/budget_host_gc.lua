-- A __gc put into a host type's metatable (getmetatable gives a copy): the
-- collection below would loop with hooks off if it took.
local m = require "marrow"
function update()
  getmetatable(m.vec3(1, 2, 3)).__gc = function() while true do end end
  for i = 1, 1e5 do local _ = m.vec3(i, i, i) end
  collectgarbage()
  while true do end                      -- and the frame is still stopped by the budget
end
