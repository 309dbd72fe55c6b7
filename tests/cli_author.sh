#!/bin/sh
# cli_author.sh — `marrow run --record OUT` (cli/run_record.h) and the files
# marrow.save writes, read by marrow and by assimp:
#   - a choreography (tests/data/author/choreo.lua: mixer crossfade, head
#     override, IK, a travelling and turning draw transform) recorded to
#     .glb, .gltf, .dae, .md5mesh (+ .md5anim) and .bvh; each file loaded
#     back poses every joint where it was drawn (root motion included)
#     within 0.01 % of the model size, at every drawn frame;
#   - the printed error is within the tolerance and names the file;
#   - two models drawn: two files (OUT, STEM-2.EXT);
#   - the .bvh read by assimp (tests/tools/assimp_pose --joints) agrees with
#     marrow's reading of it within 0.01 % at keys and between keys, and so
#     does every skinned vertex of the .glb;
#   - a bad --record extension is a usage error (exit 2), before running.
. "$(dirname "$0")/lib.sh"
suite cli_author

REF=${TEST_BIN_DIR:-build/release/tests}/tools/assimp_pose
CMP=${TEST_BIN_DIR:-build/release/tests}/tools/compare_poses
S=tests/data/author

for ext in glb gltf dae md5mesh bvh; do
    [ -f "$TMP/r/rec.glb" ] && cp "$TMP/r/rec.glb" "$TMP/rec.glb"   # kept for assimp below
    rm -rf "$TMP/r"; mkdir -p "$TMP/r"
    run $MARROW run --headless $S/choreo.lua --frames 50 --out "$TMP/r" --record "$TMP/r/rec.$ext" -- live.txt
    if [ "$RC" -ne 0 ]; then fail "--record rec.$ext runs" "exit $RC" "$(echo "$ERR" | head -3)"; continue; fi
    expect_match "--record .$ext prints frames, kept keys, the measured error and the file" "$OUT" \
        "^recorded models/mannequin.md5mesh \(draw 1\): 50 frames, [0-9]+ of [0-9]+ keys kept, error [0-9.e-]+ inch \(measured at [0-9]+ times, tolerance [0-9.e-]+ inch\) -> .*rec.$ext$"
    err=$(echo "$OUT" | sed -n 's/.* error \([0-9.e-]*\) .*tolerance \([0-9.e-]*\) inch).*/\1 \2/p')
    echo "$err" | awk '{ exit !($1 <= $2) }' && pass "--record .$ext: error $err within the tolerance" \
        || fail "--record .$ext: error within the tolerance" "$err"
    anim=""; [ "$ext" = md5mesh ] && anim=choreo
    run $MARROW run --headless $S/check.lua --frames 1 --out "$TMP/r" -- "$TMP/r/rec.$ext" "$TMP/r/live.txt" $anim
    res=$(echo "$OUT" | grep '^worst')
    if [ -n "$res" ] && echo "$res" | awk '{ exit !($2 <= 1e-4 * $4 && $6 == 50) }'; then
        pass "rec.$ext loaded back poses every joint as drawn within 0.01 %: $res"
    else
        fail "rec.$ext loaded back within 0.01 % of the model size at 50 frames" "$res" "$(echo "$ERR" | head -3)"
    fi
done

# The .bvh through assimp: joints at keys and a third of the way between.
if [ -x "$REF" ] && [ -f "$TMP/r/rec.bvh" ]; then
    f="$TMP/r/rec.bvh"
    $MARROW pose "$f" --rest --obj "$TMP/rest.obj" >/dev/null
    pairs=""; k=0
    for t in 0 0.0111 0.1 0.2333 0.4 0.5556 0.7 0.8167; do
        k=$((k + 1))
        $MARROW pose "$f" --clip rec --time "$t" --obj "$TMP/m$k.obj" >/dev/null
        $REF "$f" --joints --time "$t" -o "$TMP/a$k.txt" 2>/dev/null </dev/null
        pairs="$pairs $TMP/m$k.obj $TMP/a$k.txt"
    done
    res=$($CMP joints "$TMP/rest.obj" $pairs)
    bad=$(echo "$res" | awk '{ w = $2; sub("%", "", w); if (w + 0 > 0.01 || $10 != 0) print }')
    if [ -n "$res" ] && [ -z "$bad" ]; then pass "the written .bvh: assimp and marrow agree within 0.01 % at $k times"
    else fail "the written .bvh: assimp and marrow agree within 0.01 %" "$res"; fi
