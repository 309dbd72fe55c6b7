/* test_clip_worker.c — packed clips by default (anim/clip_runtime.h:
 * mr_clip_finish_later, mr_clip_settle; anim/clip_worker.c) and source keys
 * on demand (anim/clip.h: mr_clip_source; formats/load.c reads them again):
 * loads return before their packs are built, every pose is the pack's
 * whether the worker was done or not, models freed with packs pending, keys
 * given up and read back bit for bit, a changed file refused, the cache
 * holding packs without keys, a load's packs counted as load work
 * (core/load_work.h) wherever they settle, the model's budget left to the
 * first pack's build and shared by a load's clips. Real takes: CMU 01_01 of
 * assimp-testmodels (copied into a private folder), snoutx10k from the
 * shared models. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "anim/clip_pack.h"
#include "anim/clip_runtime.h"
#include "anim/axes.h"
#include "anim/clip_worker.h"
#include "core/file.h"
#include "core/load_work.h"
#include "core/path.h"
#include "formats/cache.h"
#include "formats/load.h"

#define CMU "/usr/share/assimp/models/BVH/01_01.bvh"
#define SNOUT SHARED_MODELS "tomatenquark-essential/packages/models/snoutx10k/"
#define ASTRO SHARED_MODELS "lab101-bonesAssimpTest/bin/data/astroBoy_walk.dae"

static char dir[64], take[128], cache_dir[128];

static mr_model *load(const char *path, const char *anim)
{
    mr_model *m = NULL;
    const char *anims[1] = {anim};
    mr_error err = {0};
    if (mr_load_model(path, anims, anim ? 1 : 0, &m, &err) != MR_OK) printf("       load %s: %s\n", path, err.msg);
    return m;
}

/* A private copy of the CMU take (so a test may change it). */
static int copy_take(void)
{
    size_t n = 0;
    mr_error err = {0};
    char *bytes = mr_file_read(CMU, &n, &err);
    if (!bytes) return 0;
    FILE *f = fopen(take, "wb");
    int ok = f && fwrite(bytes, 1, n, f) == n;
    if (f) fclose(f);
    free(bytes);
    return ok;
}

/* Poses of two clips at 50 times, bit for bit. */
static int same_poses(const mr_clip *a, const mr_clip *b, const mr_skeleton *sk)
{
    mr_pose pa, pb;
    int same = mr_pose_init(&pa, sk->joint_count) == MR_OK && mr_pose_init(&pb, sk->joint_count) == MR_OK;
    for (int k = 0; same && k < 50; k++) {
        float t = a->duration * (float)k / 49.0f + 0.003f;
        same = mr_clip_sample(a, sk, t, MR_WRAP_LOOP, &pa) == MR_OK && mr_clip_sample(b, sk, t, MR_WRAP_LOOP, &pb) == MR_OK &&
               !memcmp(pa.t, pb.t, (size_t)sk->joint_count * sizeof(vec3)) &&
               !memcmp(pa.r, pb.r, (size_t)sk->joint_count * sizeof(versor)) &&
               !memcmp(pa.s, pb.s, (size_t)sk->joint_count * sizeof(vec3));
    }
    mr_pose_deinit(&pa);
    mr_pose_deinit(&pb);
    return same;
}

