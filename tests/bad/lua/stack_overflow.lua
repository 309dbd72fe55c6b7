local function f(n) return 1 + f(n + 1) end
function update() f(1) end
