/* test_pose.c — mr_pose: rest pose, copy, local-to-model, skinning. */
#include <string.h>

#include "anim/override.h"
#include "anim_fixture.h"
#include "test.h"

static float mat_diff(mat4 a, mat4 b)
{
    float d = 0;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) d = fmaxf(d, fabsf(a[c][r] - b[c][r]));
    return d;
}

TEST(pose_make_is_identity)
{
    mr_pose p;
    CHECK(mr_pose_init(&p, 2) == MR_OK);
    CHECK(p.r[1][3] == 1.0f && p.s[0][2] == 1.0f && p.t[1][0] == 0.0f);
    mr_pose_deinit(&p);
    CHECK(mr_pose_init(&p, MR_MAX_JOINTS + 1) == MR_ERR_LIMIT);
}

TEST(pose_set_rest_mismatched_joint_count)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_pose p;
    mr_pose_init(&p, 2);
    CHECK(mr_pose_set_rest(&p, &sk) == MR_ERR_JOINT_COUNT);
    mat4 model[3];
    CHECK(mr_pose_to_model(&sk, &p, model) == MR_ERR_JOINT_COUNT);
    mr_pose q;
    mr_pose_init(&q, 3);
    CHECK(mr_pose_copy(&q, &p) == MR_ERR_JOINT_COUNT);
    mr_pose_deinit(&p);
    mr_pose_deinit(&q);
    mr_skeleton_deinit(&sk);
}

