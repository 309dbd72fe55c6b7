/* test_membound.c — the readers' memory stays bounded by their input.
 *
 * A reader may hold a small multiple of its file's size plus a constant
 * (MEMBOUND_FACTOR x bytes + MEMBOUND_CONST), never what a count in the file
 * claims: a 1 KB file declaring 2^31 vertices is refused before anything of
 * that size is asked for.
 *
 * How peak memory is measured: a counting allocator, not peak RSS. RSS misses
 * exactly the failure we look for: calloc of a huge block gets fresh mmap'd
 * zero pages that count nothing until touched, so a reader could reserve
 * gigabytes and still look small. This binary therefore defines malloc,
 * calloc, realloc, free and the aligned variants itself, forwarding to glibc
 * (__libc_*) and adding up malloc_usable_size of every live block, for the
 * whole process (so libxml2's DOM counts too). Under AddressSanitizer (make
 * asan) the same counts come from ASan's allocation hooks instead.
 * Peak = the highest live total during one load, minus the total before it.
 *
 * Corpora: every file of tests/bad/md5, tests/bad/collada and
 * tests/data/bvh/bad, tests/data/gltf/bad, the invalid
 * MD5 files of ../shared/models/assimp/test/models/MD5/invalid, and files
 * generated here that claim huge counts (joints, meshes, vertices,
 * triangles, weights, frames (MD5 and BVH), components, array and accessor counts) in a
 * few hundred bytes. Valid models are measured too (they must fit the same
 * bound), and the generated ones must be refused.
 */
#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>

#include "core/file.h"
#include "formats/bvh.h"
#include "formats/collada.h"
#include "formats/gltf.h"
#include "formats/load.h"
#include "formats/md5.h"
#include "test.h"

/* The bound: 8 x the input plus 4 MiB. Measured: the mannequin's 1.1 MB
 * .dae peaks at 4.7x (libxml2's DOM plus the model), its .md5mesh at 1.9x;
 * refused files of under 2 KB peak at 1.5 KB (MD5) and 42 KB (COLLADA). */
#define MEMBOUND_FACTOR 8
#define MEMBOUND_CONST ((size_t)4 << 20)

/* ---- counting allocator -------------------------------------------------- */

static _Atomic size_t live_bytes, peak_bytes;
static int counting_works;   /* set once an allocation was seen */

static void count_add(size_t n)
{
    size_t now = atomic_fetch_add(&live_bytes, n) + n;
    size_t peak = atomic_load(&peak_bytes);
    while (now > peak && !atomic_compare_exchange_weak(&peak_bytes, &peak, now)) {
    }
}

static void count_sub(size_t n) { atomic_fetch_sub(&live_bytes, n); }

#if defined(__SANITIZE_ADDRESS__)
#define MEMBOUND_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEMBOUND_ASAN 1
#endif
#endif

#ifdef MEMBOUND_ASAN
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));
size_t __sanitizer_get_allocated_size(const volatile void *p);

static void on_malloc(const volatile void *p, size_t n)
{
    (void)p;
    count_add(n);
}

static void on_free(const volatile void *p)
{
    if (p) count_sub(__sanitizer_get_allocated_size(p));
}

static void counting_start(void) { __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free); }
#else
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static void counting_start(void) {}

void *malloc(size_t n)
{
    void *p = __libc_malloc(n);
    if (p) count_add(malloc_usable_size(p));
    return p;
}

void *calloc(size_t n, size_t size)
{
    void *p = __libc_calloc(n, size);
    if (p) count_add(malloc_usable_size(p));
    return p;
}

void *realloc(void *old, size_t n)
{
    size_t before = old ? malloc_usable_size(old) : 0;
    void *p = __libc_realloc(old, n);
    if (p) {
        count_sub(before);
        count_add(malloc_usable_size(p));
    } else if (old && n == 0) {
        count_sub(before);
    }
    return p;
}

void free(void *p)
{
    if (p) count_sub(malloc_usable_size(p));
    __libc_free(p);
}

