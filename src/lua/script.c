/* script.c — the script lifecycle (see script.h): one fresh sandbox
 * (sandbox.c) per (re)load, protected calls into the script's callbacks,
 * the reload hand-over (transfer.c), the console and errors. The bindings
 * see the context through its mr_lua_host (wrap.h); the drawing glue
 * through the hooks it registers there.
 */
#include "core/defaults.h"
#include "lua/script.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/datadir.h"
#include "core/path.h"
#include "core/str.h"
#include "formats/load.h"
#include "lua/callbacks.h"
#include "lua/transfer.h"
#include "lua/watchdog.h"
#include "lua/wrap.h"

#define DEFAULT_MEMORY ((size_t)1 << 30)
#define LOAD_BUDGET_FACTOR 10.0    /* the chunk and load() get 10x the frame budget */

/* One load of the script. */
typedef struct mr_lua_state {
    mr_lua_sandbox *sb;
    int unload_ref;          /* registry ref of unload()'s result, or LUA_NOREF */
    mr_lua_transfer_types types;
} mr_lua_state;

struct mr_lua_ctx {
    mr_lua_host host;        /* what the bindings see; first, so the sandbox user is both */
    mr_lua_desc desc;        /* strings below own copies */
    char *script, *script_dir, *root_dir, *out_dir, *scripts_dir;
    char **argv;
    mr_lua_state *cur;       /* the running script, NULL before the first */
    mr_lua_state *prev;      /* while cur is on probation (reloaded, no clean frame
                              * yet): the last good script, its unload() already
                              * run and its result kept in prev->unload_ref */
    int frame_failed;        /* a callback of cur failed in this frame */
    int frame_drawn;         /* draw() of cur ran in this frame */
    char *error;             /* shown error, NULL when none */
    int error_count;
    char **watched;          /* cur + last failed attempt's module files */
    int watched_count, watched_cap;
    double pending_dt;       /* dt of the frame being made, added at its end */
};

void mr_lua_set_stop_source(int (*stop_requested)(void)) { mr_lua_watchdog_set_stop(stop_requested); }

/* ---- directories ----------------------------------------------------------- */

const char *mr_lua_scripts_dir(void)
{
    static char dir[PATH_MAX];
    if (dir[0]) return dir;
    const char *env = getenv("MARROW_SCRIPTS");
    if (env && *env) {
        snprintf(dir, sizeof dir, "%s", env);
        return dir;
    }
    const char *root = mr_datadir_root();  /* a checkout or an installed tree (core/datadir.h) */
    if (root && (size_t)snprintf(dir, sizeof dir, "%s/scripts", root) < sizeof dir) return dir;
    snprintf(dir, sizeof dir, "scripts");
    return dir;
}

/* ---- context ------------------------------------------------------------------ */

