-- ponytail_follow_through.lua — secondary motion: the mannequin with a
-- ponytail (models/mannequin_tail.md5mesh) walks, stops dead, turns on the
-- spot, and the ponytail follows through. The walk and idle clips of the
-- plain mannequin drive the body (the first 22 joints are the same);
-- marrow.springs makes the ponytail a spring chain (stiffness, drag,
-- gravity, in the model's inches; gravity points down the world's Y) with the head and the upper back as
-- colliders, stepped at a fixed 120 Hz whatever the frame rate. The placement
-- (root motion, display matrix) goes to springs:update, so walking drags the
-- hair back and stopping swings it forward.
--
-- The picture: the tip's path through the world (orange; the head's in grey),
-- and above it a chart of the tip's offset from where it hangs at rest, in the
-- head's frame, over time (red: forward/back, blue: up/down, grey bars: the
-- stop at 2 s and the turn from 2.6 s).
--
--   marrow run --headless examples/ponytail_follow_through.lua --frames 136 --out examples
local m = require "marrow"

local man, tail, mixer, springs, display, place
local pose, trail, head_trail, chart = nil, {}, {}, {}
local STOP, TURN0, TURN1 = 2.0, 2.6, 3.6

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk", "idle"}}))
  tail = assert(m.model("models/mannequin_tail.md5mesh"))
  mixer = m.mixer(man)
  mixer:set_root_motion("pelvis")
  mixer:play(man:clip("walk"), {loop = "repeat", root_motion = true})
  springs = m.springs(tail, {
    chains = {{joints = {"ponytail_01", "ponytail_02", "ponytail_03", "ponytail_04", "ponytail_05", "ponytail_06"},
               stiffness = {40, 30, 22, 16, 12}, drag = 0.12, gravity = {0, -40, 0}, radius = 0.9}},   -- gravity: world (Y up)
    colliders = {{joint = "head", radius = 4.3, offset = {-0.4, 0, 4.6}},
                 {joint = "spine_03", radius = 4.2, offset = {-1.2, 0, 0}, tail = {-1.4, 0, 7}}},
  })
  display = tail:display_matrix()
  place = m.mat4()
  pose = m.pose(tail)
  local body = mixer:pose()
  for j = 1, 22 do pose:set_local(j, body:get_local(j)) end
  for _ = 1, 120 do springs:update(pose, 1 / 60, display) end   -- let the hair settle before the walk
end

function update(dt)
  local t = m.time()
  if t >= STOP and t - dt < STOP then mixer:play(man:clip("idle"), {loop = "repeat", fade = 0.25}) end
  mixer:update(dt)
  local d, yaw = mixer:root_motion()
  if t > TURN0 and t <= TURN1 then yaw = yaw + 150 * dt / (TURN1 - TURN0) end   -- turn on the spot (degrees)
  place = place * m.mat4.translate(d) * m.mat4.rotate(m.quat.axis_angle({0, 0, 1}, yaw))
  local body = mixer:pose()
  for j = 1, 22 do pose:set_local(j, body:get_local(j)) end   -- the same joints, in the same order
  local world = display * place
  springs:update(pose, dt, world)
  -- the tip's path, and its offset in the head's frame from where it hangs at rest
  local head = pose:model("head")
  trail[#trail + 1] = world * pose:position("ponytail_06")
  head_trail[#head_trail + 1] = world * pose:position("head")
  local rest = m.pose(tail)
  local off = head:inverse() * pose:position("ponytail_06") - rest:model("head"):inverse() * rest:position("ponytail_06")
  chart[#chart + 1] = {t, off.x, off.z}
end

local function draw_chart()
  -- time along x from -0.6 to 2.9 m over 4.5 s, offsets (inches) 15 cm an inch around y = 2.45 m, behind the walk
  local function at(t, v) return m.vec3(-0.6 + 3.5 * t / 4.5, 2.45 + 0.15 * v, -0.8) end
  m.line(at(0, 0), at(4.5, 0), {0.6, 0.6, 0.6}, true)
  for _, tt in ipairs{STOP, TURN0, TURN1} do m.line(at(tt, -3), at(tt, 3), {0.45, 0.45, 0.45}, true) end
  for i = 2, #chart do
    local a, b = chart[i - 1], chart[i]
    m.line(at(a[1], a[2]), at(b[1], b[2]), {0.95, 0.35, 0.3}, true)
    m.line(at(a[1], a[3]), at(b[1], b[3]), {0.35, 0.55, 1.0}, true)
  end
end

function draw()
  m.camera{target = {1.2, 1.35, 0}, distance = 4.6, yaw = 8, pitch = 6}
  m.draw(tail, pose, {transform = display * place * display:inverse()})
  for i = 2, #trail do
    m.line(trail[i - 1], trail[i], {1.0, 0.6, 0.1}, true)
    m.line(head_trail[i - 1], head_trail[i], {0.7, 0.7, 0.7}, true)
  end
  draw_chart()
  m.text(10, 10, ("%.2f s  %s"):format(m.time(), m.time() < STOP and "walking" or m.time() < TURN0 and "stopped"
    or m.time() < TURN1 and "turning" or "standing"))
  m.text(10, 32, "ponytail tip: path (orange), offset from rest in the head's frame (red fwd/back, blue up/down)")
  if m.headless() and m.frame() == 135 then m.screenshot("ponytail_follow_through.png") end
end
