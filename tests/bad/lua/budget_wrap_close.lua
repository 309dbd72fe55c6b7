-- coroutine.wrap closes a failed coroutine's to-be-closed variables: not when the budget stopped it.
function update()
  coroutine.wrap(function()
    local x <close> = setmetatable({}, {__close = function() while true do end end})
    while true do end
  end)()
end
