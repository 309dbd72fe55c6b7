/* md5.h — id Tech 4 MD5 models: .md5mesh (skeleton + meshes) and .md5anim
 * (one clip each), read and write.
 *
 * MD5 has no declared frame; it follows id Tech 4: Z-up, units of inches.
 * The loader keeps those coordinates (model->frame = {MR_UP_Z, 0.0254}).
 *
 * Errors are one line: "md5: FILE:LINE: expected X, found Y". On failure
 * nothing is leaked and *out stays NULL (or the model is left unchanged, for
 * anims). Parsing never allocates more than the file's own size justifies.
 * Accepted with a warning "FILE:LINE: ..." (the meaning is unambiguous and
 * nothing is read past what the file holds):
 * - an anim's bounds block with more or fewer entries than numFrames (a
 *   Blender exporter for Sauerbraten models writes one more): the block
 *   ends at its '}', each entry is two "( x y z )", and marrow uses no
 *   bounds (view and the writers compute their own), so extra entries are
 *   skipped and missing ones are not needed;
 * - text after the last mesh or frame (below).
 * Refused, because the count is what says where data ends or what indices
 * may point at: every other count that disagrees with the entries (joints,
 * meshes, verts, tris, weights, frames, hierarchy, baseframe, numbers in a
 * frame), an index out of range, a bounds entry that is not two triples,
 * a bounds block without its '}'.
 *
 * What the reader does with the file (src/formats/md5_mesh.c, md5_anim.c):
 * - joints are the model-space bind: the skeleton gets the local rest pose
 *   derived from them and inverse_bind = inverse of the file's matrices;
 *   quaternions get w = -sqrt(1 - x²-y²-z²);
 * - vertices: bind position from the weight formula, influences packed to 8
 *   (mr_mesh_pack_influences: equal weights at the cut go to the joint nearer
 *   the vertex, then by name; one model warning counts the vertices cut,
 *   another those whose biases did not sum to 1); triangles turned
 *   counter-clockwise; v' = 1 - v; smooth normals;
 * - a mesh is named after its shader's base name ("mesh<i>" without one);
 *   the diffuse map is that base name found beside the .md5mesh, as is or
 *   with .png/.tga/.jpg, in any letter case (a warning when none exists),
 *   the normal map <stem>_normal.* or <stem>_local.* beside it;
 * - an anim's frame i is a key at i / frameRate (linear); channel groups
 *   without animated components get one key from the baseframe;
 * - text after the last mesh or frame (other than another "mesh"/"frame")
 *   is ignored with a warning: real exporters leave such fragments.
 */
#ifndef MR_FORMATS_MD5_H
#define MR_FORMATS_MD5_H

#include <stddef.h>

#include "anim/model.h"

/* Reads an .md5mesh file into a new model (caller frees with mr_model_destroy). */
mr_status mr_md5_load_mesh(const char *path, mr_model **out, mr_error *err);
/* Same from memory; name is used in messages and as model->path. text must
 * be NUL-terminated at text[len]. */
mr_status mr_md5_parse_mesh(const char *name, const char *text, size_t len,
                            mr_model **out, mr_error *err);

/* Reads an .md5anim and appends it to model as a clip named after the file's
 * base name. Refused when its hierarchy differs from model's skeleton (the
 * message names the first joint that differs). */
mr_status mr_md5_load_anim(mr_model *model, const char *path, mr_error *err);
mr_status mr_md5_parse_anim(mr_model *model, const char *name, const char *clip_name,
                            const char *text, size_t len, mr_error *err);

/* Writers. The model must be in MD5's frame (as loaded from MD5, or converted
 * by the caller). Joints come from inverse(inverse_bind), one weight per
 * positive influence; a model without a skeleton gets one "origin" joint.
 * An anim is written from the clip sampled at its rate (or 30 fps when it
 * has none) over [0, duration]: changing components are animated, the rest
 * go to the baseframe. MD5 cannot hold scale: bind or clip scale is dropped
 * and a comment in the file says so. Numbers read back as the same floats.
 * Files are replaced whole (mr_file_write); errors as for mr_file_write. */
mr_status mr_md5_write_mesh(const mr_model *model, const char *path, mr_error *err);
mr_status mr_md5_write_anim(const mr_model *model, const mr_clip *clip, const char *path,
                            mr_error *err);

#endif
