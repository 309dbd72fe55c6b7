-- collada_astroboy.lua — the COLLADA loader on a real exported file:
-- astroBoy_walk.dae (../shared/models/lab101-bonesAssimpTest) with its
-- texture, walking, at the start and half-way through the 1.08 s cycle.
-- The model is 16 cm tall (unit 0.01 m); the camera frames it by itself.
local m = require "marrow"

scene = {size = {320, 240}, fps = 30, shots = {0, 16}}

local boy, pose, walk

function load()
  boy = assert(m.model("../shared/models/lab101-bonesAssimpTest/bin/data/astroBoy_walk.dae"))
  walk = boy:clip(1)
  pose = m.pose(boy)
end

function update(dt)
  walk:sample(m.time(), pose)
end

function draw()
  m.camera{yaw = 35, pitch = 10}
  m.draw(boy, pose)
end
