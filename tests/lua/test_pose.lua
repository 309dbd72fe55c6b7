-- pose: local/model, blend, copy, overrides; lowering an arm while walking
-- changes only that arm and its children.
local m = require "marrow"
local H = require "harness"

local function subtree(sk, root)
  local set = {[root] = true}
  for j = root + 1, #sk do if set[sk:parent(j)] then set[j] = true end end
  return set
end

function load()
  local man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk", "idle"}}))
  local sk = man:skeleton()
  local walk = man:clip("walk")

  local p = m.pose(sk)
  H.check("pose from skeleton", #p == 22 and tostring(p) == "pose (22 joints)")
  local t, r, s = p:get_local("lowerarm_l")
  H.check("get_local returns t, r, s", getmetatable(t).__name == "vec3" and getmetatable(r).__name == "quat" and s == m.vec3(1, 1, 1))
  local t2 = p["local"](p, "lowerarm_l")
  H.check("pose['local'] is get_local", t2 == t)
  p:set_local("lowerarm_l", {1, 2, 3})
  H.check("set_local keeps what is nil", p:get_local("lowerarm_l") == m.vec3(1, 2, 3) and select(2, p:get_local("lowerarm_l")) == r)
  local a = p:model("hand_l")
  H.check("model() is cached until the pose changes", p:model("hand_l") == a)
  p:set_local("lowerarm_l", {0, 0, 0})
  H.check("model() follows a change", p:model("hand_l") ~= a)
  p:rest()

  -- The headline: lower the left arm while walking.
  local base = m.pose(sk)
  walk:sample(0.4, base)
  local over = base:copy()
  over:rotate("upperarm_l", m.quat.euler(0, 40, 0))
  local arm = subtree(sk, sk:joint("upperarm_l"))
  local moved_ok, still_ok = true, true
  for j = 1, #sk do
    local d = (over:position(j) - base:position(j)):length()
    if arm[j] and j ~= sk:joint("upperarm_l") then moved_ok = moved_ok and d > 1 else still_ok = still_ok and d == 0 end
  end
  H.check("override moves the arm's children", moved_ok)
  H.check("override leaves every other joint exactly in place", still_ok)
  H.check("the overridden joint itself stays put", (over:position("upperarm_l") - base:position("upperarm_l")):length() == 0)

  local half = base:copy():rotate("upperarm_l", m.quat.euler(0, 40, 0), {weight = 0.5})
  local dh = (half:position("hand_l") - base:position("hand_l")):length()
  local df = (over:position("hand_l") - base:position("hand_l")):length()
  H.check("weight 0.5 moves about half as far", dh > 0.4 * df and dh < 0.6 * df, dh .. " vs " .. df)
  local zero = base:copy():rotate("upperarm_l", m.quat.euler(0, 40, 0), {weight = 0})
  H.check("weight 0 changes nothing", zero:position("hand_l") == base:position("hand_l"))

  -- Model space: a model-space rotation about the shoulder swings the hand around it.
  local ms = base:copy():rotate("upperarm_l", m.quat.euler(0, 0, 90), {space = "model"})
  local shoulder = base:position("upperarm_l")
  H.check("model-space rotation keeps distance to the shoulder",
    H.near((ms:position("hand_l") - shoulder):length(), (base:position("hand_l") - shoulder):length(), 1e-3))
  local rq = m.quat.euler(0, 0, 90)
  local rep = base:copy():set_rotation("upperarm_l", rq, {space = "model"})
  H.check("set_rotation in model space sets the model rotation",
    H.near(math.abs((rep:model("upperarm_l"):rotation()):inverse().w * 0 + 1), 1) and
    H.vnear(rep:model("upperarm_l"):rotation() * m.vec3(1, 0, 0), rq * m.vec3(1, 0, 0), 1e-4))
  local tr = base:copy():translate("pelvis", {0, 0, 10})
  H.check("translate adds", H.near(tr:position("head").z - base:position("head").z, 10, 1e-3))
  local sc = base:copy():scale("upperarm_l", 2)
  H.check("scale grows the arm", (sc:position("hand_l") - sc:position("upperarm_l")):length() >
    1.9 * (base:position("hand_l") - base:position("upperarm_l")):length())
  local st = base:copy():set_translation("pelvis", {0, 0, 0})
  H.check("set_translation replaces", st:position("pelvis") == m.vec3(0, 0, 0))

  -- blend
  local idle = m.pose(sk); man:clip("idle"):sample(1.0, idle)
  local b0, b1 = base:copy():blend(idle, 0), base:copy():blend(idle, 1)
  H.check("blend 0 keeps, blend 1 takes the other", b0:position("hand_r") == base:position("hand_r") and
    H.vnear(b1:position("hand_r"), idle:position("hand_r"), 1e-3))

  -- clip:sample keeps a playback cursor in the pose: a pose that follows
  -- a playhead, goes back, or alternates between clips holds, joint for
  -- joint, what a fresh pose gets at the same time (its first sample)
  local follow, swap = m.pose(sk), m.pose(sk)
  local idle_clip, same = man:clip("idle"), true
  local times = {0, 0.01, 0.02, 0.3, 0.31, 0.9, 0.2, 1.7, 0.05, walk:duration(), 0.5}
  for _, tt in ipairs(times) do
    local fresh, fresh_idle = m.pose(sk), m.pose(sk)
    walk:sample(tt, follow); walk:sample(tt, fresh); idle_clip:sample(tt, fresh_idle)
    for j = 1, #sk do
      local a, b = {follow:get_local(j)}, {fresh:get_local(j)}
      if a[1] ~= b[1] or a[2] ~= b[2] or a[3] ~= b[3] then same = false end
    end
    idle_clip:sample(tt, swap)
    for j = 1, #sk do if swap:model(j) ~= fresh_idle:model(j) then same = false end end
    walk:sample(tt, swap)
    for j = 1, #sk do if swap:model(j) ~= fresh:model(j) then same = false end end
  end
  H.check("a pose sampled along, back and across clips holds a fresh pose's values", same)

  -- errors
  H.raises("bad override quat", function() p:rotate("head", 5) end, "bad argument #2 to 'pose:rotate' (quat expected, got number)", "test_pose.lua:")
  H.raises("bad opts.space", function() p:rotate("head", m.quat(), {space = "world"}) end, "opts.space must be 'local' or 'model'")
  H.raises("bad opts.mode", function() p:rotate("head", m.quat(), {mode = "mul"}) end, "opts.mode must be 'add' or 'replace'")
  H.raises("bad opts.weight", function() p:rotate("head", m.quat(), {weight = 2}) end, "opts.weight must be a number within 0..1")
  H.raises("scale is local only", function() p:scale("head", 2, {space = "model"}) end, "opts.space must be 'local', got 'model'")
  H.raises("non-finite override", function() p:rotate("head", m.quat(0/0, 0, 0, 1)) end, "rotation override")
  local other = m.pose(m.model("../shared/models/assimp/test/models-nonbsd/MD5/Bob.md5mesh"))
  H.raises("blend needs the same joint count", function() p:blend(other, 0.5) end, "pose has")
  H.raises("clip into a pose of another skeleton", function() walk:sample(0, other) end, "clip 'walk' animates 22 joints")
  local closed = m.pose(sk); closed:close()
  H.raises("closed pose", function() closed:model(1) end, "attempt to use a closed pose")
  H.check("closed pose prints", tostring(closed) == "pose (closed)")
  H.finish()
end
