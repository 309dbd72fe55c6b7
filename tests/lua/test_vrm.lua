-- A VRM avatar's node constraints and look-at from Lua (wrap_vrm.c):
-- model:constraints() in evaluation order, pose:apply_constraints() after the
-- script's own rotations, pose:look_at() on eye bones and on the look
-- expressions, and the messages for what does not fit.
local m = require "marrow"
local H = require "harness"

local RIG = "tests/data/vrm/constraints.gltf"
local SAMPLE = "../shared/models/vrm-samples/VRMC_vrm_expressions_isBinary_Overrides/VRMC_vrm_expressions_isBinary_Overrides.vrm"

local function angle(a, b)   -- degrees between two rotations
  local d = math.abs(a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w)
  return 2 * math.deg(math.acos(math.min(1, d)))
end

function load()
  local rig = assert(m.model(RIG))

  -- the file's seven constraints, each after what it depends on
  local cs = rig:constraints()
  H.check("model:constraints() lists the seven", #cs == 7, #cs)
  local at = {}
  for i, c in ipairs(cs) do at[c.joint] = i end
  H.check("a constraint comes after the one on its source (sub before sub_tip2)", at.sub < at.sub_tip2)
  H.check("an aim at a joint under a constrained one comes after it (pointer)", at.sub_tip2 < at.pointer)
  local twist = cs[at.twist]
  H.check("a roll constraint's fields", twist.type == "roll" and twist.axis == "X" and twist.source == "forearm"
    and H.near(twist.weight, 0.7), twist.type .. " " .. tostring(twist.axis))
  H.check("an aim constraint's axis", cs[at.cuff].type == "aim" and cs[at.cuff].axis == "NegativeZ")
  H.check("a rotation constraint has no axis", cs[at.sub].type == "rotation" and cs[at.sub].axis == nil)

  -- the constraint replaces the destination's rotation; weight 1 on twist2 (roll about Y)
  local pose = m.pose(rig)
  pose:set_rotation("forearm", m.quat.axis_angle({0, 1, 0}, 40))
  pose:set_rotation("twist2", m.quat.axis_angle({1, 0, 0}, 90))
  local _, before = pose:get_local("twist2")
  H.check("apply_constraints returns the pose", pose:apply_constraints() == pose)
  local _, after = pose:get_local("twist2")
  H.check("the constraint replaced the script's rotation of its joint", angle(before, after) > 45, angle(before, after))
  local rest = m.pose(rig)
  local _, rest_twist = rest:get_local("twist")
  local _, now_twist = pose:get_local("twist")
  H.check("the roll follows its source", angle(rest_twist, now_twist) > 1, angle(rest_twist, now_twist))
  local again = pose:copy():apply_constraints()
  local _, twice = again:get_local("pointer")
  local _, once = pose:get_local("pointer")
  local same = math.abs(once.x - twice.x) + math.abs(once.y - twice.y) + math.abs(once.z - twice.z) + math.abs(once.w - twice.w)
  H.check("applying twice gives the same pose", same < 1e-5, same)

  -- look-at: bone type on the rig
  local la = rig:look_at()
  H.check("model:look_at() reads the settings", la.type == "bone" and H.near(la.inner.input_max, 80)
    and H.near(la.up.output_scale, 11) and H.near(la.offset.y, 0.06))
  local p = m.pose(rig)
  local _, eye0 = p:get_local("eyeL")
  local yaw, pitch = p:look_at({2, 1.6, 0.2})
  H.check("pose:look_at returns yaw and pitch in degrees", yaw > 60 and yaw < 90 and math.abs(pitch) < 20, yaw .. " " .. pitch)
  local _, eye1 = p:get_local("eyeL")
  H.check("the eyes turn, at most the outer range (15 degrees) plus the pitch", angle(eye0, eye1) > 5 and angle(eye0, eye1) < 20, angle(eye0, eye1))
  local q = m.pose(rig)
  local y2, p2 = q:look_at({2, 1.6, 0.2}, {apply = false})
  local _, eye2 = q:get_local("eyeL")
  H.check("apply = false only measures", y2 == yaw and p2 == pitch and angle(eye0, eye2) < 1e-4)
  -- the same target seen by a character placed 3 m along x and turned round
  local place = m.mat4.trs({3, 0, 0}, m.quat.axis_angle({0, 1, 0}, 180))
  local r = m.pose(rig)
  local world = place * m.vec3(2, 1.6, 0.2)
  local y3, p3 = r:look_at(world, {transform = place})
  H.check("opts.transform brings a world target into the model", H.near(y3, yaw, 1e-3) and H.near(p3, pitch, 1e-3), y3 .. " " .. p3)

  -- expression type: the sample has no look expressions; measuring still works
  local s = m.model(SAMPLE)
  if s then
    H.check("the sample's look-at is of the expression type", s:look_at().type == "expression")
    local sp = m.pose(s)
    local sy, spitch = sp:look_at({0, 1.0, 3})
    H.check("a target in front (+Z) gives a small yaw", math.abs(sy) < 5 and spitch == spitch, sy)
    H.check("a model without constraints lists none and applies nothing", #s:constraints() == 0 and sp:apply_constraints() == sp)
    -- its expressions move texture transforms: happy (binary, overrides blink) slides the window
    sp:set_expression("happy", 1):set_expression("blink", 1)
    local win
    for _, x in ipairs(sp:expression_materials()) do
      if x.material == "Validation Window" then win = x end
    end
    H.check("pose:expression_materials() gives the happy window's texture offset",
      win and win.type == "textureTransform" and H.near(win.offset[1], 0.875) and H.near(win.scale[2], 0.125),
      win and (win.offset[1] .. " " .. win.offset[2]))
  end

  -- what does not fit
  local man = assert(m.model("models/mannequin.md5mesh"))
  H.raises("look_at on a model without VRM look-at settings", function() m.pose(man):look_at({0, 0, 1}) end,
    "pose:look_at", "no VRM look-at settings")
  H.raises("look_at wants a vec3", function() p:look_at("up") end, "bad argument #1 to 'pose:look_at'")
  H.raises("look_at names an unknown option", function() p:look_at({0, 0, 1}, {transfrom = place}) end, "transfrom", "transform")
  H.check("model:look_at() of a model without settings is nil", man:look_at() == nil)
  H.check("model:constraints() of a model without any is empty", #man:constraints() == 0)
  H.check("pose:expression_materials() of a model without VRM data is empty", #m.pose(man):expression_materials() == 0)

  H.finish()
end
