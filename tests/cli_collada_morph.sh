# cli_collada_morph.sh — COLLADA <morph> controllers through `marrow pose`:
# NORMALIZED and RELATIVE quads, a skin over a morph, default weights and
# --morph overrides, posed positions checked against the COLLADA 1.4.1
# formulas computed independently (tests/tools/collada_morph_ref.py) within
# 0.01 % of the model size; malformed morphs refused with their location.
. tests/lib.sh
suite cli_collada_morph
FX="$PY tests/tools/collada_morph_ref.py"
CMP="$PY tests/tools/gltf_morph_ref.py compare"
$FX fixtures "$TMP/fx"

# pose_vs_formula NAME FIXTURE W0 W1 TIME POSE-ARGS...: marrow pose agrees
# with the formula for weights (W0, W1) at TIME.
pose_vs_formula() {
    name=$1; f=$2; w0=$3; w1=$4; t=$5; shift 5
    run $MARROW pose "$TMP/fx/$f.dae" "$@" --obj "$TMP/m.obj"
    if [ "$RC" -ne 0 ]; then fail "$name" "pose exit $RC" "$ERR"; return; fi
    $FX expect "$f" "$w0" "$w1" "$t" >"$TMP/r.obj"
    if out=$($CMP "$TMP/r.obj" "$TMP/m.obj" 0.01); then pass "$name ($out)"; else fail "$name" "$out"; fi
}

for f in normalized relative skin_over_morph; do
    run $MARROW info "$TMP/fx/$f.dae"
    expect_match "$f.dae lists its two named targets with default weights" "$OUT" \
        'morph targets: 2 \(smile 0.25, frown 0.5\)'
    if printf '%s' "$OUT" | grep -q 'targets ignored'; then fail "$f.dae: no 'targets ignored' warning" "$OUT"
    else pass "$f.dae: no 'targets ignored' warning"; fi
done

pose_vs_formula "NORMALIZED quad at its default weights" normalized 0.25 0.5 0 --rest
pose_vs_formula "NORMALIZED quad with --morph smile=1" normalized 1 0.5 0 --rest --morph smile=1
pose_vs_formula "NORMALIZED quad with both weights overridden" normalized 0.7 -0.4 0 --rest --morph smile=0.7 --morph frown=-0.4
pose_vs_formula "RELATIVE quad (unit 0.5 m) at its default weights" relative 0.25 0.5 0 --rest
pose_vs_formula "RELATIVE quad with --morph frown=1" relative 0.25 1 0 --rest --morph frown=1
# --bind shows the base mesh unmorphed.
pose_vs_formula "--bind leaves the NORMALIZED quad unmorphed" normalized 0 0 0 --bind
# Skin over morph: morphed in bind space, then the bone's turn.
for t in 0 0.5 1; do
    pose_vs_formula "skin over morph at $t s" skin_over_morph 0.25 0.5 "$t" --clip skin_over_morph --time "$t"
done
pose_vs_formula "skin over morph at 0.5 s with --morph smile=1" skin_over_morph 1 0.5 0.5 \
    --clip skin_over_morph --time 0.5 --morph smile=1
# A morph of a skin is read as the skin over the morph, with a warning;
# that agrees with the spec at the bind pose (the bone at rest).
run $MARROW info "$TMP/fx/morph_over_skin.dae"
expect_match "morph_over_skin.dae has its targets" "$OUT" 'morph targets: 2 \(smile 0.25, frown 0.5\)'
expect_match "morph of a skin: a located warning" "$OUT" "morph 'morph' \(line [0-9]+\) of a skin: its targets are applied before skinning"
pose_vs_formula "morph of a skin at the bind pose" morph_over_skin 0.25 0.5 0 --clip morph_over_skin --time 0
pose_vs_formula "morph of a skin, --morph frown=1, bind pose" morph_over_skin 0.25 1 0 --rest --morph frown=1

# Animated weights: MORPH_WEIGHT_ARRAY(k) and SID(k) channels, a whole
# weights array per key, STEP keys; the formula with the weights the keys
# give at that time (collada_morph_ref.py weights_at).
for f in animated animated_array animated_step; do
    run $MARROW info "$TMP/fx/$f.dae"
    expect_match "$f.dae has a weights channel" "$OUT" 'morph weights: 1 meshes animated'
    for t in 0 0.5 1 1.5 2 3; do
        pose_vs_formula "$f weights at $t s" "$f" 0 0 "$t" --clip "$f" --time "$t"
    done
