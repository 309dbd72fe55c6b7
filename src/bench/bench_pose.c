/* bench_pose.c — model load speed and pose evaluation cost.
 *
 * Pose figures are nanoseconds per joint for
 *   (a) clip sampling + local-to-model,
 *   (b) (a) + skinning matrices,
 *   (c) (a) for 1000 characters, each with its own pose at its own time,
 * stepping time by 1/60 s. The baseline, measured in the same run, is the
 * textbook version of (a): binary search for every key, slerp, and cglm's
 * general 4x4 products (glm_quat_mat4 + glm_mat4_mul). The last column is
 * (a) once the clip is optimised at the default tolerance (clip_pack.h),
 * sampled through a playback cursor as a mixer's playhead samples it, with
 * the keys it keeps / the keys sampled before, and the runtime bytes after /
 * before. Loads are timed in
 * process CPU time, beside assimp's import of the same files when assimp
 * is installed (bench_assimp.c): COLLADA, glTF, FBX (mixamo.fbx), and an MD5 model whose one
 * md5anim has the md5mesh's name (Bob), which assimp's MD5 importer loads
 * with the mesh, so both libraries read the same two files. For FBX a
 * second assimp figure adds the steps marrow's FBX load does and
 * Triangulate alone does not (corners welded, influences limited:
 * mr_bench_assimp_load_welded), named "same work" in the output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <dirent.h>
#include <unistd.h>

#include "bench/bench.h"
#include "anim/clip_pack.h"
#include "core/alloc.h"
#include "core/path.h"
#include "core/str.h"
#include "formats/cache.h"
#include "formats/load.h"

typedef struct bench_model {
    const char *label;
    const char *mesh;        /* relative to the shared models root */
    const char *anims[8];
    const char *clip;        /* clip used for the pose figures */
} bench_model;

static const bench_model bench_models[] = {
    {"Bob", "assimp/test/models-nonbsd/MD5/Bob.md5mesh",
     {"assimp/test/models-nonbsd/MD5/Bob.md5anim"}, "Bob"},
    {"snoutx10k", "tomatenquark-essential/packages/models/snoutx10k/snoutx10k.md5mesh",
     {"tomatenquark-essential/packages/models/snoutx10k/forward.md5anim"}, "forward"},
    {"astroBoy", "lab101-bonesAssimpTest/bin/data/astroBoy_walk.dae", {NULL}, NULL},
    {"ThinMatrix", "thinmatrix-opengl-animation/Resources/res/model.dae", {NULL}, NULL},
    {"astro.glb", "blender-3.4-gltf/astroBoy_walk.glb", {NULL}, NULL},
    {"TM.glb", "blender-3.4-gltf/thinmatrix_model.glb", {NULL}, NULL},
    {"mixamo.fbx", "threejs-mixamo/mixamo.fbx", {NULL}, NULL},
};

/* assimp's import reads the same files as marrow's load: one document, or
 * an md5mesh and the one md5anim of the same name (assimp loads it along). */
static int assimp_reads_same(const bench_model *bm)
{
    if (!bm->anims[0]) return 1;
    if (bm->anims[1]) return 0;
    size_t n = strlen(bm->mesh);
    return n > 8 && !strcmp(bm->mesh + n - 8, ".md5mesh") && strlen(bm->anims[0]) == n &&
           !strncmp(bm->mesh, bm->anims[0], n - 8) && !strcmp(bm->anims[0] + n - 8, ".md5anim");
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Loads a bench model from the shared root; NULL (with a note) when absent. */
static mr_model *load_bench_model(const mr_bench_opts *o, const bench_model *bm, long *bytes)
{
    char *mesh = mr_path_join(o->root, bm->mesh);
    char *anims[8] = {0};
    int n = 0;
    long total = bytes ? file_size(mesh) : 0;  /* no stat(2) inside the cached row's timing */
    for (; n < 8 && bm->anims[n]; n++) {
        anims[n] = mr_path_join(o->root, bm->anims[n]);
        if (bytes) total += file_size(anims[n]);
    }
    mr_model *m = NULL;
    mr_error err = {0};
    if (mr_load_model(mesh, (const char *const *)anims, n, &m, &err) != MR_OK)
        printf("  %-10s skipped: %s\n", bm->label, err.msg);
    free(mesh);
    for (int i = 0; i < n; i++) free(anims[i]);
    if (bytes) *bytes = total;
    return m;
}

/* Process CPU seconds: loads are timed in CPU time so that time spent
 * preempted on a busy machine does not count (all threads included). */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The cached rows read and write a private folder, removed afterwards: the
 * figures never depend on (or touch) the user's cache. */
static char *cache_dir;

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char *f = mr_path_join(dir, e->d_name);
        if (f) unlink(f);
        free(f);
    }
    if (d) closedir(d);
    rmdir(dir);
}

