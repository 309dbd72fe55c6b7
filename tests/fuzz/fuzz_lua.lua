-- fuzz_lua.lua — the Lua half of tests/fuzz/fuzz_lua.c: turns the fuzzer's
-- bytes (global FUZZ) into calls of the marrow API.
--
-- A pool holds the values calls can use: the models named in arg[1..], their
-- skeletons and clips, mixers, poses, edge-case numbers, names, option
-- tables and functions (some of which call back into the API, so event
-- handlers and on_pose run arbitrary calls, including close and __gc on
-- the objects in use). Each step reads a byte to choose an operation, then
-- more bytes to choose the callee and its arguments; results go back into
-- the pool. Every call is made under pcall: errors are expected, crashes
-- and sanitizer reports are not. Functions and method names are listed in
-- sorted order so a given input always makes the same calls.
--
-- Besides marrow's API, the calls include the standard library a sandboxed
-- script has (string patterns on strings the stream spells, table functions,
-- coroutines, setmetatable with the pool's functions as metamethods, pcall,
-- xpcall with the pool's functions as handlers, load): none of it may
-- crash, and none may run past the time budget (a stop is an error).
local m = require "marrow"
local lua_load = load                   -- the load() callback below hides it

local models = {}

function load()
  for i = 1, #arg do
    models[#models + 1] = assert(m.model(arg[i]))
  end
  local walk = m.model(arg[1], {anims = {"walk", "run", "wave"}})
  if walk then models[#models + 1] = walk end
end

local input, pos = "", 0
local function byte()
  pos = pos + 1
  return input:byte(pos)
end
local function more() return pos < #input end
local function pick(t)
  if #t == 0 then return nil end
  return t[(byte() or 0) % #t + 1]
end

local NIL = {}
local POOL_MAX = 96
local pool, slot = {}, 0
local function add(v)
  if v == nil then return end
  if #pool < POOL_MAX then
    pool[#pool + 1] = v
  else
    slot = slot % POOL_MAX + 1
    pool[slot] = v
  end
end
local function value()
  local v = pick(pool)
  if v == NIL then return nil end
  return v
end

-- Callables of a value: methods of its __index table and its metamethods.
local method_cache = setmetatable({}, {__mode = "k"})
local function methods(v)
  local mt = getmetatable(v)
  if type(mt) ~= "table" then return {} end
  local list = method_cache[mt]
  if list then return list end
  list = {}
  local idx = rawget(mt, "__index")
  if type(idx) == "table" then
    for k, f in pairs(idx) do
      if type(k) == "string" and type(f) == "function" then list[#list + 1] = {k, f} end
    end
  end
  for k, f in pairs(mt) do
    if type(k) == "string" and type(f) == "function" and k ~= "__index" then list[#list + 1] = {k, f} end
  end
  table.sort(list, function(a, b) return a[1] < b[1] end)
  method_cache[mt] = list
  return list
end

-- Every function reachable from the module table (m.f, m.vec3.f, ...).
local functions = {}
local function collect(t, prefix, depth)
  local keys = {}
  for k in pairs(t) do if type(k) == "string" then keys[#keys + 1] = k end end
  table.sort(keys)
  for _, k in ipairs(keys) do
    local v = t[k]
    if type(v) == "function" then
      functions[#functions + 1] = {prefix .. k, v}
    elseif type(v) == "table" and depth < 2 then
      collect(v, prefix .. k .. ".", depth + 1)
    end
  end
end
collect(m, "marrow.", 0)
for _, lib in ipairs({"coroutine", "math", "string", "table", "utf8"}) do collect(_G[lib], lib .. ".", 1) end
for _, name in ipairs({"assert", "collectgarbage", "error", "getmetatable", "ipairs", "next", "pairs", "pcall",
                       "rawequal", "rawget", "rawlen", "rawset", "select", "setmetatable", "tonumber",
                       "tostring", "type", "xpcall"}) do
  functions[#functions + 1] = {name, _G[name]}
end
functions[#functions + 1] = {"load", lua_load}

-- Characters the stream spells strings with: Lua pattern syntax, mostly.
local ALPHABET = "a.%-+*?[]^$()bf1dswxAZ09 ,=\0"

local args = table.pack
local step

-- Calls f with up to 5 arguments from the pool and keeps the results.
local function call(f, self)
  local a, n = {}, (byte() or 0) % 6
  local first = 1
  if self ~= nil then a[1] = self; first = 2; n = n + 1 end
  for i = first, n do a[i] = value() end
  local r = args(pcall(f, table.unpack(a, 1, n)))
  for i = 2, math.min(r.n, 4) do
    add(r[i])
    if type(r[i]) == "table" then
      for _, v in ipairs(r[i]) do add(v) end   -- e.g. mixer:playing() entries
    end
  end
end

local depth = 0
local function reentrant(...)
  -- Handlers and on_pose callbacks run a few more steps from the stream.
  if depth >= 3 then return end
  depth = depth + 1
  add((...))
  for _ = 1, 1 + (byte() or 0) % 3 do
    if not more() then break end
    step()
  end
  depth = depth - 1
end

step = function()
  local op = (byte() or 0) % 10
  if op <= 2 then                        -- a method of a pool value
    local v = value()
    local list = methods(v)
    local mth = pick(list)
    if mth then call(mth[2], v) end
  elseif op <= 4 then                    -- a module function
    local f = pick(functions)
    if f then call(f[2]) end
  elseif op == 5 then                    -- an index or a field with a pool key
    local v, k = value(), value()
    local ok, r = pcall(function() return v[k] end)
    if ok then add(r) end
  elseif op == 6 then                    -- drop a value, then collect garbage
    if #pool > 0 then
      local i = (byte() or 0) % #pool + 1
      pool[i] = NIL
    end
    if (byte() or 0) % 4 == 0 then collectgarbage("collect") end
  elseif op == 8 then                    -- a string spelled by the stream (patterns)
    local n, t = (byte() or 0) % 24, {}
    for i = 1, n do
      local k = (byte() or 0) % #ALPHABET + 1
      t[i] = ALPHABET:sub(k, k)
    end
    add(table.concat(t))
  elseif op == 9 then                    -- a table of pool values (metatables, arguments)
    local n, t = (byte() or 0) % 5, {}
    for i = 1, n do
      local k, v = value(), value()
      if k ~= nil and k == k then t[k] = v end
    end
    add(t)
  else                                   -- a mixer's update with a pool dt
    for _, v in ipairs(pool) do
      if getmetatable(v) and tostring(v):find("^mixer") then
        pcall(v.update, v, value())
        break
      end
    end
  end
end

local function seed()
  pool, slot = {}, 0
  for _, v in ipairs({NIL, true, false, 0, 1, -1, 2, 3, 0.5, -0.25, 1 / 30, 1e-7, 30, 255, 1e9, -1e9,
                      1 / 0, -1 / 0, 0 / 0, 2 ^ 31, 2 ^ 53, math.maxinteger, math.mininteger, 1e308,
                      "", "walk", "run", "wave", "idle", "root", "pelvis", "head", "hand_l",
                      "upperarm_l", "lowerarm_l", "spine_01", "spine_03", "neck", "hand_r", "*", "start", "loop", "end",
                      "once", "repeat", "pingpong", "smooth", "linear", "x", "\0",
                      string.rep("j", 300), "nonexistent.md5mesh", "fuzz.png"}) do
    add(v)
  end
  for _, t in ipairs({{}, {1, 2, 3}, {0, 0, 0, 1}, {0 / 0, 1, 2}, {loop = "repeat"},
                      {loop = true, fade = 0.2, sync = true}, {weight = 0.5, additive = true},
                      {tracks = 3, clips = 2}, {translation = true, yaw = true},
                      {anims = {"walk"}}, {speed = -2, start = 1e9}, {delay = 0.1}}) do
    add(t)
  end
  add(function() end)
  add(function() error("handler error") end)
  add(function() error(setmetatable({}, {__tostring = function() error("again") end})) end)
  add(reentrant)
  -- tables whose fields run more calls while a C function reads its options
  add(setmetatable({}, {__index = function(_, k) reentrant(k) end}))
  add(setmetatable({1, 2, 3}, {__index = function(_, k) reentrant(k); return 0.5 end,
                               __len = function() reentrant(); return 3 end}))
  for _, mod in ipairs(models) do
    add(mod)
    local ok, sk = pcall(mod.skeleton, mod)
    if ok then
      add(sk)
      local okn, names = pcall(sk.names, sk)
      if okn and type(names) == "table" then add(names[1]); add(names[#names // 2 + 1]); add(names[#names]) end
    end
    local okc, clips = pcall(mod.clips, mod)
    if okc and type(clips) == "table" then for _, c in ipairs(clips) do add(c) end end
  end
end

function update(dt)
  input, pos = FUZZ or "", 0
  seed()
  local steps = 0
  while more() and steps < 2000 do
    step()
    steps = steps + 1
  end
end

function draw()
  -- Draw whatever the pool holds that looks drawable; errors are fine.
  for i = 1, math.min(#pool, 40) do
    local v = pool[i]
    if v ~= NIL then pcall(m.draw, v, pool[i + 1] ~= NIL and pool[i + 1] or nil) end
  end
  pool = {}
  collectgarbage("collect")
end