TEST(clip_worker_a_load_returns_with_its_pack_pending_and_every_pose_is_the_packs)
{
    mr_model *a = load(take, NULL), *b = load(take, NULL), *c = load(take, NULL);
    CHECK(a && b && c);
    if (!a || !b || !c) goto done;
    CHECK(mr_clip_pending(a->clips[0]) && a->clips[0]->runtime && !a->clips[0]->runtime->pack);
    /* a: sampled at once (the settle takes the job over or waits for it);
     * b: sampled after the worker had all the time it needs; c: packed here
     * and now (mr_clip_finish): the same pack, the same poses */
    struct timespec nap = {0, 300 * 1000 * 1000};
    mr_pose p;
    CHECK(mr_pose_init(&p, a->skeleton.joint_count) == MR_OK);
    CHECK(mr_clip_sample(a->clips[0], &a->skeleton, 1.0f, MR_WRAP_LOOP, &p) == MR_OK);
    mr_pose_deinit(&p);
    nanosleep(&nap, NULL);
    mr_clip_cancel(c->clips[0]);
    mr_clip_finish(c->clips[0]);
    CHECK(!mr_clip_pending(c->clips[0]) && c->clips[0]->runtime->pack);
    CHECK(same_poses(a->clips[0], b->clips[0], &a->skeleton));
    CHECK(same_poses(a->clips[0], c->clips[0], &a->skeleton));
    CHECK(!mr_clip_pending(a->clips[0]) && !mr_clip_pending(b->clips[0]));
    CHECK(a->clips[0]->runtime->pack->bytes == c->clips[0]->runtime->pack->bytes &&
          !memcmp(a->clips[0]->runtime->pack, c->clips[0]->runtime->pack, c->clips[0]->runtime->pack->bytes));
    /* the default runtime is the pack: a tenth of the raw poses or less */
    size_t raw = (size_t)mr_clip_key_count(a->clips[0]) * (size_t)a->skeleton.joint_count * 40;
    CHECK_MSG(mr_clip_runtime_bytes(a->clips[0]) * 10 < raw, "%zu bytes against %zu raw",
              mr_clip_runtime_bytes(a->clips[0]), raw);
done:
    mr_model_destroy(a);
    mr_model_destroy(b);
    mr_model_destroy(c);
}

TEST(clip_worker_models_freed_with_packs_pending_and_queued)
{
    /* more loads than the queue holds, freed at once: the ones not started
     * leave the queue, the running one stops (ASan and the exit check it) */
    mr_model *m[MR_CLIP_PENDING_MAX + 3] = {0};
    for (int i = 0; i < MR_CLIP_PENDING_MAX + 3; i++) m[i] = load(take, NULL);
    for (int i = MR_CLIP_PENDING_MAX + 2; i >= 0; i--) mr_model_destroy(m[i]);
    mr_model *after = load(take, NULL);   /* the worker still serves */
    CHECK(after && mr_clip_runtime_bytes(after->clips[0]) > 0 && after->clips[0]->runtime->pack);
    mr_model_destroy(after);
}

TEST(clip_worker_keys_on_demand_given_up_and_read_back_bit_for_bit)
{
    mr_model *ref = load(take, NULL);
    mr_clip_set_keys_on_demand(1);
    mr_model *m = load(take, NULL);
    CHECK(ref && m);
    if (!ref || !m) goto done;
    mr_clip *c = m->clips[0];
    size_t before = mr_clip_bytes(c);
    mr_clip_settle(c);
    CHECK(c->source_dropped && c->runtime->pack);
    CHECK_MSG(mr_clip_bytes(c) < before / 4, "held %zu after, %zu before", mr_clip_bytes(c), before);
    CHECK(mr_clip_key_count(c) == mr_clip_key_count(ref->clips[0]));
    CHECK(mr_model_bytes(m) < mr_model_bytes(ref));
    /* sampling needs no keys */
    CHECK(same_poses(c, ref->clips[0], &m->skeleton) && c->source_dropped);
    /* what reads keys gets them back, the file's exactly */
    mr_error err = {0};
    CHECK(mr_clip_source(c, &err) == MR_OK && !c->source_dropped);
    int same = 1;
    for (int j = 0; j < c->joint_count; j++) {
        const mr_track *x[3] = {&c->tracks[j].t, &c->tracks[j].r, &c->tracks[j].s};
        const mr_track *y[3] = {&ref->clips[0]->tracks[j].t, &ref->clips[0]->tracks[j].r, &ref->clips[0]->tracks[j].s};
        for (int k = 0; k < 3; k++) {
            if (x[k]->key_count != y[k]->key_count) printf("       joint %d channel %d: %d keys, %d\n", j, k, x[k]->key_count, y[k]->key_count);
            same &= x[k]->key_count == y[k]->key_count &&
                    (!x[k]->key_count || (!memcmp(x[k]->times, y[k]->times, (size_t)x[k]->key_count * 4) &&
                                          !memcmp(x[k]->values, y[k]->values,
                                                  (size_t)x[k]->key_count * (size_t)x[k]->components * 4)));
        }
    }
    CHECK(same);
    double e = 1;
    CHECK(mr_clip_runtime_error(c, &m->skeleton, 1.0f, 121, &e) == MR_OK && e >= 0);
done:
    mr_clip_set_keys_on_demand(0);
    mr_model_destroy(ref);
    mr_model_destroy(m);
}

