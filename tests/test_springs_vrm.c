/* test_springs_vrm.c — springs against an independent implementation, and
 * VRM files: tests/data/springs/spring_rig.gltf (a 1.7 m rig with three
 * VRMC_springBone chains: hair, a tail in its root's centre space, a strap
 * on a turned joint; sphere and capsule colliders) driven by the motion of
 * tests/tools/springs_reference.mjs, which ran three-vrm's spring bones
 * (@pixiv/three-vrm-springbone 3.5.5 under Node) and wrote every spring
 * joint's world position at 60 fps for 10 s into spring_rig_three_vrm.json.
 *
 *   - "frame" mode at 60 fps agrees with three-vrm within 0.1 mm at every frame;
 *   - the fixed step agrees with itself at 30, 60 and 144 fps within 1 mm at
 *     every common time (multiples of 1/6 s) on the same rig and motion, and
 *     leaves no tip deeper than 0.1 mm in a collider, where three-vrm does;
 *   - the file's springs, humanoid-free, load through the glTF reader;
 *     malformed VRMC_springBone data fails naming its JSON path.
 */
#include <jansson.h>
#include <stdlib.h>

#include "anim/override.h"
#include "anim/springs.h"
#include "anim/vrm.h"
#include "formats/gltf.h"
#include "test.h"

#define RIG "tests/data/springs/spring_rig.gltf"
#define REF "tests/data/springs/spring_rig_three_vrm.json"

static float ramp(double t, double a, double b) { return (float)(t <= a ? 0 : t >= b ? 1 : (t - a) / (b - a)); }

/* The motion of tests/tools/springs_reference.mjs: placement into xf, the
 * rest into pose. */
static void motion(const mr_model *m, double t, mr_pose *pose, mat4 xf)
{
    const mr_skeleton *sk = &m->skeleton;
    double stop = ramp(t, 4, 4.001), tw = t < 4 ? t : 4;
    mr_pose_set_rest(pose, sk);
    glm_mat4_identity(xf);
    glm_translate(xf, (vec3){(float)(0.4 * sin(1.3 * tw)), 0, (float)(1.1 * tw + 0.2 * sin(2.6 * tw))});
    glm_rotate(xf, (float)(0.9 * sin(0.9 * tw) + stop * 1.2 * ramp(t, 4, 5)), (vec3){0, 1, 0});
    int hips = mr_skeleton_find(sk, "hips"), chest = mr_skeleton_find(sk, "chest"), head = mr_skeleton_find(sk, "head");
    pose->t[hips][1] = (float)(0.95 + (1 - ramp(t, 4, 4.25)) * 0.04 * sin(6.4 * t));
    versor qx, qz;
    glm_quatv(qx, (float)(0.25 * sin(3.2 * t)), (vec3){1, 0, 0});
    glm_quatv(qz, (float)(0.15 * sin(2.1 * t)), (vec3){0, 0, 1});
    glm_quat_mul(qx, qz, pose->r[hips]);
    glm_quatv(pose->r[chest], (float)(0.4 * sin(2.3 * t)), (vec3){0, 1, 0});
    glm_quatv(pose->r[head], (float)(0.3 * sin(1.7 * t + 1)), (vec3){1, 0, 0});
}

static void world_pos(const mr_model *m, const mr_pose *pose, const mat4 xf, int j, vec3 out)
{
    mat4 a, w;
    mr_pose_model_matrix(&m->skeleton, pose, j, a);
    glm_mat4_mul((vec4 *)xf, a, w);
    glm_vec3_copy(w[3], out);
}

static mr_model *load_rig(void)
{
    mr_model *m = NULL;
    mr_error err = {0};
    mr_status st = mr_gltf_load(RIG, &m, &err);
    CHECK_MSG(st == MR_OK, "%s", err.msg);
    return m;
}

static mr_springs *rig_springs(const mr_model *m, int step, float rate)
{
    mr_springs_desc d = mr_vrm_springs_desc(m->vrm);
    d.step = step;
    d.rate = rate;
    mr_springs *s = NULL;
    mr_error err = {0};
    CHECK_MSG(mr_springs_create(&m->skeleton, &d, &s, &err) == MR_OK, "%s", err.msg);
    return s;
}

TEST(the_rig_loads_with_its_springs)
{
    mr_model *m = load_rig();
    if (!m) return;
    CHECK(m->vrm != NULL);
    CHECK(m->vrm->chain_count == 3);
    CHECK(m->vrm->spring_joint_count == 3 + 5 + 3);
    CHECK(m->vrm->collider_count == 4);
    CHECK(m->vrm->colliders[1].shape == MR_COLLIDER_CAPSULE);
    CHECK(m->vrm->chains[1].center == mr_skeleton_find(&m->skeleton, "root"));
    CHECK(m->vrm->chains[0].collider_count == 2);
    CHECK_NEAR(m->vrm->spring_joints[3].stiffness, 2.0, 1e-6);
    CHECK(strcmp(m->vrm->chain_names[2], "strap") == 0);
    mr_model_destroy(m);
}

