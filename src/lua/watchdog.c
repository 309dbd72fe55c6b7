/* watchdog.c — one thread per process that pokes a sandbox call past its
 * budget and ends what a poke cannot stop (see watchdog.h). */
#include "lua/watchdog.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PERIOD_NS 20000000L      /* how often the thread looks: 20 ms */
#define STOP_GRACE 0.5           /* seconds a stopped process may take to end: with the 20 ms look and
                                  * exit() on a loaded machine, the run ends well within 1 s */
#define POKE_SIGNAL SIGURG       /* ignored by default: a stray one is harmless */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static mr_lua_watch *_Atomic current;   /* innermost armed watch */
static pid_t started_in;                /* the process whose thread runs */
static pthread_t watcher;
static atomic_int quitting;             /* exit(): the thread ends */
static int (*stop_fn)(void);

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu_of(clockid_t id)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0) return 0;
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

double mr_lua_watchdog_cpu(void) { return cpu_of(CLOCK_THREAD_CPUTIME_ID); }

void mr_lua_watchdog_set_stop(int (*stop_requested)(void)) { stop_fn = stop_requested; }

/* Runs on the watched thread: the watch cannot be disarmed under it. */
static void on_poke(int sig)
{
    (void)sig;
    mr_lua_watch *w = atomic_load(&current);
    if (w && w->poke) w->poke(w->user);
}

/* write(2) only: the process ends right after, whatever state it is in. */
static void say(const char *a, const char *b, const char *c, const char *d)
{
    const char *parts[] = {a, b, c, d};
    for (int i = 0; i < 4; i++)
        if (parts[i] && write(2, parts[i], strlen(parts[i])) < 0) return;
}

static void end_stuck_call(const mr_lua_watch *w, const char *why)
{
    char budget[64];
    snprintf(budget, sizeof budget, " ran past its time budget of %g s", w->budget);
    say(w->script ? w->script : "marrow", ": ", w->what ? w->what : "a script call", budget);
    say(why, "; the run was ended (script error)\n", NULL, NULL);
    _exit(4);
}

static void *watch_loop(void *arg)
{
    (void)arg;
    double stop_seen = 0;
    while (!atomic_load(&quitting)) {
        struct timespec ts = {0, PERIOD_NS};
        nanosleep(&ts, NULL);
        int sig = stop_fn ? stop_fn() : 0;
        double now = wall_now();
        if (sig && !stop_seen) stop_seen = now;
        if (stop_seen && now - stop_seen > STOP_GRACE) {
            char msg[96];
            snprintf(msg, sizeof msg, "marrow: stopped by signal %d (the run had not ended %g s later)\n", sig,
                     STOP_GRACE);
            say(msg, NULL, NULL, NULL);
            _exit(128 + sig);
        }
        pthread_mutex_lock(&lock);
        mr_lua_watch *w = atomic_load(&current);
        if (w) {
            int poke = 0;
            if (sig && !w->stop_at_arm) {   /* not the host's own answer to it (unload()) */
                atomic_store(&w->interrupt, sig);
                poke = 1;
            }
            if (atomic_load(&w->paused) == 0) {
                double cpu = cpu_of(w->cpu), deadline = atomic_load(&w->deadline);
                if (cpu > deadline) poke = 1;
                if (cpu > deadline + w->grace) end_stuck_call(w, " inside a call that could not be interrupted");
            }
            /* Wall time runs on while paused (a model loading), with a minute more. */
            if (now - w->armed_at > w->wall_limit + (atomic_load(&w->paused) ? 60.0 : 0.0))
                end_stuck_call(w, " (blocked: its wall-clock limit passed)");
            if (poke) pthread_kill(w->thread, POKE_SIGNAL);
        }
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

/* At exit() the thread is ended and joined: nothing is left running under
 * the exit handlers that come after (LeakSanitizer's stop-the-world check
 * has crashed reading a thread that was asleep in its loop). */
static void end_thread(void)
{
    if (started_in != getpid()) return;
    atomic_store(&quitting, 1);
    pthread_join(watcher, NULL);
    started_in = 0;
}

static int start_thread(void)
{
    if (started_in == getpid()) return 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_poke;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    if (sigaction(POKE_SIGNAL, &sa, NULL) != 0) return -1;
    /* The thread must not take the poke itself, nor the stop signals (the
     * stop handlers only set a flag, which any thread may do, but a wait in
     * the main loop should see EINTR). */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, POKE_SIGNAL);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    atomic_store(&quitting, 0);
    int rc = pthread_create(&watcher, NULL, watch_loop, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) return -1;
    static pid_t registered_in;
    if (registered_in != getpid()) {   /* once per process (a fork()ed worker registers again) */
        atexit(end_thread);
        registered_in = getpid();
    }
    started_in = getpid();
    return 0;
}

int mr_lua_watchdog_arm(mr_lua_watch *w)
{
    pthread_mutex_lock(&lock);
    for (mr_lua_watch *o = atomic_load(&current); o; o = o->outer)
        if (o == w) {                  /* armed already: a watch is never its own outer */
            pthread_mutex_unlock(&lock);
            return 0;
        }
    int rc = start_thread();
    w->thread = pthread_self();
    if (pthread_getcpuclockid(w->thread, &w->cpu) != 0) w->cpu = CLOCK_THREAD_CPUTIME_ID;
    w->armed_at = wall_now();
    w->stop_at_arm = stop_fn ? stop_fn() : 0;
    atomic_store(&w->interrupt, 0);
    w->outer = atomic_load(&current);
    atomic_store(&current, w);
    pthread_mutex_unlock(&lock);
    return rc;
}

void mr_lua_watchdog_disarm(mr_lua_watch *w)
{
    pthread_mutex_lock(&lock);
    if (atomic_load(&current) == w) {
        atomic_store(&current, w->outer);
        w->outer = NULL;
    }
    pthread_mutex_unlock(&lock);
}
