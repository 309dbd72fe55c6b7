# cli_scenes.sh — `marrow test`: the project's own regression scenes
# (tests/scenes) against their goldens, the command line (usage errors,
# --filter, --shard, --jobs, --update), scene errors that fail alone, a
# deliberately broken scene whose diff must point at the changed arm, and
# the HTML report rendered by headless Chromium.
. tests/lib.sh
suite cli_scenes
PNG_STATS="$PY tests/png_stats.py"

# closing FILE: "P F" from the "N passed, N failed" line of a marrow test run.
closing() { sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$1" | tail -n 1; }

# --- usage -------------------------------------------------------------------------
run $MARROW test --help
[ "$RC" -eq 0 ] && printf '%s' "$OUT" | grep -q -- '--update' && printf '%s' "$OUT" | grep -q 'golden/FRAME.png\|NAME.golden/FRAME.png' \
    && pass "test --help documents --update and the golden layout" || fail "test --help" "exit $RC"
expect_exit "unknown option is a usage error" 2 $MARROW test --bogus
expect_exit "--jobs 0 is a usage error" 2 $MARROW test --jobs 0
expect_exit "--shard 3/2 is a usage error" 2 $MARROW test --shard 3/2
expect_exit "--shard junk is a usage error" 2 $MARROW test --shard x
expect_exit "a missing folder is a usage error" 2 $MARROW test /nonexistent/scenes
expect_exit "a file that is not a scene is a usage error" 2 $MARROW test README.md
mkdir -p "$TMP/dup"; cp tests/scenes/text.lua "$TMP/dup/"
run $MARROW test tests/scenes "$TMP/dup"
[ "$RC" -eq 2 ] && printf '%s' "$ERR" | grep -q "two scenes are named 'text'" \
    && pass "two scenes with one name are a usage error" || fail "duplicate scene names" "exit $RC" "$ERR"

# --- the project's own scenes ------------------------------------------------------------
O=$TMP/own
$MARROW test tests/scenes --out "$O" --jobs 2 --keep-images >"$TMP/own.txt" 2>"$TMP/own.err"; RC=$?
cat "$TMP/own.txt"
set -- $(closing "$TMP/own.txt")
own_p=${1:-0}; own_f=${2:-1}
# Every shot of the project's scenes counts as one test of this suite.
T_PASSED=$((T_PASSED + own_p)); T_FAILED=$((T_FAILED + own_f))
[ "$RC" -eq 0 ] && [ "$own_f" -eq 0 ] && [ "$own_p" -ge 10 ] \
    && pass "tests/scenes: $own_p shots match their goldens (--jobs 2)" || fail "tests/scenes match their goldens" "exit $RC" "$(cat "$TMP/own.err")"
names=$(sed -nE 's/^\[[0-9]+\/[0-9]+\] ([^ ]+) \.\.\. .*/\1/p' "$TMP/own.txt")
sorted=$(ls tests/scenes/*.lua | sed 's|.*/||; s|\.lua$||' | sort)
[ "$names" = "$sorted" ] && pass "--jobs 2 reports the scenes in sorted order" || fail "--jobs 2 order" "$names"
[ -s "$O/report.html" ] && [ -s "$O/junit.xml" ] && pass "report.html and junit.xml are written" || fail "report files"
cases=$(grep -c '<testcase ' "$O/junit.xml")
[ "$cases" -eq "$own_p" ] && ! grep -q '<failure' "$O/junit.xml" \
    && pass "junit.xml: one passing test case per shot ($cases)" || fail "junit.xml test cases" "$cases vs $own_p"
[ -s "$O/skinning_walk/0010/actual.png" ] && [ -s "$O/skinning_walk/0010/diff.png" ] \
    && [ -s "$O/skinning_walk/0010/expected.png" ] && [ -s "$O/skinning_walk/0010/actual.pose.json" ] \
    && pass "--keep-images: actual.png, expected.png, diff.png and actual.pose.json under OUT/SCENE/FRAME" \
    || fail "OUT/SCENE/FRAME layout"
grep -q 'src="skinning_walk/0010/actual.png"' "$O/report.html" \
    && pass "--keep-images: report.html shows a passing shot's images" || fail "report.html with --keep-images"

# By default a passing shot writes no files, and what an earlier run left
# in its FRAME folder goes (a stale diff.png would show a failure that is gone).
mkdir -p "$TMP/again/skinning_walk/0020"
cp "$O/skinning_walk/0020/diff.png" "$O/skinning_walk/0020/actual.png" "$TMP/again/skinning_walk/0020/"
run $MARROW test tests/scenes/skinning_walk.lua --out "$TMP/again"
[ "$RC" -eq 0 ] && [ ! -e "$TMP/again/skinning_walk/0020" ] && [ ! -e "$TMP/again/skinning_walk/0010" ] \
    && [ -s "$TMP/again/skinning_walk/log.txt" -o -e "$TMP/again/skinning_walk/log.txt" ] \
    && pass "a passing shot writes no images, and an earlier run's are removed" \
    || fail "passing shots without files" "exit $RC" "$(ls -R "$TMP/again/skinning_walk")"
! grep -q 'actual.png' "$TMP/again/report.html" && grep -q 'skinning_walk' "$TMP/again/report.html" \
    && pass "report.html lists passing shots without images" || fail "report.html without passing images"

# Deterministic: the same scene run again writes the same bytes.
run $MARROW test tests/scenes/skinning_walk.lua --out "$TMP/again" --keep-images
cmp -s "$O/skinning_walk/0020/actual.png" "$TMP/again/skinning_walk/0020/actual.png" \
    && pass "a second run renders byte-identical shots" || fail "a second run renders byte-identical shots"

# A model several scenes load is built once per run, in a private cache that
# the run removes: the user's cache is neither read nor filled, and a scene
# loading the model from that cache draws the same bytes as the one that built it.
mkdir -p "$TMP/twice" "$TMP/tmpd" "$TMP/usercache"; chmod 700 "$TMP/usercache"
for k in 1 2; do
    cp tests/scenes/collada_astroboy.lua "$TMP/twice/boy$k.lua"; cp -r tests/scenes/collada_astroboy.golden "$TMP/twice/boy$k.golden"
done
run env TMPDIR="$TMP/tmpd" MARROW_CACHE=1 MARROW_CACHE_DIR="$TMP/usercache" $MARROW test "$TMP/twice" --out "$TMP/twice_out" --keep-images
[ "$RC" -eq 0 ] && printf '%s' "$OUT" | grep -q "^models: 1 loaded from their files, 1 from this run's cache$" \
    && pass "the second scene loads the model the first built from the run's cache" || fail "run's cache" "exit $RC" "$OUT"
[ "$RC" -eq 0 ] && cmp -s "$TMP/twice_out/boy1/0000/actual.png" "$TMP/twice_out/boy2/0000/actual.png" \
    && cmp -s "$TMP/twice_out/boy1/0000/actual.pose.json" "$TMP/twice_out/boy2/0000/actual.pose.json" \
    && pass "a model two scenes load draws the same bytes built and from the run's cache" \
    || fail "one model in two scenes" "exit $RC" "$ERR"
[ -z "$(ls -A "$TMP/tmpd")" ] && [ -z "$(ls -A "$TMP/usercache")" ] \
    && pass "the run's private cache is removed, the user's cache is untouched" \
    || fail "private cache" "tmp: $(ls -A "$TMP/tmpd") user: $(ls -A "$TMP/usercache")"

# --- --filter and --shard ---------------------------------------------------------------
run $MARROW test tests/scenes --filter md5_ --out "$TMP/f"
n=$(printf '%s\n' "$OUT" | grep -c '^\[')
[ "$RC" -eq 0 ] && [ "$n" -eq 2 ] && pass "--filter md5_ runs the two MD5 scenes" || fail "--filter substring" "exit $RC, $n scenes"
run $MARROW test tests/scenes --filter 'sk*' --out "$TMP/f"
printf '%s\n' "$OUT" | grep '^\[' | sed -nE 's/^\[[0-9]+\/[0-9]+\] ([^ ]+) .*/\1/p' >"$TMP/glob.txt"
[ "$(cat "$TMP/glob.txt" | tr '\n' ' ')" = "skeleton_overlay skinning_walk " ] \
    && pass "--filter 'sk*' is a glob over scene names" || fail "--filter glob" "$(cat "$TMP/glob.txt")"
all=""
for k in 1 2 3; do
    run $MARROW test tests/scenes --shard $k/3 --filter "*" --out "$TMP/s$k" --jobs 2
    all="$all $(printf '%s\n' "$OUT" | sed -nE 's/^\[[0-9]+\/[0-9]+\] ([^ ]+) .*/\1/p')"
done
[ "$(echo $all | tr ' ' '\n' | sort | tr '\n' ' ')" = "$(echo $sorted | tr ' ' '\n' | tr '\n' ' ')" ] \
    && pass "--shard 1/3, 2/3, 3/3 run every scene exactly once" || fail "--shard cover" "$all"

# --- scene errors fail alone; missing goldens; --update ------------------------------------
E=$TMP/errs
mkdir -p "$E"
cp tests/scenes/text.lua "$E/good.lua"
cp -r tests/scenes/text.golden "$E/good.golden"
printf 'scene = {shots = {0}}\nfunction draw( end\n' >"$E/syntax.lua"
printf 'scene = {shots = {0, 3}}\nfunction update(dt)\n  if marrow_frame_count then end\n  error("boom in update")\nend\n' >"$E/runtime.lua"
printf 'local m = require "marrow"\nscene = {shots = {0}}\nfunction load() man = assert(m.model("no/such/model.md5mesh")) end\n' >"$E/nomodel.lua"
printf 'local m = require "marrow"\nscene = {shots = {0, 5}}\nfunction update() if m.frame() == 2 then m.quit() end end\n' >"$E/quits.lua"
printf 'scene = {frames = 4, shots = {0, 9}}\n' >"$E/badtable.lua"
printf 'x = 1\n' >"$E/noscene.lua"
printf 'scene = {shots = {0}}\n' >"$E/nogolden.lua"
printf 'return {}\n' >"$E/_helper.lua"
$MARROW test "$E" --out "$TMP/eo" --jobs 2 >"$TMP/e.txt" 2>&1; RC=$?
[ "$RC" -eq 1 ] && pass "a failing run exits 1" || fail "a failing run exits 1" "exit $RC"
grep -q '^\[[0-9]/8\] good \.\.\. ok' "$TMP/e.txt" && pass "the good scene still passes among broken ones" \
    || fail "good scene among broken ones" "$(cat "$TMP/e.txt")"
expect_match "syntax error: scene fails with the Lua message" "$(cat "$TMP/e.txt")" "syntax\.lua:2:.*expected"
expect_match "runtime error: scene fails with the message" "$(cat "$TMP/e.txt")" "runtime\.lua:4: boom in update"
expect_match "missing model: scene fails naming the file" "$(cat "$TMP/e.txt")" "no/such/model\.md5mesh"
expect_match "quitting early: scene fails naming the frame" "$(cat "$TMP/e.txt")" "quit at frame 2, before shot frame 5"
expect_match "bad scene table: the field is named" "$(cat "$TMP/e.txt")" "scene\.shots\[2\] = 9 is not below scene\.frames = 4"
expect_match "no scene table: says what to declare" "$(cat "$TMP/e.txt")" "noscene\.lua: no global table .scene."
expect_match "missing golden: says how to approve" "$(cat "$TMP/e.txt")" \
    "no golden image .*nogolden\.golden/0000\.png.*marrow test --update .*nogolden\.lua"
set -- $(closing "$TMP/e.txt")
# Shots: good 1 ok; runtime 2 and quits 2 (their shots were declared); syntax,
# nomodel, badtable, noscene 1 each (failed before the shots were known); nogolden 1.
[ "${1:-}" = 1 ] && [ "${2:-}" = 9 ] && pass "closing line counts shots: 1 passed, 9 failed" \
    || fail "closing line" "$(tail -1 "$TMP/e.txt")"
grep -q 'boom in update' "$TMP/eo/junit.xml" && grep -q '<failure' "$TMP/eo/junit.xml" \
    && pass "junit.xml carries the failures" || fail "junit.xml failures"

run $MARROW test --update "$E/nogolden.lua" --out "$TMP/eo2"
[ "$RC" -eq 0 ] && [ -s "$E/nogolden.golden/0000.png" ] && [ ! -e "$E/syntax.golden" ] && [ ! -e "$E/runtime.golden" ] \
    && pass "--update SCENE writes only that scene's goldens" || fail "--update one scene" "exit $RC" "$OUT"
run $MARROW test "$E/nogolden.lua" --out "$TMP/eo2"
[ "$RC" -eq 0 ] && pass "the approved golden passes" || fail "the approved golden passes" "$OUT"

# A scene that runs too long is stopped and fails; the others go on.
mkdir -p "$TMP/to"
# Slow in update(), which every frame runs (frames that are not shots are not rendered).
printf 'scene = {size = {640, 480}, frames = 100000, shots = {99999}}\nfunction update() for i = 1, 1000000 do end end\n' >"$TMP/to/slow.lua"
cp "$E/good.lua" "$TMP/to/"; cp -r "$E/good.golden" "$TMP/to/"
# The slow scene spins until it is stopped: 5 s (the good one takes about
# 0.3 s beside it), 20 s under the sanitizers, where a scene's start alone
# takes seconds.
to=5; [ -n "${MARROW_ASAN:-}" ] && to=20
run $MARROW test "$TMP/to" --timeout $to --jobs 2 --out "$TMP/too"
[ "$RC" -eq 1 ] && printf '%s' "$OUT" | grep -q "slow.lua: ran past --timeout $to s and was stopped" \
    && printf '%s' "$OUT" | grep -q '^\[1/2\] good \.\.\. ok' \
    && pass "--timeout stops a scene that runs too long; the others pass" || fail "--timeout" "exit $RC" "$OUT"
expect_exit "--timeout 0 is a usage error" 2 $MARROW test --timeout 0

# A scene whose process dies fails alone: with --jobs 1 one worker would run
# both scenes; it is killed inside the first (SIGKILL: under ASan a SIGSEGV
# would be caught and turned into exit 1), and a new worker runs the second.
. tests/wait.sh
mkdir -p "$TMP/cr"
printf 'scene = {size = {64, 48}, frames = 100000, shots = {99999}}\nprint("spinning")\nfunction update() for i = 1, 1000000 do end end\n' >"$TMP/cr/a_crash.lua"
cp "$E/good.lua" "$TMP/cr/"; cp -r "$E/good.golden" "$TMP/cr/"
$MARROW test "$TMP/cr" --jobs 1 --out "$TMP/cro" >"$TMP/cr.txt" 2>&1 &
MPID=$!
if wait_for "$TMP/cro/a_crash/log.txt" spinning 60; then
    kill -KILL $(pgrep -P "$MPID") 2>/dev/null
fi
wait "$MPID"; RC=$?
OUT=$(cat "$TMP/cr.txt")
[ "$RC" -eq 1 ] && printf '%s' "$OUT" | grep -q "a_crash.lua: the scene's process died of signal 9" \
    && printf '%s' "$OUT" | grep -q '^\[2/2\] good \.\.\. ok' \
    && pass "a scene whose worker dies fails naming the signal; a new worker runs the next scene" \
    || fail "crashing worker" "exit $RC" "$OUT"

# --- a deliberately broken scene: the diff points at the arm ------------------------------
B=$TMP/broken
arm_scene "$B" -10
run $MARROW test "$B" --out "$TMP/bo"
[ "$RC" -eq 1 ] && pass "an arm lowered by 10 instead of 40 fails (exit 1)" || fail "broken scene fails" "exit $RC" "$OUT"
expect_match "the message names scene, frame, share and largest difference" "$OUT" \
    "override_lower_arm frame 16: .*[0-9.]+% of pixels differ .*largest difference [0-9]+"
expect_match "the message names the arm's joints first (pose golden)" "$OUT" \
    "override_lower_arm frame 16: pose of mannequin\.md5mesh differs in [0-9]+ of [0-9]+ joints: hand_l moved [0-9.]+ cm, lowerarm_l [0-9.]+ cm; upperarm_l turned 30\.0°"
D=$TMP/bo/override_lower_arm/0016
[ -s "$D/actual.png" ] && [ -s "$D/expected.png" ] && [ -s "$D/diff.png" ] \
    && pass "actual.png, expected.png and diff.png are written" || fail "failure images"
if command -v python3 >/dev/null 2>&1; then
    set -- $($PNG_STATS red "$D/diff.png")
    n=$1; x0=$2; y0=$3; x1=$4; y1=$5
    # The left arm of the front-facing mannequin is right of the image centre,
    # between shoulder (y ~ 60) and hip (y ~ 140) of the 320x240 frame; its
    # shadow on the floor (lower right) moves too. Not the whole image, though:
    # less than half the width and under 5% of the pixels.
    [ "$n" -gt 200 ] && [ "$n" -lt 3840 ] && [ "$x0" -ge 120 ] && [ "$x1" -le 260 ] && [ "$x0" -le 185 ] \
        && [ "$x1" -ge 170 ] && [ "$y0" -le 100 ] && [ "$y1" -ge 80 ] && [ $((x1 - x0)) -lt 160 ] \
        && pass "red pixels of diff.png ($n) are boxed around the arm: x $x0..$x1 y $y0..$y1" \
        || fail "diff.png red box around the arm" "$n red pixels in x $x0..$x1 y $y0..$y1"
    set -- $($PNG_STATS red "$TMP/own/skinning_walk/0010/diff.png")
    [ "$1" -eq 0 ] && pass "a passing shot's diff.png has no red" || fail "passing diff has red" "$*"
else
    fail "python3 (scripts/install-deps.sh installs it) is needed to read diff.png"
fi

# A per-scene tolerance loose enough for the change lets the same scene pass.
sed 's/^scene = {size = {320, 240}, fps = 30, shots = {6, 16}}$/scene = {size = {320, 240}, fps = 30, shots = {6, 16}, tolerance = {threshold = 8, max_diff = 0.05, max_aa = 0.05, pose = 20, pose_angle = 45}}/' \
    "$B/override_lower_arm.lua" >"$B/loose.lua"
cp -r "$B/override_lower_arm.golden" "$B/loose.golden"
grep -q 'tolerance = {threshold = 8' "$B/loose.lua" || fail "loose copy was edited"
run $MARROW test "$B/loose.lua" --out "$TMP/lo"
[ "$RC" -eq 0 ] && pass "scene.tolerance overrides the defaults (a 2% change passes with max_diff = 0.05, pose = 20 inches)" \
    || fail "scene.tolerance override" "exit $RC" "$OUT"
sed 's/max_diff = 0.05/max_diff = "lots"/' "$B/loose.lua" >"$B/badtol.lua"
run $MARROW test "$B/badtol.lua" --out "$TMP/lo"
[ "$RC" -eq 1 ] && printf '%s' "$OUT" | grep -q 'scene.tolerance.max_diff must be a number' \
    && pass "a bad tolerance field fails the scene naming it" || fail "bad tolerance" "exit $RC" "$OUT"
run $MARROW test tests/scenes --filter no_such_scene --out "$TMP/none"
[ "$RC" -eq 0 ] && printf '%s' "$OUT" | grep -q '^0 passed, 0 failed$' \
    && pass "a filter that keeps no scene runs nothing and passes (an empty CI shard)" || fail "empty filter" "exit $RC"

# --- the report in headless Chromium --------------------------------------------------------
if command -v chromium >/dev/null 2>&1; then
    P=$(mktemp -d)
    timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$P" \
        --screenshot="$TMP/report.png" --window-size=1200,900 "file://$TMP/bo/report.html" >"$TMP/chr.log" 2>&1
    rm -rf "$P"
    if [ -s "$TMP/report.png" ]; then
        colours=$($PNG_STATS colours "$TMP/report.png")
        set -- $($PNG_STATS red "$TMP/report.png")
        # The three images of each failed shot are drawn: thousands of colours
        # (a text-only page has a few hundred) and the diff's red.
        [ "$colours" -gt 2000 ] && [ "$1" -gt 100 ] \
            && pass "report.html in headless Chromium shows the images ($colours colours, $1 red pixels)" \
            || fail "report.html screenshot" "$colours colours, $1 red pixels" "$(tail -3 "$TMP/chr.log")"
    else
        fail "chromium wrote no screenshot of report.html" "$(tail -3 "$TMP/chr.log")"
    fi
    # the page fits a 1200-pixel window: nothing wider than the viewport, measured
    # at 1100 pixels (a window's scrollbar and borders take some of its 1200;
    # headless Chromium's scrollbars overlay the page)
    sed 's|</body>|<script>document.title="width "+document.documentElement.scrollWidth+" of "+window.innerWidth;</script></body>|' \
        "$TMP/bo/report.html" >"$TMP/bo/report_width.html"
    P=$(mktemp -d)
    width=$(timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$P" \
        --window-size=1100,900 --dump-dom "file://$TMP/bo/report_width.html" 2>/dev/null |
        sed -n 's|.*<title>width \([0-9]*\) of \([0-9]*\)</title>.*|\1 \2|p')
    rm -rf "$P"
    set -- $width
    [ -n "${1:-}" ] && [ "$1" -le "$2" ] \
        && pass "report.html fits a 1200-pixel window (page ${1} px wide in a ${2} px viewport)" \
        || fail "report.html fits a 1200-pixel window" "page width and viewport: '${width}'"
    grep -q 'src="override_lower_arm/0016/diff.png"' "$TMP/bo/report.html" && ! grep -q 'http' "$TMP/bo/report.html" \
        && pass "report.html uses relative image paths and no external resources" || fail "report.html paths"
else
    echo "  skip report.html in Chromium: chromium is not installed (scripts/install-deps.sh installs it)"
fi

# A sharded run says which shard its report covers, and report.html lists
# failing scenes first (aaa_text passes and sorts first; the arm scene fails).
SH="$TMP/shard"
arm_scene "$SH" 10
cp tests/scenes/text.lua "$SH/aaa_text.lua"; cp -r tests/scenes/text.golden "$SH/aaa_text.golden"
run $MARROW test "$SH" --shard 1/1 --out "$TMP/sho"
first=$(grep -o '<tr class="[a-z]*"><td class="st"><b>[a-z_]*' "$TMP/sho/report.html" | head -n 1)
if [ "$RC" -eq 1 ] && grep -q '<h1>marrow test (shard 1/1: 2 of 2 scenes): ' "$TMP/sho/report.html" \
    && grep -q '<testsuites name="marrow test (shard 1/1: 2 of 2 scenes)"' "$TMP/sho/junit.xml"; then
    pass "a sharded run's report and junit.xml say which shard they cover"
else
    fail "a sharded run's report and junit.xml say which shard they cover" "exit $RC" "$(grep -o '<h1>[^<]*' "$TMP/sho/report.html")"
fi
case $first in *override_lower_arm) pass "report.html lists the failing scene first" ;;
    *) fail "report.html lists the failing scene first" "first row: $first" ;; esac

summary
