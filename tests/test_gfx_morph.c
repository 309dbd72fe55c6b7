/* test_gfx_morph.c — morph targets and dual-quaternion skinning on the GPU
 * (headless, llvmpipe) against the CPU path of `marrow pose`
 * (mr_morph_apply + mr_mesh_skin_with): a twisted two-joint limb with a
 * "bulge" target, drawn skinned by the renderer and, as a static model,
 * pre-skinned on the CPU; the two pictures must match the way test_gfx's
 * GPU and CPU skinning do, and differ where they must (linear vs dq,
 * weight 0 vs 0.8).
 *
 * Set MARROW_TEST_OUT=DIR to keep the pictures as PNGs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "anim/model.h"
#include "anim/morph.h"
#include "core/str.h"
#include "gfx/renderer.h"
#include "platform/window.h"
#include "test.h"

enum { W = 320, H = 240, RINGS = 33, SIDES = 24 };
#define RADIUS 0.25f

static mr_window *win;
static mr_renderer *ren;
static uint8_t img_a[W * H * 4], img_b[W * H * 4];

static void keep(const char *name, const uint8_t *px)
{
    const char *dir = getenv("MARROW_TEST_OUT");
    if (!dir || !*dir) return;
    mkdir(dir, 0777);
    char path[512];
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    mr_gfx_write_png(path, px, W, H, NULL);
}

/* A tube along +X from 0 to 2 (RINGS x SIDES vertices, capless), joints 0
 * at the origin and 1 at x = 1, joint 1's weight rising from 0 at x = 0.5
 * to 1 at x = 1.5; one morph target "bulge" pushing the middle rings out. */
static mr_model *limb_model(void)
{
    mr_model *m = NULL;
    mr_model_create("limb", "test", &m);
    mr_skeleton_init(&m->skeleton, 2);
    m->skeleton.names[0] = mr_str_dup("upper");
    m->skeleton.names[1] = mr_str_dup("fore");
    m->skeleton.parents[0] = -1;
    m->skeleton.parents[1] = 0;
    m->skeleton.rest_t[1][0] = 1;
    glm_translate_make(m->skeleton.inverse_bind[1], (vec3){-1, 0, 0});
    m->mesh_count = 1;
    m->meshes = calloc(1, sizeof *m->meshes);
    mr_mesh *q = &m->meshes[0];
    mr_mesh_init(q, RINGS * SIDES, (RINGS - 1) * SIDES * 6, 1);
    mr_morph_set_create(1, q->vertex_count, &q->morph);
    free(q->morph->targets[0].name);
    q->morph->targets[0].name = mr_str_dup("bulge");
    for (int r = 0; r < RINGS; r++) {
        float x = 2.0f * (float)r / (RINGS - 1);
        float w1 = fminf(fmaxf(x - 0.5f, 0.0f), 1.0f);
        float bulge = 0.6f * RADIUS * fmaxf(0.0f, 1.0f - fabsf(x - 0.6f) / 0.4f);
        for (int s = 0; s < SIDES; s++) {
            int v = r * SIDES + s;
            float a = 2.0f * (float)M_PI * (float)s / SIDES;
            glm_vec3_copy((vec3){x, RADIUS * cosf(a), RADIUS * sinf(a)}, q->positions[v]);
            glm_vec3_copy((vec3){0, cosf(a), sinf(a)}, q->normals[v]);
            glm_vec3_copy((vec3){0, bulge * cosf(a), bulge * sinf(a)}, q->morph->targets[0].positions[v]);
            q->joints[v][0] = 0;
            q->joints[v][1] = 1;
            q->weights[v][0] = 1.0f - w1;
            q->weights[v][1] = w1;
        }
    }
    int t = 0;
    for (int r = 0; r + 1 < RINGS; r++)
        for (int s = 0; s < SIDES; s++) {
            uint32_t a = (uint32_t)(r * SIDES + s), b = (uint32_t)(r * SIDES + (s + 1) % SIDES);
            uint32_t c = a + SIDES, d = b + SIDES;
            uint32_t tri[6] = {a, c, b, b, c, d};
            memcpy(q->indices + t, tri, sizeof tri);
            t += 6;
        }
    return m;
}

/* Skin matrices of the limb with the forearm twisted by deg about X. */
static void twist(float deg, mat4 skin[2])
{
    glm_mat4_identity(skin[0]);
    mat4 to, rot, back;
    glm_translate_make(to, (vec3){1, 0, 0});
    glm_rotate_make(rot, glm_rad(deg), (vec3){1, 0, 0});
    glm_translate_make(back, (vec3){-1, 0, 0});
    glm_mat4_mulN((mat4 *[]){&to, &rot, &back}, 3, skin[1]);
}

/* A static copy of the limb morphed and skinned on the CPU, as `marrow
 * pose` does. */
