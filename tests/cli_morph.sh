# cli_morph.sh — morph targets and skinning modes through `marrow pose`:
# glTF morph files posed at keys and between them against an independent
# reader written from the glTF specification (tests/tools/gltf_morph_ref.py),
# within 0.01 % of the model size; weight overrides; malformed morph data
# refused or warned about with its location; --skinning dq on rigid poses.
. tests/lib.sh
suite cli_morph
REF="$PY tests/tools/gltf_morph_ref.py"
CUBE=/usr/share/assimp/models/glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf

# pose_vs_ref NAME MODEL CLIP TIME: marrow pose and the reference agree.
pose_vs_ref() {
    run $MARROW pose "$2" --clip "$3" --time "$4" --obj "$TMP/m.obj"
    if [ "$RC" -ne 0 ]; then fail "$1" "pose exit $RC" "$ERR"; return; fi
    $REF pose "$2" "$3" "$4" >"$TMP/r.obj"
    if out=$($REF compare "$TMP/r.obj" "$TMP/m.obj" 0.01); then pass "$1 ($out)"; else fail "$1" "$out"; fi
}

if [ -f "$CUBE" ]; then
    # Keys every 1/30 s: 1.0 is key 30, 1.0166 halfway to key 31.
    for t in 0 1.0 1.0166 1.7 2.4 3.33 4.2; do
        pose_vs_ref "AnimatedMorphCube at $t s agrees with the glTF reference" "$CUBE" Square "$t"
    done
    run $MARROW info "$CUBE"
    expect_match "info lists AnimatedMorphCube's two morph targets" "$OUT" 'morph targets: 2 \(target0 0, target1 0\)'
    run $MARROW pose "$CUBE" --clip Square --time 1.7 --obj "$TMP/a.obj"
    run $MARROW pose "$CUBE" --rest --obj "$TMP/b.obj"
    if cmp -s "$TMP/a.obj" "$TMP/b.obj"; then fail "the morphed cube differs from its rest pose"
    else pass "the morphed cube differs from its rest pose"; fi
    # The renderer draws the clip's weights: frames at 0 and 1.7 s differ.
    run $MARROW view --headless "$CUBE" --time 0 --no-hud --size 160x120 --out "$TMP/c0.png"
    run $MARROW view --headless "$CUBE" --time 1.7 --no-hud --size 160x120 --out "$TMP/c17.png"
    if [ -s "$TMP/c0.png" ] && ! cmp -s "$TMP/c0.png" "$TMP/c17.png"; then pass "view draws the morph weights of the clip"
    else fail "view draws the morph weights of the clip" "$ERR"; fi
    expect_exit "view --skinning with an unknown mode is a usage error" 2 $MARROW view --headless "$CUBE" --skinning x
else
    fail "AnimatedMorphCube is installed (assimp-testmodels)" "$CUBE missing"
fi

$REF fixtures "$TMP/fx"
Q=$TMP/fx/quad.gltf
for clip in step linear cubic; do
    for t in 0 0.5 1 1.3 2 3; do
        pose_vs_ref "quad, $clip weights at $t s, agrees with the glTF reference" "$Q" "$clip" "$t"
    done
done

# Shape keys on a skinned mesh: morphed in bind space, then skinned.
for t in 0 0.5 1 1.5 2; do
    pose_vs_ref "skinned quad with morph weights at $t s agrees with the glTF reference" "$TMP/fx/skinned_quad.gltf" bend "$t"
done

