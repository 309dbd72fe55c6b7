/* script.c — the script lifecycle (see script.h): one fresh lua_State per
 * (re)load with a capped allocator and a time-budget hook, protected calls
 * into the script's callbacks, the reload hand-over, console and errors.
 *
 * Every interaction with a state goes through one lua_pcall of a small C
 * function (protected_call), so even a memory error while pushing arguments
 * is a Lua error and never reaches the panic handler.
 */
#include "lua/script.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <lualib.h>

#include "core/alloc.h"
#include "core/file.h"
#include "lua/lua_internal.h"

#define DEFAULT_MEMORY ((size_t)1 << 30)
#define HOOK_COUNT 1000            /* instructions between clock checks */
#define LOAD_BUDGET_FACTOR 10.0    /* the chunk and load() get 10x the frame budget */
#define HEADLESS_SEED 20240101

/* The budget runs on the thread's CPU time, not the wall clock: on a busy
 * machine a well-behaved script is not stopped for waiting its turn. */
double mr_lua_budget_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- directories ----------------------------------------------------------- */

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *mr_lua_scripts_dir(void)
{
    static char dir[PATH_MAX];
    if (dir[0]) return dir;
    const char *env = getenv("MARROW_SCRIPTS");
    if (env && *env) {
        snprintf(dir, sizeof dir, "%s", env);
        return dir;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
        static const char *const rel[] = {"/../../scripts", "/../../../scripts", "/../scripts", "/scripts"};
        for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
            char cand[PATH_MAX + 32];
            snprintf(cand, sizeof cand, "%s%s", exe, rel[i]);
            char real[PATH_MAX];
            if (realpath(cand, real) && is_dir(real)) {
                snprintf(dir, sizeof dir, "%s", real);
                return dir;
            }
        }
    }
    snprintf(dir, sizeof dir, "scripts");
    return dir;
}

/* ---- context ------------------------------------------------------------------ */

mr_lua_ctx *mr_lua_ctx_create(const mr_lua_desc *desc)
{
    if (!desc || !desc->script) return NULL;
    mr_lua_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return NULL;
    ctx->desc = *desc;
    if (!ctx->desc.memory_limit) ctx->desc.memory_limit = DEFAULT_MEMORY;
    if (!(ctx->desc.budget > 0)) ctx->desc.budget = 1.0;
    ctx->width = desc->width > 0 ? desc->width : 960;
    ctx->height = desc->height > 0 ? desc->height : 540;
    ctx->script = mr_strdup(desc->script);
    ctx->script_dir = mr_path_dirname(desc->script);
    ctx->scripts_dir = mr_strdup(desc->scripts_dir ? desc->scripts_dir : mr_lua_scripts_dir());
    ctx->root_dir = ctx->scripts_dir ? mr_path_dirname(ctx->scripts_dir) : NULL;
    ctx->out_dir = desc->out_dir ? mr_strdup(desc->out_dir) : NULL;
    int argc = desc->argc > 0 ? desc->argc : 0;
    ctx->argv = calloc((size_t)argc + 1, sizeof *ctx->argv);
    if (!ctx->script || !ctx->script_dir || !ctx->scripts_dir || !ctx->root_dir || !ctx->argv ||
        (desc->out_dir && !ctx->out_dir)) {
        mr_lua_ctx_destroy(ctx);
        return NULL;
    }
    for (int i = 0; i < argc; i++)
        if (!(ctx->argv[i] = mr_strdup(desc->argv[i]))) {
            mr_lua_ctx_destroy(ctx);
            return NULL;
        }
    ctx->desc.argc = argc;
    ctx->desc.script = ctx->script;
    ctx->desc.argv = ctx->argv;
    ctx->desc.out_dir = ctx->out_dir;
    ctx->desc.scripts_dir = ctx->scripts_dir;
    return ctx;
}

static void free_strings(char **v, int n)
{
    for (int i = 0; i < n; i++) free(v[i]);
}

