/* internal.h — gfx-internal: the renderer's state shared by the files of
 * src/gfx (renderer.c runs the passes; gpu_model.c, texture.c, lines.c,
 * text.c, target.c and frame_rect.c each own one part). Not for use outside
 * src/gfx. */
#ifndef MR_GFX_INTERNAL_H
#define MR_GFX_INTERNAL_H

#include <epoxy/gl.h>

#include "core/alloc.h"
#include "gfx/renderer.h"

/* Vertex attribute locations, shared by every program that reads meshes. */
enum {
    ATTR_POSITION = 0, ATTR_NORMAL, ATTR_UV, ATTR_TANGENT, ATTR_JOINTS, ATTR_WEIGHTS,
    ATTR_JOINTS1, ATTR_WEIGHTS1,  /* influences 5-8: only meshes that use them */
};

/* One uploaded mesh. */
typedef struct gfx_mesh {
    GLuint vao, vbo, ibo;
    GLuint vbo1;                 /* influences 5-8, or 0 when no vertex uses them */
    int index_count;
    int skinned;                 /* 0: ignores the palette */
    GLuint diffuse_tex;          /* 0: material colour only */
    GLuint normal_tex;           /* 0: no normal map */
    int alpha_cutout;            /* the diffuse texture has transparent texels */
    GLenum cull_face;            /* GL_BACK or GL_FRONT: a closed surface whose faces
                                  * on that side are never seen; 0 = draw both */
    vec4 diffuse, ambient, specular, emission;
    float shininess;
    /* Morph targets (shaders/skin.glsl, "Morph targets"), or morph_count 0: */
    GLuint morph_buf, morph_tex; /* 2 * morph_count * vertex_count RGBA32F texels */
    int morph_count, vertex_count;
    int morph_first;             /* its first weight among the model's morph weights */
    /* The mesh's own skinning (mr_mesh.skinning, dq_blend: FBX SkinningType),
     * which a draw follows unless its style fixes one for every mesh: */
    int dq;                      /* 1: skinned with dual quaternions */
    GLuint dq_blend_buf, dq_blend_tex;  /* with dq: vertex_count R32F factors, linear 0 .. dq 1 */
                                 /* (skin.glsl, u_dq_blend), or 0: dual quaternions throughout */
} gfx_mesh;

/* A slot of the model pool. A handle's id is (generation << 16) | (slot + 1). */
typedef struct gfx_model {
    uint32_t generation;
    int live;
    int joint_count;
    int mesh_count;
    gfx_mesh *meshes;
    int triangles;
    /* Bounds: a sphere (model frame centre, radius) per joint around the
     * vertices it dominates in the bind pose, and a box for static meshes.
     * cast_spheres: per joint around every vertex it moves at all, so a
     * skinned vertex (a weighted mean of its joints' moves) stays in the
     * convex hull of its joints' spheres moved by their skin matrices. */
    vec4 *joint_spheres;         /* joint_count; radius < 0 when no vertex */
    vec4 *cast_spheres;          /* joint_count; radius < 0 when no vertex */
    int has_static;
    vec3 static_min, static_max;
    int morph_weight_count;      /* the morph targets of all meshes, in mesh order */
    float *morph_defaults;       /* their default weights (owned), or NULL */
} gfx_model;

typedef struct gfx_draw {
    int slot;                    /* model pool slot */
    int palette_offset;          /* first matrix in the palette, -1 for the bind pose */
    mat4 world;
    mat4 normal;                 /* inverse transpose of world (upper 3x3 used) */
    vec4 tint;
    int wireframe, cast_shadow;
    int mirrored;                /* world has a negative determinant: winding flips */
    int may_cull;                /* every skin matrix keeps the winding (det > 0) */
    int prepass;                 /* its depth is drawn first (end_frame decides) */
    int dq_offset;               /* first joint in the frame's dual quaternions (skin.glsl), */
                                 /* -1: linear skinning */
    int dq_all;                  /* 1: every skinned mesh with dual quaternions (the style's);
                                  * 0: meshes with gfx_mesh.dq only, blended by their own factors */
    int morph_offset;            /* first of the model's morph weights in the frame's, -1: none */
} gfx_draw;

