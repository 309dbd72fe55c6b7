-- timeline.lua — helper module shipped with marrow (require "timeline"):
-- cues at times ("at t = 2 start waving, at t = 4 turn the head") and spans
-- (something eased from t = 4 to t = 6), driven by update(dt).
--
--   local timeline = require "timeline"
--   local tl = timeline.new{
--     {at = 2, run = function() upper:play(wave) end, name = "wave"},
--     {from = 4, to = 6, run = function(u) head_turn = u end},   -- u: 0..1
--   }
--   function update(dt) tl:update(dt) end
--
-- A cue fires once when the time passes it (a step from a to b fires cues
-- with a < at <= b, and a cue at 0 on the first update), in time order
-- within a step (equal times in the order given), whatever the step size.
-- A span's run(u, tl) is called on every update that overlaps it, with u
-- the progress at the end of that step clamped to 0..1 (so its last call has
-- u = 1 even if a step jumps past its end). opts.loop = seconds restarts the
-- timeline at that length (cues fire again each lap). tl:add(cue) adds
-- later, tl:seek(t) jumps without firing, tl:time(), tl:done() (every cue
-- fired and every span finished), tl:reset().
local timeline = {}
timeline.__index = timeline

local function check_cue(c, i)
  assert(type(c) == "table", ("timeline: cue %s must be a table"):format(i))
  assert(type(c.run) == "function", ("timeline: cue %s needs a run function"):format(i))
  if c.at ~= nil then
    assert(type(c.at) == "number" and c.at >= 0, ("timeline: cue %s: 'at' must be a number >= 0"):format(i))
  else
    assert(type(c.from) == "number" and type(c.to) == "number" and c.to >= c.from and c.from >= 0,
      ("timeline: cue %s needs 'at', or 'from' and 'to' with 0 <= from <= to"):format(i))
  end
end

function timeline.new(cues, opts)
  opts = opts or {}
  assert(opts.loop == nil or (type(opts.loop) == "number" and opts.loop > 0), "timeline: opts.loop must be seconds > 0")
  local tl = setmetatable({cues = {}, t = 0, started = false, loop = opts.loop, n = 0}, timeline)
  for i, c in ipairs(cues or {}) do tl:add(c, i) end
  return tl
end

function timeline:add(c, i)
  check_cue(c, i or (#self.cues + 1))
  self.n = self.n + 1
  self.cues[#self.cues + 1] = {cue = c, order = self.n, time = c.at or c.from}
  table.sort(self.cues, function(a, b)
    if a.time ~= b.time then return a.time < b.time end
    return a.order < b.order
  end)
  return self
end

-- Runs what lies in (a, b] (and a itself on the very first step).
function timeline:_step(a, b, first)
  for _, e in ipairs(self.cues) do
    local c = e.cue
    if c.at then
      if (c.at > a or (first and c.at == a)) and c.at <= b then c.run(self, c) end
    elseif c.to >= a and c.from <= b and not (c.to == a and not first) then
      local u = c.to > c.from and (b - c.from) / (c.to - c.from) or 1
      c.run(math.max(0, math.min(1, u)), self, c)
    end
  end
end

function timeline:update(dt)
  assert(type(dt) == "number" and dt >= 0, "timeline:update: dt must be a number >= 0")
  local first = not self.started
  self.started = true
  local a, b = self.t, self.t + dt
  if self.loop then
    while b >= self.loop do            -- each lap: to its end, then from 0 (cues at 0 fire again)
      self:_step(a, self.loop, first)
      a, b, first = 0, b - self.loop, true
    end
  end
  self:_step(a, b, first)
  self.t = b
  return self
end

function timeline:time() return self.t end

function timeline:seek(t)
  assert(type(t) == "number" and t >= 0, "timeline:seek: t must be a number >= 0")
  self.t, self.started = t, true
  return self
end

function timeline:reset()
  self.t, self.started = 0, false
  return self
end

function timeline:done()
  if self.loop then return false end
  for _, e in ipairs(self.cues) do
    local last = e.cue.at or e.cue.to
    if last > self.t or (not self.started) then return false end
  end
  return true
end

return timeline
