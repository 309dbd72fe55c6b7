/* textures.h — the texture files a written model refers to, put beside it.
 *
 * A written MD5 names a texture by its base name, looked up beside the mesh;
 * a written COLLADA document names a path, and every loader reads a texture
 * only inside the model's own folder. So a model written somewhere else views
 * like the source only when its textures lie beside it: `marrow convert` and
 * marrow.save (formats/save.h) both copy them with this call.
 */
#ifndef MR_FORMATS_TEXTURES_H
#define MR_FORMATS_TEXTURES_H

#include "anim/model.h"

/* What mr_textures_copy reports per texture: copied is the file written
 * (NULL when it failed), warning the reason it was not (NULL when it was). */
typedef void (*mr_textures_note)(void *user, const char *copied, const char *warning);

/* Copies each texture file the meshes' materials name (diffuse and normal
 * maps; images held in memory are the writer's) into out_dir under its base
 * name, unless a file of that name is there already. A texture is read as
 * the renderer reads it: a regular file inside the folder of model->path
 * (a link out of it is not copied). With redirect, each material whose
 * texture now lies in out_dir names that copy (for writers that write the
 * path, COLLADA). Returns the number of files written; note (may be NULL)
 * hears of each copy and each failure, which leaves that material as it
 * was. */
int mr_textures_copy(mr_model *model, const char *out_dir, int redirect, mr_textures_note note, void *user);

#endif
