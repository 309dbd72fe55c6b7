-- walk_run_crossfade.lua — a synced cross-fade: walk -> run -> walk.
--
-- The middle mannequin's mixer cross-fades from the walk to the run (and
-- back) with sync = true: the run starts at the walk's phase and both clips
-- advance at one shared phase rate during the fade, so the feet stay
-- together (the mannequin's walk and run land the left foot at phase 0).
-- The left figure plays the walk alone, the right the run alone, at the
-- same phase as the middle one, for comparison. The picture is taken half
-- way through the fade; the text shows the clip weights.
--
--   marrow run --headless examples/walk_run_crossfade.lua --frames 79 --out examples
local m = require "marrow"

local man, walk, run, mixer, walk_pose, run_pose

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk_inplace", "run_inplace"}}))
  walk, run = man:clip("walk_inplace"), man:clip("run_inplace")
  mixer = m.mixer(man)
  mixer:play(walk, {loop = "repeat"})
  walk_pose, run_pose = m.pose(man), m.pose(man)
end

local switched = {}

function update(dt)
  local t = m.time()
  if t >= 1.0 and not switched[1] then
    switched[1] = true
    mixer:crossfade(run, 0.6, {loop = "repeat", sync = true})
  elseif t >= 3.0 and not switched[2] then
    switched[2] = true
    mixer:crossfade(walk, 0.6, {loop = "repeat", sync = true})
  end
  mixer:update(dt)
  -- the single-clip figures at the blend's phase
  local cur = mixer:playing()[1]
  local phase = cur.time / cur.clip:duration()
  walk:sample(phase * walk:duration(), walk_pose)
  run:sample(phase * run:duration(), run_pose)
end

function draw()
  m.camera{target = {0, 0.85, 0}, distance = 4.4, yaw = 8, pitch = 6}
  m.draw(man, walk_pose, {transform = m.mat4.translate({-1.3, 0, 0}), tint = {0.75, 0.8, 0.9}})
  m.draw(man, mixer:pose())
  m.draw(man, run_pose, {transform = m.mat4.translate({1.3, 0, 0}), tint = {0.9, 0.8, 0.75}})
  local w = m.window()
  m.text(w * 0.5 - 330, 40, "walk")
  m.text(w * 0.5 - 110, 40, ("walk %.2f + run %.2f (sync)"):format(mixer:clip_weight(walk), mixer:clip_weight(run)))
  m.text(w * 0.5 + 250, 40, "run")
  if m.headless() and m.frame() == 39 then m.screenshot("walk_run_crossfade.png") end
end
