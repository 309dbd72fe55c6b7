/* renderer.c — the renderer's lifetime, frame recording and the passes run
 * by mr_renderer_end_frame: bone palette upload, shadow map, the sky (copied
 * from a kept image), models, floor (or, while the view stays, the kept
 * floor copied in first with only its shadow drawn again), lines, overlay,
 * then FXAA and text (single-sampled) or text and the MSAA resolve; and
 * reading the result back. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/defaults.h"
#include "core/str.h"
#include "gfx/internal.h"
#include "gfx/shader.h"
#include "core/heap.h"

enum { UNIT_DIFFUSE = 0, UNIT_NORMAL = 1, UNIT_SHADOW = 2, UNIT_PALETTE = 3, UNIT_MORPH = 4, UNIT_DQ = 5, UNIT_DQ_BLEND = 6 };

/* --- programs ------------------------------------------------------------ */

/* Every program the renderer uses; ids only, uniform locations are looked
 * up when installed. */
typedef struct programs {
    GLuint model[2][GFX_SKIN_VARIANTS][GFX_MAT_VARIANTS], depth[GFX_SKIN_VARIANTS], floor[2], sky, line,
        text, fxaa[2];
} programs;

#define PROGRAM_COUNT (sizeof(programs) / sizeof(GLuint))

static void delete_programs(programs *p)
{
    GLuint *all = (GLuint *)p;
    for (size_t i = 0; i < PROGRAM_COUNT; i++)
        if (all[i]) glDeleteProgram(all[i]);
    memset(p, 0, sizeof *p);
}

static const char *const skin_defines[GFX_SKIN_VARIANTS] = {
    "#define MR_SKIN 0\n", "#define MR_SKIN 1\n", "#define MR_SKIN 2\n", "#define MR_SKIN 3\n",
    "#define MR_SKIN 4\n"};

typedef struct program_src { GLuint *out; const char *vs, *fs, *defines; } program_src;

/* The defines of model program variant [sh][k][mat]. */
static void model_defines(char *d, size_t n, int sh, int k, int mat)
{
    snprintf(d, n, "#define MR_SHADOWS %d\n%s#define MR_NORMAL_MAP %d\n#define MR_CUTOUT %d\n", sh, skin_defines[k],
             !!(mat & GFX_MAT_NORMAL_MAP), !!(mat & GFX_MAT_CUTOUT));
}

/* Builds the programs: every one when all is set (a reload, which reports
 * an error in any variant); else every program but the model variants, of
 * which only the one most draws use (shadows, four influences, plain
 * material), so that an error in model.vert, model.frag or the files they
 * include is reported here; the others are built when first drawn with
 * (model_program). */
static mr_status build_programs(const char *dir, programs *p, int all, char *model_src[2], mr_error *err)
{
    memset(p, 0, sizeof *p);
    /* model.vert and model.frag are read once: every variant, and those
     * built later (model_program), from the same text */
    model_src[0] = mr_shader_source(dir, "model.vert", err);
    model_src[1] = model_src[0] ? mr_shader_source(dir, "model.frag", err) : NULL;
    if (!model_src[1]) {
        free(model_src[0]);
        model_src[0] = NULL;
        return err ? err->status : MR_ERR_IO;
    }
    for (int sh = 0; sh < 2; sh++)
        for (int k = 0; k < GFX_SKIN_VARIANTS; k++)
            for (int mat = 0; mat < GFX_MAT_VARIANTS; mat++) {
                if (!all && !(sh == 1 && k == GFX_SKIN_4 && mat == 0)) continue;
                char defines[96];
                model_defines(defines, sizeof defines, sh, k, mat);
                p->model[sh][k][mat] = mr_shader_program_text(model_src[0], model_src[1], dir, "model.vert",
                                                              "model.frag", defines, NULL, err);
                if (!p->model[sh][k][mat]) goto fail;
            }
    program_src list[PROGRAM_COUNT];
    size_t n = 0;
    for (int k = 0; k < GFX_SKIN_VARIANTS; k++)
        list[n++] = (program_src){&p->depth[k], "depth.vert", "depth.frag", skin_defines[k]};
    list[n++] = (program_src){&p->floor[0], "floor.vert", "floor.frag", "#define MR_SHADOWS 0\n"};
    list[n++] = (program_src){&p->floor[1], "floor.vert", "floor.frag", "#define MR_SHADOWS 1\n"};
    list[n++] = (program_src){&p->sky, "sky.vert", "sky.frag", NULL};
    list[n++] = (program_src){&p->line, "line.vert", "line.frag", NULL};
    list[n++] = (program_src){&p->text, "text.vert", "text.frag", NULL};
    list[n++] = (program_src){&p->fxaa[0], "fxaa.vert", "fxaa.frag", "#define MR_FXAA_MARK 0\n"};
    list[n++] = (program_src){&p->fxaa[1], "fxaa.vert", "fxaa.frag", "#define MR_FXAA_MARK 1\n"};
    for (size_t i = 0; i < n; i++) {
        *list[i].out = mr_shader_program(dir, list[i].vs, list[i].fs, list[i].defines, NULL, err);
        if (!*list[i].out) goto fail;
    }
    return MR_OK;
fail:
    delete_programs(p);
    free(model_src[0]);
    free(model_src[1]);
    model_src[0] = model_src[1] = NULL;
    return err ? err->status : MR_ERR_BAD_FILE;
}

static void set_sampler(GLuint prog, const char *name, int unit)
{
    glUseProgram(prog);
    GLint loc = glGetUniformLocation(prog, name);
    if (loc >= 0) glUniform1i(loc, unit);
}

static gfx_morph_uniforms morph_uniforms(GLuint prog)
{
    return (gfx_morph_uniforms){.count = glGetUniformLocation(prog, "u_morph_count"),
                                .vertices = glGetUniformLocation(prog, "u_morph_vertices"),
                                .target = glGetUniformLocation(prog, "u_morph_target"),
                                .weight = glGetUniformLocation(prog, "u_morph_weight")};
}

static programs installed(const mr_renderer *r)
{
    programs p;
    for (int sh = 0; sh < 2; sh++)
        for (int k = 0; k < GFX_SKIN_VARIANTS; k++)
            for (int mat = 0; mat < GFX_MAT_VARIANTS; mat++) p.model[sh][k][mat] = r->prog.model[sh][k][mat].id;
    for (int k = 0; k < GFX_SKIN_VARIANTS; k++) p.depth[k] = r->prog.depth[k].id;
    p.floor[0] = r->prog.floor[0];
    p.floor[1] = r->prog.floor[1];
    p.sky = r->prog.sky;
    p.line = r->prog.line;
    p.text = r->prog.text;
    p.fxaa[0] = r->prog.fxaa[0];
    p.fxaa[1] = r->prog.fxaa[1];
    return p;
}

/* The texture units of the buffers skin.glsl reads (every model and depth
 * program includes it). */
static void set_skin_samplers(GLuint prog)
{
    set_sampler(prog, "u_palette", UNIT_PALETTE);
    set_sampler(prog, "u_morph", UNIT_MORPH);
    set_sampler(prog, "u_dq", UNIT_DQ);
    set_sampler(prog, "u_dq_blend", UNIT_DQ_BLEND);
}

/* Installs model program m (0: not built) as variant [sh][k][mat]: its
 * uniform locations and samplers. */
static void install_model_program(mr_renderer *r, int sh, int k, int mat, GLuint m)
{
    r->prog.model[sh][k][mat] = (gfx_model_program){.id = m};
    if (!m) return;
    r->prog.model[sh][k][mat] = (gfx_model_program){
        .id = m,
        .world = glGetUniformLocation(m, "u_world"),
        .normal_matrix = glGetUniformLocation(m, "u_normal_matrix"),
        .palette_offset = glGetUniformLocation(m, "u_palette_offset"),
        .diffuse = glGetUniformLocation(m, "u_diffuse"),
        .specular = glGetUniformLocation(m, "u_specular"),
        .emission = glGetUniformLocation(m, "u_emission"),
        .shininess = glGetUniformLocation(m, "u_shininess"),
        .tint = glGetUniformLocation(m, "u_tint"),
        .wireframe = glGetUniformLocation(m, "u_wireframe"),
        .has_diffuse_map = glGetUniformLocation(m, "u_has_diffuse_map"),
        .dq_offset = glGetUniformLocation(m, "u_dq_offset"),
        .dq_vertex_blend = glGetUniformLocation(m, "u_dq_vertex_blend"),
        .morph = morph_uniforms(m),
    };
    set_skin_samplers(m);
    set_sampler(m, "u_diffuse_map", UNIT_DIFFUSE);
    set_sampler(m, "u_normal_map", UNIT_NORMAL);
    set_sampler(m, "u_shadow_map", UNIT_SHADOW);
}

