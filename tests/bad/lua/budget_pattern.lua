-- A pattern that backtracks for hours inside one C call: the matcher checks the budget.
function update() return string.rep("a", 5000):find(".-.-.-.-.-.-b") end