/* "cached": the same load answered from the binary cache (formats/cache.h):
 * one load writes the file, then reps loads (+ free) read it, compared
 * with the source load and assimp figures taken above in the same run.
 * hash_always: every source read and hashed on every load (cache.h,
 * Validity), the row "sources hashed"; else the cache's default, which
 * trusts unchanged stat data of sources last changed long enough ago. */
static void cached_row(const mr_bench_opts *o, const bench_model *bm, int reps, double assimp, double source,
                       int hash_always)
{
    if (!cache_dir) {
        char tmpl[] = "/tmp/marrow-bench-cache-XXXXXX";
        if (!mkdtemp(tmpl)) return;
        cache_dir = mr_str_dup(tmpl);
        if (!cache_dir) return;
    }
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = cache_dir, .hash_always = hash_always});
    mr_model_destroy(load_bench_model(o, bm, NULL));  /* writes (or reads) the cache file */
    mr_cache_stats before;
    mr_cache_get_stats(&before);
    double times[32];
    int ok = 1;
    for (int r = 0; r < reps && ok; r++) {
        double t0 = cpu_now();
        mr_model *m = load_bench_model(o, bm, NULL);
        times[r] = cpu_now() - t0;
        ok = m != NULL;
        mr_model_destroy(m);
    }
    mr_cache_stats st;
    mr_cache_get_stats(&st);
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_OFF});
    if (!ok || st.hits - before.hits != reps) {
        printf("  %-10s cached: not answered from the cache (%d of %d loads)\n", bm->label, st.hits - before.hits,
               reps);
        return;
    }
    double med = mr_bench_median(times, reps);
    printf("  %-10s %-28s %10s %8.3f ms %7.0fx faster", bm->label,
           hash_always ? "cached, sources hashed" : "cached (binary cache)", "", med * 1e3,
           source / med);
    if (assimp > 0) printf("   assimp %8.3f ms  assimp/cached %.1fx", assimp * 1e3, assimp / med);
    printf("\n");
}

void mr_bench_load(const mr_bench_opts *o)
{
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_OFF});  /* source loads: uncached */
    int reps = o->quick ? 3 : 20;
    char version[32] = "";
    int assimp = mr_bench_assimp_open(version, sizeof version);
    printf("== model load: read + parse + build, process CPU time, median of %d", reps);
    if (assimp)
        printf("; COLLADA, glTF, FBX and Bob's MD5 pair also through assimp %s (aiImportFile, Triangulate), runs alternating;"
               " 'same work': FBX, whose corners marrow welds, also with JoinIdenticalVertices and"
               " LimitBoneWeights (8)",
               version);
    printf("\n");
    for (size_t i = 0; i < sizeof bench_models / sizeof *bench_models; i++) {
        const bench_model *bm = &bench_models[i];
        long bytes = 0;
        double times[32], theirs[32], welded[32];
        int ok = 1, with_assimp = assimp && assimp_reads_same(bm);
        /* FBX, whose corners marrow's reader welds into shared vertices (COLLADA's
         * reader keeps the document's: ThinMatrix 4260 vertices, 4138 welded) */
        int with_welded = with_assimp && strstr(bm->mesh, ".fbx");
        char *path = with_assimp ? mr_path_join(o->root, bm->mesh) : NULL;
        for (int r = 0; r < reps && ok; r++) {
            double t0 = cpu_now();
            mr_model *m = load_bench_model(o, bm, &bytes);
            times[r] = cpu_now() - t0;
            ok = m != NULL;
            mr_model_destroy(m);
            if (with_assimp && ok) {
                double a0 = cpu_now();
                theirs[r] = mr_bench_assimp_load(path) > 0 ? cpu_now() - a0 : -1.0;
                with_assimp = theirs[r] > 0;
            }
            if (with_welded && with_assimp && ok) {
                double a0 = cpu_now();
                welded[r] = mr_bench_assimp_load_welded(path) > 0 ? cpu_now() - a0 : -1.0;
                with_welded = welded[r] > 0;
            }
        }
        free(path);
        if (!ok) continue;
        double med = mr_bench_median(times, reps);
        printf("  %-10s %-28s %7.1f KB %8.3f ms %8.1f MB/s", bm->label,
               bm->anims[0] ? "md5mesh + md5anim" : strstr(bm->mesh, ".glb") ? "glTF binary" : strstr(bm->mesh, ".fbx") ? "FBX binary" : "COLLADA document",
               bytes / 1024.0, med * 1e3, bytes / med / 1e6);
        double a = with_assimp ? mr_bench_median(theirs, reps) : 0.0;
        if (with_assimp) printf("   assimp %8.3f ms  marrow/assimp %.2fx", a * 1e3, med / a);
        printf("\n");
        if (with_assimp && with_welded) {
            double w = mr_bench_median(welded, reps);
            printf("  %-10s %-28s %10s %8s %14s   assimp %8.3f ms  marrow/assimp %.2fx\n", bm->label, "same work as marrow's load", "",
                   "", "", w * 1e3, med / w);
        }
        cached_row(o, bm, reps, with_assimp ? a : 0.0, med, 0);
        cached_row(o, bm, reps, with_assimp ? a : 0.0, med, 1);
    }
    if (cache_dir) {
        remove_dir(cache_dir);
        free(cache_dir);
        cache_dir = NULL;
    }
    mr_cache_configure(NULL);
}

