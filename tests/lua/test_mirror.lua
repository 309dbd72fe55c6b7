-- clip:mirror from Lua: the mirrored walk's left foot follows the original
-- right foot reflected across the mid-plane, twice mirrored is the
-- original, the clip saves and loads like any other, a given map, errors
-- (anim/mirror.h, src/lua/wrap_clip.c).
local m = require "marrow"
local H = require "harness"

local out = arg and arg[1] or "."

function load()
  local man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk"}}))
  local walk = man:clip("walk")
  local mw = walk:mirror()
  H.check("mirrored clip is named", mw:name() == "walk_mirror", mw:name())
  H.check("same duration", mw:duration() == walk:duration())
  -- the mid-plane: the rest thighs' difference picks the axis
  local rest = m.pose(man)
  local d = rest:position("thigh_l") - rest:position("thigh_r")
  local ax = math.abs(d.x) >= math.abs(d.y) and math.abs(d.x) >= math.abs(d.z) and "x"
          or (math.abs(d.y) >= math.abs(d.z) and "y" or "z")
  local mid = (rest:position("thigh_l") + rest:position("thigh_r")) * 0.5
  local function reflect(p)
    local q = m.vec3(p.x, p.y, p.z)
    if ax == "x" then q = m.vec3(2 * mid.x - p.x, p.y, p.z)
    elseif ax == "y" then q = m.vec3(p.x, 2 * mid.y - p.y, p.z)
    else q = m.vec3(p.x, p.y, 2 * mid.z - p.z) end
    return q
  end
  local a, b, c = m.pose(man), m.pose(man), m.pose(man)
  local twice = mw:mirror()
  local worst, worst2 = 0, 0
  for i = 0, 120 do
    local t = walk:duration() * i / 120
    walk:sample(t, a, false); mw:sample(t, b, false); twice:sample(t, c, false)
    worst = math.max(worst, (reflect(a:position("foot_r")) - b:position("foot_l")):length())
    worst2 = math.max(worst2, (a:position("hand_l") - c:position("hand_l")):length())
  end
  H.check("mirrored left foot on the reflected right foot path (1e-4 of 90 inches)", worst < 9e-3, worst)
  H.check("mirrored twice: the original", worst2 < 9e-3, worst2)

  -- saved and loaded again
  local path = assert(m.save(out .. "/walk_mirror.glb", man, {clips = {mw}}))
  local back = assert(m.model(path))
  H.check("saved clip loads", back:clip("walk_mirror") ~= nil)

  -- a given map: swapping only the hands (and not the rest)
  local hands = walk:mirror({map = {hand_l = "hand_r"}, name = "hands"})
  H.check("named by opts.name", hands:name() == "hands")

  H.raises("map of unknown joints", function() walk:mirror({map = {hand_x = "hand_r"}}) end, "'hand_x'")
  H.raises("map type", function() walk:mirror({map = 5}) end, "opts.map must be")
  H.raises("name type", function() walk:mirror({name = 5}) end, "opts.name must be")
  H.raises("unknown option", function() walk:mirror({maps = {}}) end, "unknown option 'maps'")
  H.finish()
end
