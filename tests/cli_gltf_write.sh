#!/bin/sh
# cli_gltf_write.sh — `marrow convert` to .gltf / .glb, checked by readers
# that are not marrow's:
#   - assimp (tests/tools/assimp_pose, its glTF2 importer) poses the written
#     file; `marrow pose` of the SOURCE model must agree within 0.1 % of the
#     bounding-box diagonal at the first, middle and last key (and between
#     keys where the source is LINEAR), every vertex matched
#     (tests/tools/compare_poses.c, vertices paired by rest position);
#   - gltfpack (meshoptimizer) must accept every written file;
#   - the .glb container is checked byte by byte (header, chunk lengths).
# Frames: glTF is Y-up metres. `marrow pose` writes an MD5 model in its own
# frame (Z-up inches), so its OBJ is mapped (x, y, z) -> 0.0254 (x, z, -y)
# before comparing; COLLADA models are Y-up metres on both sides already.
. "$(dirname "$0")/lib.sh"
suite cli_gltf_write

REF=${TEST_BIN_DIR:-build/release/tests}/tools/assimp_pose
CMP=${TEST_BIN_DIR:-build/release/tests}/tools/compare_poses
LIMIT=0.1
BOB=$SHARED/assimp/test/models-nonbsd/MD5
ASTRO=$SHARED/lab101-bonesAssimpTest/bin/data/astroBoy_walk.dae
CLIPS="models/idle.md5anim models/walk.md5anim models/wave.md5anim models/run.md5anim models/walk_inplace.md5anim models/run_inplace.md5anim"
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

expect_exit "convert --help names glTF" 0 $MARROW convert --help
expect_match "convert --help names .glb" "$OUT" '\.glb'

# ---- writing -------------------------------------------------------------------
run $MARROW convert models/mannequin.md5mesh $CLIPS "$TMP/mannequin.glb"
[ "$RC" -eq 0 ] && pass "mannequin + 6 clips to .glb" || fail "mannequin + 6 clips to .glb" "exit $RC" "$ERR"
run $MARROW convert models/mannequin.md5mesh $CLIPS "$TMP/new/gltf/man nequin.gltf"
[ "$RC" -eq 0 ] && [ -f "$TMP/new/gltf/man nequin.gltf" ] && pass "writing into a missing folder creates it (as view --out)" \
    || fail "writing into a missing folder creates it (as view --out)" "exit $RC" "$ERR"
mkdir -p "$TMP/gltf"
run $MARROW convert models/mannequin.md5mesh $CLIPS "$TMP/gltf/man nequin.gltf"
[ "$RC" -eq 0 ] && [ -f "$TMP/gltf/man_nequin.bin" ] && pass ".gltf writes STEM.bin beside it (space as _)" \
    || fail ".gltf writes STEM.bin beside it (space as _)" "exit $RC" "$ERR" "$(ls "$TMP/gltf")"
expect_match ".gltf names its buffer by that name" "$(cat "$TMP/gltf/man nequin.gltf")" '"uri": "man_nequin.bin"'
# A texture outside the output's folder is embedded (glTF readers refuse
# uris that climb out of the model's folder); one inside it is referenced.
expect_match ".gltf embeds a texture from outside its folder" "$(cat "$TMP/gltf/man nequin.gltf")" \
    '"mimeType": "image/png"'
if grep -q '"uri": "\.\./' "$TMP/gltf/man nequin.gltf"; then fail ".gltf has no uri climbing out of its folder"
else pass ".gltf has no uri climbing out of its folder"; fi
mkdir -p "$TMP/inside/tex"
cp models/mannequin.md5mesh "$TMP/inside/"; cp models/mannequin_*.png "$TMP/inside/"
run $MARROW convert "$TMP/inside/mannequin.md5mesh" "$TMP/inside/inside.gltf"
expect_match ".gltf references a texture in its folder by uri" "$(cat "$TMP/inside/inside.gltf")" \
    '"uri": "mannequin_body.png"'
run $MARROW info "$TMP/gltf/man nequin.gltf"
expect_match "marrow reads the .gltf it wrote back (exit 0)" "$RC" '^0$'

# Same input, same bytes.
$MARROW convert models/mannequin.md5mesh $CLIPS "$TMP/again.glb" >/dev/null
cmp -s "$TMP/mannequin.glb" "$TMP/again.glb" && pass "the .glb is deterministic" || fail "the .glb is deterministic"
mkdir -p "$TMP/gltf2"
$MARROW convert models/mannequin.md5mesh $CLIPS "$TMP/gltf2/man nequin.gltf" >/dev/null
cmp -s "$TMP/gltf/man nequin.gltf" "$TMP/gltf2/man nequin.gltf" && cmp -s "$TMP/gltf/man_nequin.bin" "$TMP/gltf2/man_nequin.bin" \
    && pass "the .gltf and .bin are deterministic" || fail "the .gltf and .bin are deterministic"
