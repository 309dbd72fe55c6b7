/* sandbox.c — one Lua state with a capped allocator, a time budget and a
 * restricted standard library (see sandbox.h). */
#include "lua/sandbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lualib.h>

#include "core/alloc.h"
#include "core/file.h"
#include "core/str.h"

#define HOOK_COUNT 1000            /* instructions between clock checks */
#define HEADLESS_SEED 20240101
#define SETUP_BUDGET 10.0

struct mr_sandbox {
    lua_State *L;
    mr_sandbox_desc desc;
    size_t mem_used;
    double deadline;         /* mr_sandbox_clock() seconds; 0 = no budget running */
    double budget;           /* the budget of the current call, for messages */
    int timed_out;
    const char *what;        /* call being run ("update()"), for messages */
    char *message;           /* the last failed run's message + traceback, or NULL */
    char **required;         /* module files found by require */
    int required_count, required_cap;
};

/* The budget runs on the thread's CPU time, not the wall clock: on a busy
 * machine a well-behaved script is not stopped for waiting its turn. */
double mr_sandbox_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

mr_sandbox *mr_sandbox_of(lua_State *L) { return *(mr_sandbox **)lua_getextraspace(L); }
void *mr_sandbox_user(lua_State *L) { return mr_sandbox_of(L)->desc.user; }
lua_State *mr_sandbox_state(mr_sandbox *s) { return s->L; }
size_t mr_sandbox_memory(const mr_sandbox *s) { return s->mem_used; }

int mr_sandbox_required(const mr_sandbox *s, const char *const **paths)
{
    *paths = (const char *const *)s->required;
    return s->required_count;
}

/* ---- allocator and budget ------------------------------------------------------ */

static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    mr_sandbox *s = ud;
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

static void budget_hook(lua_State *L, lua_Debug *ar)
{
    mr_sandbox *s = mr_sandbox_of(L);
    if (s->deadline <= 0) return;
    if (!s->timed_out) {
        if (mr_sandbox_clock() < s->deadline) return;
        s->timed_out = 1;
        /* From now on every instruction fails, so a pcall in the script
         * cannot swallow the stop and carry on looping. */
        lua_sethook(L, budget_hook, LUA_MASKCOUNT, 1);
    }
    lua_getinfo(L, "Sl", ar);
    char budget[32];
    snprintf(budget, sizeof budget, "%g", s->budget);
    if (ar->currentline > 0)
        lua_pushfstring(L, "%s:%d: %s ran past its time budget of %s s and was stopped (endless loop?)",
                        ar->short_src, ar->currentline, s->what, budget);
    else
        lua_pushfstring(L, "%s ran past its time budget of %s s and was stopped (endless loop?)", s->what,
                        budget);
    lua_error(L);
}

void mr_sandbox_budget_extend(lua_State *L, double seconds)
{
    mr_sandbox *s = mr_sandbox_of(L);
    if (s->deadline > 0 && seconds > 0) s->deadline += seconds;
}

