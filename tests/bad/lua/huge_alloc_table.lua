-- Grows a table of 1 MiB strings until the memory cap.
function update() local t = {} for i = 1, 1e10 do t[i] = string.rep("x", 1 << 20) .. i end end
