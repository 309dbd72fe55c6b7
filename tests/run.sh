#!/bin/sh
# Runs every test suite and prints the total as "N passed, N failed".
#   C unit tests:  $TEST_BIN_DIR/test_*   (built by make from tests/test_*.c)
#   shell suites:  tests/cli_*.sh         (drive the marrow program)
# Each suite ends with "NAME: N passed, N failed"; this script adds them up.
# A check a suite cannot run here (a missing tool) prints a line "  skip
# WHAT" and counts neither way; the skips are counted at the end.
# Exit status is non-zero when any test failed or any suite crashed.
#
# Suites run side by side, MARROW_TEST_JOBS at a time (default: the number
# of CPUs, nproc). Each suite's output goes to a log of its own and is
# printed whole, in the fixed order of the list below, as soon as it and
# every suite before it have ended; the totals do not depend on the order in
# which suites finish. The suites that took longest in the last run start
# first (their times are kept in $TEST_BIN_DIR/.suite-times), so a long one
# does not start last. Suites that start X servers through `xvfb-run -a`
# run one after another in one lane: two at once can pick the same display.
# MARROW_TEST_JOBS=1 runs them all one after another.
set -u
cd "$(dirname "$0")/.."
: "${MARROW:=./marrow}"
: "${TEST_BIN_DIR:=build/release/tests}"
export MARROW
# No suite depends on (or fills) the user's model cache; test_cache uses its own folder.
MARROW_CACHE=0; export MARROW_CACHE
# The Python the suites' tools run on (lib.sh's PY), found once for all.
MARROW_PYTHON=${MARROW_PYTHON:-$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)}
export MARROW_PYTHON

jobs=${MARROW_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
case $jobs in ''|*[!0-9]*|0) echo "run.sh: MARROW_TEST_JOBS must be a number >= 1 (got '$jobs')" >&2; exit 2 ;; esac
# llvmpipe rasterizes on a thread per core besides the drawing thread: with
# a suite in every lane, each renderer gets the cores left per lane, and no
# thread past its own when that is one core or less (as `marrow test
# --jobs` does for its workers; the pictures do not depend on it, and make
# asan runs with 0). A LP_NUM_THREADS already set is kept.
if [ -z "${LP_NUM_THREADS+set}" ]; then
    per=$(( $(nproc 2>/dev/null || echo 1) / jobs ))
    [ "$per" -gt 1 ] || per=0
    LP_NUM_THREADS=$per; export LP_NUM_THREADS
fi
work=$(mktemp -d)
pids=""
# On an interrupt the lanes still running are stopped before the logs go
# (Ctrl-C reaches the suites themselves: they share the terminal's group).
cleanup() {
    for p in $pids; do kill -TERM "$p" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Under the sanitizers (make asan sets MARROW_ASAN=1), the marrow processes
# the suites start run without LeakSanitizer's exit check: its tracer
# crashes at exit in some of them (examples/reach_target.lua most often,
# "Tracer caught signal 11" in ScanRangeForPointers), a tool failure that
# made the run fail at random. ASan and UBSan still check them; the unit
# tests (the Lua host, loaders, renderer in-process) keep leak detection.
cli_env=""
[ -n "${MARROW_ASAN:-}" ] && cli_env="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# ---- the list: "N KIND PATH", N in print order -------------------------------------
#   unit: a C test binary; sse2: the same at MARROW_SIMD=sse2; cli: a shell suite
n=0
add() { n=$((n + 1)); echo "$n $1 $2" >>"$work/list"; }
: >"$work/list"
for t in "$TEST_BIN_DIR"/test_*; do
    [ -x "$t" ] && add unit "$t"
done
# Suites of kernels with wider SIMD paths (src/core/cpu.h) once more at the
# baseline, so the SSE2 paths are checked on machines that have AVX.
for t in test_blend test_cache test_clip_cursor test_cpu test_pose test_springs; do
    [ -x "$TEST_BIN_DIR/$t" ] && add sse2 "$TEST_BIN_DIR/$t"
done
for s in tests/cli_*.sh; do
    [ -f "$s" ] && add cli "$s"
done

name_of() {  # name_of KIND PATH
    case $1 in
    unit) basename "$2" ;;
    sse2) echo "$(basename "$2") at MARROW_SIMD=sse2" ;;
    cli) basename "$2" .sh ;;
    esac
}

# suite_cmd KIND PATH: runs the suite, its output on stdout and stderr.
suite_cmd() {
    case $1 in
    unit) case $(basename "$2") in
          test_examples) env $cli_env "$2" ;;   # it runs marrow for each example
          *) "$2" ;;
          esac ;;
    sse2) env MARROW_SIMD=sse2 "$2" ;;
    cli) env $cli_env sh "$2" ;;
    esac
}

# run_one N KIND PATH: runs suite N into $work/N.log; its exit status goes
# to $work/N.rc, its seconds to $work/N.time.
run_one() {
    log=$work/$1.log
    t0=$(date +%s)
    suite_cmd "$2" "$3" >"$log" 2>&1 3>&-
    status=$?
    # Under the sanitizers, LeakSanitizer's own stop-the-world tracer now and
    # then crashes at a process's exit ("Tracer caught signal 11 ...
    # LeakSanitizer has encountered a fatal error": the tool failed, it found
    # nothing). A suite that failed only so runs once more; a leak the tool
    # did find ("detected memory leaks") is never retried.
    if [ "$status" -ne 0 ] && grep -q 'LeakSanitizer has encountered a fatal error' "$log" &&
       ! grep -q 'LeakSanitizer: detected memory leaks' "$log"; then
        echo "  (LeakSanitizer's tracer crashed in $(name_of "$2" "$3"); running it once more)" >"$work/$1.note"
        suite_cmd "$2" "$3" >"$log" 2>&1 3>&-
        status=$?
    fi
    echo $(( $(date +%s) - t0 )) >"$work/$1.time"
    echo "$status" >"$work/$1.rc"
}

