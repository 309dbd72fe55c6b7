#!/bin/sh
# cli_reference.sh — `marrow pose` against an independent skinning reference.
#
# The reference is tests/tools/assimp_pose (built by `make test`): assimp's
# readers, every influence of every vertex, assimp's key interpolation (see the
# tool's header). For every skinned or animated COLLADA and MD5 file of
# ../shared/models and /usr/share/assimp/models, this suite compares
#   - the rest pose (marrow pose with no clip, or --rest): the nearest-vertex
#     distance either way,
#   - each clip at its first, middle and last key and at two times between
#     keys (1/3 into the first segment, halfway through the middle one),
# and prints the worst distance in percent of the rest-pose bounding-box
# diagonal (marrow's rest pose). The limit is 0.1 %.
#
# Frames: marrow reads COLLADA into Y-up metres and says in `marrow info` what
# it converted ("COLLADA Z_UP, unit 0.01 m"); the tool drops the transform
# assimp puts on the scene root (its own up-axis and unit conventions) and
# applies the conversion that `info` names, explicitly. MD5 stays in its own
# frame on both sides (assimp's MD5 root rotation is the dropped transform).
#
# Vertex correspondence: by REST position within 1e-4 of the diagonal, ties
# broken by rest normal and uv (tests/tools/compare_poses.c says how and why
# not the bind pose: assimp keeps COLLADA's bind shape matrix in its offset
# matrices). A posed comparison with unmatched vertices fails.
#
# Each model's expectation is a row of the table below, so it can be tightened
# when other work lands:
#   ok        every comparison within 0.1 %;
#   xfail:E   expected to differ, for the reason given; E (percent) is the
#             bound measured today: worse than E fails, within 0.1 % is reported
#             as "now agrees: tighten the table".
# times: all = keys and between keys; keys = keys only (assimp is wrong
# between them, reason given); rest = no clip compared (reason given);
# noref = assimp cannot read the file (checked: the suite says when it can).
. "$(dirname "$0")/lib.sh"
suite cli_reference
# marrow's loads share a cache of the suite's own (as in cli_fbx_blender): a
# file's first pose loads it and packs its clips, its other times read the
# packs back (a cached load plays the same packs: test_cache). CMU 01_03,
# posed at five times, was packed five times.
MARROW_CACHE=1; MARROW_CACHE_DIR=$TMP/cache; export MARROW_CACHE MARROW_CACHE_DIR

TOOLS=${TEST_BIN_DIR:-build/release/tests}/tools
REF=$TOOLS/assimp_pose
CMP=$TOOLS/compare_poses
LIMIT=0.1
AM=/usr/share/assimp/models
if [ ! -x "$REF" ]; then
    fail "reference tool $REF is built" "run make test (it builds tests/tools/assimp_pose)"
    summary; exit 1
fi

# The table: model | animation file stems | times | rest | clips | reason.
# rest and clips are the expectations (ok or xfail:E) of the rest pose and of
# every clip. A model path starts at $SHARED unless it is absolute.
# Issue 10 items: 3 = sparse keys drift (nlerp between keys far apart in
# angle, where assimp slerps), 4 = more than 4 influences.
TABLE=$(cat <<'EOF'
assimp/test/models/Collada/box_nested_animation.dae||all|ok|ok|
assimp/test/models/Collada/library_animation_clips.dae||noref|ok|ok|assimp 5.2.5 refuses it: Cannot parse string "  0.0 0.0 0.0 1.0  " as a real number (spaces around <bind_shape_matrix> numbers)
lab101-bonesAssimpTest/bin/data/astroBoy_walk.dae||keys|ok|ok|BEZIER channels: assimp plays them linearly between keys (marrow follows the curves)
magnum-plugins/src/MagnumPlugins/AssimpImporter/Test/exported-animation.dae||all|ok|ok|
magnum-plugins/src/MagnumPlugins/AssimpImporter/Test/skin-multiple-sets.dae||rest|xfail:3.0|ok|12 equal influences per vertex: marrow keeps 8 (the cut, 2.85%), assimp all 12
magnum-plugins/src/MagnumPlugins/AssimpImporter/Test/skin.dae||rest|ok|ok|no animation
npm-collada-dae-parser-0.14.0/test/fixture/letter-f-animated.dae||all|ok|ok|90-degree keys: clips refine wide rotation intervals so sampling stays within 1e-4 of slerp
npm-collada-dae-parser-0.14.0/test/fixture/parent-child-child-letter-f.dae||all|ok|ok|
npm-collada-dae-parser-0.14.0/test/fixture/two-skinned-cubes.dae||all|ok|ok|
npm-collada-dae-parser-0.14.0/test/non-deformation-control-bones/leg-with-control-bones.dae||all|ok|ok|
slproject/data/models/DAE/SkinnedCube/skinnedcube.dae||all|ok|ok|keys far apart in angle: refined as above
thinmatrix-opengl-animation/Resources/res/model.dae||all|ok|ok|25 vertices with 5-6 influences, all kept (up to 8)
/usr/share/assimp/models/Collada/anims_with_full_rotations_between_keys.DAE||all|ok|ok|
assimp/test/models-nonbsd/MD5/Bob.md5mesh|Bob|all|ok|ok|
assimp/test/models/MD5/SimpleCube.md5mesh||rest|ok|ok|no animation
tomatenquark-essential/packages/models/snoutx10k/snoutx10k.md5mesh|backward idle forward jump pain dying shotgun_shoot|all|ok|ok|
blender-3.4-gltf/astroBoy_walk.glb||all|ok|ok|
blender-3.4-gltf/letter-f-animated.glb||all|ok|ok|
blender-3.4-gltf/magnum_skin.gltf||rest|ok|ok|no animation
blender-3.4-gltf/skinnedcube.gltf||all|ok|ok|
blender-3.4-gltf/thinmatrix_model.glb||all|ok|ok|
/usr/share/assimp/models/glTF2/simple_skin/simple_skin.gltf||all|ok|ok|
EOF
)

