-- One write quota for everything a script writes (issue 40; sandbox_io.c,
-- wrap_save.c, wrap_draw.c): io's files count the space they take (a seek
-- past the end its whole gap, so a sparse file cannot hide terabytes),
-- marrow.save and marrow.screenshot count against the same 1 GiB, and the
-- files of one save are written all or nothing.
-- Run by tests/cli_lua.sh with --out DIR and arg[1] = DIR.
local m = require "marrow"
local H = require "harness"

local out = arg[1]

local function exists(path)
  local f = io.open(path)
  if f then f:close() end
  return f ~= nil
end

function load()
  local man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk"}}))

  -- A save of several files is all or nothing: a clip whose file name is too
  -- long for the file system fails the save after the mesh was written.
  local long = m.clip(man, {name = ("n"):rep(300), duration = 1})
  local saved, why = m.save("quota_all_or_nothing.md5mesh", man, {clips = {man:clip("walk"), long}})
  H.check("a .md5mesh save whose second clip cannot be written fails", saved == nil, why)
  H.check("... and leaves no mesh behind", not exists(out .. "/quota_all_or_nothing.md5mesh"))
  H.check("... nor the clip written before", not exists(out .. "/walk.md5anim"))

  -- Sparse files count their extent.
  local f = assert(io.open("quota_sparse.bin", "w"))
  local ok, err = pcall(f.seek, f, "set", 1 << 40)
  H.check("a seek 1 TiB past the end is refused by the quota", not ok and tostring(err):find("write at most", 1, true), err)
  H.check("... leaving the file where it was", f:seek() == 0)
  H.check("a seek of 900 MiB past the end is counted, not refused", f:seek("set", 900 << 20) == 900 << 20)
  f:write("x")
  f:close()

  -- What is left of the quota is shared by saves and screenshots.
  saved, why = m.save("quota_ok.md5anim", man, {clips = {man:clip("walk")}})
  H.check("a small save still fits", saved ~= nil, why)
  local g = assert(io.open("quota_sparse2.bin", "w"))
  local gap = (124 << 20) - (256 << 10)   -- leaves less than the mesh or a 320x200 frame takes
  H.check("another 124 MiB gap fits too", g:seek("set", gap) == gap)
  g:write("y")
  g:close()
  saved, why = m.save("quota_over.md5mesh", man)
  H.check("a save past the quota fails", saved == nil and tostring(why):find("quota", 1, true), why)
  H.check("... writing nothing", not exists(out .. "/quota_over.md5mesh"))
  -- Spend the rest, byte for byte, with seeks of halving size.
  local last = assert(io.open("quota_rest.bin", "w"))
  local pos = 0
  for k = 27, 0, -1 do
    if pcall(last.seek, last, "set", pos + (1 << k)) then pos = pos + (1 << k) end
  end
  last:close()
  local shot_ok, shot_err = pcall(m.screenshot, "quota_over.png")
  H.check("a screenshot past the quota raises", not shot_ok and tostring(shot_err):find("quota", 1, true), shot_err)
  local h = assert(io.open("quota_small.txt", "w"))
  ok, err = pcall(h.write, h, ("z"):rep(8 << 20))
  H.check("a file:write past the quota raises", not ok and tostring(err):find("write at most", 1, true), err)
  h:close()
end
