/* bench_ozz.c — the side-by-side figures `marrow bench` cannot measure.
 *
 * ozz-animation is not packaged by Debian, so marrow never links it; its
 * figures are printed as recorded constants with their provenance:
 *   - issue 18 of this project ("Ahead of ozz-animation and assimp, measured
 *     side by side"), which measured ozz-animation 0.16.0 (runtime + offline
 *     libraries, Release build) and assimp 5.2.5 on the same files, in
 *     alternating runs on one machine, against marrow as it was then;
 *   - the last run of `make bench-ozz OZZ_DIR=...` (src/bench/ozz/compare.cc:
 *     this marrow beside an ozz-animation 0.16 built from source, on the
 *     same skeleton and keys, alternating), with its date and build.
 * Each ratio is marrow's time over the anchor's (below 1.0: marrow is
 * faster). The live figures of a `marrow bench` run are in the sections
 * above (pose evaluation against the textbook baseline, blends against
 * plain sampling, model loads against assimp when installed). */
#include <stdio.h>

#include "bench/bench.h"

typedef struct recorded {
    const char *what, *anchor;
    double ratio;
} recorded;

static const recorded figures[] = {
    {"sample + local-to-model, snoutx10k forward, raw keys", "ozz 0.16.0", 0.74},
    {"sample + local-to-model, snoutx10k forward, ozz keys optimised", "ozz 0.16.0", 1.08},
    {"two-clip blend + local-to-model", "ozz 0.16.0 (optimised)", 1.47},
    {"two-clip blend step alone", "ozz 0.16.0", 1.68},
    {"COLLADA load, astroBoy_walk.dae", "assimp 5.2.5", 1.44},
    {"COLLADA load, ThinMatrix model.dae", "assimp 5.2.5", 1.19},
    {"COLLADA load, 2.5 MB Sintel export", "assimp 5.2.5", 1.15},
    {"MD5 load (best case)", "assimp 5.2.5", 0.47},
    {"MD5 load (worst case)", "assimp 5.2.5", 0.93},
};

/* `make bench-ozz` on BENCH_OZZ_DATE, 2-core machine: the median ratio of
 * 5 runs of the program (each the median of 21 alternating runs of 4000
 * evaluations in thread CPU time), two of them at load ~0.7, three while
 * other jobs ran; ranges 0.49-0.60, 0.82-1.02 (0.82-0.84 in the quiet runs),
 * 0.53-0.60, 0.83-0.91. Before that day's SIMD work (blend groups of 8,
 * local-to-model coefficients 4 joints at a time) they were 0.67, 1.03,
 * 0.72 and 2.00. ozz-animation's runtime was exactly 0.16.0 (SSE4.2, -O3
 * as in its Release build), its offline library (builders, optimiser)
 * partly from earlier releases; snoutx10k, 75 joints; both libraries
 * posed the model within 1.5e-4 of its size of each other. marrow's
 * thinned clip keeps 11850 of 13200 keys (a shared time line thins
 * poorly, clip_optimize.h) against ozz's 1768 of 11775: marrow's figure is
 * its dense SIMD sampler, whose cost does not depend on the key count. */
#define BENCH_OZZ_DATE "2026-11-26"
static const recorded measured[] = {
    {"sample + local-to-model, raw keys", "ozz 0.16.0", 0.57},
    {"sample + local-to-model, keys thinned (both optimisers)", "ozz 0.16.0", 0.84},
    {"two-clip blend + local-to-model", "ozz 0.16.0", 0.58},
    {"blend step alone", "ozz 0.16.0", 0.88},
};

void mr_bench_recorded(void)
{
    printf("== recorded side by side (issue 18: marrow then vs ozz-animation 0.16.0 and assimp 5.2.5,\n"
           "   same files, alternating runs, one machine; marrow time / anchor time; not measured now)\n");
    for (size_t i = 0; i < sizeof figures / sizeof *figures; i++)
        printf("  %-64s %-24s %5.2fx\n", figures[i].what, figures[i].anchor, figures[i].ratio);
    printf("== recorded: marrow beside ozz-animation, `make bench-ozz` on %s (marrow time / ozz time)\n",
           BENCH_OZZ_DATE);
    for (size_t i = 0; i < sizeof measured / sizeof *measured; i++)
        printf("  %-64s %-24s %5.2fx\n", measured[i].what, measured[i].anchor, measured[i].ratio);
}
