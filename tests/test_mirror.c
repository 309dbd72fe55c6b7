/* test_mirror.c — mirrored clips (mirror.h): side tokens swapped in names,
 * pairs and mid-plane found on the mannequin, Bob and a CMU skeleton;
 * mirroring twice gives the original back within 1e-6; the mirrored
 * walk's left foot follows the original right foot's path reflected across
 * the mid-plane within 1e-4 of the size at 121 times (mannequin walk, CMU
 * 01_01); given maps, and each refusal. */
#include "anim/joint_map.h"
#include "anim/mirror.h"
#include "anim/model.h"
#include "choreo_fixture.h"
#include "formats/load.h"
#include "test.h"

#define CMU_0101 "/usr/share/assimp/models/BVH/01_01.bvh"
#define BOB SHARED_MODELS "assimp/test/models-nonbsd/MD5/Bob.md5mesh"
#define BOB_ANIM SHARED_MODELS "assimp/test/models-nonbsd/MD5/Bob.md5anim"

static mr_model *load(const char *path, const char *anim)
{
    mr_model *m = NULL;
    mr_error err = {0};
    const char *anims[1] = {anim};
    mr_status st = mr_load_model(path, anim ? anims : NULL, anim ? 1 : 0, &m, &err);
    CHECK_MSG(st == MR_OK, "%s: %s", path, err.msg);
    return m;
}

/* The source clip's local pose at time t (tracks sampled exactly). */
static void sample(const mr_clip *c, const mr_skeleton *sk, float t, mr_pose *pose)
{
    mr_pose_set_rest(pose, sk);
    for (int j = 0; j < sk->joint_count; j++) {
        if (c->tracks[j].t.key_count) mr_track_sample(&c->tracks[j].t, t, pose->t[j]);
        if (c->tracks[j].r.key_count) {
            mr_track_sample(&c->tracks[j].r, t, pose->r[j]);
            glm_quat_normalize(pose->r[j]);
        }
        if (c->tracks[j].s.key_count) mr_track_sample(&c->tracks[j].s, t, pose->s[j]);
    }
}

static float model_size(const mr_model *m)
{
    vec3 lo, hi;
    mr_model_bounds(m, lo, hi);
    return glm_vec3_distance(lo, hi);
}

static void reflect(const mr_mirror_map *map, const vec3 p, vec3 out)
{
    float d = glm_vec3_dot((float *)map->normal, (float *)p) - map->offset;
    for (int k = 0; k < 3; k++) out[k] = p[k] - 2.0f * d * map->normal[k];
}

TEST(side_tokens_swap_in_every_rig_convention)
{
    static const char *const cases[][2] = {
        {"LeftUpLeg", "RightUpLeg"},           {"mixamorig:LeftHand", "mixamorig:RightHand"},
        {"thigh.L", "thigh.R"},                {"upperarm_l", "upperarm_r"},
        {"L_shoulder", "R_shoulder"},          {"Bip01 L Thigh", "Bip01 R Thigh"},
        {"LHipJoint", "RHipJoint"},            {"RThumb", "LThumb"},
        {"hand_right", "hand_left"},           {"LeftHandIndex1", "RightHandIndex1"},
    };
    char buf[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_MSG(mr_mirror_swap_name(cases[i][0], 0, buf, sizeof buf) && !strcmp(buf, cases[i][1]), "%s -> %s",
                  cases[i][0], buf);
    }
    CHECK(!mr_mirror_swap_name("LowerBack", 0, buf, sizeof buf));
    CHECK(!mr_mirror_swap_name("spine_01", 0, buf, sizeof buf));
    CHECK(!mr_mirror_swap_name("Hips", 0, buf, sizeof buf));
    CHECK(!mr_mirror_swap_name("LeftUpLeg", 0, buf, 5));        /* no room */
}

/* Pairs on the mannequin: every _l joint with its _r joint; the plane's
 * normal is a coordinate axis, the centre joints lie on it. */
