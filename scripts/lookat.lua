-- lookat.lua — helper module shipped with marrow (require "lookat"): turn a
-- joint of a posed model towards a point in the world.
--
--   local lookat = require "lookat"
--   lookat.joint(model, pose, "head", eye, {forward = m.vec3(1, 0, 0),
--                up = m.vec3(0, 0, 1), max = 70, transform = place, weight = 1})
--
-- forward and up are the model-space directions the joint faces and points
-- up in the animation (the mannequin faces +X with Z up, the defaults);
-- transform is where the model was drawn (default: identity). The rotation
-- is added in model space on top of the pose, at most `max` degrees.
local m = require "marrow"

local lookat = {}

-- The rotation turning unit direction a into unit direction b about `up`
-- framing, limited to max_degrees.
function lookat.turn(a, b, up, max_degrees)
  local q = m.quat.look_rotation(b, up) * m.quat.look_rotation(a, up):inverse()
  local angle = 2 * math.deg(math.acos(math.min(1, math.abs(q.w))))
  if max_degrees and angle > max_degrees then q = m.quat.slerp(m.quat(), q, max_degrees / angle) end
  return q
end

function lookat.joint(model, pose, joint, target, opts)
  opts = opts or {}
  local place = opts.transform or m.mat4()
  local to_model = (place * model:display_matrix()):inverse()
  local dir = (to_model * target - pose:position(joint)):normalize()
  local q = lookat.turn(opts.forward or m.vec3(1, 0, 0), dir, opts.up or m.vec3(0, 0, 1), opts.max or 70)
  return pose:rotate(joint, q, {space = "model", weight = opts.weight or 1})
end

return lookat