# models/mannequin.glb is what `make models` writes (textures embedded: no path in it).
cmp -s "$TMP/mannequin.glb" models/mannequin.glb && pass "models/mannequin.glb regenerates byte for byte" \
    || fail "models/mannequin.glb regenerates byte for byte" "run 'make models' and commit"

# The .glb container: magic, version 2, total length = file size, a JSON chunk
# then a BIN chunk, both 4-byte padded, and the BIN chunk ends the file.
glb=$($PY - "$TMP/mannequin.glb" <<'EOF'
import json, struct, sys
d = open(sys.argv[1], 'rb').read()
magic, version, length = struct.unpack_from('<III', d, 0)
jl, jt = struct.unpack_from('<II', d, 12)
bl, bt = struct.unpack_from('<II', d, 20 + jl)
doc = json.loads(d[20:20 + jl])
ok = (magic == 0x46546C67 and version == 2 and length == len(d) and jt == 0x4E4F534A and bt == 0x004E4942
      and jl % 4 == 0 and bl % 4 == 0 and 28 + jl + bl == len(d)
      and doc['buffers'][0]['byteLength'] <= bl < doc['buffers'][0]['byteLength'] + 4)
print('ok' if ok else 'bad', magic, version, length, len(d), jl, bl, doc['buffers'][0]['byteLength'])
EOF
)
expect_match ".glb header and chunk lengths are consistent" "$glb" '^ok '

for f in "$TMP/mannequin.glb" "$TMP/gltf/man nequin.gltf"; do
    run gltfpack -i "$f" -o "$TMP/packed.glb"
    if [ "$RC" -eq 0 ] && [ -z "$OUT$ERR" ] && [ -s "$TMP/packed.glb" ]; then pass "gltfpack accepts $(basename "$f")"
    else fail "gltfpack accepts $(basename "$f")" "exit $RC" "$OUT" "$ERR"; fi
done

# ---- posed by assimp vs marrow pose of the source ------------------------------
if [ ! -x "$REF" ]; then
    fail "reference tool $REF is built" "run make test (it builds tests/tools/assimp_pose)"
    summary; exit 1
fi

# to_gltf_frame FRAME IN.obj OUT.obj: FRAME md5 maps Z-up inches to Y-up metres.
to_gltf_frame() {
    if [ "$1" = md5 ]; then
        awk '$1 == "v" { printf "v %.9g %.9g %.9g\n", 0.0254 * $2, 0.0254 * $4, -0.0254 * $3; next }
             $1 == "vn" { printf "vn %.9g %.9g %.9g\n", $2, $4, -$3; next } { print }' "$2" >"$3"
    else
        cp "$2" "$3"
    fi
}

# times_of KEYS...: first, middle and last key, and with "all" two times between keys
times_of() {
    mode=$1; shift
    echo "$@" | awk -v all="$mode" '{ n = NF; m = int((n + 1) / 2); printf "%s %s %s", $1, $m, $n;
        if (all == "all" && n > 1) printf " %.9g %.9g", $1 + ($2 - $1) / 3, $m + ($(m + 1) - $m) / 2;
        printf "\n" }'
}

# compare NAME FRAME OUT.gltf TIMES ONLY SOURCE [ANIM...]: every clip of OUT
# (or only the clip named ONLY; * for all) posed by assimp against
# `marrow pose SOURCE [ANIM...] --clip C`.
compare() {
    c_name=$1; c_frame=$2; c_out=$3; c_times=$4; c_only=$5; shift 5
    if ! $MARROW pose "$@" --rest --obj "$TMP/rest0.obj" >/dev/null 2>"$TMP/err"; then
        fail "$c_name: marrow pose --rest" "$(cat "$TMP/err")"; return
    fi
    to_gltf_frame "$c_frame" "$TMP/rest0.obj" "$TMP/rest.obj"
    if ! $REF "$c_out" --rest -o "$TMP/ar.txt" 2>"$TMP/err" </dev/null; then
        fail "$c_name: assimp reads the written file" "$(cat "$TMP/err")"; return
    fi
    res=$($CMP match "$TMP/rest.obj" "$TMP/rest.obj" "$TMP/ar.txt")
    r=$(echo "$res" | sed -n 's/.* rest \([0-9.]*\)% .*/\1/p')
    u=$(echo "$res" | sed -n 's/.* unmatched \([0-9]*\) .*/\1/p')
    if [ -n "$r" ] && [ "$u" = 0 ] && ! gt "$r" "$LIMIT"; then pass "$c_name rest pose: $r%"
    else fail "$c_name rest pose: ${r:-?}% (limit $LIMIT%)" "$res"; fi
    $REF "$c_out" --list </dev/null 2>/dev/null >"$TMP/list"
    [ -s "$TMP/list" ] || { fail "$c_name: assimp lists the animations"; return; }
    while read -r _ index clip _ _ _ _ keys; do
        [ "$c_only" = "*" ] || [ "$c_only" = "$clip" ] || continue
        k=0; pairs=""; broken=""
        case $c_times in keys:*)  # the key times of another file's same animation
            keys=$($REF "${c_times#keys:}" --list </dev/null 2>/dev/null | sed -n "$((index + 1))s/.* keys //p") ;;
        esac
        for t in $(times_of "$c_times" $keys); do
            k=$((k + 1))
            $MARROW pose "$@" --clip "$clip" --time "$t" --obj "$TMP/m0.obj" >/dev/null 2>&1 || broken="marrow pose --time $t"
            to_gltf_frame "$c_frame" "$TMP/m0.obj" "$TMP/m$k.obj"
            $REF "$c_out" --anim "$index" --time "$t" -o "$TMP/a$k.txt" </dev/null 2>/dev/null || broken="assimp_pose --time $t"
            pairs="$pairs $TMP/m$k.obj $TMP/a$k.txt"
        done
        if [ -n "$broken" ]; then fail "$c_name clip $clip" "$broken failed"; continue; fi
        worst=0; detail=""
        $CMP match "$TMP/rest.obj" $pairs >"$TMP/lines"
        while read -r line; do
            w=$(echo "$line" | sed -n 's/^worst \([0-9.]*\)%.*/\1/p')
            u=$(echo "$line" | sed -n 's/.* unmatched \([0-9]*\) .*/\1/p')
            if [ -z "$w" ] || [ "$u" != 0 ]; then worst=; detail=$line; break; fi
            if gt "$w" "$worst"; then worst=$w; detail=$line; fi
        done <"$TMP/lines"
        if [ -n "$worst" ] && ! gt "$worst" "$LIMIT"; then pass "$c_name clip $clip ($c_times): $worst%"
        else fail "$c_name clip $clip ($c_times): ${worst:-?}% (limit $LIMIT%)" "$detail"; fi
    done <"$TMP/list"
}

