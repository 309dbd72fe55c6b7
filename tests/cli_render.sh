# cli_render.sh — `marrow view` headless and in a window (Xvfb): arguments
# and exit codes, PNG output (size, determinism, sequences), the automatic
# headless fallback, the real models, and the window path drawing the same
# pixels as the headless one. Picture content is checked in test_gfx.c.
. tests/lib.sh
suite cli_render
BOB=$SHARED/assimp/test/models-nonbsd/MD5
SNOUT=$SHARED/tomatenquark-essential/packages/models/snoutx10k
MAN="models/mannequin.md5mesh models/walk.md5anim models/idle.md5anim"

# png_size FILE: prints "WxH" from the IHDR chunk ("" when not a PNG).
png_size() {
    sig=$(od -An -tx1 -N8 "$1" 2>/dev/null | tr -d ' \n')
    [ "$sig" = "89504e470d0a1a0a" ] || { echo ""; return; }
    set -- $(od -An -tu1 -j16 -N8 "$1")
    echo "$(( ($1 << 24) | ($2 << 16) | ($3 << 8) | $4 ))x$(( ($5 << 24) | ($6 << 16) | ($7 << 8) | $8 ))"
}

# --- arguments and exit codes -------------------------------------------------
run $MARROW view --help
[ "$RC" -eq 0 ] && printf '%s' "$OUT" | grep -q -- '--headless' && printf '%s' "$OUT" | grep -q 'F12' \
    && pass "view --help documents --headless and the keys" || fail "view --help" "exit $RC"
expect_exit "view without a model is a usage error" 2 $MARROW view
expect_exit "view --frames without --out is a usage error" 2 $MARROW view $MAN --headless --frames 3
expect_exit "view --follow runs (the camera travels with the root joint)" 0 $MARROW view $MAN models/walk.md5anim \
    --headless --follow --frames 2 --out "$TMP/follow"
expect_exit "view --size 0x10 is a usage error" 2 $MARROW view $MAN --headless --size 0x10 --out "$TMP/x.png"
expect_exit "view --size with junk is a usage error" 2 $MARROW view $MAN --headless --size 64x48px --out "$TMP/x.png"
expect_exit "view --fps 0 is a usage error" 2 $MARROW view $MAN --headless --frames 2 --fps 0 --out "$TMP/d"
expect_exit "view --time nan is a usage error" 2 $MARROW view $MAN --headless --time nan --out "$TMP/x.png"
expect_exit "view unknown option is a usage error" 2 $MARROW view $MAN --bogus
expect_exit "view a missing model is bad input" 3 $MARROW view /nonexistent/x.md5mesh --headless --out "$TMP/x.png"
expect_exit "view a malformed model is bad input" 3 $MARROW view \
    $SHARED/assimp/test/models/MD5/invalid/OverflowingVertexIndex.md5mesh --headless --out "$TMP/x.png"
run $MARROW view $MAN --clip nosuchclip --headless --out "$TMP/x.png"
[ "$RC" -eq 3 ] && printf '%s' "$ERR" | grep -q "no clip 'nosuchclip' (clips: walk idle)" \
    && pass "view --clip unknown names the clips, exit 3" || fail "view --clip unknown" "exit $RC" "$ERR"
[ ! -e "$TMP/x.png" ] && pass "failed runs write no image" || fail "failed runs write no image"

# --- one headless image ---------------------------------------------------------
run $MARROW view $MAN --headless --time 0.4 --size 320x240 --out "$TMP/a.png"
[ "$RC" -eq 0 ] && [ "$(png_size "$TMP/a.png")" = "320x240" ] \
    && pass "headless frame is a 320x240 PNG" || fail "headless frame is a 320x240 PNG" "exit $RC, size $(png_size "$TMP/a.png")" "$ERR"
