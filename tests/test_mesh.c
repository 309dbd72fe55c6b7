/* test_mesh.c — mr_mesh: influence packing and its tie rule, smooth normals, CPU skinning. */
#include "anim/mesh.h"
#include "anim_fixture.h"
#include "test.h"

TEST(influences_pack_keeps_eight_heaviest_renormalised)
{
    int j[10] = {7, 3, 9, 1, 4, 2, 11, 12, 13, 14};
    float w[10] = {0.05f, 0.3f, 0.1f, 0.25f, 0.2f, 0.1f, 0.02f, 0.03f, 0.01f, 0.04f};
    uint16_t oj[MR_MAX_INFLUENCES];
    float ow[MR_MAX_INFLUENCES];
    CHECK(mr_mesh_pack_influences(j, w, 10, NULL, oj, ow) == 10);  /* 10 positive: 2 cut */
    static const uint16_t want[8] = {3, 1, 4, 2, 9, 7, 14, 12};  /* tie 0.1/0.1: joint index without a rule */
    for (int k = 0; k < 8; k++) CHECK_MSG(oj[k] == want[k], "slot %d: joint %d, want %d", k, oj[k], want[k]);
    float sum = 0;
    for (int k = 0; k < 8; k++) sum += ow[k];
    CHECK_NEAR(sum, 1.0, 1e-6);
    CHECK_NEAR(ow[0], 0.3 / 1.07, 1e-6);
    CHECK_NEAR(ow[7], 0.03 / 1.07, 1e-6);
}

TEST(influences_pack_max_four_keeps_four_heaviest)
{
    int j[6] = {7, 3, 9, 1, 4, 2};
    float w[6] = {0.05f, 0.3f, 0.1f, 0.25f, 0.2f, 0.1f};
    uint16_t oj[MR_MAX_INFLUENCES];
    float ow[MR_MAX_INFLUENCES];
    CHECK(mr_mesh_pack_influences(j, w, 6, &(mr_influence_rule){.max = 4}, oj, ow) == 6);
    CHECK(oj[0] == 3 && oj[1] == 1 && oj[2] == 4);
    CHECK(oj[3] == 2);  /* tie 0.1 vs 0.1, no positions or names: lower joint index wins */
    CHECK_NEAR(ow[0] + ow[1] + ow[2] + ow[3], 1.0, 1e-6);
    CHECK_NEAR(ow[0], 0.3 / 0.85, 1e-6);
    for (int k = 4; k < MR_MAX_INFLUENCES; k++) CHECK(ow[k] == 0.0f && oj[k] == 0);
}

TEST(influences_pack_drops_zero_and_negative_weights)
{
    int j[5] = {1, 2, 3, 4, 5};
    float w[5] = {0.0f, 0.5f, -1.0f, 0.5f, 0.0f};
    uint16_t oj[MR_MAX_INFLUENCES];
    float ow[MR_MAX_INFLUENCES];
    CHECK(mr_mesh_pack_influences(j, w, 5, NULL, oj, ow) == 2);  /* only 2 positive: nothing cut */
    CHECK(oj[0] == 2 && oj[1] == 4);
    CHECK(ow[2] == 0.0f && ow[3] == 0.0f);
    CHECK_NEAR(ow[0], 0.5, 1e-6);
}

TEST(influences_pack_no_positive_weight)
{
    int j[2] = {6, 8};
    float w[2] = {0.0f, NAN};
    uint16_t oj[MR_MAX_INFLUENCES];
    float ow[MR_MAX_INFLUENCES];
    CHECK(mr_mesh_pack_influences(j, w, 2, NULL, oj, ow) == 0);
    CHECK(oj[0] == 6 && ow[0] == 1.0f);
}

/* A row with no more influences than slots skips the rule's ranking: it
 * must give what the ranking gives. The same row padded past the slots
 * with zero weights (never kept) is ranked; both must agree to the bit, on
 * rows with equal weights, repeated joints, zero, negative and NaN weights,
 * with and without a rule. */
