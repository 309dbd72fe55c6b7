#!/bin/sh
# cli_save.sh — marrow.save writes files that view like the live model:
#   - saved as .dae, .gltf, .glb and .md5mesh from a textured model (the
#     mannequin; snoutx10k's 1024x1024 PNGs from ../shared/models), each file
#     read from another folder finds every texture (copies beside .dae and
#     .md5mesh, embedded in glTF): `marrow info` names no missing or refused
#     texture;
#   - `marrow info` names the rest pose (A-pose, facing +X), and so does each
#     saved file's;
#   - a save writes the model as it was loaded (formats/save.h: a deep copy,
#     mr_model_copy): the source file edited or emptied on disk after the
#     load changes nothing.
. "$(dirname "$0")/lib.sh"
suite cli_save

S=tests/data/save
M_ABS=$(cd "$(dirname "$MARROW")" && pwd)/$(basename "$MARROW")   # for runs from another folder
MODELS="models/mannequin.md5mesh"
SNOUT=$SHARED/tomatenquark-essential/packages/models/snoutx10k/snoutx10k.md5mesh
[ -f "$SNOUT" ] && MODELS="$MODELS $SNOUT"

for model in $MODELS; do
    name=$(basename "$model" .md5mesh)
    out="$TMP/$name/out"
    run $MARROW run --headless $S/save_all.lua --frames 1 --out "$out" -- "$model"
    if [ "$RC" -ne 0 ]; then fail "$name: saved in every format" "exit $RC" "$(echo "$ERR" | head -3)"; continue; fi
    mkdir -p "$TMP/elsewhere"
    for ext in dae gltf glb md5mesh; do
        info=$(cd "$TMP/elsewhere" && "$M_ABS" info "$out/saved.$ext" 2>&1)
        textures=$(printf '%s\n' "$info" | grep -c '^ *texture .*([0-9]*x[0-9]*')
        bad=$(printf '%s\n' "$info" | grep -E '^ *texture .*(missing|refused|unreadable)' | head -2)
        if [ "$textures" -ge 2 ] && [ -z "$bad" ]; then
            pass "$name: saved.$ext read from another folder finds its $textures textures"
        else
            fail "$name: saved.$ext read from another folder finds its textures" "$bad" \
                "$(printf '%s\n' "$info" | grep texture | head -3)"
        fi
    done
done

# `marrow info` says a rig's rest pose on its header lines, and a saved file
# keeps it (the mannequin: an A-pose facing +X, in every format).
run $MARROW info models/mannequin.md5mesh
expect_match "info says the mannequin's rest pose" "$OUT" '^rest pose: A-pose \(arms 45 deg below horizontal\), facing \+X$'
for ext in dae glb md5mesh; do
    run $MARROW info "$TMP/mannequin/out/saved.$ext"
    expect_match "saved.$ext keeps the rest pose" "$OUT" '^rest pose: A-pose \(arms 45 deg below horizontal\), facing \+X$'
done

# What is saved is what was loaded, whatever happens to the file after.
mkdir -p "$TMP/src"
cp models/mannequin.md5mesh models/mannequin_body.png models/mannequin_shoes.png "$TMP/src/"
run $MARROW run --headless --trust $S/edit_then_save.lua --frames 1 --out "$TMP/e1" -- "$TMP/src/mannequin.md5mesh" rename
if [ "$RC" -eq 0 ] && grep -q 'mannequin_body' "$TMP/e1/saved.md5mesh" && ! grep -q 'edited_body' "$TMP/e1/saved.md5mesh"; then
    pass "a source file edited after the load does not change what is saved"
else
    fail "a source file edited after the load does not change what is saved" "exit $RC" "$(echo "$OUT$ERR" | head -4)"
fi
cp models/mannequin.md5mesh "$TMP/src/"
run $MARROW run --headless --trust $S/edit_then_save.lua --frames 1 --out "$TMP/e2" -- "$TMP/src/mannequin.md5mesh" break
if [ "$RC" -eq 0 ] && [ -s "$TMP/e2/saved.glb" ] && [ -s "$TMP/e2/saved.md5mesh" ] && ! printf '%s' "$OUT" | grep -q nil; then
    pass "a source file emptied after the load: the save still writes the loaded model"
else
    fail "a source file emptied after the load: the save still writes the loaded model" "exit $RC" "$(echo "$OUT$ERR" | head -4)"
fi
run $MARROW info "$TMP/e2/saved.glb"
expect_match "the saved .glb has the loaded model's 22 joints" "$OUT" "^joints: 22$"

summary
