/* load.c — picks the loader by file extension (load.h). */
#include "formats/load.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "anim/clip_runtime.h"
#include "core/file.h"
#include "core/path.h"
#include "core/str.h"
#include "formats/bvh.h"
#include "formats/cache.h"
#include "formats/collada.h"
#include "formats/fbx.h"
#include "formats/gltf.h"
#include "formats/md5.h"

#define EXPECTED "expected .md5mesh, .dae, .gltf, .glb, .vrm, .fbx or .bvh"

/* The formats that bring their own clips, by extension. */
static const struct {
    const char *ext, *name;
    mr_status (*load)(const char *path, mr_model **out, mr_error *err);
} self_contained[] = {
    {"dae", "COLLADA", mr_collada_load},
    {"gltf", "glTF", mr_gltf_load},
    {"glb", "glTF", mr_gltf_load},
    {"vrm", "VRM", mr_gltf_load},
    {"bvh", "BVH", mr_bvh_load},
    {"fbx", "FBX", mr_fbx_load},
};

static mr_status load_md5(const char *path, const char *const *anims, int anim_count,
                          mr_model **out, mr_error *err)
{
    mr_model *m;
    mr_status st = mr_md5_load_mesh(path, &m, err);
    if (st != MR_OK) return st;
    for (int i = 0; i < anim_count; i++) {
        st = mr_md5_load_anim(m, anims[i], err);
        if (st != MR_OK) {
            mr_model_destroy(m);
            return st;
        }
    }
    *out = m;
    return MR_OK;
}

/* An FBX model and motions from other FBX files (fbx.h: mr_fbx_load_anims). */
static mr_status load_fbx(const char *path, const char *const *anims, int anim_count, mr_model **out,
                          mr_error *err)
{
    mr_model *m;
    mr_status st = mr_fbx_load(path, &m, err);
    if (st != MR_OK) return st;
    for (int i = 0; i < anim_count; i++) {
        char ext[16];
        mr_path_ext(anims[i], ext, sizeof ext);
        if (strcmp(ext, "fbx") != 0)
            st = mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                              "%s: motions for an FBX model come from FBX files (expected a .fbx file)", anims[i]);
        else
            st = mr_fbx_load_anims(m, anims[i], err);
        if (st != MR_OK) {
            mr_model_destroy(m);
            return st;
        }
    }
    *out = m;
    return MR_OK;
}

/* The source load: picks the reader by extension. */
static mr_status load_source(const char *path, const char *const *anims, int anim_count, mr_model **out,
                             mr_error *err)
{
    char ext[16];
    mr_path_ext(path, ext, sizeof ext);
    if (!ext[0])
        return mr_error_set(err, MR_ERR_BAD_FILE,
                            "%s: unsupported model format (no file extension; " EXPECTED ")", path);
    if (!strcmp(ext, "fbx") && anim_count > 0) return load_fbx(path, anims, anim_count, out, err);
    for (size_t i = 0; i < sizeof self_contained / sizeof self_contained[0]; i++) {
        if (strcmp(ext, self_contained[i].ext) != 0) continue;
        if (anim_count > 0)
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                "%s: a %s file brings its own clips; extra anim files (%s) are not "
                                "supported", path, self_contained[i].name, anims[0]);
        return self_contained[i].load(path, out, err);
    }
    if (!strcmp(ext, "md5anim"))
        return mr_error_set(err, MR_ERR_BAD_FILE,
                            "%s: an .md5anim holds clips without a skeleton's mesh (expected its "
                            ".md5mesh first, with this file among the anims)", path);
    if (strcmp(ext, "md5mesh") != 0)
        return mr_error_set(err, MR_ERR_BAD_FILE, "%s: unsupported model format '.%s' (" EXPECTED ")",
                            path, ext);
    return load_md5(path, anims, anim_count, out, err);
}

/* ---- source keys on demand (anim/clip.h: mr_clip_source) ---------------------- */

/* What reading a clip's keys again takes: the files it came from, as
 * given, their sizes and times then, and the clip's place in the model. */
typedef struct reload_ctx {
    char **files;        /* files[0] the model, then its anims */
    int count;
    int index;           /* the clip's index in the model */
    struct stat stamp[];  /* count entries */
} reload_ctx;

static void reload_ctx_free(void *p)
{
    reload_ctx *c = p;
    if (!c) return;
    for (int i = 0; i < c->count; i++) free(c->files[i]);
    free(c->files);
    free(c);
}

static mr_status reload_keys(mr_clip *clip, void *p, mr_error *err)
{
    const reload_ctx *c = p;
    for (int i = 0; i < c->count; i++) {
        struct stat st;
        if (stat(c->files[i], &st) != 0)
            return mr_error_set(err, MR_ERR_IO, "%s: cannot read the keys of clip '%s' again: the file is gone",
                                c->files[i], clip->name);
        if (st.st_size != c->stamp[i].st_size || st.st_mtim.tv_sec != c->stamp[i].st_mtim.tv_sec ||
            st.st_mtim.tv_nsec != c->stamp[i].st_mtim.tv_nsec)
            return mr_error_set(err, MR_ERR_BAD_FILE,
                                "%s: cannot read the keys of clip '%s' again: the file changed since it was loaded",
                                c->files[i], clip->name);
    }
    mr_model *m = NULL;
    mr_status st = load_source(c->files[0], (const char *const *)c->files + 1, c->count - 1, &m, err);
    if (st != MR_OK) return st;
    mr_clip *src = c->index < m->clip_count ? m->clips[c->index] : NULL;
    if (!src || src->joint_count != clip->joint_count || src->duration != clip->duration) {
        mr_model_destroy(m);
        return mr_error_set(err, MR_ERR_BAD_FILE, "%s: clip '%s' is not where it was when loaded", c->files[0],
                            clip->name);
    }
    mr_clip_cancel(src);   /* its own pack: not wanted */
    for (int j = 0; j < clip->joint_count; j++) {   /* the keys move over; the tracks stay where they are */
        clip->tracks[j] = src->tracks[j];
        memset(&src->tracks[j], 0, sizeof src->tracks[j]);
    }
    mr_model_destroy(m);
    return MR_OK;
}

