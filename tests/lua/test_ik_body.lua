-- Full-body IK from Lua: marrow.ik_body finds the rig, solver:solve keeps
-- planted feet on their marks while the hands reach (the pelvis and spine
-- move), reports per-goal errors and conflicts; errors (anim/ik_body.h,
-- src/lua/wrap_ik_body.c).
local m = require "marrow"
local H = require "harness"

function load()
  local man = assert(m.model("models/mannequin.md5mesh"))
  local body = m.ik_body(man)
  local rig = body:rig()
  H.check("rig: pelvis, head, spine", rig.pelvis == "pelvis" and rig.head == "head" and #rig.spine == 3, rig.pelvis)
  H.check("rig: limbs", rig.left_arm[3] == "hand_l" and rig.right_leg[1] == "thigh_r" and rig.left_leg[3] == "foot_l")

  local pose = m.pose(man)
  local fl, fr = pose:position("foot_l"), pose:position("foot_r")
  -- hands forward and down, a little beyond the standing arms' reach: the body must lean
  local sh = pose:position("upperarm_l")
  local arm = (pose:position("lowerarm_l") - sh):length() + (pose:position("hand_l") - pose:position("lowerarm_l")):length()
  local tl = sh + m.vec3(arm * 0.9, 0, -arm * 0.6)
  local tr = pose:position("upperarm_r") + m.vec3(arm * 0.9, 0, -arm * 0.6)
  local res = body:solve(pose, {foot_l = {position = fl}, foot_r = {position = fr},
                                hand_l = {position = tl}, hand_r = {position = tr}})
  H.check("reached", res.reached == true and res.conflict == false)
  H.check("feet on their marks within 1e-3 inch", (pose:position("foot_l") - fl):length() < 1e-3 and
          (pose:position("foot_r") - fr):length() < 1e-3)
  H.check("hands on their targets", (pose:position("hand_l") - tl):length() < 1e-2, res.errors.hand_l)
  H.check("errors are reported per goal", res.errors.hand_l < 1e-2 and res.errors.foot_r < 1e-3)
  H.check("the pelvis moved", (pose:position("pelvis") - m.pose(man):position("pelvis")):length() > 0.1)

  -- conflicting: a hand 5 m away
  local p2 = m.pose(man)
  local res2 = body:solve(p2, {foot_l = {position = fl}, foot_r = {position = fr},
                               hand_l = {position = m.vec3(0, 200, 50)}})
  H.check("conflict flagged", res2.conflict == true and res2.reached == false and res2.errors.hand_l > 50)
  H.check("feet still planted", (p2:position("foot_l") - fl):length() < 1e-3)

  -- weight and rotation
  local p3 = m.pose(man)
  body:solve(p3, {head = {position = p3:position("head"), rotation = m.quat.euler(0, 0, 30)}, hand_r = {position = tr, weight = 0}})
  H.check("weight 0 leaves that hand", p3:position("hand_r") == m.pose(man):position("hand_r"))

  -- limits: a stiff lower spine and a limited shoulder hold in the result
  local stiff = m.ik_body(man, {limits = {spine_01 = {cone = 4}, upperarm_l = {cone = 60, twist = {-10, 10}}}})
  local p4 = m.pose(man)
  stiff:solve(p4, {foot_l = {position = fl}, foot_r = {position = fr}, hand_l = {position = tl}})
  local rest = m.pose(man)
  local function dev(joint, child)
    local _, r = p4:get_local(joint)
    local _, rr = rest:get_local(joint)
    local t = rest:get_local(child)
    local a, b = (r * t):normalize(), (rr * t):normalize()
    return math.deg(math.acos(math.max(-1, math.min(1, a:dot(b)))))
  end
  H.check("spine_01 within its 4 degree cone", dev("spine_01", "spine_02") <= 4, dev("spine_01", "spine_02"))
  H.check("upperarm_l within its 60 degree cone", dev("upperarm_l", "lowerarm_l") <= 60, dev("upperarm_l", "lowerarm_l"))
  H.check("feet planted with limits", (p4:position("foot_l") - fl):length() < 1e-3)
  H.raises("limit option checked", function() m.ik_body(man, {limits = {spine_01 = {cone = 400}}}) end,
    "opts.limits['spine_01'].cone must be degrees")

  H.raises("unknown goal joint", function() body:solve(pose, {hand_ll = {position = tl}}) end,
    "unknown joint 'hand_ll'", "did you mean 'hand_l'")
  H.raises("goal joint not an end", function() body:solve(pose, {lowerarm_l = {position = tl}}) end,
    "'lowerarm_l' is not a hand, foot, head or pelvis")
  H.raises("goal shape", function() body:solve(pose, {hand_l = tl}) end, "goals['hand_l'] must be")
  H.raises("goal position", function() body:solve(pose, {hand_l = {position = 3}}) end, "goals['hand_l'].position must be a vec3")
  H.raises("goal weight", function() body:solve(pose, {hand_l = {position = tl, weight = 2}}) end, "weight must be a number within 0..1")
  H.raises("goal key", function() body:solve(pose, {hand_l = {pos = tl}}) end, "unknown option 'pos' in goals['hand_l']")
  H.raises("option key", function() m.ik_body(man, {iteration = 3}) end, "unknown option 'iteration'", "did you mean 'iterations'")
  H.raises("option type", function() m.ik_body(man, {iterations = "x"}) end, "opts.iterations")
  local sword = assert(m.model("models/sword.md5mesh"))
  H.raises("no limbs", function() m.ik_body(sword) end, "found no arm")
  H.finish()
end
