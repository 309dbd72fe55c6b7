-- sword_in_hand.lua — attachments: a prop model drawn at a joint.
--
-- The mannequin walks (a mixer playing the walk) and holds the project's
-- sword in its right hand. marrow.attach gives the hand's frame in the
-- world, times an offset in the hand's own frame (inches: MD5) that puts the
-- grip in the palm and tilts the blade up; the sword, an unskinned prop of
-- one joint, is drawn in its bind pose with that transform, so it follows
-- the hand through the swing. A second figure holds it in the left hand
-- with the blade lowered.
--
--   marrow run --headless examples/sword_in_hand.lua --frames 20 --out examples
local m = require "marrow"

local man, sword, mixer, pose

-- Grip centre 3.3 in down the hand (the arm's direction at rest), blade
-- turned forward and up; mirrored for the left hand.
local function grip(side, tilt)
  local s = side == "r" and -1 or 1
  return m.mat4.translate({0.6, s * 2.3, -2.3}) * m.mat4.rotate(m.quat.euler(0, -tilt, 0))
end

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk_inplace"}}))
  sword = assert(m.model("models/sword.md5mesh"))
  mixer = m.mixer(man)
  mixer:play(man:clip("walk_inplace"), {loop = "repeat"})
end

function update(dt)
  mixer:update(dt)
  pose = mixer:pose()
end

function draw()
  m.camera{target = {0.2, 0.95, 0.65}, distance = 3.4, yaw = 40, pitch = 10}
  local right = m.mat4.translate({0, 0, 0})
  m.draw(man, pose, {transform = right})
  m.draw(sword, nil, {transform = m.attach(man, pose, "hand_r", grip("r", 35), {transform = right})})
  local left = m.mat4.translate({0, 0, 1.3})
  m.draw(man, pose, {transform = left, tint = {0.8, 0.85, 0.95}})
  m.draw(sword, nil, {transform = m.attach(man, pose, "hand_l", grip("l", -20), {transform = left})})
  if m.headless() and m.frame() == 10 then m.screenshot("sword_in_hand.png") end
end
