#!/bin/sh
# soak.sh — long runs that must not fall over or grow (`make soak`; not part
# of `make test`). Three phases, each printing its curve (resident memory,
# open descriptors, Lua heap and live GL objects over time) and failing when
# something grows past its bound after the warm-up (the first fifth):
#
#   frames   SOAK_FRAMES (100000) headless frames of tests/soak/choreo.lua:
#            mixers, cross-fades, queues, masks, events, IK, overrides,
#            attachments, mixers and poses thrown away all the time
#   reloads  SOAK_RELOADS (10000) live reloads of tests/soak/reload.lua in a
#            window under Xvfb; the script rewrites itself, its module and a
#            shader, changes models and mixers, and breaks every 7th version
#   scenes   `marrow test --jobs 2` on SOAK_SCENES (500) generated scenes
#            (goldens written first with --update); the parent is sampled
#   library  tests/cli_clip_library.sh with SOAK_TAKES (1000) takes: links to
#            the CMU BVH files loaded as packs under the default --memory,
#            each within 1e-4 of the size of its keys, at most 0.5 MB a take
#            (not in the default phases: several minutes of packing)
#
#   SOAK_PHASES="frames reloads scenes"  which phases to run
#   SOAK_RSS_SLACK_KB (8192)  resident growth allowed after the warm-up
#   SOAK_HEAP_SLACK_KB (2048) growth of what malloc holds (heap_kb) allowed
#                             after the warm-up: resident memory also moves
#                             with fragmentation, heap_kb only with leaks
#   SOAK_DIR (build/soak)     scratch directory (emptied first); give each
#                             concurrent run its own
#
# The counters come from `marrow run` itself (MARROW_STATS_EVERY, see
# src/cli/stats.h); the scene runner's parent is read from /proc.
# Scratch files go to SOAK_DIR. Run it niced on a shared machine.
set -u
cd "$(dirname "$0")/.."
MARROW=${MARROW:-./build/release/marrow}
: "${SOAK_FRAMES:=100000}"
: "${SOAK_RELOADS:=10000}"
: "${SOAK_SCENES:=500}"
: "${SOAK_PHASES:=frames reloads scenes}"
: "${SOAK_RSS_SLACK_KB:=8192}"
: "${SOAK_HEAP_SLACK_KB:=2048}"
dir=${SOAK_DIR:-build/soak}
rm -rf "$dir"
mkdir -p "$dir"
failed=0

