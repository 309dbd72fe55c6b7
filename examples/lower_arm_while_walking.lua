-- lower_arm_while_walking.lua — the bone override: a couple of lines change
-- joints on top of the animation, and their children follow.
--
-- Three mannequins play the same walk. The middle one has its left arm held
-- straight down at its side: every frame, after the walk is sampled, the
-- upper arm and then the forearm are turned (in model space) so that each
-- points straight down and a little outwards, whatever the walk did with
-- them. So that arm no longer swings while the rest of the body walks on.
-- (Turning the hanging arm "down" by a fixed angle instead would drive it
-- into the body: it already hangs.) The right one has the upper arm raised
-- by 40 degrees about the forward axis, on top of the swing, for comparison.
-- The override runs after sampling and before the pose is drawn, so the hand
-- follows the forearm and nothing else changes.
--
--   marrow run --headless examples/lower_arm_while_walking.lua --frames 25 --out examples
local m = require "marrow"

-- The mannequin's model frame (MD5): Z up, facing +X, its left side +Y.
-- Straight down, 10 degrees out from the body.
local DOWN = m.vec3(0, math.sin(math.rad(10)), -math.cos(math.rad(10)))

local man, walk, plain, lowered, raised

-- Turns joint so that the bone from it to child points along dir (model space).
local function point(pose, joint, child, dir)
  local bone = pose:position(child) - pose:position(joint)
  pose:rotate(joint, m.quat.from_to(bone, dir), {space = "model"})
end

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk_inplace"}}))
  walk = man:clip("walk_inplace")
  plain, lowered, raised = m.pose(man), m.pose(man), m.pose(man)
end

function update(dt)
  walk:sample(m.time(), plain)
  lowered:set(plain)
  point(lowered, "upperarm_l", "lowerarm_l", DOWN)   -- the upper arm straight down,
  point(lowered, "lowerarm_l", "hand_l", DOWN)       -- the forearm in line with it
  raised:set(plain):rotate("upperarm_l", m.quat.euler(40, 0, 0), {space = "model"})
end

function draw()
  m.camera{target = {0, 0.85, 0}, distance = 4.2, yaw = 60, pitch = 6}
  m.draw(man, plain, {transform = m.mat4.translate({0, 0, 1.1}), tint = {0.75, 0.8, 0.9}})
  m.draw(man, lowered)
  m.draw(man, raised, {transform = m.mat4.translate({0, 0, -1.1}), tint = {0.9, 0.8, 0.75}})
  local w = m.window()
  m.text(w * 0.5 - 330, 40, "walk")
  m.text(w * 0.5 - 90, 40, "walk + left arm held down")
  m.text(w * 0.5 + 210, 40, "left arm raised 40")
  if m.headless() and m.frame() == 12 then m.screenshot("lower_arm_while_walking.png") end
end
