# cli_clip_library.sh — a library of motion-capture takes held as packs
# (issue 46): a script loads CLIP_LIBRARY_TAKES (default 120) takes, links
# to the three CMU BVH files of assimp-testmodels in turn, each through
# marrow.model, under the default --memory; it must succeed, every clip
# must sample within 1e-4 of the model's size of its source keys at 121
# times (clip:error, which reads the keys again from the file), and the
# process must grow by at most 0.5 MB per take (its resident set, read by
# the script from /proc: --trust), measured after the first 4 frames (20
# takes, and the renderer's first frames). Then
# marrow.clips loads the folder as one library bound to one skeleton. Run
# with CLIP_LIBRARY_TAKES=1000 for the soak (scripts/soak.sh does).
. tests/lib.sh
suite cli_clip_library

N=${CLIP_LIBRARY_TAKES:-120}
[ "$N" -ge 40 ] || N=40   # 5 takes a frame; growth measured from the fifth frame
CMU=/usr/share/assimp/models/BVH
if [ ! -f "$CMU/01_03.bvh" ]; then
    fail "assimp-testmodels is installed ($CMU)" "scripts/install-deps.sh installs it"
    summary
    exit 1
fi
mkdir -p "$TMP/lib/takes"
i=1
while [ "$i" -le "$N" ]; do
    case $((i % 3)) in 1) s=01_01 ;; 2) s=01_03 ;; 0) s=Boxing_Toes ;; esac
    ln -s "$CMU/$s.bvh" "$TMP/lib/takes/$(printf 'take_%04d' "$i").bvh"
    i=$((i + 1))
done
cat >"$TMP/lib/library.lua" <<'LUA'
-- 5 takes a frame: each callback has its own time budget (and wall-clock
-- limit: 20 budgets + 10 s, loading included), so a library of any size
-- loads within them, on a busy machine too
local m = require "marrow"
local N, PER_FRAME = tonumber(arg[1]), 5
local function rss()   -- kB resident
  local f = assert(io.open("/proc/self/status"))
  local s = f:read("a")
  f:close()
  return tonumber(s:match("VmRSS:%s+(%d+)"))
end
local kept, base, worst, next_take = {}, 0, 0, 1
function update(dt)
  if next_take > N then return end
  if next_take == 4 * PER_FRAME + 1 then base = rss() end   -- after 4 frames: the renderer's first ones
  for i = next_take, math.min(N, next_take + PER_FRAME - 1) do
    local model = assert(m.model(string.format("takes/take_%04d.bvh", i)))
    local c = model:clip(1)
    kept[i] = c
    local e = c:error(121)
    worst = math.max(worst, e)
    if e > 1e-4 then print(string.format("take %d: error %.3g of the size", i, e)) end
    next_take = i + 1
  end
  if next_take <= N then return end
  collectgarbage()
  local held, runtime = 0, 0
  for i = 1, N do
    local r, h = kept[i]:bytes()
    runtime, held = runtime + r, held + h
  end
  local grown = (rss() - base) / (N - 4 * PER_FRAME)
  print(string.format("library: %d takes, worst error %.3g of the size, runtime %.0f bytes a take, held %.0f, " ..
                      "resident set grew %.0f kB a take", N, worst, runtime / N, held / N, grown))
  local clips, model, skipped = m.clips("takes", {progress = false})   -- loaded already: the cached models
  print(string.format("marrow.clips: %d clips of %d joints, %d skipped", #clips, #model:skeleton(), #skipped))
  m.quit()
end
LUA
run sh -c "cd '$TMP/lib' && '$(readlink -f "$MARROW")' run --headless --trust library.lua --budget 5 --frames $((N / 5 + 3)) -- $N"
[ "$RC" -eq 0 ] && pass "$N takes load under the default --memory" || fail "$N takes load" "exit $RC" "$(printf '%s\n' "$ERR" | tail -3)"
line=$(printf '%s\n' "$OUT" | grep '^library: ')
echo "       $line"
expect_match "every take samples within 1e-4 of the size of its keys at 121 times" "$line" \
    'worst error ([0-9.]+e-0[5-9]|[0-9.]+e-[1-9][0-9]|0) of the size'
kb=$(printf '%s\n' "$line" | sed -nE 's/.*grew (-?[0-9]+) kB a take/\1/p')
if [ -n "${MARROW_ASAN:-}" ]; then
    # Under AddressSanitizer the resident set holds its quarantine of freed
    # blocks and their red zones: one tree passed in one ASan run and grew
    # 527 kB a take in the next, where the release build grows 313 kB. What
    # is measured there is the sanitizer, not marrow; make test checks it.
    echo "  skip the process grows by at most 0.5 MB a take: under ASan ($kb kB, its quarantine counted)"
elif [ -n "$kb" ] && [ "$kb" -le 512 ]; then pass "the process grows by at most 0.5 MB a take ($kb kB)"
else fail "the process grows by at most 0.5 MB a take" "${kb:-?} kB a take"; fi
held=$(printf '%s\n' "$line" | sed -nE 's/.*held ([0-9]+),.*/\1/p')
rt=$(printf '%s\n' "$line" | sed -nE 's/.*runtime ([0-9]+) bytes a take.*/\1/p')
if [ -n "$held" ] && [ -n "$rt" ] && [ "$held" -lt $((rt + 4096)) ]; then pass "a take holds its pack, not its keys"
else fail "a take holds its pack, not its keys" "held ${held:-?}, runtime ${rt:-?}"; fi
expect_match "marrow.clips binds the CMU skeleton's takes, skips Boxing_Toes's" "$OUT" \
    "^marrow.clips: $(( N - N / 3 )) clips of 38 joints, $(( N / 3 )) skipped$"

# A take loaded and sampled in the same callback: the sample waits for the
# take's pack, and builds it itself when the worker has not started it
# (about 1.5 s of CPU for 01_03 in the release build). That is the load's
# work, which the budget does not count: under --budget 0.2 the callback
# still samples, where it used to be stopped ("ran past its time budget").
cat >"$TMP/lib/sample_now.lua" <<'LUA'
local m = require "marrow"
function update()
  local model = assert(m.model(arg[1]))
  local pose = m.pose(model)
  model:clip(1):sample(0.5, pose)
  print(string.format("sampled the new take: hips at y %.3f", pose:position(1).y))
  m.quit()
end
LUA
run sh -c "cd '$TMP/lib' && MARROW_CACHE=0 '$(readlink -f "$MARROW")' run --headless --trust sample_now.lua --budget 0.2 --frames 2 -- takes/take_0002.bvh"
if [ "$RC" -eq 0 ] && printf '%s\n' "$OUT" | grep -q '^sampled the new take'; then
    pass "a take's pack built by the callback that samples it first is load work (--budget 0.2)"
else
    fail "a take's pack built by the callback that samples it first is load work (--budget 0.2)" "exit $RC" \
        "$(printf '%s\n' "$ERR" | tail -3)"
fi
summary
