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
local curves = require "curves"          -- marrow's scripts/curves.lua: the chart

local model, clip, joint, keys, data = nil, nil, "spine_02", nil, nil

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
  data = curves.sample(model, clip, joint)
end

function draw()
  curves.draw(model, clip, data, keys)
  if m.headless() and m.frame() == 1 then m.screenshot("plot_clip_curves.png") end
end
