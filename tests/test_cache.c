/* test_cache.c — the binary model cache (formats/cache.h): round trips of
 * every field for MD5, COLLADA, glTF and BVH models, invalidation, corrupt
 * and foreign files, an unwritable folder, the hash. Every test uses a
 * private cache folder under /tmp.
 * run.sh: mostly waits (a source's 2 s trust window), so it runs in
 * tests/run.sh's lane for such suites. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "anim/clip_pack.h"
#include "anim/clip_runtime.h"
#include "anim/clip_dense.h"
#include "core/file.h"
#include "core/path.h"
#include "core/str.h"
#include "formats/cache.h"
#include "formats/load.h"

static char dir[64];

static void use_cache(void) { mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = dir}); }
static void no_cache(void) { mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_OFF}); }

static mr_model *load(const char *path, const char *anim)
{
    mr_model *m = NULL;
    const char *anims[1] = {anim};
    mr_error err = {0};
    if (mr_load_model(path, anims, anim ? 1 : 0, &m, &err) != MR_OK) printf("       load %s: %s\n", path, err.msg);
    return m;
}

static int stats_hits(void)
{
    mr_cache_stats st;
    mr_cache_get_stats(&st);
    return st.hits;
}

static mr_cache_stats stats_now(void)
{
    mr_cache_stats st;
    mr_cache_get_stats(&st);
    return st;
}

/* Byte offsets the tests poke at (cache_layout.h, file_header and source_rec):
 * the payload hash in the header, the first source record's hash. */
#define HEADER_BYTES 64
#define HEADER_VERSION 8
#define HEADER_PAYLOAD_HASH 40
#define SOURCE0_HASH (HEADER_BYTES + 16)

/* Recomputes the header's payload hash after a test damaged the payload,
 * so that the reader's own checks, not the checksum, must catch it. */
static void rehash(unsigned char *data, size_t n)
{
    uint64_t h = mr_cache_hash(data + HEADER_BYTES, n - HEADER_BYTES);
    memcpy(data + HEADER_PAYLOAD_HASH, &h, sizeof h);
}

static int same_str(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }
static int same_mem(const void *a, const void *b, size_t n) { return (!a && !b) || (a && b && !memcmp(a, b, n)); }

static int same_track(const mr_track *a, const mr_track *b)
{
    size_t vals = (size_t)a->key_count * (size_t)a->components * (a->interp == MR_INTERP_CUBIC ? 3 : 1);
    return a->key_count == b->key_count && a->components == b->components && a->interp == b->interp &&
           a->uniform_rate == b->uniform_rate && (a->key_count == 0 ||
           (same_mem(a->times, b->times, (size_t)a->key_count * 4) && same_mem(a->values, b->values, vals * 4)));
}

/* Every field of two models, the path excepted; failures name the field. */
static void check_same_model(const mr_model *a, const mr_model *b)
{
    CHECK(same_str(a->format, b->format));
    CHECK(same_str(a->axes_note, b->axes_note));
    CHECK(a->axes.up == b->axes.up && a->axes.meters_per_unit == b->axes.meters_per_unit);
    CHECK(a->warning_count == b->warning_count);
    for (int i = 0; i < a->warning_count && i < b->warning_count; i++) CHECK(same_str(a->warnings[i], b->warnings[i]));
    const mr_skeleton *s = &a->skeleton, *t = &b->skeleton;
    CHECK(s->joint_count == t->joint_count);
    if (s->joint_count != t->joint_count) return;
    int n = s->joint_count;
    for (int j = 0; j < n; j++) CHECK_MSG(same_str(s->names[j], t->names[j]), "joint %d name", j);
    CHECK(same_mem(s->parents, t->parents, (size_t)n * sizeof(int)));
    CHECK(same_mem(s->rest_t, t->rest_t, (size_t)n * sizeof(vec3)));
    CHECK(same_mem(s->rest_r, t->rest_r, (size_t)n * sizeof(versor)));
    CHECK(same_mem(s->rest_s, t->rest_s, (size_t)n * sizeof(vec3)));
    CHECK(same_mem(s->inverse_bind, t->inverse_bind, (size_t)n * sizeof(mat4)));
    CHECK(a->mesh_count == b->mesh_count);
    for (int i = 0; i < a->mesh_count && i < b->mesh_count; i++) {
        const mr_mesh *x = &a->meshes[i], *y = &b->meshes[i];
        size_t v = (size_t)x->vertex_count;
        CHECK_MSG(x->vertex_count == y->vertex_count && x->index_count == y->index_count, "mesh %d counts", i);
        if (x->vertex_count != y->vertex_count || x->index_count != y->index_count) continue;
        CHECK_MSG(x->skinning == y->skinning, "mesh %d skinning mode", i);
        CHECK_MSG(same_mem(x->dq_blend, y->dq_blend, v * sizeof(float)), "mesh %d dual-quaternion blend", i);
        CHECK(same_str(x->name, y->name));
        CHECK_MSG(same_mem(x->positions, y->positions, v * sizeof(vec3)), "mesh %d positions", i);
        CHECK_MSG(same_mem(x->normals, y->normals, v * sizeof(vec3)), "mesh %d normals", i);
        CHECK_MSG(same_mem(x->uvs, y->uvs, v * sizeof(vec2)), "mesh %d uvs", i);
        CHECK_MSG(same_mem(x->joints, y->joints, v * sizeof *x->joints), "mesh %d joints (8 slots)", i);
        CHECK_MSG(same_mem(x->weights, y->weights, v * sizeof *x->weights), "mesh %d weights (8 slots)", i);
        CHECK_MSG(same_mem(x->indices, y->indices, (size_t)x->index_count * 4), "mesh %d indices", i);
        CHECK(x->source_over4 == y->source_over4 && x->source_over8 == y->source_over8);
        const mr_material *p = &x->material, *q = &y->material;
        CHECK(same_str(p->name, q->name) && same_str(p->diffuse_map, q->diffuse_map) &&
              same_str(p->normal_map, q->normal_map));
        CHECK(!memcmp(p->diffuse, q->diffuse, 16) && !memcmp(p->ambient, q->ambient, 16) &&
              !memcmp(p->specular, q->specular, 16) && !memcmp(p->emission, q->emission, 16) &&
              p->shininess == q->shininess);
        CHECK_MSG(p->diffuse_bytes_len == q->diffuse_bytes_len &&
                      same_mem(p->diffuse_bytes, q->diffuse_bytes, p->diffuse_bytes_len) &&
                      p->normal_bytes_len == q->normal_bytes_len &&
                      same_mem(p->normal_bytes, q->normal_bytes, p->normal_bytes_len),
                  "mesh %d embedded images", i);
    }
    CHECK(a->clip_count == b->clip_count);
    for (int i = 0; i < a->clip_count && i < b->clip_count; i++) {
        const mr_clip *x = a->clips[i], *y = b->clips[i];
        mr_clip_settle(x);   /* a source load's pack may still be on the worker */
        mr_clip_settle(y);
        CHECK(!mr_clip_pending(x) && !mr_clip_pending(y));
        CHECK(same_str(x->name, y->name) && x->duration == y->duration && x->rate == y->rate);
        CHECK(x->joint_count == y->joint_count);
        if (x->joint_count != y->joint_count) continue;
        const mr_clip_runtime *xr = x->runtime, *yr = y->runtime;
        CHECK_MSG(xr && yr, "clip %d has no runtime", i);
        if (!xr || !yr) continue;
        int tracks_ok = 1, played_ok = !xr->played == !yr->played;
        for (int j = 0; j < x->joint_count; j++) {
            tracks_ok &= same_track(&x->tracks[j].t, &y->tracks[j].t) && same_track(&x->tracks[j].r, &y->tracks[j].r) &&
                         same_track(&x->tracks[j].s, &y->tracks[j].s);
            if (xr->played && yr->played)
                played_ok &= same_track(&xr->played[j].t, &yr->played[j].t) &&
                             same_track(&xr->played[j].r, &yr->played[j].r) &&
                             same_track(&xr->played[j].s, &yr->played[j].s);
        }
        CHECK_MSG(tracks_ok, "clip %d source keys", i);
        CHECK_MSG(played_ok, "clip %d played keys", i);
        CHECK(xr->keys_added == yr->keys_added && xr->keys_dropped == yr->keys_dropped &&
              xr->thin_tolerance == yr->thin_tolerance);
        CHECK(same_mem(xr->max_angle, yr->max_angle, (size_t)x->joint_count * 4));
        CHECK(same_mem(xr->max_move, yr->max_move, (size_t)x->joint_count * 4));
        CHECK(xr->shared_keys == yr->shared_keys && xr->shared_rate == yr->shared_rate);
        if (xr->shared_keys > 0) CHECK(same_mem(xr->shared_times, yr->shared_times, (size_t)xr->shared_keys * 4));
        CHECK_MSG(!xr->dense == !yr->dense, "clip %d bake presence", i);
        if (xr->dense && yr->dense) {
            CHECK(xr->dense->keys == yr->dense->keys && xr->dense->lanes == yr->dense->lanes &&
                  xr->dense->joints == yr->dense->joints && xr->dense->rest_count == yr->dense->rest_count);
            CHECK(same_mem(xr->dense->data, yr->dense->data, (size_t)xr->dense->keys * 10 * xr->dense->lanes * 4));
            CHECK(same_mem(xr->dense->rest, yr->dense->rest, (size_t)xr->dense->rest_count * sizeof(int)));
        }
        CHECK(x->marker_count == y->marker_count);
        for (int k = 0; k < x->marker_count && k < y->marker_count; k++)
            CHECK(x->markers[k].time == y->markers[k].time && same_str(x->markers[k].name, y->markers[k].name));
        /* the sampled poses agree too (dense bake, refinement, shared line) */
        mr_pose pa, pb;
        if (mr_pose_init(&pa, n) == MR_OK && mr_pose_init(&pb, n) == MR_OK && x->joint_count == n) {
            for (int k = 0; k <= 8; k++) {
                float time = x->duration * (float)k / 8.0f + 0.013f;
                mr_clip_sample(x, s, time, MR_WRAP_LOOP, &pa);
                mr_clip_sample(y, t, time, MR_WRAP_LOOP, &pb);
                CHECK_MSG(!memcmp(pa.t, pb.t, (size_t)n * sizeof(vec3)) &&
                              !memcmp(pa.r, pb.r, (size_t)n * sizeof(versor)) &&
                              !memcmp(pa.s, pb.s, (size_t)n * sizeof(vec3)),
                          "clip %d pose at %g", i, time);
            }
        }
        mr_pose_deinit(&pa);
        mr_pose_deinit(&pb);
    }
}

