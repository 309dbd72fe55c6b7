-- ik_reach.lua — two-bone IK: the idle mannequin's left hand reaches for a
-- target (the red point) that circles in front of it; upper arm and forearm
-- turn so the hand lands on it. Two shots, the target at two places.
local m = require "marrow"

scene = {size = {320, 240}, fps = 30, shots = {0, 15}}

local man, pose, idle, target

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"idle"}}))
  idle = man:clip("idle")
  pose = m.pose(man)
end

function update(dt)
  local a = m.time() * math.pi * 2 / 1.0        -- one turn per second
  target = m.vec3(0.35 + 0.15 * math.cos(a), 1.25 + 0.2 * math.sin(a), 0.25)
  idle:sample(m.time(), pose)
  pose:two_bone_ik("upperarm_l", "lowerarm_l", "hand_l", target, {space = "world"})
end

function draw()
  m.camera{target = {0, 1.0, 0}, distance = 3, yaw = 40, pitch = 8}
  m.draw(man, pose)
  m.point(target, {1, 0.1, 0.1}, 10)
end
