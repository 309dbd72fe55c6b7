/* script.h — a running Lua script: its lifecycle, live reload and callbacks.
 *
 * The host (src/cli/cmd_run.c, src/testkit, the tests, the bench) makes one mr_lua_ctx per
 * program run. The context outlives every reload: it holds the model cache
 * (models are loaded once per path + anims and shared), the on-screen
 * console, the clock and frame counter, the error being shown, and the
 * state the drawing glue (draw.c) registered.
 *
 * Each (re)load of the script gets a fresh lua_State (sandbox.c) with
 *   - a capped allocator (desc.memory_limit): a huge allocation fails as the
 *     Lua error "not enough memory", never as a crash;
 *   - an instruction-count hook with a clock check: a callback that runs past
 *     its time budget is stopped with an error naming file:line;
 *   - the standard libraries, `print` writing to stdout and to the console,
 *     `require` finding modules beside the script and in marrow's scripts/,
 *     `marrow` preloaded (require "marrow"), `arg` holding the script's
 *     arguments, and math.random seeded (a fixed seed when headless).
 *
 * Lifecycle: mr_lua_start runs the script's chunk and calls load(). Each
 * frame the host calls mr_lua_update, mr_lua_draw and the input callbacks;
 * a callback the script does not define is skipped. mr_lua_reload compiles
 * and runs the new version in a fresh state first; only when that works is
 * the old script's unload() called, its return value copied into the new
 * state (plain data, math values, models, clips, poses) and passed to the
 * new load(state). If anything fails the last good script keeps running.
 * A new version that loaded is on probation until a frame of it ran
 * update() and draw() without an error (mr_lua_end_frame decides): the last
 * good script is kept meanwhile, and when a callback of the new version
 * fails in that first frame the host goes back to it (its load() gets its
 * own unload() result again) and runs the same callback on it, so the
 * window keeps showing the last good script's picture and callbacks until
 * a fixed save loads. An error in a later frame stays in the new version
 * (shown every frame it happens). "reloaded SCRIPT" is printed (stdout and
 * console) when the new version passed that first frame, not before.
 *
 * Errors never end the program: each failure returns a status with the
 * message in err (cut to fit an mr_error), and also sets the context's
 * error (the whole message with a Lua traceback) and prints it to stderr
 * once. mr_lua_error reads that text for the error panel over the scene;
 * it is cleared when a reload succeeds. Headless hosts turn the first
 * error into exit code 4.
 *
 * Statuses of the lifecycle calls and callbacks: MR_ERR_SCRIPT (the script
 * raised an error), MR_ERR_LIMIT (a call ran past its time budget),
 * MR_ERR_NO_MEMORY (the state's memory_limit, or the host's memory).
 */
#ifndef MR_LUA_SCRIPT_H
#define MR_LUA_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "anim/model.h"

typedef struct mr_lua_ctx mr_lua_ctx;

typedef struct mr_lua_desc {
    const char *script;      /* path of the .lua file (required) */
    int argc;                /* script arguments -> global `arg` (arg[0] = script) */
    char **argv;
    int headless;            /* deterministic: fixed dt, no wall clock, fixed seed */
    size_t memory_limit;     /* bytes per Lua state [1 GiB] */
    double budget;           /* seconds per frame callback [1]; the chunk and
                              * load() get 10x, model loading is not counted */
    const char *out_dir;     /* base of relative screenshot paths [cwd] */
    const char *scripts_dir; /* marrow's helper modules [mr_lua_scripts_dir()] */
    int width, height;       /* frame size reported by marrow.window(); 0: MR_DEFAULT_WIDTH x HEIGHT (core/defaults.h) */
    int quiet;               /* 1: print() and errors only go to the console */
    int trust;               /* 1: the whole standard library, io and os unconfined
                              * (`marrow run --trust`); 0: the sandbox (sandbox.h) */
    int console;             /* headless: 1 draws the console of printed lines into
                              * the pictures; 0 (default) keeps it out of them
                              * (the script can still call marrow.console(true));
                              * a window always starts with it shown */
} mr_lua_desc;

/* Makes a context in *out (copies every string of desc). On failure *out is
 * NULL: MR_ERR_INVALID_ARGUMENT (no desc or no desc->script),
 * MR_ERR_NO_MEMORY. Free with mr_lua_ctx_destroy, which closes the script,
 * the model cache and the drawing glue (call it with the GL context still
 * current when a renderer was attached). */
mr_status mr_lua_ctx_create(const mr_lua_desc *desc, mr_lua_ctx **out);
void mr_lua_ctx_destroy(mr_lua_ctx *ctx);

