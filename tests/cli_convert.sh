# cli_convert.sh — `marrow convert` between MD5 and COLLADA, and `.dae` through
# the commands every model format shares (info, pose, view).
. tests/lib.sh
suite cli_convert
ASTRO=$SHARED/lab101-bonesAssimpTest/bin/data/astroBoy_walk.dae

expect_exit "convert --help" 0 $MARROW convert --help
run $MARROW --help
for f in MD5 COLLADA glTF BVH; do
    expect_match "marrow --help names $f for convert" "$(printf '%s\n' "$OUT" | grep -A1 'marrow convert')" "$f"
done
run $MARROW convert --help
for f in MD5 COLLADA glTF BVH; do expect_match "convert --help names $f" "$OUT" "$f"; done
expect_exit "convert without OUT is a usage error" 2 $MARROW convert models/mannequin.md5mesh
expect_exit "convert to an unknown format is a usage error" 2 $MARROW convert models/mannequin.md5mesh "$TMP/x.fbx"
expect_exit "convert of a missing file is bad input" 3 $MARROW convert /nonexistent.md5mesh "$TMP/x.dae"

# MD5 -> COLLADA -> MD5 keeps the joints, vertices and clip.
run $MARROW convert models/mannequin.md5mesh models/walk.md5anim "$TMP/m.dae"
[ "$RC" -eq 0 ] && pass "mannequin + walk to COLLADA" || fail "mannequin + walk to COLLADA" "exit $RC" "$ERR"
mkdir -p "$TMP/back"
run $MARROW convert "$TMP/m.dae" "$TMP/back/mannequin.md5mesh"
[ "$RC" -eq 0 ] && pass "COLLADA back to MD5" || fail "COLLADA back to MD5" "exit $RC" "$ERR"
[ -f "$TMP/back/walk.md5anim" ] && pass "the clip comes back as walk.md5anim" || fail "the clip comes back as walk.md5anim"
[ -f "$TMP/back/mannequin_body.png" ] && pass "textures are copied beside the MD5 mesh" || fail "textures are copied beside the MD5 mesh"
run $MARROW info "$TMP/back/mannequin.md5mesh" "$TMP/back/walk.md5anim"
expect_match "round trip keeps 22 joints" "$OUT" '^joints: 22$'
expect_match "round trip keeps every vertex" "$OUT" '^meshes: 2 \(2960 vertices, 5864 triangles\)'
expect_match "round trip keeps the walk's 34 frames" "$OUT" 'walk: 34 frames at 30 fps'
expect_match "round trip has no warnings" "$OUT" '^warnings: 0$'
# Posed meshes agree after the round trip. COLLADA's reader orders vertices by
# first use, so compare what does not depend on order: the sorted coordinates.
$MARROW pose models/mannequin.md5mesh models/walk.md5anim --time 0.4 --obj "$TMP/a.obj" >/dev/null
$MARROW pose "$TMP/back/mannequin.md5mesh" "$TMP/back/walk.md5anim" --time 0.4 --obj "$TMP/b.obj" >/dev/null
for f in a b; do grep '^v ' "$TMP/$f.obj" | awk '{ printf "%.2f %.2f %.2f\n", $2, $3, $4 }' | sort >"$TMP/$f.sorted"; done
same=$(paste -d' ' "$TMP/a.sorted" "$TMP/b.sorted" | awk '{ n++; if ($1 == $4 && $2 == $5 && $3 == $6) s++ } END { printf "%d of %d", s, n }')
case "$same" in
    "2960 of 2960"|29[0-9][0-9]" of 2960") pass "posed round trip: vertices agree to 0.01 in ($same)" ;;
    *) fail "posed round trip: vertices agree to 0.01 in" "$same" ;;
esac

# models/mannequin.dae is what `make models` writes: regenerating gives the same
# bytes, except texture paths, which are relative to where the file is written.
run $MARROW convert models/mannequin.md5mesh models/idle.md5anim models/walk.md5anim models/wave.md5anim \
    models/run.md5anim models/walk_inplace.md5anim models/run_inplace.md5anim "$TMP/mannequin.dae"