compare "mannequin.glb" md5 "$TMP/mannequin.glb" all "*" models/mannequin.md5mesh $CLIPS
compare "mannequin .gltf" md5 "$TMP/gltf/man nequin.gltf" all walk models/mannequin.md5mesh models/walk.md5anim
run $MARROW convert $BOB/Bob.md5mesh $BOB/Bob.md5anim "$TMP/bob.glb"
[ "$RC" -eq 0 ] && pass "Bob to .glb" || fail "Bob to .glb" "exit $RC" "$ERR"
compare "Bob.glb" md5 "$TMP/bob.glb" all "*" $BOB/Bob.md5mesh $BOB/Bob.md5anim
# astroBoy's BEZIER channels become CUBICSPLINE samplers (marrow's fit of the
# curves, with keys added where a segment needed splitting). assimp 5.2 plays
# CUBICSPLINE linearly between its keys, so it is exact only where every
# track has a key: the COLLADA file's own key times (first, middle, last).
run $MARROW convert "$ASTRO" "$TMP/astro.gltf"
[ "$RC" -eq 0 ] && pass "astroBoy (COLLADA) to .gltf" || fail "astroBoy (COLLADA) to .gltf" "exit $RC" "$ERR"
expect_match "astroBoy's TGA texture is embedded as PNG" "$(cat "$TMP/astro.gltf")" '"mimeType": "image/png"'
compare "astroBoy.gltf" collada "$TMP/astro.gltf" "keys:$ASTRO" "*" "$ASTRO"
# ThinMatrix's model has 158 vertices with 5-6 influences: JOINTS_1 / WEIGHTS_1.
TM=$SHARED/thinmatrix-opengl-animation/Resources/res/model.dae
run $MARROW convert "$TM" "$TMP/tm.glb"
[ "$RC" -eq 0 ] && pass "ThinMatrix (COLLADA) to .glb" || fail "ThinMatrix (COLLADA) to .glb" "exit $RC" "$ERR"
expect_match "more than 4 influences write JOINTS_1" "$(tr -d '\000' <"$TMP/tm.glb" | head -c 20000)" '"JOINTS_1"'
compare "ThinMatrix.glb" collada "$TMP/tm.glb" all "*" "$TM"
for f in "$TMP/bob.glb" "$TMP/astro.gltf"; do
    run gltfpack -i "$f" -o "$TMP/packed.glb"
    if [ "$RC" -eq 0 ] && [ -z "$OUT$ERR" ]; then pass "gltfpack accepts $(basename "$f")"
    else fail "gltfpack accepts $(basename "$f")" "exit $RC" "$OUT" "$ERR"; fi
done
# ThinMatrix names a texture that is not there ("character%20Texture.png",
# see collada.h): the uri is kept, and gltfpack says only that.
run gltfpack -i "$TMP/tm.glb" -o "$TMP/packed.glb"
rest=$(printf '%s\n%s\n' "$OUT" "$ERR" | grep -v 'unable to read image 0 (.*character%20Texture.png)' | grep -v '^$')
if [ "$RC" -eq 0 ] && [ -z "$rest" ]; then pass "gltfpack accepts tm.glb (warns only of the missing texture)"
else fail "gltfpack accepts tm.glb (warns only of the missing texture)" "exit $RC" "$OUT" "$ERR"; fi
summary
