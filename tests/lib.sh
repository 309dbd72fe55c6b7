# lib.sh — helpers for the shell test suites (tests/cli_*.sh).
#   . tests/lib.sh; suite NAME; ...; check "what" COMMAND...; summary
# MARROW is the program under test (set by tests/run.sh; ./marrow otherwise).
: "${MARROW:=./marrow}"
SHARED=../shared/models
# PY: Python for the test tools (stdlib only), as the interpreter itself
# (tests/run.sh finds it once: a pyenv shim starts pyenv first, 0.4 s a
# call) and without the site packages (-S: a certifi .pth took 0.08 s).
[ -x "${MARROW_PYTHON:-}" ] || MARROW_PYTHON=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
[ -x "${MARROW_PYTHON:-}" ] || MARROW_PYTHON=python3
PY="$MARROW_PYTHON -S"
T_PASSED=0; T_FAILED=0; T_SUITE=cli
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT

suite() { T_SUITE=$1; }
pass() { T_PASSED=$((T_PASSED + 1)); echo "  ok   $1"; }
fail() { T_FAILED=$((T_FAILED + 1)); echo "  FAIL $1"; shift; for l in "$@"; do echo "       $l"; done; }

# run CMD...: runs it, keeping stdout in $OUT, stderr in $ERR, status in $RC.
run() {
    "$@" >"$TMP/out" 2>"$TMP/err"; RC=$?
    OUT=$(cat "$TMP/out"); ERR=$(cat "$TMP/err")
}

# expect_exit NAME CODE CMD...: the command exits with CODE.
expect_exit() {
    name=$1; code=$2; shift 2
    run "$@"
    if [ "$RC" -eq "$code" ]; then pass "$name"
    else fail "$name" "expected exit $code, got $RC: $*" "stderr: $(echo "$ERR" | head -3)"; fi
}

# expect_match NAME TEXT REGEX: TEXT matches the extended regex.
expect_match() {
    if printf '%s\n' "$2" | grep -Eq -- "$3"; then pass "$1"
    else fail "$1" "no match for /$3/ in:" "$(printf '%s\n' "$2" | head -5)"; fi
}

# expect_no_match NAME TEXT REGEX: no line of TEXT matches the extended regex.
expect_no_match() {
    if printf '%s\n' "$2" | grep -Eq -- "$3"; then fail "$1" "unexpected match for /$3/:" "$(printf '%s\n' "$2" | grep -E -- "$3" | head -3)"
    else pass "$1"; fi
}

# arm_scene DIR DEGREES: a copy of tests/scenes/override_lower_arm (script
# and goldens) in DIR whose arm override is DEGREES instead of -40; a
# failed check if the edit did not take.
arm_scene() {
    mkdir -p "$1"
    cp -r tests/scenes/override_lower_arm.golden "$1/"
    sed "s/m\.quat\.euler(-40, 0, 0)/m.quat.euler($2, 0, 0)/" tests/scenes/override_lower_arm.lua \
        >"$1/override_lower_arm.lua"
    grep -q "euler($2, 0, 0)" "$1/override_lower_arm.lua" || fail "the copy of override_lower_arm in $1 was not edited"
}

summary() {
    echo "$T_SUITE: $T_PASSED passed, $T_FAILED failed"
    [ "$T_FAILED" -eq 0 ]
}
