-- wave_while_walking.lua — layering with a mask: the upper body plays one
-- clip while the legs keep another.
--
-- Track 1 of each mixer plays the walk. On the middle mannequin, track 2
-- plays the wave through an upper-body mask that eases in along the spine
-- (spine_01 a third, spine_02 two thirds, everything from spine_03 up
-- fully), so the legs walk exactly as on the left figure while the right
-- arm waves. On the right, snoutx10k (a third-party MD5 model from
-- ../shared/models, scaled up) runs its "forward" clip with its
-- "shotgun_shoot" clip layered on everything from Spine1 up.
--
--   marrow run --headless examples/wave_while_walking.lua --frames 31 --out examples
local m = require "marrow"

local SNOUT = "../shared/models/tomatenquark-essential/packages/models/snoutx10k/snoutx10k.md5mesh"
local man, snout, plain, waving, runner

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk_inplace", "wave"}}))
  plain = m.mixer(man):play(man:clip("walk_inplace"), {loop = "repeat"})
  waving = m.mixer(man):play(man:clip("walk_inplace"), {loop = "repeat"})
  waving:track(2, {mask = man:mask{{"spine_01", falloff = 3}}}):play(man:clip("wave"), {loop = "repeat"})
  snout = m.model(SNOUT, {anims = {"forward", "shotgun_shoot"}})
  if snout then
    runner = m.mixer(snout):play(snout:clip("forward"), {loop = "repeat"})
    runner:track(2, {mask = snout:mask{"Spine1"}}):play(snout:clip("shotgun_shoot"), {loop = "repeat"})
  end
end

function update(dt)
  plain:update(dt)
  waving:update(dt)
  if runner then runner:update(dt) end
end

function draw()
  m.camera{target = {0, 0.9, 0}, distance = 4.6, yaw = 75, pitch = 8}
  m.draw(man, plain:pose(), {transform = m.mat4.translate({0, 0, 1.2}), tint = {0.75, 0.8, 0.9}})
  m.draw(man, waving:pose())
  if runner then
    m.draw(snout, runner:pose(), {transform = m.mat4.translate({0, 0, -1.3}) * m.mat4.scale(8)})
  end
  local w = m.window()
  m.text(w * 0.5 - 300, 40, "walk")
  m.text(w * 0.5 - 90, 40, "walk + wave (upper-body mask)")
  m.text(w * 0.5 + 200, 40, "snoutx10k: forward + shotgun_shoot")
  if m.headless() and m.frame() == 15 then m.screenshot("wave_while_walking.png") end
end
