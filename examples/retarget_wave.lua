-- retarget_wave.lua — one clip, three characters: the mannequin's wave played
-- by Bob (MD5, other joint names and rest pose) and astroBoy (COLLADA, Y-up,
-- another scale) through marrow.retarget. The joints are paired by their
-- names (Bob's left and right names are mirrored: sides go by body); each
-- target takes the mannequin's motion relative to its own rest pose and
-- facing, so the arms rise as far as the mannequin's do.
--
--   marrow run --headless examples/retarget_wave.lua --frames 31 --out examples
local m = require "marrow"

local BOB = "../shared/models/assimp/test/models-nonbsd/MD5/Bob.md5mesh"
local ASTRO = "../shared/models/lab101-bonesAssimpTest/bin/data/astroBoy_walk.dae"
local cast = {}   -- {model, clip, pose, transform, label}

function load()
  local man = assert(m.model("models/mannequin.md5mesh", {anims = {"wave"}}))
  local wave = man:clip("wave")
  local bob = assert(m.model(BOB))
  local astro = assert(m.model(ASTRO))
  local bob_wave = m.retarget(wave, man, bob)   -- a second result reports the joint map
  local astro_wave = m.retarget(wave, man, astro)
  cast = {
    {man, wave, m.pose(man), m.mat4.translate({0, 0, 0}), "mannequin"},
    {bob, bob_wave, m.pose(bob), m.mat4.translate({0, 0, -1.1}), "Bob"},
    {astro, astro_wave, m.pose(astro), m.mat4.trs({0, 0, 1.1}, m.quat.euler(0, 0, 0), 9), "astroBoy"},
  }
end

function update(dt)
  for _, c in ipairs(cast) do c[2]:sample(m.time(), c[3]) end
end

function draw()
  m.camera{target = {0, 0.85, 0}, distance = 4.8, yaw = 90, pitch = 8}
  for _, c in ipairs(cast) do m.draw(c[1], c[3], {transform = c[4]}) end
  m.text(10, 10, "the mannequin's wave, retargeted: Bob (MD5) and astroBoy (COLLADA)")
  if m.headless() and m.frame() == 15 then m.screenshot("retarget_wave.png") end
end
