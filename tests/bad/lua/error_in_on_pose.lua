local m = require "marrow"
local man, mixer
function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk"}}))
  mixer = m.mixer(man)
  mixer:play(man:clip("walk"), {loop = "repeat"})
  mixer:on_pose(function(pose) pose:rotate("nek", m.quat()) end)
end
function update(dt) mixer:update(dt) end
function draw() m.draw(man, mixer:pose()) end
