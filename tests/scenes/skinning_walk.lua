-- skinning_walk.lua — GPU skinning: the mannequin's walk at three times
-- (frames 0, 10 and 20 at 30 fps: contact, passing, opposite contact).
local m = require "marrow"

scene = {size = {320, 240}, fps = 30, shots = {0, 10, 20}}

local man, pose, walk

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk_inplace"}}))
  walk = man:clip("walk_inplace")
  pose = m.pose(man)
end

function update(dt)
  walk:sample(m.time(), pose)
end

function draw()
  m.camera{target = {0, 0.9, 0}, distance = 3.2, yaw = 60, pitch = 10}
  m.draw(man, pose)
end
