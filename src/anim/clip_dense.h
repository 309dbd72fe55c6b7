/* clip_dense.h — a clip baked for fast sampling: the last step of the
 * runtime clip's builder (clip_runtime.h; internal to src/anim).
 *
 * When every animated track of a clip shares one time line with linear keys
 * (every MD5 clip, most baked exports), mr_clip_finish bakes the played keys
 * (the slerp refinement's, when it split the time line) into
 * frame-major structure-of-arrays rows: for each key, the rotation x, y, z, w,
 * translation x, y, z and scale x, y, z of every joint, each row padded to a
 * multiple of 4 joints. Sampling then interpolates 4 joints per SIMD
 * instruction with the same arithmetic as the per-track path (identical
 * results). Channels with a single key are repeated in every row; channels
 * with none are filled from the skeleton's rest pose after the SIMD pass. */
#ifndef MR_ANIM_CLIP_DENSE_H
#define MR_ANIM_CLIP_DENSE_H

#include "anim/clip_runtime.h"

typedef struct mr_clip_dense {
    int keys;            /* rows: the shared key count */
    int joints;
    int lanes;           /* joints rounded up to a multiple of 4 */
    float *data;         /* keys * 10 * lanes floats, 16-byte aligned rows */
    int *rest;           /* joint * 4 + channel (0 t, 1 r, 2 s) of channels without keys */
    int rest_count;
} mr_clip_dense;

/* Bakes clip's played keys (its runtime already has shared_keys > 1); NULL
 * when the clip does not qualify (non-linear keys, or more than 64 MiB of
 * rows). Reads the clip only; the builder stores the result in the runtime
 * (which owns it). */
mr_clip_dense *mr_clip_dense_build(const mr_clip *clip);
void mr_clip_dense_destroy(mr_clip_dense *dense);

/* Interpolates row key..key+1 at alpha into pose (joint counts checked by the caller). */
void mr_clip_dense_sample(const mr_clip_dense *dense, const mr_skeleton *sk, int key, float alpha,
                          mr_pose *pose);

#endif
