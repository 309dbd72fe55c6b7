/* gltf_write_vrm.h — internal to the glTF writer: a model's VRM data as
 * VRM 1.0 extensions (gltf_write_vrm.c). */
#ifndef MR_FORMATS_GLTF_WRITE_VRM_H
#define MR_FORMATS_GLTF_WRITE_VRM_H

#include <jansson.h>

#include "anim/model.h"

/* Adds m->vrm (nothing when NULL) to the document root: the extensions,
 * extensionsUsed, and VRMC_node_constraint on the constrained joints'
 * nodes (root's "nodes" must hold joint j as node j). mesh_node[i] is the
 * node of model mesh i, or -1 when the mesh is not written. */
void mr_gltf_write_vrm(json_t *root, const mr_model *m, const int *mesh_node);

#endif