/* Installs freshly built programs and looks up their uniforms; the model
 * sources they were built from (owned from here) build the variants still
 * missing. */
static void install_programs(mr_renderer *r, programs *p, char *model_src[2])
{
    programs old = installed(r);
    delete_programs(&old);
    for (int i = 0; i < 2; i++) {
        free(r->prog.model_src[i]);
        r->prog.model_src[i] = model_src[i];
    }
    const GLuint *ids = (const GLuint *)p;
    for (size_t i = 0; i < PROGRAM_COUNT; i++) r->prog.built += ids[i] != 0;
    memset(r->prog.failed, 0, sizeof r->prog.failed);
    for (int sh = 0; sh < 2; sh++)
        for (int i = 0; i < GFX_SKIN_VARIANTS * GFX_MAT_VARIANTS; i++) {
            int k = i / GFX_MAT_VARIANTS, mat = i % GFX_MAT_VARIANTS;
            install_model_program(r, sh, k, mat, p->model[sh][k][mat]);
        }
    for (int k = 0; k < GFX_SKIN_VARIANTS; k++) {
        GLuint s = p->depth[k];
        r->prog.depth[k] = (gfx_depth_program){
            .id = s,
            .world = glGetUniformLocation(s, "u_world"),
            .palette_offset = glGetUniformLocation(s, "u_palette_offset"),
            .view_proj = glGetUniformLocation(s, "u_view_proj"),
            .dq_offset = glGetUniformLocation(s, "u_dq_offset"),
            .dq_vertex_blend = glGetUniformLocation(s, "u_dq_vertex_blend"),
            .morph = morph_uniforms(s),
        };
        set_skin_samplers(s);
    }
    for (int sh = 0; sh < 2; sh++) {
        r->prog.floor[sh] = p->floor[sh];
        set_sampler(p->floor[sh], "u_shadow_map", UNIT_SHADOW);
    }
    r->prog.sky = p->sky;
    r->sky_valid = r->backdrop_valid = 0;   /* drawn again with the new programs */
    r->prog.line = p->line;
    r->prog.text = p->text;
    for (int mark = 0; mark < 2; mark++) {
        r->prog.fxaa[mark] = p->fxaa[mark];
        set_sampler(p->fxaa[mark], "u_frame", UNIT_DIFFUSE);
    }
    glUseProgram(0);
}

/* The skinning variant a mesh of a draw needs: dual quaternions where the
 * draw's style asks for them everywhere, or where the mesh's own mode is
 * (gfx_mesh.dq) and the style leaves each mesh its own. */
static int skin_variant(const gfx_mesh *m, const gfx_draw *d)
{
    if (!m->skinned || d->palette_offset < 0) return GFX_SKIN_STATIC;
    if (d->dq_offset >= 0 && (d->dq_all || m->dq)) return m->vbo1 ? GFX_SKIN_DQ8 : GFX_SKIN_DQ4;
    return m->vbo1 ? GFX_SKIN_8 : GFX_SKIN_4;
}

/* The material variant a mesh draws with. */
static int mat_variant(const gfx_mesh *m)
{
    return (m->normal_tex ? GFX_MAT_NORMAL_MAP : 0) | (m->alpha_cutout ? GFX_MAT_CUTOUT : 0);
}

mr_status mr_renderer_reload_shaders(mr_renderer *r, mr_error *err)
{
    programs p;
    char *src[2];
    mr_status st = build_programs(r->shader_dir, &p, 1, src, err);
    if (st != MR_OK) return st;
    install_programs(r, &p, src);
    return MR_OK;
}

/* --- lifetime ------------------------------------------------------------ */

mr_status mr_renderer_create(const mr_renderer_desc *desc, mr_renderer **out, mr_error *err)
{
    *out = NULL;
    mr_heap_keep_freed();  /* llvmpipe allocates and frees vertex buffers every draw */
    mr_renderer *r = calloc(1, sizeof *r);
    if (!r) return mr_error_set(err, MR_ERR_NO_MEMORY, "gfx: out of memory");
    if (desc) r->desc = *desc;
    int w = r->desc.width > 0 ? r->desc.width : MR_DEFAULT_WIDTH;
    int h = r->desc.height > 0 ? r->desc.height : MR_DEFAULT_HEIGHT;
    GLint max_samples = 1;
    glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
    r->samples = r->desc.samples > 1 ? r->desc.samples : 1;
    if (r->samples > max_samples) r->samples = max_samples > 1 ? max_samples : 1;
    r->fxaa = r->samples == 1 && !r->desc.no_fxaa;
    r->shader_dir = mr_str_dup(r->desc.shader_dir ? r->desc.shader_dir : mr_renderer_shader_dir());
    r->desc.shader_dir = NULL;  /* not kept: r->shader_dir is our copy */
    r->desc.font_path = NULL;
    const char *font = desc ? desc->font_path : NULL;

    programs p;
    char *src[2] = {NULL, NULL};
    r->prog.lit_shadows = -1;
    mr_status st = r->shader_dir ? build_programs(r->shader_dir, &p, 0, src, err)
                                 : mr_error_set(err, MR_ERR_NO_MEMORY, "gfx: out of memory");
    if (st != MR_OK) {
        free(r->shader_dir);
        free(r);
        return st;
    }
    install_programs(r, &p, src);
    st = gfx_targets_create(r, w, h, err);
    if (st == MR_OK) st = gfx_shadow_create(r, err);
    if (st != MR_OK) {
        mr_renderer_destroy(r);
        return st;
    }
    gfx_textures_init(r);
    gfx_lines_init(r);
    r->desc.font_path = font;
    gfx_font_init(r);
    r->desc.font_path = NULL;

    glGenVertexArrays(1, &r->empty_vao);
    GLint max_texels = 0;
    glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &max_texels);
    r->palette_max = (size_t)(max_texels > 0 ? max_texels : 65536) / 4;
    glGenBuffers(1, &r->palette_buf);
    glBindBuffer(GL_TEXTURE_BUFFER, r->palette_buf);
    r->palette_gpu_cap = 256;
    glBufferData(GL_TEXTURE_BUFFER, (GLsizeiptr)(r->palette_gpu_cap * sizeof(mat4)), NULL,
                 GL_STREAM_DRAW);
    glGenTextures(1, &r->palette_tex);
    glBindTexture(GL_TEXTURE_BUFFER, r->palette_tex);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, r->palette_buf);
    glGenBuffers(1, &r->dq_buf);
    glBindBuffer(GL_TEXTURE_BUFFER, r->dq_buf);
    r->dq_gpu_cap = 64;
    glBufferData(GL_TEXTURE_BUFFER, (GLsizeiptr)(r->dq_gpu_cap * sizeof(mat4)), NULL, GL_STREAM_DRAW);
    glGenTextures(1, &r->dq_tex);
    glBindTexture(GL_TEXTURE_BUFFER, r->dq_tex);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA32F, r->dq_buf);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);

    GLenum e = glGetError();
    if (e != GL_NO_ERROR) {
        mr_renderer_destroy(r);
        return mr_error_set(err, MR_ERR_GL, "gfx: OpenGL error 0x%x while creating the renderer", e);
    }
    *out = r;
    return MR_OK;
}

void mr_renderer_destroy(mr_renderer *r)
{
    if (!r) return;
    gfx_models_release_all(r);
    gfx_textures_free(r);
    gfx_font_free(r);
    gfx_lines_free(r);
    gfx_targets_free(r);
    gfx_shadow_free(r);
    programs p = installed(r);
    delete_programs(&p);
    free(r->prog.model_src[0]);
    free(r->prog.model_src[1]);
    if (r->empty_vao) glDeleteVertexArrays(1, &r->empty_vao);
    if (r->palette_tex) glDeleteTextures(1, &r->palette_tex);
    if (r->palette_buf) glDeleteBuffers(1, &r->palette_buf);
    if (r->dq_tex) glDeleteTextures(1, &r->dq_tex);
    if (r->dq_buf) glDeleteBuffers(1, &r->dq_buf);
    free(r->palette.data);
    free(r->dq.data);
    free(r->morph.data);
    free(r->draws.data);
    free(r->readback);
    free(r->shader_dir);
    free(r);
}

