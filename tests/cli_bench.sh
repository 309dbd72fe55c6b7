# cli_bench.sh — what `marrow bench` prints: only what a run measured (no
# recorded figure of an earlier run), assimp's ratio measured live, and the
# clip library section (the CMU takes of assimp-testmodels: bytes per joint
# per second, ratio against raw poses, error, load times; snoutx10k's
# default clip). A copy of marrow in a layout of the suite's own (shaders/
# and scripts/ linked in, so it finds its data) runs it. No timing is
# checked, only that each figure is printed.
. tests/lib.sh
suite cli_bench

ROOT=$TMP/root
mkdir -p "$ROOT/build/release"
ln -s "$(pwd)/shaders" "$ROOT/shaders"
ln -s "$(pwd)/scripts" "$ROOT/scripts"
cp "$(readlink -f "$MARROW")" "$ROOT/build/release/marrow"
M=$ROOT/build/release/marrow

run $M bench --quick --models "$SHARED"
[ "$RC" -eq 0 ] && pass "bench --quick exits 0" || fail "bench --quick exits 0" "exit $RC" "$ERR"
if printf '%s\n' "$OUT" | grep -Eqi 'recorded|issue 18|5\.2\.5|ozz'; then
    fail "no recorded figures of earlier runs, no ozz" "$(printf '%s\n' "$OUT" | grep -Ei 'recorded|issue 18|5\.2\.5|ozz' | head -3)"
else pass "no recorded figures of earlier runs, no ozz"; fi
# assimp's ratio is measured live, for MD5 too where assimp reads the same
# two files (Bob's md5anim has the md5mesh's name: assimp loads it along).
if ldconfig -p 2>/dev/null | grep -q 'libassimp\.so'; then
    expect_match "Bob's MD5 load is timed against assimp in this run" "$OUT" \
        '^  Bob +md5mesh \+ md5anim .* assimp +[0-9.]+ ms  marrow/assimp [0-9.]+x$'
    # mixamo.fbx: against Triangulate alone and against the same work as
    # marrow's load (corners welded, influences limited)
    if [ -f "$SHARED/threejs-mixamo/mixamo.fbx" ]; then
        expect_match "mixamo.fbx's load is timed against assimp in this run" "$OUT" \
            '^  mixamo\.fbx +FBX binary .* assimp +[0-9.]+ ms  marrow/assimp [0-9.]+x$'
        expect_match "... and against assimp doing the same work (welded, weights limited)" "$OUT" \
            '^  mixamo\.fbx +same work as marrow.s load +assimp +[0-9.]+ ms  marrow/assimp [0-9.]+x$'
    fi
else pass "(libassimp not installed: no assimp ratio to check)"; fi
expect_match "the IK section times a 10-joint FABRIK chain against local-to-model" "$OUT" \
    '^  chain-10 FABRIK cold +[0-9.]+ us \( *[0-9.]+x local-to-model\)'
expect_match "the IK section times the mannequin's five-goal body solve" "$OUT" \
    '^  body-5 mannequin +[0-9.]+ us \( *[0-9.]+x local-to-model\)'
expect_match "the springs section names its workload, mode, frame rate, the shared constants and the machine's load" "$OUT" \
    '^== springs: 100 characters x 5 chains of 8 joints \([0-9] side by side, their constants held once for 200 springs\), 3 colliders, 60 fps .* load average [0-9.-]+ on [0-9]+ CPUs$'
expect_match "the springs section times the fixed step: CPU, wall, ratio to local-to-model" "$OUT" \
    '^  fixed step \(120 Hz, 2 steps a frame\) +[0-9.]+ ms CPU +[0-9.]+ ms wall +[0-9.]+x local-to-model$'
expect_match "the springs section times the frame step: CPU, wall, ratio to local-to-model" "$OUT" \
    '^  frame step \(VRM, 1 step a frame\) +[0-9.]+ ms CPU +[0-9.]+ ms wall +[0-9.]+x local-to-model$'
expect_match "the clip library section is the last one" "$(printf '%s\n' "$OUT" | grep '^==' | tail -n 1)" \
    '^== clip library: '

# The clip library section of the whole run above (it packs the CMU takes:
# about 13 s of CPU, which a second run, --only clips, paid again).
if [ -f /usr/share/assimp/models/BVH/01_03.bvh ]; then
    expect_match "each take: bytes, bytes per joint per second, ratio, error" "$OUT" \
        '^  01_03\.bvh +38 joints +[0-9.]+ s +[0-9]+ bytes +[0-9.]+ B/joint/s +[0-9.]+:1  error [0-9.e-]+ of the size$'
    expect_match "each take: first load, pack and cached load times" "$OUT" \
        '^ +load +[0-9.]+ ms cpu +[0-9.]+ ms wall, pack +[0-9.]+ ms more, cached load +[0-9.]+ ms'
    expect_match "the library's totals" "$OUT" \
        '^  library of 3 takes: [0-9]+ bytes, [0-9.]+ bytes per joint per second, [0-9.]+:1 against raw poses, largest error'
else fail "assimp-testmodels is installed" "scripts/install-deps.sh installs it"; fi
expect_match "snoutx10k's default clip: bytes and ns per joint" "$OUT" \
    '^  snoutx10k forward \(75 joints\): default runtime [0-9]+ bytes, .* [0-9.]+ ns per joint'

run $M bench --only lua --quick --models "$SHARED"
[ "$RC" -eq 0 ] && pass "bench --only lua exits 0" || fail "bench --only lua exits 0" "exit $RC" "$ERR"
heads=$(printf '%s\n' "$OUT" | grep '^==')
if [ -n "$heads" ] && ! printf '%s\n' "$heads" | grep -qv '^== Lua '; then pass "... and prints the Lua sections alone"
else fail "... and prints the Lua sections alone" "$(printf '%s\n' "$heads" | cut -c1-60)"; fi
expect_exit "bench --only with an unknown section is a usage error" 2 $M bench --only nothing
expect_match "... which lists clips among the sections" "$ERR" 'load, pose, choreo, ik, springs, render, lua, reload, clips'
expect_exit "bench --only ozz is gone" 2 $M bench --only ozz

summary
