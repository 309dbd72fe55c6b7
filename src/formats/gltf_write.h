/* gltf_write.h — writing a model as glTF 2.0: .gltf (+ .bin) or .glb.
 *
 * mr_gltf_write(model, path) picks the container from path's extension:
 *   .gltf  the JSON document at path and every binary byte in STEM.bin
 *          beside it (STEM = the file name without its extension, every
 *          character but A-Z a-z 0-9 - . _ ~ replaced by '_', so the uri
 *          needs no percent-encoding: assimp 5.2 does not decode it);
 *   .glb   one binary container: the 12-byte header, the JSON chunk (padded
 *          with spaces) and the BIN chunk (padded with zeros) holding the
 *          buffer.
 * Any other extension is MR_ERR_INVALID_ARGUMENT.
 *
 * Frame. glTF is Y-up, metres, right-handed (+Z forward). The model must
 * already be in that frame (model->frame = {MR_UP_Y, 1}): convert it with
 * mr_axes_convert_model (anim/frame.h) first, as `marrow convert` does; a
 * model in any other frame is refused (MR_ERR_INVALID_ARGUMENT), never
 * written with wrong numbers.
 *
 * What is written (JSON by jansson; one buffer, one bufferView per accessor,
 * tightly packed, every view 4-byte aligned; little-endian):
 *   nodes       node j is joint j (name; translation / rotation / scale of
 *               its rest pose, each left out when it is the identity;
 *               children in joint order), then one node per written mesh
 *               at the scene root without a transform (skinned meshes
 *               carry "skin": 0). scenes[0] (the default "scene") lists the
 *               root joints, then the mesh nodes.
 *   skin        one, when any mesh is skinned: joints = every joint node in
 *               joint order (so a JOINTS_n value is the joint index),
 *               inverseBindMatrices = the skeleton's inverse binds (MAT4,
 *               column-major as cglm keeps them), skeleton = the root joint
 *               when there is exactly one.
 *   meshes      one mesh with one TRIANGLES primitive per mr_mesh that has
 *               vertices and triangles (others are left out): POSITION
 *               (with min/max), NORMAL, TEXCOORD_0 (v flipped: glTF's origin
 *               is the image's top-left, marrow's its bottom-left),
 *               JOINTS_0 / WEIGHTS_0 for skinned meshes, and JOINTS_1 /
 *               WEIGHTS_1 when a vertex uses more than 4 influences
 *               (mr_mesh_influence_count); joints as UNSIGNED_BYTE up to 256
 *               joints, else UNSIGNED_SHORT; weights FLOAT; indices
 *               UNSIGNED_SHORT when every index fits below 65535, else
 *               UNSIGNED_INT.
 *   materials   one per written mesh, pbrMetallicRoughness:
 *               baseColorFactor = diffuse RGBA, metallicFactor 0,
 *               roughnessFactor = sqrt(2 / (shininess + 2)) (the usual
 *               Blinn-Phong exponent to GGX roughness mapping), the diffuse
 *               map as baseColorTexture and the normal map as normalTexture,
 *               emissiveFactor when the emission is not black, alphaMode
 *               BLEND when the diffuse alpha is below 1.
 *   images      one per distinct map path. In a .gltf a PNG or JPEG file
 *               (told by its first bytes) is referenced by its path relative
 *               to the written file (percent-encoded); in a .glb it is
 *               embedded (bufferView + mimeType). Other formats (TGA, BMP,
 *               ...: not allowed by glTF) are decoded with stb_image and
 *               embedded as PNG in either container. A map that cannot be
 *               read keeps its relative uri.
 *   animations  one per clip, named after it. Every track with keys becomes
 *               a sampler and a channel (translation / rotation / scale of
 *               the joint's node): LINEAR and STEP key for key (rotations
 *               normalised), CUBIC as CUBICSPLINE (marrow's cubic layout is
 *               glTF's: in-tangent, value, out-tangent per key). Key times
 *               carry min/max. A clip without any key gets one channel
 *               holding joint 0's rest translation at 0 and its duration
 *               (glTF needs a channel). extras keep what glTF has no place
 *               for: "duration" when it is past the last key, "rate" when
 *               the clip has one, "markers" [{time, name}].
 * Floats in the JSON are written with the fewest digits that read back as
 * the same float. Output is deterministic: the same model writes the same
 * bytes.
 *
 * Errors: MR_ERR_INVALID_ARGUMENT for a model that cannot be written (frame,
 * invalid skeleton, a weighted joint index out of range), MR_ERR_NO_MEMORY,
 * MR_ERR_IO from writing; messages start "gltf: PATH: ".
 */
#ifndef MR_FORMATS_GLTF_WRITE_H
#define MR_FORMATS_GLTF_WRITE_H

#include "anim/model.h"

/* Writes model to path (.gltf or .glb, see above). model is only read. On
 * failure a partly written file may remain. */
mr_status mr_gltf_write(const mr_model *model, const char *path, mr_error *err);

#endif