expect_match "the written path is printed" "$OUT" "a\.png$"
run $MARROW view $MAN --headless --time 0.4 --size 320x240 --out "$TMP/b.png"
cmp -s "$TMP/a.png" "$TMP/b.png" && pass "two runs write identical bytes" || fail "two runs write identical bytes"
run $MARROW view $MAN --headless --time 0.7 --size 320x240 --out "$TMP/c.png"
cmp -s "$TMP/a.png" "$TMP/c.png" && fail "another time gives another picture" || pass "another time gives another picture"
run $MARROW view $MAN --headless --time 0.4 --size 320x240 --skeleton --wireframe --no-hud --out "$TMP/d.png"
[ "$RC" -eq 0 ] && ! cmp -s "$TMP/a.png" "$TMP/d.png" && pass "--skeleton --wireframe --no-hud change the picture" \
    || fail "--skeleton --wireframe --no-hud change the picture" "exit $RC"
run $MARROW view $MAN --headless --time 0.4 --size 64x48 --out "$TMP/sub/dir/e.png"
[ "$RC" -eq 0 ] && [ "$(png_size "$TMP/sub/dir/e.png")" = "64x48" ] \
    && pass "--out creates missing directories" || fail "--out creates missing directories" "exit $RC" "$ERR"
run $MARROW view $MAN --headless --out /proc/nope/x.png
[ "$RC" -eq 1 ] && [ -n "$ERR" ] && pass "an unwritable --out fails with a message" || fail "unwritable --out" "exit $RC" "$ERR"

# --- automatic headless -------------------------------------------------------------
run env -u DISPLAY -u WAYLAND_DISPLAY $MARROW view $MAN --time 0.4 --size 320x240 --out "$TMP/auto.png"
n=$(printf '%s\n' "$ERR" | grep -c "rendering headless")
[ "$RC" -eq 0 ] && [ "$n" -eq 1 ] && printf '%s' "$ERR" | grep -q "no display" \
    && pass "no display: headless, said once on stderr" || fail "no display: headless, said once" "exit $RC" "$ERR"
cmp -s "$TMP/a.png" "$TMP/auto.png" && pass "automatic headless draws the same frame" || fail "automatic headless draws the same frame"
run env -u WAYLAND_DISPLAY DISPLAY=:7777 $MARROW view $MAN --time 0.4 --size 320x240 --out "$TMP/auto2.png"
[ "$RC" -eq 0 ] && printf '%s' "$ERR" | grep -q "cannot start GLFW.*rendering headless" && cmp -s "$TMP/a.png" "$TMP/auto2.png" \
    && pass "unreachable display: GLFW fails, headless, same frame" || fail "unreachable display falls back" "exit $RC" "$ERR"
