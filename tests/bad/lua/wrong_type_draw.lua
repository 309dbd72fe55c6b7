-- marrow.draw given a string instead of a model.
local m = require "marrow"
function draw() m.draw("models/mannequin.md5mesh") end
