-- mixer, track, mask, blend, additive, blend spaces, markers and events from
-- Lua: the choreography bindings (wrap_mixer.c, wrap_mask.c, wrap_blendspace.c).
local m = require "marrow"
local H = require "harness"

local man, sk, walk, idle, wave

-- Largest joint position difference between two poses (model units).
local function diff(a, b)
  local d = 0
  for j = 1, #a do d = math.max(d, (a:position(j) - b:position(j)):length()) end
  return d
end

-- 1 when the local TRS of joint j are bit-identical in a and b.
local function same_local(a, b, j)
  local t1, r1, s1 = a:get_local(j)
  local t2, r2, s2 = b:get_local(j)
  return t1 == t2 and r1.x == r2.x and r1.y == r2.y and r1.z == r2.z and r1.w == r2.w and s1 == s2
end

-- The same joint within 1e-6 (a blend renormalises rotations, and a packed
-- clip's decoded keys are unit only to float precision).
local function near_local(a, b, j)
  local t1, r1, s1 = a:get_local(j)
  local t2, r2, s2 = b:get_local(j)
  return (t1 - t2):length() < 1e-6 and math.abs(r1.x - r2.x) < 1e-6 and math.abs(r1.y - r2.y) < 1e-6 and
         math.abs(r1.z - r2.z) < 1e-6 and math.abs(r1.w - r2.w) < 1e-6 and (s1 - s2):length() < 1e-6
end

local function identical(a, b)
  for j = 1, #a do if not same_local(a, b, j) then return false, j end end
  return true
end

-- Counts marker/loop events for `total` seconds of playback in steps of dt.
local function count_events(clip, opts, total, dt)
  local mx = m.mixer(man)
  local counts = {}
  mx:on("*", function(e) counts[e.name] = (counts[e.name] or 0) + 1 end)
  mx:play(clip, opts)
  local t = 0
  while t < total - 1e-9 do
    local step = math.min(dt, total - t)
    mx:update(step)
    t = t + step
  end
  return counts
end

local function basics()
  local mx = m.mixer(man)
  H.check("marrow.mixer makes a mixer", tostring(mx) == "mixer (8 tracks, 22 joints)" and mx:tracks() == 8)
  H.check("mixer{tracks} sizes it", m.mixer(man, {tracks = 3}):tracks() == 3)
  local tr = mx:track(2)
  H.check("track(i) is a track", tostring(tr) == "track 2" and tr:index() == 2)
  H.check("idle mixer: rest pose, time 0", identical(mx:pose(), m.pose(man)) and mx:time() == 0)
  H.check("play returns self (chains)", mx:play(walk, {loop = "repeat"}) == mx)
  mx:update(0.25)
  H.check("time advances", H.near(mx:time(), 0.25, 1e-5), mx:time())
  local ref = m.pose(man); walk:sample(0.25, ref)
  H.check("pose is the clip's at that time", diff(mx:pose(), ref) < 1e-3, diff(mx:pose(), ref))
  H.check("weight of track 1 is 1", mx:weight() == 1)
  mx:pause(); mx:update(0.5)
  H.check("pause freezes time", H.near(mx:time(), 0.25, 1e-5))
  mx:resume(); mx:update(0.1)
  H.check("resume continues", H.near(mx:time(), 0.35, 1e-5))
  mx:seek(0.9)
  H.check("seek moves", H.near(mx:time(), 0.9, 1e-5))
  mx:set_speed(2); mx:update(0.05)
  H.check("set_speed", H.near(mx:time(), 1.0, 1e-4), mx:time())
  local p1 = mx:pose()
  p1:rotate("head", m.quat.euler(0, 0, 30))
  H.check("pose() without a change keeps the script's overrides", mx:pose() == p1 and
    identical(mx:pose(), p1))
  local out = m.pose(man)
  H.check("pose(out) evaluates into out", mx:pose(out) == out and not identical(out, p1))
  mx:play(walk, {loop = "repeat", start = 0.5, restart = true})
  H.check("restart with start", H.near(mx:time(), 0.5, 1e-5))
  mx:play(walk, {loop = "repeat", start = 0.1})
  H.check("play of the current clip does not restart", H.near(mx:time(), 0.5, 1e-5))
  mx:set_weight(0.5)
  H.check("set_weight", mx:weight() == 0.5)
  mx:set_weight(1)
  local playing = mx:playing()
  H.check("playing() lists the clip", #playing == 1 and playing[1].clip:name() == "walk_inplace" and playing[1].current)
  H.check("clip_weight", mx:clip_weight(walk) == 1 and mx:clip_weight(idle) == 0)
  mx:stop(0.2); mx:update(0.1)
  H.check("stop(fade) fades the track's fill", mx:clip_weight(walk) > 0 and mx:clip_weight(walk) < 1, mx:clip_weight(walk))
  mx:update(0.2)
  H.check("stop ends at the rest pose", diff(mx:pose(), m.pose(man)) < 1e-4)

  -- queue: wave (once) then idle
  local q = m.mixer(man)
  local started = {}
  q:on("start", function(e) started[#started + 1] = e.clip:name() end)
  q:play(wave):queue(idle, {delay = 0.5})
  q:update(2.2)
  H.check("queue waits for the end + delay", #started == 1 and started[1] == "wave", table.concat(started, ","))
  q:update(0.4)
  H.check("the queued clip starts after the delay", #started == 2 and started[2] == "idle", table.concat(started, ","))

  -- loop modes
  local c = count_events(wave, {loop = "repeat", repetitions = 3}, 10, 0.1)
  H.check("repeat 3: two loops and one end", c.loop == 2 and c["end"] == 1, tostring(c.loop) .. " " .. tostring(c["end"]))
  c = count_events(wave, {loop = "pingpong", repetitions = 2}, 10, 0.1)
  H.check("pingpong 2: one turn and one end", c.loop == 1 and c["end"] == 1)
  c = count_events(wave, {loop = "once"}, 10, 0.1)
  H.check("once: one end", c.loop == nil and c["end"] == 1)
end

local function events()
  walk:marker(0.3, "step_l"):marker(0.85, "step_r")
  walk:marker(0.3, "step_l")
  local mk = walk:markers()
  H.check("clip:marker adds once (a reload adds nothing)", #mk == 2 and mk[1].name == "step_l" and H.near(mk[1].time, 0.3, 1e-6))
  -- 11 s of walk (1.1 s cycle) = 10 cycles: 10 of each marker, 10 wraps.
  for _, dt in ipairs({1 / 240, 1 / 60, 1 / 30, 0.1, 0.37, 1, 2}) do
    local c = count_events(walk, {loop = "repeat"}, 11.0 - 1e-4, dt)
    H.check(("events once per crossing, dt %.4f"):format(dt), c.step_l == 10 and c.step_r == 10 and c.loop == 9 and c.start == 1,
      ("step_l %s step_r %s loop %s"):format(c.step_l, c.step_r, c.loop))
    local b = count_events(walk, {loop = "repeat", speed = -1}, 11.0 - 1e-4, dt)
    H.check(("events once per crossing backward, dt %.4f"):format(dt), b.step_l == 10 and b.step_r == 10 and b.loop == 9,
      ("step_l %s step_r %s loop %s"):format(b.step_l, b.step_r, b.loop))
  end
  -- order and fields
  local mx, seen = m.mixer(man), {}
  mx:on("step_l", function(e) seen[#seen + 1] = e end)
  mx:play(walk, {loop = "repeat"}); mx:update(0.5)
  H.check("event fields", #seen == 1 and seen[1].name == "step_l" and seen[1].track == 1 and
    seen[1].clip:name() == "walk_inplace" and H.near(seen[1].time, 0.3, 1e-4) and H.near(seen[1].offset, 0.3, 1e-4))
  local f = function() end
  mx:on("step_r", f); mx:off("step_r", f); mx:off("step_l")
  local before = #seen
  mx:update(1.1)
  H.check("off removes handlers", #seen == before)

  -- a handler that raises: the error comes out of update, the mixer goes on
  local bad = m.mixer(man)
  bad:on("step_l", function() error("handler failed on purpose") end)
  bad:play(walk, {loop = "repeat"})
  local ok, err = pcall(bad.update, bad, 0.5)
  H.check("an error in a handler comes out of update", not ok and tostring(err):find("handler failed on purpose", 1, true), err)
  ok = pcall(bad.update, bad, 0.1)
  H.check("the mixer keeps working after a handler error", ok and bad:time() > 0.5)
  local nested = m.mixer(man)
  nested:on("start", function() nested:update(0.1) end)
  nested:play(walk)
  ok, err = pcall(nested.update, nested, 0.1)
  H.check("update from a handler is refused", not ok and tostring(err):find("called from one of its event handlers", 1, true), err)
  local switch = m.mixer(man)
  switch:on("end", function() switch:play(idle, {loop = true}) end)
  switch:play(wave); switch:update(2.5)
  H.check("a handler may play a clip", switch:playing()[1].clip:name() == "idle")
end

local function crossfades()
  -- continuity: no frame-to-frame jump bigger than the clips' own motion
  local mx = m.mixer(man)
  mx:play(walk, {loop = "repeat"}); mx:update(0.4)
  local prev = mx:pose():copy()
  local biggest = 0
  local dt = 1 / 120
  mx:crossfade(idle, 0.5, {loop = "repeat"})
  local mid_w
  for i = 1, 90 do
    mx:update(dt)
    local p = mx:pose()
    biggest = math.max(biggest, diff(p, prev))
    prev:set(p)
    if i == 30 then mid_w = mx:clip_weight(walk) end
  end
  H.check("cross-fade is continuous (< 1 inch per 1/120 s)", biggest < 1.0, biggest)
  H.check("mid-fade both clips weigh", mid_w > 0.05 and mid_w < 0.95, mid_w)
  H.check("after the fade only idle", mx:clip_weight(walk) == 0 and mx:clip_weight(idle) == 1)
  local lin = m.mixer(man)
  lin:play(walk, {loop = "repeat"}); lin:crossfade(idle, 1, {curve = "linear"}); lin:update(0.25)
  H.check("linear curve: weight 0.25 after a quarter", H.near(lin:clip_weight(idle), 0.25, 1e-4), lin:clip_weight(idle))
  -- sync: the incoming clip starts at the outgoing clip's phase
  local s = m.mixer(man)
  s:play(walk, {loop = "repeat"}); s:update(0.55)
  s:crossfade(idle, 0.3, {sync = true, loop = "repeat"})
  H.check("sync starts at the same phase", H.near(s:time() / idle:duration(), 0.5, 1e-3), s:time())
end

-- mixer:clip_weight sums the clip over every track (track weight x share);
-- track:clip_weight is the share of that one track.
local function clip_weight_everywhere()
  local mx = m.mixer(man)
  mx:play(walk, {loop = "repeat"})
  mx:track(2):play(wave, {loop = "repeat", weight = 0.5})
  mx:track(3):play(wave, {loop = "repeat", weight = 0.25})
  mx:update(0.1)
  H.check("mixer:clip_weight of a clip on tracks 2 and 3 only", H.near(mx:clip_weight(wave), 0.75), mx:clip_weight(wave))
  H.check("track:clip_weight is that track's share", mx:track(2):clip_weight(wave) == 1 and mx:track(1):clip_weight(wave) == 0)
  H.check("mixer:clip_weight on track 1 alone", mx:clip_weight(walk) == 1)
  mx:track(3):crossfade(walk, 1, {curve = "linear", loop = "repeat"}); mx:update(0.5)
  H.check("a fading instance on another track counts with the track weight",
    H.near(mx:clip_weight(walk), 1 + 0.25 * 0.5, 1e-4) and H.near(mx:clip_weight(wave), 0.5 + 0.25 * 0.5, 1e-4),
    mx:clip_weight(walk) .. " " .. mx:clip_weight(wave))
  mx:track(2):set_weight(0)
  H.check("a track at weight 0 adds nothing", H.near(mx:clip_weight(wave), 0.125, 1e-4), mx:clip_weight(wave))
end

local function layers()
  local upper = man:mask{"spine_01"}
  H.check("mask of a subtree", upper:get("head") == 1 and upper:get("hand_r") == 1 and upper:get("thigh_l") == 0 and upper:get("pelvis") == 0)
  local ramp = man:mask{{"spine_01", falloff = 3}}
  H.check("falloff ramps along the chain", H.near(ramp:get("spine_01"), 1 / 3) and H.near(ramp:get("spine_02"), 2 / 3) and ramp:get("spine_03") == 1 and ramp:get("head") == 1)
  local legs = man:mask{"thigh_l", "thigh_r"}
  local both = upper + legs
  H.check("mask + mask is the union", both:get("head") == 1 and both:get("calf_r") == 1 and both:get("pelvis") == 0)
  H.check("mask_union", m.mask_union(upper, legs):get("calf_l") == 1)
  H.check("invert", (-upper):get("pelvis") == 1 and upper:invert():get("head") == 0 and man:mask{"spine_01", invert = true}:get("thigh_l") == 1)
  H.check("intersection and scale", (upper * legs):get("head") == 0 and (upper * 0.5):get("head") == 0.5)
  H.check("single joint, weight", H.near(man:mask{"head", subtree = false, weight = 0.4}:get("head"), 0.4) and #upper == 22)
  H.raises("unknown joint in a mask", function() man:mask{"spine_1"} end, "unknown joint 'spine_1'", "did you mean")
  H.raises("bad falloff", function() man:mask{{"spine_01", falloff = 0}} end, "falloff must be")

  -- masked upper-body layer: lower body exactly the base
  local base = m.mixer(man); base:play(walk, {loop = "repeat"})
  local mx = m.mixer(man)
  mx:play(walk, {loop = "repeat"})
  mx:track(2, {mask = upper}):play(wave, {loop = "repeat"})
  base:update(0.7); mx:update(0.7)
  local a, b = mx:pose(), base:pose()
  local legs_same = true
  for _, j in ipairs({"pelvis", "thigh_l", "calf_l", "foot_l", "thigh_r", "ball_r"}) do legs_same = legs_same and same_local(a, b, j) end
  H.check("masked layer leaves the lower body exactly", legs_same)
  H.check("masked layer moves the arms", (a:position("hand_r") - b:position("hand_r")):length() > 1)
  mx:set_mask(2, man:mask{})
  H.check("mask weight 0 leaves the lower layer exactly", identical(mx:pose(), base:pose()))
  mx:track(2):set_mask(nil)
  mx:track(2):set_weight(0)
  H.check("track weight 0 leaves the lower layer exactly", identical(mx:pose(), base:pose()))

  -- additive
  local add = m.additive(wave, 0)
  H.check("marrow.additive makes a clip", add:name() == "wave.additive" and H.near(add:duration(), wave:duration()))
  local ad = m.mixer(man)
  ad:play(walk, {loop = "repeat"})
  ad:track(2, {additive = true, weight = 0}):play(add, {loop = "repeat"})
  ad:update(0.7)
  H.check("additive weight 0 is the identity", identical(ad:pose(), base:pose()))
  ad:track(2):set_weight(1)
  H.check("additive weight 1 moves", diff(ad:pose(), base:pose()) > 1)
  local rest_ref = m.additive(wave, m.pose(man))
  H.check("additive against a pose", rest_ref:name() == "wave.additive")

  -- marrow.blend
  local pw, pi = m.pose(man), m.pose(man)
  walk:sample(0.3, pw); idle:sample(1, pi)
  local out = m.pose(man)
  m.blend(out, {pw, 1}, {pi, 0})
  H.check("blend weight 1/0 gives the first pose", diff(out, pw) < 1e-4)
  m.blend(out, {pw, 1}, {pi, 1})
  local half = pw:copy():blend(pi, 0.5)
  H.check("blend 1:1 is the midpoint", diff(out, half) < 1e-3, diff(out, half))
  m.blend(out, {pw, 1}, {pi, 1, legs}, upper)
  H.check("blend masks: trailing and per pose", near_local(out, pw, "head") and near_local(out, pi, "calf_l"))
  H.raises("blend wants {pose, weight}", function() m.blend(out, {5, 1}) end, "{pose, weight [, mask]} expected")

  -- blend spaces
  local bs = m.blendspace1d(man, {{idle, 0}, {walk, 1.5}})
  H.check("blendspace1d", tostring(bs) == "blendspace (1D, 2 clips)" and #bs == 2)
  local w = bs:weights(0.75)
  H.check("1D weights between two points", H.near(w[1], 0.5) and H.near(w[2], 0.5))
  H.check("blended duration", H.near(bs:duration(0.75), 0.5 * (idle:duration() + walk:duration()), 1e-4))
  local sp = m.pose(man)
  bs:sample(1.5, 0.25, sp)
  local wq = m.pose(man); walk:sample(0.25 * walk:duration(), wq)
  H.check("sample at a clip's point is that clip", diff(sp, wq) < 1e-3)
  local bs2 = m.blendspace2d(man, {{idle, 0, 0}, {walk, 0, 1}, {wave, 1, 0}})
  H.check("blendspace2d weights sum to 1", (function() local s = 0 for _, v in ipairs(bs2:weights({0.3, 0.3})) do s = s + v end return H.near(s, 1) end)())
  local bm = m.mixer(man)
  bm:play_blendspace(bs, 1.5, {loop = "repeat"}); bm:update(0.25 * walk:duration())
  H.check("mixer plays a blend space", diff(bm:pose(), wq) < 1e-2, diff(bm:pose(), wq))
  bm:set_param(0)
  H.check("set_param moves it", diff(bm:pose(), wq) > 1e-2)
  local frozen = m.mixer(man)
  frozen:play_blendspace(bs, 1.5, nil, {speed = 0}); frozen:update(0.25 * walk:duration())
  local w0 = m.pose(man); walk:sample(0, w0)
  H.check("play_blendspace: options after a nil y are read", diff(frozen:pose(), w0) < 1e-3, diff(frozen:pose(), w0))
  H.raises("blendspace entry must hold a clip", function() m.blendspace1d(man, {{5, 0}}) end, "entry 1: clip expected")
end

local function root_motion()
  local mx = m.mixer(man)
  mx:set_root_motion("pelvis")
  mx:play(walk, {loop = "repeat", root_motion = true})
  mx:update(0.1)
  local d, yaw = mx:root_motion()
  H.check("root_motion returns vec3 and degrees", getmetatable(d).__name == "vec3" and type(yaw) == "number")
  mx:set_root_motion(nil); mx:update(0.1)
  local d0 = mx:root_motion()
  H.check("root motion off: zero", d0:length() == 0)
  -- The travelling walk: uniform (the default) goes straight along +X at
  -- 43 in per 1.1 s cycle; the pelvis's exact path sways and turns.
  local function travel(opts)
    local t = m.mixer(man)
    t:set_root_motion("pelvis", opts)
    t:play(man:clip("walk"), {loop = "repeat", root_motion = true})
    local side, turn, total = 0, 0, 0
    for _ = 1, 66 do
      t:update(1 / 60)
      local d, yaw = t:root_motion()
      side = math.max(side, math.abs(d.y)); turn = math.max(turn, math.abs(yaw)); total = total + d.x
    end
    return side, turn, total
  end
  local side, turn, total = travel()
  H.check("uniform root motion: straight, no turn, a stride per cycle",
    side < 1e-4 and turn < 1e-4 and H.near(total, 43, 0.01), side, turn, total)
  local eside, eturn = travel({uniform = false})
  H.check("exact path of the pelvis sways and turns", eside > 0.01 and eturn > 0.1, eside, eturn)
end

-- A blend space fires the markers of its heaviest clip that has markers:
-- an idle blended in (no markers) does not silence the walk's first step.
local function blendspace_markers()
  local w = man:clip("walk")
  w:marker(0, "step_l"):marker(0.55, "step_r")
  local bs = m.blendspace1d(man, {{idle, 0}, {w, 1.5}})
  local mx = m.mixer(man)
  local seen = {}
  mx:on("*", function(e) seen[#seen + 1] = e.name .. ":" .. e.clip:name() end)
  mx:play_blendspace(bs, 0.3, {loop = "repeat"})   -- idle 0.8, walk 0.2
  mx:update(1 / 60)
  H.check("first step fires while idle dominates", seen[1] == "start:idle" and seen[2] == "step_l:walk",
    table.concat(seen, " "))
end

local function hooks()
  local mx = m.mixer(man)
  mx:play(walk, {loop = "repeat"}); mx:update(0.3)
  local plain = mx:pose():copy()
  local calls = 0
  mx:on_pose(function(p) calls = calls + 1; p:rotate("spine_03", m.quat.euler(0, 0, 45)) end)
  local p = mx:pose()
  H.check("on_pose edits the pose before it is returned", calls == 1 and (p:position("spine_03") - plain:position("spine_03")):length() < 1e-4 and
    (p:position("hand_l") - plain:position("hand_l")):length() > 1)
  mx:on_pose(function() error("pose hook failed on purpose") end)
  local ok, err = pcall(mx.pose, mx)
  H.check("an error in on_pose comes out of pose()", not ok and tostring(err):find("pose hook failed on purpose", 1, true), err)
  mx:on_pose(nil)
  H.check("on_pose(nil) removes it", identical(mx:pose(), plain))
end

local function errors()
  local mx = m.mixer(man)
  H.raises("crossfade wants a clip", function() mx:crossfade(5, 1) end, "bad argument #1 to 'mixer:crossfade' (clip expected, got number)")
  H.raises("play wants a clip", function() mx:play("walk") end, "bad argument #1 to 'mixer:play' (clip expected, got string)")
  H.raises("bad loop", function() mx:play(walk, {loop = "forever"}) end, "opts.loop must be 'once', 'repeat' or 'pingpong'")
  H.raises("bad curve", function() mx:crossfade(walk, 1, {curve = "cubic"}) end, "opts.curve must be 'smooth' or 'linear'")
  H.raises("bad speed", function() mx:play(walk, {speed = 0 / 0}) end, "opts.speed must be a finite number")
  H.raises("negative fade", function() mx:crossfade(walk, -1) end, "seconds must be a finite number >= 0")
  H.raises("negative dt", function() mx:update(-1) end, "dt must be a finite number >= 0")
  H.raises("track out of range", function() mx:track(9) end, "track 9 out of range 1..8")
  H.raises("mask wanted", function() mx:set_mask(2, walk) end, "mask expected, got clip")
  H.raises("root motion joint", function() mx:set_root_motion("hips") end, "unknown joint 'hips'")
  local bob = m.model("../shared/models/assimp/test/models-nonbsd/MD5/Bob.md5mesh", {anims = {"Bob"}})
  H.raises("clip of another skeleton", function() mx:play(bob:clip(1)) end, "animates 33 joints but the mixer's skeleton has 22")
  H.raises("mask of another skeleton", function() mx:set_mask(1, bob:mask{}) end, "mask has 33 joints, expected 22")
  H.raises("pose of another skeleton", function() mx:pose(m.pose(bob)) end, "pose has 33 joints but the mixer's skeleton has 22")
  H.raises("marker outside the clip", function() walk:marker(5, "x") end, "time must be within 0..")
  local closed = m.mixer(man); closed:close()
  H.raises("closed mixer", function() closed:update(0.1) end, "attempt to use a closed mixer")
  H.check("closed mixer prints", tostring(closed) == "mixer (closed)")
end

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk", "idle", "wave", "walk_inplace"}}))
  sk = man:skeleton()
  -- walk on the spot: the checks below compare poses frame to frame
  walk, idle, wave = man:clip("walk_inplace"), man:clip("idle"), man:clip("wave")
  basics()
  events()
  crossfades()
  clip_weight_everywhere()
  layers()
  root_motion()
  blendspace_markers()
  hooks()
  errors()
  H.finish()
end
