/* test_gfx.c — the renderer, headless (EGL, llvmpipe): what the pictures of
 * a skinned figure (tests/gfx_fixture.h) must show, GPU skinning against CPU
 * skinning, determinism, the bone palette at its limit, handles, textures,
 * shaders, text, and — when a display is reachable (tests/cli_render.sh runs
 * this binary again under xvfb-run) — that a window shows the same pixels.
 *
 * Set MARROW_TEST_OUT=DIR to keep the rendered images as PNGs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <epoxy/gl.h>
#include <stb_image.h>
#include <zlib.h>

#include "core/path.h"
#include "core/str.h"
#include "formats/load.h"
#include "gfx_fixture.h"
#include "platform/window.h"
#include "test.h"

enum { W = 320, H = 240 };

static mr_window *win;
static mr_renderer *ren;
static mr_renderer *ren_nocull;   /* the same settings with .no_cull = 1 */
static mr_renderer *ren_noprepass;   /* ... with .no_prepass = 1 */
static mr_model *fig;
static mr_gpu_model fig_gpu;
static char tmpdir[64];

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

/* Scene options for one picture of the figure. */
typedef struct shot {
    float t;               /* pose time */
    int no_figure, hide_floor, no_shadows, skeleton, wireframe;
    int axes;              /* with skeleton: each joint's local axes too */
    const char *text;
    int panel;             /* a red opaque panel at (20, 10) 40x20, before the text */
    mr_gpu_model model;    /* 0: the figure */
    int cpu_pose;          /* model holds pre-skinned static meshes: no skin matrices */
    float turn;            /* degrees added to the camera's yaw */
    float zoom;            /* the camera's distance times this [1] */
    float shift_x;         /* world metres the figure is moved along x (the camera stays) */
    int default_floor;     /* 1: the renderer's default floor (only its height set) */
} shot;

static void camera_for(mr_scene *sc, const mat4 disp)
{
    /* A fixed camera from the bind pose, so shots of different poses line up. */
    vec3 mn, mx;
    mr_renderer_model_bounds(ren, fig_gpu, NULL, 0, disp, mn, mx);
    sc->camera.yaw = 60;
    sc->camera.pitch = 15;
    mr_camera_frame_bounds(&sc->camera, mn, mx, (float)W / H);
    sc->floor_y = mn[1];
    sc->floor_center[0] = 0.5f * (mn[0] + mx[0]);
    sc->floor_center[1] = 0.5f * (mn[2] + mx[2]);
    sc->floor_extent = 3.0f;
    glm_vec3_center(mn, mx, sc->shadow_center);
    sc->shadow_radius = 1.5f;
}

static void render(const shot *s, uint8_t *out)
{
    mr_pose pose;
    mr_pose_init(&pose, FX_JOINTS);
    fixture_pose(fig, s->t, &pose);
    mat4 model[FX_JOINTS], skin[FX_JOINTS], disp;
    mr_pose_to_model(&fig->skeleton, &pose, model);
    mr_pose_skinning(&fig->skeleton, model, skin);
    mr_model_display_matrix(fig, disp);
    mr_scene sc = {0};
    camera_for(&sc, disp);
    sc.camera.yaw += s->turn;
    if (s->zoom > 0) sc.camera.distance *= s->zoom;
    sc.hide_floor = s->hide_floor;
    sc.no_shadows = s->no_shadows;
    if (s->default_floor) {
        sc.floor_extent = 0;
        sc.floor_center[0] = sc.floor_center[1] = 0;
    }
    if (s->shift_x != 0) {
        mat4 shift = GLM_MAT4_IDENTITY_INIT;
        glm_translate(shift, (vec3){s->shift_x, 0, 0});
        glm_mat4_mul(shift, disp, disp);
    }
    CHECK(mr_renderer_begin_frame(ren, &sc) == MR_OK);
    if (!s->no_figure) {
        mr_gpu_model m = s->model.id ? s->model : fig_gpu;
        mr_draw_style style = {.wireframe = s->wireframe};
        CHECK(mr_renderer_draw_model(ren, m, s->cpu_pose ? NULL : (const mat4 *)skin,
                                     s->cpu_pose ? 0 : FX_JOINTS, disp, &style) == MR_OK);
    }
    if (s->skeleton)
        mr_renderer_draw_skeleton(ren, &fig->skeleton, model, disp, &(mr_skeleton_style){.axes = s->axes});
    if (s->panel) mr_renderer_panel(ren, 20, 10, 40, 20, (const float[4]){1, 0, 0, 1});
    if (s->text) mr_renderer_text(ren, 8, 8, s->text, NULL);
    CHECK(mr_renderer_end_frame(ren) == MR_OK);
    CHECK(mr_renderer_read_pixels(ren, out, (size_t)W * H * 4) == MR_OK);
    mr_pose_deinit(&pose);
}

static int luma(const uint8_t *p) { return p[0] + p[1] + p[2]; }

static int pixel_diff(const uint8_t *a, const uint8_t *b)
{
    int d = 0;
    for (int c = 0; c < 3; c++) {
        int e = abs(a[c] - b[c]);
        if (e > d) d = e;
    }
    return d;
}

static int count_diff(const uint8_t *a, const uint8_t *b, int threshold)
{
    int n = 0;
    for (int i = 0; i < W * H; i++) n += pixel_diff(a + i * 4, b + i * 4) > threshold;
    return n;
}

/* Pixel position of the figure's posed centre. */
static void figure_centre_px(float t, float *x, float *y)
{
    mr_pose pose;
    mr_pose_init(&pose, FX_JOINTS);
    fixture_pose(fig, t, &pose);
    mat4 model[FX_JOINTS], skin[FX_JOINTS], disp;
    mr_pose_to_model(&fig->skeleton, &pose, model);
    mr_pose_skinning(&fig->skeleton, model, skin);
    mr_model_display_matrix(fig, disp);
    /* hips joint, in the world */
    vec3 hips;
    glm_mat4_mulv3(disp, model[FX_HIPS][3], 1.0f, hips);
    mr_scene sc = {0};
    camera_for(&sc, disp);
    mr_renderer_begin_frame(ren, &sc);
    mr_renderer_project(ren, hips, x, y);
    mr_renderer_end_frame(ren);
    mr_pose_deinit(&pose);
}

TEST(renderer_reports_llvmpipe_context_and_finds_shaders)
{
    CHECK(ren != NULL);
    CHECK_STR_CONTAINS(mr_window_gl_renderer(), "OpenGL");
    char *p = mr_path_join(mr_renderer_shader_dir(), "model.vert");
    CHECK_MSG(mr_file_exists(p), "no model.vert in %s", mr_renderer_shader_dir());
    free(p);
}

TEST(render_figure_covers_its_projection)
{
    render(&(shot){.t = 0.7f}, img_a);
    render(&(shot){.t = 0.7f, .no_figure = 1}, img_b);
    keep("figure", img_a);
    keep("empty", img_b);
    int changed = count_diff(img_a, img_b, 10);
    CHECK_MSG(changed > W * H / 20, "figure changed only %d pixels", changed);
    float x, y;
    figure_centre_px(0.7f, &x, &y);
    CHECK(x > 0 && x < W && y > 0 && y < H);
    const uint8_t *pa = img_a + ((int)y * W + (int)x) * 4, *pb = img_b + ((int)y * W + (int)x) * 4;
    CHECK_MSG(pixel_diff(pa, pb) > 20, "the hips' pixel (%d,%d) shows no figure", (int)x, (int)y);
    /* The figure is whole: nothing of it touches the frame's border. */
    int border = 0;
    for (int i = 0; i < W; i++) {
        border += pixel_diff(img_a + i * 4, img_b + i * 4) > 10;
        border += pixel_diff(img_a + ((H - 1) * W + i) * 4, img_b + ((H - 1) * W + i) * 4) > 10;
    }
    CHECK_MSG(border == 0, "%d border pixels covered: figure not framed whole", border);
}

TEST(floor_is_visible_below_the_horizon)
{
    render(&(shot){.t = 0.7f, .no_figure = 1}, img_a);
    render(&(shot){.t = 0.7f, .no_figure = 1, .hide_floor = 1}, img_b);
    /* The bottom rows are floor, not sky, and the grid makes them uneven. */
    int changed = 0, lo = 255 * 3, hi = 0;
    for (int y = H * 3 / 4; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *p = img_a + (y * W + x) * 4;
            changed += pixel_diff(p, img_b + (y * W + x) * 4) > 8;
            if (luma(p) < lo) lo = luma(p);
            if (luma(p) > hi) hi = luma(p);
        }
    CHECK_MSG(changed > W * H / 8, "floor changed %d of the bottom quarter's pixels", changed);
    CHECK_MSG(hi - lo > 30, "no grid lines on the floor (luma %d..%d)", lo, hi);
    /* The top row is sky in both. */
    CHECK(count_diff(img_a, img_b, 2) < W * H);
    for (int x = 0; x < W; x++) CHECK(pixel_diff(img_a + x * 4, img_b + x * 4) <= 2);
}

TEST(shadow_darkens_the_floor_under_the_figure)
{
    render(&(shot){.t = 0.7f}, img_a);
    render(&(shot){.t = 0.7f, .no_shadows = 1}, img_b);
    keep("shadow", img_a);
    keep("no_shadow", img_b);
    int darker = 0, lighter = 0;
    double sx = 0, sy = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *a = img_a + (y * W + x) * 4, *b = img_b + (y * W + x) * 4;
            if (pixel_diff(a, b) <= 6) continue;
            if (luma(a) < luma(b)) {
                darker++;
                sx += x;
                sy += y;
            } else {
                lighter++;
            }
        }
    CHECK_MSG(darker > 300, "only %d pixels darkened by the shadow", darker);
    CHECK_MSG(lighter * 50 < darker, "%d pixels got lighter with shadows on", lighter);
    /* The darkened region's centre lies below the hips on screen. */
    float x, y;
    figure_centre_px(0.7f, &x, &y);
    CHECK_MSG(sy / darker > y, "shadow centre y %.0f is not below the hips (y %.0f)", sy / darker, y);
}

TEST(consecutive_frames_differ)
{
    render(&(shot){.t = 0.7f}, img_a);
    render(&(shot){.t = 0.7f + 1.0f / 30.0f}, img_b);
    int changed = count_diff(img_a, img_b, 4);
    CHECK_MSG(changed > 50, "frames 1/30 s apart differ in only %d pixels", changed);
}

TEST(rendering_is_deterministic)
{
    render(&(shot){.t = 1.3f, .skeleton = 1, .text = "frame 39"}, img_a);
    render(&(shot){.t = 0.2f}, img_b);   /* something else in between */
    render(&(shot){.t = 1.3f, .skeleton = 1, .text = "frame 39"}, img_b);
    CHECK(memcmp(img_a, img_b, sizeof img_a) == 0);
}

/* A copy of the figure whose skinned meshes are replaced by static meshes
 * skinned on the CPU (mr_mesh_skin) for pose time t. */
static mr_model *cpu_skinned_copy(float t)
{
    mr_pose pose;
    mr_pose_init(&pose, FX_JOINTS);
    fixture_pose(fig, t, &pose);
    mat4 model[FX_JOINTS], skin[FX_JOINTS];
    mr_pose_to_model(&fig->skeleton, &pose, model);
    mr_pose_skinning(&fig->skeleton, model, skin);
    mr_pose_deinit(&pose);

    mr_model *m = NULL;
    mr_model_create("cpu.md5mesh", "md5", &m);
    m->axes = fig->axes;
    mr_skeleton_copy(&m->skeleton, &fig->skeleton);
    m->mesh_count = fig->mesh_count;
    m->meshes = calloc((size_t)m->mesh_count, sizeof *m->meshes);
    for (int i = 0; i < fig->mesh_count; i++) {
        const mr_mesh *src = &fig->meshes[i];
        mr_mesh *dst = &m->meshes[i];
        mr_mesh_init(dst, src->vertex_count, src->index_count, 0);
        mr_mesh_skin(src, skin, dst->positions, dst->normals);
        memcpy(dst->uvs, src->uvs, (size_t)src->vertex_count * sizeof *src->uvs);
        memcpy(dst->indices, src->indices, (size_t)src->index_count * sizeof *src->indices);
        memcpy(dst->material.diffuse, src->material.diffuse, sizeof dst->material.diffuse);
        memcpy(dst->material.specular, src->material.specular, sizeof dst->material.specular);
        dst->material.shininess = src->material.shininess;
        dst->material.diffuse_map = mr_str_dup(src->material.diffuse_map);
    }
    return m;
}