static void state_free(mr_lua_state *s);

void mr_lua_ctx_destroy(mr_lua_ctx *ctx)
{
    if (!ctx) return;
    mr_lua_stop(ctx);
    mr_lua_gfx_free(ctx);
    for (int i = 0; i < ctx->cache_count; i++) {
        mr_model_free(ctx->cache[i]->model);
        free(ctx->cache[i]->key);
        free(ctx->cache[i]);
    }
    free(ctx->cache);
    free_strings(ctx->watched, ctx->watched_count);
    free(ctx->watched);
    if (ctx->argv) free_strings(ctx->argv, ctx->desc.argc);
    free(ctx->argv);
    free(ctx->script);
    free(ctx->script_dir);
    free(ctx->scripts_dir);
    free(ctx->root_dir);
    free(ctx->out_dir);
    free(ctx->error);
    free(ctx);
}

/* ---- console and errors ----------------------------------------------------- */

void mr_lua_console_add(mr_lua_ctx *ctx, const char *text)
{
    while (text) {
        const char *nl = strchr(text, '\n');
        size_t n = nl ? (size_t)(nl - text) : strlen(text);
        int slot = (ctx->console_head + ctx->console_count) % MR_LUA_CONSOLE_LINES;
        if (ctx->console_count == MR_LUA_CONSOLE_LINES)
            ctx->console_head = (ctx->console_head + 1) % MR_LUA_CONSOLE_LINES;
        else
            ctx->console_count++;
        /* Tabs become spaces up to the next multiple of 8 (the font has no tab). */
        char *out = ctx->console[slot];
        size_t cap = sizeof ctx->console[slot] - 1, len = 0;
        for (size_t i = 0; i < n && len < cap; i++) {
            if (text[i] == '\t') {
                do out[len++] = ' ';
                while (len % 8 && len < cap);
            } else {
                out[len++] = text[i];
            }
        }
        out[len] = '\0';
        ctx->console_time[slot] = ctx->time;
        text = nl ? nl + 1 : NULL;
    }
}

const char *mr_lua_console_line(const mr_lua_ctx *ctx, int i)
{
    if (i < 0 || i >= ctx->console_count) return NULL;
    return ctx->console[(ctx->console_head + i) % MR_LUA_CONSOLE_LINES];
}

const char *mr_lua_error(const mr_lua_ctx *ctx) { return ctx->error; }
int mr_lua_error_count(const mr_lua_ctx *ctx) { return ctx->error_count; }

void mr_lua_set_error(mr_lua_ctx *ctx, const char *msg)
{
    if (!msg) {
        free(ctx->error);
        ctx->error = NULL;
        return;
    }
    ctx->error_count++;
    if (ctx->error && !strcmp(ctx->error, msg)) return;  /* same error every frame: say it once */
    char *copy = mr_strdup(msg);
    if (copy) {
        free(ctx->error);
        ctx->error = copy;
    }
    if (!ctx->desc.quiet) {
        fprintf(stderr, "%s\n", msg);
        fflush(stderr);
    }
}

/* ---- allocator and budget --------------------------------------------------------- */

static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    mr_lua_state *s = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        s->mem_used -= old;
        free(ptr);
        return NULL;
    }
    if (nsize > old && nsize - old > s->mem_limit - s->mem_used) return NULL;
    void *p = realloc(ptr, nsize);
    if (!p) return NULL;
    s->mem_used = s->mem_used - old + nsize;
    return p;
}

