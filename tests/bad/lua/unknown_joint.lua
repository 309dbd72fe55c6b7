-- A joint name with a typo.
local m = require "marrow"
local man = assert(m.model("models/mannequin.md5mesh"))
local pose = m.pose(man)
function update() pose:rotate("upperarm.L", m.quat.euler(0, 0, -40)) end
