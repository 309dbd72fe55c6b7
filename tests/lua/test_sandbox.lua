-- The sandbox every script runs in without --trust (src/lua/sandbox*.c,
-- docs/API.md "The sandbox"): what is gone, what is confined, what stays.
-- Run by tests/cli_lua.sh with --out DIR and arg[1] = DIR.
local m = require "marrow"
local H = require "harness"

local out = arg[1]
local lua_load = load   -- the script's load() callback below hides Lua's load

function load()
  -- Gone: processes, native code, bytecode, the environment, the debug library.
  for _, name in ipairs{"os.execute", "io.popen", "os.getenv", "os.remove", "os.rename", "os.tmpname",
                        "os.setlocale", "dofile", "loadfile", "package.loadlib", "package.cpath",
                        "package.searchpath", "string.dump", "debug.getinfo", "debug.sethook",
                        "debug.setmetatable", "debug.getregistry", "debug.upvalueid", "io.read", "io.input",
                        "io.output", "io.stdin", "io.close", "io.tmpfile"} do
    local lib, fn = name:match("^(%w+)%.(%w+)$")
    local v = lib and _G[lib][fn] or _G[name]
    if type(v) == "function" then
      -- a refusal stub: calling it says why, and how to get it back
      H.raises(name .. " raises that the sandbox leaves it out", function() v("x") end,
               name .. " is left out of the sandbox", "`marrow run --trust` gives it back")
    else
      H.check(name .. " is not available", v == nil, v)
    end
  end
  -- what the issue met: a word instead of "attempt to call a nil value"
  for _, name in ipairs{"os.execute", "io.popen", "os.getenv", "os.remove", "dofile", "loadfile"} do
    local lib, fn = name:match("^(%w+)%.(%w+)$")
    H.check(name .. " is a refusal stub", type(lib and _G[lib][fn] or _G[name]) == "function")
  end
  H.raises("os.getenv hints at arg", function() return os.getenv("HOME") end, "arg[1]")
  H.check("package.searchers has only preload and Lua source", #package.searchers == 2)

  -- Bytecode never loads, whatever mode is asked for.
  local bc = "\27LuaT\0\25\147\13\10\26\10\4\8\8xV\0\0\0\0\0\0\0\0\0\0\0(w@"
  local f, err = lua_load(bc)
  H.check("load refuses a binary chunk", f == nil and tostring(err):find("binary", 1, true), err)
  f, err = lua_load(bc, "x", "b")
  H.check("load with mode 'b' is refused", f == nil and tostring(err):find("binary chunks are disabled", 1, true), err)
  H.check("load of text still works", lua_load("return 1 + 1")() == 2)
  H.check("load with an env still works", lua_load("return x", "c", "t", {x = 7})() == 7)

  -- io: reads near the script, writes under --out.
  local ok, msg = io.open("/etc/passwd")
  H.check("io.open outside the allowed folders is refused", ok == nil and msg:find("outside the folders", 1, true), msg)
  ok, msg = io.open("../../../../../../../../etc/hostname")
  H.check("io.open through .. is refused the same", ok == nil and msg:find("outside the folders", 1, true), msg)
  ok, msg = io.open("/tmp/marrow-sandbox-test-should-not-exist.txt", "w")
  H.check("io.open for writing outside --out is refused", ok == nil and msg:find("outside the output folder", 1, true), msg)
  local w = assert(io.open("sandbox_written.txt", "w"))
  w:write("hello ", 42, "\n")
  w:close()
  local r = io.open(out .. "/sandbox_written.txt")
  H.check("a relative write lands in --out and reads back", r and r:read("a") == "hello 42\n")
  if r then r:close() end
  r = io.open("sandbox_written.txt")
  H.check("a relative read finds the script's own write", r ~= nil)
  if r then r:close() end
  local n = 0
  for line in io.lines("tests/lua/harness.lua") do n = n + 1 end
  H.check("io.lines reads a file in the current folder", n > 10)
  H.raises("io.lines without a file refuses standard input", function() io.lines() end, "standard input")
  r = io.open("harness.lua")
  H.check("a relative read finds a file beside the script", r ~= nil)
  if r then r:close() end
  -- ../shared/models is outside the current folder (the checkout) and the script's.
  local dir = "../shared/models/blender-3.4-gltf/"
  ok, msg = io.open(dir .. "skinnedcube.bin", "rb")
  H.check("a file in a model's folder is refused before the model loads", ok == nil and msg:find("outside", 1, true), msg)
  if io.open(dir .. "skinnedcube.gltf") == nil and m.model(dir .. "skinnedcube.gltf") then
    r = io.open(dir .. "skinnedcube.bin", "rb")
    H.check("and can be read once the model loaded", r ~= nil and #r:read("a") > 0)
    if r then r:close() end
  else
    H.check("and can be read once the model loaded", false, "could not load " .. dir .. "skinnedcube.gltf")
  end
  H.raises("io.open with a bad mode raises", function() io.open("x", "rw") end, "invalid mode")

  -- A path is checked whole before any folder is made for it (issue 40):
  -- fresh folders then enough '..' to climb out of --out.
  local climb = "trust_fresh1/trust_fresh2/" .. ("../"):rep(30) .. "tmp/marrow-trust-made/x"
  local bob = m.model("models/mannequin.md5mesh", {anims = {"walk"}})
  local saved, why = m.save(climb .. ".md5mesh", bob)
  H.check("marrow.save through fresh folders and '..' out of --out is refused", saved == nil and
          tostring(why):find("outside the output folder", 1, true), why)
  local shot_ok, shot_err = pcall(m.screenshot, climb .. ".png")
  H.check("marrow.screenshot the same", not shot_ok and tostring(shot_err):find("outside", 1, true), shot_err)
  ok, msg = io.open(out .. "/trust_fresh1")
  H.check("... and neither made a folder on the way", ok == nil and tostring(msg):find("No such file", 1, true), msg)
  saved, why = m.save("trust_made/a/b/ok.md5anim", bob, {clips = {bob:clip("walk")}})
  local made = io.open(out .. "/trust_made/a/b/ok.md5anim")
  H.check("a save into fresh folders inside --out makes them", saved ~= nil and made ~= nil, why)
  if made then made:close() end
  local handles = {}
  for i = 1, 70 do handles[i] = io.open("tests/lua/harness.lua") end
  H.check("at most 64 files are open at once", handles[64] ~= nil and handles[65] == nil)
  for _, h in pairs(handles) do h:close() end
  H.check("closing files gives the handles back", io.open("tests/lua/harness.lua") ~= nil)

  -- Metatables of host types are copies: changing one changes nothing.
  local v = m.vec3(1, 2, 3)
  local mt = getmetatable(v)
  H.check("getmetatable of a host value shows its fields", mt.__name == "vec3")
  mt.__gc = function() while true do end end
  mt.__add = function() return "hijacked" end
  for i = 1, 1000 do local _ = m.vec3(i, i, i) end
  collectgarbage()                       -- a __gc that took would loop here, past the budget
  H.check("writing a host metatable's copy changes nothing", tostring(v + v) ~= "hijacked" and (v + v).x == 2)
  H.check("the string metatable is a copy too", getmetatable("").__index == string)
  getmetatable("").__index = {}
  H.check("and writing it changes nothing", ("abc"):upper() == "ABC")
  local fmt = getmetatable(io.open("tests/lua/harness.lua"))
  H.check("a file's metatable is a copy", type(fmt) == "table" and fmt.__name == "FILE*")
  H.raises("__gc metamethods are refused", function() setmetatable({}, {__gc = print}) end, "__gc metamethods are disabled")

  -- What stays works as in Lua.
  H.check("string.rep of an empty string returns at once", string.rep("", 1 << 62) == "")
  H.check("string.rep with a separator", ("ab"):rep(3, ",") == "ab,ab,ab")
  H.check("string.rep of 0", ("ab"):rep(0) == "" and ("ab"):rep(-3) == "")
  H.raises("string.rep too large", function() return ("ab"):rep(1 << 62) end, "resulting string too large")
  local t = {1, 2, 3, 4, 5}
  table.move(t, 1, 3, 3)
  H.check("table.move overlapping forward", table.concat(t, ",") == "1,2,1,2,3")
  t = {1, 2, 3, 4, 5}
  table.move(t, 3, 5, 1)
  H.check("table.move overlapping backward", table.concat(t, ",") == "3,4,5,4,5")
  local t2 = table.move({1, 2, 3}, 1, 3, 2, {})
  H.check("table.move to another table", t2[1] == nil and t2[2] == 1 and t2[4] == 3)
  H.raises("table.move wrap around", function() table.move({}, 1, 3, math.maxinteger) end, "destination wrap around")
  t = {}
  table.insert(t, "a"); table.insert(t, 1, "b"); table.insert(t, 2, "c")
  H.check("table.insert", table.concat(t) == "bca")
  H.raises("table.insert out of bounds", function() table.insert(t, 9, "x") end, "position out of bounds")
  H.raises("table.insert wrong arity", function() table.insert(t, 1, 2, 3) end, "wrong number of arguments to 'insert'")
  H.check("table.remove", table.remove(t, 1) == "b" and table.remove(t) == "a" and table.concat(t) == "c")
  H.check("table.remove of an empty table", table.remove({}) == nil)
  t = {5, 3, 9, 1}
  table.sort(t)
  H.check("table.sort without a comparison", table.concat(t, ",") == "1,3,5,9")
  table.sort(t, function(a, b) return a > b end)
  H.check("table.sort with a comparison", table.concat(t, ",") == "9,5,3,1")
  H.raises("table.sort of mixed types still says so", function() table.sort({1, "x", 2}) end, "attempt to compare")
  H.check("xpcall calls its handler", select(2, xpcall(error, function(e) return "handled " .. e end, "x")) == "handled x")
  local co = coroutine.wrap(function(a) local b = coroutine.yield(a + 1) return b * 2 end)
  H.check("coroutine.wrap yields and returns", co(1) == 2 and co(5) == 10)
  H.raises("a wrapped coroutine's error gets its position", function()
    coroutine.wrap(function() error("boom") end)()
  end, "boom")
  local closed = false
  local c2 = coroutine.create(function()
    local x <close> = setmetatable({}, {__close = function() closed = true end})
    coroutine.yield()
  end)
  coroutine.resume(c2)
  H.check("coroutine.close runs __close of a suspended coroutine", coroutine.close(c2) and closed)
  H.check("yield inside xpcall inside a coroutine", coroutine.wrap(function()
    local ok2, r2 = xpcall(function() return coroutine.yield(1) end, debug.traceback)
    return r2
  end)() == 1)
  H.check("os.time and os.clock are the simulated clock", os.clock() == m.time() and type(os.date("%Y")) == "string")
  H.check("string patterns work", ("key=val"):match("(%w+)=(%w+)") == "key" and ("a,b,,c"):gsub(",", ";") == "a;b;;c")
  H.finish()
end