/* Checks that m (a cached load of path, may be NULL) equals a load of path
 * with the cache off, then destroys m. */
static void check_matches_source(const char *path, mr_model *m)
{
    no_cache();
    mr_model *fresh = load(path, NULL);
    if (m && fresh) check_same_model(fresh, m);
    mr_model_destroy(fresh);
    mr_model_destroy(m);
}

/* Source load, then a writing load and a reading load through the cache:
 * all three the same model, the third answered by the cache. */
static void round_trip(const char *path, const char *anim)
{
    if (!mr_file_exists(path)) {
        printf("       skipped: %s missing\n", path);
        return;
    }
    no_cache();
    mr_model *src = load(path, anim);
    use_cache();
    mr_model *first = load(path, anim);
    CHECK(stats_hits() == 0);
    mr_model *cached = load(path, anim);
    CHECK_MSG(stats_hits() == 1, "%s: second load not answered by the cache", path);
    CHECK(src && first && cached);
    if (src && cached) {
        CHECK(cached->cache_block != NULL);
        CHECK(same_str(cached->path, path));
        check_same_model(src, cached);
    }
    mr_model_destroy(src);
    mr_model_destroy(first);
    mr_model_destroy(cached);
}

TEST(cache_round_trip_md5_mesh_and_anim)
{
    round_trip(SHARED_MODELS "assimp/test/models-nonbsd/MD5/Bob.md5mesh",
               SHARED_MODELS "assimp/test/models-nonbsd/MD5/Bob.md5anim");
}

TEST(cache_round_trip_collada_astroboy) { round_trip(SHARED_MODELS "lab101-bonesAssimpTest/bin/data/astroBoy_walk.dae", NULL); }
TEST(cache_round_trip_collada_thinmatrix) { round_trip(SHARED_MODELS "thinmatrix-opengl-animation/Resources/res/model.dae", NULL); }
TEST(cache_round_trip_gltf_binary_with_embedded_images) { round_trip(SHARED_MODELS "blender-3.4-gltf/astroBoy_walk.glb", NULL); }
TEST(cache_round_trip_gltf_thinmatrix) { round_trip(SHARED_MODELS "blender-3.4-gltf/thinmatrix_model.glb", NULL); }
TEST(cache_round_trip_bvh) { round_trip("/usr/share/assimp/models/BVH/01_01.bvh", NULL); }
TEST(cache_round_trip_fbx_blended_dual_quaternion_skin)
{
    const char *path = SHARED_MODELS "ufbx-data/maya_dq_weights_7500_binary.fbx";
    round_trip(path, NULL);
    if (!mr_file_exists(path)) return;
    no_cache();
    mr_model *m = load(path, NULL);
    CHECK(m && m->mesh_count == 1 && m->meshes[0].skinning == MR_SKINNING_DUAL_QUATERNION && m->meshes[0].dq_blend);
    mr_model_destroy(m);
}
TEST(cache_round_trip_project_mannequin_md5) { round_trip("models/mannequin.md5mesh", "models/walk.md5anim"); }

/* A private copy of a small source to edit. */
static char *copy_source(const char *from, const char *name)
{
    size_t n = 0;
    char *data = mr_file_read(from, &n, NULL);
    char *to = mr_str_fmt("%s/src/%s", dir, name);
    char *sub = mr_str_fmt("%s/src", dir);
    mkdir(sub, 0755);
    free(sub);
    if (data && to) mr_file_write(to, data, n, NULL);
    free(data);
    return to;
}

/* The first 360 frames (3 s) of CMU 01_01, written as src/NAME: a real
 * take for the tests of the cache's own rules, packed in a tenth of the
 * time of the whole 23 s take. installed: its mtime set to the installed
 * file's (long ago: trusted by its stat data, as that file is), else now. */
static char *short_take(const char *name, int installed)
{
    const char *from = "/usr/share/assimp/models/BVH/01_01.bvh";
    size_t n = 0;
    char *data = mr_file_read(from, &n, NULL), *to = NULL;
    char *frames = data ? strstr(data, "Frames:") : NULL;
    char *keys = frames ? strstr(frames, "Frame Time:") : NULL;
    keys = keys ? strchr(keys, '\n') : NULL;
    char *end = keys;
    for (int i = 0; end && i < 360; i++) end = strchr(end + 1, '\n');
    if (end) {
        *frames = '\0';
        *end = '\0';
        char *text = mr_str_fmt("%sFrames: 360\n%s\n", data, strstr(frames + 1, "Frame Time:"));
        to = mr_str_fmt("%s/src/%s", dir, name);
        char *sub = mr_str_fmt("%s/src", dir);
        mkdir(sub, 0755);
        free(sub);
        if (text && to) mr_file_write(to, text, strlen(text), NULL);
        free(text);
        struct stat st;
        if (to && installed && stat(from, &st) == 0) {
            struct timespec ts[2] = {st.st_mtim, st.st_mtim};
            utimensat(AT_FDCWD, to, ts, 0);
        }
    }
    free(data);
    CHECK_MSG(to != NULL, "the first 360 frames of %s", from);
    return to;
}

/* Changes one digit of a BVH text's first key (after "Frame Time:", a
 * value, not a count) without changing its size; 0 when there is none. */
static int bump_key_digit(char *data)
{
    char *digit = data ? strstr(data, "Frame Time:") : NULL;
    digit = digit ? strchr(digit, '\n') : NULL;
    while (digit && *digit && (*digit < '1' || *digit > '8')) digit++;
    if (!digit || !*digit) return 0;
    (*digit)++;
    return 1;
}

static void set_mtime(const char *path, time_t sec, long nsec)
{
    struct timespec ts[2] = {{sec, nsec}, {sec, nsec}};
    utimensat(AT_FDCWD, path, ts, 0);
}

TEST(cache_invalidated_by_mtime_and_by_same_size_content_change)
{
    char *p = short_take("walk.bvh", 0);
    use_cache();
    mr_model_destroy(load(p, NULL));
    mr_model_destroy(load(p, NULL));
    CHECK(stats_hits() == 1);
    set_mtime(p, 1000000000, 5);  /* touched: another mtime */
    mr_model *m = load(p, NULL);
    CHECK(m && stats_hits() == 1);
    char *abs = mr_path_absolute(p), *why = abs ? mr_str_fmt("stale: %s changed since it was written", abs) : NULL;
    CHECK_MSG(why && !strcmp(mr_cache_rejection(), why), "rejected as \"%s\"", mr_cache_rejection());
    free(why);
    free(abs);
    mr_model_destroy(m);
    mr_model_destroy(load(p, NULL));
    CHECK(stats_hits() == 2);  /* rewritten after the stale one */
    /* same size, same mtime, one digit changed: only the content hash sees it */
    size_t n = 0;
    char *data = mr_file_read(p, &n, NULL);
    int bumped = bump_key_digit(data);
    CHECK(bumped);
    if (bumped) {
        mr_file_write(p, data, n, NULL);
        set_mtime(p, 1000000000, 5);
        m = load(p, NULL);
        CHECK(m && stats_hits() == 2);
        check_matches_source(p, m);
    }
    free(data);
    free(p);
}

/* Damages the cache file of path (cut to cut bytes, or byte flip
 * flipped), then checks that the load falls back to the source (same
 * model), that mr_cache_rejection names the cause (contains why, unless
 * NULL), and that the file was replaced. */
