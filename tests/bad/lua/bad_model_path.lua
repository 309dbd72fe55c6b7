local m = require "marrow"
local man = assert(m.model("models/no_such_model.md5mesh"))
