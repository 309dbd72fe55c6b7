-- timeline_two_characters.lua — cues on a timeline drive two characters
-- (scripts/timeline.lua).
--
--   t = 0.0  both idle; Ann (left) looks at Ben the whole time
--   t = 0.3  Ann waves: a masked upper-body layer on her track 2
--   t = 0.8  Ben starts walking on the spot (a 0.4 s cross-fade from idle)
--   t = 1.0 .. 1.6  Ben turns his head towards Ann (an aim whose weight
--                   rises with the span's progress)
--
--   marrow run --headless examples/timeline_two_characters.lua --frames 101 --out examples
local m = require "marrow"
local timeline = require "timeline"

local man, ann, ben, tl
local look = 0   -- Ben's head-turn weight

local function character(x, yaw)
  local c = {place = m.mat4.translate({x, 0, 0}) * m.mat4.rotate(m.quat.euler(0, yaw, 0)), mixer = m.mixer(man)}
  c.mixer:play(man:clip("idle"), {loop = "repeat"})
  return c
end

local function head_of(c) return m.attach(man, c.mixer:pose(), "head", {transform = c.place}):translation() end

function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"idle", "walk_inplace", "wave"}}))
  ann, ben = character(-0.75, -30), character(0.75, 210)
  ann.mixer:track(2, {mask = man:mask{{"spine_01", falloff = 3}}})
  ann.mixer:on_pose(function(pose)
    pose:aim({{"neck", 0.4}, {"head", 0.6}}, ben.head or m.vec3(0.75, 1.6, 0), {space = "world", transform = ann.place, limit = 50})
  end)
  ben.mixer:on_pose(function(pose)
    if look > 0 then
      pose:aim({{"spine_03", 0.2}, {"neck", 0.3}, {"head", 0.5}}, ann.head or m.vec3(-0.75, 1.6, 0),
        {space = "world", transform = ben.place, weight = look, limit = 60})
    end
  end)
  tl = timeline.new{
    {at = 0.3, run = function() ann.mixer:track(2):play(man:clip("wave")) end},
    {at = 0.8, run = function() ben.mixer:crossfade(man:clip("walk_inplace"), 0.4, {loop = "repeat"}) end},
    {from = 1.0, to = 1.6, run = function(u) look = u * u * (3 - 2 * u) end},
  }
end

function update(dt)
  tl:update(dt)
  ann.mixer:update(dt)
  ben.mixer:update(dt)
  ann.head, ben.head = head_of(ann), head_of(ben)
end

function draw()
  m.camera{target = {0, 1.0, 0}, distance = 3.6, yaw = 0, pitch = 8}
  m.draw(man, ann.mixer:pose(), {transform = ann.place, tint = {1, 0.85, 0.8}})
  m.draw(man, ben.mixer:pose(), {transform = ben.place, tint = {0.8, 0.9, 1}})
  m.text(20, 30, ("t = %.2f s   Ann: wave   Ben: %s, head turn %.0f%%"):format(tl:time(),
    tl:time() >= 0.8 and "walk" or "idle", 100 * look))
  if m.headless() and m.frame() == 50 then m.screenshot("timeline_two_characters.png") end
end
