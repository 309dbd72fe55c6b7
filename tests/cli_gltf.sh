# cli_gltf.sh — `marrow info`, `pose` and `view` on glTF files, and the exit
# code and one-line message for every malformed one (tests/data/gltf/bad).
. tests/lib.sh
suite cli_gltf
BL=$SHARED/blender-3.4-gltf

for f in $BL/astroBoy_walk.glb $BL/thinmatrix_model.glb $BL/letter-f-animated.glb $BL/skinnedcube.gltf \
         $BL/magnum_skin.gltf tests/data/gltf/hard.gltf tests/data/gltf/hard.glb; do
    b=$(basename "$f")
    run $MARROW info "$f"
    if [ "$RC" -eq 0 ]; then pass "info $b"; else fail "info $b" "exit $RC" "$ERR"; fi
    expect_match "info $b states glTF's axes" "$OUT" '^frame: Y-up, 1 m per unit; glTF: Y-up metres, \+Z forward$'
done
run $MARROW info $BL/astroBoy_walk.glb
expect_match "info astroBoy names its embedded texture" "$OUT" 'astroBoy_walk.glb#/images/0'
expect_match "info astroBoy reads its embedded texture's size" "$OUT" 'astroBoy_walk.glb#/images/0 \(512x512, embedded\)'
if printf '%s\n' "$OUT" | grep -q 'missing or unreadable'; then
    fail "info astroBoy: no embedded texture called missing" "$(printf '%s\n' "$OUT" | grep 'missing or unreadable' | head -n 2)"
else
    pass "info astroBoy: no embedded texture called missing"
fi
expect_match "info astroBoy lists its walk" "$OUT" 'deformation_rigAction: 25 frames at 24 fps'
expect_match "info astroBoy: the local axis along root's bone, and where its axes point" "$OUT" \
    '^ +1 root: \+Y -> spine01 \(0\.00, 1\.00, 0\.09\), 5 deg off \(first of 2 children\); X \(0\.00, 0\.00, -1\.00\) Y \(0\.00, 1\.00, 0\.00\) Z \(1\.00, 0\.00, 0\.00\)$'
run $MARROW info tests/data/gltf/hard.gltf
expect_match "info lists hard.gltf's morph target and its weights channel" "$OUT" 'morph weights: 1 meshes animated'

# Every malformed file: exit 3 and one line "gltf: FILE: ..." naming the file.
for f in tests/data/gltf/bad/*; do
    b=$(basename "$f")
    run $MARROW info "$f"
    lines=$(printf '%s\n' "$ERR" | grep -c .)
    if [ "$RC" -eq 3 ] && [ "$lines" -eq 1 ] && printf '%s' "$ERR" | grep -q "^gltf: $f: "; then
        pass "info refuses $b with one line naming the file"
    else
        fail "info refuses $b with one line naming the file" "exit $RC, stderr:" "$ERR"
    fi
done
run $MARROW info tests/data/gltf/bad/escape.gltf
expect_match "a ../ uri is refused, not read" "$ERR" "climbs out of the model's folder"

# VRMC_node_constraint: the JSON path of the node at fault
run $MARROW info tests/data/gltf/bad/vrm_constraint_cycle.gltf
expect_match "a constraint cycle names the node and the cycle" "$ERR" "/nodes/0/extensions/VRMC_node_constraint: circular dependency between constraints: rotation 'a' -> aim 'b' -> rotation 'a'"
run $MARROW info tests/data/gltf/bad/vrm_constraint_missing_source.gltf
expect_match "a constraint on a missing node names its source" "$ERR" "/nodes/1/extensions/VRMC_node_constraint/constraint/roll: 'source': index 5 is out of range"
run $MARROW info tests/data/gltf/bad/vrm_constraint_weight.gltf
expect_match "a constraint weight out of 0..1 is named" "$ERR" "/nodes/1/extensions/VRMC_node_constraint/constraint/roll: weight: expected a number in 0..1"

# marrow pose applies a VRM avatar's node constraints (sleeve aims at the
# forearm: its child cuff moves away from the file's placement; the eye,
# under no constraint, stays)
run $MARROW pose tests/data/vrm/constraints.gltf --obj "$TMP/cons.obj"
run $MARROW pose tests/data/vrm/constraints.gltf --bind --obj "$TMP/cons_bind.obj"
moved=$(awk '/^# joint [0-9]+ (cuff|eyeL)$/ { n = $4; getline; print n, $2, $3, $4 }' "$TMP/cons.obj" "$TMP/cons_bind.obj" |
    awk '{ if ($1 in x) { d = ($2 - x[$1]) ^ 2 + ($3 - y[$1]) ^ 2 + ($4 - z[$1]) ^ 2; printf "%s %.6f ", $1, sqrt(d) } else { x[$1] = $2; y[$1] = $3; z[$1] = $4 } }')
case $(echo "$moved" | awk '{ print ($1 == "cuff" && $2 > 0.005 && $4 < 1e-5) ? "yes" : "no" }') in
yes) pass "pose applies the node constraints (moved from the file's placement: $moved)" ;;
*) fail "pose applies the node constraints" "moved: $moved" ;;
esac

run $MARROW info tests/data/vrm/constraints.gltf
expect_match "info counts a VRM avatar's constraints and look-at" "$OUT" "^vrm: 1.0, 7 humanoid bones, 0 expressions \\(0 material binds\\), 0 spring joints in 0 chains, 7 node constraints \\(2 roll, 3 aim, 2 rotation\\), look-at bone$"

# assimp-testmodels' glTF2 folder: every file loads or is refused cleanly (0 or 3).
find /usr/share/assimp/models/glTF2 -name '*.gltf' -o -name '*.glb' | sort >"$TMP/list"
: >"$TMP/unclean"
while read -r f; do
    run $MARROW info "$f"
    if [ "$RC" -ne 0 ] && [ "$RC" -ne 3 ]; then echo "info $f: exit $RC" >>"$TMP/unclean"; fi
done <"$TMP/list"
if [ -s "$TMP/unclean" ]; then fail "info on every assimp glTF2 file exits 0 or 3" "$(cat "$TMP/unclean")"
else pass "info on every assimp glTF2 file exits 0 or 3 ($(grep -c . "$TMP/list") files)"; fi

# pose and view through the same loader
run $MARROW pose $BL/astroBoy_walk.glb --time 0.5 --obj "$TMP/astro.obj"
[ "$RC" -eq 0 ] && [ -s "$TMP/astro.obj" ] && pass "pose astroBoy .glb at 0.5 s" || fail "pose astroBoy .glb" "$ERR"
run $MARROW view $BL/astroBoy_walk.glb --headless --time 0.5 --size 320x240 --out "$TMP/astro.png"
if [ "$RC" -eq 0 ] && [ -s "$TMP/astro.png" ] && ! printf '%s' "$ERR$OUT" | grep -q "checker"; then
    pass "view astroBoy .glb headless, its embedded texture read (no checker)"
else
    fail "view astroBoy .glb headless" "exit $RC" "$ERR"
fi
expect_exit "a .glb with extra anim files is refused (exit 3)" 3 $MARROW info $BL/astroBoy_walk.glb x.md5anim
summary
