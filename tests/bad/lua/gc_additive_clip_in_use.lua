-- Calling a script-made clip's finalizer by hand while a mixer plays it
-- (found by tests/fuzz/fuzz_lua). It used to free the clip under the mixer
-- and the userdata (use after free); clips now have no reachable __gc, so
-- the call fails: "attempt to call a nil value (field '__gc')".
local m = require "marrow"
local man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk", "wave"}}))
local add = m.additive(man:clip("wave"), 0)
local mixer = m.mixer(man)
mixer:play(man:clip("walk"), {loop = true})
mixer:track(2, {additive = true}):play(add, {loop = true})
local frame = 0
function update(dt)
  frame = frame + 1
  if frame == 1 then
    pcall(getmetatable(add).__gc, add)
    collectgarbage("collect")
    mixer:update(dt)
    mixer:pose()
    assert(add:duration() > 0)
  else
    getmetatable(add).__gc(add)
  end
end
