local m = require "marrow"
local man = assert(m.model("models/mannequin.md5mesh"))
local pose = m.pose(man)
pose:close()
function update() man:clip(1):sample(0, pose) end