TEST(clip_worker_keys_not_read_back_from_a_changed_file)
{
    mr_clip_set_keys_on_demand(1);
    mr_model *m = load(take, NULL);
    CHECK(m);
    if (m) mr_clip_settle(m->clips[0]);   /* gives the keys up while on demand */
    mr_clip_set_keys_on_demand(0);
    if (!m) return;
    CHECK(m->clips[0]->source_dropped);
    FILE *f = fopen(take, "ab");   /* the file changes under the model */
    if (f) {
        fputs("\n", f);
        fclose(f);
    }
    mr_error err = {0};
    CHECK(mr_clip_source(m->clips[0], &err) == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(err.msg, take);
    CHECK_STR_CONTAINS(err.msg, "changed since it was loaded");
    CHECK(mr_clip_source(m->clips[0], &err) != MR_OK);   /* and not tried again */
    /* still sampled, from its pack */
    mr_pose p;
    CHECK(mr_pose_init(&p, m->skeleton.joint_count) == MR_OK);
    CHECK(mr_clip_sample(m->clips[0], &m->skeleton, 0.5f, MR_WRAP_LOOP, &p) == MR_OK);
    mr_pose_deinit(&p);
    mr_model_destroy(m);
    CHECK(copy_take());
}

TEST(clip_worker_cache_holds_packs_without_keys_and_reads_them_back)
{
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = cache_dir});
    mr_clip_set_keys_on_demand(1);
    mr_model_destroy(load(take, NULL));          /* writes the file: the pack, no keys */
    mr_model *m = load(take, NULL);              /* read from it */
    mr_clip_set_keys_on_demand(0);
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_OFF});
    mr_model *ref = load(take, NULL);
    CHECK(m && m->cache_block && ref);
    if (m && ref) {
        const mr_clip *c = m->clips[0];
        CHECK(c->source_dropped && !mr_clip_pending(c) && c->runtime->pack);
        CHECK(mr_clip_key_count(c) == mr_clip_key_count(ref->clips[0]));
        CHECK(same_poses(c, ref->clips[0], &m->skeleton));
        CHECK(mr_clip_source(c, NULL) == MR_OK && !c->source_dropped);
        CHECK(c->tracks[0].r.key_count == ref->clips[0]->tracks[0].r.key_count &&
              !memcmp(c->tracks[0].r.values, ref->clips[0]->tracks[0].r.values,
                      (size_t)c->tracks[0].r.key_count * 16));
    }
    mr_model_destroy(m);   /* keys read back live outside the cached block */
    mr_model_destroy(ref);
}

TEST(clip_worker_md5_anims_packed_and_read_back_per_anim)
{
    mr_clip_set_keys_on_demand(1);
    mr_model *m = NULL;
    const char *anims[2] = {SNOUT "forward.md5anim", SNOUT "pain.md5anim"};
    mr_error err = {0};
    CHECK(mr_load_model(SNOUT "snoutx10k.md5mesh", anims, 2, &m, &err) == MR_OK);
    for (int i = 0; m && i < m->clip_count; i++) mr_clip_settle(m->clips[i]);
    mr_clip_set_keys_on_demand(0);
    if (!m) return;
    CHECK(m->clip_count == 2);
    for (int i = 0; i < m->clip_count; i++) CHECK(m->clips[i]->source_dropped);
    int frames = mr_clip_key_count(m->clips[1]);
    CHECK(mr_clip_source(m->clips[1], &err) == MR_OK && mr_clip_key_count(m->clips[1]) == frames);
    CHECK(m->clips[0]->source_dropped && !m->clips[1]->source_dropped);
    mr_model_destroy(m);
}

/* A hold (what a load keeps while it reads its file): the worker starts
 * none of the packs queued meanwhile, a settle builds its own clip here,
 * the release lets the worker take the rest; packs the same as without. */
