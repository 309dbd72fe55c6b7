-- A syntax error: the script never runs.
function update(dt)
  local x = = 1
end
