-- table.insert shifts #t elements; __len says 2^50.
function update() table.insert(setmetatable({}, {__len = function() return 1 << 50 end}), 1, 5) end
