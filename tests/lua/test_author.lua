-- Authored clips (wrap_clip_edit.c, anim/clip_edit.h): marrow.clip, keys
-- with every ease checked against eases written here from easings.net's
-- formulas (model-space positions within 0.01 % of the model size, at keys
-- and between them), listing/moving/removing keys, trim/reverse/retime/
-- append, the mixer playing an authored clip, and bad input.
local m = require "marrow"
local H = require "harness"

local man = assert(m.model("models/mannequin.md5mesh"))
local lo, hi = man:bounds()
local SIZE = (hi - lo):length()
local TOL = 1e-4 * SIZE
local sk = man:skeleton()
local JOINTS = sk:names()

-- Reference eases (independent of the C code).
local PI = math.pi
local c1, c2, c3, c4, c5 = 1.70158, 1.70158 * 1.525, 2.70158, 2 * PI / 3, 2 * PI / 4.5
local function pw(u, n) return u ^ n end
local function inout(u, n) if u < 0.5 then return 2 ^ (n - 1) * u ^ n end return 1 - (-2 * u + 2) ^ n / 2 end
local EASE = {
  linear = function(u) return u end,
  step = function(u) return u >= 1 and 1 or 0 end,
  smooth = function(u) return u * u * (3 - 2 * u) end,
  ["in"] = function(u) return pw(u, 2) end, out = function(u) return 1 - pw(1 - u, 2) end,
  in_out = function(u) return inout(u, 2) end,
  in_cubic = function(u) return pw(u, 3) end, out_cubic = function(u) return 1 - pw(1 - u, 3) end,
  in_out_cubic = function(u) return inout(u, 3) end,
  in_quint = function(u) return pw(u, 5) end, out_quint = function(u) return 1 - pw(1 - u, 5) end,
  in_out_quint = function(u) return inout(u, 5) end,
  in_sine = function(u) return 1 - math.cos(u * PI / 2) end,
  in_back = function(u) return c3 * u ^ 3 - c1 * u ^ 2 end,
  out_back = function(u) return 1 + c3 * (u - 1) ^ 3 + c1 * (u - 1) ^ 2 end,
  in_out_back = function(u)
    if u < 0.5 then return ((2 * u) ^ 2 * ((c2 + 1) * 2 * u - c2)) / 2 end
    return ((2 * u - 2) ^ 2 * ((c2 + 1) * (u * 2 - 2) + c2) + 2) / 2
  end,
  in_elastic = function(u)
    if u <= 0 or u >= 1 then return u end
    return -2 ^ (10 * u - 10) * math.sin((u * 10 - 10.75) * c4)
  end,
  out_elastic = function(u)
    if u <= 0 or u >= 1 then return u end
    return 2 ^ (-10 * u) * math.sin((u * 10 - 0.75) * c4) + 1
  end,
  in_out_elastic = function(u)
    if u <= 0 or u >= 1 then return u end
    if u < 0.5 then return -(2 ^ (20 * u - 10) * math.sin((20 * u - 11.125) * c5)) / 2 end
    return (2 ^ (-20 * u + 10) * math.sin((20 * u - 11.125) * c5)) / 2 + 1
  end,
}
-- CSS timing bezier, solved by bisection.
local function bezier(h, u)
  local function b(a, c, s) local r = 1 - s return 3 * r * r * s * a + 3 * r * s * s * c + s ^ 3 end
  local l, r = 0, 1
  for _ = 1, 60 do local mid = (l + r) / 2 if b(h[1], h[3], mid) < u then l = mid else r = mid end end
  return b(h[2], h[4], (l + r) / 2)
end

-- Slerp for any w (overshooting eases), shortest path.
local function slerp(a, b, w)
  local d = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w
  local s = d < 0 and -1 or 1
  d = math.abs(d)
  local k0, k1
  if d > 0.9999995 then k0, k1 = 1 - w, w
  else
    local th = math.acos(math.min(d, 1)); local sn = math.sin(th)
    k0, k1 = math.sin((1 - w) * th) / sn, math.sin(w * th) / sn
  end
  return m.quat(k0 * a.x + k1 * s * b.x, k0 * a.y + k1 * s * b.y, k0 * a.z + k1 * s * b.z,
                k0 * a.w + k1 * s * b.w):normalize()
end

-- The largest joint position difference between two poses.
local function diff(a, b)
  local worst, at = 0, ""
  for j = 1, #JOINTS do
    local d = (a:position(j) - b:position(j)):length()
    if d > worst then worst, at = d, JOINTS[j] end
  end
  return worst, at