mr_status mr_lua_ctx_create(const mr_lua_desc *desc, mr_lua_ctx **out)
{
    *out = NULL;
    if (!desc || !desc->script) return MR_ERR_INVALID_ARGUMENT;
    mr_lua_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return MR_ERR_NO_MEMORY;
    ctx->desc = *desc;
    if (!ctx->desc.memory_limit) ctx->desc.memory_limit = DEFAULT_MEMORY;
    if (!(ctx->desc.budget > 0)) ctx->desc.budget = 1.0;
    mr_lua_host *h = &ctx->host;
    h->width = desc->width > 0 ? desc->width : MR_DEFAULT_WIDTH;
    h->height = desc->height > 0 ? desc->height : MR_DEFAULT_HEIGHT;
    h->headless = desc->headless;
    h->console.hidden = desc->headless && !desc->console;  /* printing never changes a headless picture */
    h->view.camera.yaw = 30.0f;
    h->view.camera.pitch = 15.0f;
    h->view.camera.distance = 4.0f;
    h->view.camera.target[1] = 1.0f;
    ctx->script = mr_str_dup(desc->script);
    ctx->script_dir = mr_path_dirname(desc->script);
    ctx->scripts_dir = mr_str_dup(desc->scripts_dir ? desc->scripts_dir : mr_lua_scripts_dir());
    ctx->root_dir = ctx->scripts_dir ? mr_path_dirname(ctx->scripts_dir) : NULL;
    ctx->out_dir = desc->out_dir ? mr_str_dup(desc->out_dir) : NULL;
    int argc = desc->argc > 0 ? desc->argc : 0;
    ctx->argv = calloc((size_t)argc + 1, sizeof *ctx->argv);
    if (!ctx->script || !ctx->script_dir || !ctx->scripts_dir || !ctx->root_dir || !ctx->argv ||
        (desc->out_dir && !ctx->out_dir)) {
        mr_lua_ctx_destroy(ctx);
        return MR_ERR_NO_MEMORY;
    }
    for (int i = 0; i < argc; i++)
        if (!(ctx->argv[i] = mr_str_dup(desc->argv[i]))) {
            mr_lua_ctx_destroy(ctx);
            return MR_ERR_NO_MEMORY;
        }
    ctx->desc.argc = argc;
    ctx->desc.script = ctx->script;
    ctx->desc.argv = ctx->argv;
    ctx->desc.out_dir = ctx->out_dir;
    ctx->desc.scripts_dir = ctx->scripts_dir;
    h->out_dir = ctx->out_dir;
    h->budget = ctx->desc.budget;
    h->memory_limit = ctx->desc.memory_limit;
    h->resolve_dirs[0] = ctx->script_dir;     /* as the sandbox's resolve_dirs */
    h->resolve_dirs[1] = ctx->root_dir;
    *out = ctx;
    return MR_OK;
}

static void free_strings(char **v, int n)
{
    for (int i = 0; i < n; i++) free(v[i]);
}