mr_status mr_renderer_resize(mr_renderer *r, int width, int height, mr_error *err)
{
    if (width == r->width && height == r->height) return MR_OK;
    int ow = r->width, oh = r->height;
    mr_status st = gfx_targets_create(r, width, height, err);
    if (st != MR_OK) gfx_targets_create(r, ow, oh, NULL);
    return st;
}

void mr_renderer_size(const mr_renderer *r, int *width, int *height)
{
    *width = r->width;
    *height = r->height;
}

void mr_renderer_stats(const mr_renderer *r, mr_frame_stats *out)
{
    *out = r->stats;
    out->programs = r->prog.built;
}

/* --- recording ----------------------------------------------------------- */

static int is_zero3(const float *v)
{
    return v[0] == 0 && v[1] == 0 && v[2] == 0;
}

mr_status mr_renderer_begin_frame(mr_renderer *r, const mr_scene *scene)
{
    r->scene = scene ? *scene : (mr_scene){0};
    mr_scene *s = &r->scene;
    if (is_zero3(s->ambient)) glm_vec3_copy((vec3){0.30f, 0.32f, 0.36f}, s->ambient);
    static const mr_light defaults[2] = {
        {{0.45f, 1.0f, 0.55f}, {0.95f, 0.90f, 0.82f}},
        {{-0.6f, 0.35f, -0.45f}, {0.28f, 0.32f, 0.40f}},
    };
    for (int i = 0; i < 2; i++) {
        if (is_zero3(s->lights[i].direction)) s->lights[i] = defaults[i];
        glm_vec3_normalize(s->lights[i].direction);
    }
    static const float top[4] = {0.30f, 0.42f, 0.58f, 1}, bottom[4] = {0.74f, 0.78f, 0.82f, 1};
    if (s->sky_top[3] == 0) memcpy(s->sky_top, top, sizeof top);
    if (s->sky_bottom[3] == 0) memcpy(s->sky_bottom, bottom, sizeof bottom);

    mr_camera_matrices(&s->camera, (float)r->width / (float)r->height, r->view, r->proj);
    glm_mat4_mul(r->proj, r->view, r->view_proj);
    mr_camera_eye(&s->camera, r->eye);

    r->draws.count = 0;
    r->palette.count = 0;
    r->dq.count = 0;
    r->morph.count = 0;
    r->lines.count = 0;
    r->overlay_lines.count = 0;
    r->points.count = 0;
    r->text.count = 0;
    r->stats.draws = r->stats.triangles = r->stats.culled_triangles = 0;
    r->stats.prepass_triangles = r->stats.shadow_texels = 0;
    r->stats.lines = r->stats.glyphs = 0;
    r->in_frame = 1;
    return MR_OK;
}

/* Determinant of the upper 3x3: negative when m mirrors. */
static float det3(const mat4 m)
{
    return m[0][0] * (m[1][1] * m[2][2] - m[2][1] * m[1][2]) -
           m[1][0] * (m[0][1] * m[2][2] - m[2][1] * m[0][2]) +
           m[2][0] * (m[0][1] * m[1][2] - m[1][1] * m[0][2]);
}

mr_status mr_renderer_draw_model(mr_renderer *r, mr_gpu_model m, const mat4 *skin,
                                 int joint_count, const mat4 world, const mr_draw_style *style)
{
    if (!r->in_frame) return MR_ERR_INVALID_ARGUMENT;
    gfx_model *g = gfx_model_get(r, m);
    if (!g) return MR_ERR_INVALID_ARGUMENT;
    if (skin && joint_count != g->joint_count) return MR_ERR_JOINT_COUNT;
    if (style && style->morph_weights && style->morph_weight_count != g->morph_weight_count)
        return MR_ERR_INVALID_ARGUMENT;
    if (GFX_RESERVE(r->draws, r->draws.count + 1) != 0) return MR_ERR_NO_MEMORY;
    int dq_offset = -1, morph_offset = -1;
    /* dual quaternions for every mesh (the style's), or for the meshes
     * whose own mode they are (unless the style fixes linear skinning) */
    int dq_all = style && style->skinning == MR_SKINNING_DUAL_QUATERNION, dq_own = 0;
    for (int k = 0; !dq_all && !(style && style->fixed_skinning) && k < g->mesh_count; k++)
        dq_own |= g->meshes[k].dq;
    if ((dq_all || dq_own) && skin && joint_count > 0) {
        if (GFX_RESERVE(r->dq, r->dq.count + 2 * (size_t)joint_count) != 0) return MR_ERR_NO_MEMORY;
        dq_offset = (int)(r->dq.count / 2);
        for (int j = 0; j < joint_count; j++) {
            float *t = (float *)r->dq.data[r->dq.count + 2 * (size_t)j];
            mr_mesh_dq_joint(skin[j], t);
            if (dq_all && style->skinning_mask && !t[20]) t[22] = fminf(fmaxf(style->skinning_mask[j], 0.0f), 1.0f);
        }
        r->dq.count += 2 * (size_t)joint_count;
    }
    if (g->morph_weight_count) {
        if (GFX_RESERVE(r->morph, r->morph.count + (size_t)g->morph_weight_count) != 0) return MR_ERR_NO_MEMORY;
        morph_offset = (int)r->morph.count;
        const float *w = style && style->morph_weights ? style->morph_weights : g->morph_defaults;
        memcpy(r->morph.data + r->morph.count, w, (size_t)g->morph_weight_count * sizeof *w);
        r->morph.count += (size_t)g->morph_weight_count;
    }
    int offset = -1;
    if (skin && joint_count > 0) {
        if (r->palette.count + (size_t)joint_count > r->palette_max) return MR_ERR_LIMIT;
        if (GFX_RESERVE(r->palette, r->palette.count + (size_t)joint_count) != 0)
            return MR_ERR_NO_MEMORY;
        offset = (int)r->palette.count;
        memcpy(r->palette.data + r->palette.count, skin, (size_t)joint_count * sizeof(mat4));
        r->palette.count += (size_t)joint_count;
    }
    gfx_draw *d = &r->draws.data[r->draws.count++];
    d->slot = (int)(g - r->models);
    d->palette_offset = offset;
    d->dq_offset = offset >= 0 ? dq_offset : -1;
    d->dq_all = dq_all;
    d->morph_offset = morph_offset;
    memcpy(d->world, world, sizeof d->world);
    d->mirrored = det3(d->world) < 0.0f;
    /* A mirroring (or flattening) skin matrix turns some triangles inside
     * out: then no face of this draw is culled. */
    d->may_cull = 1;
    for (int j = 0; offset >= 0 && j < joint_count && d->may_cull; j++)
        d->may_cull = det3(r->palette.data[offset + j]) > 0.0f;
    glm_mat4_inv(d->world, d->normal);
    glm_mat4_transpose(d->normal);
    glm_vec4_one(d->tint);
    d->wireframe = 0;
    d->cast_shadow = 1;
    if (style) {
        if (style->tint[0] || style->tint[1] || style->tint[2] || style->tint[3])
            memcpy(d->tint, style->tint, sizeof d->tint);
        d->wireframe = style->wireframe != 0;
        d->cast_shadow = !style->no_shadow;
    }
    return MR_OK;
}

int mr_renderer_morph_weight_count(const mr_renderer *r, mr_gpu_model m)
{
    const gfx_model *g = gfx_model_get(r, m);
    return g ? g->morph_weight_count : 0;
}

/* Sets the morph uniforms of mesh m of draw d (its non-zero weights, the
 * heaviest GFX_MORPH_ACTIVE) and binds its deltas. */
/* A mesh skinned by its own mode with per-vertex blend factors (FBX
 * "Blend") reads them (skin.glsl, u_dq_blend); a draw whose style asks for
 * dual quaternions everywhere does not. */
static void set_dq_blend(GLint loc, const gfx_mesh *m, const gfx_draw *d)
{
    int on = d->dq_offset >= 0 && !d->dq_all && m->dq && m->dq_blend_tex;
    glUniform1i(loc, on);
    if (!on) return;
    glActiveTexture(GL_TEXTURE0 + UNIT_DQ_BLEND);
    glBindTexture(GL_TEXTURE_BUFFER, m->dq_blend_tex);
}