/* A draw has its depth drawn before the model pass when the box it lies in
 * covers at least this many window pixels per triangle. The pre-pass adds
 * a second skinning of every vertex and a depth-only fragment per covered
 * pixel; it saves shading every fragment that a nearer one of the same
 * draw later covers (back faces of open meshes, limbs in front of the
 * body). A large character on screen gains; a crowd of small figures,
 * whose vertices cost more than their few pixels, loses, and stays below
 * the threshold (figures: docs/PERFORMANCE.md). */
#define GFX_PREPASS_PIXELS_PER_TRIANGLE 16

/* The default floor (mr_scene.floor_extent 0) reaches this many camera
 * distances from the eye, fading out over its outer half: the far end of
 * the floor seen at a shallow angle melts into the sky, near the far
 * plane (40 distances) it never reaches. */
#define GFX_FLOOR_REACH 3.0f

/* Line and point vertices share one layout (size: point size in pixels). */
typedef struct gfx_line_vertex {
    float pos[3];
    float colour[4];
    float size;
} gfx_line_vertex;

typedef struct gfx_text_vertex {
    float pos[2], uv[2];
    float colour[4];
} gfx_text_vertex;

typedef struct gfx_texture {
    char *path;
    char *dir;               /* the model folder it was read from ("" for none): a path is
                              * cached per folder, so each model's folder check holds */
    GLuint tex;
    int cutout;
} gfx_texture;

/* A growable array of POD elements: count in use, capacity. */
#define GFX_ARRAY(T) struct { T *data; size_t count, cap; }
typedef GFX_ARRAY(gfx_line_vertex) gfx_line_array;

/* Skinning variants of the mesh programs: which one a mesh draws with. */
enum { GFX_SKIN_STATIC, GFX_SKIN_4, GFX_SKIN_8, GFX_SKIN_DQ4, GFX_SKIN_DQ8, GFX_SKIN_VARIANTS };
/* Morph targets a draw of a mesh passes to the shader (MR_MORPH_ACTIVE in
 * shaders/skin.glsl, "Morph targets"): the heaviest non-zero ones. */
#define GFX_MORPH_ACTIVE 16
typedef struct gfx_morph_uniforms { GLint count, vertices, target, weight; } gfx_morph_uniforms;
/* Material variants of the model programs (bits): the normal map read,
 * the alpha cutout's discard. */
enum { GFX_MAT_NORMAL_MAP = 1, GFX_MAT_CUTOUT = 2, GFX_MAT_VARIANTS = 4 };

typedef struct gfx_model_program {
    GLuint id;
    GLint world, normal_matrix, palette_offset, diffuse, specular, emission, shininess, tint, wireframe,
        has_diffuse_map, dq_offset, dq_vertex_blend;
    gfx_morph_uniforms morph;
} gfx_model_program;

/* Everything the floor and the sky behind it depend on, but the shadow
 * (compared with memcmp: filled after zeroing). */
typedef struct gfx_backdrop_key {
    mat4 view_proj;
    vec3 eye, ambient;
    mr_light lights[2];
    float sky_top[4], sky_bottom[4];
    float floor_center[2], floor_extent, floor_y, grid_step;
} gfx_backdrop_key;

typedef struct gfx_depth_program {
    GLuint id;
    GLint world, palette_offset, view_proj, dq_offset, dq_vertex_blend;
    gfx_morph_uniforms morph;
} gfx_depth_program;

struct mr_renderer {
    mr_renderer_desc desc;
    char *shader_dir;
    int width, height, samples;