/* Puts model into the cache under key (so marrow.model(key) returns it);
 * the cache takes ownership. MR_ERR_INVALID_ARGUMENT (a NULL argument or a
 * key already there) or MR_ERR_NO_MEMORY leave the model with the caller.
 * For tests and embedders. */
mr_status mr_lua_cache_add(mr_lua_ctx *ctx, const char *key, mr_model *model);
/* Models in the cache, and how many loads hit the disk (a reload must add none). */
int mr_lua_cache_count(const mr_lua_ctx *ctx);
int mr_lua_cache_loads(const mr_lua_ctx *ctx);

/* First load: chunk + load(nil). MR_OK, or a status with the message in
 * err (see above). */
mr_status mr_lua_start(mr_lua_ctx *ctx, mr_error *err);
/* Live reload as described above. MR_OK when the new script took over; a
 * status (message in err) when it failed and the last good one (if any)
 * keeps running. */
mr_status mr_lua_reload(mr_lua_ctx *ctx, mr_error *err);
/* Calls unload() and closes the script (exit). Safe to call twice. */
void mr_lua_stop(mr_lua_ctx *ctx);
/* 1 when a script is loaded and running. */
int mr_lua_running(const mr_lua_ctx *ctx);

/* Frame callbacks; each returns MR_OK, or a status with the message in err
 * when the script failed (the context's error is set too). Calls to
 * functions the script does not define return MR_OK. mr_lua_update
 * advances marrow.time() by dt. */
mr_status mr_lua_update(mr_lua_ctx *ctx, double dt, mr_error *err);
mr_status mr_lua_draw(mr_lua_ctx *ctx, mr_error *err);
mr_status mr_lua_keypressed(mr_lua_ctx *ctx, const char *key, mr_error *err);
mr_status mr_lua_mousemoved(mr_lua_ctx *ctx, double x, double y, double dx, double dy, mr_error *err);
mr_status mr_lua_resize(mr_lua_ctx *ctx, int width, int height, mr_error *err);
/* Ends a frame: the frame counter moves on. */
void mr_lua_end_frame(mr_lua_ctx *ctx);

/* The error to show in the error panel (message + whole traceback, never
 * cut), or NULL when there is none. Owned by the context; valid until the
 * next call into the script or mr_lua_set_error. */
const char *mr_lua_error(const mr_lua_ctx *ctx);
/* Sets (or with NULL clears) the error shown, e.g. a shader compile log. */
void mr_lua_set_error(mr_lua_ctx *ctx, const char *msg);
/* How many script errors happened since the context was made. */
int mr_lua_error_count(const mr_lua_ctx *ctx);

/* Console: appends a line (also used by print), and reads line i (0 = oldest
 * of the kept ones); NULL past the end. */
void mr_lua_console_add(mr_lua_ctx *ctx, const char *text);
const char *mr_lua_console_line(const mr_lua_ctx *ctx, int i);

/* Files whose change should reload the script: the script itself and every
 * module it (or its last failed version) required. Valid until the next
 * start/reload. */
int mr_lua_watched(const mr_lua_ctx *ctx, const char *const **paths);

/* 1 when the script called marrow.quit(code) / os.exit(code). */
int mr_lua_quit_requested(const mr_lua_ctx *ctx, int *code);

/* Live bytes held by the current Lua state (its allocator's count). */
size_t mr_lua_memory(const mr_lua_ctx *ctx);
/* Bytes scripts hold outside the Lua heap that --memory counts: recordings,
 * authored clips, poses' playback cursors (wrap.h: held_bytes). */
size_t mr_lua_held_memory(const mr_lua_ctx *ctx);

/* Current simulated time (seconds) and frame number (0 in the first frame). */
double mr_lua_time(const mr_lua_ctx *ctx);
uint64_t mr_lua_frame(const mr_lua_ctx *ctx);
/* Frame size reported to the script (marrow.window()). */
void mr_lua_set_size(mr_lua_ctx *ctx, int width, int height);

/* Where SIGINT/SIGTERM are read from (platform/stop.h's mr_stop_requested):
 * a stop ends a script stuck in a call within one callback, and the process
 * within 1 s (lua/watchdog.h). Call once at start-up. */
void mr_lua_set_stop_source(int (*stop_requested)(void));

/* marrow's directory of helper Lua modules: $MARROW_SCRIPTS when set, else
 * scripts/ of the data folder found from the executable (core/datadir.h: a
 * checkout's, or PREFIX/share/marrow when installed), else "scripts". Static. */
const char *mr_lua_scripts_dir(void);

#endif
