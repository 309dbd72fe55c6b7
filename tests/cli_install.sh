#!/bin/sh
# cli_install.sh — marrow installed like a Debian tool (issue 32):
#   1. `make install` into a temporary DESTDIR puts every file in its place;
#   2. the installed program works from an empty folder, with no checkout in
#      reach: --version, --help, info, run --headless of an installed example
#      (its models come from share/marrow), test of a scene folder; and a copy
#      of the installed tree moved elsewhere still works;
#   3. marrow(1) renders with `man -l` and names every command and option of
#      --help and of each command's --help; bash completion offers commands
#      and options;
#   4. the Lua C module: a plain lua5.4 with the installed marrow.so on
#      package.cpath loads a model, samples a clip and poses it, printing the
#      same lines (and the same error) as the same script inside `marrow run`;
#      marrow.so exports luaopen_marrow only and leaves liblua to the
#      interpreter; bindings reach the sandbox only through wrap.h's host calls;
#   5. `make uninstall` leaves no marrow file behind;
#   6. with MARROW_TEST_DEB=1 (slow, needs root): `make deb`, apt-get install of
#      the package, a run from /tmp, apt-get remove.
# Ends with "install: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
suite install
ROOT=$(pwd)
unset MARROW_SHADERS MARROW_SCRIPTS
# Called from `make test` / `make asan`: the inner make gets the same BUILD
# and flags through MAKEFLAGS, but not the parent's job server.
MAKEFLAGS=$(printf '%s' "${MAKEFLAGS:-}" | sed 's/--jobserver-[a-z]*=[^ ]*//g'); export MAKEFLAGS
mk() { make --no-print-directory -s "$@" >"$TMP/make.log" 2>&1; }

PREFIX=/usr/local
DEST=$TMP/dest
P=$DEST$PREFIX
BIN=$P/bin/marrow
VERSION=$(sed -n 's/^#define MR_VERSION "\(.*\)"/\1/p' src/core/version.h)

