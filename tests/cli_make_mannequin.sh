#!/bin/sh
# cli_make_mannequin.sh — `make-mannequin DIR` (tools/mannequin, built by
# make into build/*/tools/make-mannequin): regenerating the
# mannequin reproduces the committed models/ files byte for byte, and the
# command's usage errors and exit codes.
set -u
: "${MAKE_MANNEQUIN:=build/release/tools/make-mannequin}"
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "  ok   $1"; }
bad() { fail=$((fail + 1)); echo "  FAIL $1"; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# Writes into a new nested directory and reproduces the committed bytes.
if "$MAKE_MANNEQUIN" "$tmp/a/b" >"$tmp/out" 2>&1; then ok "make-mannequin exits 0"
else bad "make-mannequin exits 0: $(cat "$tmp/out")"; fi
for f in mannequin.md5mesh idle.md5anim walk.md5anim wave.md5anim run.md5anim walk_inplace.md5anim \
         run_inplace.md5anim mannequin_body.png mannequin_shoes.png \
         sword.md5mesh sword_blade.png sword_hilt.png; do
    if cmp -s "models/$f" "$tmp/a/b/$f"; then ok "regenerated $f equals models/$f"
    else bad "regenerated $f equals models/$f (run 'make models' and commit)"; fi
done
if grep -q "wrote $tmp/a/b/mannequin.md5mesh (22 joints" "$tmp/out" &&
   grep -q "wrote $tmp/a/b/sword.md5mesh (1 joints" "$tmp/out" &&
   grep -q "wrote $tmp/a/b/run.md5anim (run, 22 frames at 30 fps, 0.7 s)" "$tmp/out"; then ok "reports what it wrote"
else bad "reports what it wrote: $(cat "$tmp/out")"; fi
# A second run into the same directory replaces the files with the same bytes.
"$MAKE_MANNEQUIN" "$tmp/a/b" >/dev/null 2>&1
if cmp -s "models/walk.md5anim" "$tmp/a/b/walk.md5anim"; then ok "second run gives the same bytes"
else bad "second run gives the same bytes"; fi

# Usage.
"$MAKE_MANNEQUIN" --help >"$tmp/out" 2>&1
if [ $? -eq 0 ] && grep -q "usage: make-mannequin DIR" "$tmp/out"; then ok "--help"
else bad "--help"; fi
"$MAKE_MANNEQUIN" >"$tmp/out" 2>&1
if [ $? -eq 2 ] && grep -q "missing DIR" "$tmp/out"; then ok "no DIR is a usage error (2)"
else bad "no DIR is a usage error (2)"; fi
"$MAKE_MANNEQUIN" "$tmp/x" "$tmp/y" >"$tmp/out" 2>&1
if [ $? -eq 2 ]; then ok "two DIRs is a usage error (2)"; else bad "two DIRs is a usage error (2)"; fi
"$MAKE_MANNEQUIN" --frames >"$tmp/out" 2>&1
if [ $? -eq 2 ] && grep -q "unknown option" "$tmp/out"; then ok "unknown option is a usage error (2)"
else bad "unknown option is a usage error (2)"; fi

# DIR that is a file: one line naming it, exit 1.
: >"$tmp/file"
"$MAKE_MANNEQUIN" "$tmp/file" >"$tmp/out" 2>&1
status=$?
if [ $status -eq 1 ] && grep -q "cannot create directory $tmp/file" "$tmp/out" && [ "$(wc -l <"$tmp/out")" -eq 1 ]
then ok "DIR that is a file fails with one line (1)"
else bad "DIR that is a file fails with one line (1): status $status, $(cat "$tmp/out")"; fi

echo "cli_make_mannequin: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
