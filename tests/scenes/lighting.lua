-- lighting.lua — Blinn-Phong with two coloured lights and ambient: a red key
-- light from the left and a blue fill from the right on the mannequin's rest
-- pose, no shadows, so only the shading changes the pixels.
local m = require "marrow"

scene = {size = {320, 240}, shots = {0}}

local man

function load()
  man = assert(m.model("models/mannequin.md5mesh"))
end

function draw()
  m.camera{target = {0, 0.9, 0}, distance = 3, yaw = 0, pitch = 5}
  m.scene{ambient = {0.05, 0.05, 0.05}, shadows = false}
  m.light(1, {direction = {-1, 0.5, 0.6}, colour = {1.0, 0.25, 0.2}})
  m.light(2, {direction = {1, 0.3, 0.5}, colour = {0.2, 0.35, 1.0}})
  m.draw(man)
end