TEST(clip_worker_holds_packs_until_released)
{
    mr_model *ref = load(take, NULL);
    CHECK(ref != NULL);
    if (!ref) return;
    mr_clip_settle(ref->clips[0]);
    mr_clip_hold_packs();
    long before = mr_clip_job_started();
    mr_model *m[3];
    for (int i = 0; i < 3; i++) m[i] = load(take, NULL);
    struct timespec nap = {0, 200 * 1000 * 1000};
    nanosleep(&nap, NULL);
    CHECK_MSG(mr_clip_job_started() == before, "the worker started %ld builds under a hold",
              mr_clip_job_started() - before);
    for (int i = 0; i < 3; i++) CHECK(m[i] && mr_clip_pending(m[i]->clips[0]));
    if (m[0]) mr_clip_settle(m[0]->clips[0]);   /* built here, the hold or not */
    CHECK(mr_clip_job_started() == before);
    mr_clip_release_packs();
    for (int i = 1; i < 3; i++)
        if (m[i]) mr_clip_settle(m[i]->clips[0]);
    for (int i = 0; i < 3; i++)
        if (m[i]) {
            const mr_clip_pack *a = m[i]->clips[0]->runtime->pack, *b = ref->clips[0]->runtime->pack;
            CHECK(a && b && a->bytes == b->bytes && !memcmp(a, b, b->bytes));
        }
    for (int i = 0; i < 3; i++) mr_model_destroy(m[i]);
    mr_model_destroy(ref);
}

/* A model with more clips than MR_CLIP_PENDING_MAX (snoutx10k's six anims)
 * loads without waiting for a pack: their keys are far below
 * MR_CLIP_PENDING_BYTES, so under a hold the worker starts no build. (The
 * queue used to hold four jobs of any size: mixamo.fbx loaded with itself
 * as a motion waited 3-4 s for a pack.) */
TEST(clip_worker_a_model_of_many_small_clips_loads_without_a_build)
{
    const char *paths[] = {SNOUT "forward.md5anim", SNOUT "backward.md5anim", SNOUT "idle.md5anim",
                           SNOUT "jump.md5anim",    SNOUT "pain.md5anim",     SNOUT "dying.md5anim"};
    int n = (int)(sizeof paths / sizeof *paths);
    CHECK(n > MR_CLIP_PENDING_MAX);
    alarm(120);
    mr_clip_hold_packs();
    long before = mr_clip_job_started();
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK(mr_load_model(SNOUT "snoutx10k.md5mesh", paths, n, &m, &err) == MR_OK);
    CHECK_MSG(mr_clip_job_started() == before, "the load waited for %ld builds", mr_clip_job_started() - before);
    mr_clip_release_packs();
    alarm(0);
    CHECK(m && m->clip_count == n);
    for (int i = 0; m && i < m->clip_count; i++) {
        mr_clip_settle(m->clips[i]);
        CHECK(m->clips[i]->runtime && m->clips[i]->runtime->pack);
    }
    mr_model_destroy(m);
}

/* Loads of takes whose keys pass MR_CLIP_PENDING_BYTES while their packs
 * are held: the full queue drains through the worker instead of waiting
 * for the hold's end (an alarm fails a hang), building only what makes
 * room: the keys waiting stay within the bound. */
TEST(clip_worker_a_full_queue_drains_under_a_hold)
{
    enum { MOST = 64 };
    mr_model *m[MOST] = {0};
    alarm(120);
    mr_clip_hold_packs();
    long before = mr_clip_job_started();
    m[0] = load(take, NULL);
    size_t one = m[0] && m[0]->clip_count ? mr_clip_bytes(m[0]->clips[0]) : 0;
    CHECK(one > 0);
    int n = one ? (int)(MR_CLIP_PENDING_BYTES / one) + 2 : 0;
    CHECK_MSG(n > MR_CLIP_PENDING_MAX && n < MOST, "%d takes of %zu bytes", n, one);
    if (n >= MOST) n = MOST - 1;
    for (int i = 1; i < n; i++) m[i] = load(take, NULL);
    long built = mr_clip_job_started() - before;
    mr_clip_release_packs();
    alarm(0);
    /* the last loads found no room: a build each (the worker may take one
     * more before the woken loader has queued its job); a queue of four
     * jobs, whatever their size, built all but four */
    CHECK_MSG(built >= 1 && built <= 4, "%ld builds started under the hold for %d takes", built, n);
    for (int i = n - 1; i >= 0; i--) mr_model_destroy(m[i]);
}