TEST(gpu_skinning_matches_cpu_skinning)
{
    const float times[3] = {0.35f, 0.7f, 1.9f};
    for (int k = 0; k < 3; k++) {
        mr_model *cpu = cpu_skinned_copy(times[k]);
        mr_gpu_model cpu_gpu;
        mr_error err = {0};
        CHECK(mr_renderer_upload_model(ren, cpu, &cpu_gpu, &err) == MR_OK);
        render(&(shot){.t = times[k]}, img_a);
        render(&(shot){.t = times[k], .model = cpu_gpu, .cpu_pose = 1}, img_b);
        if (k == 1) {
            keep("gpu_skinned", img_a);
            keep("cpu_skinned", img_b);
        }
        long total = 0;
        int worst = 0, over = 0;
        for (int i = 0; i < W * H; i++) {
            int d = pixel_diff(img_a + i * 4, img_b + i * 4);
            total += d;
            if (d > worst) worst = d;
            over += d > 24;
        }
        double mean = (double)total / (W * H);
        printf("       gpu vs cpu skinning, t=%.2f: mean %.4f, %d pixels > 24, worst %d\n",
               times[k], mean, over, worst);
        /* Same pose, two skinning paths: at most float rounding at edges. */
        CHECK_MSG(mean < 0.1, "t=%.2f: mean channel difference %.3f", times[k], mean);
        CHECK_MSG(over <= W * H / 2000, "t=%.2f: %d pixels differ by more than 24 (worst %d)",
                  times[k], over, worst);
        mr_renderer_release_model(ren, cpu_gpu);
        mr_model_destroy(cpu);
    }
    /* The comparison has teeth: the skinned figure drawn without skin
     * matrices (bind pose) looks clearly different from a posed frame. */
    render(&(shot){.t = 0.7f}, img_a);
    render(&(shot){.t = 0.7f, .cpu_pose = 1}, img_b);
    CHECK(count_diff(img_a, img_b, 24) > W * H / 100);
}

/* A model with joint_count joints whose one quad is bound to the last joint. */
static mr_model *palette_model(int joint_count)
{
    mr_model *m = NULL;
    mr_model_create("palette", "test", &m);
    mr_skeleton_init(&m->skeleton, joint_count);
    for (int j = 0; j < joint_count; j++) {
        char name[32];
        snprintf(name, sizeof name, "j%d", j);
        m->skeleton.names[j] = mr_str_dup(name);
        m->skeleton.parents[j] = j - 1;
    }
    m->mesh_count = 1;
    m->meshes = calloc(1, sizeof *m->meshes);
    mr_mesh *q = &m->meshes[0];
    mr_mesh_init(q, 4, 6, 1);
    const float p[4][3] = {{-0.5f, 0, 0}, {0.5f, 0, 0}, {0.5f, 1, 0}, {-0.5f, 1, 0}};
    const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    for (int i = 0; i < 4; i++) {
        memcpy(q->positions[i], p[i], sizeof p[i]);
        q->normals[i][2] = 1;
        q->joints[i][0] = (uint16_t)(joint_count - 1);
        q->weights[i][0] = 1;
    }
    memcpy(q->indices, idx, sizeof idx);
    return m;
}

TEST(bone_palette_holds_max_joints_and_refuses_more)
{
    mr_model *m = palette_model(MR_GFX_MAX_JOINTS);
    mr_gpu_model g;
    mr_error err = {0};
    CHECK(mr_renderer_upload_model(ren, m, &g, &err) == MR_OK);
    static mat4 skin[MR_GFX_MAX_JOINTS];
    for (int j = 0; j < MR_GFX_MAX_JOINTS; j++) glm_mat4_identity(skin[j]);
    mr_scene sc = {0};
    sc.camera.distance = 4;
    sc.camera.target[1] = 0.5f;
    sc.hide_floor = 1;
    sc.no_shadows = 1;
    mat4 world;
    glm_mat4_identity(world);
    /* The quad moved left by the last joint's matrix shows up on the left. */
    glm_translate(skin[MR_GFX_MAX_JOINTS - 1], (vec3){-1.0f, 0, 0});
    mr_renderer_begin_frame(ren, &sc);
    CHECK(mr_renderer_draw_model(ren, g, skin, MR_GFX_MAX_JOINTS, world, NULL) == MR_OK);
    mr_renderer_end_frame(ren);
    mr_renderer_read_pixels(ren, img_a, sizeof img_a);
    mr_renderer_begin_frame(ren, &sc);
    mr_renderer_end_frame(ren);
    mr_renderer_read_pixels(ren, img_b, sizeof img_b);
    int left = 0, right = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int d = pixel_diff(img_a + (y * W + x) * 4, img_b + (y * W + x) * 4) > 10;
            if (x < W / 2) left += d; else right += d;
        }
    CHECK_MSG(left > 500 && right < left / 4, "quad pixels left %d right %d", left, right);
    /* Wrong joint count at draw time. */
    mr_renderer_begin_frame(ren, &sc);
    CHECK(mr_renderer_draw_model(ren, g, skin, 3, world, NULL) == MR_ERR_JOINT_COUNT);
    mr_renderer_end_frame(ren);
    mr_renderer_release_model(ren, g);
    mr_model_destroy(m);

    /* One joint over the limit: refused with the limit in the message. The
     * skeleton cannot be made that big, so the count is raised by hand and
     * restored before freeing. */
    m = palette_model(4);
    m->skeleton.joint_count = MR_GFX_MAX_JOINTS + 1;
    CHECK(mr_renderer_upload_model(ren, m, &g, &err) == MR_ERR_LIMIT);
    CHECK(g.id == 0);
    CHECK_STR_CONTAINS(err.msg, "1025 joints");
    CHECK_STR_CONTAINS(err.msg, "at most 1024");
    m->skeleton.joint_count = 4;
    mr_model_destroy(m);
}

