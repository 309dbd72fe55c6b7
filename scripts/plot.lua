-- plot.lua — the script `marrow plot` runs (src/cli/cmd_plot.c): the curves
-- of one joint of one clip of a model file, drawn by curves.lua into a PNG.
-- arg: PNG name, model path, joint ("" = the first animated joint), clip
-- name ("" = the first clip), then the anim files to load with the model.
local m = require "marrow"
local curves = require "curves"

local png, path, joint, clip_name = arg[1], arg[2], arg[3], arg[4]
local model, clip, data

function load()
  local anims = {}
  for i = 5, #arg do anims[#anims + 1] = arg[i] end
  model = assert(m.model(path, #anims > 0 and {anims = anims} or nil))
  local clips = model:clips()
  if #clips == 0 then error(path .. " has no clips to plot", 0) end
  clip = clip_name ~= "" and model:clip(clip_name) or clips[1]   -- an unknown name raises, listing the clips
  if joint == "" then joint = model:skeleton():names()[1] end
  data = curves.sample(model, clip, joint)
end

function draw()
  curves.draw(model, clip, data, nil)
  m.screenshot(png)
  m.quit(0)
end
