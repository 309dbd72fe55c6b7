# cli_bench.sh — what `marrow bench` prints about ozz-animation: only what a
# run measured. It runs BIN_DIR/bench/ozz_compare (built by `make bench-ozz`)
# beside the executable when that exists, else prints how to build it; no
# recorded figure of an earlier run remains. A copy of marrow in a layout of
# the suite's own (shaders/ and scripts/ linked in, so it finds its data)
# gets a stand-in program that prints its arguments. No timing is checked.
. tests/lib.sh
suite cli_bench

ROOT=$TMP/root
mkdir -p "$ROOT/build/release"
ln -s "$(pwd)/shaders" "$ROOT/shaders"
ln -s "$(pwd)/scripts" "$ROOT/scripts"
cp "$(readlink -f "$MARROW")" "$ROOT/build/release/marrow"
M=$ROOT/build/release/marrow

# Without the program: one line on how to build it, and no recorded figure.
run $M bench --quick --models "$SHARED"
[ "$RC" -eq 0 ] && pass "bench --quick without ozz_compare exits 0" || fail "bench --quick exits 0" "exit $RC" "$ERR"
expect_match "without ozz_compare, the ozz section says how to build it" "$OUT" \
    '^== marrow beside ozz-animation 0\.16: not built; `make bench-ozz OZZ_SRC=DIR`'
if printf '%s\n' "$OUT" | grep -Eqi 'recorded|issue 18|5\.2\.5'; then
    fail "no recorded figures of earlier runs" "$(printf '%s\n' "$OUT" | grep -Ei 'recorded|issue 18|5\.2\.5' | head -3)"
else pass "no recorded figures of earlier runs"; fi
# assimp's ratio is measured live, for MD5 too where assimp reads the same
# two files (Bob's md5anim has the md5mesh's name: assimp loads it along).
if ldconfig -p 2>/dev/null | grep -q 'libassimp\.so'; then
    expect_match "Bob's MD5 load is timed against assimp in this run" "$OUT" \
        '^  Bob +md5mesh \+ md5anim .* assimp +[0-9.]+ ms  marrow/assimp [0-9.]+x$'
else pass "(libassimp not installed: no assimp ratio to check)"; fi
expect_match "the IK section times a 10-joint FABRIK chain against local-to-model" "$OUT" \
    '^  chain-10 FABRIK cold +[0-9.]+ us \( *[0-9.]+x local-to-model\)'
expect_match "the IK section times the mannequin's five-goal body solve" "$OUT" \
    '^  body-5 mannequin +[0-9.]+ us \( *[0-9.]+x local-to-model\)'
expect_match "the ozz section is the last one" "$(printf '%s\n' "$OUT" | grep '^==' | tail -n 1)" \
    '^== marrow beside ozz-animation'

# With the program: it runs, given the models folder (and --quick when asked).
mkdir -p "$ROOT/build/release/bench"
cat >"$ROOT/build/release/bench/ozz_compare" <<'EOF'
#!/bin/sh
echo "stand-in ozz_compare: $*"
exit "${STAND_IN_RC:-0}"
EOF
chmod +x "$ROOT/build/release/bench/ozz_compare"
touch -d '@0' "$M"   # the program is the newer of the two: no note
run $M bench --only ozz --models /some/models
[ "$RC" -eq 0 ] && pass "bench --only ozz exits 0" || fail "bench --only ozz exits 0" "exit $RC" "$ERR"
expect_match "bench runs ozz_compare with the models folder" "$OUT" '^stand-in ozz_compare: --models /some/models$'
run $M bench --only ozz --quick --models /some/models
expect_match "bench --quick runs it with --quick" "$OUT" '^stand-in ozz_compare: --models /some/models --quick$'
if printf '%s\n' "$OUT" | grep -q 'older than this marrow'; then fail "no note while the program is newer" "$OUT"
else pass "no note while the program is newer"; fi

# A program older than the executable measures an older marrow: said so.
touch "$M"
touch -d '@0' "$ROOT/build/release/bench/ozz_compare"
run $M bench --only ozz
expect_match "an older ozz_compare is pointed out" "$OUT" 'ozz_compare is older than this marrow'
expect_match "... and still runs" "$OUT" '^stand-in ozz_compare: --models'

# Its failure is reported, and bench still exits 0 (the other sections ran).
run env STAND_IN_RC=3 $M bench --only ozz
expect_match "a failing ozz_compare is reported with its exit status" "$OUT" 'ozz_compare failed \(exit 3\)$'

expect_exit "bench --only with an unknown section is a usage error" 2 $M bench --only nothing
expect_match "... which lists ozz among the sections" "$ERR" 'load, pose, choreo, ik, springs, render, lua, reload, ozz'

summary
