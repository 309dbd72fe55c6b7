/* choreo_fixture.h — a hand-built 18-joint humanoid (Z-up, inches, joint
 * names as the mannequin's) and procedural looping clips, shared by the
 * choreography tests (blend, mask, mixer, events, IK, ...). */
#ifndef MR_TEST_CHOREO_FIXTURE_H
#define MR_TEST_CHOREO_FIXTURE_H

#include <math.h>
#include <stdlib.h>

#include "anim/clip.h"
#include "core/str.h"

enum {
    J_PELVIS, J_SPINE1, J_SPINE2, J_SPINE3, J_NECK, J_HEAD,
    J_UPPERARM_L, J_LOWERARM_L, J_HAND_L, J_UPPERARM_R, J_LOWERARM_R, J_HAND_R,
    J_THIGH_L, J_CALF_L, J_FOOT_L, J_THIGH_R, J_CALF_R, J_FOOT_R, J_COUNT
};

static inline void fixture_humanoid(mr_skeleton *sk)
{
    static const struct { const char *name; int parent; float t[3]; } j[J_COUNT] = {
        {"pelvis", -1, {0, 0, 40}},       {"spine_01", 0, {0, 0, 4}},
        {"spine_02", 1, {0, 0, 6}},       {"spine_03", 2, {0, 0, 6}},
        {"neck", 3, {0, 0, 8}},           {"head", 4, {0, 0, 4}},
        {"upperarm_l", 3, {6, 0, 6}},     {"lowerarm_l", 6, {11, 0, 0}},
        {"hand_l", 7, {10, 0, 0}},        {"upperarm_r", 3, {-6, 0, 6}},
        {"lowerarm_r", 9, {-11, 0, 0}},   {"hand_r", 10, {-10, 0, 0}},
        {"thigh_l", 0, {4, 0, -2}},       {"calf_l", 12, {0, 0, -18}},
        {"foot_l", 13, {0, 0, -18}},      {"thigh_r", 0, {-4, 0, -2}},
        {"calf_r", 15, {0, 0, -18}},      {"foot_r", 16, {0, 0, -18}},
    };
    mr_skeleton_init(sk, J_COUNT);
    for (int i = 0; i < J_COUNT; i++) {
        sk->names[i] = mr_str_dup(j[i].name);
        sk->parents[i] = j[i].parent;
        for (int k = 0; k < 3; k++) sk->rest_t[i][k] = j[i].t[k];
    }
    /* A slight rest bend on the arms so rest differs from identity. */
    glm_quatv(sk->rest_r[J_LOWERARM_L], glm_rad(10.0f), (vec3){0, 0, 1});
    glm_quatv(sk->rest_r[J_LOWERARM_R], glm_rad(-10.0f), (vec3){0, 0, 1});
    mr_skeleton_compute_inverse_bind(sk);
}

/* A looping clip of `duration` seconds keyed at 30 keys/s: every joint swings
 * by amp_deg * sin(2 pi t / duration + phase + 0.3 j) about an axis that
 * depends on the joint, and the pelvis moves forward (+Y) at `speed` units/s
 * while bobbing in Z. First and last keys of the rotations agree, so the
 * loop is seamless apart from the forward motion. */
static inline mr_clip *fixture_cycle(const char *name, float duration, float amp_deg, float phase,
                                     float speed)
{
    mr_clip *c = NULL;
    mr_clip_create(name, J_COUNT, &c);
    c->duration = duration;
    c->rate = 30.0f;
    int keys = (int)lroundf(duration * 30.0f) + 1;
    for (int j = 0; j < J_COUNT; j++) {
        mr_track *r = &c->tracks[j].r;
        mr_track_init(r, keys, MR_INTERP_LINEAR);
        vec3 axis = {j % 3 == 0, j % 3 == 1, j % 3 == 2};
        for (int i = 0; i < keys; i++) {
            float t = duration * i / (keys - 1);
            r->times[i] = t;
            float a = glm_rad(amp_deg) * sinf(2.0f * GLM_PIf * t / duration + phase + 0.3f * j);
            versor q;
            glm_quatv(q, a, axis);
            for (int k = 0; k < 4; k++) r->values[4 * i + k] = q[k];
        }
        mr_track_finish(r);
    }
    mr_track *t = &c->tracks[J_PELVIS].t;
    mr_track_init(t, keys, MR_INTERP_LINEAR);
    for (int i = 0; i < keys; i++) {
        float tt = duration * i / (keys - 1);
        t->times[i] = tt;
        t->values[3 * i + 0] = 0.5f * sinf(2.0f * GLM_PIf * tt / duration + phase);
        t->values[3 * i + 1] = speed * tt;
        t->values[3 * i + 2] = 40.0f + 1.5f * sinf(4.0f * GLM_PIf * tt / duration + phase);
    }
    mr_track_finish(t);
    return c;
}

/* Largest distance any joint moves in model space between two poses. */
static inline float fixture_max_move(const mr_skeleton *sk, const mr_pose *a, const mr_pose *b)
{
    mat4 ma[J_COUNT], mb[J_COUNT];
    mr_pose_to_model(sk, a, ma);
    mr_pose_to_model(sk, b, mb);
    float m = 0.0f;
    for (int j = 0; j < sk->joint_count; j++) {
        float d = glm_vec3_distance(ma[j][3], mb[j][3]);
        if (d > m) m = d;
    }
    return m;
}

static inline int fixture_pose_equal(const mr_pose *a, const mr_pose *b, int j)
{
    for (int k = 0; k < 3; k++)
        if (a->t[j][k] != b->t[j][k] || a->s[j][k] != b->s[j][k]) return 0;
    for (int k = 0; k < 4; k++)
        if (a->r[j][k] != b->r[j][k]) return 0;
    return 1;
}

#endif
