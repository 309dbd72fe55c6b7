/* gltf.h — glTF 2.0 reader (.gltf and .glb) into mr_model.
 *
 * READING
 *
 * Containers. A .glb (12-byte header, JSON chunk first, the first BIN chunk
 *   is buffer 0's data; other chunk types skipped) or a .gltf (JSON). The
 *   header's length must equal the file's; a chunk longer than what follows
 *   is refused. JSON is parsed by the reader's own parser (gltf_json.c),
 *   which accepts exactly what jansson does (duplicate keys refused, 2048
 *   levels at most); syntax errors give jansson's line and column (a
 *   refused JSON is parsed again by jansson for the message). asset.version
 *   must be 2.x.
 *
 * Buffers and images. A uri is a data: URI (base64 only; media type
 *   ignored) or a relative path, percent-decoded, read from the model's own
 *   folder: absolute paths, schemes ("http:", "file:", "C:") and any ".."
 *   segment are refused, so nothing outside that folder is ever read. A
 *   buffer's byteLength must not exceed what its data holds (GLB BIN chunk,
 *   decoded data: URI, external file); only byteLength bytes are read.
 *   Buffers are read when first used: an EXT_meshopt_compression fallback
 *   buffer without data is fine as long as only compressed views use it.
 *   Images: external files (path kept for the renderer), or embedded (a
 *   bufferView of the .glb, or a data: URI): the encoded bytes go into
 *   mr_material.diffuse_bytes / normal_bytes and the map's name is
 *   "FILE#/images/N" (the renderer decodes PNG/JPEG with stb_image).
 *
 * Accessors. All component types; normalized integers map to [0,1] and
 *   [-1,1] (max(c/127, -1) for bytes, as the spec says); integers that are
 *   not normalized are read by value (KHR_mesh_quantization positions, the
 *   dequantization then lives in node transforms or inverse binds); byteStride;
 *   sparse accessors (indices strictly increasing and in range; no bufferView
 *   means zeros under the sparse values). Every element is checked to lie
 *   inside its buffer view and every view inside its buffer; floats must be
 *   finite (NaN/inf refused); min/max are ignored (never trusted).
 *   EXT_meshopt_compression buffer views are decoded with Debian's
 *   libmeshoptimizer (ATTRIBUTES, TRIANGLES, INDICES; filters OCTAHEDRAL,
 *   QUATERNION, EXPONENTIAL): what `gltfpack -c` writes.
 *   KHR_draco_mesh_compression is refused with a message.
 *
 * Scene. The document's "scene" (else scenes[0]; without scenes every
 *   parentless node, with a warning). Children lists must form a forest:
 *   a node with two parents, a node that is its own ancestor (cycle) or a
 *   scene root that has a parent is refused. Nodes use "matrix" (column
 *   major) or translation/rotation/scale (rotation normalised; a zero
 *   quaternion refused); a matrix with shear is approximated by TRS with a
 *   warning.
 *
 * Skeleton. Joints are the nodes the drawing needs: every node of the scene
 *   holding a mesh, every joint of the skins those nodes use, and every
 *   ancestor of those (non-joint nodes inside a joint hierarchy, and joints
 *   that are not one subtree, therefore work: their common ancestors come
 *   along). Depth-first in the file's children order from the scene roots
 *   (parent before child). A skin joint outside the scene brings its whole
 *   node tree, with a warning. Names: the node's name, else "node<N>",
 *   made unique with "#2", "#3". The rest pose is each node's transform.
 *
 * Skins. A joint's inverse bind is that of the first skin (in depth-first
 *   node order) listing it, from inverseBindMatrices, or identity when the
 *   skin has none (as the spec says); joints no skin lists get the inverse
 *   of their rest world transform. Skinned vertices stay as the file has
 *   them (the skinned node's own transform is ignored, as the spec says),
 *   so marrow's skin = model * inverse_bind is glTF's jointMatrix. A skin
 *   that binds a joint with another inverse bind than the first (skins
 *   sharing joints in different poses) has its vertices re-expressed in the
 *   skeleton's bind space (exact when a vertex's joints agree; otherwise a
 *   weighted average and one warning). JOINTS_n/WEIGHTS_n for n = 0..3 (up
 *   to 16 influences) go through mr_mesh_pack_influences: zero or negative
 *   weights dropped, more than 8 keep the 8 heaviest, weights renormalised
 *   to sum 1 (so weights that do not sum to 1 are fine); a vertex without
 *   any positive weight is bound to its first joint (counted in a warning).
 *   A JOINTS value with a positive weight past the skin's joint count is
 *   refused.
 *
 * Meshes. Each primitive of each mesh node becomes one mr_mesh named after
 *   the mesh ("name/k" when it has several primitives). TRIANGLES,
 *   TRIANGLE_STRIP (alternate windings fixed) and TRIANGLE_FAN; POINTS and
 *   LINES* are skipped with a warning. Indices past the vertex count are
 *   refused. NORMAL is normalised (computed smooth when absent); TEXCOORD_n
 *   is the set the base colour texture names (0 by default), v flipped to
 *   OpenGL's convention (v' = 1 - v). Meshes without a skin are rigidly
 *   bound (weight 1) to their node's joint, placed at the node's rest world
 *   transform: node animation moves them. A primitive of a skinned node
 *   without JOINTS_0/WEIGHTS_0 is drawn rigidly too (warning). Morph
 *   targets (anim/morph.h): POSITION and NORMAL deltas of every target,
 *   moved with the base vertices where those are placed; the mesh's
 *   `weights` as defaults (zeros without); names from the mesh's
 *   extras.targetNames ("target<K>" without). Refused, with the JSON path:
 *   primitives of one mesh with different target counts, `weights` of
 *   another length, non-finite deltas or weights. A primitive without the
 *   targets its mesh's others have is drawn unmorphed (warning, with its
 *   path). Animation channels on "weights" become the clip's morph weight
 *   tracks, one per mesh the node placed, with their interpolation; a
 *   channel on a node without targets is dropped (warning).
 *
 * Materials (mapping onto marrow's Blinn-Phong renderer):
 *   diffuse   = pbrMetallicRoughness.baseColorFactor (RGBA), times the
 *               baseColorTexture when there is one (diffuse_map)
 *   ambient   = 0.2 x baseColor
 *   specular  = (0.04 (1 - metallic) + baseColor x metallic) x (1 - 0.75 roughness)
 *   shininess = 2 / a^2 - 2 with a = max(roughness^2, 0.03), clamped to [2, 256]
 *               (the Blinn-Phong exponent matching GGX's highlight width)
 *   emission  = emissiveFactor
 *   normalTexture -> normal_map. Texture transforms, occlusion, alpha modes
 *   and other extensions are ignored.
 *
 * Animations. Every animation becomes a clip named after it
 *   ("animation<N>" when unnamed; duplicates get "#2"), with every channel
 *   whose node is a skeleton joint (channels on other nodes cannot move
 *   anything drawn and are skipped). LINEAR (rotations slerped, see
 *   clip.h), STEP and CUBICSPLINE (marrow's CUBIC has glTF's in-tangent,
 *   value, out-tangent layout, tangents scaled by the key interval as the
 *   spec's section 3.11 says) are kept key for key. Times must not go
 *   backwards; a key at the same time as the one before is dropped (warning).
 *   LINEAR/STEP rotation keys are normalised. Clip time is document time:
 *   the clip lasts until its last key time; `rate` is set when every
 *   track's keys share one spacing.
 *
 * Axes. glTF is Y-up, metres, right-handed, +Z forward: marrow's own
 *   convention, so nothing is converted (model->frame = Y-up, 1 m) and
 *   `info` says "glTF: Y-up metres, +Z forward".
 *
 * Errors. Malformed input fails with MR_ERR_BAD_FILE (MR_ERR_IO for a
 *   missing or unreadable external file, MR_ERR_LIMIT beyond a limit) and
 *   one line naming the file, the JSON path and what was expected:
 *     gltf: FILE: /accessors/12: 40 elements of 12 bytes (stride 12) from byteOffset 0 run past the end of bufferView 3 (96 bytes)
 *     gltf: FILE: line 3, column 7: ... (expected glTF JSON or a .glb)
 *   Memory: everything allocated from counts in the file is charged to a
 *   budget of GL_BUDGET_FACTOR (6) x (file + external buffers) + 2 MiB
 *   (gltf_internal.h); a 4 GB count in a tiny file is refused with
 *   MR_ERR_LIMIT before anything of that size is asked for. A JSON whose
 *   value count alone would outgrow that budget (counted at 96 bytes per
 *   value; the tree costs 32) is refused before parsing.
 *
 * Speed. The JSON is parsed in place into one arena dropped whole after
 *   the load (no allocation per value; reals are converted only when read;
 *   nothing goes through jansson unless the JSON is refused). Each accessor and buffer
 *   view header is read from the JSON once per load, and tightly packed
 *   FLOAT / UNSIGNED_INT accessor data is read where it lies in the buffer.
 *   Embedded images are copied as encoded bytes, never decoded at load
 *   (the renderer decodes them when it uploads).
 */
#ifndef MR_FORMATS_GLTF_H
#define MR_FORMATS_GLTF_H

#include <stddef.h>

#include "anim/model.h"

/* Reads the .gltf or .glb at path into a new model (*out; free with
 * mr_model_destroy). External buffers and images are looked up beside it. On
 * failure *out stays NULL and err says why (see above). */
mr_status mr_gltf_load(const char *path, mr_model **out, mr_error *err);

/* Same from memory: name is used in messages, as model->path, and its
 * folder is where external URIs are read from; buf holds len bytes and is
 * only read during the call. */
mr_status mr_gltf_parse(const char *name, const void *buf, size_t len, mr_model **out, mr_error *err);

#endif