TEST(frame_mode_agrees_with_three_vrm_within_a_tenth_of_a_millimetre)
{
    json_error_t jerr;
    json_t *ref = json_load_file(REF, 0, &jerr);
    CHECK_MSG(ref != NULL, "%s: %s", REF, jerr.text);
    mr_model *m = load_rig();
    if (!ref || !m) { json_decref(ref); mr_model_destroy(m); return; }
    mr_springs *s = rig_springs(m, MR_SPRINGS_FRAME, 0);
    json_t *names = json_object_get(ref, "joints"), *frames = json_object_get(ref, "frames");
    int nj = (int)json_array_size(names), joints[64];
    CHECK(nj > 10 && nj <= 64);
    for (int k = 0; k < nj; k++) {
        joints[k] = mr_skeleton_find(&m->skeleton, json_string_value(json_array_get(names, k)));
        CHECK(joints[k] >= 0);
    }
    mr_pose pose;
    mr_pose_init(&pose, m->skeleton.joint_count);
    double worst = 0, moved = 0;
    int worst_frame = -1;
    size_t nf = json_array_size(frames);
    CHECK(nf == 601);
    for (size_t f = 0; f < nf; f++) {
        mat4 xf;
        motion(m, f / 60.0, &pose, xf);
        mr_springs_update(s, &m->skeleton, &pose, f ? 1.0 / 60 : 0, (float *)xf);
        json_t *row = json_array_get(frames, f);
        for (int k = 0; k < nj; k++) {
            vec3 p;
            world_pos(m, &pose, xf, joints[k], p);
            double d = 0;
            for (int c = 0; c < 3; c++) {
                double e = p[c] - json_number_value(json_array_get(row, (size_t)(3 * k + c)));
                d += e * e;
            }
            d = sqrt(d);
            if (d > worst) { worst = d; worst_frame = (int)f; }
        }
        if (f) {
            /* how far the tail's tip swings relative to its root (the motion is real) */
            vec3 a, b;
            world_pos(m, &pose, xf, joints[9], a);
            world_pos(m, &pose, xf, joints[4], b);
            moved = fmax(moved, fabs((a[1] - b[1]) + 0.46));
        }
    }
    printf("       frame mode vs three-vrm: max %.5f mm over 10 s (frame %d), %d joints (%d of %d chains side by side); "
           "tail tip swings %.0f mm\n", worst * 1000, worst_frame, nj, mr_springs_lane_chains(s), mr_springs_chain_count(s),
           moved * 1000);
    CHECK(worst < 1e-4);
    CHECK(moved > 0.02);
    mr_pose_deinit(&pose);
    mr_springs_destroy(s);
    mr_model_destroy(m);
    json_decref(ref);
}

/* World positions of the spring joints at the times 1/6 s apart, run at fps. */
static void run_fixed(const mr_model *m, int fps, int mode, vec3 (*out)[32], double *pen)
{
    mr_springs *s = rig_springs(m, mode, 0);
    mr_pose pose;
    mr_pose_init(&pose, m->skeleton.joint_count);
    *pen = 0;
    int k = 0;
    for (int f = 0; f <= 10 * fps; f++) {
        mat4 xf;
        motion(m, (double)f / fps, &pose, xf);
        mr_springs_update(s, &m->skeleton, &pose, f ? 1.0 / fps : 0, (float *)xf);
        if (f) *pen = fmax(*pen, mr_springs_penetration(s, &m->skeleton, &pose, (float *)xf));
        if (f % (fps / 6) == 0 && fps % 6 == 0) {
            for (int j = 0; j < m->skeleton.joint_count && j < 32; j++) world_pos(m, &pose, xf, j, out[k][j]);
            k++;
        }
    }
    mr_pose_deinit(&pose);
    mr_springs_destroy(s);
}

