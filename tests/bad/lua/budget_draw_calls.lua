-- 1e5 draws of the mannequin: rendering is outside the script's budget, so
-- the frame's estimated rendering time counts against it.
local m = require "marrow"
local man
function load() man = assert(m.model("models/mannequin.md5mesh")) end
function draw() local p = m.pose(man) for i = 1, 1e5 do m.draw(man, p) end end
