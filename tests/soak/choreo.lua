-- choreo.lua — the soak scene of scripts/soak.sh (`make soak`): run for
-- 100 000 headless frames, resident memory, descriptors and GL objects must
-- stay flat.
--
-- Three mannequins with mixers: cross-fades and queues that cycle forever,
-- a masked wave layer, event handlers (loop, end and "*"), an on_pose
-- callback doing two-bone IK and an aim, bone overrides on the returned
-- pose, an attached sword. Every few seconds a mixer, its handlers and
-- some poses are thrown away and made again, so garbage collection of
-- mixers, poses and masks runs all the time.
local m = require "marrow"

local man, sword, clips, figures, events = nil, nil, {}, {}, 0
local names = {"idle", "walk", "run", "wave"}

local function make_figure(i)
  local f = {place = m.mat4.translate({(i - 2) * 1.2, 0, 0}), mixer = m.mixer(man)}
  f.mixer:play(clips[names[(i % 3) + 1]], {loop = "repeat"})
  f.mixer:track(2, {mask = man:mask{{"spine_01", falloff = 3}}})
  f.mixer:on("loop", function(e) events = events + 1 end)
  f.mixer:on("*", function(e)
    if e.name == "end" then f.mixer:track(2):stop(0.2) end
  end)
  f.target = m.vec3(0.3, 1.2, 0.3)
  f.mixer:on_pose(function(pose)
    pose:two_bone_ik("upperarm_l", "lowerarm_l", "hand_l", f.target, {space = "model"})
    pose:aim({{"neck", 0.4}, {"head", 0.6}}, m.vec3(0, 1.6, 2), {space = "model", limit = 45})
  end)
  return f
end

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = names}))
  sword = assert(m.model("models/sword.md5mesh"))
  for _, n in ipairs(names) do clips[n] = man:clip(n) end
  for i = 1, 3 do figures[i] = make_figure(i) end
end

local step = 0
function update(dt)
  step = step + 1
  local t = m.time()
  for i, f in ipairs(figures) do
    -- every 1.5 s somebody changes what they do
    if (step + i * 17) % 90 == 0 then
      local c = clips[names[(step // 90 + i) % 3 + 1]]
      f.mixer:crossfade(c, 0.4, {loop = "repeat", sync = (i == 2)})
      f.mixer:queue(clips.idle, {fade = 0.3, loop = "once"})
      f.mixer:track(2):play(clips.wave, {loop = "once", fade = 0.2})
    end
    f.target = m.vec3(0.3 + 0.1 * math.cos(t * 3 + i), 1.2 + 0.1 * math.sin(t * 2), 0.3)
    f.mixer:update(dt)
    local pose = f.mixer:pose()
    pose:rotate("upperarm_r", m.quat.euler(0, 0, 20 * math.sin(t + i)), {weight = 0.5})
    pose:translate("pelvis", {0, 0.01 * math.sin(t * 4), 0}, {weight = 0.3})
  end
  -- every 5 s one figure is replaced: the old mixer, its handlers, mask and
  -- poses become garbage
  if step % 300 == 0 then
    local i = (step // 300) % 3 + 1
    figures[i] = make_figure(i)
    local extra = m.pose(man)
    clips.walk:sample(t, extra)
  end
  if step % 600 == 0 then collectgarbage("collect") end
end

function draw()
  m.camera{target = {0, 0.9, 0}, distance = 5, yaw = 15, pitch = 8}
  for _, f in ipairs(figures) do
    local pose = f.mixer:pose()
    m.draw(man, pose, {transform = f.place})
    m.draw(sword, nil, {transform = m.attach(man, pose, "hand_r", {transform = f.place})})
  end
  m.line({-2, 0, 0}, {2, 0, 0}, {0.5, 0.5, 0.5})
  m.text(8, 8, ("frame %d  events %d"):format(m.frame(), events))
  m.screenshot("choreo.png")   -- a headless frame is rendered only for a screenshot: every one is
end
