#!/bin/sh
# examples.sh — the one list of the examples: prints NAME:FRAMES for every
# examples/NAME.lua, in name order. FRAMES runs the example just past the
# frame at which it takes its own picture, read from the example itself
# (its line `if m.headless() and m.frame() == N then m.screenshot("NAME.png")`),
# so an example added or changed needs no list edited anywhere.
# Used by scripts/render_examples.sh, scripts/soak_heap.sh, tests/cli_lua.sh
# and tests/test_examples.c. An example without such a line is an error.
cd "$(dirname "$0")/.."
status=0
for f in examples/*.lua; do
    name=$(basename "$f" .lua)
    n=$(sed -nE "s/.*m\.frame\(\) *== *([0-9]+) *then *m\.screenshot\(\"$name\.png\"\).*/\1/p" "$f" | head -n 1)
    if [ -z "$n" ]; then
        echo "examples.sh: $f takes no picture $name.png at a fixed frame" >&2
        status=1
        continue
    fi
    echo "$name:$((n + 1))"
done
exit $status
