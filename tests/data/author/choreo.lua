-- choreo.lua — a choreography for tests/cli_author.sh (`marrow run --record`):
-- a mixer crossfading walk into wave, a head override, IK on the left hand
-- and a character travelling and turning across the floor. draw() also
-- writes what it drew, every joint's world position per frame, to
-- arg[1] (under --out), for author_check.lua to compare the recording with.
local m = require "marrow"
local man, mx, pose, out, D, names

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk", "wave"}}))
  mx = m.mixer(man)
  mx:track(1):play(man:clip("walk"))
  D = man:display_matrix()
  names = man:skeleton():names()
  out = assert(io.open(arg[1], "w"))
end

function update(dt)
  if m.frame() == 20 then mx:track(1):crossfade(man:clip("wave"), 0.4) end
  mx:update(dt)
  pose = mx:pose():copy()
  local t = m.time()
  pose:rotate("head", m.quat.axis_angle(m.vec3(0, 0, 1), 30 * math.sin(t * 4)))
  pose:two_bone_ik("upperarm_l", "lowerarm_l", "hand_l", m.vec3(20, 15 + 5 * math.sin(t * 3), 45))
end

function draw()
  local t = m.time()
  local T = m.mat4.translate(m.vec3(0.7 * t, 0, 0.2 * t)) * m.mat4.rotate(m.quat.axis_angle(m.vec3(0, 1, 0), 25 * t))
  m.draw(man, pose, {transform = T})
  local row = {("%.9g"):format(t)}
  for _, n in ipairs(names) do
    local p = T * D * pose:position(n)
    row[#row + 1] = ("%.9g %.9g %.9g"):format(p.x, p.y, p.z)
  end
  out:write(table.concat(row, " "), "\n")
end

function unload() out:close() end