void *memalign(size_t align, size_t n)
{
    void *p = __libc_memalign(align, n);
    if (p) count_add(malloc_usable_size(p));
    return p;
}

void *aligned_alloc(size_t align, size_t n) { return memalign(align, n); }

int posix_memalign(void **out, size_t align, size_t n)
{
    void *p = memalign(align, n);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return 0;
}
#endif

/* ---- measuring one load --------------------------------------------------- */

typedef mr_status (*load_fn)(const char *path, const char *text, size_t len, mr_model **out, mr_error *err);

static size_t worst_small_peak;     /* largest peak for an input under 4 KB */
static double worst_ratio;          /* largest peak / size for inputs of 4 KB and more */
static char worst_name[256];

/* Runs one load, returns the peak of live bytes above what was live before. */
static size_t measure(load_fn fn, const char *path, const char *text, size_t len, mr_status *st, char *msg,
                      size_t msg_size)
{
    size_t base = atomic_load(&live_bytes);
    atomic_store(&peak_bytes, base);
    mr_model *m = NULL;
    mr_error err = {0};
    *st = fn(path, text, len, &m, &err);
    size_t peak = atomic_load(&peak_bytes) - base;
    if (m) mr_model_destroy(m);
    if (msg) snprintf(msg, msg_size, "%s", *st == MR_OK ? "" : err.msg);
    if (atomic_load(&live_bytes) > 0) counting_works = 1;
    return peak;
}

static void check_bound(const char *name, size_t len, size_t peak)
{
    size_t bound = MEMBOUND_FACTOR * len + MEMBOUND_CONST;
    CHECK_MSG(peak <= bound, "%s: %zu bytes peak for a %zu-byte input (bound %zu)", name, peak, len, bound);
    if (len < 4096 && peak > worst_small_peak) worst_small_peak = peak;
    double ratio = len >= 4096 ? (double)peak / (double)len : 0;
    if (ratio > worst_ratio) {
        worst_ratio = ratio;
        snprintf(worst_name, sizeof worst_name, "%s", name);
    }
}

/* Loaders over text in memory. */
static mr_status parse_mesh(const char *path, const char *text, size_t len, mr_model **out, mr_error *err)
{
    return mr_md5_parse_mesh(path, text, len, out, err);
}

static mr_status parse_dae(const char *path, const char *text, size_t len, mr_model **out, mr_error *err)
{
    return mr_collada_parse(path, text, len, out, err);
}

static mr_status parse_bvh(const char *path, const char *text, size_t len, mr_model **out, mr_error *err)
{
    return mr_bvh_parse(path, text, len, out, err);
}

static mr_status parse_gltf(const char *path, const char *text, size_t len, mr_model **out, mr_error *err)
{
    return mr_gltf_parse(path, text, len, out, err);
}

/* Anims are read against a two-joint skeleton, as tests/bad/md5 expects. */
static const char PAIR_MESH[] = "MD5Version 10\ncommandline \"\"\nnumJoints 2\nnumMeshes 0\njoints {\n"
                                "\t\"root\"\t-1 ( 0 0 0 ) ( 0 0 0 )\n"
                                "\t\"child\"\t0 ( 0 0 10 ) ( 0 0 0 )\n}\n";

static mr_status parse_anim(const char *path, const char *text, size_t len, mr_model **out, mr_error *err)
{
    mr_model *pair = NULL;
    mr_status st = mr_md5_parse_mesh("pair.md5mesh", PAIR_MESH, sizeof PAIR_MESH - 1, &pair, err);
    if (st != MR_OK) return st;
    st = mr_md5_parse_anim(pair, path, NULL, text, len, err);
    *out = pair;   /* freed by measure(), with the clip when it loaded */
    return st;
}

