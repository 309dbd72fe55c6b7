-- docs/API.md is the reference: every function and method the marrow
-- module exports is documented there (module functions and the callable
-- vec3/quat/mat4 tables by their full name, methods as type:name, operators
-- by their metamethod in the type's section), and everything documented
-- exists. Walks the module table and every type's metatable, so a binding
-- added without its entry fails here.
local m = require "marrow"
local H = require "harness"
local doc = require("apidoc").read()

-- Metamethods that are not operators (fields, lifetime) need no entry.
local NOT_OPERATORS = {__gc = true, __close = true, __index = true, __newindex = true, __name = true,
                       methods = true}

function load()
  local man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk", "idle"}}))
  local mx = m.mixer(man)
  local values = {
    vec3 = m.vec3(1, 2, 3), quat = m.quat(), mat4 = m.mat4(), model = man, skeleton = man:skeleton(),
    clip = man:clip("walk"), pose = m.pose(man), mixer = mx, track = mx:track(2), mask = man:mask{"spine_01"},
    recorder = m.record(man), ik_body = m.ik_body(man),
    springs = m.springs(man, {chains = {{joints = {"neck", "head"}}}}),
    blendspace = m.blendspace1d(man, {{man:clip("walk"), 0}, {man:clip("idle"), 1}}),
  }
  local exported, missing = {}, {}
  local function need(name, ok)
    exported[name] = true
    if not ok then missing[#missing + 1] = name end
  end

  -- module functions and the callable math tables
  local mkeys = {}
  for k in pairs(m) do mkeys[#mkeys + 1] = k end
  table.sort(mkeys)
  for _, k in ipairs(mkeys) do
    local v, name = m[k], "marrow." .. k
    if type(v) == "function" then
      need(name, doc.entries[name])
    elseif type(v) == "table" then
      need(name, doc.entries[name] and getmetatable(v) and getmetatable(v).__call)
      for f, fv in pairs(v) do
        if type(fv) == "function" then need(name .. "." .. f, doc.entries[name .. "." .. f]) end
      end
    else
      need(name, doc.text:find("`" .. name .. "`", 1, true))
    end
  end

  -- methods and operators of every type
  local tnames = {}
  for t in pairs(values) do tnames[#tnames + 1] = t end
  table.sort(tnames)
  local track_methods = getmetatable(values.track).__index
  for _, t in ipairs(tnames) do
    local mt = getmetatable(values[t])
    H.check(t .. " has a section in docs/API.md", doc.sections[t] ~= nil)
    local methods = mt.methods or mt.__index
    for k, f in pairs(methods) do
      if type(f) == "function" then
        local name = t .. ":" .. k
        -- mixer:f for a track method f is documented once, as track:f
        local ok = doc.entries[name] or (t == "mixer" and track_methods[k] and doc.entries["track:" .. k])
        need(name, ok)
      end
    end
    for k, f in pairs(mt) do
      if type(f) == "function" and not NOT_OPERATORS[k] then
        need(t .. "." .. k, (doc.sections[t] or ""):find("`" .. k .. "`", 1, true))
      end
    end
  end
  table.sort(missing)
  H.check("every exported function, method and operator is documented", #missing == 0,
          "undocumented: " .. table.concat(missing, ", "))

  -- everything documented exists
  local stale = {}
  for _, name in ipairs(doc.order) do
    local t, meth = name:match("^([%w_]+):([%w_]+)$")
    local found
    if t then
      local v = values[t]
      local mt = v and getmetatable(v)
      local methods = mt and (mt.methods or mt.__index)
      found = type(methods) == "table" and type(methods[meth]) == "function"
    else
      local v = {marrow = m}
      for part in name:gmatch("[^%.]+") do v = type(v) == "table" and v[part] or nil end
      found = type(v) == "function" or (type(v) == "table" and getmetatable(v) and getmetatable(v).__call ~= nil)
    end
    if not found then stale[#stale + 1] = name end
  end
  H.check("every documented function exists", #stale == 0, "documented but missing: " .. table.concat(stale, ", "))
  H.check("the reference documents a plausible number of entries", #doc.order >= 120, #doc.order)
  H.finish()
end
