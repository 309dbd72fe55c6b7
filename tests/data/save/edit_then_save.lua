-- Loads arg[1], then edits that file on disk (arg[2] = "rename": its
-- textures renamed; "break": the file cut to nothing) and saves the model
-- as saved.md5mesh and saved.glb under --out: what is saved is what was
-- loaded (tests/cli_save.sh; needs --trust to write beside the source).
local m = require "marrow"
function load()
  local model = assert(m.model(arg[1]))
  local f = assert(io.open(arg[1], "rb"))
  local text = f:read("a")
  f:close()
  if arg[2] == "rename" then text = text:gsub("mannequin_body", "edited_body") else text = "" end
  f = assert(io.open(arg[1], "wb"))
  f:write(text)
  f:close()
  for _, name in ipairs{"saved.md5mesh", "saved.glb"} do print(name, m.save(name, model)) end
  m.quit(0)
end
