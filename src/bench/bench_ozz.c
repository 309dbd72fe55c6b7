/* bench_ozz.c — the side-by-side figures that cannot be measured here.
 *
 * ozz-animation is not packaged by Debian and is not built on this machine,
 * so its figures are printed as recorded constants with their provenance:
 * issue 18 of this project ("Ahead of ozz-animation and assimp, measured side
 * by side"), which measured ozz-animation 0.16.0 (runtime + offline
 * libraries, Release build) and assimp 5.2.5 on the same files, in
 * alternating runs on one machine, against marrow as it was then. Each
 * ratio is marrow's time over the anchor's (below 1.0: marrow is faster).
 * They describe that marrow: the live figures of this run are in the
 * sections above (pose evaluation against the textbook baseline, blends
 * against plain sampling, COLLADA load against assimp when installed).
 * The issue does not record how the MD5 clip was fed to ozz (ozz's own
 * importers read FBX and glTF), so to re-measure: build ozz 0.16.0 from
 * source (cmake -DCMAKE_BUILD_TYPE=Release), export snoutx10k's forward
 * clip to glTF, import it with ozz's gltf2ozz (raw and optimised), and time
 * SamplingJob + LocalToModelJob per joint with time stepped by 1/60 s, as
 * bench_pose.c times mr_clip_sample + mr_pose_to_model. */
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

void mr_bench_recorded(void)
{
    printf("== recorded side by side (issue 18: marrow then vs ozz-animation 0.16.0 and assimp 5.2.5,\n"
           "   same files, alternating runs, one machine; marrow time / anchor time; not measured now)\n");
    for (size_t i = 0; i < sizeof figures / sizeof *figures; i++)
        printf("  %-64s %-24s %5.2fx\n", figures[i].what, figures[i].anchor, figures[i].ratio);
}
