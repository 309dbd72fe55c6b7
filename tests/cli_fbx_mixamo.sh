#!/bin/sh
# cli_fbx_mixamo.sh — mixamo.fbx (threejs-mixamo) everywhere a model goes:
#   - `marrow convert mixamo.fbx out.glb` (and with a motion file among the
#     anims) is accepted by the Khronos glTF Validator with no error
#     (tests/tools/gltf_validate.sh; warnings are printed);
#   - a Mixamo motion downloaded "with skin" (the same rig, here mixamo.fbx
#     itself) given as an anim: `marrow pose mixamo.fbx mixamo.fbx` plays
#     it as clip "mixamo" with the very numbers of the file's own clip, and
#     a cached load of the pair gives the same pose as an uncached one;
#   - retargeting onto the mannequin (`marrow convert mixamo.fbx --retarget
#     models/mannequin.md5mesh OUT`): the mannequin plays the motion upright
#     (its height within 10% of its rest height, feet at the floor), with no
#     vertex thrown out (the posed box within 1.5x the rest box), and
#     `marrow view --headless` renders it and mixamo.fbx itself.
# The comparison with Blender's reader is tests/cli_fbx_blender.sh.
. "$(dirname "$0")/lib.sh"
suite cli_fbx_mixamo

MIXAMO=$SHARED/threejs-mixamo/mixamo.fbx
CMP=${TEST_BIN_DIR:-build/release/tests}/tools/obj_compare
if [ ! -f "$MIXAMO" ]; then
    echo "  skip: $MIXAMO is missing"; summary; exit
fi

# marrow's loads share a cache of the suite's own (as a user's loads share
# theirs): the first load of mixamo.fbx, and of the pair, packs the clips,
# the others read the packs back. The pose of an uncached load is compared
# with a cached one below. Most of the suite's time was mixamo.fbx packed
# again for every command (3-7 s each).
MARROW_CACHE=1; MARROW_CACHE_DIR=$TMP/suite-cache; export MARROW_CACHE MARROW_CACHE_DIR

# box OBJ: "minx maxx miny maxy minz maxz" of its vertices
box() { awk '/^v /{for(i=2;i<=4;i++){if(!(i in lo)||$i<lo[i])lo[i]=$i; if(!(i in hi)||$i>hi[i])hi[i]=$i}} END{print lo[2],hi[2],lo[3],hi[3],lo[4],hi[4]}' "$1"; }

# ---- glTF out, through the Khronos validator ------------------------------------------
for what in "mixamo.fbx" "mixamo.fbx with mixamo.fbx as a motion"; do
    if [ "$what" = mixamo.fbx ]; then run $MARROW convert "$MIXAMO" "$TMP/m.glb"
    else run $MARROW convert "$MIXAMO" "$MIXAMO" "$TMP/m.glb"; fi
    if [ "$RC" -ne 0 ]; then fail "convert $what to .glb" "exit $RC: $ERR"; continue; fi
    run sh tests/tools/gltf_validate.sh "$TMP/m.glb"
    if [ "$RC" -eq 0 ]; then pass "the glTF Validator accepts $what as .glb: $(echo "$OUT" | head -1)"
    else fail "the glTF Validator accepts $what as .glb" "exit $RC" "$(echo "$OUT" | head -6)" "$(echo "$ERR" | tail -2)"; fi
    echo "$OUT" | sed -n '2,6s/^/       /p'
done

# ---- a motion "with skin": the same rig's file as an anim --------------------------------
run $MARROW info "$MIXAMO" "$MIXAMO"
expect_match "mixamo.fbx as its own motion: clip 'mixamo' (the file's stem)" "$OUT" "^  mixamo: [0-9]+ frames at 30 fps, 16.83[0-9] s, 54 joints animated"
for t in 0.5 8; do
    run $MARROW pose "$MIXAMO" --clip mixamo.com --time $t --obj "$TMP/own.obj"
    run $MARROW pose "$MIXAMO" "$MIXAMO" --clip mixamo --time $t --obj "$TMP/anim.obj"
    tail -n +2 "$TMP/own.obj" >"$TMP/a"; tail -n +2 "$TMP/anim.obj" >"$TMP/b"
    if [ "$RC" -eq 0 ] && cmp -s "$TMP/a" "$TMP/b"; then pass "the motion at $t s: the same OBJ as the file's own clip"
    else fail "the motion at $t s: the same OBJ as the file's own clip" "exit $RC; $($CMP "$TMP/anim.obj" "$TMP/own.obj" 0)"; fi
