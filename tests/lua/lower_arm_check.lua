-- lower_arm_check.lua — appended to examples/lower_arm_while_walking.lua by
-- tests/cli_lua.sh (so it sees the example's own locals: man, plain,
-- lowered) and run headless over two walk cycles. The example's held-down
-- arm must stay outside the body and hang still while the walk goes on:
--   - the left hand and forearm joints keep a sideways (model +Y, the
--     mannequin's left) distance from the pelvis, left hip and left knee
--     joints of more than MARGIN, in every frame;
--   - the hand hangs below the shoulder by most of the arm's length;
--   - the hand's forward/back travel is small next to the plain walk's swing.
-- Prints "  ok   name" / "  FAIL name: why" lines like tests/lua/harness.lua.
local MARGIN = 4.0        -- inches (the mannequin's units): about a thigh's half width
local example_update = update
local closest, worst = math.huge, ""
local lowest_drop = math.huge
local swing = {lowered = {math.huge, -math.huge}, plain = {math.huge, -math.huge}}
local function widen(r, v) r[1] = math.min(r[1], v); r[2] = math.max(r[2], v) end

function update(dt)
  example_update(dt)
  for _, arm in ipairs({"hand_l", "lowerarm_l"}) do
    local a = lowered:position(arm)
    for _, body in ipairs({"pelvis", "thigh_l", "calf_l"}) do
      local side = a.y - lowered:position(body).y
      if side < closest then
        closest, worst = side, string.format("%s %.2f in beside %s at frame %d", arm, side, body, m.frame())
      end
    end
  end
  local shoulder, hand = lowered:position("upperarm_l"), lowered:position("hand_l")
  local length = (lowered:position("lowerarm_l") - shoulder):length() +
                 (hand - lowered:position("lowerarm_l")):length()
  lowest_drop = math.min(lowest_drop, (shoulder.z - hand.z) / length)
  widen(swing.lowered, hand.x)
  widen(swing.plain, plain:position("hand_l").x)
  if m.frame() == 65 then
    local function check(name, cond, detail)
      print((cond and "  ok   " or "  FAIL ") .. name .. (cond and "" or ": " .. detail))
    end
    check("held-down arm stays outside the body (hand, forearm > 4 in beside pelvis, hip, knee)",
          closest > MARGIN, "closest: " .. worst)
    check("held-down arm hangs (hand below the shoulder by > 95% of the arm)", lowest_drop > 0.95,
          string.format("%.3f of the arm's length", lowest_drop))
    local still, swung = swing.lowered[2] - swing.lowered[1], swing.plain[2] - swing.plain[1]
    check("held-down arm does not swing (< 1/5 of the walk's hand travel)", still < swung / 5,
          string.format("%.2f in against the walk's %.2f in", still, swung))
    m.quit(0)
  end
end