/* Whole-file loads (reading the file counts too). */
static mr_status load_file(const char *path, const char *text, size_t len, mr_model **out, mr_error *err)
{
    (void)text;
    (void)len;
    return mr_load_model(path, NULL, 0, out, err);
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* Measures every .md5mesh/.md5anim/.dae/.gltf/.glb in dir; returns how many. */
static int measure_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int count = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        load_fn fn = NULL;
        if (has_suffix(de->d_name, ".md5mesh")) fn = parse_mesh;
        else if (has_suffix(de->d_name, ".md5anim")) fn = parse_anim;
        else if (has_suffix(de->d_name, ".dae")) fn = parse_dae;
        else if (has_suffix(de->d_name, ".bvh")) fn = parse_bvh;
        else if (has_suffix(de->d_name, ".gltf") || has_suffix(de->d_name, ".glb")) fn = parse_gltf;
        if (!fn) continue;
        size_t len;
        mr_error ioerr;
        char *text = mr_file_read(path, &len, &ioerr);
        CHECK_MSG(text, "%s", ioerr.msg);
        if (!text) continue;
        mr_status st;
        size_t peak = measure(fn, path, text, len, &st, NULL, 0);
        check_bound(path, len, peak);
        free(text);
        count++;
    }
    closedir(d);
    return count;
}

/* The measurement itself: an untouched 32 MiB calloc (no RSS) counts. */
static mr_status fake_greedy_load(const char *path, const char *text, size_t len, mr_model **out, mr_error *err)
{
    (void)path, (void)text, (void)len, (void)err;
    void *volatile block = calloc(1, (size_t)32 << 20);
    free(block);
    *out = NULL;
    return MR_OK;
}

TEST(counting_sees_an_untouched_calloc)
{
    mr_status st;
    size_t peak = measure(fake_greedy_load, "greedy", NULL, 0, &st, NULL, 0);
    CHECK_MSG(peak >= ((size_t)32 << 20), "peak %zu", peak);
    CHECK(peak > MEMBOUND_FACTOR * 1024 + MEMBOUND_CONST);  /* a 1 KB reader doing this fails */
}

TEST(bad_corpora_stay_within_the_bound)
{
    int n = measure_dir("tests/bad/md5") + measure_dir("tests/bad/collada");
    CHECK(n >= 90);
    CHECK(counting_works);
}

TEST(bad_bvh_corpus_stays_within_the_bound)
{
    CHECK(measure_dir("tests/data/bvh/bad") >= 25);
}

TEST(gltf_bad_files_stay_within_the_bound)
{
    CHECK(measure_dir("tests/data/gltf/bad") >= 18);
}

TEST(assimp_invalid_md5_stay_within_the_bound)
{
    int n = measure_dir(SHARED_MODELS "assimp/test/models/MD5/invalid");
    CHECK(n == 4);
}

/* ---- generated files claiming huge counts --------------------------------- */

/* A valid mesh: 2 joints, one mesh of 3 vertices, 1 triangle, 3 weights. */
static const char MESH[] =
    "MD5Version 10\ncommandline \"\"\nnumJoints 2\nnumMeshes 1\njoints {\n"
    "\t\"root\"\t-1 ( 0 0 0 ) ( 0 0 0 )\n\t\"child\"\t0 ( 0 0 10 ) ( 0 0 0 )\n}\n"
    "mesh {\n\tshader \"skin\"\n\tnumverts 3\n"
    "\tvert 0 ( 0 0 ) 0 1\n\tvert 1 ( 1 0 ) 1 1\n\tvert 2 ( 0 1 ) 2 1\n"
    "\tnumtris 1\n\ttri 0 0 1 2\n\tnumweights 3\n"
    "\tweight 0 0 1 ( 0 0 0 )\n\tweight 1 1 1 ( 1 0 0 )\n\tweight 2 1 1 ( 0 1 0 )\n}\n";

/* A valid anim for PAIR_MESH: 2 frames, 4 animated components. */
static const char ANIM[] =
    "MD5Version 10\ncommandline \"\"\nnumFrames 2\nnumJoints 2\nframeRate 24\nnumAnimatedComponents 4\n"
    "hierarchy {\n\t\"root\"\t-1 1 0\n\t\"child\"\t0 56 1\n}\n"
    "bounds {\n\t( -1 -1 -1 ) ( 1 1 11 )\n\t( -1 -1 -1 ) ( 1 1 11 )\n}\n"
    "baseframe {\n\t( 0 0 0 ) ( 0 0 0 )\n\t( 0 0 10 ) ( 0 0 0 )\n}\n"
    "frame 0 {\n\t0 0 0 0\n}\nframe 1 {\n\t1 0.1 0 0\n}\n";

