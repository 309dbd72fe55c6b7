/* sandbox.h — one Lua state a script may not break out of (internal to
 * src/lua). It knows nothing of models, drawing or the marrow module: the
 * caller names one module to preload and gives callbacks for print, exit and
 * the clock.
 *
 * What a script may do (docs/API.md "The sandbox" says the same to users):
 *   - memory: a capped allocator; an allocation past memory_limit fails as
 *     the Lua error "not enough memory", never as a crash;
 *   - time: every call into the state runs under a CPU-time budget. Within
 *     it the call runs with no hook at all (Lua 5.4 traps every instruction
 *     while any count hook is set); past it the watchdog (watchdog.h) sets a
 *     hook on every instruction and call of the state and of the coroutines
 *     being resumed, which stops Lua code with an error naming file:line
 *     (within the watchdog's period, 20 ms); once stopped every instruction
 *     and every call fails, so a
 *     pcall cannot swallow the stop, an xpcall handler is not run, and a
 *     coroutine stopped this way never runs its __close handlers. Library
 *     loops of their own (patterns, string.rep, table.move/insert/remove)
 *     check the budget as they go; table.sort compares through a function
 *     call; the watchdog's hook makes C function calls stop too, and a
 *     call that even then does not return ends the process (exit 4);
 *     without a watchdog thread the count hook reads the clock instead;
 *   - the environment is built from an allow-list (sandbox_lib.c): the base
 *     functions without dofile/loadfile, load of text chunks only (never
 *     bytecode), string without dump, table, math, utf8, coroutine, os cut
 *     to clock/date/difftime/time/exit, io cut to open/lines/type/write with
 *     reads confined to read_dirs and the folders of loaded models and
 *     writes to write_dir (sandbox_io.c), debug cut to traceback, require
 *     of Lua source files in search_dirs (no C modules), setmetatable
 *     refusing __gc (a finalizer runs with hooks off), and the metatables
 *     of host types (marrow's, files', strings') reachable only as copies;
 *   - desc.trust gives the whole standard library instead (marrow run
 *     --trust: a user's own script); memory cap, budget and watchdog stay,
 *     with the sandbox's coroutine.resume/wrap/close and xpcall (above);
 *   - print and warnings go to desc.print, os.exit to desc.exit; when
 *     headless os.clock/os.time read *desc.clock and math.random has a
 *     fixed seed; `arg` = {[0] = desc.script, desc.argv...}.
 *
 * Every call into the state goes through mr_lua_sandbox_run: one lua_pcall of a
 * C function, so even an out-of-memory while pushing arguments is a Lua
 * error and never reaches the panic handler.
 */
#ifndef MR_LUA_SANDBOX_H
#define MR_LUA_SANDBOX_H

#include <stddef.h>

#include <lua.h>

#include "core/error.h"

typedef struct mr_lua_sandbox mr_lua_sandbox;

typedef struct mr_lua_sandbox_desc {
    size_t memory_limit;     /* bytes (required) */
    int headless;            /* simulated clock and a fixed random seed */
    const double *clock;     /* simulated seconds for os.clock/os.time (headless) */
    const char *script;      /* arg[0] and the name in messages */
    int argc;                /* arg[1..argc] */
    char *const *argv;
    const char *search_dirs[2];  /* package.path: dir/?.lua, dir/?/init.lua */
    const char *resolve_dirs[2]; /* bases of mr_lua_sandbox_push_resolved */
    const char *preload_name;    /* require(preload_name) calls preload */
    lua_CFunction preload;
    void (*print)(void *user, const char *text, int warning);  /* print() (0), Lua warnings (1) */
    void (*exit)(void *user, int code);           /* os.exit(code) */
    void *user;              /* for the callbacks and mr_lua_sandbox_user */
    int trust;               /* 1: the whole standard library (--trust) */
    const char *read_dirs[4];    /* folders io may read (NULL entries skipped); the
                                  * folders of loaded models are added as they load */
    const char *write_dir;       /* the one folder io may write into (NULL: none) */
} mr_lua_sandbox_desc;

/* Makes a state in *out (strings of desc must outlive it). On failure *out
 * is NULL and err says why: MR_ERR_NO_MEMORY, or the status of the failed
 * setup (see mr_lua_sandbox_run) with its message. */
mr_status mr_lua_sandbox_create(const mr_lua_sandbox_desc *desc, mr_lua_sandbox **out, mr_error *err);
/* Closes the state; finalizers run under a budget of `budget` seconds. */
void mr_lua_sandbox_destroy(mr_lua_sandbox *s, double budget);

lua_State *mr_lua_sandbox_state(mr_lua_sandbox *s);
/* The sandbox of a state made here, and its desc.user. */
mr_lua_sandbox *mr_lua_sandbox_of(lua_State *L);
void *mr_lua_sandbox_user(lua_State *L);

