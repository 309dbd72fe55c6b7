/* test_model.c — mr_model: clips, warnings, bounds, display frame. */
#include "anim/model.h"

#include <math.h>
#include <string.h>
#include "anim_fixture.h"
#include "test.h"

TEST(model_add_clip_makes_names_unique)
{
    mr_model *m = NULL;
    mr_model_create("x.md5mesh", "md5", &m);
    for (int i = 0; i < 3; i++) {
        mr_clip *c = NULL;
        CHECK(mr_clip_create("walk", 0, &c) == MR_OK);
        CHECK(mr_model_add_clip(m, c) == MR_OK);
    }
    CHECK(m->clip_count == 3);
    CHECK(strcmp(m->clips[1]->name, "walk#2") == 0);
    CHECK(strcmp(m->clips[2]->name, "walk#3") == 0);
    CHECK(mr_model_find_clip(m, "walk#3") == m->clips[2]);
    CHECK(mr_model_find_clip(m, "run") == NULL);
    mr_model_destroy(m);
}

TEST(model_warnings_are_kept)
{
    mr_model *m = NULL;
    mr_model_create("x", "md5", &m);
    mr_model_warn(m, "%d vertices had more than 4 weights", 12);
    CHECK(m->warning_count == 1);
    CHECK_STR_CONTAINS(m->warnings[0], "12 vertices");
    mr_model_destroy(m);
}

TEST(model_warnings_are_printable_lines_and_bounded)
{
    mr_model *m = NULL;
    mr_model_create("x", "fbx", &m);
    mr_model_warn(m, "joint \"%s\" has no parent", "evil\n\033]0;pwned\007\x7f");
    CHECK_MSG(!strcmp(m->warnings[0], "joint \"evil??]0;pwned??\" has no parent"), "warning \"%s\"", m->warnings[0]);
    for (int i = 0; i < 5000; i++) mr_model_warn(m, "warning %d", i);
    CHECK(m->warning_count == MR_MODEL_MAX_WARNINGS + 1);
    CHECK_STR_CONTAINS(m->warnings[MR_MODEL_MAX_WARNINGS], "the rest are not kept");
    CHECK(!strcmp(m->warnings[MR_MODEL_MAX_WARNINGS - 1], "warning 998"));
    mr_model_destroy(m);
}