# frame_args MODEL: the tool's --up/--unit for the conversion `marrow info` names.
frame_args() {
    note=$($MARROW info "$1" 2>/dev/null | sed -n 's/^frame: .*COLLADA \([XYZ]\)_UP, unit \([0-9.eE+-]*\) m.*/\1 \2/p')
    [ -n "$note" ] && set -- $note && echo "--up $1 --unit $2"
}

# pct_of "worst W% ..." -> W
pct_of() { echo "$1" | sed -n 's/^worst \([0-9.]*\)%.*/\1/p'; }
rest_of() { echo "$1" | sed -n 's/.* rest \([0-9.]*\)% .*/\1/p'; }
unmatched_of() { echo "$1" | sed -n 's/.* unmatched \([0-9]*\) .*/\1/p'; }
# gt A B: A > B as decimals
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

# judge NAME WORST EXPECT REASON DETAIL (sh has no locals: j_ names)
judge() {
    j_name=$1; j_w=$2; j_expect=$3; j_reason=$4; j_detail=$5
    case $j_expect in
    ok)
        if [ -n "$j_w" ] && ! gt "$j_w" "$LIMIT"; then pass "$j_name: $j_w%"
        else fail "$j_name: ${j_w:-?}% (limit $LIMIT%)" "$j_detail" ${j_reason:+"$j_reason"}; fi ;;
    xfail:*)
        j_bound=${j_expect#xfail:}
        if [ -z "$j_w" ] || gt "$j_w" "$j_bound"; then
            fail "$j_name: ${j_w:-?}%, worse than the $j_bound% expected ($j_reason)" "$j_detail"
        elif gt "$j_w" "$LIMIT"; then pass "$j_name: $j_w% (expected to differ: $j_reason)"
        else pass "$j_name: $j_w%, now agrees: tighten the table (was xfail: $j_reason)"; fi ;;
    esac
}

# times_of KEYS... -> first, middle, last key and two times between keys
times_of() {
    echo "$@" | awk '{ n = NF; m = int((n + 1) / 2);
        printf "%s %s %s", $1, $m, $n;
        if (n > 1) printf " %.9g", $1 + ($2 - $1) / 3;
        if (m < n) printf " %.9g", $m + ($(m + 1) - $m) / 2;
        printf "\n" }'
}

# keys_only KEYS... -> first, middle and last key
keys_only() { echo "$@" | awk '{ m = int((NF + 1) / 2); print $1, $m, $NF }'; }

