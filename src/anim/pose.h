/* pose.h — a skeleton's pose as structure-of-arrays local TRS, and the jobs
 * that turn it into model-space and skinning matrices.
 *
 * The caller owns every array. mr_pose_init allocates once; the per-frame
 * functions (mr_pose_to_model, mr_pose_skinning, mr_pose_set_rest) allocate
 * nothing and validate their inputs first.
 */
#ifndef MR_ANIM_POSE_H
#define MR_ANIM_POSE_H

#include "anim/skeleton.h"

typedef struct mr_pose {
    int joint_count;
    vec3 *t;             /* local translation */
    versor *r;           /* local rotation (unit quaternion x,y,z,w) */
    vec3 *s;             /* local scale */
} mr_pose;

/* Allocates a pose for joint_count joints, set to identity. */
mr_status mr_pose_init(mr_pose *pose, int joint_count);
void mr_pose_deinit(mr_pose *pose);

/* Copies the skeleton's rest pose into pose. */
mr_status mr_pose_set_rest(mr_pose *pose, const mr_skeleton *sk);
/* Copies src into dst (same joint count). */
mr_status mr_pose_copy(mr_pose *dst, const mr_pose *src);

/* T * R * S as an affine matrix (q a unit quaternion). */
void mr_pose_trs_matrix(const vec3 t, const versor q, const vec3 s, mat4 out);
/* The inverse: splits an affine matrix into T, a unit quaternion (w >= 0)
 * and S; a negative determinant puts the sign on S's x, a vanishing axis is
 * rebuilt from the other two. Returns the residual shear (the largest |cos|
 * between the axes; 0 for a pure TRS). */
float mr_pose_trs_from_matrix(const mat4 m, vec3 t, versor q, vec3 s);

/* Local TRS of joint j as a matrix (T * R * S). */
void mr_pose_local_matrix(const mr_pose *pose, int j, mat4 out);

/* Local-to-model: model[i] = model[parent] * local[i] (with the parent's
 * scale undone for joints the skeleton flags, skeleton.h "Inherit modes"). model has
 * joint_count entries. Fails on mismatched joint counts. */
mr_status mr_pose_to_model(const mr_skeleton *sk, const mr_pose *pose, mat4 *model);

/* Rows of local transforms, structure of arrays: row k of `lanes` floats
 * holds component k of every joint (joint j at rows[k * lanes + j]), as a
 * clip cursor interpolates them (clip_runtime.h, mr_clip_sample_model). */
enum {
    MR_LOCAL_QX, MR_LOCAL_QY, MR_LOCAL_QZ, MR_LOCAL_QW,
    MR_LOCAL_TX, MR_LOCAL_TY, MR_LOCAL_TZ,
    MR_LOCAL_SX, MR_LOCAL_SY, MR_LOCAL_SZ,
    MR_LOCAL_ROWS
};

/* mr_pose_to_model from such rows (lanes >= sk's joints, a multiple of 4;
 * rows 16-byte aligned): the same bits as from a pose holding the same
 * values, without moving them into one first. No checks: internal to the
 * samplers. */
void mr_pose_rows_to_model(const mr_skeleton *sk, const float *rows, size_t lanes, mat4 *model);

/* Skinning matrices: skin[i] = model[i] * inverse_bind[i]. */
mr_status mr_pose_skinning(const mr_skeleton *sk, const mat4 *model, mat4 *skin);

#endif
