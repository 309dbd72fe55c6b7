/* test_model_copy.c — mr_model_copy (anim/model_copy.c): a deep copy of a
 * model, what marrow.save converts and writes. For models loaded from
 * source and from the binary cache (whose arrays point into one file
 * image): every field of the copy equals the source's, no pointer of the
 * copy lies in the source's allocations or its cache image, and the copy
 * outlives the source (checked against a fresh load after the source is
 * destroyed). Also: only the clips asked for, and a clip of another joint
 * count refused. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "anim/model.h"
#include "anim/morph.h"
#include "core/file.h"
#include "core/str.h"
#include "formats/cache.h"
#include "formats/load.h"

static char dir[64];

static mr_model *load(const char *path, const char *anim, int cached)
{
    if (cached) mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = dir});
    else mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_OFF});
    mr_model *m = NULL;
    const char *anims[1] = {anim};
    mr_error err = {0};
    if (mr_load_model(path, anims, anim ? 1 : 0, &m, &err) != MR_OK) printf("       load %s: %s\n", path, err.msg);
    return m;
}

static int same_str(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }
static int same_mem(const void *a, const void *b, size_t n) { return (!a && !b) || n == 0 || (a && b && !memcmp(a, b, n)); }

/* A pointer of the copy is its own: not one of the source's, not inside
 * the source's cache image. */
static const mr_model *g_src;
static int own(const void *p, const void *src_p)
{
    if (!p) return 1;
    if (p == src_p) return 0;
    uintptr_t a = (uintptr_t)p, lo = (uintptr_t)g_src->cache_block;
    return !g_src->cache_block || a < lo || a >= lo + g_src->cache_block_size;
}

static int same_track(const mr_track *a, const mr_track *b)
{
    size_t vals = (size_t)a->key_count * (size_t)a->components * (a->interp == MR_INTERP_CUBIC ? 3 : 1);
    return a->key_count == b->key_count && a->interp == b->interp && a->components == b->components &&
           same_mem(a->times, b->times, (size_t)a->key_count * 4) && same_mem(a->values, b->values, vals * 4);
}

