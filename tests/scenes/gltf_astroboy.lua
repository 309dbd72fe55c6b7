-- gltf_astroboy.lua — the glTF reader on a real export: Blender 3.4's
-- astroBoy_walk.glb (../shared/models/blender-3.4-gltf), its texture
-- embedded in the .glb, walking, at the start and half-way through the cycle.
-- Blender's COLLADA import split the skeleton, so the walk lifts the figure
-- off the floor and raises its arms: the .glb is its own truth (assimp poses
-- it the same way, tests/cli_reference.sh), not the .dae it came from.
local m = require "marrow"

scene = {size = {320, 240}, fps = 30, shots = {0, 16}}

local boy, pose, walk

function load()
  boy = assert(m.model("../shared/models/blender-3.4-gltf/astroBoy_walk.glb"))
  walk = boy:clip(1)
  pose = m.pose(boy)
end

function update(dt)
  walk:sample(m.time(), pose)
end

function draw()
  m.camera{target = {0, 0.14, 0}, distance = 0.75, yaw = 35, pitch = 10}
  m.draw(boy, pose)
end
