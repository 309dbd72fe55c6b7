/* sandbox.c — one Lua state with a capped allocator, a time budget and a
 * restricted standard library (see sandbox.h). */
#include "lua/sandbox_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lualib.h>

#include "core/alloc.h"
#include "core/cancel.h"
#include "core/file.h"
#include "core/load_work.h"
#include "core/path.h"
#include "core/str.h"

#define HEADLESS_SEED 20240101
#define SETUP_BUDGET 10.0
#define WALL_FACTOR 20.0             /* wall-clock limit of a call: 20 x its budget + 10 s */
#define WALL_EXTRA 10.0

mr_lua_sandbox *mr_lua_sandbox_of(lua_State *L) { return *(mr_lua_sandbox **)lua_getextraspace(L); }
void *mr_lua_sandbox_user(lua_State *L) { return mr_lua_sandbox_of(L)->desc.user; }
lua_State *mr_lua_sandbox_state(mr_lua_sandbox *s) { return s->L; }
size_t mr_lua_sandbox_memory(const mr_lua_sandbox *s) { return s->mem_used; }

int mr_lua_sandbox_required(const mr_lua_sandbox *s, const char *const **paths)
{
    *paths = (const char *const *)s->required;
    return s->required_count;
}

/* ---- allocator and budget ------------------------------------------------------ */

static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    mr_lua_sandbox *s = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        s->mem_used -= old;
        free(ptr);
        return NULL;
    }
    if (nsize > old && nsize - old > s->desc.memory_limit - s->mem_used) return NULL;
    void *p = realloc(ptr, nsize);
    if (!p) return NULL;
    s->mem_used = s->mem_used - old + nsize;
    return p;
}

static void budget_hook(lua_State *L, lua_Debug *ar);

/* lua_sethook may be called from a signal handler (the watchdog's poke), as
 * lua.c does for Ctrl-C: it stores the hook and sets the trap flag of the
 * thread's running Lua frames, which the interpreter reads again at every
 * jump and loop step, so even a loop without calls sees it. */
void mr_lua_sandbox_set_hooks(mr_lua_sandbox *s, int mask, int count)
{
    lua_sethook(s->L, budget_hook, mask, count);
    int n = atomic_load(&s->nrunning);
    for (int i = 0; i < n && i < MR_SANDBOX_NEST; i++)
        if (s->running[i]) lua_sethook(s->running[i], budget_hook, mask, count);
}

/* The hook a call runs with while it is within its budget: none (in Lua
 * 5.4 any count hook makes the interpreter trap every instruction, which
 * doubles the time of plain Lua code), or, when no watchdog could be
 * started to poke it, the count hook that reads the clock every
 * MR_SANDBOX_HOOK_COUNT instructions. */
static void set_idle_hooks(mr_lua_sandbox *s)
{
    if (s->count_hook) mr_lua_sandbox_set_hooks(s, LUA_MASKCOUNT, MR_SANDBOX_HOOK_COUNT);
    else mr_lua_sandbox_set_hooks(s, 0, 0);
}

/* The watchdog's poke, on the thread running the call (in a signal
 * handler), when the call is past its deadline or a stop signal came: from
 * now on every instruction and every function call (C ones too) runs the
 * hook, in the state and in every coroutine being resumed. The watchdog
 * pokes again each period while the call is still past its deadline, so a
 * hook lost to a race (a coroutine's hook copied from its resumer just
 * then, see running_push) is set again 20 ms later. */
static void poke(void *user)
{
    mr_lua_sandbox *s = user;
    atomic_store(&s->poked, 1);
    mr_lua_sandbox_set_hooks(s, LUA_MASKCOUNT | LUA_MASKCALL, 1);
}

/* 1 when the call in progress must stop now (past its budget, or a signal). */
static int must_stop(mr_lua_sandbox *s)
{
    double deadline = atomic_load(&s->watch.deadline);
    if (deadline <= 0) return 0;                      /* no call running */
    if (s->timed_out || atomic_load(&s->watch.interrupt)) return 1;
    return atomic_load(&s->watch.paused) == 0 && mr_lua_watchdog_cpu() >= deadline;
}

