/* test_mannequin.c — the generated mannequin (tools/mannequin/mannequin*.c): skeleton,
 * skinned surface, clips, that building it is deterministic, and that the
 * committed models/ files (written by `make-mannequin`, `make models`) read back as
 * the model built in memory. tests/cli_make_mannequin.sh checks that the
 * command reproduces those files byte for byte. */
#include <stdlib.h>

#include "mannequin/mannequin.h"
#include "formats/load.h"
#include "core/file.h"
#include "test.h"

static mr_model *model;

static void joint_model_pos(const mr_skeleton *sk, int j, vec3 out)
{
    mat4 bind;
    glm_mat4_inv(sk->inverse_bind[j], bind);
    glm_vec3_copy(bind[3], out);
}

static int find(const char *name) { return mr_skeleton_find(&model->skeleton, name); }

TEST(skeleton_has_conventional_joints_parents_first)
{
    const mr_skeleton *sk = &model->skeleton;
    mr_error err = {0};
    CHECK(sk->joint_count >= 20);
    CHECK_MSG(mr_skeleton_validate(sk, &err) == MR_OK, "%s", err.msg);
    static const char *const names[] = {
        "pelvis", "spine_01", "spine_02", "spine_03", "neck", "head",
        "clavicle_l", "upperarm_l", "lowerarm_l", "hand_l", "clavicle_r", "upperarm_r",
        "lowerarm_r", "hand_r", "thigh_l", "calf_l", "foot_l", "ball_l", "thigh_r", "calf_r",
        "foot_r", "ball_r",
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        CHECK_MSG(find(names[i]) >= 0, "no joint %s", names[i]);
    CHECK(find("pelvis") == 0 && sk->parents[0] == -1);
    for (int j = 1; j < sk->joint_count; j++) CHECK(sk->parents[j] >= 0 && sk->parents[j] < j);
    CHECK(sk->parents[find("calf_l")] == find("thigh_l"));
    CHECK(sk->parents[find("hand_r")] == find("lowerarm_r"));
    CHECK(sk->parents[find("head")] == find("neck"));
    CHECK(model->axes.up == MR_UP_Z);
    CHECK_NEAR(model->axes.meters_per_unit, 0.0254, 1e-7);
}

TEST(stands_on_the_ground_about_70_inches_tall_facing_x)
{
    vec3 lo, hi;
    CHECK(mr_model_bounds(model, lo, hi));
    CHECK_NEAR(lo[2], 0.0, 0.02);
    CHECK(hi[2] > 68.5f && hi[2] < 71.5f);
    /* Left is +Y, toes and nose point to +X. */
    vec3 foot, ball, hand_l, hand_r, head;
    joint_model_pos(&model->skeleton, find("foot_l"), foot);
    joint_model_pos(&model->skeleton, find("ball_l"), ball);
    joint_model_pos(&model->skeleton, find("hand_l"), hand_l);
    joint_model_pos(&model->skeleton, find("hand_r"), hand_r);
    joint_model_pos(&model->skeleton, find("head"), head);
    CHECK(ball[0] > foot[0] + 3);
    CHECK(hand_l[1] > 10 && hand_r[1] < -10);
    CHECK(head[2] > 58 && head[2] < 66);
    /* The frontmost point of the head (the nose) is ahead of the face. */
    float nose = -1e9f;
    const mr_mesh *body = &model->meshes[0];
    for (int v = 0; v < body->vertex_count; v++)
        if (body->positions[v][2] > 60 && fabsf(body->positions[v][1]) < 3 && body->positions[v][0] > nose)
            nose = body->positions[v][0];
    CHECK(nose > 4.5f);
}

TEST(two_skinned_untextured_meshes_with_colours)
{
    CHECK(model->mesh_count == 2);
    int verts, tris;
    mr_model_counts(model, &verts, &tris);
    CHECK(tris >= 2000 && tris <= 12000);
    for (int i = 0; i < model->mesh_count; i++) {
        const mr_mesh *m = &model->meshes[i];
        CHECK(m->joints && m->weights);
        CHECK(m->material.diffuse_map == NULL);
        CHECK(m->material.diffuse[3] == 1.0f);
    }
    /* Shoes darker than the body. */
    CHECK(model->meshes[1].material.diffuse[0] < 0.5f * model->meshes[0].material.diffuse[0]);
}

TEST(weights_sum_to_one_with_at_most_four_influences)
{
    int bad = 0;
    for (int i = 0; i < model->mesh_count; i++) {
        const mr_mesh *m = &model->meshes[i];
        for (int v = 0; v < m->vertex_count; v++) {
            float sum = 0;
            for (int k = 0; k < MR_MAX_INFLUENCES; k++) {
                float w = m->weights[v][k];
                if (w < 0 || m->joints[v][k] >= model->skeleton.joint_count) bad++;
                sum += w;
            }
            if (fabsf(sum - 1) > 1e-5f) bad++;
        }
    }
    CHECK(bad == 0);
}

/* Weight of joint j at vertex v (0 when it is not an influence). */
static float weight_of(const mr_mesh *m, int v, int j)
{
    float w = 0;
    for (int k = 0; k < MR_MAX_INFLUENCES; k++)
        if (m->joints[v][k] == j) w += m->weights[v][k];
    return w;
}

TEST(knee_and_elbow_blend_their_two_bones)
{
    const mr_mesh *m = &model->meshes[0];
    int thigh = find("thigh_l"), calf = find("calf_l");
    int upper = find("upperarm_r"), lower = find("lowerarm_r");
    vec3 knee, elbow;
    joint_model_pos(&model->skeleton, calf, knee);
    joint_model_pos(&model->skeleton, lower, elbow);
    vec3 shoulder, arm_dir;
    joint_model_pos(&model->skeleton, upper, shoulder);
    glm_vec3_sub(elbow, shoulder, arm_dir);
    glm_vec3_normalize(arm_dir);
    int at_knee = 0, blended_knee = 0, at_elbow = 0, blended_elbow = 0, above = 0, thigh_only = 0;
    for (int v = 0; v < m->vertex_count; v++) {
        const float *p = m->positions[v];
        if (fabsf(p[2] - knee[2]) < 0.7f && fabsf(p[1] - knee[1]) < 3 && fabsf(p[0]) < 3) {
            at_knee++;
            float a = weight_of(m, v, thigh), b = weight_of(m, v, calf);
            if (a > 0.2f && b > 0.2f && a + b > 0.99f) blended_knee++;
        }
        /* Mid-thigh belongs to the thigh alone. */
        if (fabsf(p[2] - 28) < 0.7f && fabsf(p[1] - knee[1]) < 4) {
            above++;
            if (weight_of(m, v, thigh) > 0.999f) thigh_only++;
        }
        /* Near the elbow: within 0.7 in of it along the arm, on the arm. */
        vec3 d;
        glm_vec3_sub((float *)p, elbow, d);
        float along = glm_vec3_dot(d, arm_dir);
        if (fabsf(along) < 0.7f && glm_vec3_norm(d) < 2.2f) {
            at_elbow++;
            float a = weight_of(m, v, upper), b = weight_of(m, v, lower);
            if (a > 0.2f && b > 0.2f && a + b > 0.99f) blended_elbow++;
        }
    }
    CHECK(at_knee >= 14);  /* a ring at least */
    CHECK_MSG(blended_knee == at_knee, "%d of %d knee vertices blend thigh and calf", blended_knee, at_knee);
    CHECK(above >= 14 && thigh_only == above);
    CHECK(at_elbow >= 12);
    CHECK_MSG(blended_elbow == at_elbow, "%d of %d elbow vertices blend upper and lower arm",
              blended_elbow, at_elbow);
}

TEST(surfaces_are_closed_and_consistently_wound)
{
    /* Every directed edge appears once and its reverse once: closed, manifold,
     * same orientation everywhere. */
    for (int i = 0; i < model->mesh_count; i++) {
        const mr_mesh *m = &model->meshes[i];
        size_t n = (size_t)m->vertex_count;
        int *count = calloc(n * 64, sizeof *count);
        uint32_t *other = calloc(n * 64, sizeof *other);
        int overflow = 0, bad = 0;
        for (int t = 0; t < m->index_count; t += 3)
            for (int e = 0; e < 3; e++) {
                uint32_t a = m->indices[t + e], b = m->indices[t + (e + 1) % 3];
                int k = 0;
                while (k < 64 && count[a * 64 + k] && other[a * 64 + k] != b) k++;
                if (k == 64) { overflow = 1; continue; }
                other[a * 64 + k] = b;
                count[a * 64 + k]++;
            }
        for (size_t a = 0; a < n; a++)
            for (int k = 0; k < 64 && count[a * 64 + k]; k++) {
                uint32_t b = other[a * 64 + k];
                int back = 0;
                for (int q = 0; q < 64 && count[b * 64 + q]; q++)
                    if (other[b * 64 + q] == a) back = count[b * 64 + q];
                if (count[a * 64 + k] != 1 || back != 1) bad++;
            }
        CHECK(!overflow);
        CHECK_MSG(bad == 0, "mesh %d: %d edges not shared by exactly two opposite triangles", i, bad);
        free(count);
        free(other);
    }
}

/* Distance from p to the segment a-b, and the nearest point. */
static float seg_nearest(const vec3 p, const vec3 a, const vec3 b, vec3 out)
{
    vec3 ab, ap;
    glm_vec3_sub((float *)b, (float *)a, ab);
    glm_vec3_sub((float *)p, (float *)a, ap);
    float l2 = glm_vec3_dot(ab, ab);
    float t = l2 > 0 ? glm_vec3_dot(ap, ab) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    glm_vec3_copy((float *)a, out);
    glm_vec3_muladds(ab, t, out);
    return glm_vec3_distance((float *)p, out);
}

static int root_of(int *parent, int v)
{
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
}

TEST(normals_point_away_from_the_bones)
{
    /* Each connected part encloses a positive volume (it is wound outwards),
     * and the recomputed normal of nearly every vertex points away from the
     * bone of its heaviest joint (joint to child; leaf bones extended). The
     * few exceptions are the ends of parts buried inside others (the
     * thumb's root in the hand, the nose's root in the head). */
    const mr_skeleton *sk = &model->skeleton;
    vec3 pos[MR_MQ_JOINT_COUNT], tip[MR_MQ_JOINT_COUNT];
    int has_child[MR_MQ_JOINT_COUNT] = {0};
    for (int j = 0; j < sk->joint_count; j++) joint_model_pos(sk, j, pos[j]);
    for (int j = 0; j < sk->joint_count; j++) glm_vec3_copy(pos[j], tip[j]);
    for (int j = 1; j < sk->joint_count; j++) {
        int p = sk->parents[j];
        if (!has_child[p]) glm_vec3_copy(pos[j], tip[p]);
        has_child[p] = 1;
    }
    for (int j = 1; j < sk->joint_count; j++)
        if (!has_child[j]) {
            vec3 d;
            glm_vec3_sub(pos[j], pos[sk->parents[j]], d);
            glm_vec3_normalize(d);
            float len = j == find("head") ? 5.0f : j == find("hand_l") || j == find("hand_r") ? 7.0f : 2.5f;
            glm_vec3_copy(pos[j], tip[j]);
            glm_vec3_muladds(d, len, tip[j]);
        }
    for (int i = 0; i < model->mesh_count; i++) {
        mr_mesh *m = &model->meshes[i];
        mr_mesh_compute_normals(m);
        int n = m->vertex_count, parts = 0, inward = 0;
        int *parent = malloc((size_t)n * sizeof *parent);
        double *vol = calloc((size_t)n, sizeof *vol);
        for (int v = 0; v < n; v++) parent[v] = v;
        for (int t = 0; t < m->index_count; t += 3)
            for (int e = 1; e < 3; e++) {
                int a = root_of(parent, (int)m->indices[t]), b = root_of(parent, (int)m->indices[t + e]);
                if (a != b) parent[b] = a;
            }
        for (int t = 0; t < m->index_count; t += 3) {
            vec3 c;
            glm_vec3_cross(m->positions[m->indices[t + 1]], m->positions[m->indices[t + 2]], c);
            vol[root_of(parent, (int)m->indices[t])] += glm_vec3_dot(m->positions[m->indices[t]], c) / 6.0;
        }
        for (int v = 0; v < n; v++)
            if (root_of(parent, v) == v) {
                parts++;
                if (!(vol[v] > 0)) inward++;
            }
        CHECK(parts >= (i == 0 ? 10 : 2));
        CHECK_MSG(inward == 0, "mesh %d: %d of %d parts enclose a negative volume", i, inward, parts);
        int out = 0;
        for (int v = 0; v < n; v++) {
            int j = m->joints[v][0];  /* packed heaviest first */
            vec3 near, away;
            seg_nearest(m->positions[v], pos[j], tip[j], near);
            glm_vec3_sub(m->positions[v], near, away);
            if (glm_vec3_dot(away, m->normals[v]) > 0) out++;
        }
        CHECK_MSG(out >= n * 95 / 100, "mesh %d: %d of %d normals point away from the bones", i, out, n);
        free(parent);
        free(vol);
    }
}

TEST(clips_validate_and_loop_without_a_pop)
{
    static const struct { const char *name; int frames; } want[] = {
        {"idle", MR_MQ_IDLE_FRAMES}, {"walk", MR_MQ_WALK_FRAMES}, {"wave", MR_MQ_WAVE_FRAMES},
        {"run", MR_MQ_RUN_FRAMES}, {"walk_inplace", MR_MQ_WALK_FRAMES}, {"run_inplace", MR_MQ_RUN_FRAMES}};
    CHECK(model->clip_count == 6);
    for (int c = 0; c < 6; c++) {
        const mr_clip *clip = mr_model_find_clip(model, want[c].name);
        CHECK_MSG(clip != NULL, "no clip %s", want[c].name);
        if (!clip) continue;
        mr_error err = {0};
        CHECK_MSG(mr_clip_validate(clip, &err) == MR_OK, "%s", err.msg);
        CHECK(clip->rate == 30.0f);
        CHECK_NEAR(clip->duration, want[c].frames / 30.0, 1e-6);
        CHECK(mr_clip_key_count(clip) == want[c].frames + 1);
        /* walk and run travel: their last key is the first one a stride
         * ahead (+X, the pelvis translation), everything else the same. */
        double stride = !strcmp(want[c].name, "walk") ? MR_MQ_WALK_STRIDE
                        : !strcmp(want[c].name, "run") ? MR_MQ_RUN_STRIDE : 0.0;
        int same = 1;
        for (int j = 0; j < clip->joint_count; j++) {
            const mr_track *tr[3] = {&clip->tracks[j].t, &clip->tracks[j].r, &clip->tracks[j].s};
            for (int k = 0; k < 3; k++) {
                int n = tr[k]->key_count, comp = tr[k]->components;
                if (!n) continue;
                const float *first = tr[k]->values, *last = first + (size_t)(n - 1) * comp;
                if (k == 0 && j == 0) {
                    if (fabs(last[0] - first[0] - stride) > 1e-4 || last[1] != first[1] || last[2] != first[2])
                        same = 0;
                } else if (memcmp(first, last, comp * sizeof(float))) {
                    same = 0;
                }
            }
        }
        CHECK_MSG(same, "clip %s: last key differs from the first", want[c].name);
    }
    CHECK(model->clips[0]->duration >= 2.0f && model->clips[0]->duration <= 4.0f);
    CHECK(model->clips[1]->duration >= 1.0f && model->clips[1]->duration <= 1.2f);
}

/* Model-space matrices of the clip at time t. */
static void sample_model(const char *clip, float t, mr_pose *pose, mat4 *mats)
{
    mr_clip_sample(mr_model_find_clip(model, clip), &model->skeleton, t, MR_WRAP_LOOP, pose);
    mr_pose_to_model(&model->skeleton, pose, mats);
}

/* Lowest point of the skinned shoes mesh at the pose in mats. */
static float lowest_shoe(const mat4 *mats, int side_sign)
{
    mat4 skin[MR_MQ_JOINT_COUNT];
    mr_pose_skinning(&model->skeleton, mats, skin);
    const mr_mesh *m = &model->meshes[1];
    vec3 *p = calloc((size_t)m->vertex_count, sizeof *p), *n = calloc((size_t)m->vertex_count, sizeof *n);
    mr_mesh_skin(m, skin, p, n);
    float lo = 1e9f;
    for (int v = 0; v < m->vertex_count; v++)
        if (m->positions[v][1] * side_sign > 0 && p[v][2] < lo) lo = p[v][2];
    free(p);
    free(n);
    return lo;
}

TEST(walk_alternates_the_feet_and_plants_them)
{
    mr_pose pose;
    mr_pose_init(&pose, model->skeleton.joint_count);
    mat4 mats[MR_MQ_JOINT_COUNT];
    int fl = find("foot_l"), fr = find("foot_r"), pelvis = find("pelvis");
    enum { N = MR_MQ_WALK_FRAMES };
    float xl[N], xr[N], zl[N], zr[N], low_l[N], low_r[N];
    float lowest = 1e9f, bob_lo = 1e9f, bob_hi = -1e9f, root_x = 0;
    for (int i = 0; i < N; i++) {
        sample_model("walk_inplace", i / 30.0f, &pose, mats);
        xl[i] = mats[fl][3][0]; zl[i] = mats[fl][3][2];
        xr[i] = mats[fr][3][0]; zr[i] = mats[fr][3][2];
        low_l[i] = lowest_shoe(mats, 1);
        low_r[i] = lowest_shoe(mats, -1);
        lowest = fminf(lowest, fminf(low_l[i], low_r[i]));
        bob_lo = fminf(bob_lo, mats[pelvis][3][2]);
        bob_hi = fmaxf(bob_hi, mats[pelvis][3][2]);
        root_x = fmaxf(root_x, fabsf(pose.t[pelvis][0]));
    }
    /* The feet move in anti-phase: x of one is the other half a cycle on. */
    double cov = 0, vl = 0, vr = 0, ml = 0, mr = 0;
    for (int i = 0; i < N; i++) { ml += xl[i] / N; mr += xr[i] / N; }
    for (int i = 0; i < N; i++) {
        cov += (xl[i] - ml) * (xr[i] - mr);
        vl += (xl[i] - ml) * (xl[i] - ml);
        vr += (xr[i] - mr) * (xr[i] - mr);
    }
    CHECK(cov / sqrt(vl * vr) < -0.8);
    CHECK(sqrt(vl / N) > 6);  /* a real stride, not a shuffle */
    /* Left heel strikes at t = 0 ahead of the body, the right foot behind. */
    CHECK(xl[0] > 5 && xr[0] < -5);
    /* The left foot is on the ground from heel strike to toe off (frames
     * 0..20), flat with the ankle at its bind height from frame 4 to 14,
     * sliding back with the treadmill; meanwhile the right foot swings
     * clear (frames 7..13). Mirror image half a cycle later. */
    for (int i = 0; i <= 20; i++) CHECK_NEAR(low_l[i], 0.0, 0.05);
    for (int i = 4; i <= 14; i++) {
        CHECK_NEAR(zl[i], 3.0, 0.05);
        if (i > 4) CHECK(xl[i] < xl[i - 1]);
    }
    for (int i = 7; i <= 13; i++) CHECK(low_r[i] > 0.5f);
    for (int i = 17; i <= 32; i++) CHECK_NEAR(low_r[i], 0.0, 0.05);
    for (int i = 21; i <= 30; i++) CHECK_NEAR(zr[i], 3.0, 0.05);
    for (int i = 24; i <= 30; i++) CHECK(low_l[i] > 0.5f);
    CHECK(lowest > -0.05f);  /* never into the floor */
    CHECK(bob_hi - bob_lo > 0.8f && bob_hi - bob_lo < 2.5f);
    CHECK(root_x == 0.0f);  /* in place: no root motion forward */
    mr_pose_deinit(&pose);
}

/* walk and run travel: at every key the pose is the one in place with the
 * pelvis and feet carried forward (+X) by stride * t / duration, so a foot
 * flat on the floor stays still in model space while the body passes
 * over it. */
TEST(walk_and_run_travel_a_stride_per_cycle_over_planted_feet)
{
    static const struct { const char *go, *still; double stride; int frames; } gaits[] = {
        {"walk", "walk_inplace", MR_MQ_WALK_STRIDE, MR_MQ_WALK_FRAMES},
        {"run", "run_inplace", MR_MQ_RUN_STRIDE, MR_MQ_RUN_FRAMES}};
    mr_pose pa, pb;
    mr_pose_init(&pa, model->skeleton.joint_count);
    mr_pose_init(&pb, model->skeleton.joint_count);
    mat4 ma[MR_MQ_JOINT_COUNT], mb[MR_MQ_JOINT_COUNT];
    int fl = find("foot_l");
    for (int g = 0; g < 2; g++) {
        const mr_clip *go = mr_model_find_clip(model, gaits[g].go), *still = mr_model_find_clip(model, gaits[g].still);
        float worst = 0.0f, flat_move = 0.0f, last_x = 0.0f;
        for (int i = 0; i <= gaits[g].frames; i++) {
            float t = i / 30.0f;
            mr_clip_sample_keys(go, &model->skeleton, t, MR_WRAP_CLAMP, &pa);
            mr_clip_sample_keys(still, &model->skeleton, t, MR_WRAP_CLAMP, &pb);
            mr_pose_to_model(&model->skeleton, &pa, ma);
            mr_pose_to_model(&model->skeleton, &pb, mb);
            float ahead = (float)(gaits[g].stride * i / gaits[g].frames);
            for (int j = 0; j < MR_MQ_JOINT_COUNT; j++) {
                vec3 moved = {mb[j][3][0] + ahead, mb[j][3][1], mb[j][3][2]};
                worst = fmaxf(worst, glm_vec3_distance(moved, ma[j][3]));
            }
            /* The left ankle is flat on the floor from frame 4 to 14 of the
             * walk (walk_alternates_the_feet_and_plants_them). */
            if (g == 0 && i >= 4 && i <= 14) {
                if (i > 4) flat_move = fmaxf(flat_move, fabsf(ma[fl][3][0] - last_x));
                last_x = ma[fl][3][0];
            }
        }
        CHECK_MSG(worst < 1e-4f, "%s: differs from %s carried forward by %g in", gaits[g].go, gaits[g].still, worst);
        if (g == 0) CHECK_MSG(flat_move < 0.01f, "walk: the flat left foot moves %g in per frame", flat_move);
        CHECK_NEAR(go->tracks[0].t.values[3 * gaits[g].frames] - go->tracks[0].t.values[0], gaits[g].stride, 1e-4);
    }
    mr_pose_deinit(&pa);
    mr_pose_deinit(&pb);
}

TEST(idle_keeps_the_feet_planted)
{
    mr_pose pose;
    mr_pose_init(&pose, model->skeleton.joint_count);
    mat4 mats[MR_MQ_JOINT_COUNT];
    vec3 rest_l;
    joint_model_pos(&model->skeleton, find("foot_l"), rest_l);
    float drift = 0, chest_lo = 1e9f, chest_hi = -1e9f;
    for (int i = 0; i < MR_MQ_IDLE_FRAMES; i += 5) {
        sample_model("idle", i / 30.0f, &pose, mats);
        drift = fmaxf(drift, glm_vec3_distance(mats[find("foot_l")][3], rest_l));
        chest_lo = fminf(chest_lo, mats[find("neck")][3][2]);
        chest_hi = fmaxf(chest_hi, mats[find("neck")][3][2]);
    }
    CHECK(drift < 0.02f);
    CHECK(chest_hi - chest_lo > 0.05f);  /* it breathes */
    mr_pose_deinit(&pose);
}

TEST(wave_raises_the_right_hand_above_the_head_and_back)
{
    mr_pose pose;
    mr_pose_init(&pose, model->skeleton.joint_count);
    mat4 mats[MR_MQ_JOINT_COUNT];
    int hr = find("hand_r"), hl = find("hand_l"), head = find("head");
    sample_model("wave", 0.0f, &pose, mats);
    float start = mats[hr][3][2];
    CHECK(start < 45);
    float lo_y = 1e9f, hi_y = -1e9f;
    for (int i = 20; i <= 40; i++) {
        sample_model("wave", i / 30.0f, &pose, mats);
        CHECK(mats[hr][3][2] > mats[head][3][2] + 2);
        CHECK(mats[hl][3][2] < 45);
        lo_y = fminf(lo_y, mats[hr][3][1]);
        hi_y = fmaxf(hi_y, mats[hr][3][1]);
    }
    CHECK(hi_y - lo_y > 3);  /* it waves side to side */
    mr_pose_deinit(&pose);
}

TEST(build_is_deterministic)
{
    mr_model *again = NULL;
    mr_mannequin_build(&again);
    CHECK(again != NULL);
    if (!again) return;
    CHECK(again->mesh_count == model->mesh_count);
    for (int i = 0; i < model->mesh_count && i < again->mesh_count; i++) {
        const mr_mesh *a = &model->meshes[i], *b = &again->meshes[i];
        size_t n = (size_t)a->vertex_count;
        CHECK(a->vertex_count == b->vertex_count && a->index_count == b->index_count);
        if (a->vertex_count != b->vertex_count || a->index_count != b->index_count) continue;
        CHECK(!memcmp(a->positions, b->positions, n * sizeof *a->positions));
        CHECK(!memcmp(a->weights, b->weights, n * sizeof *a->weights));
        CHECK(!memcmp(a->joints, b->joints, n * sizeof *a->joints));
        CHECK(!memcmp(a->indices, b->indices, (size_t)a->index_count * sizeof *a->indices));
    }
    for (int c = 0; c < model->clip_count; c++) {
        const mr_clip *a = model->clips[c], *b = again->clips[c];
        for (int j = 0; j < a->joint_count; j++) {
            const mr_track *ta = &a->tracks[j].r, *tb = &b->tracks[j].r;
            CHECK(ta->key_count == tb->key_count);
            if (ta->key_count == tb->key_count)
                CHECK(!memcmp(ta->values, tb->values, (size_t)ta->key_count * 4 * sizeof(float)));
        }
    }
    mr_model_destroy(again);
}

TEST(committed_md5_files_read_back_as_the_built_model)
{
    static const char *const anims[] = {"models/idle.md5anim", "models/walk.md5anim",
                                        "models/wave.md5anim", "models/run.md5anim",
                                        "models/walk_inplace.md5anim", "models/run_inplace.md5anim"};
    mr_model *read = NULL;
    mr_error err = {0};
    CHECK_MSG(mr_load_model("models/mannequin.md5mesh", anims, 6, &read, &err) == MR_OK, "%s", err.msg);
    if (!read) return;
    const mr_skeleton *a = &model->skeleton, *b = &read->skeleton;
    CHECK(read->axes.up == MR_UP_Z);
    CHECK_MSG(read->warning_count == 0, "%s", read->warning_count ? read->warnings[0] : "");
    CHECK(b->joint_count == a->joint_count);
    if (b->joint_count != a->joint_count) goto done;
    float worst = 0;
    for (int j = 0; j < a->joint_count; j++) {
        CHECK(!strcmp(a->names[j], b->names[j]));
        CHECK(a->parents[j] == b->parents[j]);
        vec3 pa, pb;
        joint_model_pos(a, j, pa);
        joint_model_pos(b, j, pb);
        worst = fmaxf(worst, glm_vec3_distance(pa, pb));
    }
    CHECK_MSG(worst < 1e-4f, "joints moved by %g in", worst);
    CHECK(read->mesh_count == model->mesh_count);
    for (int i = 0; i < model->mesh_count && i < read->mesh_count; i++) {
        const mr_mesh *ma = &model->meshes[i], *mb = &read->meshes[i];
        /* MD5 keeps no colours: each mesh's colour is a texture written beside it. */
        CHECK(mb->material.diffuse_map && mr_file_exists(mb->material.diffuse_map));
        CHECK_STR_CONTAINS(mb->material.diffuse_map, "models/mannequin_");
        CHECK(ma->vertex_count == mb->vertex_count && ma->index_count == mb->index_count);
        if (ma->vertex_count != mb->vertex_count || ma->index_count != mb->index_count) continue;
        CHECK(!memcmp(ma->indices, mb->indices, (size_t)ma->index_count * sizeof *ma->indices));
        float dp = 0, dw = 0, duv = 0;
        for (int v = 0; v < ma->vertex_count; v++) {
            dp = fmaxf(dp, glm_vec3_distance(ma->positions[v], mb->positions[v]));
            duv = fmaxf(duv, fabsf(ma->uvs[v][0] - mb->uvs[v][0]) + fabsf(ma->uvs[v][1] - mb->uvs[v][1]));
            for (int j = 0; j < a->joint_count; j++)
                dw = fmaxf(dw, fabsf(weight_of(ma, v, j) - weight_of(mb, v, j)));
        }
        CHECK_MSG(dp < 1e-4f, "mesh %d: vertices moved by %g in", i, dp);
        CHECK_MSG(dw < 1e-5f, "mesh %d: weights differ by %g", i, dw);
        CHECK_MSG(duv < 1e-6f, "mesh %d: uvs differ by %g", i, duv);
    }
    /* Every key of every clip gives the same joints in model space. */
    CHECK(read->clip_count == model->clip_count);
    mr_pose pa, pb;
    mr_pose_init(&pa, a->joint_count);
    mr_pose_init(&pb, a->joint_count);
    mat4 wa[MR_MQ_JOINT_COUNT], wb[MR_MQ_JOINT_COUNT];
    for (int c = 0; c < model->clip_count; c++) {
        const mr_clip *ca = model->clips[c], *cb = mr_model_find_clip(read, ca->name);
        CHECK_MSG(cb != NULL, "no clip %s read back", ca->name);
        if (!cb) continue;
        CHECK_NEAR(cb->duration, ca->duration, 1e-6);
        CHECK(cb->rate == ca->rate);
        CHECK(mr_clip_key_count(cb) == mr_clip_key_count(ca));
        float dj = 0, dr = 0;
        for (int k = 0; k < mr_clip_key_count(ca); k++) {
            float t = (float)k / ca->rate;
            mr_clip_sample_keys(ca, a, t, MR_WRAP_CLAMP, &pa);
            mr_clip_sample_keys(cb, b, t, MR_WRAP_CLAMP, &pb);
            mr_pose_to_model(a, &pa, wa);
            mr_pose_to_model(b, &pb, wb);
            for (int j = 0; j < a->joint_count; j++) {
                dj = fmaxf(dj, glm_vec3_distance(wa[j][3], wb[j][3]));
                for (int col = 0; col < 3; col++)
                    for (int row = 0; row < 3; row++)
                        dr = fmaxf(dr, fabsf(wa[j][col][row] - wb[j][col][row]));
            }
        }
        /* The keys the files hold against the built ones (the runtimes are
         * packed: each within 1e-4 of the size of its keys). */
        CHECK_MSG(dj < 1e-4f && dr < 1e-5f, "clip %s: joints differ by %g in, rotations by %g", ca->name, dj, dr);
    }
    mr_pose_deinit(&pa);
    mr_pose_deinit(&pb);
done:
    mr_model_destroy(read);
}

/* The run: about 0.7 s, the walk's foot phases (left foot lands at t = 0
 * ahead of the body, the right half a cycle later), a flight phase with
 * both feet off the ground, a longer stride than the walk, the feet never
 * below the floor. */
TEST(run_has_the_walks_foot_phases_and_a_flight_phase)
{
    mr_pose pose;
    mr_pose_init(&pose, model->skeleton.joint_count);
    mat4 mats[MR_MQ_JOINT_COUNT];
    int fl = find("foot_l"), fr = find("foot_r");
    enum { N = MR_MQ_RUN_FRAMES };
    float xl[N], xr[N], low_l[N], low_r[N], lowest = 1e9f;
    int flight = 0;
    for (int i = 0; i < N; i++) {
        sample_model("run_inplace", i / 30.0f, &pose, mats);
        xl[i] = mats[fl][3][0];
        xr[i] = mats[fr][3][0];
        low_l[i] = lowest_shoe(mats, 1);
        low_r[i] = lowest_shoe(mats, -1);
        lowest = fminf(lowest, fminf(low_l[i], low_r[i]));
        if (low_l[i] > 0.3f && low_r[i] > 0.3f) flight++;
    }
    CHECK_NEAR(mr_model_find_clip(model, "run")->duration, 0.7, 1e-6);
    CHECK_NEAR(low_l[0], 0.0, 0.3);                 /* the left foot lands at t = 0 */
    CHECK(xl[0] > xr[0]);                           /* ahead of the right one */
    CHECK_NEAR(low_r[(N + 1) / 2], 0.0, 0.3);       /* the right one half a cycle on */
    CHECK_MSG(flight >= 2, "%d frames with both feet off the ground", flight);
    float min_x = 1e9f, max_x = -1e9f;
    for (int i = 0; i < N; i++) { min_x = fminf(min_x, xl[i]); max_x = fmaxf(max_x, xl[i]); }
    CHECK_MSG(max_x - min_x > 22.0f, "stride %g in", max_x - min_x);
    CHECK(lowest > -0.1f);
    mr_pose_deinit(&pose);
}

/* The sword prop: one joint, a steel blade and a hilt, closed surfaces,
 * about 37 in long along +X, every vertex on joint 0. */
TEST(sword_is_a_one_joint_prop_with_blade_and_hilt)
{
    mr_model *s = NULL;
    mr_mannequin_sword(&s);
    CHECK(s != NULL);
    if (!s) return;
    CHECK(s->skeleton.joint_count == 1 && !strcmp(s->skeleton.names[0], "sword"));
    CHECK(s->mesh_count == 2 && !strcmp(s->meshes[0].name, "blade") && !strcmp(s->meshes[1].name, "hilt"));
    vec3 lo, hi;
    CHECK(mr_model_bounds(s, lo, hi));
    CHECK(hi[0] - lo[0] > 35.0f && hi[0] - lo[0] < 40.0f);
    CHECK(hi[1] - lo[1] < 2.0f && hi[2] - lo[2] > 6.0f);
    int on_joint = 1;
    for (int i = 0; i < s->mesh_count; i++)
        for (int v = 0; v < s->meshes[i].vertex_count; v++)
            if (s->meshes[i].joints[v][0] != 0 || s->meshes[i].weights[v][0] != 1.0f) on_joint = 0;
    CHECK(on_joint);
    CHECK(s->meshes[0].material.diffuse[2] > 0.75f);   /* steel: light, slightly blue */
    mr_model *read = NULL;
    mr_error err = {0};
    CHECK_MSG(mr_load_model("models/sword.md5mesh", NULL, 0, &read, &err) == MR_OK, "%s", err.msg);
    if (read) {
        int va, ta, vb, tb;
        mr_model_counts(s, &va, &ta);
        mr_model_counts(read, &vb, &tb);
        CHECK(va == vb && ta == tb && read->skeleton.joint_count == 1);
        mr_model_destroy(read);
    }
    mr_model_destroy(s);
}

TEST(unknown_clip_name_is_an_invalid_argument)
{
    mr_clip *c = (mr_clip *)&c;        /* *out is cleared on failure */
    CHECK(mr_mannequin_clip(&model->skeleton, "sprint", &c) == MR_ERR_INVALID_ARGUMENT && c == NULL);
    CHECK(mr_mannequin_clip(&model->skeleton, NULL, &c) == MR_ERR_INVALID_ARGUMENT && c == NULL);
    CHECK(mr_mannequin_clip(&model->skeleton, "wave", &c) == MR_OK && c != NULL);
    mr_clip_destroy(c);
}

int main(void)
{
    mr_mannequin_build(&model);
    if (!model) {
        printf("mannequin: could not build the model\nmannequin: 0 passed, 1 failed\n");
        return 1;
    }
    RUN(skeleton_has_conventional_joints_parents_first);
    RUN(stands_on_the_ground_about_70_inches_tall_facing_x);
    RUN(two_skinned_untextured_meshes_with_colours);
    RUN(weights_sum_to_one_with_at_most_four_influences);
    RUN(knee_and_elbow_blend_their_two_bones);
    RUN(surfaces_are_closed_and_consistently_wound);
    RUN(normals_point_away_from_the_bones);
    RUN(clips_validate_and_loop_without_a_pop);
    RUN(walk_alternates_the_feet_and_plants_them);
    RUN(walk_and_run_travel_a_stride_per_cycle_over_planted_feet);
    RUN(idle_keeps_the_feet_planted);
    RUN(wave_raises_the_right_hand_above_the_head_and_back);
    RUN(build_is_deterministic);
    RUN(committed_md5_files_read_back_as_the_built_model);
    RUN(run_has_the_walks_foot_phases_and_a_flight_phase);
    RUN(sword_is_a_one_joint_prop_with_blade_and_hilt);
    RUN(unknown_clip_name_is_an_invalid_argument);
    mr_model_destroy(model);
    return test_summary("mannequin");
}
