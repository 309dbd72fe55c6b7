-- skeleton_overlay.lua — the skeleton overlay: bones (octahedra) and joints
-- drawn over the wireframe mesh of the mannequin waving, no joint names.
local m = require "marrow"

scene = {size = {320, 240}, fps = 30, shots = {15}}

local man, pose, wave

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"wave"}}))
  wave = man:clip("wave")
  pose = m.pose(man)
end

function update(dt)
  wave:sample(m.time(), pose)
end

function draw()
  m.camera{target = {0, 1.0, 0}, distance = 3.2, yaw = 20, pitch = 8}
  m.scene{shadows = false}
  m.draw(man, pose, {wireframe = true, tint = {0.8, 0.85, 1.0}})
  m.draw_skeleton(man, pose)
end
