-- marrow.save (wrap_save.c, formats/save.h): an authored clip with eased
-- keys and markers and a recorded clip with root motion, saved as .glb,
-- .gltf, .dae, .md5mesh (+ .md5anim) and .md5anim, loaded back and compared
-- with the live clips: every joint's world position within 0.01 % of the
-- model size at 121 times (between keys too); names and markers where the
-- format holds them; formats that cannot hold what was asked.
local m = require "marrow"
local H = require "harness"

local man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk"}}))
local lo, hi = man:bounds()
local D = man:display_matrix()
local SIZE_W = ((D * hi) - (D * lo)):length()
local TOL_W = 1e-4 * SIZE_W
local NAMES = man:skeleton():names()

local function world_diff(ma, pa, mb, pb)
  local da, db = ma:display_matrix(), mb:display_matrix()
  local w, at = 0, ""
  for _, n in ipairs(NAMES) do
    local d = ((da * pa:position(n)) - (db * pb:position(n))):length()
    if d > w then w, at = d, n end
  end
  return w, at
end

-- The largest world distance between clip a (of man) and clip b (of model) over n + 1 times.
local function compare(a, model, b, n)
  local pa, pb = m.pose(man), m.pose(model)
  local worst, at = 0, ""
  for i = 0, n do
    local t = a:duration() * i / n
    a:sample(t, pa, false); b:sample(t, pb, false)
    local d, j = world_diff(man, pa, model, pb)
    if d > worst then worst, at = d, j .. " at " .. t end
  end
  return worst, at
end