/* Raises the stop's error in L (a thread of s). */
static int raise_stop(mr_lua_sandbox *s, lua_State *L, lua_Debug *ar)
{
    if (!s->timed_out) {
        s->timed_out = atomic_load(&s->watch.interrupt) ? 2 : 1;
        /* From now on every instruction and call fails, so a pcall in the
         * script cannot swallow the stop and carry on looping. */
        mr_lua_sandbox_set_hooks(s, LUA_MASKCOUNT | LUA_MASKCALL, 1);
    }
    if (L != s->L) {
        /* A coroutine stopped from a hook keeps hooks off for good: its
         * __close handlers must never run (coroutine.close, wrap). */
        if (lua_checkstack(L, 3)) {
            if (lua_getfield(L, LUA_REGISTRYINDEX, MR_SANDBOX_KILLED) == LUA_TTABLE) {
                lua_pushthread(L);
                lua_pushboolean(L, 1);
                lua_rawset(L, -3);
            }
            lua_pop(L, 1);
        }
    }
    /* Where: the innermost Lua function (a poke can stop a C function). */
    int line = -1;
    char src[LUA_IDSIZE] = "";
    lua_Debug d;
    if (ar && lua_getinfo(L, "Sl", ar) && ar->currentline > 0) {
        line = ar->currentline;
        snprintf(src, sizeof src, "%s", ar->short_src);
    }
    for (int level = ar ? 1 : 0; line <= 0 && level < 8 && lua_getstack(L, level, &d); level++)
        if (lua_getinfo(L, "Sl", &d) && d.currentline > 0) {
            line = d.currentline;
            snprintf(src, sizeof src, "%s", d.short_src);
        }
    if (s->stop_msg[0]) {   /* paused work's stop (mr_lua_sandbox_stop): its own message and place */
        lua_pushstring(L, s->stop_msg);
        return lua_error(L);
    }
    char budget[32];
    snprintf(budget, sizeof budget, "%g", s->watch.budget);
    if (s->timed_out == 2)
        lua_pushfstring(L, "%s: %s was stopped by signal %d", s->desc.script, s->watch.what,
                        atomic_load(&s->watch.interrupt));
    else if (line > 0)
        lua_pushfstring(L, "%s:%d: %s ran past its time budget of %s s and was stopped (endless loop?)", src, line,
                        s->watch.what, budget);
    else
        lua_pushfstring(L, "%s: %s ran past its time budget of %s s and was stopped (endless loop?)",
                        s->desc.script, s->watch.what, budget);
    return lua_error(L);
}

static void budget_hook(lua_State *L, lua_Debug *ar)
{
    mr_lua_sandbox *s = mr_lua_sandbox_of(L);
    if (!must_stop(s)) {
        /* A poke while the call was within its budget (a stop signal's
         * poke that arrived after the call, a deadline moved on by a
         * paused model load): back to no hook. */
        if (atomic_exchange(&s->poked, 0)) set_idle_hooks(s);
        return;
    }
    raise_stop(s, L, ar);
}

void mr_lua_sandbox_tick(lua_State *L)
{
    mr_lua_sandbox *s = mr_lua_sandbox_of(L);
    if (must_stop(s)) raise_stop(s, L, NULL);
}

/* core/load_work.h's hooks while a call runs: loading is not counted. */
static double pause_load(void *user)
{
    mr_lua_sandbox *s = user;
    atomic_fetch_add(&s->watch.paused, 1);
    return mr_lua_watchdog_cpu();
}

static void resume_load(void *user, double token)
{
    mr_lua_sandbox *s = user;
    double spent = mr_lua_watchdog_cpu() - token;
    double deadline = atomic_load(&s->watch.deadline);
    if (deadline > 0 && spent > 0) atomic_store(&s->watch.deadline, deadline + spent);
    if (spent > 0) s->load_spent += spent;
    atomic_fetch_sub(&s->watch.paused, 1);
}

/* core/cancel.h's check during bounded paused work: a signal, or past what
 * was left of the budget plus the paused work's allowance. */
static int paused_overrun(void *user)
{
    mr_lua_sandbox *s = user;
    if (atomic_load(&s->watch.interrupt)) return 1;
    double deadline = atomic_load(&s->watch.deadline);
    return deadline > 0 && mr_lua_watchdog_cpu() > deadline + s->pause_left;
}

