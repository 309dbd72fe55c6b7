-- curves.lua — a clip's curves for one joint as a chart (what `marrow plot`
-- and examples/plot_clip_curves.lua draw): rotation as Euler degrees x/y/z
-- above, translation (in the model's unit) below, time along the chart in
-- seconds, value and time ticks, dots at given key times, a legend whose
-- x, y, z are coloured as their curves.
--
--   local curves = require "curves"
--   local data = curves.sample(model, clip, "spine_02")      -- 401 samples
--   function draw() curves.draw(model, clip, data, keys) end  -- keys: {time, channel} or nil
local m = require "marrow"

local curves = {}
local COLOURS = {{0.95, 0.35, 0.3}, {0.35, 0.85, 0.35}, {0.35, 0.55, 1.0}}

-- Samples joint's local rotation (Euler degrees) and translation n + 1 times
-- over the clip; raises for a joint the model does not have.
function curves.sample(model, clip, joint, n)
  n = n or 400
  local p = m.pose(model)
  local data = {joint = joint, times = {}, rot = {}, tr = {}}
  for i = 0, n do
    local t = clip:duration() * i / n
    clip:sample(t, p, false)
    local tt, r = p:get_local(joint)
    local x, y, z = r:to_euler()
    data.times[#data.times + 1], data.rot[#data.rot + 1], data.tr[#data.tr + 1] = t, {x, y, z}, {tt.x, tt.y, tt.z}
  end
  return data
end

local function range(series)
  local lo, hi = math.huge, -math.huge
  for _, v in ipairs(series) do for c = 1, 3 do lo, hi = math.min(lo, v[c]), math.max(hi, v[c]) end end
  if hi - lo < 1e-6 then lo, hi = lo - 1, hi + 1 end
  return lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo)
end

-- A round step for about n ticks over span (1, 2 or 5 times a power of ten).
local function nice_step(span, n)
  local raw = span / n
  local p = 10 ^ math.floor(math.log(raw, 10))
  for _, f in ipairs{1, 2, 5, 10} do if f * p >= raw then return f * p end end
  return 10 * p
end

local function fmt(v, step)
  local digits = math.max(0, -math.floor(math.log(step, 10) + 1e-9))
  return ("%." .. digits .. "f"):format(math.abs(v) < step * 1e-6 and 0 or v)
end

-- The model's unit for translations, from its display matrix (metres per unit).
local function unit_of(model)
  local D = model:display_matrix()
  local mpu = m.vec3(D[1], D[2], D[3]):length()
  if math.abs(mpu - 0.0254) < 1e-6 then return "inch" end
  if math.abs(mpu - 1) < 1e-6 then return "m" end
  if math.abs(mpu - 0.01) < 1e-7 then return "cm" end
  return ("units of %g m"):format(mpu)
end

-- Chart space: time along world X (-3..3 m), values along Y inside a band;
-- px turns a chart point into pixels (for the tick labels).
local function plot(data, series, lo, hi, y0, y1, keys, kind, d, px, unit)
  local times = data.times
  local function at(t, v) return m.vec3(-3 + 6 * t / d, y0 + (y1 - y0) * (v - lo) / (hi - lo), 0) end
  local grey, faint = {0.75, 0.75, 0.75}, {0.55, 0.6, 0.68}
  -- value ticks: a faint line across the band, the value left of the axis
  local step = nice_step(hi - lo, 6)
  for v = math.ceil(lo / step) * step, hi, step do
    m.line(at(0, v), at(d, v), faint, true)
    local x, y = px(at(0, v))
    m.text(x - 64, y - 8, fmt(v, step))
  end
  -- time ticks along the bottom of the band, in seconds
  local tstep = nice_step(d, 8)
  for t = 0, d + tstep * 1e-6, tstep do
    local a, b = at(t, lo), at(t, lo)
    b.y = b.y - 0.06
    m.line(a, b, grey, true)
    local x, y = px(b)
    m.text(x - 12, y + 2, fmt(t, tstep) .. (t == 0 and " s" or ""))
  end
  m.line(at(0, lo), at(d, lo), grey, true)
  m.line(at(0, lo), at(0, hi), grey, true)
  for c = 1, 3 do
    for i = 2, #times do
      m.line(at(times[i - 1], series[i - 1][c]), at(times[i], series[i][c]), COLOURS[c], true)
    end
  end
  for _, k in ipairs(keys or {}) do
    if k.channel == kind then
      local j = math.floor(k.time / d * (#times - 1) + 0.5) + 1
      for c = 1, 3 do m.point(at(times[j], series[j][c]), COLOURS[c], 7) end
    end
  end
  local x, y = px(at(0, hi))
  return x, y, unit
end

-- A legend: the label in white, then x, y, z in their curves' colours.
local function legend(x, y, label)
  m.text(x, y, label)
  local w = 6.4 * #label + 6
  for c, name in ipairs{"x", "y", "z"} do m.text(x + w + (c - 1) * 18, y, name, COLOURS[c]) end
end

-- Draws the chart of data (curves.sample) with a title, value and time ticks,
-- units and a legend; call in draw().
function curves.draw(model, clip, data, keys)
  local d = clip:duration() > 0 and clip:duration() or 1
  m.scene{floor = false}
  local eye, target = m.camera{target = {0, 1.6, 0}, distance = 7.2, yaw = 0, pitch = 0, fov = 40}
  local w, h = m.window()
  local fy = math.tan(math.rad(20)) * (eye - target):length()
  local function px(v)
    return w / 2 + (v.x - target.x) / (fy * w / h) * w / 2, h / 2 - (v.y - target.y) / fy * h / 2
  end
  local rlo, rhi = range(data.rot)
  local tlo, thi = range(data.tr)
  local unit = unit_of(model)
  plot(data, data.rot, rlo, rhi, 1.95, 3.2, keys, "rotation", d, px)
  plot(data, data.tr, tlo, thi, 0.15, 1.35, keys, "translation", d, px)
  m.text(10, 10, ("%s: joint %s of clip '%s' (%.2f s)%s"):format(model:path():match("[^/]*$"), data.joint,
    clip:name(), clip:duration(), keys and "; dots: keys" or ""))
  local rx, ry = px(m.vec3(-3, 3.2, 0))
  local tx, ty = px(m.vec3(-3, 1.35, 0))
  legend(rx, ry - 30, "local rotation, Euler degrees:")
  legend(tx, ty - 30, ("local translation, %s:"):format(unit))
end

return curves