static void check_copy(const mr_model *a, const mr_model *b, int check_own)
{
    g_src = a;
    CHECK(same_str(a->path, b->path) && same_str(a->format, b->format) && same_str(a->axes_note, b->axes_note));
    CHECK(a->axes.up == b->axes.up && a->axes.meters_per_unit == b->axes.meters_per_unit);
    CHECK(b->cache_block == NULL);
    CHECK(a->warning_count == b->warning_count);
    for (int i = 0; i < a->warning_count && i < b->warning_count; i++) {
        CHECK(same_str(a->warnings[i], b->warnings[i]));
        if (check_own) CHECK(own(b->warnings[i], a->warnings[i]));
    }
    const mr_skeleton *s = &a->skeleton, *t = &b->skeleton;
    CHECK(s->joint_count == t->joint_count);
    if (s->joint_count != t->joint_count) return;
    size_t n = (size_t)s->joint_count;
    for (size_t j = 0; j < n; j++) {
        CHECK_MSG(same_str(s->names[j], t->names[j]), "joint %zu name", j);
        if (check_own) CHECK(own(t->names[j], s->names[j]));
    }
    CHECK(same_mem(s->parents, t->parents, n * sizeof(int)) && same_mem(s->rest_t, t->rest_t, n * sizeof(vec3)) &&
          same_mem(s->rest_r, t->rest_r, n * sizeof(versor)) && same_mem(s->rest_s, t->rest_s, n * sizeof(vec3)) &&
          same_mem(s->inverse_bind, t->inverse_bind, n * sizeof(mat4)));
    if (check_own) CHECK(own(t->parents, s->parents) && own(t->rest_t, s->rest_t) && own(t->inverse_bind, s->inverse_bind));
    CHECK(a->mesh_count == b->mesh_count);
    for (int i = 0; i < a->mesh_count && i < b->mesh_count; i++) {
        const mr_mesh *x = &a->meshes[i], *y = &b->meshes[i];
        size_t v = (size_t)x->vertex_count;
        CHECK_MSG(x->vertex_count == y->vertex_count && x->index_count == y->index_count, "mesh %d counts", i);
        if (x->vertex_count != y->vertex_count || x->index_count != y->index_count) continue;
        CHECK(same_str(x->name, y->name));
        CHECK_MSG(same_mem(x->positions, y->positions, v * sizeof(vec3)) && same_mem(x->normals, y->normals, v * sizeof(vec3)) &&
                      same_mem(x->uvs, y->uvs, v * sizeof(vec2)) && same_mem(x->joints, y->joints, v * sizeof *x->joints) &&
                      same_mem(x->weights, y->weights, v * sizeof *x->weights) &&
                      same_mem(x->indices, y->indices, (size_t)x->index_count * 4),
                  "mesh %d arrays", i);
        if (check_own)
            CHECK_MSG(own(y->positions, x->positions) && own(y->normals, x->normals) && own(y->uvs, x->uvs) &&
                          own(y->joints, x->joints) && own(y->weights, x->weights) && own(y->indices, x->indices),
                      "mesh %d arrays are the copy's own", i);
        CHECK(x->source_over4 == y->source_over4 && x->source_over8 == y->source_over8);
        const mr_material *p = &x->material, *q = &y->material;
        CHECK(same_str(p->name, q->name) && same_str(p->diffuse_map, q->diffuse_map) && same_str(p->normal_map, q->normal_map));
        CHECK(!memcmp(p->diffuse, q->diffuse, 16) && !memcmp(p->ambient, q->ambient, 16) &&
              !memcmp(p->specular, q->specular, 16) && !memcmp(p->emission, q->emission, 16) && p->shininess == q->shininess);
        CHECK_MSG(p->diffuse_bytes_len == q->diffuse_bytes_len && same_mem(p->diffuse_bytes, q->diffuse_bytes, p->diffuse_bytes_len) &&
                      p->normal_bytes_len == q->normal_bytes_len && same_mem(p->normal_bytes, q->normal_bytes, p->normal_bytes_len),
                  "mesh %d embedded images", i);
        if (check_own) CHECK(own(q->diffuse_bytes, p->diffuse_bytes) && own(q->diffuse_map, p->diffuse_map));
        CHECK(!x->morph == !y->morph);
        if (x->morph && y->morph) {
            CHECK(x->morph->count == y->morph->count && x->morph->vertex_count == y->morph->vertex_count);
            CHECK(same_mem(x->morph->weights, y->morph->weights, (size_t)x->morph->count * 4));
            for (int k = 0; k < x->morph->count && k < y->morph->count; k++) {
                const mr_morph_target *u = &x->morph->targets[k], *w = &y->morph->targets[k];
                CHECK_MSG(same_str(u->name, w->name) && same_mem(u->positions, w->positions, v * sizeof(vec3)) &&
                              same_mem(u->normals, w->normals, v * sizeof(vec3)),
                          "mesh %d morph target %d", i, k);
                if (check_own) CHECK(own(w->positions, u->positions) && own(w->normals, u->normals));
            }
        }
    }
    CHECK(a->clip_count == b->clip_count);
    for (int i = 0; i < a->clip_count && i < b->clip_count; i++) {
        const mr_clip *x = a->clips[i], *y = b->clips[i];
        CHECK(same_str(x->name, y->name) && x->duration == y->duration && x->rate == y->rate);
        CHECK(y->runtime != NULL && y->cache_block == NULL);
        CHECK(x->joint_count == y->joint_count && x->marker_count == y->marker_count);
        if (x->joint_count != y->joint_count) continue;
        int ok = 1;
        for (int j = 0; j < x->joint_count; j++) {
            ok &= same_track(&x->tracks[j].t, &y->tracks[j].t) && same_track(&x->tracks[j].r, &y->tracks[j].r) &&
                  same_track(&x->tracks[j].s, &y->tracks[j].s);
            if (check_own) ok &= own(y->tracks[j].r.values, x->tracks[j].r.values) && own(y->tracks[j].t.times, x->tracks[j].t.times);
        }
        CHECK_MSG(ok, "clip %d source keys", i);
        for (int k = 0; k < x->marker_count && k < y->marker_count; k++)
            CHECK(x->markers[k].time == y->markers[k].time && same_str(x->markers[k].name, y->markers[k].name));
        CHECK(!x->morph == !y->morph);
        if (x->morph && y->morph) {
            CHECK(x->morph->channel_count == y->morph->channel_count);
            for (int c = 0; c < x->morph->channel_count && c < y->morph->channel_count; c++) {
                const mr_morph_channel *u = &x->morph->channels[c], *w = &y->morph->channels[c];
                size_t per = (size_t)u->target_count * (u->interp == MR_INTERP_CUBIC ? 3 : 1);
                CHECK_MSG(u->mesh == w->mesh && u->key_count == w->key_count && u->interp == w->interp &&
                              same_mem(u->times, w->times, (size_t)u->key_count * 4) &&
                              same_mem(u->values, w->values, (size_t)u->key_count * per * 4),
                          "clip %d morph channel %d", i, c);
            }
        }
    }
}

