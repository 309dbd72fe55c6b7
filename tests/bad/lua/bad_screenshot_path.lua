local m = require "marrow"
function draw() m.screenshot("/proc/no/such/dir/x.png") end
