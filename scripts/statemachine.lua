-- statemachine.lua — helper module shipped with marrow (require
-- "statemachine"): animation states and the transitions between them,
-- driving one track of a mixer with cross-fades.
--
--   local sm = require "statemachine"
--   local brain = sm.new(mixer, {                 -- a mixer (its track 1) or a track
--     initial = "idle",
--     states = {
--       idle = {clip = idle, loop = "repeat"},
--       walk = {clip = walk, loop = "repeat"},
--       run  = {clip = run, loop = "repeat"},
--       wave = {clip = wave},                     -- loop defaults to "once"
--       move = {blendspace = bs, param = function(ctx) return ctx.speed end},
--     },
--     transitions = {
--       {from = "idle", to = "walk", when = function(ctx) return ctx.speed > 0.1 end, fade = 0.3},
--       {from = "walk", to = "run", when = function(ctx) return ctx.speed > 2 end, fade = 0.4, sync = true},
--       {from = {"walk", "run"}, to = "idle", when = function(ctx) return ctx.speed < 0.1 end},
--       {from = "*", to = "wave", when = function(ctx) return ctx.hello end},
--       {from = "wave", to = "idle", at_end = true, fade = 0.5},
--       {from = "idle", to = "wave", after = 5},    -- 5 s in idle
--     },
--   })
--   function update(dt)
--     brain:update(dt, {speed = speed})   -- may cross-fade to a new state
--     mixer:update(dt)
--   end
--
-- States: {clip = c | blendspace = bs, param = fn(ctx), loop, speed, restart,
-- sync, enter = fn(machine, from), exit = fn(machine, to)}.
--   restart (default true): entering the state starts its clip from the
--     beginning, also when the track already plays that clip (the same clip
--     shared by two states, or a transition back into the state itself);
--     restart = false lets a clip the track already plays go on where it is
--     (the mixer's play of its current clip) and starts any other from 0.
--   sync (default false): the entered clip starts at the normalised phase
--     of the clip being left and stays phase-locked with it during the fade
--     (the mixer's sync: feet together from walk to run). A transition's own
--     `sync` overrides the state's for that transition.
--
-- update(dt, ctx) first brings machine.time up to date, then checks the
-- transitions out of the current state in the order given and takes the
-- first whose conditions all hold; at most one transition per update. A
-- transition leaves the current state when its `from` is the state's name,
-- a list holding it, or "*"; one whose `to` is the current state is only
-- considered when `from` is that name itself (so "*" never re-enters a
-- state). Conditions:
--   when(ctx, machine) returns true;
--   after = s: machine.time >= s, where machine.time is the seconds since
--     the current state was last entered, on marrow.time()'s clock: that
--     clock moves on at the end of a frame, so the dt given to update()
--     counts from the next update on (a state entered when marrow.time()
--     was T has machine.time == marrow.time() - T in every later update()
--     called once a frame with that frame's dt). Every state change, a transition
--     into the same state included, sets machine.time back to 0; so `after`
--     is not a one-shot timer: {from = "idle", to = "idle", after = 5} fires
--     every 5 s (restarting idle's clip each time unless idle has
--     restart = false), and idle -> wave -> idle with `after` on the first
--     transition takes it again 5 s after every return to idle;
--   at_end: the track's current clip has ended (a "once" clip at its end,
--     a finite loop after its last cycle; an endless loop never ends).
-- A transition with none of them is taken at once. Taking one calls the
-- old state's exit(machine, to), plays the new state on the track with a
-- cross-fade of `fade` seconds (default 0.25; `curve` too), sets
-- machine.state and machine.time = 0, then calls enter(machine, from) and
-- every on_change listener. Blend-space states get their parameter from
-- param(ctx) (a number, or x, y) on every update.
--   machine.state, machine.time (seconds in the state), machine:set(name [, fade])
--   (enters a state now, with the same restart/sync rules and no
--   transition), machine:on_change(fn(machine, from, to))
local sm = {}
sm.__index = sm

local function list_has(from, name)
  if from == "*" or from == name then return true end
  if type(from) == "table" then
    for _, f in ipairs(from) do if f == name then return true end end
  end
  return false
end

function sm.new(target, def)
  assert(type(def) == "table" and type(def.states) == "table", "statemachine: def.states must be a table")
  local track = target
  if tostring(target):find("^mixer") then track = target:track(1) end
  local self = setmetatable({track = track, states = def.states, transitions = def.transitions or {},
                             time = 0, pending = 0, listeners = {}}, sm)
  for name, s in pairs(def.states) do
    assert(type(s) == "table" and (s.clip or s.blendspace),
      ("statemachine: state '%s' needs a clip or a blendspace"):format(tostring(name)))
  end
  for i, t in ipairs(self.transitions) do
    assert(def.states[t.to], ("statemachine: transition %d goes to unknown state '%s'"):format(i, tostring(t.to)))
    assert(t.from ~= nil, ("statemachine: transition %d needs 'from'"):format(i))
    for _, f in ipairs(type(t.from) == "table" and t.from or {t.from}) do
      assert(f == "*" or def.states[f], ("statemachine: transition %d comes from unknown state '%s'"):format(i, tostring(f)))
    end
  end
  assert(def.initial and def.states[def.initial], "statemachine: def.initial must name a state")
  self:set(def.initial, 0)
  return self
end

local function param_of(s, ctx)
  if not s.param or ctx == nil then return 0, 0 end
  local x, y = s.param(ctx)
  return x or 0, y or 0
end

function sm:set(name, fade, t, ctx)
  local s = self.states[name]
  assert(s, ("statemachine: unknown state '%s'"):format(tostring(name)))
  local from = self.state
  local old = from and self.states[from]
  if old and old.exit then old.exit(self, name) end
  local sync = s.sync or false
  if t and t.sync ~= nil then sync = t.sync end
  local opts = {loop = s.loop or "once", speed = s.speed, fade = fade or 0.25,
                curve = t and t.curve, sync = sync, restart = s.restart ~= false}
  if s.blendspace then
    local x, y = param_of(s, ctx)
    self.track:play_blendspace(s.blendspace, x, y, opts)
  else
    self.track:play(s.clip, opts)
  end
  self.state, self.time = name, 0
  if s.enter then s.enter(self, from) end
  for _, fn in ipairs(self.listeners) do fn(self, from, name) end
  return self
end

function sm:on_change(fn)
  self.listeners[#self.listeners + 1] = fn
  return self
end

-- True when the track's current clip has reached its end.
function sm:ended()
  for _, p in ipairs(self.track:playing()) do
    if p.current then return p.ended end
  end
  return true
end

function sm:update(dt, ctx)
  -- The last update's dt, as marrow.time() adds a frame's dt at its end:
  -- adding this one's now would run a frame ahead of marrow.time().
  self.time = self.time + self.pending
  self.pending = dt or 0
  local s = self.states[self.state]
  if s.blendspace and s.param then self.track:set_param(param_of(s, ctx)) end
  for _, t in ipairs(self.transitions) do
    if t.to ~= self.state or t.from == self.state then
      if list_has(t.from, self.state)
        and (t.after == nil or self.time >= t.after)
        and (not t.at_end or self:ended())
        and (t.when == nil or t.when(ctx, self)) then
        self:set(t.to, t.fade, t, ctx)
        return t.to
      end
    end
  end
  return nil
end

return sm
