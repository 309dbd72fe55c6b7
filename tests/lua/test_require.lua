-- require finds marrow's helper modules in scripts/ and modules beside the script.
local m = require "marrow"
local H = require "harness"                      -- beside this script

function load()
  H.check("require 'marrow' twice is the same table", require("marrow") == m)
  local ok, lookat = pcall(require, "lookat")    -- from scripts/
  H.check("helper modules in scripts/ are found", ok and type(lookat.joint) == "function", lookat)
  local man = assert(m.model("models/mannequin.md5mesh"))
  local pose = m.pose(man)
  local before = pose:position("hand_l")
  lookat.joint(man, pose, "head", m.vec3(0, 1.6, 3))
  H.check("a helper module works on a pose", pose:position("hand_l") == before and pose:position("head") == m.pose(man):position("head"))
  H.raises("a missing module names the paths tried", function() require "no_such_module" end, "module 'no_such_module' not found", "scripts/no_such_module.lua")
  H.raises("debug.sethook is left out (a refusal stub)", function() debug.sethook() end, "debug.sethook is left out of the sandbox")
  H.check("debug.traceback stays", debug.traceback ~= nil)
  H.raises("__gc metamethods are refused", function() setmetatable({}, {__gc = print}) end, "__gc metamethods are disabled")
  H.check("arg[0] is the script", arg[0]:find("test_require.lua", 1, true) ~= nil)
  H.finish()
end