static int corrupt_case(const char *path, const mr_model *ref, long cut, long flip, const char *why)
{
    use_cache();
    char *file = mr_cache_file(path, NULL, 0);
    size_t n = 0;
    char *data = file ? mr_file_read(file, &n, NULL) : NULL;
    if (!data) {
        free(file);
        return 0;
    }
    if (flip >= 0 && (size_t)flip < n) data[flip] ^= 0x5a;
    mr_file_write(file, data, cut >= 0 && (size_t)cut < n ? (size_t)cut : n, NULL);
    free(data);
    mr_cache_stats st;
    mr_model *m = load(path, NULL);
    mr_cache_get_stats(&st);
    int ok = m && st.hits == 0 && st.rejected == 1 && st.writes == 1;
    if (why && !strstr(mr_cache_rejection(), why)) {
        printf("       rejected as \"%s\", expected \"%s\"\n", mr_cache_rejection(), why);
        ok = 0;
    }
    if (m) check_same_model(ref, m);
    mr_model_destroy(m);
    m = load(path, NULL);  /* the replaced file answers */
    mr_cache_get_stats(&st);
    ok = ok && m && st.hits == 1;
    mr_model_destroy(m);
    free(file);
    return ok;
}

/* The source load of path (the reference, NULL when path is absent), after
 * writing its cache file, whose name and stat it returns. */
/* A model loaded without the cache (the reference), then loaded once more
 * so that its cache file is written: the file's path and stat. ref is NULL
 * when the shared model is not there. */
typedef struct cached_model {
    const char *path;
    mr_model *ref;
    char *file;
    struct stat st;
} cached_model;

static cached_model cached_model_open(const char *path)
{
    cached_model c = {.path = path};
    if (!mr_file_exists(path)) return c;
    no_cache();
    c.ref = load(path, NULL);
    for (int i = 0; c.ref && i < c.ref->clip_count; i++) mr_clip_settle(c.ref->clips[i]);  /* its budgets and packs */
    use_cache();
    mr_model_destroy(load(path, NULL));
    c.file = mr_cache_file(path, NULL, 0);
    CHECK(c.file && stat(c.file, &c.st) == 0);
    return c;
}

static void cached_model_close(cached_model *c)
{
    free(c->file);
    mr_model_destroy(c->ref);
}

TEST(cache_truncated_at_every_sixteenth_falls_back_and_is_replaced)
{
    cached_model c = cached_model_open(SHARED_MODELS "thinmatrix-opengl-animation/Resources/res/model.dae");
    for (int k = 0; k < 16 && c.ref; k++)
        CHECK_MSG(corrupt_case(c.path, c.ref, (long)(c.st.st_size * k / 16), -1, "truncated: "), "cut at %d/16", k);
    if (c.ref) CHECK(corrupt_case(c.path, c.ref, 10, -1, "truncated: 10 bytes, shorter than its 64-byte header"));
    if (c.ref) {
        char why[96];
        snprintf(why, sizeof why, "truncated: %ld bytes, its header says %ld", (long)c.st.st_size - 1,
                 (long)c.st.st_size);
        CHECK(corrupt_case(c.path, c.ref, (long)c.st.st_size - 1, -1, why));
    }
    cached_model_close(&c);
}

TEST(cache_flipped_bytes_fall_back)
{
    cached_model c = cached_model_open(SHARED_MODELS "blender-3.4-gltf/thinmatrix_model.glb");
    /* header fields (magic, version, byte order, layout, key, size, hash,
     * model offset, counts) and bytes spread over the payload, each with
     * the cause mr_cache_rejection gives */
    const char *checksum = "damaged: the payload's checksum differs";
    struct { long at; const char *why; } flips[] = {
        {0, "not a marrow cache file"}, {8, "cache format version "},
        {12, "other byte order"}, {16, "other loader code"}, {24, "written for other sources"},
        {32, "its header says"}, {40, checksum}, {48, "damaged: a count, offset or index out of range"},
        {56, "written for other sources"}, {64, checksum}, {100, checksum}, {200, checksum},
        {(long)c.st.st_size / 3, checksum}, {(long)c.st.st_size / 2, checksum},
        {(long)c.st.st_size - 1, checksum},
    };
    for (size_t k = 0; k < sizeof flips / sizeof flips[0] && c.ref; k++)
        CHECK_MSG(corrupt_case(c.path, c.ref, -1, flips[k].at, flips[k].why), "byte %ld flipped", flips[k].at);
    cached_model_close(&c);
}

/* A file of an older format version at this model's name (a marrow
 * before MR_CACHE_VERSION changed) is rejected with its version named,
 * the model loads from the source, and the file is rebuilt in this
 * version, which the next load reads. */
TEST(cache_older_version_rejected_and_rebuilt)
{
    cached_model c = cached_model_open(SHARED_MODELS "blender-3.4-gltf/thinmatrix_model.glb");
    size_t n = 0;
    unsigned char *data = c.ref && c.file ? (unsigned char *)mr_file_read(c.file, &n, NULL) : NULL;
    if (data && n >= HEADER_BYTES) {
        uint32_t older = MR_CACHE_VERSION - 1, version;
        memcpy(data + HEADER_VERSION, &older, sizeof older);
        mr_file_write(c.file, data, n, NULL);
        use_cache();
        mr_model *m = load(c.path, NULL);
        mr_cache_stats s1 = stats_now();
        CHECK(m && s1.hits == 0 && s1.rejected == 1 && s1.writes == 1);
        char why[96];
        snprintf(why, sizeof why, "cache format version %u, this marrow reads %d", older, MR_CACHE_VERSION);
        CHECK_MSG(!strcmp(mr_cache_rejection(), why), "rejected as \"%s\"", mr_cache_rejection());
        if (m) check_same_model(c.ref, m);
        mr_model_destroy(m);
        free(data);
        data = (unsigned char *)mr_file_read(c.file, &n, NULL);
        CHECK(data && n >= HEADER_BYTES);
        if (data && n >= HEADER_BYTES) {
            memcpy(&version, data + HEADER_VERSION, sizeof version);
            CHECK(version == MR_CACHE_VERSION);
        }
        m = load(c.path, NULL);
        CHECK(m && stats_now().hits == 1);
        mr_model_destroy(m);
    } else if (c.ref) {
        CHECK_MSG(0, "no cache file written for %s", c.path);
    }
    free(data);
    cached_model_close(&c);
}

/* Damage that a checksum cannot catch (the test recomputes it): every
 * third byte of the file's last 1024 (the model and clip records, the clip
 * data before them), then a stored joint index and a stored triangle index
 * out of range, which must be rejected. Each load returns a model; a
 * rejected file falls back to the source (same model as the reference).
 * Run under ASan by `make asan`: no read or write outside what the file
 * holds. */
static int damaged_load(const char *path, const char *file, const unsigned char *orig, size_t n, size_t at,
                        unsigned char value, int xor, const mr_model *ref)
{
    unsigned char *data = malloc(n);
    if (!data) return 0;
    memcpy(data, orig, n);
    data[at] = xor ? (unsigned char)(data[at] ^ value) : value;
    rehash(data, n);
    mr_file_write(file, data, n, NULL);
    free(data);
    mr_cache_stats before = stats_now();
    mr_model *m = load(path, NULL);
    mr_cache_stats after = stats_now();
    int rejected = after.rejected > before.rejected;
    if (m && rejected) check_same_model(ref, m);
    mr_model_destroy(m);
    return m ? (rejected ? 1 : 2) : 0;  /* 0 failed, 1 rejected, 2 accepted */
}

TEST(cache_rehashed_damage_rejected_by_range_checks)
{
    cached_model c = cached_model_open(SHARED_MODELS "blender-3.4-gltf/thinmatrix_model.glb");
    if (!c.ref) return;
    const char *path = c.path, *file = c.file;
    mr_model *ref = c.ref;
    size_t n = 0;
    unsigned char *orig = file ? (unsigned char *)mr_file_read(file, &n, NULL) : NULL;
    CHECK(ref && orig && n > 2048);
    if (!ref || !orig || n <= 2048) goto done;
    int rejected = 0, failed = 0;
    for (size_t at = n - 1024; at < n; at += 3) {
        int r = damaged_load(path, file, orig, n, at, 0x5a, 1, ref);
        failed += r == 0;
        rejected += r == 1;
    }
    CHECK_MSG(failed == 0, "%d damaged loads returned no model", failed);
    /* many of these bytes are floats (taken as written) or offsets moved
     * to other in-range data: those load, only memory safety is at stake */
    CHECK_MSG(rejected > 0, "none of 342 damaged records rejected");
    /* this model's influences are stored as distinct rows (4 slots, joints
     * of 1 byte) in the order vertices first use them, and per vertex its
     * row number (2 bytes) */
    const mr_mesh *me = &ref->meshes[0];
    unsigned char narrow[64];
    uint16_t row_of[32];
    int rows = 0, first[16];
    for (int i = 0; i < me->vertex_count && (rows < 16 || i < 32); i++) {
        int row = -1;
        for (int e = 0; e < rows && row < 0; e++)
            if (!memcmp(me->joints[first[e]], me->joints[i], sizeof *me->joints) &&
                !memcmp(me->weights[first[e]], me->weights[i], sizeof *me->weights))
                row = e;
        if (row < 0 && rows < 16) first[row = rows++] = i;
        if (i < 32) row_of[i] = (uint16_t)row;
    }
    for (int e = 0; e < 16; e++)
        for (int k = 0; k < 4; k++) narrow[e * 4 + k] = (unsigned char)me->joints[first[e]][k];
    /* a joint of 255 is past its 17 joints */
    unsigned char *j = memmem(orig, n, narrow, sizeof narrow);
    CHECK_MSG(j != NULL, "stored joint rows (4 slots, 1 byte) not found in the file");
    if (j) CHECK(damaged_load(path, file, orig, n, (size_t)(j - orig) + 5, 255, 0, ref) == 1);
    /* a row number of 0xff.. is past its 441 rows */
    unsigned char *ro = memmem(orig, n, row_of, sizeof row_of);
    CHECK_MSG(ro != NULL, "stored row numbers (2 bytes) not found in the file");
    if (ro) CHECK(damaged_load(path, file, orig, n, (size_t)(ro - orig) + 9, 0xff, 0, ref) == 1);
    /* the stored indices: 2 bytes each; 0xffff is past its 4255 vertices */
    uint16_t idx[32];
    for (int i = 0; i < 32; i++) idx[i] = (uint16_t)me->indices[i];
    unsigned char *x = memmem(orig, n, idx, sizeof idx);
    CHECK_MSG(x != NULL, "stored indices (2 bytes) not found in the file");
    if (x) {
        CHECK(damaged_load(path, file, orig, n, (size_t)(x - orig) + 6, 0xff, 0, ref) >= 1);
        CHECK(damaged_load(path, file, orig, n, (size_t)(x - orig) + 7, 0xff, 0, ref) == 1);
    }
    /* the last index and the last row number: past the checks' vector loop */
    for (int i = 0; i < 32; i++) idx[i] = (uint16_t)me->indices[me->index_count - 32 + i];
    x = memmem(orig, n, idx, sizeof idx);
    CHECK_MSG(x != NULL, "last stored indices not found in the file");
    if (x) CHECK(damaged_load(path, file, orig, n, (size_t)(x - orig) + 63, 0xff, 0, ref) == 1);
    if (ro) CHECK(damaged_load(path, file, orig, n, (size_t)(ro - orig) + (size_t)me->vertex_count * 2 - 1, 0xff, 0,
                               ref) == 1);
done:
    free(orig);
    cached_model_close(&c);
}

