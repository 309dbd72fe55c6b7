-- IK and attachments from Lua: pose:two_bone_ik, pose:aim (model and world
-- targets), marrow.attach with an offset (lua_ik.c, lua_draw.c).
local m = require "marrow"
local H = require "harness"

function load()
  local man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk"}}))
  local walk = man:clip("walk")
  local base = m.pose(man); walk:sample(0.4, base)
  local upper = (base:position("lowerarm_l") - base:position("upperarm_l")):length()
  local fore = (base:position("hand_l") - base:position("lowerarm_l")):length()
  local reach = upper + fore

  -- reachable target in model space (inches, Z up)
  local p = base:copy()
  local shoulder = p:position("upperarm_l")
  local target = shoulder + m.vec3(8, 6, -12)
  local reached = p:two_bone_ik("upperarm_l", "lowerarm_l", "hand_l", target, {pole = {0, 0, -1}})
  H.check("two_bone_ik reaches a target in reach", reached == true)
  H.check("the hand lands within 1e-3 of the target", (p:position("hand_l") - target):length() < 1e-3,
    (p:position("hand_l") - target):length())
  H.check("bone lengths are kept", H.near((p:position("lowerarm_l") - shoulder):length(), upper, 1e-3))
  H.check("only the arm moved", p:position("hand_r") == base:position("hand_r") and p:position("head") == base:position("head"))

  -- out of reach: the chain straightens towards the target
  local far = shoulder + m.vec3(60, 10, 0)
  local q = base:copy()
  local r2 = q:two_bone_ik("upperarm_l", "lowerarm_l", "hand_l", far)
  local d = (q:position("hand_l") - shoulder):length()
  H.check("out of reach: not reached", r2 == false)
  H.check("out of reach: the hand is a chain length away within 1e-3", H.near(d, reach, 1e-3), d .. " vs " .. reach)
  local dir = (q:position("hand_l") - shoulder):normalize()
  H.check("out of reach: pointing at the target", (dir - (far - shoulder):normalize()):length() < 1e-3)

  -- weight 0 and soft
  local w0 = base:copy(); w0:two_bone_ik("upperarm_l", "lowerarm_l", "hand_l", target, {weight = 0})
  H.check("weight 0 leaves the pose", w0:position("hand_l") == base:position("hand_l"))
  local soft = base:copy()
  local edge = shoulder + m.vec3(reach * 0.99, 0, 0)
  soft:two_bone_ik("upperarm_l", "lowerarm_l", "hand_l", edge, {soft = 0.1})
  H.check("soft stops short near full reach", (soft:position("hand_l") - edge):length() > 1e-3)

  -- world-space target: where the model is drawn
  local place = m.mat4.translate({1, 0, 2})
  local wp = base:copy()
  local wt = m.attach(man, base, "hand_l", {transform = place}):translation() + m.vec3(0.05, 0.1, 0.05)
  wp:two_bone_ik("upperarm_l", "lowerarm_l", "hand_l", wt, {space = "world", transform = place})
  local got = m.attach(man, wp, "hand_l", {transform = place}):translation()
  H.check("world-space target (metres, Y up) is reached", (got - wt):length() < 1e-4, (got - wt):length())

  -- aim chain: the head's +X turns to a point
  local a = base:copy()
  local point = a:position("head") + m.vec3(20, 30, 10)
  local left = a:aim({{"spine_03", 0.2}, {"neck", 0.3}, {"head", 0.5}}, point)
  local fwd = (a:model("head"):rotation() * m.vec3(1, 0, 0)):normalize()
  local want = (point - a:position("head")):normalize()
  H.check("aim turns the head to the point", left < 0.5 and fwd:dot(want) > 0.999, left)
  local sp = base:copy(); sp:aim({{"spine_03", 0.2}, {"neck", 0.3}, {"head", 0.5}}, point)
  H.check("aim shares the turn along the chain", sp:position("neck") ~= base:position("neck"))
  local lim = base:copy()
  local left2 = lim:aim({{"neck", 0.5}, {"head", 0.5}}, point, {limit = 10})
  H.check("aim limit leaves some of the turn", left2 > 5, left2)
  local wa = base:copy()
  local wpt = m.vec3(3, 1.6, 0)
  local lw = wa:aim({{"neck", 0.4}, {"head", 0.6}}, wpt, {space = "world"})
  H.check("aim at a world point", lw < 0.5, lw)
  local fw = base:copy(); fw:aim({{"head", 1}}, point, {forward = {0, 1, 0}})
  H.check("aim with another forward axis", ((fw:model("head"):rotation() * m.vec3(0, 1, 0)):normalize()):dot(want) > 0.999)

  -- attach with an offset: the offset is in the joint's frame
  local o = m.mat4.translate({0, 0, 10})
  local at = m.attach(man, base, "hand_r", o)
  local at2 = m.attach(man, base, "hand_r", {offset = o})
  local plain = m.attach(man, base, "hand_r")
  local want_pos = plain * (man:display_matrix() * m.vec3(0, 0, 10))
  H.check("attach offset: the prop origin sits 10 units along the joint's Z", at == at2 and
    (at:translation() - want_pos):length() < 1e-4 and (at:translation() - plain:translation()):length() > 0.2)

  -- errors
  H.raises("unknown joint in two_bone_ik", function() p:two_bone_ik("upperarm_l", "elbow_l", "hand_l", target) end,
    "unknown joint 'elbow_l'")
  H.raises("chain must be a chain", function() p:two_bone_ik("upperarm_l", "calf_l", "hand_l", target) end, "two_bone_ik:")
  H.raises("target must be a vec3", function() p:two_bone_ik("upperarm_l", "lowerarm_l", "hand_l", 5) end, "vec3 expected")
  H.raises("bad space", function() p:two_bone_ik("upperarm_l", "lowerarm_l", "hand_l", target, {space = "joint"}) end,
    "opts.space must be 'model' or 'world'")
  H.raises("bad soft", function() p:two_bone_ik("upperarm_l", "lowerarm_l", "hand_l", target, {soft = 1}) end, "opts.soft must be")
  H.raises("unknown joint in aim", function() p:aim({{"nek", 1}}, point) end, "unknown joint 'nek'")
  H.raises("aim share", function() p:aim({{"neck", 2}}, point) end, "share must be a number within 0..1")
  H.raises("aim chain order", function() p:aim({{"head", 0.5}, {"neck", 0.5}}, point) end, "aim:")
  H.raises("attach offset type", function() m.attach(man, base, "hand_r", {offset = 5}) end, "opts.offset must be a mat4")
  H.finish()
end
