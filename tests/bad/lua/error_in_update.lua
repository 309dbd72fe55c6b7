function update(dt) local n = nil; return n + dt end