else
    fail "assimp_pose is built ($REF) and rec.bvh was written" "make $REF"
fi

# The .glb through assimp: every skinned vertex, keys and between keys.
if [ -x "$REF" ] && [ -f "$TMP/rec.glb" ]; then
    f="$TMP/rec.glb"
    $MARROW pose "$f" --rest --obj "$TMP/grest.obj" >/dev/null
    pairs=""; k=0
    for t in 0 0.0111 0.1 0.2333 0.4 0.5556 0.7 0.8167; do
        k=$((k + 1))
        $MARROW pose "$f" --clip choreo --time "$t" --obj "$TMP/gm$k.obj" >/dev/null
        $REF "$f" --anim 0 --time "$t" -o "$TMP/ga$k.txt" 2>/dev/null </dev/null
        pairs="$pairs $TMP/gm$k.obj $TMP/ga$k.txt"
    done
    res=$($CMP match "$TMP/grest.obj" $pairs)
    bad=$(echo "$res" | awk '{ w = $2; sub("%", "", w); if (w + 0 > 0.01 || $10 != 0) print }')
    if [ -n "$res" ] && [ -z "$bad" ]; then pass "the recorded .glb: assimp and marrow skin it alike within 0.01 % at $k times"
    else fail "the recorded .glb: assimp and marrow agree within 0.01 %" "$res"; fi
fi

# Two models drawn: one file each.
rm -rf "$TMP/two"; mkdir -p "$TMP/two"
run $MARROW run --headless examples/two_characters.lua --frames 20 --out "$TMP/two" --record "$TMP/two/pair.glb"
[ "$RC" -eq 0 ] && [ -f "$TMP/two/pair.glb" ] && [ -f "$TMP/two/pair-2.glb" ] \
    && pass "two drawn models: pair.glb and pair-2.glb" || fail "two drawn models: two files" "exit $RC" "$(ls "$TMP/two")"

expect_exit "--record with an unknown extension is a usage error" 2 \
    $MARROW run --headless $S/choreo.lua --frames 2 --out "$TMP" --record "$TMP/x.txt" -- live.txt
expect_match "... naming the extensions" "$ERR" "--record .*x.txt: unknown extension"
# ---- marrow plot: a clip's curves as a PNG ------------------------------------------
expect_exit "plot of the walk's upper arm writes a PNG" 0 \
    $MARROW plot models/mannequin.md5mesh models/walk.md5anim --joint upperarm_l --out "$TMP/plot/arm.png"
[ "$(head -c 4 "$TMP/plot/arm.png" 2>/dev/null | od -An -c | tr -d ' ')" = "211PNG" ] \
    && pass "... and it is a PNG" || fail "... and it is a PNG"
expect_exit "plot of a recorded clip, the first by default" 0 $MARROW plot "$TMP/rec.glb" --joint spine_02 --out "$TMP/plot/rec.png"
expect_exit "plot of an unknown joint fails as a script error" 4 \
    $MARROW plot models/mannequin.md5mesh models/walk.md5anim --joint nope --out "$TMP/plot/x.png"
expect_match "... naming the joint" "$ERR" "unknown joint 'nope'"
expect_exit "plot of an unknown clip fails naming the clips" 4 $MARROW plot models/mannequin.glb --clip nope --out "$TMP/plot/y.png"
expect_match "... listing the model's clips" "$ERR" "no clip 'nope' in .*clips: 'idle', 'walk'"
expect_exit "plot without a model is a usage error" 2 $MARROW plot --joint head
summary