grep -v '<init_from>' "$TMP/mannequin.dae" >"$TMP/new.dae"; grep -v '<init_from>' models/mannequin.dae >"$TMP/old.dae"
cmp -s "$TMP/new.dae" "$TMP/old.dae" && pass "models/mannequin.dae regenerates byte for byte" \
    || fail "models/mannequin.dae regenerates byte for byte" "run 'make models' and commit"

# A COLLADA file from Maya goes through info, pose and convert like MD5 does.
run $MARROW info "$ASTRO"
[ "$RC" -eq 0 ] && pass "info astroBoy" || fail "info astroBoy" "exit $RC" "$ERR"
expect_match "info astroBoy states the conversion" "$OUT" 'converted to Y-up metres'
run $MARROW pose "$ASTRO" --time 0.5 --obj "$TMP/astro.obj"
[ "$RC" -eq 0 ] && [ "$(grep -c '^v ' "$TMP/astro.obj")" -gt 1000 ] && pass "pose astroBoy" || fail "pose astroBoy" "exit $RC" "$ERR"
mkdir -p "$TMP/astro"
run $MARROW convert "$ASTRO" "$TMP/astro/astroBoy.md5mesh"
[ "$RC" -eq 0 ] && pass "astroBoy to MD5" || fail "astroBoy to MD5" "exit $RC" "$ERR"
run $MARROW info "$TMP/astro/astroBoy.md5mesh" "$TMP/astro/astroBoy_walk.md5anim"
[ "$RC" -eq 0 ] && pass "the converted astroBoy loads with its clip" || fail "the converted astroBoy loads with its clip" "exit $RC" "$ERR"

# info counts the vertices with more than 4 and more than 8 influences in the
# file; converting keeps up to 8, so the MD5 copy reports the same.
TM=$SHARED/thinmatrix-opengl-animation/Resources/res/model.dae
run $MARROW info "$TM"
expect_match "info ThinMatrix counts vertices over 4 influences" "$OUT" '^influences: 158 vertices have more than 4, 0 more than 8'
mkdir -p "$TMP/tm"
run $MARROW convert "$TM" "$TMP/tm/tm.md5mesh"
run $MARROW info "$TMP/tm/tm.md5mesh"
expect_match "ThinMatrix as MD5 keeps its 5- and 6-influence vertices" "$OUT" '^influences: 158 vertices have more than 4, 0 more than 8'
run $MARROW info "$SHARED/magnum-plugins/src/MagnumPlugins/AssimpImporter/Test/skin-multiple-sets.dae"
expect_match "info counts vertices over 8 influences" "$OUT" '^influences: 10 vertices have more than 4, 10 more than 8'
expect_match "the cut beyond 8 is a warning" "$OUT" '10 skinned vertices had more than 8 joint influences'

# --retarget: the mannequin's clips played by Bob (MD5) and astroBoy (COLLADA).
BOB=$SHARED/assimp/test/models-nonbsd/MD5/Bob.md5mesh
expect_exit "--retarget without TARGET is a usage error" 2 $MARROW convert models/mannequin.md5mesh "$TMP/x.dae" --retarget
expect_exit "--feet without --retarget is a usage error" 2 $MARROW convert models/mannequin.md5mesh --feet "$TMP/x.dae"
expect_exit "--retarget onto a missing model is bad input" 3 $MARROW convert models/mannequin.md5mesh models/wave.md5anim --retarget /nonexistent.dae "$TMP/x.dae"
mkdir -p "$TMP/rt"
run $MARROW convert models/mannequin.md5mesh models/wave.md5anim models/walk.md5anim --retarget "$BOB" --feet "$TMP/rt/bob.md5mesh"
[ "$RC" -eq 0 ] && pass "mannequin clips retargeted onto Bob" || fail "mannequin clips retargeted onto Bob" "exit $RC" "$ERR"
expect_match "the joint map is printed" "$OUT" '^  upperarm\.R <- upperarm_l \(upperarm, right\)$'
expect_match "what stays unmapped is printed" "$OUT" '^unmapped target joints \(keep their rest pose\): origin sheath sword pubis'
expect_match "feet contacts are held" "$OUT" '^retargeted walk: .* [1-9][0-9]* contacts held, 0 keys out of reach$'
run $MARROW info "$TMP/rt/bob.md5mesh" "$TMP/rt/wave.md5anim"
expect_match "Bob plays the wave as an md5anim" "$OUT" 'wave: 61 frames at 30 fps, 2.000 s, 19 joints animated'
run $MARROW convert models/mannequin.md5mesh models/wave.md5anim --retarget "$ASTRO" "$TMP/rt/astro.dae"
[ "$RC" -eq 0 ] && pass "the wave retargeted onto astroBoy (COLLADA)" || fail "the wave retargeted onto astroBoy (COLLADA)" "exit $RC" "$ERR"
run $MARROW info "$TMP/rt/astro.dae"
expect_match "astroBoy's document holds only the wave" "$OUT" '^clips: 1$'