/* Copy of a load (from source or cache), checked against the source, then
 * against a fresh load after the source is gone. */
static void copy_round(const char *path, const char *anim, int cached)
{
    if (!mr_file_exists(path)) {
        printf("       skipped: %s missing\n", path);
        return;
    }
    if (cached) mr_model_destroy(load(path, anim, 1));   /* writes the cache entry */
    mr_model *src = load(path, anim, cached);
    CHECK(src != NULL);
    if (!src) return;
    if (cached) CHECK_MSG(src->cache_block != NULL, "%s: not a cached load", path);
    mr_model *copy = NULL;
    CHECK(mr_model_copy(src, (const mr_clip *const *)src->clips, src->clip_count, &copy) == MR_OK);
    if (copy) check_copy(src, copy, 1);
    mr_model_destroy(src);
    mr_model *fresh = load(path, anim, 0);
    if (copy && fresh) check_copy(fresh, copy, 0);
    mr_model_destroy(fresh);
    mr_model_destroy(copy);
}

TEST(model_copy_md5_mesh_and_anim) { copy_round("models/mannequin.md5mesh", "models/walk.md5anim", 0); }
TEST(model_copy_md5_from_the_cache) { copy_round("models/mannequin.md5mesh", "models/walk.md5anim", 1); }
TEST(model_copy_gltf_embedded_images_from_the_cache) { copy_round(SHARED_MODELS "blender-3.4-gltf/astroBoy_walk.glb", NULL, 1); }
TEST(model_copy_collada) { copy_round(SHARED_MODELS "lab101-bonesAssimpTest/bin/data/astroBoy_walk.dae", NULL, 0); }
TEST(model_copy_morph_targets_and_weight_tracks)
{
    copy_round("/usr/share/assimp/models/glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf", NULL, 0);
}

TEST(model_copy_takes_the_clips_asked_for)
{
    mr_model *src = load("models/mannequin.md5mesh", "models/walk.md5anim", 0);
    CHECK(src && src->clip_count == 1);
    if (!src) return;
    mr_model *none = NULL, *twice = NULL;
    CHECK(mr_model_copy(src, NULL, 0, &none) == MR_OK && none && none->clip_count == 0 && none->mesh_count == src->mesh_count);
    const mr_clip *two[2] = {src->clips[0], src->clips[0]};
    CHECK(mr_model_copy(src, two, 2, &twice) == MR_OK && twice && twice->clip_count == 2);
    if (twice) CHECK(twice->clips[0] != src->clips[0] && twice->clips[1] != twice->clips[0]);
    mr_clip *other = NULL;
    CHECK(mr_clip_create("other", 3, &other) == MR_OK);
    const mr_clip *bad[1] = {other};
    mr_model *refused = (mr_model *)1;
    CHECK(mr_model_copy(src, bad, 1, &refused) == MR_ERR_JOINT_COUNT && refused == NULL);
    mr_clip_destroy(other);
    mr_model_destroy(none);
    mr_model_destroy(twice);
    mr_model_destroy(src);
}

int main(void)
{
    strcpy(dir, "/tmp/marrow-test-model-copy-XXXXXX");
    if (!mkdtemp(dir)) return 1;
    RUN(model_copy_md5_mesh_and_anim);
    RUN(model_copy_md5_from_the_cache);
    RUN(model_copy_gltf_embedded_images_from_the_cache);
    RUN(model_copy_collada);
    RUN(model_copy_morph_targets_and_weight_tracks);
    RUN(model_copy_takes_the_clips_asked_for);
    mr_cache_configure(NULL);
    char *cmd = mr_str_fmt("rm -rf '%s'", dir);
    if (cmd && system(cmd) != 0) printf("       could not remove %s\n", dir);
    free(cmd);
    return test_summary("model_copy");
}
