-- vec3, quat, mat4: construction, fields, operators, degrees, tables as vec3.
local m = require "marrow"
local H = require "harness"
local vec3, quat, mat4 = m.vec3, m.quat, m.mat4

function load()
  local v = vec3(1, 2, 3)
  H.check("vec3 fields", v.x == 1 and v.y == 2 and v.z == 3)
  v.y = 5
  H.check("vec3 field set", v.y == 5)
  H.check("vec3 ops", vec3(1, 2, 3) + vec3(1, 1, 1) == vec3(2, 3, 4) and vec3(1, 2, 3) * 2 == vec3(2, 4, 6)
    and 2 * vec3(1, 0, 0) == vec3(2, 0, 0) and -vec3(1, 2, 3) == vec3(-1, -2, -3)
    and vec3(2, 4, 6) / 2 == vec3(1, 2, 3) and vec3(3, 2, 1) - vec3(1, 1, 1) == vec3(2, 1, 0))
  H.check("vec3 accepts tables", vec3(1, 2, 3) + {1, 1, 1} == vec3(2, 3, 4) and vec3{x = 1, y = 2, z = 3} == vec3(1, 2, 3))
  H.check("vec3 length/dot/cross", H.near(vec3(3, 4, 0):length(), 5) and vec3(1, 0, 0):dot({0, 1, 0}) == 0
    and vec3(1, 0, 0):cross({0, 1, 0}) == vec3(0, 0, 1))
  H.check("vec3 tostring", tostring(vec3(1, 2.5, -3)) == "vec3(1, 2.5, -3)", tostring(vec3(1, 2.5, -3)))
  H.check("vec3 __name", getmetatable(v).__name == "vec3")

  local q = quat.euler(0, 0, 90)
  H.check("euler is degrees", H.vnear(q * vec3(1, 0, 0), vec3(0, 1, 0)), tostring(q * vec3(1, 0, 0)))
  local qa = quat.axis_angle({0, 1, 0}, 90)
  H.check("axis_angle", H.vnear(qa * vec3(0, 0, 1), vec3(1, 0, 0)), tostring(qa * vec3(0, 0, 1)))
  local e = quat.euler(10, 20, 30)
  local x, y, z = e:to_euler()
  H.check("to_euler inverts euler", H.near(x, 10, 1e-3) and H.near(y, 20, 1e-3) and H.near(z, 30, 1e-3))
  H.check("euler order: X then Y then Z", H.vnear(e * vec3(1, 2, 3),
    quat.euler(0, 0, 30) * (quat.euler(0, 20, 0) * (quat.euler(10, 0, 0) * vec3(1, 2, 3)))))
  H.check("quat * quat composes", H.vnear((quat.euler(0, 0, 45) * quat.euler(0, 0, 45)) * vec3(1, 0, 0), vec3(0, 1, 0)))
  H.check("quat inverse", H.vnear((q * q:inverse()) * vec3(1, 2, 3), vec3(1, 2, 3)))
  local s = quat.slerp(quat(), quat.euler(0, 0, 90), 0.5)
  H.check("slerp halfway", H.vnear(s * vec3(1, 0, 0), vec3(math.sqrt(0.5), math.sqrt(0.5), 0)))
  local look = quat.look_rotation({1, 0, 0})
  H.check("look_rotation maps +Z to forward", H.vnear(look * vec3(0, 0, 1), vec3(1, 0, 0)))
  H.check("look_rotation keeps up", H.vnear(look * vec3(0, 1, 0), vec3(0, 1, 0)))
  local ft = quat.from_to({0, 0, 2}, {3, 0, 0})
  H.check("from_to turns a onto b (any lengths)", H.vnear(ft * vec3(0, 0, 1), vec3(1, 0, 0)), tostring(ft * vec3(0, 0, 1)))
  H.check("from_to is the shortest turn (the axis a x b stays)", H.vnear(ft * vec3(0, 1, 0), vec3(0, 1, 0)))
  local a, b = vec3(0.3, -0.8, 0.5):normalize(), vec3(-0.6, 0.1, 0.7):normalize()
  H.check("from_to, oblique", H.vnear(quat.from_to(a, b) * a, b, 1e-5), tostring(quat.from_to(a, b) * a))
  H.check("from_to of equal directions is the identity", quat.from_to({1, 2, 3}, {2, 4, 6}) == quat())
  for _, d in ipairs({vec3(1, 0, 0), vec3(0, 1, 0), vec3(0, 0, -1), vec3(0.6, 0, 0.8)}) do
    local anti = quat.from_to(d, -d)
    H.check("from_to of opposite directions " .. tostring(d), H.vnear(anti * d, -d, 1e-5), tostring(anti * d))
  end
  H.raises("from_to of a zero direction", function() return quat.from_to({0, 0, 0}, {1, 0, 0}) end,
    "bad argument #1", "direction must not be zero")
  H.check("quat fields and tostring", quat().w == 1 and tostring(quat()) == "quat(0, 0, 0, 1)")

  local mt = mat4.trs({1, 2, 3}, quat.euler(0, 90, 0), 2)
  H.check("mat4 m[13..15] is the translation", mt[13] == 1 and mt[14] == 2 and mt[15] == 3 and mt:translation() == vec3(1, 2, 3))
  H.check("mat4 * vec3 is a point", H.vnear(mt * vec3(1, 0, 0), vec3(1, 2, 1)), tostring(mt * vec3(1, 0, 0)))
  H.check("mat4 inverse", H.vnear((mt:inverse() * mt) * vec3(4, 5, 6), vec3(4, 5, 6), 1e-4))
  H.check("mat4 * mat4", H.vnear((mat4.translate({1, 0, 0}) * mat4.rotate(quat.euler(0, 0, 90))) * vec3(1, 0, 0), vec3(1, 1, 0)))
  H.check("mat4 identity and __eq", mat4() == mat4{1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1} and mat4() ~= mt)
  H.check("mat4 rotation()", H.vnear(mt:rotation() * vec3(0, 0, 1), vec3(1, 0, 0)))
  local m2 = mat4(); m2[13] = 7
  H.check("mat4 index set", m2:translation().x == 7)
  H.check("mat4 tostring", tostring(mat4()):find("mat4(1 0 0 0", 1, true) ~= nil)

  H.raises("wrong type names both types", function() return quat() * "x" end, "quat expected, got string")
  H.raises("short table", function() return vec3(1, 1, 1) + {1, 2} end, "vec3 expected, got a table without 3 numbers")
  H.raises("mat4 index range", function() mt[17] = 1 end, "mat4 index must be an integer 1..16")
  H.finish()
end
