/* axes.h — converting a whole model between axis conventions.
 *
 * A model's axes (mr_axes, model.h) are an up axis and a unit; its map to marrow's world
 * (Y-up metres) is W = s * R with R the axis permutation of the up axis and
 * s the metres per unit. Converting a model from axes A to axes B applies
 * C = W_B^-1 * W_A (a signed axis permutation times a uniform scale) to
 * everything at once: vertex positions (C p), normals (R_B^T R_A n),
 * joint rest poses, every track key and tangent, and inverse binds
 * (C X C^-1). Poses, skinning and the world picture are unchanged; only the
 * numbers change. Writers use it to put a model into their format's axes
 * and readers to bring one into marrow's.
 */
#ifndef MR_ANIM_AXES_H
#define MR_ANIM_AXES_H

#include "anim/model.h"

/* Converts model in place to axes `to` (model->axes becomes `to`).
 * Fails only on invalid axes (unit <= 0 or not finite). */
mr_status mr_axes_convert_model(mr_model *model, mr_axes to, mr_error *err);

/* The 3x3 axis map and the scale of the conversion from `from` to `to`:
 * p_to = scale * rot * p_from. */
void mr_axes_conversion(mr_axes from, mr_axes to, mat3 rot, float *scale);

#endif