# ---- 1. make install ---------------------------------------------------------
if mk install DESTDIR="$DEST" PREFIX=$PREFIX; then pass "make install DESTDIR PREFIX=$PREFIX"
else fail "make install DESTDIR PREFIX=$PREFIX" "$(tail -n 5 "$TMP/make.log")"; fi
missing=""
for f in bin/marrow share/marrow/shaders/model.vert share/marrow/shaders/skin.glsl \
         share/marrow/scripts/timeline.lua share/marrow/models/mannequin.md5mesh \
         share/marrow/models/walk.md5anim share/marrow/models/mannequin_body.png \
         share/doc/marrow/API.md share/doc/marrow/examples/hello.lua share/doc/marrow/examples/hello.png \
         share/man/man1/marrow.1 share/bash-completion/completions/marrow lib/lua/5.4/marrow.so; do
    [ -f "$P/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && pass "installed tree has bin, share/marrow, docs, man page, completion, marrow.so" \
    || fail "installed tree is missing files" "$missing"
[ -x "$BIN" ] && pass "bin/marrow is executable" || fail "bin/marrow is executable"

# ---- 2. the installed program, from an empty folder ----------------------------
# installed_checks LABEL PREFIXDIR: runs the installed program at PREFIXDIR
# from an empty folder far from the checkout.
installed_checks() {
    label=$1; p=$2; bin=$p/bin/marrow
    empty=$TMP/empty-$label; rm -rf "$empty"; mkdir -p "$empty"
    (cd "$empty" && "$bin" --version) >"$TMP/v" 2>&1
    [ "$(cat "$TMP/v")" = "marrow $VERSION" ] && pass "$label: --version prints 'marrow $VERSION'" \
        || fail "$label: --version prints 'marrow $VERSION'" "$(cat "$TMP/v")"
    (cd "$empty" && "$bin" --help) >"$TMP/h" 2>&1; rc=$?
    [ $rc -eq 0 ] && grep -q '^  marrow run ' "$TMP/h" && pass "$label: --help" || fail "$label: --help" "exit $rc"
    (cd "$empty" && "$bin" info "$p/share/marrow/models/mannequin.md5mesh") >"$TMP/i" 2>&1; rc=$?
    [ $rc -eq 0 ] && grep -q 'joints' "$TMP/i" && pass "$label: info of the installed sample model" \
        || fail "$label: info of the installed sample model" "exit $rc: $(head -n 3 "$TMP/i")"
    # hello.lua asks for models/mannequin.md5mesh: not beside the installed
    # example, so it must come from share/marrow; the shaders too.
    (cd "$empty" && "$bin" run --headless "$p/share/doc/marrow/examples/hello.lua" --frames 31 --out o) \
        >"$TMP/r" 2>&1; rc=$?
    [ $rc -eq 0 ] && [ -s "$empty/o/hello.png" ] && pass "$label: run --headless of an installed example writes its PNG" \
        || fail "$label: run --headless of an installed example writes its PNG" "exit $rc: $(tail -n 3 "$TMP/r")"
    # A scene folder outside any checkout (a copy of tests/scenes/ik_reach
    # with its goldens): its model and the shaders come from share/marrow.
    mkdir -p "$empty/scenes"
    cp -r "$ROOT/tests/scenes/ik_reach.lua" "$ROOT/tests/scenes/ik_reach.golden" "$empty/scenes/"
    (cd "$empty" && "$bin" test scenes --out t) >"$TMP/t" 2>&1; rc=$?
    [ $rc -eq 0 ] && grep -q '2 passed, 0 failed' "$TMP/t" && pass "$label: test of a scene folder passes against its goldens" \
        || fail "$label: test of a scene folder passes against its goldens" "exit $rc: $(tail -n 3 "$TMP/t")"
}
installed_checks installed "$P"

# A copy of the installed tree elsewhere (what a relocated prefix or an
# unpacked tarball is): found from the program's own location again.
cp -a "$P" "$TMP/moved"
installed_checks moved "$TMP/moved"
rm -rf "$TMP/moved"

# ---- 3. man page and completion -------------------------------------------------
MANPAGE=$P/share/man/man1/marrow.1
MANWIDTH=200 man -l "$MANPAGE" >"$TMP/man.txt" 2>"$TMP/man.err"; rc=$?
[ $rc -eq 0 ] && grep -q '^NAME' "$TMP/man.txt" && [ ! -s "$TMP/man.err" ] \
    && pass "man -l renders marrow(1) without warnings" || fail "man -l renders marrow(1)" "exit $rc: $(head -n 3 "$TMP/man.err")"
absent=""
cmds=$("$BIN" --help | sed -n 's/^  marrow \([a-z][a-z]*\) .*/\1/p')
for c in $cmds; do
    grep -q "marrow $c" "$TMP/man.txt" || absent="$absent $c"
    for o in $("$BIN" "$c" --help 2>&1 | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
        grep -qF -- "$o" "$TMP/man.txt" || absent="$absent $c:$o"
    done
done
for o in $("$BIN" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
    grep -qF -- "$o" "$TMP/man.txt" || absent="$absent $o"
done
[ -n "$cmds" ] && [ -z "$absent" ] && pass "every command and option of --help is in the man page ($(echo $cmds | wc -w) commands)" \
    || fail "every command and option of --help is in the man page" "missing:$absent"
if command -v bash >/dev/null 2>&1; then
    comp=$(PATH="$P/bin:$PATH" bash -c '. "$1"
        COMP_WORDS=(marrow ""); COMP_CWORD=1; _marrow; echo "${COMPREPLY[*]}"
        COMP_WORDS=(marrow run --hea); COMP_CWORD=2; _marrow; echo "${COMPREPLY[*]}"
        COMP_WORDS=(marrow test --up); COMP_CWORD=2; _marrow; echo "${COMPREPLY[*]}"' _ \
        "$P/share/bash-completion/completions/marrow" 2>&1)
    expect_match "bash completion offers the commands" "$(echo "$comp" | sed -n 1p)" \
        '(^| )run( |$).*(^| )test( |$).*--version'
    expect_match "bash completion offers a command's options" "$(echo "$comp" | sed -n 2,3p | tr '\n' ' ')" \
        '^--headless +--update'
fi

# ---- 4. the Lua C module ---------------------------------------------------------
SO=$P/lib/lua/5.4/marrow.so
MODEL=$P/share/marrow/models/mannequin.md5mesh
cat >"$TMP/pose.lua" <<LUA
local m = require "marrow"
print(m.version)
local man = assert(m.model("$MODEL", {anims = {"walk"}}))
print(man)
local walk = man:clip("walk")
local pose = m.pose(man)
walk:sample(0.5, pose)
local x, y, z = pose:position("hand_l"):unpack()
print(string.format("hand_l at 0.5 s: %.4f %.4f %.4f", x, y, z))
pose:rotate("upperarm_l", m.quat.euler(0, 0, -40))
local x2, y2, z2 = pose:position("hand_l"):unpack()
print(string.format("hand_l after rotate: %.4f %.4f %.4f", x2, y2, z2))
print(m.model("$TMP/no_such.md5mesh"))
print(pcall(pose.rotate, pose, "nek", m.quat.euler(0, 0, 10)))
LUA
if command -v lua5.4 >/dev/null 2>&1; then
    (cd "$TMP" && LUA_CPATH="$P/lib/lua/5.4/?.so" lua5.4 "$TMP/pose.lua") >"$TMP/lua.out" 2>&1; rc=$?
    [ $rc -eq 0 ] && grep -q "^marrow $VERSION$" "$TMP/lua.out" && grep -q '^hand_l after rotate' "$TMP/lua.out" \
        && pass "lua5.4: require \"marrow\" loads a model, samples a clip and poses it" \
        || fail "lua5.4: require \"marrow\" loads a model, samples a clip and poses it" "exit $rc: $(tail -n 3 "$TMP/lua.out")"
    a=$(sed -n 3p "$TMP/lua.out" | cut -d: -f2); b=$(sed -n 4p "$TMP/lua.out" | cut -d: -f2)
    [ -n "$a" ] && [ "$a" != "$b" ] && pass "lua5.4: pose:rotate moves the hand" || fail "lua5.4: pose:rotate moves the hand" "$a / $b"
    (cd "$TMP" && "$BIN" run --headless "$TMP/pose.lua" --frames 1) >"$TMP/run.out" 2>/dev/null
    if cmp -s "$TMP/lua.out" "$TMP/run.out"; then pass "lua5.4 and marrow run print the same lines and errors"
    else fail "lua5.4 and marrow run print the same lines and errors" "$(diff "$TMP/run.out" "$TMP/lua.out" | head -n 6)"; fi
    # Offscreen rendering: drawing is recorded, marrow.render() draws it and
    # writes the screenshots asked for (a headless EGL context made on first use).
    cat >"$TMP/render.lua" <<LUA
local m = require "marrow"
local man = assert(m.model("$MODEL"))
m.camera{target = {0, 0.9, 0}, distance = 3}
m.draw(man)
print(m.screenshot("shots/man.png"))
m.render()
print(pcall(m.render))
LUA
    (cd "$TMP" && LUA_CPATH="$P/lib/lua/5.4/?.so" lua5.4 "$TMP/render.lua") >"$TMP/render.out" 2>&1; rc=$?
    if [ $rc -eq 0 ] && [ "$(head -c 4 "$TMP/shots/man.png" | od -An -c | tr -d ' ')" = "211PNG" ] \
        && grep -q '^true$' "$TMP/render.out"; then
        pass "lua5.4: marrow.render() writes the screenshot it was asked for ($(wc -c <"$TMP/shots/man.png") bytes)"
    else
        fail "lua5.4: marrow.render() writes the screenshot it was asked for" "exit $rc: $(tail -n 3 "$TMP/render.out")"
    fi
    printf 'local m = require "marrow"\nfunction draw() print(pcall(m.render)) end\n' >"$TMP/render_run.lua"
    "$BIN" run --headless "$TMP/render_run.lua" --frames 1 2>/dev/null | grep -q 'marrow run renders after each draw' \
        && pass "marrow.render inside marrow run says it is for plain Lua" || fail "marrow.render inside marrow run"
else
    fail "lua5.4 is installed (scripts/install-deps.sh lists it)"
fi
defined=$(nm -D --defined-only "$SO" | awk '$2 == "T" {print $3}' | tr '\n' ' ')
[ "$defined" = "luaopen_marrow " ] && pass "marrow.so exports luaopen_marrow only" \
    || fail "marrow.so exports luaopen_marrow only" "$defined"
if nm -D --undefined-only "$SO" | grep -q ' lua_pushnumber$' && ! readelf -d "$SO" | grep -q 'NEEDED.*liblua'; then
    pass "marrow.so takes the Lua API from the interpreter (no liblua NEEDED)"
else
    fail "marrow.so takes the Lua API from the interpreter (no liblua NEEDED)" "$(readelf -d "$SO" | grep NEEDED)"
fi
# The bindings must run in a state without a sandbox: none may call the
# sandbox's state functions directly (mr_lua_sandbox_clock is a plain clock).
# (the objects of the build under test: marrow.so is linked from the same
# code, the release build's own objects or build/pic's)
direct="" checked=0
objs=$(dirname "${TEST_BIN_DIR:-build/release/tests}")/src/lua
for o in "$objs"/wrap_*.o "$objs"/udata.o "$objs"/args.o; do
    [ -f "$o" ] || continue
    checked=$((checked + 1))
    nm -u "$o" | grep -E ' mr_lua_sandbox_' | grep -v mr_lua_sandbox_clock >/dev/null && direct="$direct $(basename "$o")"
done
if [ "$checked" -lt 3 ]; then fail "the bindings' objects are in $objs" "$checked found"
elif [ -z "$direct" ]; then pass "bindings reach the sandbox only through mr_lua_host_* (wrap.h, $checked objects)"
else fail "bindings call the sandbox directly (breaks require \"marrow\" in plain Lua)" "$direct"; fi

# The LuaRocks route: the rockspec of this version, and the make target it runs.
rs=scripts/marrow-$VERSION-1.rockspec
[ -f "$rs" ] && grep -q "^version = \"$VERSION-1\"" "$rs" && grep -q 'install_target = "install-module"' "$rs" \
    && pass "$rs matches src/core/version.h" || fail "a rockspec for version $VERSION ($rs)"
if mk install-module LUADIR="$TMP/rock/lib" && [ "$(ls "$TMP/rock/lib")" = marrow.so ]; then
    pass "make install-module LUADIR=... installs marrow.so alone"
else
    fail "make install-module LUADIR=... installs marrow.so alone" "$(tail -n 3 "$TMP/make.log")"
fi

# ---- 5. make uninstall ---------------------------------------------------------------
if mk uninstall DESTDIR="$DEST" PREFIX=$PREFIX; then pass "make uninstall"
else fail "make uninstall" "$(tail -n 5 "$TMP/make.log")"; fi
left=$(find "$DEST" \( -type f -o -type l -o -name '*marrow*' \) | sed "s|^$DEST||")
[ -z "$left" ] && pass "uninstall leaves no marrow file or folder behind" \
    || fail "uninstall leaves no marrow file or folder behind" $left

# ---- 6. the Debian package (MARROW_TEST_DEB=1) ----------------------------------------
if [ "${MARROW_TEST_DEB:-0}" = 1 ]; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
    if mk deb; then pass "make deb"; else fail "make deb" "$(tail -n 5 "$TMP/make.log")"; fi
    deb=$(ls marrow_"$VERSION"_*.deb 2>/dev/null | head -n 1)
    if [ -n "$deb" ] && $SUDO apt-get install -y -q "./$deb" >"$TMP/apt.log" 2>&1; then
        pass "apt-get install ./$deb"
        d=$(mktemp -d /tmp/marrow-deb-XXXXXX)
        (cd "$d" && marrow --version && marrow run --headless /usr/share/doc/marrow/examples/hello.lua --frames 31 --out o \
            && [ -s o/hello.png ] && lua5.4 -e 'local m = require "marrow"; print(m.model("/usr/share/marrow/models/mannequin.md5mesh"))') \
            >"$TMP/deb.out" 2>&1 && pass "the packaged marrow runs from /tmp (and require \"marrow\" from lua5.4)" \
            || fail "the packaged marrow runs from /tmp" "$(tail -n 3 "$TMP/deb.out")"
        rm -rf "$d"
        $SUDO apt-get remove -y -q marrow >/dev/null 2>&1 && ! command -v marrow >/dev/null 2>&1 \
            && [ ! -e /usr/share/marrow ] && pass "apt-get remove marrow" || fail "apt-get remove marrow"
    else
        fail "apt-get install ./$deb" "$(tail -n 5 "$TMP/apt.log" 2>/dev/null)"
    fi
else
    echo "  skip the .deb (set MARROW_TEST_DEB=1: builds it, installs it with apt-get as root, removes it)"
fi

echo "install: $T_PASSED passed, $T_FAILED failed"
[ "$T_FAILED" -eq 0 ]
