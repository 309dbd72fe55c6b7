/* vrm.h — what a VRM avatar (a glTF with the VRM extensions, 1.0 or 0.x)
 * adds to a model: the humanoid bone map, expressions (named groups of
 * morph weights and material binds with their binary and override rules),
 * spring chains and colliders (as springs.h takes them), node constraints
 * (vrm_constraints.h evaluates them), the look-at settings (vrm_look_at.h),
 * and what marrow keeps without using (meta) as JSON text so a saved model
 * writes it back (constraints and look-at are kept as text too, the form
 * the writer uses).
 *
 * Data only, on the floor of springs.h; model.h holds one (model->vrm),
 * formats/gltf_vrm.c fills it, formats/gltf_write.c writes it. Joint and
 * mesh indices are the model's; expressions name model meshes and their
 * morph targets. mr_vrm_free frees everything it holds.
 */
#ifndef MR_ANIM_VRM_H
#define MR_ANIM_VRM_H

#include "anim/springs.h"

/* VRM 1.0's humanoid bones, in the specification's order (VRM 0.x's names
 * are the same, with upperChest and the thumb's first joints spelled the
 * old way; the reader maps them). */
#define MR_VRM_BONE_COUNT 55
extern const char *const mr_vrm_bone_names[MR_VRM_BONE_COUNT];

enum { MR_VRM_OVERRIDE_NONE = 0, MR_VRM_OVERRIDE_BLOCK, MR_VRM_OVERRIDE_BLEND };

typedef struct mr_vrm_bind {
    int mesh;                /* model mesh */
    int target;              /* its morph target */
    float weight;            /* at expression weight 1 (0..1) */
} mr_vrm_bind;

typedef struct mr_vrm_expression {
    char *name;              /* preset name ("happy", "blink") or the custom name */
    int is_binary;           /* weights above 0.5 count as 1, others 0 */
    int override_blink, override_look_at, override_mouth;   /* MR_VRM_OVERRIDE_* */
    int bind_first, bind_count;   /* into binds */
} mr_vrm_expression;

/* An expression's material bind (VRMC_vrm materialColorBinds and
 * textureTransformBinds): what the material's value becomes at expression
 * weight 1. Several expressions move one material value by the sum of
 * weight * (target - base), three-vrm's rule. */
enum {
    MR_VRM_MATERIAL_COLOR = 0, MR_VRM_MATERIAL_EMISSION, MR_VRM_MATERIAL_SHADE, MR_VRM_MATERIAL_MATCAP,
    MR_VRM_MATERIAL_RIM, MR_VRM_MATERIAL_OUTLINE, MR_VRM_MATERIAL_UV, MR_VRM_MATERIAL_KINDS
};
extern const char *const mr_vrm_material_kinds[MR_VRM_MATERIAL_KINDS];   /* "color", ..., "textureTransform" */

typedef struct mr_vrm_material_bind {
    int expression;          /* the expression it belongs to */
    int material;            /* the file's material index */
    char material_name[64];  /* its name as model meshes' materials carry it ("material3" when unnamed; */
                             /* the first 63 bytes) */
    int kind;                /* MR_VRM_MATERIAL_* */
    float base[4];           /* the material's own value (uv: scale x, y, offset x, y) */
    float target[4];         /* the value at weight 1 (colours rgba; uv as base) */
} mr_vrm_material_bind;

/* VRMC_node_constraint: the destination joint's rotation follows the
 * source (anim/vrm_constraints.h evaluates them). */
enum { MR_VRM_CONSTRAINT_ROLL = 0, MR_VRM_CONSTRAINT_AIM, MR_VRM_CONSTRAINT_ROTATION };

typedef struct mr_vrm_constraint {
    int joint;               /* the destination: the joint the constraint rotates */
    int source;              /* the joint it follows (never joint itself) */
    int type;                /* MR_VRM_CONSTRAINT_* */
    int axis;                /* roll: 0 X, 1 Y, 2 Z; aim: 0 +X, 1 -X, 2 +Y, 3 -Y, 4 +Z, 5 -Z; rotation: 0 */
    float weight;            /* 0..1: slerp from the destination's rest rotation */
} mr_vrm_constraint;

