/* load.h — load any supported model by file extension.
 *
 *   .md5mesh     MD5 mesh, plus any .md5anim files in anims
 *   .dae         COLLADA (collada.h)
 *   .gltf .glb   glTF 2.0 (gltf.h)
 *   .fbx         FBX, binary and ASCII (fbx.h), plus any .fbx motions in anims
 *                (mr_fbx_load_anims: a Mixamo motion "without skin")
 *   .bvh         BVH motion capture: skeleton and one clip, no mesh (bvh.h)
 *
 * Only MD5 and FBX take anim files: the other formats bring their own
 * clips, and extra anims given with them are refused. On success *out owns a new model;
 * on failure *out is NULL and err says why.
 *
 * Loads go through the binary cache (cache.h): when a valid cache file for
 * this path and these anims exists the model comes from it (the same model,
 * read in one go); otherwise it is loaded from the source and the cache
 * file written. MARROW_CACHE=0 or mr_cache_configure turn that off.
 */
#ifndef MR_FORMATS_LOAD_H
#define MR_FORMATS_LOAD_H

#include "anim/model.h"

/* Untrusted hosts (a sandboxed script, so every scene of marrow test) turn
 * this on for the rest of the process: a model or anim file that is a link
 * out of its own folder is then refused (MR_ERR_BAD_FILE) before anything
 * reads it. Off by default: a user's own command-line loads and --trust
 * scripts follow links (a folder of takes linked from a library). */
void mr_load_refuse_links_out(int on);

mr_status mr_load_model(const char *path, const char *const *anims, int anim_count,
                        mr_model **out, mr_error *err);

/* mr_load_model without waiting for the packs (anim/clip_runtime.h) to
 * write the cache file, which holds them: *later gets what writing it
 * takes (NULL when there is nothing to write: a cache hit, the cache off,
 * a failed load), for mr_load_finish once the model's clips are settled or
 * when the caller is about to free the model. mr_load_model itself writes
 * the file before it returns (waiting for the packs). */
typedef struct mr_load_later mr_load_later;
mr_status mr_load_model_later(const char *path, const char *const *anims, int anim_count, mr_model **out,
                              mr_load_later **later, mr_error *err);
/* Writes the cache file of a load (waiting for model's packs, building
 * them here when the worker has not started them) and frees later; model
 * NULL: only frees it. Takes NULL. */
void mr_load_finish(mr_load_later *later, const mr_model *model);

#endif