TEST(upload_refuses_out_of_range_joints_and_indices)
{
    mr_model *m = palette_model(4);
    m->meshes[0].joints[2][0] = 9;
    mr_gpu_model g;
    mr_error err = {0};
    CHECK(mr_renderer_upload_model(ren, m, &g, &err) == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(err.msg, "vertex 2 uses joint 9");
    m->meshes[0].joints[2][0] = 3;
    m->meshes[0].indices[4] = 4;
    CHECK(mr_renderer_upload_model(ren, m, &g, &err) == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(err.msg, "index 4 is 4");
    mr_model_destroy(m);
}

TEST(released_handles_go_stale)
{
    mr_model *m = palette_model(2);
    mr_gpu_model a, b;
    mr_error err = {0};
    CHECK(mr_renderer_upload_model(ren, m, &a, &err) == MR_OK);
    CHECK(mr_renderer_model_valid(ren, a));
    mr_renderer_release_model(ren, a);
    CHECK(!mr_renderer_model_valid(ren, a));
    CHECK(mr_renderer_upload_model(ren, m, &b, &err) == MR_OK);   /* reuses the slot */
    CHECK(a.id != b.id);
    CHECK(!mr_renderer_model_valid(ren, a));
    mat4 world;
    glm_mat4_identity(world);
    mr_scene sc = {0};
    mr_renderer_begin_frame(ren, &sc);
    CHECK(mr_renderer_draw_model(ren, a, NULL, 0, world, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_renderer_draw_model(ren, (mr_gpu_model){0}, NULL, 0, world, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_renderer_draw_model(ren, b, NULL, 0, world, NULL) == MR_OK);
    mr_renderer_end_frame(ren);
    mr_renderer_release_model(ren, a);   /* stale: ignored */
    CHECK(mr_renderer_model_valid(ren, b));
    mr_renderer_release_model(ren, b);
    mr_model_destroy(m);
}

TEST(missing_texture_is_a_checker_and_one_warning)
{
    /* The figure's two arms share a missing texture: one warning at upload. */
    mr_frame_stats st;
    mr_renderer_stats(ren, &st);
    CHECK(st.warnings == 1);
    /* The arms show magenta checker texels. */
    render(&(shot){.t = 0.7f}, img_a);
    int magenta = 0;
    for (int i = 0; i < W * H; i++) {
        const uint8_t *p = img_a + i * 4;
        magenta += p[0] > 120 && p[2] > 120 && p[1] < 60;
    }
    CHECK_MSG(magenta > 30, "%d magenta pixels", magenta);
    mr_renderer_stats(ren, &st);
    CHECK(st.warnings == 1);
}

TEST(corrupt_and_giant_textures_fall_back_to_the_checker)
{
    char junk[128], giant[128];
    snprintf(junk, sizeof junk, "%s/junk.png", tmpdir);
    snprintf(giant, sizeof giant, "%s/giant.png", tmpdir);
    mr_file_write(junk, "not a png at all", 16, NULL);
    /* A PNG header claiming 100000 x 100000 pixels, and nothing after it. */
    static const uint8_t hdr[33] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13,
                                    'I', 'H', 'D', 'R', 0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0,
                                    8, 6, 0, 0, 0, 0, 0, 0, 0};
    mr_file_write(giant, hdr, sizeof hdr, NULL);
    mr_model *m = palette_model(2);
    m->meshes[0].material.diffuse_map = mr_str_dup(junk);
    mr_frame_stats before, after;
    mr_renderer_stats(ren, &before);
    mr_gpu_model a, b;
    mr_error err = {0};
    CHECK(mr_renderer_upload_model(ren, m, &a, &err) == MR_OK);
    free(m->meshes[0].material.diffuse_map);
    m->meshes[0].material.diffuse_map = mr_str_dup(giant);
    CHECK(mr_renderer_upload_model(ren, m, &b, &err) == MR_OK);
    CHECK(mr_renderer_upload_model(ren, m, &b, &err) == MR_OK);   /* cached: no new warning */
    mr_renderer_stats(ren, &after);
    CHECK(after.warnings == before.warnings + 2);
    mr_renderer_release_model(ren, a);
    mr_renderer_release_model(ren, b);
    mr_model_destroy(m);
}

/* A w x h RGB PNG (CRCs left 0: the readers do not check them) whose one
 * IDAT inflates to `raw` bytes of zeros. */
static void write_png_zeros(const char *path, int w, int h, size_t raw)
{
    unsigned char *zeros = calloc(raw, 1);
    uLongf zlen = compressBound(raw);
    unsigned char *z = malloc(zlen), *p = malloc(zlen + 64);
    compress2(z, &zlen, zeros, raw, 9);
    size_t o = 0;
    static const unsigned char sig[12] = {0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0, 0, 0, 13};
    memcpy(p, sig, sizeof sig), o = sizeof sig;
    unsigned char ihdr[17] = {'I', 'H', 'D', 'R', (unsigned char)(w >> 24), (unsigned char)(w >> 16),
                              (unsigned char)(w >> 8), (unsigned char)w, (unsigned char)(h >> 24),
                              (unsigned char)(h >> 16), (unsigned char)(h >> 8), (unsigned char)h, 8, 2, 0, 0, 0};
    memcpy(p + o, ihdr, sizeof ihdr), o += sizeof ihdr;
    memset(p + o, 0, 4), o += 4;
    p[o++] = (unsigned char)(zlen >> 24), p[o++] = (unsigned char)(zlen >> 16);
    p[o++] = (unsigned char)(zlen >> 8), p[o++] = (unsigned char)zlen;
    memcpy(p + o, "IDAT", 4), o += 4;
    memcpy(p + o, z, zlen), o += zlen;
    memset(p + o, 0, 4), o += 4;
    static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
    memcpy(p + o, iend, sizeof iend), o += sizeof iend;
    mr_file_write(path, p, o, NULL);
    free(zeros), free(z), free(p);
}

/* The renderer reads a texture's header only before decoding it (one
 * inflation): a PNG whose data is a bomb, or holds fewer rows than its
 * header says, is still refused by the decoder and drawn as the checker;
 * a well-formed PNG of odd sides gets its mipmaps (gfx/mipmap.h). */
TEST(bomb_and_lying_pngs_are_refused_and_odd_sides_get_mipmaps)
{
    char bomb[128], lying[128], odd[128];
    snprintf(bomb, sizeof bomb, "%s/bomb.png", tmpdir);
    snprintf(lying, sizeof lying, "%s/lying.png", tmpdir);
    snprintf(odd, sizeof odd, "%s/odd.png", tmpdir);
    write_png_zeros(bomb, 4, 4, (size_t)64 << 20);     /* 64 MiB of rows for a 4x4 image */
    write_png_zeros(lying, 4, 4, (size_t)2 * 13);      /* 2 rows for the 4 its header says */
    write_png_zeros(odd, 5, 3, (size_t)3 * 16);         /* exactly its rows (filter byte + 15) */
    const char *paths[3] = {bomb, lying, odd};
    mr_frame_stats before, after;
    mr_renderer_stats(ren, &before);
    mr_model *m = palette_model(2);
    mr_gpu_model g[3];
    mr_error err = {0};
    for (int i = 0; i < 3; i++) {
        free(m->meshes[0].material.diffuse_map);
        m->meshes[0].material.diffuse_map = mr_str_dup(paths[i]);
        CHECK(mr_renderer_upload_model(ren, m, &g[i], &err) == MR_OK);
    }
    mr_renderer_stats(ren, &after);
    CHECK_MSG(after.warnings == before.warnings + 2, "%d warnings, 2 expected (bomb, lying)",
              after.warnings - before.warnings);
    /* The 5x3 texture among the context's (the only one of that size) and its levels. */
    int found = 0, levels = 0, sizes_ok = 1;
    for (GLuint t = 1; t < 4096 && !found; t++) {
        if (!glIsTexture(t)) continue;
        GLint w = 0, h = 0;
        glBindTexture(GL_TEXTURE_2D, t);
        if (glGetError() != GL_NO_ERROR) continue;   /* not a 2D texture */
        glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_WIDTH, &w);
        glGetTexLevelParameteriv(GL_TEXTURE_2D, 0, GL_TEXTURE_HEIGHT, &h);
        if (w != 5 || h != 3) continue;
        found = 1;
        static const int want[3][2] = {{5, 3}, {2, 1}, {1, 1}};
        for (int l = 0; l < 4; l++) {
            glGetTexLevelParameteriv(GL_TEXTURE_2D, l, GL_TEXTURE_WIDTH, &w);
            glGetTexLevelParameteriv(GL_TEXTURE_2D, l, GL_TEXTURE_HEIGHT, &h);
            if (w <= 0) continue;
            if (l > 2 || w != want[l][0] || h != want[l][1]) sizes_ok = 0;
            levels++;
        }
    }
    glBindTexture(GL_TEXTURE_2D, 0);
    CHECK_MSG(found && levels == 3 && sizes_ok, "the 5x3 texture: found %d, %d levels (5x3, 2x1, 1x1 expected)", found,
              levels);
    for (int i = 0; i < 3; i++) mr_renderer_release_model(ren, g[i]);
    mr_model_destroy(m);
}

TEST(textures_together_stay_within_the_renderers_pixel_budget)
{
    /* Each texture is within core/image.h's limits; together they may not
     * pass desc.max_texture_pixels (here 100: one 8x8 image fits, two do not). */
    mr_renderer *r2 = NULL;
    mr_error err = {0};
    CHECK(mr_renderer_create(&(mr_renderer_desc){.width = 64, .height = 64, .quiet = 1, .max_texture_pixels = 100},
                             &r2, &err) == MR_OK);
    if (!r2) return;
    mr_model *m = palette_model(2);
    m->meshes[0].material.diffuse_map = mr_str_dup("models/mannequin_body.png");
    mr_frame_stats before, after;
    mr_renderer_stats(r2, &before);
    mr_gpu_model a, b;
    CHECK(mr_renderer_upload_model(r2, m, &a, &err) == MR_OK);
    mr_renderer_stats(r2, &after);
    CHECK_MSG(after.warnings == before.warnings, "%d warnings for the first 8x8 texture",
              after.warnings - before.warnings);
    free(m->meshes[0].material.diffuse_map);
    m->meshes[0].material.diffuse_map = mr_str_dup("models/mannequin_shoes.png");
    CHECK(mr_renderer_upload_model(r2, m, &b, &err) == MR_OK);
    mr_renderer_stats(r2, &after);
    CHECK_MSG(after.warnings == before.warnings + 1, "%d warnings for the second", after.warnings - before.warnings);
    mr_renderer_release_model(r2, a);
    mr_renderer_release_model(r2, b);
    mr_model_destroy(m);
    mr_renderer_destroy(r2);
}

TEST(texture_rows_follow_the_uv_convention)
{
    /* head.png: orange top half, green bottom half; the head sphere's v runs
     * 1 at the top pole to 0 at the bottom, so the head's top is orange. */
    render(&(shot){.t = 0.0f, .no_shadows = 1}, img_a);
    mr_pose pose;
    mr_pose_init(&pose, FX_JOINTS);
    fixture_pose(fig, 0.0f, &pose);
    mat4 model[FX_JOINTS], disp;
    mr_pose_to_model(&fig->skeleton, &pose, model);
    mr_pose_deinit(&pose);
    mr_model_display_matrix(fig, disp);
    mr_scene sc = {0};
    camera_for(&sc, disp);
    mr_renderer_begin_frame(ren, &sc);
    /* The head sphere's centre is 5 inches above the head joint, radius 6;
     * sample 3.5 inches above and below the centre. */
    vec3 up_m = {0, 0, 8.5f}, dn_m = {0, 0, 1.5f}, up, dn;
    mat4 head;
    glm_mat4_mul(disp, model[FX_HEAD], head);
    glm_mat4_mulv3(head, up_m, 1.0f, up);
    glm_mat4_mulv3(head, dn_m, 1.0f, dn);
    float ux, uy, dx, dy;
    mr_renderer_project(ren, up, &ux, &uy);
    mr_renderer_project(ren, dn, &dx, &dy);
    mr_renderer_end_frame(ren);
    const uint8_t *pu = img_a + ((int)uy * W + (int)ux) * 4, *pd = img_a + ((int)dy * W + (int)dx) * 4;
    CHECK_MSG(pu[0] > pu[1] && pu[0] > pu[2], "top of head is not orange: %d %d %d", pu[0], pu[1], pu[2]);
    CHECK_MSG(pd[1] > pd[0] && pd[1] > pd[2], "bottom of head is not green: %d %d %d", pd[0], pd[1], pd[2]);
}

TEST(read_pixels_puts_the_top_row_first)
{
    mr_scene sc = {0};
    sc.hide_floor = 1;
    const float red[4] = {1, 0, 0, 1}, blue[4] = {0, 0, 1, 1};
    memcpy(sc.sky_top, red, sizeof red);
    memcpy(sc.sky_bottom, blue, sizeof blue);
    mr_renderer_begin_frame(ren, &sc);
    mr_renderer_end_frame(ren);
    CHECK(mr_renderer_read_pixels(ren, img_a, sizeof img_a) == MR_OK);
    CHECK(img_a[0] > 240 && img_a[2] < 15);
    const uint8_t *last = img_a + ((H - 1) * W) * 4;
    CHECK(last[2] > 240 && last[0] < 15);
    CHECK(mr_renderer_read_pixels(ren, img_a, 16) == MR_ERR_INVALID_ARGUMENT);

    /* A GL error during a frame comes back as MR_ERR_GL, not as a file error. */
    mr_renderer_begin_frame(ren, &sc);
    glEnable(0xFFFF);  /* GL_INVALID_ENUM */
    CHECK(mr_renderer_end_frame(ren) == MR_ERR_GL);
    while (glGetError() != GL_NO_ERROR) {}

    /* The PNG holds the same pixels, top row first. */
    char path[128];
    snprintf(path, sizeof path, "%s/sky.png", tmpdir);
    mr_error err = {0};
    CHECK(mr_renderer_screenshot(ren, path, &err) == MR_OK);
    int w = 0, h = 0, comp = 0;
    uint8_t *png = stbi_load(path, &w, &h, &comp, 4);
    CHECK(png && w == W && h == H);
    if (png) CHECK(memcmp(png, img_a, sizeof img_a) == 0);
    stbi_image_free(png);
    CHECK(mr_renderer_screenshot(ren, "/nonexistent-dir/x.png", &err) == MR_ERR_IO);
    CHECK_STR_CONTAINS(err.msg, "/nonexistent-dir/x.png");
}

TEST(skeleton_overlay_and_wireframe_change_the_picture)
{
    render(&(shot){.t = 0.7f}, img_a);
    render(&(shot){.t = 0.7f, .skeleton = 1}, img_b);
    keep("skeleton", img_b);
    CHECK(count_diff(img_a, img_b, 30) > 100);
    render(&(shot){.t = 0.7f, .wireframe = 1}, img_b);
    keep("wireframe", img_b);
    CHECK(count_diff(img_a, img_b, 30) > 500);
}

/* Pixels of frame px that are mostly channel c (0 red, 1 green, 2 blue). */
static int count_hue(const uint8_t *px, int c)
{
    int n = 0;
    for (int i = 0; i < W * H; i++) {
        const uint8_t *p = px + i * 4;
        int other = p[(c + 1) % 3] > p[(c + 2) % 3] ? p[(c + 1) % 3] : p[(c + 2) % 3];
        n += p[c] > 150 && p[c] > other + 90;
    }
    return n;
}

TEST(skeleton_axes_draw_each_joints_x_y_z_in_red_green_blue)
{
    render(&(shot){.t = 0.7f, .skeleton = 1, .no_shadows = 1, .zoom = 0.5f}, img_a);
    render(&(shot){.t = 0.7f, .skeleton = 1, .no_shadows = 1, .zoom = 0.5f, .axes = 1}, img_b);
    keep("skeleton_axes", img_b);
    for (int c = 0; c < 3; c++) {
        int before = count_hue(img_a, c), after = count_hue(img_b, c);
        CHECK_MSG(after >= before + 2 * FX_JOINTS, "axis %c: %d pixels of its colour, %d without axes", "XYZ"[c],
                  after, before);
    }
    int changed = count_diff(img_a, img_b, 30);
    CHECK_MSG(changed < W * H / 20, "axes changed %d pixels (short lines expected)", changed);
}

TEST(text_draws_glyphs)
{
    render(&(shot){.t = 0.7f, .no_figure = 1}, img_a);
    render(&(shot){.t = 0.7f, .no_figure = 1, .text = "marrow 123"}, img_b);
    int in_box = 0, outside = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int d = pixel_diff(img_a + (y * W + x) * 4, img_b + (y * W + x) * 4) > 30;
            if (x < 120 && y < 30) in_box += d; else outside += d;
        }
    CHECK_MSG(in_box > 60, "text changed %d pixels", in_box);
    CHECK(outside == 0);
    CHECK(mr_renderer_text_height(ren) > 10);
}

TEST(panel_fills_its_rectangle_behind_later_text)
{
    render(&(shot){.t = 0.7f, .no_figure = 1}, img_a);
    render(&(shot){.t = 0.7f, .no_figure = 1, .panel = 1}, img_b);
    int inside_red = 0, inside = 0, outside = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *p = img_b + (y * W + x) * 4;
            if (x >= 21 && x < 59 && y >= 11 && y < 29) {
                inside++;
                inside_red += p[0] > 240 && p[1] < 15 && p[2] < 15;
            } else if (x < 19 || x > 60 || y < 9 || y > 30) {
                outside += pixel_diff(img_a + (y * W + x) * 4, p) > 0;
            }
        }
    CHECK_MSG(inside_red == inside, "%d of %d pixels inside are the panel's red", inside_red, inside);
    CHECK(outside == 0);
    /* Text drawn after it lies on top: some pixels in the panel are not red. */
    render(&(shot){.t = 0.7f, .no_figure = 1, .panel = 1, .text = "MMMMMM"}, img_a);
    int covered = 0;
    for (int y = 11; y < 29; y++)
        for (int x = 21; x < 59; x++) covered += pixel_diff(img_a + (y * W + x) * 4, img_b + (y * W + x) * 4) > 60;
    CHECK_MSG(covered > 20, "text changed %d panel pixels", covered);
}