TEST(model_bounds_from_vertices_or_joints)
{
    mr_model *m = NULL;
    mr_model_create("x", "md5", &m);
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
    mr_model *m = NULL;
    mr_model_create("x", "md5", &m);
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

/* The slerp budget as clip.h defines it, computed the textbook way: every
 * point (joint origin, vertex for each joint that moves it) walks its joint's
 * chain to the root in the bind and the rest pose, one sqrt per step. The
 * point reach (clip_runtime.h): each joint's own vertices only, no walk. */
static void textbook_budget(const mr_model *m, float *angle, float *move, float *point_reach)
{
    const mr_skeleton *sk = &m->skeleton;
    int n = sk->joint_count;
    vec3 lo, hi;
    mr_model_bounds(m, lo, hi);
    double diag = glm_vec3_distance(lo, hi), reach[64] = {0}, own[64] = {0}, down[64], up[64];
    float bind[64][3], rest[64][3];
    mat4 world[64], skin[64];
    for (int j = 0; j < n; j++) {
        mat4 b, local;
        glm_mat4_inv(sk->inverse_bind[j], b);
        glm_vec3_copy(b[3], bind[j]);
        mr_pose_trs_matrix(sk->rest_t[j], sk->rest_r[j], sk->rest_s[j], local);
        if (sk->parents[j] >= 0) glm_mat4_mul(world[sk->parents[j]], local, world[j]);
        else glm_mat4_copy(local, world[j]);
        glm_vec3_copy(world[j][3], rest[j]);
        glm_mat4_mul(world[j], sk->inverse_bind[j], skin[j]);
    }
    /* As model.c: when the points carried to rest (non-root joints, and each
     * vertex by each joint that moves it) span a size more than 2x from the
     * stored bounds, that size is the model's and reaches are rest-only. */
    vec3 rlo = {FLT_MAX, FLT_MAX, FLT_MAX}, rhi = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
    int points = 0, elsewhere = 0;
    for (int j = 0; j < n; j++)
        if (sk->parents[j] >= 0) {
            glm_vec3_minv(rlo, rest[j], rlo);
            glm_vec3_maxv(rhi, rest[j], rhi);
            points++;
        }
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_mesh *me = &m->meshes[i];
        for (int v = 0; v < me->vertex_count; v++)
            for (int k = 0; k < MR_MAX_INFLUENCES; k++) {
                int j = me->joints[v][k];
                if (!(me->weights[v][k] > 0) || j >= n) continue;
                vec3 p;
                glm_mat4_mulv3(skin[j], me->positions[v], 1.0f, p);
                glm_vec3_minv(rlo, p, rlo);
                glm_vec3_maxv(rhi, p, rhi);
                points++;
            }
    }
    if (points) {
        double posed = glm_vec3_distance(rlo, rhi);
        if (posed > 0 && isfinite(posed) && (posed > 2 * diag || 2 * posed < diag)) {
            diag = posed;
            elsewhere = 1;
        }
    }
#define WALK(pos, from, pt) \
    for (int a = (from); a >= 0; a = sk->parents[a]) { \
        double dx = (double)(pt)[0] - pos[a][0], dy = (double)(pt)[1] - pos[a][1], dz = (double)(pt)[2] - pos[a][2]; \
        double d = sqrt(dx * dx + dy * dy + dz * dz); \
        if (d > reach[a]) reach[a] = d; \
    }
    for (int j = 0; j < n; j++) {
        if (!elsewhere) WALK(bind, sk->parents[j], bind[j]);
        WALK(rest, sk->parents[j], rest[j]);
    }
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_mesh *me = &m->meshes[i];
        for (int v = 0; v < me->vertex_count; v++)
            for (int k = 0; k < MR_MAX_INFLUENCES; k++) {
                int j = me->joints[v][k];
                if (!(me->weights[v][k] > 0) || j >= n) continue;
                vec3 p;
                glm_mat4_mulv3(skin[j], me->positions[v], 1.0f, p);
                if (!elsewhere) WALK(bind, j, me->positions[v]);
                WALK(rest, j, p);
                for (int pass = elsewhere; pass < 2; pass++) {
                    const float *at = pass ? rest[j] : bind[j], *pt = pass ? p : me->positions[v];
                    double dx = (double)pt[0] - at[0], dy = (double)pt[1] - at[1], dz = (double)pt[2] - at[2];
                    double d = sqrt(dx * dx + dy * dy + dz * dz);
                    if (d > own[j]) own[j] = d;
                }
            }
    }
#undef WALK
    /* every reach grows by the virtual points' distance (clip_runtime.h) */
    for (int j = 0; j < n; j++) reach[j] += MR_CLIP_POINT_DISTANCE * diag;
    for (int j = 0; j < n; j++) {
        own[j] += MR_CLIP_POINT_DISTANCE * diag;
        point_reach[j] = (float)(own[j] < reach[j] ? own[j] : reach[j]);
    }
    for (int j = 0; j < n; j++) down[j] = reach[j] + (sk->parents[j] >= 0 ? down[sk->parents[j]] : 0.0);
    for (int j = 0; j < n; j++) up[j] = reach[j];
    for (int j = n - 1; j >= 0; j--) {
        int p = sk->parents[j];
        if (p >= 0 && up[j] + reach[p] > up[p]) up[p] = up[j] + reach[p];
    }
    for (int j = 0; j < n; j++) {
        double chain = down[j] + up[j] - reach[j];
        if (chain < 1e-3 * diag) chain = 1e-3 * diag;
        angle[j] = (float)(0.5 * MR_CLIP_FIDELITY * diag / chain);
        move[j] = (float)(0.5 * angle[j] * reach[j]);
    }
}

static float unit_rand(unsigned *state)  /* [-1, 1) */
{
    *state = *state * 1664525u + 1013904223u;
    return (float)(*state >> 8) / 8388608.0f - 1.0f;
}

/* mr_model_add_clip's budget (squared distances, points sorted by subtree,
 * SIMD, reused while the model hashes the same) must equal the textbook
 * walk bit for bit, also after an in-place edit of a vertex: skeletons numbered
 * breadth-first (subtrees not contiguous), several roots, two meshes,
 * joints named twice in a vertex, zero weights in any slot, joint indices
 * past the skeleton, repeated vertices (and repeated positions with other
 * joints), scaled and rotated rest poses away from the bind pose. */