TEST(mannequin_pairs_and_plane)
{
    mr_model *m = load("models/mannequin.md5mesh", NULL);
    if (!m) return;
    const mr_skeleton *sk = &m->skeleton;
    mr_mirror_map map;
    mr_error err = {0};
    CHECK(mr_mirror_map_find(&map, sk, NULL, 0, &err) == MR_OK);
    int sided = 0;
    for (int j = 0; j < sk->joint_count; j++) {
        size_t n = strlen(sk->names[j]);
        if (n > 2 && sk->names[j][n - 2] == '_' && (sk->names[j][n - 1] == 'l' || sk->names[j][n - 1] == 'r')) {
            sided++;
            char want[128];
            snprintf(want, sizeof want, "%.*s_%c", (int)(n - 2), sk->names[j], sk->names[j][n - 1] == 'l' ? 'r' : 'l');
            CHECK_MSG(!strcmp(sk->names[map.partner[j]], want), "%s paired with %s", sk->names[j],
                      sk->names[map.partner[j]]);
        } else {
            CHECK_MSG(map.partner[j] == j, "%s paired with %s", sk->names[j], sk->names[map.partner[j]]);
        }
    }
    CHECK(sided > 0 && map.pair_count * 2 == sided);
    int axis = 0;
    for (int k = 0; k < 3; k++) axis += fabsf(map.normal[k]) == 1.0f;
    CHECK_MSG(axis == 1, "normal %g %g %g", map.normal[0], map.normal[1], map.normal[2]);
    mr_mirror_map_deinit(&map);
    mr_model_destroy(m);
}

/* Mirror twice: the original within 1e-6 (quaternion components, and
 * joint positions as a fraction of the size), at every key and between. */
static void twice_is_identity(const char *path, const char *anim, const char *what)
{
    mr_model *m = load(path, anim);
    if (!m) return;
    CHECK(m->clip_count > 0);
    const mr_skeleton *sk = &m->skeleton;
    const mr_clip *clip = m->clips[0];
    mr_mirror_map map;
    mr_error err = {0};
    CHECK_MSG(mr_mirror_map_find(&map, sk, NULL, 0, &err) == MR_OK, "%s: %s", what, err.msg);
    mr_clip *once = NULL, *twice = NULL;
    CHECK(mr_mirror_clip(clip, sk, &map, NULL, &once, &err) == MR_OK);
    CHECK(mr_mirror_clip(once, sk, &map, "back", &twice, &err) == MR_OK);
    CHECK(once && !strcmp(once->name, "") == 0 && strstr(once->name, "_mirror"));
    CHECK(mr_clip_validate(once, &err) == MR_OK);
    float size = model_size(m);
    mr_pose a, b;
    mr_pose_init(&a, sk->joint_count);
    mr_pose_init(&b, sk->joint_count);
    mat4 *ma = malloc(sizeof(mat4) * (size_t)sk->joint_count), *mb = malloc(sizeof(mat4) * (size_t)sk->joint_count);
    double worst_q = 0, worst_p = 0;
    for (int i = 0; i <= 120; i++) {
        float t = clip->duration * (float)i / 120.0f;
        sample(clip, sk, t, &a);
        sample(twice, sk, t, &b);
        mr_pose_to_model(sk, &a, ma);
        mr_pose_to_model(sk, &b, mb);
        for (int j = 0; j < sk->joint_count; j++) {
            float d = fabsf(glm_vec4_dot(a.r[j], b.r[j]));
            for (int k = 0; k < 4; k++) {
                float e = fabsf(a.r[j][k] - (glm_vec4_dot(a.r[j], b.r[j]) < 0 ? -b.r[j][k] : b.r[j][k]));
                if (e > worst_q) worst_q = e;
            }
            (void)d;
            float e = glm_vec3_distance(ma[j][3], mb[j][3]) / size;
            if (e > worst_p) worst_p = e;
        }
    }
    CHECK_MSG(worst_q <= 1e-6 && worst_p <= 1e-6, "%s: twice mirrored differs by %g (quaternion), %g of the size",
              what, worst_q, worst_p);
    free(ma);
    free(mb);
    mr_pose_deinit(&a);
    mr_pose_deinit(&b);
    mr_clip_destroy(once);
    mr_clip_destroy(twice);
    mr_mirror_map_deinit(&map);
    mr_model_destroy(m);
}