end

local ARM, SPINE = "upperarm_r", "spine_01"

function load()
  local rest = m.pose(man)
  local clip = m.clip(man, {name = "bow", duration = 2})
  H.check("marrow.clip makes a named clip", clip:name() == "bow" and H.near(clip:duration(), 2) and clip:rate() == 30,
    tostring(clip))
  local p = m.pose(man)
  clip:sample(1, p)
  H.check("an empty authored clip holds the rest pose", diff(p, rest) < 1e-6)

  -- keys show at the next sample; channels are independent
  local _, r0 = rest:get_local(ARM)
  local qa = m.quat.axis_angle(m.vec3(0, 0, 1), 80) * r0
  clip:key(ARM, 0, {rotation = r0}):key(ARM, 2, {rotation = qa})
  clip:key(SPINE, 1, {translation = m.vec3(0, 0, 5)})
  clip:sample(1, p)
  local want = m.pose(man)
  want:set_local(ARM, nil, slerp(r0, qa, 0.5), nil)
  want:set_local(SPINE, m.vec3(0, 0, 5), nil, nil)
  local e = diff(p, want)
  H.check("linear keys slerp, a lone translation key holds, other channels stay at rest", e < TOL, e)

  -- every ease, at 41 times over a 2 s segment (keys and between them)
  local names = {"linear", "step", "smooth", "in", "out", "in_out", "in_cubic", "out_cubic", "in_out_cubic",
                 "in_quint", "out_quint", "in_out_quint", "in_sine", "in_back", "out_back", "in_out_back",
                 "in_elastic", "out_elastic", "in_out_elastic", "bezier"}
  local H4 = {0.3, 1.4, 0.6, -0.2}
  local tr0, tr1 = m.vec3(0, 0, 0), m.vec3(3, -2, 8)
  for _, ease in ipairs(names) do
    local c = m.clip(man, {name = ease, duration = 2})
    local opts = {ease = ease, bezier = ease == "bezier" and H4 or nil}
    c:key(ARM, 0, {rotation = r0}, opts):key(ARM, 2, {rotation = qa})
    local _, _, _ = rest:get_local("hand_r")
    c:key("hand_r", 0, {translation = tr0, scale = 1}, opts):key("hand_r", 2, {translation = tr1, scale = 1.5})
    local worst = 0
    for i = 0, 40 do
      local t = 2 * i / 40
      local u = t / 2
      local w = ease == "bezier" and bezier(H4, u) or EASE[ease](u)
      if ease == "step" and i < 40 then w = 0 end
      want:rest()
      want:set_local(ARM, nil, slerp(r0, qa, w), nil)
      want:set_local("hand_r", tr0:lerp(tr1, w), nil, m.vec3(1 + 0.5 * w, 1 + 0.5 * w, 1 + 0.5 * w))
      c:sample(t, p, false)
      worst = math.max(worst, (diff(p, want)))
    end
    H.check("ease " .. ease .. " within 0.01 % of the model size at 41 times", worst < TOL, worst .. " > " .. TOL)
  end

  -- listing, moving, removing
  local k = m.clip(man, {duration = 1})
  k:key(ARM, 0.5, {rotation = qa, translation = m.vec3(1, 2, 3)}, {ease = "out_back"})
  k:key(ARM, 0.25, {scale = 2})
  local ks = k:keys(ARM)
  H.check("keys lists each channel's keys by time", #ks == 3 and ks[1].time == 0.25 and ks[1].channel == "scale"
    and ks[2].channel == "translation" and ks[2].ease == "out_back" and ks[3].channel == "rotation"
    and H.vnear(ks[2].value, m.vec3(1, 2, 3)), #ks)
  H.check("move_key moves the keys of a time", k:move_key(ARM, 0.5, 0.75) == 2 and k:keys(ARM)[2].time == 0.75)
  H.check("remove_key of one channel", k:remove_key(ARM, 0.25, "scale") == 1 and #k:keys(ARM) == 2)
  H.check("remove_key of all channels", k:remove_key(ARM, 0.75) == 2 and #k:keys(ARM) == 0)
  k:sample(0.75, p)
  H.check("a clip without keys again holds the rest pose", diff(p, rest) < 1e-6)

  -- whole-clip edits against the original's samples
  local src = m.clip(man, {name = "src", duration = 2})
  src:key(ARM, 0, {rotation = r0}, {ease = "in_out_cubic"}):key(ARM, 1.2, {rotation = qa}, {ease = "out_elastic"})
  src:key(ARM, 2, {rotation = r0})
  src:key(SPINE, 0.4, {translation = m.vec3(0, 2, 0)}, {ease = "smooth"}):key(SPINE, 1.6, {translation = m.vec3(0, 0, 4)})
  src:marker(0.4, "lift"):marker(1.6, "land")
  local q = m.pose(man)
  local function compare(name, c, map, n)
    local worst = 0
    for i = 0, n do
      local t = c:duration() * i / n
      c:sample(t, p, false); src:sample(map(t), q, false)
      worst = math.max(worst, (diff(p, q)))
    end
    H.check(name, worst < 2 * TOL, worst)
  end
  local rev = src:reverse()
  compare("reverse plays the clip backwards", rev, function(t) return 2 - t end, 120)
  local slow = src:retime(3)
  H.check("retime sets the duration", H.near(slow:duration(), 3))
  compare("retime stretches the keys", slow, function(t) return t * 2 / 3 end, 120)
  local cut = src:trim(0.7, 1.5)
  H.check("trim sets the duration", H.near(cut:duration(), 0.8, 1e-6), cut:duration())
  compare("trim keeps the cut part, eased segments cut mid-way", cut, function(t) return t + 0.7 end, 120)
  local both = src:append(rev)
  H.check("append adds the durations", H.near(both:duration(), 4))
  local function names(c)
    local t = {}
    for _, mk in ipairs(c:markers()) do t[#t + 1] = ("%s@%.2f"):format(mk.name, mk.time) end
    return table.concat(t, " ")
  end
  H.check("markers follow trim", names(cut) == "", names(cut))
  H.check("markers follow reverse", names(rev) == "land@0.40 lift@1.60", names(rev))
  H.check("markers follow retime", names(slow) == "lift@0.60 land@2.40", names(slow))
  H.check("markers follow append", names(both) == "lift@0.40 land@1.60 land@2.40 lift@3.60", names(both))
  H.check("markers inside a trim stay", names(src:trim(0.2, 1.0)) == "lift@0.20", names(src:trim(0.2, 1.0)))
  compare("append: the first clip, then the second", both, function(t) return t <= 2 and t or 4 - t end, 120)

  -- a mixer plays an authored clip
  local mx = m.mixer(man)
  mx:track(1):play(src, {loop = false})
  mx:update(0.5)
  src:sample(0.5, q, false)
  H.check("a mixer plays an authored clip", diff(mx:pose(), q) < 1e-4)

  -- bad input
  H.raises("a duration that rounds to 0 in a float says what it must be", function()
    m.clip(man, {duration = 1e-300}) end, "#2", "opts.duration", "from 1e-06", "got 1e-300")
  H.raises("a clip name with a NUL inside is refused, not cut", function()
    m.clip(man, {name = "a\0b", duration = 1}) end, "#2", "opts.name", "without NUL")
  H.raises("a joint name with a NUL inside is refused, not cut", function()
    clip:key("pelvis\0tail", 0, {rotation = r0}) end, "clip:key", "without NUL bytes")
  H.raises("NaN time", function() clip:key(ARM, 0 / 0, {rotation = r0}) end, "clip:key", "#2", "time")
  H.raises("inf time", function() clip:key(ARM, math.huge, {rotation = r0}) end, "#2", "time")
  H.raises("time past the duration", function() clip:key(ARM, 2.5, {rotation = r0}) end, "#2", "0..2")
  H.raises("unknown joint", function() clip:key("no_such_joint", 0, {rotation = r0}) end, "#1", "no_such_joint")
  H.raises("duration 0", function() m.clip(man, {duration = 0}) end, "marrow.clip", "duration")
  H.raises("no duration", function() m.clip(man, {name = "x"}) end, "duration")
  H.raises("unknown ease", function() clip:key(ARM, 0, {rotation = r0}, {ease = "wobbly"}) end, "ease", "wobbly")
  H.raises("bezier without handles", function() clip:key(ARM, 0, {rotation = r0}, {ease = "bezier"}) end, "bezier")
  H.raises("an unknown channel", function() clip:key(ARM, 0, {rotate = r0}) end, "rotate")
  H.raises("a zero quaternion", function() clip:key(ARM, 0, {rotation = m.quat(0, 0, 0, 0)}) end, "rotation")
  H.raises("keying a loaded clip", function()
    local walk = assert(m.model("models/mannequin.md5mesh", {anims = {"walk"}})):clip("walk")
    walk:key(ARM, 0, {rotation = r0})
  end, "not an authored clip")
  H.finish()
end