static void set_morph(const mr_renderer *r, const gfx_morph_uniforms *u, const gfx_mesh *m, const gfx_draw *d)
{
    int n = 0;
    GLint target[GFX_MORPH_ACTIVE];
    GLfloat weight[GFX_MORPH_ACTIVE];
    if (m->morph_count && d->morph_offset >= 0) {
        const float *w = r->morph.data + d->morph_offset + m->morph_first;
        for (int k = 0; k < m->morph_count; k++) {
            if (w[k] == 0.0f || !isfinite(w[k])) continue;
            int pos = n;  /* sorted by magnitude, heaviest first; equal ones in target order */
            while (pos > 0 && fabsf(weight[pos - 1]) < fabsf(w[k])) pos--;
            if (pos >= GFX_MORPH_ACTIVE) continue;
            int last = n < GFX_MORPH_ACTIVE ? n : GFX_MORPH_ACTIVE - 1;
            for (int i = last; i > pos; i--) {
                target[i] = target[i - 1];
                weight[i] = weight[i - 1];
            }
            target[pos] = k;
            weight[pos] = w[k];
            if (n < GFX_MORPH_ACTIVE) n++;
        }
    }
    glUniform1i(u->count, n);
    if (!n) return;
    glUniform1i(u->vertices, m->vertex_count);
    glUniform1iv(u->target, n, target);
    glUniform1fv(u->weight, n, weight);
    glActiveTexture(GL_TEXTURE0 + UNIT_MORPH);
    glBindTexture(GL_TEXTURE_BUFFER, m->morph_tex);
}

int mr_renderer_project(const mr_renderer *r, const vec3 p, float *x, float *y)
{
    vec4 c;
    glm_mat4_mulv((vec4 *)r->view_proj, (vec4){p[0], p[1], p[2], 1.0f}, c);
    if (c[3] <= 1e-6f) return 0;
    *x = (c[0] / c[3] * 0.5f + 0.5f) * (float)r->width;
    *y = (0.5f - c[1] / c[3] * 0.5f) * (float)r->height;
    return 1;
}

/* World position of joint j of the model-space matrices m placed by w. */
static void joint_world(const mat4 *m, int j, const mat4 w, vec3 out)
{
    vec3 p = {m[j][3][0], m[j][3][1], m[j][3][2]};
    glm_mat4_mulv3((vec4 *)w, p, 1.0f, out);
}

/* Each joint's local X, Y and Z (the columns of its model-space matrix,
 * placed by w) as red, green and blue lines from the joint, drawn on top:
 * 0.3 of the bone from its parent long, the root's 0.3 of the mean bone. */
static void skeleton_axes(mr_renderer *r, const mr_skeleton *sk, const mat4 *m, const mat4 w)
{
    static const float colour[3][4] = {{1, 0.15f, 0.15f, 1}, {0.2f, 1, 0.2f, 1}, {0.3f, 0.45f, 1, 1}};
    double sum = 0;
    int bones = 0;
    for (int j = 0; j < sk->joint_count; j++) {
        if (sk->parents[j] < 0) continue;
        vec3 a, b;
        joint_world(m, j, w, a);
        joint_world(m, sk->parents[j], w, b);
        sum += glm_vec3_distance(a, b);
        bones++;
    }
    float mean = bones && sum > 0 ? (float)(sum / bones) : 1.0f;
    for (int j = 0; j < sk->joint_count; j++) {
        vec3 o, p;
        joint_world(m, j, w, o);
        float len = mean;
        if (sk->parents[j] >= 0) {
            joint_world(m, sk->parents[j], w, p);
            float bone = glm_vec3_distance(o, p);
            if (bone > 1e-3f * mean) len = bone;
        }
        for (int k = 0; k < 3; k++) {
            vec3 dir, tip;
            glm_mat4_mulv3((vec4 *)w, (float *)m[j][k], 0.0f, dir);
            if (glm_vec3_norm(dir) < 1e-12f) continue;
            glm_vec3_normalize(dir);
            glm_vec3_copy(o, tip);
            glm_vec3_muladds(dir, 0.3f * len, tip);
            mr_renderer_line(r, o, tip, colour[k], MR_LINE_OVERLAY);
        }
    }
}

mr_status mr_renderer_draw_skeleton(mr_renderer *r, const mr_skeleton *sk, const mat4 *joint_model,
                                    const mat4 world, const mr_skeleton_style *style)
{
    if (!r->in_frame) return MR_ERR_INVALID_ARGUMENT;
    float bone[4] = {1.0f, 0.85f, 0.2f, 1}, joint[4] = {1, 1, 1, 1};
    float psize = 6.0f;
    int names = 0;
    mat4 w;
    memcpy(w, world, sizeof w);
    if (style) {
        if (style->bone_colour[3] > 0) memcpy(bone, style->bone_colour, sizeof bone);
        if (style->joint_colour[3] > 0) memcpy(joint, style->joint_colour, sizeof joint);
        if (style->point_size > 0) psize = style->point_size;
        names = style->names;
        if (style->axes) skeleton_axes(r, sk, joint_model, w);
    }
    for (int j = 0; j < sk->joint_count; j++) {
        vec3 tail, jt = {joint_model[j][3][0], joint_model[j][3][1], joint_model[j][3][2]};
        glm_mat4_mulv3(w, jt, 1.0f, tail);
        mr_renderer_point(r, tail, joint, psize);
        if (names && sk->names && sk->names[j]) {
            float x, y;
            if (mr_renderer_project(r, tail, &x, &y))
                mr_renderer_text(r, x + 5, y - 6, sk->names[j], NULL);
        }
        int p = sk->parents[j];
        if (p < 0) continue;
        vec3 head, axis, pt = {joint_model[p][3][0], joint_model[p][3][1], joint_model[p][3][2]};
        glm_mat4_mulv3(w, pt, 1.0f, head);
        glm_vec3_sub(tail, head, axis);
        float len = glm_vec3_norm(axis);
        if (len < 1e-7f) continue;
        /* A wire octahedron: head, a square ring at 15% of the length with
         * 10% radius, tail. */
        vec3 dir, u, v, helper = {0, 1, 0};
        glm_vec3_scale(axis, 1.0f / len, dir);
        if (fabsf(dir[1]) > 0.9f) glm_vec3_copy((vec3){1, 0, 0}, helper);
        glm_vec3_crossn(dir, helper, u);
        glm_vec3_crossn(dir, u, v);
        vec3 ring[4], mid;
        glm_vec3_copy(head, mid);
        glm_vec3_muladds(axis, 0.15f, mid);
        for (int k = 0; k < 4; k++) {
            float a = (float)k * GLM_PI_2f;
            glm_vec3_copy(mid, ring[k]);
            glm_vec3_muladds(u, cosf(a) * 0.1f * len, ring[k]);
            glm_vec3_muladds(v, sinf(a) * 0.1f * len, ring[k]);
        }
        for (int k = 0; k < 4; k++) {
            mr_renderer_line(r, head, ring[k], bone, MR_LINE_OVERLAY);
            mr_renderer_line(r, ring[k], tail, bone, MR_LINE_OVERLAY);
            mr_renderer_line(r, ring[k], ring[(k + 1) & 3], bone, MR_LINE_OVERLAY);
        }
    }
    return MR_OK;
}

/* --- passes -------------------------------------------------------------- */

/* Bounds of everything drawn this frame; 0 when nothing is. Each draw's
 * own bounds decide its depth pre-pass (GFX_PREPASS_PIXELS_PER_TRIANGLE);
 * a wireframe has none (its lines would fail against its filled depth). */