function load()
  local _, r0 = m.pose(man):get_local("upperarm_r")
  local bow = m.clip(man, {name = "bow", duration = 2})
  bow:key("upperarm_r", 0, {rotation = r0}, {ease = "in_out_cubic"})
     :key("upperarm_r", 1, {rotation = m.quat.axis_angle(m.vec3(0, 0, 1), 70) * r0}, {ease = "out_elastic"})
     :key("upperarm_r", 2, {rotation = r0})
  bow:key("spine_02", 0, {rotation = m.quat(), scale = 1}, {ease = "out_back"})
     :key("spine_02", 1.5, {rotation = m.quat.axis_angle(m.vec3(0, 1, 0), 35), scale = 1.2})
  bow:key("pelvis", 0.5, {translation = m.vec3(0, 0, 38)}, {ease = "bezier", bezier = {0.2, 0.8, 0.4, 1.2}})
     :key("pelvis", 1.8, {translation = m.vec3(5, 0, 30)})
  bow:marker(0.5, "dip"):marker(1.5, "up")

  local rec = m.record(man)
  local mx = m.mixer(man)
  mx:track(1):play(man:clip("walk"))
  for f = 0, 45 do
    mx:update(f == 0 and 0 or 1 / 30)
    local p = mx:pose():copy()
    p:rotate("head", m.quat.axis_angle(m.vec3(0, 0, 1), 25 * math.sin(f / 8)))
    rec:capture(p, f / 30, m.mat4.translate(m.vec3(0.9 * f / 30, 0, 0)))
  end
  local walk = rec:clip("walked")

  for _, ext in ipairs({"glb", "gltf", "dae"}) do
    local path, msg = m.save("author_save." .. ext, man, {clips = {bow, walk}})
    H.check("save ." .. ext .. " returns the path", type(path) == "string" and path:find("author_save." .. ext, 1, true),
      msg)
    local back, lmsg = m.model(path or "?")
    H.check("." .. ext .. " loads back", back ~= nil, lmsg)
    if back then
      local cb, cw = back:clip("bow"), back:clip("walked")
      local e1, at1 = compare(bow, back, cb, 120)
      H.check("." .. ext .. ": the eased clip poses within 0.01 % at 121 times", e1 <= TOL_W, e1 .. " at " .. at1)
      local e2, at2 = compare(walk, back, cw, 120)
      H.check("." .. ext .. ": the recorded clip (root motion) within 0.01 % at 121 times", e2 <= TOL_W, e2 .. " " .. at2)
      if ext ~= "dae" then
        local mk = cb:markers()
        H.check("." .. ext .. ": markers survive", #mk == 2 and mk[1].name == "dip" and math.abs(mk[2].time - 1.5) < 1e-5)
      end
    end
  end

  -- MD5: frames at the clip rate, no scale
  local path, msg = m.save("author_save.md5mesh", man, {clips = {walk}})
  H.check("save .md5mesh returns the path", path ~= nil, msg)
  local back = path and m.model(path, {anims = {"walked"}})
  H.check(".md5mesh + walked.md5anim load back", back ~= nil)
  if back then
    local e, at = compare(walk, back, back:clip("walked"), 120)
    H.check(".md5mesh: the recorded clip within 0.01 % at 121 times", e <= TOL_W, e .. " " .. at)
  end
  -- an eased clip in the frame formats: written at as many frames as the curve needs
  local nod = m.clip(man, {name = "nod", duration = 1.5})
  nod:key("upperarm_r", 0, {rotation = r0}, {ease = "out_elastic"})
     :key("upperarm_r", 1, {rotation = m.quat.axis_angle(m.vec3(0, 0, 1), 70) * r0}, {ease = "in_out_back"})
     :key("upperarm_r", 1.5, {rotation = r0})
  nod:key("pelvis", 0.2, {translation = m.vec3(0, 0, 38)}, {ease = "in_quint"}):key("pelvis", 1.2, {translation = m.vec3(4, 2, 36)})
  local np = assert(m.save("author_nod.md5mesh", man, {clips = {nod}}))
  local nb = m.model(np, {anims = {"nod"}})
  local ne, nat = compare(nod, nb, nb:clip("nod"), 120)
  H.check(".md5mesh: an eased clip within 0.01 % at 121 times (frames added)", ne <= TOL_W and nb:clip("nod"):rate() > 30,
    ne .. " " .. nat .. " at " .. nb:clip("nod"):rate() .. " fps")
  local bvp = assert(m.save("author_nod.bvh", man, {clips = {nod}}))
  local bvm = assert(m.model(bvp))
  local be, bat = compare(nod, bvm, bvm:clips()[1], 120)
  H.check(".bvh: an eased clip within 0.01 % at 121 times", be <= TOL_W, be .. " " .. bat)
  local ap, amsg = m.save("author_one.md5anim", man, {clips = {walk}})
  H.check("save .md5anim (one clip)", ap ~= nil, amsg)

  -- BVH: skeleton and one clip, read back by marrow's own reader
  local bp, bmsg = m.save("author_walk.bvh", man, {clips = {walk}})
  H.check("save .bvh returns the path", bp ~= nil, bmsg)
  local bb, bbmsg = m.model(bp or "?")
  H.check(".bvh loads back through marrow's reader", bb ~= nil, bbmsg)
  if bb then
    local cb = bb:clips()[1]
    H.check(".bvh keeps the duration", cb and math.abs(cb:duration() - walk:duration()) < 1e-4)
    local e, at = compare(walk, bb, cb, 120)
    H.check(".bvh: every joint within 0.01 % at 121 times (root motion included)", e <= TOL_W, e .. " " .. at)
  end
  local p5, m5 = m.save("author_two.bvh", man, {clips = {walk, walk}})
  H.check(".bvh refuses two clips, naming the argument", p5 == nil and m5:find("opts.clips", 1, true)
    and m5:find("exactly one", 1, true), m5)
  local p6, m6 = m.save("author_scaled.bvh", man, {clips = {bow}})
  H.check(".bvh refuses scale keys", p6 == nil and m6:find("BVH cannot hold scale", 1, true), m6)

  -- what a format cannot hold, and bad paths
  local p1, m1 = m.save("author_bad.md5mesh", man, {clips = {bow}})
  H.check("MD5 refuses scale keys, naming the argument", p1 == nil and m1:find("opts.clips", 1, true)
    and m1:find("scale", 1, true), m1)
  local p2, m2 = m.save("author_two.md5anim", man, {clips = {walk, walk}})
  H.check(".md5anim refuses two clips", p2 == nil and m2:find("exactly one clip", 1, true), m2)
  local p3, m3 = m.save("author.xyz", man, {clips = {walk}})
  H.check("an unknown extension is refused", p3 == nil and m3:find("unknown extension", 1, true), m3)
  local p4, m4 = m.save("/etc/author_outside.glb", man, {clips = {walk}})
  H.check("a path outside the allowed folders is refused", p4 == nil and type(m4) == "string", m4)
  H.raises("a clip of another model", function()
    local other = assert(m.model("models/sword.md5mesh"))
    m.save("x.glb", other, {clips = {walk}})
  end, "opts.clips[1]", "not a clip of model")
  H.finish()
end