static void warn_fn(void *ud, const char *msg, int tocont)
{
    mr_sandbox *s = ud;
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

const char *mr_sandbox_message(const mr_sandbox *s) { return s->message; }

mr_status mr_sandbox_run(mr_sandbox *s, lua_CFunction f, void *arg, const char *what, double budget,
                         mr_error *err)
{
    lua_State *L = s->L;
    int top = lua_gettop(L);
    free(s->message);
    s->message = NULL;
    lua_pushcfunction(L, msgh);
    lua_pushcfunction(L, f);
    lua_pushlightuserdata(L, arg);
    s->what = what;
    s->budget = budget;
    s->timed_out = 0;
    s->deadline = mr_sandbox_clock() + budget;
    int st = lua_pcall(L, 1, 0, top + 1);
    s->deadline = 0;
    if (s->timed_out) lua_sethook(L, budget_hook, LUA_MASKCOUNT, HOOK_COUNT);
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

/* ---- the restricted library ---------------------------------------------------------- */

static int l_print(lua_State *L)
{
    mr_sandbox *s = mr_sandbox_of(L);
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        if (i > 1) luaL_addchar(&b, '\t');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    s->desc.print(s->desc.user, lua_tostring(L, -1), 0);
    return 0;
}

static void record_required(mr_sandbox *s, const char *path)
{
    for (int i = 0; i < s->required_count; i++)
        if (!strcmp(s->required[i], path)) return;
    size_t cap = (size_t)s->required_cap;
    if (mr_alloc_reserve((void **)&s->required, &cap, (size_t)s->required_count + 1, sizeof(char *)))
        return;
    s->required_cap = (int)cap;
    char *copy = mr_str_dup(path);
    if (copy) s->required[s->required_count++] = copy;
}

/* require wrapper: notes the file a module comes from (for the watcher),
 * then calls the real require (upvalue 1). */
static int l_require(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    int loaded = lua_getfield(L, -1, name) != LUA_TNIL;
    lua_pop(L, 2);
    if (!loaded) {
        lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
        lua_getfield(L, -1, LUA_LOADLIBNAME);
        lua_getfield(L, -1, "searchpath");
        lua_pushvalue(L, 1);
        lua_getfield(L, -3, "path");
        if (lua_isfunction(L, -3) && lua_isstring(L, -1)) {
            lua_call(L, 2, 1);
            if (lua_isstring(L, -1)) record_required(mr_sandbox_of(L), lua_tostring(L, -1));
        }
        lua_settop(L, 1);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    lua_call(L, 1, LUA_MULTRET);
    return lua_gettop(L) - 1;
}

static int l_exit(lua_State *L)
{
    mr_sandbox *s = mr_sandbox_of(L);
    int code = lua_isboolean(L, 1) ? !lua_toboolean(L, 1) : (int)luaL_optinteger(L, 1, 0);
    s->desc.exit(s->desc.user, code);
    return 0;
}

/* Headless: the clock is the simulated time, never the wall clock. */
static int l_clock(lua_State *L)
{
    lua_pushnumber(L, *mr_sandbox_of(L)->desc.clock);
    return 1;
}

static int l_time(lua_State *L)
{
    if (lua_isnoneornil(L, 1)) {
        lua_pushinteger(L, (lua_Integer)*mr_sandbox_of(L)->desc.clock);
        return 1;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* setmetatable that refuses __gc: finalizers run with hooks off, so a
 * looping one could never be stopped by the time budget. */
static int l_setmetatable(lua_State *L)
{
    if (lua_istable(L, 2)) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_error(L, "setmetatable: __gc metamethods are disabled in marrow scripts "
                                 "(a finalizer cannot be stopped if it loops)");
        lua_pop(L, 1);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* The debug library minus what could switch the budget hook off or reach
 * into other metatables: traceback and getinfo stay. */
static void restrict_debug(lua_State *L)
{
    lua_getglobal(L, LUA_DBLIBNAME);
    lua_createtable(L, 0, 2);
    lua_getfield(L, -2, "traceback");
    lua_setfield(L, -2, "traceback");
    lua_getfield(L, -2, "getinfo");
    lua_setfield(L, -2, "getinfo");
    lua_pushvalue(L, -1);
    lua_setglobal(L, LUA_DBLIBNAME);
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_insert(L, -2);
    lua_setfield(L, -2, LUA_DBLIBNAME);
    lua_pop(L, 2);
}

static int setup(lua_State *L)
{
    const mr_sandbox_desc *d = &mr_sandbox_of(L)->desc;
    luaL_openlibs(L);
    lua_getglobal(L, "load");
    lua_setfield(L, LUA_REGISTRYINDEX, "marrow.builtin_load");
    lua_pushcfunction(L, l_print);
    lua_setglobal(L, "print");
    lua_getglobal(L, "setmetatable");
    lua_pushcclosure(L, l_setmetatable, 1);
    lua_setglobal(L, "setmetatable");
    restrict_debug(L);

    /* package: modules in the search dirs; no C modules. */
    lua_getglobal(L, LUA_LOADLIBNAME);
    lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;%s/?.lua;%s/?/init.lua", d->search_dirs[0], d->search_dirs[0],
                    d->search_dirs[1], d->search_dirs[1]);
    lua_setfield(L, -2, "path");
    lua_pushliteral(L, "");
    lua_setfield(L, -2, "cpath");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, d->preload);
    lua_setfield(L, -2, d->preload_name);
    lua_pop(L, 2);
    lua_getglobal(L, "require");
    lua_pushcclosure(L, l_require, 1);
    lua_setglobal(L, "require");

    /* os.exit ends the run cleanly after the frame instead of killing it. */
    lua_getglobal(L, LUA_OSLIBNAME);
    lua_pushcfunction(L, l_exit);
    lua_setfield(L, -2, "exit");
    if (d->headless) {
        lua_pushcfunction(L, l_clock);
        lua_setfield(L, -2, "clock");
        lua_getfield(L, -1, "time");
        lua_pushcclosure(L, l_time, 1);
        lua_setfield(L, -2, "time");
    }
    lua_pop(L, 1);

    if (d->headless) {
        lua_getglobal(L, LUA_MATHLIBNAME);
        lua_getfield(L, -1, "randomseed");
        lua_pushinteger(L, HEADLESS_SEED);
        lua_call(L, 1, 0);
        lua_pop(L, 1);
    }

    /* arg: arg[0] = the script, arg[1..] its arguments. */
    lua_createtable(L, d->argc, 1);
    lua_pushstring(L, d->script);
    lua_seti(L, -2, 0);
    for (int i = 0; i < d->argc; i++) {
        lua_pushstring(L, d->argv[i]);
        lua_seti(L, -2, i + 1);
    }
    lua_setglobal(L, "arg");

    luaL_requiref(L, d->preload_name, d->preload, 0);
    lua_pop(L, 1);
    return 0;
}

/* ---- lifecycle ------------------------------------------------------------------------- */

void mr_sandbox_destroy(mr_sandbox *s, double budget)
{
    if (!s) return;
    if (s->L) {
        /* Finalizers run here; keep the budget so a looping __gc is stopped. */
        s->what = "a finalizer (__gc)";
        s->budget = budget;
        s->timed_out = 0;
        s->deadline = mr_sandbox_clock() + budget;
        lua_close(s->L);
    }
    for (int i = 0; i < s->required_count; i++) free(s->required[i]);
    free(s->required);
    free(s->message);
    free(s);
}

mr_status mr_sandbox_create(const mr_sandbox_desc *desc, mr_sandbox **out, mr_error *err)
{
    *out = NULL;
    mr_sandbox *s = calloc(1, sizeof *s);
    if (s) {
        s->desc = *desc;
        s->L = lua_newstate(capped_alloc, s);
    }
    if (!s || !s->L) {
        free(s);
        return mr_error_set(err, MR_ERR_NO_MEMORY, "marrow: no memory for a Lua state");
    }
    *(mr_sandbox **)lua_getextraspace(s->L) = s;
    lua_setwarnf(s->L, warn_fn, s);
    lua_sethook(s->L, budget_hook, LUA_MASKCOUNT, HOOK_COUNT);
    mr_status st = mr_sandbox_run(s, setup, NULL, "setup", SETUP_BUDGET, NULL);
    if (st != MR_OK) {
        const char *msg = mr_sandbox_message(s);
        mr_error_set(err, st, "%s\n  (in setup)", msg ? msg : "marrow: setting up a Lua state failed");
        mr_sandbox_destroy(s, SETUP_BUDGET);
        return st;
    }
    *out = s;
    return MR_OK;
}

void mr_sandbox_push_resolved(lua_State *L, const char *path)
{
    const char *const *bases = mr_sandbox_of(L)->desc.resolve_dirs;
    if (path[0] != '/' && !mr_file_exists(path)) {
        for (int i = 0; i < 2; i++) {
            lua_pushfstring(L, "%s/%s", bases[i], path);
            if (mr_file_exists(lua_tostring(L, -1))) return;
            lua_pop(L, 1);
        }
    }
    lua_pushstring(L, path);
}
