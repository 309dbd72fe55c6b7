-- plot_clip_curves.lua — keys are easier seen than read: the curves of one
-- joint of a clip, per channel, drawn as a chart. The clip is keyed here
-- with a different ease per segment (in_out_cubic, out_back, step,
-- out_elastic, bezier) and saved; the chart plots the file loaded back
-- (solid lines: rotation as Euler degrees x/y/z, translation in the file's units
-- below) with the authored keys as dots. Pass another file and joint after
-- `--` to plot that instead:
--
--   marrow run --headless examples/plot_clip_curves.lua --frames 2 --out examples
--   marrow run --headless examples/plot_clip_curves.lua --frames 2 --out /tmp -- run.glb pelvis
local m = require "marrow"

local model, clip, joint, keys = nil, nil, "spine_02", {}
local COLOURS = {{0.95, 0.35, 0.3}, {0.35, 0.85, 0.35}, {0.35, 0.55, 1.0}}
local rot, tr, times = {}, {}, {}

local function author()
  local man = assert(m.model("models/mannequin.md5mesh"))
  local c = m.clip(man, {name = "eases", duration = 5})
  local _, r = m.pose(man):get_local(joint)
  local t0 = m.pose(man):get_local(joint)
  local function q(x, y, z) return m.quat.euler(x, y, z) * r end
  c:key(joint, 0, {rotation = q(0, 0, 0), translation = t0}, {ease = "in_out_cubic"})
  c:key(joint, 1, {rotation = q(30, 0, 20), translation = t0 + m.vec3(0, 0, 2)}, {ease = "out_back"})
  c:key(joint, 2, {rotation = q(-20, 25, 0)}, {ease = "step"})
  c:key(joint, 2.5, {translation = t0}, {ease = "out_elastic"})
  c:key(joint, 3, {rotation = q(10, -15, -30)}, {ease = "bezier", bezier = {0.7, 0, 0.3, 1}})
  c:key(joint, 4.5, {rotation = q(0, 0, 0), translation = t0 + m.vec3(0, 0, -1.5)})
  keys = c:keys(joint)
  local path = assert(m.save("plot_clip_curves.glb", man, {clips = {c}}))
  return path
end

function load()
  local path = arg[1] or author()
  joint = arg[2] or joint
  model = assert(m.model(path))
  clip = model:clips()[1]
  local p = m.pose(model)
  local n = 400
  for i = 0, n do
    local t = clip:duration() * i / n
    clip:sample(t, p, false)
    local tt, r = p:get_local(joint)
    local x, y, z = r:to_euler()
    times[#times + 1], rot[#rot + 1], tr[#tr + 1] = t, {x, y, z}, {tt.x, tt.y, tt.z}
  end
end

-- Chart space: time along world X (-3..3 m), values along Y inside a band.
local function plot(series, lo, hi, y0, y1, kind)
  local d = clip:duration()
  local function at(t, v) return m.vec3(-3 + 6 * t / d, y0 + (y1 - y0) * (v - lo) / (hi - lo), 0) end
  m.line(at(0, lo), at(d, lo), {0.5, 0.5, 0.5}, true)
  m.line(at(0, lo), at(0, hi), {0.5, 0.5, 0.5}, true)
  for c = 1, 3 do
    for i = 2, #times do
      m.line(at(times[i - 1], series[i - 1][c]), at(times[i], series[i][c]), COLOURS[c], true)
    end
  end
  for _, k in ipairs(keys) do
    if k.channel == kind then
      local j = math.floor(k.time / d * (#times - 1) + 0.5) + 1
      for c = 1, 3 do m.point(at(times[j], series[j][c]), COLOURS[c], 7) end
    end
  end
end

local function range(series)
  local lo, hi = math.huge, -math.huge
  for _, v in ipairs(series) do for c = 1, 3 do lo, hi = math.min(lo, v[c]), math.max(hi, v[c]) end end
  if hi - lo < 1e-6 then lo, hi = lo - 1, hi + 1 end
  return lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo)
end

function draw()
  m.scene{floor = false}
  m.camera{target = {0, 1.6, 0}, distance = 7.2, yaw = 0, pitch = 0}
  local rlo, rhi = range(rot)
  local tlo, thi = range(tr)
  plot(rot, rlo, rhi, 1.9, 3.3, "rotation")
  plot(tr, tlo, thi, 0.1, 1.5, "translation")
  m.text(10, 10, ("%s: joint %s of clip '%s' (%.2f s); dots: keys"):format(model:path():match("[^/]*$"), joint,
    clip:name(), clip:duration()))
  m.text(10, 34, "rotation (Euler degrees)  x", COLOURS[1]); m.text(190, 34, "y", COLOURS[2]); m.text(205, 34, "z", COLOURS[3])
  m.text(10, 280, "translation  x", COLOURS[1]); m.text(110, 280, "y", COLOURS[2]); m.text(125, 280, "z", COLOURS[3])
  m.text(10, 58, ("%.1f .. %.1f deg"):format(rlo, rhi))
  m.text(10, 304, ("%.2f .. %.2f"):format(tlo, thi))
  if m.headless() and m.frame() == 1 then m.screenshot("plot_clip_curves.png") end
end