double mr_lua_sandbox_pause(lua_State *L)
{
    mr_lua_sandbox *s = mr_lua_sandbox_of(L);
    atomic_fetch_add(&s->watch.paused, 1);
    if (s->bounded++ == 0) mr_cancel_set(paused_overrun, s, &s->cancel_old, &s->cancel_old_user);
    return mr_lua_watchdog_cpu() - s->load_spent;   /* load work inside is forgiven already, not again */
}

void mr_lua_sandbox_resume(lua_State *L, double token)
{
    mr_lua_sandbox *s = mr_lua_sandbox_of(L);
    double spent = mr_lua_watchdog_cpu() - s->load_spent - token;
    double deadline = atomic_load(&s->watch.deadline);
    if (s->bounded > 0 && --s->bounded == 0) mr_cancel_set(s->cancel_old, s->cancel_old_user, NULL, NULL);
    /* Forgiven up to the allowance left; the rest counts against the budget. */
    double forgiven = spent > s->pause_left ? s->pause_left : spent;
    if (forgiven > 0) s->pause_left -= forgiven;
    if (deadline > 0 && forgiven > 0) atomic_store(&s->watch.deadline, deadline + forgiven);
    /* Past the deadline even so: every later instruction and call runs the
     * hook from now on, not from the watchdog's next period, so whether a
     * pcall's caller gets one more line does not depend on timing. */
    if (atomic_fetch_sub(&s->watch.paused, 1) == 1 && deadline > 0 && mr_lua_watchdog_cpu() >= deadline + forgiven)
        poke(s);
}

int mr_lua_sandbox_stop(lua_State *L, const char *why)
{
    mr_lua_sandbox *s = mr_lua_sandbox_of(L);
    if (atomic_load(&s->watch.interrupt) || s->timed_out) return raise_stop(s, L, NULL);
    /* The place is the script's line that called the binding. */
    lua_Debug d;
    int line = -1;
    char src[LUA_IDSIZE] = "";
    for (int level = 1; line <= 0 && level < 8 && lua_getstack(L, level, &d); level++)
        if (lua_getinfo(L, "Sl", &d) && d.currentline > 0) {
            line = d.currentline;
            snprintf(src, sizeof src, "%s", d.short_src);
        }
    char budget[32];
    snprintf(budget, sizeof budget, "%g", s->watch.budget);
    if (line > 0)
        snprintf(s->stop_msg, sizeof s->stop_msg, "%s:%d: %s ran past its time budget of %s s and was stopped %s",
                 src, line, s->watch.what, budget, why);
    else
        snprintf(s->stop_msg, sizeof s->stop_msg, "%s: %s ran past its time budget of %s s and was stopped %s",
                 s->desc.script, s->watch.what, budget, why);
    return raise_stop(s, L, NULL);
}

static void warn_fn(void *ud, const char *msg, int tocont)
{
    mr_lua_sandbox *s = ud;
    static char buf[512];
    static size_t len;
    size_t n = strlen(msg);
    if (len + n >= sizeof buf) n = sizeof buf - 1 - len;
    memcpy(buf + len, msg, n);
    len += n;
    buf[len] = '\0';
    if (tocont) return;
    if (buf[0] != '@') {               /* control messages ("@on") are ignored */
        char line[600];
        snprintf(line, sizeof line, "Lua warning: %s", buf);
        s->desc.print(s->desc.user, line, 1);
    }
    len = 0;
}

/* ---- protected calls ------------------------------------------------------------- */

/* Message handler: message + traceback. */
static int msgh(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (!msg) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) msg = lua_tostring(L, -1);
        else msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

/* Removes "\t[C]: in ?" lines (our own entry points) from a traceback, and
 * the header when nothing is left under it. */
static void trim_traceback(char *msg)
{
    static const char junk[] = "\n\t[C]: in ?";
    char *p;
    while ((p = strstr(msg, junk))) memmove(p, p + sizeof junk - 1, strlen(p + sizeof junk - 1) + 1);
    size_t n = strlen(msg);
    static const char header[] = "\nstack traceback:";
    size_t h = sizeof header - 1;
    if (n >= h && !strcmp(msg + n - h, header)) msg[n - h] = '\0';
}

