#!/bin/sh
# The demo scene behind `make run`: marrow's mannequin walking (up/down in
# the window switches to its idle and wave clips).
#   - with a display: a window (Esc or closing it ends the demo);
#   - without one (DISPLAY and WAYLAND_DISPLAY unset, or MARROW_HEADLESS=1):
#     two seconds at 30 fps rendered headless into out/demo/frame_NNNN.png,
#     and the path printed. The same command twice writes identical files.
set -eu
cd "$(dirname "$0")/.."
MODEL=models/mannequin.md5mesh
ANIMS="models/walk_inplace.md5anim models/idle.md5anim models/wave.md5anim"

if [ -z "${MARROW_HEADLESS:-}" ] && [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    exec ./marrow view $MODEL $ANIMS
fi
rm -rf out/demo
./marrow view $MODEL $ANIMS --headless --frames 60 --fps 30 --size 640x480 --out out/demo >/dev/null
echo "demo: wrote 60 frames of the mannequin walking: out/demo/frame_0000.png .. out/demo/frame_0059.png"
