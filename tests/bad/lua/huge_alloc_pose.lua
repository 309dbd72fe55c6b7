-- Millions of poses (each owns C memory).
local m = require "marrow"
local man = assert(m.model("models/mannequin.md5mesh"))
function update() local keep = {} for i = 1, 1e8 do keep[i] = m.pose(man) end end
