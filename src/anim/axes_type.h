/* axes_type.h — the types of the axes a model's coordinates are kept in: its
 * up axis and unit (model->axes; converting between them is anim/axes.h's).
 * Types only, on the bottom floor of src/anim (docs/CONVENTIONS.md), so the
 * mixer and root motion name an up axis without including the model. */
#ifndef MR_ANIM_AXES_TYPE_H
#define MR_ANIM_AXES_TYPE_H

typedef enum mr_up_axis { MR_UP_Y = 0, MR_UP_Z, MR_UP_X } mr_up_axis;

typedef struct mr_axes {
    mr_up_axis up;       /* up axis of the model's coordinates */
    float meters_per_unit;  /* 0.0254 for MD5 inches, 1 for converted COLLADA */
} mr_axes;

#endif
