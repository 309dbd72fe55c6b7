/* test_lua.c — the script lifecycle (src/lua/script.c), live reload and its
 * hand-over, error containment (every callback, time budget, memory cap,
 * stack overflow), 1000 reloads without memory growth, the file watcher, and
 * the bindings on a hand-built model. Lua-level binding tests on the
 * mannequin live in tests/lua/ (run by tests/cli_lua.sh). It waits for
 * the file watcher too, but stays in tests/run.sh's pool: its watcher
 * checks time how soon a save is reported (0.2 s), which a third suite
 * beside two lanes on two cores delayed past that once. */
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lauxlib.h>

#include "anim_fixture.h"
#include "lua/draw.h"
#include "lua/frame.h"
#include "lua/scene.h"
#include "lua/script.h"
#include "lua/wrap.h"
#include "platform/pacer.h"
#include "platform/watch.h"
#include "test.h"

static char dir[64];

static const char *path_of(const char *name)
{
    static char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static void write_file(const char *name, const char *text)
{
    FILE *f = fopen(path_of(name), "w");
    fputs(text, f);
    fclose(f);
}

/* A context for dir/name holding the chain fixture as "test:chain". */
static mr_lua_ctx *make_ctx(const char *name, const char *text, double budget, size_t mem)
{
    write_file(name, text);
    mr_lua_desc d = {.script = path_of(name), .headless = 1, .quiet = 1, .budget = budget,
                     .memory_limit = mem};
    mr_lua_ctx *ctx = NULL;
    mr_lua_ctx_create(&d, &ctx);
    mr_model *m = NULL;
    mr_model_create("test:chain", "test", &m);
    fixture_chain(&m->skeleton);
    mr_model_add_clip(m, fixture_clip());
    mr_lua_cache_add(ctx, "test:chain", m);
    return ctx;
}

/* The console line that was printed last. */
static const char *last_line(mr_lua_ctx *ctx)
{
    const char *last = NULL;
    for (int i = 0; mr_lua_console_line(ctx, i); i++) last = mr_lua_console_line(ctx, i);
    return last ? last : "";
}

static int console_has(mr_lua_ctx *ctx, const char *s)
{
    for (int i = 0; mr_lua_console_line(ctx, i); i++)
        if (strstr(mr_lua_console_line(ctx, i), s)) return 1;
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU seconds of this thread: what the time budget counts, so a check on
 * it holds on a loaded machine where the wall clock runs on. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

TEST(lifecycle_calls_every_callback_in_order)
{
    mr_lua_ctx *ctx = make_ctx("life.lua",
        "function load(s) print('load', s) end\n"
        "function update(dt) print('update', dt) end\n"
        "function draw() print('draw', require('marrow').frame()) end\n"
        "function keypressed(k) print('key', k) end\n"
        "function mousemoved(x, y, dx, dy) print('mouse', x, y, dx, dy) end\n"
        "function resize(w, h) print('resize', w, h) end\n"
        "function unload() print('unload') end\n", 1, 0);
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    CHECK_STR_CONTAINS(last_line(ctx), "load    nil");
    CHECK(mr_lua_update(ctx, 0.5, NULL) == MR_OK);
    CHECK_STR_CONTAINS(last_line(ctx), "update  0.5");
    CHECK(mr_lua_draw(ctx, NULL) == MR_OK);
    CHECK_STR_CONTAINS(last_line(ctx), "draw    0");
    mr_lua_end_frame(ctx);
    CHECK_NEAR(mr_lua_time(ctx), 0.5, 1e-12);
    CHECK(mr_lua_keypressed(ctx, "space", NULL) == MR_OK);
    CHECK_STR_CONTAINS(last_line(ctx), "key     space");
    CHECK(mr_lua_mousemoved(ctx, 10, 20, 1, -2, NULL) == MR_OK);
    CHECK_STR_CONTAINS(last_line(ctx), "mouse   10.0    20.0    1.0     -2.0");
    CHECK(mr_lua_resize(ctx, 640, 480, NULL) == MR_OK);
    CHECK_STR_CONTAINS(last_line(ctx), "resize  640.0   480.0");
    mr_lua_stop(ctx);
    CHECK_STR_CONTAINS(last_line(ctx), "unload");
    CHECK(!mr_lua_running(ctx));
    mr_lua_ctx_destroy(ctx);
}

TEST(reload_hands_unload_state_to_load)
{
    mr_lua_ctx *ctx = make_ctx("hand.lua",
        "local m = require 'marrow'\n"
        "local model, pose\n"
        "function load(s) model = m.model('test:chain'); pose = m.pose(model) end\n"
        "function unload()\n"
        "  pose:set_local('a', {1, 2, 3})\n"
        "  local t = {n = 5, v = m.vec3(1, 2, 3), q = m.quat.euler(0, 90, 0), pose = pose,\n"
        "             model = model, clip = model:clip('bend'), f = print}\n"
        "  t.self = t\n"
        "  return t\n"
        "end\n", 1, 0);
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    write_file("hand.lua",
        "function load(s)\n"
        "  print('got', s.n, tostring(s.v), #s.pose, s.pose:get_local('a').y, s.clip:name(),\n"
        "        s.self == s, s.f == nil, s.model:skeleton():name(2))\n"
        "end\n");
    CHECK(mr_lua_reload(ctx, NULL) == MR_OK);
    CHECK(mr_lua_error(ctx) == NULL);
    CHECK(console_has(ctx, "got     5       vec3(1, 2, 3)   3       2.0     bend    true    true    a"));
    CHECK(console_has(ctx, "could not be kept (first: state.f is a function)"));
    CHECK(!console_has(ctx, "reloaded"));      /* not before its first frame ran */
    CHECK(mr_lua_update(ctx, 0.1, NULL) == MR_OK && mr_lua_draw(ctx, NULL) == MR_OK);
    mr_lua_end_frame(ctx);
    CHECK(console_has(ctx, "reloaded"));
    mr_lua_ctx_destroy(ctx);
}

/* Springs (marrow.springs) are handed over with their state: the reloaded
 * script's first update (dt 0) poses the chain where it swung to, where new
 * springs would start at rest. */
TEST(reload_keeps_springs_mid_swing)
{
    mr_lua_ctx *ctx = make_ctx("spring.lua",
        "local m = require 'marrow'\n"
        "local model, pose, sp\n"
        "function load(s)\n"
        "  model = m.model('test:chain'); pose = m.pose(model)\n"
        "  sp = m.springs(model, {chains = {{joints = {'a', 'b'}, stiffness = 0, gravity = {0, 0, -9}}}})\n"
        "  for i = 0, 10 do sp:update(pose, 1 / 60) end\n"
        "  local _, r = pose:get_local('a')\n"
        "  print(('before %.5f'):format(r.w))\n"
        "end\n"
        "function unload() return {sp = sp, pose = pose} end\n", 1, 0);
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    write_file("spring.lua",
        "local m = require 'marrow'\n"
        "function load(s)\n"
        "  local p = m.pose(s.sp and s.pose or m.pose(m.model('test:chain')))\n"
        "  s.sp:update(p, 0)\n"
        "  local _, r = p:get_local('a')\n"
        "  print(('after %.5f %s'):format(r.w, tostring(s.sp)))\n"
        "end\n");
    CHECK(mr_lua_reload(ctx, NULL) == MR_OK);
    CHECK(mr_lua_error(ctx) == NULL);
    const char *before = NULL, *after = NULL;
    for (int i = 0; mr_lua_console_line(ctx, i); i++) {
        const char *l = mr_lua_console_line(ctx, i);
        if (!strncmp(l, "before ", 7)) before = l + 7;
        if (!strncmp(l, "after ", 6)) after = l + 6;
    }
    CHECK(before && after && !strncmp(before, after, 7));        /* the same swing */
    CHECK(before && strncmp(before, "1.00000", 7) != 0);          /* which was not the rest */
    CHECK(after && strstr(after, "springs (1 chains, 1 joints, 0 colliders, fixed step)"));
    mr_lua_ctx_destroy(ctx);
}

/* Authored clips (marrow.clip) are handed over with their keys, eases and
 * markers, and stay authored (keyable) in the new state. */
TEST(reload_keeps_authored_clips)
{
    mr_lua_ctx *ctx = make_ctx("author.lua",
        "local m = require 'marrow'\n"
        "local c, model\n"
        "function load(s)\n"
        "  model = m.model('test:chain')\n"
        "  c = m.clip(model, {name = 'made', duration = 2})\n"
        "  c:key('a', 0, {translation = {0, 0, 0}}, {ease = 'in_cubic'}):key('a', 2, {translation = {4, 0, 0}})\n"
        "  c:marker(1, 'mid')\n"
        "end\n"
        "function unload() return {clip = c, model = model} end\n", 1, 0);
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    write_file("author.lua",
        "local m = require 'marrow'\n"
        "function load(s)\n"
        "  local c = s.clip\n"
        "  local p = m.pose(s.model)\n"
        "  c:sample(1, p, false)\n"
        "  local k = c:keys('a')\n"
        "  c:key('a', 2, {translation = {8, 0, 0}})\n"
        "  local q = m.pose(s.model)\n"
        "  c:sample(2, q, false)\n"
        "  print('kept', c:name(), #k, k[1].ease, ('%.4f'):format(p:get_local('a').x), c:markers()[1].name,\n"
        "        q:get_local('a').x)\n"
        "end\n");
    CHECK(mr_lua_reload(ctx, NULL) == MR_OK);
    CHECK(mr_lua_error(ctx) == NULL);
    if (mr_lua_error(ctx)) printf("%s\n", mr_lua_error(ctx));
    CHECK(console_has(ctx, "kept    made    2       in_cubic        0.5000  mid     8.0"));
    mr_lua_ctx_destroy(ctx);
}

TEST(reload_syntax_error_keeps_last_good_script)
{
    mr_lua_ctx *ctx = make_ctx("syn.lua", "function update() print('v1') end\n", 1, 0);
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    write_file("syn.lua", "function update() print('v2') \n\nend end\n");
    CHECK(mr_lua_reload(ctx, NULL) != MR_OK);
    CHECK(mr_lua_error(ctx) != NULL);
    CHECK_STR_CONTAINS(mr_lua_error(ctx), "syn.lua:3:");
    CHECK(mr_lua_update(ctx, 0.1, NULL) == MR_OK);
    CHECK_STR_CONTAINS(last_line(ctx), "v1");
    write_file("syn.lua", "function update() print('v3') end\n");
    CHECK(mr_lua_reload(ctx, NULL) == MR_OK);
    CHECK(mr_lua_error(ctx) == NULL);
    CHECK(mr_lua_update(ctx, 0.1, NULL) == MR_OK);
    CHECK_STR_CONTAINS(last_line(ctx), "v3");
    mr_lua_ctx_destroy(ctx);
}

TEST(reload_failing_load_returns_to_old_script_with_its_state)
{
    mr_lua_ctx *ctx = make_ctx("rev.lua",
        "local n = 0\n"
        "function load(s) n = s and s.n or 1; print('old load', n) end\n"
        "function update() print('old', n) end\n"
        "function unload() return {n = n + 10} end\n", 1, 0);
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    write_file("rev.lua", "function load(s) error('broken load') end\n");
    CHECK(mr_lua_reload(ctx, NULL) != MR_OK);
    CHECK_STR_CONTAINS(mr_lua_error(ctx), "rev.lua:1: broken load");
    CHECK(mr_lua_update(ctx, 0.1, NULL) == MR_OK);
    CHECK_STR_CONTAINS(last_line(ctx), "old     11");
    mr_lua_ctx_destroy(ctx);
}

TEST(reload_draw_error_in_first_frame_keeps_last_good_callbacks)
{
    mr_lua_ctx *ctx = make_ctx("drw.lua",
        "local n = 0\n"
        "function load(s) n = s and s.n or 1 end\n"
        "function update() n = n + 1 end\n"
        "function draw() print('good draw', n) end\n"
        "function unload() return {n = n + 100} end\n", 1, 0);
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    CHECK(mr_lua_update(ctx, 0.1, NULL) == MR_OK && mr_lua_draw(ctx, NULL) == MR_OK);
    mr_lua_end_frame(ctx);
    CHECK_STR_CONTAINS(last_line(ctx), "good draw       2");
    write_file("drw.lua",
        "function update() end\n"
        "function draw() local t = nil; print(t.x) end\n");
    CHECK(mr_lua_reload(ctx, NULL) == MR_OK);   /* chunk and load() are fine */
    CHECK(mr_lua_update(ctx, 0.1, NULL) == MR_OK);
    CHECK(mr_lua_draw(ctx, NULL) != MR_OK);    /* the new draw() fails ... */
    CHECK_STR_CONTAINS(mr_lua_error(ctx), "drw.lua:2:");
    /* ... and the old script, given its own unload() state back (n = 102),
     * drew this frame and keeps running its callbacks. */
    CHECK_STR_CONTAINS(last_line(ctx), "good draw       102");
    mr_lua_end_frame(ctx);
    CHECK(mr_lua_update(ctx, 0.1, NULL) == MR_OK && mr_lua_draw(ctx, NULL) == MR_OK);
    CHECK_STR_CONTAINS(last_line(ctx), "good draw       103");
    CHECK(mr_lua_error(ctx) != NULL);  /* shown until a fixed save loads */
    mr_lua_end_frame(ctx);
    CHECK(!console_has(ctx, "reloaded"));   /* the version that failed its first frame never took over */
    write_file("drw.lua", "function draw() print('fixed draw') end\n");
    CHECK(mr_lua_reload(ctx, NULL) == MR_OK);
    CHECK(mr_lua_error(ctx) == NULL);
    CHECK(mr_lua_update(ctx, 0.1, NULL) == MR_OK && mr_lua_draw(ctx, NULL) == MR_OK);
    CHECK_STR_CONTAINS(last_line(ctx), "fixed draw");
    mr_lua_end_frame(ctx);
    CHECK_STR_CONTAINS(last_line(ctx), "reloaded");   /* said once its first frame ran */
    /* A clean frame made it the good one: a later error stays in it. */
    write_file("drw.lua", "function draw() error('late') end\n");
    CHECK(mr_lua_reload(ctx, NULL) == MR_OK);
    CHECK(mr_lua_update(ctx, 0.1, NULL) == MR_OK && mr_lua_draw(ctx, NULL) != MR_OK);
    CHECK_STR_CONTAINS(last_line(ctx), "fixed draw");
    mr_lua_end_frame(ctx);
    mr_lua_ctx_destroy(ctx);
}

TEST(reload_error_after_a_clean_frame_stays_in_the_new_script)
{
    mr_lua_ctx *ctx = make_ctx("late.lua", "function draw() print('v1') end\n", 1, 0);
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    write_file("late.lua", "local k = 0\nfunction draw() k = k + 1; if k > 1 then error('second') end; print('v2') end\n");
    CHECK(mr_lua_reload(ctx, NULL) == MR_OK);
    CHECK(mr_lua_update(ctx, 0.1, NULL) == MR_OK && mr_lua_draw(ctx, NULL) == MR_OK);
    mr_lua_end_frame(ctx);
    CHECK(mr_lua_draw(ctx, NULL) != MR_OK);
    CHECK_STR_CONTAINS(mr_lua_error(ctx), "late.lua:2: second");
    CHECK(console_has(ctx, "v2"));
    CHECK_STR_CONTAINS(last_line(ctx), "reloaded");   /* no v1 after it: v2 passed its first frame */
    mr_lua_ctx_destroy(ctx);
}

TEST(errors_in_every_callback_name_file_line_and_callback)
{
    static const char *const cbs[] = {"load", "update", "draw", "keypressed", "mousemoved", "resize",
                                       "unload"};
    for (size_t i = 0; i < sizeof cbs / sizeof *cbs; i++) {
        char src[256];
        snprintf(src, sizeof src, "\n\nfunction %s() local x = nil; return x.field end\n", cbs[i]);
        mr_lua_ctx *ctx = make_ctx("cb.lua", src, 1, 0);
        int rc = mr_lua_start(ctx, NULL);
        rc |= mr_lua_update(ctx, 0.1, NULL);
        rc |= mr_lua_draw(ctx, NULL);
        rc |= mr_lua_keypressed(ctx, "a", NULL);
        rc |= mr_lua_mousemoved(ctx, 1, 2, 3, 4, NULL);
        rc |= mr_lua_resize(ctx, 10, 10, NULL);
        mr_lua_stop(ctx);
        CHECK_MSG(rc != 0 || !strcmp(cbs[i], "unload"), "%s: no error reported", cbs[i]);
        CHECK_MSG(mr_lua_error(ctx) && strstr(mr_lua_error(ctx), "cb.lua:3: attempt to index a nil value"),
                  "%s: error is %s", cbs[i], mr_lua_error(ctx) ? mr_lua_error(ctx) : "(none)");
        CHECK_MSG(mr_lua_error(ctx) && strstr(mr_lua_error(ctx), cbs[i]), "%s: callback not named", cbs[i]);
        mr_lua_ctx_destroy(ctx);
    }
}

TEST(time_budget_stops_endless_loops_even_inside_pcall)
{
    mr_lua_ctx *ctx = make_ctx("loop.lua",
        "function update()\n"
        "  while true do end\n"
        "end\n"
        "function draw()\n"
        "  while true do pcall(function() while true do end end) end\n"
        "end\n"
        "function keypressed() print('still alive') end\n", 0.2, 0);
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    double t0 = cpu_s();
    mr_error e = {0};
    CHECK(mr_lua_update(ctx, 0.1, &e) == MR_ERR_LIMIT);
    CHECK(cpu_s() - t0 < 2.0);
    CHECK_STR_CONTAINS(mr_lua_error(ctx), "loop.lua:2: update() ran past its time budget of 0.2 s");
    CHECK(e.status == MR_ERR_LIMIT);
    CHECK_STR_CONTAINS(e.msg, "loop.lua:2: update() ran past its time budget of 0.2 s");
    t0 = cpu_s();
    CHECK(mr_lua_draw(ctx, NULL) != MR_OK);
    CHECK(cpu_s() - t0 < 2.0);
    CHECK_STR_CONTAINS(mr_lua_error(ctx), "draw() ran past its time budget");
    CHECK(mr_lua_keypressed(ctx, "x", NULL) == MR_OK);   /* the state is usable afterwards */
    CHECK_STR_CONTAINS(last_line(ctx), "still alive");
    mr_lua_ctx_destroy(ctx);
}

TEST(memory_cap_turns_huge_allocations_into_errors)
{
    mr_lua_ctx *ctx = make_ctx("mem.lua",
        "function update() local t = {} for i = 1, 1e9 do t[i] = {i} end end\n"
        "function draw() local s = string.rep('x', 1 << 30) end\n"
        "function keypressed() print('fine', collectgarbage('count') < 32 * 1024) end\n", 30, 64u << 20);
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    mr_error e = {0};
    CHECK(mr_lua_update(ctx, 0.1, &e) == MR_ERR_NO_MEMORY);
    CHECK_STR_CONTAINS(mr_lua_error(ctx), "not enough memory");
    CHECK_STR_CONTAINS(e.msg, "not enough memory");
    CHECK(mr_lua_draw(ctx, NULL) != MR_OK);
    CHECK_STR_CONTAINS(mr_lua_error(ctx), "not enough memory");
    CHECK(mr_lua_memory(ctx) <= 64u << 20);
    CHECK(mr_lua_keypressed(ctx, "x", NULL) == MR_OK);
    CHECK_STR_CONTAINS(last_line(ctx), "fine    true");
    mr_lua_ctx_destroy(ctx);
}

/* clip:sample's cursors (wrap_clip.c): a pose makes one on its second
 * sample of a packed clip, counted in the held memory and given back when
 * the pose is closed; under a small --memory those past it are not made,
 * and the poses still sample the same values. */
TEST(pose_cursors_are_counted_and_stop_at_the_memory_limit)
{
    const char *script =
        "local m = require 'marrow'\n"
        "local model = m.model('test:chain')\n"
        "local c = model:clip('bend')\n"
        "poses = {}\n"
        "function update()\n"
        "  local once = m.pose(model); c:sample(0.25, once)\n"
        "  for i = 1, 400 do local p = m.pose(model); c:sample(0.1, p); c:sample(0.5, p); poses[i] = p end\n"
        "  local ok = true\n"
        "  for i = 1, 400 do if poses[i]:model('b') ~= poses[1]:model('b') then ok = false end end\n"
        "  print('same', ok)\n"
        "end\n"
        "function keypressed() for i = 1, #poses do poses[i]:close() end end\n";
    for (int small = 0; small < 2; small++) {
        size_t limit = small ? 1u << 20 : 256u << 20;   /* 400 cursors take 2.2 MiB */
        mr_lua_ctx *ctx = make_ctx("cursors.lua", script, 30, limit);
        CHECK(mr_lua_start(ctx, NULL) == MR_OK);
        CHECK_MSG(mr_lua_update(ctx, 0, NULL) == MR_OK, "%s", mr_lua_error(ctx) ? mr_lua_error(ctx) : "");
        CHECK_STR_CONTAINS(last_line(ctx), "same    true");
        mr_clip_cursor *one = mr_clip_cursor_create(3);
        size_t per = mr_clip_cursor_bytes(one), held = mr_lua_held_memory(ctx);
        mr_clip_cursor_destroy(one);
        if (!small)
            CHECK_MSG(held == 400 * per, "held %zu bytes, 400 cursors of %zu expected", held, per);
        else
            CHECK_MSG(held > 0 && held < 400 * per && held <= limit,   /* each made within the limit at the time */
                      "held %zu bytes beside a heap of %zu under a limit of %zu", held, mr_lua_memory(ctx), limit);
        CHECK(mr_lua_keypressed(ctx, "x", NULL) == MR_OK);
        CHECK_MSG(mr_lua_held_memory(ctx) == 0, "%zu bytes held after the poses closed", mr_lua_held_memory(ctx));
        mr_lua_ctx_destroy(ctx);
    }
}

TEST(stack_overflow_is_a_lua_error)
{
    mr_lua_ctx *ctx = make_ctx("stack.lua",
        "local function f(n) return 1 + f(n + 1) end\n"
        "function update() f(1) end\n"
        "function draw() local t = setmetatable({}, {__index = function(t, k) return t[k] end}); return t.x end\n",
        5, 0);
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    CHECK(mr_lua_update(ctx, 0.1, NULL) == MR_ERR_SCRIPT);
    CHECK_STR_CONTAINS(mr_lua_error(ctx), "stack overflow");
    CHECK(mr_lua_draw(ctx, NULL) != MR_OK);
    CHECK_STR_CONTAINS(mr_lua_error(ctx), "stack overflow");
    mr_lua_ctx_destroy(ctx);
}

/* A C function that never returns and calls nothing: the count hook never
 * runs and a poke cannot stop it; only the watchdog's exit can. */
static int spin_forever(lua_State *L)
{
    (void)L;
    for (volatile unsigned long i = 0;; i++) {
    }
    return 0;
}

TEST(watchdog_ends_a_call_stuck_in_c_with_exit_4)
{
    char log[300];
    snprintf(log, sizeof log, "%s/watchdog.err", dir);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(log, "w", stderr)) _exit(99);
        mr_lua_ctx *ctx = make_ctx("spin.lua", "function update() spin() end\n", 0.2, 0);
        if (mr_lua_start(ctx, NULL) != MR_OK) _exit(98);
        lua_register(mr_lua_current_state(ctx), "spin", spin_forever);
        mr_lua_update(ctx, 0.1, NULL);
        _exit(97);                     /* never reached: the call does not return */
    }
    int status = 0, waited = 0;
    while (waitpid(pid, &status, WNOHANG) == 0 && waited < 600) {   /* a hang guard, not a timing check */
        usleep(100000);
        waited++;
    }
    if (waited >= 600) kill(pid, SIGKILL), waitpid(pid, &status, 0);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 4, "status %d", status);
    FILE *f = fopen(log, "r");
    char text[1000] = "";
    if (f) {
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = '\0';
        fclose(f);
    }
    CHECK_STR_CONTAINS(text, "spin.lua: update() ran past its time budget of 0.2 s");
    CHECK_STR_CONTAINS(text, "could not be interrupted");
}

