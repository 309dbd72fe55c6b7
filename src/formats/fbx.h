/* fbx.h — FBX reader (binary 5000..7700 and ASCII) into mr_model.
 *
 * Document: fbx_parse.h (binary records or ASCII text into one tree).
 *
 * Skeleton. Every Model object (meshes, LimbNode/Null/Root nodes, the
 *   bones clusters name) is a joint, depth-first from the scene root in
 *   connection order; names are the model's ("mixamorig:Hips" keeps its
 *   namespace), made unique with "#2". Each joint's rest pose is its
 *   static transform by FBX's transform model (fbx_xform.c: offsets,
 *   pivots, pre/post rotation, rotation order (all three ignored where
 *   RotationActive is 0), inherit type: a joint that does not inherit a
 *   non-uniform parent scale is flagged in the skeleton's scale_comp), properties
 *   from the object's Properties70/60 else its class's PropertyTemplate.
 *   A joint's inverse bind is the inverse of its cluster's TransformLink
 *   (the first cluster naming it), else of its rest world transform.
 *
 * Meshes. Each Geometry "Mesh" under a Model gives one mr_mesh per
 *   material it uses (LayerElementMaterial), one vertex per polygon corner,
 *   polygons fan-triangulated; normals (LayerElementNormal, else computed)
 *   and the first UV set (v as OpenGL's). Skinned (a Skin deformer): the
 *   vertices are placed by the clusters' Transform (the mesh's bind world
 *   matrix), influences from the clusters' Indexes/Weights, the 8 heaviest
 *   kept. Rigid: placed by the node's world transform with its geometric
 *   transform, bound to the node's joint.
 *
 * Blend shapes. BlendShape deformers' channels, each shape (in-betweens
 *   included) one morph target; a channel's DeformPercent (0..100) weighs
 *   its shapes piecewise-linearly by FullWeights.
 *
 * Geometry caches. A VertexCacheDeformer's Maya cache (fbx_cache.c: the
 *   XML description and its one .mcx/.mc file, opened inside the FBX
 *   file's folder) or 3ds Max point cache (.pc2) gives its mesh one morph target per frame, placed as
 *   the mesh's points; every clip gets a weight channel keyed at the
 *   frames' times that cross-fades from one frame to the next (a file
 *   without stacks gets a clip "geometry cache" for them). A cache
 *   that is missing or does not fit the mesh leaves it, with a warning.
 *
 * Clips. Every AnimationStack (7.x) or Take (6.x) is a clip by its name,
 *   the active one (ActiveAnimStackName, Takes/Current) first so that it
 *   plays by default. Curves (constant, linear, cubic with FBX's weighted
 *   tangents) are evaluated through the transform model and baked at every
 *   key time and every frame of the file's frame rate, and a joint whose
 *   local depends on its own curves only also between them, at as many
 *   evenly spaced times as the curve's bend asks for (up to 8 a frame): so
 *   that marrow's interpolation stays within 2e-5 of the model's extent
 *   (rotations: at the farthest joint they move) of FBX's own per-channel
 *   Euler curves (about 3.6e-3 of a Mixamo character's size when baked once
 *   per frame). Other joints (a skeleton parent that is not the FBX parent,
 *   an ancestor's animated scale) are baked with the whole skeleton
 *   FBX_OVERSAMPLE (4) times per frame. Clip time is the file's time
 *   in seconds.
 *
 * Axes. Coordinates stay as the file has them (like MD5): the model's axes
 *   are the file's up axis and unit (UnitScaleFactor cm), `info` shows them.
 *
 * Errors: "fbx: FILE: NODE/PATH: expected ...", MR_ERR_BAD_FILE.
 */
#ifndef MR_FORMATS_FBX_H
#define MR_FORMATS_FBX_H

#include "anim/model.h"

mr_status mr_fbx_load(const char *path, mr_model **out, mr_error *err);

/* Motions from another FBX file onto model (fbx_anims.c): a Mixamo
 * motion downloaded "without skin", an armature and its actions exported
 * from Blender. The file is read as a model of its own; each of its stacks
 * that moves a node becomes a clip of model, named after the file's stem
 * (walk.fbx -> "walk") when one stack moves, else by the stack's name
 * (made unique as mr_model_add_clip does). Nodes bind to model's joints by
 * name, the namespace ignored ("mixamorig:Hips" = "mixamorig1:Hips" =
 * "Hips"; an exact name first). Down a chain that both files root alike
 * (same axes and unit, each joint under its parent's node) the keys are
 * taken as they are; below a node of the motion's own ("Armature"), or
 * across other axes or units, a joint takes at every key time the local
 * transform that puts it where the motion puts its node in the model's
 * space (its rotation and position; its scale stays its rest's: a unit
 * scale above the bones belongs to the motion's file). Unmapped joints keep
 * their rest; a warning counts the motion's nodes that drive nothing.
 * MR_ERR_BAD_FILE when no node names a
 * joint or no stack moves anything (model unchanged then; clips added
 * before a later failure stay). */
mr_status mr_fbx_load_anims(mr_model *model, const char *path, mr_error *err);
/* The same from memory (name for messages). */
mr_status mr_fbx_parse_model(const char *name, const void *buf, size_t len, mr_model **out, mr_error *err);

#endif
