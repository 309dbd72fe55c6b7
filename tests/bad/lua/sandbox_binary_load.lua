-- A hand-made binary chunk: Lua never verifies bytecode, so load refuses it.
function update() assert(load("\27LuaT\0\25\147\13\10\26\10\4\8\8xV\0\0\0\0\0\0\0\0\0\0\0(w@"))() end
