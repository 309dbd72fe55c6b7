-- debug.getinfo(2, "f").func() once handed the script a host C function that crashed.
function update() return debug.getinfo(2, "f").func() end