/* A clip's point reach (cache format 8) is a measure's lever arm: a file
 * whose stored reach is negative or NaN (checksum recomputed) is rejected,
 * and the source load takes its place; an intact file keeps the reach. */
TEST(cache_point_reach_below_zero_or_nan_rejected)
{
    cached_model c = cached_model_open(SHARED_MODELS "blender-3.4-gltf/thinmatrix_model.glb");
    if (!c.ref) return;
    const mr_clip *rc = c.ref->clip_count > 0 ? c.ref->clips[0] : NULL;
    const float *reach = rc && rc->runtime ? rc->runtime->point_reach : NULL;
    size_t n = 0;
    unsigned char *orig = c.file ? (unsigned char *)mr_file_read(c.file, &n, NULL) : NULL;
    CHECK_MSG(reach != NULL, "the source load's clip has no point reach");
    CHECK(orig && n > 0);
    unsigned char *at = reach && orig ? memmem(orig, n, reach, (size_t)rc->joint_count * sizeof *reach) : NULL;
    CHECK_MSG(at != NULL, "the point reach is not stored in the cache file");
    if (at) {
        mr_model *m = load(c.path, NULL);   /* intact: a hit that keeps the reach */
        CHECK(m && m->cache_block && m->clip_count > 0 && m->clips[0]->runtime &&
              m->clips[0]->runtime->point_reach &&
              !memcmp(m->clips[0]->runtime->point_reach, reach, (size_t)rc->joint_count * sizeof *reach));
        mr_model_destroy(m);
        size_t hi = (size_t)(at - orig) + 3;   /* the first float's sign and exponent (little-endian) */
        CHECK(damaged_load(c.path, c.file, orig, n, hi, 0x80, 1, c.ref) == 1);   /* below zero */
        CHECK(damaged_load(c.path, c.file, orig, n, hi, 0x7f, 0, c.ref) == 1 ||
              orig[hi - 1] < 0x80);   /* 0x7f8..: NaN or infinity where the next bit is set */
        CHECK(damaged_load(c.path, c.file, orig, n, hi, 0xff, 0, c.ref) == 1);   /* -huge or NaN */
    }
    free(orig);
    cached_model_close(&c);
}

/* What every loader checks before it returns a model holds for a cache
 * file too (found by tests/fuzz/fuzz_cache.c): a stored rest rotation that
 * is not a unit quaternion, or a stored key time before the one it follows
 * (checksum recomputed), is rejected and the source load takes its place. */
TEST(cache_rest_pose_and_key_times_checked_as_a_loader_does)
{
    cached_model c = cached_model_open(SHARED_MODELS "blender-3.4-gltf/thinmatrix_model.glb");
    if (!c.ref) return;
    const mr_skeleton *sk = &c.ref->skeleton;
    size_t n = 0;
    unsigned char *orig = c.file ? (unsigned char *)mr_file_read(c.file, &n, NULL) : NULL;
    CHECK(orig && n > 0 && sk->joint_count > 1);
    if (!orig || sk->joint_count < 2) goto done;
    unsigned char *rest = memmem(orig, n, sk->rest_r, (size_t)sk->joint_count * sizeof(versor));
    CHECK_MSG(rest != NULL, "the rest rotations are not stored in the cache file");
    /* the second joint's w (little-endian): its exponent's low bit flipped
     * halves or doubles it, so the quaternion is no longer unit */
    if (rest) CHECK(damaged_load(c.path, c.file, orig, n, (size_t)(rest - orig) + 16 + 12 + 2, 0x80, 1, c.ref) == 1);
    const mr_clip *rc = c.ref->clip_count > 0 ? c.ref->clips[0] : NULL;
    const mr_track *tr = NULL;
    for (int j = 0; rc && !tr && j < rc->joint_count; j++)
        if (rc->tracks[j].r.key_count >= 3) tr = &rc->tracks[j].r;
    CHECK_MSG(tr != NULL, "no rotation track of 3 keys or more");
    unsigned char *times = tr ? memmem(orig, n, tr->times, (size_t)tr->key_count * sizeof(float)) : NULL;
    CHECK_MSG(tr == NULL || times != NULL, "the key times are not stored in the cache file");
    /* the second key's time: its top exponent bit set makes it huge (or,
     * where it was 0, 2): after the third, or NaN */
    if (times) CHECK(damaged_load(c.path, c.file, orig, n, (size_t)(times - orig) + 4 + 3, 0x40, 1, c.ref) == 1);
done:
    free(orig);
    cached_model_close(&c);
}

/* The stamp rule (cache.h, Validity): a source last changed long before
 * its stamp is trusted on stat data; a recent one is hashed on every hit
 * until a hit finds it old enough and rewrites the file; hash_always
 * hashes every time. The recorded hash is mr_cache_hash of the whole
 * source, read in 1 MiB chunks (this BVH file is 2 MB). */
TEST(cache_trusts_old_stat_data_and_hashes_recent_sources)
{
    const char *old = "/usr/share/assimp/models/BVH/01_01.bvh";  /* installed long ago */
    use_cache();
    mr_model_destroy(load(old, NULL));
    mr_cache_stats before = stats_now();
    mr_model_destroy(load(old, NULL));
    mr_cache_stats st = stats_now();
    CHECK(st.hits == before.hits + 1 && st.hashed == before.hashed);
    char *file = mr_cache_file(old, NULL, 0);
    size_t n = 0, sn = 0;
    unsigned char *data = file ? (unsigned char *)mr_file_read(file, &n, NULL) : NULL;
    unsigned char *src = (unsigned char *)mr_file_read(old, &sn, NULL);
    CHECK(data && src && n > SOURCE0_HASH + 8 && sn > (1u << 20));
    if (data && src && n > SOURCE0_HASH + 8) {
        uint64_t h;
        memcpy(&h, data + SOURCE0_HASH, sizeof h);
        CHECK(h == mr_cache_hash(src, sn));
    }
    free(data);
    free(src);
    free(file);
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = dir, .hash_always = 1});
    mr_model_destroy(load(old, NULL));
    st = stats_now();
    CHECK(st.hits == 1 && st.hashed == 1);
    char *prev = getenv("MARROW_CACHE") ? mr_str_dup(getenv("MARROW_CACHE")) : NULL;
    setenv("MARROW_CACHE", "hash", 1);  /* the same from the environment */
    setenv("MARROW_CACHE_DIR", dir, 1);
    mr_cache_configure(NULL);
    mr_model_destroy(load(old, NULL));
    st = stats_now();
    CHECK(st.hits == 1 && st.hashed == 1);
    if (prev) setenv("MARROW_CACHE", prev, 1);
    else unsetenv("MARROW_CACHE");
    free(prev);
    unsetenv("MARROW_CACHE_DIR");

    /* its ctime is now; a small take, so that both loads (each packing
     * its clip before the cache file is written) end inside the 2 s
     * window, under the sanitizers on a busy machine too */
    char *p = copy_source("tests/data/bvh/minimal.bvh", "recent.bvh");
    use_cache();
    mr_model_destroy(load(p, NULL));
    mr_model_destroy(load(p, NULL));
    st = stats_now();
    CHECK(st.hits == 1 && st.hashed == 1 && st.refreshed == 0);
    free(p);
}

/* Slow (sleeps past the 2 s window): a recent source becomes trusted after
 * one refreshing hit; then an in-place rewrite of the same size with its
 * mtime restored changes ctime, so it is hashed and found stale, and an
 * identical copy renamed over it (new inode, same mtime) is hashed and
 * still answers. */
