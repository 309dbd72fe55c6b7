#!/bin/sh
# cli_bvh.sh — BVH files through the command line and Lua (src/formats/bvh.h):
#   - `marrow info` of the hand-written files (tests/data/bvh) and the CMU
#     files of assimp-testmodels: joints, End Sites, clip, rate, the unit
#     assumption;
#   - every file of tests/data/bvh/bad: exit 3 and the message of its EXPECT
#     row (file:line), one line on stderr;
#   - `marrow pose` of a mesh-less model writes its joints, and they agree
#     with assimp (tests/tools/assimp_pose --joints) within 0.01 % of the
#     rest diagonal on every hand-written file, at every key and a third of
#     the way to the next (the CMU files are compared in tests/cli_reference.sh);
#   - `marrow view` draws the skeleton of a mesh-less model (yellow bones)
#     and plays at the file's Frame Time (the HUD frame number at t = 3 s);
#   - Lua: marrow.model("x.bvh") gives a model whose clip plays in a mixer,
#     and a bad file gives nil, "bvh: FILE:LINE: ...".
. "$(dirname "$0")/lib.sh"
suite cli_bvh

D=tests/data/bvh
CMU=/usr/share/assimp/models/BVH
REF=${TEST_BIN_DIR:-build/release/tests}/tools/assimp_pose
CMP=${TEST_BIN_DIR:-build/release/tests}/tools/compare_poses
PNG_STATS="$PY tests/png_stats.py"

# ---- info ------------------------------------------------------------------------
run $MARROW info $D/order_zxy.bvh
expect_match "info: format bvh" "$OUT" "^model: .*order_zxy.bvh \(bvh\)"
expect_match "info: End Sites are joints named <parent>_end" "$OUT" "^ +2 +Chest_end$"
expect_match "info: one clip named after the file, at 1/Frame Time" "$OUT" "^  order_zxy: 3 frames at 25 fps, 0.080 s, 4 joints animated"
expect_match "info: no meshes" "$OUT" "^meshes: 0 "
expect_match "info: says the axes and unit were assumed" "$OUT" "^frame: Y-up, 0.05644[0-9]* m per unit; BVH states no axes or unit: Y-up assumed"
if [ -f $CMU/01_01.bvh ]; then
    run $MARROW info $CMU/01_01.bvh
    expect_match "info 01_01.bvh: 38 joints" "$OUT" "^joints: 38$"
    expect_match "info 01_01.bvh: 2752 frames at 120 fps" "$OUT" "^  01_01: 2752 frames at 120 fps, 22.925 s, 31 joints animated"
    expect_match "info 01_01.bvh: unit guessed as CMU units" "$OUT" "unit guessed as CMU units \(1/0.45 inch\) \(the rest pose is 25.65 units tall"
    run $MARROW info $CMU/Boxing_Toes.bvh
    expect_match "info Boxing_Toes.bvh: unit guessed as centimetres" "$OUT" "unit guessed as centimetres"
    expect_match "info Boxing_Toes.bvh: the extra frame line is a warning" "$OUT" "Boxing_Toes.bvh:3199: 1 line after the last frame \(Frames 3069\) ignored"
else
    fail "assimp-testmodels is installed ($CMU)" "scripts/install-deps.sh installs it"
fi
expect_exit "a .bvh with anim files is a bad input" 3 $MARROW info $D/minimal.bvh extra.md5anim

# ---- bad files -------------------------------------------------------------------
n=0
while IFS="$(printf '\t')" read -r file line msg; do
    case $file in '#'*|'') continue ;; esac
    n=$((n + 1))
    run $MARROW info "$D/bad/$file"
    want="bvh: $D/bad/$file:$line: expected $msg"
    if [ "$RC" -eq 3 ] && [ "$ERR" = "$want" ]; then pass "bad/$file: exit 3, line $line"
    else fail "bad/$file: exit 3 with its EXPECT message" "exit $RC" "got:  $ERR" "want: $want"; fi
done <$D/bad/EXPECT
[ "$n" -ge 25 ] && pass "the bad corpus has $n files" || fail "the bad corpus has at least 25 files" "$n"

