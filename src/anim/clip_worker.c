/* clip_worker.c — the thread that packs clips off the load's path (see
 * clip_worker.h). */
#define _GNU_SOURCE   /* SCHED_BATCH */
#include "anim/clip_worker.h"

#include <sched.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "core/load_work.h"

enum { JOB_QUEUED, JOB_RUNNING, JOB_DONE };

struct mr_clip_job {
    mr_clip view;            /* the clip, its runtime pointing at priv */
    mr_clip_runtime priv;    /* settings borrowed; played keys built here */
    _Atomic int cancel;
    int state;               /* JOB_*, under the lock */
    mr_clip_build_fn build;  /* what builds the pack (clip_runtime.c's, passed in) */
    mr_clip_pack *pack;      /* the result, once done */
    int keys_added;
    int load;                /* queued by a load: its wait and build are load work */
    size_t bytes;            /* the source keys it reads (what waiting keeps resident) */
    mr_clip_job *next;       /* queue order */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;   /* a job was queued */
static pthread_cond_t done = PTHREAD_COND_INITIALIZER;   /* a job finished */
static mr_clip_job *head, *tail;
static int outstanding;      /* jobs submitted and not yet done */
static size_t pending_bytes; /* their source keys (mr_clip_job.bytes) */
static int waiting;          /* submitters waiting for room */
static int started;          /* 1: the worker runs; -1: it could not start */
static mr_clip_job *running; /* the job the worker builds now, or NULL */
static int held;             /* holds under way (mr_clip_job_hold) */
static long started_jobs;    /* builds the worker has started (mr_clip_job_started) */

/* The worker may take the head of the queue: none held, or the queue full
 * (a submitter waits for room, which only a build makes). */
static int may_take(void)
{
    return head && (!held || waiting > 0);
}

/* Room for a job reading bytes of keys (clip_runtime.h): fewer than
 * MR_CLIP_PENDING_MAX jobs outstanding, or more whose keys stay within
 * MR_CLIP_PENDING_BYTES, never more than MR_CLIP_PENDING_JOBS. */
static int room_for(size_t bytes)
{
    if (outstanding < MR_CLIP_PENDING_MAX) return 1;
    return outstanding < MR_CLIP_PENDING_JOBS && pending_bytes + bytes <= MR_CLIP_PENDING_BYTES;
}

/* The bytes of the source keys a build reads: times and values (what
 * mr_clip_bytes counts of a clip whose pack is pending, less its struct). */
static size_t source_bytes(const mr_clip *clip)
{
    size_t n = 0;
    for (int j = 0; j < clip->joint_count; j++) {
        const mr_track *tr[3] = {&clip->tracks[j].t, &clip->tracks[j].r, &clip->tracks[j].s};
        for (int k = 0; k < 3; k++)
            n += (size_t)tr[k]->key_count * sizeof(float) *
                 (1 + (size_t)tr[k]->components * (tr[k]->interp == MR_INTERP_CUBIC ? 3 : 1));
    }
    return n;
}

/* A job leaves the count (under the lock): done, or taken out of the queue. */
static void job_gone(const mr_clip_job *job)
{
    outstanding--;
    pending_bytes -= job->bytes;
    pthread_cond_broadcast(&done);
}

static void run(mr_clip_job *job)
{
    job->pack = job->build(&job->view, &job->priv);
    job->keys_added = job->priv.keys_added;
}

static void *worker(void *arg)
{
    (void)arg;
#ifdef SCHED_BATCH
    /* A batch thread: woken by a submit or a hold's release, it waits for
     * the scheduler's next tick instead of preempting the thread that woke
     * it (a loader returning its model; on a busy machine the worker took
     * that thread's core for the length of a build). Its share of the CPU
     * is a normal thread's, so a settle waiting for it is not slowed. */
    struct sched_param none = {0};
    pthread_setschedparam(pthread_self(), SCHED_BATCH, &none);
#endif
    pthread_mutex_lock(&lock);
    for (;;) {
        while (!may_take()) pthread_cond_wait(&work, &lock);
        mr_clip_job *job = head;
        started_jobs++;
        head = job->next;
        if (!head) tail = NULL;
        job->state = JOB_RUNNING;
        running = job;
        pthread_mutex_unlock(&lock);
        run(job);
        pthread_mutex_lock(&lock);
        running = NULL;
        job->state = JOB_DONE;
        job_gone(job);
    }
    return NULL;
}

/* Takes job out of the queue (under the lock); 1 when it was there. */
static int unqueue(mr_clip_job *job)
{
    mr_clip_job **at = &head, *prev = NULL;
    while (*at && *at != job) {
        prev = *at;
        at = &(*at)->next;
    }
    if (!*at) return 0;
    *at = job->next;
    if (tail == job) tail = prev;
    job_gone(job);
    return 1;
}

/* fork(): the queue is taken consistent (prepare holds the lock), and a
 * child, which has no worker thread, starts its own at its next submit (or
 * a waiter builds the job itself). The build the parent's worker was
 * running goes back to the head of the child's queue with a fresh runtime
 * (what the half-done build had allocated stays behind in the child's
 * copy of the heap), so it is built again from the start there, with the
 * same result, instead of being waited for forever. */
static void before_fork(void) { pthread_mutex_lock(&lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&lock); }
static void after_fork_child(void)
{
    pthread_mutex_init(&lock, NULL);
    pthread_cond_init(&work, NULL);
    pthread_cond_init(&done, NULL);
    if (started > 0) started = 0;
    held = 0;   /* the threads holding it are the parent's */
    waiting = 0;   /* and so are those waiting for room */
    mr_clip_job *job = running;
    running = NULL;
    if (!job) return;
    mr_clip_runtime fresh = {0};
    fresh.joint_count = job->priv.joint_count;
    fresh.max_angle = job->priv.max_angle;
    fresh.max_move = job->priv.max_move;
    fresh.point_reach = job->priv.point_reach;
    fresh.budget_src = job->priv.budget_src;
    fresh.thin_tolerance = job->priv.thin_tolerance;
    fresh.rest = job->priv.rest;
    fresh.parents = job->priv.parents;
    fresh.cancel = &job->cancel;
    job->priv = fresh;
    job->pack = NULL;
    job->keys_added = 0;
    job->state = JOB_QUEUED;
    job->next = head;
    head = job;
    if (!tail) tail = job;
}

mr_clip_job *mr_clip_job_submit(const mr_clip *clip, const mr_clip_runtime *rt, mr_clip_build_fn build)
{
    mr_clip_job *job = calloc(1, sizeof *job);
    if (!job) return NULL;
    job->build = build;
    job->view = *clip;
    job->view.runtime = &job->priv;
    job->priv.joint_count = rt->joint_count;
    job->priv.max_angle = rt->max_angle;
    job->priv.max_move = rt->max_move;
    job->priv.point_reach = rt->point_reach;
    job->priv.budget_src = rt->budget_src;   /* borrowed, as the settings: the owner waits or cancels first */
    job->priv.thin_tolerance = rt->thin_tolerance;
    job->priv.rest = rt->rest;
    job->priv.parents = rt->parents;
    job->priv.cancel = &job->cancel;
    job->load = mr_load_work_running();
    job->bytes = source_bytes(clip);
    pthread_mutex_lock(&lock);
    static int fork_safe;
    if (!fork_safe) fork_safe = pthread_atfork(before_fork, after_fork_parent, after_fork_child) == 0;
    if (!started) {
        pthread_t t;
        pthread_attr_t attr;
        started = -1;
        if (pthread_attr_init(&attr) == 0) {
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            if (pthread_create(&t, &attr, worker, NULL) == 0) started = 1;
            pthread_attr_destroy(&attr);
        }
    }
    if (started < 0) {
        pthread_mutex_unlock(&lock);
        free(job);
        return NULL;
    }
    while (!room_for(job->bytes)) {
        waiting++;
        pthread_cond_signal(&work);   /* a held worker takes a full queue's head */
        pthread_cond_wait(&done, &lock);
        waiting--;
    }
    job->state = JOB_QUEUED;
    if (tail) tail->next = job;
    else head = job;
    tail = job;
    outstanding++;
    pending_bytes += job->bytes;
    pthread_cond_signal(&work);
    pthread_mutex_unlock(&lock);
    return job;
}

mr_clip_pack *mr_clip_job_wait(mr_clip_job *job, int *keys_added)
{
    double load = job->load ? mr_load_work_begin() : 0.0;   /* the load's work, whoever does it */
    pthread_mutex_lock(&lock);
    int mine = job->state == JOB_QUEUED && unqueue(job);
    while (!mine && job->state != JOB_DONE) pthread_cond_wait(&done, &lock);
    pthread_mutex_unlock(&lock);
    if (mine) run(job);
    if (job->load) mr_load_work_end(load);
    mr_clip_pack *pack = job->pack;
    *keys_added = job->keys_added;
    free(job);
    return pack;
}

void mr_clip_job_cancel(mr_clip_job *job)
{
    if (!job) return;
    atomic_store(&job->cancel, 1);
    pthread_mutex_lock(&lock);
    if (job->state == JOB_QUEUED) unqueue(job);
    else
        while (job->state != JOB_DONE) pthread_cond_wait(&done, &lock);
    pthread_mutex_unlock(&lock);
    free(job->pack);
    free(job);
}

void mr_clip_job_hold(void)
{
    pthread_mutex_lock(&lock);
    held++;
    pthread_mutex_unlock(&lock);
}

void mr_clip_job_release(void)
{
    pthread_mutex_lock(&lock);
    if (held > 0) held--;
    if (may_take()) pthread_cond_signal(&work);
    pthread_mutex_unlock(&lock);
}

int mr_clip_job_held(void)
{
    pthread_mutex_lock(&lock);
    int h = held > 0;
    pthread_mutex_unlock(&lock);
    return h;
}

long mr_clip_job_started(void)
{
    pthread_mutex_lock(&lock);
    long n = started_jobs;
    pthread_mutex_unlock(&lock);
    return n;
}
