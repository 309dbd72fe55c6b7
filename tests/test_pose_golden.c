/* test_pose_golden.c — pose goldens (src/testkit/pose_golden.c): recording
 * a drawn pose, the file's round trip, what a comparison says when joints
 * move or turn, and the reader's errors. The arm is a chain of three joints
 * 10 units apart; metres_per_unit 0.01 makes a unit a centimetre. */
#include <stdlib.h>
#include <unistd.h>

#include "anim/model.h"
#include "anim/morph.h"
#include "anim/pose.h"
#include "core/file.h"
#include "core/str.h"
#include "testkit/pose_golden.h"
#include "test.h"

static char tmpdir[] = "/tmp/test_pose_golden_XXXXXX";

/* shoulder -> elbow (+10 x) -> hand (+10 x). */
static mr_model *arm_model(void)
{
    mr_model *m = NULL;
    mr_model_create("some/dir/arm.md5mesh", "md5", &m);
    if (!m || mr_skeleton_init(&m->skeleton, 3) != MR_OK) return NULL;
    const char *names[] = {"shoulder", "elbow", "hand"};
    for (int j = 0; j < 3; j++) {
        m->skeleton.names[j] = malloc(strlen(names[j]) + 1);
        strcpy(m->skeleton.names[j], names[j]);
        m->skeleton.parents[j] = j - 1;
        if (j) m->skeleton.rest_t[j][0] = 10;
    }
    mr_skeleton_compute_inverse_bind(&m->skeleton);
    m->axes.meters_per_unit = 0.01f;
    return m;
}

/* Model-space matrices of the arm with the shoulder turned by deg about z. */
static void arm_pose(const mr_model *m, float deg, mat4 out[3])
{
    mr_pose p;
    mr_pose_init(&p, 3);
    mr_pose_set_rest(&p, &m->skeleton);
    glm_quatv(p.r[0], glm_rad(deg), (vec3){0, 0, 1});
    mr_pose_to_model(&m->skeleton, &p, out);
    mr_pose_deinit(&p);
}

static char *tmp_path(const char *name)
{
    return mr_str_fmt("%s/%s", tmpdir, name);
}

TEST(pose_golden_add_bind_pose_decomposes_rest_positions)
{
    mr_model *m = arm_model();
    mr_pose_shot s = {0};
    CHECK(mr_pose_shot_add(&s, m, NULL, NULL) == MR_OK);
    CHECK(s.draw_count == 1);
    CHECK(!strcmp(s.draws[0].model, "arm.md5mesh"));
    CHECK(s.draws[0].joint_count == 3);
    CHECK_NEAR(s.draws[0].joints[2].v[0], 20, 1e-5);
    CHECK_NEAR(s.draws[0].joints[2].v[6], 1, 1e-6);
    CHECK_NEAR(s.draws[0].metres_per_unit, 0.01, 1e-9);
    mr_pose_shot_deinit(&s);
    mr_model_destroy(m);
}

TEST(pose_golden_add_decomposes_translation_rotation_scale)
{
    mr_model *m = arm_model();
    mat4 mats[3];
    /* T(1,2,3) * Rz(90) * S(2): the rotation is (0, 0, sin 45, cos 45). */
    for (int j = 0; j < 3; j++) {
        glm_translate_make(mats[j], (vec3){1, 2, 3});
        glm_rotate_z(mats[j], glm_rad(90), mats[j]);
        glm_scale_uni(mats[j], 2);
    }
    mr_pose_shot s = {0};
    CHECK(mr_pose_shot_add(&s, m, (const mat4 *)mats, NULL) == MR_OK);
    const float *v = s.draws[0].joints[1].v;
    float want[10] = {1, 2, 3, 0, 0, 0.707107f, 0.707107f, 2, 2, 2};
    for (int k = 0; k < 10; k++) CHECK_NEAR(v[k], want[k], 1e-5);
    mr_pose_shot_deinit(&s);
    mr_model_destroy(m);
}

