/* bench_lua_interp.c — plain Lua code inside marrow against the same code
 * in stock Lua, in the same process and the same liblua: what the host's
 * sandbox, time budget and pattern matcher cost a script that computes.
 *
 * Each workload is one Lua function timed inside Lua (os.clock around the
 * work, as a script would time itself). It runs in three states, one turn
 * of each in every round so load on a shared machine hits them alike:
 *   stock    luaL_newstate + luaL_openlibs, the function called with lua_pcall;
 *   sandbox  a marrow script (mr_lua_ctx, the default sandbox) calling it
 *            from update(), under the frame budget and the watchdog;
 *   trust    the same with desc.trust (`marrow run --trust`).
 * Printed: milliseconds per call (median of the rounds) and each marrow
 * state's ratio to stock. Workloads:
 *   vectors   3-vectors in tables normalised and summed with math.sqrt
 *             (no calls but sqrt: the interpreter's loop itself);
 *   springs   a damped spring per element stepped through a small closure
 *             (a Lua function call per element);
 *   patterns  a 400-line "key = value" text split into lines with gmatch,
 *             each line trimmed (match), its captures taken (match) and its
 *             runs of blanks squeezed (gsub): marrow's budgeted matcher
 *             (lua/pattern.c) against lstrlib.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "bench/bench.h"
#include "core/str.h"
#include "lua/script.h"

/* The workloads: each a global function taking a repeat count and
 * returning the seconds its work took by os.clock. */
static const char workloads[] =
    "local sqrt = math.sqrt\n"
    "function vectors(n)\n"
    "  local pts = {}\n"
    "  for i = 1, 1000 do pts[i] = {x = i * 0.5, y = 1 + i * 0.25, z = 2 - i * 0.125} end\n"
    "  local t0 = os.clock()\n"
    "  local acc = 0\n"
    "  for r = 1, n do\n"
    "    for i = 1, #pts do\n"
    "      local p = pts[i]\n"
    "      local l = sqrt(p.x * p.x + p.y * p.y + p.z * p.z)\n"
    "      p.x, p.y, p.z = p.x / l + r * 1e-3, p.y / l, p.z / l\n"
    "      acc = acc + l\n"
    "    end\n"
    "  end\n"
    "  local dt = os.clock() - t0\n"
    "  assert(acc == acc)\n"
    "  return dt\n"
    "end\n"
    "function springs(n)\n"
    "  local pos, vel = {}, {}\n"
    "  for i = 1, 1000 do pos[i], vel[i] = i * 0.01, 0 end\n"
    "  local k, d = 40, 6\n"
    "  local function step(x, v, target, dt)\n"
    "    local a = k * (target - x) - d * v\n"
    "    v = v + a * dt\n"
    "    return x + v * dt, v\n"
    "  end\n"
    "  local t0 = os.clock()\n"
    "  for r = 1, n do\n"
    "    local target = (r % 7) * 0.1\n"
    "    for i = 1, #pos do pos[i], vel[i] = step(pos[i], vel[i], target, 1 / 60) end\n"
    "  end\n"
    "  local dt = os.clock() - t0\n"
    "  assert(pos[1] == pos[1])\n"
    "  return dt\n"
    "end\n"
    "local lines = {}\n"
    "for i = 1, 400 do\n"
    "  lines[i] = string.format('  key_%d  =   value %d  with   some   words\\t ', i, i * 7)\n"
    "end\n"
    "local text = table.concat(lines, '\\n')\n"
    "function patterns(n)\n"
    "  local t0 = os.clock()\n"
    "  local total = 0\n"
    "  for r = 1, n do\n"
    "    for line in text:gmatch('[^\\n]+') do\n"
    "      local t = line:match('^%s*(.-)%s*$')\n"
    "      local k, v = t:match('^([%w_]+)%s*=%s*(.-)$')\n"
    "      local s = t:gsub('%s+', ' ')\n"
    "      total = total + #k + #v + #s\n"
    "    end\n"
    "  end\n"
    "  local dt = os.clock() - t0\n"
    "  assert(total > 0)\n"
    "  return dt\n"
    "end\n";

/* The marrow script: the workloads, and update() running the one named by
 * the global `which` (set by load() from arg[1]) and printing its seconds. */
static const char script_tail[] =
    "local which, reps = arg[1], tonumber(arg[2])\n"
    "function update(dt)\n"
    "  print(string.format('%.9f', _G[which](reps)))\n"
    "end\n";

typedef struct workload {
    const char *name;
    int reps, quick_reps;        /* the function's argument: about 20-40 ms of work */
    const char *what;
} workload;

static const workload loads[] = {
    {"vectors", 60, 6, "1,000 table vectors normalised (sqrt), per call"},
    {"springs", 60, 6, "1,000 springs stepped through a Lua closure"},
    {"patterns", 30, 3, "400 lines: gmatch split, trim, captures, gsub"},
};