/* Copies the project's shaders into dir, replacing one file's text. */
static void copy_shaders(const char *dir, const char *broken, const char *text)
{
    static const char *files[] = {"skin.glsl", "lighting.glsl", "model.vert", "model.frag",
                                  "depth.vert", "depth.frag", "floor.vert", "floor.frag",
                                  "sky.vert", "sky.frag", "line.vert", "line.frag", "fxaa.vert", "fxaa.frag",
                                  "text.vert", "text.frag"};
    mkdir(dir, 0777);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *src = mr_path_join(mr_renderer_shader_dir(), files[i]);
        char *dst = mr_path_join(dir, files[i]);
        size_t n = 0;
        char *body = mr_file_read(src, &n, NULL);
        if (broken && strcmp(files[i], broken) == 0) mr_file_write(dst, text, strlen(text), NULL);
        else if (body) mr_file_write(dst, body, n, NULL);
        free(body);
        free(src);
        free(dst);
    }
}

TEST(shader_errors_carry_the_glsl_log)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s/shaders", tmpdir);
    copy_shaders(dir, "model.frag", "#version 330 core\nout vec4 c;\nvoid main() { c = vec4(oops); }\n");
    mr_renderer *r2 = NULL;
    mr_error err = {0};
    CHECK(mr_renderer_create(&(mr_renderer_desc){.width = 64, .height = 64, .shader_dir = dir,
                                                 .quiet = 1}, &r2, &err) != MR_OK);
    CHECK(r2 == NULL);
    CHECK_STR_CONTAINS(err.msg, "model.frag");
    CHECK_STR_CONTAINS(err.msg, "oops");

    /* A renderer made from good copies survives a broken reload. */
    copy_shaders(dir, NULL, NULL);
    CHECK(mr_renderer_create(&(mr_renderer_desc){.width = 64, .height = 64, .shader_dir = dir,
                                                 .quiet = 1}, &r2, &err) == MR_OK);
    copy_shaders(dir, "sky.frag", "#version 330 core\nvoid main() { syntax error }\n");
    CHECK(mr_renderer_reload_shaders(r2, &err) != MR_OK);
    CHECK_STR_CONTAINS(err.msg, "sky.frag");
    mr_renderer_begin_frame(r2, &(mr_scene){0});
    CHECK(mr_renderer_end_frame(r2) == MR_OK);
    mr_renderer_destroy(r2);

    /* No shader directory at all: the message says how to point at one. */
    CHECK(mr_renderer_create(&(mr_renderer_desc){.shader_dir = "/nonexistent", .quiet = 1}, &r2,
                             &err) != MR_OK);
    CHECK_STR_CONTAINS(err.msg, "MARROW_SHADERS");
}

/* Renders shot s with another renderer (the figure uploaded there for the
 * shot), as render() does with the shared one. */
static void render_on(mr_renderer *other, const shot *s, uint8_t *out)
{
    mr_renderer *keep_ren = ren;
    mr_gpu_model keep_fig = fig_gpu;
    ren = other;
    CHECK(mr_renderer_upload_model(other, fig, &fig_gpu, NULL) == MR_OK);
    render(s, out);
    mr_renderer_release_model(other, fig_gpu);
    ren = keep_ren;
    fig_gpu = keep_fig;
}

/* A renderer like the shared one on a copy of the project's shaders in
 * tmpdir/NAME, with `text` inserted into `file` before the first `before`
 * (at the top when before is NULL). NULL when that fails (checked). */
static mr_renderer *renderer_with_edit(const char *name, const char *file, const char *before,
                                       const char *text)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s/%s", tmpdir, name);
    copy_shaders(dir, NULL, NULL);
    char *path = mr_path_join(dir, file);
    size_t n = 0;
    char *body = mr_file_read(path, &n, NULL);
    const char *at = body && before ? strstr(body, before) : body;
    CHECK_MSG(at != NULL, "%s has no '%s'", file, before);
    char *edited = at ? mr_str_fmt("%.*s%s%s", (int)(at - body), body, text, at) : NULL;
    if (edited) mr_file_write(path, edited, strlen(edited), NULL);
    free(edited);
    free(body);
    free(path);
    mr_renderer *r2 = NULL;
    mr_error err = {0};
    if (!at) return NULL;
    CHECK_MSG(mr_renderer_create(&(mr_renderer_desc){.width = W, .height = H, .shadow_size = 1024,
                                                     .shader_dir = dir, .quiet = 1}, &r2, &err) == MR_OK,
              "%s", err.msg);
    return r2;
}

TEST(floor_outside_the_shadow_footprint_skips_the_lookups_without_changing_a_pixel)
{
    /* Every program with the shadow lookups: the floor as one shadowed draw. */
    mr_renderer *all = renderer_with_edit("shadowed_only", "lighting.glsl", NULL,
                                          "#undef MR_SHADOWS\n#define MR_SHADOWS 1\n");
    /* The unshadowed floor painted pure green: shows where it is drawn. */
    mr_renderer *marked = renderer_with_edit("marked", "floor.frag", "    frag_color = vec4(mix(",
                                             "#if MR_SHADOWS == 0\n    frag_color = vec4(0, 1, 0, 1);\n"
                                             "    return;\n#endif\n");
    static uint8_t img_c[W * H * 4], img_d[W * H * 4];
    for (int k = 0; all && marked && k < 2; k++) {
        shot s = {.t = 0.7f + 0.4f * (float)k};
        render(&s, img_a);
        render_on(all, &s, img_b);
        render_on(marked, &s, img_c);
        render(&(shot){.t = s.t, .no_shadows = 1}, img_d);
        int worst = 0, marked_px = 0, shadowed = 0, shadowed_marked = 0;
        for (int i = 0; i < W * H; i++) {
            int d = pixel_diff(img_a + i * 4, img_b + i * 4);
            if (d > worst) worst = d;
            /* marked: the pixel and its 8 neighbours drew the unshadowed
             * floor (a pixel on a model's edge takes some of its shading
             * darker from the FXAA pass, which blends it with the model's
             * own shadowed edge) */
            int is_marked = 1;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int x = i % W + dx, y = i / W + dy;
                    const uint8_t *c = img_c + ((y < 0 ? 0 : y >= H ? H - 1 : y) * W +
                                                (x < 0 ? 0 : x >= W ? W - 1 : x)) * 4;
                    is_marked &= c[0] < 30 && c[1] > 220 && c[2] < 30;
                }
            int in_shadow = luma(img_a + i * 4) + 6 < luma(img_d + i * 4);
            marked_px += is_marked;
            shadowed += in_shadow;
            shadowed_marked += in_shadow && is_marked;
        }
        CHECK_MSG(worst <= 1, "shot %d: the partitioned floor differs by %d from one shadowed draw",
                  k, worst);
        /* the split happened, and the shadow itself is drawn with the lookups */
        CHECK_MSG(marked_px > 1000, "shot %d: only %d pixels drew the unshadowed floor", k, marked_px);
        CHECK_MSG(shadowed > 300 && shadowed_marked == 0,
                  "shot %d: %d of %d shadowed pixels drawn unshadowed", k, shadowed_marked, shadowed);
    }
    keep("floor_partition_marked", img_c);
    mr_renderer_destroy(all);
    mr_renderer_destroy(marked);
}

/* A renderer like the shared one that has drawn no frame yet. */
static mr_renderer *fresh_renderer(void)
{
    mr_renderer *r2 = NULL;
    mr_error err = {0};
    CHECK_MSG(mr_renderer_create(&(mr_renderer_desc){.width = W, .height = H, .shadow_size = 1024,
                                                     .quiet = 1}, &r2, &err) == MR_OK, "%s", err.msg);
    return r2;
}

/* A new renderer builds one model program variant of the 40; the others
 * are built when a draw first needs them, lit like the rest of their
 * frame: the pixels equal those of a renderer that built every variant
 * (a reload does). An error in a part of a shader that only other variants
 * compile is reported by the reload. */
TEST(model_programs_are_built_when_first_drawn_with)
{
    mr_renderer *lazy = fresh_renderer(), *eager = fresh_renderer();
    mr_error err = {0};
    CHECK(eager && mr_renderer_reload_shaders(eager, &err) == MR_OK);
    mr_frame_stats ls = {0}, es = {0};
    if (lazy) mr_renderer_stats(lazy, &ls);
    if (eager) mr_renderer_stats(eager, &es);
    int at_start = ls.programs;
    CHECK_MSG(at_start > 0 && es.programs >= at_start + 39, "built %d at the start, %d after a reload (beside those)",
              at_start, es.programs);
    static const shot shots[] = {{.t = 0.5f, .no_shadows = 1}, {.t = 0.7f, .no_shadows = 1}, {.t = 0.9f}};
    int built[3] = {0};
    for (int k = 0; lazy && eager && k < 3; k++) {
        render_on(lazy, &shots[k], img_a);
        render_on(eager, &shots[k], img_b);
        CHECK_MSG(!memcmp(img_a, img_b, sizeof img_a), "shot %d: a variant built during the frame draws other pixels", k);
        mr_renderer_stats(lazy, &ls);
        built[k] = ls.programs - at_start;
    }
    /* the unshadowed variants by the first shot (the figure's meshes use
     * two skinning variants), none by the second, the shadowed one of the
     * mesh the start did not build by the third */
    CHECK_MSG(built[0] >= 1 && built[1] == built[0] && built[2] > built[1] && at_start + built[2] < es.programs,
              "variants built by shots 1-3: %d, %d, %d", built[0], built[1], built[2]);
    mr_renderer_destroy(lazy);
    mr_renderer_destroy(eager);

    /* A live edit breaks model.frag: the reload fails and keeps the
     * programs, and a variant first drawn after it is built from the text
     * the renderer read before, not from the broken file. */
    mr_renderer *live = renderer_with_edit("live_edit", "model.frag", "void main", "// edited\n");
    if (live) {
        char ldir[128];
        snprintf(ldir, sizeof ldir, "%s/live_edit", tmpdir);
        copy_shaders(ldir, "model.frag", "#version 330 core\nvoid main() { broken }\n");
        CHECK(mr_renderer_reload_shaders(live, &err) != MR_OK);
        render_on(live, &shots[0], img_a);   /* unshadowed: variants not built yet */
        render(&shots[0], img_b);
        CHECK_MSG(!memcmp(img_a, img_b, sizeof img_a), "a variant built after a failed reload draws other pixels");
    }
    mr_renderer_destroy(live);

    /* broken only where MR_CUTOUT is 1: the figure (no texture) draws */
    mr_renderer *broken = renderer_with_edit("cutout_broken", "model.frag", "        if (t.a < 0.5) discard;",
                                             "        not glsl at all;\n");
    if (broken) {
        render_on(broken, &shots[2], img_a);
        render(&shots[2], img_b);
        CHECK(!memcmp(img_a, img_b, sizeof img_a));
        CHECK(mr_renderer_reload_shaders(broken, &err) != MR_OK);
        CHECK_STR_CONTAINS(err.msg, "model.frag");
    }
    mr_renderer_destroy(broken);
}

TEST(kept_floor_gives_the_pixels_of_a_fresh_frame_and_follows_the_camera)
{
    /* From a steady view's second frame on, the floor comes from the kept
     * backdrop; a turned camera draws it afresh, then keeps the new one.
     * Close up, the figure's depth is drawn first in both. */
    static const shot shots[] = {{.t = 0.5f}, {.t = 0.7f}, {.t = 0.9f}, {.t = 0.9f, .turn = 25},
                                 {.t = 1.1f, .turn = 25}, {.t = 1.3f, .turn = 25},
                                 {.t = 0.3f, .no_shadows = 1}, {.t = 0.4f, .no_shadows = 1},
                                 {.t = 0.4f}, {.t = 0.6f},
                                 /* close up: the depth pre-pass, over the kept floor too */
                                 {.t = 0.6f, .zoom = 0.25f}, {.t = 0.8f, .zoom = 0.25f}};
    mr_renderer *steady = fresh_renderer();
    for (size_t i = 0; steady && i < sizeof shots / sizeof shots[0]; i++) {
        render_on(steady, &shots[i], img_a);
        mr_renderer *once = fresh_renderer();
        if (!once) break;
        render_on(once, &shots[i], img_b);
        mr_renderer_destroy(once);
        int n = count_diff(img_a, img_b, 0);
        CHECK_MSG(n == 0, "frame %zu of a steady view differs from a fresh frame in %d pixels", i, n);
    }
    mr_renderer_destroy(steady);
}