/* Calls f(L) with arg as a light userdata at index 1, protected, within
 * budget seconds; `what` names the call in messages ("update()"). Returns
 * MR_OK, or on an error MR_ERR_SCRIPT (the script raised it),
 * MR_ERR_LIMIT (it ran past the budget) or MR_ERR_NO_MEMORY (past
 * memory_limit), with the message in err (cut to fit an mr_error).
 * The whole message with its traceback stays readable through
 * mr_lua_sandbox_message. */
mr_status mr_lua_sandbox_run(mr_lua_sandbox *s, lua_CFunction f, void *arg, const char *what, double budget,
                         mr_error *err);
/* The message and traceback of the last failed mr_lua_sandbox_run, uncut; NULL
 * when the last run succeeded or there was no memory for the message. Owned
 * by the sandbox, valid until the next run. */
const char *mr_lua_sandbox_message(const mr_lua_sandbox *s);

/* Live bytes held by the state. */
size_t mr_lua_sandbox_memory(const mr_lua_sandbox *s);
/* Files require loaded into this state (valid while it lives). */
int mr_lua_sandbox_required(const mr_lua_sandbox *s, const char *const **paths);

/* C work a binding runs outside Lua (a save, reducing a recording,
 * packing a clip): between pause and resume the watchdog does not stop the
 * call, and the CPU time spent is forgiven (added back to the call's
 * deadline) up to an allowance per call: MR_SANDBOX_PAUSE_FACTOR x the
 * call's budget, at least MR_SANDBOX_PAUSE_MIN seconds, for all its paused
 * work together (load work inside it, a loaded clip's pack it settles, is
 * forgiven as loading and takes nothing from the allowance). Past what is
 * left of the budget plus that allowance the work is asked to stop
 * (core/cancel.h: mr_cancel_requested says 1; so it does at once on
 * SIGINT/SIGTERM), returns MR_ERR_LIMIT, and the binding stops the call
 * (mr_lua_sandbox_stop): a loop of saves, or one huge reduction, cannot
 * run for minutes. Pause returns what resume takes. */
#define MR_SANDBOX_PAUSE_FACTOR 2.0
#define MR_SANDBOX_PAUSE_MIN 2.0
double mr_lua_sandbox_pause(lua_State *L);
void mr_lua_sandbox_resume(lua_State *L, double token);
/* What a binding calls when its paused work returned MR_ERR_LIMIT: stops
 * the call now, as Lua code past its budget is stopped (every later
 * instruction and call fails, so a pcall cannot swallow it), with the
 * message "FILE:LINE: <what> ran past its time budget of B s and was
 * stopped <why>" (why: "in recorder:clip, ..."), FILE:LINE the script's
 * line that called the binding; a signal's stop keeps its own message.
 * Does not return. */
int mr_lua_sandbox_stop(lua_State *L, const char *why);
/* Model loading, which the budget does not count at all (a loader bounds
 * its own work by the file's size and its named limits), is bracketed by
 * core/load_work.h's mr_load_work_begin/end: while a call runs, the
 * sandbox's hooks there add the CPU time spent in between back to the
 * deadline. The packs a load queued are loading too, on whichever call
 * waits for or builds one first (anim/clip_worker.c brackets it). */

/* Lets io read the folder holding path (a model that loaded): its real
 * path is added to the folders a script may read. */
void mr_lua_sandbox_allow_read(lua_State *L, const char *path);

/* Where a script may write path (io.open's rules: under write_dir, a
 * relative path taken under it; missing folders inside write_dir are made):
 * pushes the path to write and returns 1, or pushes "path: why" and returns
 * 0. A trusted state writes anywhere (the path is pushed as given). */
int mr_lua_sandbox_push_write_path(lua_State *L, const char *path);

/* The one write quota of a state (MR_SANDBOX_WRITE_QUOTA bytes): everything
 * a script causes to be written counts against it, in the space files take
 * (mr_file_allocated: a sparse file counts its whole extent): io's writes
 * (bytes as written, a seek past the end its gap at once, the file's
 * allocated size when it closes), marrow.save's files, screenshots.
 * Charge adds bytes and returns 0, or returns -1 (nothing added) when they
 * would pass the quota; force adds them either way (what a closed file
 * turned out to take); negative bytes give back what was counted for a
 * write that then failed. */
#define MR_SANDBOX_WRITE_QUOTA ((long long)1 << 30)
int mr_lua_sandbox_charge_write(lua_State *L, long long bytes, int force);

/* Makes the metatables of host types registered since the state was made
 * (luaL_newmetatable) reachable only as copies; a no-op when trusted. */
void mr_lua_sandbox_seal_metatables(lua_State *L);

/* Pushes the resolved form of a relative path: as given when it exists, else
 * under resolve_dirs[0] when it exists there, else under resolve_dirs[1]
 * when it exists there, else as given. */
void mr_lua_sandbox_push_resolved(lua_State *L, const char *path);

#endif
