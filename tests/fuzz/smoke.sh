#!/bin/sh
# smoke.sh — runs every libFuzzer target in DIR (built by `make fuzz`) for
# FUZZ_SECONDS each, under the ASan + UBSan it was built with. `make
# fuzz-smoke` calls it; CI runs that.
#
#   tests/fuzz/smoke.sh build/fuzz/fuzz
#
# Seeds: each target's source names file extensions on a "fuzz-seeds:" line;
# files with those extensions (up to FUZZ_SEED_MAX bytes) are copied from
# tests/, models/, ../shared/models and /usr/share/assimp/models into
# build/fuzz/corpus/TARGET/seeds (a scratch copy, never committed). What the
# fuzzer finds is kept in build/fuzz/corpus/TARGET/found, so later runs go on
# from there. A crash, sanitizer report, leak, timeout or an allocation above
# FUZZ_MALLOC_MB is a failure: the input is saved under build/fuzz/artifacts/
# and the command to replay it is printed.
set -u
cd "$(dirname "$0")/../.."
dir=${1:-build/fuzz/fuzz}
: "${FUZZ_SECONDS:=25}"
: "${FUZZ_SEED_MAX:=300000}"
: "${FUZZ_MALLOC_MB:=256}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

art=build/fuzz/artifacts
mkdir -p "$art"
failed=0; ran=0
for src in tests/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    bin="$dir/$name"
    if [ ! -x "$bin" ]; then
        echo "fuzz-smoke: $bin is missing (make fuzz)"; failed=$((failed + 1)); continue
    fi
    exts=$(sed -n 's/.*fuzz-seeds:[[:space:]]*//p' "$src" | head -n 1)
    corpus=build/fuzz/corpus/$name
    rm -rf "$corpus/seeds"
    mkdir -p "$corpus/seeds" "$corpus/found"
    n=0
    for ext in $exts; do
        for root in tests models ../shared/models /usr/share/assimp/models; do
            [ -d "$root" ] || continue
            find "$root" -type f -iname "*.$ext" -size -"${FUZZ_SEED_MAX}"c 2>/dev/null
        done
    done | sort -u | while read -r f; do
        n=$((n + 1))
        cp "$f" "$corpus/seeds/$(echo "$f" | tr '/ ' '__')"
    done
    if [ -z "$(ls -A "$corpus/seeds")" ]; then
        # No files of that kind: byte patterns (fuzz_lua reads bytes as calls).
        for i in 1 2 3 4 5 6 7 8; do
            awk -v s="$i" 'BEGIN { srand(s); for (k = 0; k < 64 * s; k++) printf "%c", int(rand() * 255) + 1 }' \
                >"$corpus/seeds/pattern$i"
        done
    fi
    echo "== $name: $(ls -A "$corpus/seeds" | wc -l) seeds, $(ls "$corpus/found" | wc -l) found before, ${FUZZ_SECONDS}s"
    log=build/fuzz/$name.log
    "$bin" -max_total_time="$FUZZ_SECONDS" -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb="$FUZZ_MALLOC_MB" \
        -print_final_stats=1 \
        -artifact_prefix="$art/$name-" "$corpus/found" "$corpus/seeds" >"$log" 2>&1
    status=$?
    ran=$((ran + 1))
    grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+ +DONE' "$log" | tr '\n' ' '
    echo
    if [ "$status" -ne 0 ]; then
        failed=$((failed + 1))
        echo "  FAIL $name (exit $status); log: $log"
        grep -E 'ERROR: |SUMMARY: |runtime error|Test unit written to' "$log" | head -n 8 | sed 's/^/    /'
        for a in $(sed -n 's/.*Test unit written to //p' "$log"); do
            echo "    replay: $bin $a"
        done
    fi
done
echo "fuzz-smoke: $ran targets run, $failed failed"
[ "$failed" -eq 0 ]
