/* bench_clips.c — the clip library section of `marrow bench` (bench.h):
 * what a folder of motion-capture takes costs as marrow keeps it.
 *
 * The takes are the CMU BVH files of Debian's assimp-testmodels
 * (/usr/share/assimp/models/BVH, installed by scripts/install-deps.sh);
 * without them the section says so. For each take, in this run:
 *   - the first load (read, parse, build; the cache off), process CPU time
 *     and wall time, median of alternating runs with assimp's aiImportFile
 *     of the same file when libassimp is installed: the pack is built by
 *     the worker thread (clip_runtime.h, mr_clip_finish_later), so the
 *     wall time of a load is what a caller waits for, and the process CPU
 *     time counts the worker's share of the pack that ran before the model
 *     was freed;
 *   - the pack itself (mr_clip_settle after the load: the rest of the
 *     build, on the caller's thread when the worker had not started it);
 *   - the cached load (a read and a validation of the cache file, which
 *     holds the pack);
 *   - the default runtime's bytes, bytes per joint per second, the ratio
 *     against raw poses (10 floats per joint per frame) and the largest
 *     error (virtual points size / 18 along each joint's axes, 121 times,
 *     against the slerped source keys, as `marrow info` measures it).
 * Then the library's totals, and snoutx10k's forward (the shared models):
 * its default runtime's bytes and ns per joint of a sample + local-to-model
 * through a cursor (mr_clip_sample_model). */
#include <cglm/cglm.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "anim/clip_runtime.h"
#include "anim/model.h"
#include "bench/bench.h"
#include "core/file.h"
#include "core/path.h"
#include "formats/cache.h"
#include "formats/load.h"

#define CMU_DIR "/usr/share/assimp/models/BVH"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double thread_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static mr_model *load(const char *path)
{
    mr_model *m = NULL;
    mr_error err = {0};
    if (mr_load_model(path, NULL, 0, &m, &err) != MR_OK) printf("  %s: %s\n", path, err.msg);
    return m;
}

/* The model's size (bounding-box diagonal), 0 without one. */
static double model_size(const mr_model *m)
{
    vec3 lo, hi;
    return mr_model_bounds(m, lo, hi) ? glm_vec3_distance(lo, hi) : 0.0;
}

static int is_bvh(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && !strcmp(name + n - 4, ".bvh");
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct totals {
    double bytes, raw, joint_seconds, worst, load, assimp, cached;
    int takes;
} totals;

static void take(const mr_bench_opts *o, const char *path, const char *name, int assimp, totals *sum)
{
    int reps = o->quick ? 3 : 9;
    double cpu[16], wall[16], theirs[16], pack[16];
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_OFF});
    mr_model *keep = NULL;
    for (int r = 0; r < reps; r++) {
        double w0 = mr_bench_now(), c0 = cpu_now();
        mr_model *m = load(path);
        wall[r] = mr_bench_now() - w0;
        cpu[r] = cpu_now() - c0;
        if (!m) return;
        double p0 = mr_bench_now();
        for (int i = 0; i < m->clip_count; i++) mr_clip_settle(m->clips[i]);
        pack[r] = mr_bench_now() - p0;
        if (!keep) keep = m;
        else mr_model_destroy(m);
        theirs[r] = -1;
        if (assimp) {
            double a0 = cpu_now();
            theirs[r] = mr_bench_assimp_load(path) > 0 ? cpu_now() - a0 : -1;
            if (theirs[r] < 0) assimp = 0;
        }
    }
    double med_cpu = mr_bench_median(cpu, reps), med_wall = mr_bench_median(wall, reps);
    double med_pack = mr_bench_median(pack, reps), a = assimp ? mr_bench_median(theirs, reps) : 0;
    /* cached loads: a private folder, written by the first load */
    char tmpl[] = "/tmp/marrow-bench-clips-XXXXXX";
    double med_cached = 0;
    if (mkdtemp(tmpl)) {
        mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = tmpl});
        mr_model_destroy(load(path));
        double c[16];
        for (int r = 0; r < reps; r++) {
            double c0 = cpu_now();
            mr_model_destroy(load(path));
            c[r] = cpu_now() - c0;
        }
        med_cached = mr_bench_median(c, reps);
        mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_OFF});
        mr_file_remove_scratch(tmpl);   /* the tmp folder of the cached rows */
    }
    const mr_clip *c = keep->clip_count ? keep->clips[0] : NULL;
    double size = model_size(keep);
    if (c && c->joint_count > 0 && c->duration > 0) {
        size_t bytes = mr_clip_runtime_bytes(c);
        int keys = mr_clip_key_count(c);
        double raw = (double)(keys > 0 ? keys : 1) * c->joint_count * 10 * sizeof(float), err = -1;
        if (size > 0)
            mr_clip_runtime_error(c, &keep->skeleton, (float)(MR_CLIP_POINT_DISTANCE * size), 121, &err);
        printf("  %-16s %3d joints %7.2f s  %8zu bytes %6.1f B/joint/s %6.2f:1  error %.2g of the size\n", name,
               c->joint_count, c->duration, bytes, bytes / (double)c->joint_count / c->duration, raw / bytes,
               err >= 0 && size > 0 ? err / size : -1.0);
        printf("  %-16s load %7.2f ms cpu %7.2f ms wall, pack %7.2f ms more, cached load %6.2f ms", "", med_cpu * 1e3,
               med_wall * 1e3, med_pack * 1e3, med_cached * 1e3);
        if (a > 0) printf("; assimp %7.2f ms: marrow/assimp %.2fx cpu %.2fx wall, assimp/cached %.0fx", a * 1e3,
                          med_cpu / a, med_wall / a, med_cached > 0 ? a / med_cached : 0.0);
        printf("\n");
        sum->bytes += (double)bytes;
        sum->raw += raw;
        sum->joint_seconds += (double)c->joint_count * c->duration;
        if (size > 0 && err / size > sum->worst) sum->worst = err / size;
        sum->load += med_cpu;
        sum->assimp += a;
        sum->cached += med_cached;
        sum->takes++;
    }
    mr_model_destroy(keep);
}

