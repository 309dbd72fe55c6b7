-- record_choreography.lua — a mixer choreography becomes an asset: the
-- mannequin walks, crossfades into a wave, turns its head with an override
-- and travels and turns across the floor (the draw transform). load() plays
-- the choreography once (2 s at 30 fps) into marrow.record, reduces the keys
-- within 0.01 % of the model size (the error is measured and printed), saves
-- record_choreography.glb under --out and loads it back. Then the same
-- choreography runs live (front), looping every 2 s, beside the saved file
-- (behind: one transform for the whole file: the travel is root motion in it).
--
--   marrow run --headless examples/record_choreography.lua --frames 79 --out examples
local m = require "marrow"

local man, saved, clip, live, file_pose, run, report, path
local LENGTH = 2

-- The choreography: a new mixer, and a function giving pose and placement at t.
local function choreography()
  local mx = m.mixer(man)
  mx:track(1):play(man:clip("walk"))
  local faded = false
  return function(t, dt)
    if t >= 0.9 and not faded then mx:track(1):crossfade(man:clip("wave"), 0.5); faded = true end
    mx:update(dt)
    local p = mx:pose():copy()
    p:rotate("head", m.quat.axis_angle(m.vec3(0, 0, 1), 35 * math.sin(t * 3)))   -- override
    local place = m.mat4.translate(m.vec3(0.9 * t - 0.9, 0, 0)) * m.mat4.rotate(m.quat.axis_angle(m.vec3(0, 1, 0), 30 * t))
    return p, place
  end
end

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk", "wave"}}))
  local rec = m.record(man, {fps = 30})
  local step = choreography()
  for f = 0, LENGTH * 30 do
    local p, place = step(f / 30, f == 0 and 0 or 1 / 30)
    rec:capture(p, f / 30, place)
  end
  clip, report = rec:clip("choreography")
  path = assert(m.save("record_choreography.glb", man, {clips = {clip}}))
  print(("recorded %d frames: %d of %d keys kept, error %.4f inch (tolerance %.4f), saved %s"):format(
    rec:frames(), report.keys, report.frames_keys, report.error, 1e-4 * ((select(2, man:bounds())) - man:bounds()):length(), path))
  saved = assert(m.model(path))
  file_pose = m.pose(saved)
  run = choreography()
end

local last = -1
function update(dt)
  local t = m.time() % LENGTH
  if t < last then run = choreography() end   -- loop the live run with the file
  last = t
  live = {run(t, t == 0 and 0 or dt)}
  saved:clip("choreography"):sample(t, file_pose, false)
end

function draw()
  m.camera{target = {0, 0.9, -0.6}, distance = 5.2, yaw = 20, pitch = 14}
  m.draw(man, live[1], {transform = m.mat4.translate({0, 0, 0.6}) * live[2]})
  m.draw(saved, file_pose, {transform = m.mat4.translate({0, 0, -1.2})})
  m.text(10, 10, ("t = %.2f s   front: the live mixer run   behind: record_choreography.glb (%d keys, error %.4f inch)")
    :format(m.time() % LENGTH, report.keys, report.error))
  if m.headless() and m.frame() == 39 then m.screenshot("record_choreography.png") end
end
