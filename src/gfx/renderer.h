/* renderer.h — marrow's OpenGL 3.3 core renderer: GPU-skinned models with
 * Blinn-Phong lighting, a shadowed floor with a grid, a sky gradient, debug
 * lines, a skeleton overlay and HUD text, drawn offscreen and read back as
 * pixels or PNG files.
 *
 * Use
 *   A GL 3.3 core context must be current (platform/window.h makes one, in a
 *   window or headless). Then, once:
 *       mr_renderer *r; mr_renderer_create(&(mr_renderer_desc){.width = 640,
 *                                          .height = 480}, &r, &err);
 *       mr_gpu_model bob; mr_renderer_upload_model(r, model, &bob, &err);
 *   and every frame:
 *       mr_renderer_begin_frame(r, &scene);         camera, lights, floor, sky
 *       mr_renderer_draw_model(r, bob, skin, n, world, NULL);
 *       mr_renderer_draw_skeleton(r, &model->skeleton, joint_mats, world, NULL);
 *       mr_renderer_line(r, a, b, colour, 0);
 *       mr_renderer_text(r, 10, 10, "hello", NULL);
 *       mr_renderer_end_frame(r);                   draws everything queued
 *       mr_renderer_screenshot(r, "out.png", &err); or mr_renderer_present()
 *
 * Drawing is deferred: the draw/line/text calls only record (copying what
 * they are given, so callers may reuse their arrays at once), and
 * mr_renderer_end_frame runs the passes: shadow map (skinned, from light 0),
 * sky, models, floor, lines, overlay, then the anti-aliasing and the text.
 * Frames keep what does not change between them: the sky is drawn once per
 * size and colours and copied in, and while camera, lights, sky and floor
 * stay as they were in the frame before, so is the floor (only the part
 * its shadow can fall on is drawn again): the same pixels, less work for a
 * still camera. The floor is fixed in the world: by default it lies
 * around the camera and fades with distance from it (models never move
 * it: a character walking under a still camera walks over a still floor),
 * or where floor_center and floor_extent put it.
 * Anti-aliasing is by default a post-process pass over the single-sampled
 * frame (shaders/fxaa.frag, after Lottes's
 * FXAA: edges found by luma contrast and blended along their direction,
 * run in full only on the pixels a cheap first pass marked in a stencil;
 * text is drawn after it, unblurred); desc.samples > 1 multisamples instead
 * (text then drawn before the resolve). The
 * frame is drawn into the renderer's own framebuffer of the desc size, so a
 * window (mr_renderer_present blits it) and a headless run produce the same
 * pixels. Recording allocates only when a frame needs more room than any
 * before it.
 *
 * Alignment: matrices and colours given to these functions are copied with
 * memcpy, so they need no more than float alignment (cglm's SIMD paths
 * would fault on Lua userdata or packed structs); colour fields are float[4].
 *
 * Frames: world space is Y-up, metres. A model's meshes and skin matrices are
 * in the model's own frame; the world matrix passed at draw time carries it
 * into the world (use mr_model_display_matrix for MD5's Z-up inches). World
 * matrices are expected to be rotation, translation and scale (normals use
 * their inverse transpose).
 *
 * Resources: models live on the GPU behind small handles (mr_gpu_model) from
 * a pool with generation counters: a handle to a released model fails with
 * MR_ERR_INVALID_ARGUMENT instead of drawing garbage. Textures are cached by
 * path for the renderer's lifetime; a texture that is missing or unreadable
 * draws as a magenta checker and is reported once on stderr. Shaders are read
 * at run time from the shader directory (mr_renderer_shader_dir) and can be
 * reloaded; a compile or link error is returned with the GLSL log.
 *
 * Culling: llvmpipe pays per triangle, so a mesh that is a closed surface
 * (every edge shared by two triangles wound oppositely, once vertices with
 * the same position, joints and weights are welded) and encloses its volume
 * consistently is drawn without its back faces: from outside they are
 * hidden behind its front faces, so the picture stays the same while about
 * half the triangles are dropped early. The shadow map culls them too (on
 * the light's side a closed mesh hides the same faces), whether or not
 * desc.no_cull turns culling off for the camera. Open meshes,
 * textures with cut-out texels, wireframe draws and draws whose skin
 * matrices mirror or flatten keep both sides; a mirroring world matrix
 * swaps the culled side. A camera inside a closed mesh (its near plane
 * cutting through it) sees no inside walls.
 *
 * Shading each pixel once: llvmpipe runs the model shader for every
 * fragment that passes the depth test so far, and an open mesh drawn in
 * any order shades its back faces and the surfaces behind nearer ones too
 * (Bob: 35k fragments for 17k pixels). A model that covers many pixels for
 * its triangles has its depth drawn first (a depth-only pass, skinned the
 * same way), and the model pass then shades only the nearest fragment of
 * each pixel. Where two surfaces of the models lie at exactly the same
 * depth the later drawn one shows, in every frame.
 *
 * Shadows: light 0's shadow map is fitted to a sphere around the casters
 * with about one texel per screen pixel at their centre, more for a low
 * light (whose shadows stretch along the floor), at least 64 and up to
 * shadow_size across (the filter softens edges over about four texels): a
 * finer map costs llvmpipe per texel without showing.
 *
 * Limits: MR_GFX_MAX_JOINTS joints per model (the bone palette is a texture
 * buffer holding every draw's matrices for the frame); more fails the upload
 * with MR_ERR_LIMIT.
 */
