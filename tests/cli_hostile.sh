# cli_hostile.sh — files made to crash, hang or leak through marrow's
# loaders (issue 26, "Trust"): key times closer than a float rate, links out
# of a model's folder, FIFOs and devices where files belong, images that
# decode to gigabytes or thousands of JPEG scans, convert onto its own
# input. Links and FIFOs are made here, in the suite's temporary folder; a
# hang is caught by `timeout` (exit 124) and fails its check.
. tests/lib.sh
suite cli_hostile
export MARROW_CACHE=0
T="timeout -k 5 20"

# ---- key times 1e-44 s apart -----------------------------------------------
run $T $MARROW pose tests/data/gltf/tiny_times.gltf --clip wave --time 7e-45 --obj "$TMP/tiny.obj"
expect_exit "pose between keys 1e-44 s apart: no crash, exit 0" 0 $T $MARROW pose tests/data/gltf/tiny_times.gltf --clip wave --time 7e-45 --obj "$TMP/tiny.obj"
run $MARROW info tests/data/gltf/tiny_times.gltf
expect_match "glTF keys closer than 1e-6 s are merged, with the sampler's place" "$OUT" \
    'follow it by less than 1e-06 s \(first at /animations/0/samplers/0/input\)'
expect_exit "BVH Frame Time 1e-44 is refused (exit 3)" 3 $T $MARROW pose tests/data/bvh/bad/frame_time_tiny.bvh --time 0 --obj "$TMP/b.obj"
expect_match "... naming file:line and the minimum" "$ERR" 'frame_time_tiny.bvh:18: expected a finite Frame Time of at least 1e-06 seconds'
expect_exit "BVH Frame Time 1e-6 (the minimum) loads" 0 $MARROW info tests/data/bvh/frame_time_min.bvh
expect_exit "MD5 frameRate 1e30 is refused (exit 3)" 3 $MARROW info models/mannequin.md5mesh tests/bad/md5/anim_framerate_huge.md5anim
expect_match "... naming file:line" "$ERR" 'anim_framerate_huge.md5anim:6: expected a frameRate above 0 and at most 1e\+06'

# ---- links out of the model's folder ---------------------------------------
mkdir -p "$TMP/leak"
$PY - "$TMP/leak/m.gltf" <<'PY'
import json, sys
doc = {"asset": {"version": "2.0"}, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
       "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
       "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}],
       "bufferViews": [{"buffer": 0, "byteLength": 36}], "buffers": [{"byteLength": 36, "uri": "leak.bin"}]}
open(sys.argv[1], "w").write(json.dumps(doc))
PY
ln -s /etc/passwd "$TMP/leak/leak.bin"
expect_exit "glTF buffer linked to /etc/passwd is refused (exit 3)" 3 $MARROW info "$TMP/leak/m.gltf"
expect_match "... naming the buffer and the folder" "$ERR" "/buffers/0: 'uri': cannot read \"leak.bin\" .*resolves to /etc/passwd, outside the model's folder"

mkdir -p "$TMP/md5link"
cp models/mannequin.md5mesh "$TMP/md5link/"
ln -s "$PWD/models/mannequin_body.png" "$TMP/md5link/mannequin_body.png"
run $MARROW info "$TMP/md5link/mannequin.md5mesh"
expect_match "MD5 texture linked out of the folder: a located warning" "$OUT" "shader \"mannequin_body.png\": texture refused: .*outside the model's folder"
if printf '%s\n' "$OUT" | grep -q 'texture .*mannequin_body.png ([0-9]*x[0-9]*)'; then
    fail "info does not read the linked texture" "$(printf '%s\n' "$OUT" | grep mannequin_body)"
else pass "info does not read the linked texture"; fi
run $MARROW convert "$TMP/md5link/mannequin.md5mesh" "$TMP/md5out/m.md5mesh"
if [ -e "$TMP/md5out/mannequin_body.png" ]; then fail "convert does not copy the linked texture"
else pass "convert does not copy the linked texture"; fi

