function update(dt) while true do end end
