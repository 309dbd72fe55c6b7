/* test_retarget.c — joint maps (anim/joint_map.c) and retargeting
 * (anim/retarget.c): names across rig conventions, a clip onto its own
 * skeleton, onto copies with other joint axes, scale and frame, and the
 * feet held on contacts. */
#include <stdlib.h>

#include "anim/axes.h"
#include "anim/retarget.h"
#include "formats/load.h"
#include "test.h"

#define BOB_DIR SHARED_MODELS "assimp/test/models-nonbsd/MD5/"
#define ASTRO_DAE SHARED_MODELS "lab101-bonesAssimpTest/bin/data/astroBoy_walk.dae"

static mr_model *load_mannequin(void)
{
    static const char *const anims[] = {"models/walk.md5anim", "models/wave.md5anim", "models/run.md5anim",
                                        "models/walk_inplace.md5anim", "models/run_inplace.md5anim"};
    mr_model *m = NULL;
    mr_error e = {0};
    if (mr_load_model("models/mannequin.md5mesh", anims, 5, &m, &e) != MR_OK) {
        printf("       cannot load the mannequin: %s\n", e.msg);
        return NULL;
    }
    return m;
}

static mr_model *load_optional(const char *path, const char *anim)
{
    mr_model *m = NULL;
    mr_error e = {0};
    const char *anims[1] = {anim};
    if (mr_load_model(path, anims, anim ? 1 : 0, &m, &e) != MR_OK) {
        printf("       skipped: %s\n", e.msg);
        return NULL;
    }
    return m;
}

/* A model holding a copy of src's skeleton (no meshes, no clips). */
static mr_model *skeleton_model(const mr_model *src)
{
    mr_model *m = NULL;
    mr_model_create("copy", "test", &m);
    if (!m) return NULL;
    if (mr_skeleton_copy(&m->skeleton, &src->skeleton) != MR_OK) {
        mr_model_destroy(m);
        return NULL;
    }
    m->axes = src->axes;
    return m;
}

/* Model-space joint matrices of clip at time t, in metres and Y-up
 * (marrow's world), so models in different frames compare. */
static void world_joints(const mr_model *m, const mr_clip *clip, float t, mat4 *out)
{
    mr_pose p = {0};
    mr_pose_init(&p, m->skeleton.joint_count);
    if (clip) mr_clip_sample(clip, &m->skeleton, t, MR_WRAP_CLAMP, &p);
    else mr_pose_set_rest(&p, &m->skeleton);
    mat4 *model = malloc(sizeof(mat4) * (size_t)m->skeleton.joint_count);
    mr_pose_to_model(&m->skeleton, &p, model);
    mat4 disp;
    mr_model_display_matrix(m, disp);
    for (int j = 0; j < m->skeleton.joint_count; j++) glm_mat4_mul(disp, model[j], out[j]);
    free(model);
    mr_pose_deinit(&p);
}

static float angle_deg(const vec3 a, const vec3 b)
{
    vec3 c;
    glm_vec3_cross((float *)a, (float *)b, c);
    return atan2f(glm_vec3_norm(c), glm_vec3_dot((float *)a, (float *)b)) * 180.0f / GLM_PIf;
}

/* ---- names ------------------------------------------------------------------ */

