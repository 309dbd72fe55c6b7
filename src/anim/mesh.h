/* mesh.h — skinned triangle meshes and their materials, and CPU skinning.
 *
 * Every vertex carries up to 8 joint influences (joints[i][k], weights[i][k],
 * heaviest first, weights summing to 1, unused slots joint 0 weight 0):
 * exactly what the renderer uploads (the second four only for meshes that
 * use them, see mr_mesh_influence_count). Loaders reduce more influences
 * with mr_mesh_pack_influences. A mesh with joints == NULL is static: it is drawn
 * with the model's display transform only.
 *
 * Which influences are kept depends on the influences themselves and not
 * on the order of the skeleton's joints: heavier first; among equal weights
 * the joint whose bind-pose origin is nearer the vertex (in the bind pose),
 * then the joint whose name sorts first (strcmp), and only then the lower
 * joint index (joints at the same place with the same name). The rule
 * matters when equal weights straddle the cut (12 equal weights, as some
 * exports write), and it keeps the geometrically local joint. The kept ones
 * sit heaviest first, equal weights by joint index (slot order changes only
 * rounding; this keeps files written before the rule byte-identical).
 */
#ifndef MR_ANIM_MESH_H
#define MR_ANIM_MESH_H

#include <stddef.h>
#include <stdint.h>

#include "anim/skeleton.h"

#define MR_MAX_INFLUENCES 8
/* What one GPU attribute set (and a 4-influence runtime) holds. */
#define MR_INFLUENCE_SET 4

/* Colours are plain float[4] (not 16-byte aligned): copy them with memcpy or
 * element-wise, never with cglm's SIMD glm_vec4_* functions. */
typedef struct mr_material {
    char *name;
    float diffuse[4];    /* RGBA multiplier, or the colour when there is no map */
    float ambient[4];
    float specular[4];
    float emission[4];
    float shininess;     /* Blinn-Phong exponent */
    char *diffuse_map;   /* image path as resolved by the loader (may not exist), or NULL */
    char *normal_map;    /* tangent-space normal map path, or NULL */
    /* An image embedded in the model file (glTF: a .glb buffer view or a
     * data: URI): its encoded bytes (PNG/JPEG, owned), and the map's path is
     * then only its name ("model.glb#/images/0"). NULL: read the path. */
    unsigned char *diffuse_bytes;
    size_t diffuse_bytes_len;
    unsigned char *normal_bytes;
    size_t normal_bytes_len;
} mr_material;

/* Skinning modes (mr_mesh_skin_with below says what each does). */
typedef enum mr_skinning {
    MR_SKINNING_LINEAR = 0,
    MR_SKINNING_DUAL_QUATERNION,
} mr_skinning;

typedef struct mr_mesh {
    char *name;
    int vertex_count;
    int index_count;     /* multiple of 3 */
    vec3 *positions;     /* bind pose, model space */
    vec3 *normals;       /* unit length */
    vec2 *uvs;           /* always present (zeros when none); OpenGL convention:
                          * (0,0) is the image's bottom-left, v = 1 its top row */
    uint16_t (*joints)[MR_MAX_INFLUENCES];  /* NULL for a static mesh */
    float (*weights)[MR_MAX_INFLUENCES];    /* NULL for a static mesh; plain floats:
                                             * no SIMD glm_vec4_* on them */
    uint32_t *indices;   /* triangles, counter-clockwise front faces */
    mr_material material;
    int source_over4;    /* vertices whose source file gave more than 4 positive */
    int source_over8;    /* ... and more than 8 influences (before the cut); loaders set these */
    struct mr_morph_set *morph;  /* morph targets (anim/morph.h), owned, or NULL: none */
    /* The skinning its file asks for (FBX SkinningType; every other format
     * LINEAR): DUAL_QUATERNION with dq_blend NULL skins every vertex with
     * dual quaternions; dq_blend (vertex_count factors in [0, 1], owned, or
     * NULL) blends the linear and dual-quaternion results per vertex
     * (FBX "Blend": Maya's weight-blended skin). `marrow pose` without
     * --skinning follows these (mr_skin_opts.mode / .blend). */
    mr_skinning skinning;
    float *dq_blend;
} mr_mesh;

/* Allocates vertex and index arrays (zeroed; skinned adds joints/weights).
 * The material gets defaults (light grey, shininess 32). */
mr_status mr_mesh_init(mr_mesh *mesh, int vertex_count, int index_count, int skinned);

/* The arrays a loader writes whole itself (joints and weights: every slot
 * of every vertex, as mr_mesh_pack_influences does), which
 * mr_mesh_init_set leaves unzeroed; the others are zeroed. */
