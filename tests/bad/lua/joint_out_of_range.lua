local m = require "marrow"
local man = assert(m.model("models/mannequin.md5mesh"))
local pose = m.pose(man)
function update() return pose:model(99) end