TEST(joint_role_of_reads_every_convention)
{
    static const struct { const char *name; mr_joint_role role; mr_joint_side side; } cases[] = {
        {"mixamorig:LeftUpLeg", MR_ROLE_THIGH, MR_SIDE_LEFT},
        {"mixamorig:RightForeArm", MR_ROLE_FOREARM, MR_SIDE_RIGHT},
        {"mixamorig:Hips", MR_ROLE_HIPS, MR_SIDE_CENTRE},
        {"mixamorig:Spine2", MR_ROLE_SPINE, MR_SIDE_CENTRE},
        {"LeftLeg", MR_ROLE_CALF, MR_SIDE_LEFT},
        {"LeftFoot", MR_ROLE_FOOT, MR_SIDE_LEFT},
        {"RightToeBase", MR_ROLE_TOE, MR_SIDE_RIGHT},
        {"LeftArm", MR_ROLE_UPPERARM, MR_SIDE_LEFT},
        {"LeftHand", MR_ROLE_HAND, MR_SIDE_LEFT},
        {"LowerBack", MR_ROLE_SPINE, MR_SIDE_CENTRE},
        {"Neck1", MR_ROLE_NECK, MR_SIDE_CENTRE},
        {"Head", MR_ROLE_HEAD, MR_SIDE_CENTRE},
        {"upperarm.L", MR_ROLE_UPPERARM, MR_SIDE_LEFT},
        {"forearm.R", MR_ROLE_FOREARM, MR_SIDE_RIGHT},
        {"shin.L", MR_ROLE_CALF, MR_SIDE_LEFT},
        {"wrist.R", MR_ROLE_HAND, MR_SIDE_RIGHT},
        {"thigh_l", MR_ROLE_THIGH, MR_SIDE_LEFT},
        {"calf_r", MR_ROLE_CALF, MR_SIDE_RIGHT},
        {"ball_l", MR_ROLE_TOE, MR_SIDE_LEFT},
        {"clavicle_r", MR_ROLE_CLAVICLE, MR_SIDE_RIGHT},
        {"spine_03", MR_ROLE_SPINE, MR_SIDE_CENTRE},
        {"L_hip", MR_ROLE_THIGH, MR_SIDE_LEFT},
        {"R_knee_01", MR_ROLE_CALF, MR_SIDE_RIGHT},
        {"L_ankle", MR_ROLE_FOOT, MR_SIDE_LEFT},
        {"L_toeBall", MR_ROLE_TOE, MR_SIDE_LEFT},
        {"neck01e", MR_ROLE_NECK, MR_SIDE_CENTRE},
        {"Bip01 L Thigh", MR_ROLE_THIGH, MR_SIDE_LEFT},
        {"foot_left", MR_ROLE_FOOT, MR_SIDE_LEFT},
        {"hips", MR_ROLE_HIPS, MR_SIDE_CENTRE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mr_joint_side side;
        mr_joint_role r = mr_joint_role_of(cases[i].name, &side, NULL);
        CHECK_MSG(r == cases[i].role && side == cases[i].side, "%s: role %d side %d, expected %d %d",
                  cases[i].name, r, side, cases[i].role, cases[i].side);
    }
    /* Words inside other names are not roles. */
    static const char *const none[] = {"headEnd", "HeadTop_End", "LeftHandIndex1", "upperarm_twist_01_l",
                                       "tiptoe.R", "L_toeEnd", "LHipJoint", "origin", "sword", "L_bicep",
                                       "spine.L", "thigh"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        CHECK_MSG(mr_joint_role_of(none[i], NULL, NULL) == MR_ROLE_NONE, "%s has a role", none[i]);
    int amb = 0;
    CHECK(mr_joint_role_of("LeftShoulder", NULL, &amb) == MR_ROLE_CLAVICLE && amb == 1);
}

static int mapped_to(const mr_joint_map *map, const mr_skeleton *s, const mr_skeleton *t, const char *sn,
                     const char *tn)
{
    int tj = mr_skeleton_find(t, tn), sj = mr_skeleton_find(s, sn);
    return tj >= 0 && sj >= 0 && map->source_of[tj] == sj;
}

TEST(joint_map_auto_pairs_mannequin_bob_and_astroboy)
{
    mr_model *man = load_mannequin();
    mr_model *bob = load_optional(BOB_DIR "Bob.md5mesh", NULL);
    mr_model *astro = load_optional(ASTRO_DAE, NULL);
    CHECK(man != NULL);
    mr_error e = {0};
    if (man && bob) {
        mr_joint_map map;
        CHECK(mr_joint_map_auto(&map, &man->skeleton, &bob->skeleton, &e) == MR_OK);
        const mr_skeleton *s = &man->skeleton, *t = &bob->skeleton;
        CHECK(mapped_to(&map, s, t, "pelvis", "pelvis"));
        CHECK(mapped_to(&map, s, t, "spine_03", "spine"));   /* a chain of one takes the top */
        /* Bob's left-named joints lie on his right (he faces -Y, thigh.L is
         * at -X): sides are paired by body */
        CHECK(map.swapped_sides == 1);
        CHECK(mapped_to(&map, s, t, "upperarm_l", "upperarm.R"));
        CHECK(mapped_to(&map, s, t, "lowerarm_r", "forearm.L"));
        CHECK(mapped_to(&map, s, t, "hand_l", "wrist.R"));
        CHECK(mapped_to(&map, s, t, "thigh_r", "thigh.L"));
        CHECK(mapped_to(&map, s, t, "calf_l", "shin.R"));
        CHECK(mapped_to(&map, s, t, "foot_l", "ankle.R"));
        CHECK(mapped_to(&map, s, t, "ball_r", "toe.L"));
        CHECK(mapped_to(&map, s, t, "head", "head"));
        CHECK(map.source_of[mr_skeleton_find(t, "origin")] < 0);
        CHECK(map.source_of[mr_skeleton_find(t, "tiptoe.L")] < 0);
        CHECK(mr_joint_map_count(&map) == 18);  /* Bob has no clavicles and one spine joint */
        char *report = mr_joint_map_report(&map, s, t);
        CHECK_STR_CONTAINS(report, "upperarm.L <- upperarm_r (upperarm, left)");
        CHECK_STR_CONTAINS(report, "left and right names are mirrored");
        CHECK_STR_CONTAINS(report, "unmapped target joints (keep their rest pose): origin sheath sword pubis");
        free(report);
        mr_joint_map_deinit(&map);
    }
    if (man && astro) {
        mr_joint_map map;
        CHECK(mr_joint_map_auto(&map, &man->skeleton, &astro->skeleton, &e) == MR_OK);
        const mr_skeleton *s = &man->skeleton, *t = &astro->skeleton;
        CHECK(map.swapped_sides == 0);
        CHECK(mapped_to(&map, s, t, "pelvis", "hips"));
        CHECK(mapped_to(&map, s, t, "spine_01", "spine01"));
        CHECK(mapped_to(&map, s, t, "spine_03", "spine02"));
        CHECK(mapped_to(&map, s, t, "neck", "neck01e"));
        CHECK(mapped_to(&map, s, t, "clavicle_l", "L_clavicle"));
        CHECK(mapped_to(&map, s, t, "upperarm_l", "L_shoulder"));  /* a clavicle exists: shoulder is the arm */
        CHECK(mapped_to(&map, s, t, "lowerarm_l", "L_elbow"));     /* over the twist joint L_forearm */
        CHECK(mapped_to(&map, s, t, "hand_r", "R_wrist"));
        CHECK(mapped_to(&map, s, t, "thigh_l", "L_hip"));
        CHECK(mapped_to(&map, s, t, "calf_l", "L_knee_01"));
        CHECK(mapped_to(&map, s, t, "foot_r", "R_ankle"));
        CHECK(mapped_to(&map, s, t, "ball_r", "R_toeBall"));
        mr_joint_map_deinit(&map);
    }
    mr_model_destroy(man);
    mr_model_destroy(bob);
    mr_model_destroy(astro);
}

TEST(joint_map_pairs_rejects_unknown_and_repeated_names)
{
    mr_model *man = load_mannequin();
    if (!man) { CHECK(man != NULL); return; }
    mr_joint_map map;
    mr_error e = {0};
    const char *good[] = {"pelvis", "pelvis", "head", "head"};
    CHECK(mr_joint_map_pairs(&map, &man->skeleton, &man->skeleton, good, 2, &e) == MR_OK);
    CHECK(mr_joint_map_count(&map) == 2);
    mr_joint_map_deinit(&map);
    const char *bad_src[] = {"nope", "pelvis"};
    CHECK(mr_joint_map_pairs(&map, &man->skeleton, &man->skeleton, bad_src, 1, &e) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(e.msg, "'nope' is not a joint of the source skeleton");
    CHECK(map.source_of == NULL);
    const char *bad_dst[] = {"pelvis", "nope"};
    CHECK(mr_joint_map_pairs(&map, &man->skeleton, &man->skeleton, bad_dst, 1, &e) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(e.msg, "'nope' is not a joint of the target skeleton");
    const char *twice[] = {"pelvis", "head", "neck", "head"};
    CHECK(mr_joint_map_pairs(&map, &man->skeleton, &man->skeleton, twice, 2, &e) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(e.msg, "target joint 'head' is given twice");
    mr_model_destroy(man);
}

/* ---- retargeting ------------------------------------------------------------ */

/* Largest difference between two clips of one skeleton over [0, duration]
 * sampled at n times (keys and between): local rotations (as quaternions,
 * sign-free) and translations (in metres). */
static void clip_difference(const mr_model *m, const mr_clip *a, const mr_clip *b, int n, double *rot,
                            double *pos)
{
    const mr_skeleton *sk = &m->skeleton;
    mr_pose pa = {0}, pb = {0};
    mr_pose_init(&pa, sk->joint_count);
    mr_pose_init(&pb, sk->joint_count);
    *rot = *pos = 0;
    for (int i = 0; i <= n; i++) {
        float t = a->duration * (float)i / (float)n;
        mr_clip_sample_keys(a, sk, t, MR_WRAP_CLAMP, &pa);
        mr_clip_sample_keys(b, sk, t, MR_WRAP_CLAMP, &pb);
        for (int j = 0; j < sk->joint_count; j++) {
            float d = glm_vec4_dot(pa.r[j], pb.r[j]);
            float sgn = d < 0 ? -1.0f : 1.0f;
            for (int k = 0; k < 4; k++) *rot = fmax(*rot, fabs(pa.r[j][k] - sgn * pb.r[j][k]));
            for (int k = 0; k < 3; k++)
                *pos = fmax(*pos, fabs(pa.t[j][k] - pb.t[j][k]) * m->axes.meters_per_unit);
        }
    }
    mr_pose_deinit(&pa);
    mr_pose_deinit(&pb);
}

TEST(retarget_clip_onto_its_own_skeleton_gives_it_back)
{
    mr_model *man = load_mannequin();
    if (!man) { CHECK(man != NULL); return; }
    mr_joint_map map;
    mr_error e = {0};
    CHECK(mr_joint_map_auto(&map, &man->skeleton, &man->skeleton, &e) == MR_OK);
    CHECK(mr_joint_map_count(&map) == man->skeleton.joint_count);
    for (int c = 0; c < man->clip_count; c++) {
        mr_clip *out = NULL;
        mr_retarget_info info;
        CHECK(mr_retarget_clip(man->clips[c], man, man, &map, NULL, &out, &info, &e) == MR_OK);
        if (!out) continue;
        /* the source's slerp budget (a model's clips have one, clip_runtime.h), so both
         * sample with the same refinement */
        CHECK(mr_clip_set_max_angle(out, man->clips[c]->runtime->max_angle) == MR_OK);
        mr_clip_finish(out);
        double rot, pos;
        clip_difference(man, man->clips[c], out, 397, &rot, &pos);
        printf("       %s: rotation %.2g, translation %.2g m, scale %g\n", man->clips[c]->name, rot, pos,
               info.scale);
        CHECK_MSG(rot < 1e-5 && pos < 1e-5, "%s differs by %g (rotation), %g m", man->clips[c]->name, rot, pos);
        CHECK_NEAR(info.scale, 1.0, 1e-6);
        CHECK(info.keys >= mr_clip_key_count(man->clips[c]));
        mr_clip_destroy(out);
    }
    mr_joint_map_deinit(&map);
    mr_model_destroy(man);
}

static unsigned rng_state = 12345;
static float rnd(void)
{
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(rng_state >> 8) / (float)(1u << 24);
}

/* A copy of m's skeleton whose joints' rest frames are turned by a random
 * rotation each (children's offsets and rotations compensated), uniformly
 * scaled by s, kept in frame `frame`: the same shape in other numbers. */
static mr_model *reshaped_copy(const mr_model *m, float s, int turn, mr_axes frame)
{
    mr_model *c = skeleton_model(m);
    if (!c) return NULL;
    mr_skeleton *sk = &c->skeleton;
    versor *o = malloc(sizeof(versor) * (size_t)sk->joint_count);
    for (int j = 0; j < sk->joint_count; j++) {
        vec3 axis = {rnd() - 0.5f, rnd() - 0.5f, rnd() - 0.5f};
        glm_vec3_normalize(axis);
        if (turn) glm_quatv(o[j], (0.3f + rnd()) * 2.0f, axis);
        else glm_quat_identity(o[j]);
    }
    for (int j = 0; j < sk->joint_count; j++) {
        int p = sk->parents[j];
        versor r = GLM_QUAT_IDENTITY_INIT, pinv;
        /* new local = O_p^-1 * old local * O_j ; offset in the parent's new frame */
        if (p >= 0) {
            glm_quat_inv(o[p], pinv);
            glm_quat_mul(pinv, sk->rest_r[j], r);
            glm_quat_rotatev(pinv, sk->rest_t[j], sk->rest_t[j]);
        } else {
            glm_quat_copy(sk->rest_r[j], r);
        }
        glm_quat_mul(r, o[j], sk->rest_r[j]);
        glm_quat_normalize(sk->rest_r[j]);
        glm_vec3_scale(sk->rest_t[j], s, sk->rest_t[j]);
    }
    free(o);
    mr_skeleton_compute_inverse_bind(sk);
    mr_error e = {0};
    mr_axes_convert_model(c, frame, &e);
    return c;
}

/* Retargets clip from m onto copy and compares world-space bone directions
 * and the root's path (scaled by s) at n times. */
static void check_same_motion(const mr_model *m, const mr_clip *clip, const mr_model *copy, float s,
                              int feet, double *max_angle, double *max_root)
{
    mr_joint_map map;
    mr_error e = {0};
    mr_clip *out = NULL;
    *max_angle = *max_root = 1e9;
    if (mr_joint_map_auto(&map, &m->skeleton, &copy->skeleton, &e) != MR_OK) return;
    mr_retarget_opts opts = {.feet = feet};
    mr_retarget_info info;
    if (mr_retarget_clip(clip, m, copy, &map, &opts, &out, &info, &e) != MR_OK) {
        printf("       %s\n", e.msg);
        mr_joint_map_deinit(&map);
        return;
    }
    mr_clip_finish(out);
    CHECK_NEAR(info.scale, s, 1e-4 * s);
    int n = m->skeleton.joint_count;
    mat4 *a = malloc(sizeof(mat4) * (size_t)n), *b = malloc(sizeof(mat4) * (size_t)n);
    mat4 *a0 = malloc(sizeof(mat4) * (size_t)n), *b0 = malloc(sizeof(mat4) * (size_t)n);
    world_joints(m, NULL, 0, a0);
    world_joints(copy, NULL, 0, b0);
    *max_angle = *max_root = 0;
    for (int i = 0; i <= 211; i++) {
        float t = clip->duration * (float)i / 211.0f;
        world_joints(m, clip, t, a);
        world_joints(copy, out, t, b);
        for (int j = 0; j < n; j++) {
            int p = m->skeleton.parents[j];
            if (p < 0) continue;
            vec3 da, db;
            glm_vec3_sub(a[j][3], a[p][3], da);
            glm_vec3_sub(b[j][3], b[p][3], db);
            if (glm_vec3_norm(da) < 1e-4f) continue;
            *max_angle = fmax(*max_angle, angle_deg(da, db));
        }
        vec3 pa, pb;
        glm_vec3_scale(a[0][3], s, pa);
        glm_vec3_copy(b[0][3], pb);
        *max_root = fmax(*max_root, glm_vec3_distance(pa, pb));
    }
    free(a); free(b); free(a0); free(b0);
    mr_clip_destroy(out);
    mr_joint_map_deinit(&map);
}

TEST(retarget_onto_turned_axes_scaled_and_reframed_copies_keeps_world_directions)
{
    mr_model *man = load_mannequin();
    if (!man) { CHECK(man != NULL); return; }
    const mr_axes same = man->axes, yup = {MR_UP_Y, 1.0f};
    struct { float s; int turn; mr_axes frame; const char *what; } cases[] = {
        {1.0f, 1, same, "turned joint axes"},
        {1.7f, 0, same, "scaled 1.7"},
        {0.45f, 1, same, "turned and scaled 0.45"},
        {1.0f, 1, yup, "turned, Y-up metres"},
        {2.5f, 1, yup, "turned, scaled 2.5, Y-up metres"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mr_model *copy = reshaped_copy(man, cases[k].s, cases[k].turn, cases[k].frame);
        for (int c = 0; copy && c < man->clip_count; c++) {
            double ang, root;
            check_same_motion(man, man->clips[c], copy, cases[k].s, 0, &ang, &root);
            printf("       %s, %s: %.3g degrees, root path %.3g m\n", cases[k].what, man->clips[c]->name, ang,
                   root);
            CHECK_MSG(ang < 0.5, "%s, %s: bones turn %g degrees apart", cases[k].what, man->clips[c]->name, ang);
            CHECK_MSG(root < 1e-4 * cases[k].s, "%s, %s: root path off by %g m", cases[k].what,
                      man->clips[c]->name, root);
        }
        mr_model_destroy(copy);
    }
    mr_model_destroy(man);
}

/* The farthest the held joint strays during each contact, as a fraction of
 * the target's leg, sampled at 240 Hz (keys and between). */
static double contact_slide(const mr_model *target, const mr_clip *out, const mr_retarget_info *info,
                            const vec3 ground_velocity, int *contacts)
{
    int n = target->skeleton.joint_count;
    mat4 *m = malloc(sizeof(mat4) * (size_t)n);
    double leg = mr_retarget_leg_length(&target->skeleton) * target->axes.meters_per_unit, worst = 0;
    *contacts = 0;
    for (int k = 0; k < info->contact_count && k < MR_RETARGET_MAX_CONTACTS; k++) {
        const mr_retarget_contact *ct = &info->contacts[k];
        vec3 first = {0, 0, 0}, vg;
        mat4 disp;
        mr_model_display_matrix(target, disp);
        glm_mat4_mulv3(disp, (float *)ground_velocity, 0.0f, vg);   /* to world, like the joints */
        int steps = (int)ceilf((ct->end - ct->start) * 240.0f);
        if (steps < 1) steps = 1;
        for (int i = 0; i <= steps; i++) {
            float dt = (ct->end - ct->start) * (float)i / (float)steps;
            world_joints(target, out, ct->start + dt, m);
            vec3 on_ground;   /* where the foot is on the moving ground */
            glm_vec3_copy(m[ct->joint][3], on_ground);
            glm_vec3_muladds(vg, -dt, on_ground);
            if (i == 0) glm_vec3_copy(on_ground, first);
            worst = fmax(worst, glm_vec3_distance(first, on_ground) / leg);
        }
        (*contacts)++;
    }
    free(m);
    return worst;
}

/* The ground's velocity under the source's feet, measured on its own: the
 * left foot's motion over the middle half of its longest time at (within
 * 1 % of a leg of) its lowest point, horizontal part, model units per
 * second. Zero for clips that move their root; the treadmill for in place. */
static void source_ground_velocity(const mr_model *m, const mr_clip *clip, vec3 out)
{
    const mr_skeleton *sk = &m->skeleton;
    int foot = mr_skeleton_find(sk, "foot_l"), up = m->axes.up == MR_UP_Z ? 2 : 1;
    enum { N = 400 };
    static vec3 p[N + 1];
    mr_pose pose = {0};
    mr_pose_init(&pose, sk->joint_count);
    mat4 *mm = malloc(sizeof(mat4) * (size_t)sk->joint_count);
    float lowest = INFINITY, leg = mr_retarget_leg_length(sk);
    for (int i = 0; i <= N; i++) {
        mr_clip_sample(clip, sk, clip->duration * (float)i / N, MR_WRAP_CLAMP, &pose);
        mr_pose_to_model(sk, &pose, mm);
        glm_vec3_copy(mm[foot][3], p[i]);
        lowest = fminf(lowest, p[i][up]);
    }
    int best_a = 0, best_n = 0;
    for (int i = 0; i <= N;) {
        if (p[i][up] > lowest + 0.01f * leg) { i++; continue; }
        int a = i;
        while (i <= N && p[i][up] <= lowest + 0.01f * leg) i++;
        if (i - a > best_n) { best_n = i - a; best_a = a; }
    }
    int a = best_a + best_n / 4, b = best_a + 3 * best_n / 4;
    glm_vec3_zero(out);
    if (b > a) {
        glm_vec3_sub(p[b], p[a], out);
        glm_vec3_scale(out, 1.0f / (clip->duration * (float)(b - a) / N), out);
        out[up] = 0;
    }
    free(mm);
    mr_pose_deinit(&pose);
}

/* A mannequin with longer shins and shorter thighs: its feet slide when it
 * plays the mannequin's walk by forward kinematics alone. */
static mr_model *long_shins(const mr_model *man)
{
    mr_model *c = skeleton_model(man);
    if (!c) return NULL;
    mr_skeleton *sk = &c->skeleton;
    const char *calves[] = {"calf_l", "calf_r"}, *feet[] = {"foot_l", "foot_r"};
    for (int i = 0; i < 2; i++) {
        glm_vec3_scale(sk->rest_t[mr_skeleton_find(sk, calves[i])], 0.8f, sk->rest_t[mr_skeleton_find(sk, calves[i])]);
        glm_vec3_scale(sk->rest_t[mr_skeleton_find(sk, feet[i])], 1.35f, sk->rest_t[mr_skeleton_find(sk, feet[i])]);
    }
    mr_skeleton_compute_inverse_bind(sk);
    return c;
}

TEST(retarget_feet_hold_planted_feet_within_one_percent_of_the_leg)
{
    mr_model *man = load_mannequin();
    if (!man) { CHECK(man != NULL); return; }
    mr_model *targets[2] = {long_shins(man), load_optional(BOB_DIR "Bob.md5mesh", NULL)};
    const char *names[2] = {"long shins", "Bob"};
    /* In-place clips: the ground moves under the feet, and the retargeter's
     * treadmill must agree with the one measured here. The authored
     * travelling walk is the next test's. */
    const char *clips[] = {"walk_inplace", "run_inplace"};
    for (int k = 0; k < 2; k++) {
        if (!targets[k]) continue;
        for (int c = 0; c < 2; c++) {
            mr_clip *walk = mr_model_find_clip(man, clips[c]);
            CHECK(walk != NULL);
            if (!walk) continue;
            mr_joint_map map;
            mr_error e = {0};
            CHECK(mr_joint_map_auto(&map, &man->skeleton, &targets[k]->skeleton, &e) == MR_OK);
            vec3 ground;
            source_ground_velocity(man, walk, ground);
            double slide[2];
            int contacts[2];
            mr_retarget_info info[2];
            for (int feet = 0; feet < 2; feet++) {
                mr_clip *out = NULL;
                mr_retarget_opts opts = {.feet = 1};
                CHECK(mr_retarget_clip(walk, man, targets[k], &map, &opts, &out, &info[feet], &e) == MR_OK);
                if (!out) { slide[feet] = 1; contacts[feet] = 0; continue; }
                if (!feet) {
                    /* the same contacts, measured on a clip retargeted without IK */
                    mr_clip *fk = NULL;
                    mr_retarget_opts none = {0};
                    CHECK(mr_retarget_clip(walk, man, targets[k], &map, &none, &fk, NULL, &e) == MR_OK);
                    mr_clip_destroy(out);
                    out = fk;
                }
                mr_clip_finish(out);
                vec3 target_ground;
                glm_vec3_scale(ground, info[feet].scale, target_ground);
                slide[feet] = contact_slide(targets[k], out, &info[feet], target_ground, &contacts[feet]);
                mr_clip_destroy(out);
            }
            printf("       %s, %s: %d contacts, planted foot moves %.3g %% of the leg (%.3g %% without IK), %d "
                   "unreached, ground %.3g %.3g %.3g (measured %.3g %.3g %.3g)\n",
                   names[k], clips[c], contacts[1], 100 * slide[1], 100 * slide[0], info[1].unreached,
                   info[1].ground_velocity[0], info[1].ground_velocity[1], info[1].ground_velocity[2],
                   ground[0] * info[1].scale, ground[1] * info[1].scale, ground[2] * info[1].scale);
            CHECK_MSG(contacts[1] >= 2, "%s %s: %d contacts", names[k], clips[c], contacts[1]);
            /* the retargeter's treadmill agrees with the one measured here */
            vec3 measured;
            glm_vec3_scale(ground, info[1].scale, measured);
            CHECK_MSG(glm_vec3_distance(measured, info[1].ground_velocity) < 0.02f * glm_vec3_norm(measured),
                      "%s %s: ground %g, measured %g", names[k], clips[c], info[1].ground_velocity[0], measured[0]);
            CHECK_MSG(slide[1] < 0.01, "%s %s: planted foot moves %g of the leg", names[k], clips[c], slide[1]);
            mr_joint_map_deinit(&map);
        }
        mr_model_destroy(targets[k]);
    }
    mr_model_destroy(man);
}

/* A copy of clip whose root moves forward by `speed` model units per
 * second along x (a treadmill walk turned into one that travels). */
static mr_clip *travelling(const mr_clip *clip, const mr_skeleton *sk, float speed)
{
    mr_clip *c = NULL;
    mr_clip_create("travelling", clip->joint_count, &c);
    for (int j = 0; c && j < clip->joint_count; j++) {
        const mr_track *src[3] = {&clip->tracks[j].t, &clip->tracks[j].r, &clip->tracks[j].s};
        mr_track *dst[3] = {&c->tracks[j].t, &c->tracks[j].r, &c->tracks[j].s};
        for (int k = 0; k < 3; k++) {
            if (!src[k]->key_count) continue;
            mr_track_init(dst[k], src[k]->key_count, src[k]->interp);
            memcpy(dst[k]->times, src[k]->times, sizeof(float) * (size_t)src[k]->key_count);
            memcpy(dst[k]->values, src[k]->values, sizeof(float) * (size_t)src[k]->key_count * (size_t)src[k]->components);
        }
    }
    if (!c || sk->parents[0] >= 0 || !c->tracks[0].t.key_count) {
        mr_clip_destroy(c);
        return NULL;
    }
    for (int i = 0; i < c->tracks[0].t.key_count; i++) c->tracks[0].t.values[3 * i] += speed * c->tracks[0].t.times[i];
    c->duration = clip->duration;
    mr_clip_finish(c);
    return c;
}

TEST(retarget_feet_on_a_travelling_walk_hold_feet_still)
{
    mr_model *man = load_mannequin();
    if (!man) { CHECK(man != NULL); return; }
    mr_model *target = long_shins(man);
    mr_clip *walk = mr_model_find_clip(man, "walk");
    vec3 ground;
    source_ground_velocity(man, walk, ground);
    mr_clip *moving = travelling(walk, &man->skeleton, -ground[0]);
    CHECK(moving != NULL);
    if (moving && target) {
        vec3 still;
        source_ground_velocity(man, moving, still);
        CHECK_MSG(glm_vec3_norm(still) < 0.5f, "the travelling walk's feet still move %g", glm_vec3_norm(still));
        mr_joint_map map;
        mr_error e = {0};
        CHECK(mr_joint_map_auto(&map, &man->skeleton, &target->skeleton, &e) == MR_OK);
        mr_retarget_opts opts = {.feet = 1};
        mr_retarget_info info;
        mr_clip *out = NULL;
        CHECK(mr_retarget_clip(moving, man, target, &map, &opts, &out, &info, &e) == MR_OK);
        if (out) {
            mr_clip_finish(out);
            int contacts;
            vec3 zero = {0, 0, 0};
            double slide = contact_slide(target, out, &info, zero, &contacts);
            printf("       travelling walk: %d contacts, planted foot moves %.3g %% of the leg, ground %.3g\n",
                   contacts, 100 * slide, glm_vec3_norm(info.ground_velocity));
            CHECK(contacts >= 2);
            CHECK(glm_vec3_norm(info.ground_velocity) < 0.01f * mr_retarget_leg_length(&target->skeleton));
            CHECK_MSG(slide < 0.01, "planted foot moves %g of the leg", slide);
            mr_clip_destroy(out);
        }
        mr_joint_map_deinit(&map);
    }
    mr_clip_destroy(moving);
    mr_model_destroy(target);
    mr_model_destroy(man);
}

/* Heights of a target's feet over a retargeted take, relative to their
 * heights in its rest pose (standing on its floor), in world Y, as
 * fractions of its leg: the farthest a held joint is off during a contact,
 * and the lowest either foot goes. */
static void contact_heights(const mr_model *target, const mr_clip *out, const mr_retarget_info *info,
                            double *worst_contact, double *lowest)
{
    int n = target->skeleton.joint_count;
    mat4 *rest = malloc(sizeof(mat4) * (size_t)n), *m = malloc(sizeof(mat4) * (size_t)n);
    double leg = mr_retarget_leg_length(&target->skeleton) * target->axes.meters_per_unit;
    world_joints(target, NULL, 0, rest);
    int feet[2] = {mr_joint_map_find_role(&target->skeleton, MR_ROLE_FOOT, MR_SIDE_LEFT),
                   mr_joint_map_find_role(&target->skeleton, MR_ROLE_FOOT, MR_SIDE_RIGHT)};
    *worst_contact = 0;
    *lowest = INFINITY;
    for (int k = 0; k < info->contact_count && k < MR_RETARGET_MAX_CONTACTS; k++) {
        const mr_retarget_contact *ct = &info->contacts[k];
        int steps = (int)ceilf((ct->end - ct->start) * 120.0f);
        for (int i = 0; i <= steps; i++) {
            world_joints(target, out, ct->start + (ct->end - ct->start) * (float)i / (float)(steps > 0 ? steps : 1), m);
            double off = fabs(m[ct->joint][3][1] - rest[ct->joint][3][1]) / leg;
            if (off > *worst_contact) *worst_contact = off;
        }
    }
    int steps = (int)ceilf(out->duration * 60.0f);
    for (int i = 0; i <= steps; i++) {
        world_joints(target, out, out->duration * (float)i / (float)(steps > 0 ? steps : 1), m);
        for (int f = 0; f < 2; f++)
            if (feet[f] >= 0) *lowest = fmin(*lowest, (m[feet[f]][3][1] - rest[feet[f]][3][1]) / leg);
    }
    free(rest);
    free(m);
}

/* Motion capture onto the mannequin and Bob: a CMU take and a boxing take
 * (BVH, from Debian's assimp-testmodels) whose roots travel, retargeted
 * with {feet}. The target stands on its own floor: its lowest foot comes
 * down to its rest height and not through it, held feet stay near it
 * (within the 2 % of a leg a source foot may be above its lowest and still
 * be in contact), and planted feet do not slide. Before the floor rule of
 * retarget.h, Bob's feet went 9 % of a leg through his floor on the boxing
 * take, and a spurious treadmill made planted feet creep 0.6-1.1 %. */
TEST(retarget_cmu_takes_keep_target_feet_on_its_floor)
{
    mr_model *man = load_mannequin();
    if (!man) { CHECK(man != NULL); return; }
    mr_model *targets[2] = {man, load_optional(BOB_DIR "Bob.md5mesh", NULL)};
    const char *names[2] = {"mannequin", "Bob"};
    const char *takes[2] = {"/usr/share/assimp/models/BVH/01_01.bvh", "/usr/share/assimp/models/BVH/Boxing_Toes.bvh"};
    for (int t = 0; t < 2; t++) {
        mr_model *cmu = load_optional(takes[t], NULL);
        if (!cmu) continue;
        for (int k = 0; k < 2; k++) {
            if (!targets[k]) continue;
            mr_joint_map map;
            mr_error e = {0};
            CHECK(mr_joint_map_auto(&map, &cmu->skeleton, &targets[k]->skeleton, &e) == MR_OK);
            mr_retarget_opts opts = {.feet = 1};
            mr_retarget_info info;
            mr_clip *out = NULL;
            CHECK_MSG(mr_retarget_clip(cmu->clips[0], cmu, targets[k], &map, &opts, &out, &info, &e) == MR_OK,
                      "%s", e.msg);
            if (out) {
                mr_clip_finish(out);
                int contacts;
                vec3 zero = {0, 0, 0};
                double slide = contact_slide(targets[k], out, &info, zero, &contacts), height, lowest;
                contact_heights(targets[k], out, &info, &height, &lowest);
                printf("       %s on %s: %d contacts (%d keys unreached), held foot off its rest height by %.3g %% of the leg at "
                       "most, lowest foot %.3g %%, slide %.3g %%, ground %.3g leg/s\n",
                       takes[t] + 29, names[k], contacts, info.unreached, 100 * height, 100 * lowest, 100 * slide, glm_vec3_norm(info.ground_velocity) / mr_retarget_leg_length(&targets[k]->skeleton));
                CHECK_MSG(contacts >= 2, "%s on %s: %d contacts", takes[t], names[k], contacts);
                CHECK_MSG(height < 0.03, "%s on %s: held foot %g of a leg off the floor", takes[t], names[k], height);
                CHECK_MSG(fabs(lowest) < 0.03, "%s on %s: the lowest foot is %g of a leg off the floor", takes[t],
                          names[k], lowest);
                CHECK_MSG(slide < 0.01, "%s on %s: planted foot moves %g of the leg", takes[t], names[k], slide);
                mr_clip_destroy(out);
            }
            mr_joint_map_deinit(&map);
        }
        mr_model_destroy(cmu);
    }
    mr_model_destroy(targets[1]);
    mr_model_destroy(man);
}

TEST(retarget_clip_rejects_mismatched_counts_bad_scale_and_empty_maps)
{
    mr_model *man = load_mannequin();
    mr_model *bob = load_optional(BOB_DIR "Bob.md5mesh", NULL);
    if (!man) { CHECK(man != NULL); return; }
    mr_joint_map map;
    mr_error e = {0};
    mr_clip *out = (mr_clip *)1;
    CHECK(mr_joint_map_auto(&map, &man->skeleton, &man->skeleton, &e) == MR_OK);
    mr_retarget_opts bad = {.scale = -1};
    CHECK(mr_retarget_clip(man->clips[0], man, man, &map, &bad, &out, NULL, &e) == MR_ERR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    CHECK_STR_CONTAINS(e.msg, "scale -1");
    bad.scale = NAN;
    CHECK(mr_retarget_clip(man->clips[0], man, man, &map, &bad, &out, NULL, &e) == MR_ERR_INVALID_ARGUMENT);
    if (bob) {
        CHECK(mr_retarget_clip(man->clips[0], man, bob, &map, NULL, &out, NULL, &e) == MR_ERR_JOINT_COUNT);
        CHECK(out == NULL);
    }
    mr_joint_map_deinit(&map);
    CHECK(mr_joint_map_pairs(&map, &man->skeleton, &man->skeleton, NULL, 0, &e) == MR_OK);
    CHECK(mr_retarget_clip(man->clips[0], man, man, &map, NULL, &out, NULL, &e) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(e.msg, "no joint of");
    mr_joint_map_deinit(&map);
    mr_model_destroy(bob);
    mr_model_destroy(man);
}

int main(void)
{
    RUN(joint_role_of_reads_every_convention);
    RUN(joint_map_auto_pairs_mannequin_bob_and_astroboy);
    RUN(joint_map_pairs_rejects_unknown_and_repeated_names);
    RUN(retarget_clip_onto_its_own_skeleton_gives_it_back);
    RUN(retarget_onto_turned_axes_scaled_and_reframed_copies_keeps_world_directions);
    RUN(retarget_feet_hold_planted_feet_within_one_percent_of_the_leg);
    RUN(retarget_feet_on_a_travelling_walk_hold_feet_still);
    RUN(retarget_cmu_takes_keep_target_feet_on_its_floor);
    RUN(retarget_clip_rejects_mismatched_counts_bad_scale_and_empty_maps);
    return test_summary("retarget");
}
