-- Chain IK from Lua: pose:ik_chain (FABRIK and CCD, pole, limits measured
-- after the solve, weight, world space) and its errors (anim/ik_chain.h,
-- src/lua/wrap_pose.c).
local m = require "marrow"
local H = require "harness"

-- degrees between the rest and current direction of a bone (parent frame)
local function angle_deg(a, b)
  local d = a:normalize():dot(b:normalize())
  return math.deg(math.acos(math.max(-1, math.min(1, d))))
end

function load()
  local man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk"}}))
  local base = m.pose(man)
  man:clip("walk"):sample(0.4, base)

  -- a reachable target: where the hand is in another pose of the chain
  local aim = base:copy()
  aim:rotate("spine_02", m.quat.euler(10, 20, 0)):rotate("upperarm_l", m.quat.euler(0, -30, 40))
     :rotate("lowerarm_l", m.quat.euler(0, 0, -50))
  local target = aim:position("hand_l")
  for _, solver in ipairs{"fabrik", "ccd"} do
    local p = base:copy()
    local reached, err = p:ik_chain("spine_01", "hand_l", target, {solver = solver})
    H.check(solver .. ": reaches a reachable target", reached == true, err)
    H.check(solver .. ": hand within 1e-3 inch", (p:position("hand_l") - target):length() < 1e-3,
      (p:position("hand_l") - target):length())
    H.check(solver .. ": the error is the distance left", H.near(err, (p:position("hand_l") - target):length(), 1e-4))
    H.check(solver .. ": the other arm's chain below the spine is unchanged",
      p:get_local("upperarm_r") == base:get_local("upperarm_r"))
  end

  -- out of reach: not reached, error > 0, no NaN
  local p = base:copy()
  local far = p:position("spine_01") + m.vec3(0, 500, 0)
  local reached, err = p:ik_chain("spine_01", "hand_l", far)
  H.check("out of reach: not reached", reached == false and err > 400 and err == err)

  -- a cone on the upper arm and a hinge on the elbow hold after the solve
  local limits = {upperarm_l = {cone = 25, twist = {-10, 10}},
                  lowerarm_l = {hinge = {0, 0, 1}, min = -90, max = 0}}
  local q = base:copy()
  q:ik_chain("clavicle_l", "hand_l", q:position("upperarm_l") + m.vec3(-10, 15, -20), {limits = limits})
  local sk = man:skeleton()
  -- the upper arm's bone (toward the elbow) against its rest direction, in the clavicle's frame
  local _, r = q:get_local("upperarm_l")
  local _, rr = m.pose(man):get_local("upperarm_l")
  local t_el = m.pose(man):get_local("lowerarm_l")
  local dev = angle_deg(r * t_el, rr * t_el)
  H.check("cone of 25 degrees holds (" .. string.format("%.4f", dev) .. ")", dev <= 25)

  -- weight 0 without limits leaves the pose
  local w0 = base:copy()
  w0:ik_chain("spine_01", "hand_l", target, {weight = 0})
  H.check("weight 0 leaves the pose", w0:position("hand_l") == base:position("hand_l"))

  -- the same result every run
  local a, b = base:copy(), base:copy()
  a:ik_chain("spine_01", "hand_l", target, {pole = {0, -30, 40}, limits = limits, iterations = 20})
  b:ik_chain("spine_01", "hand_l", target, {pole = {0, -30, 40}, limits = limits, iterations = 20})
  H.check("same bits every run", a:position("hand_l") == b:position("hand_l"))

  -- world space: the target and the error in metres
  local wp = base:copy()
  local wt = man:display_matrix() * target
  local wr, we = wp:ik_chain("spine_01", "hand_l", wt, {space = "world"})
  H.check("world target reached", wr == true and we < 1e-4, we)

  -- errors
  H.raises("unknown first joint", function() p:ik_chain("spine_1", "hand_l", target) end,
    "unknown joint 'spine_1'", "spine_01")
  H.raises("first not an ancestor", function() p:ik_chain("hand_l", "spine_01", target) end,
    "'hand_l' is not an ancestor of 'spine_01'")
  H.raises("other branch", function() p:ik_chain("upperarm_r", "hand_l", target) end, "is not an ancestor")
  H.raises("misspelt option", function() p:ik_chain("spine_01", "hand_l", target, {iteration = 3}) end,
    "unknown option 'iteration'", "did you mean 'iterations'")
  H.raises("bad solver", function() p:ik_chain("spine_01", "hand_l", target, {solver = "jacobian"}) end, "opts.solver")
  H.raises("bad weight", function() p:ik_chain("spine_01", "hand_l", target, {weight = 2}) end, "opts.weight")
  H.raises("bad iterations", function() p:ik_chain("spine_01", "hand_l", target, {iterations = "many"}) end,
    "opts.iterations")
  H.raises("bad pole", function() p:ik_chain("spine_01", "hand_l", target, {pole = "up"}) end, "opts.pole")
  H.raises("limit on an unknown joint", function()
    p:ik_chain("spine_01", "hand_l", target, {limits = {lowerarm_ll = {cone = 10}}}) end,
    "unknown joint 'lowerarm_ll'", "did you mean 'lowerarm_l'")
  H.raises("limit off the chain", function()
    p:ik_chain("spine_01", "hand_l", target, {limits = {calf_l = {cone = 10}}}) end, "'calf_l' is not on the chain")
  H.raises("cone out of range", function()
    p:ik_chain("spine_01", "hand_l", target, {limits = {upperarm_l = {cone = 200}}}) end, "cone must be degrees")
  H.raises("hinge min above max", function()
    p:ik_chain("spine_01", "hand_l", target, {limits = {lowerarm_l = {hinge = {0, 0, 1}, min = 10, max = -10}}}) end,
    "min is above max")
  H.raises("hinge axis", function()
    p:ik_chain("spine_01", "hand_l", target, {limits = {lowerarm_l = {hinge = {0, 0, 0}, min = 0, max = 10}}}) end,
    "hinge must be a non-zero vec3")
  H.raises("unknown limit key", function()
    p:ik_chain("spine_01", "hand_l", target, {limits = {lowerarm_l = {swing = 10}}}) end, "has key 'swing'")
  H.raises("twist shape", function()
    p:ik_chain("spine_01", "hand_l", target, {limits = {lowerarm_l = {cone = 10, twist = 5}}}) end,
    "twist must be {min, max}")
  H.finish()
end
