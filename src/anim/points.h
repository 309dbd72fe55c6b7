/* points.h — the one distance between two poses of a skeleton that marrow's
 * error measures use, as ACL and ozz-animation measure a clip's error:
 * virtual points at each joint's origin and `distance` model units along
 * its x, y and z axes, so a rotation error counts with its lever arm even
 * at a leaf joint (a hand turning, a head nodding) and propagates down the
 * hierarchy. The runtime clip's error (mr_clip_runtime_error), the
 * recorder's reduction (mr_record_measure) and the MD5/BVH writers' rate
 * fitting (formats/save.c) all measure with it, at the distance
 * MR_CLIP_POINT_DISTANCE times the model size (clip_runtime.h).
 */
#ifndef MR_ANIM_POINTS_H
#define MR_ANIM_POINTS_H

#include <cglm/cglm.h>

/* The largest distance, in model units, between where the model-space
 * joint matrices a and b (joint_count each) put the same virtual point:
 * each joint's origin and the points distance along its x, y and z axes
 * (distance 0: the origins only). Allocates nothing. */
double mr_points_apart(const mat4 *a, const mat4 *b, int joint_count, float distance);

#endif
