-- Recursion through a C boundary (metamethods).
local t = setmetatable({}, {__index = function(t, k) return t[k] end})
function update() return t.x end