enum {
    MR_MESH_SET_POSITIONS = 1,
    MR_MESH_SET_NORMALS = 2,
    MR_MESH_SET_UVS = 4,
    MR_MESH_SET_INDICES = 8,
    MR_MESH_SET_INFLUENCES = 16,
};
mr_status mr_mesh_init_set(mr_mesh *mesh, int vertex_count, int index_count, int skinned, unsigned set);
void mr_mesh_deinit(mr_mesh *mesh);
void mr_material_defaults(mr_material *mat);

/* Area-weighted smooth normals from positions and indices. */
void mr_mesh_compute_normals(mr_mesh *mesh);

/* How mr_mesh_pack_influences cuts and breaks ties (zero fields: defaults). */
typedef struct mr_influence_rule {
    int max;                  /* influences to keep, 1..MR_MAX_INFLUENCES; 0: MR_MAX_INFLUENCES */
    const float *vertex;      /* the vertex's bind-pose position, or NULL */
    const vec3 *origins;      /* per joint index: its bind-pose origin, same space as vertex; or NULL */
    const char *const *names; /* per joint index: its name; or NULL */
} mr_influence_rule;

/* Keeps the rule->max heaviest of n influences (rule may be NULL), ordered
 * by the rule in the header comment (without vertex/origins the distance
 * step is skipped, without names the name step), drops non-positive
 * weights, renormalises the kept ones to sum 1; unused slots get joint 0
 * weight 0. Returns how many weights were positive (more than max: some were
 * cut); 0 when none was (out_j/out_w then bind fully to joints[0] or joint 0).
 * Joint indices index origins and names: the caller guarantees they are in
 * range. */
int mr_mesh_pack_influences(const int *joints, const float *weights, int n, const mr_influence_rule *rule,
                       uint16_t out_j[MR_MAX_INFLUENCES], float out_w[MR_MAX_INFLUENCES]);

/* The bind-pose origin of every joint (the translation of the inverse of
 * inverse_bind), for mr_influence_rule.origins: out has joint_count entries. */
void mr_mesh_influence_origins(const mr_skeleton *sk, vec3 *out);

/* How many influence slots the mesh uses: 1 + the last slot with a non-zero
 * weight in any vertex (0 for a static mesh). Above MR_INFLUENCE_SET the
 * renderer uploads a second joint/weight attribute set. */
int mr_mesh_influence_count(const mr_mesh *mesh);

/* Linear blend skinning on the CPU with skin matrices from mr_pose_skinning:
 * out_pos/out_nrm get vertex_count entries (caller-owned). A static mesh is
 * copied unchanged. */
void mr_mesh_skin(const mr_mesh *mesh, const mat4 *skin, vec3 *out_pos, vec3 *out_nrm);

/* Skinning modes (mr_skinning). LINEAR blends the skin matrices (mr_mesh_skin).
 * DUAL_QUATERNION blends each joint's rigid part as a unit dual quaternion
 * (Kavan et al. 2007; antipodal quaternions flipped towards the heaviest
 * influence), so a twisted joint keeps the limb's cross-section instead of
 * collapsing it ("candy wrapper").
 * Scale: a dual quaternion holds no scale. Each skin matrix is split into
 * M = [R S | t] (R the rotation of its normalised axes, S = R^T A the
 * rest: scale, non-uniform scale, shear); the vertex is first moved by the
 * linear blend of the S of its influences, then by the blended dual
 * quaternion. Rigid skin matrices (S within 1e-5 of identity) skip the S
 * step. A mirroring skin matrix (negative determinant) has no rotation:
 * vertices it influences are skinned linearly. */
typedef struct mr_skin_opts {
    mr_skinning mode;      /* 0: linear */
    const float *blend;    /* vertex_count factors, 0 linear .. 1 dual quaternion (a per-vertex
                            * blend of the two results, Maya's "weight blended"); NULL: mode */
    const float *joint_blend;  /* or per joint (a mask, anim/mask.h): a vertex's factor is the
                            * influence-weighted sum of its joints' (blend wins when both) */
    const vec3 *positions; /* input vertices (e.g. morphed by mr_morph_apply), or NULL: the mesh's */
    const vec3 *normals;   /* input normals, or NULL: the mesh's */
} mr_skin_opts;

/* One skin matrix in the form dual-quaternion skinning uses, as the
 * renderer uploads it (shaders/skin.glsl, eight texels): real part (x, y,
 * z, w), dual part, the three columns of S (w 0; exactly the identity for
 * a rigid matrix), flags (x = 1: mirroring, y = 1: S is not the identity,
 * z = the joint's dual-quaternion share, 1 here: the caller sets a mask's),
 * and 8 floats of padding. */
void mr_mesh_dq_joint(const mat4 skin, float out[32]);

/* mr_mesh_skin with options (NULL: all defaults, exactly mr_mesh_skin).
 * Inputs and outputs may be the same arrays. A static mesh copies its
 * inputs. */
void mr_mesh_skin_with(const mr_mesh *mesh, const mat4 *skin, const mr_skin_opts *opts, vec3 *out_pos,
                       vec3 *out_nrm);

#endif