/* A valid skinned, animated triangle. */
static const char DAE[] =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
    "<asset><unit meter=\"1\"/><up_axis>Y_UP</up_axis></asset>\n"
    "<library_geometries><geometry id=\"tri\"><mesh>\n"
    "<source id=\"pos\"><float_array id=\"pos-a\" count=\"9\">0 0 0 1 0 0 0 1 0</float_array>\n"
    "<technique_common><accessor source=\"#pos-a\" count=\"3\" stride=\"3\"/></technique_common></source>\n"
    "<vertices id=\"vtx\"><input semantic=\"POSITION\" source=\"#pos\"/></vertices>\n"
    "<triangles count=\"1\"><input semantic=\"VERTEX\" source=\"#vtx\" offset=\"0\"/><p>0 1 2</p></triangles>\n"
    "</mesh></geometry></library_geometries>\n"
    "<library_controllers><controller id=\"ctrl\"><skin source=\"#tri\">\n"
    "<source id=\"jn\"><Name_array id=\"jn-a\" count=\"1\">j0</Name_array>\n"
    "<technique_common><accessor source=\"#jn-a\" count=\"1\"/></technique_common></source>\n"
    "<source id=\"ibm\"><float_array id=\"ibm-a\" count=\"16\">1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1</float_array>\n"
    "<technique_common><accessor source=\"#ibm-a\" count=\"1\" stride=\"16\"/></technique_common></source>\n"
    "<source id=\"w\"><float_array id=\"w-a\" count=\"1\">1</float_array>\n"
    "<technique_common><accessor source=\"#w-a\" count=\"1\"/></technique_common></source>\n"
    "<joints><input semantic=\"JOINT\" source=\"#jn\"/><input semantic=\"INV_BIND_MATRIX\" source=\"#ibm\"/></joints>\n"
    "<vertex_weights count=\"3\"><input semantic=\"JOINT\" source=\"#jn\" offset=\"0\"/>"
    "<input semantic=\"WEIGHT\" source=\"#w\" offset=\"1\"/>\n"
    "<vcount>1 1 1</vcount><v>0 0 0 0 0 0</v></vertex_weights>\n"
    "</skin></controller></library_controllers>\n"
    "<library_animations><animation id=\"a\">\n"
    "<source id=\"in\"><float_array id=\"in-a\" count=\"2\">0 1</float_array>\n"
    "<technique_common><accessor source=\"#in-a\" count=\"2\"/></technique_common></source>\n"
    "<source id=\"out\"><float_array id=\"out-a\" count=\"6\">0 0 0 1 0 0</float_array>\n"
    "<technique_common><accessor source=\"#out-a\" count=\"2\" stride=\"3\"/></technique_common></source>\n"
    "<sampler id=\"s\"><input semantic=\"INPUT\" source=\"#in\"/><input semantic=\"OUTPUT\" source=\"#out\"/></sampler>\n"
    "<channel source=\"#s\" target=\"j0/t\"/></animation></library_animations>\n"
    "<library_visual_scenes><visual_scene id=\"scene\">\n"
    "<node id=\"n\"><instance_controller url=\"#ctrl\"><skeleton>#j0</skeleton></instance_controller></node>\n"
    "<node id=\"j0\" sid=\"j0\" type=\"JOINT\"><translate sid=\"t\">0 0 0</translate></node>\n"
    "</visual_scene></library_visual_scenes>\n"
    "<scene><instance_visual_scene url=\"#scene\"/></scene>\n"
    "</COLLADA>\n";