/* snoutx10k's forward: the default runtime's bytes and its sampling time. */
static void snout(const mr_bench_opts *o)
{
    char *mesh = mr_path_join(o->root, "tomatenquark-essential/packages/models/snoutx10k/snoutx10k.md5mesh");
    char *anim = mr_path_join(o->root, "tomatenquark-essential/packages/models/snoutx10k/forward.md5anim");
    const char *anims[1] = {anim};
    mr_model *m = NULL;
    mr_error err = {0};
    if (!mesh || !anim || mr_load_model(mesh, anims, 1, &m, &err) != MR_OK || !m->clip_count) {
        printf("  snoutx10k forward: skipped (%s)\n", err.msg[0] ? err.msg : "not found");
        free(mesh);
        free(anim);
        mr_model_destroy(m);
        return;
    }
    const mr_clip *c = m->clips[0];
    const mr_skeleton *sk = &m->skeleton;
    size_t bytes = mr_clip_runtime_bytes(c);   /* settles: the pack */
    mat4 *model = malloc((size_t)sk->joint_count * sizeof *model);
    mr_clip_cursor *cur = mr_clip_cursor_create(sk->joint_count);
    int runs = o->quick ? 3 : 21, frames = 600;
    double ns[32];
    for (int r = 0; model && cur && r < runs; r++) {
        double t0 = thread_now();
        for (int f = 0; f < frames; f++)
            mr_clip_sample_model(c, sk, f / 60.0f, MR_WRAP_LOOP, NULL, model, cur);
        ns[r] = (thread_now() - t0) * 1e9 / ((double)frames * sk->joint_count);
    }
    if (model && cur)
        printf("  snoutx10k forward (%d joints): default runtime %zu bytes, %.1f bytes per joint per second; "
               "sample + local-to-model %.2f ns per joint (60 Hz playback through a cursor, thread CPU, median of %d)\n",
               sk->joint_count, bytes, bytes / (double)sk->joint_count / c->duration, mr_bench_median(ns, runs), runs);
    mr_clip_cursor_destroy(cur);
    free(model);
    mr_model_destroy(m);
    free(mesh);
    free(anim);
}

void mr_bench_clips(const mr_bench_opts *o)
{
    char version[32] = "";
    int assimp = mr_bench_assimp_open(version, sizeof version);
    printf("== clip library: the CMU takes of %s, each loaded as a library holds it (default runtime: packed)", CMU_DIR);
    if (assimp) printf("; assimp %s alternating", version);
    printf("\n");
    DIR *d = opendir(CMU_DIR);
    char *names[64];
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) && n < 64)
        if (is_bvh(e->d_name)) names[n++] = strdup(e->d_name);
    if (d) closedir(d);
    if (!n) printf("  no BVH takes in %s (assimp-testmodels not installed)\n", CMU_DIR);
    qsort(names, (size_t)n, sizeof *names, by_name);
    totals sum = {0};
    for (int i = 0; i < n; i++) {
        char *path = names[i] ? mr_path_join(CMU_DIR, names[i]) : NULL;
        if (path) take(o, path, names[i], assimp, &sum);
        free(path);
        free(names[i]);
    }
    if (sum.takes) {
        printf("  library of %d takes: %.0f bytes, %.1f bytes per joint per second, %.2f:1 against raw poses, "
               "largest error %.2g of the size; first loads %.1f ms cpu, cached %.2f ms",
               sum.takes, sum.bytes, sum.bytes / sum.joint_seconds, sum.raw / sum.bytes, sum.worst, sum.load * 1e3,
               sum.cached * 1e3);
        if (sum.assimp > 0) printf(", assimp %.1f ms", sum.assimp * 1e3);
        printf("\n");
    }
    mr_cache_configure(NULL);
    snout(o);
}
