-- Every binding called with a wrong type names itself in the error: module
-- functions as 'marrow.<name>' (or 'marrow.quat.<name>'), methods as
-- '<type>:<name>' with argument numbers that skip self, and option table
-- fields by name ("camera: target must be a vec3"). Walks the module table
-- and each type's method table, so a new binding is covered without listing it.
local m = require "marrow"
local H = require "harness"

local BAD = coroutine.create(function() end)  -- no binding takes a thread

-- Calls fn(...) and checks the error (if any) names `name`; returns the error
-- or nil when the call went through.
local function named(name, fn, ...)
  local ok, err = pcall(fn, ...)
  if ok then return nil end
  err = tostring(err)
  H.check(name .. " names itself", err:find("'" .. name .. "'", 1, true) or err:find(name .. ": ", 1, true), err)
  return err
end

function load()
  local man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk", "idle"}}))
  local sk = man:skeleton()
  local walk = man:clip("walk")
  local pose = m.pose(man)
  local mx = m.mixer(man)
  local values = {
    vec3 = m.vec3(1, 2, 3), quat = m.quat(), mat4 = m.mat4(), model = man, skeleton = sk, clip = walk,
    pose = pose, mixer = mx, track = mx:track(2), mask = man:mask{"spine_01"},
    blendspace = m.blendspace1d(man, {{walk, 0}, {man:clip("idle"), 1}}),
  }

  -- Module functions: the first argument of the wrong type. Only these take
  -- no argument (or any value) and so cannot be called wrongly.
  local no_args = {["marrow.time"] = true, ["marrow.frame"] = true, ["marrow.window"] = true,
                   ["marrow.headless"] = true, ["marrow.console"] = true, ["marrow.quit"] = true,
                   ["marrow.quat.identity"] = true}
  for _, tbl in ipairs({{"marrow.", m}, {"marrow.quat.", m.quat}, {"marrow.mat4.", m.mat4}}) do
    local prefix, t = tbl[1], tbl[2]
    for k, f in pairs(t) do
      local name = prefix .. k
      if type(f) == "function" and not no_args[name] then
        H.check(name .. " raises on a wrong argument", named(name, f, BAD, BAD, BAD, BAD) ~= nil)
      end
    end
  end

  -- Constructors called through their table count arguments from 1.
  H.raises("vec3 constructor counts from 1", function() return m.vec3("a") end,
           "bad argument #1 to 'marrow.vec3' (number expected, got string)")
  H.raises("axis_angle through pcall is named", function()
    local ok, err = pcall(m.quat.axis_angle, 40, m.vec3(0, 1, 0))
    error(err, 0)
  end, "bad argument #1 to 'marrow.quat.axis_angle' (vec3 expected, got number)")

  -- Methods: every method with a wrong self, and with wrong arguments.
  local methods = 0
  for tname, v in pairs(values) do
    local mt = getmetatable(v)
    local index = mt.methods or mt.__index
    for k, f in pairs(index) do
      if type(f) == "function" and k ~= "close" then
        named(tname .. ":" .. k, f, BAD)
        local err = named(tname .. ":" .. k, f, v, BAD, BAD, BAD, BAD)
        if err then
          methods = methods + 1
          H.check(tname .. ":" .. k .. " counts arguments after self", not err:find("#0", 1, true), err)
        end
      end
    end
  end
  H.check("methods with wrong arguments raise", methods >= 50, methods)
  H.raises("bad self", function() pose.rotate(5, "head", m.quat()) end,
           "calling 'pose:rotate' on bad self (pose expected, got number)")

  -- Option fields by name.
  H.raises("camera names the field", function() m.camera{target = {0, 1}} end,
           "bad argument #1 to 'marrow.camera' (target must be a vec3, got a table of 2 numbers)")
  H.raises("draw names opts.tint", function() m.draw(man, pose, {tint = "red"}) end,
           "bad argument #3 to 'marrow.draw' (opts.tint must be a colour")
  H.raises("play names opts.loop", function() mx:play(walk, {loop = 3}) end,
           "bad argument #2 to 'mixer:play' (opts.loop must be 'once', 'repeat' or 'pingpong', got 3)")
  H.raises("model names opts.anims", function() m.model("x.md5mesh", {anims = 5}) end,
           "bad argument #2 to 'marrow.model' (opts.anims must be a list, got 5)")
  H.raises("mask names the entry field", function() man:mask{{"spine_01", falloff = 0}} end,
           "bad argument #1 to 'model:mask' ([1].falloff must be a whole number within 1..1000, got 0)")
  H.raises("aim names opts.forward", function() pose:aim({{"head", 1}}, m.vec3(), {forward = 1}) end,
           "bad argument #3 to 'pose:aim' (opts.forward must be a vec3, got 1)")
  H.raises("light names the field", function() m.light(1, {direction = "up"}) end,
           "bad argument #2 to 'marrow.light' (direction must be a vec3, got 'up')")
  H.finish()
end
