/* textures.c — texture files copied beside a written model (textures.h). */
#include "formats/textures.h"

#include <stdlib.h>

#include "core/file.h"
#include "core/path.h"

int mr_textures_copy(mr_model *m, const char *out_dir, int redirect, mr_textures_note note, void *user)
{
    int written = 0;
    char *src_dir = m->path ? mr_file_model_dir(m->path) : NULL;
    for (int i = 0; i < m->mesh_count; i++) {
        mr_material *mat = &m->meshes[i].material;
        char **slots[2] = {&mat->diffuse_map, &mat->normal_map};
        const unsigned char *held[2] = {mat->diffuse_bytes, mat->normal_bytes};
        for (int k = 0; k < 2; k++) {
            const char *map = *slots[k];
            if (!map || held[k] || !mr_file_exists(map)) continue;
            char *dst = mr_path_join(out_dir, mr_path_basename(map));
            int there = dst && mr_file_exists(dst);
            if (dst && !there) {
                size_t len;
                mr_error err = {0};
                char *data = src_dir ? mr_file_read_inside(src_dir, map, &len, &err) : NULL;
                if (data && mr_file_write(dst, data, len, &err) == 0) {
                    written++;
                    there = 1;
                    if (note) note(user, dst, NULL);
                } else if (note) {
                    note(user, NULL, src_dir ? err.msg : "no source folder");
                }
                free(data);
            }
            if (redirect && there) {
                free(*slots[k]);
                *slots[k] = dst;
                dst = NULL;
            }
            free(dst);
        }
    }
    free(src_dir);
    return written;
}
