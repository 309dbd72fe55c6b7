#!/bin/sh
# The demo scene behind `make run`. Until the renderer lands this runs the main
# job as far as it goes: the mannequin's `info`, and its walk posed mid-stride
# as an OBJ under out/.
set -eu
cd "$(dirname "$0")/.."
mkdir -p out
./marrow info models/mannequin.md5mesh models/walk.md5anim
./marrow pose models/mannequin.md5mesh models/walk.md5anim --clip walk --time 0.5 --obj out/mannequin_walk.obj
echo "demo: wrote out/mannequin_walk.obj"
