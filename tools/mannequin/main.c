/* main.c — `make-mannequin DIR` (build/release/tools/make-mannequin): writes
 * marrow's own model (mannequin.h) and its sword prop as MD5 files. `make models` runs it into
 * models/, whose files are committed; the output is the same bytes on every
 * run, so regenerating them shows no diff unless the generator changed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <stb_image_write.h>

#include "core/path.h"
#include "core/str.h"
#include "formats/md5.h"
#include "mannequin/mannequin.h"

static const char make_mannequin_help[] =
    "usage: make-mannequin DIR\n"
    "\n"
    "Builds marrow's mannequin by code and writes DIR/mannequin.md5mesh, one\n"
    "anim per clip (DIR/idle.md5anim, walk, wave, run, walk_inplace,\n"
    "run_inplace), the mannequin with a ponytail (DIR/mannequin_tail.md5mesh,\n"
    "for spring chains) and a prop to hold,\n"
    "DIR/sword.md5mesh, with a small colour texture per mesh (DIR is created\n"
    "when missing; existing files are replaced). MD5's frame: Z up, inches,\n"
    "facing +X, about 70 in tall. The output is identical on every run.\n"
    "Exit codes: 0 ok, 1 a file could not be written, 2 usage.\n";

/* mkdir -p: creates dir and its missing parents. 0 or -1 (errno set). */
static int make_dirs(const char *dir)
{
    char *p = mr_str_dup(dir);
    if (!p) {
        errno = ENOMEM;
        return -1;
    }
    int rc = 0;
    for (char *c = p + 1; rc == 0; c++) {
        int end = *c == '\0';
        if (*c != '/' && !end) continue;
        *c = '\0';
        struct stat st;
        if (stat(p, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) {
                errno = ENOTDIR;
                rc = -1;
            }
        } else if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            rc = -1;
        }
        if (end) break;
        *c = '/';
    }
    free(p);
    return rc;
}

/* An 8x8 image of one colour (linear RGB in 0..1, stored as 8-bit). */
static int write_colour_png(const char *path, const float rgb[4])
{
    unsigned char pixels[8 * 8 * 3];
    for (int i = 0; i < 8 * 8; i++)
        for (int c = 0; c < 3; c++) {
            float v = rgb[c] < 0 ? 0 : rgb[c] > 1 ? 1 : rgb[c];
            pixels[3 * i + c] = (unsigned char)(v * 255.0f + 0.5f);
        }
    return stbi_write_png(path, 8, 8, 3, pixels, 8 * 3) ? 0 : -1;
}

/* Writes DIR/NAME.md5mesh and one small texture per mesh of m,
 * DIR/NAME_MESH.png: MD5 keeps no colours, only a texture per mesh (its
 * shader), so each mesh's colour becomes an image beside the mesh. */
static int write_mesh(const char *dir, mr_model *m, const char *name)
{
    for (int i = 0; i < m->mesh_count; i++) {
        mr_mesh *mesh = &m->meshes[i];
        char *png = mr_str_fmt("%s_%s.png", name, mesh->name);
        char *path = png ? mr_path_join(dir, png) : NULL;
        if (!path || write_colour_png(path, mesh->material.diffuse) != 0) {
            fprintf(stderr, "make-mannequin: cannot write %s\n", path ? path : "(out of memory)");
            free(png);
            free(path);
            return MR_EXIT_FAILED;
        }
        printf("wrote %s\n", path);
        free(mesh->material.diffuse_map);
        mesh->material.diffuse_map = png;
        free(path);
    }
    char *file = mr_str_fmt("%s.md5mesh", name);
    char *path = file ? mr_path_join(dir, file) : NULL;
    free(file);
    mr_error err = {0};
    int code = MR_EXIT_OK;
    if (!path || mr_md5_write_mesh(m, path, &err) != MR_OK) {
        fprintf(stderr, "make-mannequin: %s\n", path ? err.msg : "out of memory");
        code = MR_EXIT_FAILED;
    } else {
        int verts, tris;
        mr_model_counts(m, &verts, &tris);
        printf("wrote %s (%d joints, %d meshes, %d vertices, %d triangles)\n", path,
               m->skeleton.joint_count, m->mesh_count, verts, tris);
    }
    free(path);
    return code;
}

/* Prints "make-mannequin: MESSAGE" and a pointer to --help; the usage exit code. */
static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "make-mannequin: %s%s%s%s\nsee 'make-mannequin --help'\n", msg,
            arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
    return MR_EXIT_USAGE;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(make_mannequin_help, stdout);
        return MR_EXIT_OK;
    }
    if (argc != 2 || argv[1][0] == '\0') return usage_error(argc < 2 ? "missing DIR" : "expected one DIR", NULL);
    if (argv[1][0] == '-') return usage_error("unknown option", argv[1]);
    const char *dir = argv[1];
    if (make_dirs(dir) != 0) {
        fprintf(stderr, "make-mannequin: cannot create directory %s: %s\n", dir, strerror(errno));
        return MR_EXIT_FAILED;
    }
    mr_model *m = NULL;
    mr_mannequin_build(&m);
    if (!m) {
        fprintf(stderr, "make-mannequin: out of memory\n");
        return MR_EXIT_FAILED;
    }
    int code = write_mesh(dir, m, "mannequin");
    mr_error err = {0};
    char *path;
    if (code == MR_EXIT_OK) {
        mr_model *sword = NULL;
        mr_mannequin_sword(&sword);
        if (!sword) {
            fprintf(stderr, "make-mannequin: out of memory\n");
            code = MR_EXIT_FAILED;
        } else {
            code = write_mesh(dir, sword, "sword");
            mr_model_destroy(sword);
        }
    }
    if (code == MR_EXIT_OK) {
        mr_model *tail = NULL;
        mr_mannequin_ponytail(&tail);
        if (!tail) {
            fprintf(stderr, "make-mannequin: out of memory\n");
            code = MR_EXIT_FAILED;
        } else {
            code = write_mesh(dir, tail, "mannequin_tail");
            mr_model_destroy(tail);
        }
    }
    for (int i = 0; code == MR_EXIT_OK && i < m->clip_count; i++) {
        const mr_clip *clip = m->clips[i];
        char *name = mr_str_fmt("%s.md5anim", clip->name);
        path = name ? mr_path_join(dir, name) : NULL;
        free(name);
        if (!path || mr_md5_write_anim(m, clip, path, &err) != MR_OK) {
            fprintf(stderr, "make-mannequin: %s\n", path ? err.msg : "out of memory");
            code = MR_EXIT_FAILED;
        } else {
            printf("wrote %s (%s, %d frames at %g fps, %g s)\n", path, clip->name,
                   mr_clip_key_count(clip), clip->rate, clip->duration);
        }
        free(path);
    }
    mr_model_destroy(m);
    return code;
}