# check_curve NAME FILE [SLACK_KB]: FILE holds lines "key=value ..." in time
# order. Prints the curve; fails when, after the warm-up, fds or any gl_*
# count changes, rss_kb grows by more than SLACK_KB (SOAK_RSS_SLACK_KB),
# heap_kb (when present) by more than SOAK_HEAP_SLACK_KB, or lua_kb ends above
# 4 x its warm-up value + 1024.
check_curve() {
    name=$1; file=$2; slack=${3:-$SOAK_RSS_SLACK_KB}
    awk -v name="$name" -v slack="$slack" -v heapslack="$SOAK_HEAP_SLACK_KB" '
    {
        n++
        for (i = 1; i <= NF; i++) { split($i, kv, "="); v[n, kv[1]] = kv[2]; if (n == 1) keys[++nk] = kv[1] }
    }
    END {
        if (n < 3) { printf "  FAIL %s: only %d samples\n", name, n; exit 1 }
        w = int(n / 5) + 1
        printf "  %s curve (%d samples, warm-up ends at sample %d):\n", name, n, w
        step = int(n / 12) + 1
        for (s = 1; s <= n; s++) {
            if (s != 1 && s != w && s != n && (s % step)) continue
            line = "   "
            for (k = 1; k <= nk; k++) line = line " " keys[k] "=" v[s, keys[k]]
            print line
        }
        bad = 0
        for (k = 1; k <= nk; k++) {
            key = keys[k]
            if (key == "fds" || key ~ /^gl_/) {
                for (s = w; s <= n; s++) if (v[s, key] != v[w, key]) {
                    printf "  FAIL %s: %s went from %s to %s (sample %d)\n", name, key, v[w, key], v[s, key], s; bad = 1; break
                }
            }
        }
        maxr = 0; for (s = w; s <= n; s++) if (v[s, "rss_kb"] + 0 > maxr) maxr = v[s, "rss_kb"] + 0
        if (maxr - v[w, "rss_kb"] > slack) {
            printf "  FAIL %s: rss_kb grew from %d to %d after the warm-up\n", name, v[w, "rss_kb"], maxr; bad = 1
        }
        if (v[w, "heap_kb"] != "" && v[w, "heap_kb"] + 0 >= 0) {
            maxh = 0; for (s = w; s <= n; s++) if (v[s, "heap_kb"] + 0 > maxh) maxh = v[s, "heap_kb"] + 0
            if (maxh - v[w, "heap_kb"] > heapslack) {
                printf "  FAIL %s: heap_kb grew from %d to %d after the warm-up\n", name, v[w, "heap_kb"], maxh; bad = 1
            }
            printf "  %s: heap %d -> %d kB (max after warm-up %d)\n", name, v[1, "heap_kb"], v[n, "heap_kb"], maxh
        }
        if (v[n, "lua_kb"] != "" && v[n, "lua_kb"] + 0 > 4 * v[w, "lua_kb"] + 1024) {
            printf "  FAIL %s: lua_kb grew from %d to %d\n", name, v[w, "lua_kb"], v[n, "lua_kb"]; bad = 1
        }
        printf "  %s: rss %d -> %d kB (max after warm-up %d), fds %s -> %s\n", name, v[1, "rss_kb"], v[n, "rss_kb"], maxr, v[1, "fds"], v[n, "fds"]
        exit bad
    }' "$file" || failed=$((failed + 1))
}

stats_of() { sed -n 's/^stats: //p' "$1"; }