TEST(pose_golden_same_model_and_pose_drawn_twice_is_listed_once)
{
    mr_model *m = arm_model();
    mat4 a[3], b[3];
    arm_pose(m, 0, a);
    arm_pose(m, 30, b);
    mr_pose_shot s = {0};
    mr_pose_shot_add(&s, m, (const mat4 *)a, NULL);
    mr_pose_shot_add(&s, m, (const mat4 *)a, NULL);   /* a skeleton over its model */
    CHECK(s.draw_count == 1);
    mr_pose_shot_add(&s, m, (const mat4 *)b, NULL);   /* another pose: kept */
    CHECK(s.draw_count == 2);
    mr_pose_shot_deinit(&s);
    mr_model_destroy(m);
}

TEST(pose_golden_write_then_read_matches_exactly)
{
    mr_model *m = arm_model();
    mat4 mats[3];
    arm_pose(m, 33.3f, mats);
    mr_pose_shot s = {0}, r = {0};
    mr_pose_shot_add(&s, m, (const mat4 *)mats, NULL);
    mr_pose_shot_add(&s, m, NULL, NULL);
    char *path = tmp_path("round.pose.json");
    mr_error err = {0};
    CHECK(mr_pose_shot_write(&s, 12, path, &err) == MR_OK);
    CHECK_MSG(mr_pose_shot_read(&r, path, &err) == MR_OK, "%s", err.msg);
    CHECK(r.draw_count == 2);
    for (int d = 0; d < 2 && d < r.draw_count; d++)
        for (int j = 0; j < 3; j++) {
            CHECK(!strcmp(r.draws[d].joints[j].name, s.draws[d].joints[j].name));
            CHECK(!memcmp(r.draws[d].joints[j].v, s.draws[d].joints[j].v, sizeof(float) * 10));
        }
    char msg[512];
    CHECK(mr_pose_shot_compare(&r, &s, NULL, msg, sizeof msg) == 1);
    CHECK_STR_CONTAINS(msg, "poses match (2 drawn, 6 joints)");
    char *text = mr_file_read(path, NULL, NULL);
    CHECK_STR_CONTAINS(text, "{\"marrow_pose\": 1, \"frame\": 12, \"draws\": [\n {\"model\": \"arm.md5mesh\"");
    CHECK_STR_CONTAINS(text, "\n  \"elbow\": [");
    free(text);
    unlink(path);
    free(path);
    mr_pose_shot_deinit(&s);
    mr_pose_shot_deinit(&r);
    mr_model_destroy(m);
}

TEST(pose_golden_turned_shoulder_names_moved_joints_in_cm)
{
    mr_model *m = arm_model();
    mat4 a[3], b[3];
    arm_pose(m, 0, a);
    arm_pose(m, 2, b);
    mr_pose_shot e = {0}, g = {0};
    mr_pose_shot_add(&e, m, (const mat4 *)a, NULL);
    mr_pose_shot_add(&g, m, (const mat4 *)b, NULL);
    char msg[512];
    CHECK(mr_pose_shot_compare(&e, &g, NULL, msg, sizeof msg) == 0);
    /* The hand is 20 cm out: 2 * 20 * sin(1 deg) = 0.698 cm; the elbow half that. */
    CHECK_STR_CONTAINS(msg, "pose of arm.md5mesh differs in 3 of 3 joints: hand moved 7.0 mm, elbow 3.5 mm; "
                            "shoulder turned 2.0°");
    mr_pose_shot_deinit(&e);
    mr_pose_shot_deinit(&g);
    mr_model_destroy(m);
}

TEST(pose_golden_change_within_tolerance_passes)
{
    mr_model *m = arm_model();
    mat4 a[3], b[3];
    arm_pose(m, 0, a);
    arm_pose(m, 0.02f, b);       /* hand 0.007 units (0.07 mm) away, under 0.5 mm and 0.05 degrees */
    mr_pose_shot e = {0}, g = {0};
    mr_pose_shot_add(&e, m, (const mat4 *)a, NULL);
    mr_pose_shot_add(&g, m, (const mat4 *)b, NULL);
    char msg[512];
    CHECK(mr_pose_shot_compare(&e, &g, NULL, msg, sizeof msg) == 1);
    /* A tolerance in model units tighter than the change fails it. */
    mr_pose_tol tight = {0.001, 0.001};
    CHECK(mr_pose_shot_compare(&e, &g, &tight, msg, sizeof msg) == 0);
    CHECK_STR_CONTAINS(msg, "hand moved");
    mr_pose_shot_deinit(&e);
    mr_pose_shot_deinit(&g);
    mr_model_destroy(m);
}

