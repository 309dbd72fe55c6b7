-- A global named like a callback that is not a function.
update = 42
