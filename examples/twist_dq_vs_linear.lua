-- twist_dq_vs_linear.lua — the same forearm twist, skinned two ways: the
-- mannequin drawn above with linear blend skinning (the wrist collapses
-- into a "candy wrapper"), the one below with dual-quaternion skinning
-- (marrow.draw's skinning = "dq"), which keeps the wrist's cross-section.
-- The camera looks at their left wrists, one above the other.
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
  -- One figure 0.22 m above the other; the camera on their left wrists,
  -- far enough that both forearms and hands are whole in the picture.
  local D = man:display_matrix()
  local wrist, elbow = D * pose:position("hand_l"), D * pose:position("lowerarm_l")
  local mid = wrist + (elbow - wrist) * 0.25
  m.camera{target = {mid.x, mid.y, mid.z}, distance = 1.45, yaw = 90, pitch = 0}
  m.draw(man, pose, {transform = m.mat4.translate({0, 0.22, 0})})
  m.draw(man, pose, {transform = m.mat4.translate({0, -0.22, 0}), skinning = "dq"})
  m.text(10, 10, "above: linear blend skinning (the wrist collapses)")
  m.text(10, 30, "below: dual quaternions, skinning = \"dq\" (the wrist keeps its width)")
  m.text(10, 50, "the same pose: hand turned 150 degrees about the forearm")
  if m.headless() and m.frame() == 10 then m.screenshot("twist_dq_vs_linear.png") end
end
