-- marrow.model, model, skeleton and clip methods on the mannequin.
local m = require "marrow"
local H = require "harness"

function load()
  local man = m.model("models/mannequin.md5mesh", {anims = {"walk", "idle", "models/wave.md5anim"}})
  H.check("model loads with anims", man ~= nil)
  H.check("same path + anims is the same cached model",
    m.model("models/mannequin.md5mesh", {anims = {"walk", "idle", "models/wave.md5anim"}}):path() == man:path())
  local none, msg = m.model("models/does_not_exist.md5mesh")
  H.check("load failure returns nil, message", none == nil and type(msg) == "string" and msg:find("does_not_exist", 1, true), msg)
  H.check("model tostring", tostring(man):find("22 joints", 1, true) ~= nil, tostring(man))
  H.check("model format", man:format() == "md5")

  local sk = man:skeleton()
  H.check("#skeleton is the joint count", #sk == 22)
  local arm = sk:joint("upperarm_l")
  H.check("joint(name) -> 1-based index", sk:name(arm) == "upperarm_l" and sk:joint(arm) == arm)
  H.check("root's parent is 0", sk:parent(1) == 0 and sk:name(1) == "pelvis")
  H.check("parent", sk:name(sk:parent(arm)) == "clavicle_l")
  local kids = sk:children("upperarm_l")
  H.check("children", #kids == 1 and sk:name(kids[1]) == "lowerarm_l")
  H.check("find returns nil for unknown", sk:find("tail") == nil)
  H.check("names", #sk:names() == 22)
  H.raises("unknown joint names close matches", function() sk:joint("upperarm.L") end,
    "test_model.lua:", "unknown joint 'upperarm.L'", "did you mean 'upperarm_l'")
  H.raises("joint index out of range", function() sk:name(23) end, "joint index 23 out of range 1..22")
  local rest = sk:rest_pose()
  H.check("rest_pose", #rest == 22)

  local clips = man:clips()
  H.check("clips lists all", #clips == 3 and clips[1]:name() == "walk" and clips[3]:name() == "wave")
  local walk = man:clip("walk")
  H.check("clip duration and rate", walk:duration() > 0.5 and walk:rate() == 30)
  H.check("clip by index", man:clip(2):name() == "idle")
  H.raises("unknown clip lists the clips", function() man:clip("run") end, "no clip 'run'", "'walk', 'idle', 'wave'")
  H.check("clip tostring", tostring(walk):find("clip 'walk'", 1, true) ~= nil)

  local meshes = man:meshes()
  H.check("meshes", #meshes >= 1 and meshes[1].triangles > 0 and meshes[1].vertices > 0 and meshes[1].skinned)
  local lo, hi = man:bounds()
  H.check("bounds", lo.z < hi.z and hi.z > 60, tostring(lo) .. " " .. tostring(hi))

  -- A clip keeps its model alive.
  local c = m.model("models/mannequin.md5mesh", {anims = {"walk"}}):clip("walk")
  collectgarbage(); collectgarbage()
  local p = m.pose(c ~= nil and man or nil)
  H.check("clip outlives its model variable", c:name() == "walk" and c:sample(0.3, p) == p)

  -- A COLLADA or MD5 model from ../shared/models works the same.
  local bob = m.model("../shared/models/assimp/test/models-nonbsd/MD5/Bob.md5mesh",
                      {anims = {"../shared/models/assimp/test/models-nonbsd/MD5/Bob.md5anim"}})
  H.check("a shared model loads", bob ~= nil and #bob:skeleton() > 10 and bob:clip("Bob") ~= nil)

  -- Loaded clips are packed by default: a fraction of the raw poses
  -- (10 floats per joint and frame), within 1e-4 of the size of their keys,
  -- which a script's clips give up (read again from the file on demand).
  local bc = bob:clip("Bob")
  local times = {}
  for i = 0, 40 do times[i] = bc:duration() * i / 40 + 0.0123 end
  local after, held = bc:bytes()
  local raw = 140 * #bob:skeleton() * 40
  H.check("a loaded clip is packed by default", after > 0 and after * 4 < raw, after .. " of " .. raw)
  H.check("it holds its pack, not its keys", held >= after and held < after + 4096, held .. " held, " .. after)
  local err = bc:error()
  H.check("the packed clip stays within 1e-4 of the size of its keys", err > 0 and err <= 1e-4, err)
  H.check("measuring reads the keys and gives them up again", select(2, bc:bytes()) == held)
  H.check("optimize returns the clip", bc:optimize() == bc)
  local exact = bc:sample(times[7], m.pose(bob))
  local mx = m.mixer(bob)
  mx:play(bc)
  mx:update(times[7])
  local mp, worst_mixer = mx:pose(), 0
  for j = 1, #mp do worst_mixer = math.max(worst_mixer, (mp:position(j) - exact:position(j)):length()) end
  H.check("the mixer plays the packed clip", worst_mixer == 0, worst_mixer)
  H.check("optimize again at the same tolerance keeps the pack", bc:optimize():bytes() == after)
  H.check("a looser tolerance packs smaller", bc:optimize(1e-3):bytes() < after)
  for _, bad in ipairs({0, 1e-300, 1e-8, -1e-4, 0.5, 0 / 0, 1 / 0}) do
    H.raises("optimize refuses tolerance " .. tostring(bad), function() bc:optimize(bad) end,
      "tolerance must be a fraction of the model's size")
  end
  H.raises("optimize refuses a string", function() bc:optimize("tight") end, "number expected")
  H.finish()
end
