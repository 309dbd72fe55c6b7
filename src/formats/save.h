/* save.h — writing a model with chosen clips, the writer picked by the
 * path's extension (what marrow.save does, issue 28).
 *
 *   .glb / .gltf   gltf_write.h (Y-up metres; .gltf also writes STEM.bin)
 *   .dae           collada_write.h (every clip in one document)
 *   .md5mesh       md5 mesh, plus one CLIP.md5anim per clip beside it
 *   .md5anim       exactly one clip (the mesh is not written)
 *   .bvh           the skeleton and exactly one clip, Y-up centimetres
 *                  (bvh_write.h; no mesh)
 *
 * The live model is never touched and its file is not read again: a deep
 * copy of it (mr_model_copy, anim/model.h) with copies of `clips` as its
 * clips is converted to the format's axes and written. A file edited on
 * disk since the model was loaded changes nothing. Each file goes through
 * mr_file_write, all of them in one batch (core/file.h,
 * mr_file_batch_begin): temporary files renamed into place only once every
 * one was written, so a failed save leaves no file behind, not even the
 * mesh of a .md5mesh save.
 *
 * Textures: .dae and .md5mesh get copies of the texture files the model's
 * materials name beside them (formats/textures.h; the .dae names the
 * copies), .glb and .gltf embed what lies outside their folder (gltf_write.h),
 * so a saved file views like the live model from any folder; *written
 * counts the texture files too.
 *
 * Refused before anything is written (MR_ERR_INVALID_ARGUMENT, err names
 * the argument and what the format holds): an unknown extension; .md5anim
 * with other than one clip; MD5 with a scale key other than 1 (MD5 joints
 * are rotation + position: "clip 'c', joint 'j': scale keys"); a clip of
 * another skeleton (joint count); .bvh with other than one clip or with
 * scale keys; a clip with morph weight tracks (anim/morph.h) in any format
 * but .glb / .gltf (MD5 and BVH have no morph targets; the COLLADA writer
 * does not write morph controllers yet): "opts.clips[i]: ... cannot hold
 * morph weight keys".
 *
 * MD5 and BVH hold frames at one rate, played linearly: the clip is
 * written at the lowest of rate * 2^k (k = 0..5; rate = the clip's, or 30)
 * whose frames reproduce it within half of 0.01 % of the model size,
 * measured in joint positions at every frame, between frames and at 121
 * even times (a recorded or linearly keyed clip stays at its rate; an eased
 * one may need more frames).
 */
#ifndef MR_FORMATS_SAVE_H
#define MR_FORMATS_SAVE_H

#include "anim/model.h"

/* Which writer path's extension picks: 0 none, else one of these. */
enum { MR_SAVE_NONE = 0, MR_SAVE_GLTF, MR_SAVE_COLLADA, MR_SAVE_MD5MESH, MR_SAVE_MD5ANIM, MR_SAVE_BVH };
int mr_save_kind(const char *path);

/* Checks that the format of path can hold clips (see above) without
 * writing anything. */
mr_status mr_save_check(const char *path, const mr_clip *const *clips, int clip_count, mr_error *err);

/* Writes model with clips (clip_count may be 0) to path. On success
 * *written (may be NULL) gets the number of files written. */
mr_status mr_save_model(const mr_model *model, const mr_clip *const *clips, int clip_count, const char *path,
                        int *written, mr_error *err);

#endif