/* fork() while packs are pending (marrow test's workers are forked): the
 * child has no worker thread, yet every clip it samples settles, within a
 * bound (an alarm fails the child instead of hanging the suite). */
TEST(clip_worker_a_forked_child_settles_the_packs_it_inherited)
{
    mr_model *m[3];
    for (int i = 0; i < 3; i++) m[i] = load(take, NULL);
    CHECK(m[0] && m[1] && m[2]);
    if (!m[0] || !m[1] || !m[2]) return;
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        alarm(60);
        int ok = 1;
        for (int i = 0; i < 3; i++) {
            mr_pose p;
            ok = ok && mr_pose_init(&p, m[i]->skeleton.joint_count) == MR_OK &&
                 mr_clip_sample(m[i]->clips[0], &m[i]->skeleton, 1.0f, MR_WRAP_LOOP, &p) == MR_OK;
            mr_pose_deinit(&p);
        }
        mr_model *after = load(take, NULL);   /* a new pack in the child: its own worker */
        ok = ok && after && same_poses(after->clips[0], m[0]->clips[0], &m[0]->skeleton);
        mr_model_destroy(after);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    for (int i = 0; i < 3; i++) mr_model_destroy(m[i]);
}

/* core/load_work.h: what a script's budget leaves out. */
static int work_begun, work_ended;
static double count_begin(void *user)
{
    (void)user;
    work_begun++;
    return 42.0;
}
static void count_end(void *user, double token)
{
    (void)user;
    if (token == 42.0) work_ended++;
}

TEST(clip_worker_a_loads_packs_are_load_work_wherever_they_settle)
{
    mr_load_work_hooks hooks = {count_begin, count_end, NULL, 0}, old;
    mr_load_work_set(&hooks, &old);
    work_begun = work_ended = 0;
    /* a nest calls the hooks once, around the outermost */
    double t = mr_load_work_begin();
    double inner = mr_load_work_begin();
    CHECK(mr_load_work_running());
    mr_load_work_end(inner);
    CHECK(work_begun == 1 && work_ended == 0 && mr_load_work_running());
    mr_load_work_end(t);
    CHECK(work_begun == 1 && work_ended == 1 && !mr_load_work_running());
    /* a model loaded inside load work: its pack's settle, later and outside
     * it, is load work again (whether it waits or builds) */
    t = mr_load_work_begin();
    mr_model *m = load(take, NULL);
    mr_load_work_end(t);
    CHECK(m && mr_clip_pending(m->clips[0]));
    if (m) {
        work_begun = work_ended = 0;
        mr_clip_settle(m->clips[0]);
        CHECK_MSG(work_begun == 1 && work_ended == 1, "settle: %d begun, %d ended", work_begun, work_ended);
        CHECK(!mr_clip_pending(m->clips[0]) && m->clips[0]->runtime->pack);
    }
    /* one loaded outside load work (a copy a save converts, a tool): the
     * caller's own work */
    mr_model *o = load(take, NULL);
    CHECK(o && mr_clip_pending(o->clips[0]));
    work_begun = work_ended = 0;
    if (o) mr_clip_settle(o->clips[0]);
    CHECK_MSG(work_begun == 0 && work_ended == 0, "settle: %d begun, %d ended", work_begun, work_ended);
    /* a nested call's hooks start a nest of their own; the outer ones put
     * back bring theirs, which ends as it began */
    work_begun = work_ended = 0;
    t = mr_load_work_begin();
    mr_load_work_hooks none = {0}, saved;
    mr_load_work_set(&none, &saved);
    CHECK(!mr_load_work_running());
    mr_load_work_set(&saved, NULL);
    CHECK(mr_load_work_running());
    mr_load_work_end(t);
    CHECK(work_begun == 1 && work_ended == 1 && !mr_load_work_running());
    mr_load_work_set(&old, NULL);
    mr_model_destroy(m);
    mr_model_destroy(o);
}

/* Whether clip's budgets are those of ref's, bit for bit. */
static int same_budget(const mr_clip *clip, const mr_clip *ref)
{
    const mr_clip_runtime *a = clip->runtime, *b = ref->runtime;
    size_t n = (size_t)clip->joint_count * sizeof(float);
    return a && b && !a->budget_src && !b->budget_src && a->max_angle && b->max_angle && a->max_move && b->max_move &&
           a->point_reach && b->point_reach && !memcmp(a->max_angle, b->max_angle, n) &&
           !memcmp(a->max_move, b->max_move, n) && !memcmp(a->point_reach, b->point_reach, n);
}

