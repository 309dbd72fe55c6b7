/* watchdog.h — the backstop behind every sandbox's time budget and behind
 * SIGINT/SIGTERM (internal to src/lua).
 *
 * A sandbox call runs without a hook while it is within its budget (in Lua
 * 5.4 any count hook makes the interpreter trap every instruction). One
 * thread per process watches the sandbox call in progress, every 20 ms:
 *
 *   - past the call's CPU deadline it "pokes" the thread running the call
 *     (a SIGURG to that thread, whose handler calls watch->poke, which
 *     makes every instruction and every function call, C functions
 *     included, run the budget's hook: the call stops at its next
 *     instruction or callback), and pokes again each period while the
 *     call is still past it;
 *   - past deadline + grace (CPU), or past a generous wall-clock limit (a
 *     trusted script blocked in a system call uses no CPU), it writes
 *     "<script>: <what> ran past its time budget ... the run was ended" to
 *     stderr and ends the process with exit code 4 (a script error);
 *   - when stop_requested() (SIGINT/SIGTERM, see platform/stop.h) says so,
 *     it pokes the call in progress with watch->interrupt set, so the
 *     script stops within one callback; a call armed after the signal came
 *     (the script's unload(), which the host runs once it took the signal)
 *     is not interrupted by it: it runs to its end under its budget. If the
 *     process is still alive 0.5 s after the signal, the thread ends it
 *     with 128 + the signal's number, whatever runs.
 *
 * The thread starts at the first arm in each process (a fork()ed worker
 * gets its own) and is ended and joined by exit(). Watches nest (a call into Lua from inside a call); only
 * the innermost is watched. Arm and disarm run on the thread that runs the
 * Lua call; a watch must stay alive while armed.
 */
#ifndef MR_LUA_WATCHDOG_H
#define MR_LUA_WATCHDOG_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

typedef struct mr_lua_watch {
    _Atomic double deadline;      /* CPU seconds of the watched thread (mr_lua_watchdog_cpu) */
    double grace;                 /* past deadline + grace the process ends */
    double wall_limit;            /* seconds of wall time after arming, likewise */
    atomic_int paused;            /* > 0: C work the budget does not count (model loading) */
    atomic_int interrupt;         /* the signal that asked to stop, set before a poke */
    void (*poke)(void *user);     /* runs on the watched thread, in a signal handler */
    void *user;
    const char *script, *what;    /* for the message */
    double budget;
    /* set by arm */
    pthread_t thread;
    clockid_t cpu;
    double armed_at;              /* wall (CLOCK_MONOTONIC) seconds */
    int stop_at_arm;              /* stop_requested() then: that signal does not interrupt this call */
    struct mr_lua_watch *outer;
} mr_lua_watch;

/* The function SIGINT/SIGTERM are read from (mr_stop_requested); NULL: none.
 * Call once at start-up, before any script runs. */
void mr_lua_watchdog_set_stop(int (*stop_requested)(void));

/* Arms w (deadline, grace, wall_limit, poke, user, script, what and budget
 * filled in by the caller) for the calling thread; disarm ends it. Arm
 * returns 0, or -1 when no watchdog could be started (the call then runs
 * with a count hook that reads the clock). */
int mr_lua_watchdog_arm(mr_lua_watch *w);
void mr_lua_watchdog_disarm(mr_lua_watch *w);

/* The calling thread's CPU seconds (the clock deadlines are in). */
double mr_lua_watchdog_cpu(void);

#endif
