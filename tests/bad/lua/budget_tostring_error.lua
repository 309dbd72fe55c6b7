-- An error object whose __tostring never returns (run by the message handler).
function update() error(setmetatable({}, {__tostring = function() while true do end end})) end
