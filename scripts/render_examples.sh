#!/bin/sh
# Renders the reference PNG beside every example (examples/NAME.png), headless.
# Each example takes its own screenshot at a fixed frame; scripts/examples.sh
# lists them with the frame counts that run each just past that frame.
# tests/test_examples.c checks that these pictures are what the code draws.
set -eu
cd "$(dirname "$0")/.."
list=$(sh scripts/examples.sh)
for e in $list; do
    name=${e%%:*}
    ./marrow run --headless "examples/$name.lua" --frames "${e##*:}" --out examples >/dev/null
    echo "examples/$name.png"
done
