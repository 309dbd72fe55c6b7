-- hello.lua — load the mannequin and play its walk.
--
--   marrow run examples/hello.lua                 (a window; edit and save to reload)
--   marrow run --headless examples/hello.lua --frames 31 --out examples
--                                                 (writes examples/hello.png)
local m = require "marrow"

local man, pose, walk

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk_inplace", "idle", "wave"}}))
  pose = m.pose(man)
  walk = man:clip("walk_inplace")
  print(man)                                   -- to stdout (and the console of a window)
end

function update(dt)
  walk:sample(m.time(), pose)                  -- loops by default
end

function draw()
  m.camera{target = {0, 0.9, 0}, distance = 3.2, yaw = 60, pitch = 12}
  m.draw(man, pose)
  m.text(10, 10, string.format("%s  t = %.2f s", walk:name(), m.time()))
  if m.headless() and m.frame() == 15 then m.screenshot("hello.png") end
end