static mr_model *cpu_copy_blend(const mr_model *src, const mat4 *skin, mr_skinning mode, float weight, const float *mask,
                               const float *blend)
{
    mr_model *m = NULL;
    mr_model_create("limb-cpu", "test", &m);
    m->mesh_count = 1;
    m->meshes = calloc(1, sizeof *m->meshes);
    const mr_mesh *s = &src->meshes[0];
    mr_mesh *d = &m->meshes[0];
    mr_mesh_init(d, s->vertex_count, s->index_count, 0);
    mr_morph_apply(s, &weight, d->positions, d->normals);
    mr_mesh_skin_with(s, skin,
                      &(mr_skin_opts){.mode = mode, .positions = d->positions, .normals = d->normals,
                                      .joint_blend = mask, .blend = blend},
                      d->positions, d->normals);
    memcpy(d->indices, s->indices, (size_t)s->index_count * sizeof *s->indices);
    return m;
}

static mr_model *cpu_copy(const mr_model *src, const mat4 *skin, mr_skinning mode, float weight, const float *mask)
{
    return cpu_copy_blend(src, skin, mode, weight, mask, NULL);
}

static void render(mr_gpu_model g, const mat4 *skin, int joints, const mr_draw_style *style, uint8_t *out)
{
    mr_scene sc = {0};
    sc.camera.yaw = 20;
    sc.camera.pitch = 25;
    mr_camera_frame_bounds(&sc.camera, (vec3){-0.1f, -0.5f, -0.5f}, (vec3){2.1f, 0.5f, 0.5f}, (float)W / H);
    sc.floor_y = -0.6f;
    sc.floor_extent = 3;
    CHECK(mr_renderer_begin_frame(ren, &sc) == MR_OK);
    CHECK(mr_renderer_draw_model(ren, g, skin, joints, GLM_MAT4_IDENTITY, style) == MR_OK);
    CHECK(mr_renderer_end_frame(ren) == MR_OK);
    CHECK(mr_renderer_read_pixels(ren, out, (size_t)W * H * 4) == MR_OK);
}

static int pixel_diff(const uint8_t *a, const uint8_t *b)
{
    int d = 0;
    for (int c = 0; c < 3; c++) d = abs(a[c] - b[c]) > d ? abs(a[c] - b[c]) : d;
    return d;
}

static int count_diff(const uint8_t *a, const uint8_t *b, int threshold)
{
    int n = 0;
    for (int i = 0; i < W * H; i++) n += pixel_diff(a + i * 4, b + i * 4) > threshold;
    return n;
}

/* GPU (skinned draw with style) against the CPU copy: the same pixels but
 * float rounding at edges (test_gfx's bound). mask: per-joint dq shares. */
static void gpu_vs_cpu_mask(const mr_model *limb, mr_gpu_model g, mr_skinning mode, float weight, const float *mask,
                            const char *name)
{
    mat4 skin[2];
    twist(150, skin);
    mr_model *cpu = cpu_copy(limb, (const mat4 *)skin, mode, weight, mask);
    mr_gpu_model cg;
    mr_error err = {0};
    CHECK(mr_renderer_upload_model(ren, cpu, &cg, &err) == MR_OK);
    render(g, (const mat4 *)skin, 2,
           &(mr_draw_style){.skinning = (int)mode, .morph_weights = &weight, .morph_weight_count = 1,
                            .skinning_mask = mask},
           img_a);
    render(cg, NULL, 0, NULL, img_b);
    char n[64];
    snprintf(n, sizeof n, "%s_gpu", name);
    keep(n, img_a);
    snprintf(n, sizeof n, "%s_cpu", name);
    keep(n, img_b);
    int over = count_diff(img_a, img_b, 24);
    printf("       %s: %d pixels differ by more than 24\n", name, over);
    CHECK_MSG(over <= W * H / 2000, "%s: %d pixels differ by more than 24", name, over);
    mr_renderer_release_model(ren, cg);
    mr_model_destroy(cpu);
}

static void gpu_vs_cpu(const mr_model *limb, mr_gpu_model g, mr_skinning mode, float weight, const char *name)
{
    gpu_vs_cpu_mask(limb, g, mode, weight, NULL, name);
}

