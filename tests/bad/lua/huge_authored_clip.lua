-- Authored clips' keys and bakes live outside the Lua heap (one clip is
-- small; a million kept in a table are not): they count against --memory.
local m = require "marrow"
local man, clips = nil, {}
function load() man = assert(m.model("models/mannequin.md5mesh")) end
function update() for i = 1, 1e6 do clips[i] = m.clip(man, {name = "c" .. i, duration = 1}) end end
