-- text.lua — HUD text: white, coloured and multi-line text in pixel
-- coordinates over an empty scene (floor and sky only).
local m = require "marrow"

scene = {size = {320, 240}, shots = {0}}

function draw()
  m.camera{target = {0, 0, 0}, distance = 5, yaw = 0, pitch = 20}
  m.text(10, 10, "marrow regression: text")
  m.text(10, 40, "red", {1, 0.2, 0.2})
  m.text(60, 40, "green", {0.2, 1, 0.2})
  m.text(130, 40, "blue", {0.3, 0.5, 1})
  m.text(10, 80, "two lines\nof text")
  m.text(10, 200, string.format("frame %d  t = %.2f", m.frame(), m.time()))
end
