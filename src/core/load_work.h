/* load_work.h — loading, as the calling thread's host counts it: how a
 * script's time budget (src/lua/sandbox.h) leaves out the work of a model
 * load, including what the load left for later.
 *
 * A model load queues its clips' packs for a worker thread (anim/
 * clip_runtime.h: mr_clip_finish_later). The first call that samples such
 * a clip waits for its pack, building it itself when the worker has not
 * started: seconds of CPU for a long motion-capture take, on the script's
 * thread, inside whatever call sampled it. That is the load's work too. A
 * load runs between mr_load_work_begin and _end; a pack queued in there is
 * marked as the load's (mr_load_work_running), and its wait and build are
 * bracketed the same way. Packs queued by anything else (an axis
 * conversion for a save, a clip:optimize) count as the call's work.
 *
 * The Lua host installs hooks for the calling thread while a script call
 * runs; only the outermost begin/end of a nest calls them. With none
 * installed (tools, tests, a plain Lua) begin and end only keep the count.
 */
#ifndef MR_CORE_LOAD_WORK_H
#define MR_CORE_LOAD_WORK_H

typedef struct mr_load_work_hooks {
    double (*begin)(void *user);          /* returns what end takes */
    void (*end)(void *user, double token);
    void *user;
    int depth;                            /* the nest under way: 0 in new hooks; an old one
                                           * put back brings its own */
} mr_load_work_hooks;

/* Installs the calling thread's hooks (NULL: none, no nest); *old (may be
 * NULL) gets the ones replaced, with their nest, to put back. */
void mr_load_work_set(const mr_load_work_hooks *hooks, mr_load_work_hooks *old);

/* Brackets load work on the calling thread: begin returns what end takes. */
double mr_load_work_begin(void);
void mr_load_work_end(double token);

/* 1 inside load work on the calling thread, else 0. */
int mr_load_work_running(void);

#endif