static void budget_hook(lua_State *L, lua_Debug *ar)
{
    mr_lua_state *s = mr_lua_state_of(L);
    if (s->deadline <= 0) return;
    if (!s->timed_out) {
        if (mr_lua_budget_clock() < s->deadline) return;
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

void mr_lua_budget_extend(lua_State *L, double seconds)
{
    mr_lua_state *s = mr_lua_state_of(L);
    if (s->deadline > 0 && seconds > 0) s->deadline += seconds;
}

static void warn_fn(void *ud, const char *msg, int tocont)
{
    mr_lua_state *s = ud;
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
        if (!s->ctx->desc.quiet) fprintf(stderr, "%s\n", line);
        mr_lua_console_add(s->ctx, line);
    }
    len = 0;
}

/* ---- protected calls ------------------------------------------------------------- */

enum call_kind { CALL_CHUNK, CALL_FUNCTION, CALL_LOAD, CALL_UNLOAD, CALL_SETUP };

typedef struct call_args {
    enum call_kind kind;
    const char *fn;          /* global function to call */
    int nnum;                /* number arguments after the optional string */
    double num[4];
    const char *str;         /* string argument, pushed first when set */
    mr_lua_state *from;      /* CALL_LOAD: state to copy the hand-over from */
    int ref;                 /* CALL_LOAD: registry ref (in from, or own when from is NULL) */
    int dropped;             /* CALL_LOAD: values that could not be copied */
    char dropped_at[128];
} call_args;

/* Message handler: message + traceback (our own C frames trimmed). */
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

static void setup_state(lua_State *L);

static int protected_call(lua_State *L)
{
    call_args *a = lua_touserdata(L, 1);
    mr_lua_state *s = mr_lua_state_of(L);
    if (a->kind == CALL_SETUP) {
        setup_state(L);
        return 0;
    }
    if (a->kind == CALL_CHUNK) {
        if (luaL_loadfilex(L, s->ctx->script, "t") != LUA_OK) return lua_error(L);
        lua_call(L, 0, 0);
        return 0;
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
    lua_pushstring(L, a->fn);
    lua_rawget(L, -2);
    if (lua_isnil(L, -1)) return 0;    /* not defined: nothing to do */
    /* `load` is also Lua's own function: a script that defines no load()
     * callback still has that one, which is not a callback. */
    lua_getfield(L, LUA_REGISTRYINDEX, "marrow.builtin_load");
    int builtin = lua_rawequal(L, -1, -2);
    lua_pop(L, 1);
    if (builtin) return 0;
    if (!lua_isfunction(L, -1)) {
        if (luaL_getmetafield(L, -1, "__call") == LUA_TNIL)
            return luaL_error(L, "%s: %s is a %s, not a function", s->ctx->script, a->fn,
                              luaL_typename(L, -1));
        lua_pop(L, 1);                 /* callable table: lua_call handles it */
    }
    int n = 0;
    if (a->kind == CALL_LOAD) {
        if (a->from) {
            lua_State *F = a->from->L;
            lua_rawgeti(F, LUA_REGISTRYINDEX, a->ref);
            mr_lua_transfer(a->from, lua_gettop(F), s, &a->dropped, a->dropped_at, sizeof a->dropped_at);
            lua_pop(F, 1);
        } else {
            lua_rawgeti(L, LUA_REGISTRYINDEX, a->ref);
        }
        n = 1;
    } else {
        if (a->str) {
            lua_pushstring(L, a->str);
            n++;
        }
        for (int i = 0; i < a->nnum; i++, n++) lua_pushnumber(L, a->num[i]);
    }
    if (a->kind == CALL_UNLOAD) {
        lua_call(L, n, 1);
        if (lua_isnil(L, -1)) return 0;
        luaL_unref(L, LUA_REGISTRYINDEX, s->unload_ref);
        s->unload_ref = luaL_ref(L, LUA_REGISTRYINDEX);
        return 0;
    }
    lua_call(L, n, 0);
    return 0;
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

/* Runs a call in state s within budget seconds. Returns 0 or -1 (error set). */
static int run(mr_lua_state *s, call_args *a, const char *what, double budget)
{
    lua_State *L = s->L;
    int top = lua_gettop(L);
    lua_pushcfunction(L, msgh);
    lua_pushcfunction(L, protected_call);
    lua_pushlightuserdata(L, a);
    s->what = what;
    s->budget = budget;
    s->timed_out = 0;
    s->deadline = mr_lua_budget_clock() + budget;
    int st = lua_pcall(L, 1, 0, top + 1);
    s->deadline = 0;
    if (s->timed_out) lua_sethook(L, budget_hook, LUA_MASKCOUNT, HOOK_COUNT);
    if (st == LUA_OK) {
        lua_settop(L, top);
        return 0;
    }
    char *msg;
    if (st == LUA_ERRMEM)
        msg = mr_strfmt("%s: %s: not enough memory (a Lua state may use at most %zu MiB)",
                        s->ctx->script, what, s->mem_limit >> 20);
    else if (st == LUA_ERRERR)
        msg = mr_strfmt("%s: %s: error while handling an error (%s)", s->ctx->script, what,
                        lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
    else
        msg = mr_strfmt("%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "(error without a message)");
    lua_settop(L, top);
    if (msg) {
        trim_traceback(msg);
        /* Say in which callback it happened unless the message already does. */
        if (a->kind != CALL_CHUNK && !strstr(msg, what)) {
            char *m2 = mr_strfmt("%s\n  (in %s)", msg, what);
            if (m2) {
                free(msg);
                msg = m2;
            }
        }
    }
    mr_lua_set_error(s->ctx, msg ? msg : "script error (no memory for the message)");
    free(msg);
    lua_gc(L, LUA_GCCOLLECT);
    return -1;
}

/* ---- state setup ------------------------------------------------------------------ */

static int l_print(lua_State *L)
{
    mr_lua_ctx *ctx = mr_lua_state_of(L)->ctx;
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        if (i > 1) luaL_addchar(&b, '\t');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    const char *s = lua_tostring(L, -1);
    if (!ctx->desc.quiet) {
        fputs(s, stdout);
        fputc('\n', stdout);
        fflush(stdout);
    }
    mr_lua_console_add(ctx, s);
    return 0;
}

static void record_required(mr_lua_state *s, const char *path)
{
    for (int i = 0; i < s->required_count; i++)
        if (!strcmp(s->required[i], path)) return;
    size_t cap = (size_t)s->required_cap;
    if (mr_array_reserve((void **)&s->required, &cap, (size_t)s->required_count + 1, sizeof(char *)))
        return;
    s->required_cap = (int)cap;
    char *copy = mr_strdup(path);
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
            if (lua_isstring(L, -1)) record_required(mr_lua_state_of(L), lua_tostring(L, -1));
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
    mr_lua_ctx *ctx = mr_lua_state_of(L)->ctx;
    ctx->quit = 1;
    if (lua_isboolean(L, 1)) ctx->quit_code = lua_toboolean(L, 1) ? 0 : 1;
    else ctx->quit_code = (int)luaL_optinteger(L, 1, 0);
    return 0;
}

/* Headless: the clock is the simulated time, never the wall clock. */
static int l_clock(lua_State *L)
{
    lua_pushnumber(L, mr_lua_state_of(L)->ctx->time);
    return 1;
}

static int l_time(lua_State *L)
{
    if (lua_isnoneornil(L, 1)) {
        lua_pushinteger(L, (lua_Integer)mr_lua_state_of(L)->ctx->time);
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

static void setup_state(lua_State *L)
{
    mr_lua_state *s = mr_lua_state_of(L);
    mr_lua_ctx *ctx = s->ctx;
    luaL_openlibs(L);
    lua_getglobal(L, "load");
    lua_setfield(L, LUA_REGISTRYINDEX, "marrow.builtin_load");
    lua_pushcfunction(L, l_print);
    lua_setglobal(L, "print");
    lua_getglobal(L, "setmetatable");
    lua_pushcclosure(L, l_setmetatable, 1);
    lua_setglobal(L, "setmetatable");
    restrict_debug(L);

    /* package: modules beside the script, then marrow's scripts/; no C modules. */
    lua_getglobal(L, LUA_LOADLIBNAME);
    lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;%s/?.lua;%s/?/init.lua", ctx->script_dir,
                    ctx->script_dir, ctx->scripts_dir, ctx->scripts_dir);
    lua_setfield(L, -2, "path");
    lua_pushliteral(L, "");
    lua_setfield(L, -2, "cpath");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, luaopen_marrow);
    lua_setfield(L, -2, "marrow");
    lua_pop(L, 2);
    lua_getglobal(L, "require");
    lua_pushcclosure(L, l_require, 1);
    lua_setglobal(L, "require");

    /* os.exit ends the run cleanly after the frame instead of killing it. */
    lua_getglobal(L, LUA_OSLIBNAME);
    lua_pushcfunction(L, l_exit);
    lua_setfield(L, -2, "exit");
    if (ctx->desc.headless) {
        lua_pushcfunction(L, l_clock);
        lua_setfield(L, -2, "clock");
        lua_getfield(L, -1, "time");
        lua_pushcclosure(L, l_time, 1);
        lua_setfield(L, -2, "time");
    }
    lua_pop(L, 1);

    if (ctx->desc.headless) {
        lua_getglobal(L, LUA_MATHLIBNAME);
        lua_getfield(L, -1, "randomseed");
        lua_pushinteger(L, HEADLESS_SEED);
        lua_call(L, 1, 0);
        lua_pop(L, 1);
    }

    /* arg: arg[0] = the script, arg[1..] its arguments. */
    lua_createtable(L, ctx->desc.argc, 1);
    lua_pushstring(L, ctx->script);
    lua_seti(L, -2, 0);
    for (int i = 0; i < ctx->desc.argc; i++) {
        lua_pushstring(L, ctx->argv[i]);
        lua_seti(L, -2, i + 1);
    }
    lua_setglobal(L, "arg");

    /* Remember our metatables for the reload hand-over. */
    static const char *const names[7] = {MR_LUA_VEC3, MR_LUA_QUAT, MR_LUA_MAT4, MR_LUA_MODEL,
                                         MR_LUA_SKELETON, MR_LUA_CLIP, MR_LUA_POSE};
    luaL_requiref(L, "marrow", luaopen_marrow, 0);
    lua_pop(L, 1);
    for (int i = 0; i < 7; i++) {
        luaL_getmetatable(L, names[i]);
        s->mt[i] = lua_topointer(L, -1);
        lua_pop(L, 1);
    }
}

static void state_free(mr_lua_state *s)
{
    if (!s) return;
    if (s->L) {
        /* Finalizers run here; keep the budget so a looping __gc is stopped. */
        s->what = "a finalizer (__gc)";
        s->budget = s->ctx->desc.budget;
        s->timed_out = 0;
        s->deadline = mr_lua_budget_clock() + s->budget;
        lua_close(s->L);
    }
    free_strings(s->required, s->required_count);
    free(s->required);
    free(s);
}

static mr_lua_state *state_new(mr_lua_ctx *ctx)
{
    mr_lua_state *s = calloc(1, sizeof *s);
    if (!s) {
        mr_lua_set_error(ctx, "marrow: no memory for a Lua state");
        return NULL;
    }
    s->ctx = ctx;
    s->mem_limit = ctx->desc.memory_limit;
    s->unload_ref = LUA_NOREF;
    s->L = lua_newstate(capped_alloc, s);
    if (!s->L) {
        free(s);
        mr_lua_set_error(ctx, "marrow: no memory for a Lua state");
        return NULL;
    }
    *(mr_lua_state **)lua_getextraspace(s->L) = s;
    lua_setwarnf(s->L, warn_fn, s);
    lua_sethook(s->L, budget_hook, LUA_MASKCOUNT, HOOK_COUNT);
    call_args a = {.kind = CALL_SETUP};
    if (run(s, &a, "setup", 10.0) != 0) {
        state_free(s);
        return NULL;
    }
    return s;
}

/* ---- watched files ------------------------------------------------------------- */

static void watched_add(mr_lua_ctx *ctx, const char *path)
{
    for (int i = 0; i < ctx->watched_count; i++)
        if (!strcmp(ctx->watched[i], path)) return;
    size_t cap = (size_t)ctx->watched_cap;
    if (mr_array_reserve((void **)&ctx->watched, &cap, (size_t)ctx->watched_count + 1, sizeof(char *)))
        return;
    ctx->watched_cap = (int)cap;
    char *copy = mr_strdup(path);
    if (copy) ctx->watched[ctx->watched_count++] = copy;
}

static void watched_rebuild(mr_lua_ctx *ctx, const mr_lua_state *failed)
{
    free_strings(ctx->watched, ctx->watched_count);
    ctx->watched_count = 0;
    watched_add(ctx, ctx->script);
    if (ctx->cur)
        for (int i = 0; i < ctx->cur->required_count; i++) watched_add(ctx, ctx->cur->required[i]);
    if (failed)
        for (int i = 0; i < failed->required_count; i++) watched_add(ctx, failed->required[i]);
}

int mr_lua_watched(const mr_lua_ctx *ctx, const char *const **paths)
{
    *paths = (const char *const *)ctx->watched;
    return ctx->watched_count;
}

/* ---- lifecycle -------------------------------------------------------------------- */

static double load_budget(const mr_lua_ctx *ctx) { return ctx->desc.budget * LOAD_BUDGET_FACTOR; }

/* A fresh state with the script's chunk run, or NULL (error set; the failed
 * attempt's modules go into the watched list). */
static mr_lua_state *compile(mr_lua_ctx *ctx)
{
    mr_lua_state *s = state_new(ctx);
    if (!s) return NULL;
    call_args a = {.kind = CALL_CHUNK};
    if (run(s, &a, "the script's main chunk", load_budget(ctx)) != 0) {
        watched_rebuild(ctx, s);
        state_free(s);
        return NULL;
    }
    return s;
}

static int call_load(mr_lua_state *s, mr_lua_state *from, int ref)
{
    call_args a = {.kind = CALL_LOAD, .fn = "load", .from = from, .ref = ref};
    int rc = run(s, &a, "load()", load_budget(s->ctx));
    if (a.dropped) {
        char line[256];
        snprintf(line, sizeof line, "reload: %d value(s) from unload() could not be kept (first: %s); "
                                    "only data, math values, models, clips and poses survive a reload",
                 a.dropped, a.dropped_at);
        if (!s->ctx->desc.quiet) fprintf(stderr, "%s\n", line);
        mr_lua_console_add(s->ctx, line);
    }
    return rc;
}

int mr_lua_start(mr_lua_ctx *ctx)
{
    if (ctx->cur) return mr_lua_reload(ctx);
    mr_lua_state *s = compile(ctx);
    if (!s) return -1;
    ctx->cur = s;
    watched_rebuild(ctx, NULL);
    return call_load(s, NULL, LUA_REFNIL);
}

int mr_lua_reload(mr_lua_ctx *ctx)
{
    if (!ctx->cur) return mr_lua_start(ctx);
    mr_lua_state *s = compile(ctx);
    if (!s) return -1;                 /* the old script keeps running */
    mr_lua_state *old = ctx->cur;
    call_args u = {.kind = CALL_UNLOAD, .fn = "unload"};
    luaL_unref(old->L, LUA_REGISTRYINDEX, old->unload_ref);
    old->unload_ref = LUA_NOREF;
    int unload_failed = run(old, &u, "unload()", load_budget(ctx)) != 0;
    int ref = old->unload_ref == LUA_NOREF ? LUA_REFNIL : old->unload_ref;
    if (call_load(s, ref == LUA_REFNIL ? NULL : old, ref) != 0) {
        /* The new load() failed: back to the old script, given its own state
         * again. The new error stays on screen. */
        char *err = ctx->error ? mr_strdup(ctx->error) : NULL;
        watched_rebuild(ctx, s);
        state_free(s);
        call_load(old, NULL, ref);
        if (err) {
            free(ctx->error);
            ctx->error = err;
        }
        return -1;
    }
    (void)unload_failed;               /* printed already; the new script is fine */
    ctx->cur = s;
    state_free(old);
    watched_rebuild(ctx, NULL);
    mr_lua_set_error(ctx, NULL);
    char line[PATH_MAX + 16];
    snprintf(line, sizeof line, "reloaded %s", ctx->script);
    if (!ctx->desc.quiet) {
        printf("%s\n", line);
        fflush(stdout);
    }
    mr_lua_console_add(ctx, line);
    return 0;
}

void mr_lua_stop(mr_lua_ctx *ctx)
{
    if (!ctx || !ctx->cur) return;
    call_args u = {.kind = CALL_FUNCTION, .fn = "unload"};
    run(ctx->cur, &u, "unload()", ctx->desc.budget);
    state_free(ctx->cur);
    ctx->cur = NULL;
}

int mr_lua_running(const mr_lua_ctx *ctx) { return ctx->cur != NULL; }

/* ---- callbacks ----------------------------------------------------------------------- */

static int callback(mr_lua_ctx *ctx, call_args *a, const char *what)
{
    if (!ctx->cur) return 0;
    a->kind = CALL_FUNCTION;
    return run(ctx->cur, a, what, ctx->desc.budget);
}

int mr_lua_update(mr_lua_ctx *ctx, double dt)
{
    ctx->pending_dt = dt;
    call_args a = {.fn = "update", .nnum = 1, .num = {dt}};
    return callback(ctx, &a, "update()");
}

int mr_lua_draw(mr_lua_ctx *ctx)
{
    mr_lua_gfx_begin(ctx);
    call_args a = {.fn = "draw"};
    return callback(ctx, &a, "draw()");
}

int mr_lua_keypressed(mr_lua_ctx *ctx, const char *key)
{
    call_args a = {.fn = "keypressed", .str = key};
    return callback(ctx, &a, "keypressed()");
}

int mr_lua_mousemoved(mr_lua_ctx *ctx, double x, double y, double dx, double dy)
{
    call_args a = {.fn = "mousemoved", .nnum = 4, .num = {x, y, dx, dy}};
    return callback(ctx, &a, "mousemoved()");
}

int mr_lua_resize(mr_lua_ctx *ctx, int width, int height)
{
    mr_lua_set_size(ctx, width, height);
    call_args a = {.fn = "resize", .nnum = 2, .num = {width, height}};
    return callback(ctx, &a, "resize()");
}

void mr_lua_end_frame(mr_lua_ctx *ctx)
{
    ctx->time += ctx->pending_dt;
    ctx->pending_dt = 0;
    ctx->frame++;
}

/* ---- small accessors ------------------------------------------------------------------ */

int mr_lua_quit_requested(const mr_lua_ctx *ctx, int *code)
{
    if (code) *code = ctx->quit_code;
    return ctx->quit;
}

size_t mr_lua_memory(const mr_lua_ctx *ctx) { return ctx->cur ? ctx->cur->mem_used : 0; }
double mr_lua_time(const mr_lua_ctx *ctx) { return ctx->time; }
uint64_t mr_lua_frame(const mr_lua_ctx *ctx) { return ctx->frame; }

void mr_lua_set_size(mr_lua_ctx *ctx, int width, int height)
{
    if (width > 0) ctx->width = width;
    if (height > 0) ctx->height = height;
}

void mr_lua_push_resolved(lua_State *L, const char *path)
{
    mr_lua_ctx *ctx = mr_lua_state_of(L)->ctx;
    if (path[0] != '/' && !mr_file_exists(path)) {
        const char *bases[2] = {ctx->script_dir, ctx->root_dir};
        for (int i = 0; i < 2; i++) {
            lua_pushfstring(L, "%s/%s", bases[i], path);
            if (mr_file_exists(lua_tostring(L, -1))) return;
            lua_pop(L, 1);
        }
    }
    lua_pushstring(L, path);
}
