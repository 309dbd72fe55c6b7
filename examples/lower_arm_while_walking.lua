-- lower_arm_while_walking.lua — the bone override: one line changes a joint
-- on top of the animation, and its children follow.
--
-- Three mannequins play the same walk. The middle one has its left upper arm
-- lowered by 40 degrees (turned towards the body about the forward axis, in
-- model space); the right one has it raised by 40 for comparison. The
-- override runs after sampling and before the pose is drawn, so the forearm
-- and hand move with the upper arm and nothing else changes.
--
--   marrow run --headless examples/lower_arm_while_walking.lua --frames 25 --out examples
local m = require "marrow"

local man, walk, plain, lowered, raised

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk_inplace"}}))
  walk = man:clip("walk_inplace")
  plain, lowered, raised = m.pose(man), m.pose(man), m.pose(man)
end

function update(dt)
  walk:sample(m.time(), plain)
  lowered:set(plain):rotate("upperarm_l", m.quat.euler(-40, 0, 0), {space = "model"})  -- the one line
  raised:set(plain):rotate("upperarm_l", m.quat.euler(40, 0, 0), {space = "model"})
end

function draw()
  m.camera{target = {0, 0.85, 0}, distance = 4.2, yaw = 90, pitch = 6}
  m.draw(man, plain, {transform = m.mat4.translate({0, 0, 1.1}), tint = {0.75, 0.8, 0.9}})
  m.draw(man, lowered)
  m.draw(man, raised, {transform = m.mat4.translate({0, 0, -1.1}), tint = {0.9, 0.8, 0.75}})
  local w = m.window()
  m.text(w * 0.5 - 330, 40, "walk")
  m.text(w * 0.5 - 60, 40, "walk + left arm lowered 40")
  m.text(w * 0.5 + 230, 40, "raised 40")
  if m.headless() and m.frame() == 24 then m.screenshot("lower_arm_while_walking.png") end
end
