-- check.lua — tests/cli_author.sh: loads a recorded file (arg[1]) and the
-- live positions choreo.lua wrote (arg[2]) [, the anim of an .md5mesh: arg[3]]; prints "worst E size S" (world
-- units) over every drawn frame, placing the loaded model as drawn at the
-- origin (the recording holds the travel as root motion).
local m = require "marrow"
function load()
  local model = assert(m.model(arg[1], {anims = arg[3] and {arg[3]} or nil}))
  local clip = model:clips()[1]
  local D = model:display_matrix()
  local names = assert(m.model("models/mannequin.md5mesh")):skeleton():names()
  local p = m.pose(model)
  local worst, t0, frames = 0, nil, 0
  for line in io.lines(arg[2]) do
    local v = {}
    for x in line:gmatch("%S+") do v[#v + 1] = tonumber(x) end
    t0 = t0 or v[1]
    clip:sample(v[1] - t0, p, false)
    frames = frames + 1
    for i = 1, #names do  -- by the mannequin's names (a BVH adds <leaf>_end joints)
      local q = D * p:position(names[i])
      local d = math.sqrt((q.x - v[3 * i - 1]) ^ 2 + (q.y - v[3 * i]) ^ 2 + (q.z - v[3 * i + 1]) ^ 2)
      if d > worst then worst = d end
    end
  end
  local man = assert(m.model("models/mannequin.md5mesh"))
  local a, b = man:bounds()
  local Dm = man:display_matrix()
  print(("worst %.9g size %.9g frames %d clip %s"):format(worst, ((Dm * b) - (Dm * a)):length(), frames, clip:name()))
  m.quit(0)
end
