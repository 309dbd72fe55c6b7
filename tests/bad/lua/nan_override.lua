local m = require "marrow"
local man = assert(m.model("models/mannequin.md5mesh"))
local pose = m.pose(man)
function update() pose:rotate("head", m.quat(0/0, 0, 0, 1)) end
