-- md5_snoutx10k.lua — the MD5 loader on a second exporter's files: Sauerbraten's
-- snoutx10k (../shared/models/tomatenquark-essential) running forward, with
-- its two textured meshes (upper and lower body).
local m = require "marrow"

scene = {size = {320, 240}, fps = 30, shots = {5}}

local DIR = "../shared/models/tomatenquark-essential/packages/models/snoutx10k/"
local snout, pose, run

function load()
  snout = assert(m.model(DIR .. "snoutx10k.md5mesh", {anims = {DIR .. "forward.md5anim"}}))
  run = snout:clip(1)
  pose = m.pose(snout)
end

function update(dt)
  run:sample(m.time(), pose)
end

function draw()
  m.camera{yaw = 40, pitch = 10}
  m.draw(snout, pose)
end
