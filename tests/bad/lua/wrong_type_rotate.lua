-- A number where a quat is expected.
local m = require "marrow"
local man = assert(m.model("models/mannequin.md5mesh"))
local pose = m.pose(man)
function update() pose:rotate("head", 45) end