TEST(cache_recent_source_refreshed_then_rewrites_detected)
{
    char *p = short_take("aging.bvh", 0);
    char *q = mr_str_fmt("%s.copy", p);
    use_cache();
    mr_model_destroy(load(p, NULL));  /* writes: a recent stamp */
    struct timespec pause = {2, 300000000};
    nanosleep(&pause, NULL);
    mr_model_destroy(load(p, NULL));
    mr_cache_stats st = stats_now();
    CHECK(st.hits == 1 && st.hashed == 1 && st.refreshed == 1 && st.writes == 2);
    mr_model_destroy(load(p, NULL));
    st = stats_now();
    CHECK(st.hits == 2 && st.hashed == 1);  /* trusted now */

    size_t n = 0;
    char *data = mr_file_read(p, &n, NULL);
    struct stat before;
    CHECK(data && stat(p, &before) == 0);
    if (data && q) {
        /* an identical copy with the same mtime renamed over the source */
        mr_file_write(q, data, n, NULL);
        set_mtime(q, before.st_mtim.tv_sec, before.st_mtim.tv_nsec);
        CHECK(rename(q, p) == 0);
        mr_model_destroy(load(p, NULL));
        st = stats_now();
        CHECK(st.hits == 3 && st.hashed == 2);
        /* the same size and mtime, other content */
        int bumped = bump_key_digit(data);
    CHECK(bumped);
    if (bumped) {
            mr_file_write(p, data, n, NULL);
            set_mtime(p, before.st_mtim.tv_sec, before.st_mtim.tv_nsec);
            mr_model *m = load(p, NULL);
            st = stats_now();
            CHECK(m && st.hits == 3 && st.rejected == 1);
            check_matches_source(p, m);
        }
    }
    free(data);
    free(q);
    free(p);
}

TEST(cache_unwritable_folder_loads_uncached)
{
    /* a folder below a regular file can never be created (root included) */
    char *blocker = mr_str_fmt("%s/blocker", dir), *bad = mr_str_fmt("%s/blocker/cache", dir);
    mr_file_write(blocker, "x", 1, NULL);
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = bad});
    char *take = short_take("unwritable.bvh", 1);
    mr_model *a = load(take, NULL);
    mr_model *b = load(take, NULL);
    free(take);
    mr_cache_stats st;
    mr_cache_get_stats(&st);
    CHECK(a && b);
    CHECK(st.hits == 0 && st.writes == 0 && st.write_failures == 2);
    mr_model_destroy(a);
    mr_model_destroy(b);
    free(blocker);
    free(bad);
}

TEST(cache_off_writes_nothing)
{
    no_cache();
    CHECK(mr_cache_dir() == NULL);
    CHECK(mr_cache_file("models/mannequin.md5mesh", NULL, 0) == NULL);
    setenv("MARROW_CACHE", "0", 1);
    mr_cache_configure(NULL);
    CHECK(mr_cache_dir() == NULL);
    setenv("MARROW_CACHE", "1", 1);
    setenv("MARROW_CACHE_DIR", dir, 1);
    CHECK(mr_cache_dir() && !strcmp(mr_cache_dir(), dir));
    unsetenv("MARROW_CACHE_DIR");
    setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
    CHECK(mr_cache_dir() && !strcmp(mr_cache_dir(), "/tmp/xdg/marrow"));
    unsetenv("XDG_CACHE_HOME");
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_OFF});
}

TEST(cache_key_differs_by_anims_and_path)
{
    use_cache();
    char *a = mr_cache_file("models/mannequin.md5mesh", NULL, 0);
    const char *anim[1] = {"models/walk.md5anim"};
    char *b = mr_cache_file("models/mannequin.md5mesh", anim, 1);
    char *c = mr_cache_file("./models/../models/mannequin.md5mesh", NULL, 0);
    CHECK(a && b && c && strcmp(a, b) != 0 && !strcmp(a, c));
    free(a);
    free(b);
    free(c);
}

/* A model reached through a linked folder reads the file a load through
 * the folder itself wrote (a clone's ../shared and its link's target), but
 * a linked file named otherwise than its target has a file of its own:
 * its name names the clip (BVH: the file's stem). */
TEST(cache_key_resolves_linked_folders_not_linked_names)
{
    char cwd[4096];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    char *link_dir = mr_str_fmt("%s/linked_models", dir), *target = mr_str_fmt("%s/models", cwd);
    char *via_link = mr_str_fmt("%s/mannequin.md5mesh", link_dir);
    char *bvh_link = mr_str_fmt("%s/take_7.bvh", dir), *bvh = mr_str_fmt("%s/tests/data/bvh/minimal.bvh", cwd);
    unlink(link_dir);
    unlink(bvh_link);
    CHECK(symlink(target, link_dir) == 0);
    CHECK(symlink(bvh, bvh_link) == 0);
    char *a = mr_cache_file("models/mannequin.md5mesh", NULL, 0), *b = mr_cache_file(via_link, NULL, 0);
    char *c = mr_cache_file(bvh, NULL, 0), *d = mr_cache_file(bvh_link, NULL, 0);
    use_cache();
    CHECK(a && b && !strcmp(a, b));
    CHECK(c && d && strcmp(c, d) != 0);
    mr_model_destroy(load("models/mannequin.md5mesh", NULL));
    int hits = stats_hits();
    mr_model *m = load(via_link, NULL);
    CHECK(stats_hits() == hits + 1);
    check_matches_source(via_link, m);   /* (turns the cache off) */
    use_cache();
    mr_model_destroy(load(bvh, NULL));
    hits = stats_hits();
    m = load(bvh_link, NULL);
    CHECK(stats_hits() == hits);
    CHECK(m && m->clip_count == 1 && !strcmp(m->clips[0]->name, "take_7"));
    mr_model_destroy(m);
    unlink(link_dir);
    unlink(bvh_link);
    free(a);
    free(b);
    free(c);
    free(d);
    free(link_dir);
    free(target);
    free(via_link);
    free(bvh_link);
    free(bvh);
}

/* A cache file is keyed on the absolute source path, so a load by another
 * path (another working directory, an absolute path) reads the file a
 * relative load wrote: the texture paths must name the images from here. */
TEST(cache_texture_paths_follow_the_path_of_each_load)
{
    char cwd[4096];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    char *abs = mr_str_fmt("%s/models/mannequin.md5mesh", cwd);
    use_cache();
    mr_model_destroy(load("models/mannequin.md5mesh", NULL));   /* written with "models/..." paths */
    int hits = stats_hits();
    CHECK(chdir("/") == 0);
    mr_model *m = load(abs, NULL);
    CHECK(stats_hits() == hits + 1);
    CHECK(m && m->mesh_count > 0);
    for (int i = 0; m && i < m->mesh_count; i++) {
        const char *tex = m->meshes[i].material.diffuse_map;
        CHECK_MSG(tex && tex[0] == '/' && mr_file_exists(tex), "mesh %d texture '%s' from /", i, tex ? tex : "");
    }
    check_matches_source(abs, m);   /* the same strings as a source load by that path */
    CHECK(chdir(cwd) == 0);
    CHECK(chdir("models") == 0);
    use_cache();   /* counts from 0 again */
    m = load("mannequin.md5mesh", NULL);
    CHECK(stats_hits() == 1);
    for (int i = 0; m && i < m->mesh_count; i++) {
        const char *tex = m->meshes[i].material.diffuse_map;   /* "mannequin_body.png", ... */
        CHECK_MSG(tex && !strchr(tex, '/') && mr_file_exists(tex), "mesh %d texture '%s' from models/", i,
                  tex ? tex : "");
    }
    check_matches_source("mannequin.md5mesh", m);
    CHECK(chdir(cwd) == 0);
    free(abs);
}

/* A cached model stays an ordinary model: clips re-finished, markers and
 * clips added, warnings appended, then destroyed (ASan checks the frees). */
TEST(cache_model_mutations_after_a_cached_load)
{
    use_cache();
    mr_model_destroy(load("models/mannequin.md5mesh", "models/walk.md5anim"));
    mr_model *m = load("models/mannequin.md5mesh", "models/walk.md5anim");
    CHECK(m && m->cache_block && m->clip_count > 0);
    if (!m || m->clip_count == 0) {
        mr_model_destroy(m);
        return;
    }
    mr_clip *c = m->clips[0];
    CHECK(mr_clip_add_marker(c, 0.0f, "step") == MR_OK);
    mr_clip_finish(c);
    CHECK(c->runtime && c->runtime->pack);   /* packed again, at the default tolerance */
    mr_clip *extra = NULL;
    mr_clip_create("extra", m->skeleton.joint_count, &extra);
    CHECK(extra && mr_model_add_clip(m, extra) == MR_OK);
    mr_model_warn(m, "a warning after the load");
    CHECK(m->warning_count >= 1);
    mr_model_destroy(m);
}

/* Tracks keyed at the same times (every channel of a glTF export) share
 * one stored copy of them: the cached tracks point at it, and the poses
 * agree with the source load (round_trip). The runtime is the pack (no
 * played keys beside it). */
