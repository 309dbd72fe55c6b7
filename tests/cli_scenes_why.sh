# cli_scenes_why.sh — `marrow test` failures that say why: pose goldens that
# name the joints that moved, masks (scene.ignore rectangles and the text
# layer), --retries with flaky shots, and --approve of a finished run.
. tests/lib.sh
suite cli_scenes_why
PNG_STATS="$PY tests/png_stats.py"
closing() { sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$1" | tail -n 1; }

# --- pose goldens ------------------------------------------------------------------------
n=0; big=0
for f in tests/scenes/*.golden/*.png; do
    p=${f%.png}.pose.json
    n=$((n + 1))
    [ -s "$p" ] || { fail "every golden image has its pose golden" "$p is missing"; continue; }
    [ "$(wc -c <"$p")" -le 16384 ] || big=$((big + 1))
done
[ "$n" -ge 10 ] && [ "$big" -eq 0 ] && pass "the project's $n golden images each have a pose golden under 16 KB" \
    || fail "pose goldens are small" "$big of $n over 16 KB"
grep -q '"model": "mannequin.md5mesh", "metres_per_unit": 0.0254' tests/scenes/override_lower_arm.golden/0016.pose.json \
    && grep -q '^  "hand_l": \[' tests/scenes/override_lower_arm.golden/0016.pose.json \
    && pass "a pose golden names the model and lists one joint a line" || fail "pose golden layout"

# An arm turned 2 degrees: the pose golden names that arm's joints.
A=$TMP/arm
arm_scene "$A" -38
run $MARROW test "$A" --out "$TMP/ao"
[ "$RC" -eq 1 ] && pass "an arm lowered 38 instead of 40 degrees fails (exit 1)" || fail "2 degree arm fails" "exit $RC" "$OUT"
expect_match "the 2-degree failure names the arm's joints and how far they moved" "$OUT" \
    "override_lower_arm frame 6: pose of mannequin\.md5mesh differs in 3 of 22 joints: hand_l moved [0-9.]+ cm, lowerarm_l [0-9.]+ cm; upperarm_l turned 2\.0°"
if printf '%s\n' "$OUT" | grep 'frame 6:' | grep -q '_r \|pelvis\|spine\|head'; then
    fail "only the left arm is named" "$(printf '%s\n' "$OUT" | grep 'frame 6:')"
else
    pass "only the left arm's joints are named"
fi
[ -s "$TMP/ao/override_lower_arm/0016/actual.pose.json" ] && pass "actual.pose.json is written beside actual.png" \
    || fail "actual.pose.json"
# One degree: at frame 6 the pixels stay within their tolerance and only the
# pose golden sees it. (Two degrees move ~0.05% of the pixels there with the
# default FXAA: just over max_diff; under 4x MSAA they stayed just inside.)
A1=$TMP/arm1
arm_scene "$A1" -39
run $MARROW test "$A1" --out "$TMP/a1o"
expect_match "at frame 6 a 1-degree arm passes on pixels while the pose fails" "$OUT" \
    "frame 6: pose of .*upperarm_l turned 1\.0°; pixels ok"

# A shader colour change: pixels fail, poses unchanged.
S=$TMP/shaders
cp -r shaders "$S"
sed -i 's/frag_color = vec4(c, 1.0);/frag_color = vec4(c * vec3(1.0, 0.75, 0.75), 1.0);/' "$S/model.frag"
grep -q 'vec3(1.0, 0.75, 0.75)' "$S/model.frag" || fail "shader copy was edited"
MARROW_SHADERS=$S run $MARROW test tests/scenes/override_lower_arm.lua --out "$TMP/so"
[ "$RC" -eq 1 ] && pass "a model shader tinted red fails (exit 1)" || fail "shader colour fails" "exit $RC" "$OUT"
expect_match "the shader change fails on pixels with the poses matching" "$OUT" \
    "override_lower_arm frame 16: [0-9.]+% of pixels differ .*; poses match \(1 drawn, 22 joints\)"
printf '%s\n' "$OUT" | grep -q 'pose of ' && fail "a shader change reports no pose difference" "$OUT" \
    || pass "a shader change reports no pose difference"

# A pose golden that is not valid JSON names file and line.
J=$TMP/badjson
mkdir -p "$J"
cp tests/scenes/text.lua "$J/"; cp -r tests/scenes/text.golden "$J/"
printf '{"marrow_pose": 1, "frame": 0,\n "draws": [ {"model": 5} ]}\n' >"$J/text.golden/0000.pose.json"
run $MARROW test "$J" --out "$TMP/jo"
[ "$RC" -eq 1 ] && printf '%s' "$OUT" | grep -q 'text.golden/0000.pose.json: /draws/0/model: expected a string, found an integer' \
    && pass "a broken pose golden fails naming its file and the value (JSON pointer)" || fail "broken pose golden" "exit $RC" "$OUT"

# --- masks ----------------------------------------------------------------------------------
# A clock in the top-right corner that shows another time on every run (read
# from clock.txt beside the scene: a scene may read its own folder).
C=$TMP/clock
mkdir -p "$C"
cat >"$C/clock.lua" <<'EOF'
local m = require "marrow"
scene = {size = {320, 240}, shots = {0, 3}, ignore = {{232, 0, 88, 30}}}
local man
function load() man = assert(m.model("models/mannequin.md5mesh")) end
function draw()
  m.camera{target = {0, 0.9, 0}, distance = 3, yaw = 0, pitch = 5}
  m.draw(man)
  local f = io.open("clock.txt")
  m.text(240, 8, f and f:read("l") or "00:00:00")
  if f then f:close() end
end
EOF
sed 's/ignore = {{232, 0, 88, 30}}/ignore = {"text"}/' "$C/clock.lua" >"$C/clock_text.lua"
sed 's/, ignore = {{232, 0, 88, 30}}//' "$C/clock.lua" >"$C/clock_bare.lua"
echo 12:00:00 >"$C/clock.txt"
run $MARROW test --update "$C" --out "$TMP/co"
[ "$RC" -eq 0 ] && pass "--update writes the clock scenes' goldens" || fail "clock goldens" "exit $RC" "$OUT"
echo 23:47:09 >"$C/clock.txt"
run $MARROW test "$C/clock.lua" --out "$TMP/co2" --keep-images
[ "$RC" -eq 0 ] && pass "a clock in a masked corner passes when it shows another time" || fail "masked clock" "exit $RC" "$OUT"
set -- $($PNG_STATS hatch "$TMP/co2/clock/0003/diff.png")
[ "$1" -eq $((88 * 30)) ] && [ "$2" -eq 232 ] && [ "$3" -eq 0 ] && [ "$4" -eq 319 ] && [ "$5" -eq 29 ] \
    && pass "diff.png hatches exactly the ignored rectangle ($1 pixels)" || fail "hatched rectangle" "$*"
grep -q '2640 pixels ignored' "$TMP/co2/report.html" && pass "report.html says how many pixels were ignored" \
    || fail "report.html ignored pixels"
run $MARROW test "$C/clock_text.lua" --out "$TMP/co3" --keep-images
[ "$RC" -eq 0 ] && pass "scene.ignore = {\"text\"} leaves the clock's text out" || fail "text layer" "exit $RC" "$OUT"
set -- $($PNG_STATS hatch "$TMP/co3/clock_text/0000/diff.png")
[ "$1" -gt 100 ] && [ "$2" -ge 230 ] && [ "$3" -le 8 ] && [ "$5" -le 40 ] \
    && pass "the text layer hatches the text's box only ($1 pixels in x $2..$4 y $3..$5)" || fail "text layer box" "$*"
run $MARROW test "$C/clock_bare.lua" --out "$TMP/co4"
[ "$RC" -eq 1 ] && printf '%s' "$OUT" | grep -Eq 'of pixels differ .*in x 2[3-9][0-9]\.\.[0-9]+ y [0-9]+\.\.[0-9]+; see .*; poses match' \
    && pass "without the mask the clock fails on its pixels, poses matching" || fail "unmasked clock" "exit $RC" "$OUT"
printf 'scene = {shots = {0}, ignore = {{1, 2, 3}}}\n' >"$TMP/badmask.lua"
run $MARROW test "$TMP/badmask.lua" --out "$TMP/bm"
[ "$RC" -eq 1 ] && printf '%s' "$OUT" | grep -q 'scene.ignore\[1\] must be {x, y, w, h}' \
    && pass "a bad scene.ignore entry fails the scene naming it" || fail "bad ignore" "exit $RC" "$OUT"

# --- flaky shots ----------------------------------------------------------------------------
# A scene that fails the first time it runs: a counter file in its output
# folder (OUT/SCENE, where a scene may write) says which run it is.
F=$TMP/flaky
mkdir -p "$F"
cat >"$F/once.lua" <<'EOF'
local m = require "marrow"
scene = {size = {160, 120}, shots = {0}}
local path = "counter"                  -- read and written under OUT/once
local f = io.open(path, "r")
local n = f and tonumber(f:read("a")) or 0
if f then f:close() end
f = assert(io.open(path, "w")); f:write(tostring(n + 1)); f:close()
function draw()
  if n == 0 then m.text(10, 10, "first run") end
end
EOF
MARROW_TEST_COUNTER="$TMP/fo/once/counter"
mkdir -p "$TMP/fo/once"
echo 5 >"$MARROW_TEST_COUNTER"
run $MARROW test --update "$F" --out "$TMP/fo"
echo 0 >"$MARROW_TEST_COUNTER"
run $MARROW test "$F" --out "$TMP/fo"
[ "$RC" -eq 1 ] && pass "without --retries the first run fails" || fail "no retries" "exit $RC" "$OUT"
echo 0 >"$MARROW_TEST_COUNTER"
run $MARROW test "$F" --retries 2 --out "$TMP/fo"
[ "$RC" -eq 0 ] && printf '%s' "$OUT" | grep -q '^\[1/1\] once \.\.\. flaky (.*2 attempts)' \
    && printf '%s' "$OUT" | grep -q 'once frame 0: flaky: passed on attempt 2 after failing: once frame 0: [0-9.]*% of pixels differ' \
    && printf '%s' "$OUT" | grep -q '^1 shot flaky' && printf '%s' "$OUT" | grep -q '^1 passed, 0 failed$' \
    && pass "--retries 2: a shot that fails once is flaky and passes the run" || fail "flaky passes" "exit $RC" "$OUT"
[ "$(cat "$MARROW_TEST_COUNTER")" = 2 ] && pass "the flaky scene ran exactly twice" || fail "runs" "$(cat "$MARROW_TEST_COUNTER")"
grep -q '<flakyFailure message="once frame 0: flaky' "$TMP/fo/junit.xml" && ! grep -q '<failure' "$TMP/fo/junit.xml" \
    && pass "junit.xml marks the shot flakyFailure, not failure" || fail "junit flaky" "$(cat "$TMP/fo/junit.xml")"
grep -q '<tr class="flaky">' "$TMP/fo/report.html" && grep -q 'attempt 2' "$TMP/fo/report.html" \
    && pass "report.html shows the shot as flaky" || fail "report flaky"
[ -s "$TMP/fo/once/0000/actual.png" ] && [ -s "$TMP/fo/once/0000/actual.pose.json" ] \
    && grep -q 'src="once/0000/actual.png"' "$TMP/fo/report.html" \
    && pass "a flaky shot keeps its passing attempt's actuals (for --approve)" || fail "flaky actuals"
echo 0 >"$MARROW_TEST_COUNTER"
run $MARROW test "$F" --retries 2 --fail-flaky --out "$TMP/fo"
[ "$RC" -eq 1 ] && printf '%s' "$OUT" | grep -q '^\[1/1\] once \.\.\. FLAKY' && printf '%s' "$OUT" | grep -q '^0 passed, 1 failed$' \
    && grep -q '<failure message="once frame 0: flaky' "$TMP/fo/junit.xml" \
    && pass "--fail-flaky: the flaky shot fails the run" || fail "--fail-flaky" "exit $RC" "$OUT"
# --jobs 2: the worker that ran the quick scene ends once nothing is left to
# hand out; the flaky scene's retry still runs (on the other worker, or a new one).
printf 'scene = {size = {160, 120}, shots = {0}}\n' >"$F/a_quick.lua"
run $MARROW test --update "$F/a_quick.lua" --out "$TMP/fo"
echo 0 >"$MARROW_TEST_COUNTER"
run $MARROW test "$F" --jobs 2 --retries 2 --out "$TMP/fo"
[ "$RC" -eq 0 ] && printf '%s' "$OUT" | grep -q '^\[2/2\] once \.\.\. flaky (.*2 attempts)' \
    && printf '%s' "$OUT" | grep -q '^2 passed, 0 failed$' && [ "$(cat "$MARROW_TEST_COUNTER")" = 2 ] \
    && pass "--jobs 2 --retries 2: the retry runs after the idle worker has ended" || fail "jobs 2 retry" "exit $RC" "$OUT"
rm -rf "$F/a_quick.lua" "$F/a_quick.golden"
mkdir -p "$TMP/fo2/always"; echo -100 >"$TMP/fo2/always/counter"
sed 's/if n == 0 then/if n < 0 then/' "$F/once.lua" >"$F/always.lua"; cp -r "$F/once.golden" "$F/always.golden"
run $MARROW test "$F/always.lua" --retries 2 --out "$TMP/fo2"
[ "$RC" -eq 1 ] && printf '%s' "$OUT" | grep -q '^\[1/1\] always \.\.\. FAIL (.*3 attempts)' \
    && pass "a scene that fails every time is run 1 + 2 times and fails" || fail "always fails" "exit $RC" "$OUT"
unset MARROW_TEST_COUNTER
expect_exit "--retries -1 is a usage error" 2 $MARROW test --retries -1

# --- approving a finished run -------------------------------------------------------------
cmd=$(sed -n 's/.*<pre class="approve">\(marrow test --approve [^<]* override_lower_arm\)<\/pre>.*/\1/p' "$TMP/ao/report.html" | head -1)
case "$cmd" in
    "marrow test --approve $(cd "$TMP/ao" && pwd -P) override_lower_arm") pass "report.html shows the approve command: $cmd" ;;
    *) fail "approve command in report.html" "'$cmd'" ;;