TEST(influences_pack_within_the_slots_matches_the_ranked_pack)
{
    vec3 origins[6];
    static const char *names[6] = {"f", "e", "d", "c", "b", "a"};
    for (int k = 0; k < 6; k++) glm_vec3_copy((vec3){(float)(k % 3), 0, 0}, origins[k]);
    float vertex[3] = {0.5f, 0, 0};
    static const float pool[] = {0.25f, 0.25f, 0.5f, 0.1f, 0.0f, -0.2f, 0.125f, 1.0f, 0.3f};
    unsigned seed = 99;
    int mismatches = 0;
    for (int trial = 0; trial < 4000; trial++) {
        int n = trial % (MR_MAX_INFLUENCES + 1);
        int j[MR_MAX_INFLUENCES + 1];
        float w[MR_MAX_INFLUENCES + 1];
        for (int i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            j[i] = (int)((seed >> 16) % 6);
            seed = seed * 1103515245u + 12345u;
            unsigned pick = (seed >> 16) % (sizeof pool / sizeof *pool + 1);
            w[i] = pick < sizeof pool / sizeof *pool ? pool[pick] : NAN;
        }
        for (int i = n; i <= MR_MAX_INFLUENCES; i++) {   /* the padding: one past the slots */
            j[i] = i % 6;
            w[i] = 0.0f;
        }
        mr_influence_rule rule = {.vertex = vertex, .origins = (const vec3 *)origins, .names = names};
        const mr_influence_rule *r = trial % 2 ? &rule : NULL;
        uint16_t fj[MR_MAX_INFLUENCES], rj[MR_MAX_INFLUENCES];
        float fw[MR_MAX_INFLUENCES], rw[MR_MAX_INFLUENCES];
        int fn = mr_mesh_pack_influences(j, w, n, r, fj, fw);
        int rn = mr_mesh_pack_influences(j, w, MR_MAX_INFLUENCES + 1, r, rj, rw);
        if (fn != rn || memcmp(fj, rj, sizeof fj) || memcmp(fw, rw, sizeof fw)) mismatches++;
    }
    CHECK_MSG(mismatches == 0, "%d of 4000 rows packed differently", mismatches);
}

/* 12 joints, 12 equal weights: which 8 are kept is decided by distance to
 * the vertex, then by name; never by joint index. */
#define TIE_JOINTS 12
static const char *tie_names[TIE_JOINTS] = {"n01", "n02", "n03", "n04", "n05", "n06",
                                            "n07", "n08", "n09", "n10", "n11", "n12"};

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Packs the 12 equal influences with the joints stored in order perm
 * (storage index s holds joint perm[s]); out_names gets the kept names,
 * sorted (slot order among equal weights follows the joint index). */
static void pack_permuted(const int *perm, const vec3 *origins, const float *vertex, const char **out_names)
{
    const char *names[TIE_JOINTS];
    vec3 org[TIE_JOINTS];
    int j[TIE_JOINTS];
    float w[TIE_JOINTS];
    for (int s = 0; s < TIE_JOINTS; s++) {
        names[s] = tie_names[perm[s]];
        glm_vec3_copy((float *)origins[perm[s]], org[s]);
    }
    /* Influences listed in yet another order: by original joint number. */
    for (int k = 0; k < TIE_JOINTS; k++) {
        for (int s = 0; s < TIE_JOINTS; s++)
            if (perm[s] == k) j[k] = s;
        w[k] = 1.0f / 12.0f;
    }
    uint16_t oj[MR_MAX_INFLUENCES];
    float ow[MR_MAX_INFLUENCES];
    mr_influence_rule rule = {.vertex = vertex, .origins = (const vec3 *)org, .names = names};
    CHECK(mr_mesh_pack_influences(j, w, TIE_JOINTS, &rule, oj, ow) == TIE_JOINTS);
    for (int k = 0; k < MR_MAX_INFLUENCES; k++) {
        out_names[k] = names[oj[k]];
        CHECK_NEAR(ow[k], 0.125, 1e-6);
        if (k) CHECK(oj[k] > oj[k - 1]);
    }
    qsort(out_names, MR_MAX_INFLUENCES, sizeof *out_names, cmp_name);
}

