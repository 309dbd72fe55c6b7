-- two_characters.lua — two models, each with its own clip: the mannequin
-- waves while Bob (an id Tech 4 model from ../shared/models) plays his own
-- animation. Each model is loaded once and cached; a reload costs nothing.
--
--   marrow run --headless examples/two_characters.lua --frames 46 --out examples
local m = require "marrow"

local BOB = "../shared/models/assimp/test/models-nonbsd/MD5/"
local man, bob
local man_pose, bob_pose

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"wave"}}))
  bob = assert(m.model(BOB .. "Bob.md5mesh", {anims = {BOB .. "Bob.md5anim"}}))
  man_pose, bob_pose = m.pose(man), m.pose(bob)
end

function update(dt)
  man:clip("wave"):sample(m.time(), man_pose)
  bob:clip("Bob"):sample(m.time() * 0.8, bob_pose)
end

function draw()
  m.camera{target = {0, 0.9, 0}, distance = 4.6, yaw = 70, pitch = 10}
  m.draw(man, man_pose, {transform = m.mat4.translate({0, 0, 0.9})})
  m.draw(bob, bob_pose, {transform = m.mat4.trs({0, 0, -0.9}, m.quat.euler(0, 0, 0), 1)})
  m.text(10, 10, "mannequin: wave        Bob: " .. bob:clip("Bob"):name())
  if m.headless() and m.frame() == 23 then m.screenshot("two_characters.png") end
end