#ifndef MR_GFX_RENDERER_H
#define MR_GFX_RENDERER_H

#include <stddef.h>
#include <stdint.h>

#include "anim/model.h"
#include "gfx/camera.h"

/* Joints per model the bone palette holds (= MR_MAX_JOINTS). */
#define MR_GFX_MAX_JOINTS MR_MAX_JOINTS

typedef struct mr_renderer mr_renderer;

/* A model uploaded to the GPU. id 0 is never valid. */
typedef struct mr_gpu_model { uint32_t id; } mr_gpu_model;

/* Renderer settings; zero fields take the default in brackets. */
/* Decoded texels all of a renderer's textures may hold: 256 Mpixel, 1 GiB of
 * RGBA8 (core/image.h bounds each texture; many files, or one file naming
 * many images, could still decode to far more). */
#define MR_RENDERER_MAX_TEXTURE_PIXELS ((size_t)256 << 20)

typedef struct mr_renderer_desc {
    int width, height;        /* offscreen frame size in pixels; 0: MR_DEFAULT_WIDTH x HEIGHT */
    int samples;              /* MSAA samples [1: none]; > 1 multisamples the frame
                               * (clamped to GL_MAX_SAMPLES; llvmpipe has 4 only)
                               * instead of the FXAA pass; costs more CPU time than
                               * FXAA (README, Anti-aliasing; `marrow bench --only
                               * render` measures it) */
    int no_fxaa;              /* 1: no post-process anti-aliasing of a single-
                               * sampled frame (hard, aliased edges) */
    int shadow_size;          /* shadow map texels per side [1024]; the map is fitted
                               * to the models' bounds each frame, with about one
                               * texel per screen pixel at their centre (up to
                               * this size: a close-up gets finer shadows) */
    const char *shader_dir;   /* GLSL directory [mr_renderer_shader_dir()] */
    const char *font_path;    /* TrueType font [DejaVuSans]; missing: no text, one warning */
    float font_px;            /* text height in pixels [15] */
    int quiet;                /* 1: no warnings on stderr (they are still counted) */
    int no_cull;              /* 1: the camera's passes draw the back faces of closed
                               * meshes too (see Culling: the same picture,
                               * slower; for checking) */
    int no_prepass;           /* 1: no depth pre-pass (mr_frame_stats.prepass_triangles:
                               * the same picture but where two surfaces of a
                               * model tie in depth; slower; for checking) */
    size_t max_texture_pixels;  /* texels all textures together may decode to
                               * [MR_RENDERER_MAX_TEXTURE_PIXELS]; past it a texture
                               * is drawn as the checker, with a warning */
} mr_renderer_desc;

