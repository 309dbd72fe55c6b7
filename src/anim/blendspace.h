/* blendspace.h — clips placed at parameter values and blended by where a
 * parameter lies among them: 1D (idle - walk - run by speed) and 2D (a
 * velocity: sideways x forward speed, so direction and speed together).
 *
 * Weights
 *   1D: the two clips whose parameters bracket x share the weight linearly;
 *       beyond the ends the end clip has weight 1.
 *   2D: gradient-band interpolation (Johansen, "Automated Semi-Procedural
 *       Animation", 2009), cartesian form: clip i gets
 *         w_i = min over j != i of clamp01(1 - (p - p_i).(p_j - p_i) / |p_j - p_i|^2)
 *       and weights are normalised to sum 1. Each clip has weight 1 exactly
 *       at its own point, weights change continuously with p, no
 *       triangulation is needed and any point set works; outside the points
 *       the nearest clips dominate. Place clips at velocities (vx, vy), e.g.
 *       idle (0,0), walk (0,1), run (0,3), strafe (+-1,0), back (0,-1).
 *
 * Synchronisation: clips are sampled at one shared normalised phase
 * (0..1, times each clip's duration), so the feet of a walk and a run land
 * together. The blended cycle length is sum w_i * duration_i; advancing the
 * phase by dt / that length plays the blend at a natural pace (the mixer
 * does this when a track plays a blend space).
 *
 * Ownership: the blend space is a plain caller-owned struct that refers to
 * clips it does not own; they must outlive it. Nothing here allocates.
 */
#ifndef MR_ANIM_BLENDSPACE_H
#define MR_ANIM_BLENDSPACE_H

#include "anim/blend.h"

#define MR_BLENDSPACE_MAX 16

typedef struct mr_blendspace {
    int dims;                                /* 1 or 2 */
    int count;                               /* clips added */
    const mr_clip *clips[MR_BLENDSPACE_MAX]; /* not owned; 1D: sorted by x */
    float x[MR_BLENDSPACE_MAX];              /* parameter of each clip */
    float y[MR_BLENDSPACE_MAX];              /* second parameter (2D only) */
} mr_blendspace;

/* Empties bs and sets its dimension (1 or 2). */
mr_status mr_blendspace_init(mr_blendspace *bs, int dims);
/* Places clip at (x, y) (y ignored in 1D). Refused: NULL clip, non-finite
 * parameters, more than MR_BLENDSPACE_MAX clips (MR_ERR_LIMIT), a point
 * already taken (1D: same x; 2D: same x and y). */
mr_status mr_blendspace_add(mr_blendspace *bs, const mr_clip *clip, float x, float y);
/* Checks against a skeleton: at least one clip, every clip with the
 * skeleton's joint count and a duration > 0, distinct points. */
mr_status mr_blendspace_validate(const mr_blendspace *bs, const mr_skeleton *sk, mr_error *err);

/* Weights of the clips at parameter (x, y): weights gets bs->count values
 * summing to 1. Fails on non-finite parameters or an empty space. */
mr_status mr_blendspace_weights(const mr_blendspace *bs, float x, float y, float *weights);
/* Blended cycle length sum w_i * duration_i (seconds). */
float mr_blendspace_duration(const mr_blendspace *bs, const float *weights);
/* Index of the clip with the largest weight (the one whose markers a mixer
 * reports), or -1 for an empty space. */
int mr_blendspace_dominant(const mr_blendspace *bs, const float *weights);

/* Samples every clip with a non-zero weight at phase (wrapped into [0, 1))
 * times its duration and blends them into out; scratch is one caller-owned
 * pose used for each clip in turn. Fails on a NaN phase, mismatched joint
 * counts, or scratch == out. */
mr_status mr_blendspace_sample(const mr_blendspace *bs, const mr_skeleton *sk, const float *weights,
                               float phase, mr_pose *scratch, mr_pose *out);
/* The same through playback cursors (clip_runtime.h): cursors NULL, or one
 * per clip of bs (same index), each sampling its clip: the same poses,
 * optimised (packed) clips many times faster. */
mr_status mr_blendspace_sample_with(const mr_blendspace *bs, const mr_skeleton *sk, const float *weights,
                                    float phase, mr_pose *scratch, mr_pose *out, mr_clip_cursor *const *cursors);

#endif
