-- skeleton_view.lua — the joint hierarchy over a wireframe mesh: bones as
-- octahedra from each joint to its parent, joint names beside them, and the
-- left hand's frame drawn with marrow.attach (x red, y green, z blue).
--
--   marrow run --headless examples/skeleton_view.lua --frames 31 --out examples
local m = require "marrow"

local man, pose, wave

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"wave"}}))
  wave = man:clip("wave")
  pose = m.pose(man)
  local sk = man:skeleton()
  for i = 1, #sk do
    print(string.format("%2d %-12s parent %2d", i, sk:name(i), sk:parent(i)))
  end
  m.console(false)                           -- the list goes to stdout only
end

function update(dt)
  wave:sample(m.time(), pose)
end

function draw()
  m.camera{target = {0, 1.05, 0}, distance = 3.9, yaw = 75, pitch = 8}
  m.scene{shadows = false}
  m.draw(man, pose, {wireframe = true, tint = {0.8, 0.85, 1.0}})
  m.draw_skeleton(man, pose, {names = true})
  local hand = m.attach(man, pose, "hand_r")
  local o = hand:translation()
  local s = 0.2
  m.line(o, hand * m.vec3(s, 0, 0), {1, 0.2, 0.2}, true)
  m.line(o, hand * m.vec3(0, s, 0), {0.2, 1, 0.2}, true)
  m.line(o, hand * m.vec3(0, 0, s), {0.3, 0.4, 1}, true)
  m.text(10, 10, string.format("%d joints  -  %s", #man:skeleton(), wave:name()))
  if m.headless() and m.frame() == 15 then m.screenshot("skeleton_view.png") end
end