/* A directional light. */
typedef struct mr_light {
    vec3 direction;           /* world direction towards the light (need not be unit) */
    vec3 colour;              /* intensity per channel */
} mr_light;

/* What a frame looks like besides the models. Zero fields take defaults. */
typedef struct mr_scene {
    mr_camera camera;
    vec3 ambient;             /* [0.32 0.34 0.38] */
    mr_light lights[2];       /* [a warm key light from above-front, a cool fill];
                               * lights[0] casts the shadow. A light whose
                               * direction is zero takes its default. */
    float sky_top[4], sky_bottom[4]; /* background gradient; alpha 0 = default */
    int hide_floor;           /* 1: no floor and no floor shadow */
    int no_shadows;           /* 1: no shadow map at all */
    float floor_y;            /* world height of the floor */
    float floor_center[2];    /* world x, z of the floor's middle (used with an
                               * extent or floor_centered) [under the eye] */
    int floor_centered;       /* 1: floor_center holds even with the default extent */
    float floor_extent;       /* half size of the floor, faded over its outer half
                               * [3 camera distances] */
    float grid_step;          /* grid cell size [a round number ~ extent/12; for the
                               * default floor ~ camera distance / 8] */
    float shadow_center[3];   /* world sphere the shadow map covers; radius 0 = */
    float shadow_radius;      /* [the models drawn this frame]. A fixed sphere
                               * (e.g. around a whole clip) keeps shadow edges
                               * from shimmering as the fit changes per frame. */
} mr_scene;

/* Per-draw options; NULL or zero fields take the defaults.
 * Skinning (anim/mesh.h, "Skinning modes"): MR_SKINNING_DUAL_QUATERNION
 * skins the draw as mr_mesh_skin_with does (the same split of scale, the
 * same fallback for mirroring joints), on the GPU. With skinning 0 each
 * mesh is skinned by its own mode (mr_mesh.skinning and dq_blend, FBX
 * SkinningType: dual quaternions, or per vertex blended with linear, as
 * `marrow pose` without --skinning), unless fixed_skinning makes it
 * linear for every mesh.
 * Morph weights: morph_weight_count floats, the targets of every mesh of
 * the model that has them, in mesh order (each its target count), as the
 * meshes' morph sets list them; NULL takes the meshes' default weights. A
 * count other than the model's is MR_ERR_INVALID_ARGUMENT. Per mesh the
 * shader gets only the non-zero weights, at most GFX_MORPH_ACTIVE (16):
 * beyond that the heaviest 16 (by magnitude) are drawn. The model's bounds
 * cover weights up to 1. */
typedef struct mr_draw_style {
    float tint[4];            /* multiplies the material colour [white]; all zero = white */
    int wireframe;            /* 1: triangle edges only */
    int no_shadow;            /* 1: casts no shadow */
    int skinning;             /* mr_skinning: 0 each mesh's own mode, MR_SKINNING_DUAL_QUATERNION */
    int fixed_skinning;       /* 1: skinning 0 is linear for every mesh (a --skinning given) */
    const float *skinning_mask;  /* with dual quaternions: per joint (joint_count) its share 0..1 of */
                              /* them, a vertex mixing linear and dq by its joints' shares (Maya's */
                              /* blend weights); NULL: dual quaternions everywhere */
    const float *morph_weights;  /* see above, or NULL: the defaults */
    int morph_weight_count;
} mr_draw_style;

/* Morph weights a draw of m takes (mr_draw_style.morph_weights): the sum of
 * its meshes' target counts; 0 for an invalid handle. */
int mr_renderer_morph_weight_count(const mr_renderer *r, mr_gpu_model m);

/* Skeleton overlay options; NULL or zero fields take the defaults. */
typedef struct mr_skeleton_style {
    float bone_colour[4];     /* [yellow]; alpha 0 = default */
    float joint_colour[4];    /* [white]; alpha 0 = default */
    int names;                /* 1: joint names beside the joints */
    float point_size;         /* joint marker size in pixels [6] */
    int axes;                 /* 1: each joint's local X, Y, Z as red, green, blue
                               * lines from the joint, 0.3 of its bone long (the
                               * root: of the mean bone), drawn on top */
} mr_skeleton_style;