TEST(a_coroutine_the_budget_stopped_never_runs_its_close_handlers)
{
    /* Stopped from the hook, the coroutine keeps hooks off; closing it in a
     * later frame must not run its looping __close (it would never end). */
    mr_lua_ctx *ctx = make_ctx("co.lua",
        "local co\n"
        "function update()\n"
        "  if not co then\n"
        "    co = coroutine.create(function()\n"
        "      local x <close> = setmetatable({}, {__close = function() while true do end end})\n"
        "      while true do end\n"
        "    end)\n"
        "    print(coroutine.resume(co))\n"
        "  else\n"
        "    print(coroutine.close(co))\n"
        "  end\n"
        "end\n", 0.2, 0);
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    CHECK(mr_lua_update(ctx, 0.1, NULL) == MR_ERR_LIMIT);
    double t0 = cpu_s();
    CHECK(mr_lua_update(ctx, 0.1, NULL) == MR_OK);
    CHECK(cpu_s() - t0 < 1.0);
    CHECK(strncmp(last_line(ctx), "false", 5) == 0);
    CHECK_STR_CONTAINS(last_line(ctx), "the coroutine was stopped by the time budget");
    mr_lua_ctx_destroy(ctx);
}

TEST(callback_error_fills_err_and_keeps_the_whole_message_for_the_panel)
{
    mr_lua_ctx *ctx = make_ctx("long.lua",
        "function update() error(string.rep('x', 3000)) end\n"
        "function draw() error('short') end\n", 5, 0);
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    mr_error e = {0};
    CHECK(mr_lua_update(ctx, 0.1, &e) == MR_ERR_SCRIPT);
    CHECK(e.status == MR_ERR_SCRIPT);
    /* err holds what fits (its start and its end: core/error.h); the
     * panel's text is whole, traceback included */
    CHECK(strlen(e.msg) == sizeof e.msg - 1);
    CHECK(strncmp(mr_lua_error(ctx), e.msg, 64) == 0);
    const char *tail = strstr(e.msg, " ... ");
    CHECK(tail && strstr(mr_lua_error(ctx), tail + 5) != NULL);
    CHECK(strlen(mr_lua_error(ctx)) > 3000);
    CHECK_STR_CONTAINS(mr_lua_error(ctx), "stack traceback:");
    CHECK(mr_lua_draw(ctx, &e) == MR_ERR_SCRIPT);
    CHECK(strcmp(e.msg, mr_lua_error(ctx)) == 0);   /* short: the same text */
    CHECK_STR_CONTAINS(e.msg, "long.lua:2: short");
    mr_lua_ctx_destroy(ctx);
}