esac
cp "$A/override_lower_arm.golden/0016.pose.json" "$TMP/old_pose.json"
run $MARROW ${cmd#marrow }
[ "$RC" -eq 0 ] && printf '%s' "$OUT" | grep -q 'approved override_lower_arm frame 16 (fail)' \
    && printf '%s' "$OUT" | grep -q '^2 shots approved$' \
    && pass "--approve copies the failed shots' actuals" || fail "--approve" "exit $RC" "$OUT" "$ERR"
cmp -s "$TMP/ao/override_lower_arm/0016/actual.png" "$A/override_lower_arm.golden/0016.png" \
    && cmp -s "$TMP/ao/override_lower_arm/0016/actual.pose.json" "$A/override_lower_arm.golden/0016.pose.json" \
    && ! cmp -s "$TMP/old_pose.json" "$A/override_lower_arm.golden/0016.pose.json" \
    && pass "the golden image and pose are now the run's actuals" || fail "approved files"
run $MARROW test "$A" --out "$TMP/ao2"
[ "$RC" -eq 0 ] && pass "the approved scene passes without changes" || fail "after approve" "exit $RC" "$OUT"
run $MARROW test --approve "$TMP/ao2"
[ "$RC" -eq 0 ] && printf '%s' "$OUT" | grep -q '^0 shots approved$' \
    && pass "approving a passing run copies nothing" || fail "approve passing run" "exit $RC" "$OUT"
run $MARROW test --approve "$TMP/ao2" no_such_scene
[ "$RC" -eq 1 ] && printf '%s' "$ERR" | grep -q "no scene 'no_such_scene' in the run" \
    && pass "approving a scene that was not in the run fails naming it" || fail "approve unknown scene" "exit $RC" "$ERR"
run $MARROW test --approve "$TMP/ao2" overide_lower_arm
[ "$RC" -eq 1 ] && printf '%s' "$ERR" | grep -qF "no scene 'overide_lower_arm' in the run" \
    && printf '%s' "$ERR" | grep -qF "did you mean 'override_lower_arm'?" \
    && pass "approving a misspelled scene suggests the closest name" || fail "approve misspelled scene" "exit $RC" "$ERR"
expect_exit "--approve of a folder without a run is a usage error" 2 $MARROW test --approve "$TMP/nothing-here"
expect_exit "--approve with --update is a usage error" 2 $MARROW test --update --approve "$TMP/ao2"

summary