# Anim files do not go with a COLLADA model.
expect_exit "anims after a .dae are refused" 3 $MARROW info "$ASTRO" models/walk.md5anim
# Every .dae among the shared models loads or fails cleanly (0 or 3).
find $SHARED -name '*.dae' | sort | while read -r f; do
    run $MARROW info "$f"
    if [ "$RC" -ne 0 ] && [ "$RC" -ne 3 ]; then echo "info $f: exit $RC" >>"$TMP/unclean"; fi
    if [ "$RC" -eq 3 ] && ! printf '%s' "$ERR" | grep -q '^collada: '; then echo "info $f: $ERR" >>"$TMP/unclean"; fi
done
[ -s "$TMP/unclean" ] && fail "info on every shared .dae exits 0, or 3 with a collada: message" "$(cat "$TMP/unclean")" \
                      || pass "info on every shared .dae exits 0, or 3 with a collada: message"

# ---- to BVH: the skeleton and one clip, read back the same -----------------------------
expect_exit "convert mannequin + walk to .bvh" 0 $MARROW convert models/mannequin.md5mesh models/walk.md5anim "$TMP/walk.bvh"
expect_exit "the .bvh loads back" 0 $MARROW info "$TMP/walk.bvh"
expect_match "... with the walk's clip" "$OUT" 'clips:|walk'
expect_exit "a .bvh of two clips is a usage error" 2 \
    $MARROW convert models/mannequin.md5mesh models/walk.md5anim models/run.md5anim "$TMP/two.bvh"
expect_match "... saying a .bvh holds one clip" "$ERR" 'a .bvh holds exactly one clip; the input has 2'
[ ! -e "$TMP/two.bvh" ] && pass "... and writes nothing" || fail "... and writes nothing"
# Outside the checkout, relative model paths are looked for in marrow's own
# folder too (cli.h, mr_cli_load_model), and a missing one says where.
M_ABS=$(cd "$(dirname "$MARROW")" && pwd)/$(basename "$MARROW")
mkdir -p "$TMP/away"
(cd "$TMP/away" && "$M_ABS" convert models/mannequin.md5mesh models/wave.md5anim --retarget models/mannequin.md5mesh \
    "$TMP/away/r.glb" >"$TMP/away.out" 2>&1)
[ $? -eq 0 ] && [ -s "$TMP/away/r.glb" ] && pass "convert --retarget models/... from another folder finds marrow's models" \
    || fail "convert --retarget models/... from another folder finds marrow's models" "$(tail -n 3 "$TMP/away.out")"
(cd "$TMP/away" && "$M_ABS" convert models/mannequin.md5mesh --retarget models/nope.md5mesh "$TMP/away/n.glb" \
    >"$TMP/away.out" 2>&1)
grep -q "looked for 'models/nope.md5mesh' and '/.*/models/nope.md5mesh'" "$TMP/away.out" \
    && pass "a TARGET found nowhere: the message lists where it was looked for" \
    || fail "a TARGET found nowhere: the message lists where it was looked for" "$(cat "$TMP/away.out")"