TEST(start_failure_fills_err_and_create_refuses_no_script)
{
    mr_lua_ctx *ctx = make_ctx("syntax.lua", "function update(\n", 5, 0);
    mr_error e = {0};
    CHECK(mr_lua_start(ctx, &e) == MR_ERR_SCRIPT);
    CHECK_STR_CONTAINS(e.msg, "syntax.lua:2:");
    CHECK(strcmp(e.msg, mr_lua_error(ctx)) == 0);
    mr_lua_ctx_destroy(ctx);
    mr_lua_ctx *none = (mr_lua_ctx *)&e;   /* *out is cleared on failure */
    CHECK(mr_lua_ctx_create(&(mr_lua_desc){.headless = 1}, &none) == MR_ERR_INVALID_ARGUMENT);
    CHECK(none == NULL);
    CHECK(mr_lua_ctx_create(NULL, &none) == MR_ERR_INVALID_ARGUMENT && none == NULL);
}

TEST(cache_add_refuses_a_key_already_there)
{
    mr_lua_ctx *ctx = make_ctx("cache.lua", "\n", 5, 0);   /* holds "test:chain" */
    mr_model *m = NULL;
    CHECK(mr_model_create("other", "test", &m) == MR_OK);
    CHECK(mr_lua_cache_add(ctx, "test:chain", m) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_lua_cache_add(ctx, NULL, m) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_lua_cache_count(ctx) == 1);
    CHECK(mr_lua_cache_add(ctx, "other", m) == MR_OK);      /* taken: the context frees it */
    CHECK(mr_lua_cache_count(ctx) == 2);
    mr_lua_ctx_destroy(ctx);
}

