-- A recording grows outside the Lua heap: its frames count against --memory too.
local m = require "marrow"
local man, rec, pose
function load()
  man = assert(m.model("models/mannequin.md5mesh"))
  rec, pose = m.record(man), m.pose(man)
end
function update() for i = 1, 1e7 do rec:capture(pose, i / 30) end end
