/* bench.h — `marrow bench` sections and their shared timing helpers.
 *
 * Every figure is the median of repeated runs, and each section measures a
 * baseline in the same run so speed is reported as a ratio, not only as an
 * absolute number on a shared, noisy machine. Models come from
 * ../shared/models (bench_root); a missing file skips that line. */
#ifndef MR_BENCH_BENCH_H
#define MR_BENCH_BENCH_H

#include <stddef.h>

typedef struct mr_bench_opts {
    int quick;               /* fewer repetitions (used by the test suite) */
    const char *root;        /* directory holding the shared models */
} mr_bench_opts;

/* bench.c: the shared helpers (they call no section). */
double mr_bench_now(void);                  /* monotonic seconds */
double mr_bench_median(double *values, int n);  /* sorts values in place */

/* assimp, opened at run time when installed (bench_assimp.c): 1 and its
 * version in version when available; the seconds of one aiImportFile +
 * aiReleaseImport of path, < 0 when assimp is absent or fails. */
int mr_bench_assimp_open(char *version, size_t size);
double mr_bench_assimp_load(const char *path);
/* The same with the work marrow's FBX load does besides:
 * corners welded (JoinIdenticalVertices) and influences limited to 8
 * (LimitBoneWeights); < 0 when unavailable. */
double mr_bench_assimp_load_welded(const char *path);

/* Sections. */
void mr_bench_load(const mr_bench_opts *o);   /* model load speed, MB/s */
void mr_bench_pose(const mr_bench_opts *o);   /* pose evaluation, ns per joint */
void mr_bench_choreo(const mr_bench_opts *o); /* blends, layers, IK vs plain sampling, ns per joint */
void mr_bench_ik(const mr_bench_opts *o);     /* chain and full-body IK vs local-to-model, us per solve */
void mr_bench_lua(const mr_bench_opts *o);    /* Lua layer, us per frame for 100 characters */
/* Part of the lua section (bench_lua_interp.c): plain Lua functions in marrow
 * (sandboxed and trusted) against stock Lua, ms per call and ratios. */
void mr_bench_lua_interp(const mr_bench_opts *o);
void mr_bench_reload(const mr_bench_opts *o); /* live reload: save to load(), ms */
void mr_bench_springs(const mr_bench_opts *o); /* spring chains, ms per frame for 100 characters */
void mr_bench_clips(const mr_bench_opts *o);  /* a library of CMU takes: bytes, ratio, error, load times */

#endif