done
run $MARROW pose "$TMP/fx/animated.dae" --clip animated --time 0.5 --morph smile=0.25 --morph frown=0.9 --obj "$TMP/m.obj"
$FX expect normalized 0.25 0.9 >"$TMP/r.obj"
if out=$($CMP "$TMP/r.obj" "$TMP/m.obj" 0.01); then pass "--morph overrides the animated weights ($out)"
else fail "--morph overrides the animated weights" "$out" "$ERR"; fi
sed 's#target="morph/MORPH_WEIGHT_ARRAY(0)"#target="morph/MORPH_WEIGHT_ARRAY(x)"#' "$TMP/fx/animated.dae" >"$TMP/fx/bad_weight_syntax.dae"

# Written back: glTF morph files (tests/tools/gltf_morph_ref.py fixtures,
# AnimatedMorphCube) and these COLLADA fixtures converted to .dae keep
# their targets, names, default weights and weight channels, and pose the
# same as the source within 0.01 % of the size (vertices compared in a
# sorted order: the writer may renumber them).
REF="$PY tests/tools/gltf_morph_ref.py"
$REF fixtures "$TMP/gl"
CUBE=/usr/share/assimp/models/glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf
roundtrip() {  # NAME SOURCE CLIP TIMES...
    name=$1; src=$2; clip=$3; shift 3
    run $MARROW convert "$src" "$TMP/rt.dae"
    if [ "$RC" -ne 0 ]; then fail "$name converts to .dae" "$ERR"; return; fi
    run $MARROW info "$src"
    if printf '%s' "$OUT" | grep -q 'morph weights:'; then
        run $MARROW info "$TMP/rt.dae"
        expect_match "$name written to .dae keeps a weights channel" "$OUT" 'morph weights: [0-9]+ meshes animated'
    fi
    for t in "$@"; do
        run $MARROW pose "$src" --clip "$clip" --time "$t" --obj "$TMP/a.obj"
        run $MARROW pose "$TMP/rt.dae" --clip "$clip" --time "$t" --obj "$TMP/b.obj"
        $FX sorted "$TMP/a.obj" >"$TMP/as.obj"
        $FX sorted "$TMP/b.obj" >"$TMP/bs.obj"
        if out=$($CMP "$TMP/as.obj" "$TMP/bs.obj" 0.01); then pass "$name written to .dae poses the same at $t s ($out)"
        else fail "$name written to .dae poses the same at $t s" "$out" "$ERR"; fi
    done
}
for clip in step linear cubic; do roundtrip "glTF quad ($clip weights)" "$TMP/gl/quad.gltf" "$clip" 0 0.5 1 1.3 2; done
roundtrip "glTF skinned quad with shape keys" "$TMP/gl/skinned_quad.gltf" bend 0 0.5 1.5
if [ -f "$CUBE" ]; then roundtrip "AnimatedMorphCube" "$CUBE" Square 0 1.0166 1.7 3.33
else fail "AnimatedMorphCube is installed (assimp-testmodels)" "$CUBE missing"; fi
roundtrip "COLLADA skin over morph" "$TMP/fx/skin_over_morph.dae" skin_over_morph 0.5
roundtrip "COLLADA animated weights" "$TMP/fx/animated.dae" animated 0.5 1.5
# And the other way: COLLADA morphs written to glTF, posed by the
# independent glTF reader, agree with the COLLADA formula.
for f in animated skin_over_morph; do
    run $MARROW convert "$TMP/fx/$f.dae" "$TMP/$f.gltf"
    if [ "$RC" -ne 0 ]; then fail "$f.dae converts to .gltf" "$ERR"; continue; fi
    for t in 0.5 1.5; do
        $REF pose "$TMP/$f.gltf" "$f" "$t" >"$TMP/g.obj"
        $FX expect "$f" 0.25 0.5 "$t" >"$TMP/r.obj"
        if out=$($CMP "$TMP/r.obj" "$TMP/g.obj" 0.01); then pass "$f.dae written to glTF agrees with the formula at $t s ($out)"
        else fail "$f.dae written to glTF agrees with the formula at $t s" "$out"; fi
    done