TEST(scene_read_fills_err_with_status_and_field)
{
    mr_lua_ctx *ctx = make_ctx("scn.lua", "scene = {shots = {0, 5}, frames = 3}\n", 5, 0);
    mr_scene_decl d;
    mr_error e = {0};
    CHECK(mr_lua_scene_read(ctx, &d, &e) == MR_ERR_INVALID_ARGUMENT);   /* not started */
    CHECK_STR_CONTAINS(e.msg, "scn.lua: the script is not running");
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    CHECK(mr_lua_scene_read(ctx, &d, &e) == MR_ERR_BAD_FILE);
    CHECK(e.status == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(e.msg, "scn.lua: scene.shots[2] = 5 is not below scene.frames = 3");
    mr_lua_ctx_destroy(ctx);
    ctx = make_ctx("scn2.lua", "scene = {shots = {0, 4}, fps = 60}\n", 5, 0);
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    CHECK(mr_lua_scene_read(ctx, &d, NULL) == MR_OK);
    CHECK(d.shot_count == 2 && d.frames == 5 && d.fps == 60);
    mr_lua_ctx_destroy(ctx);
}

TEST(thousand_reloads_do_not_grow_memory_or_reload_models)
{
    const char *bob = SHARED_MODELS "assimp/test/models-nonbsd/MD5/Bob.md5mesh";
    char src[1024];
    snprintf(src, sizeof src,
             "local m = require 'marrow'\n"
             "local bob, pose, clip\n"
             "function load(s)\n"
             "  bob = assert(m.model('%s', {anims = {'Bob'}}))\n"
             "  pose = s and s.pose or m.pose(bob); clip = bob:clip(1)\n"
             "end\n"
             "function update(dt) clip:sample(m.time(), pose); pose:rotate(2, m.quat.euler(0, 0, 10)) end\n"
             "function unload() return {pose = pose, v = m.vec3(1, 2, 3), t = {1, 2, 'x'}} end\n"
             "function keypressed(k) if k == 'gc' then collectgarbage() collectgarbage() end end\n",
             bob);
    mr_lua_ctx *ctx = make_ctx("many.lua", src, 5, 0);
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    size_t before = 0;
    /* Measured after full collections (the garbage an incremental cycle has
     * not reached yet varies by tens of KB from run to run), against a
     * bound above glibc's thread cache: mallinfo counts the chunks it holds
     * as in use, up to about 230 KB, so "in use" rose 47-70 KB over these
     * reloads (CI failed once at 64 KB) while heaptrack showed the same
     * peak heap, 890.82 KB, after 1,100 and after 4,100 reloads. A leak of
     * 256 bytes a reload still fails. */
    for (int i = 0; i < 1100; i++) {
        if (i == 100) {
            CHECK(mr_lua_keypressed(ctx, "gc", NULL) == MR_OK);
            before = mallinfo2().uordblks;
        }
        if (mr_lua_reload(ctx, NULL) != MR_OK || mr_lua_update(ctx, 1 / 60.0, NULL) != MR_OK) {
            CHECK_MSG(0, "reload %d failed: %s", i, mr_lua_error(ctx) ? mr_lua_error(ctx) : "");
            break;
        }
        mr_lua_end_frame(ctx);
    }
    CHECK(mr_lua_keypressed(ctx, "gc", NULL) == MR_OK);
    size_t after = mallinfo2().uordblks;
    CHECK_MSG(after < before + 256 * 1024, "heap grew from %zu to %zu bytes over 1000 reloads", before, after);
    CHECK(mr_lua_cache_loads(ctx) == 1);
    mr_lua_ctx_destroy(ctx);
}

TEST(require_finds_modules_beside_the_script_and_watches_them)
{
    write_file("helper_mod.lua", "return {value = 41}\n");
    mr_lua_ctx *ctx = make_ctx("req.lua",
        "local h = require 'helper_mod'\n"
        "function update() print('value', h.value + 1) end\n", 1, 0);
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    const char *const *paths;
    int n = mr_lua_watched(ctx, &paths);
    CHECK(n == 2);
    CHECK(n == 2 && strstr(paths[1], "helper_mod.lua"));
    write_file("helper_mod.lua", "return {value = 99}\n");
    CHECK(mr_lua_reload(ctx, NULL) == MR_OK);
    CHECK(mr_lua_update(ctx, 0.1, NULL) == MR_OK);
    CHECK_STR_CONTAINS(last_line(ctx), "value   100");
    /* A module with a syntax error is still watched, so fixing it reloads. */
    write_file("helper_mod.lua", "return {value = }\n");
    CHECK(mr_lua_reload(ctx, NULL) != MR_OK);
    CHECK_STR_CONTAINS(mr_lua_error(ctx), "helper_mod.lua:1:");
    n = mr_lua_watched(ctx, &paths);
    CHECK(n == 2);
    mr_lua_ctx_destroy(ctx);
}

TEST(binding_errors_name_the_script_line)
{
    mr_lua_ctx *ctx = make_ctx("bind.lua",
        "local m = require 'marrow'\n"
        "local model = m.model('test:chain')\n"
        "local pose = m.pose(model:skeleton())\n"
        "function update() pose:rotate('a', 5) end\n"
        "function draw() pose:rotate('bb', m.quat()) end\n"
        "function keypressed() m.draw(model, 7) end\n"
        "function mousemoved() pose:rotate(4, m.quat()) end\n"
        "function resize() m.quat.euler('x') end\n", 1, 0);
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    CHECK(mr_lua_update(ctx, 0, NULL) != MR_OK);
    CHECK_STR_CONTAINS(mr_lua_error(ctx), "bind.lua:4: bad argument #2 to 'pose:rotate' (quat expected, got number)");
    CHECK(mr_lua_draw(ctx, NULL) != MR_OK);
    CHECK_STR_CONTAINS(mr_lua_error(ctx), "bind.lua:5: bad argument #1 to 'pose:rotate' (unknown joint 'bb'; did you mean 'b'?)");
    CHECK(mr_lua_keypressed(ctx, "k", NULL) != MR_OK);
    CHECK_STR_CONTAINS(mr_lua_error(ctx), "bind.lua:6: bad argument #2 to 'marrow.draw' (pose expected, got number)");
    CHECK(mr_lua_mousemoved(ctx, 0, 0, 0, 0, NULL) != MR_OK);
    CHECK_STR_CONTAINS(mr_lua_error(ctx), "bind.lua:7: bad argument #1 to 'pose:rotate' (joint index 4 out of range 1..3)");
    CHECK(mr_lua_resize(ctx, 1, 1, NULL) != MR_OK);
    CHECK_STR_CONTAINS(mr_lua_error(ctx), "bind.lua:8: bad argument #1 to 'marrow.quat.euler' (number expected, got string)");
    mr_lua_ctx_destroy(ctx);
}

TEST(bindings_on_the_chain_fixture)
{
    mr_lua_ctx *ctx = make_ctx("chain.lua",
        "local m = require 'marrow'\n"
        "local model = m.model('test:chain')\n"
        "local sk = model:skeleton()\n"
        "local function near(a, b) return math.abs(a - b) < 5e-4 end  -- the clip is packed within 1e-4 of the size (clip.h)\n"
        "function update()\n"
        "  local p = m.pose(sk)\n"
        "  assert(#sk == 3 and sk:joint('b') == 3 and sk:parent(1) == 0 and sk:parent(3) == 2)\n"
        "  assert(#sk:children(1) == 1 and sk:children(1)[1] == 2 and sk:name(2) == 'a')\n"
        "  local c = model:clip('bend')\n"
        "  c:sample(0.5, p)\n"
        "  local b = p:position('b')\n"
        "  assert(near(b.x, 1 + math.cos(math.rad(45))) and near(b.y, 1 + math.sin(math.rad(45))), tostring(b))\n"
        "  p:rotate('a', m.quat.euler(0, 0, -45))\n"
        "  b = p:position('b')\n"
        "  assert(near(b.x, 2) and near(b.y, 1), tostring(b))\n"
        "  local before = p:model('a')\n"
        "  assert(p:model('a') == before)\n"
        "  p:set_rotation('a', m.quat.euler(0, 0, 90), {space = 'model'})\n"
        "  assert(near(p:position('b').x, 1) and near(p:position('b').y, 2))\n"
        "  print('chain ok')\n"
        "end\n"
        "function draw() m.draw(model, m.pose(sk)); m.draw(model) end\n", 1, 0);
    mr_lua_draw_attach(ctx, NULL);           /* record without a renderer */
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    CHECK(mr_lua_update(ctx, 0, NULL) == MR_OK);
    CHECK_MSG(mr_lua_error(ctx) == NULL, "%s", mr_lua_error(ctx));
    CHECK_STR_CONTAINS(last_line(ctx), "chain ok");
    CHECK(mr_lua_draw(ctx, NULL) == MR_OK);
    CHECK(mr_lua_draw_recorded(ctx) == 2);
    CHECK(mr_lua_draw_render(ctx, NULL, NULL) == MR_OK);     /* no renderer: dropped */
    CHECK(mr_lua_draw_recorded(ctx) == 0);
    mr_lua_ctx_destroy(ctx);
}

TEST(draw_render_screenshot_without_renderer_fills_err)
{
    /* A relative path: where the script may write (the working directory). */
    mr_lua_ctx *ctx = make_ctx("shot.lua", "function draw() require('marrow').screenshot('never.png') end\n", 1, 0);
    mr_lua_draw_attach(ctx, NULL);           /* record without a renderer */
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    mr_error e = {0};
    CHECK(mr_lua_frame_run(ctx, 0.1, 1, &e) == MR_ERR_SCRIPT);
    CHECK_STR_CONTAINS(e.msg, "marrow.screenshot: no renderer in this run");
    CHECK(strcmp(e.msg, mr_lua_error(ctx)) == 0);
    mr_lua_ctx_destroy(ctx);
}

TEST(headless_is_deterministic)
{
    const char *src = "function update() print(math.random(1, 1000000), os.clock(), os.time()) end\n";
    char first[160] = "";
    for (int run = 0; run < 2; run++) {
        mr_lua_ctx *ctx = make_ctx("det.lua", src, 1, 0);
        CHECK(mr_lua_start(ctx, NULL) == MR_OK);
        mr_lua_update(ctx, 0.25, NULL);
        mr_lua_end_frame(ctx);
        mr_lua_update(ctx, 0.25, NULL);
        if (run == 0) snprintf(first, sizeof first, "%s", last_line(ctx));
        else CHECK(!strcmp(first, last_line(ctx)));
        CHECK_STR_CONTAINS(last_line(ctx), "0.25    0");
        mr_lua_ctx_destroy(ctx);
    }
}

TEST(quit_and_os_exit_end_the_run_cleanly)
{
    mr_lua_ctx *ctx = make_ctx("quit.lua", "function update() os.exit(3) end\n", 1, 0);
    int code = -1;
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    CHECK(!mr_lua_quit_requested(ctx, &code));
    CHECK(mr_lua_update(ctx, 0, NULL) == MR_OK);
    CHECK(mr_lua_quit_requested(ctx, &code) && code == 3);
    mr_lua_ctx_destroy(ctx);
}

TEST(bad_corpus_input_callbacks_fail_cleanly)
{
    mr_lua_desc d = {.script = "tests/bad/lua/input_error_keypressed.lua", .headless = 1, .quiet = 1};
    mr_lua_ctx *ctx = NULL;
    mr_lua_ctx_create(&d, &ctx);
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    CHECK(mr_lua_keypressed(ctx, "q", NULL) != MR_OK);
    CHECK_STR_CONTAINS(mr_lua_error(ctx), "input_error_keypressed.lua:2: keypressed failed: q");
    CHECK(mr_lua_mousemoved(ctx, 1, 2, 3, 4, NULL) != MR_OK);
    CHECK_STR_CONTAINS(mr_lua_error(ctx), "input_error_keypressed.lua:3: mousemoved failed");
    CHECK(mr_lua_resize(ctx, 100, 50, NULL) != MR_OK);
    CHECK_STR_CONTAINS(mr_lua_error(ctx), "input_error_keypressed.lua:4: resize failed");
    CHECK(mr_lua_update(ctx, 0.1, NULL) == MR_OK);    /* the rest of the script keeps running */
    mr_lua_ctx_destroy(ctx);
}

/* ---- watcher ---------------------------------------------------------------- */

static unsigned wait_change(mr_watch *w, double seconds)
{
    double t0 = now_s();
    unsigned c;
    while (!(c = mr_watch_poll(w)) && now_s() - t0 < seconds) usleep(5000);
    return c;
}

static void watcher_suite(int polling)
{
    if (polling) setenv("MARROW_WATCH", "poll", 1);
    mr_watch *w = NULL;
    mr_watch_create(&w);
    unsetenv("MARROW_WATCH");
    CHECK(mr_watch_uses_inotify(w) == !polling);
    write_file("w.lua", "one");
    write_file("other.txt", "x");
    CHECK(mr_watch_file(w, path_of("w.lua"), 3) == MR_OK);
    CHECK(mr_watch_file(w, path_of("w.lua"), 31) == MR_ERR_INVALID_ARGUMENT);
    /* inotify cannot watch a directory that is not there; polling waits for it */
    CHECK(mr_watch_dir(w, path_of("no-such-dir"), 4) == (polling ? MR_OK : MR_ERR_IO));
    CHECK(mr_watch_poll(w) == 0);
    usleep(20000);                     /* mtime granularity for the poller */
    write_file("other.txt", "y");      /* another file in the same directory */
    CHECK(wait_change(w, 0.3) == 0);
    double t0 = now_s();
    write_file("w.lua", "two!");       /* in place */
    CHECK(wait_change(w, 1.0) == 1u << 3);
    CHECK(now_s() - t0 < 0.2);
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", path_of("w.lua.tmp"));
    FILE *f = fopen(tmp, "w");
    fputs("three", f);
    fclose(f);
    t0 = now_s();
    CHECK(rename(tmp, path_of("w.lua")) == 0);  /* rename-over, like vim */
    CHECK(wait_change(w, 1.0) == 1u << 3);
    CHECK(now_s() - t0 < 0.2);
    mr_watch_destroy(w);
}

TEST(watcher_inotify_sees_writes_and_rename_over) { watcher_suite(0); }

/* marrow run sleeps between frames in mr_pacer_wait_fd on the watcher's
 * descriptor: a save wakes that sleep (a 2 s frame here, so a wait that was
 * not woken returns 0) and the poll right after reports it. */
TEST(watcher_descriptor_wakes_a_frame_wait_on_a_save)
{
    mr_watch *w = NULL;
    mr_watch_create(&w);
    if (!mr_watch_uses_inotify(w)) {
        CHECK(mr_watch_fd(w) < 0);
        mr_watch_destroy(w);
        return;
    }
    write_file("wake.lua", "one");
    CHECK(mr_watch_file(w, path_of("wake.lua"), 5) == MR_OK);
    CHECK(mr_watch_poll(w) == 0);
    mr_pacer p;
    mr_pacer_init(&p, 0.5);
    write_file("wake.lua", "two");
    unsigned got = 0;
    for (int wakes = 0; wakes < 8 && !got; wakes++) {
        CHECK(mr_pacer_wait_fd(&p, 1, mr_watch_fd(w)) == 1);
        got = mr_watch_poll(w);           /* the close-write's 2 ms quiet is waited out in here */
    }
    CHECK(got == 1u << 5);
    CHECK(p.next > now_s() + 1.0);        /* all within the frame */
    mr_watch_destroy(w);
}
TEST(watcher_polling_sees_writes_and_rename_over) { watcher_suite(1); }

/* ---- saves written in pieces ---------------------------------------------------- */

#define PIECE_SAVES 200

typedef struct piece_writer {
    char path[256], tmp[256];
    int ack;                     /* read end: a byte per save the reader has read */
} piece_writer;

/* Save i's text: a first line naming it, filler, a last line naming it. */
static int save_text(int i, char *buf, size_t size)
{
    int n = snprintf(buf, size, "-- save %d\n", i);
    for (int k = 0; k < 40 + i % 7; k++) n += snprintf(buf + n, size - (size_t)n, "local x%d = %d\n", k, i * k);
    n += snprintf(buf + n, size - (size_t)n, "-- end %d\n", i);
    return n;
}

/* Saves PIECE_SAVES times: every third by a temporary file renamed over
 * the name, the others truncated and written in place; each in 4 pieces of
 * one write(2) each, the file open throughout, and every tenth waits 45 ms
 * between two pieces (longer than a settle time of 30 ms). After each save
 * it waits for the reader's byte (at most 2 s). */
static void *write_pieces(void *arg)
{
    piece_writer *pw = arg;
    char buf[4096];
    for (int i = 1; i <= PIECE_SAVES; i++) {
        int len = save_text(i, buf, sizeof buf);
        int rename_over = i % 3 == 0;
        int fd = open(rename_over ? pw->tmp : pw->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) break;
        for (int k = 0; k < 4; k++) {
            int a = len * k / 4, b = len * (k + 1) / 4;
            if (write(fd, buf + a, (size_t)(b - a)) != b - a) break;
            if (k == 1 && i % 10 == 0) usleep(45000);
            else usleep(300);
        }
        close(fd);
        if (rename_over && rename(pw->tmp, pw->path) != 0) break;
        struct pollfd pfd = {.fd = pw->ack, .events = POLLIN};
        char c;
        if (poll(&pfd, 1, 2000) > 0 && read(pw->ack, &c, 1) != 1) break;
    }
    return NULL;
}

/* Every save reported is read whole: its last line names the save its
 * first line names, at the length that save has. */
TEST(watcher_never_reports_a_save_half_written)
{
    mr_watch *w = NULL;
    mr_watch_create(&w);
    if (!mr_watch_uses_inotify(w)) {
        mr_watch_destroy(w);
        return;                        /* polling has no close to wait for */
    }
    write_file("pieces.lua", "-- save 0\n-- end 0\n");
    piece_writer pw;
    snprintf(pw.path, sizeof pw.path, "%s", path_of("pieces.lua"));
    snprintf(pw.tmp, sizeof pw.tmp, "%s", path_of("pieces.lua.tmp"));
    CHECK(mr_watch_file(w, pw.path, 2) == MR_OK);
    int fds[2];
    CHECK(pipe(fds) == 0);
    pw.ack = fds[0];
    pthread_t th;
    CHECK(pthread_create(&th, NULL, write_pieces, &pw) == 0);
    int reads = 0, half = 0, last = 0;
    char expect[4096], got[8192], first_bad[160] = "";
    double t0 = now_s();
    while (last < PIECE_SAVES && now_s() - t0 < 60) {
        if (!(mr_watch_poll(w) & (1u << 2))) {
            usleep(1000);
            continue;
        }
        FILE *f = fopen(pw.path, "r");
        size_t n = f ? fread(got, 1, sizeof got - 1, f) : 0;
        if (f) fclose(f);
        got[n] = '\0';
        int i = 0;
        sscanf(got, "-- save %d", &i);
        int len = i > 0 ? save_text(i, expect, sizeof expect) : -1;
        reads++;
        if (i <= 0 || (size_t)len != n || strcmp(got, expect)) {
            if (!half++) snprintf(first_bad, sizeof first_bad, "save %d read as %zu bytes", i, n);
        } else {
            last = i;
        }
        char c = 1;
        if (write(fds[1], &c, 1) != 1) break;
    }
    pthread_join(th, NULL);
    close(fds[0]);
    close(fds[1]);
    CHECK_MSG(half == 0, "%d of %d reads were half-written saves (first: %s)", half, reads, first_bad);
    CHECK_MSG(last == PIECE_SAVES, "the last save read whole was %d of %d", last, PIECE_SAVES);
    mr_watch_destroy(w);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/marrow_test_lua_XXXXXX");
    if (!mkdtemp(dir)) return 1;
    RUN(lifecycle_calls_every_callback_in_order);
    RUN(reload_hands_unload_state_to_load);
    RUN(reload_keeps_springs_mid_swing);
    RUN(reload_keeps_authored_clips);
    RUN(reload_syntax_error_keeps_last_good_script);
    RUN(reload_failing_load_returns_to_old_script_with_its_state);
    RUN(reload_draw_error_in_first_frame_keeps_last_good_callbacks);
    RUN(reload_error_after_a_clean_frame_stays_in_the_new_script);
    RUN(errors_in_every_callback_name_file_line_and_callback);
    RUN(time_budget_stops_endless_loops_even_inside_pcall);
    RUN(memory_cap_turns_huge_allocations_into_errors);
    RUN(pose_cursors_are_counted_and_stop_at_the_memory_limit);
    RUN(stack_overflow_is_a_lua_error);
    RUN(callback_error_fills_err_and_keeps_the_whole_message_for_the_panel);
    RUN(start_failure_fills_err_and_create_refuses_no_script);
    RUN(cache_add_refuses_a_key_already_there);
    RUN(scene_read_fills_err_with_status_and_field);
    RUN(thousand_reloads_do_not_grow_memory_or_reload_models);
    RUN(require_finds_modules_beside_the_script_and_watches_them);
    RUN(binding_errors_name_the_script_line);
    RUN(bindings_on_the_chain_fixture);
    RUN(draw_render_screenshot_without_renderer_fills_err);
    RUN(headless_is_deterministic);
    RUN(watchdog_ends_a_call_stuck_in_c_with_exit_4);
    RUN(a_coroutine_the_budget_stopped_never_runs_its_close_handlers);
    RUN(quit_and_os_exit_end_the_run_cleanly);
    RUN(bad_corpus_input_callbacks_fail_cleanly);
    RUN(watcher_inotify_sees_writes_and_rename_over);
    RUN(watcher_polling_sees_writes_and_rename_over);
    RUN(watcher_descriptor_wakes_a_frame_wait_on_a_save);
    RUN(watcher_never_reports_a_save_half_written);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) printf("  (could not remove %s)\n", dir);
    return test_summary("lua_unit");
}
