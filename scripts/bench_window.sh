#!/bin/sh
# bench_window.sh — CPU cost of an open `marrow run` window left alone.
#
#   scripts/bench_window.sh [SECONDS] [-- EXTRA RUN OPTIONS...]
#   MARROW=path/to/marrow scripts/bench_window.sh 60
#
# Starts its own Xvfb (no vsync, llvmpipe: the worst case for a frame loop
# that does not sleep), then for each scene runs `marrow run SCENE` in a
# 960x540 window for SECONDS (default 60), reads the CPU time (user + sys,
# all threads, from /proc/PID/stat) marrow and the X server used, and stops
# marrow with SIGTERM. Scenes: the mannequin walking (examples/hello.lua's
# scene), a script whose draw() does nothing, and (with xdotool) the walking
# mannequin in a window that is unmapped (hidden) once it has started.
#
# One line per scene:
#   window  NAME  SECONDS s: marrow U.UU s CPU (P % of a core), Xvfb ..., N draw() calls (F fps)
# A figure, not a test: nothing here passes or fails on timing. Works with
# any marrow binary (before/after comparisons), run from the repository root.
# Options after -- go to `marrow run`, e.g. the anti-aliasing to compare
# (the default is FXAA; the header line shows the options used):
#   scripts/bench_window.sh 20 -- --aa msaa
set -u
cd "$(dirname "$0")/.."
M=${MARROW:-./marrow}
secs=${1:-60}
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
command -v Xvfb >/dev/null 2>&1 || { echo "bench_window: Xvfb is not installed (apt-get install xvfb)" >&2; exit 1; }
tmp=$(mktemp -d)
xpid=""; mpid=""
trap '[ -n "$mpid" ] && kill "$mpid" 2>/dev/null; [ -n "$xpid" ] && kill "$xpid" 2>/dev/null; rm -rf "$tmp"' EXIT
tck=$(getconf CLK_TCK)

# cpu_ticks PID: utime + stime of the whole process (every thread), in ticks.
cpu_ticks() {
    # field 2 (comm) may hold spaces; cut after the last ')'
    sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{print $12 + $13}'
}

cat >"$tmp/walk.lua" <<'EOF'
local m = require "marrow"
local man, pose, walk
function load()
  man = assert(m.model("models/mannequin.md5mesh", {anims = {"walk_inplace"}}))
  pose = m.pose(man)
  walk = man:clip("walk_inplace")
  m.console(false)
end
function update(dt) walk:sample(m.time(), pose) end
function draw()
  m.camera{target = {0, 0.9, 0}, distance = 3.2, yaw = 60, pitch = 12}
  m.draw(man, pose)
  if m.frame() % 10 == 0 then print("frames " .. m.frame()) end
end
EOF
cat >"$tmp/empty.lua" <<'EOF'
local m = require "marrow"
function load() m.console(false) end
function update(dt) if m.frame() % 10 == 0 then print("frames " .. m.frame()) end end
function draw() end
EOF

Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp 3>"$tmp/display" >"$tmp/xvfb.log" 2>&1 &
xpid=$!
i=0; while [ ! -s "$tmp/display" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
[ -s "$tmp/display" ] || { echo "bench_window: Xvfb did not start" >&2; cat "$tmp/xvfb.log" >&2; exit 1; }
export DISPLAY=":$(cat "$tmp/display")"
unset WAYLAND_DISPLAY

echo "window: $M run --size 960x540 $*, under Xvfb $DISPLAY, ${secs} s per scene; $(nproc) cores,$(uptime | sed 's/.*load/ load/')"
scenes="walk empty"
command -v xdotool >/dev/null 2>&1 && scenes="$scenes hidden"
for scene in $scenes; do
    script=$scene
    case $scene in
        walk) name="mannequin walking";;
        empty) name="empty draw()";;
        hidden) name="walking, hidden"; script=walk;;
    esac
    "$M" run "$tmp/$script.lua" --size 960x540 "$@" >"$tmp/$scene.log" 2>&1 &
    mpid=$!
    sleep 3                                    # start-up (shader compiles, model load) not counted
    if [ $scene = hidden ]; then
        wid=$(xdotool search --pid "$mpid" 2>/dev/null | head -n 1)
        [ -n "$wid" ] && xdotool windowunmap --sync "$wid"
        sleep 0.5
    fi
    m0=$(cpu_ticks "$mpid"); x0=$(cpu_ticks "$xpid")
    f0=$(grep '^frames ' "$tmp/$scene.log" | tail -n 1 | cut -d' ' -f2)
    sleep "$secs"
    m1=$(cpu_ticks "$mpid"); x1=$(cpu_ticks "$xpid")
    f1=$(grep '^frames ' "$tmp/$scene.log" | tail -n 1 | cut -d' ' -f2)
    kill -TERM "$mpid" 2>/dev/null; wait "$mpid" 2>/dev/null; mpid=""
    if [ -z "$m0" ] || [ -z "$m1" ]; then
        echo "window  $name: marrow did not keep running"; tail -n 5 "$tmp/$scene.log"; continue
    fi
    awk -v n="$name" -v s="$secs" -v t="$tck" -v m0="$m0" -v m1="$m1" -v x0="$x0" -v x1="$x1" \
        -v f0="${f0:-0}" -v f1="${f1:-0}" 'BEGIN {
        mc = (m1 - m0) / t; xc = (x1 - x0) / t
        printf "window  %-18s %3d s: marrow %6.2f s CPU (%5.1f %% of a core), Xvfb %6.2f s (%5.1f %%), ~%d draw() calls (%.0f fps)\n",
               n, s, mc, 100 * mc / s, xc, 100 * xc / s, f1 - f0, (f1 - f0) / s }'
done