done
run $MARROW convert "$TMP/gl/quad.gltf" "$TMP/rt.dae"
run $MARROW info "$TMP/rt.dae"
expect_match "the written .dae keeps target names and default weights" "$OUT" 'morph targets: 2 \(lift 0.25, lean 0.5\)'
expect_match "the written .dae has a RELATIVE morph controller" "$(cat "$TMP/rt.dae")" '<morph source="#m0-geometry" method="RELATIVE">'
run $MARROW convert "$TMP/gl/skinned_quad.gltf" "$TMP/rt.dae"
expect_match "a skinned morph's skin names the morph as its source" "$(cat "$TMP/rt.dae")" '<skin source="#m0-morph">'

# The model cache has no place for morph data: loaded twice, the targets stay.
for i in 1 2; do
    run env MARROW_CACHE_DIR="$TMP/cache" $MARROW info "$TMP/fx/normalized.dae"
    expect_match "normalized.dae keeps its targets on load $i (cache bypassed)" "$OUT" 'morph targets: 2 \(smile'
done

# Malformed morphs: refused, naming the element and its line.
check_bad() {
    run $MARROW info "$TMP/fx/$1.dae"
    if [ "$RC" -eq 3 ] && printf '%s' "$ERR" | grep -Eq -- "$2"; then pass "$1 is refused: $2"
    else fail "$1 is refused: $2" "exit $RC" "$ERR"; fi
}
check_bad bad_target_count "geometry\[@id='base-smile'\].*\(line [0-9]+\): morph target 'base-smile' has 3 positions, the base geometry 4"
check_bad bad_target_id "source\[@id='morph-targets'\] \(line [0-9]+\): morph target 1 'nowhere' names no element"
check_bad bad_nan_weight "float_array\[@id='morph-weights-array'\] \(line [0-9]+\): value 2 \('NaN'\) is not a finite number"
check_bad bad_weight_count "targets/input\[2\] \(line [0-9]+\): 3 MORPH_WEIGHT values for 2 targets"
check_bad bad_weight_index "animation\[@id='wb'\]/channel \(line [0-9]+\): target 'morph/MORPH_WEIGHT_ARRAY\(5\)': weight 5 does not exist \(the morph has 2 targets\)"
check_bad bad_weight_syntax "channel \(line [0-9]+\): target 'morph/MORPH_WEIGHT_ARRAY\(x\)': cannot read the weight index"
check_bad bad_method "morph \(line [0-9]+\): method=\"AVERAGE\": expected NORMALIZED or RELATIVE"

# One target geometry named many times by a morph of a large base: the deltas are
# bounded by the file's mesh budget, like instancing (before, 1000 names of a
# 30,000-position target decoded to 360 MB from a file of 0.2 MB).
$PY - "$TMP/fx/normalized.dae" "$TMP/huge_morph.dae" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
n = 30000
pos = " ".join("0 0 0" for _ in range(n))
s = s.replace('<float_array id="base-pa" count="12">0 0 0 1 0 0 1 1 0 0 1 0</float_array>',
              '<float_array id="base-pa" count="%d">%s</float_array>' % (3 * n, pos), 1)
s = s.replace('<accessor source="#base-pa" count="4"', '<accessor source="#base-pa" count="%d"' % n, 1)
k = 1000
s = s.replace('<IDREF_array id="morph-targets-array" count="2">base-smile base-frown</IDREF_array>',
              '<IDREF_array id="morph-targets-array" count="%d">%s</IDREF_array>' % (k, " ".join(["base-smile"] * k)), 1)
s = s.replace('<accessor source="#morph-targets-array" count="2"', '<accessor source="#morph-targets-array" count="%d"' % k, 1)
s = s.replace('<float_array id="morph-weights-array" count="2">0.25 0.5</float_array>',
              '<float_array id="morph-weights-array" count="%d">%s</float_array>' % (k, " ".join(["0"] * k)), 1)
s = s.replace('<accessor source="#morph-weights-array" count="2"', '<accessor source="#morph-weights-array" count="%d"' % k, 1)
open(sys.argv[2], "w").write(s)
PY
run $MARROW info "$TMP/huge_morph.dae"
[ "$RC" -eq 3 ] && printf '%s' "$ERR" | grep -q '1000 morph targets of 30000 positions make .* more than this file can describe' \
    && pass "a morph naming one target 1000 times is refused (exit 3, its budget named)" \
    || fail "a morph naming one target 1000 times is refused" "exit $RC" "$ERR"
summary
