-- Authoring morph weights (issue 31): clip:key_morph with eases, key_pose
-- keying the pose's weights, clip:morph_keys, the mixer sampling keyed
-- weights; marrow.record capturing a choreography that sets weights and
-- reducing them within the weight tolerance; marrow.save to .glb and back
-- (weights compared at the captured times and between them); formats that
-- cannot hold weights refuse them.
-- tests/data/gltf/morph_quad.gltf: one quad, targets "lift" and "lean"
-- (default weights 0.25, 0.5).
local m = require "marrow"
local H = require "harness"

local function in_out_cubic(u) return u < 0.5 and 4 * u ^ 3 or 1 - (-2 * u + 2) ^ 3 / 2 end

function load()
  local q = assert(m.model("tests/data/gltf/morph_quad.gltf"))
  local p = m.pose(q)

  -- keyed weights, eased, sampled between keys
  local blink = m.clip(q, {name = "blink", duration = 2})
  blink:sample(1, p, false)
  H.check("an authored clip without weight keys holds the defaults", H.near(p:morph("lift"), 0.25)
    and H.near(p:morph("lean"), 0.5))
  H.check("key_morph returns the clip", blink:key_morph("lift", 0, 0) == blink)
  blink:key_morph("lift", 1, 1, {ease = "in_out_cubic"}):key_morph("lift", 2, 0.5)
  blink:key_morph("lean", 0.5, 0.2, {ease = "step"}):key_morph("lean", 1.5, 0.9)
  local worst = 0
  for i = 0, 40 do
    local t = i / 20
    blink:sample(t, p, false)
    local want = t <= 1 and t or 1 + (0.5 - 1) * in_out_cubic(t - 1)
    worst = math.max(worst, math.abs(p:morph("lift") - want))
  end
  H.check("eased weight keys sample within 5e-4 between keys", worst <= 5e-4, worst)
  blink:sample(0.25, p, false)
  H.check("before its first key a weight holds it", H.near(p:morph("lean"), 0.2), p:morph("lean"))
  blink:sample(1.49, p, false)
  H.check("a step key holds until the next", H.near(p:morph("lean"), 0.2), p:morph("lean"))
  blink:sample(1.5, p, false)
  H.check("... and jumps at it", H.near(p:morph("lean"), 0.9), p:morph("lean"))
  local ks = blink:morph_keys("lean")
  H.check("morph_keys lists a target's keys", #ks == 2 and H.near(ks[1].time, 0.5) and H.near(ks[1].value, 0.2)
    and ks[1].ease == "step" and ks[1].channel == "morph" and ks[1].target == "lean" and H.near(ks[2].value, 0.9))
  H.raises("key_morph names an unknown target with the model's", function() blink:key_morph("smile", 0, 1) end,
    "no morph target 'smile'", "lift lean")
  H.raises("key_morph refuses a NaN weight", function() blink:key_morph("lift", 0, 0 / 0) end, "finite")
  H.raises("key_morph on a loaded clip", function() q:clip("linear"):key_morph("lift", 0, 1) end,
    "not an authored clip")

  local mx = m.mixer(q)
  mx:play(blink)
  mx:update(1.25)
  H.check("the mixer samples keyed weights", H.near(mx:pose():morph("lift"), 1 - 0.5 * in_out_cubic(0.25), 5e-4)
    and H.near(mx:pose():morph("lean"), 0.2), mx:pose():morph("lift"))

  local kp = m.clip(q, {name = "posed", duration = 1})
  kp:key_pose(0, m.pose(q):set_morph("lift", 0.7)):key_pose(1, m.pose(q):set_morph("lean", 0.1))
  local lk = kp:morph_keys("lift")
  H.check("key_pose keys the pose's weights", #lk == 2 and H.near(lk[1].value, 0.7) and H.near(lk[2].value, 0.25))
  kp:sample(0.5, p, false)
  H.check("... which sample between the poses", H.near(p:morph("lift"), 0.475) and H.near(p:morph("lean"), 0.3))

  -- a recorded choreography that sets weights
  local rec = m.record(q, {fps = 30})
  local live = {}
  local function lift_at(t) return 0.5 + 0.5 * math.sin(3 * t) end
  for f = 0, 60 do
    local t = f / 30
    live[f] = lift_at(t)
    rec:capture(m.pose(q):set_morph("lift", live[f]), t)
  end
  local took, report = rec:clip("took")
  H.check("the recording's weights are reduced and measured", report.weight_error <= 1e-3
    and report.keys < report.frames_keys, report.weight_error .. " " .. report.keys .. "/" .. report.frames_keys)
  local function rec_error(clip, at_frames)
    local w = 0
    for f = 0, 59 do
      for _, h in ipairs(at_frames and {0} or {0, 0.5}) do
        local t = (f + h) / 30
        clip:sample(t, p, false)
        local want = h == 0 and live[f] or 0.5 * (live[f] + live[f + 1])
        w = math.max(w, math.abs(p:morph("lift") - want))
      end
    end
    return w
  end
  local re = rec_error(took)
  H.check("the recorded weights replay within 1e-3 at captures and between", re <= 1e-3, re)
  took:sample(1, p, false)
  H.check("a weight never moved keeps its default", H.near(p:morph("lean"), 0.5) and #took:morph_keys("lean") == 0)
  local _, fine = rec:clip("fine", {weight_tolerance = 0})
  H.check("weight_tolerance = 0 keeps every weight key", fine.weight_error == 0, fine.weight_error)

  -- saved to .glb and loaded back
  local path, msg = m.save("author_morph.glb", q, {clips = {blink, took}})
  H.check("save .glb with weight keys", type(path) == "string", msg)
  local back = path and m.model(path)
  H.check(".glb loads back", back ~= nil)
  if back then
    local bb, bt = back:clip("blink"), back:clip("took")
    local e = 0
    for i = 0, 80 do
      local t = i / 40
      blink:sample(t, p, false)
      local a, b = p:morph("lift"), p:morph("lean")
      local pb = m.pose(back)
      bb:sample(t, pb, false)
      e = math.max(e, math.abs(pb:morph("lift") - a), math.abs(pb:morph("lean") - b))
    end
    H.check(".glb: the keyed weights load back (81 times)", e <= 1e-5, e)
    local rb = rec_error(bt)
    H.check(".glb: the recorded weights load back at captures and between", rb <= 1e-3, rb)
    local pb = m.pose(back)
    bt:sample(0.7, pb, false)
    H.check(".glb: the unkeyed weight holds its default", H.near(pb:morph("lean"), 0.5), pb:morph("lean"))
  end

  -- formats without morph weights refuse, naming the argument
  for _, ext in ipairs({"bvh", "md5anim", "dae"}) do
    local bp, bmsg = m.save("author_morph." .. ext, q, {clips = {blink}})
    H.check("." .. ext .. " refuses weight keys", bp == nil and bmsg:find("opts.clips[1]", 1, true)
      and bmsg:find("cannot hold morph weight keys", 1, true), bmsg)
  end
  H.finish()
end