SUMMARY=""
note_row() { SUMMARY="$SUMMARY$(printf '  %-44s %-16s %8s%%  %s' "$1" "$2" "$3" "$4")
"; }

echo "$TABLE" >"$TMP/table"
while IFS='|' read -r model anims times rexpect expect reason; do
    [ -z "$model" ] && continue
    case $model in /*) path=$model ;; *) path=$SHARED/$model ;; esac
    short=$(basename "$path")
    if [ ! -f "$path" ]; then fail "$short: model present" "$path is missing"; continue; fi
    dir=$(dirname "$path")
    fargs=$(frame_args "$path")

    # rest pose: `pose` with no clip for a model without clips, --rest otherwise
    restflag=--rest
    [ "$times" = rest ] || [ "$times" = noref ] && restflag=
    run $MARROW pose "$path" $restflag --obj "$TMP/rest.obj"
    if [ "$RC" -ne 0 ]; then fail "$short: marrow pose $restflag" "$ERR"; continue; fi
    if ! $REF "$path" --rest $fargs -o "$TMP/a.txt" 2>"$TMP/referr" </dev/null; then
        if [ "$times" = noref ]; then pass "$short: assimp cannot read it ($reason)"
        else fail "$short: assimp_pose reads it" "$(cat "$TMP/referr")"; fi
        note_row "$short" "-" "-" "no reference: $reason"
        continue
    fi
    [ "$times" = noref ] && fail "$short: assimp reads it now: compare it (table says noref)"
    res=$($CMP match "$TMP/rest.obj" "$TMP/rest.obj" "$TMP/a.txt")
    judge "$short rest pose (pose ${restflag:-with no clip})" "$(rest_of "$res")" "$rexpect" "$reason" "$res"
    note_row "$short" "rest" "$(rest_of "$res")" "$rexpect"
    [ "$times" = rest ] && continue

    # clips: MD5 animation files by stem; COLLADA: the model's first clip
    if [ -n "$anims" ]; then set -- $anims; else set -- ""; fi
    for a in "$@"; do
        if [ -n "$a" ]; then
            afile=$dir/$a.md5anim; mextra=$afile; aextra="--anim-file $afile"; clip=$a
        else
            mextra=; aextra=
            clip=$($MARROW info "$path" | sed -n '/^clips:/,/^[a-z]/s/^  \([^ :][^:]*\): .*/\1/p' | head -n 1)
        fi
        keys=$($REF "$path" $aextra --list 2>/dev/null </dev/null | head -n 1 | sed 's/.* keys //')
        if [ -z "$keys" ]; then fail "$short $clip: assimp reads an animation"; continue; fi
        if [ "$times" = keys ]; then ts=$(keys_only $keys); else ts=$(times_of $keys); fi
        k=0; pairs=""; broken=""
        for t in $ts; do
            k=$((k + 1))
            run $MARROW pose "$path" $mextra --clip "$clip" --time "$t" --obj "$TMP/m$k.obj"
            [ "$RC" -ne 0 ] && broken="marrow pose --time $t: $ERR"
            $REF "$path" $aextra --time "$t" $fargs -o "$TMP/a$k.txt" 2>/dev/null </dev/null || broken="assimp_pose --time $t failed"
            pairs="$pairs $TMP/m$k.obj $TMP/a$k.txt"
        done
        if [ -n "$broken" ]; then fail "$short clip $clip" "$broken"; continue; fi
        worst=0; detail=""
        lines=$($CMP match "$TMP/rest.obj" $pairs)
        k=0
        for t in $ts; do
            k=$((k + 1))
            res=$(echo "$lines" | sed -n "${k}p")
            echo "       $short $clip t=$t: $res"
            w=$(pct_of "$res")
            if [ -z "$w" ]; then worst=; detail="t=$t: $res"; break; fi
            [ "$(unmatched_of "$res")" = 0 ] || { worst=; detail="t=$t: unmatched vertices: $res"; break; }
            if gt "$w" "$worst"; then worst=$w; detail="t=$t: $res"; fi
        done
        judge "$short clip $clip ($times)" "$worst" "$expect" "$reason" "$detail"
        note_row "$short" "$clip" "$worst" "$expect"
    done
done <"$TMP/table"
# ---- BVH: joint positions (models without meshes) ------------------------------
# assimp reads BVH into a node tree whose root is the ROOT joint, and adds a
# mesh of its own built from the skeleton; marrow has no mesh, and `marrow
# pose` writes the joints. So joints are compared by name (assimp_pose
# --joints, compare_poses joints): rest pose, then the first, middle and
# last key and two times between keys; the worst distance in percent of the
# rest pose's joint bounds diagonal, same limit. Both keep the file's numbers
# (marrow assumes a unit for display only), so no frame arguments.
# Rows: file | expectation (ok or xfail:E) | reason.
BVH_TABLE=$(cat <<'EOF2'
/usr/share/assimp/models/BVH/01_01.bvh|ok|
/usr/share/assimp/models/BVH/01_03.bvh|ok|
/usr/share/assimp/models/BVH/Boxing_Toes.bvh|ok|one frame line more than Frames: both read Frames
EOF2
)
echo "$BVH_TABLE" >"$TMP/bvhtable"
while IFS='|' read -r path expect reason; do
    [ -z "$path" ] && continue
    short=$(basename "$path")
    if [ ! -f "$path" ]; then fail "$short: model present" "$path is missing (assimp-testmodels)"; continue; fi
    run $MARROW pose "$path" --rest --obj "$TMP/rest.obj"
    if [ "$RC" -ne 0 ]; then fail "$short: marrow pose --rest" "$ERR"; continue; fi
    $REF "$path" --joints --rest -o "$TMP/a0.txt" 2>/dev/null </dev/null
    # relative to the root: marrow rests a BVH root at frame 0, assimp at OFFSET
    res=$($CMP joints-rooted "$TMP/rest.obj" "$TMP/rest.obj" "$TMP/a0.txt")
    judge "$short rest pose joints" "$(pct_of "$res")" "$expect" "$reason" "$res"
    keys=$($REF "$path" --list 2>/dev/null </dev/null | head -n 1 | sed 's/.* keys //')
    if [ -z "$keys" ]; then fail "$short: assimp reads an animation"; continue; fi
    clip=$(basename "$path" .bvh)
    k=0; pairs=""; broken=""
    for t in $(times_of $keys); do
        k=$((k + 1))
        run $MARROW pose "$path" --clip "$clip" --time "$t" --obj "$TMP/m$k.obj"
        [ "$RC" -ne 0 ] && broken="marrow pose --time $t: $ERR"
        $REF "$path" --joints --time "$t" -o "$TMP/a$k.txt" 2>/dev/null </dev/null || broken="assimp_pose --joints --time $t failed"
        pairs="$pairs $TMP/m$k.obj $TMP/a$k.txt"
    done
    if [ -n "$broken" ]; then fail "$short clip $clip" "$broken"; continue; fi
    worst=0; detail=""
    lines=$($CMP joints "$TMP/rest.obj" $pairs)
    k=0
    for t in $(times_of $keys); do
        k=$((k + 1))
        res=$(echo "$lines" | sed -n "${k}p")
        echo "       $short $clip t=$t: $res"
        w=$(pct_of "$res")
        if [ -z "$w" ]; then worst=; detail="t=$t: $res"; break; fi
        [ "$(unmatched_of "$res")" = 0 ] || { worst=; detail="t=$t: unmatched joints: $res"; break; }
        if gt "$w" "$worst"; then worst=$w; detail="t=$t: $res"; fi
    done
    judge "$short clip $clip joints (all)" "$worst" "$expect" "$reason" "$detail"
    note_row "$short" "$clip" "$worst" "$expect"
done <"$TMP/bvhtable"
# ---- glTF twins: gltfpack-quantized and meshopt-compressed copies ---------------
# gltfpack (Debian) rewrites each glTF file of the table three ways: -noq (its
# scene and animation processing only: nodes folded, constant tracks dropped,
# keys resampled; -af 24 keeps the 24 Hz keys of these files), default
# (KHR_mesh_quantization: 14-bit positions, 12-bit rotations) and -c
# (EXT_meshopt_compression on top). The processing alone moves letter-f by
# 0.11 % (gltfpack, not quantization: the -noq twin moves the same), and assimp
# 5.2.5 misreads gltfpack's output and quantized data, so the reference for a
# quantized or compressed twin is marrow's pose of the -noq twin (marrow's plain
# glTF reading is the table's subject above): rest pose and first, middle and
# last key, compared as vertex sets (gltfpack merges vertices), within the
# quantization step (0.1 %). The compressed twin must pose like the quantized
# one (meshopt is lossless after quantization): within 0.001 %.
echo "  glTF twins (gltfpack): quantized and compressed against the unquantized twin:"
pts() { $CMP points "$1" "$2" | sed -n 's/^worst \([0-9.]*\)%.*/\1/p'; }
if ! command -v gltfpack >/dev/null 2>&1; then
    fail "gltfpack is installed (scripts/install-deps.sh)"
else
    for model in blender-3.4-gltf/astroBoy_walk.glb blender-3.4-gltf/letter-f-animated.glb \
                 blender-3.4-gltf/magnum_skin.gltf blender-3.4-gltf/skinnedcube.gltf \
                 blender-3.4-gltf/thinmatrix_model.glb /usr/share/assimp/models/glTF2/simple_skin/simple_skin.gltf; do
        case $model in /*) path=$model ;; *) path=$SHARED/$model ;; esac
        short=$(basename "$path")
        ok=1
        for variant in n q c; do
            case $variant in n) flag=-noq ;; q) flag= ;; c) flag=-c ;; esac
            gltfpack -i "$path" -o "$TMP/twin.$variant.glb" -kn -af 24 $flag >/dev/null 2>&1 || ok=0
        done
        if [ $ok = 0 ]; then fail "$short: gltfpack makes the twins"; continue; fi
        clip=$($MARROW info "$TMP/twin.n.glb" | sed -n '/^clips:/,/^[a-z]/s/^  \([^ :][^:]*\): .*/\1/p' | head -n 1)
        keys=$($REF "$path" --list 2>/dev/null </dev/null | head -n 1 | sed 's/.* keys //')
        wq=0; wc=0; where=rest
        for t in rest $( [ -n "$clip" ] && [ -n "$keys" ] && keys_only $keys); do
            if [ $t = rest ]; then args=--rest; else args="--clip $clip --time $t"; fi
            for v in n q c; do run $MARROW pose "$TMP/twin.$v.glb" $args --obj "$TMP/t$v.obj"; done
            dq=$(pts "$TMP/tn.obj" "$TMP/tq.obj"); dc=$(pts "$TMP/tq.obj" "$TMP/tc.obj")
            if [ -z "$dq" ] || [ -z "$dc" ]; then wq=; where=$t; break; fi
            if gt "$dq" "$wq"; then wq=$dq; where=$t; fi
            gt "$dc" "$wc" && wc=$dc
        done
        if [ -n "$wq" ] && ! gt "$wq" "$LIMIT"; then pass "$short quantized twin: $wq% (worst at $where)"
        else fail "$short quantized twin: ${wq:-?}% at $where (limit $LIMIT%)"; fi
        if [ -n "$wq" ] && ! gt "$wc" 0.001; then pass "$short meshopt-compressed twin poses like the quantized one: $wc%"
        else fail "$short meshopt-compressed twin: ${wc:-?}% from the quantized one (limit 0.001%)"; fi
    done
fi

# ---- pose modes (issue 10 item 6) ----------------------------------------------
# pct A.obj B.obj: symmetric nearest-vertex distance, % of A's diagonal
pct() { $CMP points "$1" "$2" | sed -n 's/^worst \([0-9.]*\)%.*/\1/p'; }
CTS=$SHARED/khronos-collada-cts/StandardDataSets/collada/library_controllers/controller/skin
S2=$CTS/skin_2_influence/skin_2_influence.dae
run $MARROW pose "$S2" --obj "$TMP/none.obj"
expect_match "pose with no clip says it wrote the rest pose" "$OUT" "\(rest pose\)"
$MARROW pose "$S2" --rest --obj "$TMP/rest.obj" >/dev/null
$MARROW pose "$S2" --bind --obj "$TMP/bind.obj" >/dev/null
d=$(pct "$TMP/rest.obj" "$TMP/none.obj")
if [ "$d" = 0.0000 ]; then pass "pose with no clip on a model without clips is --rest"
else fail "pose with no clip on a model without clips is --rest" "$d% apart"; fi
d=$(pct "$TMP/rest.obj" "$TMP/bind.obj")
if gt "$d" 1; then pass "COLLADA: --rest (scene node transforms) differs from --bind: $d%"
else fail "COLLADA: --rest differs from --bind" "only $d% apart"; fi
BOB=$SHARED/assimp/test/models-nonbsd/MD5
$MARROW pose $BOB/Bob.md5mesh $BOB/Bob.md5anim --rest --obj "$TMP/rest.obj" >/dev/null
$MARROW pose $BOB/Bob.md5mesh $BOB/Bob.md5anim --bind --obj "$TMP/bind.obj" >/dev/null
$MARROW pose $BOB/Bob.md5mesh $BOB/Bob.md5anim --time 0 --obj "$TMP/clip.obj" >/dev/null
$MARROW pose $BOB/Bob.md5mesh $BOB/Bob.md5anim --obj "$TMP/none.obj" >/dev/null
d=$(pct "$TMP/rest.obj" "$TMP/bind.obj")
if ! gt "$d" 0.001; then pass "MD5: --rest equals --bind ($d%)"
else fail "MD5: --rest equals --bind" "$d% apart"; fi
d=$(pct "$TMP/rest.obj" "$TMP/clip.obj")
if gt "$d" 1; then pass "pose --time without --clip samples the first clip ($d% from rest)"
else fail "pose --time without --clip samples the first clip" "only $d% from rest"; fi
d=$(pct "$TMP/rest.obj" "$TMP/none.obj")
if [ "$d" = 0.0000 ]; then pass "pose with neither --clip nor --time on an animated model is the rest pose"
else fail "pose with neither --clip nor --time on an animated model is the rest pose" "$d% apart"; fi
expect_exit "pose --bind with --clip is a usage error" 2 $MARROW pose $BOB/Bob.md5mesh $BOB/Bob.md5anim --clip Bob --bind --obj "$TMP/x.obj"
expect_exit "pose --rest with --bind is a usage error" 2 $MARROW pose "$S2" --rest --bind --obj "$TMP/x.obj"
run $MARROW pose --help
expect_match "pose --help names --rest and --bind" "$OUT" "--rest \| --bind"

# ---- Khronos CTS skins against their pre-deformed references, through the CLI ----
# The pairs of tests/test_collada.c (cts_skins_match_their_deformed_references,
# which checks the same through the C API within 0.1 %): each skin posed with
# no clip (its rest pose: the scene's node transforms), each reference
# likewise, compared as vertex sets (symmetric nearest-vertex distance, % of
# the reference's diagonal). skin_4_influence needs 5 influences (4 joints and
# the bind-shape remainder): expected to differ until item 4 lands, bounded by
# the measured amount.
echo "  CTS skins through marrow pose (% of the reference's diagonal):"
while read -r ref skin tol; do
    [ -z "$ref" ] && continue
    $MARROW pose "$CTS/$ref" --obj "$TMP/ref.obj" >/dev/null 2>&1
    $MARROW pose "$CTS/$skin" --obj "$TMP/skin.obj" >/dev/null 2>&1
    d=$(pct "$TMP/ref.obj" "$TMP/skin.obj")
    name="pose $(basename "$skin") matches $(basename "$ref")"
    case $tol in
    xfail:*)
        if [ -n "$d" ] && ! gt "$d" "${tol#xfail:}"; then
            if gt "$d" "$LIMIT"; then pass "$name: $d% (expected to differ: 5 influences, item 4)"
            else pass "$name: $d%, now agrees: tighten the table"; fi
        else fail "$name: ${d:-?}% (expected at most ${tol#xfail:}%)"; fi ;;
    *)
        if [ -n "$d" ] && ! gt "$d" "$tol"; then pass "$name: $d%"
        else fail "$name: ${d:-?}% (limit $tol%)"; fi ;;
    esac