/* A valid BVH: a root with 6 channels, a joint with 3, an End Site, 2 frames. */
static const char BVH[] =
    "HIERARCHY\nROOT Hips\n{\n\tOFFSET 0 0 0\n"
    "\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
    "\tJOINT Chest\n\t{\n\t\tOFFSET 0 10 0\n\t\tCHANNELS 3 Zrotation Xrotation Yrotation\n"
    "\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0 5 0\n\t\t}\n\t}\n}\n"
    "MOTION\nFrames: 2\nFrame Time: 0.05\n0 20 0 0 0 0 0 0 0\n1 20 0 10 0 0 5 0 0\n";

/* Copies tmpl with the first occurrence of from replaced by to. */
static char *replace(const char *tmpl, const char *from, const char *to)
{
    const char *at = strstr(tmpl, from);
    if (!at) return NULL;
    size_t a = (size_t)(at - tmpl), f = strlen(from), t = strlen(to), n = strlen(tmpl);
    char *s = malloc(n - f + t + 1);
    if (!s) return NULL;
    memcpy(s, tmpl, a);
    memcpy(s + a, to, t);
    memcpy(s + a + t, at + f, n - a - f + 1);
    return s;
}

typedef struct claim {
    const char *from, *to;   /* with %s where the count goes */
} claim;

/* 2^31 - 1, 2^24 (16 M: below the 1 GiB allocation limit for most element
 * sizes, so only a check against the file's size refuses it) and 2^20. */
static const char *const COUNTS[] = {"2147483647", "16777216", "1048576"};

static int run_claims(const char *kind, const char *tmpl, load_fn fn, const claim *claims, int n)
{
    mr_status st;
    size_t len = strlen(tmpl);
    size_t peak = measure(fn, kind, tmpl, len, &st, NULL, 0);
    CHECK_MSG(st == MR_OK, "%s: the template itself must load", kind);
    check_bound(kind, len, peak);
    int count = 0;
    for (int i = 0; i < n; i++) {
        for (int c = 0; c < (int)(sizeof COUNTS / sizeof COUNTS[0]); c++) {
            char to[128], name[160], msg[sizeof ((mr_error *)0)->msg];
            snprintf(to, sizeof to, claims[i].to, COUNTS[c]);
            char *text = replace(tmpl, claims[i].from, to);
            CHECK_MSG(text, "%s: '%s' not in the template", kind, claims[i].from);
            if (!text) continue;
            snprintf(name, sizeof name, "%s [%s]", kind, to);
            len = strlen(text);
            peak = measure(fn, name, text, len, &st, msg, sizeof msg);
            CHECK_MSG(st == MR_ERR_BAD_FILE, "%s: status %d, expected a refusal", name, st);
            check_bound(name, len, peak);
            if (getenv("MEMBOUND_VERBOSE")) printf("  %-48s %9zu bytes  %s\n", name, peak, msg);
            free(text);
            count++;
        }
    }
    return count;
}

TEST(md5mesh_huge_counts_are_refused_within_the_bound)
{
    static const claim c[] = {
        {"numJoints 2", "numJoints %s"},
        {"numMeshes 1", "numMeshes %s"},
        {"numverts 3", "numverts %s"},
        {"numtris 1", "numtris %s"},
        {"numweights 3", "numweights %s"},
        {"vert 2 ( 0 1 ) 2 1", "vert 2 ( 0 1 ) 2 %s"},
    };
    CHECK(run_claims("generated.md5mesh", MESH, parse_mesh, c, (int)(sizeof c / sizeof c[0])) == 18);
}

TEST(md5anim_huge_counts_are_refused_within_the_bound)
{
    static const claim c[] = {
        {"numFrames 2", "numFrames %s"},
        {"numJoints 2", "numJoints %s"},
        {"numAnimatedComponents 4", "numAnimatedComponents %s"},
        {"\t\"child\"\t0 56 1", "\t\"child\"\t0 56 %s"},
    };
    CHECK(run_claims("generated.md5anim", ANIM, parse_anim, c, (int)(sizeof c / sizeof c[0])) == 12);
}

