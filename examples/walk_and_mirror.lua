-- walk_and_mirror.lua — a clip and its mirror side by side: the mannequin's
-- walk (left) and walk:mirror() (right, tinted), the same frame of each.
--
-- clip:mirror swaps left and right across the model's mid-plane: where the
-- original steps with its left foot, the mirror steps with its right, and
-- the arms swing the other way round. The red and blue lines trace where
-- each figure's left (red) and right (blue) foot has been over the last
-- second: the mirror's left-foot path is the original's right-foot path
-- reflected.
--
--   marrow run --headless examples/walk_and_mirror.lua --frames 23 --out examples
local m = require "marrow"

local man, walk, mirrored, a, b
local trail = {}
local place = {m.mat4.translate({0, 0, 0.55}), m.mat4.translate({0, 0, -0.55})}   -- left, right on screen

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk_inplace"}}))
  walk = man:clip("walk_inplace")
  mirrored = walk:mirror()
  a, b = m.pose(man), m.pose(man)
end

function update(dt)
  local t = m.time()
  walk:sample(t, a)
  mirrored:sample(t, b)
  local d = man:display_matrix()
  trail[#trail + 1] = {place[1] * (d * a:position("foot_l")), place[1] * (d * a:position("foot_r")),
                       place[2] * (d * b:position("foot_l")), place[2] * (d * b:position("foot_r"))}
  if #trail > 30 then table.remove(trail, 1) end
end

function draw()
  m.camera{target = {0, 0.8, 0}, distance = 3.6, yaw = 62, pitch = 16}
  m.draw(man, a, {transform = place[1]})
  m.draw(man, b, {transform = place[2], tint = {0.75, 0.85, 1.0}})
  for i = 2, #trail do
    for k = 1, 4 do
      local colour = (k % 2 == 1) and {0.95, 0.25, 0.2} or {0.2, 0.4, 0.95}
      m.line(trail[i - 1][k], trail[i][k], colour, true)   -- over the figures
    end
  end
  m.text(16, 24, "walk: " .. walk:name() .. "  |  mirror: " .. mirrored:name())
  m.text(16, 48, "red: left foot   blue: right foot")
  if m.headless() and m.frame() == 22 then m.screenshot("walk_and_mirror.png") end
end