# ---- pose: joints, against assimp ------------------------------------------------
run $MARROW pose $D/minimal.bvh --time 0.05 --obj "$TMP/p.obj"
expect_match "pose of a mesh-less model says what it wrote" "$OUT" "wrote .* \(clip minimal at 0.05 s\)"
expect_match "pose writes one v per joint after its name" "$(cat "$TMP/p.obj")" "^# joint 2 Chest_end$"
expect_match "pose writes bones as line elements" "$(grep -c '^l ' "$TMP/p.obj")" "^2$"
if [ -x "$REF" ]; then
    for f in $D/*.bvh; do
        c=$(basename "$f" .bvh)
        $MARROW pose "$f" --rest --obj "$TMP/rest.obj" >/dev/null
        keys=$($REF "$f" --list 2>/dev/null </dev/null | head -n 1 | sed 's/.* keys //')
        ts=$(echo $keys | awk '{ for (i = 1; i <= NF; i++) { printf "%s ", $i; if (i < NF) printf "%.9g ", (2 * $i + $(i + 1)) / 3 } }')
        worst=0; pairs=""; k=0
        for t in $ts; do
            k=$((k + 1))
            $MARROW pose "$f" --clip "$c" --time "$t" --obj "$TMP/m$k.obj" >/dev/null
            $REF "$f" --joints --time "$t" -o "$TMP/a$k.txt" 2>/dev/null </dev/null
            pairs="$pairs $TMP/m$k.obj $TMP/a$k.txt"
        done
        res=$($CMP joints "$TMP/rest.obj" $pairs)
        bad=$(echo "$res" | awk '{ w = $2; sub("%", "", w); if (w + 0 > 0.01 || $10 != 0) print }')
        worst=$(echo "$res" | awk '{ w = $2; sub("%", "", w); if (w + 0 > m) m = w + 0 } END { print m + 0 }')
        if [ -n "$res" ] && [ -z "$bad" ]; then pass "pose $c.bvh joints agree with assimp at $k times: worst $worst%"
        else fail "pose $c.bvh joints agree with assimp within 0.01 %" "$res"; fi
    done
else
    fail "reference tool $REF is built" "run make test (it builds tests/tools/assimp_pose)"
fi

# ---- view: the skeleton is drawn, time in seconds at the file's rate ---------------
if [ -f $CMU/01_01.bvh ]; then
    run $MARROW view $CMU/01_01.bvh --headless --time 3 --size 480x270 --out "$TMP/v.png"
    if [ "$RC" -eq 0 ]; then
        y=$($PNG_STATS yellow "$TMP/v.png")
        if [ "$y" -gt 100 ]; then pass "view draws the skeleton of a mesh-less model ($y bone pixels)"
        else fail "view draws the skeleton of a mesh-less model" "$y yellow pixels"; fi
        run $MARROW view $CMU/01_01.bvh --headless --time 3 --size 480x270 --skeleton --out "$TMP/s.png"
        if cmp -s "$TMP/v.png" "$TMP/s.png"; then pass "view of a mesh-less model equals view --skeleton"
        else fail "view of a mesh-less model equals view --skeleton"; fi
        run $MARROW view $CMU/01_01.bvh --headless --time 3.5 --size 480x270 --out "$TMP/w.png"
        if ! cmp -s "$TMP/v.png" "$TMP/w.png"; then pass "view: the skeleton moves between 3 s and 3.5 s"
        else fail "view: the skeleton moves between 3 s and 3.5 s"; fi
    else
        fail "view 01_01.bvh headless" "$ERR"
    fi
fi

# ---- Lua ---------------------------------------------------------------------------
cat >"$TMP/bvh.lua" <<'LUA'
local m = require "marrow"
function load()
  local b, err = m.model("tests/data/bvh/order_zxy.bvh")
  assert(b, err)
  local c = b:clips()[1]
  local mixer = m.mixer(b)
  mixer:play(c)
  mixer:update(0.04)
  print(string.format("lua: %s %d joints, clip %s %g fps %.3f s, pose %s", b:format(), #b:skeleton(),
    c:name(), c:rate(), c:duration(), tostring(mixer:pose() ~= nil)))
  local bad, msg = m.model("tests/data/bvh/bad/nan.bvh")
  print("lua bad:", bad, msg)
end
function update(dt) end
function draw() end
LUA
run $MARROW run --headless "$TMP/bvh.lua" --frames 1 --out "$TMP/lua"
expect_match "Lua: marrow.model loads a .bvh and its clip plays" "$OUT" "^lua: bvh 6 joints, clip order_zxy 25 fps 0.080 s, pose true$"
expect_match "Lua: a bad .bvh gives nil, file:line message" "$OUT" "^lua bad:	nil	bvh: tests/data/bvh/bad/nan.bvh:20: expected a number"
summary
