#!/bin/sh
# cli_layering.sh — the layering of docs/CONVENTIONS.md, checked.
#
# The table "Where things live" in docs/CONVENTIONS.md is the one source of
# truth: each `src/<folder>` row's "may include" column names the folders it
# may use ("everything above" = every folder in the rows above it), and what a
# named folder may use comes along (lua may include formats, formats anim, so
# lua may include anim). This suite reads that table and checks
#   - every `#include "<folder>/..."` in src/<folder>/*.[ch], and
#   - the calls between folders at link level: each folder's objects
#     (`nm -u`) against the folders that define those symbols,
# and, inside src/lua, the bottom files of wrap.h's list (the Lua state, the
# console, the model table, the callback names) against the rest of src/lua.
# Objects come from $OBJ_DIR (default: the build next to $TEST_BIN_DIR, i.e.
# build/release/src); the link check is skipped when they are not built.
. tests/lib.sh
suite cli_layering
: "${TEST_BIN_DIR:=build/release/tests}"
: "${OBJ_DIR:=$(dirname "$TEST_BIN_DIR")/src}"
DOC=docs/CONVENTIONS.md

# allowed: "<folder> <folder it may use> ..." per table row, closed over.
allowed=$(awk -F'|' '
    $2 ~ /^ *`src\/[a-z_]+` *$/ {
        f = $2; gsub(/[ `]/, "", f); sub(/^src\//, "", f)
        order[++n] = f; deps[f] = ""
        col = $4
        if (col ~ /everything above/) { for (i = 1; i < n; i++) deps[f] = deps[f] " " order[i] }
        else { m = split(col, w, /[ ,]+/); for (i = 1; i <= m; i++) if (w[i] != "") deps[f] = deps[f] " " w[i] }
    }
    END {
        for (i = 1; i <= n; i++) known[order[i]] = 1
        for (i = 1; i <= n; i++) { f = order[i]; m = split(deps[f], w, " ")
            for (j = 1; j <= m; j++) if (w[j] in known) ok[f, w[j]] = 1 }
        do { changed = 0
            for (a = 1; a <= n; a++) for (b = 1; b <= n; b++) for (c = 1; c <= n; c++)
                if (((order[a], order[b]) in ok) && ((order[b], order[c]) in ok) && !((order[a], order[c]) in ok)) {
                    ok[order[a], order[c]] = 1; changed = 1 }
        } while (changed)
        for (i = 1; i <= n; i++) { line = order[i]
            for (j = 1; j <= n; j++) if ((order[i], order[j]) in ok) line = line " " order[j]
            print line }
    }' "$DOC")
folders=$(printf '%s\n' "$allowed" | awk '{print $1}')
may_use() {  # may_use FROM TO: FROM is TO, or the table lets FROM use TO
    [ "$1" = "$2" ] && return 0
    printf '%s\n' "$allowed" | awk -v f="$1" -v t="$2" '$1 == f { for (i = 2; i <= NF; i++) if ($i == t) found = 1 } END { exit !found }'
}

# The table parsed: it must name every folder of src/, and the known
# directions must come out of it (a check of the parser, not of the code).
missing=""
for d in src/*/; do d=$(basename "$d"); printf '%s\n' "$folders" | grep -qx "$d" || missing="$missing $d"; done
[ -z "$missing" ] && pass "$DOC's table names every folder of src/" || fail "$DOC's table lacks:$missing"
if may_use lua anim && may_use cli core && ! may_use gfx platform && ! may_use core anim && ! may_use anim formats; then
    pass "the table reads: lua may use anim, cli core; gfx not platform, core not anim, anim not formats"
else
    fail "the table of $DOC did not parse as expected" "$allowed"
fi

# ---- includes ----------------------------------------------------------------
bad_inc=""
for f in $folders; do
    for file in src/"$f"/*.[ch]; do
        [ -f "$file" ] || continue
        for to in $(sed -nE 's/^[ \t]*#[ \t]*include[ \t]+"([a-z_]+)\/.*/\1/p' "$file" | sort -u); do
            printf '%s\n' "$folders" | grep -qx "$to" || continue  # not a src/ folder
            may_use "$f" "$to" || bad_inc="$bad_inc
$file includes $to/ ($(grep -nE "#[ \t]*include[ \t]+\"$to/" "$file" | head -1 | cut -d: -f1))"
        done
    done
done
[ -z "$bad_inc" ] && pass "every #include \"folder/...\" in src/ runs down the table" \
    || fail "includes against the table of $DOC:" "$(echo "$bad_inc" | sed "/^$/d")"

# ---- calls (link level) --------------------------------------------------------
# objs FOLDER: the objects of the folder's current .c files (not stale ones).
objs() { for c in src/"$1"/*.c; do o="$OBJ_DIR/$1/$(basename "$c" .c).o"; [ -f "$o" ] && echo "$o"; done; }
if [ -d "$OBJ_DIR" ] && command -v nm >/dev/null; then
    defs="$TMP/defs"; : >"$defs"
    for f in $folders; do
        o=$(objs "$f"); [ -n "$o" ] || continue
        nm -g --defined-only $o 2>/dev/null | awk -v f="$f" 'NF >= 3 && $2 ~ /^[TDBR]$/ { print $3, f }' >>"$defs"
    done
    bad_call=""
    for f in $folders; do
        o=$(objs "$f"); [ -n "$o" ] || continue
        for sym in $(nm -u $o 2>/dev/null | awk '$1 == "U" { print $2 }' | sort -u); do
            to=$(awk -v s="$sym" '$1 == s { print $2; exit }' "$defs")
            [ -n "$to" ] || continue  # libc, Lua, GL, ...
            may_use "$f" "$to" || bad_call="$bad_call
src/$f calls $sym (src/$to)"
        done
    done
    [ -z "$bad_call" ] && pass "every call between folders of src/ runs down the table (nm -u)" \
        || fail "calls against the table of $DOC:" "$(echo "$bad_call" | sed "/^$/d")"
else
    pass "link-level check skipped: no objects in $OBJ_DIR"
fi

# ---- inside src/lua: the bottom of wrap.h's list ------------------------------
# sandbox*, console, models, callbacks (and the sandbox's own watchdog and
# pattern matcher) know nothing of each other or of the files above them.
bottom="sandbox sandbox_internal sandbox_io sandbox_lib watchdog pattern console models callbacks"
family() {  # family FILE: the lua/ headers FILE may include
    case $1 in
        sandbox*|watchdog*|pattern*) echo "sandbox sandbox_internal watchdog pattern" ;;
        *) basename "$1" | sed 's/\.[ch]$//' ;;
    esac
}
bad_low=""
for b in $bottom; do
    for file in src/lua/"$b".c src/lua/"$b".h; do
        [ -f "$file" ] || continue
        fam=" $(family "$(basename "$file")") "
        for h in $(sed -nE 's/^[ \t]*#[ \t]*include[ \t]+"lua\/([a-z_]+)\.h".*/\1/p' "$file"); do
            case $fam in *" $h "*) ;; *) bad_low="$bad_low
$file includes lua/$h.h" ;; esac
        done
    done
done
[ -z "$bad_low" ] && pass "src/lua: the sandbox, console, model table and callbacks include nothing above them" \
    || fail "src/lua: a bottom file of wrap.h's list includes a file above it:" "$(echo "$bad_low" | sed "/^$/d")"

summary
