-- churn.lua — the short leak check of tests/cli_lua.sh: every frame makes
-- and throws away mixers (with handlers, masks and an on_pose callback),
-- poses and attachments, samples and draws, and collects the garbage before
-- the frame ends, so what malloc holds (heap_kb of MARROW_STATS_EVERY,
-- src/cli/stats.h) and the live GL objects must stay flat after the first
-- frames. Each frame takes a screenshot (one file, rewritten), since a
-- headless frame is rendered only for one. scripts/soak.sh runs the long
-- version (choreo.lua).
local m = require "marrow"

local man, sword, clips
local names = {"idle", "walk", "run", "wave"}

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = names}))
  sword = assert(m.model("models/sword.md5mesh"))
  clips = {}
  for _, n in ipairs(names) do clips[n] = man:clip(n) end
end

local last

function update(dt)
  local step = m.frame()
  for i = 1, 4 do
    local mx = m.mixer(man)
    mx:play(clips[names[(step + i) % 4 + 1]], {loop = "repeat", start = i * 0.1})
    mx:crossfade(clips[names[(step + i + 1) % 4 + 1]], 0.2, {loop = "once"})
    mx:track(2, {mask = man:mask{{"spine_01", falloff = 2}}}):play(clips.wave, {loop = "repeat"})
    mx:on("*", function(e) return e.name end)
    mx:on_pose(function(pose) pose:aim({{"head", 1}}, m.vec3(0, 1.6, 2), {space = "model"}) end)
    mx:update(dt + i * 0.3)
    local p = m.pose(man)
    mx:pose(p)
    clips.walk:sample(step * dt, p)
    if i == 4 then last = mx else mx:close() end
  end
end

function draw()
  m.camera{target = {0, 0.9, 0}, distance = 4}
  local pose = last:pose()
  m.draw(man, pose)
  m.draw(sword, nil, {transform = m.attach(man, pose, "hand_r")})
  m.text(4, 4, ("frame %d"):format(m.frame()))
  m.screenshot("churn.png")   -- a headless frame is rendered only for a screenshot: every one is
  collectgarbage("collect")
end
