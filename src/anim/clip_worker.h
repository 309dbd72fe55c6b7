/* clip_worker.h — the thread that packs clips off the load's path
 * (mr_clip_finish_later, clip_runtime.h; internal to src/anim).
 *
 * A job holds what one build reads: a shallow copy of the clip (its source
 * tracks borrowed) whose runtime is the job's own, with the settings
 * (budgets, rest pose, tolerance) borrowed from the clip's runtime. The
 * owner keeps all of that unchanged until it waits for or cancels the job
 * (clip_runtime.h says who does). One worker thread serves a queue in
 * submission order; a waiter whose job the worker has not started takes it
 * and builds it on its own thread, so a settle never waits behind other
 * clips. At most MR_CLIP_PENDING_MAX jobs are outstanding: submitting
 * another waits for the oldest to be done (not taken: its owner takes it). */
#ifndef MR_ANIM_CLIP_WORKER_H
#define MR_ANIM_CLIP_WORKER_H

#include "anim/clip_pack.h"

typedef struct mr_clip_job mr_clip_job;

/* What a job runs to build its pack (mr_clip_runtime_build_pack, passed in
 * by clip_runtime.c so that the worker calls nothing above itself). */
typedef mr_clip_pack *(*mr_clip_build_fn)(const mr_clip *clip, mr_clip_runtime *rt);

/* Queues the pack of clip at rt's settings, built by build; NULL without
 * memory or when no thread could be started (the caller then builds on its
 * own thread). */
mr_clip_job *mr_clip_job_submit(const mr_clip *clip, const mr_clip_runtime *rt, mr_clip_build_fn build);

/* Waits for job (building it here when the worker has not started it),
 * frees it and returns its pack (the caller's, free()), NULL when the clip
 * did not pack; *keys_added gets the refinement's count. */
mr_clip_pack *mr_clip_job_wait(mr_clip_job *job, int *keys_added);

/* Stops and frees job (a build under way stops at its next track). */
void mr_clip_job_cancel(mr_clip_job *job);

/* While a hold is under way, the worker starts no queued job unless the
 * queue is full (MR_CLIP_PENDING_MAX: a submitter waits for room); a
 * waiter still builds its own job. Holds nest (a count); a forked child
 * starts with none. mr_clip_hold_packs (clip_runtime.h) is the public name. */
void mr_clip_job_hold(void);
void mr_clip_job_release(void);
/* 1 while a hold is under way (mr_clip_packs_held, clip_runtime.h). */
int mr_clip_job_held(void);

/* How many builds the worker thread has started in this process (a
 * waiter's own builds not counted): what a test reads. */
long mr_clip_job_started(void);

/* The build a job runs (clip_runtime.c): the slerp refinement of each
 * track into rt's played keys, the pack from them, the played keys freed.
 * clip->runtime must be rt. NULL when the clip does not pack, without
 * memory, or when *rt->cancel was set. */
mr_clip_pack *mr_clip_runtime_build_pack(const mr_clip *clip, mr_clip_runtime *rt);

#endif