TEST(fixed_step_agrees_at_30_60_and_144_fps_and_keeps_out_of_colliders)
{
    mr_model *m = load_rig();
    if (!m) return;
    static vec3 a[61][32], b[61][32], c[61][32], d[61][32];
    double pa, pb, pc, pref;
    run_fixed(m, 30, MR_SPRINGS_FIXED, a, &pa);
    run_fixed(m, 60, MR_SPRINGS_FIXED, b, &pb);
    run_fixed(m, 144, MR_SPRINGS_FIXED, c, &pc);
    run_fixed(m, 60, MR_SPRINGS_FRAME, d, &pref);   /* VRM's own stepping, for the record */
    double worst = 0;
    for (int i = 0; i < 61; i++)
        for (int j = 0; j < m->skeleton.joint_count; j++)
        {
            double e = fmax(glm_vec3_distance(a[i][j], b[i][j]), glm_vec3_distance(c[i][j], b[i][j]));
            if (getenv("SPRINGS_DEBUG") && e > 0.0003) printf("t %.3f joint %s: 30 %.3f 144 %.3f mm\n", i / 6.0, m->skeleton.names[j], glm_vec3_distance(a[i][j], b[i][j]) * 1000, glm_vec3_distance(c[i][j], b[i][j]) * 1000);
            worst = fmax(worst, e);
        }
    printf("       fixed step 30/60/144 fps: max %.4f mm apart at common times; deepest tip %.5f / %.5f / %.5f mm "
           "(frame mode, as three-vrm: %.3f mm)\n", worst * 1000, pa * 1000, pb * 1000, pc * 1000, pref * 1000);
    CHECK(worst < 1e-3);
    CHECK(pa < 1e-4 && pb < 1e-4 && pc < 1e-4);
    mr_model_destroy(m);
}

/* Loads text as a glTF and returns the error message (empty when it loaded). */
static const char *load_text(const char *text, mr_error *err)
{
    mr_model *m = NULL;
    memset(err, 0, sizeof *err);
    if (mr_gltf_parse("bad.gltf", text, strlen(text), &m, err) == MR_OK) {
        mr_model_destroy(m);
        err->msg[0] = '\0';
    }
    return err->msg;
}

#define NODES "\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"name\":\"a\",\"children\":[1]}," \
              "{\"name\":\"b\",\"translation\":[0,-0.1,0],\"children\":[2]},{\"name\":\"c\",\"translation\":[0,-0.1,0]}]"

TEST(malformed_spring_bone_extensions_name_the_json_path)
{
    mr_error err;
    static const struct { const char *ext, *expect; } cases[] = {
        {"{\"springs\":[{\"joints\":[{\"node\":0},{\"node\":9}]}]}", "/extensions/VRMC_springBone/springs/0/joints/1"},
        {"{\"springs\":[{\"joints\":[{\"node\":0,\"dragForce\":2},{\"node\":1}]}]}", "/extensions/VRMC_springBone/springs/0/joints/0: dragForce: expected a number in 0..1, got 2"},
        {"{\"springs\":[{\"joints\":[{\"node\":0,\"stiffness\":-1},{\"node\":1}]}]}", "stiffness: expected a number in 0..1e+06"},
        {"{\"springs\":[{\"joints\":[{\"node\":0},{\"node\":2}]}]}", "/extensions/VRMC_springBone/springs/0/joints/1: node: expected a child of the previous joint's node"},
        {"{\"springs\":[{\"joints\":{}}]}", "/extensions/VRMC_springBone/springs/0"},
        {"{\"colliders\":[{\"node\":0,\"shape\":{\"cube\":{}}}]}", "/extensions/VRMC_springBone/colliders/0/shape: expected a sphere or capsule object"},
        {"{\"colliders\":[{\"node\":0,\"shape\":{\"sphere\":{\"radius\":-1}}}]}", "/extensions/VRMC_springBone/colliders/0/shape/sphere: radius"},
        {"{\"colliders\":[{\"node\":7,\"shape\":{\"sphere\":{}}}]}", "/extensions/VRMC_springBone/colliders/0"},
        {"{\"colliderGroups\":[{\"colliders\":[3]}]}", "/extensions/VRMC_springBone/colliderGroups/0: colliders/0: expected a collider index below 0"},
        {"{\"springs\":[{\"colliderGroups\":[1],\"joints\":[{\"node\":0},{\"node\":1}]}]}", "/extensions/VRMC_springBone/springs/0: colliderGroups/0: expected a collider group index below 0"},
        {"[]", "/extensions/VRMC_springBone: expected an object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[2048];
        snprintf(text, sizeof text, "{\"asset\":{\"version\":\"2.0\"}," NODES ",\"extensions\":{\"VRMC_springBone\":%s}}", cases[i].ext);
        const char *msg = load_text(text, &err);
        CHECK_STR_CONTAINS(msg, cases[i].expect);
        CHECK(err.status == MR_ERR_BAD_FILE);
    }
    char ok[1024];
    snprintf(ok, sizeof ok, "{\"asset\":{\"version\":\"2.0\"}," NODES ",\"extensions\":{\"VRMC_springBone\":"
             "{\"springs\":[{\"joints\":[{\"node\":0},{\"node\":1},{\"node\":2}]}]}}}");
    CHECK(load_text(ok, &err)[0] == '\0');
}

int main(void)
{
    RUN(the_rig_loads_with_its_springs);
    RUN(frame_mode_agrees_with_three_vrm_within_a_tenth_of_a_millimetre);
    RUN(fixed_step_agrees_at_30_60_and_144_fps_and_keeps_out_of_colliders);
    RUN(malformed_spring_bone_extensions_name_the_json_path);
    return test_summary("springs_vrm");
}