/* With a still camera, a figure that walks 2 m leaves the default floor where
 * it was: every pixel that shows floor (or sky) in both frames, away from
 * the figure in either, is the same. The floor must show its grid and
 * fade there, so the comparison covers what would move. */
TEST(default_floor_stays_put_when_the_figure_travels)
{
    static uint8_t here[W * H * 4], there[W * H * 4], bare_here[W * H * 4], bare_there[W * H * 4];
    static uint8_t sky[W * H * 4];
    const shot a = {.t = 0.7f, .no_shadows = 1, .default_floor = 1};
    shot b = a;
    b.shift_x = 2.0f;
    /* no FXAA: it runs only around the models (fxaa_rect), so it would
     * smooth the grid lines near the figure in one frame and not in the other */
    mr_renderer *r2 = NULL;
    mr_error err = {0};
    CHECK_MSG(mr_renderer_create(&(mr_renderer_desc){.width = W, .height = H, .no_fxaa = 1, .quiet = 1},
                                 &r2, &err) == MR_OK, "%s", err.msg);
    if (!r2) return;
    render_on(r2, &a, here);
    render_on(r2, &b, there);
    /* where the figure is in each frame: the figure alone against the sky */
    shot fa = a, fb = b, none = a;
    fa.hide_floor = fb.hide_floor = none.hide_floor = 1;
    none.no_figure = 1;
    render_on(r2, &fa, bare_here);
    render_on(r2, &fb, bare_there);
    render_on(r2, &none, sky);
    mr_renderer_destroy(r2);
    keep("floor_travel_here", here);
    keep("floor_travel_there", there);
    int compared = 0, moved = 0, floor_px = 0, lo = 255 * 3, hi = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int i = (y * W + x) * 4;
            int figure = 0;
            for (int dy = -1; dy <= 1 && !figure; dy++)     /* the figure and its edge */
                for (int dx = -1; dx <= 1 && !figure; dx++) {
                    int yy = y + dy, xx = x + dx;
                    if (yy < 0 || yy >= H || xx < 0 || xx >= W) continue;
                    int j = (yy * W + xx) * 4;
                    figure = pixel_diff(bare_here + j, sky + j) > 0 || pixel_diff(bare_there + j, sky + j) > 0;
                }
            if (figure) continue;
            compared++;
            moved += pixel_diff(here + i, there + i) > 0;
            if (pixel_diff(here + i, sky + i) > 8) {
                floor_px++;
                if (luma(here + i) < lo) lo = luma(here + i);
                if (luma(here + i) > hi) hi = luma(here + i);
            }
        }
    CHECK_MSG(floor_px > W * H / 4, "only %d floor pixels away from the figure", floor_px);
    CHECK_MSG(hi - lo > 30, "the compared floor shows no grid (luma %d..%d)", lo, hi);
    CHECK_MSG(moved == 0, "%d of %d floor and sky pixels changed when the figure moved 2 m", moved, compared);
}

/* The shadow map's texels across the casters follow their size on screen
 * (about one per pixel), within 64 and the map's size; a model large on
 * screen for its triangles has its depth drawn first, a far one not. */
TEST(shadow_texels_and_prepass_follow_the_models_size_on_screen)
{
    static const float zooms[] = {0.25f, 1.0f, 3.0f, 40.0f};
    mr_frame_stats st[4];
    for (int i = 0; i < 4; i++) {
        render(&(shot){.t = 0.5f, .zoom = zooms[i]}, img_a);
        mr_renderer_stats(ren, &st[i]);
        printf("       camera distance x%g: %d shadow texels across, %d of %d triangles pre-passed\n",
               zooms[i], st[i].shadow_texels, st[i].prepass_triangles, st[i].triangles);
    }
    CHECK_MSG(st[0].shadow_texels == 1023, "close up: %d texels, expected the map's 1023",
              st[0].shadow_texels);
    float ratio = (float)st[1].shadow_texels / (float)st[2].shadow_texels;
    CHECK_MSG(ratio > 2.5f && ratio < 3.5f, "3x the distance divides the texels by %.2f", ratio);
    CHECK_MSG(st[3].shadow_texels == 64, "far away: %d texels, expected the least, 64", st[3].shadow_texels);
    CHECK(st[0].prepass_triangles == st[0].triangles && st[0].triangles > 0);
    CHECK(st[3].prepass_triangles == 0);
}

TEST(fxaa_moves_edges_towards_msaa_and_leaves_flat_areas_alone)
{
    mr_renderer *none = NULL, *msaa = NULL;
    mr_error err = {0};
    CHECK(mr_renderer_create(&(mr_renderer_desc){.width = W, .height = H, .shadow_size = 1024,
                                                 .no_fxaa = 1, .quiet = 1}, &none, &err) == MR_OK);
    CHECK(mr_renderer_create(&(mr_renderer_desc){.width = W, .height = H, .shadow_size = 1024,
                                                 .samples = 4, .quiet = 1}, &msaa, &err) == MR_OK);
    static uint8_t img_c[W * H * 4];
    shot s = {.t = 0.7f, .skeleton = 1};
    render(&s, img_a);               /* the default: FXAA */
    if (none) render_on(none, &s, img_b);
    if (msaa) render_on(msaa, &s, img_c);
    keep("aa_fxaa", img_a);
    keep("aa_none", img_b);
    keep("aa_msaa", img_c);
    int changed = 0, flat_changed = 0;
    double err_fxaa = 0, err_none = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *a = img_a + (y * W + x) * 4, *b = img_b + (y * W + x) * 4;
            const uint8_t *c = img_c + (y * W + x) * 4;
            /* on the edges multisampling smooths, FXAA must come closer to it */
            for (int k = 0; pixel_diff(b, c) > 0 && k < 3; k++) {
                err_fxaa += abs(a[k] - c[k]);
                err_none += abs(b[k] - c[k]);
            }
            if (pixel_diff(a, b) == 0) continue;
            changed++;
            /* only pixels with contrast around them in the aliased frame move */
            int lo = 765, hi = 0;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int nx = x + dx < 0 ? 0 : x + dx >= W ? W - 1 : x + dx;
                    int ny = y + dy < 0 ? 0 : y + dy >= H ? H - 1 : y + dy;
                    int l = luma(img_b + (ny * W + nx) * 4);
                    lo = l < lo ? l : lo;
                    hi = l > hi ? l : hi;
                }
            flat_changed += hi - lo < 15;
        }
    CHECK_MSG(changed > 300, "FXAA changed only %d pixels", changed);
    CHECK_MSG(flat_changed == 0, "FXAA changed %d pixels in flat areas", flat_changed);
    printf("       on 4x MSAA's edges: FXAA differs by %.0f, no anti-aliasing by %.0f\n", err_fxaa, err_none);
    CHECK_MSG(err_fxaa < 0.75 * err_none, "on MSAA's edges FXAA is %.0f from it, no anti-aliasing %.0f",
              err_fxaa, err_none);
    mr_renderer_destroy(none);
    mr_renderer_destroy(msaa);
}

/* FXAA runs only where something has hard edges: the models and the lines
 * and points (fxaa_rect); the floor and sky draw smooth by themselves. */
TEST(fxaa_runs_around_models_and_lines_only)
{
    mr_renderer *none = NULL;
    mr_error err = {0};
    CHECK(mr_renderer_create(&(mr_renderer_desc){.width = W, .height = H, .shadow_size = 1024,
                                                 .no_fxaa = 1, .quiet = 1}, &none, &err) == MR_OK);
    if (!none) return;
    static uint8_t floor_only[W * H * 4];
    /* Floor and sky alone: the passes are skipped, not a pixel moves. */
    shot bare = {.t = 0.7f, .no_figure = 1};
    render(&bare, img_a);
    render_on(none, &bare, img_b);
    memcpy(floor_only, img_b, sizeof floor_only);
    CHECK_MSG(count_diff(img_a, img_b, 0) == 0, "FXAA changed %d pixels of a frame with nothing but floor and sky",
              count_diff(img_a, img_b, 0));
    /* The skeleton's lines alone: FXAA smooths them, and changes nothing
     * farther from them than its rectangle's padding. */
    shot lines = {.t = 0.7f, .no_figure = 1, .skeleton = 1};
    render(&lines, img_a);
    render_on(none, &lines, img_b);
    int x0 = W, y0 = H, x1 = -1, y1 = -1;   /* where the lines are drawn */
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if (pixel_diff(img_b + (y * W + x) * 4, floor_only + (y * W + x) * 4) > 0) {
                x0 = x < x0 ? x : x0;
                y0 = y < y0 ? y : y0;
                x1 = x > x1 ? x : x1;
                y1 = y > y1 ? y : y1;
            }
    CHECK_MSG(x1 >= 0, "the skeleton's lines drew nothing");
    int near = 0, far = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            if (pixel_diff(img_a + (y * W + x) * 4, img_b + (y * W + x) * 4) == 0) continue;
            if (x >= x0 - 6 && x <= x1 + 6 && y >= y0 - 6 && y <= y1 + 6) near++;
            else far++;
        }
    CHECK_MSG(near > 20, "FXAA changed only %d pixels around the lines", near);
    CHECK_MSG(far == 0, "FXAA changed %d pixels away from the lines", far);
    mr_renderer_destroy(none);
}

TEST(missing_font_skips_text_with_one_warning)
{
    mr_renderer *r2 = NULL;
    mr_error err = {0};
    CHECK(mr_renderer_create(&(mr_renderer_desc){.width = 64, .height = 64, .quiet = 1,
                                                 .font_path = "/nonexistent/font.ttf"}, &r2,
                             &err) == MR_OK);
    mr_renderer_begin_frame(r2, &(mr_scene){0});
    CHECK(mr_renderer_text(r2, 0, 0, "hello", NULL) == 0.0f);
    CHECK(mr_renderer_end_frame(r2) == MR_OK);
    mr_frame_stats st;
    mr_renderer_stats(r2, &st);
    CHECK(st.warnings == 1);
    mr_renderer_destroy(r2);
}

TEST(normal_map_changes_shading)
{
    /* A flat quad facing the camera, with and without a normal map whose
     * normals lean sideways. */
    char nm_path[128];
    snprintf(nm_path, sizeof nm_path, "%s/lean.png", tmpdir);
    static uint8_t nm[16 * 16 * 4];
    for (int i = 0; i < 16 * 16; i++) {
        nm[i * 4 + 0] = 230;   /* x = +0.8 */
        nm[i * 4 + 1] = 128;
        nm[i * 4 + 2] = 180;
        nm[i * 4 + 3] = 255;
    }
    mr_gfx_write_png(nm_path, nm, 16, 16, NULL);
    mr_model *m = palette_model(1);
    for (int i = 0; i < 4; i++) {
        m->meshes[0].uvs[i][0] = m->meshes[0].positions[i][0] + 0.5f;
        m->meshes[0].uvs[i][1] = m->meshes[0].positions[i][1];
    }
    mr_gpu_model flat, bumped;
    mr_error err = {0};
    CHECK(mr_renderer_upload_model(ren, m, &flat, &err) == MR_OK);
    m->meshes[0].material.normal_map = mr_str_dup(nm_path);
    CHECK(mr_renderer_upload_model(ren, m, &bumped, &err) == MR_OK);
    mr_scene sc = {0};
    sc.camera.distance = 2;
    sc.camera.target[1] = 0.5f;
    sc.hide_floor = 1;
    mat4 world;
    glm_mat4_identity(world);
    mr_renderer_begin_frame(ren, &sc);
    mr_renderer_draw_model(ren, flat, NULL, 0, world, NULL);
    mr_renderer_end_frame(ren);
    mr_renderer_read_pixels(ren, img_a, sizeof img_a);
    mr_renderer_begin_frame(ren, &sc);
    mr_renderer_draw_model(ren, bumped, NULL, 0, world, NULL);
    mr_renderer_end_frame(ren);
    mr_renderer_read_pixels(ren, img_b, sizeof img_b);
    const uint8_t *pa = img_a + (H / 2 * W + W / 2) * 4, *pb = img_b + (H / 2 * W + W / 2) * 4;
    CHECK_MSG(pixel_diff(pa, pb) > 10, "normal map made no difference: %d %d %d vs %d %d %d",
              pa[0], pa[1], pa[2], pb[0], pb[1], pb[2]);
    mr_renderer_release_model(ren, flat);
    mr_renderer_release_model(ren, bumped);
    mr_model_destroy(m);
}

