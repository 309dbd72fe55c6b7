-- A runtime error while the script's main chunk runs.
local t = nil
print(t.x)
