-- Errors in input callbacks (driven by tests/test_lua.c; never called headless).
function keypressed(key) error("keypressed failed: " .. key) end
function mousemoved(x, y, dx, dy) error("mousemoved failed") end
function resize(w, h) error("resize failed") end
