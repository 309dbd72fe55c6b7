-- marrow.retarget: a clip of one model played by another (wrap_clip.c,
-- anim/retarget.h): onto its own model, onto Bob (MD5) and astroBoy
-- (COLLADA, another frame), a given map, feet, and bad arguments.
local m = require "marrow"
local H = require "harness"

local BOB = "../shared/models/assimp/test/models-nonbsd/MD5/Bob.md5mesh"
local ASTRO = "../shared/models/lab101-bonesAssimpTest/bin/data/astroBoy_walk.dae"

function load()
  local man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk", "wave"}}))
  local wave = man:clip("wave")

  -- onto its own model: the same poses
  local same, report = m.retarget(wave, man, man)
  H.check("retarget returns a clip and a report", tostring(same):find("clip 'wave'", 1, true) ~= nil
    and type(report) == "string" and report:find("mapped 22 of 22", 1, true) ~= nil, report)
  H.check("the clip keeps its duration", H.near(same:duration(), wave:duration()))
  H.check("onto a model facing the same way the report has no facing line", not report:find("facing:", 1, true), report)
  local a, b = m.pose(man), m.pose(man)
  local worst = 0
  for i = 0, 20 do
    local t = wave:duration() * i / 20
    wave:sample(t, a); same:sample(t, b)
    for _, j in ipairs({"hand_r", "head", "foot_l", "lowerarm_r"}) do
      worst = math.max(worst, (a:position(j) - b:position(j)):length())
    end
  end
  -- wave plays its pack (within 1e-4 of the model's size of its keys), the
  -- retargeted clip the keys themselves
  local lo, hi = man:bounds()
  H.check("onto its own model the joints stay within 1e-4 of the size", worst < 1e-4 * (hi - lo):length() + 1e-4, worst)

  -- a retargeted clip plays in a mixer like any clip
  local mixer = m.mixer(man)
  mixer:play(same, {loop = true})
  mixer:update(0.5)
  H.check("the mixer plays a retargeted clip", mixer:pose():position("hand_r") ~= nil)

  -- Bob (MD5, other names) and astroBoy (COLLADA, Y-up metres)
  local bob = m.model(BOB)
  if bob then
    local c, rep = m.retarget(wave, man, bob)
    H.check("mannequin wave onto Bob: mapped by names, sides by body", rep:find("upperarm.R <- upperarm_l", 1, true) ~= nil, rep)
    H.check("onto Bob the report says the target was turned to the source's facing",
      rep:find("facing: the target is turned 90 degrees to face the way the source faces", 1, true) ~= nil, rep)
    local p0, p1 = m.pose(bob), m.pose(bob)
    c:sample(0, p0); c:sample(1.0, p1)
    -- the mannequin waves its right hand: Bob's right hand is named wrist.L
    H.check("Bob's right hand moves in the wave", (p0:position("wrist.L") - p1:position("wrist.L")):length() > 10,
      (p0:position("wrist.L") - p1:position("wrist.L")):length())
    H.check("Bob's feet stay", (p0:position("ankle.L") - p1:position("ankle.L")):length() < 0.5)
    -- a given map: only the right arm
    local arm = m.retarget(wave, man, bob, {map = {upperarm_r = "upperarm.R", lowerarm_r = "forearm.R", hand_r = "wrist.R"}})
    local q = m.pose(bob); arm:sample(1.0, q)
    local q0 = m.pose(bob); arm:sample(0, q0)
    H.check("a given map moves what it names: the hand goes up", q:position("wrist.R").z > q0:position("wrist.R").z + 20,
      q:position("wrist.R"))
    H.check("and nothing else", (q:position("head") - m.pose(bob):position("head")):length() < 1e-4
      and (q:position("wrist.L") - m.pose(bob):position("wrist.L")):length() < 1e-4)
    H.raises("a map naming no joint raises", function() m.retarget(wave, man, bob, {map = {nope = "head"}}) end,
      "'nope' is not a joint of the source skeleton")
    H.raises("a map of non-names raises", function() m.retarget(wave, man, bob, {map = {1, 2}}) end, "opts.map")
  else
    print("  skipped: no " .. BOB)
  end
  local astro = m.model(ASTRO)
  if astro then
    local c, rep = m.retarget(man:clip("walk"), man, astro, {feet = true})
    H.check("walk onto astroBoy holds contacts", rep:find("contacts held", 1, true) ~= nil, rep)
    H.check("astroBoy's clip lasts as long", H.near(c:duration(), man:clip("walk"):duration()))
    local h = m.retarget(wave, man, astro, {hands = true, scale = 0.5, keep_rest = true})
    H.check("hands, a given scale and keep_rest retarget too", H.near(h:duration(), wave:duration()))
  end

  -- CMU's clavicles rise 20 degrees from the spine to the shoulder, the
  -- mannequin's lie level: the retargeted shoulders move as CMU's move from
  -- their rest, they are not lifted by the difference (hunched, creased).
  local cmu = m.model("/usr/share/assimp/models/BVH/01_01.bvh")
  if cmu then
    local function elevation(model, pose, chest, neck, clav, arm)
      local D = model:display_matrix()
      local up = (D * pose:position(neck) - D * pose:position(chest)):normalize()
      local cl = (D * pose:position(arm) - D * pose:position(clav)):normalize()
      return 90 - math.deg(math.acos(math.max(-1, math.min(1, up:dot(cl)))))
    end
    local take = cmu:clips()[1]
    local on_man = m.retarget(take, cmu, man, {feet = true})
    local pm, pc = m.pose(man), m.pose(cmu)
    local man0 = elevation(man, pm, "spine_02", "neck", "clavicle_l", "upperarm_l")
    local cmu0 = elevation(cmu, pc, "Spine", "Neck1", "LeftShoulder", "LeftArm")
    local dman, dcmu = 0, 0
    for t = 0, take:duration(), 0.25 do
      on_man:sample(t, pm); take:sample(t, pc)
      dman = math.max(dman, math.abs(elevation(man, pm, "spine_02", "neck", "clavicle_l", "upperarm_l") - man0))
      dcmu = math.max(dcmu, math.abs(elevation(cmu, pc, "Spine", "Neck1", "LeftShoulder", "LeftArm") - cmu0))
    end
    H.check(("CMU on the mannequin: the clavicle strays from its rest as CMU's does (%.1f vs %.1f deg), not lifted"):format(dman, dcmu),
      dman <= dcmu + 5, dman .. " vs " .. dcmu)
  end

  H.raises("a clip of another model raises", function() m.retarget(wave, bob or man, man) end, "not a clip of source_model")
  H.raises("a negative scale raises", function() m.retarget(wave, man, man, {scale = -1}) end, "opts.scale")
  H.raises("a model is needed", function() m.retarget(wave, man, 5) end, "model expected")
  H.finish()
end
