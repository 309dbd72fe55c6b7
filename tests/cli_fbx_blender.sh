#!/bin/sh
# cli_fbx_blender.sh — marrow's FBX reader against Blender's, a second,
# independent reader (test-time only: scripts/install-deps.sh --blender
# installs it for this suite, nothing links it):
#   - every case of tests/data/fbx/blender_cases.txt (mixamo.fbx and the
#     other Mixamo-like skinned, animated binary FBX files): `marrow pose
#     FILE --clip STACK --time T --obj` shows the points Blender's importer
#     poses (tests/tools/blender_pose.py, in the file's own coordinates)
#     within 1e-3 of the bounding-box diagonal (tests/tools/obj_compare),
#     at three times each;
#   - a Mixamo motion "without skin", made at test time into $TMP with
#     Blender (tests/tools/blender_motion.py: mixamo.fbx's armature and
#     motion only, its "mixamorig:" namespace dropped, written by Blender's
#     exporter as binary FBX 7400 in metres, with an "Armature" node
#     scaled 0.01 above the bones): `marrow info/pose mixamo.fbx motion.fbx`
#     and marrow.model("mixamo.fbx", {anims = {"motion.fbx"}}) play it as
#     clip "motion", posed as mixamo.fbx's own clip at three times.
# BLENDER_MATCH=REGEX runs only the matching cases.
. "$(dirname "$0")/lib.sh"
suite cli_fbx_blender

CMP=${TEST_BIN_DIR:-build/release/tests}/tools/obj_compare
CASES=tests/data/fbx/blender_cases.txt
MIXAMO=$SHARED/threejs-mixamo/mixamo.fbx

./scripts/install-deps.sh --blender >/dev/null 2>&1
if ! command -v blender >/dev/null 2>&1; then
    fail "blender is installed (scripts/install-deps.sh --blender)"
    summary; exit
fi
BLENDER="blender -b --factory-startup --python-exit-code 1"
# marrow's loads share a cache of the suite's own: a file's first pose loads
# it (and packs its clips), its other times and the runs after read the
# packs back (a cached load plays the same packs, test_cache). Most of the
# suite's time was mixamo.fbx packed again for every pose.
MARROW_CACHE=1; MARROW_CACHE_DIR=$TMP/cache; export MARROW_CACHE MARROW_CACHE_DIR

# ---- poses against Blender's ------------------------------------------------------
# One Blender process poses every case (jobs file), then marrow poses each.
jobs=$TMP/jobs.txt
: >"$jobs"
n=0
while IFS=';' read -r file stack times; do
    case "$file" in \#*|"") continue ;; esac
    if [ -n "${BLENDER_MATCH:-}" ] && ! echo "$file" | grep -Eq -- "$BLENDER_MATCH"; then continue; fi
    case "$file" in /*) path=$file ;; *) path=$SHARED/$file ;; esac
    n=$((n + 1))
    if [ ! -f "$path" ]; then fail "$file is present"; continue; fi
    printf '%s\t%s\t%s\t%s\n' "$path" "$TMP/bl$n." "$stack" "$times" >>"$jobs"
done <"$CASES"
run $BLENDER --python tests/tools/blender_pose.py -- --jobs "$jobs"
[ "$RC" -eq 0 ] || fail "Blender poses every case" "exit $RC: $(echo "$ERR" | grep -v '^$' | tail -3)"

n=0
while IFS=';' read -r file stack times; do
    case "$file" in \#*|"") continue ;; esac
    if [ -n "${BLENDER_MATCH:-}" ] && ! echo "$file" | grep -Eq -- "$BLENDER_MATCH"; then continue; fi
    case "$file" in /*) path=$file ;; *) path=$SHARED/$file ;; esac
    n=$((n + 1))
    [ -f "$path" ] || continue
    i=0
    for t in $times; do
        what="$(basename "$file") \"$stack\" at $t s vs Blender"
        ref=$TMP/bl$n.$i.obj
        i=$((i + 1))
        if [ ! -s "$ref" ]; then fail "$what" "Blender wrote no $ref"; continue; fi
        run $MARROW pose "$path" --clip "$stack" --time "$t" --obj "$TMP/m.obj"
        if [ "$RC" -ne 0 ]; then fail "$what" "marrow pose exit $RC: $(echo "$ERR" | head -2)"; continue; fi
        res=$($CMP "$TMP/m.obj" "$ref" 1e-3); rc=$?
        if [ $rc -eq 0 ]; then pass "$what: $res"; else fail "$what" "$res"; fi
    done
done <"$CASES"

# ---- a motion without skin ---------------------------------------------------------
if [ -f "$MIXAMO" ] && [ -z "${BLENDER_MATCH:-}" ]; then
    MOTION=$TMP/motion.fbx
    run $BLENDER --python tests/tools/blender_motion.py -- "$MIXAMO" "$MOTION" --namespace "" --stack mixamo.com --metres
    if [ "$RC" -ne 0 ] || [ ! -s "$MOTION" ]; then
        fail "Blender exports mixamo.fbx's motion without skin" "exit $RC: $(echo "$ERR" | grep -v '^$' | tail -3)"
    else
        run $MARROW info "$MOTION"
        expect_match "the motion file has no mesh" "$OUT" "^meshes: 0"
        expect_match "... its joints no namespace" "$OUT" "^ +1 +Hips$"
        expect_match "... and its unit is the metre" "$OUT" "^frame: Y-up, 1 m per unit"
        run $MARROW info "$MIXAMO" "$MOTION"
        if [ "$RC" -eq 0 ]; then pass "marrow info mixamo.fbx motion.fbx"; else fail "marrow info mixamo.fbx motion.fbx" "exit $RC: $ERR"; fi
        expect_match "... the motion is clip 'motion', 65 joints animated" "$OUT" "^  motion: [0-9]+ frames at 30 fps, 16.83[0-9] s, 65 joints animated"
        for t in 0.5 8 16.5; do
            what="the motion at $t s poses mixamo.fbx as its own clip mixamo.com"
            run $MARROW pose "$MIXAMO" --clip mixamo.com --time "$t" --obj "$TMP/own.obj"
            run $MARROW pose "$MIXAMO" "$MOTION" --clip motion --time "$t" --obj "$TMP/motion.obj"
            if [ "$RC" -ne 0 ]; then fail "$what" "marrow pose exit $RC: $ERR"; continue; fi
            # two clips, each packed within 1e-4 of the size of its keys
            res=$($CMP "$TMP/motion.obj" "$TMP/own.obj" 2e-4); rc=$?
            if [ $rc -eq 0 ]; then pass "$what: $res"; else fail "$what" "$res"; fi
        done
        cat >"$TMP/anims.lua" <<EOF
local m = require "marrow"
function load()
  local x = assert(m.model("$(realpath "$MIXAMO")", {anims = {"$MOTION"}}))
  local c = assert(x:clip("motion"), "no clip 'motion'")
  print(string.format("motion %.3f s, %d clips", c:duration(), #x:clips()))
end
EOF
        run $MARROW run --headless "$TMP/anims.lua" --frames 1 --out "$TMP/run"
        expect_match "marrow.model(\"mixamo.fbx\", {anims = {\"motion.fbx\"}}) has the clip" "$OUT" "^motion 16.833 s, 3 clips$"
    fi
fi

summary
