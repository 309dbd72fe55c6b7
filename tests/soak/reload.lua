-- reload.lua — the live-reload soak of scripts/soak.sh (`make soak`): run
-- in a window (Xvfb), it rewrites its own file every few frames, so the
-- watcher reloads it again and again (SOAK_RELOADS times, arg[1]).
--
-- Each version differs: VARIANT picks which model (MD5, COLLADA, the
-- sword), how many mixers and what they play; every 7th version is broken
-- (its load() raises) so the failed-reload path runs too, and the old
-- script keeps going; every 5th rewrites the module it requires; every
-- 11th touches a shader in the scratch shader directory (arg[2]), so the
-- renderer reloads its programs. unload() hands the counters over.
-- soak.sh copies this file into a scratch directory first: never run it
-- from tests/soak (it would rewrite itself there).
local VARIANT = 0
local BROKEN = false

local m = require "marrow"
local mod = require "reload_module"

local target = tonumber(arg[1]) or 100
local shader_dir = arg[2]
local models = {"models/mannequin.md5mesh", "models/mannequin.dae", "models/sword.md5mesh"}
local state, model, mixers, poses, frames_here = nil, nil, {}, {}, 0
local source

local function write_atomically(path, text)
  local tmp = path .. ".tmp" .. VARIANT
  local f = assert(io.open(tmp, "w"))
  f:write(text)
  f:close()
  assert(os.rename(tmp, path))
end

function load(s)
  state = s or {reloads = 0, failed = 0, loads = 0}
  state.loads = state.loads + 1
  if BROKEN then error("soak: this version is broken on purpose (variant " .. VARIANT .. ")") end
  local f = assert(io.open(arg[0]))
  source = f:read("a")
  f:close()
  local path = models[VARIANT % #models + 1]
  model = assert(m.model(path, path:find("mannequin.md5mesh") and {anims = {"walk", "run", "wave"}} or nil))
  mixers, poses = {}, {}
  local clips = model:clips()
  for i = 1, VARIANT % 4 + 1 do
    local mx = m.mixer(model)
    if #clips > 0 then
      mx:play(clips[(i + VARIANT) % #clips + 1], {loop = "repeat"})
      mx:on("loop", function() state.loops = (state.loops or 0) + 1 end)
    end
    mixers[i] = mx
    poses[i] = m.pose(model)
  end
  frames_here = 0
end

function unload()
  state.reloads = state.reloads + 1
  return state
end

function update(dt)
  frames_here = frames_here + 1
  for _, mx in ipairs(mixers) do mx:update(dt) end
  if state.reloads >= target then
    print(("soak: %d reloads, %d loads, %d loops, module %s"):format(state.reloads, state.loads,
          state.loops or 0, mod.version))
    m.quit(0)
    return
  end
  if frames_here == 2 then
    -- after a broken version this (older) script runs on: go past it
    local next_variant = math.max(state.written or 0, VARIANT) + 1
    state.written = next_variant
    local text = source:gsub("local VARIANT = %d+", "local VARIANT = " .. next_variant, 1)
    text = text:gsub("local BROKEN = %a+", "local BROKEN = " .. tostring(next_variant % 7 == 3), 1)
    if next_variant % 5 == 0 then
      local dir = arg[0]:match("^(.*)/") or "."
      write_atomically(dir .. "/reload_module.lua", ("return {version = %d}\n"):format(next_variant))
    end
    if shader_dir and next_variant % 11 == 0 then
      for _, name in ipairs({"model.frag"}) do
        local p = shader_dir .. "/" .. name
        local f = io.open(p)
        if f then
          local s = f:read("a")
          f:close()
          write_atomically(p, s:gsub("\n// soak %d+\n$", "\n") .. ("\n// soak %d\n"):format(next_variant))
          break
        end
      end
    end
    write_atomically(arg[0], text)
  end
end

function draw()
  m.camera{target = {0, 0.9, 0}, distance = 4}
  for i, mx in ipairs(mixers) do
    m.draw(model, mx:pose(), {transform = m.mat4.translate({(i - 2) * 1.0, 0, 0})})
  end
  m.text(8, 8, ("variant %d reloads %d"):format(VARIANT, state.reloads))
end
