-- reach_planted.lua — full-body and chain IK: the mannequin reaches for a
-- moving ball with its right hand while both feet stay on their marks.
--
-- Every frame the idle pose goes through marrow.ik_body's solver (feet
-- planted on the two marks, the right hand on the ball): the pelvis drops
-- and slides and the spine bends as far as the reach needs, the legs are
-- solved last so the feet end on the marks. Then pose:ik_chain solves the
-- arm again with joint limits (a swing cone on the shoulder and the elbow,
-- the forearm's twist bounded), which every result keeps. Targets are model
-- points (MD5: inches, Z up, the figure faces +X); the text gives how far
-- the feet are from their marks and the hand from the ball, in millimetres.
--
--   marrow run --headless examples/reach_planted.lua --frames 23 --out examples
local m = require "marrow"

local man, idle, body, pose, ball, res, arm_err
local marks = {foot_l = m.vec3(-2, 5, 3), foot_r = m.vec3(2, -5.5, 3)}
local limits = {upperarm_r = {cone = 80}, lowerarm_r = {cone = 110, twist = {-30, 30}}}

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"idle"}}))
  idle = man:clip("idle")
  body = m.ik_body(man)
  pose = m.pose(man)
end

function update(dt)
  local t = m.time()
  ball = m.vec3(20 + 6 * math.sin(1.1 * t), -14 + 9 * math.cos(0.9 * t), 26 + 9 * math.sin(1.7 * t))
  idle:sample(t, pose)
  res = body:solve(pose, {foot_l = {position = marks.foot_l}, foot_r = {position = marks.foot_r},
                          hand_r = {position = ball}})
  local _
  _, arm_err = pose:ik_chain("upperarm_r", "hand_r", ball, {limits = limits})
end

function draw()
  m.camera{target = {0.15, 0.7, -0.1}, distance = 3.0, yaw = 35, pitch = 14}
  m.draw(man, pose)
  local d = man:display_matrix()
  for _, p in pairs(marks) do m.point(d * p, {0.2, 0.8, 0.3}, 16) end
  m.point(d * ball, {1, 0.8, 0.1}, 16)
  m.line(d * pose:position("hand_r"), d * ball, {1, 0.8, 0.1})
  local feet = math.max((pose:position("foot_l") - marks.foot_l):length(),
                        (pose:position("foot_r") - marks.foot_r):length())
  m.text(16, 24, string.format("feet off their marks: %.3f mm", feet * 25.4))
  m.text(16, 48, string.format("hand to ball: %.2f mm%s", arm_err * 25.4,
                               res.conflict and "  (out of reach: best compromise)" or ""))
  if m.headless() and m.frame() == 22 then m.screenshot("reach_planted.png") end
end
