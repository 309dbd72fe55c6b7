-- Tries to swallow the stop with pcall.
function update() while true do pcall(function() while true do end end) end end
