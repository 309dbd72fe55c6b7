-- curves.lua — a clip's curves for one joint as a chart (what `marrow plot`
-- and examples/plot_clip_curves.lua draw): rotation as Euler degrees x/y/z
-- above, translation below, time along the chart, dots at given key times.
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

-- Chart space: time along world X (-3..3 m), values along Y inside a band.
local function plot(data, series, lo, hi, y0, y1, keys, kind, d)
  local times = data.times
  local function at(t, v) return m.vec3(-3 + 6 * t / d, y0 + (y1 - y0) * (v - lo) / (hi - lo), 0) end
  m.line(at(0, lo), at(d, lo), {0.5, 0.5, 0.5}, true)
  m.line(at(0, lo), at(0, hi), {0.5, 0.5, 0.5}, true)
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
end

-- Draws the chart of data (curves.sample) with a title; call in draw().
function curves.draw(model, clip, data, keys)
  local d = clip:duration() > 0 and clip:duration() or 1
  m.scene{floor = false}
  m.camera{target = {0, 1.6, 0}, distance = 7.2, yaw = 0, pitch = 0}
  local rlo, rhi = range(data.rot)
  local tlo, thi = range(data.tr)
  plot(data, data.rot, rlo, rhi, 1.9, 3.3, keys, "rotation", d)
  plot(data, data.tr, tlo, thi, 0.1, 1.5, keys, "translation", d)
  m.text(10, 10, ("%s: joint %s of clip '%s' (%.2f s)%s"):format(model:path():match("[^/]*$"), data.joint,
    clip:name(), clip:duration(), keys and "; dots: keys" or ""))
  m.text(10, 34, "rotation (Euler degrees)  x", COLOURS[1]); m.text(190, 34, "y", COLOURS[2]); m.text(205, 34, "z", COLOURS[3])
  m.text(10, 280, "translation  x", COLOURS[1]); m.text(110, 280, "y", COLOURS[2]); m.text(125, 280, "z", COLOURS[3])
  m.text(10, 58, ("%.1f .. %.1f deg"):format(rlo, rhi))
  m.text(10, 304, ("%.2f .. %.2f"):format(tlo, thi))
end

return curves
