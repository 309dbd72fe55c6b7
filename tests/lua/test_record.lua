-- marrow.record (wrap_recorder.c, anim/record.h): a mixer choreography with
-- a crossfade, an override and a travelling draw transform, recorded at 30
-- fps; the clip without reduction poses every joint as the live run did
-- (root motion included); the reduced clip drops keys, stays within the
-- tolerance at 121 times against the unreduced one, and reports the error
-- that this script measures; bad input.
local m = require "marrow"
local H = require "harness"

local man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk", "wave"}}))
local lo, hi = man:bounds()
local SIZE = (hi - lo):length()
local TOL = 1e-4 * SIZE
local NAMES = man:skeleton():names()
local D = man:display_matrix()
local DI = D:inverse()

local function worst_diff(a, b, xa)
  local w = 0
  for j = 1, #NAMES do
    local pa = a:position(j)
    if xa then pa = xa * pa end
    w = math.max(w, (pa - b:position(j)):length())
  end
  return w
end

function load()
  local rec = m.record(man, {fps = 30})
  H.check("marrow.record makes an empty recorder", rec:frames() == 0 and tostring(rec) == "recorder (0 frames)")
  local mx = m.mixer(man)
  mx:track(1):play(man:clip("walk"))
  local live, xs, times = {}, {}, {}
  for f = 0, 60 do
    local t = f / 30
    if f == 20 then mx:track(1):crossfade(man:clip("wave"), 0.5) end
    mx:update(f == 0 and 0 or 1 / 30)
    local p = mx:pose():copy()
    p:rotate("head", m.quat.axis_angle(m.vec3(0, 0, 1), 30 * math.sin(t * 3)))   -- an override
    local T = m.mat4.translate(m.vec3(0.8 * t, 0, 0)) * m.mat4.rotate(m.quat.axis_angle(m.vec3(0, 1, 0), 20 * t))
    rec:capture(p, t, T)
    live[#live + 1], xs[#xs + 1], times[#times + 1] = p, DI * T * D, t
  end
  H.check("61 captures", rec:frames() == 61, rec:frames())

  local full, frep = rec:clip("full", {tolerance = 0})
  H.check("tolerance 0 keeps every key", frep.keys == frep.frames_keys and frep.error == 0, frep.keys)
  H.check("the recorded clip lasts from the first capture to the last", math.abs(full:duration() - 2) < 1e-5)
  local q = m.pose(man)
  local worst = 0
  for i, t in ipairs(times) do
    full:sample(t, q, false)
    worst = math.max(worst, worst_diff(live[i], q, xs[i]))
  end
  H.check("the recording poses every joint as drawn (root motion included) at each capture", worst < TOL, worst)
  full:sample(2, q, false)
  H.check("the root travels in the clip", (q:position(1) - live[1]:position(1)):length() > 0.5 * 0.8 / 0.0254 * 0.5)

  local red, rep = rec:clip("reduced")
  H.check("reduction drops keys", rep.keys < rep.frames_keys, rep.keys .. " of " .. rep.frames_keys)
  H.check("reduction reports an error within the default tolerance", rep.error > 0 and rep.error <= TOL,
    rep.error)
  local a, b = m.pose(man), m.pose(man)
  local measured = 0
  for i = 0, 120 do
    local t = 2 * i / 120
    red:sample(t, a, false); full:sample(t, b, false)
    measured = math.max(measured, worst_diff(a, b))
  end
  H.check("at 121 times the reduced clip is within the tolerance of the unreduced", measured <= TOL, measured)
  H.check("the reported error is the error measured (>= the 121-time measure, same size)",
    measured <= rep.error + 1e-6 and rep.error <= math.max(measured * 3, TOL * 0.01), rep.error .. " vs " .. measured)
  local loose, lrep = rec:clip("loose", {tolerance = 100 * TOL})
  H.check("a looser tolerance keeps fewer keys", lrep.keys < rep.keys and lrep.error <= 100 * TOL, lrep.keys)
  H.check("a recorded clip is an authored clip (keys can be listed)", #loose:keys("hand_r") >= 2)

  -- a take where only a hand turns: no joint origin moves, the error the
  -- reduction leaves is still reported (virtual points along the joints'
  -- axes, as the runtime measures: anim/points.h)
  local hand = m.record(man, {fps = 30})
  for f = 0, 60 do
    local p = m.pose(man)
    p:rotate("hand_l", m.quat.axis_angle(m.vec3(1, 0, 0), 70 * math.sin(f / 30 * 4)))
    hand:capture(p, f / 30)
  end
  local HTOL = 100 * TOL
  local hred, hrep = hand:clip("turning hand", {tolerance = HTOL})
  local hfull = hand:clip("turning hand, every key", {tolerance = 0})
  local dist, hmeasured = 0.1 / 1.8 * SIZE, 0
  local pa, pb = m.pose(man), m.pose(man)
  for i = 0, 120 do
    hred:sample(2 * i / 120, pa, false); hfull:sample(2 * i / 120, pb, false)
    local ma, mb = pa:model("hand_l"), pb:model("hand_l")
    for ax = 0, 2 do
      local ua = m.vec3(ma[ax * 4 + 1], ma[ax * 4 + 2], ma[ax * 4 + 3])
      local ub = m.vec3(mb[ax * 4 + 1], mb[ax * 4 + 2], mb[ax * 4 + 3])
      hmeasured = math.max(hmeasured, ((ua - ub) * dist):length())
    end
  end
  H.check("a turning hand's reduced take drops keys", hrep.keys < hrep.frames_keys, hrep.keys .. " of " .. hrep.frames_keys)
  H.check("a turning hand's reduced take reports the error it leaves (> 0, >= its hand axes' error, within the tolerance)",
    hmeasured > 0 and hrep.error >= 0.999 * hmeasured and hrep.error <= HTOL, hrep.error .. " vs " .. hmeasured)

  -- bad input
  H.raises("capture back in time", function() rec:capture(live[1], 1) end, "recorder:capture", "before the last")
  H.raises("capture at NaN", function() rec:capture(live[1], 0 / 0) end, "finite")
  H.raises("a clip from one frame", function()
    local r1 = m.record(man); r1:capture(live[1], 0); r1:clip("x")
  end, "2 captures")
  H.raises("fps 0", function() m.record(man, {fps = 0}) end, "fps")
  H.check("clear empties the recorder", rec:clear():frames() == 0)
  H.finish()
end