const char *mr_lua_sandbox_message(const mr_lua_sandbox *s) { return s->message; }

/* lua_pcall(L, 1, 0, msgh) under the budget and the watchdog; s->timed_out
 * says whether the budget or a signal stopped it. */
static int run_watched(mr_lua_sandbox *s, lua_State *L, const char *what, double budget, int msgh_idx)
{
    s->timed_out = 0;
    s->stop_msg[0] = '\0';
    atomic_store(&s->nrunning, 0);
    atomic_store(&s->poked, 0);
    s->watch.what = what;
    s->watch.budget = budget;
    s->watch.script = s->desc.script;
    s->watch.grace = budget > 1.0 ? budget : 1.0;
    s->watch.wall_limit = WALL_FACTOR * budget + WALL_EXTRA;
    s->watch.poke = poke;
    s->watch.user = s;
    atomic_store(&s->watch.paused, 0);
    s->pause_left = budget * MR_SANDBOX_PAUSE_FACTOR > MR_SANDBOX_PAUSE_MIN ? budget * MR_SANDBOX_PAUSE_FACTOR
                                                                            : MR_SANDBOX_PAUSE_MIN;
    atomic_store(&s->watch.deadline, mr_lua_watchdog_cpu() + budget);
    /* The call runs without a hook (one left by a late poke is cleared
     * before the watchdog may poke again); the watchdog pokes it past its
     * deadline. Without a watchdog, the count hook checks the clock instead. */
    s->count_hook = 0;
    set_idle_hooks(s);
    if (mr_lua_watchdog_arm(&s->watch) != 0) {
        s->count_hook = 1;
        set_idle_hooks(s);
    }
    /* Loading, and the packs a load queued that this call waits for or
     * builds (core/load_work.h), are not counted. */
    mr_load_work_hooks load_work = {pause_load, resume_load, s, 0}, outer_work;
    mr_load_work_set(&load_work, &outer_work);
    int st = msgh_idx >= 0 ? lua_pcall(L, 1, 0, msgh_idx) : LUA_OK;
    mr_load_work_set(&outer_work, NULL);
    mr_lua_watchdog_disarm(&s->watch);
    atomic_store(&s->watch.deadline, 0);
    atomic_store(&s->nrunning, 0);
    atomic_store(&s->poked, 0);
    s->count_hook = 0;
    set_idle_hooks(s);
    return st;
}

