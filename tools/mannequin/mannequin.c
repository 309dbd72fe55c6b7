/* mannequin.c — the mannequin's skeleton, and the whole model put together
 * (geometry in mannequin_mesh.c, clips in mannequin_clips.c). */
#include "mannequin/mannequin.h"

#include <stdlib.h>

#include "core/str.h"

/* Shoulder-to-elbow and elbow-to-wrist lengths; the arms point 45 degrees
 * below horizontal in the bind pose (an A-pose). */
#define UPPERARM_LEN 11.8
#define LOWERARM_LEN 10.0
#define ARM_COS45 0.70710678118654752

typedef struct joint_def {
    const char *name;
    int parent;
    double x, y, z;      /* model-space bind position, inches */
} joint_def;

static void joint_table(joint_def *j)
{
    /* Side-independent joints, then each arm and leg built from the left
     * side's position mirrored in y. Heights follow common proportions for a
     * 70 in figure (hip joint 0.52 H, knee 0.28 H, shoulder 0.80 H). */
    const joint_def centre[] = {
        {"pelvis", -1, 0.0, 0.0, 38.5},
        {"spine_01", MR_MQ_PELVIS, 0.0, 0.0, 42.0},
        {"spine_02", MR_MQ_SPINE_01, 0.0, 0.0, 46.5},
        {"spine_03", MR_MQ_SPINE_02, 0.0, 0.0, 51.0},
        {"neck", MR_MQ_SPINE_03, 0.2, 0.0, 58.3},
        {"head", MR_MQ_NECK, 0.5, 0.0, 61.8},
    };
    for (int i = 0; i < 6; i++) j[i] = centre[i];
    for (int side = 0; side < 2; side++) {
        double s = side ? -1.0 : 1.0;
        int arm = side ? MR_MQ_CLAVICLE_R : MR_MQ_CLAVICLE_L;
        int leg = side ? MR_MQ_THIGH_R : MR_MQ_THIGH_L;
        double sx = -0.3, sy = 7.2, sz = 56.3;               /* shoulder */
        double ex = sx, ey = sy + UPPERARM_LEN * ARM_COS45, ez = sz - UPPERARM_LEN * ARM_COS45;
        double wx = ex, wy = ey + LOWERARM_LEN * ARM_COS45, wz = ez - LOWERARM_LEN * ARM_COS45;
        j[arm + 0] = (joint_def){side ? "clavicle_r" : "clavicle_l", MR_MQ_SPINE_03, 0.8, s * 1.0, 56.2};
        j[arm + 1] = (joint_def){side ? "upperarm_r" : "upperarm_l", arm + 0, sx, s * sy, sz};
        j[arm + 2] = (joint_def){side ? "lowerarm_r" : "lowerarm_l", arm + 1, ex, s * ey, ez};
        j[arm + 3] = (joint_def){side ? "hand_r" : "hand_l", arm + 2, wx, s * wy, wz};
        j[leg + 0] = (joint_def){side ? "thigh_r" : "thigh_l", MR_MQ_PELVIS, 0.0, s * 3.7, 36.5};
        j[leg + 1] = (joint_def){side ? "calf_r" : "calf_l", leg + 0, 0.0, s * 3.7, 19.8};
        j[leg + 2] = (joint_def){side ? "foot_r" : "foot_l", leg + 1, 0.0, s * 3.7, 3.0};
        j[leg + 3] = (joint_def){side ? "ball_r" : "ball_l", leg + 2, 5.0, s * 3.7, 1.0};
    }
}

mr_status mr_mannequin_skeleton(mr_skeleton *sk)
{
    joint_def j[MR_MQ_JOINT_COUNT];
    joint_table(j);
    mr_status st = mr_skeleton_init(sk, MR_MQ_JOINT_COUNT);
    if (st != MR_OK) return st;
    for (int i = 0; i < MR_MQ_JOINT_COUNT; i++) {
        sk->names[i] = mr_str_dup(j[i].name);
        if (!sk->names[i]) {
            mr_skeleton_deinit(sk);
            return MR_ERR_NO_MEMORY;
        }
        int p = j[i].parent;
        sk->parents[i] = p;
        /* Bind rotations are identity, so local offsets are differences of
         * model-space positions. */
        double px = p >= 0 ? j[p].x : 0.0, py = p >= 0 ? j[p].y : 0.0, pz = p >= 0 ? j[p].z : 0.0;
        sk->rest_t[i][0] = (float)(j[i].x - px);
        sk->rest_t[i][1] = (float)(j[i].y - py);
        sk->rest_t[i][2] = (float)(j[i].z - pz);
    }
    mr_skeleton_compute_inverse_bind(sk);
    return MR_OK;
}

mr_status mr_mannequin_build(mr_model **out)
{
    *out = NULL;
    mr_model *m;
    mr_status st = mr_model_create("mannequin", "mannequin", &m);
    if (st != MR_OK) return st;
    m->axes.up = MR_UP_Z;
    m->axes.meters_per_unit = 0.0254f;
    if ((st = mr_mannequin_skeleton(&m->skeleton)) != MR_OK ||
        (st = mr_mannequin_meshes(&m->skeleton, &m->meshes, &m->mesh_count)) != MR_OK)
        goto fail;
    static const char *const clips[] = {"idle", "walk", "wave", "run", "walk_inplace", "run_inplace"};
    for (int i = 0; i < (int)(sizeof clips / sizeof clips[0]); i++) {
        mr_clip *c;
        if ((st = mr_mannequin_clip(&m->skeleton, clips[i], &c)) != MR_OK) goto fail;
        if ((st = mr_model_add_clip(m, c)) != MR_OK) {
            mr_clip_destroy(c);
            goto fail;
        }
    }
    *out = m;
    return MR_OK;
fail:
    mr_model_destroy(m);
    return st;
}
