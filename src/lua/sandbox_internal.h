/* sandbox_internal.h — what sandbox.c, sandbox_lib.c and sandbox_io.c share
 * (private to those three files). */
#ifndef MR_LUA_SANDBOX_INTERNAL_H
#define MR_LUA_SANDBOX_INTERNAL_H

#include "lua/sandbox.h"
#include "lua/watchdog.h"

#define MR_SANDBOX_NEST 256          /* coroutines resumed inside each other (Lua's C stack allows ~200) */
#define MR_SANDBOX_READ_DIRS 64      /* folders io may read (script, cwd, out, models) */
#define MR_SANDBOX_HOOK_COUNT 1000   /* instructions between clock checks (without a watchdog) */

struct mr_lua_sandbox {
    lua_State *L;
    mr_lua_sandbox_desc desc;
    size_t mem_used;
    mr_lua_watch watch;      /* deadline (0 = no call running), pauses, interrupts */
    int timed_out;           /* 1: past the budget, 2: interrupted by a signal */
    char stop_msg[768];      /* a stop's message kept for every later instruction of the call, or "" */
    atomic_int poked;        /* the watchdog made every instruction and call run the hook */
    int count_hook;          /* 1: no watchdog; the call in progress runs the count hook */
    char *message;           /* the last failed run's message + traceback, or NULL */
    double pause_left;       /* CPU seconds of paused work the call in progress may still be forgiven */
    int bounded;             /* depth of mr_lua_sandbox_pause (bounded) in progress */
    double load_spent;       /* CPU seconds of load work forgiven so far (bounded work leaves it out) */
    int (*cancel_old)(void *);   /* the core/cancel.h check it replaced */
    void *cancel_old_user;
    char **required;         /* module files found by require */
    int required_count, required_cap;
    /* Coroutines being resumed, innermost last: the poke sets their hooks
     * too (each thread has its own). Anchored in the registry while listed. */
    lua_State *running[MR_SANDBOX_NEST];
    atomic_int nrunning;
    /* Real paths of the folders io may read, and the one it may write. */
    char *read_dirs[MR_SANDBOX_READ_DIRS];
    int read_count;
    char *write_dir;
};

/* Registry keys. */
#define MR_SANDBOX_KILLED "marrow.sandbox.killed"   /* weak set of coroutines stopped by the budget */
#define MR_SANDBOX_RUNNING "marrow.sandbox.running" /* anchors of running[] */

/* sandbox.c: the budget check for long C loops (patterns, table.move...):
 * raises the budget's error when the call is past its deadline or was
 * interrupted; returns otherwise. Cheap enough for every few thousand steps. */
void mr_lua_sandbox_tick(lua_State *L);
/* sandbox.c: set every listed thread's hook to mask/count. */
void mr_lua_sandbox_set_hooks(mr_lua_sandbox *s, int mask, int count);

/* sandbox_lib.c: builds the script's global environment from an allow-list
 * (or, with desc.trust, the whole standard library); runs inside setup. */
void mr_lua_sandbox_open_libs(lua_State *L);

/* sandbox_io.c: the confined io table, pushed on the stack. */
void mr_lua_sandbox_push_io(lua_State *L);
/* sandbox_io.c: open(2) of a regular file only (non-blocking open, no final
 * link followed, fstat on the descriptor), then blocking again; -1 with
 * *why set otherwise. */
int mr_lua_sandbox_open_regular(const char *path, int flags, const char **why);
/* sandbox_io.c: whether the real path lies inside dir (a real path). */
int mr_lua_sandbox_path_inside(const char *real, const char *dir);

#endif