TEST(model_add_clip_budget_equals_textbook_walks)
{
    unsigned seed = 7;
    for (int trial = 0; trial < 40; trial++) {
        mr_model *m = NULL;
        CHECK(mr_model_create("x", "md5", &m) == MR_OK);
        int n = 1 + trial % 37;
        CHECK(mr_skeleton_init(&m->skeleton, n) == MR_OK);
        mr_skeleton *sk = &m->skeleton;
        for (int j = 1; j < n; j++)  /* parent < j, any earlier joint: breadth-first shapes too */
            sk->parents[j] = (trial % 5 == 0 && j % 7 == 0) ? -1 : (int)((unit_rand(&seed) + 1.0f) * 0.5f * (float)j);
        for (int j = 0; j < n; j++) {
            for (int c = 0; c < 3; c++) sk->rest_t[j][c] = unit_rand(&seed);
            glm_quatv(sk->rest_r[j], 0.3f * unit_rand(&seed), (vec3){0.3f, 1, unit_rand(&seed)});
        }
        mr_skeleton_compute_inverse_bind(sk);  /* the bind pose, then move the rest pose away from it */
        for (int j = 0; j < n; j++) {
            for (int c = 0; c < 3; c++) sk->rest_t[j][c] += 0.2f * unit_rand(&seed);
            if (trial % 3 == 0) glm_vec3_fill(sk->rest_s[j], 1.0f + 0.5f * unit_rand(&seed));
        }
        m->mesh_count = 2;
        m->meshes = calloc(2, sizeof *m->meshes);
        for (int i = 0; i < 2; i++) {
            mr_mesh *me = &m->meshes[i];
            CHECK(mr_mesh_init(me, 30 + 11 * i, 0, 1) == MR_OK);
            for (int v = 0; v < me->vertex_count; v++) {
                for (int c = 0; c < 3; c++) me->positions[v][c] = 3.0f * unit_rand(&seed);
                for (int k = 0; k < MR_MAX_INFLUENCES; k++) {
                    float r = unit_rand(&seed);
                    me->joints[v][k] = (uint16_t)((unit_rand(&seed) + 1.0f) * 0.5f * (float)(n + 1));  /* n: out of range */
                    me->weights[v][k] = r > 0.2f ? 0.0f : r + 1.0f;
                }
                if (v % 4 == 0) me->joints[v][1] = me->joints[v][0];
                if (v % 9 == 0) me->joints[v][2] = 40000;  /* past 32767 too */
                if (v % 5 == 3) {  /* a corner repeated (as COLLADA meshes do) */
                    memcpy(me->positions[v], me->positions[v - 2], sizeof me->positions[v]);
                    memcpy(me->joints[v], me->joints[v - 2], sizeof me->joints[v]);
                    memcpy(me->weights[v], me->weights[v - 2], sizeof me->weights[v]);
                    if (v % 3 == 0) me->weights[v][7] = 0.5f;  /* same place, one influence more */
                }
                if (v % 7 == 6) memcpy(me->positions[v], me->positions[v - 1], sizeof me->positions[v]);
            }
        }
        /* Three clips: the second reuses the first's budget, the third
         * comes after an in-place edit of one vertex (same pointers). */
        for (int c = 0; c < 3; c++) {
            if (c == 2) m->meshes[1].positions[trial % 41][c % 3] += 9.0f;
            float angle[64], move[64], point_reach[64];
            textbook_budget(m, angle, move, point_reach);
            mr_clip *clip = NULL;
            CHECK(mr_clip_create("walk", n, &clip) == MR_OK);
            CHECK(mr_model_add_clip(m, clip) == MR_OK);
            const mr_clip_runtime *rt = clip->runtime;
            CHECK_MSG(rt && rt->max_angle && memcmp(rt->max_angle, angle, (size_t)n * sizeof *angle) == 0,
                      "trial %d clip %d: max_angle differs from the textbook walk", trial, c);
            CHECK_MSG(rt && rt->max_move && memcmp(rt->max_move, move, (size_t)n * sizeof *move) == 0,
                      "trial %d clip %d: max_move differs from the textbook walk", trial, c);
            CHECK_MSG(rt && rt->point_reach &&
                          memcmp(rt->point_reach, point_reach, (size_t)n * sizeof *point_reach) == 0,
                      "trial %d clip %d: point_reach differs from the textbook's own vertices", trial, c);
        }
        mr_model_destroy(m);
    }
}

int main(void)
{
    RUN(model_add_clip_makes_names_unique);
    RUN(model_warnings_are_kept);
    RUN(model_warnings_are_printable_lines_and_bounded);
    RUN(model_bounds_from_vertices_or_joints);
    RUN(model_display_matrix_z_up_inches);
    RUN(model_add_clip_budget_equals_textbook_walks);
    return test_summary("model");
}
