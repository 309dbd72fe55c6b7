#!/bin/sh
# soak_heap.sh — hunts heap corruption in the examples and regression
# scenes (issue 16: one run of scripts/render_examples.sh once aborted with
# glibc's "corrupted double-linked list" in walk_run_crossfade).
#
#   scripts/soak_heap.sh [ROUNDS]      (default 3)
#
# Each round runs every example (scripts/examples.sh's list and frames,
# --size 320x180) and every scene of tests/scenes (marrow test) under:
#   asan     build/asan/marrow (make asan builds it), LP_NUM_THREADS 0, 1, 2, 8
#            (leak checking only with 0 threads: LSan's tracer has crashed on
#            llvmpipe's rasteriser threads)
#   mcheck   the release build with glibc's checking allocator: since glibc
#            2.34 MALLOC_CHECK_=3 only works with libc_malloc_debug.so
#            preloaded, so it is; plus MALLOC_PERTURB_ to poison freed memory
#   valgrind memcheck (VALGRIND=1; slow), LP_NUM_THREADS 0 and default
# Output goes to build/heap/; any sanitizer report, glibc abort or valgrind
# error is a failure and its log is named.
set -u
cd "$(dirname "$0")/.."
rounds=${1:-3}
out=build/heap
mkdir -p "$out"
REL=${MARROW:-build/release/marrow}
ASAN=build/asan/marrow
EXAMPLES=$(sh scripts/examples.sh)
failed=0; runs=0

# run TAG CMD...: runs one command, keeps its log when it fails.
run() {
    tag=$1; shift
    log="$out/$tag.log"
    "$@" >"$log" 2>&1
    rc=$?
    runs=$((runs + 1))
    if [ "$rc" -ne 0 ] || grep -qE 'ERROR: AddressSanitizer|runtime error|corrupted|double free|free\(\): |malloc\(\): |Invalid (read|write)|uninitialised|definitely lost' "$log"; then
        echo "  FAIL $tag (exit $rc): $log"; grep -m 3 -E 'ERROR|runtime error|corrupted|Invalid|free\(\)|malloc\(\)' "$log" | sed 's/^/    /'
        failed=$((failed + 1))
    else
        rm -f "$log"
    fi
}

examples() {   # examples PREFIX ENV... -- MARROW [WRAPPER...]
    prefix=$1; shift
    for e in $EXAMPLES; do
        name=${e%%:*}
        run "$prefix-$name" env "$@" run --headless "examples/$name.lua" --frames "${e##*:}" --size 320x180 \
            --out "$out/shots"
    done
}

r=1
while [ "$r" -le "$rounds" ]; do
    echo "== round $r"
    if [ -x "$ASAN" ]; then
        for t in 0 1 2 8; do
            leaks=0; [ "$t" -eq 0 ] && leaks=1
            examples "r$r-asan-lp$t" LP_NUM_THREADS=$t ASAN_OPTIONS=detect_leaks=$leaks:abort_on_error=1 "$ASAN"
            run "r$r-asan-lp$t-scenes" env LP_NUM_THREADS=$t ASAN_OPTIONS=detect_leaks=$leaks "$ASAN" test \
                --jobs 2 --out "$out/test" tests/scenes
        done
    else
        echo "  (no $ASAN: make asan builds it)"
    fi
    for t in 0 1 2 8; do
        examples "r$r-mcheck-lp$t" LP_NUM_THREADS=$t MALLOC_CHECK_=3 MALLOC_PERTURB_=165 \
            LD_PRELOAD=libc_malloc_debug.so.0 "$REL"
    done
    if [ "${VALGRIND:-0}" = 1 ]; then
        for t in 0 default; do
            envt="LP_NUM_THREADS=$t"; [ "$t" = default ] && envt="MARROW_UNUSED=1"
            examples "r$r-valgrind-lp$t" "$envt" valgrind -q --error-exitcode=9 --track-origins=no "$REL"
        done
    fi
    r=$((r + 1))
done
echo "soak_heap: $runs runs, $failed failed"
[ "$failed" -eq 0 ]
