-- One allocation beyond the script memory cap.
function update() local s = string.rep("x", 1 << 30) .. string.rep("y", 1 << 30) end
