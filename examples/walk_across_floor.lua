-- walk_across_floor.lua — travelling clips with root motion: the mannequin
-- speeds up from standing to a walk to a run across the floor, with a
-- footstep message for every step.
--
-- The mannequin's walk and run travel (their root motion is authored in
-- them; walk_inplace and run_inplace walk on the spot). A 1D blend space
-- over idle, walk and run, with the parameter in metres per second (the
-- walk covers 0.99 m/s, the run 2.4 m/s), is played with root_motion = true
-- and the mixer extracts the pelvis's travel (uniform by default: straight,
-- constant speed per cycle, the hip sway stays in the pose). Each update's
-- motion (model frame: Z up, inches) moves the character; the display
-- matrix takes that to the world (Y up, metres). Dots mark where each
-- footstep landed: they stay where the foot is.
--
--   marrow run --headless examples/walk_across_floor.lua --frames 241 --out examples
local m = require "marrow"

local man, mixer, display, place, landed, steps, log = nil, nil, nil, nil, {}, {}, {}

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"idle", "walk", "run"}}))
  local idle, walk, run = man:clip("idle"), man:clip("walk"), man:clip("run")
  -- Heel strikes: left at t = 0, right half a cycle on (mannequin.h).
  walk:marker(0, "step_l"):marker(0.55, "step_r")
  run:marker(0, "step_l"):marker(0.35, "step_r")
  local speeds = m.blendspace1d(man, {{idle, 0}, {walk, 0.99}, {run, 2.4}})
  mixer = m.mixer(man)
  mixer:set_root_motion("pelvis")
  mixer:play_blendspace(speeds, 0, {loop = "repeat", root_motion = true})
  display = man:display_matrix()
  place = m.mat4()                     -- the character in the model's frame
  for _, side in ipairs{"l", "r"} do
    mixer:on("step_" .. side, function(e)
      landed[#landed + 1] = side
      log[#log + 1] = ("%5.2f s  %s foot (%s)"):format(m.time(), side == "l" and "left" or "right", e.clip:name())
    end)
  end
end

function update(dt)
  mixer:set_param(math.min(2.4, 0.25 + 0.8 * m.time()))   -- speed up to a run
  mixer:update(dt)
  local d, yaw = mixer:root_motion()                 -- this update's motion
  place = place * m.mat4.translate(d) * m.mat4.rotate(m.quat.axis_angle({0, 0, 1}, yaw))
  for _, side in ipairs(landed) do                   -- mark the steps of this update
    steps[#steps + 1] = display * place * mixer:pose():position("ball_" .. side)
  end
  landed = {}
end

function draw()
  m.camera{target = {3.3, 0.6, 0}, distance = 7.5, yaw = 12, pitch = 16}
  m.draw(man, mixer:pose(), {transform = display * place * display:inverse()})
  for _, p in ipairs(steps) do m.point(p, {0.9, 0.3, 0.2}, 8) end
  for i = math.max(1, #log - 5), #log do m.text(10, 10 + 22 * (i - math.max(1, #log - 5)), log[i]) end
  if m.headless() and m.frame() == 120 then m.screenshot("walk_across_floor.png") end
end
