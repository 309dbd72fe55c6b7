-- Every binding called with a wrong type names itself in the error: module
-- functions as 'marrow.<name>' (or 'marrow.quat.<name>'), methods as
-- '<type>:<name>' with argument numbers that skip self, operators as
-- '<type>.__op', and option table fields by name ("camera: target must be a
-- vec3"). The list of bindings comes from docs/API.md (tests/lua/apidoc.lua),
-- which test_api.lua holds equal to the module table and every type's
-- metatable, so a new binding is covered without listing it here.
local m = require "marrow"
local H = require "harness"
local doc = require("apidoc").read()

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
    recorder = m.record(man), ik_body = m.ik_body(man),
    springs = m.springs(man, {chains = {{joints = {"neck", "head"}}}}),
  }

  -- Every documented function and method that takes arguments (docs/API.md,
  -- whose completeness test_api checks against the module tables), called
  -- with a value of the wrong type as its first argument, names itself and
  -- argument #1 (methods count after the object). Only marrow.console takes
  -- any value.
  local any_value = {["marrow.console"] = true}
  local swept = 0
  for _, name in ipairs(doc.order) do
    local args = doc.entries[name]
    local t, meth = name:match("^([%w_]+):([%w_]+)$")
    if args ~= "" and not any_value[name] then
      local ok, err
      if t then
        local v = values[t]
        local f = (getmetatable(v).methods or getmetatable(v).__index)[meth]
        ok, err = pcall(f, v, BAD, BAD, BAD, BAD)
      else
        local f = {marrow = m}
        for part in name:gmatch("[^%.]+") do f = f[part] end
        ok, err = pcall(f, BAD, BAD, BAD, BAD)
      end
      local want = "bad argument #1 to '" .. name .. "'"
      H.check(name .. ": a wrong first argument is argument #1 of " .. name,
              not ok and tostring(err):find(want, 1, true), ok and "no error" or err)
      swept = swept + 1
    end
  end
  H.check("the sweep covers the bindings that take arguments", swept >= 80, swept)
  -- The mixer's own copies of the track methods are named mixer:f.
  for k, f in pairs(getmetatable(values.mixer).__index) do
    if doc.entries["track:" .. k] and doc.entries["track:" .. k] ~= "" then
      local ok, err = pcall(f, values.mixer, BAD, BAD, BAD, BAD)
      H.check("mixer:" .. k .. " names itself", not ok and tostring(err):find("bad argument #1 to 'mixer:" .. k .. "'", 1, true), err)
    end
  end

  -- Constructors called through their table count arguments from 1.
  H.raises("vec3 constructor counts from 1", function() return m.vec3("a") end,
           "bad argument #1 to 'marrow.vec3' (number expected, got string)")
  H.raises("axis_angle through pcall is named", function()
    local ok, err = pcall(m.quat.axis_angle, 40, m.vec3(0, 1, 0))
    error(err, 0)
  end, "bad argument #1 to 'marrow.quat.axis_angle' (vec3 expected, got number)")

  -- Methods: every method called on a wrong self names itself and its type.
  for tname, v in pairs(values) do
    local mt = getmetatable(v)
    local index = mt.methods or mt.__index
    for k, f in pairs(index) do
      if type(f) == "function" then
        local ok, err = pcall(f, BAD)
        H.check(tname .. ":" .. k .. " on a wrong self", not ok and tostring(err):find(
          "calling '" .. tname .. ":" .. k .. "' on bad self (" .. tname .. " expected, got thread)", 1, true), err)
      end
    end
    -- Operators name themselves too (a + BAD, BAD + a).
    for k, f in pairs(mt) do
      if type(f) == "function" and (k == "__add" or k == "__sub" or k == "__mul" or k == "__div") then
        local ok, err = pcall(f, v, BAD)
        H.check(tname .. "." .. k .. " with a wrong operand", not ok and tostring(err):find(
          "bad argument #2 to '" .. tname .. "." .. k .. "'", 1, true), err)
      end
    end
  end
  H.raises("bad self", function() pose.rotate(5, "head", m.quat()) end,
           "calling 'pose:rotate' on bad self (pose expected, got number)")

  -- Every field of every documented option table (docs/API.md), given a
  -- value of the wrong type, is named in the error. Booleans take any value
  -- (its truth), so they are not swept. Each function with options needs a
  -- valid call here, so a new option table cannot go unswept.
  local calls = {
    ["marrow.model"] = function(o) return m.model("models/mannequin.md5mesh", o) end,
    ["marrow.clips"] = function(o) return m.clips("models", o) end,
    ["marrow.attach"] = function(o) return m.attach(man, pose, "hand_r", o) end,
    ["marrow.mixer"] = function(o) return m.mixer(man, o) end,
    ["marrow.draw"] = function(o) return m.draw(man, pose, o) end,
    ["marrow.draw_skeleton"] = function(o) return m.draw_skeleton(man, pose, o) end,
    ["marrow.camera"] = function(o) return m.camera(o) end,
    ["marrow.light"] = function(o) return m.light(2, o) end,
    ["marrow.scene"] = function(o) return m.scene(o) end,
    ["pose:rotate"] = function(o) return pose:rotate("head", m.quat(), o) end,
    ["pose:translate"] = function(o) return pose:translate("head", m.vec3(), o) end,
    ["pose:scale"] = function(o) return pose:scale("head", 1, o) end,
    ["pose:set_rotation"] = function(o) return pose:set_rotation("head", m.quat(), o) end,
    ["pose:set_translation"] = function(o) return pose:set_translation("head", m.vec3(), o) end,
    ["pose:two_bone_ik"] = function(o) return pose:two_bone_ik("upperarm_r", "lowerarm_r", "hand_r", m.vec3(), o) end,
    ["pose:aim"] = function(o) return pose:aim({{"head", 1}}, m.vec3(), o) end,
    ["pose:ik_chain"] = function(o) return pose:ik_chain("upperarm_r", "hand_r", m.vec3(), o) end,
    ["clip:mirror"] = function(o) return walk:mirror(o) end,
    ["marrow.ik_body"] = function(o) return m.ik_body(man, o) end,
    ["mixer:track"] = function(o) return mx:track(3, o) end,
    ["mixer:set_root_motion"] = function(o) return mx:set_root_motion("pelvis", o) end,
    ["track:play"] = function(o) return mx:track(4):play(walk, o) end,
    ["marrow.retarget"] = function(o) return m.retarget(walk, man, man, o) end,
  }
  local fields = 0
  for _, name in ipairs(doc.order) do
    local opts = doc.options[name]
    if opts then
      H.check(name .. " has an option call in this test", calls[name] ~= nil)
      for _, o in ipairs(calls[name] and opts or {}) do
        if not o.type:find("boolean", 1, true) then
          local ok, err = pcall(calls[name], {[o.field] = BAD})
          H.check(name .. " names a wrong " .. o.field, not ok and tostring(err):find(name, 1, true) and
                  (tostring(err):find("opts." .. o.field .. " must be", 1, true) or
                   tostring(err):find("(" .. o.field .. " must be", 1, true)), ok and "no error" or err)
          fields = fields + 1
        end
      end
    end
  end
  H.check("option fields swept", fields >= 30, fields)

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
