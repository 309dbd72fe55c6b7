# cli_hostile_runner.sh — what `marrow test` reads and writes beside a
# scene is untrusted input (issue 40, "Trust, round 2"): golden folders and
# files that are links (to files, folders and PNGs outside), FIFOs where
# goldens belong, a golden PNG whose header claims gigapixels, a scene table
# whose __index loops, scene file names that would forge results.tsv; then
# a property test over random trees of them (tests/tools/golden_tree_fuzz.py).
# A decoy folder beside the scene holds what the links point at; a hang is
# caught by `timeout` (exit 124) and fails its check.
. tests/lib.sh
suite cli_hostile_runner
export MARROW_CACHE=0
T="timeout -k 5 20"
S="$TMP/scenes"
D="$TMP/decoy"
O="$TMP/runs"   # not $TMP/out: lib.sh keeps stdout there

mkdir -p "$S" "$D/folder"
echo "decoy-secret-77" >"$D/secret.txt"
cp tests/scenes/lighting.golden/0000.png "$D/image.png"
decoy_sum() { (cd "$D" && find . -exec ls -ld {} + | sed 's/ [A-Z][a-z][a-z] .* \./ ./' && find . -type f -exec cat {} +) | cksum; }
SUM=$(decoy_sum)
scene() {  # NAME: a tiny scene of two shots
    cat >"$S/$1.lua" <<'EOF'
scene = {size = {32, 24}, shots = {0, 1}}
local m = require "marrow"
function draw() m.camera{target = {0, 1, 0}, distance = 4} end
EOF
}

# ---- --update never writes through a link --------------------------------------
scene planted
mkdir "$S/planted.golden"
ln -s "$D/secret.txt" "$S/planted.golden/0000.pose.json.tmp"
ln -s "$D/secret.txt" "$S/planted.golden/0000.pose.json"
ln -s "$D/image.png" "$S/planted.golden/0001.png"
expect_exit "--update with goldens linked to outside files: exit 0" 0 $T $MARROW test --update --timeout 10 --out "$O" "$S/planted.lua"
if [ "$(decoy_sum)" = "$SUM" ]; then pass "... the linked files are untouched"
else fail "... the linked files are untouched" "$(cat "$D/secret.txt" | head -c 200)"; fi
if [ -f "$S/planted.golden/0000.pose.json" ] && [ ! -L "$S/planted.golden/0000.pose.json" ] && [ ! -L "$S/planted.golden/0001.png" ]
then pass "... the links were replaced by the goldens"; else fail "... the links were replaced by the goldens" "$(ls -l "$S/planted.golden")"; fi
if ls -a "$S/planted.golden" | grep -q '^\.0'; then fail "... no temporary file is left" "$(ls -a "$S/planted.golden")"
else pass "... no temporary file is left"; fi

scene linked
ln -s "$D/folder" "$S/linked.golden"
expect_exit "--update with NAME.golden a link to a folder: the shots fail (exit 1)" 1 $T $MARROW test --update --timeout 10 --out "$O" "$S/linked.lua"
expect_match "... saying it is a link" "$OUT" 'linked.golden: is a symbolic link \(expected a folder; refused\)'
if [ -z "$(ls -A "$D/folder")" ]; then pass "... nothing was written into the folder it points at"
else fail "... nothing was written into the folder it points at" "$(ls -A "$D/folder")"; fi
rm "$S/linked.golden"
expect_exit "a run with no goldens fails (exit 1)" 1 $T $MARROW test --timeout 10 --out "$O" "$S/linked.lua"
ln -s "$D/folder" "$S/linked.golden"
expect_exit "--approve into NAME.golden that became a link is refused (exit 1)" 1 $T $MARROW test --approve "$O"
expect_match "... saying it is a link" "$ERR" 'linked.golden: is a symbolic link'
if [ -z "$(ls -A "$D/folder")" ]; then pass "... nothing was approved into the folder it points at"
else fail "... nothing was approved into the folder it points at" "$(ls -A "$D/folder")"; fi
rm "$S/linked.golden"

# ---- reads: links, FIFOs, huge headers -------------------------------------------
scene reads
mkdir "$S/reads.golden"
ln -s "$D/secret.txt" "$S/reads.golden/0000.pose.json"
ln -s "$D/image.png" "$S/reads.golden/0000.png"
mkfifo "$S/reads.golden/0001.png" "$S/reads.golden/0001.pose.json"
start=$(date +%s)
expect_exit "goldens linked out and FIFO goldens: the shots fail (exit 1)" 1 $T $MARROW test --timeout 15 --out "$O" "$S/reads.lua"
took=$(( $(date +%s) - start ))
if [ "$took" -le 5 ]; then pass "... at once, not at --timeout (${took} s)"; else fail "... at once, not at --timeout" "took $took s"; fi
expect_match "... a linked pose golden is refused as a link" "$OUT" 'reads.golden/0000.pose.json: is a symbolic link'
expect_match "... a FIFO golden is refused as a FIFO" "$OUT" 'reads.golden/0001.png: is a FIFO'
if printf '%s\n' "$OUT$ERR" | grep -q decoy-secret; then fail "... the linked file's bytes are not shown" "$OUT"
else pass "... the linked file's bytes are not shown"; fi
if [ -e "$O/reads/0000/expected.png" ]; then fail "... the linked PNG is not copied into the report"
else pass "... the linked PNG is not copied into the report"; fi

