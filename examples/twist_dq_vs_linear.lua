-- twist_dq_vs_linear.lua — the same forearm twist, skinned two ways: the
-- mannequin on the left with linear blend skinning (the wrist collapses
-- into a "candy wrapper"), on the right with dual-quaternion skinning
-- (marrow.draw's skinning = "dq"), which keeps the wrist's cross-section.
-- Both hold their left arm out and turn the hand 150 degrees about the
-- forearm's own axis.
--
--   marrow run --headless examples/twist_dq_vs_linear.lua --frames 20 --out examples
local m = require "marrow"

local man, pose

function load()
  man = assert(m.model("models/mannequin.md5mesh"))
  pose = m.pose(man)
  -- Arm out to the side, then the hand twisted about the forearm's axis:
  -- the direction from the elbow to the wrist, in model space.
  pose:rotate("upperarm_l", m.quat.euler(0, 0, 0))
  local elbow, wrist = pose:position("lowerarm_l"), pose:position("hand_l")
  local axis = (wrist - elbow):normalize()
  pose:rotate("hand_l", m.quat.axis_angle(axis, 150), {space = "model"})
end

function draw()
  -- 1.7 m apart, the camera between their twisted left wrists.
  m.camera{target = {0, 1.0, -0.75}, distance = 2.0, yaw = 90, pitch = 8}
  m.draw(man, pose, {transform = m.mat4.translate({0, 0, 0.85})})
  m.draw(man, pose, {transform = m.mat4.translate({0, 0, -0.85}), skinning = "dq"})
  m.text(10, 10, "left: linear blend skinning    right: dual quaternions (skinning = \"dq\")")
  m.text(10, 30, "the same pose: hand turned 150 degrees about the forearm")
  if m.headless() and m.frame() == 19 then m.screenshot("twist_dq_vs_linear.png") end
end