# ---- FIFOs and devices ------------------------------------------------------
mkfifo "$TMP/fifo.md5mesh" "$TMP/fifo.gltf" "$TMP/fifo.bvh" "$TMP/fifo.dae"
for f in fifo.md5mesh fifo.gltf fifo.bvh fifo.dae; do
    expect_exit "info on a FIFO model ($f) is refused at once (exit 3)" 3 $T $MARROW info "$TMP/$f"
done
expect_match "... as no regular file" "$ERR" 'not a regular file'
mkdir -p "$TMP/dae"
sed -e 's#<init_from>mannequin_body.png#<init_from>../../../../../../../../../../dev/stdin#' \
    -e 's#<init_from>mannequin_shoes.png#<init_from>fifo.png#' models/mannequin.dae >"$TMP/dae/m.dae"
mkfifo "$TMP/dae/fifo.png" "$TMP/dae/stdin"
# stdin: a FIFO this shell holds open for writing and never writes (a
# read of it would wait forever); `sleep 30 |` held the suite 30 s.
exec 4<>"$TMP/dae/stdin"
$T $MARROW info "$TMP/dae/m.dae" <&4 >"$TMP/out" 2>"$TMP/err"; RC=$?
exec 4<&-
if [ "$RC" -eq 0 ]; then pass "COLLADA <init_from> of ../../dev/stdin and a FIFO: info ends, exit 0"
else fail "COLLADA <init_from> of ../../dev/stdin and a FIFO: info ends, exit 0" "exit $RC"; fi
expect_match "... the FIFO texture gets a located warning" "$(cat "$TMP/out")" "texture 'fifo.png' \(line [0-9]+\) refused: .*not a regular file"
mkdir -p "$TMP/md5fifo"
cp models/mannequin.md5mesh "$TMP/md5fifo/"
cp models/mannequin_body.png "$TMP/md5fifo/"
mkfifo "$TMP/md5fifo/mannequin_shoes.png"
expect_exit "view with an MD5 shader texture that is a FIFO ends (checker)" 0 \
    $T $MARROW view "$TMP/md5fifo/mannequin.md5mesh" --headless --size 160x120 --out "$TMP/fifo.png"
expect_match "... warning that it is not a regular file" "$ERR" "mannequin_shoes.png.*not a regular file.*checker"

# ---- images over the limits -------------------------------------------------
mkdir -p "$TMP/img"
cp models/mannequin.md5mesh "$TMP/img/"
$PY - "$TMP/img" <<'PY'
import struct, sys, zlib
d = sys.argv[1]
def chunk(t, b):
    return struct.pack(">I", len(b)) + t + b + struct.pack(">I", zlib.crc32(t + b) & 0xffffffff)
# A PNG header claiming 9000 x 9000 (81 Mpixel, under GL's 16384 per side).
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 9000, 9000, 8, 2, 0, 0, 0)) + \
      chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b"")
open(d + "/mannequin_body.png", "wb").write(png)
# A progressive 8x8 JPEG header followed by 100 scans.
sof = b"\xff\xc2" + struct.pack(">HBHHB", 11, 8, 8, 8, 1) + b"\x01\x11\x00"
sos = b"\xff\xda" + struct.pack(">HB", 8, 1) + b"\x01\x00\x00\x3f\x00" + b"\x12\x34\xff\x00\x56"
open(d + "/mannequin_shoes.jpg", "wb").write(b"\xff\xd8" + sof + sos * 100 + b"\xff\xd9")
PY
run $MARROW info "$TMP/img/mannequin.md5mesh"
expect_match "info refuses a 9000x9000 texture (64 Mpixel limit)" "$OUT" 'mannequin_body.png \(refused: .*9000x9000 pixels, more than 64 Mpixel'
expect_match "info refuses a JPEG of 100 scans (limit 64)" "$OUT" 'mannequin_shoes.jpg \(refused: .*a JPEG of 100 scans, more than 64'
expect_exit "view draws checkers for both" 0 $T $MARROW view "$TMP/img/mannequin.md5mesh" --headless --size 160x120 --out "$TMP/img.png"
expect_match "... with a warning naming the file and the limit" "$ERR" "mannequin_body.png.*more than 64 Mpixel.*checker"