TEST(cache_shared_key_times_stored_once)
{
    const char *path = SHARED_MODELS "blender-3.4-gltf/thinmatrix_model.glb";
    if (!mr_file_exists(path)) return;
    use_cache();
    mr_model_destroy(load(path, NULL));
    mr_model *m = load(path, NULL);
    CHECK(m && m->cache_block && m->clip_count == 1);
    if (m && m->clip_count == 1) {
        const mr_clip *c = m->clips[0];
        const float *first[2] = {NULL, NULL};
        int channels = 0, shared = 0;
        for (int f = 0; f < 2; f++) {
            const mr_joint_tracks *jt = f ? (c->runtime ? c->runtime->played : NULL) : c->tracks;
            for (int j = 0; jt && j < c->joint_count; j++)
                for (int k = 0; k < 3; k++) {
                    const mr_track *t = k == 0 ? &jt[j].t : k == 1 ? &jt[j].r : &jt[j].s;
                    if (t->key_count == 0) continue;
                    if (!first[f]) first[f] = t->times;
                    channels++;
                    shared += t->times == first[f];
                }
        }
        CHECK(c->runtime && c->runtime->pack && !c->runtime->played);
        CHECK_MSG(channels == 48 && shared == 48, "%d of %d channels share their clip's key times", shared,
                  channels);
    }
    mr_model_destroy(m);
    no_cache();
}

/* A skinned model of joints joints and one mesh of v vertices whose
 * influences use slots slots (each with a weight, the first slots of every
 * vertex); rows repeat every `period` vertices (0: every row its own). */
static mr_model *synthetic_model(int joints, int v, int slots, int period)
{
    mr_model *m = NULL;
    if (mr_model_create("synthetic.md5mesh", "md5", &m) != MR_OK) return NULL;
    int ok = mr_skeleton_init(&m->skeleton, joints) == MR_OK;
    for (int j = 0; ok && j < joints; j++) {
        m->skeleton.parents[j] = j - 1;
        ok = (m->skeleton.names[j] = mr_str_fmt("j%d", j)) != NULL;
    }
    m->meshes = ok ? calloc(1, sizeof *m->meshes) : NULL;
    ok = m->meshes && mr_mesh_init(&m->meshes[0], v, 3, 1) == MR_OK;
    if (!ok) {
        mr_model_destroy(m);
        return NULL;
    }
    m->mesh_count = 1;
    mr_mesh *me = &m->meshes[0];
    for (int i = 0; i < v; i++) {
        int row = period ? i % period : i;
        me->positions[i][0] = (float)i;
        for (int k = 0; k < slots; k++) {
            me->joints[i][k] = (uint16_t)((row * 7 + k * 13 + 1) % joints);
            me->weights[i][k] = 1.0f / (float)(k + 2) + (float)row * 1e-3f;
        }
    }
    return m;
}

/* Writes model into the cache as the model of source (any file), then
 * returns the cached load of source (NULL when not answered by the cache). */
static mr_model *through_cache(const char *source, const mr_model *model)
{
    char *file = mr_cache_file(source, NULL, 0);
    if (file) unlink(file);
    free(file);
    mr_cache_session s;
    mr_model *hit = NULL;
    if (mr_cache_begin(&s, source, NULL, 0, &hit)) return hit;  /* not expected: the file was removed */
    mr_cache_end(&s, model);
    int hits = stats_hits();
    if (!mr_cache_begin(&s, source, NULL, 0, &hit)) {
        mr_cache_end(&s, NULL);
        return NULL;
    }
    return stats_hits() == hits + 1 ? hit : NULL;
}

/* An optimised clip is cached in its packed form (anim/clip_pack.h) and
 * samples the same poses from the cache file. */
TEST(cache_stores_packed_clips_as_they_are)
{
    const char *path = SHARED_MODELS "blender-3.4-gltf/thinmatrix_model.glb";
    if (!mr_file_exists(path)) return;
    no_cache();
    mr_model *m = load(path, NULL);
    CHECK(m && m->clip_count == 1);
    if (!m || m->clip_count != 1) {
        mr_model_destroy(m);
        return;
    }
    CHECK(mr_clip_optimize(m->clips[0], 0.0f) == MR_OK);
    const mr_clip_pack *pack = m->clips[0]->runtime->pack;
    CHECK(pack != NULL);
    use_cache();
    mr_model *hit = through_cache(path, m);
    CHECK(hit && hit->clip_count == 1);
    if (pack && hit && hit->clip_count == 1) {
        const mr_clip *c = hit->clips[0];
        const mr_clip_pack *cached = c->runtime ? c->runtime->pack : NULL;
        CHECK(cached && cached->bytes == pack->bytes && !memcmp(cached, pack, pack->bytes));
        CHECK(mr_clip_runtime_bytes(c) == pack->bytes);
        mr_pose a, b;
        mr_pose_init(&a, c->joint_count);
        mr_pose_init(&b, c->joint_count);
        int same = 1;
        for (int i = 0; i <= 40; i++) {
            float t = c->duration * (float)i / 40;
            CHECK(mr_clip_sample(m->clips[0], &m->skeleton, t, MR_WRAP_CLAMP, &a) == MR_OK);
            CHECK(mr_clip_sample(c, &hit->skeleton, t, MR_WRAP_CLAMP, &b) == MR_OK);
            same &= !memcmp(a.r[0], b.r[0], c->joint_count * sizeof *a.r) &&
                    !memcmp(a.t[0], b.t[0], c->joint_count * sizeof *a.t);
        }
        CHECK(same);
        mr_pose_deinit(&a);
        mr_pose_deinit(&b);
    }
    mr_model_destroy(hit);
    mr_model_destroy(m);
    no_cache();
}

/* A clip from the cache file optimises to the same packed block as the
 * clip of a source load (its budgets and the rest pose come back too), and
 * its skeleton has a serial of its own (skeleton.h). */
TEST(cache_loaded_clips_pack_as_source_loads_do)
{
    const char *path = SHARED_MODELS "tomatenquark-essential/packages/models/snoutx10k/snoutx10k.md5mesh";
    const char *anim = SHARED_MODELS "tomatenquark-essential/packages/models/snoutx10k/forward.md5anim";
    if (!mr_file_exists(path)) return;
    no_cache();
    mr_model *src = load(path, anim);
    use_cache();
    mr_model_destroy(load(path, anim));   /* writes the cache file */
    mr_model *hit = load(path, anim);
    CHECK(src && hit && hit->cache_block && src->clip_count == 1 && hit->clip_count == 1);
    /* a skeleton of its own for playback cursors, as a source load's */
    CHECK(src && hit && hit->skeleton.serial != 0 && hit->skeleton.serial != src->skeleton.serial);
    if (src && hit && src->clip_count == 1 && hit->clip_count == 1) {
        CHECK(mr_clip_optimize(src->clips[0], 0.0f) == MR_OK);
        CHECK(mr_clip_optimize(hit->clips[0], 0.0f) == MR_OK);
        const mr_clip_pack *a = src->clips[0]->runtime->pack, *b = hit->clips[0]->runtime->pack;
        CHECK(a && b && a->bytes == b->bytes && !memcmp(a, b, a->bytes));
    }
    mr_model_destroy(src);
    mr_model_destroy(hit);
    no_cache();
}

/* Influences of every slot count with one- and two-byte joints (more than
 * 256 joints), odd and even vertex counts, every row its own or rows
 * repeating (stored per vertex, or as distinct rows and a row per vertex):
 * the cached model has the same 8-slot arrays, whichever SIMD path widened
 * them. */
TEST(cache_influences_of_every_width_round_trip)
{
    use_cache();
    char *source = mr_str_fmt("%s/synthetic.md5mesh", dir);
    CHECK(source && mr_file_write(source, "not read: the cache only stamps it\n", 35, NULL) == MR_OK);
    char *file = source ? mr_cache_file(source, NULL, 0) : NULL;
    const int joint_counts[2] = {40, 300}, vertex_counts[4] = {1, 2, 37, 1000}, periods[2] = {0, 5};
    long sizes[2];
    for (int jc = 0; jc < 2; jc++)
        for (int slots = 0; slots <= MR_MAX_INFLUENCES; slots++)
            for (int vc = 0; vc < 4; vc++) {
                for (int pc = 0; pc < 2; pc++) {
                    mr_model *m = synthetic_model(joint_counts[jc], vertex_counts[vc], slots, periods[pc]);
                    mr_model *c = m && source ? through_cache(source, m) : NULL;
                    CHECK_MSG(c != NULL, "%d joints, %d slots, %d vertices, period %d: not cached",
                              joint_counts[jc], slots, vertex_counts[vc], periods[pc]);
                    if (m && c) check_same_model(m, c);
                    mr_model_destroy(m);
                    mr_model_destroy(c);
                    struct stat st;
                    sizes[pc] = file && stat(file, &st) == 0 ? (long)st.st_size : 0;
                }
                /* 1000 vertices sharing 5 rows: stored as the rows and a
                 * row number per vertex, at least half the bytes saved */
                long per_vertex = slots * ((jc ? 2 : 1) + 4);
                if (vertex_counts[vc] == 1000 && slots > 0)
                    CHECK_MSG(sizes[1] > 0 && sizes[1] + 1000 * per_vertex / 2 <= sizes[0],
                              "%d slots, %d joints: %ld bytes with 5 rows, %ld with 1000", slots,
                              joint_counts[jc], sizes[1], sizes[0]);
            }
    free(file);
    free(source);
    no_cache();
}

/* Both paths (AVX2 when the CPU has it, portable) give the same value,
 * for lengths of 0 to 15 blocks and every tail. */
