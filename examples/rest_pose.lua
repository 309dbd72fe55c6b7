-- rest_pose.lua — the mannequin as it stands in its file, with no clip: its
-- rest (bind) pose is an A-pose, arms 45 degrees below horizontal, facing +X.
-- The file keeps MD5's frame (Z up, inches: `marrow info` says so on its
-- "frame:" and "rest pose:" lines); drawn, it is Y-up metres like every model,
-- still facing +X. The lines beside it are the world axes (X red, Y green,
-- Z blue, 0.5 m); the skeleton's joints are shown with their own axes.
--
--   marrow run --headless examples/rest_pose.lua --frames 2 --out examples
local m = require "marrow"

local man

function load()
  man = assert(m.model("models/mannequin.md5mesh"))
end

function draw()
  m.camera{target = {0.2, 0.85, 0}, distance = 3.4, yaw = 35, pitch = 10}
  m.draw(man)
  m.draw_skeleton(man, nil, {axes = true})
  local x, z = 0.3, -0.8                       -- beside the mannequin, on the floor
  m.line({x, 0.01, z}, {x + 0.5, 0.01, z}, {1, 0.2, 0.2}, true)
  m.line({x, 0.01, z}, {x, 0.51, z}, {0.2, 0.9, 0.2}, true)
  m.line({x, 0.01, z}, {x, 0.01, z + 0.5}, {0.3, 0.4, 1}, true)
  m.text(20, 20, "rest pose: A-pose, arms 45 deg below horizontal, facing +X")
  m.text(20, 44, "file: MD5, Z up, inches; drawn Y up, metres (X red, Y green, Z blue: 0.5 m)")
  if m.headless() and m.frame() == 1 then m.screenshot("rest_pose.png") end
end
