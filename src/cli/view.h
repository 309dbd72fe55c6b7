/* view.h — one model on the renderer, as the viewer shows it: the
 * current clip and time, the pose and skinning buffers, a camera framed on
 * where the clip takes the model, the floor under its lowest point, the
 * skeleton/wireframe switches and the HUD. Used by `marrow view`.
 *
 * The model and renderer are borrowed (the caller keeps them alive and frees
 * them after mr_view_deinit). Per-frame calls allocate nothing.
 */
#ifndef MR_CLI_VIEW_H
#define MR_CLI_VIEW_H

#include "anim/pose.h"
#include "gfx/renderer.h"

typedef struct mr_view {
    mr_renderer *r;
    const mr_model *model;
    mr_gpu_model gpu;
    int clip;                 /* index into model->clips, -1 when there are none */
    float time;               /* seconds into the clip (wrapped when sampled) */
    mr_pose pose;
    struct mr_clip_cursor *cursor;  /* the playhead's (anim/clip_runtime.h), or NULL: keys searched */
    mat4 *joint_model;        /* joint_count model-space matrices */
    mat4 *skin;               /* joint_count skinning matrices */
    mat4 display;             /* model frame -> world */
    vec3 bounds_min, bounds_max;  /* world bounds over the current clip */
    mr_camera camera;
    float default_yaw;        /* a front three-quarter view for this model */
    int skeleton, names, wireframe, hud;
    int skinning;        /* mr_skinning of the draw (--skinning; 0 without: each mesh's own) */
    int fixed_skinning;  /* 1: --skinning given (linear then for every mesh) */
    const char *footer;       /* HUD line at the bottom (key help), or NULL */
    int follow;               /* --follow: the camera travels with the root joint */
    vec3 follow_offset;       /* camera target minus the root's world position */
} mr_view;

/* Uploads model to r and sets up the first clip (or the bind pose). */
mr_status mr_view_init(mr_view *v, mr_renderer *r, const mr_model *model, mr_error *err);
void mr_view_deinit(mr_view *v);

/* Switches to clip index (wrapping around the clip list), time 0, and
 * recomputes the bounds (the camera is not moved: call mr_view_frame). */
void mr_view_set_clip(mr_view *v, int clip);

/* Points the camera at the bounds from the default front three-quarter view
 * (yaw/pitch reset) for a frame of the given aspect. */
void mr_view_frame(mr_view *v, float aspect);
/* The world bounds the camera frames: where the clip takes the model, or
 * with v->follow the model around its root at v->time (its size, not its
 * path). */
void mr_view_frame_bounds(mr_view *v, vec3 min, vec3 max);
/* With v->follow: keeps the camera's present offset from the root joint at
 * v->time, which mr_view_draw then keeps in every frame (the camera travels
 * with a character that walks away; orbit and zoom still work). */
void mr_view_follow_here(mr_view *v);

/* Duration of the current clip (0 without clips) and the length of one of
 * its frames (1/rate, or 1/30 s when the clip has no rate). */
float mr_view_duration(const mr_view *v);
float mr_view_frame_step(const mr_view *v);

/* Poses the model at v->time and records the frame on the renderer: model,
 * optional skeleton, HUD lines (status may be NULL) and ends the frame. */
mr_status mr_view_draw(mr_view *v, const char *status);

/* The pose at v->time into v->joint_model / v->skin (done by mr_view_draw). */
void mr_view_pose(mr_view *v);

#endif