TEST(cache_hash_avx2_and_portable_agree)
{
    unsigned char buf[1000];
    for (int i = 0; i < 1000; i++) buf[i] = (unsigned char)(i * 37 + 11);
    for (size_t n = 0; n <= 1000; n += 7) {
        CHECK(mr_cache_hash(buf, n) == mr_cache_hash_portable(buf, n));
        CHECK(mr_cache_hash_avx2(buf, n) == mr_cache_hash_portable(buf, n));
    }
    uint64_t h = mr_cache_hash(buf, 1000);
    buf[999] ^= 1;
    CHECK(mr_cache_hash(buf, 1000) != h);
    buf[999] ^= 1;
    buf[3] ^= 0x80;
    CHECK(mr_cache_hash(buf, 1000) != h);
    CHECK(mr_cache_hash(buf, 0) != mr_cache_hash(buf, 1));
}

/* What a checksum must see (cache.h): every single bit flipped, 64-byte
 * blocks swapped or one copied over another, a zeroed 4 KB page, a byte
 * removed from the end. */
TEST(cache_hash_sees_every_bit_and_block_order)
{
    enum { N = 8192 };
    unsigned char *buf = malloc(N), *copy = malloc(N);
    CHECK(buf && copy);
    if (!buf || !copy) goto done;
    uint32_t x = 12345;
    for (int i = 0; i < N; i++) buf[i] = (unsigned char)((x = x * 1664525u + 1013904223u) >> 24);
    uint64_t h = mr_cache_hash(buf, N);
    int missed = 0;
    for (int i = 0; i < N; i++)
        for (int bit = 0; bit < 8; bit++) {
            buf[i] ^= (unsigned char)(1 << bit);
            missed += mr_cache_hash(buf, N) == h;
            buf[i] ^= (unsigned char)(1 << bit);
        }
    CHECK_MSG(missed == 0, "%d of %d single-bit flips not seen", missed, N * 8);
    memcpy(copy, buf, N);
    for (int a = 0; a < N / 64; a += 7)
        for (int b = a + 1; b < N / 64; b += 13) {
            memcpy(copy + a * 64, buf + b * 64, 64);  /* swapped */
            memcpy(copy + b * 64, buf + a * 64, 64);
            CHECK_MSG(mr_cache_hash(copy, N) != h, "blocks %d and %d swapped", a, b);
            memcpy(copy + b * 64, buf + b * 64, 64);  /* a's place holds a copy of b */
            CHECK_MSG(mr_cache_hash(copy, N) != h, "block %d copied over %d", b, a);
            memcpy(copy + a * 64, buf + a * 64, 64);
        }
    memset(copy + 4096, 0, 4096);
    CHECK(mr_cache_hash(copy, N) != h);
    CHECK(mr_cache_hash(buf, N - 1) != h);
done:
    free(buf);
    free(copy);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The folder bound: after a write, the least recently used files go until
 * the rest fit, the file just written stays, stale temporaries marrow
 * wrote go. */
TEST(cache_folder_bounded_least_recently_used_go_first)
{
    char *folder = mr_str_fmt("%s/bounded", dir);
    char *src[5], *file[5];
    for (int i = 0; i < 5; i++) {
        char name[32];
        snprintf(name, sizeof name, "take%d.bvh", i);
        src[i] = copy_source("/usr/share/assimp/models/BVH/01_01.bvh", name);
    }
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = folder});
    for (int i = 0; i < 5; i++) file[i] = mr_cache_file(src[i], NULL, 0);
    mr_model_destroy(load(src[0], NULL));
    struct stat st;
    CHECK(stat(file[0], &st) == 0);
    uint64_t one = (uint64_t)st.st_size;
    /* Room for four and a half files (each within the per-entry quarter):
     * the fifth write must remove one. */
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = folder, .max_bytes = one * 9 / 2});
    for (int i = 1; i < 4; i++) mr_model_destroy(load(src[i], NULL));
    CHECK(exists(file[0]) && exists(file[1]) && exists(file[2]) && exists(file[3]) && stats_now().pruned == 0);
    for (int i = 0; i < 4; i++) set_mtime(file[i], time(NULL) - (i == 1 ? 4000 : 1000), 0);  /* file 1: oldest */
    /* temporary files an interrupted write left, one an hour old */
    char *stale = mr_str_fmt("%s.1.0.tmp", file[0]), *fresh = mr_str_fmt("%s.2.0.tmp", file[0]);
    size_t n = 0;
    char *image = mr_file_read(file[0], &n, NULL);
    CHECK(image && n > 100);
    mr_file_write(stale, image, 100, NULL);
    mr_file_write(fresh, image, 100, NULL);
    free(image);
    set_mtime(stale, time(NULL) - 7200, 0);
    mr_model_destroy(load(src[4], NULL));
    CHECK(exists(file[0]) && !exists(file[1]) && exists(file[2]) && exists(file[3]) && exists(file[4]));
    CHECK(stats_now().pruned == 1 && stats_now().writes == 4);
    CHECK(!exists(stale) && exists(fresh));
    /* The environment's bound when the config gives none. */
    setenv("MARROW_CACHE_MAX_MB", "0", 1);  /* not a bound: the default */
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = folder});
    mr_model_destroy(load(src[1], NULL));
    CHECK(exists(file[0]) && exists(file[1]) && exists(file[4]) && stats_now().pruned == 0);
    setenv("MARROW_CACHE_MAX_MB", "1", 1);  /* 1 MB: a file over 256 KB is not written */
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = folder});
    CHECK_MSG(one > (1u << 18), "a BVH cache file of %llu bytes: must exceed a quarter of 1 MB",
              (unsigned long long)one);
    unlink(file[0]);
    mr_model_destroy(load(src[0], NULL));
    CHECK(!exists(file[0]) && stats_now().too_large == 1 && stats_now().pruned == 0);
    unsetenv("MARROW_CACHE_MAX_MB");
    for (int i = 0; i < 5; i++) {
        free(src[i]);
        free(file[i]);
    }
    free(stale);
    free(fresh);
    free(folder);
    no_cache();
}

/* A small BVH source of its own (a few KB of cache file). */
static char *tiny_bvh(const char *name)
{
    static const char text[] = "HIERARCHY\nROOT hip\n{\n  OFFSET 0 0 0\n"
                               "  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
                               "  End Site\n  {\n    OFFSET 0 1 0\n  }\n}\n"
                               "MOTION\nFrames: 2\nFrame Time: 0.033333\n0 0 0 0 0 0\n1 0 0 0 0 0\n";
    char *sub = mr_str_fmt("%s/src", dir), *to = mr_str_fmt("%s/src/%s", dir, name);
    mkdir(sub, 0755);
    free(sub);
    if (to) mr_file_write(to, text, sizeof text - 1, NULL);
    return to;
}

/* Pruning removes only files marrow wrote: named marrow-<key>.mrc (or a
 * temporary of one) and starting with the cache magic. Foreign files in
 * the folder survive a bound that they alone exceed, however old. */
TEST(cache_prune_removes_only_files_marrow_wrote)
{
    char *folder = mr_str_fmt("%s/shared-names", dir);
    char *src[5], *file[5];
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = folder});
    for (int i = 0; i < 5; i++) {
        char name[32];
        snprintf(name, sizeof name, "tiny%d.bvh", i);
        src[i] = tiny_bvh(name);
        file[i] = mr_cache_file(src[i], NULL, 0);
    }
    const char *base = file[0] ? mr_path_basename(file[0]) : "";
    CHECK_MSG(!strncmp(base, "marrow-", 7) && strlen(base) == 7 + 16 + 4, "cache file named '%s'", base);
    for (int i = 0; i < 4; i++) {
        mr_model_destroy(load(src[i], NULL));
        set_mtime(file[i], time(NULL) - (i == 0 ? 6 : 5) * 86400, 0);  /* file 0 used longest ago */
    }
    struct stat st;
    CHECK(stat(file[0], &st) == 0);
    uint64_t one = (uint64_t)st.st_size;
    const char *names[] = {"x.mrc", "y.tmp", "x.1.0.tmp", "marrow-0123456789abcdef.mrc",
                           "marrow-0123456789abcdef.mrc.7.0.tmp", "marrow-0123456789ABCDEF.mrc", "notes.txt"};
    enum { NAMES = sizeof names / sizeof names[0] };
    char *foreign[NAMES];
    for (int i = 0; i < NAMES; i++) {
        foreign[i] = mr_str_fmt("%s/%s", folder, names[i]);
        char junk[4096] = "not marrow's";  /* no magic; together over the bound */
        if (foreign[i]) mr_file_write(foreign[i], junk, sizeof junk, NULL);
        set_mtime(foreign[i], time(NULL) - 10 * 86400, 0);  /* ten days old: first to go, were they ours */
    }
    /* Room for four and a half of ours: the fifth write removes file 0 and
     * nothing else. */
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = folder, .max_bytes = one * 9 / 2});
    CHECK_MSG(NAMES * 4096 > one * 9 / 2, "the foreign files (%d bytes) must exceed the bound (%llu)", NAMES * 4096,
              (unsigned long long)(one * 9 / 2));
    mr_model_destroy(load(src[4], NULL));
    CHECK(!exists(file[0]) && exists(file[1]) && exists(file[4]) && stats_now().pruned == 1);
    for (int i = 0; i < NAMES; i++) CHECK_MSG(exists(foreign[i]), "foreign %s was removed", names[i]);
    for (int i = 0; i < NAMES; i++) free(foreign[i]);
    for (int i = 0; i < 5; i++) {
        free(src[i]);
        free(file[i]);
    }
    free(folder);
    no_cache();
}