static int frame_bounds(mr_renderer *r, vec3 min, vec3 max)
{
    glm_vec3_fill(min, FLT_MAX);
    glm_vec3_fill(max, -FLT_MAX);
    int any = 0;
    for (size_t i = 0; i < r->draws.count; i++) {
        gfx_draw *d = &r->draws.data[i];
        const gfx_model *g = &r->models[d->slot];
        mr_gpu_model h = {(g->generation << 16) | (uint32_t)(d->slot + 1)};
        const mat4 *skin = d->palette_offset >= 0 ? r->palette.data + d->palette_offset : NULL;
        vec3 a, b;
        d->prepass = 0;
        if (mr_renderer_model_bounds(r, h, skin, g->joint_count, d->world, a, b)) {
            glm_vec3_minv(min, a, min);
            glm_vec3_maxv(max, b, max);
            any = 1;
            d->prepass = !d->wireframe && !r->desc.no_prepass &&
                         gfx_screen_area(r, a, b) >= GFX_PREPASS_PIXELS_PER_TRIANGLE * (double)g->triangles;
            if (d->prepass) r->stats.prepass_triangles += g->triangles;
        }
    }
    return any;
}

/* A round grid step (1, 2 or 5 times a power of ten) near x. */
static float nice_step(float x)
{
    if (!(x > 0) || !isfinite(x)) return 1.0f;
    float p = powf(10.0f, floorf(log10f(x)));
    float m = x / p;
    return p * (m < 1.5f ? 1.0f : m < 3.5f ? 2.0f : m < 7.5f ? 5.0f : 10.0f);
}

/* Fills the floor defaults. Without an extent the floor is fixed in the
 * world and fades with distance from the camera, as haze would: centred
 * under the eye (or at floor_center when floor_centered), out to
 * GFX_FLOOR_REACH camera distances (the fade takes
 * its outer half), its grid a round step near an eighth of the camera's
 * distance. Models never move it, so travel under a still camera shows as
 * travel over a still floor (and backdrop_begin keeps it between frames). */
static void resolve_floor(mr_renderer *r)
{
    mr_scene *s = &r->scene;
    if (s->floor_extent <= 0) {
        float d = glm_vec3_distance(r->eye, s->camera.target);
        if (!(d > 1e-3f) || !isfinite(d)) d = 3.0f;
        s->floor_extent = GFX_FLOOR_REACH * d;
        if (!s->floor_centered) {
            s->floor_center[0] = r->eye[0];
            s->floor_center[1] = r->eye[2];
        }
        if (s->grid_step <= 0) s->grid_step = nice_step(d / 8.0f);
    }
    if (s->grid_step <= 0) s->grid_step = nice_step(s->floor_extent / 12.0f);
}

/* Shadow texels across the casters' sphere (centre, radius): about one per
 * screen pixel at its centre, times 1 / sin(light 0's elevation) up to 4
 * (a low light stretches each texel's shadow on the floor that much along
 * it), at least 64 and at most one less than the map's side. llvmpipe
 * pays for every texel the shadow pass covers (and open meshes cover it
 * twice, front and back), so a map finer than the screen costs without
 * showing: the filter softens an edge over about four texels anyway. A
 * camera at or inside the sphere gets the whole map. */
static float shadow_texels_across(const mr_renderer *r, const vec3 centre, float radius)
{
    float most = (float)(r->shadow_size - 1);
    vec4 c;
    glm_mat4_mulv((vec4 *)r->view_proj, (vec4){centre[0], centre[1], centre[2], 1.0f}, c);
    if (!(c[3] > radius)) return most;
    float pixels = 2.0f * radius * r->proj[1][1] * 0.5f * (float)r->height / c[3];
    float stretch = 1.0f / fmaxf(fabsf(r->scene.lights[0].direction[1]), 0.25f);  /* unit direction */
    return fminf(fmaxf(ceilf(pixels * stretch), 64.0f), most);
}

/* Light 0's view-projection covering the sphere (centre, radius) with
 * shadow_texels_across texels, from the map's corner: the projection spans
 * the whole map at that texel size, and the part beyond the sphere stays
 * as the shadow pass clears it (lit). The corner is snapped to whole
 * texels in the light's view, so a moving fit does not make shadow edges
 * crawl. */
static void light_matrix(mr_renderer *r, const vec3 centre, float radius, mat4 out,
                         float *texel_world)
{
    radius = fmaxf(radius, 1e-3f);
    const float *l = r->scene.lights[0].direction;
    vec3 up = {0, 1, 0}, origin = {0, 0, 0}, c;
    if (fabsf(l[1]) > 0.99f) glm_vec3_copy((vec3){0, 0, 1}, up);
    mat4 rot;                          /* rotation only: light view about the origin */
    glm_lookat((float *)l, origin, up, rot);
    glm_mat4_mulv3(rot, (float *)centre, 1.0f, c);
    float across = shadow_texels_across(r, centre, radius);
    float texel = 2.0f * radius / across;
    float x0 = floorf((c[0] - radius) / texel) * texel;   /* the sphere fits: one texel spare */
    float y0 = floorf((c[1] - radius) / texel) * texel;
    float span = texel * (float)r->shadow_size;
    mat4 proj;
    glm_ortho(x0, x0 + span, y0, y0 + span, -c[2] - radius * 2.0f, -c[2] + radius * 2.0f, proj);
    glm_mat4_mul(proj, rot, out);
    *texel_world = texel;
    r->stats.shadow_texels = (int)across;
}

/* Sets the lighting uniforms (and u_view_proj) of prog, which must be in use. */
static void set_lighting(const mr_renderer *r, GLuint prog, const mat4 light_vp, float texel_world)
{
    const mr_scene *s = &r->scene;
    glUniform3fv(glGetUniformLocation(prog, "u_eye"), 1, r->eye);
    glUniform3fv(glGetUniformLocation(prog, "u_ambient"), 1, s->ambient);
    float dirs[6], cols[6];
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 3; k++) {
            dirs[i * 3 + k] = s->lights[i].direction[k];
            cols[i * 3 + k] = s->lights[i].colour[k];
        }
    glUniform3fv(glGetUniformLocation(prog, "u_light_dir"), 2, dirs);
    glUniform3fv(glGetUniformLocation(prog, "u_light_color"), 2, cols);
    glUniformMatrix4fv(glGetUniformLocation(prog, "u_light_view_proj"), 1, GL_FALSE,
                       (const float *)light_vp);
    glUniform1f(glGetUniformLocation(prog, "u_shadow_offset"), texel_world * 1.5f);
    glUniformMatrix4fv(glGetUniformLocation(prog, "u_view_proj"), 1, GL_FALSE,
                       (const float *)r->view_proj);
}

/* Model program variant [sh][k][mat], built now when no draw needed it
 * before (build_programs leaves most to this), with the frame's lighting
 * when the frame set it already; NULL when its build failed (the error is
 * printed once: only an edited shader can fail here, in a part that only
 * this variant compiles; a reload reports it). */
static const gfx_model_program *model_program(mr_renderer *r, int sh, int k, int mat)
{
    const gfx_model_program *p = &r->prog.model[sh][k][mat];
    if (p->id) return p;
    if (r->prog.failed[sh][k][mat]) return NULL;
    char defines[96];
    model_defines(defines, sizeof defines, sh, k, mat);
    mr_error err = {0};
    GLuint id = mr_shader_program_text(r->prog.model_src[0], r->prog.model_src[1], r->shader_dir, "model.vert",
                                       "model.frag", defines, NULL, &err);
    if (!id) {
        r->prog.failed[sh][k][mat] = 1;
        fprintf(stderr, "marrow: shaders: %s (its meshes are not drawn)\n", err.msg);
        return NULL;
    }
    r->prog.built++;
    install_model_program(r, sh, k, mat, id);
    glUseProgram(id);
    if (r->prog.lit_shadows == sh) set_lighting(r, id, r->prog.lit_vp, r->prog.lit_texel);
    return p;
}

static void upload_palette(mr_renderer *r)
{
    glBindBuffer(GL_TEXTURE_BUFFER, r->palette_buf);
    if (r->palette.count > r->palette_gpu_cap) {
        size_t cap = r->palette_gpu_cap;
        while (cap < r->palette.count) cap *= 2;
        glBufferData(GL_TEXTURE_BUFFER, (GLsizeiptr)(cap * sizeof(mat4)), NULL, GL_STREAM_DRAW);
        r->palette_gpu_cap = cap;
    }
    if (r->palette.count)
        glBufferSubData(GL_TEXTURE_BUFFER, 0, (GLsizeiptr)(r->palette.count * sizeof(mat4)),
                        r->palette.data);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    glActiveTexture(GL_TEXTURE0 + UNIT_PALETTE);
    glBindTexture(GL_TEXTURE_BUFFER, r->palette_tex);
    if (r->dq.count) {
        glBindBuffer(GL_TEXTURE_BUFFER, r->dq_buf);
        if (r->dq.count > r->dq_gpu_cap) {
            size_t cap = r->dq_gpu_cap;
            while (cap < r->dq.count) cap *= 2;
            glBufferData(GL_TEXTURE_BUFFER, (GLsizeiptr)(cap * sizeof(mat4)), NULL, GL_STREAM_DRAW);
            r->dq_gpu_cap = cap;
        }
        glBufferSubData(GL_TEXTURE_BUFFER, 0, (GLsizeiptr)(r->dq.count * sizeof(mat4)), r->dq.data);
        glBindBuffer(GL_TEXTURE_BUFFER, 0);
    }
    glActiveTexture(GL_TEXTURE0 + UNIT_DQ);
    glBindTexture(GL_TEXTURE_BUFFER, r->dq_tex);
}

