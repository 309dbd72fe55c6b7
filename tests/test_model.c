/* test_model.c — mr_model: clips, warnings, bounds, display frame. */
#include "anim/model.h"
#include "anim_fixture.h"
#include "test.h"

TEST(model_add_clip_makes_names_unique)
{
    mr_model *m = mr_model_new("x.md5mesh", "md5");
    CHECK(mr_model_add_clip(m, mr_clip_make("walk", 0)) == MR_OK);
    CHECK(mr_model_add_clip(m, mr_clip_make("walk", 0)) == MR_OK);
    CHECK(mr_model_add_clip(m, mr_clip_make("walk", 0)) == MR_OK);
    CHECK(m->clip_count == 3);
    CHECK(strcmp(m->clips[1]->name, "walk#2") == 0);
    CHECK(strcmp(m->clips[2]->name, "walk#3") == 0);
    CHECK(mr_model_find_clip(m, "walk#3") == m->clips[2]);
    CHECK(mr_model_find_clip(m, "run") == NULL);
    mr_model_destroy(m);
}

TEST(model_warnings_are_kept)
{
    mr_model *m = mr_model_new("x", "md5");
    mr_model_warn(m, "%d vertices had more than 4 weights", 12);
    CHECK(m->warning_count == 1);
    CHECK_STR_CONTAINS(m->warnings[0], "12 vertices");
    mr_model_destroy(m);
}

TEST(model_bounds_from_vertices_or_joints)
{
    mr_model *m = mr_model_new("x", "md5");
    vec3 lo, hi;
    CHECK(mr_model_bounds(m, lo, hi) == 0);
    fixture_chain(&m->skeleton);
    CHECK(mr_model_bounds(m, lo, hi) == 1);
    CHECK_NEAR(hi[0], 2.0, 1e-6);  /* joints at x = 0, 1, 2 */
    m->meshes = calloc(1, sizeof *m->meshes);
    m->mesh_count = 1;
    mr_mesh_init(&m->meshes[0], 2, 0, 0);
    glm_vec3_copy((vec3){-1, 5, 3}, m->meshes[0].positions[1]);
    mr_model_bounds(m, lo, hi);
    CHECK(lo[0] == -1.0f && hi[1] == 5.0f && hi[2] == 3.0f);
    int v, t;
    mr_model_counts(m, &v, &t);
    CHECK(v == 2 && t == 0);
    mr_model_destroy(m);
}

TEST(model_display_matrix_z_up_inches)
{
    mr_model *m = mr_model_new("x", "md5");
    m->axes.up = MR_UP_Z;
    m->axes.meters_per_unit = 0.0254f;
    mat4 d;
    mr_model_display_matrix(m, d);
    vec3 up;
    glm_mat4_mulv3(d, (vec3){0, 0, 100}, 1.0f, up);  /* 100 in up is 2.54 m up */
    CHECK_NEAR(up[0], 0.0, 1e-5);
    CHECK_NEAR(up[1], 2.54, 1e-5);
    CHECK_NEAR(up[2], 0.0, 1e-5);
    glm_mat4_mulv3(d, (vec3){0, 1, 0}, 1.0f, up);     /* +Y (left) becomes -Z */
    CHECK_NEAR(up[2], -0.0254, 1e-6);
    m->axes.up = MR_UP_X;
    m->axes.meters_per_unit = 1;
    mr_model_display_matrix(m, d);
    glm_mat4_mulv3(d, (vec3){1, 0, 0}, 1.0f, up);
    CHECK_NEAR(up[1], 1.0, 1e-6);
    mr_model_destroy(m);
}

int main(void)
{
    RUN(model_add_clip_makes_names_unique);
    RUN(model_warnings_are_kept);
    RUN(model_bounds_from_vertices_or_joints);
    RUN(model_display_matrix_z_up_inches);
    return test_summary("model");
}