/* --- culling of closed meshes ------------------------------------------------ */

/* A box of half size 0.5 about the origin (fx_box: 24 vertices, uv and
 * normal seams at the edges, counter-clockwise outside), skinned to one
 * joint; `how` spoils or changes it. */
enum { BOX_CLOSED, BOX_INSIDE_OUT, BOX_FACE_MISSING, BOX_FACE_FLIPPED, BOX_SEAM_WEIGHTS, BOX_TWO_WINDINGS };

static mr_model *box_model(int how)
{
    mr_model *m = NULL;
    mr_model_create("box", "test", &m);
    mr_skeleton_init(&m->skeleton, 2);
    m->skeleton.names[0] = mr_str_dup("root");
    m->skeleton.names[1] = mr_str_dup("other");
    m->skeleton.parents[0] = -1;
    m->skeleton.parents[1] = 0;
    m->mesh_count = 1;
    m->meshes = calloc(1, sizeof *m->meshes);
    mr_mesh *q = &m->meshes[0];
    mr_mesh box;
    fx_box(&box, (const float[3]){-0.5f, -0.5f, -0.5f}, (const float[3]){0.5f, 0.5f, 0.5f});
    int copies = how == BOX_TWO_WINDINGS ? 2 : 1;
    mr_mesh_init(q, 24 * copies, 36 * copies, 1);
    for (int c = 0; c < copies; c++) {
        for (int v = 0; v < 24; v++) {
            for (int k = 0; k < 3; k++)   /* the second copy: a small box beside the first */
                q->positions[c * 24 + v][k] = c ? box.positions[v][k] * 0.3f + (k == 0 ? 1.0f : 0.0f)
                                                : box.positions[v][k];
            memcpy(q->normals[c * 24 + v], box.normals[v], sizeof(vec3));
            q->weights[c * 24 + v][0] = 1.0f;
        }
        for (int i = 0; i < 36; i++) q->indices[c * 36 + i] = box.indices[i] + (uint32_t)(c * 24);
    }
    mr_mesh_deinit(&box);
    /* Turns triangle t around (swaps two corners). */
#define FLIP(t) do { uint32_t x_ = q->indices[(t) * 3 + 1]; q->indices[(t) * 3 + 1] = q->indices[(t) * 3 + 2]; \
                     q->indices[(t) * 3 + 2] = x_; } while (0)
    if (how == BOX_INSIDE_OUT)
        for (int t = 0; t < 12; t++) FLIP(t);
    if (how == BOX_FACE_FLIPPED) { FLIP(0); FLIP(1); }
    if (how == BOX_TWO_WINDINGS)
        for (int t = 12; t < 24; t++) FLIP(t);
#undef FLIP
    if (how == BOX_FACE_MISSING) q->index_count -= 3;
    if (how == BOX_SEAM_WEIGHTS) {
        /* vertex 0 and its seam twins sit at one corner; vertex 0 alone
         * leans on the other joint: in a pose the corner splits open. */
        q->weights[0][0] = 0.5f;
        q->joints[0][1] = 1;
        q->weights[0][1] = 0.5f;
    }
    return m;
}

/* Draws box model m once on r with skin (2 joints) and world; returns the
 * frame's culled triangles and fills out with the picture. */
static int draw_box(mr_renderer *r, const mr_model *m, const mat4 skin[2], const mat4 world, int wireframe,
                    uint8_t *out)
{
    mr_gpu_model g;
    mr_error err = {0};
    CHECK_MSG(mr_renderer_upload_model(r, m, &g, &err) == MR_OK, "%s", err.msg);
    mr_scene sc = {0};
    sc.camera.yaw = 35;
    sc.camera.pitch = 25;
    mr_camera_frame_bounds(&sc.camera, (vec3){-1, -1, -1}, (vec3){1.5f, 1, 1}, (float)W / H);
    sc.floor_y = -0.9f;
    mr_renderer_begin_frame(r, &sc);
    mr_draw_style style = {.wireframe = wireframe};
    CHECK(mr_renderer_draw_model(r, g, skin, 2, world, &style) == MR_OK);
    CHECK(mr_renderer_end_frame(r) == MR_OK);
    CHECK(mr_renderer_read_pixels(r, out, (size_t)W * H * 4) == MR_OK);
    mr_frame_stats st;
    mr_renderer_stats(r, &st);
    mr_renderer_release_model(r, g);
    return st.culled_triangles;
}

TEST(closed_meshes_draw_without_back_faces_open_ones_with_both)
{
    static const struct { int how, culled; const char *what; } cases[] = {
        {BOX_CLOSED, 12, "a closed box (uv seams welded)"},
        {BOX_INSIDE_OUT, 12, "an inside-out box (its front faces culled)"},
        {BOX_FACE_MISSING, 0, "a box with a triangle missing"},
        {BOX_FACE_FLIPPED, 0, "a box with one face wound the wrong way"},
        {BOX_SEAM_WEIGHTS, 0, "a box whose seam twins skin differently"},
        {BOX_TWO_WINDINGS, 0, "two boxes wound oppositely in one mesh"},
    };
    mat4 skin[2], world;
    glm_mat4_identity(skin[0]);
    glm_mat4_identity(skin[1]);
    glm_mat4_identity(world);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mr_model *m = box_model(cases[i].how);
        int culled = draw_box(ren, m, (const mat4 *)skin, world, 0, img_a);
        CHECK_MSG(culled == cases[i].culled, "%s: %d triangles culled, expected %d", cases[i].what, culled,
                  cases[i].culled);
        mr_model_destroy(m);
    }
    /* A wireframe shows the back edges: nothing culled. */
    mr_model *m = box_model(BOX_CLOSED);
    CHECK(draw_box(ren, m, (const mat4 *)skin, world, 1, img_a) == 0);
    /* With .no_cull nothing is. */
    CHECK(draw_box(ren_nocull, m, (const mat4 *)skin, world, 0, img_a) == 0);
    mr_model_destroy(m);
}

TEST(culling_keeps_the_picture_of_mirrored_and_inside_out_boxes)
{
    mat4 id, mirror, skin[2];
    glm_mat4_identity(id);
    glm_mat4_identity(mirror);
    mirror[0][0] = -1.0f;           /* the box is symmetric: mirrored, it looks the same */
    static const struct { int how, mirror_world, mirror_skin, culled; const char *what; } cases[] = {
        {BOX_CLOSED, 0, 0, 12, "box"},
        {BOX_CLOSED, 1, 0, 12, "box, mirroring world matrix"},
        {BOX_CLOSED, 0, 1, 0, "box, mirroring skin matrix"},
        {BOX_INSIDE_OUT, 0, 0, 12, "inside-out box"},
        {BOX_INSIDE_OUT, 1, 0, 12, "inside-out box, mirroring world matrix"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mr_model *m = box_model(cases[i].how);
        glm_mat4_copy(cases[i].mirror_skin ? mirror : id, skin[0]);
        glm_mat4_copy(id, skin[1]);
        const float(*world)[4] = cases[i].mirror_world ? mirror : id;
        int culled = draw_box(ren, m, (const mat4 *)skin, world, 0, img_a);
        draw_box(ren_nocull, m, (const mat4 *)skin, world, 0, img_b);
        int moved = count_diff(img_a, img_b, 8);
        int covered = 0;
        for (int p = 0; p < W * H; p++) covered += pixel_diff(img_a + p * 4, img_a) > 8;
        CHECK_MSG(culled == cases[i].culled, "%s: %d triangles culled, expected %d", cases[i].what, culled,
                  cases[i].culled);
        CHECK_MSG(moved <= W * H / 5000, "%s: culling changed %d pixels", cases[i].what, moved);
        CHECK_MSG(covered > W * H / 20, "%s: the box covers only %d pixels", cases[i].what, covered);
        mr_model_destroy(m);
    }
}

/* --- real models (../shared/models) ----------------------------------------- */

typedef struct real_shot {
    mr_renderer *r;            /* NULL: ren */
    const mr_model *m;
    mr_gpu_model gpu;
    const mat4 *skin;          /* NULL: bind pose / static */
    mat4 world;
    mr_scene scene;
    int no_model, no_shadows;
} real_shot;

static void render_real(const real_shot *s, uint8_t *out)
{
    mr_renderer *r = s->r ? s->r : ren;
    mr_scene sc = s->scene;
    sc.no_shadows = s->no_shadows;
    mr_renderer_begin_frame(r, &sc);
    if (!s->no_model)
        CHECK(mr_renderer_draw_model(r, s->gpu, s->skin, s->skin ? s->m->skeleton.joint_count : 0,
                                     s->world, NULL) == MR_OK);
    CHECK(mr_renderer_end_frame(r) == MR_OK);
    CHECK(mr_renderer_read_pixels(r, out, (size_t)W * H * 4) == MR_OK);
}

/* Renders shot s (made for ren) again on other, a renderer with the same
 * settings but one that is for checking, and returns the pixels that differ
 * by more than rounding from img (ren's picture of s). */
static int differs_on(mr_renderer *other, const real_shot *s, const uint8_t *img)
{
    static uint8_t again[W * H * 4];
    real_shot n = *s;
    n.r = other;
    mr_error err = {0};
    CHECK(mr_renderer_upload_model(other, s->m, &n.gpu, &err) == MR_OK);
    render_real(&n, again);
    mr_renderer_release_model(other, n.gpu);
    return count_diff(img, again, 8);
}

/* Culling (against ren_nocull, which draws every back face) and the depth
 * pre-pass (against ren_noprepass) must not change a pixel of img, ren's
 * picture of shot s, beyond rounding and, for the pre-pass, ties in depth
 * between two surfaces of the model. Returns the triangles ren culled. */
static int check_cull_and_prepass_keep_picture(const char *label, const real_shot *s, const uint8_t *img)
{
    mr_frame_stats st;
    mr_renderer_stats(ren, &st);
    int moved = differs_on(ren_nocull, s, img);
    printf("       %s: %d of %d triangles culled; %d pixels differ from drawing both sides\n", label,
           st.culled_triangles, st.triangles, moved);
    CHECK_MSG(moved <= W * H / 5000, "%s: culling changed %d pixels", label, moved);
    moved = differs_on(ren_noprepass, s, img);
    printf("       %s: %d of %d triangles with their depth drawn first; %d pixels differ without\n", label,
           st.prepass_triangles, st.triangles, moved);
    CHECK_MSG(moved <= W * H / 5000, "%s: the depth pre-pass changed %d pixels", label, moved);
    return st.culled_triangles;
}

/* A copy of m with every mesh CPU-skinned by skin into a static mesh; with
 * max_influences > 0 each vertex keeps only its first (heaviest) that many
 * influences, renormalised: what a runtime with fewer slots would draw. */
static mr_model *cpu_copy(const mr_model *m, const mat4 *skin, int max_influences)
{
    mr_model *c = NULL;
    mr_model_create("cpu-copy", m->format, &c);
    c->axes = m->axes;
    mr_skeleton_copy(&c->skeleton, &m->skeleton);
    c->mesh_count = m->mesh_count;
    c->meshes = calloc((size_t)m->mesh_count, sizeof *c->meshes);
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_mesh *src = &m->meshes[i];
        mr_mesh *dst = &c->meshes[i];
        mr_mesh_init(dst, src->vertex_count, src->index_count, 0);
        if (max_influences > 0 && src->joints) {
            mr_mesh cut = *src;
            cut.weights = calloc((size_t)src->vertex_count, sizeof *cut.weights);
            for (int v = 0; v < src->vertex_count; v++) {
                float sum = 0;
                for (int k = 0; k < max_influences; k++) sum += src->weights[v][k];
                for (int k = 0; k < max_influences; k++) cut.weights[v][k] = src->weights[v][k] / sum;
            }
            mr_mesh_skin(&cut, skin, dst->positions, dst->normals);
            free(cut.weights);
        } else {
            mr_mesh_skin(src, skin, dst->positions, dst->normals);
        }
        memcpy(dst->uvs, src->uvs, (size_t)src->vertex_count * sizeof *src->uvs);
        memcpy(dst->indices, src->indices, (size_t)src->index_count * sizeof *src->indices);
        memcpy(&dst->material, &src->material, sizeof dst->material);
        dst->material.name = mr_str_dup(src->material.name);
        dst->material.diffuse_map = mr_str_dup(src->material.diffuse_map);
        dst->material.normal_map = mr_str_dup(src->material.normal_map);
    }
    return c;
}

