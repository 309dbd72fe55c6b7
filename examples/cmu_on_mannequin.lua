-- cmu_on_mannequin.lua — motion capture on marrow's own character: CMU take
-- 01_01 (a BVH file from Debian's assimp-testmodels) retargeted onto the
-- mannequin with marrow.retarget. Joints are paired by name (CMU's
-- LeftUpLeg/LeftLeg/LeftFoot against thigh_l/calf_l/foot_l, ...); the root
-- path is scaled by the ratio of leg lengths, and {feet = true} holds each
-- planted foot with two-bone IK. The source skeleton is drawn beside it.
--
--   marrow run --headless examples/cmu_on_mannequin.lua --frames 121 --out examples
local m = require "marrow"

local CMU = "/usr/share/assimp/models/BVH/01_01.bvh"
local man, cmu, take, on_man, man_pose, cmu_pose

function load()
  man = assert(m.model("models/mannequin.md5mesh"))
  cmu = assert(m.model(CMU))
  take = cmu:clips()[1]
  on_man = m.retarget(take, cmu, man, {feet = true})   -- a second result: the joint map as text
  man_pose, cmu_pose = m.pose(man), m.pose(cmu)
end

function update(dt)
  local t = 2 + m.time()
  take:sample(t, cmu_pose)
  on_man:sample(t, man_pose)
end

function draw()
  m.camera{target = {0.6, 0.7, 1.0}, distance = 5.5, yaw = 60, pitch = 12}
  m.draw(man, man_pose)
  m.draw_skeleton(cmu, cmu_pose, {transform = m.mat4.translate({0, 0, 2.2})})
  m.text(10, 10, string.format("CMU 01_01 (BVH) on the mannequin, t = %.2f s", 2 + m.time()))
  if m.headless() and m.frame() == 60 then m.screenshot("cmu_on_mannequin.png") end
end
