/* mesh.h — skinned triangle meshes and their materials, and CPU skinning.
 *
 * Every vertex carries up to 4 joint influences (joints[i][k], weights[i][k],
 * weights summing to 1, unused slots joint 0 weight 0): exactly what the
 * renderer uploads. Loaders reduce more influences with
 * mr_influences_pack. A mesh with joints == NULL is static: it is drawn
 * with the model's display transform only.
 */
#ifndef MR_ANIM_MESH_H
#define MR_ANIM_MESH_H

#include <stdint.h>

#include "anim/skeleton.h"

#define MR_MAX_INFLUENCES 4

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
} mr_material;

typedef struct mr_mesh {
    char *name;
    int vertex_count;
    int index_count;     /* multiple of 3 */
    vec3 *positions;     /* bind pose, model space */
    vec3 *normals;       /* unit length */
    vec2 *uvs;           /* always present (zeros when none); OpenGL convention:
                          * (0,0) is the image's bottom-left, v = 1 its top row */
    uint16_t (*joints)[MR_MAX_INFLUENCES];  /* NULL for a static mesh */
    vec4 *weights;       /* NULL for a static mesh */
    uint32_t *indices;   /* triangles, counter-clockwise front faces */
    mr_material material;
} mr_mesh;

/* Allocates vertex and index arrays (zeroed; skinned adds joints/weights).
 * The material gets defaults (light grey, shininess 32). */
mr_status mr_mesh_alloc(mr_mesh *mesh, int vertex_count, int index_count, int skinned);
void mr_mesh_destroy(mr_mesh *mesh);
void mr_material_defaults(mr_material *mat);

/* Area-weighted smooth normals from positions and indices. */
void mr_mesh_compute_normals(mr_mesh *mesh);

/* Keeps the MR_MAX_INFLUENCES heaviest of n influences (ties: lower joint
 * index first), drops non-positive weights, renormalises to sum 1. Returns 1
 * when influences were cut (n > 4 non-zero), 0 otherwise, -1 when no weight
 * is positive (out_j/out_w then bind fully to joints[0] or joint 0). */
int mr_influences_pack(const int *joints, const float *weights, int n,
                       uint16_t out_j[MR_MAX_INFLUENCES], float out_w[MR_MAX_INFLUENCES]);

/* Linear blend skinning on the CPU with skin matrices from mr_pose_skinning:
 * out_pos/out_nrm get vertex_count entries (caller-owned). A static mesh is
 * copied unchanged. */
void mr_mesh_skin(const mr_mesh *mesh, const mat4 *skin, vec3 *out_pos, vec3 *out_nrm);

#endif