/* A cache file is used only when this user owns it and no one else may
 * write it, and it is a regular file reached without a link; the folder
 * likewise, else the cache is not used at all. A folder the cache creates
 * is 0700, its files 0600. */
TEST(cache_refuses_files_and_folders_others_can_write)
{
    char *path = short_take("mine.bvh", 1);
    char *folder = mr_str_fmt("%s/mine/cache", dir);
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = folder});
    mr_model_destroy(load(path, NULL));
    char *file = mr_cache_file(path, NULL, 0);
    struct stat st;
    CHECK_MSG(stat(folder, &st) == 0 && (st.st_mode & 0777) == 0700, "folder mode %o", (unsigned)st.st_mode & 0777);
    CHECK_MSG(stat(file, &st) == 0 && (st.st_mode & 0077) == 0, "file mode %o", (unsigned)st.st_mode & 0777);
    mr_model_destroy(load(path, NULL));
    CHECK(stats_hits() == 1);
    /* a group-writable file: ignored, then replaced by the load's own */
    chmod(file, 0664);
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = folder});
    mr_model *m = load(path, NULL);
    CHECK(m && stats_hits() == 0 && stats_now().rejected == 1 && stats_now().writes == 1);
    CHECK_STR_CONTAINS(mr_cache_rejection(), "writable");
    mr_model_destroy(m);
    mr_model_destroy(load(path, NULL));
    CHECK(stats_hits() == 1);
    /* a link named like the cache file, to a good cache file: not followed */
    char *moved = mr_str_fmt("%s/elsewhere", dir);
    CHECK(rename(file, moved) == 0 && symlink(moved, file) == 0);
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = folder});
    mr_model_destroy(load(path, NULL));
    CHECK(stats_hits() == 0 && stats_now().rejected == 1);
    mr_model_destroy(load(path, NULL));
    CHECK(stats_hits() == 1);  /* the link was replaced by a file */
    /* a file of another user (only root can make one) */
    if (geteuid() == 0) {
        CHECK(chown(file, 12345, 12345) == 0);
        mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = folder});
        mr_model_destroy(load(path, NULL));
        CHECK(stats_hits() == 0 && stats_now().rejected == 1);
        CHECK_STR_CONTAINS(mr_cache_rejection(), "owned by");
    } else {
        printf("       skipped: a file of another user needs root\n");
    }
    /* a folder others may write, or another user's: no cache at all */
    for (int k = 0; k < 2; k++) {
        if (k == 0) CHECK(chmod(folder, 0777) == 0);
        else if (geteuid() != 0) break;
        else CHECK(chmod(folder, 0700) == 0 && chown(folder, 12345, 12345) == 0);
        mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = folder});
        unlink(file);
        mr_model_destroy(load(path, NULL));
        mr_model_destroy(load(path, NULL));
        CHECK_MSG(stats_hits() == 0 && stats_now().writes == 0 && !exists(file), "folder case %d used", k);
    }
    free(moved);
    free(file);
    free(folder);
    free(path);
    no_cache();
}

/* In a child process that an alarm kills after a minute: with
 * whole_load, loads path (which must load); else only asks the cache
 * about it (mr_cache_begin: the cache file, the fingerprint of the
 * source), which must answer "not cached" (the loader's own opening of a
 * source is not the cache's). Returns 1 when that came back. */
static int loads_without_hanging(const char *path, int whole_load)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(60);  /* a guard against a hang, not a measurement */
        mr_model *m = NULL;
        mr_error err = {0};
        int ok;
        if (whole_load) {
            ok = mr_load_model(path, NULL, 0, &m, &err) == MR_OK;
        } else {
            mr_cache_session s;
            ok = mr_cache_begin(&s, path, NULL, 0, &m) == 0;
            mr_cache_end(&s, NULL);
        }
        mr_model_destroy(m);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* A FIFO where the cache file or a source should be is never opened for a
 * blocking read: the load goes on (from the source) or fails, it does not
 * hang. */
TEST(cache_fifo_in_place_of_cache_file_or_source_does_not_hang)
{
    use_cache();
    char *src = short_take("fifo.bvh", 0);
    char *file = mr_cache_file(src, NULL, 0);
    unlink(file);
    CHECK(mkfifo(file, 0600) == 0);
    CHECK_MSG(loads_without_hanging(src, 1), "a FIFO named like the cache file");
    char *pipe_src = mr_str_fmt("%s/src/pipe.bvh", dir);
    CHECK(mkfifo(pipe_src, 0600) == 0);
    CHECK_MSG(loads_without_hanging(pipe_src, 0), "a FIFO as the source, fingerprinted");
    unlink(file);
    free(file);
    free(src);
    free(pipe_src);
    no_cache();
}

/* No single cache file takes more than a quarter of the folder's bound: a
 * larger model is not written (so it cannot empty the cache), and a file
 * over that size already there is not read. */
TEST(cache_entry_over_a_quarter_of_the_bound_not_written)
{
    char *folder = mr_str_fmt("%s/capped", dir);
    char *src[3], *file[3];
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "cap%d.bvh", i);
        src[i] = short_take(name, 0);
    }
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = folder});
    for (int i = 0; i < 3; i++) file[i] = mr_cache_file(src[i], NULL, 0);
    mr_model_destroy(load(src[0], NULL));
    mr_model_destroy(load(src[1], NULL));
    struct stat st;
    CHECK(stat(file[0], &st) == 0);
    uint64_t one = (uint64_t)st.st_size;
    /* room for two and a half files, but each over a quarter of that */
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = folder, .max_bytes = one * 5 / 2});
    mr_model *m = load(src[2], NULL);
    CHECK(m && !exists(file[2]) && stats_now().writes == 0 && stats_now().too_large == 1);
    CHECK(exists(file[0]) && exists(file[1]) && stats_now().pruned == 0);
    mr_model_destroy(m);
    m = load(src[0], NULL);  /* its file is over the quarter now: not read */
    CHECK(m && stats_hits() == 0);
    CHECK_STR_CONTAINS(mr_cache_rejection(), "too large");
    mr_model_destroy(m);
    for (int i = 0; i < 3; i++) {
        free(src[i]);
        free(file[i]);
    }
    free(folder);
    no_cache();
}

static void remove_tree(const char *d)
{
    char *cmd = mr_str_fmt("rm -rf '%s'", d);
    if (cmd && system(cmd) != 0) printf("       could not remove %s\n", d);
    free(cmd);
}

int main(void)
{
    umask(022);  /* files the tests write are not group-writable, whatever the caller's umask */
    strcpy(dir, "/tmp/marrow-test-cache-XXXXXX");
    if (!mkdtemp(dir)) return 1;
    RUN(cache_round_trip_md5_mesh_and_anim);
    RUN(cache_round_trip_collada_astroboy);
    RUN(cache_round_trip_collada_thinmatrix);
    RUN(cache_round_trip_gltf_binary_with_embedded_images);
    RUN(cache_round_trip_gltf_thinmatrix);
    RUN(cache_round_trip_bvh);
    RUN(cache_round_trip_fbx_blended_dual_quaternion_skin);
    RUN(cache_round_trip_project_mannequin_md5);
    RUN(cache_invalidated_by_mtime_and_by_same_size_content_change);
    RUN(cache_truncated_at_every_sixteenth_falls_back_and_is_replaced);
    RUN(cache_flipped_bytes_fall_back);
    RUN(cache_older_version_rejected_and_rebuilt);
    RUN(cache_rehashed_damage_rejected_by_range_checks);
    RUN(cache_point_reach_below_zero_or_nan_rejected);
    RUN(cache_rest_pose_and_key_times_checked_as_a_loader_does);
    RUN(cache_trusts_old_stat_data_and_hashes_recent_sources);
    RUN(cache_recent_source_refreshed_then_rewrites_detected);
    RUN(cache_unwritable_folder_loads_uncached);
    RUN(cache_off_writes_nothing);
    RUN(cache_key_differs_by_anims_and_path);
    RUN(cache_key_resolves_linked_folders_not_linked_names);
    RUN(cache_texture_paths_follow_the_path_of_each_load);
    RUN(cache_model_mutations_after_a_cached_load);
    RUN(cache_shared_key_times_stored_once);
    RUN(cache_stores_packed_clips_as_they_are);
    RUN(cache_loaded_clips_pack_as_source_loads_do);
    RUN(cache_influences_of_every_width_round_trip);
    RUN(cache_hash_avx2_and_portable_agree);
    RUN(cache_hash_sees_every_bit_and_block_order);
    RUN(cache_folder_bounded_least_recently_used_go_first);
    RUN(cache_prune_removes_only_files_marrow_wrote);
    RUN(cache_refuses_files_and_folders_others_can_write);
    RUN(cache_fifo_in_place_of_cache_file_or_source_does_not_hang);
    RUN(cache_entry_over_a_quarter_of_the_bound_not_written);
    mr_cache_configure(NULL);
    remove_tree(dir);
    return test_summary("cache");
}
