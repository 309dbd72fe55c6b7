-- look_at_camera.lua — a head override that follows the camera: each frame
-- the direction from the head to the camera's eye is brought into the
-- model's frame and the head is turned towards it in model space (at most
-- 70 degrees), on top of the idle animation. The math is in scripts/lookat.lua.
--
--   marrow run --headless examples/look_at_camera.lua --frames 41 --out examples
local m = require "marrow"
local lookat = require "lookat"              -- a helper module from marrow's scripts/

local man, idle, pose, look
local yaw = 25

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"idle"}}))
  idle = man:clip("idle")
  pose, look = m.pose(man), m.pose(man)
end

function update(dt)
  yaw = yaw + 20 * dt                        -- orbit slowly; the head follows
  idle:sample(m.time(), pose)
end

function draw()
  local eye = m.camera{target = {0, 1.0, 0}, distance = 3.6, yaw = yaw, pitch = 8}
  local place = m.mat4.translate({0, 0, 0.6})
  lookat.joint(man, look:set(pose), "head", eye, {transform = place, max = 70})
  m.draw(man, look, {transform = place})
  m.draw(man, pose, {transform = m.mat4.translate({0, 0, -0.6}), tint = {0.7, 0.7, 0.75}})
  m.text(10, 10, "left: head override looks at the camera    right: the idle clip alone")
  if m.headless() and m.frame() == 20 then m.screenshot("look_at_camera.png") end
end