TEST(gpu_dual_quaternion_and_morph_match_the_cpu_path)
{
    mr_model *limb = limb_model();
    mr_gpu_model g;
    mr_error err = {0};
    CHECK(mr_renderer_upload_model(ren, limb, &g, &err) == MR_OK);
    CHECK(mr_renderer_morph_weight_count(ren, g) == 1);
    gpu_vs_cpu(limb, g, MR_SKINNING_LINEAR, 0.0f, "linear");
    gpu_vs_cpu(limb, g, MR_SKINNING_DUAL_QUATERNION, 0.0f, "dq");
    gpu_vs_cpu(limb, g, MR_SKINNING_DUAL_QUATERNION, 0.8f, "dq_bulge");
    gpu_vs_cpu(limb, g, MR_SKINNING_LINEAR, 0.8f, "linear_bulge");
    /* A mask: the upper arm linear, the forearm dual quaternions. */
    gpu_vs_cpu_mask(limb, g, MR_SKINNING_DUAL_QUATERNION, 0.0f, (const float[]){0.0f, 1.0f}, "dq_mask");
    gpu_vs_cpu_mask(limb, g, MR_SKINNING_DUAL_QUATERNION, 0.0f, (const float[]){0.5f, 0.5f}, "dq_half");
    mr_renderer_release_model(ren, g);
    mr_model_destroy(limb);
}

TEST(gpu_skinning_mode_and_morph_weight_change_the_picture)
{
    mr_model *limb = limb_model();
    mr_gpu_model g;
    mr_error err = {0};
    CHECK(mr_renderer_upload_model(ren, limb, &g, &err) == MR_OK);
    mat4 skin[2];
    twist(150, skin);
    float w0 = 0.0f, w1 = 0.8f;
    render(g, (const mat4 *)skin, 2, &(mr_draw_style){.morph_weights = &w0, .morph_weight_count = 1}, img_a);
    render(g, (const mat4 *)skin, 2,
           &(mr_draw_style){.skinning = MR_SKINNING_DUAL_QUATERNION, .morph_weights = &w0, .morph_weight_count = 1},
           img_b);
    keep("twist_linear", img_a);
    keep("twist_dq", img_b);
    CHECK_MSG(count_diff(img_a, img_b, 24) > W * H / 200, "linear and dq pictures differ in %d pixels only",
              count_diff(img_a, img_b, 24));
    render(g, (const mat4 *)skin, 2, &(mr_draw_style){.morph_weights = &w1, .morph_weight_count = 1}, img_b);
    CHECK_MSG(count_diff(img_a, img_b, 24) > W * H / 200, "weights 0 and 0.8 differ in %d pixels only",
              count_diff(img_a, img_b, 24));
    /* NULL weights: the mesh's defaults (0 here): the weight-0 picture. */
    render(g, (const mat4 *)skin, 2, NULL, img_b);
    CHECK(memcmp(img_a, img_b, sizeof img_a) == 0);
    /* A weight count other than the model's is refused. */
    CHECK(mr_renderer_begin_frame(ren, &(mr_scene){0}) == MR_OK);
    float two[2] = {0, 0};
    CHECK(mr_renderer_draw_model(ren, g, (const mat4 *)skin, 2, GLM_MAT4_IDENTITY,
                                 &(mr_draw_style){.morph_weights = two, .morph_weight_count = 2}) ==
          MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_renderer_end_frame(ren) == MR_OK);
    mr_renderer_release_model(ren, g);
    mr_model_destroy(limb);
}

/* A mesh's own skinning mode (mr_mesh.skinning, dq_blend: FBX
 * SkinningType): a draw whose style leaves it (skinning 0, not fixed)
 * skins the mesh as `marrow pose` does without --skinning: dual
 * quaternions for a DualQuaternion mesh, the per-vertex blend of linear
 * and dq for a Blend mesh (the upper half linear, the forearm dq, a ramp
 * between); fixed_skinning linear and skinning dq still override it. */