/* Text options; NULL or zero fields take the defaults. */
typedef struct mr_text_style {
    float colour[4];          /* [white]; all zero = white */
    int no_shadow;            /* 1: no dark drop shadow behind the glyphs */
} mr_text_style;

/* Line flags. */
enum { MR_LINE_OVERLAY = 1 };  /* drawn over everything (no depth test) */

typedef struct mr_frame_stats {
    int draws;                /* models drawn last frame */
    int triangles;            /* triangles drawn last frame (main pass) */
    int culled_triangles;     /* of those, in meshes drawn with back faces culled */
    int prepass_triangles;    /* of those, in draws whose depth was drawn first
                               * (a model large on screen for its triangles:
                               * the model pass then shades each pixel once) */
    int shadow_texels;        /* shadow map texels across the casters (0: no
                               * shadow): about one per screen pixel, at most
                               * shadow_size - 1 */
    int lines, glyphs;
    int warnings;             /* warnings since creation (missing textures, font) */
    int programs;             /* shader programs built since creation: the model
                               * programs' variants are built when first drawn with */
} mr_frame_stats;

/* --- lifetime ---------------------------------------------------------- */

/* Creates a renderer on the current GL context: compiles the shaders, makes
 * the offscreen framebuffers, shadow map and font atlas. On failure *out is
 * NULL and err holds the reason (a shader error includes the GLSL log).
 * Destroy (with the same context current) with mr_renderer_destroy, which
 * also releases every uploaded model and texture. */
mr_status mr_renderer_create(const mr_renderer_desc *desc, mr_renderer **out, mr_error *err);
void mr_renderer_destroy(mr_renderer *r);

/* Rebuilds the shaders from the shader directory. On error the old shaders
 * stay in use and err holds the GLSL log. */
mr_status mr_renderer_reload_shaders(mr_renderer *r, mr_error *err);

/* Changes the offscreen frame size (e.g. when the window is resized). */
mr_status mr_renderer_resize(mr_renderer *r, int width, int height, mr_error *err);
void mr_renderer_size(const mr_renderer *r, int *width, int *height);

/* --- models ------------------------------------------------------------ */

/* Uploads every mesh of model (vertices, joints as integers, weights,
 * tangents for normal maps, indices; textures through the cache). The model
 * is not referenced afterwards. Fails with MR_ERR_LIMIT beyond
 * MR_GFX_MAX_JOINTS joints and MR_ERR_BAD_FILE when a vertex names a joint
 * the skeleton does not have. */
mr_status mr_renderer_upload_model(mr_renderer *r, const mr_model *model, mr_gpu_model *out,
                                   mr_error *err);
/* Frees the model's GPU memory; the handle (and copies of it) become invalid. */
void mr_renderer_release_model(mr_renderer *r, mr_gpu_model m);
int mr_renderer_model_valid(const mr_renderer *r, mr_gpu_model m);

/* World-space bounds of the model posed by skin (model frame skinning
 * matrices, joint_count of them, or NULL for the bind pose) under world.
 * Uses per-joint bounding spheres, so it is cheap and slightly generous.
 * Returns 0 for an invalid handle or an empty model. */
int mr_renderer_model_bounds(const mr_renderer *r, mr_gpu_model m, const mat4 *skin,
                             int joint_count, const mat4 world, vec3 min, vec3 max);

/* --- a frame ----------------------------------------------------------- */

/* Starts recording a frame seen through scene->camera. */
mr_status mr_renderer_begin_frame(mr_renderer *r, const mr_scene *scene);

/* Draws model m posed by skin (joint_count matrices from mr_pose_skinning,
 * in the model's frame; NULL draws the bind pose) placed by world. Static
 * meshes of the model ignore skin. joint_count must be the model's. */