TEST(mirroring_twice_gives_the_original)
{
    twice_is_identity("models/mannequin.md5mesh", "models/walk.md5anim", "mannequin walk");
    twice_is_identity(CMU_0101, NULL, "CMU 01_01");
    twice_is_identity(BOB, BOB_ANIM, "Bob");
}

/* The mirrored left foot's path is the original right foot's path
 * reflected across the mid-plane (and the other way round). */
static void foot_paths(const char *path, const char *anim, const char *what)
{
    mr_model *m = load(path, anim);
    if (!m) return;
    const mr_skeleton *sk = &m->skeleton;
    const mr_clip *clip = m->clips[0];
    mr_mirror_map map;
    mr_error err = {0};
    CHECK(mr_mirror_map_find(&map, sk, NULL, 0, &err) == MR_OK);
    mr_clip *mir = NULL;
    CHECK(mr_mirror_clip(clip, sk, &map, NULL, &mir, &err) == MR_OK);
    int lf = mr_joint_map_find_role(sk, MR_ROLE_FOOT, MR_SIDE_LEFT);
    int rf = mr_joint_map_find_role(sk, MR_ROLE_FOOT, MR_SIDE_RIGHT);
    CHECK(lf >= 0 && rf >= 0 && map.partner[lf] == rf);
    float size = model_size(m);
    mr_pose a, b;
    mr_pose_init(&a, sk->joint_count);
    mr_pose_init(&b, sk->joint_count);
    mat4 *ma = malloc(sizeof(mat4) * (size_t)sk->joint_count), *mb = malloc(sizeof(mat4) * (size_t)sk->joint_count);
    float worst = 0, travel = 0;
    vec3 first;
    for (int i = 0; i <= 120; i++) {
        float t = clip->duration * (float)i / 120.0f;
        sample(clip, sk, t, &a);
        sample(mir, sk, t, &b);
        mr_pose_to_model(sk, &a, ma);
        mr_pose_to_model(sk, &b, mb);
        vec3 want;
        reflect(&map, ma[rf][3], want);
        worst = fmaxf(worst, glm_vec3_distance(want, mb[lf][3]));
        reflect(&map, ma[lf][3], want);
        worst = fmaxf(worst, glm_vec3_distance(want, mb[rf][3]));
        if (i == 0) glm_vec3_copy(ma[rf][3], first);
        travel = fmaxf(travel, glm_vec3_distance(first, ma[rf][3]));
    }
    CHECK_MSG(worst <= 1e-4f * size, "%s: mirrored foot %g from the reflected path (size %g)", what, worst, size);
    CHECK_MSG(travel > 0.05f * size, "%s: the foot hardly moves (%g)", what, travel);   /* a real path */
    free(ma);
    free(mb);
    mr_pose_deinit(&a);
    mr_pose_deinit(&b);
    mr_clip_destroy(mir);
    mr_mirror_map_deinit(&map);
    mr_model_destroy(m);
}

TEST(mirrored_left_foot_walks_the_reflected_right_foot_path)
{
    foot_paths("models/mannequin.md5mesh", "models/walk.md5anim", "mannequin walk");
    foot_paths(CMU_0101, NULL, "CMU 01_01");
}