/* ---- the textbook baseline for (a) ------------------------------------ */

static void baseline_track(const mr_track *tr, float t, float *out)
{
    int n = tr->key_count, lo = 0, hi = n - 1;
    if (n == 1 || t <= tr->times[0]) { memcpy(out, tr->values, sizeof(float) * tr->components); return; }
    if (t >= tr->times[n - 1]) {
        memcpy(out, tr->values + (size_t)(n - 1) * tr->components, sizeof(float) * tr->components);
        return;
    }
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (tr->times[mid] <= t) lo = mid; else hi = mid;
    }
    float a = (t - tr->times[lo]) / (tr->times[lo + 1] - tr->times[lo]);
    const float *v0 = tr->values + (size_t)lo * tr->components, *v1 = v0 + tr->components;
    if (tr->components == 4) {
        versor q0, q1, q;
        memcpy(q0, v0, sizeof q0);
        memcpy(q1, v1, sizeof q1);
        glm_quat_slerp(q0, q1, a, q);
        memcpy(out, q, sizeof q);
    } else {
        for (int k = 0; k < 3; k++) out[k] = v0[k] + a * (v1[k] - v0[k]);
    }
}

static void baseline_sample_to_model(const mr_clip *c, const mr_skeleton *sk, float time, mr_pose *p,
                                     mat4 *model)
{
    float t = mr_clip_wrap_time(c, time, MR_WRAP_LOOP);
    for (int j = 0; j < sk->joint_count; j++) {
        const mr_joint_tracks *jt = &c->tracks[j];
        if (jt->t.key_count) baseline_track(&jt->t, t, p->t[j]); else glm_vec3_copy(sk->rest_t[j], p->t[j]);
        if (jt->r.key_count) baseline_track(&jt->r, t, p->r[j]); else glm_vec4_copy(sk->rest_r[j], p->r[j]);
        if (jt->s.key_count) baseline_track(&jt->s, t, p->s[j]); else glm_vec3_copy(sk->rest_s[j], p->s[j]);
    }
    for (int j = 0; j < sk->joint_count; j++) {
        mat4 local, rot;
        glm_translate_make(local, p->t[j]);
        glm_quat_mat4(p->r[j], rot);
        glm_mat4_mul(local, rot, local);
        glm_scale(local, p->s[j]);
        if (sk->parents[j] >= 0) glm_mat4_mul(model[sk->parents[j]], local, model[j]);
        else glm_mat4_copy(local, model[j]);
    }
}

/* ---- measurements ------------------------------------------------------ */

enum { CASE_A, CASE_B, CASE_BASELINE };

