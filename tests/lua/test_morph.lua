-- Morph targets from Lua: model:morph_targets, pose:set_morph / pose:morph,
-- clip:sample's weights, copies and blends, marrow.draw's skinning option.
-- tests/data/gltf/morph_quad.gltf: a quad with targets "lift" and "lean"
-- (default weights 0.25, 0.5) and STEP / LINEAR / CUBICSPLINE weights
-- clips (written by tests/tools/gltf_morph_ref.py fixtures).
local m = require "marrow"
local H = require "harness"

local function near(a, b) return math.abs(a - b) < 1e-5 end

function load()
  local q = assert(m.model("tests/data/gltf/morph_quad.gltf"))
  local names = q:morph_targets()
  H.check("morph_targets lists the targets", #names == 2 and names[1] == "lift" and names[2] == "lean")
  local p = m.pose(q)
  H.check("a pose starts with the default weights", near(p:morph("lift"), 0.25) and near(p:morph("lean"), 0.5))
  H.check("set_morph returns the pose", p:set_morph("lean", 0.7) == p)
  H.check("morph reads it back", near(p:morph("lean"), 0.7))
  H.raises("an unknown target is named with the model's", function() p:set_morph("smile", 1) end,
    "no morph target 'smile'", "lift lean")
  H.raises("a NaN weight is refused", function() p:set_morph("lift", 0 / 0) end, "finite")
  local c = p:copy()
  H.check("copy carries the weights", near(c:morph("lean"), 0.7))
  local o = m.pose(q):set_morph("lean", 0.1)
  c:blend(o, 0.5)
  H.check("blend lerps the weights", near(c:morph("lean"), 0.4))
  o:set(p)
  H.check("set copies the weights", near(o:morph("lean"), 0.7))

  -- LINEAR clip: keys at 0, 1, 2 s of (0, 0), (1, 0.5), (0.25, 1)
  q:clip("linear"):sample(0.5, p, false)
  H.check("clip:sample sets the clip's weights", near(p:morph("lift"), 0.5) and near(p:morph("lean"), 0.25))
  q:clip("step"):sample(1.9, p, false)
  H.check("a STEP clip holds the previous key", near(p:morph("lift"), 1) and near(p:morph("lean"), 0.5))
  q:clip("linear"):sample(3.5, p, true)
  H.check("looping wraps the time", near(p:morph("lift"), 0.625) and near(p:morph("lean"), 0.75))

  -- The mixer samples and cross-fades weights like joints; on_pose may
  -- override them.
  local mx = m.mixer(q)
  mx:play(q:clip("linear"), {loop = "repeat"})
  mx:update(0.5)
  local mp = mx:pose()
  H.check("the mixer samples the clip's weights", near(mp:morph("lift"), 0.5) and near(mp:morph("lean"), 0.25),
    mp:morph("lift"))
  mx:play(q:clip("step"), {loop = "repeat", fade = 1, curve = "linear"})
  mx:update(0.5)
  -- linear at 1.0 s: (1, 0.5); step at 0.5 s: (0, 0); halfway through the fade
  H.check("a cross-fade blends the weights", near(mx:pose():morph("lift"), 0.5) and near(mx:pose():morph("lean"), 0.25),
    mx:pose():morph("lift"))

  local man = assert(m.model("models/mannequin.md5mesh"))
  H.check("a model without targets lists none", #man:morph_targets() == 0)
  H.raises("set_morph on a model without targets", function() m.pose(man):set_morph("x", 1) end,
    "no morph target 'x'", "none")
end

local function read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

-- Frames 1 and 2 draw the quad with "lift" at 0 and at 1 (a script's
-- override), the same camera: the pictures differ; frame 3 compares them.
function draw()
  local q = m.model("tests/data/gltf/morph_quad.gltf")
  m.camera{target = {1, 2.5, 3}, distance = 6, yaw = 30, pitch = 20}
  local f = m.frame()
  if f == 1 or f == 2 then
    local p = m.pose(q):set_morph("lift", f == 1 and 0 or 1)
    m.draw(q, p, {skinning = f == 1 and "dq" or "linear"})
    m.screenshot("morph" .. f .. ".png")
  end
  if f == 1 then
    H.raises("draw: an unknown skinning is refused", function() m.draw(q, nil, {skinning = "cubic"}) end,
      "skinning")
    local man = m.model("models/mannequin.md5mesh")
    m.draw(man, m.pose(man), {dq_mask = man:mask{"lowerarm_l"}, transform = m.mat4.translate({5, 0, 0})})
    H.raises("draw: dq_mask must be a mask", function() m.draw(man, m.pose(man), {dq_mask = 1}) end, "dq_mask")
    H.raises("draw: dq_mask of another skeleton is refused", function() m.draw(q, nil, {dq_mask = man:mask{}}) end,
      "mask has 22 joints")
  end
  if f == 3 then
    local a, b = read(arg[1] .. "/morph1.png"), read(arg[1] .. "/morph2.png")
    H.check("the override shows in the picture", a and b and a ~= b)
    H.finish()
  end
end
