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

#include "anim/clip.h"
#include "anim/mesh.h"

typedef enum mr_up_axis { MR_UP_Y = 0, MR_UP_Z, MR_UP_X } mr_up_axis;

typedef struct mr_axes {
    mr_up_axis up;       /* up axis of the model's coordinates */
    float meters_per_unit;  /* 0.0254 for MD5 inches, 1 for converted COLLADA */
} mr_axes;

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
} mr_model;

/* A new empty model (no joints, meshes or clips) for path. */
mr_model *mr_model_new(const char *path, const char *format);
void mr_model_destroy(mr_model *model);

/* Takes ownership of clip and appends it. A clip with the same name replaces
 * nothing: names are made unique by appending "#2", "#3". */
mr_status mr_model_add_clip(mr_model *model, mr_clip *clip);
mr_clip *mr_model_find_clip(const mr_model *model, const char *name);

/* Appends a warning (printf-style). */
void mr_model_warn(mr_model *model, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Axis-aligned bounds of the bind-pose vertices in model coordinates
 * (joint positions when there are no vertices). Returns 0 when empty. */
int mr_model_bounds(const mr_model *model, vec3 min, vec3 max);

/* Model axes to world (Y-up metres). */
void mr_model_display_matrix(const mr_model *model, mat4 out);

/* Total vertex and triangle counts over all meshes. */
void mr_model_counts(const mr_model *model, int *vertices, int *triangles);

#endif