/* ns per joint of one evaluation, median over runs. */
static double time_single(const mr_model *m, const mr_clip *c, int which, int runs, int iters,
                          mr_clip_cursor *cur)
{
    const mr_skeleton *sk = &m->skeleton;
    mr_pose p;
    mr_pose_init(&p, sk->joint_count);
    mat4 *model = mr_alloc_array((size_t)sk->joint_count, sizeof *model);
    mat4 *skin = mr_alloc_array((size_t)sk->joint_count, sizeof *skin);
    double samples[64];
    float t = 0.0f;
    volatile float sink = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = mr_bench_now();
        for (int i = 0; i < iters; i++) {
            t += 1.0f / 60.0f;
            if (which == CASE_BASELINE) {
                baseline_sample_to_model(c, sk, t, &p, model);
            } else {
                mr_clip_sample_with(c, sk, t, MR_WRAP_LOOP, &p, cur);
                mr_pose_to_model(sk, &p, model);
                if (which == CASE_B) mr_pose_skinning(sk, model, skin);
            }
            sink += model[sk->joint_count - 1][3][0];
        }
        samples[r] = (mr_bench_now() - t0) * 1e9 / ((double)iters * sk->joint_count);
    }
    (void)sink;
    mr_pose_deinit(&p);
    free(model);
    free(skin);
    return mr_bench_median(samples, runs);
}

/* (c): many characters, each with its own pose and matrices. */
static double time_crowd(const mr_model *m, const mr_clip *c, int characters, int runs, int frames)
{
    const mr_skeleton *sk = &m->skeleton;
    int n = sk->joint_count;
    mr_pose *poses = mr_alloc_array((size_t)characters, sizeof *poses);
    mat4 *model = mr_alloc_array((size_t)characters * n, sizeof *model);
    for (int i = 0; i < characters; i++) mr_pose_init(&poses[i], n);
    double samples[64];
    for (int r = -1; r < runs; r++) {   /* run -1 warms caches and pages, untimed */
        double t0 = mr_bench_now();
        for (int f = 0; f < frames; f++)
            for (int i = 0; i < characters; i++) {
                float t = f / 60.0f + i * 0.0137f;
                mr_clip_sample(c, sk, t, MR_WRAP_LOOP, &poses[i]);
                mr_pose_to_model(sk, &poses[i], model + (size_t)i * n);
            }
        if (r >= 0) samples[r] = (mr_bench_now() - t0) * 1e9 / ((double)frames * characters * n);
    }
    for (int i = 0; i < characters; i++) mr_pose_deinit(&poses[i]);
    free(poses);
    free(model);
    return mr_bench_median(samples, runs);
}

void mr_bench_pose(const mr_bench_opts *o)
{
    int runs = o->quick ? 3 : 15, iters = o->quick ? 200 : 4000, frames = o->quick ? 2 : 10;
    printf("== pose evaluation: ns per joint, median of %d runs, time stepped by 1/60 s\n", runs);
    printf("  %-10s %6s %10s %10s %14s %12s %9s %8s\n", "model", "joints", "(a)", "(b)", "(c) 1000 chars",
           "baseline(a)", "speed-up", "(a) optimised");
    for (size_t i = 0; i < sizeof bench_models / sizeof *bench_models; i++) {
        mr_model *m = load_bench_model(o, &bench_models[i], NULL);
        if (!m) continue;
        const mr_clip *c = bench_models[i].clip ? mr_model_find_clip(m, bench_models[i].clip) : NULL;
        if (!c && m->clip_count) c = m->clips[0];
        if (!c) {
            printf("  %-10s skipped: no clip\n", bench_models[i].label);
            mr_model_destroy(m);
            continue;
        }
        double a = time_single(m, c, CASE_A, runs, iters, NULL);
        double b = time_single(m, c, CASE_B, runs, iters, NULL);
        double crowd = time_crowd(m, c, 1000, runs, frames);
        double base = time_single(m, c, CASE_BASELINE, runs, iters, NULL);
        /* (a) again with the keys thinned at 1e-3 of the model size. */
        mr_clip *thin = (mr_clip *)c;
        int played = 0, kept = 0;
        for (int j = 0; j < thin->joint_count; j++)
            for (int k = 0; k < 3; k++) played += mr_clip_track(thin, j, k)->key_count;
        size_t before = mr_clip_runtime_bytes(thin);
        mr_clip_optimize(thin, 0.0f);
        const mr_clip_pack *pack = thin->runtime ? thin->runtime->pack : NULL;
        kept = pack ? pack->keys : played;
        mr_clip_cursor *cur = mr_clip_cursor_create(m->skeleton.joint_count);
        double at = time_single(m, c, CASE_A, runs, iters, cur);
        mr_clip_cursor_destroy(cur);
        printf("  %-10s %6d %10.1f %10.1f %14.1f %12.1f %8.2fx %8.1f (%d/%d keys, %zu/%zu bytes)\n",
               bench_models[i].label, m->skeleton.joint_count, a, b, crowd, base, base / a, at, kept, played,
               mr_clip_runtime_bytes(thin), before);
        mr_model_destroy(m);
    }
}
