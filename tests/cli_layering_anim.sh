#!/bin/sh
# cli_layering_anim.sh — the floors inside src/anim (docs/CONVENTIONS.md,
# "Floors inside src/anim"), checked in one pass:
#   - the table is read from the doc (every `stem` of a row goes to the
#     floor its first cell numbers); every .c and .h of src/anim must be in it;
#   - every `#include "anim/X.h"` in src/anim goes to X's floor or below;
#   - every call between files of src/anim (one `nm -A` over their objects:
#     undefined symbols against the file that defines them) goes to the
#     callee's floor or below, and the calls form no cycle (a depth-first
#     search in the same awk).
# Objects come from $OBJ_DIR/anim (default: build/release/src/anim, next to
# $TEST_BIN_DIR); the call checks are skipped, and said so, when not built.
. tests/lib.sh
suite cli_layering_anim
: "${TEST_BIN_DIR:=build/release/tests}"
: "${OBJ_DIR:=$(dirname "$TEST_BIN_DIR")/src}"
DOC=docs/CONVENTIONS.md

# "stem floor" per table row stem
floors=$(awk '
    /^## / { inside = ($0 ~ /^## Floors inside src\/anim/) }
    inside && /^\| *[0-9]+ / {
        split($0, cell, "|"); f = cell[2]; sub(/^ */, "", f); sub(/ .*/, "", f)
        rest = cell[3]
        while (match(rest, /`[a-z_0-9]+`/)) { print substr(rest, RSTART + 1, RLENGTH - 2), f; rest = substr(rest, RSTART + RLENGTH) }
    }' "$DOC")
if [ "$(printf '%s\n' "$floors" | grep -c .)" -ge 20 ] && printf '%s\n' "$floors" | grep -qx "mixer 5" \
    && printf '%s\n' "$floors" | grep -qx "skeleton 1"; then
    pass "$DOC's floor table reads ($(printf '%s\n' "$floors" | grep -c .) files on $(printf '%s\n' "$floors" | awk '{print $2}' | sort -u | grep -c .) floors)"
else
    fail "$DOC's floor table did not parse" "$floors"
fi

# One awk over: the table, the list of files, the includes, and (when built)
# the objects' defined and undefined symbols.
{
    printf '%s\n' "$floors" | sed 's/^/F /'
    for f in src/anim/*.c src/anim/*.h; do printf 'S %s\n' "$(basename "$f" | sed 's/\.[ch]$//')"; done
    grep -o '#include "anim/[a-z_0-9]*\.h"' src/anim/*.c src/anim/*.h |
        sed 's|^src/anim/\([a-z_0-9]*\)\.[ch]:#include "anim/\([a-z_0-9]*\)\.h"$|I \1 \2|'
    if ls "$OBJ_DIR"/anim/*.o >/dev/null 2>&1; then
        echo "BUILT"
        nm -A "$OBJ_DIR"/anim/*.o 2>/dev/null | awk '{ split($1, a, ":"); n = split(a[1], p, "/"); o = p[n]; sub(/\.o$/, "", o)
            if ($2 == "T") print "D", o, $3; else if ($(NF-1) == "U") print "U", o, $NF }'
    fi
} | awk '
    $1 == "F" { floor[$2] = $3; next }
    $1 == "S" { if (!($2 in seen)) { seen[$2] = 1; files[++nf] = $2 }; next }
    $1 == "I" { if ($2 != $3) inc[++ni] = $2 " " $3; next }
    $1 == "BUILT" { built = 1; next }
    $1 == "D" { def[$3] = $2; next }
    $1 == "U" { use[++nu] = $2 " " $3; next }
    END {
        for (i = 1; i <= nf; i++) if (!(files[i] in floor)) { print "FAIL src/anim/" files[i] ".[ch] is on no floor of the table"; bad++ }
        if (!bad) print "ok   every file of src/anim (" nf ") is on a floor"
        b = 0
        for (i = 1; i <= ni; i++) { split(inc[i], e, " ")
            if ((e[1] in floor) && (e[2] in floor) && floor[e[2]] > floor[e[1]]) {
                print "FAIL " e[1] " (floor " floor[e[1]] ") includes anim/" e[2] ".h (floor " floor[e[2]] ")"; b++ } }
        if (!b) print "ok   every #include \"anim/...\" (" ni + 0 ") goes to its own floor or below"
        if (!built) { print "skip the calls inside src/anim: no objects (build first)"; exit }
        b = 0; ne = 0
        for (i = 1; i <= nu; i++) { split(use[i], e, " "); callee = def[e[2]]
            if (callee == "" || callee == e[1] || ((e[1] SUBSEP callee) in edge)) continue
            edge[e[1], callee] = 1; out[e[1]] = out[e[1]] " " callee; ne++
            if ((e[1] in floor) && (callee in floor) && floor[callee] > floor[e[1]]) {
                print "FAIL " e[1] " (floor " floor[e[1]] ") calls " e[2] " of " callee " (floor " floor[callee] ")"; b++ } }
        if (!b) print "ok   every call between files of src/anim (" ne + 0 " edges) goes to its own floor or below"
        # cycles: iterative depth-first search, colours 0 new, 1 on the path, 2 done
        cyc = 0
        for (s in out) if (!colour[s]) {
            top = 1; stack[1] = s; colour[s] = 1; pos[1] = 0
            while (top > 0) {
                v = stack[top]; n = split(out[v], w, " ")
                if (pos[top] < n) { pos[top]++; x = w[pos[top]]
                    if (colour[x] == 1) { path = x; for (k = top; k >= 1 && stack[k] != x; k--) path = stack[k] " -> " path
                        print "FAIL the calls go round: " x " -> " path; cyc++ }
                    else if (!colour[x]) { colour[x] = 1; stack[++top] = x; pos[top] = 0 } }
                else { colour[v] = 2; top-- } } }
        if (!cyc) print "ok   the calls between files of src/anim run one way (no cycle)"
    }' >"$TMP/result"
while IFS= read -r line; do
    case $line in
        "ok   "*) pass "${line#ok   }" ;;
        "FAIL "*) fail "${line#FAIL }" ;;
        *) echo "  $line" ;;
    esac
done <"$TMP/result"
summary
