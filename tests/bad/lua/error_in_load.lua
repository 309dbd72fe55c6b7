function load() error("load failed on purpose") end