TEST(collada_huge_counts_are_refused_within_the_bound)
{
    static const claim c[] = {
        {"id=\"pos-a\" count=\"9\"", "id=\"pos-a\" count=\"%s\""},
        {"source=\"#pos-a\" count=\"3\"", "source=\"#pos-a\" count=\"%s\""},
        {"<triangles count=\"1\"", "<triangles count=\"%s\""},
        {"id=\"jn-a\" count=\"1\"", "id=\"jn-a\" count=\"%s\""},
        {"<vertex_weights count=\"3\"", "<vertex_weights count=\"%s\""},
        {"<vcount>1 1 1</vcount>", "<vcount>1 1 %s</vcount>"},
        {"source=\"#in-a\" count=\"2\"", "source=\"#in-a\" count=\"%s\""},
        {"id=\"out-a\" count=\"6\"", "id=\"out-a\" count=\"%s\""},
        {"source=\"#ibm-a\" count=\"1\" stride=\"16\"", "source=\"#ibm-a\" count=\"1\" stride=\"%s\""},
    };
    CHECK(run_claims("generated.dae", DAE, parse_dae, c, (int)(sizeof c / sizeof c[0])) == 27);
}

TEST(bvh_huge_counts_are_refused_within_the_bound)
{
    static const claim c[] = {
        {"Frames: 2", "Frames: %s"},
        {"CHANNELS 3 Zrotation", "CHANNELS %s Zrotation"},
    };
    CHECK(run_claims("generated.bvh", BVH, parse_bvh, c, (int)(sizeof c / sizeof c[0])) == 6);
}

/* Real models load within the same bound (file read included). */
TEST(valid_models_stay_within_the_bound)
{
    static const char *const files[] = {
        "models/mannequin.md5mesh",
        "models/mannequin.dae",
        "models/sword.md5mesh",
        SHARED_MODELS "assimp/test/models-nonbsd/MD5/Bob.md5mesh",
        "/usr/share/assimp/models/BVH/01_01.bvh",
        "tests/data/bvh/order_zxy.bvh",
        SHARED_MODELS "blender-3.4-gltf/astroBoy_walk.glb",
        SHARED_MODELS "blender-3.4-gltf/thinmatrix_model.glb",
        SHARED_MODELS "blender-3.4-gltf/magnum_skin.gltf",
        "tests/data/gltf/hard.gltf",
    };
    for (int i = 0; i < (int)(sizeof files / sizeof files[0]); i++) {
        size_t len;
        mr_error ioerr;
        char *text = mr_file_read(files[i], &len, &ioerr);
        CHECK_MSG(text, "%s", ioerr.msg);
        if (!text) continue;
        free(text);
        mr_status st;
        char msg[sizeof ((mr_error *)0)->msg];
        size_t peak = measure(load_file, files[i], NULL, 0, &st, msg, sizeof msg);
        CHECK_MSG(st == MR_OK, "%s: %s", files[i], msg);
        check_bound(files[i], len, peak);
        if (getenv("MEMBOUND_VERBOSE")) printf("  %-48s %9zu bytes for %zu\n", files[i], peak, len);
    }
}

int main(void)
{
    counting_start();
    RUN(counting_sees_an_untouched_calloc);
    RUN(bad_corpora_stay_within_the_bound);
    RUN(bad_bvh_corpus_stays_within_the_bound);
    RUN(gltf_bad_files_stay_within_the_bound);
    RUN(assimp_invalid_md5_stay_within_the_bound);
    RUN(md5mesh_huge_counts_are_refused_within_the_bound);
    RUN(md5anim_huge_counts_are_refused_within_the_bound);
    RUN(collada_huge_counts_are_refused_within_the_bound);
    RUN(bvh_huge_counts_are_refused_within_the_bound);
    RUN(valid_models_stay_within_the_bound);
    printf("largest peak for an input under 4 KB: %zu bytes; largest peak / size: %.1f (%s)\n",
           worst_small_peak, worst_ratio, worst_name);
    return test_summary("membound");
}