    /* programs, and the uniform locations set per draw. The model and
     * depth programs come in skinning variants (GFX_SKIN_*: MR_SKIN in
     * skin.glsl), the model programs in material variants (GFX_MAT_*:
     * MR_NORMAL_MAP, MR_CUTOUT in model.frag), the model and floor programs
     * with and without the shadow lookups ([0] without, [1] with:
     * MR_SHADOWS in lighting.glsl).
     * The model programs (40 variants) are built when a draw first needs
     * one (renderer.c, model_program), all of them when the shaders are
     * reloaded: building every program took 57-60 ms of a headless run's
     * 180 ms start, where a scene draws with two to four of them. An id
     * 0 is not built yet; failed marks a variant whose build failed (its
     * meshes are skipped, the error printed once). lit_vp, lit_texel and
     * lit_shadows: the frame's lighting (set_lighting), for a program built
     * after the frame set it on the others. model_src: model.vert and
     * model.frag as read for the programs installed (include lines
     * expanded), what the missing variants are built from: a shader file
     * broken since (a live edit whose reload failed) does not reach them. */
    struct {
        gfx_model_program model[2][GFX_SKIN_VARIANTS][GFX_MAT_VARIANTS];
        gfx_depth_program depth[GFX_SKIN_VARIANTS];   /* the shadow map, the pre-pass */
        GLuint floor[2], sky, line, text, fxaa[2];  /* fxaa[1]: marks edge pixels */
        unsigned char failed[2][GFX_SKIN_VARIANTS][GFX_MAT_VARIANTS];
        mat4 lit_vp;
        float lit_texel;
        int lit_shadows;   /* -1: no frame has set lighting */
        int built;         /* programs built since the renderer was made (mr_frame_stats.programs) */
        char *model_src[2];
    } prog;

    /* framebuffers (target.c): the scene is drawn into draw_fbo, either
     * multisampled renderbuffers (samples > 1; resolved by a blit) or a
     * single-sampled colour texture that the FXAA pass (fxaa = 1) reads, or
     * (samples 1, no FXAA) a single-sampled renderbuffer copied by a blit.
     * The finished frame is in resolve_fbo. */
    GLuint draw_fbo, draw_colour, draw_depth;   /* draw_colour: a renderbuffer */
    GLuint draw_tex;                           /* the colour texture when fxaa */
    GLuint resolve_fbo, resolve_colour, resolve_stencil;  /* stencil: FXAA's edge pixels */
    int fxaa;
    /* The sky gradient drawn once into sky_fbo (sky_colour, draw_fbo's
     * samples) and copied into draw_fbo at the start of every frame, as
     * long as its colours (sky_key) stay the same; sky_valid = 0 redraws
     * it (new size, new programs). */
    GLuint sky_fbo, sky_colour;
    float sky_key[8];            /* sky_top, sky_bottom it was drawn with */
    int sky_valid;
    /* The backdrop, the unshadowed floor over the sky with its depth
     * (draw_fbo's samples), kept while everything it depends on
     * (backdrop_key) stays the same; see renderer.c, backdrop_begin. */
    GLuint backdrop_fbo, backdrop_colour, backdrop_depth;
    gfx_backdrop_key backdrop_key, last_key;  /* the kept one's; last frame's */
    int backdrop_valid;
    GLuint shadow_fbo, shadow_tex;
    int shadow_size;

    /* bone palette: a texture buffer of RGBA32F, four texels per matrix */
    GLuint palette_buf, palette_tex;
    size_t palette_gpu_cap;      /* matrices the GL buffer holds */
    size_t palette_max;          /* matrices GL_MAX_TEXTURE_BUFFER_SIZE allows */
    GFX_ARRAY(mat4) palette;
    /* dual quaternions of draws with MR_SKINNING_DUAL_QUATERNION: two
     * matrices (eight texels, skin.glsl) per joint, a texture buffer too */
    GLuint dq_buf, dq_tex;
    size_t dq_gpu_cap;           /* matrices the GL buffer holds */
    GFX_ARRAY(mat4) dq;
    GFX_ARRAY(float) morph;      /* morph weights of this frame's draws */

    /* model pool */
    gfx_model *models;
    int model_cap;

    /* texture cache and fallbacks */
    GFX_ARRAY(gfx_texture) textures;
    size_t texture_pixels;   /* decoded texels of all textures, within MR_RENDERER_MAX_TEXTURE_PIXELS */
    GLuint checker_tex;

    /* frame recording */
    int in_frame;
    mr_scene scene;
    mat4 view, proj, view_proj;
    vec3 eye;
    GFX_ARRAY(gfx_draw) draws;
    gfx_line_array lines;                      /* depth-tested, pairs */
    gfx_line_array overlay_lines;              /* on top, pairs */
    gfx_line_array points;                     /* on top */
    GFX_ARRAY(gfx_text_vertex) text;           /* 6 vertices per glyph */