/* A load leaves its model's budget (the skinned points' reach of every
 * joint: a quarter of a small glTF's load) to the first pack's build, one
 * computation shared by the load's clips; a settle gives each clip the
 * budget a clip added outside a load gets at once, bit for bit; a model
 * converted before any pack is built gives its clips the same budgets as
 * one converted after (the conversion takes them first, then scales them
 * with the keys). */
TEST(clip_worker_a_loads_budget_is_left_to_the_build_and_is_the_models)
{
    const char *anims[2] = {SNOUT "forward.md5anim", SNOUT "pain.md5anim"};
    mr_model *m[3] = {0};
    mr_error err = {0};
    for (int i = 0; i < 3; i++) CHECK(mr_load_model(SNOUT "snoutx10k.md5mesh", anims, 2, &m[i], &err) == MR_OK);
    if (!m[0] || !m[1] || !m[2]) goto done;
    CHECK(m[0]->clip_count == 2);
    for (int c = 0; c < m[0]->clip_count; c++) {
        const mr_clip_runtime *rt = m[0]->clips[c]->runtime;
        CHECK_MSG(rt && rt->budget_src && !rt->max_angle && !rt->max_move && !rt->point_reach,
                  "clip %d: the budget is computed inside the load", c);
        CHECK(rt && rt->budget_src == m[0]->clips[0]->runtime->budget_src);
    }
    /* the reference: the same clips added outside a load, to a copy */
    mr_model *copy = NULL;
    CHECK(mr_model_copy(m[0], (const mr_clip *const *)m[0]->clips, m[0]->clip_count, &copy) == MR_OK);
    for (int c = 0; copy && c < copy->clip_count; c++)
        CHECK_MSG(copy->clips[c]->runtime && !copy->clips[c]->runtime->budget_src && copy->clips[c]->runtime->max_angle,
                  "clip %d of the copy: no budget at once", c);
    for (int c = 0; copy && c < m[0]->clip_count; c++) {
        mr_clip_settle(m[0]->clips[c]);
        CHECK_MSG(same_budget(m[0]->clips[c], copy->clips[c]), "clip %d: the settled budget is not the model's", c);
    }
    /* converted with the budget pending, and after it was settled */
    mr_axes to = {MR_UP_Z, 1.0f};
    for (int c = 0; c < m[2]->clip_count; c++) mr_clip_settle(m[2]->clips[c]);
    CHECK(mr_axes_convert_model(m[1], to, &err) == MR_OK && mr_axes_convert_model(m[2], to, &err) == MR_OK);
    for (int c = 0; c < m[1]->clip_count; c++) {
        mr_clip_settle(m[1]->clips[c]);
        mr_clip_settle(m[2]->clips[c]);
        CHECK_MSG(same_budget(m[1]->clips[c], m[2]->clips[c]), "clip %d: converted before its budget, another budget", c);
        CHECK_MSG(!same_budget(m[1]->clips[c], m[0]->clips[c]), "clip %d: the conversion left the budget unscaled", c);
    }
    mr_model_destroy(copy);
done:
    for (int i = 0; i < 3; i++) mr_model_destroy(m[i]);
}

/* A clip the pack does not take (astroBoy's CUBIC keys) loads with its
 * budget left to a build of its own, which only resolves it; the first
 * sample (or a settle) finishes the clip unpacked with that budget, and
 * it plays the same poses, bit for bit, as the clip of a copy of the
 * model, finished at once outside a load. */
