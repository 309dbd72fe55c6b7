local m = require "marrow"
local man, mixer
function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk"}}))
  mixer = m.mixer(man)
  mixer:on("loop", function(e) error("handler of '" .. e.name .. "' failed on purpose") end)
  mixer:play(man:clip("walk"), {loop = "repeat"})
end
function update(dt) mixer:update(dt * 40) end
