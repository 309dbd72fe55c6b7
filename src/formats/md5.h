/* md5.h — id Tech 4 MD5 models: .md5mesh (skeleton + meshes) and .md5anim
 * (one clip each), read and write.
 *
 * MD5 has no declared frame; it follows id Tech 4: Z-up, units of inches.
 * The loader keeps those coordinates (model->frame = {MR_UP_Z, 0.0254}).
 *
 * Errors are one line: "md5: FILE:LINE: expected X, found Y". On failure
 * nothing is leaked and *out stays NULL (or the model is left unchanged, for
 * anims). Parsing never allocates more than the file's own size justifies.
 */
#ifndef MR_FORMATS_MD5_H
#define MR_FORMATS_MD5_H

#include <stddef.h>

#include "anim/model.h"

/* Reads an .md5mesh file into a new model (caller frees with mr_model_free). */
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
 * by the caller). An anim is written from the clip sampled at its rate (or
 * 30 fps when it has none). */
mr_status mr_md5_write_mesh(const mr_model *model, const char *path, mr_error *err);
mr_status mr_md5_write_anim(const mr_model *model, const mr_clip *clip, const char *path,
                            mr_error *err);

#endif
