-- Drawing functions: arguments, attach, camera, and a screenshot written
-- under --out after the frame.
local m = require "marrow"
local H = require "harness"
local man, pose, walk

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk"}}))
  pose = m.pose(man)
  walk = man:clip("walk")
  local w, h = m.window()
  H.check("window size is --size", w == 320 and h == 200, w .. "x" .. h)
  H.check("headless", m.headless())
end

function update(dt)
  walk:sample(m.time(), pose)
end

function draw()
  local eye, target = m.camera{target = {0, 1, 0}, distance = 4, yaw = 0, pitch = 0}
  H.check("camera returns the eye", H.vnear(eye, m.vec3(0, 1, 4), 1e-4) and target == m.vec3(0, 1, 0), tostring(eye))
  m.light(1, {direction = {1, 2, 1}, colour = {1, 0.9, 0.8}})
  m.scene{ambient = {0.3, 0.3, 0.3}}
  m.draw(man, pose, {transform = m.mat4.translate({0.5, 0, 0}), tint = {1, 0.5, 0.5}})
  m.draw(man, nil, {wireframe = true})
  m.draw_skeleton(man, pose)
  m.draw_skeleton(man, pose, {axes = true, names = false})
  H.check("draw_skeleton draws limit cones and hinge arcs", pcall(m.draw_skeleton, man, pose,
    {limits = {upperarm_l = {cone = 40, twist = {-10, 10}}, lowerarm_l = {hinge = {0, 0, 1}, min = -90, max = 0}}}))
  H.raises("draw_skeleton: a bad limit", function() m.draw_skeleton(man, pose, {limits = {upperarm_l = {cone = -5}}}) end,
    "opts.limits['upperarm_l'].cone must be degrees")
  local hand = m.attach(man, pose, "hand_l")
  local expect = man:display_matrix() * pose:model("hand_l"):translation()
  H.check("attach gives the joint's world position", H.vnear(hand:translation(), expect, 1e-4))
  local moved = m.attach(man, pose, "hand_l", {transform = m.mat4.translate({1, 0, 0})})
  H.check("attach follows the transform", H.vnear(moved:translation(), expect + m.vec3(1, 0, 0), 1e-4))
  -- An optional argument before the options: nil holds its place, or the options take it.
  local held = m.attach(man, pose, "hand_l", nil, {transform = m.mat4.translate({1, 0, 0})})
  H.check("attach: options after a nil offset are read", H.vnear(held:translation(), expect + m.vec3(1, 0, 0), 1e-4),
    tostring(held:translation()))
  local offset = m.attach(man, pose, "hand_l", m.mat4.translate({0, 0, 0}), {transform = m.mat4.translate({1, 0, 0})})
  H.check("attach: offset and options", H.vnear(offset:translation(), expect + m.vec3(1, 0, 0), 1e-4))
  H.check("draw: options in the pose's place", pcall(m.draw, man, {transform = m.mat4.translate({0.5, 0, 0})}))
  H.check("draw_skeleton: options in the pose's place", pcall(m.draw_skeleton, man, {names = false}))
  H.raises("draw: a wrong option in the pose's place still fails", function() m.draw(man, {transform = 3}) end,
    "opts.transform must be a mat4")
  H.raises("draw: a table before options is not a pose", function() m.draw(man, {}, {}) end,
    "bad argument #2 to 'marrow.draw' (pose expected, got table)")
  H.raises("attach: a wrong offset still fails", function() m.attach(man, pose, "hand_l", 5, {}) end,
    "bad argument #4 to 'marrow.attach' (mat4 expected, got number)")
  m.line({0, 0, 0}, {0, 2, 0}, {1, 0, 0})
  m.point({0, 2, 0}, {0, 1, 0}, 8)
  m.text(10, 10, "frame " .. m.frame())
  H.raises("draw wants a model", function() m.draw(pose) end, "bad argument #1 to 'marrow.draw' (model expected, got pose)")
  H.raises("transform must be a mat4", function() m.draw(man, pose, {transform = 3}) end, "opts.transform must be a mat4")
  H.raises("light index", function() m.light(3, {}) end, "light index must be 1 or 2")
  H.raises("floor radius", function() m.scene{floor = {radius = -1}} end, "floor.radius must be")
  H.raises("floor center", function() m.scene{floor = {center = "here"}} end, "floor.center must be a vec3")
  m.scene{floor = {center = {2, 0.1, -3}, radius = 12, grid = 0.25, visible = true}}
  m.scene{floor = {center = false, radius = 0, grid = 0}}
  m.scene{floor = true}
  H.raises("colour", function() m.line({0, 0, 0}, {1, 1, 1}, "red") end, "table expected, got string")
  if m.frame() == 1 then
    H.check("screenshot path is under --out", m.screenshot("sub/shot.png"):find("/sub/shot.png", 1, true) ~= nil)
  end
  if m.frame() == 2 then
    local f = io.open(arg[1] .. "/sub/shot.png", "rb")
    H.check("screenshot written after the frame", f ~= nil and f:read(4) == "\137PNG")
    if f then f:close() end
    H.finish()
  end
end