void mr_lua_ctx_destroy(mr_lua_ctx *ctx)
{
    if (!ctx) return;
    mr_lua_stop(ctx);
    if (ctx->host.draw) ctx->host.draw->release(ctx->host.draw_user);
    mr_lua_host_settle_models(&ctx->host);   /* the last model's cache file, with its packs */
    mr_lua_models_clear(&ctx->host.models);
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

mr_lua_host *mr_lua_host_of_ctx(mr_lua_ctx *ctx) { return &ctx->host; }

/* ---- model cache ------------------------------------------------------------------ */

mr_status mr_lua_cache_add(mr_lua_ctx *ctx, const char *key, mr_model *model)
{
    if (!ctx || !key || !model || mr_lua_models_lookup(&ctx->host.models, key)) return MR_ERR_INVALID_ARGUMENT;
    return mr_lua_models_insert(&ctx->host.models, key, model, 0);
}

int mr_lua_cache_count(const mr_lua_ctx *ctx) { return (int)ctx->host.models.count; }
int mr_lua_cache_loads(const mr_lua_ctx *ctx) { return ctx->host.models.loads; }

/* ---- console and errors ----------------------------------------------------- */

void mr_lua_console_add(mr_lua_ctx *ctx, const char *text)
{
    mr_lua_console_put(&ctx->host.console, text, ctx->host.time);
}

const char *mr_lua_console_line(const mr_lua_ctx *ctx, int i)
{
    return mr_lua_console_get(&ctx->host.console, i, NULL);
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
    char *copy = mr_str_dup(msg);
    if (copy) {
        free(ctx->error);
        ctx->error = copy;
    }
    if (!ctx->desc.quiet) {
        fprintf(stderr, "%s\n", msg);
        fflush(stderr);
    }
}

/* Shows msg as the context's error and gives it to the caller in err. */
static mr_status fail(mr_lua_ctx *ctx, mr_status status, const char *msg, mr_error *err)
{
    mr_lua_set_error(ctx, msg);
    return mr_error_set(err, status, "%s", msg);
}

/* Sandbox callbacks: print() and warnings, os.exit. */
static void on_print(void *user, const char *text, int warning)
{
    mr_lua_ctx *ctx = user;
    if (!ctx->desc.quiet) {
        FILE *f = warning ? stderr : stdout;
        fputs(text, f);
        fputc('\n', f);
        fflush(f);
    }
    mr_lua_console_add(ctx, text);
}

static void on_os_exit(void *user, int code)
{
    mr_lua_ctx *ctx = user;
    ctx->host.quit = 1;
    ctx->host.quit_code = code;
}

/* ---- protected calls ------------------------------------------------------------- */

enum call_kind { CALL_CHUNK, CALL_FUNCTION, CALL_LOAD, CALL_UNLOAD };

typedef struct call_args {
    enum call_kind kind;
    const char *script;
    const char *fn;          /* global function to call */
    int nnum;                /* number arguments after the optional string */
    double num[4];
    const char *str;         /* string argument, pushed first when set */
    mr_lua_state *self;      /* the state being called */
    mr_lua_state *from;      /* CALL_LOAD: state to copy the hand-over from */
    int ref;                 /* CALL_LOAD: registry ref (in from, or own when from is NULL) */
    int dropped;             /* CALL_LOAD: values that could not be copied */
    char dropped_at[128];
} call_args;

static int protected_call(lua_State *L)
{
    call_args *a = lua_touserdata(L, 1);
    if (a->kind == CALL_CHUNK) {
        if (luaL_loadfilex(L, a->script, "t") != LUA_OK) return lua_error(L);
        lua_call(L, 0, 0);
        mr_lua_callbacks_check(L, a->script);   /* `function Load()` is never called: say so */
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
            return luaL_error(L, "%s: %s is a %s, not a function", a->script, a->fn, luaL_typename(L, -1));
        lua_pop(L, 1);                 /* callable table: lua_call handles it */
    }
    int n = 0;
    if (a->kind == CALL_LOAD) {
        if (a->from) {
            lua_State *F = mr_lua_sandbox_state(a->from->sb);
            lua_rawgeti(F, LUA_REGISTRYINDEX, a->ref);
            mr_lua_transfer(F, &a->from->types, lua_gettop(F), L, &a->dropped, a->dropped_at,
                            sizeof a->dropped_at);
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
        luaL_unref(L, LUA_REGISTRYINDEX, a->self->unload_ref);
        a->self->unload_ref = luaL_ref(L, LUA_REGISTRYINDEX);
        return 0;
    }
    lua_call(L, n, 0);
    return 0;
}

/* Runs a call in state s within budget seconds. Returns MR_OK, or the
 * sandbox's status with the context's error set (and err filled). */
static mr_status run(mr_lua_ctx *ctx, mr_lua_state *s, call_args *a, const char *what, double budget,
                     mr_error *err)
{
    a->script = ctx->script;
    a->self = s;
    mr_status st = mr_lua_sandbox_run(s->sb, protected_call, a, what, budget, NULL);
    if (st == MR_OK) return MR_OK;
    const char *msg = mr_lua_sandbox_message(s->sb);
    /* Say in which callback it happened unless the message already does. */
    char *m2 = NULL;
    if (msg && a->kind != CALL_CHUNK && !strstr(msg, what)) m2 = mr_str_fmt("%s\n  (in %s)", msg, what);
    fail(ctx, st, m2 ? m2 : msg ? msg : "script error (no memory for the message)", err);
    free(m2);
    return st;
}

/* ---- states -------------------------------------------------------------------------- */

static int prepare_types(lua_State *L)
{
    mr_lua_transfer_prepare(L, lua_touserdata(L, 1));
    mr_lua_sandbox_seal_metatables(L);     /* the types made here too */
    return 0;
}

static void state_free(mr_lua_ctx *ctx, mr_lua_state *s)
{
    if (!s) return;
    mr_lua_sandbox_destroy(s->sb, ctx->desc.budget);
    free(s);
}

static mr_status state_new(mr_lua_ctx *ctx, mr_lua_state **out, mr_error *err)
{
    *out = NULL;
    mr_lua_state *s = calloc(1, sizeof *s);
    if (!s) return fail(ctx, MR_ERR_NO_MEMORY, "marrow: no memory for a Lua state", err);
    s->unload_ref = LUA_NOREF;
    mr_lua_sandbox_desc d = {
        .memory_limit = ctx->desc.memory_limit,
        .headless = ctx->desc.headless,
        .clock = &ctx->host.time,
        .script = ctx->script,
        .argc = ctx->desc.argc,
        .argv = ctx->argv,
        .search_dirs = {ctx->script_dir, ctx->scripts_dir},
        .resolve_dirs = {ctx->script_dir, ctx->root_dir},
        .preload_name = "marrow",
        .preload = mr_lua_open_marrow,
        .print = on_print,
        .exit = on_os_exit,
        .user = ctx,
        .trust = ctx->desc.trust,
        .read_dirs = {ctx->script_dir, ".", ctx->out_dir, ctx->scripts_dir},
        /* Writes go to the output folder; a window without one writes beside the script. */
        .write_dir = ctx->out_dir ? ctx->out_dir : ctx->desc.headless ? "." : ctx->script_dir,
    };
    if (!ctx->desc.trust) mr_load_refuse_links_out(1);   /* formats/load.h: a sandboxed script's models */
    mr_error e = {0};
    mr_status st = mr_lua_sandbox_create(&d, &s->sb, &e);
    if (st != MR_OK) {
        free(s);
        return fail(ctx, st, e.msg, err);
    }
    if ((st = mr_lua_sandbox_run(s->sb, prepare_types, &s->types, "setup", 10.0, NULL)) != MR_OK) {
        const char *msg = mr_lua_sandbox_message(s->sb);
        fail(ctx, st, msg ? msg : "marrow: setting up a Lua state failed", err);
        state_free(ctx, s);
        return st;
    }
    *out = s;
    return MR_OK;
}

/* ---- watched files ------------------------------------------------------------- */

static void watched_add(mr_lua_ctx *ctx, const char *path)
{
    mr_str_list_add_unique(&ctx->watched, &ctx->watched_count, &ctx->watched_cap, path);   /* best effort */
}

static void watched_add_required(mr_lua_ctx *ctx, const mr_lua_state *s)
{
    const char *const *paths;
    int n = mr_lua_sandbox_required(s->sb, &paths);
    for (int i = 0; i < n; i++) watched_add(ctx, paths[i]);
}

static void watched_rebuild(mr_lua_ctx *ctx, const mr_lua_state *failed)
{
    free_strings(ctx->watched, ctx->watched_count);
    ctx->watched_count = 0;
    watched_add(ctx, ctx->script);
    if (ctx->cur) watched_add_required(ctx, ctx->cur);
    if (failed) watched_add_required(ctx, failed);
}

int mr_lua_watched(const mr_lua_ctx *ctx, const char *const **paths)
{
    *paths = (const char *const *)ctx->watched;
    return ctx->watched_count;
}

/* ---- lifecycle -------------------------------------------------------------------- */

static double load_budget(const mr_lua_ctx *ctx) { return ctx->desc.budget * LOAD_BUDGET_FACTOR; }

/* A fresh state with the script's chunk run in *out, or a status (error
 * set; the failed attempt's modules go into the watched list). */
static mr_status compile(mr_lua_ctx *ctx, mr_lua_state **out, mr_error *err)
{
    mr_lua_state *s;
    mr_status st = state_new(ctx, &s, err);
    *out = NULL;
    if (st != MR_OK) return st;
    call_args a = {.kind = CALL_CHUNK};
    if ((st = run(ctx, s, &a, "the script's main chunk", load_budget(ctx), err)) != MR_OK) {
        watched_rebuild(ctx, s);
        state_free(ctx, s);
        return st;
    }
    *out = s;
    return MR_OK;
}

static mr_status call_load(mr_lua_ctx *ctx, mr_lua_state *s, mr_lua_state *from, int ref, mr_error *err)
{
    call_args a = {.kind = CALL_LOAD, .fn = "load", .from = from, .ref = ref};
    mr_status rc = run(ctx, s, &a, "load()", load_budget(ctx), err);
    if (a.dropped) {
        char line[256];
        snprintf(line, sizeof line, "reload: %d value(s) from unload() could not be kept (first: %s); "
                                    "only data, math values, models, clips and poses survive a reload",
                 a.dropped, a.dropped_at);
        if (!ctx->desc.quiet) fprintf(stderr, "%s\n", line);
        mr_lua_console_add(ctx, line);
    }
    return rc;
}

mr_status mr_lua_start(mr_lua_ctx *ctx, mr_error *err)
{
    if (ctx->cur) return mr_lua_reload(ctx, err);
    mr_lua_state *s;
    mr_status st = compile(ctx, &s, err);
    if (st != MR_OK) return st;
    ctx->cur = s;
    watched_rebuild(ctx, NULL);
    return call_load(ctx, s, NULL, LUA_REFNIL, err);
}

mr_status mr_lua_reload(mr_lua_ctx *ctx, mr_error *err)
{
    if (!ctx->cur) return mr_lua_start(ctx, err);
    mr_lua_state *s;
    mr_status st = compile(ctx, &s, err);
    if (st != MR_OK) return st;        /* the old script keeps running */
    mr_lua_state *old = ctx->cur;
    lua_State *OL = mr_lua_sandbox_state(old->sb);
    call_args u = {.kind = CALL_UNLOAD, .fn = "unload"};
    luaL_unref(OL, LUA_REGISTRYINDEX, old->unload_ref);
    old->unload_ref = LUA_NOREF;
    run(ctx, old, &u, "unload()", load_budget(ctx), NULL);   /* a failure is printed; the new script goes on */
    int ref = old->unload_ref == LUA_NOREF ? LUA_REFNIL : old->unload_ref;
    if ((st = call_load(ctx, s, ref == LUA_REFNIL ? NULL : old, ref, err)) != MR_OK) {
        /* The new load() failed: back to the old script, given its own state
         * again. The new error stays on screen. */
        char *shown = ctx->error ? mr_str_dup(ctx->error) : NULL;
        watched_rebuild(ctx, s);
        state_free(ctx, s);
        call_load(ctx, old, NULL, ref, NULL);
        if (shown) {
            free(ctx->error);
            ctx->error = shown;
        }
        return st;
    }
    ctx->cur = s;
    /* The new version is on probation until a frame of it ran update() and
     * draw() without an error: until then the last good script is kept
     * (its unload() result too) to go back to. A reload during probation
     * replaces the unproven version and keeps the same last good one. */
    if (ctx->prev) state_free(ctx, old);
    else ctx->prev = old;
    ctx->frame_failed = ctx->frame_drawn = 0;
    watched_rebuild(ctx, NULL);
    mr_lua_set_error(ctx, NULL);       /* "reloaded" is said once a frame of it ran (mr_lua_end_frame) */
    return MR_OK;
}

void mr_lua_stop(mr_lua_ctx *ctx)
{
    if (!ctx) return;
    state_free(ctx, ctx->prev);        /* its unload() has run already */
    ctx->prev = NULL;
    if (!ctx->cur) return;
    call_args u = {.kind = CALL_FUNCTION, .fn = "unload"};
    run(ctx, ctx->cur, &u, "unload()", ctx->desc.budget, NULL);
    state_free(ctx, ctx->cur);
    ctx->cur = NULL;
}

int mr_lua_running(const mr_lua_ctx *ctx) { return ctx->cur != NULL; }

lua_State *mr_lua_current_state(mr_lua_ctx *ctx) { return ctx->cur ? mr_lua_sandbox_state(ctx->cur->sb) : NULL; }
const char *mr_lua_script(const mr_lua_ctx *ctx) { return ctx->script; }

/* ---- callbacks ----------------------------------------------------------------------- */

/* A callback of a script on probation failed: drop it and go back to the
 * last good script, handing it its own unload() result again (as when a
 * new load() fails). The error stays on screen until a fixed save loads. */
static void roll_back(mr_lua_ctx *ctx)
{
    mr_lua_state *failed = ctx->cur, *good = ctx->prev;
    char *shown = ctx->error ? mr_str_dup(ctx->error) : NULL;
    ctx->cur = good;
    ctx->prev = NULL;
    watched_rebuild(ctx, failed);
    state_free(ctx, failed);
    int ref = good->unload_ref == LUA_NOREF ? LUA_REFNIL : good->unload_ref;
    call_load(ctx, good, NULL, ref, NULL);
    if (shown) {
        free(ctx->error);
        ctx->error = shown;
    }
    const char *line = "the new version failed in its first frame: the last good script keeps running";
    if (!ctx->desc.quiet) fprintf(stderr, "%s\n", line);
    mr_lua_console_add(ctx, line);
}

static mr_status callback(mr_lua_ctx *ctx, call_args *a, const char *what, int is_draw, mr_error *err)
{
    if (!ctx->cur) return MR_OK;
    a->kind = CALL_FUNCTION;
    mr_status st = run(ctx, ctx->cur, a, what, ctx->desc.budget, err);
    if (st == MR_OK) {
        ctx->frame_drawn |= is_draw;
        return MR_OK;
    }
    ctx->frame_failed = 1;
    if (ctx->prev) {
        roll_back(ctx);
        /* The same callback again, on the script that is running now: the
         * frame shows the last good script's picture, not an empty one. */
        if (is_draw && ctx->host.draw) ctx->host.draw->begin(ctx->host.draw_user);
        call_args again = *a;
        run(ctx, ctx->cur, &again, what, ctx->desc.budget, NULL);
    }
    return st;
}

mr_status mr_lua_update(mr_lua_ctx *ctx, double dt, mr_error *err)
{
    ctx->pending_dt = dt;
    call_args a = {.fn = "update", .nnum = 1, .num = {dt}};
    return callback(ctx, &a, "update()", 0, err);
}

mr_status mr_lua_draw(mr_lua_ctx *ctx, mr_error *err)
{
    if (ctx->host.draw) ctx->host.draw->begin(ctx->host.draw_user);
    call_args a = {.fn = "draw"};
    return callback(ctx, &a, "draw()", 1, err);
}

mr_status mr_lua_keypressed(mr_lua_ctx *ctx, const char *key, mr_error *err)
{
    call_args a = {.fn = "keypressed", .str = key};
    return callback(ctx, &a, "keypressed()", 0, err);
}

mr_status mr_lua_mousemoved(mr_lua_ctx *ctx, double x, double y, double dx, double dy, mr_error *err)
{
    call_args a = {.fn = "mousemoved", .nnum = 4, .num = {x, y, dx, dy}};
    return callback(ctx, &a, "mousemoved()", 0, err);
}

mr_status mr_lua_resize(mr_lua_ctx *ctx, int width, int height, mr_error *err)
{
    mr_lua_set_size(ctx, width, height);
    call_args a = {.fn = "resize", .nnum = 2, .num = {width, height}};
    return callback(ctx, &a, "resize()", 0, err);
}

void mr_lua_end_frame(mr_lua_ctx *ctx)
{
    ctx->host.time += ctx->pending_dt;
    ctx->pending_dt = 0;
    ctx->host.frame++;
    if (ctx->prev && ctx->frame_drawn && !ctx->frame_failed) {
        state_free(ctx, ctx->prev);    /* the new version drew a clean frame: it is the good one */
        ctx->prev = NULL;
        char line[PATH_MAX + 16];
        snprintf(line, sizeof line, "reloaded %s", ctx->script);
        if (!ctx->desc.quiet) {
            printf("%s\n", line);
            fflush(stdout);
        }
        mr_lua_console_add(ctx, line);
    }
    ctx->frame_failed = ctx->frame_drawn = 0;
}

/* ---- small accessors ------------------------------------------------------------------ */

int mr_lua_quit_requested(const mr_lua_ctx *ctx, int *code)
{
    if (code) *code = ctx->host.quit_code;
    return ctx->host.quit;
}

size_t mr_lua_memory(const mr_lua_ctx *ctx) { return ctx->cur ? mr_lua_sandbox_memory(ctx->cur->sb) : 0; }
size_t mr_lua_held_memory(const mr_lua_ctx *ctx) { return ctx->host.held_bytes; }
double mr_lua_time(const mr_lua_ctx *ctx) { return ctx->host.time; }
uint64_t mr_lua_frame(const mr_lua_ctx *ctx) { return ctx->host.frame; }

void mr_lua_set_size(mr_lua_ctx *ctx, int width, int height)
{
    if (width > 0) ctx->host.width = width;
    if (height > 0) ctx->host.height = height;
}