done <<'EOF'
_reference/_reference_1_influence/_reference_1_influence.dae skin_1_influence/skin_1_influence.dae 0.1
_reference/_reference_1_influence/_reference_1_influence.dae bind_shape_matrix/non_identity/non_identity.dae 0.1
_reference/_reference_1_influence/_reference_1_influence.dae ../../../../1_5/collada/library_controllers/controller/skin/bind_shape_matrix/non_identity/non_identity.dae 0.1
_reference/_reference_2_influence/_reference_2_influence.dae skin_2_influence/skin_2_influence.dae 0.1
reference_2_influence/reference_2_influence.dae skin_2_influence/skin_2_influence.dae 0.1
reference_2_influence/reference_2_influence.dae skin_joints/skin_joints.dae 0.1
reference_2_influence/reference_2_influence.dae skin_vertex_weights/skin_vertex_weights.dae 0.1
reference_2_influence/reference_2_influence.dae skin_multi_weight_source/skin_multi_weight_source.dae 0.1
_reference/_reference_long_tube/_reference_long_tube.dae skin_long_tube/skin_long_tube.dae 0.1
reference_long_tube/reference_long_tube.dae skin_long_tube/skin_long_tube.dae 0.1
_reference/_reference_4_influence/_reference_4_influence.dae skin_4_influence/skin_4_influence.dae 0.1
EOF

echo "  worst error per file and clip (% of the rest-pose bounding-box diagonal):"
printf '%s' "$SUMMARY"
echo "  reasons:"
sed -n 's/^\([^|]*\)|[^|]*|[^|]*|[^|]*|[^|]*|\(..*\)$/    \1: \2/p' "$TMP/table"
sed -n 's/^\([^|]*\)|[^|]*|\(..*\)$/    \1: \2/p' "$TMP/bvhtable"
summary