/* The face a closed mesh of a draw hides (see gfx_mesh.cull_face), 0 for
 * none: a mirrored world matrix swaps front and back. */
static GLenum hidden_face(const gfx_mesh *m, const gfx_draw *d)
{
    if (!m->cull_face || !d->may_cull) return 0;
    if (!d->mirrored) return m->cull_face;
    return m->cull_face == GL_BACK ? GL_FRONT : GL_BACK;
}

/* The face the camera's passes cull: the hidden one, unless desc.no_cull. */
static GLenum cull_face(const mr_renderer *r, const gfx_mesh *m, const gfx_draw *d)
{
    return r->desc.no_cull ? 0 : hidden_face(m, d);
}

/* Sets face culling to `face` (0 = off), given the current setting *cur. */
static void set_cull(GLenum face, GLenum *cur)
{
    if (face == *cur) return;
    if (!face) glDisable(GL_CULL_FACE);
    else {
        if (!*cur) glEnable(GL_CULL_FACE);
        glCullFace(face);
    }
    *cur = face;
}

/* Which meshes draw_depth draws. */
enum { DEPTH_SHADOW, DEPTH_PREPASS };

/* Draws depth only, through view_proj, with the depth programs. For the
 * shadow map (DEPTH_SHADOW): every mesh of the draws that cast a shadow,
 * closed ones without the faces they hide (whatever desc.no_cull says: it
 * checks the camera's passes, and the map stays the same for both). For
 * the pre-pass: the meshes of the draws chosen for it (gfx_draw.prepass)
 * but alpha cutouts (the model program cuts their holes), culled as the
 * model pass culls them, so that every depth written is one the model
 * pass draws too. */
static void draw_depth(mr_renderer *r, const mat4 view_proj, int which)
{
    for (int k = 0; k < GFX_SKIN_VARIANTS; k++) {
        glUseProgram(r->prog.depth[k].id);
        glUniformMatrix4fv(r->prog.depth[k].view_proj, 1, GL_FALSE, (const float *)view_proj);
    }
    const gfx_depth_program *cur = NULL;
    GLenum culled = 0;
    for (size_t i = 0; i < r->draws.count; i++) {
        const gfx_draw *d = &r->draws.data[i];
        if (which == DEPTH_SHADOW ? !d->cast_shadow : !d->prepass) continue;
        const gfx_model *g = &r->models[d->slot];
        for (int k = 0; k < g->mesh_count; k++) {
            const gfx_mesh *m = &g->meshes[k];
            if (which == DEPTH_PREPASS && m->alpha_cutout) continue;
            const gfx_depth_program *p = &r->prog.depth[skin_variant(m, d)];
            if (p != cur) glUseProgram(p->id);
            cur = p;
            set_cull(which == DEPTH_PREPASS ? cull_face(r, m, d) : hidden_face(m, d), &culled);
            glUniformMatrix4fv(p->world, 1, GL_FALSE, (const float *)d->world);
            glUniform1i(p->palette_offset, d->palette_offset);
            glUniform1i(p->dq_offset, d->dq_offset);
            set_dq_blend(p->dq_vertex_blend, m, d);
            set_morph(r, &p->morph, m, d);
            glBindVertexArray(m->vao);
            glDrawElements(GL_TRIANGLES, m->index_count, GL_UNSIGNED_INT, NULL);
        }
    }
    set_cull(0, &culled);
}

static void shadow_pass(mr_renderer *r, const mat4 light_vp)
{
    glBindFramebuffer(GL_FRAMEBUFFER, r->shadow_fbo);
    glViewport(0, 0, r->shadow_size, r->shadow_size);
    glClearDepth(1.0);
    glClear(GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_TRUE);
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(1.5f, 3.0f);
    draw_depth(r, light_vp, DEPTH_SHADOW);
    glDisable(GL_POLYGON_OFFSET_FILL);
}

/* Draws the models with the programs of one shadow setting (lighting
 * already set on each). */
static void model_pass(mr_renderer *r, int shadows)
{
    const gfx_model_program *cur = NULL;
    GLenum culled = 0;
    for (size_t i = 0; i < r->draws.count; i++) {
        const gfx_draw *d = &r->draws.data[i];
        const gfx_model *g = &r->models[d->slot];
        if (d->wireframe) glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
        for (int k = 0; k < g->mesh_count; k++) {
            const gfx_mesh *m = &g->meshes[k];
            const gfx_model_program *p = model_program(r, shadows, skin_variant(m, d), mat_variant(m));
            if (!p) continue;
            if (p != cur) glUseProgram(p->id);
            cur = p;
            /* A wireframe shows the back edges too. */
            set_cull(d->wireframe ? 0 : cull_face(r, m, d), &culled);
            if (culled) r->stats.culled_triangles += m->index_count / 3;
            glUniformMatrix4fv(p->world, 1, GL_FALSE, (const float *)d->world);
            glUniformMatrix4fv(p->normal_matrix, 1, GL_FALSE, (const float *)d->normal);
            glUniform4fv(p->tint, 1, d->tint);
            glUniform1i(p->wireframe, d->wireframe);
            glUniform1i(p->palette_offset, d->palette_offset);
            glUniform1i(p->dq_offset, d->dq_offset);
            set_dq_blend(p->dq_vertex_blend, m, d);
            set_morph(r, &p->morph, m, d);
            glUniform4fv(p->diffuse, 1, m->diffuse);
            glUniform4fv(p->specular, 1, m->specular);
            glUniform4fv(p->emission, 1, m->emission);
            glUniform1f(p->shininess, m->shininess);
            glUniform1i(p->has_diffuse_map, m->diffuse_tex != 0);
            glActiveTexture(GL_TEXTURE0 + UNIT_DIFFUSE);
            glBindTexture(GL_TEXTURE_2D, m->diffuse_tex ? m->diffuse_tex : r->checker_tex);
            glActiveTexture(GL_TEXTURE0 + UNIT_NORMAL);
            glBindTexture(GL_TEXTURE_2D, m->normal_tex ? m->normal_tex : r->checker_tex);
            glBindVertexArray(m->vao);
            glDrawElements(GL_TRIANGLES, m->index_count, GL_UNSIGNED_INT, NULL);
            r->stats.triangles += m->index_count / 3;
        }
        if (d->wireframe) glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
        r->stats.draws++;
    }
    set_cull(0, &culled);
}

/* The floor's uniforms and one draw of it with the program of one shadow
 * setting, limited to the window rectangle rect = {x0, y0, x1, y1} (GL
 * pixels, y up) when rect is not NULL. */
