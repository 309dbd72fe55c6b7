-- scripts/timeline.lua: cues fire once, in order, whatever the step; spans
-- get their progress and end at 1; loops, seek, errors.
local m = require "marrow"
local H = require "harness"
local timeline = require "timeline"

local function run(dt, total, opts)
  local log = {}
  local tl = timeline.new({
    {at = 0, run = function() log[#log + 1] = "start" end},
    {at = 2, run = function() log[#log + 1] = "wave" end},
    {at = 4, run = function() log[#log + 1] = "turn" end},
    {at = 4, run = function() log[#log + 1] = "turn2" end},
    {from = 1, to = 3, run = function(u) log.span = u; log.calls = (log.calls or 0) + 1 end},
  }, opts)
  local t = 0
  while t < total - 1e-9 do
    local s = math.min(dt, total - t)
    tl:update(s); t = t + s
  end
  return log, tl
end

function load()
  for _, dt in ipairs({1 / 240, 1 / 30, 0.5, 1.7, 5}) do
    local log, tl = run(dt, 5)
    H.check(("cues fire once in order, dt %.3f"):format(dt),
      table.concat(log, ",") == "start,wave,turn,turn2", table.concat(log, ","))
    H.check(("span ends at progress 1, dt %.3f"):format(dt), log.span == 1 and log.calls >= 1)
    H.check(("done after the last cue, dt %.3f"):format(dt), tl:done())
  end
  local log, tl = run(0.5, 3.9)
  H.check("a cue not reached has not fired", table.concat(log, ",") == "start,wave" and not tl:done())
  local mid = {}
  local t2 = timeline.new{{from = 0, to = 2, run = function(u) mid[#mid + 1] = u end}}
  t2:update(0.5); t2:update(0.5)
  H.check("span progress", mid[1] == 0.25 and mid[2] == 0.5)
  H.check("time()", t2:time() == 1)
  -- looping: each lap fires the cues again
  local laps = run(0.25, 12.5, {loop = 5})
  local n = 0
  for _, v in ipairs(laps) do if v == "wave" then n = n + 1 end end
  H.check("loop = 5 fires 'wave' on each of 3 laps", n == 3, n)
  -- seek jumps without firing
  local fired = 0
  local t3 = timeline.new{{at = 1, run = function() fired = fired + 1 end}}
  t3:seek(2):update(0.1)
  H.check("seek skips cues", fired == 0)
  t3:reset():update(1)
  H.check("reset replays", fired == 1)
  t3:add({at = 1.5, run = function() fired = fired + 10 end}):update(1)
  H.check("add a cue later", fired == 11)
  -- errors
  H.raises("cue without run", function() timeline.new{{at = 1}} end, "timeline: cue 1 needs a run function")
  H.raises("cue without time", function() timeline.new{{run = print}} end, "needs 'at', or 'from' and 'to'")
  H.raises("negative dt", function() timeline.new{}:update(-1) end, "dt must be a number >= 0")
  H.raises("an error in a cue propagates", function()
    timeline.new{{at = 0, run = function() error("cue failed on purpose") end}}:update(0.1)
  end, "cue failed on purpose")
  H.finish()
end