/* VRMC_vrm.lookAt (or VRM 0.x's firstPerson look-at settings). */
enum { MR_VRM_LOOK_AT_BONE = 0, MR_VRM_LOOK_AT_EXPRESSION };

typedef struct mr_vrm_range_map {
    float input_max;         /* degrees, 0.01..180 (three-vrm's floor for 0) */
    float output_scale;      /* degrees (bone) or an expression weight */
} mr_vrm_range_map;

typedef struct mr_vrm_look_at {
    int present;             /* 1: the file declares look-at settings */
    int type;                /* MR_VRM_LOOK_AT_* */
    int face_minus_z;        /* 1: the avatar faces -Z (VRM 0.x), 0: +Z */
    float offset[3];         /* the look-at origin in the head joint's frame */
    mr_vrm_range_map inner, outer, down, up;   /* rangeMapHorizontalInner/Outer, VerticalDown/Up */
} mr_vrm_look_at;

typedef struct mr_vrm {
    int version;             /* 1 (VRMC_vrm) or 0 (VRM 0.x) */
    int humanoid[MR_VRM_BONE_COUNT];   /* joint of each bone, -1 */
    int expression_count;
    mr_vrm_expression *expressions;
    int bind_count;
    mr_vrm_bind *binds;
    /* springs: a description for mr_springs_create (step fixed) */
    int spring_joint_count, chain_count, collider_count, chain_collider_count;
    mr_spring_joint *spring_joints;
    mr_spring_chain *chains;
    mr_spring_collider *colliders;
    int *chain_colliders;
    char **chain_names;      /* chain_count names (may be NULL entries) */
    /* kept as JSON text with node indices replaced by joint names (see
     * gltf_vrm.c): written back on save */
    char *meta_json;         /* VRMC_vrm.meta (or VRM.meta) */
    char *look_at_json;      /* VRMC_vrm.lookAt (or VRM.firstPerson) */
    int constraint_count;
    int *constraint_joint;   /* the joint carrying each VRMC_node_constraint */
    char **constraint_json;  /* its constraint object, source node named by joint name */
    mr_vrm_constraint *constraints;   /* constraint_count, parsed (same order as constraint_joint) */
    int *constraint_order;   /* constraint_count indices: the order that evaluates every constraint */
                             /* after those it depends on (mr_vrm_constraints_order) */
    mr_vrm_look_at look_at;  /* parsed lookAt (look_at_json keeps the text) */
    int material_bind_count;
    mr_vrm_material_bind *material_binds;   /* every expression's, in expression order */
} mr_vrm;

/* Index of a humanoid bone name (VRM 1.0 or 0.x spelling), or -1. */
int mr_vrm_bone_find(const char *name);
/* Index of the expression called name, or -1. */
int mr_vrm_expression_find(const mr_vrm *v, const char *name);
/* The springs' description over v's arrays (pointers into v). */
mr_springs_desc mr_vrm_springs_desc(const mr_vrm *v);
/* Morph weights from expression weights (v->expression_count of them):
 * binary expressions snap, an active expression that blocks (or blends)
 * blink, look-at or mouth expressions silences (or scales) them, and every
 * bound target gets the sum of its binds (clamped to 0..1). morph holds the
 * weights of every mesh's targets in mesh order, starting at offsets[mesh];
 * targets no expression binds keep their weight. */
void mr_vrm_expressions_apply(const mr_vrm *v, const float *weights, const int *offsets, float *morph, int morph_count);
/* The weights expressions have after the binary and override rules
 * (what mr_vrm_expressions_apply uses): out[i] for expression i. */
void mr_vrm_expressions_effective(const mr_vrm *v, const float *weights, float *out);
/* The value of material bind group (material, kind) for expression
 * weights (effective ones, above): base + sum over the binds of weight *
 * (target - base), colours clamped to 0..1 (uv unclamped). Returns 0 when
 * no bind has that material and kind. */
int mr_vrm_material_value(const mr_vrm *v, const float *effective, int material, int kind, float out[4]);
/* Deep copy (NULL for NULL or out of memory). */
mr_vrm *mr_vrm_copy(const mr_vrm *v);
void mr_vrm_free(mr_vrm *v);

#endif