static void draw_floor(mr_renderer *r, int shadows, const mat4 light_vp, float texel_world,
                       const int *rect)
{
    const mr_scene *s = &r->scene;
    GLuint floor = r->prog.floor[shadows];
    glUseProgram(floor);
    set_lighting(r, floor, light_vp, texel_world);
    glUniform2fv(glGetUniformLocation(floor, "u_floor_center"), 1, s->floor_center);
    glUniform1f(glGetUniformLocation(floor, "u_floor_extent"), s->floor_extent);
    glUniform1f(glGetUniformLocation(floor, "u_floor_y"), s->floor_y);
    glUniform1f(glGetUniformLocation(floor, "u_grid_step"), s->grid_step);
    glUniform4fv(glGetUniformLocation(floor, "u_sky_top"), 1, s->sky_top);
    glUniform4fv(glGetUniformLocation(floor, "u_sky_bottom"), 1, s->sky_bottom);
    glUniform2f(glGetUniformLocation(floor, "u_screen"), (float)r->width, (float)r->height);
    if (rect) {
        glEnable(GL_SCISSOR_TEST);
        glScissor(rect[0], rect[1], rect[2] - rect[0], rect[3] - rect[1]);
    } else {
        glDisable(GL_SCISSOR_TEST);
    }
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

/* The sky gradient over the whole viewport (vertex array and depth state
 * as the caller set them). */
static void draw_sky(mr_renderer *r)
{
    const mr_scene *s = &r->scene;
    glUseProgram(r->prog.sky);
    glUniform4fv(glGetUniformLocation(r->prog.sky, "u_sky_top"), 1, s->sky_top);
    glUniform4fv(glGetUniformLocation(r->prog.sky, "u_sky_bottom"), 1, s->sky_bottom);
    glUniform2f(glGetUniformLocation(r->prog.sky, "u_screen"), (float)r->width, (float)r->height);
    glDrawArrays(GL_TRIANGLES, 0, 3);
}

/* Fills target's colour with the sky. The sky depends only on the frame's
 * height and its two colours, so it is drawn into sky_fbo when those
 * change and copied from there every frame: a memory copy instead of a
 * shaded, depth-tested pass over the empty part of the frame. Every pixel
 * (sample) the floor or the models do not cover keeps it, as the sky drawn
 * last at the far plane would give. */
static void copy_sky(mr_renderer *r, GLuint target)
{
    const mr_scene *s = &r->scene;
    float key[8];
    memcpy(key, s->sky_top, sizeof(float[4]));
    memcpy(key + 4, s->sky_bottom, sizeof(float[4]));
    if (!r->sky_valid || memcmp(key, r->sky_key, sizeof key) != 0) {
        glBindFramebuffer(GL_FRAMEBUFFER, r->sky_fbo);
        glViewport(0, 0, r->width, r->height);
        glDisable(GL_DEPTH_TEST);
        glBindVertexArray(r->empty_vao);
        draw_sky(r);
        memcpy(r->sky_key, key, sizeof key);
        r->sky_valid = 1;
    }
    glBindFramebuffer(GL_READ_FRAMEBUFFER, r->sky_fbo);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, target);
    glBlitFramebuffer(0, 0, r->width, r->height, 0, 0, r->width, r->height, GL_COLOR_BUFFER_BIT,
                      GL_NEAREST);
}

/* The inputs of the unshadowed floor over the sky (see gfx_backdrop_key). */
static void backdrop_key(const mr_renderer *r, gfx_backdrop_key *k)
{
    const mr_scene *s = &r->scene;
    memset(k, 0, sizeof *k);
    glm_mat4_copy((vec4 *)r->view_proj, k->view_proj);
    glm_vec3_copy((float *)r->eye, k->eye);
    glm_vec3_copy((float *)s->ambient, k->ambient);
    memcpy(k->lights, s->lights, sizeof k->lights);
    memcpy(k->sky_top, s->sky_top, sizeof k->sky_top);
    memcpy(k->sky_bottom, s->sky_bottom, sizeof k->sky_bottom);
    memcpy(k->floor_center, s->floor_center, sizeof k->floor_center);
    k->floor_extent = s->floor_extent;
    k->floor_y = s->floor_y;
    k->grid_step = s->grid_step;
}

/* Starts the frame's colour and depth in draw_fbo. While the
 * camera, lights, sky and floor stay as they were in the last frame, the
 * floor does not change either, but for the shadow on it: so from the
 * second such frame on, the floor (unshadowed program, whole) over the sky
 * is drawn once into backdrop_fbo with its depth, and each frame starts
 * as a memory copy of that. Returns 1 then: the caller draws the
 * shadowed floor over the shadow's footprint and the models on top, both
 * depth-tested with LEQUAL, which gives the pixels of the floor drawn
 * after the models (a model wins a tie with the floor either way), but
 * for two surfaces of the models at exactly the same depth: the later
 * one shows, where a frame drawn afresh (LESS) shows the first.
 * Returns 0 when draw_fbo holds the sky and a cleared depth instead: a
 * moving camera, or no floor; the floor is then drawn after the models. */
static int backdrop_begin(mr_renderer *r, const mat4 light_vp, float texel_world)
{
    gfx_backdrop_key key;
    backdrop_key(r, &key);
    int steady = memcmp(&key, &r->last_key, sizeof key) == 0;
    r->last_key = key;
    int keep = steady && !r->scene.hide_floor;
    if (keep && !(r->backdrop_valid && memcmp(&key, &r->backdrop_key, sizeof key) == 0)) {
        copy_sky(r, r->backdrop_fbo);
        glBindFramebuffer(GL_FRAMEBUFFER, r->backdrop_fbo);
        glViewport(0, 0, r->width, r->height);
        glDepthMask(GL_TRUE);
        glClearDepth(1.0);
        glClear(GL_DEPTH_BUFFER_BIT);
        glEnable(GL_DEPTH_TEST);
        glDepthFunc(GL_LESS);
        glBindVertexArray(r->empty_vao);
        draw_floor(r, 0, light_vp, texel_world, NULL);
        r->backdrop_key = key;
        r->backdrop_valid = 1;
    }
    if (keep) {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, r->backdrop_fbo);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, r->draw_fbo);
        glBlitFramebuffer(0, 0, r->width, r->height, 0, 0, r->width, r->height,
                          GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT, GL_NEAREST);
        return 1;
    }
    copy_sky(r, r->draw_fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, r->draw_fbo);
    glDepthMask(GL_TRUE);
    glClearDepth(1.0);
    glClear(GL_DEPTH_BUFFER_BIT);
    return 0;
}

/* The floor: opaque, its edge faded into the sky colour by the shader. The
 * shadow lookups only matter inside the shadow map's footprint: there the
 * shadowed program, around it (unless only_shadow: the rest is already
 * drawn) the unshadowed one, scissored. */
static void floor_pass(mr_renderer *r, int shadows, int have_bounds, const vec3 bmin, const vec3 bmax,
                       const mat4 light_vp, float texel_world, int only_shadow)
{
    int rect[4] = {0, 0, r->width, r->height};
    int inside = shadows && have_bounds
                     ? gfx_shadow_footprint_rect(r, light_vp, texel_world, bmin, bmax, rect) : 0;
    glBindVertexArray(r->empty_vao);
    if (inside < 0 || (inside && rect[0] == 0 && rect[1] == 0 && rect[2] == r->width &&
                       rect[3] == r->height)) {
        draw_floor(r, 1, light_vp, texel_world, NULL);   /* unbounded or whole screen */
    } else {
        if (inside) draw_floor(r, 1, light_vp, texel_world, rect);
        const int bands[4][4] = {
            {0, 0, r->width, inside ? rect[1] : r->height},        /* below (GL: y up) */
            {0, rect[3], r->width, inside ? r->height : rect[3]}, /* above */
            {0, rect[1], rect[0], rect[3]},                      /* left */
            {rect[2], rect[1], r->width, rect[3]},               /* right */
        };
        for (int i = 0; !only_shadow && i < (inside ? 4 : 1); i++)
            if (bands[i][2] > bands[i][0] && bands[i][3] > bands[i][1])
                draw_floor(r, 0, light_vp, texel_world, bands[i]);
    }
    glDisable(GL_SCISSOR_TEST);
}