TEST(clip_worker_a_cubic_clips_budget_is_resolved_off_the_load_and_plays_the_same)
{
    mr_model *m = NULL, *copy = NULL;
    mr_error err = {0};
    CHECK(mr_load_model(ASTRO, NULL, 0, &m, &err) == MR_OK);
    if (!m || m->clip_count < 1) goto done;
    mr_clip *clip = m->clips[0];
    int cubic = 0;
    for (int j = 0; j < clip->joint_count; j++) cubic |= clip->tracks[j].r.interp == MR_INTERP_CUBIC;
    CHECK_MSG(cubic, "astroBoy's clip has no CUBIC rotations: the case is not tested");
    CHECK_MSG(mr_clip_pending(clip) && clip->runtime->budget_src && !clip->runtime->max_angle && !clip->runtime->dense,
              "the cubic clip was finished inside the load");
    CHECK(mr_model_copy(m, (const mr_clip *const *)m->clips, m->clip_count, &copy) == MR_OK);
    if (!copy) goto done;
    CHECK(!mr_clip_pending(copy->clips[0]) && copy->clips[0]->runtime->max_angle);
    mr_pose a = {0}, b = {0};
    CHECK(mr_pose_init(&a, clip->joint_count) == MR_OK && mr_pose_init(&b, clip->joint_count) == MR_OK);
    int differ = 0;
    for (int i = 0; i <= 24 && a.t && b.t; i++) {
        float t = clip->duration * (float)i / 24.0f;
        CHECK(mr_clip_sample(clip, &m->skeleton, t, MR_WRAP_CLAMP, &a) == MR_OK);   /* settles the first time */
        CHECK(mr_clip_sample(copy->clips[0], &copy->skeleton, t, MR_WRAP_CLAMP, &b) == MR_OK);
        size_t n = (size_t)clip->joint_count;
        differ += memcmp(a.t, b.t, n * sizeof *a.t) || memcmp(a.r, b.r, n * sizeof *a.r) ||
                  memcmp(a.s, b.s, n * sizeof *a.s);
    }
    CHECK_MSG(differ == 0, "%d of 25 times sample another pose than the copy's", differ);
    CHECK(!mr_clip_pending(clip) && same_budget(clip, copy->clips[0]));
    CHECK_MSG(clip->runtime->keys_added == copy->clips[0]->runtime->keys_added &&
              clip->runtime->keys_dropped == copy->clips[0]->runtime->keys_dropped &&
              clip->runtime->shared_keys == copy->clips[0]->runtime->shared_keys,
              "the settled runtime is not the copy's (keys added %d/%d, dropped %d/%d)", clip->runtime->keys_added,
              copy->clips[0]->runtime->keys_added, clip->runtime->keys_dropped, copy->clips[0]->runtime->keys_dropped);
    mr_pose_deinit(&a);
    mr_pose_deinit(&b);
done:
    mr_model_destroy(copy);
    mr_model_destroy(m);
}

int main(void)
{
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_OFF});
    snprintf(dir, sizeof dir, "/tmp/marrow-clip-worker-XXXXXX");
    if (!mkdtemp(dir)) return 1;
    snprintf(take, sizeof take, "%s/01_01.bvh", dir);
    snprintf(cache_dir, sizeof cache_dir, "%s/cache", dir);
    if (!mr_file_exists(CMU)) {
        printf("  FAIL assimp-testmodels is installed (%s; scripts/install-deps.sh installs it)\n", CMU);
        return 1;
    }
    if (!copy_take()) return 1;
    RUN(clip_worker_a_load_returns_with_its_pack_pending_and_every_pose_is_the_packs);
    RUN(clip_worker_models_freed_with_packs_pending_and_queued);
    RUN(clip_worker_keys_on_demand_given_up_and_read_back_bit_for_bit);
    RUN(clip_worker_keys_not_read_back_from_a_changed_file);
    RUN(clip_worker_cache_holds_packs_without_keys_and_reads_them_back);
    RUN(clip_worker_md5_anims_packed_and_read_back_per_anim);
    RUN(clip_worker_holds_packs_until_released);
    RUN(clip_worker_a_model_of_many_small_clips_loads_without_a_build);
    RUN(clip_worker_a_full_queue_drains_under_a_hold);
    RUN(clip_worker_a_forked_child_settles_the_packs_it_inherited);
    RUN(clip_worker_a_loads_packs_are_load_work_wherever_they_settle);
    RUN(clip_worker_a_loads_budget_is_left_to_the_build_and_is_the_models);
    RUN(clip_worker_a_cubic_clips_budget_is_resolved_off_the_load_and_plays_the_same);
    mr_cache_configure(NULL);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("       could not remove %s\n", dir);
    return test_summary("clip_worker");
}