# --map S=T gives the joint map, as marrow.retarget's opts.map does.
run $MARROW convert models/mannequin.md5mesh models/wave.md5anim --retarget models/mannequin.md5mesh \
    --map upperarm_l=upperarm_r --map lowerarm_l=lowerarm_r "$TMP/mapped.glb"
[ "$RC" -eq 0 ] && expect_match "--map: the printed map is the one given" "$OUT" '^mapped 2 of 22 target joints:$' \
    || fail "--map S=T retargets with the given map" "exit $RC" "$ERR"
expect_exit "--map without = is a usage error" 2 $MARROW convert models/mannequin.md5mesh --retarget models/mannequin.md5mesh \
    --map upperarm_l "$TMP/m2.glb"
expect_exit "--map naming no joint is refused" 2 $MARROW convert models/mannequin.md5mesh --retarget models/mannequin.md5mesh \
    --map nope=hand_l "$TMP/m3.glb"
expect_match "... naming the joint" "$ERR" "'nope' is not a joint of the source skeleton"
expect_exit "--map without --retarget is a usage error" 2 $MARROW convert models/mannequin.md5mesh --map a=b "$TMP/m4.glb"
# --mirror: the mannequin's walk mirrored left for right (anim/mirror.h). Its
# mid-plane is y = 0, so the posed mirrored mesh is the original posed mesh
# with y negated: the sorted vertex coordinates agree.
run $MARROW convert --help
expect_match "convert --help names --mirror" "$OUT" 'convert IN \[ANIM...\] --mirror OUT'
mkdir -p "$TMP/mir"
run $MARROW convert models/mannequin.md5mesh models/walk.md5anim --mirror "$TMP/mir/m.md5mesh"
[ "$RC" -eq 0 ] && pass "--mirror writes the mirrored walk" || fail "--mirror writes the mirrored walk" "exit $RC" "$ERR"
expect_match "--mirror prints the pairs" "$OUT" 'thigh_l <-> thigh_r'
expect_match "--mirror names the plane" "$OUT" 'mid-plane normal \(0, 1, 0\) at 0'
[ -f "$TMP/mir/walk_mirror.md5anim" ] && pass "the clip is written as walk_mirror.md5anim" || fail "the clip is written as walk_mirror.md5anim"
$MARROW pose models/mannequin.md5mesh models/walk.md5anim --time 0.4 --obj "$TMP/mir/a.obj" >/dev/null
$MARROW pose "$TMP/mir/m.md5mesh" "$TMP/mir/walk_mirror.md5anim" --time 0.4 --obj "$TMP/mir/b.obj" >/dev/null
# Both clips are packed (each within 1e-4 of the size of its keys), so the
# reflected original and the mirror are matched point for point within 3e-4
# of the size (tests/tools/obj_compare: nearest neighbour both ways).
awk '/^v / { printf "v %s %s %s\n", $2, -$3, $4; next } { print }' "$TMP/mir/a.obj" >"$TMP/mir/a_reflected.obj"
same=$("${TEST_BIN_DIR:-build/release/tests}/tools/obj_compare" "$TMP/mir/b.obj" "$TMP/mir/a_reflected.obj" 3e-4 2>&1)
[ $? -eq 0 ] && pass "mirrored posed mesh is the reflected original ($same)" \
    || fail "mirrored posed mesh is the reflected original" "$same"
run $MARROW convert /usr/share/assimp/models/BVH/01_01.bvh --mirror "$TMP/mir/01_01.dae"
[ "$RC" -eq 0 ] && pass "--mirror on a CMU take" || fail "--mirror on a CMU take" "exit $RC" "$ERR"
expect_match "... pairs CMU's LHipJoint" "$OUT" 'LHipJoint <-> RHipJoint'
expect_exit "--mirror without a clip is a usage error" 2 $MARROW convert models/sword.md5mesh --mirror "$TMP/mir/s.glb"

summary
