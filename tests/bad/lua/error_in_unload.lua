function unload() error("unload failed on purpose") end