# ---- COLLADA: one small geometry instanced 1000 times ---------------------------
$PY - "$TMP/inst.dae" <<'PY'
import sys
n = 40  # a grid of n x n quads: 1681 positions, 3200 triangles, in a 137 KB file
pos = [c for y in range(n + 1) for x in range(n + 1) for c in (x, y, 0)]
idx = [i for y in range(n) for x in range(n)
       for a in [y * (n + 1) + x] for i in (a, a + 1, a + n + 2, a, a + n + 2, a + n + 1)]
inst = "".join('<node id="n%d"><translate>%d 0 0</translate><instance_geometry url="#g"/></node>' % (i, i)
               for i in range(1000))
open(sys.argv[1], "w").write(f'''<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
<asset><unit meter="1"/><up_axis>Y_UP</up_axis></asset>
<library_geometries><geometry id="g" name="grid"><mesh>
<source id="p"><float_array id="pa" count="{len(pos)}">{" ".join(map(str, pos))}</float_array>
<technique_common><accessor source="#pa" count="{len(pos) // 3}" stride="3"/></technique_common></source>
<vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
<triangles count="{len(idx) // 3}"><input semantic="VERTEX" source="#v" offset="0"/><p>{" ".join(map(str, idx))}</p></triangles>
</mesh></geometry></library_geometries>
<library_visual_scenes><visual_scene id="s">{inst}</visual_scene></library_visual_scenes>
<scene><instance_visual_scene url="#s"/></scene></COLLADA>''')
PY
expect_exit "COLLADA instancing past its mesh budget is refused (exit 3)" 3 $MARROW info "$TMP/inst.dae"
expect_match "... naming the instance's element, line and the budget" "$ERR" \
    "node\[@id='n[0-9]+'\]/instance_geometry \(line 10\): instance [0-9]+ of geometry 'grid' .*at most 16 x its size"

# ---- convert ------------------------------------------------------------------
cp models/mannequin.glb "$TMP/a.glb"
cp "$TMP/a.glb" "$TMP/a.orig"
ln -s a.glb "$TMP/link.glb"
expect_exit "convert IN IN (another spelling) is refused" 2 $MARROW convert "$TMP/a.glb" "$TMP/./a.glb"
expect_exit "convert IN LINK-TO-IN is refused" 2 $MARROW convert "$TMP/a.glb" "$TMP/link.glb"
expect_match "... saying it would overwrite the source" "$ERR" 'would overwrite the source'
if cmp -s "$TMP/a.glb" "$TMP/a.orig" && [ -L "$TMP/link.glb" ]; then pass "the source is untouched"
else fail "the source is untouched"; fi
expect_exit "convert into a folder that does not exist creates it" 0 $MARROW convert "$TMP/a.glb" "$TMP/new/deeper/b.gltf"
[ -s "$TMP/new/deeper/b.gltf" ] && pass "... and writes OUT there" || fail "... and writes OUT there"

# An anim written beside OUT never overwrites an input anim either.
mkdir -p "$TMP/md5"; cp models/mannequin.md5mesh models/run.md5anim "$TMP/md5/"; cp "$TMP/md5/run.md5anim" "$TMP/run.orig"
expect_exit "convert whose clip file would be an input anim is refused" 2 \
    $MARROW convert "$TMP/md5/mannequin.md5mesh" "$TMP/md5/run.md5anim" "$TMP/md5/copy.md5mesh"
cmp -s "$TMP/md5/run.md5anim" "$TMP/run.orig" && [ ! -e "$TMP/md5/copy.md5mesh" ] \
    && pass "... the anim is untouched and nothing is written" || fail "... the anim is untouched and nothing is written"

