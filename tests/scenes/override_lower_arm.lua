-- override_lower_arm.lua — a bone override on top of the walk: the left upper
-- arm is lowered 40 degrees towards the body (model space), and the forearm
-- and hand follow it. Side view of the mannequin's left side.
local m = require "marrow"

scene = {size = {320, 240}, fps = 30, shots = {6, 16}}

local man, pose, walk

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk_inplace"}}))
  walk = man:clip("walk_inplace")
  pose = m.pose(man)
end

function update(dt)
  walk:sample(m.time(), pose)
  pose:rotate("upperarm_l", m.quat.euler(-40, 0, 0), {space = "model"})
end

function draw()
  m.camera{target = {0, 0.9, 0}, distance = 3, yaw = 90, pitch = 6}
  m.draw(man, pose)
end
