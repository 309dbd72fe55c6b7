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
  H.finish()
end