done
cache=$TMP/cache
MARROW_CACHE=1 MARROW_CACHE_DIR=$cache $MARROW info "$MIXAMO" "$MIXAMO" >/dev/null 2>&1
run env MARROW_CACHE=1 MARROW_CACHE_DIR=$cache $MARROW info "$MIXAMO" "$MIXAMO"
expect_match "... a second load of the pair comes from the cache" "$OUT" "^cache: loaded from $cache/"
expect_match "... with the motion's clip" "$OUT" "^  mixamo: "
run env MARROW_CACHE=1 MARROW_CACHE_DIR=$cache $MARROW pose "$MIXAMO" "$MIXAMO" --clip mixamo --time 8 --obj "$TMP/cached.obj"
tail -n +2 "$TMP/cached.obj" >"$TMP/c"
run env MARROW_CACHE=0 $MARROW pose "$MIXAMO" "$MIXAMO" --clip mixamo --time 8 --obj "$TMP/uncached.obj"
tail -n +2 "$TMP/uncached.obj" >"$TMP/u"
if [ "$RC" -eq 0 ] && [ -n "$(ls "$cache" 2>/dev/null)" ] && cmp -s "$TMP/u" "$TMP/c"; then pass "... and the cached pair poses as an uncached load does"
else fail "... and the cached pair poses as an uncached load does" "exit $RC, cache folder: $(ls "$cache" 2>/dev/null | head -2)"; fi

# ---- retargeting onto the mannequin ----------------------------------------------------
mkdir -p "$TMP/rt"
run $MARROW convert "$MIXAMO" --retarget models/mannequin.md5mesh "$TMP/rt/mannequin.md5mesh"
if [ "$RC" -ne 0 ]; then
    fail "retarget mixamo.fbx onto the mannequin" "exit $RC: $(echo "$ERR" | tail -3)"
else
    pass "retarget mixamo.fbx onto the mannequin"
    expect_match "... hips, arms and legs are mapped" "$OUT" "pelvis <- mixamorig:Hips"
    run $MARROW pose models/mannequin.md5mesh --obj "$TMP/rest.obj"
    set -- $(box "$TMP/rest.obj"); rest_h=$(awk "BEGIN{print $6 - $5}"); rest_w=$(awk "BEGIN{print $2 - $1}")
    for t in 1 8 16; do
        run $MARROW pose "$TMP/rt/mannequin.md5mesh" "$TMP/rt/mixamo.com.md5anim" --clip mixamo.com --time $t --obj "$TMP/rt.obj"
        if [ "$RC" -ne 0 ]; then fail "the mannequin plays the retargeted motion at $t s" "exit $RC: $ERR"; continue; fi
        set -- $(box "$TMP/rt.obj")
        # MD5: Z is up; the rest box's depth is about its width
        ok=$(awk -v x0="$1" -v x1="$2" -v y0="$3" -v y1="$4" -v z0="$5" -v z1="$6" -v H="$rest_h" -v W="$rest_w" 'BEGIN {
            h = z1 - z0; d = (x1 - x0)^2 + (y1 - y0)^2 + h^2
            print (h > 0.9 * H && h < 1.1 * H && z0 > -0.05 * H && z0 < 0.1 * H && d < 2.25 * (H^2 + 2 * W^2)) ? 1 : 0 }')
        if [ "$ok" = 1 ]; then pass "the mannequin stands upright at $t s, feet at the floor, no vertex thrown out (box $*)"
        else fail "the mannequin stands upright at $t s, feet at the floor, no vertex thrown out" "box $* vs rest height $rest_h"; fi
    done
    run $MARROW view "$TMP/rt/mannequin.md5mesh" "$TMP/rt/mixamo.com.md5anim" --headless --time 8 --size 320x240 --out "$TMP/rt.png"
    if [ "$RC" -eq 0 ] && [ -s "$TMP/rt.png" ]; then pass "marrow view renders the mannequin playing the Mixamo motion"
    else fail "marrow view renders the mannequin playing the Mixamo motion" "exit $RC: $ERR"; fi
fi
run $MARROW view "$MIXAMO" --headless --time 8 --size 320x240 --out "$TMP/mixamo.png"
if [ "$RC" -eq 0 ] && [ -s "$TMP/mixamo.png" ]; then pass "marrow view renders mixamo.fbx at 8 s"
else fail "marrow view renders mixamo.fbx at 8 s" "exit $RC: $ERR"; fi

summary