TEST(influences_pack_ties_do_not_depend_on_joint_order)
{
    /* Joints n07-n12 at distinct distances from the vertex, n01-n06 all at
     * one place farther away: the 6 near ones are kept, then two of the far
     * ones by name (n01, n02). Names alone would keep n01-n08. */
    vec3 origins[TIE_JOINTS];
    for (int k = 0; k < TIE_JOINTS; k++)
        glm_vec3_copy((vec3){k >= 6 ? (float)k - 5.0f : 0.0f, k >= 6 ? 0.0f : 10.0f, 0}, origins[k]);
    float vertex[3] = {0, 0, 0};
    static const char *want[8] = {"n01", "n02", "n07", "n08", "n09", "n10", "n11", "n12"};
    int perm[TIE_JOINTS];
    for (int k = 0; k < TIE_JOINTS; k++) perm[k] = k;
    unsigned seed = 12345;
    for (int trial = 0; trial < 50; trial++) {
        const char *got[MR_MAX_INFLUENCES];
        pack_permuted(perm, (const vec3 *)origins, vertex, got);
        for (int k = 0; k < 8; k++)
            CHECK_MSG(!strcmp(got[k], want[k]), "trial %d slot %d: %s, want %s", trial, k, got[k], want[k]);
        for (int k = TIE_JOINTS - 1; k > 0; k--) {  /* next permutation: Fisher-Yates */
            seed = seed * 1103515245u + 12345u;
            int r = (int)((seed >> 16) % (unsigned)(k + 1));
            int t = perm[k];
            perm[k] = perm[r];
            perm[r] = t;
        }
    }
    /* All at one place: names alone decide. */
    for (int k = 0; k < TIE_JOINTS; k++) glm_vec3_copy((vec3){1, 2, 3}, origins[k]);
    for (int k = 0; k < TIE_JOINTS; k++) perm[k] = TIE_JOINTS - 1 - k;
    const char *got[MR_MAX_INFLUENCES];
    pack_permuted(perm, (const vec3 *)origins, vertex, got);
    for (int k = 0; k < 8; k++) CHECK(!strcmp(got[k], tie_names[k]));
}

TEST(influence_origins_are_bind_pose_joint_positions)
{
    mr_skeleton sk;
    fixture_chain(&sk);  /* root at 0, a at x = 1, b at x = 2 */
    glm_quatv(sk.rest_r[1], glm_rad(90.0f), (vec3){0, 0, 1});  /* a turns b to (1, 1, 0) */
    mr_skeleton_compute_inverse_bind(&sk);
    vec3 o[3];
    mr_mesh_influence_origins(&sk, o);
    CHECK_NEAR(o[0][0], 0.0, 1e-6);
    CHECK_NEAR(o[1][0], 1.0, 1e-6);
    CHECK_NEAR(o[2][0], 1.0, 1e-6);
    CHECK_NEAR(o[2][1], 1.0, 1e-6);
    CHECK_NEAR(o[2][2], 0.0, 1e-6);
    mr_skeleton_deinit(&sk);
}