TEST(pose_golden_other_draw_count_or_missing_joint_is_named)
{
    mr_model *m = arm_model();
    mr_pose_shot e = {0}, g = {0};
    mr_pose_shot_add(&e, m, NULL, NULL);
    char msg[512];
    CHECK(mr_pose_shot_compare(&e, &g, NULL, msg, sizeof msg) == 0);
    CHECK_STR_CONTAINS(msg, "the golden has 1 drawn pose, this run 0 (draw 1: arm.md5mesh in the golden, - now)");
    mr_pose_shot_add(&g, m, NULL, NULL);
    free(g.draws[0].joints[1].name);
    g.draws[0].joints[1].name = mr_str_dup("wrist");
    CHECK(mr_pose_shot_compare(&e, &g, NULL, msg, sizeof msg) == 0);
    CHECK_STR_CONTAINS(msg, "1 joint of the golden missing (elbow); 1 joint not in the golden");
    mr_pose_shot_deinit(&e);
    mr_pose_shot_deinit(&g);
    mr_model_destroy(m);
}

TEST(pose_golden_read_errors_name_file_and_line)
{
    char *path = tmp_path("bad.pose.json");
    mr_pose_shot s = {0};
    mr_error err = {0};
    const char *bad = "{\"marrow_pose\": 1,\n \"draws\": [{\"model\": \"a\", \"joints\": {\n  \"j\": [1, 2]}}]}\n";
    mr_file_write(path, bad, strlen(bad), NULL);
    CHECK(mr_pose_shot_read(&s, path, &err) == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(err.msg, "bad.pose.json: /draws/0/joints/j: expected 7 or 10 numbers for a joint");
    CHECK(s.draw_count == 0);
    const char *cut = "{\"marrow_pose\": 1, \"draws\": [{\"model\": \"a\", \"joints\": {\"j\": [1, 2, 3";
    mr_file_write(path, cut, strlen(cut), NULL);
    CHECK(mr_pose_shot_read(&s, path, &err) == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(err.msg, "bad.pose.json:1:");   /* jansson's line and column, and what it expected */
    CHECK_STR_CONTAINS(err.msg, "end of file");
    const char *twice = "{\"draws\": [{\"model\": \"a\", \"joints\": {\"j\": [1, 2, 3, 0, 0, 0, 1],\n"
                        "  \"j\": [1, 2, 3, 0, 0, 0, 1]}}]}";
    mr_file_write(path, twice, strlen(twice), NULL);
    CHECK(mr_pose_shot_read(&s, path, &err) == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(err.msg, "bad.pose.json:2:");
    CHECK_STR_CONTAINS(err.msg, "duplicate object key");
    const char *escaped = "{\"extra\": {\"x\": [true, null, \"s\"]}, \"draws\": [{\"model\": \"a\\\"b\", "
                          "\"joints\": {\"j\\u0041\": [1, 2, 3, 0, 0, 0, 1]}}]}";
    mr_file_write(path, escaped, strlen(escaped), NULL);
    CHECK_MSG(mr_pose_shot_read(&s, path, &err) == MR_OK, "%s", err.msg);
    CHECK(s.draw_count == 1 && !strcmp(s.draws[0].model, "a\"b") && !strcmp(s.draws[0].joints[0].name, "jA"));
    mr_pose_shot_deinit(&s);
    unlink(path);
    CHECK(mr_pose_shot_read(&s, path, &err) == MR_ERR_IO);
    free(path);
}

/* The arm with one mesh of two morph targets, "smile" (default 0.25) and
 * "blink". */
static mr_model *arm_with_morphs(void)
{
    mr_model *m = arm_model();
    m->mesh_count = 1;
    m->meshes = calloc(1, sizeof *m->meshes);
    mr_mesh_init(&m->meshes[0], 1, 0, 0);
    mr_morph_set_create(2, 1, &m->meshes[0].morph);
    mr_morph_set *set = m->meshes[0].morph;
    free(set->targets[0].name);
    free(set->targets[1].name);
    set->targets[0].name = mr_str_dup("smile");
    set->targets[1].name = mr_str_dup("blink");
    set->weights[0] = 0.25f;
    return m;
}

TEST(pose_golden_morph_weights_round_trip_and_compare)
{
    mr_model *m = arm_with_morphs();
    mat4 a[3];
    arm_pose(m, 0, a);
    mr_pose_shot s = {0}, r = {0}, other = {0}, none = {0};
    CHECK(mr_pose_shot_add_morph(&s, m, (const mat4 *)a, (const float[]){0.7f, 0}, 2, NULL) == MR_OK);
    CHECK(s.draws[0].morph_count == 2 && !strcmp(s.draws[0].morph_names[0], "smile"));
    CHECK_NEAR(s.draws[0].morph[0], 0.7, 1e-7);
    char *path = tmp_path("morph.pose.json");
    CHECK(mr_pose_shot_write(&s, 3, path, NULL) == MR_OK);
    char *text = mr_file_read(path, NULL, NULL);
    CHECK_STR_CONTAINS(text, "\"morph\": {\"smile\": 0.7, \"blink\": 0}");
    free(text);
    CHECK(mr_pose_shot_read(&r, path, NULL) == MR_OK);
    char msg[1024];
    CHECK(mr_pose_shot_compare(&s, &r, NULL, msg, sizeof msg) == 1);
    /* Another weight (the script's override): named, with both values. */
    CHECK(mr_pose_shot_add_morph(&other, m, (const mat4 *)a, (const float[]){0.2f, 0}, 2, NULL) == MR_OK);
    CHECK(mr_pose_shot_compare(&r, &other, NULL, msg, sizeof msg) == 0);
    CHECK_STR_CONTAINS(msg, "morph weight 'smile' is 0.2, 0.7 in the golden");
    /* NULL weights: the defaults; a skeleton draw (-1) records none, and
     * the model's draw of the same pose gives the listed one its weights. */
    CHECK(mr_pose_shot_add_morph(&none, m, (const mat4 *)a, NULL, -1, NULL) == MR_OK);
    CHECK(none.draws[0].morph_count == 0);
    CHECK(mr_pose_shot_add_morph(&none, m, (const mat4 *)a, NULL, 0, NULL) == MR_OK);
    CHECK(none.draw_count == 1 && none.draws[0].morph_count == 2);
    CHECK_NEAR(none.draws[0].morph[0], 0.25, 1e-7);
    /* A model without targets writes no "morph": files as before. */
    mr_pose_shot plain = {0};
    mr_model *arm = arm_model();
    CHECK(mr_pose_shot_add_morph(&plain, arm, (const mat4 *)a, NULL, 0, NULL) == MR_OK);
    CHECK(mr_pose_shot_write(&plain, 3, path, NULL) == MR_OK);
    text = mr_file_read(path, NULL, NULL);
    CHECK(text && !strstr(text, "morph"));
    free(text);
    unlink(path);
    free(path);
    mr_pose_shot_deinit(&s);
    mr_pose_shot_deinit(&r);
    mr_pose_shot_deinit(&other);
    mr_pose_shot_deinit(&none);
    mr_pose_shot_deinit(&plain);
    mr_model_destroy(m);
    mr_model_destroy(arm);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) return 1;
    RUN(pose_golden_add_bind_pose_decomposes_rest_positions);
    RUN(pose_golden_add_decomposes_translation_rotation_scale);
    RUN(pose_golden_same_model_and_pose_drawn_twice_is_listed_once);
    RUN(pose_golden_write_then_read_matches_exactly);
    RUN(pose_golden_turned_shoulder_names_moved_joints_in_cm);
    RUN(pose_golden_change_within_tolerance_passes);
    RUN(pose_golden_other_draw_count_or_missing_joint_is_named);
    RUN(pose_golden_read_errors_name_file_and_line);
    RUN(pose_golden_morph_weights_round_trip_and_compare);
    rmdir(tmpdir);
    return test_summary("pose_golden");
}
