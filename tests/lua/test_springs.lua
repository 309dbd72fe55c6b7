-- Spring chains from Lua (wrap_springs.c): marrow.springs on any chain,
-- model:springs() for the springs a file declares, update / reset, the
-- bad-argument messages naming the key or the joint, and a recording that
-- holds what the springs did (the recorder records the final pose).
local m = require "marrow"
local H = require "harness"

local RIG = "tests/data/springs/spring_rig.gltf"

-- the rig's hips turn and the body walks: what the springs follow
local function drive(pose, t)
  pose:rest()
  pose:set_rotation("hips", m.quat.axis_angle({1, 0, 0}, 0.25 * math.sin(3.2 * t)))
  return m.mat4.translate({0.4 * math.sin(1.3 * t), 0, 1.1 * t})
end

function load()
  local rig = assert(m.model(RIG))

  -- the file's springs
  local s = rig:springs()
  H.check("model:springs() reads the file's three chains", tostring(s):find("3 chains, 11 joints, 4 colliders, fixed step", 1, true) ~= nil, tostring(s))
  H.check("springs:joints() lists the spring joints", #s:joints() == 11 and s:joints()[1] == "hair0")
  local f = rig:springs({step = "frame"})
  H.check("model:springs{step = 'frame'}", tostring(f):find("frame step", 1, true) ~= nil)

  -- update moves the chain, keeps finite values, and the tips stay out of colliders
  local pose = m.pose(rig)
  local rest_tip = pose:position("tail5")
  local deepest, moved = 0, 0
  for i = 0, 90 do
    local place = drive(pose, i / 60)
    s:update(pose, i == 0 and 0 or 1 / 60, place)
    deepest = math.max(deepest, s:penetration(pose, place))
    moved = math.max(moved, (pose:position("tail5") - rest_tip):length())
  end
  H.check("the tail follows through (its tip moves in model space)", moved > 0.01, moved)
  H.check("no tip deeper than 0.1 mm in a collider", deepest < 1e-4, deepest)
  H.check("update returns the pose", s:update(pose, 0) == pose)
  s:reset(pose)
  local t, r = pose:get_local("tail0")
  H.check("reset puts the spring joints back at rest", H.near(math.abs(r.w), 1, 1e-6))

  -- any chain of any model, with its own colliders
  local man = assert(m.model("models/mannequin.md5mesh"))
  local arm = m.springs(man, {
    chains = {{joints = {"upperarm_l", "lowerarm_l", "hand_l"}, stiffness = {0.5, 0.8}, drag = 0.3,
               gravity = {0, 0, -20}, radius = 1}},
    colliders = {{joint = "spine_03", radius = 6, offset = {0, 0, 2}}, {joint = "pelvis", radius = 4, tail = {0, 0, 20}}},
    step = "fixed"})
  H.check("marrow.springs on the mannequin's arm", tostring(arm):find("1 chains, 2 joints, 2 colliders", 1, true) ~= nil, tostring(arm))
  local mp = m.pose(man)
  for i = 0, 30 do arm:update(mp, 1 / 30) end
  local _, r2 = mp:get_local("upperarm_l")
  H.check("gravity swings the arm", math.abs(r2.w) < 0.999, r2.w)

  -- bad arguments name the key or the joint
  H.raises("unknown option key", function() m.springs(man, {chains = {}, stiff = 1}) end,
    "bad argument #2 to 'marrow.springs'", "unknown option 'stiff'")
  H.raises("unknown chain key", function() m.springs(man, {chains = {{joints = {"neck", "head"}, stifness = 1}}}) end,
    "unknown option 'stifness' in chains[1]", "did you mean 'stiffness'")
  H.raises("unknown joint named", function() m.springs(man, {chains = {{joints = {"neck", "hed"}}}}) end,
    "chains[1].joints[2]: no joint 'hed' in the model")
  H.raises("not a chain", function() m.springs(man, {chains = {{joints = {"neck", "hand_l"}}}}) end,
    "'hand_l' is not a child of 'neck'")
  H.raises("drag out of range", function() m.springs(man, {chains = {{joints = {"neck", "head"}, drag = 1.5}}}) end,
    "chains[1].drag must be a number in 0", "got 1.5")
  H.raises("per-spring list of the wrong length", function() m.springs(man, {chains = {{joints = {"neck", "head"}, stiffness = {1, 2}}}}) end,
    "chains[1].stiffness: expected one value or a list of 1")
  H.raises("collider on a missing joint", function() m.springs(man, {chains = {{joints = {"neck", "head"}}}, colliders = {{joint = "tail", radius = 1}}}) end,
    "colliders[1].joint: no joint 'tail' in the model")
  H.raises("bad step", function() m.springs(man, {chains = {{joints = {"neck", "head"}}}, step = "sometimes"}) end,
    "step must be \"fixed\" or \"frame\"")
  H.raises("negative dt", function() arm:update(mp, -1) end, "bad argument #2 to 'springs:update' (dt must be >= 0)")
  H.raises("a pose of another model", function() arm:update(pose, 0.1) end, "springs:update")
  local none, msg = man:springs()
  H.check("model:springs() without springs in the file: nil, message", none == nil and msg:find("declares no springs", 1, true) ~= nil, msg)

  -- the recorder records what the springs did
  local rec = m.record(rig, {fps = 60})
  local p2 = m.pose(rig)
  local s2 = rig:springs()
  local last
  for i = 0, 60 do
    local place = drive(p2, i / 60)
    s2:update(p2, i == 0 and 0 or 1 / 60, place)
    rec:capture(p2, i / 60)
    if i == 45 then last = p2:copy() end
  end
  local clip = rec:clip("springs")
  local back = m.pose(rig)
  clip:sample(45 / 60, back)
  local _, want = last:get_local("tail1")
  local _, got = back:get_local("tail1")
  H.check("the spring joints move in the recording", math.abs(want.w) < 0.9999, want.w)
  local dot = want.x * got.x + want.y * got.y + want.z * got.z + want.w * got.w
  H.check("the recorded clip holds the springs' rotation", math.abs(dot) > 0.9999, dot)

  H.finish()
end
