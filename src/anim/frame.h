/* frame.h — converting a whole model between coordinate frames.
 *
 * A frame (model.h) is an up axis and a unit; its map to marrow's world
 * (Y-up metres) is W = s * R with R the axis permutation of the up axis and
 * s the metres per unit. Converting a model from frame A to frame B applies
 * C = W_B^-1 * W_A (a signed axis permutation times a uniform scale) to
 * everything at once: vertex positions (C p), normals (R_B^T R_A n),
 * joint rest poses, every track key and tangent, and inverse binds
 * (C X C^-1). Poses, skinning and the world picture are unchanged; only the
 * numbers change. Writers use it to put a model into their format's frame
 * and readers to bring one into marrow's.
 */
#ifndef MR_ANIM_FRAME_H
#define MR_ANIM_FRAME_H

#include "anim/model.h"

/* Converts model in place to frame `to` (model->frame becomes `to`).
 * Fails only on an invalid frame (unit <= 0 or not finite). */
mr_status mr_model_convert_frame(mr_model *model, mr_frame to, mr_error *err);

/* The 3x3 axis map and the scale of the conversion from `from` to `to`:
 * p_to = scale * rot * p_from. */
void mr_frame_conversion(mr_frame from, mr_frame to, mat3 rot, float *scale);

#endif