# Writers refuse what marrow's readers would refuse, exit 3, nothing written.
{ printf 'HIERARCHY\nROOT '; head -c 5242880 /dev/zero | tr '\0' J
  printf '\n{\n  OFFSET 0 0 0\n  CHANNELS 3 Zrotation Xrotation Yrotation\n  End Site\n  {\n    OFFSET 0 1 0\n  }\n}\n'
  printf 'MOTION\nFrames: 2\nFrame Time: 0.033\n0 0 0\n10 0 0\n'; } >"$TMP/longname.bvh"
for ext in md5mesh dae glb; do
    expect_exit "convert of a 5 MB joint name to .$ext is refused (exit 3)" 3 $MARROW convert "$TMP/longname.bvh" "$TMP/long.$ext"
    expect_match "... naming the joint and the limit" "$ERR" 'not written: the name of joint 0 is 5242880 bytes, longer than the 4096'
    [ ! -e "$TMP/long.$ext" ] && pass "... and nothing is written" || fail "... and nothing is written"
done
# 3e38 metres is a float; in MD5's inches it is inf.
awk 'f == 0 && /"translation"/ { print; getline; print "    0,"; getline; print "    3e38,"; f = 1; next } { print }' \
    tests/data/gltf/tiny_times.gltf >"$TMP/huge.gltf"
expect_exit "convert whose unit change overflows to inf is refused (exit 3)" 3 $MARROW convert "$TMP/huge.gltf" "$TMP/huge.md5mesh"
expect_match "... naming the joint" "$ERR" "not written: the rest pose of joint 0 'A' is not a finite number"
[ ! -e "$TMP/huge.md5mesh" ] && [ ! -e "$TMP/wave.md5anim" ] && pass "... and no mesh or anim is written" \
    || fail "... and no mesh or anim is written"

# ---- keys closer than 1e-5 s are one key, and a script is told so (issue 40) ----
cat >"$TMP/keys.lua" <<'LUA'
local m = require "marrow"
function load()
  local c = m.clip(m.model("models/mannequin.md5mesh"), {name = "dense", duration = 1})
  for i = 0, 2000 do c:key("pelvis", i * 1e-6, {rotation = m.quat.euler(0, 10, 0)}) end
  print("keys", #c:keys("pelvis"))
end
LUA
run $MARROW run --headless "$TMP/keys.lua" --frames 1
expect_match "2,001 keys 1e-6 s apart: the merge is said, once" "$OUT$ERR" "clip 'dense': the key at .* replaced the key at 0 s \(keys less than 1e-05 s apart are one key"
[ "$(printf '%s\n' "$OUT$ERR" | grep -c 'replaced the key')" -eq 1 ] && pass "... once per clip" || fail "... once per clip"

# ---- a morph target accessor of the wrong count names its count (issue 40) ----
$PY - "$TMP/morph_short.gltf" <<'PY'
import json, sys
d = json.load(open("tests/data/gltf/morph_quad.gltf"))
short = dict(d["accessors"][2], count=3)
short.pop("min", None); short.pop("max", None)
d["accessors"].append(short)
d["meshes"][0]["primitives"][0]["targets"][0]["POSITION"] = len(d["accessors"]) - 1
for b in d["buffers"]:
    b["uri"] = "../../" + "tests/data/gltf/" + b["uri"] if not b["uri"].startswith("data:") else b["uri"]
json.dump(d, open(sys.argv[1], "w"))
PY
run $MARROW info "$TMP/morph_short.gltf"
expect_match "a morph target's POSITION of 3 elements for 4 vertices says 3, not 0" "$ERR$OUT" 'has 3 elements but POSITION has 4'

# ---- print with an embedded NUL (issue 40) ----------------------------------
printf 'function load() print("before\\0after", "next") end\n' >"$TMP/nul.lua"
run $MARROW run --headless "$TMP/nul.lua" --frames 1
expect_match "print shows an embedded NUL (backslash zero) instead of cutting the line" "$OUT" 'before\\0after	next'

summary
