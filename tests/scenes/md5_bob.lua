-- md5_bob.lua — the MD5 loader on a real third-party model: Bob (assimp's
-- test data, ../shared/models) with his own animation and textures, at 0 s
-- and at 2.5 s (lantern raised). The camera frames the model by itself.
local m = require "marrow"

scene = {size = {320, 240}, fps = 12, shots = {0, 30}}

local SHARED = "../shared/models/assimp/test/models-nonbsd/MD5/"
local bob, pose, clip

function load()
  bob = assert(m.model(SHARED .. "Bob.md5mesh", {anims = {SHARED .. "Bob.md5anim"}}))
  clip = bob:clip(1)
  pose = m.pose(bob)
end

function update(dt)
  clip:sample(m.time(), pose)
end

function draw()
  m.camera{yaw = 30, pitch = 12}
  m.draw(bob, pose)
end
