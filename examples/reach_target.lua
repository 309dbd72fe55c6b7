-- reach_target.lua — two-bone IK: the hands follow moving targets.
--
-- The mannequin idles (a mixer); its on_pose callback, which edits the
-- layered pose before model matrices are made, runs pose:two_bone_ik on
-- each arm. The right hand follows a yellow ball circling in front of the
-- chest, the elbow bending outwards and down (the pole); the left hand
-- reaches for a red ball that swings in and out of reach: beyond it the
-- arm straightens and points at the ball. Targets are world points (Y-up
-- metres), given with space = "world".
--
--   marrow run --headless examples/reach_target.lua --frames 46 --out examples
local m = require "marrow"

local man, mixer, right_target, left_target, reached

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"idle"}}))
  mixer = m.mixer(man)
  mixer:play(man:clip("idle"), {loop = "repeat"})
  mixer:on_pose(function(pose)
    pose:two_bone_ik("upperarm_r", "lowerarm_r", "hand_r", right_target,
      {space = "world", pole = {0, -1, -1}})
    reached = pose:two_bone_ik("upperarm_l", "lowerarm_l", "hand_l", left_target,
      {space = "world", pole = {0, -1, 1}})
  end)
end

function update(dt)
  local t = m.time()
  -- in front of the figure (it faces world +X); its right is world +Z
  right_target = m.vec3(0.35, 1.25 + 0.15 * math.sin(3 * t), 0.18 + 0.15 * math.cos(3 * t))
  left_target = m.vec3(0.25 + 0.45 * (0.5 + 0.5 * math.sin(2 * t)), 1.35, -0.35)
  mixer:update(dt)
end

function draw()
  m.camera{target = {0.1, 0.95, 0}, distance = 3.1, yaw = 55, pitch = 12}
  local pose = mixer:pose()
  m.draw(man, pose)
  m.point(right_target, {1, 0.85, 0.1}, 14)
  m.point(left_target, {0.95, 0.2, 0.15}, 14)
  m.line(m.attach(man, pose, "hand_l"):translation(), left_target, {0.95, 0.2, 0.15})
  m.text(20, 30, reached and "left hand: reached" or "left hand: out of reach, pointing")
  if m.headless() and m.frame() == 23 then m.screenshot("reach_target.png") end
end
