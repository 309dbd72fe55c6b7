-- options: a misspelled key in any options table raises naming the key and
-- the closest known one (mr_lua_check_option_keys), extra arguments raise
-- (mr_lua_check_max_args), and marrow.blend's weights stay within 0..1.
local m = require "marrow"
local H = require "harness"

function load()
  local man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk", "idle"}}))
  local walk = man:clip("walk")
  local mx = m.mixer(man)
  local p = m.pose(man:skeleton())

  -- what the issue met: each ignored silently before
  H.raises("mixer:play {looop}", function() mx:play(walk, {looop = true}) end,
           "bad argument #2 to 'mixer:play'", "unknown option 'looop'", "did you mean 'loop'?")
  H.raises("pose:rotate {spce}", function() p:rotate("hand_l", m.quat.euler(0, 0, 10), {spce = "model"}) end,
           "'pose:rotate'", "unknown option 'spce'", "did you mean 'space'?")
  H.raises("camera {taget}", function() m.camera{taget = {0, 1, 0}} end,
           "'marrow.camera'", "unknown option 'taget'", "did you mean 'target'?")
  -- nothing close: the known keys are listed
  H.raises("mixer:play {zzz} lists the keys", function() mx:play(walk, {zzzzzz = 1}) end,
           "unknown option 'zzzzzz'", "known: loop, repetitions, speed")
  -- a list where named fields go
  H.raises("mixer:play {true}", function() mx:play(walk, {true}) end, "unexpected entry [1]")

  -- every other options table
  local cases = {
    {"marrow.model", function() m.model("models/mannequin.md5mesh", {anim = {"walk"}}) end, "anims"},
    {"marrow.mixer", function() m.mixer(man, {track = 2}) end, "tracks"},
    {"mixer:track", function() mx:track(1, {weigth = 0.5}) end, "weight"},
    {"track:play", function() mx:track(1):play(walk, {sped = 2}) end, "speed"},
    {"track:crossfade", function() mx:track(1):crossfade(walk, 0.2, {curv = "linear"}) end, "curve"},
    {"mixer:set_root_motion", function() mx:set_root_motion("pelvis", {yaww = false}) end, "yaw"},
    {"marrow.draw", function() m.draw(man, p, {tnit = {1, 0, 0}}) end, "tint"},
    {"marrow.draw_skeleton", function() m.draw_skeleton(man, p, {name = true}) end, "names"},
    {"marrow.light", function() m.light(1, {directon = {0, -1, 0}}) end, "direction"},
    {"marrow.scene", function() m.scene{shadow = false} end, "shadows"},
    {"marrow.scene floor", function() m.scene{floor = {raduis = 3}} end, "radius"},
    {"pose:translate", function() p:translate("hand_l", {0, 0, 0}, {mod = "replace"}) end, "mode"},
    {"pose:two_bone_ik", function() p:two_bone_ik("upperarm_l", "lowerarm_l", "hand_l", {0, 1, 0}, {pol = {0, 0, 1}}) end, "pole"},
    {"pose:aim", function() p:aim({{"head", 1}}, {0, 1, 1}, {forwrd = {1, 0, 0}}) end, "forward"},
    {"marrow.attach", function() m.attach(man, p, "hand_l", {tranform = m.mat4()}) end, "transform"},
    {"model:mask", function() man:mask{"spine_01", wieght = 0.5} end, "weight"},
    {"model:mask entry", function() man:mask{{"spine_01", falof = 2}} end, "falloff"},
    {"clip:retarget", function() m.retarget(walk, man, man, {feat = true}) end, "feet"},
    {"marrow.clip", function() m.clip(man, {duraton = 1}) end, "duration"},
    {"clip:key", function() m.clip(man, {duration = 1}):key("hand_l", 0, {rotation = m.quat()}, {eas = "step"}) end, "ease"},
    {"marrow.record", function() m.record(man, {fsp = 30}) end, "fps"},
    {"recorder:clip", function() local r = m.record(man); r:capture(p); r:capture(p, 0.1); r:clip("x", {tolerence = 0.1}) end, "tolerance"},
    {"marrow.save", function() m.save("x.gltf", man, {clip = {}}) end, "clips"},
  }
  for _, c in ipairs(cases) do
    H.raises(c[1] .. " misspelled key", c[2], "unknown option", "did you mean '" .. c[3] .. "'?")
  end
  -- the right keys still pass
  mx:play(walk, {loop = true, speed = 1, weight = 1})
  man:mask{"spine_01", {"neck", falloff = 2}, weight = 0.5, subtree = true}
  m.camera{target = {0, 1, 0}, distance = 4}
  H.check("the known keys pass", true)

  -- extra arguments
  H.raises("quat.euler(1, 2, 3, 4)", function() return m.quat.euler(1, 2, 3, 4) end,
           "bad argument #4 to 'marrow.quat.euler'", "at most 3 arguments expected, got 4")
  H.raises("vec3(1, 2, 3, 4)", function() return m.vec3(1, 2, 3, 4) end, "bad argument #4", "at most 3")
  H.raises("quat:to_euler(1)", function() return m.quat():to_euler(1) end, "bad argument #1 to 'quat:to_euler'",
           "at most 0 arguments")
  H.raises("pose:rotate with an extra weight", function() p:rotate("hand_l", m.quat(), {weight = 1}, 0.5) end,
           "bad argument #4 to 'pose:rotate'")
  H.check("quat.euler(1, 2, 3) passes", m.quat.euler(1, 2, 3) ~= nil)

  -- a misspelled joint in a mask's entries blames the entries (argument #1)
  H.raises("model:mask{'spine1'} blames #1", function() man:mask{"spine1"} end,
           "bad argument #1 to 'model:mask'", "entries[1]: unknown joint 'spine1'", "spine_01")
  H.raises("model:mask{{'spine1'}} blames #1", function() man:mask{"head", {"spine1"}} end,
           "bad argument #1 to 'model:mask'", "entries[2][1]: unknown joint 'spine1'")

  -- marrow.blend: weights within 0..1, entries {pose, weight [, mask]}
  local a, b = m.pose(man), m.pose(man)
  H.raises("blend weight 2", function() m.blend(a, {a, 2}, {b, 1}) end, "weight must be a number within 0..1, got 2")
  H.raises("blend weight -0.5", function() m.blend(a, {a, -0.5}) end, "within 0..1")
  H.raises("blend weight nan", function() m.blend(a, {a, 0/0}) end, "within 0..1")
  H.raises("blend entry of 4", function() m.blend(a, {a, 1, nil, 5}) end, "got 4 entries")
  m.blend(a, {a, 0.5}, {b, 0.5})
  H.check("blend of weights within 0..1 passes", true)
  H.finish()
end