for phase in $SOAK_PHASES; do
    case $phase in
    frames)
        every=$((SOAK_FRAMES / 40)); [ "$every" -lt 1 ] && every=1
        echo "== frames: $SOAK_FRAMES headless frames of tests/soak/choreo.lua"
        start=$(date +%s)
        MARROW_STATS_EVERY=$every LP_NUM_THREADS=${LP_NUM_THREADS:-1} \
            "$MARROW" run --headless tests/soak/choreo.lua --frames "$SOAK_FRAMES" --size 96x64 --out "$dir" >"$dir/frames.out" 2>"$dir/frames.err"
        rc=$?
        echo "  exit $rc after $(( $(date +%s) - start )) s"
        [ "$rc" -eq 0 ] || { failed=$((failed + 1)); tail -n 5 "$dir/frames.err"; }
        stats_of "$dir/frames.err" >"$dir/frames.curve"
        check_curve frames "$dir/frames.curve"
        ;;
    reloads)
        echo "== reloads: $SOAK_RELOADS live reloads of tests/soak/reload.lua under Xvfb"
        r=$dir/reload; mkdir -p "$r/shaders"
        cp shaders/* "$r/shaders/"
        cp tests/soak/reload.lua "$r/reload.lua"
        echo 'return {version = 0}' >"$r/reload_module.lua"
        start=$(date +%s)
        # a reload takes ~4 frames: about 40 samples over the run
        every=$((SOAK_RELOADS / 10)); [ "$every" -lt 5 ] && every=5
        MARROW_SHADERS=$r/shaders MARROW_STATS_EVERY=$every \
            xvfb-run -a "$MARROW" run "$r/reload.lua" "$SOAK_RELOADS" "$r/shaders" --size 160x120 \
            >"$dir/reloads.out" 2>"$dir/reloads.err"
        rc=$?
        echo "  exit $rc after $(( $(date +%s) - start )) s; $(grep -c '^reloaded .*reload\.lua' "$dir/reloads.out") reloads, $(grep -c '^reloaded shaders' "$dir/reloads.out") shader reloads, $(grep -c 'broken on purpose' "$dir/reloads.err") refused versions"
        grep '^soak:' "$dir/reloads.out" | sed 's/^/  /'
        grep -q "^soak: $SOAK_RELOADS reloads" "$dir/reloads.out" || { echo "  FAIL reloads: did not reach $SOAK_RELOADS"; failed=$((failed + 1)); }
        [ "$rc" -eq 0 ] || failed=$((failed + 1))
        stats_of "$dir/reloads.err" >"$dir/reloads.curve"
        check_curve reloads "$dir/reloads.curve"
        ;;
    scenes)
        echo "== scenes: marrow test --jobs 2 on $SOAK_SCENES generated scenes"
        s=$dir/scenes; mkdir -p "$s"
        clips="idle walk run wave"
        i=0
        while [ "$i" -lt "$SOAK_SCENES" ]; do
            clip=$(echo $clips | cut -d' ' -f$((i % 4 + 1)))
            cat >"$s/scene_$(printf %04d "$i").lua" <<LUA
-- generated by scripts/soak.sh
local m = require "marrow"
scene = {size = {64, 48}, fps = 30, frames = $((i % 5 + 2)), shots = {$((i % 5 + 1))}}
local man, mixer
function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"$clip"}}))
  mixer = m.mixer(man)
  mixer:play(man:clip("$clip"), {loop = "repeat", start = $((i % 7)) * 0.1})
end
function update(dt) mixer:update(dt) end
function draw()
  m.camera{target = {0, 0.9, 0}, distance = 3, yaw = $((i * 37 % 360))}
  m.draw(man, mixer:pose())
end
LUA
            i=$((i + 1))
        done
        "$MARROW" test --update --jobs 2 --out "$dir/update" "$s" >"$dir/update.out" 2>&1 || {
            echo "  FAIL scenes: --update failed"; tail -n 5 "$dir/update.out"; failed=$((failed + 1)); }
        start=$(date +%s)
        "$MARROW" test --jobs 2 --out "$dir/test" "$s" >"$dir/scenes.out" 2>&1 &
        pid=$!
        : >"$dir/scenes.curve"
        while kill -0 "$pid" 2>/dev/null; do
            rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$pid/status 2>/dev/null)
            fds=$(ls /proc/$pid/fd 2>/dev/null | wc -l)
            kids=$(ps --ppid "$pid" -o pid= 2>/dev/null | wc -l)
            done_n=$(grep -c . "$dir/scenes.out" 2>/dev/null)
            [ -n "$rss" ] && echo "t=$(( $(date +%s) - start )) lines=$done_n rss_kb=$rss fds=$fds children=$kids" >>"$dir/scenes.curve"
            sleep 0.2   # a 500-scene run takes seconds: enough samples for the warm-up rule
        done
        wait "$pid"; rc=$?
        echo "  exit $rc after $(( $(date +%s) - start )) s: $(tail -n 1 "$dir/scenes.out")"
        [ "$rc" -eq 0 ] || failed=$((failed + 1))
        # children come and go: only the parent's memory and descriptors count.
        # The parent keeps one mr_scene_result (~40 kB: 64 shots of 512-byte
        # messages, src/testkit/report.h) per scene and reads each whole, so its
        # resident memory grows by that much per scene by design.
        sed 's/ children=[0-9]*//; s/ lines=[0-9]*//; s/^t=[0-9]* //' "$dir/scenes.curve" >"$dir/scenes.curve2"
        check_curve scenes "$dir/scenes.curve2" $((SOAK_RSS_SLACK_KB + SOAK_SCENES * 40))
        ;;
    library)
        echo "== library: ${SOAK_TAKES:-1000} takes"
        MARROW=$MARROW CLIP_LIBRARY_TAKES=${SOAK_TAKES:-1000} sh tests/cli_clip_library.sh | tee "$dir/library.out"
        grep -q ', 0 failed$' "$dir/library.out" || failed=$((failed + 1))
        ;;
    *) echo "soak: unknown phase '$phase'"; failed=$((failed + 1)) ;;
    esac
done
echo "soak: $failed failed"
[ "$failed" -eq 0 ]
