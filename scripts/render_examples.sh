#!/bin/sh
# Renders the reference PNG beside every example (examples/NAME.png), headless.
# Each example takes its own screenshot at a fixed frame; the frame counts
# below run it just past that frame.
set -eu
cd "$(dirname "$0")/.."
for e in hello:31 lower_arm_while_walking:25 look_at_camera:41 two_characters:46 skeleton_view:31 \
         wave_while_walking:31 walk_run_crossfade:79 reach_target:46 head_tracking:71 sword_in_hand:20 \
         timeline_two_characters:101 walk_across_floor:241 retarget_wave:31 cmu_on_mannequin:121 \
         twist_dq_vs_linear:20; do
    name=${e%%:*}
    ./marrow run --headless "examples/$name.lua" --frames "${e##*:}" --out examples >/dev/null
    echo "examples/$name.png"
done
