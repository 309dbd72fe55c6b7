/* skeleton.h — joint hierarchy as flat arrays (ozz-animation shape).
 *
 * Joints are stored depth-first: parents[i] < i for every joint, and -1 for a
 * root. The rest (bind) pose is local TRS per joint; inverse_bind holds the
 * inverse of each joint's model-space bind matrix, computed once at load (or
 * taken from the file when the format stores it, as COLLADA does).
 * Quaternions are cglm versors: x, y, z, w. Matrices are cglm mat4: column-major.
 */
#ifndef MR_ANIM_SKELETON_H
#define MR_ANIM_SKELETON_H

#include <cglm/cglm.h>

#include "core/error.h"

/* Hard limit on joints; the renderer's palette holds at least this many. */
#define MR_MAX_JOINTS 1024

typedef struct mr_skeleton {
    int joint_count;
    char **names;        /* joint_count owned strings */
    int *parents;        /* parent index, -1 for roots; parents[i] < i */
    vec3 *rest_t;        /* local rest translation */
    versor *rest_r;      /* local rest rotation, unit quaternion */
    vec3 *rest_s;        /* local rest scale */
    mat4 *inverse_bind;  /* inverse model-space bind matrix per joint */
    unsigned char *scale_comp;   /* NULL (every joint composes plainly), or per joint 1: the joint */
                                 /* does not inherit its parent's scale (Maya's segment scale */
                                 /* compensate, FBX InheritType Rrs/RrSs), see "Inherit modes" */
    unsigned long long serial;   /* new (mr_skeleton_touch) whenever the rest pose may have changed: */
                                 /* playback cursors hold the rest values and bind to it */
} mr_skeleton;

/* Inherit modes. Local-to-model composes model[i] = model[parent] * T * R * S
 * (T, R, S joint i's local translation, rotation, scale). A joint with
 * scale_comp[i] set composes
 *     model[i] = model[parent] * T * S_parent^-1 * R * S
 * (S_parent: the parent's local scale in the same pose; a component that is
 * 0 or not finite is not undone): the parent's scale moves the joint's
 * origin but neither turns nor stretches its axes, so a non-uniformly scaled
 * parent does not shear it. scale_comp is NULL for every format but FBX
 * files that need it; mr_pose_to_model, mr_pose_model_matrix (override.h),
 * mr_skeleton_compute_inverse_bind and mr_skeleton_compensate honour it. */

/* Allocates arrays for joint_count joints: names NULL, parents -1, rest pose
 * identity, inverse_bind identity. Returns MR_OK or MR_ERR_NO_MEMORY /
 * MR_ERR_LIMIT (more than MR_MAX_JOINTS). Free with mr_skeleton_deinit. */
mr_status mr_skeleton_init(mr_skeleton *sk, int joint_count);
void mr_skeleton_deinit(mr_skeleton *sk);

/* Checks the invariants above (depth-first parents, names present and unique,
 * finite rest pose, unit rotations). Returns MR_OK or sets err. */
mr_status mr_skeleton_validate(const mr_skeleton *sk, mr_error *err);

/* Gives sk a new serial. Whatever changes a skeleton's rest pose after
 * mr_skeleton_init calls it (init and copy do). */
void mr_skeleton_touch(mr_skeleton *sk);

/* Turns joint j's local matrix (T * R * S, in place) into the one
 * local-to-model composes under its parent: with the parent's scale
 * (parent_s, the parent's local scale; NULL: none) undone where
 * scale_comp[j] is set ("Inherit modes"); unchanged otherwise. */
void mr_skeleton_compensate(const mr_skeleton *sk, int j, const float *parent_s, mat4 local);

/* Gives sk a scale_comp array (all 0) if it has none. Returns MR_OK or
 * MR_ERR_NO_MEMORY. */
mr_status mr_skeleton_add_scale_comp(mr_skeleton *sk);

/* Recomputes inverse_bind from the rest pose. */
void mr_skeleton_compute_inverse_bind(mr_skeleton *sk);

/* Index of the joint called name, or -1. */
int mr_skeleton_find(const mr_skeleton *sk, const char *name);

/* Deep copy into dst (which must be uninitialised or destroyed). */
mr_status mr_skeleton_copy(mr_skeleton *dst, const mr_skeleton *src);

#endif