scene huge
mkdir "$S/huge.golden"
$PY - "$S/huge.golden/0000.png" <<'PY'
import struct, sys, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
w = h = 16000                              # 1 GB of pixels from a 100 KB file
rows = zlib.compress(b"\0" * (w * 4 + 1) * 64, 9)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PY
start=$(date +%s)
expect_exit "a golden PNG claiming 16000x16000: the shot fails (exit 1)" 1 $T $MARROW test --timeout 15 --out "$O" "$S/huge.lua"
took=$(( $(date +%s) - start ))
if [ "$took" -le 5 ]; then pass "... refused by its header, not decoded (${took} s)"; else fail "... refused by its header, not decoded" "took $took s"; fi
expect_match "... naming the golden and its size" "$OUT" 'huge.golden/0000.png'

# ---- the scene table is read under the budget -------------------------------------
printf 'scene = setmetatable({}, {__index = function() while true do end end})\n' >"$S/loop.lua"
start=$(date +%s)
expect_exit "a scene table whose __index loops fails (exit 1)" 1 $T $MARROW test --timeout 15 --out "$O" "$S/loop.lua"
took=$(( $(date +%s) - start ))
if [ "$took" -le 8 ]; then pass "... stopped by the budget, not --timeout (${took} s)"; else fail "... stopped by the budget" "took $took s"; fi
expect_match "... saying so" "$OUT" 'reading `scene` ran past its time budget'

# ---- scene names that would forge results.tsv ----------------------------------
mkdir "$TMP/names"
scene plain && mv "$S/plain.lua" "$TMP/names/plain.lua"
cp "$TMP/names/plain.lua" "$TMP/names/$(printf 'evil\tinjected.lua\t0\tfail\nb.lua')"
run $T $MARROW test --update --timeout 10 --out "$TMP/names_out" "$TMP/names"
expect_match "a scene file named with a tab and a newline is skipped" "$ERR" 'control characters'
if grep -q 'injected' "$TMP/names_out/results.tsv"; then fail "... and results.tsv holds no forged line" "$(cat "$TMP/names_out/results.tsv")"
else pass "... and results.tsv holds no forged line"; fi

# ---- the scene files and their models are untrusted too --------------------------
mkdir "$TMP/sf"
mkfifo "$TMP/sf/fifo.lua"
ln -s "$D/secret.txt" "$TMP/sf/leak.lua"
printf 'scene = {size = {32, 24}, shots = {0}}\nlocal m = require "marrow"\nfunction load() print(m.model("evil.md5mesh")) end\n' >"$TMP/sf/model.lua"
ln -s "$D/secret.txt" "$TMP/sf/evil.md5mesh"
start=$(date +%s)
expect_exit "a FIFO scene, a scene that is a link out, a model that is a link out: exit 1" 1 $T $MARROW test --timeout 15 --out "$O" "$TMP/sf"
took=$(( $(date +%s) - start ))
if [ "$took" -le 8 ]; then pass "... at once, not at --timeout (${took} s)"; else fail "... at once" "took $took s"; fi
expect_match "... the FIFO scene is refused as a FIFO" "$OUT" 'fifo.lua: is a FIFO'
expect_match "... the linked scene as a link" "$OUT" 'leak.lua: is a symbolic link'
if { cat "$O/model/log.txt"; printf '%s\n' "$OUT"; } | grep -q decoy-secret; then fail "... the linked model's bytes are not shown" "$(cat "$O/model/log.txt")"
else pass "... the linked model's bytes are not shown"; fi
expect_match "... the linked model is refused as a link out of its folder" "$(cat "$O/model/log.txt")" 'evil.md5mesh: a link out of its folder'

if [ "$(decoy_sum)" = "$SUM" ]; then pass "the decoy folder is as it was"; else fail "the decoy folder is as it was"; fi

# ---- random trees of links, FIFOs and files -------------------------------------
mkdir "$TMP/fuzz"
$PY tests/tools/golden_tree_fuzz.py "$MARROW" "$TMP/fuzz" 5 >"$TMP/fuzz.log" 2>&1
n_ok=$(grep -c '^  ok' "$TMP/fuzz.log")
if grep -q '^  FAIL' "$TMP/fuzz.log" || [ "$n_ok" -lt 35 ]; then fail "random golden trees: all properties hold" "$(grep -A2 '^  FAIL' "$TMP/fuzz.log" | head -12)"
else pass "random golden trees: $n_ok properties hold (5 rounds: decoy unchanged, exit 0/1/3/4 in time, no decoy bytes shown)"; fi

summary