    GLuint empty_vao;            /* for full-screen and generated geometry */
    GLuint floor_vao, floor_vbo;
    GLuint line_vao, line_vbo;
    size_t line_vbo_cap;         /* bytes */
    GLuint text_vao, text_vbo;
    size_t text_vbo_cap;         /* bytes */

    /* font */
    int has_font;
    int has_solid;               /* the atlas's last texel is solid (panels) */
    GLuint font_tex;
    int font_w, font_h;
    float font_px, font_ascent, font_line;
    void *baked;                 /* stbtt_bakedchar[95] for ' '..'~' */

    uint8_t *readback;           /* screenshot pixels, kept between frames */
    size_t readback_size;

    mr_frame_stats stats;
};

/* Grows a GFX_ARRAY to hold `need` elements; MR_OK or MR_ERR_NO_MEMORY. */
#define GFX_RESERVE(arr, need) \
    mr_alloc_reserve((void **)&(arr).data, &(arr).cap, (need), sizeof *(arr).data)

/* Pool lookups (gpu_model.c): the slot for a live handle, or NULL. */
gfx_model *gfx_model_get(const mr_renderer *r, mr_gpu_model m);
void gfx_models_release_all(mr_renderer *r);
/* Bounding sphere i of model g posed by skin (NULL: bind pose) under world,
 * as {centre, radius} in out: i < joint_count joint i's (joint_spheres, or
 * with cast cast_spheres), i == joint_count one around the static meshes.
 * Returns 0 when there is no such sphere. */
int gfx_model_sphere(const gfx_model *g, int cast, const mat4 *skin, const mat4 world, int i, vec4 out);

/* Texture cache (texture.c). gfx_texture_get returns the texture for path,
 * loading it (rows flipped so v = 0 is the image's bottom row) on first use;
 * an unreadable file, one outside the folder dir (the model's: real paths,
 * mr_file_read_inside) or an image over core/image.h's limits gives the
 * checker and one warning. With bytes != NULL the image is decoded from
 * those (an image embedded in the model) and path is only its name in the
 * cache and in warnings. */
GLuint gfx_texture_get(mr_renderer *r, const char *dir, const char *path, const unsigned char *bytes, size_t len,
                       int *cutout);
int gfx_textures_init(mr_renderer *r);
void gfx_textures_free(mr_renderer *r);

/* Font (text.c). */
void gfx_font_init(mr_renderer *r);
void gfx_font_free(mr_renderer *r);
void gfx_text_draw(mr_renderer *r);

/* Lines and points (lines.c). */
void gfx_lines_init(mr_renderer *r);
void gfx_lines_free(mr_renderer *r);
void gfx_lines_draw(mr_renderer *r, int overlay);

/* Framebuffers (target.c): the draw + resolve pair of width x height (see
 * draw_fbo), and the shadow map. */
mr_status gfx_targets_create(mr_renderer *r, int width, int height, mr_error *err);
void gfx_targets_free(mr_renderer *r);
mr_status gfx_shadow_create(mr_renderer *r, mr_error *err);
void gfx_shadow_free(mr_renderer *r);

/* Window rectangles {x0, y0, x1, y1} (GL pixels, y up, x1/y1 exclusive)
 * that limit a pass to the part of the frame it can change (frame_rect.c),
 * for a frame whose models lie within bmin..bmax. Each returns 1 with rect
 * set, 0 when the pass has nothing to do, -1 for the whole window.
 * gfx_shadow_footprint_rect: the floor pixels light 0's shadow map
 * (light_vp, texel_world: one texel's size in the world) can darken;
 * elsewhere the floor's shadowed program gives the unshadowed one's pixels.
 * gfx_fxaa_rect: the models, lines and points, the only hard edges. */
int gfx_shadow_footprint_rect(const mr_renderer *r, const mat4 light_vp, float texel_world,
                              const vec3 bmin, const vec3 bmax, int rect[4]);
int gfx_fxaa_rect(const mr_renderer *r, int have_bounds, const vec3 bmin, const vec3 bmax, int rect[4]);

/* Window pixels in the rectangle the box bmin..bmax covers on screen (the
 * whole window when the box reaches behind the camera). */
double gfx_screen_area(const mr_renderer *r, const vec3 bmin, const vec3 bmax);

/* A warning on stderr (unless desc.quiet), counted in stats. */
void gfx_warn(mr_renderer *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
