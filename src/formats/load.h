/* load.h — load any supported model by file extension.
 *
 *   .md5mesh  MD5 mesh, plus any .md5anim files in anims
 *   .dae      COLLADA (anims must be empty: clips come from the file)
 *   .gltf .glb  glTF 2.0 (anims must be empty: clips come from the file)
 *
 * On success *out owns a new model; on failure *out is NULL and err says why.
 */
#ifndef MR_FORMATS_LOAD_H
#define MR_FORMATS_LOAD_H

#include "anim/model.h"

mr_status mr_model_load(const char *path, const char *const *anims, int anim_count,
                        mr_model **out, mr_error *err);

#endif