/* Gives every clip of m the way back to its keys (anim/clip.h); without
 * memory a clip simply keeps its keys. */
static void give_reload(mr_model *m, const char *path, const char *const *anims, int anim_count)
{
    struct stat stamp[64];
    if (anim_count + 1 > 64) return;
    for (int i = -1; i < anim_count; i++)
        if (stat(i < 0 ? path : anims[i], &stamp[i + 1]) != 0) return;
    for (int k = 0; k < m->clip_count; k++) {
        mr_clip *clip = m->clips[k];
        if (clip->source_reload) continue;
        reload_ctx *c = calloc(1, sizeof *c + (size_t)(anim_count + 1) * sizeof(struct stat));
        if (!c) return;
        c->files = calloc((size_t)anim_count + 1, sizeof *c->files);
        c->index = k;
        for (int i = -1; c->files && i < anim_count; i++) {
            if (!(c->files[i + 1] = mr_str_dup(i < 0 ? path : anims[i]))) break;
            c->count++;
        }
        if (!c->files || c->count != anim_count + 1) {
            reload_ctx_free(c);
            return;
        }
        memcpy(c->stamp, stamp, (size_t)c->count * sizeof *stamp);
        clip->source_reload = reload_keys;
        clip->source_on_demand = mr_clip_keys_on_demand();
        clip->source_ctx = c;
        clip->source_ctx_free = reload_ctx_free;
    }
}

struct mr_load_later {
    mr_cache_session session;
};

static mr_status load_model(const char *path, const char *const *anims, int anim_count, mr_model **out,
                            mr_load_later **later, mr_error *err);

mr_status mr_load_model(const char *path, const char *const *anims, int anim_count,
                        mr_model **out, mr_error *err)
{
    return load_model(path, anims, anim_count, out, NULL, err);
}

mr_status mr_load_model_later(const char *path, const char *const *anims, int anim_count, mr_model **out,
                              mr_load_later **later, mr_error *err)
{
    *later = NULL;
    return load_model(path, anims, anim_count, out, later, err);
}

void mr_load_finish(mr_load_later *later, const mr_model *model)
{
    if (!later) return;
    mr_cache_end(&later->session, model);
    free(later);
}

static int refuse_links_out;   /* mr_load_refuse_links_out */

void mr_load_refuse_links_out(int on) { refuse_links_out = on != 0; }

static mr_status load_model(const char *path, const char *const *anims, int anim_count, mr_model **out,
                            mr_load_later **later, mr_error *err)
{
    if (out) *out = NULL;
    if (!path || !out || anim_count < 0 || (anim_count > 0 && !anims))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "load: no path, output or anim list");
    /* Every source is a regular file before anything (the cache included)
     * opens it: a FIFO or a device (../../dev/stdin) would block or never end. */
    for (int i = -1; i < anim_count; i++) {
        const char *p = i < 0 ? path : anims[i];
        struct stat st;
        if (stat(p, &st) == 0 && !S_ISREG(st.st_mode))
            return mr_error_set(err, MR_ERR_IO, "%s: not a regular file (expected a model file)", p);
        /* For an untrusted host, nor a link out of its own folder (a link
         * planted in a scene folder would have its target read, and its
         * first bytes shown in the parse error). A missing file is left to
         * the loader's message. */
        char *dir = refuse_links_out && lstat(p, &st) == 0 && S_ISLNK(st.st_mode) ? mr_path_dirname(p) : NULL;
        if (dir) {
            mr_error e = {0};
            char *real = mr_file_real_inside(dir, p, &e);
            free(dir);
            free(real);
            if (!real && e.status == MR_ERR_BAD_FILE)
                return mr_error_set(err, MR_ERR_BAD_FILE, "%s: a link out of its folder (expected a model file "
                                    "there; refused)", p);
        }
    }
    mr_cache_session s;
    if (mr_cache_begin(&s, path, anims, anim_count, out)) {
        give_reload(*out, path, anims, anim_count);
        return MR_OK;
    }
    /* The packs wait for the read to end (clip_runtime.h: mr_clip_hold_packs)
     * unless the cache file, written before this call returns, waits for
     * them: then the worker's head start is the caller's gain. */
    int hold = !s.active;
    if (hold) mr_clip_hold_packs();
    mr_status st = load_source(path, anims, anim_count, out, err);
    if (st == MR_OK) give_reload(*out, path, anims, anim_count);   /* before the cache file: it may hold no keys */
    if (hold) mr_clip_release_packs();
    if (st == MR_OK && later && s.active && (*later = malloc(sizeof **later))) {
        (*later)->session = s;   /* written by mr_load_finish */
        return st;
    }
    mr_cache_end(&s, st == MR_OK ? *out : NULL);
    return st;
}
