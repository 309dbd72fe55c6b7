-- mask_wave_walk.lua — layering with a mask (mixer): the legs walk (track 1,
-- the whole body) while the upper body from spine_02 up waves (track 2,
-- masked). Seen from the front-left at two times.
local m = require "marrow"

scene = {size = {320, 240}, fps = 30, shots = {10, 25}}

local man, mixer

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk_inplace", "wave"}}))
  local upper = man:mask{"spine_02"}
  mixer = m.mixer(man)
  mixer:track(1):play(man:clip("walk_inplace"), {loop = true})
  mixer:track(2, {mask = upper}):play(man:clip("wave"), {loop = true})
end

function update(dt)
  mixer:update(dt)
end

function draw()
  m.camera{target = {0, 0.9, 0}, distance = 3.2, yaw = 60, pitch = 10}
  m.draw(man, mixer:pose())
end
