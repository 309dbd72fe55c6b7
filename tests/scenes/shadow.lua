-- shadow.lua — the shadow map: a low key light from the side throws the
-- walking mannequin's long shadow across the floor grid.
local m = require "marrow"

scene = {size = {320, 240}, fps = 30, shots = {8}}

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
  m.camera{target = {0.6, 0.5, 0}, distance = 4, yaw = 20, pitch = 35}
  m.scene{shadows = true, floor = true}
  m.light(1, {direction = {-1, 0.45, 0.2}, colour = {1, 0.95, 0.85}})
  m.draw(man, pose)
end
