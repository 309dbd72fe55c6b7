-- head_tracking.lua — an aim chain: heads follow a moving point.
--
-- Three mannequins idle or walk (mixers) while a ball flies around them.
-- Each one's on_pose callback turns a chain toward the ball with pose:aim:
-- spine_03 takes a fifth of the turn, the neck three tenths and the head
-- the rest, each joint limited to 60 degrees, so the upper body follows the
-- head. The middle figure only turns its head (a one-joint chain with a
-- 45 degree limit) and is left short when the ball is behind it. The ball
-- is a world point (space = "world"; transform = where each is drawn).
--
--   marrow run --headless examples/head_tracking.lua --frames 71 --out examples
local m = require "marrow"

local man, figures, ball = nil, {}, m.vec3(0, 1.6, 0)
local CHAIN = {{"spine_03", 0.2}, {"neck", 0.3}, {"head", 0.5}}

local function figure(clip, x, z, chain, limit)
  local f = {place = m.mat4.translate({x, 0, z}) * m.mat4.rotate(m.quat.euler(0, -90, 0)), mixer = m.mixer(man)}
  f.mixer:play(man:clip(clip), {loop = "repeat"})
  f.mixer:on_pose(function(pose)
    f.left = pose:aim(chain, ball, {space = "world", transform = f.place, limit = limit})
  end)
  return f
end

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"idle", "walk_inplace"}}))
  figures = {
    figure("idle", -1.2, 0, CHAIN, 60),
    figure("idle", 0, 0, {{"head", 1}}, 45),
    figure("walk_inplace", 1.2, 0, CHAIN, 60),
  }
end

function update(dt)
  local t = m.time()
  ball = m.vec3(1.8 * math.sin(0.9 * t), 1.7 + 0.5 * math.sin(1.7 * t), 1.4 + 0.6 * math.cos(0.9 * t))
  for _, f in ipairs(figures) do f.mixer:update(dt) end
end

function draw()
  m.camera{target = {0, 1.1, 0.4}, distance = 5.2, yaw = 0, pitch = 10}
  for _, f in ipairs(figures) do m.draw(man, f.mixer:pose(), {transform = f.place}) end
  m.point(ball, {1, 0.8, 0.1}, 18)
  local w = m.window()
  for i, f in ipairs(figures) do
    m.text(w * 0.5 + (i - 2) * 250 - 60, 40, ("%s off by %.0f deg"):format(i == 2 and "head only," or "chain,", f.left or 0))
  end
  if m.headless() and m.frame() == 35 then m.screenshot("head_tracking.png") end
end