# Written back: marrow convert to .gltf and .glb keeps targets, names,
# default weights and weights channels; the reference reads the written
# .gltf and agrees with marrow's pose of it.
for src in quad:cubic skinned_quad:bend; do
    f=${src%%:*}; clip=${src##*:}
    for ext in gltf glb; do
        run $MARROW convert "$TMP/fx/$f.gltf" "$TMP/rt_$f.$ext"
        if [ "$RC" -ne 0 ]; then fail "$f converts to .$ext" "$ERR"; continue; fi
        run $MARROW info "$TMP/rt_$f.$ext"
        expect_match "$f.$ext written back keeps its targets" "$OUT" 'morph targets: 2 \(lift 0.25, lean 0.5\)'
        expect_match "$f.$ext written back keeps its weights channel" "$OUT" 'morph weights: 1 meshes animated'
        for t in 0.5 1.3; do
            run $MARROW pose "$TMP/fx/$f.gltf" --clip "$clip" --time "$t" --obj "$TMP/a.obj"
            run $MARROW pose "$TMP/rt_$f.$ext" --clip "$clip" --time "$t" --obj "$TMP/b.obj"
            if out=$($REF compare "$TMP/a.obj" "$TMP/b.obj" 0.01); then pass "$f.$ext written back poses the same at $t s ($out)"
            else fail "$f.$ext written back poses the same at $t s" "$out"; fi
        done
    done
    pose_vs_ref "the written $f.gltf agrees with the glTF reference" "$TMP/rt_$f.gltf" "$clip" 1.3
done

# Without a clip the mesh's default weights (0.25, 0.5) apply.
run $MARROW pose "$Q" --rest --obj "$TMP/m.obj"
$REF pose "$Q" - 0 >"$TMP/r.obj"
if out=$($REF compare "$TMP/r.obj" "$TMP/m.obj" 0.01); then pass "quad rest pose has the mesh's default weights ($out)"
else fail "quad rest pose has the mesh's default weights" "$out"; fi
# --bind writes the mesh as loaded: unmorphed.
run $MARROW pose "$Q" --bind --obj "$TMP/bind.obj"
sed 's/"weights": \[0.25, 0.5\]/"weights": [0, 0]/' "$Q" >"$TMP/fx/quad0.gltf"
$REF pose "$TMP/fx/quad0.gltf" - 0 >"$TMP/r.obj"
if out=$($REF compare "$TMP/r.obj" "$TMP/bind.obj" 0.01); then pass "--bind leaves the quad unmorphed ($out)"
else fail "--bind leaves the quad unmorphed" "$out"; fi
if cmp -s "$TMP/bind.obj" "$TMP/m.obj"; then fail "--bind differs from the morphed rest pose"
else pass "--bind differs from the morphed rest pose"; fi

# --morph NAME=W overrides the clip's weight; the reference with the same
# weight as the mesh default gives the expected positions.
sed 's/"weights": \[0.25, 0.5\]/"weights": [0.25, 0.9]/' "$Q" >"$TMP/fx/quad09.gltf"
run $MARROW pose "$Q" --rest --morph lean=0.9 --obj "$TMP/m.obj"
$REF pose "$TMP/fx/quad09.gltf" - 0 >"$TMP/r.obj"
if out=$($REF compare "$TMP/r.obj" "$TMP/m.obj" 0.01); then pass "--morph lean=0.9 overrides the weight ($out)"
else fail "--morph lean=0.9 overrides the weight" "$out"; fi
expect_exit "--morph without =W is a usage error" 2 $MARROW pose "$Q" --morph lean --obj "$TMP/m.obj"
expect_exit "--morph with a NaN weight is a usage error" 2 $MARROW pose "$Q" --morph lean=nan --obj "$TMP/m.obj"

# Malformed morph data: refused with the JSON path, or a located warning.
for f in bad_weights_count bad_prim_targets bad_channel_count bad_nan_weight; do
    run $MARROW info "$TMP/fx/$f.gltf"
    if [ "$RC" -eq 3 ] && printf '%s' "$ERR" | grep -q "^gltf: $TMP/fx/$f.gltf: /"; then
        pass "$f is refused with the JSON path of the problem"
    else
        fail "$f is refused with the JSON path of the problem" "exit $RC" "$ERR"
    fi
done
run $MARROW info "$TMP/fx/bad_weights_count.gltf"
expect_match "a weights count that disagrees is named" "$ERR" "/meshes/0: 'weights' has 3 entries but the primitives have 2 morph targets"
run $MARROW info "$TMP/fx/bad_prim_targets.gltf"
expect_match "target counts that disagree between primitives are named" "$ERR" "/meshes/0/primitives/1/targets: 1 morph targets, but primitive 0 has 2"
run $MARROW info "$TMP/fx/some_prims.gltf"
expect_match "targets on some primitives only: a located warning" "$OUT" "/meshes/0/primitives/1: 1 primitives of meshes with morph targets have none"

# The cache has no place for morph data: a .glb with morphs is read from
# its source every time, and keeps its targets the second time too.
for i in 1 2; do
    run env MARROW_CACHE_DIR="$TMP/cache" $MARROW info tests/data/gltf/hard.glb
    expect_match "hard.glb keeps its morph target on load $i (cache bypassed)" "$OUT" 'morph targets: 1 \(target0 0\)'
done

# Skinning modes: rigid poses are the same with linear and dq skinning.
BL=$SHARED/blender-3.4-gltf
for f in $BL/skinnedcube.gltf $BL/thinmatrix_model.glb; do
    b=$(basename "$f")
    run $MARROW pose "$f" --rest --obj "$TMP/lin.obj"
    run $MARROW pose "$f" --rest --skinning dq --obj "$TMP/dq.obj"
    if out=$($REF compare "$TMP/lin.obj" "$TMP/dq.obj" 0.001); then pass "$b rest pose: dq equals linear ($out)"
    else fail "$b rest pose: dq equals linear" "$out"; fi
done
expect_exit "--skinning with an unknown mode is a usage error" 2 $MARROW pose "$Q" --skinning cubic --obj "$TMP/m.obj"

summary