/* Loads a shared model, poses its clip `clip` at t, and checks the picture:
 * the model covers its projection, the floor shadow darkens pixels below it,
 * and GPU skinning matches CPU skinning of the same pose. */
static int check_real_model(const char *label, const char *mesh, const char *anim, float t)
{
    if (!mr_file_exists(mesh)) {
        printf("  skip %s: %s not found\n", label, mesh);
        return -1;
    }
    mr_model *m = NULL;
    mr_error err = {0};
    const char *anims[1] = {anim};
    CHECK_MSG(mr_load_model(mesh, anims, anim ? 1 : 0, &m, &err) == MR_OK, "%s: %s", label, err.msg);
    if (!m) return -1;
    int nj = m->skeleton.joint_count;
    mr_pose pose;
    mr_pose_init(&pose, nj);
    mat4 *jm = calloc((size_t)nj, sizeof *jm), *skin = calloc((size_t)nj, sizeof *skin);
    CHECK(mr_clip_sample(m->clips[0], &m->skeleton, t, MR_WRAP_LOOP, &pose) == MR_OK);
    mr_pose_to_model(&m->skeleton, &pose, jm);
    mr_pose_skinning(&m->skeleton, jm, skin);

    real_shot s = {.m = m, .skin = (const mat4 *)skin};
    CHECK(mr_renderer_upload_model(ren, m, &s.gpu, &err) == MR_OK);
    mr_model_display_matrix(m, s.world);
    vec3 mn, mx;
    mr_renderer_model_bounds(ren, s.gpu, skin, nj, s.world, mn, mx);
    s.scene.camera.yaw = 40;
    s.scene.camera.pitch = 15;
    mr_camera_frame_bounds(&s.scene.camera, mn, mx, (float)W / H);
    /* floor under the lowest vertex of the pose (CPU-skinned below) */
    mr_model *cpu = cpu_copy(m, (const mat4 *)skin, 0);
    vec3 c;
    float lowest = 1e30f;
    for (int i = 0; i < cpu->mesh_count; i++)
        for (int v = 0; v < cpu->meshes[i].vertex_count; v++) {
            vec3 w;
            glm_mat4_mulv3(s.world, cpu->meshes[i].positions[v], 1.0f, w);
            if (w[1] < lowest) lowest = w[1];
        }
    /* Floor, grid and shadow sphere fixed, so both skinning paths get the
     * same scene (the automatic fits use each model's own bounds). */
    s.scene.floor_y = lowest;
    glm_vec3_center(mn, mx, c);
    s.scene.floor_center[0] = c[0];
    s.scene.floor_center[1] = c[2];
    s.scene.floor_extent = 2.5f * glm_vec3_distance(mn, mx);
    memcpy(s.scene.shadow_center, c, sizeof s.scene.shadow_center);
    s.scene.shadow_radius = 0.55f * glm_vec3_distance(mn, mx);

    render_real(&s, img_a);
    char name[64];
    snprintf(name, sizeof name, "%s_gpu", label);
    keep(name, img_a);
    int culled = check_cull_and_prepass_keep_picture(label, &s, img_a);
    s.no_model = 1;
    render_real(&s, img_b);
    s.no_model = 0;
    /* covers its projection: the pixel at the posed bounds' centre */
    mr_renderer_begin_frame(ren, &s.scene);
    float px, py;
    int visible = mr_renderer_project(ren, c, &px, &py);
    mr_renderer_end_frame(ren);
    CHECK(visible && px > 0 && px < W && py > 0 && py < H);
    int covered = count_diff(img_a, img_b, 10);
    CHECK_MSG(covered > W * H / 25, "%s covers only %d pixels", label, covered);

    /* shadow: pixels darkened by turning shadows on, centred low on screen */
    s.no_shadows = 1;
    render_real(&s, img_b);
    s.no_shadows = 0;
    int darker = 0, lighter = 0;
    double sy = 0;
    for (int i = 0; i < W * H; i++) {
        if (pixel_diff(img_a + i * 4, img_b + i * 4) <= 6) continue;
        if (luma(img_a + i * 4) < luma(img_b + i * 4)) { darker++; sy += i / W; }
        else lighter++;
    }
    CHECK_MSG(darker > 200 && lighter * 20 < darker, "%s shadow: %d darker, %d lighter", label,
              darker, lighter);
    CHECK_MSG(darker && sy / darker > py, "%s shadow centre y %.0f above the model centre %.0f", label,
              darker ? sy / darker : 0, py);

    /* GPU vs CPU skinning of the same pose */
    mr_gpu_model cg;
    CHECK(mr_renderer_upload_model(ren, cpu, &cg, &err) == MR_OK);
    real_shot sc = s;
    sc.gpu = cg;
    sc.skin = NULL;
    render_real(&sc, img_b);
    snprintf(name, sizeof name, "%s_cpu", label);
    keep(name, img_b);
    long total = 0;
    int over = 0, worst = 0;
    for (int i = 0; i < W * H; i++) {
        int d = pixel_diff(img_a + i * 4, img_b + i * 4);
        total += d;
        over += d > 24;
        if (d > worst) worst = d;
    }
    double mean = (double)total / (W * H);
    printf("       %s gpu vs cpu skinning: mean %.4f, %d pixels > 24, worst %d\n", label, mean, over, worst);
    CHECK_MSG(mean < 0.1 && over <= W * H / 2000, "%s: GPU and CPU skinning differ (mean %.3f, %d pixels)",
              label, mean, over);
    /* and the bind pose looks different (the comparison has teeth) */
    sc.gpu = s.gpu;
    render_real(&sc, img_b);
    CHECK(count_diff(img_a, img_b, 24) > W * H / 200);
    /* A model using more than 4 influences: the GPU draws all of them, so it
     * is nearer the full CPU skinning than a 4-influence cut of it. */
    int most = 0;
    for (int i = 0; i < m->mesh_count; i++)
        if (mr_mesh_influence_count(&m->meshes[i]) > most) most = mr_mesh_influence_count(&m->meshes[i]);
    if (most > MR_INFLUENCE_SET) {
        mr_model *cpu4 = cpu_copy(m, (const mat4 *)skin, MR_INFLUENCE_SET);
        mr_gpu_model c4;
        CHECK(mr_renderer_upload_model(ren, cpu4, &c4, &err) == MR_OK);
        sc.gpu = c4;
        render_real(&sc, img_b);
        long total4 = 0;
        for (int i = 0; i < W * H; i++) total4 += pixel_diff(img_a + i * 4, img_b + i * 4);
        printf("       %s uses %d influences; gpu vs a 4-influence cut: mean %.4f, %d pixels > 24\n", label, most,
               (double)total4 / (W * H), count_diff(img_a, img_b, 24));
        CHECK_MSG(total4 > total, "%s: the GPU is no nearer the 8-influence skinning than the 4-influence cut", label);
        mr_renderer_release_model(ren, c4);
        mr_model_destroy(cpu4);
    }

    mr_renderer_release_model(ren, cg);
    mr_renderer_release_model(ren, s.gpu);
    mr_model_destroy(cpu);
    free(jm);
    free(skin);
    mr_pose_deinit(&pose);
    mr_model_destroy(m);
    return culled;
}

TEST(cutout_texels_show_what_is_behind_them)
{
    /* Bob's lantern grills have see-through texels: drawn with the cutout
     * variant (MR_CUTOUT 1, chosen per mesh), the floor shows between the
     * bars; drawn with a model.frag that never discards, it does not. */
    const char *mesh = SHARED_MODELS "assimp/test/models-nonbsd/MD5/Bob.md5mesh";
    if (!mr_file_exists(mesh)) {
        printf("  skip cutout: %s not found\n", mesh);
        return;
    }
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK_MSG(mr_load_model(mesh, NULL, 0, &m, &err) == MR_OK, "%s", err.msg);
    mr_renderer *opaque = renderer_with_edit("no_cutout", "model.frag", "#include \"lighting.glsl\"",
                                             "#undef MR_CUTOUT\n#define MR_CUTOUT 0\n");
    mr_renderer *both[2] = {ren, opaque};
    uint8_t *out[2] = {img_a, img_b};
    for (int i = 0; m && opaque && i < 2; i++) {
        real_shot s = {.r = both[i], .m = m};
        CHECK(mr_renderer_upload_model(both[i], m, &s.gpu, &err) == MR_OK);
        mr_model_display_matrix(m, s.world);
        vec3 mn, mx;
        mr_renderer_model_bounds(both[i], s.gpu, NULL, 0, s.world, mn, mx);
        s.scene.camera.yaw = 35;
        s.scene.camera.pitch = 20;
        mr_camera_frame_bounds(&s.scene.camera, mn, mx, (float)W / H);
        s.scene.floor_y = mn[1];
        render_real(&s, out[i]);
        mr_renderer_release_model(both[i], s.gpu);
    }
    int n = count_diff(img_a, img_b, 24);
    CHECK_MSG(n > 40, "the cutout changes only %d pixels", n);
    keep("cutout_bob", img_a);
    mr_renderer_destroy(opaque);
    mr_model_destroy(m);
}

TEST(bob_renders_whole_shadowed_and_gpu_equals_cpu_skinning)
{
    check_real_model("bob", SHARED_MODELS "assimp/test/models-nonbsd/MD5/Bob.md5mesh",
                     SHARED_MODELS "assimp/test/models-nonbsd/MD5/Bob.md5anim", 3.0f);
}

TEST(snoutx10k_renders_whole_shadowed_and_gpu_equals_cpu_skinning)
{
    check_real_model("snoutx10k",
                     SHARED_MODELS "tomatenquark-essential/packages/models/snoutx10k/snoutx10k.md5mesh",
                     SHARED_MODELS "tomatenquark-essential/packages/models/snoutx10k/forward.md5anim",
                     0.4f);
}

/* 5 and 6 influences on 158 vertices: the GPU's second attribute set. */
TEST(thinmatrix_renders_whole_shadowed_and_gpu_equals_cpu_skinning)
{
    check_real_model("thinmatrix", SHARED_MODELS "thinmatrix-opengl-animation/Resources/res/model.dae", NULL, 0.45f);
}

/* A sheet of 8 root joints, every vertex weighed on all 8 (weights varying
 * over the sheet); joints 5-8 move far, so a renderer that drops the second
 * attribute set draws a very different picture. */