mr_status mr_renderer_draw_model(mr_renderer *r, mr_gpu_model m, const mat4 *skin,
                                 int joint_count, const mat4 world,
                                 const mr_draw_style *style);

/* Skeleton overlay: a wire octahedron per bone from each joint to its parent,
 * a point per joint, optionally the names and each joint's local axes. joint_model holds the joints'
 * model-space matrices (mr_pose_to_model); world places them. Drawn over the
 * models. */
mr_status mr_renderer_draw_skeleton(mr_renderer *r, const mr_skeleton *sk,
                                    const mat4 *joint_model, const mat4 world,
                                    const mr_skeleton_style *style);

/* A world-space line from a to b; flags MR_LINE_OVERLAY draws it on top. */
void mr_renderer_line(mr_renderer *r, const vec3 a, const vec3 b, const float colour[4], int flags);
/* A world-space point marker size pixels wide, drawn on top. */
void mr_renderer_point(mr_renderer *r, const vec3 p, const float colour[4], float size);

/* Text at pixel position (x, y) = top-left of the first line, y down, in
 * the frame's pixels. '\n' starts a new line; characters outside printable
 * ASCII show as '?'. Returns the width in pixels of the widest line (0 when
 * there is no font). */
float mr_renderer_text(mr_renderer *r, float x, float y, const char *s,
                       const mr_text_style *style);
/* A filled rectangle at pixel (x, y) (top-left, y down), w x h pixels, in
 * colour (alpha blends): drawn in the text pass in call order, so text added
 * after it lies on top (a panel behind an overlay). Needs the font (without
 * one, nothing is drawn, like text). */
void mr_renderer_panel(mr_renderer *r, float x, float y, float w, float h, const float colour[4]);
/* Height in pixels of a line of text (0 when there is no font). */
float mr_renderer_text_height(const mr_renderer *r);
/* Width in pixels of the first n bytes of s as mr_renderer_text draws them
 * on one line (stops at '\n'; 0 when there is no font). Draws nothing. */
float mr_renderer_text_width(const mr_renderer *r, const char *s, size_t n);

/* Projects a world point to frame pixels (x right, y down); returns 0 when
 * the point is behind the camera. Valid between begin and end. */
int mr_renderer_project(const mr_renderer *r, const vec3 p, float *x, float *y);

/* Runs the passes for everything recorded since begin_frame. */
mr_status mr_renderer_end_frame(mr_renderer *r);

/* --- output ------------------------------------------------------------ */

/* Blits the last frame into the current default framebuffer (a window) of
 * fb_width x fb_height pixels, scaled when the sizes differ. */
void mr_renderer_present(mr_renderer *r, int fb_width, int fb_height);

/* Copies the last frame as RGBA8, top row first, into rgba (width*height*4
 * bytes, caller-owned). */
mr_status mr_renderer_read_pixels(mr_renderer *r, uint8_t *rgba, size_t size);

/* Writes the last frame as a PNG (top row first) to path, atomically. */
mr_status mr_renderer_screenshot(mr_renderer *r, const char *path, mr_error *err);

void mr_renderer_stats(const mr_renderer *r, mr_frame_stats *out);

/* --- files --------------------------------------------------------------- */

/* The shader directory: $MARROW_SHADERS when set, else shaders/ of the
 * data folder found from the executable (core/datadir.h: a checkout's, or
 * PREFIX/share/marrow when installed), else "shaders". The returned
 * string is static. */
const char *mr_renderer_shader_dir(void);

/* Encodes rgba (width*height*4 bytes, top row first) as PNG into path
 * (temporary file + rename). */
mr_status mr_gfx_write_png(const char *path, const uint8_t *rgba, int width, int height,
                           mr_error *err);
/* The same PNG into a new buffer (*data, free(); *len bytes): for a
 * caller that writes it itself (the test runner, through core/file's
 * descriptor-relative writes). MR_ERR_INVALID_ARGUMENT for an empty image,
 * MR_ERR_NO_MEMORY. */
mr_status mr_gfx_encode_png(const uint8_t *rgba, int width, int height, unsigned char **data, size_t *len);

#endif