ROOT=$(pwd)
case $MARROW in /*) EXE=$MARROW ;; *) EXE=$ROOT/$MARROW ;; esac
mkdir -p "$TMP/cwd"   # not $TMP itself: lib.sh keeps stdout in $TMP/out
( cd "$TMP/cwd" && env -u DISPLAY -u WAYLAND_DISPLAY "$EXE" view "$ROOT/models/mannequin.md5mesh" --size 64x48 >"$TMP/nd.out" 2>&1 )
[ -f "$TMP/cwd/out/view.png" ] && pass "no display and no --out: out/view.png" || fail "no display and no --out: out/view.png" "$(cat "$TMP/nd.out")"

# --- a sequence ---------------------------------------------------------------------
run $MARROW view $MAN --headless --frames 3 --fps 10 --time 0.2 --size 160x120 --out "$TMP/seq"
[ "$RC" -eq 0 ] && [ -f "$TMP/seq/frame_0000.png" ] && [ -f "$TMP/seq/frame_0002.png" ] && [ ! -e "$TMP/seq/frame_0003.png" ] \
    && pass "--frames 3 writes frame_0000..0002" || fail "--frames 3 writes frame_0000..0002" "exit $RC" "$ERR"
expect_match "the sequence reports its frames" "$ERR" "3 frames at 10 fps"
cmp -s "$TMP/seq/frame_0000.png" "$TMP/seq/frame_0001.png" && fail "consecutive frames differ" || pass "consecutive frames differ"
run $MARROW view $MAN --headless --time 0.3 --size 160x120 --out "$TMP/single.png"
run $MARROW view $MAN --headless --frames 2 --fps 10 --time 0.2 --size 160x120 --out "$TMP/seq2"
# Sequence frame 1 (t = 0.2 + 1/10) equals a single frame at t = 0.3, apart from the HUD's frame number.
run $MARROW view $MAN --headless --time 0.3 --size 160x120 --no-hud --out "$TMP/single_nohud.png"
run $MARROW view $MAN --headless --frames 2 --fps 10 --time 0.2 --size 160x120 --no-hud --out "$TMP/seq3"
cmp -s "$TMP/single_nohud.png" "$TMP/seq3/frame_0001.png" && pass "frame i of a sequence is at time + i/fps" \
    || fail "frame i of a sequence is at time + i/fps"

# --- the real models ------------------------------------------------------------------
if [ -f "$BOB/Bob.md5mesh" ]; then
    run $MARROW view $BOB/Bob.md5mesh $BOB/Bob.md5anim --headless --time 1 --size 320x240 --out "$TMP/bob.png"
    [ "$RC" -eq 0 ] && [ "$(png_size "$TMP/bob.png")" = "320x240" ] && [ -z "$ERR" ] \
        && pass "Bob renders without warnings" || fail "Bob renders without warnings" "exit $RC" "$ERR"
    run $MARROW view $SNOUT/snoutx10k.md5mesh $SNOUT/idle.md5anim $SNOUT/forward.md5anim --clip forward \
        --headless --time 0.5 --size 320x240 --out "$TMP/snout.png"
    [ "$RC" -eq 0 ] && [ "$(png_size "$TMP/snout.png")" = "320x240" ] \
        && pass "snoutx10k forward renders" || fail "snoutx10k forward renders" "exit $RC" "$ERR"
else
    echo "  skip real models: $BOB not found"
fi

# --- the window path (Xvfb) -------------------------------------------------------------
if command -v xvfb-run >/dev/null 2>&1; then
    run xvfb-run -a $MARROW view $MAN --time 0.4 --size 320x240 --skeleton --out "$TMP/win.png"
    [ "$RC" -eq 0 ] && pass "Xvfb: view --out in a window exits 0" || fail "Xvfb: view --out in a window exits 0" "exit $RC" "$(printf '%s' "$ERR" | head -5)"
    run $MARROW view $MAN --headless --time 0.4 --size 320x240 --skeleton --out "$TMP/head.png"
    if [ -f "$TMP/win.png" ] && cmp -s "$TMP/win.png" "$TMP/head.png"; then
        pass "a window under Xvfb writes the same screenshot as headless"
    else
        fail "a window under Xvfb writes the same screenshot as headless" "exit $RC"
    fi
    run xvfb-run -a $MARROW view $MAN --quit-after 5 --size 320x240
    [ "$RC" -eq 0 ] && pass "Xvfb: the interactive window runs 5 frames and quits" \
        || fail "Xvfb: the interactive window runs 5 frames and quits" "exit $RC" "$ERR"
    run xvfb-run -a $MARROW view $MAN --time 0.4 --size 320x240 --out "$TMP/win2.png"
    printf '%s' "$ERR" | grep -q "rendering headless" && fail "Xvfb: a real window opens" "$ERR" \
        || pass "Xvfb: a real window opens (no headless fallback)"
    if [ -x "${TEST_BIN_DIR:-build/release/tests}/test_gfx" ]; then
        run xvfb-run -a "${TEST_BIN_DIR:-build/release/tests}/test_gfx"
        printf '%s\n' "$OUT" | grep -q "ok   window_shows_the_same_pixels_as_headless" \
            && printf '%s\n' "$OUT" | grep -q "gfx: [0-9]* passed, 0 failed" \
            && pass "test_gfx under Xvfb: window pixels equal headless" \
            || fail "test_gfx under Xvfb" "$(printf '%s\n' "$OUT" | grep -A3 FAIL | head -8)"
    fi
else
    echo "  skip window tests: xvfb-run is not installed (Debian package xvfb)"
fi

summary
