/* camera.h — the orbit camera: a target point, yaw and pitch around it, and
 * a distance; plus framing of a bounding box so any model shows up whole,
 * whatever its size. Pure math, no GL.
 *
 * Conventions (world is Y-up): yaw 0 puts the eye on +Z looking towards -Z,
 * yaw 90 on +X looking towards -X; pitch > 0 looks down from above. Angles
 * are in degrees. The eye is target + distance * (cos p sin y, sin p, cos p cos y).
 */
#ifndef MR_GFX_CAMERA_H
#define MR_GFX_CAMERA_H

#include <cglm/cglm.h>

typedef struct mr_camera {
    vec3 target;              /* the point looked at and orbited */
    float yaw, pitch;         /* degrees */
    float distance;           /* eye to target; <= 0 means 3 */
    float fov_y;              /* vertical field of view in degrees [40] */
    float near_z, far_z;      /* clip planes [from distance] */
} mr_camera;

/* Moves target and distance so the box [min, max] fills the view at the
 * camera's yaw/pitch for a frame of the given aspect (width/height), with a
 * small margin. */
void mr_camera_frame_bounds(mr_camera *cam, const vec3 min, const vec3 max, float aspect);

/* Eye position, view and projection matrices for aspect = width/height. */
void mr_camera_eye(const mr_camera *cam, vec3 eye);
void mr_camera_matrices(const mr_camera *cam, float aspect, mat4 view, mat4 proj);

/* Orbit controls: yaw/pitch by degrees (pitch kept within +-89), zoom by a
 * factor (distance *= factor), pan by fractions of the distance in the
 * view's right/up directions. */
void mr_camera_orbit(mr_camera *cam, float dyaw, float dpitch);
void mr_camera_zoom(mr_camera *cam, float factor);
void mr_camera_pan(mr_camera *cam, float right, float up);

#endif