/* Seconds of one call of fn(reps) in the stock state L; < 0 on an error. */
static double time_stock(lua_State *L, const char *fn, int reps)
{
    lua_getglobal(L, fn);
    lua_pushinteger(L, reps);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        printf("  stock Lua failed: %s\n", lua_tostring(L, -1));
        lua_pop(L, 1);
        return -1;
    }
    double s = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return s;
}

/* A marrow context running the workload fn under the sandbox (trust 0) or
 * trusted; NULL on failure (printed). */
static mr_lua_ctx *make_ctx(const char *path, const char *fn, const char *reps, int trust)
{
    char *argv[2] = {(char *)fn, (char *)reps};
    /* headless 0: os.clock is the process's CPU clock, as in stock Lua */
    mr_lua_desc d = {.script = path, .quiet = 1, .budget = 30, .trust = trust, .argc = 2, .argv = argv};
    mr_lua_ctx *ctx = NULL;
    mr_error err = {0};
    if (mr_lua_ctx_create(&d, &ctx) != MR_OK || mr_lua_start(ctx, &err) != MR_OK) {
        printf("  marrow script failed: %s\n", err.msg[0] ? err.msg : "no memory");
        mr_lua_ctx_destroy(ctx);
        return NULL;
    }
    return ctx;
}

/* Seconds of one update() of ctx (printed by the script); < 0 on an error. */
static double time_ctx(mr_lua_ctx *ctx)
{
    mr_error err = {0};
    if (mr_lua_update(ctx, 1.0 / 60.0, &err) != MR_OK) {
        printf("  marrow script failed: %s\n", err.msg);
        return -1;
    }
    mr_lua_end_frame(ctx);
    const char *last = NULL;
    for (int i = 0; mr_lua_console_line(ctx, i); i++) last = mr_lua_console_line(ctx, i);
    return last ? atof(last) : -1;
}

void mr_bench_lua_interp(const mr_bench_opts *o)
{
    int rounds = o->quick ? 3 : 21;
    printf("== Lua interpreter: the same Lua function in stock Lua (%s, same process), in a marrow\n"
           "   script under the sandbox and with --trust; ms per call by os.clock inside Lua,\n"
           "   median of %d rounds (one call of each per round)\n", LUA_RELEASE, rounds);
    printf("  %-9s %-48s %8s %8s %8s %8s %8s\n", "workload", "what", "stock", "sandbox", "trust", "sb/stock",
           "tr/stock");
    char path[] = "/tmp/marrow_bench_interp_XXXXXX.lua";
    int fd = mkstemps(path, 4);
    if (fd < 0) {
        printf("  skipped: no temporary file\n");
        return;
    }
    char *src = mr_str_fmt("%s%s", workloads, script_tail);
    ssize_t len = src ? (ssize_t)strlen(src) : -1;
    int wrote = src && write(fd, src, (size_t)len) == len;
    close(fd);
    free(src);
    lua_State *L = luaL_newstate();
    if (!wrote || !L) {
        printf("  skipped: could not write the script or make a Lua state\n");
        if (L) lua_close(L);
        unlink(path);
        return;
    }
    luaL_openlibs(L);
    if (luaL_dostring(L, workloads) != LUA_OK) {
        printf("  stock Lua failed: %s\n", lua_tostring(L, -1));
        lua_close(L);
        unlink(path);
        return;
    }
    for (size_t w = 0; w < sizeof loads / sizeof *loads; w++) {
        const workload *b = &loads[w];
        int reps = o->quick ? b->quick_reps : b->reps;
        char reps_s[16];
        snprintf(reps_s, sizeof reps_s, "%d", reps);
        mr_lua_ctx *sb = make_ctx(path, b->name, reps_s, 0), *tr = make_ctx(path, b->name, reps_s, 1);
        double st[64], sa[64], ta[64];
        int ok = sb && tr;
        /* one warm-up call each */
        ok = ok && time_stock(L, b->name, reps) >= 0 && time_ctx(sb) >= 0 && time_ctx(tr) >= 0;
        for (int r = 0; r < rounds && ok; r++) {
            st[r] = time_stock(L, b->name, reps);
            sa[r] = time_ctx(sb);
            ta[r] = time_ctx(tr);
            ok = st[r] >= 0 && sa[r] >= 0 && ta[r] >= 0;
        }
        if (ok) {
            double s = mr_bench_median(st, rounds), a = mr_bench_median(sa, rounds), t = mr_bench_median(ta, rounds);
            printf("  %-9s %-48s %8.2f %8.2f %8.2f %7.2fx %7.2fx\n", b->name, b->what, s * 1e3, a * 1e3, t * 1e3,
                   s > 0 ? a / s : 0, s > 0 ? t / s : 0);
        }
        mr_lua_ctx_destroy(sb);
        mr_lua_ctx_destroy(tr);
    }
    lua_close(L);
    unlink(path);
}
