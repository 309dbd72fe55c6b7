/* model.h — a loaded model: skeleton, meshes, clips, and where it came from.
 *
 * Loaders (src/formats) build an mr_model; everything above them (info, pose,
 * renderer, Lua) uses only this struct. The model owns everything it points to;
 * mr_model_destroy releases it all.
 *
 * Axes: vertex data and skeleton stay in the coordinates the model is kept
 * in (`axes`: up axis and unit). MD5 keeps its own (Z-up, inches); COLLADA is
 * converted to Y-up metres at load. mr_model_display_matrix gives the
 * transform from the model's axes to marrow's world (Y-up, metres), used by the renderer and the
 * camera; `marrow pose` writes model coordinates.
 */
#ifndef MR_ANIM_MODEL_H
#define MR_ANIM_MODEL_H

#include "anim/axes_type.h"
#include "anim/clip_runtime.h"
#include "anim/mesh.h"

typedef struct mr_model {
    char *path;          /* as given to the loader */
    char *format;        /* "md5", "collada" */
    mr_skeleton skeleton;
    int mesh_count;
    mr_mesh *meshes;
    int clip_count;
    mr_clip **clips;     /* owned */
    mr_axes axes;        /* up axis and unit of the coordinates the model is kept in */
    char *axes_note;    /* what the loader converted, for `info` (may be NULL) */
    int warning_count;
    char **warnings;     /* owned strings, shown by `info` */
    /* A cached load's file image (formats/cache.h), or NULL. Arrays and
     * strings of the skeleton, meshes, clips and warnings may point into it
     * instead of being allocated one by one; mr_model_destroy frees the
     * image last and never frees a pointer inside it. */
    void *cache_block;
    size_t cache_block_size;
    /* The budget mr_model_add_clip gives clips, computed on first need
     * (model.c), or NULL; private to model.c. */
    struct mr_model_budget *budget;
    /* A VRM avatar's humanoid map, expressions, springs and kept extensions
     * (anim/vrm.h), or NULL; owned. */
    struct mr_vrm *vrm;
} mr_model;

/* A new empty model (no joints, meshes or clips) for path, Y-up metres, in
 * *out. MR_ERR_NO_MEMORY (and *out NULL) when there is no memory. Free with
 * mr_model_destroy. */
mr_status mr_model_create(const char *path, const char *format, mr_model **out);
void mr_model_destroy(mr_model *model);

/* A deep copy of model (model_copy.c): skeleton, meshes with materials,
 * embedded images and morph targets, axes, warnings, path and format, and
 * as its clips copies of clips[0..clip_count) (source keys, morph weight
 * tracks, markers, name, duration and rate; finished). Pass model->clips
 * and model->clip_count for all of its own. Nothing of the copy points
 * into model or its cache image (cache_block is NULL), so it outlives
 * both and may be converted and written freely. MR_ERR_NO_MEMORY, or
 * MR_ERR_JOINT_COUNT for a clip of another joint count; *out NULL then.
 * Free with mr_model_destroy. */
mr_status mr_model_copy(const mr_model *model, const mr_clip *const *clips, int clip_count, mr_model **out);
/* The same for one clip (finished); MR_ERR_NO_MEMORY. */
mr_status mr_model_copy_clip(const mr_clip *clip, mr_clip **out);

/* Bytes the model's arrays hold (vertices, indices, embedded images, clip
 * keys, joints): what it costs in memory, within a few percent. The Lua
 * host counts it against a script's --memory. */
size_t mr_model_bytes(const mr_model *model);

/* Takes ownership of clip and appends it. A clip with the same name replaces
 * nothing: names are made unique by appending "#2", "#3". A clip without a
 * budget gets the model's slerp error budget (clip.h, "Slerp fidelity"),
 * computed once and reused for further clips while the skeleton and meshes
 * hash the same (a 64-bit hash of everything the budget reads). During a
 * load's read (mr_clip_hold_packs) it is left to the first pack's build,
 * off the load's path, and shared by the load's clips; code that changes
 * the skeleton or meshes of a model whose clips may still wait for it
 * calls mr_clip_adopt_budget on them first (clip_runtime.h). */
mr_status mr_model_add_clip(mr_model *model, mr_clip *clip);
mr_clip *mr_model_find_clip(const mr_model *model, const char *name);

/* The most warnings a model keeps; one more says the rest were dropped. */
#define MR_MODEL_MAX_WARNINGS 1000

/* Appends a warning (printf-style), at most MR_MODEL_MAX_WARNINGS of them
 * (a hostile file can ask for millions). Control characters (a newline, a
 * terminal escape from a name in the file) become '?': each warning is
 * one printable line. */
void mr_model_warn(mr_model *model, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Axis-aligned bounds of the bind-pose vertices in model coordinates
 * (joint positions when there are no vertices). Returns 0 when empty. */
int mr_model_bounds(const mr_model *model, vec3 min, vec3 max);

/* Model axes to world (Y-up metres). */
void mr_model_display_matrix(const mr_model *model, mat4 out);

/* Total vertex and triangle counts over all meshes. */
void mr_model_counts(const mr_model *model, int *vertices, int *triangles);

#endif
