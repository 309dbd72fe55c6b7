-- key_a_bow.lua — keying a motion by hand and saving it for other tools:
-- a 2-second bow for the mannequin, keyed from poses bent in model space
-- (the mannequin faces +X with Z up, so a turn about +Y bends forward),
-- with eases per key; saved as a glTF binary under --out, loaded back and
-- drawn beside the live clip: left the clip as keyed, right the saved file.
--
--   marrow run --headless examples/key_a_bow.lua --frames 49 --out examples
local m = require "marrow"

local man, bow, saved, saved_clip, live_pose, file_pose, path

local function bent(spine, head, arm)
  local p = m.pose(man)
  local left = m.vec3(0, 1, 0)
  p:rotate("spine_01", m.quat.axis_angle(left, spine), {space = "model"})
  p:rotate("spine_02", m.quat.axis_angle(left, spine * 0.8), {space = "model"})
  p:rotate("spine_03", m.quat.axis_angle(left, spine * 0.5), {space = "model"})
  p:rotate("head", m.quat.axis_angle(left, head), {space = "model"})
  p:rotate("upperarm_l", m.quat.axis_angle(m.vec3(1, 0, 0), -78), {space = "model"})   -- arms down
  p:rotate("upperarm_r", m.quat.axis_angle(m.vec3(1, 0, 0), 78), {space = "model"})
  p:rotate("upperarm_r", m.quat.axis_angle(m.vec3(0, 1, 0), arm), {space = "model"})  -- right arm swings in
  p:rotate("lowerarm_r", m.quat.axis_angle(m.vec3(0, 1, 0), arm * 1.5), {space = "model"})
  return p
end

function load()
  man = assert(m.model("models/mannequin.md5mesh"))
  bow = m.clip(man, {name = "bow", duration = 2})
  bow:key_pose(0, bent(0, 0, 0), nil, {ease = "in_out_cubic"})      -- down, slowly at both ends
  bow:key_pose(0.8, bent(24, 18, -30), nil, {ease = "smooth"})       -- the bow
  bow:key_pose(1.3, bent(26, 22, -34), nil, {ease = "out_back"})     -- held, then up with a little overshoot
  bow:key_pose(2, bent(0, 0, 0))
  bow:marker(0.8, "deepest")
  path = assert(m.save("key_a_bow.glb", man, {clips = {bow}}))
  saved = assert(m.model(path))
  saved_clip = saved:clip("bow")
  live_pose, file_pose = m.pose(man), m.pose(saved)
  print(("saved %s: %d keys on spine_01"):format(path, #bow:keys("spine_01")))
end

function update(dt)
  bow:sample(m.time(), live_pose)
  saved_clip:sample(m.time(), file_pose)
end

function draw()
  m.camera{target = {0, 0.9, 0}, distance = 4.4, yaw = 35, pitch = 8}
  m.draw(man, live_pose, {transform = m.mat4.translate({0, 0, 0.8})})
  m.draw(saved, file_pose, {transform = m.mat4.translate({0, 0, -0.8})})
  m.text(10, 10, ("t = %.2f s   left: clip:key_pose + eases (live)   right: key_a_bow.glb loaded back"):format(m.time() % 2))
  if m.headless() and m.frame() == 24 then m.screenshot("key_a_bow.png") end
end
