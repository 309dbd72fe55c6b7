# cli_md5.sh — `marrow info` and `marrow pose` on real and malformed MD5 files.
. tests/lib.sh
suite cli_md5
BOB=$SHARED/assimp/test/models-nonbsd/MD5
SNOUT=$SHARED/tomatenquark-essential/packages/models/snoutx10k

expect_exit "marrow with no arguments is a usage error" 2 $MARROW
expect_exit "marrow --help" 0 $MARROW --help
expect_exit "unknown command is a usage error" 2 $MARROW frobnicate
expect_exit "info --help" 0 $MARROW info --help
expect_exit "info without a model is a usage error" 2 $MARROW info
expect_exit "info on a missing file is bad input" 3 $MARROW info /nonexistent/x.md5mesh

run $MARROW info $BOB/Bob.md5mesh $BOB/Bob.md5anim
[ "$RC" -eq 0 ] && pass "info Bob" || fail "info Bob" "exit $RC" "$ERR"
expect_match "info Bob lists 33 joints" "$OUT" '^joints: 33$'
expect_match "info Bob lists 6 meshes" "$OUT" '^meshes: 6 '
expect_match "info Bob clip: 140 frames at 24 fps" "$OUT" 'Bob: 140 frames at 24 fps'
expect_match "info Bob clip runtime: bytes, per joint per second, ratio, error below 1e-4 of the size" "$OUT" \
    '^    runtime: [0-9]+ bytes, [0-9.]+ bytes per joint per second, [0-9.]+:1 against raw poses, largest error [0-9.]+(e-0[5-9]|e-[1-9][0-9]) of the size$'
expect_match "info Bob: the default runtime is packed (more than 4:1 against raw poses)" "$OUT" \
    '^    runtime: [0-9]+ bytes, [0-9.]+ bytes per joint per second, ([4-9]|[1-9][0-9]+)\.[0-9]+:1 against raw poses, largest error [0-9.]+(e-0[5-9]|e-[1-9][0-9]) of the size$'
expect_match "info Bob: what the clip holds" "$OUT" '^    held: [0-9]+ bytes$'
expect_match "info Bob texture resolution" "$OUT" 'guard1_body.png \([0-9]+x[0-9]+\)'
expect_match "info Bob states the frame" "$OUT" '^frame: Z-up'
expect_match "info Bob: upperarm.L's bone runs along its local +Y (Blender's bones)" "$OUT" \
    '^ +8 upperarm\.L: \+Y -> forearm\.L \(-1\.00, -0\.03, 0\.00\), 0 deg off; X \(-0\.03, 1\.00, 0\.00\) Y \(-1\.00, -0\.03, 0\.00\) Z \(0\.00, 0\.00, 1\.00\)$'
expect_match "info Bob: a joint without children is an end joint" "$OUT" '^ +2 sword: end joint; X '

# Every malformed file: exit 3 and one line naming the file and a line number.
for f in $SHARED/assimp/test/models/MD5/invalid/*.md5mesh $SHARED/assimp/test/models/invalid/empty.md5mesh; do
    b=$(basename "$f")
    run $MARROW info "$f"
    lines=$(printf '%s\n' "$ERR" | grep -c .)
    if [ "$RC" -eq 3 ] && [ "$lines" -eq 1 ] && printf '%s' "$ERR" | grep -Eq "^md5: .*$b:[0-9]+: "; then
        pass "info refuses $b with one located line"
    else
        fail "info refuses $b with one located line" "exit $RC, stderr:" "$ERR"
    fi
done

# Every MD5 file among the shared models loads or fails cleanly (0 or 3).
find $SHARED -name '*.md5mesh' | sort | while read -r f; do
    run $MARROW info "$f"
    if [ "$RC" -ne 0 ] && [ "$RC" -ne 3 ]; then echo "info $f: exit $RC" >>"$TMP/unclean"; fi
done
[ -s "$TMP/unclean" ] && fail "info on every shared .md5mesh exits 0 or 3" "$(cat "$TMP/unclean")" \
                      || pass "info on every shared .md5mesh exits 0 or 3"

# An anim whose hierarchy does not match the mesh is refused, naming a joint.
run $MARROW info $BOB/Bob.md5mesh $SNOUT/forward.md5anim
[ "$RC" -eq 3 ] && pass "mismatched anim refused" || fail "mismatched anim refused" "exit $RC"
expect_match "mismatched anim names a joint" "$ERR" "joint"

# pose: OBJ with one v per vertex, deterministic, differing over time.
run $MARROW pose $BOB/Bob.md5mesh $BOB/Bob.md5anim --clip Bob --time 1.5 --obj "$TMP/a.obj"
[ "$RC" -eq 0 ] && pass "pose Bob writes an OBJ" || fail "pose Bob writes an OBJ" "exit $RC" "$ERR"
nv=$(grep -c '^v ' "$TMP/a.obj"); nf=$(grep -c '^f ' "$TMP/a.obj")
[ "$nv" -eq 875 ] && [ "$nf" -eq 1027 ] && pass "pose Bob: 875 v, 1027 f" || fail "pose Bob: 875 v, 1027 f" "got $nv v, $nf f"
run $MARROW pose $BOB/Bob.md5mesh $BOB/Bob.md5anim --clip Bob --time 1.5 --obj "$TMP/b.obj"
cmp -s "$TMP/a.obj" "$TMP/b.obj" && pass "pose is deterministic" || fail "pose is deterministic"
run $MARROW pose $BOB/Bob.md5mesh $BOB/Bob.md5anim --clip Bob --time 3 --obj "$TMP/c.obj"
cmp -s "$TMP/a.obj" "$TMP/c.obj" && fail "pose at another time differs" || pass "pose at another time differs"
expect_exit "pose with an unknown clip" 3 $MARROW pose $BOB/Bob.md5mesh $BOB/Bob.md5anim --clip nope --obj "$TMP/x.obj"
expect_exit "pose with a bad --time" 2 $MARROW pose $BOB/Bob.md5mesh --time soon --obj "$TMP/x.obj"
expect_exit "pose without --obj" 2 $MARROW pose $BOB/Bob.md5mesh
expect_exit "pose with an unknown option" 2 $MARROW pose $BOB/Bob.md5mesh --frobnicate --obj "$TMP/x.obj"
expect_exit "pose --help" 0 $MARROW pose --help

# The demo model of our own.
run $MARROW info models/mannequin.md5mesh models/idle.md5anim models/walk.md5anim models/wave.md5anim
[ "$RC" -eq 0 ] && pass "info mannequin with its three clips" || fail "info mannequin with its three clips" "exit $RC" "$ERR"

# The model cache (formats/cache.h) in a folder of the test's own: info
# says where the load came from, and why a damaged file was rejected.
cached_info() { run env MARROW_CACHE=1 MARROW_CACHE_DIR="$TMP/cache" $MARROW info models/mannequin.md5mesh; }
cached_info
expect_match "info writes the cache file" "$OUT" '^cache: written to .*/cache/marrow-[0-9a-f]{16}\.mrc '
cached_info
expect_match "info loads from the cache file" "$OUT" '^cache: loaded from '
for f in "$TMP"/cache/*.mrc; do head -c 1000 "$f" >"$TMP/cut" && cat "$TMP/cut" >"$f"; done
cached_info
expect_match "info names a truncated cache file and rewrites it" "$OUT" \
    '^cache: rewritten .*\.mrc, the file there was rejected \(truncated: 1000 bytes, its header says [0-9]+\)$'
cached_info
expect_match "info loads from the rewritten file" "$OUT" '^cache: loaded from '

summary
