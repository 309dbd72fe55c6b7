/* sandbox.h — one Lua state a script may not break out of (internal to
 * src/lua). It knows nothing of models, drawing or the marrow module: the
 * caller names one module to preload and gives callbacks for print, exit and
 * the clock.
 *
 *   - a capped allocator: an allocation past memory_limit fails as the Lua
 *     error "not enough memory", never as a crash;
 *   - a time budget: an instruction-count hook checks the thread's CPU clock
 *     and stops a call that runs past its budget with an error naming
 *     file:line; once stopped every instruction fails, so a pcall in the
 *     script cannot swallow the stop;
 *   - the standard libraries, with print and warnings going to desc.print,
 *     os.exit to desc.exit, setmetatable refusing __gc (finalizers cannot be
 *     stopped), debug cut to traceback and getinfo, no C modules, and when
 *     headless os.clock/os.time reading *desc.clock and math.random seeded
 *     with a fixed seed;
 *   - require finding modules in desc.search_dirs, recording every file it
 *     loads (mr_sandbox_required), plus the preloaded module;
 *   - `arg` = {[0] = desc.script, desc.argv...}.
 *
 * Every call into the state goes through mr_sandbox_run: one lua_pcall of a
 * C function, so even an out-of-memory while pushing arguments is a Lua
 * error and never reaches the panic handler.
 */
#ifndef MR_LUA_SANDBOX_H
#define MR_LUA_SANDBOX_H

#include <stddef.h>

#include <lua.h>

#include "core/error.h"

typedef struct mr_sandbox mr_sandbox;

typedef struct mr_sandbox_desc {
    size_t memory_limit;     /* bytes (required) */
    int headless;            /* simulated clock and a fixed random seed */
    const double *clock;     /* simulated seconds for os.clock/os.time (headless) */
    const char *script;      /* arg[0] and the name in messages */
    int argc;                /* arg[1..argc] */
    char *const *argv;
    const char *search_dirs[2];  /* package.path: dir/?.lua, dir/?/init.lua */
    const char *resolve_dirs[2]; /* bases of mr_sandbox_push_resolved */
    const char *preload_name;    /* require(preload_name) calls preload */
    lua_CFunction preload;
    void (*print)(void *user, const char *text, int warning);  /* print() (0), Lua warnings (1) */
    void (*exit)(void *user, int code);           /* os.exit(code) */
    void *user;              /* for the callbacks and mr_sandbox_user */
} mr_sandbox_desc;

/* Makes a state in *out (strings of desc must outlive it). On failure *out
 * is NULL and err says why: MR_ERR_NO_MEMORY, or the status of the failed
 * setup (see mr_sandbox_run) with its message. */
mr_status mr_sandbox_create(const mr_sandbox_desc *desc, mr_sandbox **out, mr_error *err);
/* Closes the state; finalizers run under a budget of `budget` seconds. */
void mr_sandbox_destroy(mr_sandbox *s, double budget);

lua_State *mr_sandbox_state(mr_sandbox *s);
/* The sandbox of a state made here, and its desc.user. */
mr_sandbox *mr_sandbox_of(lua_State *L);
void *mr_sandbox_user(lua_State *L);

/* Calls f(L) with arg as a light userdata at index 1, protected, within
 * budget seconds; `what` names the call in messages ("update()"). Returns
 * MR_OK, or on an error MR_ERR_SCRIPT (the script raised it),
 * MR_ERR_LIMIT (it ran past the budget) or MR_ERR_NO_MEMORY (past
 * memory_limit), with the message in err (cut to fit an mr_error).
 * The whole message with its traceback stays readable through
 * mr_sandbox_message. */
mr_status mr_sandbox_run(mr_sandbox *s, lua_CFunction f, void *arg, const char *what, double budget,
                         mr_error *err);
/* The message and traceback of the last failed mr_sandbox_run, uncut; NULL
 * when the last run succeeded or there was no memory for the message. Owned
 * by the sandbox, valid until the next run. */
const char *mr_sandbox_message(const mr_sandbox *s);

/* Live bytes held by the state. */
size_t mr_sandbox_memory(const mr_sandbox *s);
/* Files require loaded into this state (valid while it lives). */
int mr_sandbox_required(const mr_sandbox *s, const char *const **paths);

/* The budget's clock (thread CPU seconds), and adding the time spent in C
 * work (model loading) back to the running budget. */
double mr_sandbox_clock(void);
void mr_sandbox_budget_extend(lua_State *L, double seconds);

/* Pushes the resolved form of a relative path: as given when it exists, else
 * under resolve_dirs[0] when it exists there, else under resolve_dirs[1]
 * when it exists there, else as given. */
void mr_sandbox_push_resolved(lua_State *L, const char *path);

#endif