/* A rig it cannot pair: refused, then mirrored with a given map. */
TEST(given_map_and_refusals)
{
    mr_skeleton sk;
    mr_skeleton_init(&sk, 4);
    const char *names[4] = {"root", "port", "starboard", "mast"};
    float x[4] = {0, 2, -2, 0};
    for (int j = 0; j < 4; j++) {
        sk.names[j] = mr_str_dup(names[j]);
        sk.parents[j] = j ? 0 : -1;
        sk.rest_t[j][0] = x[j];
        sk.rest_t[j][2] = j == 3 ? 3.0f : 0.0f;
    }
    mr_skeleton_compute_inverse_bind(&sk);
    mr_mirror_map map;
    mr_error err = {0};
    CHECK(mr_mirror_map_find(&map, &sk, NULL, 0, &err) != MR_OK);
    CHECK_STR_CONTAINS(err.msg, "give a map");
    CHECK(map.partner == NULL);
    const char *bad[2] = {"port", "stern"};
    memset(&err, 0, sizeof err);
    CHECK(mr_mirror_map_find(&map, &sk, bad, 1, &err) != MR_OK);
    CHECK_STR_CONTAINS(err.msg, "'stern'");
    const char *twice[4] = {"port", "starboard", "port", "mast"};
    CHECK(mr_mirror_map_find(&map, &sk, twice, 2, NULL) != MR_OK);
    const char *pairs[2] = {"port", "starboard"};
    CHECK(mr_mirror_map_find(&map, &sk, pairs, 1, &err) == MR_OK);
    CHECK(map.partner[1] == 2 && map.partner[2] == 1 && map.partner[3] == 3);
    CHECK(fabsf(map.normal[0]) == 1.0f && map.offset == 0.0f);
    /* a clip: port raised, the root moving +x and +y */
    mr_clip *c = NULL;
    mr_clip_create("sail", 4, &c);
    c->duration = 1.0f;
    mr_track_init(&c->tracks[1].r, 2, MR_INTERP_LINEAR);
    c->tracks[1].r.times[1] = 1.0f;
    glm_quat_identity(c->tracks[1].r.values);
    glm_quatv(c->tracks[1].r.values + 4, glm_rad(60.0f), (vec3){0, 1, 0});
    mr_track_finish(&c->tracks[1].r);
    mr_track_init(&c->tracks[0].t, 2, MR_INTERP_LINEAR);
    c->tracks[0].t.times[1] = 1.0f;
    glm_vec3_copy((vec3){3, 4, 0}, c->tracks[0].t.values + 3);
    mr_track_finish(&c->tracks[0].t);
    mr_clip *mc = NULL;
    CHECK(mr_mirror_clip(c, &sk, &map, "lias", &mc, &err) == MR_OK);
    CHECK(mc && !strcmp(mc->name, "lias"));
    CHECK(mc->tracks[2].r.key_count == 2 && mc->tracks[1].r.key_count == 0);   /* starboard moves now */
    CHECK(mc->tracks[0].t.key_count == 2);
    CHECK_NEAR(mc->tracks[0].t.values[3], -3.0f, 1e-6);                        /* root motion mirrored */
    CHECK_NEAR(mc->tracks[0].t.values[4], 4.0f, 1e-6);
    /* another joint count */
    mr_clip *other = NULL, *o2 = NULL;
    mr_clip_create("x", 3, &other);
    CHECK(mr_mirror_clip(other, &sk, &map, NULL, &o2, NULL) == MR_ERR_JOINT_COUNT && o2 == NULL);
    mr_clip_destroy(other);
    mr_clip_destroy(mc);
    mr_clip_destroy(c);
    mr_mirror_map_deinit(&map);
    mr_skeleton_deinit(&sk);
}

int main(void)
{
    RUN(side_tokens_swap_in_every_rig_convention);
    RUN(mannequin_pairs_and_plane);
    RUN(mirroring_twice_gives_the_original);
    RUN(mirrored_left_foot_walks_the_reflected_right_foot_path);
    RUN(given_map_and_refusals);
    return test_summary("mirror");
}
