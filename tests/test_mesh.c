/* test_mesh.c — mr_mesh: influence packing, smooth normals, CPU skinning. */
#include "anim/mesh.h"
#include "anim_fixture.h"
#include "test.h"

TEST(influences_pack_keeps_four_heaviest_renormalised)
{
    int j[6] = {7, 3, 9, 1, 4, 2};
    float w[6] = {0.05f, 0.3f, 0.1f, 0.25f, 0.2f, 0.1f};
    uint16_t oj[4];
    float ow[4];
    CHECK(mr_influences_pack(j, w, 6, oj, ow) == 1);
    CHECK(oj[0] == 3 && oj[1] == 1 && oj[2] == 4);
    CHECK(oj[3] == 2);  /* tie 0.1 vs 0.1: lower joint index wins */
    CHECK_NEAR(ow[0] + ow[1] + ow[2] + ow[3], 1.0, 1e-6);
    CHECK_NEAR(ow[0], 0.3 / 0.85, 1e-6);
}

TEST(influences_pack_drops_zero_and_negative_weights)
{
    int j[5] = {1, 2, 3, 4, 5};
    float w[5] = {0.0f, 0.5f, -1.0f, 0.5f, 0.0f};
    uint16_t oj[4];
    float ow[4];
    CHECK(mr_influences_pack(j, w, 5, oj, ow) == 0);  /* only 2 positive: nothing cut */
    CHECK(oj[0] == 2 && oj[1] == 4);
    CHECK(ow[2] == 0.0f && ow[3] == 0.0f);
    CHECK_NEAR(ow[0], 0.5, 1e-6);
}

TEST(influences_pack_no_positive_weight)
{
    int j[2] = {6, 8};
    float w[2] = {0.0f, NAN};
    uint16_t oj[4];
    float ow[4];
    CHECK(mr_influences_pack(j, w, 2, oj, ow) == -1);
    CHECK(oj[0] == 6 && ow[0] == 1.0f);
}

static void make_quad(mr_mesh *m, int skinned)
{
    mr_mesh_alloc(m, 4, 6, skinned);
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
    mr_mesh_destroy(&m);
}

TEST(mesh_alloc_refuses_bad_counts)
{
    mr_mesh m;
    CHECK(mr_mesh_alloc(&m, 3, 4, 0) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mesh_alloc(&m, -1, 3, 0) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mesh_alloc(&m, 1 << 30, 3, 1) == MR_ERR_NO_MEMORY);
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
    mr_pose_make(&p, 3);
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
    mr_pose_destroy(&p);
    mr_mesh_destroy(&m);
    mr_skeleton_destroy(&sk);
}

TEST(mesh_skin_static_mesh_is_copied)
{
    mr_mesh m;
    make_quad(&m, 0);
    vec3 pos[4], nrm[4];
    mr_mesh_skin(&m, NULL, pos, nrm);
    CHECK(pos[2][0] == 1.0f && pos[2][1] == 1.0f);
    mr_mesh_destroy(&m);
}

int main(void)
{
    RUN(influences_pack_keeps_four_heaviest_renormalised);
    RUN(influences_pack_drops_zero_and_negative_weights);
    RUN(influences_pack_no_positive_weight);
    RUN(mesh_normals_face_counter_clockwise_side);
    RUN(mesh_alloc_refuses_bad_counts);
    RUN(mesh_skin_blends_two_joints);
    RUN(mesh_skin_static_mesh_is_copied);
    return test_summary("mesh");
}
