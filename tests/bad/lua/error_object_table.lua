-- error() with a table, not a string.
function update() error({code = 7}) end