mr_status mr_renderer_end_frame(mr_renderer *r)
{
    if (!r->in_frame) return MR_ERR_INVALID_ARGUMENT;
    r->in_frame = 0;
    const mr_scene *s = &r->scene;

    vec3 bmin, bmax;
    int have_bounds = frame_bounds(r, bmin, bmax);
    resolve_floor(r);
    int shadows = !s->no_shadows && (have_bounds || s->shadow_radius > 0) && r->shadow_tex ? 1 : 0;
    mat4 light_vp;
    float texel_world = 0.01f;
    glm_mat4_identity(light_vp);
    if (shadows) {
        vec3 centre;
        float radius = s->shadow_radius;
        if (radius > 0) {
            memcpy(centre, s->shadow_center, sizeof centre);
        } else {
            vec3 half;
            glm_vec3_center(bmin, bmax, centre);
            glm_vec3_sub(bmax, bmin, half);
            radius = 0.5f * glm_vec3_norm(half) * 1.05f;
        }
        light_matrix(r, centre, radius, light_vp, &texel_world);
    }

    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_STENCIL_TEST);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    upload_palette(r);
    if (shadows) shadow_pass(r, light_vp);

    /* the frame starts from the kept floor over the sky (kept), or the sky
     * and a cleared depth */
    int kept = backdrop_begin(r, light_vp, texel_world);
    glBindFramebuffer(GL_FRAMEBUFFER, r->draw_fbo);
    glViewport(0, 0, r->width, r->height);
    glEnable(GL_MULTISAMPLE);
    glActiveTexture(GL_TEXTURE0 + UNIT_SHADOW);
    glBindTexture(GL_TEXTURE_2D, r->shadow_tex);
    glEnable(GL_DEPTH_TEST);
    if (kept) {
        /* the floor's shadow over the kept floor, where the floor is (its
         * depth there is the kept one), not writing depth */
        glDepthFunc(GL_LEQUAL);
        glDepthMask(GL_FALSE);
        floor_pass(r, shadows, have_bounds, bmin, bmax, light_vp, texel_world, 1);
    }

    /* models, then (not kept) the floor: the floor behind them fails the
     * depth test instead of being shaded (llvmpipe pays for every
     * fragment). The draws chosen for a pre-pass (gfx_draw.prepass) first
     * have their depth drawn (without colour), so that the model pass shades only the nearest
     * fragment of each of their pixels. The model pass tests with LEQUAL,
     * which passes the pre-pass's own depths (depth.vert computes them as
     * model.vert does) and, where two surfaces of the models lie at
     * exactly the same depth, shows the later one, in every frame alike;
     * a model wins a tie with the floor either way (the floor is drawn
     * first with its depth and tested by the models with LEQUAL, or after
     * them with LESS). */
    glDepthMask(GL_TRUE);
    glDepthFunc(kept ? GL_LEQUAL : GL_LESS);
    glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
    draw_depth(r, r->view_proj, DEPTH_PREPASS);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glDepthFunc(GL_LEQUAL);
    glm_mat4_copy(light_vp, r->prog.lit_vp);   /* for the programs built during the pass (model_program) */
    r->prog.lit_texel = texel_world;
    r->prog.lit_shadows = shadows;
    for (int i = 0; i < GFX_SKIN_VARIANTS * GFX_MAT_VARIANTS; i++) {
        GLuint id = r->prog.model[shadows][i / GFX_MAT_VARIANTS][i % GFX_MAT_VARIANTS].id;
        if (!id) continue;
        glUseProgram(id);
        set_lighting(r, id, light_vp, texel_world);
    }
    model_pass(r, shadows);
    glDepthFunc(GL_LESS);

    if (!kept && !s->hide_floor)
        floor_pass(r, shadows, have_bounds, bmin, bmax, light_vp, texel_world, 0);

    /* lines: depth-tested, then the overlay on top */
    gfx_lines_draw(r, 0);
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    gfx_lines_draw(r, 1);

    if (r->fxaa) {
        /* Anti-alias everything so far into the resolve target; the text
         * (already smooth glyphs) goes on top afterwards, unblurred. llvmpipe
         * runs every instruction of a shader for every pixel it shades, and
         * most pixels are on no edge (the pass leaves them as they are), so:
         * copy the frame, mark the edge pixels in the stencil with the
         * pass's cheap first half, and run the whole pass only where marked
         * (the early stencil test skips unmarked blocks of pixels). Both
         * passes are scissored to the part of the frame with hard edges
         * (fxaa_rect). */
        glDisable(GL_BLEND);
        glBindFramebuffer(GL_READ_FRAMEBUFFER, r->draw_fbo);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, r->resolve_fbo);
        glBlitFramebuffer(0, 0, r->width, r->height, 0, 0, r->width, r->height, GL_COLOR_BUFFER_BIT,
                          GL_NEAREST);
        glBindFramebuffer(GL_FRAMEBUFFER, r->resolve_fbo);
        glActiveTexture(GL_TEXTURE0 + UNIT_DIFFUSE);
        glBindTexture(GL_TEXTURE_2D, r->draw_tex);
        glBindVertexArray(r->empty_vao);
        int rect[4];
        int region = gfx_fxaa_rect(r, have_bounds, bmin, bmax, rect);
        if (region > 0) {
            glEnable(GL_SCISSOR_TEST);
            glScissor(rect[0], rect[1], rect[2] - rect[0], rect[3] - rect[1]);
        }
        if (region != 0) {
            glEnable(GL_STENCIL_TEST);
            glStencilMask(0xff);
            glClearStencil(0);
            glClear(GL_STENCIL_BUFFER_BIT);
            glStencilFunc(GL_ALWAYS, 1, 0xff);
            glStencilOp(GL_KEEP, GL_KEEP, GL_REPLACE);
            glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_FALSE);
            glUseProgram(r->prog.fxaa[1]);
            glDrawArrays(GL_TRIANGLES, 0, 3);
            glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
            glStencilFunc(GL_EQUAL, 1, 0xff);
            glStencilOp(GL_KEEP, GL_KEEP, GL_KEEP);
            glUseProgram(r->prog.fxaa[0]);
            glDrawArrays(GL_TRIANGLES, 0, 3);
            glDisable(GL_STENCIL_TEST);
        }
        glDisable(GL_SCISSOR_TEST);
        glBindTexture(GL_TEXTURE_2D, 0);
        glEnable(GL_BLEND);
        gfx_text_draw(r);
    } else {
        /* resolve the samples (or copy the single-sampled frame) */
        gfx_text_draw(r);
        glBindFramebuffer(GL_READ_FRAMEBUFFER, r->draw_fbo);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, r->resolve_fbo);
        glBlitFramebuffer(0, 0, r->width, r->height, 0, 0, r->width, r->height, GL_COLOR_BUFFER_BIT,
                          GL_NEAREST);
    }
    glDisable(GL_BLEND);
    glDepthMask(GL_TRUE);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glBindVertexArray(0);
    glUseProgram(0);
    GLenum e = glGetError();
    return e == GL_NO_ERROR ? MR_OK : MR_ERR_GL;
}

/* --- output -------------------------------------------------------------- */

void mr_renderer_present(mr_renderer *r, int fb_width, int fb_height)
{
    glBindFramebuffer(GL_READ_FRAMEBUFFER, r->resolve_fbo);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    int same = fb_width == r->width && fb_height == r->height;
    glBlitFramebuffer(0, 0, r->width, r->height, 0, 0, fb_width, fb_height, GL_COLOR_BUFFER_BIT,
                      same ? GL_NEAREST : GL_LINEAR);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

mr_status mr_renderer_read_pixels(mr_renderer *r, uint8_t *rgba, size_t size)
{
    size_t row = (size_t)r->width * 4;
    if (!rgba || size < row * (size_t)r->height) return MR_ERR_INVALID_ARGUMENT;
    glBindFramebuffer(GL_READ_FRAMEBUFFER, r->resolve_fbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, r->width, r->height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    /* GL's first row is the bottom one; images start at the top. */
    uint8_t tmp[4096];
    for (int y = 0; y < r->height / 2; y++) {
        uint8_t *a = rgba + (size_t)y * row, *b = rgba + (size_t)(r->height - 1 - y) * row;
        for (size_t off = 0; off < row; off += sizeof tmp) {
            size_t n = row - off < sizeof tmp ? row - off : sizeof tmp;
            memcpy(tmp, a + off, n);
            memcpy(a + off, b + off, n);
            memcpy(b + off, tmp, n);
        }
    }
    return glGetError() == GL_NO_ERROR ? MR_OK : MR_ERR_GL;
}

mr_status mr_renderer_screenshot(mr_renderer *r, const char *path, mr_error *err)
{
    size_t size = (size_t)r->width * (size_t)r->height * 4;
    if (size > r->readback_size) {   /* kept: a PNG sequence reuses it */
        uint8_t *grown = realloc(r->readback, size);
        if (!grown) return mr_error_set(err, MR_ERR_NO_MEMORY, "gfx: out of memory for a screenshot");
        r->readback = grown;
        r->readback_size = size;
    }
    mr_status st = mr_renderer_read_pixels(r, r->readback, size);
    if (st != MR_OK) return mr_error_set(err, st, "gfx: cannot read the frame back");
    return mr_gfx_write_png(path, r->readback, r->width, r->height, err);
}
