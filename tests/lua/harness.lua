-- harness.lua — the tiny test harness of the Lua test scripts in tests/lua
-- (run by tests/cli_lua.sh): prints "  ok   name" / "  FAIL name: why" per
-- check, and H.finish() ends the run with exit code 1 when a check failed.
local m = require "marrow"
local H = {passed = 0, failed = 0}

function H.check(name, cond, detail)
  if cond then
    H.passed = H.passed + 1
    print("  ok   " .. name)
  else
    H.failed = H.failed + 1
    print("  FAIL " .. name .. (detail and (": " .. tostring(detail)) or ""))
  end
end

function H.near(a, b, eps) return math.abs(a - b) <= (eps or 1e-5) end

function H.vnear(a, b, eps)
  return H.near(a.x, b.x, eps) and H.near(a.y, b.y, eps) and H.near(a.z, b.z, eps)
end

-- Checks that fn raises an error whose message contains every needle (plain text).
function H.raises(name, fn, ...)
  local ok, err = pcall(fn)
  if ok then return H.check(name, false, "no error raised") end
  err = tostring(err)
  for _, needle in ipairs({...}) do
    if not err:find(needle, 1, true) then
      return H.check(name, false, "error '" .. err .. "' lacks '" .. needle .. "'")
    end
  end
  H.check(name, true)
end

function H.finish()
  m.quit(H.failed > 0 and 1 or 0)
end

return H