TEST(gpu_skinning_follows_the_meshs_own_mode)
{
    mr_model *limb = limb_model();
    mr_mesh *q = &limb->meshes[0];
    q->skinning = MR_SKINNING_DUAL_QUATERNION;
    mr_gpu_model g;
    mr_error err = {0};
    CHECK(mr_renderer_upload_model(ren, limb, &g, &err) == MR_OK);
    mat4 skin[2];
    twist(150, skin);
    float w0 = 0.0f;
    mr_model *lin = cpu_copy(limb, (const mat4 *)skin, MR_SKINNING_LINEAR, 0.0f, NULL);
    mr_model *dq = cpu_copy(limb, (const mat4 *)skin, MR_SKINNING_DUAL_QUATERNION, 0.0f, NULL);
    mr_gpu_model glin, gdq;
    CHECK(mr_renderer_upload_model(ren, lin, &glin, &err) == MR_OK);
    CHECK(mr_renderer_upload_model(ren, dq, &gdq, &err) == MR_OK);
    uint8_t *ref_lin = malloc(sizeof img_a), *ref_dq = malloc(sizeof img_a);
    render(glin, NULL, 0, NULL, ref_lin);
    render(gdq, NULL, 0, NULL, ref_dq);
    CHECK_MSG(count_diff(ref_lin, ref_dq, 24) > W * H / 200, "the CPU's linear and dq pictures differ in %d pixels only",
              count_diff(ref_lin, ref_dq, 24));
    /* the mesh's own mode: dual quaternions */
    render(g, (const mat4 *)skin, 2, &(mr_draw_style){.morph_weights = &w0, .morph_weight_count = 1}, img_a);
    keep("own_dq_gpu", img_a);
    int over = count_diff(img_a, ref_dq, 24);
    printf("       own mode dq vs cpu dq: %d pixels differ by more than 24; vs cpu linear %d\n", over,
           count_diff(img_a, ref_lin, 24));
    CHECK_MSG(over <= W * H / 2000, "a DualQuaternion mesh drawn with its own mode: %d pixels off the CPU's dq", over);
    /* a fixed linear draw: linear */
    render(g, (const mat4 *)skin, 2,
           &(mr_draw_style){.fixed_skinning = 1, .morph_weights = &w0, .morph_weight_count = 1}, img_a);
    CHECK_MSG(count_diff(img_a, ref_lin, 24) <= W * H / 2000, "fixed linear: %d pixels off the CPU's linear",
              count_diff(img_a, ref_lin, 24));
    /* per-vertex blend factors (FBX Blend): 0 on the upper arm, 1 on the
     * forearm, a ramp between, as on the CPU */
    q->dq_blend = calloc((size_t)q->vertex_count, sizeof *q->dq_blend);
    for (int v = 0; v < q->vertex_count; v++) q->dq_blend[v] = fminf(fmaxf((q->positions[v][0] - 0.8f) / 0.6f, 0.0f), 1.0f);
    mr_gpu_model gb;
    CHECK(mr_renderer_upload_model(ren, limb, &gb, &err) == MR_OK);
    mr_model *bl = cpu_copy_blend(limb, (const mat4 *)skin, MR_SKINNING_DUAL_QUATERNION, 0.0f, NULL, q->dq_blend);
    mr_gpu_model gbl;
    CHECK(mr_renderer_upload_model(ren, bl, &gbl, &err) == MR_OK);
    render(gbl, NULL, 0, NULL, img_b);
    render(gb, (const mat4 *)skin, 2, &(mr_draw_style){.morph_weights = &w0, .morph_weight_count = 1}, img_a);
    keep("own_blend_gpu", img_a);
    keep("own_blend_cpu", img_b);
    over = count_diff(img_a, img_b, 24);
    printf("       own mode blend vs cpu blend: %d pixels differ by more than 24; vs cpu linear %d, vs cpu dq %d\n", over,
           count_diff(img_a, ref_lin, 24), count_diff(img_a, ref_dq, 24));
    CHECK_MSG(over <= W * H / 2000, "a Blend mesh drawn with its own mode: %d pixels off the CPU's blend", over);
    CHECK_MSG(count_diff(img_b, ref_lin, 24) > W * H / 400 && count_diff(img_b, ref_dq, 24) > W * H / 400,
              "the blend is neither all linear nor all dq (%d, %d pixels)", count_diff(img_b, ref_lin, 24),
              count_diff(img_b, ref_dq, 24));
    /* a draw asking for dq everywhere ignores the per-vertex factors */
    render(gb, (const mat4 *)skin, 2,
           &(mr_draw_style){.skinning = MR_SKINNING_DUAL_QUATERNION, .morph_weights = &w0, .morph_weight_count = 1},
           img_a);
    CHECK_MSG(count_diff(img_a, ref_dq, 24) <= W * H / 2000, "style dq over a Blend mesh: %d pixels off the CPU's dq",
              count_diff(img_a, ref_dq, 24));
    free(ref_lin);
    free(ref_dq);
    mr_renderer_release_model(ren, gbl);
    mr_renderer_release_model(ren, gb);
    mr_renderer_release_model(ren, gdq);
    mr_renderer_release_model(ren, glin);
    mr_renderer_release_model(ren, g);
    mr_model_destroy(bl);
    mr_model_destroy(dq);
    mr_model_destroy(lin);
    mr_model_destroy(limb);
}

int main(void)
{
    mr_error err = {0};
    mr_window_create(&(mr_window_desc){.width = W, .height = H, .headless = 1}, &win, &err);
    if (!win || mr_renderer_create(&(mr_renderer_desc){.width = W, .height = H, .shadow_size = 1024, .quiet = 1},
                                   &ren, &err) != MR_OK) {
        printf("  FAIL headless renderer: %s\n", err.msg);
        printf("gfx_morph: 0 passed, 1 failed\n");
        return 1;
    }
    RUN(gpu_dual_quaternion_and_morph_match_the_cpu_path);
    RUN(gpu_skinning_mode_and_morph_weight_change_the_picture);
    RUN(gpu_skinning_follows_the_meshs_own_mode);
    mr_renderer_destroy(ren);
    mr_window_destroy(win);
    return test_summary("gfx_morph");
}
