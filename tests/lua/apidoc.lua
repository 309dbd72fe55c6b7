-- apidoc.lua — reads docs/API.md for the Lua tests (test_api, test_errors):
-- the documented functions and methods, their argument lists, and which
-- metamethods each type's section names.
--   local doc = require("apidoc").read()
--   doc.entries["pose:rotate"] = "joint, q [, opts]"   (the text inside the parentheses)
--   doc.order = {"marrow.time", ...}                   (as they appear)
--   doc.sections["vec3"] = the section's text          (for metamethods, marrow.version)
--   doc.options["marrow.camera"] = {{field = "target", type = "vec3"}, ...}
--       the rows of the option table under an entry; an entry's table also
--       belongs to the entries whose headings directly precede it
--       (pose:rotate ... pose:set_translation share one)
local M = {}

local function root()
  local script = arg and arg[0] or "tests/lua/x.lua"
  local dir = script:match("^(.*)/[^/]*$") or "."
  return dir .. "/../../"
end

function M.read()
  local path = root() .. "docs/API.md"
  local f = assert(io.open(path, "r"), "cannot open " .. path)
  local text = f:read("a")
  f:close()
  local doc = {entries = {}, order = {}, sections = {}, options = {}, text = text}
  local section = "preamble"
  local group, last_was_heading = {}, false
  for line in (text .. "\n"):gmatch("(.-)\n") do
    if line:match("^##") and not line:match("^### `") then group = {} end
    local sec = line:match("^## (%S+)")
    if sec then section = sec end
    doc.sections[section] = (doc.sections[section] or "") .. line .. "\n"
    local name, args = line:match("^### `([%w_%.:]+)%((.-)%)`")
    if name then
      assert(not doc.entries[name], "docs/API.md documents " .. name .. " twice")
      doc.entries[name] = args
      doc.order[#doc.order + 1] = name
      if not last_was_heading then group = {} end
      group[#group + 1] = name
    end
    last_was_heading = name ~= nil
    local first, kind = line:match("^| (`[^|]*) | ([^|]*) |")
    if first then
      for field in first:gmatch("`([%w_]+)`") do
        for _, n in ipairs(group) do
          doc.options[n] = doc.options[n] or {}
          table.insert(doc.options[n], {field = field, type = kind})
        end
      end
    end
  end
  return doc
end

return M