static mr_model *eight_influence_sheet(mat4 skin[8])
{
    mr_model *m = NULL;
    mr_model_create("sheet8", "test", &m);
    mr_skeleton_init(&m->skeleton, 8);
    for (int j = 0; j < 8; j++) {
        char name[16];
        snprintf(name, sizeof name, "j%d", j);
        m->skeleton.names[j] = mr_str_dup(name);
    }
    enum { N = 24 };
    m->mesh_count = 1;
    m->meshes = calloc(1, sizeof *m->meshes);
    mr_mesh *q = &m->meshes[0];
    mr_mesh_init(q, (N + 1) * (N + 1), N * N * 6, 1);
    for (int y = 0; y <= N; y++)
        for (int x = 0; x <= N; x++) {
            int v = y * (N + 1) + x;
            float u = (float)x / N, t = (float)y / N;
            q->positions[v][0] = u - 0.5f;
            q->positions[v][1] = t;
            q->normals[v][2] = 1;
            q->uvs[v][0] = u;
            q->uvs[v][1] = t;
            float w[8], sum = 0;
            for (int k = 0; k < 8; k++) sum += w[k] = 1.0f + (float)k * (k % 2 ? u : t) + 0.3f * (float)(k == 7);
            /* slots heaviest first, as the loaders pack them */
            for (int k = 0; k < 8; k++) {
                int slot = 0;
                for (int l = 0; l < 8; l++) slot += w[l] > w[k] || (w[l] == w[k] && l < k);
                q->joints[v][slot] = (uint16_t)k;
                q->weights[v][slot] = w[k] / sum;
            }
        }
    int i = 0;
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) {
            uint32_t a = (uint32_t)(y * (N + 1) + x), b = a + 1, c = a + N + 1, d = c + 1;
            uint32_t tri[6] = {a, b, d, a, d, c};
            memcpy(&q->indices[i], tri, sizeof tri);
            i += 6;
        }
    for (int j = 0; j < 8; j++) {
        glm_mat4_identity(skin[j]);
        glm_rotate_z(skin[j], glm_rad(6.0f * (float)j), skin[j]);
        skin[j][3][0] = j >= 4 ? 1.2f : -0.1f * (float)j;
        skin[j][3][1] = j >= 4 ? 0.4f : 0.0f;
    }
    return m;
}

TEST(gpu_skinning_with_8_influences_matches_cpu)
{
    mat4 skin[8];
    mr_model *m = eight_influence_sheet(skin);
    CHECK(mr_mesh_influence_count(&m->meshes[0]) == 8);
    mr_error err = {0};
    real_shot s = {.m = m, .skin = (const mat4 *)skin};
    CHECK(mr_renderer_upload_model(ren, m, &s.gpu, &err) == MR_OK);
    glm_mat4_identity(s.world);
    mr_model *cpu = cpu_copy(m, (const mat4 *)skin, 0), *cpu4 = cpu_copy(m, (const mat4 *)skin, 4);
    /* Frame both the full and the cut pose. */
    vec3 mn = {1e30f, 1e30f, 1e30f}, mx = {-1e30f, -1e30f, -1e30f};
    for (int k = 0; k < 2; k++) {
        const mr_mesh *me = &(k ? cpu4 : cpu)->meshes[0];
        for (int v = 0; v < me->vertex_count; v++) {
            glm_vec3_minv(mn, me->positions[v], mn);
            glm_vec3_maxv(mx, me->positions[v], mx);
        }
    }
    s.scene.camera.yaw = 20;
    s.scene.camera.pitch = 10;
    mr_camera_frame_bounds(&s.scene.camera, mn, mx, (float)W / H);
    s.scene.hide_floor = 1;
    s.no_shadows = 1;
    render_real(&s, img_a);
    keep("sheet8_gpu", img_a);
    mr_gpu_model cg, c4;
    CHECK(mr_renderer_upload_model(ren, cpu, &cg, &err) == MR_OK);
    CHECK(mr_renderer_upload_model(ren, cpu4, &c4, &err) == MR_OK);
    real_shot sc = s;
    sc.skin = NULL;
    sc.gpu = cg;
    render_real(&sc, img_b);
    keep("sheet8_cpu", img_b);
    long total = 0;
    int over = 0;
    for (int i = 0; i < W * H; i++) {
        int d = pixel_diff(img_a + i * 4, img_b + i * 4);
        total += d;
        over += d > 24;
    }
    printf("       8-influence sheet gpu vs cpu skinning: mean %.4f, %d pixels > 24\n", (double)total / (W * H), over);
    CHECK_MSG((double)total / (W * H) < 0.1 && over <= W * H / 2000, "GPU and CPU 8-influence skinning differ");
    sc.gpu = c4;
    render_real(&sc, img_b);
    keep("sheet8_cpu4", img_b);
    int moved = count_diff(img_a, img_b, 24);
    printf("       8-influence sheet gpu vs a 4-influence cut: %d pixels > 24\n", moved);
    CHECK(moved > W * H / 20);
    mr_renderer_release_model(ren, c4);
    mr_renderer_release_model(ren, cg);
    mr_renderer_release_model(ren, s.gpu);
    mr_model_destroy(cpu4);
    mr_model_destroy(cpu);
    mr_model_destroy(m);
}

/* The mannequin's meshes are closed: drawn without back faces. */
TEST(mannequin_renders_whole_shadowed_and_gpu_equals_cpu_skinning)
{
    int culled = check_real_model("mannequin", "models/mannequin.md5mesh", "models/walk.md5anim", 0.3f);
    CHECK_MSG(culled != 0, "the mannequin's closed meshes were drawn with their back faces");
}

/* With a display (cli_render.sh runs this under xvfb-run): a GLFW window
 * shows exactly the offscreen frame, and a headless context draws the same. */
TEST(window_shows_the_same_pixels_as_headless)
{
    const char *d = getenv("DISPLAY");
    if (!d || !*d) {
        printf("  skip window_shows_the_same_pixels_as_headless: no DISPLAY\n");
        return;
    }
    static uint8_t headless[W * H * 4], windowed[W * H * 4], shown[W * H * 4];
    render(&(shot){.t = 0.9f, .skeleton = 1, .text = "window"}, headless);

    /* Tear the headless renderer down, open a window, render again. */
    mr_renderer_release_model(ren, fig_gpu);
    mr_renderer_destroy(ren);
    mr_renderer_destroy(ren_nocull);
    mr_renderer_destroy(ren_noprepass);
    ren_nocull = ren_noprepass = NULL;
    mr_window_destroy(win);
    mr_error err = {0};
    mr_window_create(&(mr_window_desc){.width = W, .height = H, .hidden = 0}, &win, &err);
    CHECK(win && !mr_window_is_headless(win));
    if (!win || mr_window_is_headless(win)) return;
    CHECK(mr_renderer_create(&(mr_renderer_desc){.width = W, .height = H, .shadow_size = 1024,
                                                 .quiet = 1}, &ren, &err) == MR_OK);
    CHECK(mr_renderer_upload_model(ren, fig, &fig_gpu, &err) == MR_OK);
    render(&(shot){.t = 0.9f, .skeleton = 1, .text = "window"}, windowed);
    int fw, fh;
    mr_window_framebuffer_size(win, &fw, &fh);
    CHECK(fw == W && fh == H);
    mr_renderer_present(ren, fw, fh);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    glReadBuffer(GL_BACK);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, W, H, GL_RGBA, GL_UNSIGNED_BYTE, shown);
    mr_window_swap(win);
    keep("window", windowed);
    CHECK_MSG(memcmp(headless, windowed, sizeof headless) == 0,
              "window frame differs from headless in %d pixels", count_diff(headless, windowed, 0));
    /* The window's back buffer holds the frame, bottom row first as GL reads. */
    int bad = 0;
    for (int y = 0; y < H; y++)
        bad += memcmp(shown + (size_t)(H - 1 - y) * W * 4 + 0, windowed + (size_t)y * W * 4, W * 4) != 0;
    CHECK_MSG(bad == 0, "%d rows of the window differ from the frame", bad);
}

static void rm_tree(const char *dir)
{
    char cmd[256];
    if (strncmp(dir, "/tmp/marrow-gfx-", 16) != 0) return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/marrow-gfx-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    mr_error err = {0};
    mr_window_create(&(mr_window_desc){.width = W, .height = H, .headless = 1}, &win, &err);
    if (!win) {
        printf("  FAIL headless context: %s\n", err.msg);
        printf("gfx: 0 passed, 1 failed\n");
        return 1;
    }
    if (mr_renderer_create(&(mr_renderer_desc){.width = W, .height = H, .shadow_size = 1024,
                                                .quiet = 1}, &ren, &err) != MR_OK) {
        printf("  FAIL renderer: %s\n", err.msg);
        printf("gfx: 0 passed, 1 failed\n");
        return 1;
    }
    if (mr_renderer_create(&(mr_renderer_desc){.width = W, .height = H, .shadow_size = 1024,
                                                .quiet = 1, .no_cull = 1}, &ren_nocull, &err) != MR_OK ||
        mr_renderer_create(&(mr_renderer_desc){.width = W, .height = H, .shadow_size = 1024,
                                                .quiet = 1, .no_prepass = 1}, &ren_noprepass, &err) != MR_OK) {
        printf("  FAIL renderer: %s\n", err.msg);
        printf("gfx: 0 passed, 1 failed\n");
        return 1;
    }
    fig = fixture_model(tmpdir);
    if (mr_renderer_upload_model(ren, fig, &fig_gpu, &err) != MR_OK) {
        printf("  FAIL upload: %s\n", err.msg);
        printf("gfx: 0 passed, 1 failed\n");
        return 1;
    }
    RUN(renderer_reports_llvmpipe_context_and_finds_shaders);
    RUN(missing_texture_is_a_checker_and_one_warning);
    RUN(render_figure_covers_its_projection);
    RUN(floor_is_visible_below_the_horizon);
    RUN(shadow_darkens_the_floor_under_the_figure);
    RUN(floor_outside_the_shadow_footprint_skips_the_lookups_without_changing_a_pixel);
    RUN(kept_floor_gives_the_pixels_of_a_fresh_frame_and_follows_the_camera);
    RUN(model_programs_are_built_when_first_drawn_with);
    RUN(default_floor_stays_put_when_the_figure_travels);
    RUN(shadow_texels_and_prepass_follow_the_models_size_on_screen);
    RUN(fxaa_moves_edges_towards_msaa_and_leaves_flat_areas_alone);
    RUN(fxaa_runs_around_models_and_lines_only);
    RUN(consecutive_frames_differ);
    RUN(rendering_is_deterministic);
    RUN(gpu_skinning_matches_cpu_skinning);
    RUN(bone_palette_holds_max_joints_and_refuses_more);
    RUN(upload_refuses_out_of_range_joints_and_indices);
    RUN(released_handles_go_stale);
    RUN(corrupt_and_giant_textures_fall_back_to_the_checker);
    RUN(bomb_and_lying_pngs_are_refused_and_odd_sides_get_mipmaps);
    RUN(textures_together_stay_within_the_renderers_pixel_budget);
    RUN(texture_rows_follow_the_uv_convention);
    RUN(read_pixels_puts_the_top_row_first);
    RUN(skeleton_overlay_and_wireframe_change_the_picture);
    RUN(skeleton_axes_draw_each_joints_x_y_z_in_red_green_blue);
    RUN(text_draws_glyphs);
    RUN(panel_fills_its_rectangle_behind_later_text);
    RUN(shader_errors_carry_the_glsl_log);
    RUN(missing_font_skips_text_with_one_warning);
    RUN(normal_map_changes_shading);
    RUN(closed_meshes_draw_without_back_faces_open_ones_with_both);
    RUN(culling_keeps_the_picture_of_mirrored_and_inside_out_boxes);
    RUN(cutout_texels_show_what_is_behind_them);
    RUN(bob_renders_whole_shadowed_and_gpu_equals_cpu_skinning);
    RUN(snoutx10k_renders_whole_shadowed_and_gpu_equals_cpu_skinning);
    RUN(mannequin_renders_whole_shadowed_and_gpu_equals_cpu_skinning);
    RUN(thinmatrix_renders_whole_shadowed_and_gpu_equals_cpu_skinning);
    RUN(gpu_skinning_with_8_influences_matches_cpu);
    RUN(window_shows_the_same_pixels_as_headless);
    mr_renderer_release_model(ren, fig_gpu);
    mr_renderer_destroy(ren);
    mr_renderer_destroy(ren_nocull);
    mr_renderer_destroy(ren_noprepass);
    mr_window_destroy(win);
    mr_model_destroy(fig);
    rm_tree(tmpdir);
    return test_summary("gfx");
}