static void make_quad(mr_mesh *m, int skinned)
{
    mr_mesh_init(m, 4, 6, skinned);
    float p[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    for (int i = 0; i < 4; i++) glm_vec3_copy(p[i], m->positions[i]);
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    memcpy(m->indices, idx, sizeof idx);
}

TEST(mesh_normals_face_counter_clockwise_side)
{
    mr_mesh m;
    make_quad(&m, 0);
    mr_mesh_compute_normals(&m);
    for (int i = 0; i < 4; i++) CHECK_NEAR(m.normals[i][2], 1.0, 1e-6);
    mr_mesh_deinit(&m);
}

TEST(mesh_alloc_refuses_bad_counts)
{
    mr_mesh m;
    CHECK(mr_mesh_init(&m, 3, 4, 0) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mesh_init(&m, -1, 3, 0) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mesh_init(&m, 1 << 30, 3, 1) == MR_ERR_NO_MEMORY);
}

TEST(mesh_skin_blends_two_joints)
{
    mr_skeleton sk;
    fixture_chain(&sk);
    mr_mesh m;
    make_quad(&m, 1);
    mr_mesh_compute_normals(&m);
    for (int i = 0; i < 4; i++) {
        m.joints[i][0] = 0;
        m.joints[i][1] = 1;
        m.weights[i][0] = 0.5f;
        m.weights[i][1] = 0.5f;
    }
    mr_pose p;
    mr_pose_init(&p, 3);
    mr_pose_set_rest(&p, &sk);
    p.t[0][2] = 2.0f;  /* root up by 2: every vertex moves up by 2 */
    glm_quatv(p.r[1], glm_rad(90.0f), (vec3){0, 0, 1});
    mat4 model[3], skin[3];
    mr_pose_to_model(&sk, &p, model);
    mr_pose_skinning(&sk, model, skin);
    vec3 pos[4], nrm[4];
    mr_mesh_skin(&m, skin, pos, nrm);
    /* Vertex (1,0,0) sits on joint a: the rotation about a leaves it, root lifts it. */
    CHECK_NEAR(pos[1][0], 1.0, 1e-5);
    CHECK_NEAR(pos[1][2], 2.0, 1e-5);
    /* Vertex (0,0,0): half stays, half rotates about a to (1,-1,0): (0.5,-0.5,2). */
    CHECK_NEAR(pos[0][0], 0.5, 1e-5);
    CHECK_NEAR(pos[0][1], -0.5, 1e-5);
    CHECK_NEAR(nrm[0][2], 1.0, 1e-5);  /* rotation about Z keeps +Z normals */
    mr_pose_deinit(&p);
    mr_mesh_deinit(&m);
    mr_skeleton_deinit(&sk);
}

/* Eight joints, each a different translation: the vertex moves by the
 * weighted sum, and the eighth influence counts as much as the first. */
TEST(mesh_skin_blends_eight_joints)
{
    mr_mesh m;
    make_quad(&m, 1);
    mr_mesh_compute_normals(&m);
    mat4 skin[8];
    for (int j = 0; j < 8; j++) {
        glm_mat4_identity(skin[j]);
        skin[j][3][0] = (float)(j + 1);           /* joint j moves +x by j+1 */
        skin[j][3][1] = j == 7 ? 100.0f : 0.0f;   /* the last one also +y by 100 */
    }
    static const float w[8] = {0.3f, 0.2f, 0.15f, 0.1f, 0.1f, 0.05f, 0.05f, 0.05f};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 8; k++) {
            m.joints[i][k] = (uint16_t)k;
            m.weights[i][k] = w[k];
        }
    CHECK(mr_mesh_influence_count(&m) == 8);
    vec3 pos[4], nrm[4];
    mr_mesh_skin(&m, (const mat4 *)skin, pos, nrm);
    double dx = 0;
    for (int k = 0; k < 8; k++) dx += w[k] * (k + 1);
    for (int i = 0; i < 4; i++) {
        CHECK_NEAR(pos[i][0], m.positions[i][0] + dx, 1e-5);
        CHECK_NEAR(pos[i][1], m.positions[i][1] + 0.05 * 100.0, 1e-4);
        CHECK_NEAR(nrm[i][2], 1.0, 1e-6);
    }
    m.weights[2][7] = 0;
    m.weights[2][4] = m.weights[2][5] = m.weights[2][6] = 0;
    CHECK(mr_mesh_influence_count(&m) == 8);  /* other vertices still use slot 8 */
    for (int i = 0; i < 4; i++) m.weights[i][7] = m.weights[i][6] = m.weights[i][5] = m.weights[i][4] = 0;
    CHECK(mr_mesh_influence_count(&m) == 4);
    mr_mesh_deinit(&m);
}

TEST(mesh_skin_static_mesh_is_copied)
{
    mr_mesh m;
    make_quad(&m, 0);
    vec3 pos[4], nrm[4];
    mr_mesh_skin(&m, NULL, pos, nrm);
    CHECK(pos[2][0] == 1.0f && pos[2][1] == 1.0f);
    mr_mesh_deinit(&m);
}

int main(void)
{
    RUN(influences_pack_keeps_eight_heaviest_renormalised);
    RUN(influences_pack_max_four_keeps_four_heaviest);
    RUN(influences_pack_drops_zero_and_negative_weights);
    RUN(influences_pack_no_positive_weight);
    RUN(influences_pack_within_the_slots_matches_the_ranked_pack);
    RUN(influences_pack_ties_do_not_depend_on_joint_order);
    RUN(influence_origins_are_bind_pose_joint_positions);
    RUN(mesh_normals_face_counter_clockwise_side);
    RUN(mesh_alloc_refuses_bad_counts);
    RUN(mesh_skin_blends_two_joints);
    RUN(mesh_skin_blends_eight_joints);
    RUN(mesh_skin_static_mesh_is_copied);
    return test_summary("mesh");
}