mr_status mr_lua_sandbox_run(mr_lua_sandbox *s, lua_CFunction f, void *arg, const char *what, double budget,
                         mr_error *err)
{
    lua_State *L = s->L;
    int top = lua_gettop(L);
    free(s->message);
    s->message = NULL;
    lua_pushcfunction(L, msgh);
    lua_pushcfunction(L, f);
    lua_pushlightuserdata(L, arg);
    int st = run_watched(s, L, what, budget, top + 1);
    if (st == LUA_OK) {
        lua_settop(L, top);
        return MR_OK;
    }
    char *msg;
    if (st == LUA_ERRMEM)
        msg = mr_str_fmt("%s: %s: not enough memory (a Lua state may use at most %zu MiB)", s->desc.script,
                         what, s->desc.memory_limit >> 20);
    else if (st == LUA_ERRERR)
        msg = mr_str_fmt("%s: %s: error while handling an error (%s)", s->desc.script, what,
                         lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
    else
        msg = mr_str_fmt("%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "(error without a message)");
    lua_settop(L, top);
    if (msg) trim_traceback(msg);
    s->message = msg;
    lua_gc(L, LUA_GCCOLLECT);
    mr_status status = st == LUA_ERRMEM ? MR_ERR_NO_MEMORY : s->timed_out ? MR_ERR_LIMIT : MR_ERR_SCRIPT;
    if (msg) return mr_error_set(err, status, "%s", msg);
    return mr_error_set(err, status, "%s: %s failed (no memory for its message)", s->desc.script, what);
}

/* ---- lifecycle ------------------------------------------------------------------------- */

/* lua_close under a watch: the host's finalizers are C and bounded, but a
 * process must not hang in them either. */
static void run_watched_close(mr_lua_sandbox *s, lua_State *L, double budget)
{
    s->watch.what = "a finalizer (__gc)";
    s->watch.budget = budget;
    s->watch.script = s->desc.script;
    s->watch.grace = budget > 1.0 ? budget : 1.0;
    s->watch.wall_limit = WALL_FACTOR * budget + WALL_EXTRA;
    s->watch.poke = NULL;
    atomic_store(&s->watch.paused, 0);
    atomic_store(&s->watch.deadline, mr_lua_watchdog_cpu() + budget);
    mr_lua_watchdog_arm(&s->watch);
    lua_close(L);
    mr_lua_watchdog_disarm(&s->watch);
}

/* Adds the real path of dir (a folder) to the folders io may read. */
static void add_read_dir(mr_lua_sandbox *s, const char *dir)
{
    if (!dir || s->read_count >= MR_SANDBOX_READ_DIRS) return;
    char *real = realpath(dir, NULL);
    if (!real) return;
    for (int i = 0; i < s->read_count; i++)
        if (mr_lua_sandbox_path_inside(real, s->read_dirs[i])) {
            free(real);
            return;
        }
    s->read_dirs[s->read_count++] = real;
}

void mr_lua_sandbox_allow_read(lua_State *L, const char *path)
{
    char *dir = mr_path_dirname(path);
    if (dir) add_read_dir(mr_lua_sandbox_of(L), dir);
    free(dir);
}

static int setup(lua_State *L)
{
    mr_lua_sandbox_open_libs(L);
    return 0;
}

void mr_lua_sandbox_destroy(mr_lua_sandbox *s, double budget)
{
    if (!s) return;
    if (s->L) {
        /* Finalizers (the host's: scripts may not set __gc) run here, under
         * the budget and the watchdog like any call. */
        lua_State *L = s->L;
        s->L = NULL;
        run_watched_close(s, L, budget);
    }
    for (int i = 0; i < s->required_count; i++) free(s->required[i]);
    free(s->required);
    for (int i = 0; i < s->read_count; i++) free(s->read_dirs[i]);
    free(s->write_dir);
    free(s->message);
    free(s);
}

mr_status mr_lua_sandbox_create(const mr_lua_sandbox_desc *desc, mr_lua_sandbox **out, mr_error *err)
{
    *out = NULL;
    mr_lua_sandbox *s = calloc(1, sizeof *s);
    if (s) {
        s->desc = *desc;
        s->L = lua_newstate(capped_alloc, s);
    }
    if (!s || !s->L) {
        free(s);
        return mr_error_set(err, MR_ERR_NO_MEMORY, "marrow: no memory for a Lua state");
    }
    *(mr_lua_sandbox **)lua_getextraspace(s->L) = s;
    lua_setwarnf(s->L, warn_fn, s);
    for (int i = 0; i < 4; i++) add_read_dir(s, desc->read_dirs[i]);
    if (desc->write_dir && !(s->write_dir = mr_str_dup(desc->write_dir))) {
        mr_lua_sandbox_destroy(s, SETUP_BUDGET);
        return mr_error_set(err, MR_ERR_NO_MEMORY, "marrow: no memory for a Lua state");
    }
    mr_status st = mr_lua_sandbox_run(s, setup, NULL, "setup", SETUP_BUDGET, NULL);
    if (st != MR_OK) {
        const char *msg = mr_lua_sandbox_message(s);
        mr_error_set(err, st, "%s\n  (in setup)", msg ? msg : "marrow: setting up a Lua state failed");
        mr_lua_sandbox_destroy(s, SETUP_BUDGET);
        return st;
    }
    *out = s;
    return MR_OK;
}

void mr_lua_sandbox_push_resolved(lua_State *L, const char *path)
{
    const char *const *bases = mr_lua_sandbox_of(L)->desc.resolve_dirs;
    if (path[0] != '/' && !mr_file_exists(path)) {
        for (int i = 0; i < 2; i++) {
            lua_pushfstring(L, "%s/%s", bases[i], path);
            if (mr_file_exists(lua_tostring(L, -1))) return;
            lua_pop(L, 1);
        }
    }
    lua_pushstring(L, path);
}
