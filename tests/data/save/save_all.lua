-- Saves arg[1] (a model) as every format marrow writes with a mesh, under
-- --out: saved.dae, saved.gltf, saved.glb, saved.md5mesh (tests/cli_save.sh).
local m = require "marrow"
function load()
  local model = assert(m.model(arg[1]))
  for _, ext in ipairs{"dae", "gltf", "glb", "md5mesh"} do
    local path, written = m.save("saved." .. ext, model)
    print(("saved.%s: %s (%s files)"):format(ext, tostring(path), tostring(written)))
  end
  m.quit(0)
end