TEST(pose_to_model_null_arguments)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_pose p;
    mr_pose_init(&p, 3);
    mat4 model[3];
    CHECK(mr_pose_to_model(NULL, &p, model) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_pose_to_model(&sk, NULL, model) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_pose_to_model(&sk, &p, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_pose_skinning(&sk, NULL, model) == MR_ERR_INVALID_ARGUMENT);
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

TEST(pose_to_model_matches_matrix_products)
{
    /* Compare the hand-composed TRS path with cglm's generic matrices. */
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_pose p;
    mr_pose_init(&p, 3);
    mr_pose_set_rest(&p, &sk);
    glm_quatv(p.r[0], 0.3f, (vec3){0.0f, 0.6f, 0.8f});
    glm_quatv(p.r[1], -1.1f, (vec3){1, 0, 0});
    glm_vec3_copy((vec3){2, 0.5f, 0.5f}, p.s[1]);
    glm_vec3_copy((vec3){0.1f, -3, 4}, p.t[2]);
    mat4 model[3], expect, local;
    CHECK(mr_pose_to_model(&sk, &p, model) == MR_OK);
    glm_mat4_identity(expect);
    for (int j = 0; j < 3; j++) {
        glm_translate_make(local, p.t[j]);
        glm_quat_rotate(local, p.r[j], local);
        glm_scale(local, p.s[j]);
        glm_mat4_mul(expect, local, expect);
        CHECK(mat_diff(model[j], expect) < 1e-5f);
    }
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

/* 23 joints (groups of 4 and a tail of 3): a second root inside a group,
 * parents in the same group (the joint before, most of them) and in earlier
 * ones, scales and translations of all sizes. */
enum { TREE_JOINTS = 23 };
static void random_tree_of(mr_skeleton *sk, mr_pose *p, int N)
{
    CHECK(mr_skeleton_init(sk, N) == MR_OK);
    for (int j = 0; j < N; j++) sk->parents[j] = j == 0 || j == 10 ? -1 : (j % 3 == 0 ? j - 3 : j - 1);
    mr_pose_init(p, N);
    unsigned seed = 5;
    for (int j = 0; j < N; j++) {
        seed = seed * 1664525u + 1013904223u;
        float a = (float)(seed >> 8) / 16777216.0f;
        glm_quatv(p->r[j], 6.0f * a - 3.0f, (vec3){a, 1.0f - a, 0.5f});
        glm_quat_normalize(p->r[j]);
        glm_vec3_copy((vec3){10.0f * a - 5.0f, 2.0f * a, -3.0f * a}, p->t[j]);
        glm_vec3_copy((vec3){0.5f + a, 1.5f - a, j % 5 == 4 ? -1.0f : 1.0f}, p->s[j]);
    }
}

static void random_tree(mr_skeleton *sk, mr_pose *p)
{
    random_tree_of(sk, p, TREE_JOINTS);
}

TEST(pose_to_model_groups_of_four_match_matrix_products)
{
    /* each model matrix against cglm's generic products of its chain */
    enum { N = TREE_JOINTS };
    mr_skeleton sk;
    mr_pose p;
    random_tree(&sk, &p);
    mat4 model[N], expect[N], local;
    CHECK(mr_pose_to_model(&sk, &p, model) == MR_OK);
    float worst = 0;
    for (int j = 0; j < N; j++) {
        glm_translate_make(local, p.t[j]);
        glm_quat_rotate(local, p.r[j], local);
        glm_scale(local, p.s[j]);
        if (sk.parents[j] < 0) glm_mat4_copy(local, expect[j]);
        else glm_mat4_mul(expect[sk.parents[j]], local, expect[j]);
        float scale = 0;
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) scale = fmaxf(scale, fabsf(expect[j][c][r]));
        worst = fmaxf(worst, mat_diff(model[j], expect[j]) / fmaxf(1.0f, scale));
    }
    CHECK_MSG(worst < 2e-6f, "model matrices differ from the products by %g (relative)", worst);
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

/* Every SIMD level gives the same bits (core/cpu.h; the suite runs again at
 * MARROW_SIMD=sse2): each model matrix against the scalar arithmetic that
 * pose.c's kernels promise, operation for operation: local columns
 * from compose_trs's formulas, then column k = (p0 a + p1 b) + p2 c, plus
 * the parent's translation for k = 3. */
TEST(pose_to_model_gives_the_same_bits_at_every_simd_level)
{
    enum { N = TREE_JOINTS };
    mr_skeleton sk;
    mr_pose p;
    random_tree(&sk, &p);
    mat4 model[N], expect[N];
    CHECK(mr_pose_to_model(&sk, &p, model) == MR_OK);
    int differ = 0;
    for (int j = 0; j < N; j++) {
        float x = p.r[j][0], y = p.r[j][1], z = p.r[j][2], w = p.r[j][3], *s = p.s[j];
        float xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y,
              wz = w * z;
        float local[4][3] = {
            {(1.0f - 2.0f * (yy + zz)) * s[0], 2.0f * (xy + wz) * s[0], 2.0f * (xz - wy) * s[0]},
            {2.0f * (xy - wz) * s[1], (1.0f - 2.0f * (xx + zz)) * s[1], 2.0f * (yz + wx) * s[1]},
            {2.0f * (xz + wy) * s[2], 2.0f * (yz - wx) * s[2], (1.0f - 2.0f * (xx + yy)) * s[2]},
            {p.t[j][0], p.t[j][1], p.t[j][2]},
        };
        int parent = sk.parents[j];
        for (int k = 0; k < 4; k++)
            for (int e = 0; e < 4; e++) {
                if (parent < 0) {
                    expect[j][k][e] = e < 3 ? local[k][e] : k == 3 ? 1.0f : 0.0f;
                    continue;
                }
                const vec4 *m = expect[parent];
                float col = (m[0][e] * local[k][0] + m[1][e] * local[k][1]) + m[2][e] * local[k][2];
                expect[j][k][e] = k == 3 ? col + m[3][e] : col;
            }
        differ += memcmp(model[j], expect[j], sizeof(mat4)) != 0;
    }
    CHECK_MSG(differ == 0, "%d of %d model matrices differ in their bits from the scalar arithmetic", differ, N);
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

/* Local-to-model from the rows a clip cursor interpolates into (pose.h's
 * MR_LOCAL_*) gives the pose's bits, whatever the rows' lanes: a multiple
 * of 8 (every group read 8 joints at a time) or of 4 short of one (the
 * last group read 4 at a time); lanes past the joints hold NaN, which no
 * matrix may take in. At every SIMD level (the suite runs again at
 * MARROW_SIMD=sse2). */
TEST(rows_to_model_gives_the_pose_paths_bits)
{
    static const int shapes[][2] = {{23, 24}, {23, 28}, {20, 20}, {17, 20}, {4, 4}, {3, 4}, {9, 12}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        int n = shapes[k][0], lanes = shapes[k][1];
        mr_skeleton sk;
        mr_pose p;
        random_tree_of(&sk, &p, n);
        float *rows = aligned_alloc(16, sizeof(float) * MR_LOCAL_ROWS * (size_t)lanes);
        for (int i = 0; i < MR_LOCAL_ROWS * lanes; i++) rows[i] = NAN;
        for (int j = 0; j < n; j++) {
            for (int e = 0; e < 4; e++) rows[(MR_LOCAL_QX + e) * lanes + j] = p.r[j][e];
            for (int e = 0; e < 3; e++) {
                rows[(MR_LOCAL_TX + e) * lanes + j] = p.t[j][e];
                rows[(MR_LOCAL_SX + e) * lanes + j] = p.s[j][e];
            }
        }
        mat4 expect[TREE_JOINTS], got[TREE_JOINTS];
        CHECK(mr_pose_to_model(&sk, &p, expect) == MR_OK);
        mr_pose_rows_to_model(&sk, rows, (size_t)lanes, got);
        int differ = 0;
        for (int j = 0; j < n; j++) differ += memcmp(expect[j], got[j], sizeof(mat4)) != 0;
        CHECK_MSG(differ == 0, "%d joints in %d lanes: %d model matrices differ in their bits from the pose's", n, lanes,
                  differ);
        free(rows);
        mr_pose_deinit(&p);
        mr_skeleton_deinit(&sk);
    }
}

TEST(pose_skinning_is_identity_at_rest)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_pose p;
    mr_pose_init(&p, 3);
    mr_pose_set_rest(&p, &sk);
    mat4 model[3], skin[3], id;
    glm_mat4_identity(id);
    mr_pose_to_model(&sk, &p, model);
    CHECK(mr_pose_skinning(&sk, model, skin) == MR_OK);
    for (int j = 0; j < 3; j++) CHECK(mat_diff(skin[j], id) < 1e-6f);
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

TEST(pose_child_follows_parent_rotation)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_pose p;
    mr_pose_init(&p, 3);
    mr_pose_set_rest(&p, &sk);
    glm_quatv(p.r[1], glm_rad(90.0f), (vec3){0, 0, 1});
    mat4 model[3];
    mr_pose_to_model(&sk, &p, model);
    /* a at (1,0,0); b one unit along a's rotated X, i.e. +Y. */
    CHECK_NEAR(model[2][3][0], 1.0, 1e-6);
    CHECK_NEAR(model[2][3][1], 1.0, 1e-6);
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

/* skeleton.h "Inherit modes": a joint flagged in scale_comp under a parent
 * scaled (1, 1, 2) has its origin moved by the scale (T (0,1,1) lands at
 * (0,1,2)) but its axes only turned (orthonormal, no shear); unflagged, the
 * same local is sheared by the parent's scale. Its grandchild (plain)
 * follows it; inverse_bind undoes the flagged rest pose. */
TEST(pose_scale_comp_undoes_the_parents_scale)
{
    mr_skeleton sk;
    CHECK(mr_skeleton_init(&sk, 3) == MR_OK);
    for (int j = 0; j < 3; j++) sk.names[j] = strdup(j == 0 ? "root" : j == 1 ? "a" : "b");
    sk.parents[1] = 0;
    sk.parents[2] = 1;
    glm_vec3_copy((vec3){1, 1, 2}, sk.rest_s[0]);
    glm_vec3_copy((vec3){0, 1, 1}, sk.rest_t[1]);
    glm_quatv(sk.rest_r[1], glm_rad(15.0f), (vec3){1, 0, 0});
    glm_vec3_copy((vec3){0, 1, 0}, sk.rest_t[2]);
    mr_pose p;
    mr_pose_init(&p, 3);
    mr_pose_set_rest(&p, &sk);
    mat4 plain[3], comp[3];
    mr_pose_to_model(&sk, &p, plain);
    float cosp = glm_vec3_dot(plain[1][1], plain[1][2]) / (glm_vec3_norm(plain[1][1]) * glm_vec3_norm(plain[1][2]));
    CHECK_MSG(fabsf(cosp) > 0.1f, "without the flag the child is sheared (cos %g)", cosp);
    CHECK(mr_skeleton_add_scale_comp(&sk) == MR_OK);
    sk.scale_comp[1] = 1;
    mr_skeleton_compute_inverse_bind(&sk);
    mr_pose_to_model(&sk, &p, comp);
    mat4 want;
    glm_translate_make(want, (vec3){0, 1, 2});
    glm_quat_rotate(want, sk.rest_r[1], want);
    CHECK_MSG(mat_diff(comp[1], want) < 1e-6f, "flagged child: T scaled, R unscaled (diff %g)", mat_diff(comp[1], want));
    /* b: plain under a, one unit along a's turned Y */
    CHECK_NEAR(comp[2][3][1], 1.0 + cos(glm_rad(15.0)), 1e-6);
    CHECK_NEAR(comp[2][3][2], 2.0 + sin(glm_rad(15.0)), 1e-6);
    /* one joint's model matrix (IK, overrides, attachments) is the same */
    for (int j = 0; j < 3; j++) {
        mat4 one;
        mr_pose_model_matrix(&sk, &p, j, one);
        CHECK_MSG(mat_diff(one, comp[j]) < 1e-6f, "joint %d: mr_pose_model_matrix %g off", j, mat_diff(one, comp[j]));
    }
    mat4 skin[3], id;
    glm_mat4_identity(id);
    mr_pose_skinning(&sk, comp, skin);
    for (int j = 0; j < 3; j++) CHECK_MSG(mat_diff(skin[j], id) < 1e-5f, "joint %d: skin at rest %g", j, mat_diff(skin[j], id));
    /* the flags travel with a copy */
    mr_skeleton cp;
    CHECK(mr_skeleton_copy(&cp, &sk) == MR_OK);
    CHECK(cp.scale_comp && cp.scale_comp[1] == 1 && cp.scale_comp[2] == 0);
    mr_skeleton_deinit(&cp);
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

int main(void)
{
    RUN(pose_make_is_identity);
    RUN(pose_set_rest_mismatched_joint_count);
    RUN(pose_to_model_null_arguments);
    RUN(pose_to_model_matches_matrix_products);
    RUN(pose_to_model_groups_of_four_match_matrix_products);
    RUN(pose_to_model_gives_the_same_bits_at_every_simd_level);
    RUN(rows_to_model_gives_the_pose_paths_bits);
    RUN(pose_skinning_is_identity_at_rest);
    RUN(pose_child_follows_parent_rotation);
    RUN(pose_scale_comp_undoes_the_parents_scale);
    return test_summary("pose");
}
