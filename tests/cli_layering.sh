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
# build/release/src); the link check is skipped (and said so, not counted
# as passed) when they are not built.
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
printf '%s\n' "$allowed" >"$TMP/allowed"
may_use() {  # may_use FROM TO: FROM is TO, or the table lets FROM use TO
    [ "$1" = "$2" ] && return 0
    case " $(printf '%s\n' "$allowed" | sed -n "s/^$1 //p") " in *" $2 "*) return 0 ;; esac
    return 1
}

# The table parsed: it must name every folder of src/, and the known
# directions must come out of it (a check of the parser, not of the code).
missing=""
for d in src/*/; do
    d=$(basename "$d")
    case " $(echo $folders) " in *" $d "*) ;; *) missing="$missing $d" ;; esac
done
[ -z "$missing" ] && pass "$DOC's table names every folder of src/" || fail "$DOC's table lacks:$missing"
if may_use lua anim && may_use cli core && ! may_use gfx platform && ! may_use core anim && ! may_use anim formats; then
    pass "the table reads: lua may use anim, cli core; gfx not platform, core not anim, anim not formats"
else
    fail "the table of $DOC did not parse as expected" "$allowed"
fi

# One awk pass each below (awk reads the allowed table first): a process per
# file or symbol made this suite take 40 s of CPU.
# ---- includes ----------------------------------------------------------------
files=""
for f in $folders; do
    for file in src/"$f"/*.[ch]; do [ -f "$file" ] && files="$files $file"; done
done
bad_inc=$(awk '
    FNR == NR { known[$1] = 1; for (i = 2; i <= NF; i++) ok[$1, $i] = 1; next }
    /^[ \t]*#[ \t]*include[ \t]+"[a-z_]+\// {
        to = $0; sub(/^[^"]*"/, "", to); sub(/\/.*/, "", to)
        if (!(to in known)) next                   # not a src/ folder (src/bench/ozz/...)
        from = FILENAME; sub(/^src\//, "", from); sub(/\/.*/, "", from)
        if (from == to || (from, to) in ok || (FILENAME, to) in seen) next
        seen[FILENAME, to] = 1
        print FILENAME " includes " to "/ (" FNR ")"
    }' "$TMP/allowed" $files)
[ -z "$bad_inc" ] && pass "every #include \"folder/...\" in src/ runs down the table" \
    || fail "includes against the table of $DOC:" "$bad_inc"

# ---- calls (link level) --------------------------------------------------------
# The objects of the folders' current .c files (not stale ones), folder by
# folder in the table's order: a symbol belongs to the first that defines it.
objs=""
for f in $folders; do
    for c in src/"$f"/*.c; do o="$OBJ_DIR/$f/$(basename "$c" .c).o"; [ -f "$o" ] && objs="$objs $o"; done
done
if [ -n "$objs" ] && command -v nm >/dev/null; then
    # nm -A: "OBJECT: U sym" (used) and "OBJECT:ADDRESS T sym" (defined).
    nm -A -g $objs >"$TMP/nm" 2>/dev/null
    bad_call=$(awk -v base="$OBJ_DIR/" '
        FNR == NR { for (i = 2; i <= NF; i++) ok[$1, $i] = 1; next }
        {
            obj = $1; sub(/:.*/, "", obj)
            f = substr(obj, length(base) + 1); sub(/\/.*/, "", f)
            type = $(NF - 1); sym = $NF
            if (type == "U") { if (!((f, sym) in used)) { used[f, sym] = 1; uses[++n] = f SUBSEP sym } }
            else if (type ~ /^[TDBR]$/ && !(sym in def)) def[sym] = f
        }
        END {
            for (i = 1; i <= n; i++) {
                split(uses[i], u, SUBSEP); f = u[1]; sym = u[2]
                if (!(sym in def)) continue        # libc, Lua, GL, ...
                to = def[sym]
                if (f != to && !((f, to) in ok)) print "src/" f " calls " sym " (src/" to ")"
            }
        }' "$TMP/allowed" "$TMP/nm" | sort)
    [ -z "$bad_call" ] && pass "every call between folders of src/ runs down the table (nm -u)" \
        || fail "calls against the table of $DOC:" "$bad_call"
else
    echo "  skip link-level check: no objects in $OBJ_DIR (or no nm)"
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
