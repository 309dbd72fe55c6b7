-- scripts/statemachine.lua: transitions by condition, time and clip end,
-- cross-fades on the mixer, blend-space states, errors.
local m = require "marrow"
local H = require "harness"
local sm = require "statemachine"
local clock, entered_at

function load()
  local man = assert(m.model("models/mannequin.md5mesh", {anims = {"idle", "walk", "run", "wave"}}))
  local idle, walk, run, wave = man:clip("idle"), man:clip("walk"), man:clip("run"), man:clip("wave")
  local mixer = m.mixer(man)
  local entered, changes = {}, {}
  local brain = sm.new(mixer, {
    initial = "idle",
    states = {
      idle = {clip = idle, loop = "repeat", enter = function(_, from) entered[#entered + 1] = "idle<" .. tostring(from) end},
      walk = {clip = walk, loop = "repeat"},
      run = {clip = run, loop = "repeat"},
      wave = {clip = wave},
    },
    transitions = {
      {from = "idle", to = "walk", when = function(ctx) return ctx.speed > 0.1 end, fade = 0.3},
      {from = "walk", to = "run", when = function(ctx) return ctx.speed > 2 end, fade = 0.4, sync = true},
      {from = {"walk", "run"}, to = "idle", when = function(ctx) return ctx.speed < 0.1 end, fade = 0.5},
      {from = "wave", to = "idle", at_end = true, fade = 0.2},
      {from = "idle", to = "wave", after = 3},
    },
  })
  brain:on_change(function(_, from, to) changes[#changes + 1] = tostring(from) .. ">" .. to end)
  H.check("starts in the initial state", brain.state == "idle" and mixer:playing()[1].clip:name() == "idle")
  local function step(n, ctx)
    for _ = 1, n do brain:update(1 / 30, ctx); mixer:update(1 / 30) end
  end
  step(10, {speed = 0})
  H.check("stays while no condition holds", brain.state == "idle")
  step(1, {speed = 1})
  H.check("a condition moves to walk", brain.state == "walk" and brain.time == 0)
  step(4, {speed = 1})
  local w = mixer:clip_weight(walk)
  H.check("the move cross-fades", w > 0 and w < 1 and mixer:clip_weight(idle) > 0, w)
  step(10, {speed = 1})
  H.check("the fade completes", mixer:clip_weight(walk) == 1)
  step(1, {speed = 3})
  local t_walk = mixer:playing()[2] and mixer:playing()[2].time
  H.check("walk -> run with sync starts run at walk's phase", brain.state == "run" and
    H.near(mixer:time() / run:duration(), t_walk / walk:duration(), 0.05), tostring(mixer:time()) .. " " .. tostring(t_walk))
  step(30, {speed = 0})
  H.check("a list of sources", brain.state == "idle")
  step(3 * 30 + 2, {speed = 0})
  H.check("'after' seconds in a state", brain.state == "wave")
  step(70, {speed = 0})
  H.check("at_end waits for the clip's end", brain.state == "idle", brain.state)
  H.check("enter and on_change are called", #entered >= 2 and entered[1] == "idle<nil" and entered[2] == "idle<run" and changes[1] == "idle>walk", table.concat(changes, " "))
  brain:set("run", 0)
  H.check("set forces a state", brain.state == "run" and mixer:clip_weight(run) == 1)

  -- per state: restart = false continues a clip the track already plays; sync
  -- starts at the phase of the clip being left; `after` re-fires on a self-transition
  local mx3 = m.mixer(man)
  local cont = sm.new(mx3, {initial = "a", states = {a = {clip = walk, loop = "repeat"},
    b = {clip = walk, loop = "repeat", restart = false}, c = {clip = walk, loop = "repeat"},
    d = {clip = run, loop = "repeat", sync = true}}})
  for _ = 1, 10 do mx3:update(1 / 30) end
  local t0 = mx3:time()
  cont:set("b", 0)
  H.check("restart = false: the same clip goes on", H.near(mx3:time(), t0, 1e-5) and cont.time == 0, mx3:time())
  cont:set("c", 0)
  H.check("restart (default): the same clip starts over", H.near(mx3:time(), 0, 1e-5), mx3:time())
  for _ = 1, 12 do mx3:update(1 / 30) end
  local phase = mx3:time() / walk:duration()
  cont:set("d", 0.3)
  H.check("sync = true on the state: run starts at walk's phase", H.near(mx3:time() / run:duration(), phase, 0.02),
    tostring(mx3:time() / run:duration()) .. " vs " .. phase)
  local mx4 = m.mixer(man)
  local fires = 0
  local rep = sm.new(mx4, {initial = "idle", states = {idle = {clip = idle, loop = "repeat"}},
    transitions = {{from = "idle", to = "idle", after = 1}, {from = "*", to = "idle", after = 0.1}}})
  rep:on_change(function() fires = fires + 1 end)
  for _ = 1, 100 do rep:update(1 / 30); mx4:update(1 / 30) end  -- ~3.3 s
  H.check("after on a self-transition fires every period; '*' never re-enters", fires == 3, fires)

  -- a blend-space state on a track
  local bs = m.blendspace1d(man, {{idle, 0}, {walk, 1.5}, {run, 4}})
  local mx2 = m.mixer(man)
  local loco = sm.new(mx2:track(2), {initial = "move", states = {move = {blendspace = bs, loop = "repeat",
    param = function(ctx) return ctx.speed end}}})
  loco:update(0, {speed = 1.5}); mx2:update(0.1)
  H.check("blend-space state follows its parameter", H.near(mx2:track(2):playing()[1].weight, 1) and
    mx2:track(2):playing()[1].blendspace == true)

  H.raises("unknown target state", function() sm.new(mixer, {initial = "idle", states = {idle = {clip = idle}},
    transitions = {{from = "idle", to = "jump"}}}) end, "transition 1 goes to unknown state 'jump'")
  H.raises("state without a clip", function() sm.new(mixer, {initial = "a", states = {a = {}}}) end,
    "state 'a' needs a clip or a blendspace")
  H.raises("bad initial", function() sm.new(mixer, {initial = "b", states = {a = {clip = idle}}}) end,
    "def.initial must name a state")
  H.raises("a condition that errors propagates", function()
    sm.new(mixer, {initial = "a", states = {a = {clip = idle}, b = {clip = walk}},
      transitions = {{from = "a", to = "b", when = function() error("condition failed on purpose") end}}}):update(0.1, {})
  end, "condition failed on purpose")

  -- machine.time runs on marrow.time()'s clock, not a frame ahead of it
  local mx5 = m.mixer(man)
  clock = sm.new(mx5, {initial = "idle", states = {idle = {clip = idle, loop = "repeat"}, wave = {clip = wave}},
    transitions = {{from = "idle", to = "wave", after = 0.04}}})
  entered_at = m.time()
end

local frames, same, on_time = 0, true, true
function update(dt)
  local due = clock.state == "wave" or m.time() - entered_at >= 0.04 - 1e-9
  clock:update(dt)
  frames = frames + 1
  if clock.state == "idle" and not H.near(clock.time, m.time() - entered_at, 1e-6) then
    same = clock.time .. " vs " .. (m.time() - entered_at)
  end
  if (clock.state == "wave") ~= due then on_time = clock.state .. " at " .. m.time() end
  if frames == 4 then
    H.check("machine.time is marrow.time() since the state was entered", same == true, same)
    H.check("'after' fires when marrow.time() has moved that far, not a frame early", on_time == true and
      clock.state == "wave", on_time)
    H.finish()
  end
end
