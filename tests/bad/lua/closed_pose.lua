-- Using a pose after pose:close().
local m = require "marrow"
local man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk"}}))
local pose = m.pose(man)
pose:close()
function update() man:clip("walk"):sample(0, pose) end