# ---- the lanes: what one worker runs, one suite after another ------------------------
# Longest first by the last run's times (a suite not timed yet counts as
# long: shell suites 60 s, the rest 10 s); the xvfb-run suites share a lane.
# Suites that by design spend most of their time waiting (for signals, a
# file watcher's events, a clock window), marked by a line "run.sh: mostly
# waits" in their source, run one after another in a lane of their own
# beside the pool, without a token: in the pool they held a core idle
# (cli_window, and test_cache twice, once more at sse2: 24 s of wall time,
# 11 s of CPU). A suite that times how soon something happens stays in the
# pool (test_lua: it ran late beside two lanes on two cores).
# MARROW_TEST_JOBS=1 keeps them in the pool.
source_of() {  # source_of KIND PATH: the file a suite's marker is read from
    case $1 in
    cli) echo "$2" ;;
    unit|sse2) echo "tests/$(basename "$2").c" ;;
    esac
}
times=$TEST_BIN_DIR/.suite-times
while read -r i kind path; do
    nm=$(name_of "$kind" "$path")
    sec=$(awk -v k="$nm" -F'\t' '$2 == k { s = $1 } END { print s + 0 }' "$times" 2>/dev/null)
    if [ -z "$sec" ] || [ "$sec" -eq 0 ]; then
        case $kind in cli) sec=60 ;; *) sec=10 ;; esac
    fi
    if [ "$jobs" -gt 1 ] && grep -q 'run\.sh: mostly waits' "$(source_of "$kind" "$path")" 2>/dev/null; then
        echo "$i" >>"$work/wlane"
    elif [ "$kind" = cli ] && grep -q 'xvfb-run' "$path"; then
        echo "$i" >>"$work/xlane"; echo "$sec" >>"$work/xlane.sec"
    else
        printf '%s %s\n' "$sec" "$i" >>"$work/lanes"
    fi
done <"$work/list"
: >>"$work/lanes"
if [ -f "$work/xlane" ]; then
    printf '%s %s\n' "$(awk '{ s += $1 } END { print s }' "$work/xlane.sec")" "$(tr '\n' ' ' <"$work/xlane")" >>"$work/lanes"
fi
sort -k1,1nr "$work/lanes" | cut -d' ' -f2- >"$work/order"

# ---- the report, in list order --------------------------------------------------------
passed=0; failed=0; skipped=0; crashed=""
next=1
report() {  # report N: prints suite N's log and adds up its summary
    read -r _ kind path <<EOF
$(sed -n "$1p" "$work/list")
EOF
    name=$(name_of "$kind" "$path")
    status=$(cat "$work/$1.rc")
    echo "== $name"
    [ -f "$work/$1.note" ] && cat "$work/$1.note"
    cat "$work/$1.log"
    printf '%s\t%s\n' "$(cat "$work/$1.time")" "$name" >>"$work/times"
    line=$(grep -E '^[A-Za-z0-9_.-]+: [0-9]+ passed, [0-9]+ failed' "$work/$1.log" | tail -n 1)
    if [ -z "$line" ]; then
        echo "  FAIL $name: suite ended without a summary (exit $status)"
        failed=$((failed + 1)); crashed="$crashed $name"; return
    fi
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\1/')
    f=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*/\2/')
    k=$(grep -c '^  skip ' "$work/$1.log")
    passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + k))
    if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "  FAIL $name: exit status $status with no failed test"
        failed=$((failed + 1)); crashed="$crashed $name"
    fi
}
flush() {  # prints every finished suite whose predecessors are printed
    while [ "$next" -le "$n" ] && [ -f "$work/$next.rc" ]; do
        report "$next"
        next=$((next + 1))
    done
}

# ---- the pool: a token per worker in a FIFO --------------------------------------------
echo "running $n suites, $jobs at a time (MARROW_TEST_JOBS); each printed whole, in order, once it and those before it end"
mkfifo "$work/tokens"
exec 3<>"$work/tokens"
if [ -f "$work/wlane" ]; then
    ( trap - EXIT INT TERM
      for i in $(cat "$work/wlane"); do
          read -r _ kind path <<EOF
$(sed -n "${i}p" "$work/list")
EOF
          run_one "$i" "$kind" "$path"
      done ) </dev/null 3>&- &
    pids="$pids $!"
fi
i=0
while [ "$i" -lt "$jobs" ]; do echo >&3; i=$((i + 1)); done
while read -r lane; do
    read -r _ <&3
    flush
    ( trap - EXIT INT TERM
      for i in $lane; do
          read -r _ kind path <<EOF
$(sed -n "${i}p" "$work/list")
EOF
          run_one "$i" "$kind" "$path"
      done
      echo >&3 ) </dev/null &
    pids="$pids $!"
done <"$work/order"
while [ "$next" -le "$n" ]; do
    flush
    [ "$next" -le "$n" ] || break
    alive=0
    for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
    if [ "$alive" -eq 0 ] && [ ! -f "$work/$next.rc" ]; then
        # every lane has ended and this suite never did: a lane was killed
        : >>"$work/$next.log"; echo 0 >"$work/$next.time"; echo 125 >"$work/$next.rc"
    fi
    sleep 0.2
done
wait
pids=""
exec 3>&-

[ -s "$work/times" ] && cp "$work/times" "$times" 2>/dev/null
[ -n "$crashed" ] && echo "suites that crashed or failed to report:$crashed"
[ "$skipped" -gt 0 ] && echo "$skipped skipped (printed above as '  skip ...'; counted neither as passed nor as failed)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
