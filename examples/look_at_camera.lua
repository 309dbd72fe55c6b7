-- look_at_camera.lua — a head override that follows the camera: each frame
-- the direction from the head to the camera's eye is brought into the
-- model's frame and the head is turned towards it (at most 70 degrees),
-- on top of the idle animation.
--
--   marrow run --headless examples/look_at_camera.lua --frames 41 --out examples
local m = require "marrow"

local man, idle, pose
local yaw = 25

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"idle"}}))
  idle = man:clip("idle")
  pose = m.pose(man)
end

function update(dt)
  yaw = yaw + 20 * dt                        -- orbit slowly; the head follows
  idle:sample(m.time(), pose)
end

-- The rotation turning direction a into direction b (unit vectors, model space).
local function turn(a, b, up, max_degrees)
  local q = m.quat.look_rotation(b, up) * m.quat.look_rotation(a, up):inverse()
  local angle = 2 * math.deg(math.acos(math.min(1, math.abs(q.w))))
  if angle > max_degrees then q = m.quat.slerp(m.quat(), q, max_degrees / angle) end
  return q
end

function draw()
  local eye = m.camera{target = {0, 1.0, 0}, distance = 3.6, yaw = yaw, pitch = 8}
  -- World -> model: undo the placement and the display matrix (MD5 is Z-up inches).
  local place = m.mat4.translate({0, 0, 0.6})
  local to_model = (place * man:display_matrix()):inverse()
  local eye_model = to_model * eye
  local head = pose:position("head")
  local forward, up = m.vec3(1, 0, 0), m.vec3(0, 0, 1)  -- the mannequin faces +X, Z is up
  local look = pose:copy():rotate("head", turn(forward, (eye_model - head):normalize(), up, 70), {space = "model"})
  m.draw(man, look, {transform = place})
  m.draw(man, pose, {transform = m.mat4.translate({0, 0, -0.6}), tint = {0.7, 0.7, 0.75}})
  m.text(10, 10, "left: head override looks at the camera    right: the idle clip alone")
  if m.headless() and m.frame() == 40 then m.screenshot("look_at_camera.png") end
end
