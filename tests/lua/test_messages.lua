-- What a new user trips over (issue 27): a missing model file says where
-- marrow looked and suggests a close name; an anim may be given as a bare
-- name or as a file name; a nil model says why marrow.model returned nil.
local m = require "marrow"
local H = require "harness"

function load()
  local dir = arg[0]:match("^(.*)/[^/]*$") or "."
  H.raises("a nil model before any failed load is a plain type error", function() m.pose(nil) end,
    "bad argument #1 to 'marrow.pose' (skeleton, model or pose expected, got nil)")

  local man, msg = m.model("models/manequin.md5mesh")
  H.check("a missing model returns nil, message", man == nil and type(msg) == "string", msg)
  msg = tostring(msg)
  H.check("it names the file", msg:find("models/manequin.md5mesh: No such file", 1, true), msg)
  -- run from the checkout, marrow's root is the current folder: each place once
  H.check("it lists where marrow looked, each place once: as given, beside the script (the root is the cwd)",
    msg:find("looked for 'models/manequin.md5mesh' and '" .. dir .. "/models/manequin.md5mesh';", 1, true), msg)
  H.check("it suggests the close name as the script would write it",
    msg:find("; did you mean 'models/mannequin.md5mesh'?", 1, true), msg)
  local _, far = m.model("models/zzzzzzzzzz.md5mesh")
  H.check("no suggestion when nothing is close", not tostring(far):find("did you mean", 1, true), far)

  H.raises("a nil model says why marrow.model returned nil", function() m.pose(man) end,
    "bad argument #1 to 'marrow.pose' (model is nil (marrow.model returned nil, md5: models/zzzzzzzzzz.md5mesh")
  H.raises("the same for other model arguments", function() m.mixer(nil) end,
    "bad argument #1 to 'marrow.mixer' (model is nil (marrow.model returned nil,")
  H.raises("a wrong value that is not nil is still a type error", function() m.mixer(5) end,
    "bad argument #1 to 'marrow.mixer' (model expected, got number)")

  local _, amsg = m.model("models/mannequin.md5mesh", {anims = {"wlak"}})
  H.check("a missing bare anim: looked for beside the mesh, suggests the bare name",
    tostring(amsg):find("looked for 'models/wlak.md5anim'; did you mean 'walk'?", 1, true), amsg)

  local bare = assert(m.model("models/mannequin.md5mesh", {anims = {"walk"}}))
  local named, err = m.model("models/mannequin.md5mesh", {anims = {"walk.md5anim"}})
  H.check("an anim file name beside the mesh loads like the bare name", named ~= nil, err)
  H.check("... and gives the same clip", named and named:clip("walk") ~= nil and
    H.near(named:clip("walk"):duration(), bare:clip("walk"):duration()))
  H.finish()
end
