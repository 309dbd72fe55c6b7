/* cache.c — the binary model cache (cache.h): hash, folder, writer, reader. */
#define _GNU_SOURCE  /* statx(2) */
#include "formats/cache.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "anim/clip_dense.h"
#include "core/alloc.h"
#include "core/cpu.h"
#include "core/path.h"
#include "core/str.h"

#if defined(__x86_64__)
#include <emmintrin.h>  /* SSE2: widening stored influences */
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX2_PATH 1
#endif

/* ---- hash ---------------------------------------------------------------- */

/* Weighted Fletcher sums over 64-byte blocks of 32 native int16 elements:
 * per block, lane l (0..15) takes the weighted pair
 *     P[l] = e[2l] * K[2l] + e[2l+1] * K[2l+1]   (exact in int32)
 * into A[l] += P[l], then B[l] += A[l], all modulo 2^32; the tail (n % 64
 * bytes) and the length are mixed in at the end. The weights are odd, so
 * any change within one 16-bit element changes A; B weights each block by
 * its distance from the end, so blocks moved, swapped or repeated change
 * B (the multiply-accumulate hash before MR_CACHE_VERSION 4 summed blocks
 * in any order: two swapped blocks kept its value). One multiply-add
 * (vpmaddwd) and two adds per 32 bytes: with AVX2 a block is bound by the
 * loads, not the arithmetic. */
#define LANES 16
#define BLOCK 64
#define MIX 0x9E3779B185EBCA87ull

typedef struct hash_state {
    uint32_t a[LANES], b[LANES];
} hash_state;

/* K[i] = ((i + 1) * 0x9e37 mod 2^14) | 0x4001: distinct, odd, and below
 * 2^15 (so a pair's sum cannot overflow int32). */
static const int16_t weight[2 * LANES] = {
    0x5e37, 0x7c6f, 0x5aa5, 0x78dd, 0x5713, 0x754b, 0x5381, 0x71b9,
    0x4fef, 0x6e27, 0x4c5d, 0x6a95, 0x48cb, 0x6703, 0x4539, 0x6371,
    0x41a7, 0x5fdf, 0x7e15, 0x5c4d, 0x7a83, 0x58bb, 0x76f1, 0x5529,
    0x735f, 0x5197, 0x6fcd, 0x4e05, 0x6c3b, 0x4a73, 0x68a9, 0x46e1,
};

static uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static void blocks_portable(hash_state *st, const unsigned char *p, size_t nblocks)
{
    for (size_t b = 0; b < nblocks; b++, p += BLOCK) {
        int16_t e[2 * LANES];
        memcpy(e, p, BLOCK);
        for (int l = 0; l < LANES; l++) {
            int32_t pair = (int32_t)e[2 * l] * weight[2 * l] + (int32_t)e[2 * l + 1] * weight[2 * l + 1];
            st->a[l] += (uint32_t)pair;
            st->b[l] += st->a[l];
        }
    }
}

#ifdef HAVE_AVX2_PATH
/* Lanes 0..7 from the first 32 bytes of a block, 8..15 from the second. */
__attribute__((target("avx2"))) static void blocks_avx2(hash_state *st, const unsigned char *p, size_t nblocks)
{
    const __m256i k0 = _mm256_loadu_si256((const __m256i *)weight);
    const __m256i k1 = _mm256_loadu_si256((const __m256i *)(weight + LANES));
    __m256i a0 = _mm256_loadu_si256((const __m256i *)st->a), a1 = _mm256_loadu_si256((const __m256i *)(st->a + 8));
    __m256i b0 = _mm256_loadu_si256((const __m256i *)st->b), b1 = _mm256_loadu_si256((const __m256i *)(st->b + 8));
    for (size_t b = 0; b < nblocks; b++, p += BLOCK) {
        a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)p), k0));
        a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(p + 32)), k1));
        b0 = _mm256_add_epi32(b0, a0);
        b1 = _mm256_add_epi32(b1, a1);
    }
    _mm256_storeu_si256((__m256i *)st->a, a0);
    _mm256_storeu_si256((__m256i *)(st->a + 8), a1);
    _mm256_storeu_si256((__m256i *)st->b, b0);
    _mm256_storeu_si256((__m256i *)(st->b + 8), b1);
}
#endif

/* The hash in three steps, so a file can be hashed in chunks of whole
 * blocks, in order (stamp_file): the same value as one call over all bytes. */
static void hash_start(hash_state *st) { memset(st, 0, sizeof *st); }

/* simd: 0 portable C, 1 AVX2 (simd_level) */
static void hash_blocks(hash_state *st, const unsigned char *p, size_t nblocks, int simd)
{
#ifdef HAVE_AVX2_PATH
    if (simd) blocks_avx2(st, p, nblocks);
    else blocks_portable(st, p, nblocks);
#else
    (void)simd;
    blocks_portable(st, p, nblocks);
#endif
}

/* tail: the last n % BLOCK bytes; n: the length of everything hashed */
static uint64_t hash_end(const hash_state *st, const unsigned char *tail, size_t n)
{
    uint64_t h = (uint64_t)n * MIX;
    for (int l = 0; l < LANES; l++) h = rotl64((h ^ (st->a[l] | (uint64_t)st->b[l] << 32)) * MIX, 29);
    for (size_t i = 0; i < n % BLOCK; i++) h = rotl64((h ^ tail[i]) * MIX, 23);
    h ^= h >> 32;
    h *= MIX;
    h ^= h >> 29;
    return h;
}

static uint64_t hash_with(const void *data, size_t n, int simd)
{
    const unsigned char *p = data;
    hash_state st;
    hash_start(&st);
    hash_blocks(&st, p, n / BLOCK, simd);
    return hash_end(&st, p + n / BLOCK * BLOCK, n);
}

/* 1 when this CPU runs the AVX2 path, else 0 (portable). */
static int simd_level(void)
{
#ifdef HAVE_AVX2_PATH
    return mr_simd() >= MR_SIMD_AVX2;
#else
    return 0;
#endif
}

uint64_t mr_cache_hash_portable(const void *data, size_t n) { return hash_with(data, n, 0); }

uint64_t mr_cache_hash_avx2(const void *data, size_t n) { return hash_with(data, n, simd_level() >= 1); }

uint64_t mr_cache_hash(const void *data, size_t n) { return hash_with(data, n, simd_level()); }

/* ---- configuration ------------------------------------------------------- */

static mr_cache_mode config_mode = MR_CACHE_ENV;
static char *config_dir;
static int config_hash_always;
static uint64_t config_max_bytes;
static mr_cache_stats stats;
static int warned;
static char rejection[192];  /* why the last cache file was rejected (mr_cache_rejection) */

void mr_cache_configure(const mr_cache_config *cfg)
{
    free(config_dir);
    config_dir = NULL;
    config_mode = cfg ? cfg->mode : MR_CACHE_ENV;
    config_hash_always = cfg ? cfg->hash_always : 0;
    config_max_bytes = cfg ? cfg->max_bytes : 0;
    if (cfg && cfg->dir) config_dir = mr_str_dup(cfg->dir);
    memset(&stats, 0, sizeof stats);
    warned = 0;
    rejection[0] = '\0';
}

void mr_cache_get_stats(mr_cache_stats *out) { *out = stats; }

const char *mr_cache_rejection(void) { return rejection; }

/* Records why a cache file is rejected; returns 0 (not ok) for chaining. */
__attribute__((format(printf, 1, 2))) static int reject(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rejection, sizeof rejection, fmt, ap);
    va_end(ap);
    return 0;
}

const char *mr_cache_dir(void)
{
    static char buf[4096];
    if (config_mode == MR_CACHE_OFF) return NULL;
    if (config_mode == MR_CACHE_ENV) {
        const char *off = getenv("MARROW_CACHE");
        if (off && !strcmp(off, "0")) return NULL;
    }
    const char *env;
    int n;
    if (config_dir) n = snprintf(buf, sizeof buf, "%s", config_dir);
    else if ((env = getenv("MARROW_CACHE_DIR")) && env[0]) n = snprintf(buf, sizeof buf, "%s", env);
    else if ((env = getenv("XDG_CACHE_HOME")) && env[0] == '/') n = snprintf(buf, sizeof buf, "%s/marrow", env);
    else if ((env = getenv("HOME")) && env[0]) n = snprintf(buf, sizeof buf, "%s/.cache/marrow", env);
    else return NULL;
    return n > 0 && (size_t)n < sizeof buf ? buf : NULL;
}

#ifndef MR_LOADER_HASH
#define MR_LOADER_HASH 0u   /* the Makefile passes a checksum of core, anim and formats */
#endif

/* What the reader and writer agree on besides MR_CACHE_VERSION: the code
 * that builds models (MR_LOADER_HASH: any change to a loader retires old
 * files), the sizes and field offsets of the structs stored as images
 * (mr_joint_tracks), and the sizes of the structs the records mirror (a new
 * field changes them and so retires old files until the records learn it).
 * Computed once per process (~1% of a cached TM.glb load otherwise). */
static uint64_t layout_fingerprint(void)
{
    static _Atomic uint64_t once;  /* 0: not yet (a fingerprint of 0 is recomputed) */
    uint64_t known = atomic_load_explicit(&once, memory_order_relaxed);
    if (known) return known;
    const uint64_t v[] = {
        MR_LOADER_HASH,
        sizeof(void *), sizeof(mr_track), offsetof(mr_track, key_count), offsetof(mr_track, components),
        offsetof(mr_track, interp), offsetof(mr_track, times), offsetof(mr_track, values),
        offsetof(mr_track, uniform_rate), sizeof(mr_joint_tracks), sizeof(mr_clip_dense), sizeof(mr_clip),
        sizeof(mr_mesh), sizeof(mr_material), sizeof(mr_model), sizeof(mr_skeleton), sizeof(mr_marker),
        MR_MAX_INFLUENCES, sizeof(vec3), sizeof(versor), sizeof(mat4),
    };
    known = mr_cache_hash_portable(v, sizeof v);
    atomic_store_explicit(&once, known, memory_order_relaxed);
    return known;
}

/* ---- file format ----------------------------------------------------------- */

#define MAGIC "\x89MRCACHE"
#define BOM 0x01020304u
#define ALIGN 32

typedef struct file_header {
    char magic[8];
    uint32_t version, bom;
    uint64_t layout, key, file_size, payload_hash;
    uint64_t model;      /* offset of the model record */
    uint32_t source_count, reserved;
} file_header;

typedef struct source_rec {
    uint64_t size;
    int64_t mtime_ns;
    uint64_t hash, path;
    int64_t ctime_ns, taken_ns;
    uint64_t ino, dev;
} source_rec;

typedef struct model_rec {
    uint64_t format, axes_note, warnings, meshes, clips;
    uint64_t names, parents, rest_t, rest_r, rest_s, inverse_bind;
    int32_t up, warning_count, mesh_count, clip_count, joint_count;
    float meters_per_unit;
} model_rec;

typedef struct mesh_rec {
    uint64_t name, positions, normals, uvs, joints, weights, indices;
    uint64_t mat_name, diffuse_map, normal_map, diffuse_bytes, normal_bytes, diffuse_len, normal_len;
    uint64_t row_of;      /* per vertex its uint16 influence row (0: joints and weights per vertex) */
    float diffuse[4], ambient[4], specular[4], emission[4];
    float shininess;
    int32_t vertex_count, index_count, source_over4, source_over8;
    int32_t slots;        /* influence slots stored per vertex, 0..MR_MAX_INFLUENCES */
    int32_t joint_bytes;  /* 1 or 2: width of a stored joint index */
    int32_t index_bytes;  /* 2 or 4: width of a stored triangle index */
    int32_t rows;         /* with row_of: the distinct influence rows stored at joints, weights */
    int32_t pad;
} mesh_rec;

typedef struct clip_rec {
    uint64_t name, markers, tracks, fine, max_angle, max_move, shared_times, dense, dense_data, dense_rest;
    float duration, rate, thin_tolerance, shared_rate;
    int32_t joint_count, marker_count, fine_added, fine_dropped, shared_keys;
    int32_t dense_keys, dense_joints, dense_lanes, dense_rest_count, pad;
} clip_rec;

typedef struct marker_rec {
    uint64_t name;
    float time;
    int32_t pad;
} marker_rec;

_Static_assert(sizeof(char *) <= sizeof(uint64_t), "name offsets become pointers in place");
_Static_assert(sizeof(file_header) == 64, "cache header is 64 bytes");
_Static_assert(sizeof(source_rec) == 64 && sizeof(model_rec) == 112 && sizeof(mesh_rec) == 224 &&
                   sizeof(clip_rec) == 136 && sizeof(marker_rec) == 16,
               "cache records have no padding");

/* ---- sources: key, fingerprint ------------------------------------------- */

static void session_free(mr_cache_session *s)
{
    for (int i = 0; i < s->source_count; i++) free(s->sources ? s->sources[i] : NULL);
    free(s->sources);
    free(s->stamps);
    free(s->file);
    memset(s, 0, sizeof *s);
}

static uint64_t session_key(const mr_cache_session *s)
{
    size_t len = 64;
    for (int i = 0; i < s->source_count; i++) len += strlen(s->sources[i]) + 1;
    char *buf = calloc(1, len);
    if (!buf) return 0;
    /* not the layout: a marrow with other loader code replaces this path's
     * file instead of adding one (the header's layout check retires it) */
    uint64_t head[2] = {MR_CACHE_VERSION, 0};
    memcpy(buf, head, sizeof head);
    size_t n = sizeof head;
    for (int i = 0; i < s->source_count; i++) {
        size_t k = strlen(s->sources[i]) + 1;
        memcpy(buf + n, s->sources[i], k);
        n += k;
    }
    uint64_t key = mr_cache_hash_portable(buf, n);
    free(buf);
    return key;
}

/* Absolute paths and the cache file of a load; 0 when the cache is off. */
static int session_init(mr_cache_session *s, const char *path, const char *const *anims, int anim_count)
{
    memset(s, 0, sizeof *s);
    const char *dir = mr_cache_dir();
    if (!dir || anim_count < 0) return 0;
    int n = 1 + anim_count;
    s->sources = calloc((size_t)n, sizeof *s->sources);
    s->stamps = calloc((size_t)n, sizeof *s->stamps);
    if (!s->sources || !s->stamps) goto fail;
    s->source_count = n;
    for (int i = 0; i < n; i++)
        if (!(s->sources[i] = mr_path_absolute(i == 0 ? path : anims[i - 1]))) goto fail;
    s->key = session_key(s);
    s->file = mr_str_fmt("%s/%016llx.mrc", dir, (unsigned long long)s->key);
    if (!s->file) goto fail;
    s->active = 1;
    return 1;
fail:
    session_free(s);
    return 0;
}

char *mr_cache_file(const char *path, const char *const *anims, int anim_count)
{
    mr_cache_session s;
    if (!path || (anim_count > 0 && !anims) || !session_init(&s, path, anims, anim_count)) return NULL;
    char *file = s.file;
    s.file = NULL;
    session_free(&s);
    return file;
}

/* Reads all of fd (size bytes) into buf; 0 on success. */
static int read_all(int fd, void *buf, size_t size)
{
    size_t got = 0;
    while (got < size) {
        ssize_t k = read(fd, (char *)buf + got, size - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        got += (size_t)k;
    }
    return 0;
}

/* A source changed by any write after a stamp gets a ctime at or after the
 * stamp's time (less the file system's timestamp granularity: jiffies on
 * Linux, 2 s on FAT); a stamp whose ctime is older than its time by more
 * than this window therefore proves, while size, mtime, ctime, inode and
 * device stay the same, that the content has not been written since. */
#define RACY_NS 2000000000LL

static int64_t ns_of(struct timespec t) { return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec; }

/* Hashing reads sources through one static buffer that stays mapped and
 * warm from load to load (a fresh buffer per load costs page faults on
 * every load once malloc hands the pages back); a second thread hashing
 * at the same time takes a buffer of its own. */
#define HASH_CHUNK (1u << 20)
static unsigned char hash_buf[HASH_CHUNK] __attribute__((aligned(64)));
static atomic_flag hash_buf_busy = ATOMIC_FLAG_INIT;

/* Reads n bytes of fd in chunks of whole blocks and hashes them; 0 on
 * success (as mr_cache_hash over all n bytes). */
static int hash_fd(int fd, size_t n, uint64_t *out)
{
    int own = !atomic_flag_test_and_set(&hash_buf_busy);
    unsigned char *buf = own ? hash_buf : malloc(HASH_CHUNK);
    int bad = !buf, simd = simd_level();
    hash_state st;
    hash_start(&st);
    size_t done = 0, k = 0;
    while (!bad && done < n) {
        k = n - done < HASH_CHUNK ? n - done : HASH_CHUNK;
        bad = read_all(fd, buf, k) != 0;
        if (!bad) hash_blocks(&st, buf, k / BLOCK, simd);
        done += k;
    }
    if (!bad) *out = hash_end(&st, buf + k / BLOCK * BLOCK, n);
    if (own) atomic_flag_clear(&hash_buf_busy);
    else free(buf);
    return bad ? -1 : 0;
}

/* hash_always from the configuration, or MARROW_CACHE=hash when the
 * environment decides. */
static int hash_always(void)
{
    if (config_hash_always) return 1;
    const char *env = config_mode == MR_CACHE_ENV ? getenv("MARROW_CACHE") : NULL;
    return env && !strcmp(env, "hash");
}

/* ctime 0: a file system that reports no change time; never trusted. */
static int stat_trusted(const source_rec *rec) { return rec->ctime_ns > 0 && rec->ctime_ns + RACY_NS < rec->taken_ns; }

/* Stamps one file. With rec (a cached load): returns 0 when the file
 * still matches rec: size and mtime equal, and either the stat data prove
 * it unwritten (stat_trusted, unless hash_always) or its content hash is
 * equal; *hashed tells whether it was read. Without rec: reads and hashes
 * it. -1 on a mismatch or an error. One open, one fstat, at most one read. */
static int stamp_file(const char *path, mr_cache_stamp *out, const source_rec *rec, int *hashed)
{
    *hashed = 0;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
#ifdef STATX_BASIC_STATS
    /* One statx(2) settles the usual case. AT_STATX_FORCE_SYNC makes a
     * network file system fetch fresh attributes, as open(2) does
     * (close-to-open), so a change made on another machine is seen. */
    struct statx sx;
    if (rec && !hash_always() &&
        statx(AT_FDCWD, path, AT_STATX_FORCE_SYNC, STATX_BASIC_STATS, &sx) == 0 && S_ISREG(sx.stx_mode) &&
        (sx.stx_mask & STATX_BASIC_STATS) == STATX_BASIC_STATS) {
        out->size = sx.stx_size;
        out->mtime_ns = (int64_t)sx.stx_mtime.tv_sec * 1000000000 + sx.stx_mtime.tv_nsec;
        out->ctime_ns = (int64_t)sx.stx_ctime.tv_sec * 1000000000 + sx.stx_ctime.tv_nsec;
        out->ino = sx.stx_ino;
        out->dev = (uint64_t)makedev(sx.stx_dev_major, sx.stx_dev_minor);
        out->taken_ns = ns_of(now);
        if (out->size != rec->size || out->mtime_ns != rec->mtime_ns) return -1;
        if (out->ctime_ns == rec->ctime_ns && out->ino == rec->ino && out->dev == rec->dev && stat_trusted(rec)) {
            out->hash = rec->hash;
            return 0;
        }
    }
#endif
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0) {
        close(fd);
        return -1;
    }
    out->size = (uint64_t)st.st_size;
    out->mtime_ns = ns_of(st.st_mtim);
    out->ctime_ns = ns_of(st.st_ctim);
    out->ino = (uint64_t)st.st_ino;
    out->dev = (uint64_t)st.st_dev;
    out->taken_ns = ns_of(now);
    if (rec && (out->size != rec->size || out->mtime_ns != rec->mtime_ns)) {
        close(fd);
        return -1;
    }
    if (rec && !hash_always() && out->ctime_ns == rec->ctime_ns && out->ino == rec->ino &&
        out->dev == rec->dev && stat_trusted(rec)) {
        close(fd);
        out->hash = rec->hash;
        return 0;
    }
    int bad = hash_fd(fd, (size_t)st.st_size, &out->hash);
    close(fd);
    *hashed = !bad;
    return bad || (rec && out->hash != rec->hash) ? -1 : 0;
}

static int session_fingerprint(mr_cache_session *s)
{
    int hashed;
    for (int i = 0; i < s->source_count; i++)
        if (stamp_file(s->sources[i], &s->stamps[i], NULL, &hashed) != 0) return -1;
    s->fingerprinted = 1;
    return 0;
}

/* ---- writer --------------------------------------------------------------- */

typedef struct wbuf {
    unsigned char *data;
    size_t len, cap;
    int failed;
    struct written_image { uint64_t at; size_t len; } images[64], times[16];
    int image_count, times_count;  /* times: a clip's latest distinct key time arrays */
    const char *model_path;  /* the path the model was loaded by (texture_prefix) */
} wbuf;

/* Length of the folder part of a model path as given, through its last
 * '/' ("models/" of "models/bob.md5mesh"; 0 when there is none). The
 * loaders build texture paths in that folder from it. */
static size_t texture_prefix(const char *model_path)
{
    const char *slash = model_path ? strrchr(model_path, '/') : NULL;
    return slash ? (size_t)(slash - model_path) + 1 : 0;
}

/* Marks a stored texture path as relative to the model's folder. */
#define IN_MODEL_FOLDER '\x01'

/* Appends n bytes (zeros when p is NULL) at an offset aligned to align;
 * returns the offset (0 after a failure: the write is then abandoned). */
static uint64_t put(wbuf *w, const void *p, size_t n, size_t align)
{
    if (w->failed) return 0;
    size_t at = (w->len + align - 1) / align * align;
    if (at + n > w->cap) {
        size_t cap = w->cap ? w->cap : 65536;
        while (cap < at + n) cap *= 2;
        unsigned char *g = realloc(w->data, cap);
        if (!g) {
            w->failed = 1;
            return 0;
        }
        memset(g + w->cap, 0, cap - w->cap);
        w->data = g;
        w->cap = cap;
    }
    if (p && n) memcpy(w->data + at, p, n);
    w->len = at + n;
    return at;
}

static uint64_t put_str(wbuf *w, const char *s) { return s ? put(w, s, strlen(s) + 1, 1) : 0; }
static uint64_t put_arr(wbuf *w, const void *p, size_t n) { return p ? put(w, p, n, ALIGN) : 0; }

/* A track's key times, written once per clip when tracks share them (a
 * glTF export keys every channel at the same frames; TM.glb's 96 times
 * arrays are 2 distinct ones, 13 KB of its file): the cached tracks then
 * point at one copy. */
static uint64_t put_times(wbuf *w, const float *times, size_t n)
{
    size_t len = n * sizeof *times;
    for (int i = 0; i < w->times_count && i < 16; i++)
        if (w->times[i].len == len && !memcmp(w->data + w->times[i].at, times, len)) return w->times[i].at;
    uint64_t at = put_arr(w, times, len);
    if (!w->failed) w->times[w->times_count++ % 16] = (struct written_image){at, len};
    return at;
}

/* Writes n tracks as an mr_track image whose times/values hold offsets. */
static uint64_t put_tracks(wbuf *w, const mr_joint_tracks *jt, int joints)
{
    if (!jt) return 0;
    size_t bytes = (size_t)joints * sizeof *jt;
    mr_joint_tracks *img = calloc((size_t)joints ? (size_t)joints : 1, sizeof *img);
    if (!img) {
        w->failed = 1;
        return 0;
    }
    for (int j = 0; j < joints; j++)
        for (int c = 0; c < 3; c++) {
            const mr_track *src = c == 0 ? &jt[j].t : c == 1 ? &jt[j].r : &jt[j].s;
            mr_track *dst = c == 0 ? &img[j].t : c == 1 ? &img[j].r : &img[j].s;
            size_t vals = (size_t)src->key_count * (size_t)src->components * (src->interp == MR_INTERP_CUBIC ? 3 : 1);
            uint64_t t = src->key_count > 0 && src->times ? put_times(w, src->times, (size_t)src->key_count) : 0;
            uint64_t v = src->key_count > 0 ? put_arr(w, src->values, vals * sizeof(float)) : 0;
            dst->key_count = src->times && src->values ? src->key_count : 0;
            dst->components = src->components;
            dst->interp = src->interp;
            dst->uniform_rate = src->uniform_rate;
            uintptr_t tp = (uintptr_t)t, vp = (uintptr_t)v;
            memcpy(&dst->times, &tp, sizeof tp);
            memcpy(&dst->values, &vp, sizeof vp);
        }
    uint64_t at = put(w, img, bytes, ALIGN);
    free(img);
    return at;
}

/* The offset already written for a clip's shared time line: it is one of
 * its tracks' times arrays (clip.h); 0 when it is not found. */
static uint64_t find_times(const wbuf *w, const mr_joint_tracks *img_at, const mr_joint_tracks *jt, int joints,
                           const float *times)
{
    if (!img_at || !jt) return 0;
    for (int j = 0; j < joints; j++) {
        const mr_track *s3[3] = {&jt[j].t, &jt[j].r, &jt[j].s};
        const mr_track *d3[3] = {&img_at[j].t, &img_at[j].r, &img_at[j].s};
        for (int c = 0; c < 3; c++)
            if (s3[c]->times == times && s3[c]->key_count > 0) {
                uintptr_t off;
                memcpy(&off, &d3[c]->times, sizeof off);
                (void)w;
                return (uint64_t)off;
            }
    }
    return 0;
}

static void put_clip(wbuf *w, const mr_clip *c, clip_rec *r)
{
    memset(r, 0, sizeof *r);
    w->times_count = 0;
    r->name = put_str(w, c->name);
    r->duration = c->duration;
    r->rate = c->rate;
    r->joint_count = c->joint_count;
    r->marker_count = c->markers ? c->marker_count : 0;
    if (r->marker_count > 0) {
        marker_rec *mk = calloc((size_t)r->marker_count, sizeof *mk);
        if (!mk) {
            w->failed = 1;
            return;
        }
        for (int i = 0; i < r->marker_count; i++) {
            mk[i].name = put_str(w, c->markers[i].name);
            mk[i].time = c->markers[i].time;
        }
        r->markers = put(w, mk, (size_t)r->marker_count * sizeof *mk, 8);
        free(mk);
    }
    r->tracks = put_tracks(w, c->tracks, c->joint_count);
    r->fine = put_tracks(w, c->fine, c->joint_count);
    r->fine_added = c->fine_added;
    r->fine_dropped = c->fine_dropped;
    r->thin_tolerance = c->thin_tolerance;
    r->max_angle = put_arr(w, c->max_angle, (size_t)c->joint_count * sizeof(float));
    r->max_move = put_arr(w, c->max_move, (size_t)c->joint_count * sizeof(float));
    r->shared_keys = c->shared_keys;
    r->shared_rate = c->shared_rate;
    if (c->shared_keys > 0 && c->shared_times && !w->failed) {
        const mr_joint_tracks *fine_img = r->fine ? (const mr_joint_tracks *)(w->data + r->fine) : NULL;
        const mr_joint_tracks *src_img = r->tracks ? (const mr_joint_tracks *)(w->data + r->tracks) : NULL;
        r->shared_times = find_times(w, fine_img, c->fine, c->joint_count, c->shared_times);
        if (!r->shared_times) r->shared_times = find_times(w, src_img, c->tracks, c->joint_count, c->shared_times);
        if (!r->shared_times)
            r->shared_times = put_arr(w, c->shared_times, (size_t)c->shared_keys * sizeof(float));
    }
    const mr_clip_dense *d = c->dense;
    if (d && d->data) {
        r->dense = put(w, NULL, sizeof *d, ALIGN);  /* the struct's slot, filled at load */
        r->dense_keys = d->keys;
        r->dense_joints = d->joints;
        r->dense_lanes = d->lanes;
        r->dense_rest_count = d->rest ? d->rest_count : 0;
        r->dense_data = put_arr(w, d->data, (size_t)d->keys * 10 * (size_t)d->lanes * sizeof(float));
        r->dense_rest = put_arr(w, d->rest, (size_t)r->dense_rest_count * sizeof(int));
    }
}

/* An embedded image, written once when several materials carry the same
 * bytes (a .glb's meshes share their textures): the cached meshes then
 * borrow one copy. */
static uint64_t put_image(wbuf *w, const unsigned char *p, size_t n)
{
    if (!p) return 0;
    for (int i = 0; i < w->image_count; i++)
        if (w->images[i].len == n && !memcmp(w->data + w->images[i].at, p, n)) return w->images[i].at;
    uint64_t at = put_arr(w, p, n);
    if (!w->failed && w->image_count < (int)(sizeof w->images / sizeof w->images[0]))
        w->images[w->image_count++] = (struct written_image){at, n};
    return at;
}

/* How many influence slots a mesh needs stored: one past the last slot
 * that holds, in any vertex, a joint other than 0 or a weight whose bits
 * are not +0.0f (mesh.h: unused slots are joint 0 weight 0, which the
 * reader restores byte for byte). */
static int used_slots(const mr_mesh *m)
{
    static const float zero = 0.0f;
    int slots = 0;
    for (int v = 0; v < m->vertex_count && slots < MR_MAX_INFLUENCES; v++)
        for (int k = MR_MAX_INFLUENCES - 1; k >= slots; k--)
            if (m->joints[v][k] != 0 || memcmp(&m->weights[v][k], &zero, sizeof zero) != 0) {
                slots = k + 1;
                break;
            }
    return slots;
}

/* How many distinct influence rows the mesh's vertices have (a row: a
 * vertex's first `slots` joints and weights, compared as bytes), with each
 * vertex's row in *row_of and each row's first vertex in *first (both
 * malloc'd); 0 (and NULLs) when there are more than MAX_ROWS or without
 * memory. */
#define MAX_ROWS 65536
static size_t distinct_rows(const mr_mesh *m, int slots, uint32_t **first, uint16_t **row_of)
{
    size_t v = (size_t)m->vertex_count, cap = 64, rows = 0;
    while (cap < 2 * v) cap *= 2;
    uint32_t *table = calloc(cap, sizeof *table);  /* vertex + 1, 0 = empty */
    *first = malloc((v < MAX_ROWS ? v : MAX_ROWS) * sizeof **first + 1);
    *row_of = malloc(v * sizeof **row_of + 1);
    uint16_t *row_in_table = malloc(cap * sizeof *row_in_table);
    size_t jn = (size_t)slots * sizeof m->joints[0][0], wn = (size_t)slots * sizeof m->weights[0][0];
    int ok = table && *first && *row_of && row_in_table;
    for (size_t i = 0; ok && i < v; i++) {
        uint64_t h = 0x9E3779B97F4A7C15ull;
        const unsigned char *jb = (const unsigned char *)m->joints[i], *wb = (const unsigned char *)m->weights[i];
        for (size_t k = 0; k < jn; k++) h = (h ^ jb[k]) * 0x100000001B3ull;
        for (size_t k = 0; k < wn; k++) h = (h ^ wb[k]) * 0x100000001B3ull;
        size_t at = (size_t)(h ^ h >> 29) & (cap - 1);
        for (;; at = (at + 1) & (cap - 1)) {
            uint32_t u = table[at];
            if (!u) {
                if (rows == MAX_ROWS) {
                    ok = 0;
                    break;
                }
                table[at] = (uint32_t)i + 1;
                row_in_table[at] = (uint16_t)rows;
                (*first)[rows] = (uint32_t)i;
                (*row_of)[i] = (uint16_t)rows++;
                break;
            }
            if (!memcmp(m->joints[u - 1], jb, jn) && !memcmp(m->weights[u - 1], wb, wn)) {
                (*row_of)[i] = row_in_table[at];
                break;
            }
        }
    }
    free(table);
    free(row_in_table);
    if (!ok) {
        free(*first);
        free(*row_of);
        *first = NULL;
        *row_of = NULL;
        return 0;
    }
    return rows;
}

/* Stores joints and weights with only the slots the mesh uses and joint
 * indices one byte wide when every joint is below 256; the reader widens
 * them back to 8 slots in arrays of their own. When the mesh's vertices
 * share few distinct influence rows (split vertices of one skinned point:
 * TM.glb's 4255 vertices have 441 rows), only those rows are stored, and
 * per vertex its row as a uint16: chosen when that takes at most half
 * the bytes. Otherwise a mesh that uses all 8 slots with wide joints is
 * stored as it is (read in place). */
static void put_influences(wbuf *w, const mr_mesh *m, mesh_rec *r)
{
    size_t v = (size_t)m->vertex_count;
    int slots = used_slots(m);
    unsigned max_joint = 0;
    for (size_t i = 0; i < v; i++)
        for (int k = 0; k < slots; k++) max_joint = m->joints[i][k] > max_joint ? m->joints[i][k] : max_joint;
    r->slots = slots;
    r->joint_bytes = max_joint < 256 ? 1 : 2;
    size_t row_bytes = (size_t)slots * ((size_t)r->joint_bytes + sizeof(float));
    uint32_t *first = NULL;
    uint16_t *row_of = NULL;
    size_t rows = slots > 0 && v > 0 ? distinct_rows(m, slots, &first, &row_of) : 0;
    if (rows && 2 * (rows * row_bytes + v * sizeof *row_of) > v * row_bytes) rows = 0;
    if (rows) {
        r->rows = (int32_t)rows;
        r->row_of = put(w, row_of, v * sizeof *row_of, ALIGN);
    } else if (slots == MR_MAX_INFLUENCES && r->joint_bytes == 2) {
        r->joints = put_arr(w, m->joints, v * sizeof *m->joints);
        r->weights = put_arr(w, m->weights, v * sizeof *m->weights);
        free(first);
        free(row_of);
        return;
    }
    size_t count = rows ? rows : v, n = count * (size_t)slots;
    unsigned char *j = malloc(n * (size_t)r->joint_bytes + 1);
    float *wt = malloc(n * sizeof *wt + 1);
    if (!j || !wt) {
        w->failed = 1;
    } else {
        for (size_t e = 0; e < count; e++) {
            size_t i = rows ? first[e] : e;
            for (int k = 0; k < slots; k++) {
                size_t at = e * (size_t)slots + (size_t)k;
                if (r->joint_bytes == 1) j[at] = (unsigned char)m->joints[i][k];
                else memcpy(j + at * 2, &m->joints[i][k], 2);
                wt[at] = m->weights[i][k];
            }
        }
        /* a non-NULL offset even for 0 slots: the mesh stays skinned */
        r->joints = put(w, j, n * (size_t)r->joint_bytes, ALIGN);
        r->weights = put(w, wt, n * sizeof *wt, ALIGN);
    }
    free(j);
    free(wt);
    free(first);
    free(row_of);
}

/* Triangle indices as uint16 when every index fits (widened at load). */
static void put_indices(wbuf *w, const mr_mesh *m, mesh_rec *r)
{
    size_t n = (size_t)m->index_count;
    uint32_t max = 0;
    for (size_t i = 0; m->indices && i < n; i++) max = m->indices[i] > max ? m->indices[i] : max;
    r->index_bytes = m->indices && max <= UINT16_MAX ? 2 : 4;
    if (r->index_bytes == 4) {
        r->indices = put_arr(w, m->indices, n * sizeof(uint32_t));
        return;
    }
    uint16_t *narrow = malloc(n * sizeof *narrow + 1);
    if (!narrow) {
        w->failed = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) narrow[i] = (uint16_t)m->indices[i];
    r->indices = put(w, narrow, n * sizeof *narrow, ALIGN);
    free(narrow);
}

/* A texture path as the loader resolved it, stored so that it holds for a
 * load by another path to the same model (the cache file is keyed on the
 * absolute source path: "models/bob.md5mesh" and "/work/models/bob.md5mesh"
 * from another directory share it). A path in the model's folder, as the
 * model's path names that folder, is stored as IN_MODEL_FOLDER and the
 * rest (texture_path() puts this load's folder back in front); any other
 * path is stored absolute. So a stored path starts with IN_MODEL_FOLDER or
 * '/'. */
static uint64_t put_texture_path(wbuf *w, const char *path)
{
    if (!path) return 0;
    size_t n = texture_prefix(w->model_path);
    int same_kind = (path[0] == '/') == (n > 0 && w->model_path[0] == '/');
    char *stored = same_kind && !strncmp(path, w->model_path, n) ? mr_str_fmt("%c%s", IN_MODEL_FOLDER, path + n)
                                                                : mr_path_absolute(path);
    if (!stored) {
        w->failed = 1;
        return 0;
    }
    uint64_t at = put_str(w, stored);
    free(stored);
    return at;
}

static void put_mesh(wbuf *w, const mr_mesh *m, mesh_rec *r)
{
    memset(r, 0, sizeof *r);
    size_t v = (size_t)m->vertex_count;
    r->name = put_str(w, m->name);
    r->vertex_count = m->vertex_count;
    r->index_count = m->index_count;
    r->positions = put_arr(w, m->positions, v * sizeof(vec3));
    r->normals = put_arr(w, m->normals, v * sizeof(vec3));
    r->uvs = put_arr(w, m->uvs, v * sizeof(vec2));
    if (m->joints && m->weights) put_influences(w, m, r);
    put_indices(w, m, r);
    r->source_over4 = m->source_over4;
    r->source_over8 = m->source_over8;
    const mr_material *mt = &m->material;
    r->mat_name = put_str(w, mt->name);
    r->diffuse_map = put_texture_path(w, mt->diffuse_map);
    r->normal_map = put_texture_path(w, mt->normal_map);
    r->diffuse_bytes = put_image(w, mt->diffuse_bytes, mt->diffuse_bytes_len);
    r->normal_bytes = put_image(w, mt->normal_bytes, mt->normal_bytes_len);
    r->diffuse_len = mt->diffuse_bytes ? mt->diffuse_bytes_len : 0;
    r->normal_len = mt->normal_bytes ? mt->normal_bytes_len : 0;
    memcpy(r->diffuse, mt->diffuse, sizeof r->diffuse);
    memcpy(r->ambient, mt->ambient, sizeof r->ambient);
    memcpy(r->specular, mt->specular, sizeof r->specular);
    memcpy(r->emission, mt->emission, sizeof r->emission);
    r->shininess = mt->shininess;
}

/* The whole file image of model with the session's sources; NULL without memory. */
static unsigned char *serialize(const mr_cache_session *s, const mr_model *m, uint64_t key, size_t *len)
{
    wbuf w = {0};
    w.model_path = m->path;
    put(&w, NULL, sizeof(file_header), 1);
    /* Source records at a fixed place: right after the header. */
    uint64_t src_at = put(&w, NULL, (size_t)s->source_count * sizeof(source_rec), 8);
    for (int i = 0; i < s->source_count && !w.failed; i++) {
        const mr_cache_stamp *t = &s->stamps[i];
        source_rec rec = {t->size, t->mtime_ns, t->hash, put_str(&w, s->sources[i]), t->ctime_ns, t->taken_ns,
                          t->ino, t->dev};
        if (!w.failed) memcpy(w.data + src_at + (size_t)i * sizeof rec, &rec, sizeof rec);
    }

    model_rec mr = {0};
    const mr_skeleton *sk = &m->skeleton;
    int n = sk->joint_count;
    mr.format = put_str(&w, m->format);
    mr.axes_note = put_str(&w, m->axes_note);
    mr.up = (int32_t)m->axes.up;
    mr.meters_per_unit = m->axes.meters_per_unit;
    mr.joint_count = n;
    if (n > 0) {
        uint64_t *names = calloc((size_t)n, sizeof *names);
        if (!names) w.failed = 1;
        for (int j = 0; names && j < n; j++) names[j] = put_str(&w, sk->names ? sk->names[j] : NULL);
        if (names) mr.names = put(&w, names, (size_t)n * sizeof *names, ALIGN);
        free(names);
        mr.parents = put_arr(&w, sk->parents, (size_t)n * sizeof(int));
        mr.rest_t = put_arr(&w, sk->rest_t, (size_t)n * sizeof(vec3));
        mr.rest_r = put_arr(&w, sk->rest_r, (size_t)n * sizeof(versor));
        mr.rest_s = put_arr(&w, sk->rest_s, (size_t)n * sizeof(vec3));
        mr.inverse_bind = put_arr(&w, sk->inverse_bind, (size_t)n * sizeof(mat4));
    }
    mr.warning_count = m->warnings ? m->warning_count : 0;
    if (mr.warning_count > 0) {
        uint64_t *ws = calloc((size_t)mr.warning_count, sizeof *ws);
        if (!ws) w.failed = 1;
        for (int i = 0; ws && i < mr.warning_count; i++) ws[i] = put_str(&w, m->warnings[i]);
        if (ws) mr.warnings = put(&w, ws, (size_t)mr.warning_count * sizeof *ws, 8);
        free(ws);
    }
    mr.mesh_count = m->meshes ? m->mesh_count : 0;
    if (mr.mesh_count > 0) {
        mesh_rec *ms = calloc((size_t)mr.mesh_count, sizeof *ms);
        if (!ms) w.failed = 1;
        for (int i = 0; ms && i < mr.mesh_count; i++) put_mesh(&w, &m->meshes[i], &ms[i]);
        if (ms) mr.meshes = put(&w, ms, (size_t)mr.mesh_count * sizeof *ms, 8);
        free(ms);
    }
    mr.clip_count = m->clips ? m->clip_count : 0;
    if (mr.clip_count > 0) {
        clip_rec *cs = calloc((size_t)mr.clip_count, sizeof *cs);
        if (!cs) w.failed = 1;
        for (int i = 0; cs && i < mr.clip_count; i++) put_clip(&w, m->clips[i], &cs[i]);
        if (cs) mr.clips = put(&w, cs, (size_t)mr.clip_count * sizeof *cs, 8);
        free(cs);
    }
    uint64_t model_at = put(&w, &mr, sizeof mr, 8);
    put(&w, NULL, 0, ALIGN);  /* whole blocks of ALIGN bytes */
    if (w.failed) {
        free(w.data);
        return NULL;
    }
    file_header h = {0};
    memcpy(h.magic, MAGIC, sizeof h.magic);
    h.version = MR_CACHE_VERSION;
    h.bom = BOM;
    h.layout = layout_fingerprint();
    h.key = key;
    h.file_size = w.len;
    h.payload_hash = mr_cache_hash(w.data + sizeof h, w.len - sizeof h);
    h.source_count = (uint32_t)s->source_count;
    h.model = model_at;
    memcpy(w.data, &h, sizeof h);
    *len = w.len;
    return w.data;
}

static void warn_once(const char *what, const char *path, int e)
{
    stats.write_failures++;
    if (warned) return;
    warned = 1;
    fprintf(stderr, "marrow: cache: cannot %s %s: %s (loads stay uncached; MARROW_CACHE=0 turns the cache off)\n",
            what, path, strerror(e));
}

/* mkdir -p for the cache folder; 0 on success. */
static int make_dirs(const char *dir)
{
    char *p = mr_str_dup(dir);
    if (!p) return -1;
    for (char *q = p + 1;; q++) {
        if (*q != '/' && *q) continue;
        char c = *q;
        *q = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            free(p);
            return -1;
        }
        if (!c) break;
        *q = c;
    }
    free(p);
    return 0;
}

/* The folder bound (cache.h, Size). */
static uint64_t max_bytes(void)
{
    if (config_max_bytes) return config_max_bytes;
    const char *env = getenv("MARROW_CACHE_MAX_MB");
    char *end;
    unsigned long long mb = env && *env ? strtoull(env, &end, 10) : 0;
    if (env && *env && !*end && mb > 0 && mb < ((uint64_t)1 << 40)) return (uint64_t)mb << 20;
    return MR_CACHE_MAX_BYTES;
}

typedef struct cached_entry {
    char name[32];
    uint64_t size;
    int64_t used_ns;  /* the later of access and modification */
} cached_entry;

static int by_use(const void *a, const void *b)
{
    int64_t x = ((const cached_entry *)a)->used_ns, y = ((const cached_entry *)b)->used_ns;
    return x < y ? -1 : x > y;
}

static int has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = strlen(suffix);
    return n > k && !strcmp(name + n - k, suffix);
}

/* Keeps the folder within its bound (cache.h, Size); keep is the name of
 * the file just written. Best effort: what cannot be read or removed stays. */
static void prune_folder(const char *dir, const char *keep)
{
    DIR *d = opendir(dir);
    if (!d) return;
    cached_entry *list = NULL;
    size_t count = 0, cap = 0;
    uint64_t total = 0;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct dirent *e;
    while ((e = readdir(d))) {
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
        if (has_suffix(e->d_name, ".tmp")) {
            if (ns_of(st.st_mtim) + 3600 * (int64_t)1000000000 < ns_of(now)) unlinkat(dirfd(d), e->d_name, 0);
            continue;
        }
        size_t name_len = strlen(e->d_name);
        if (!has_suffix(e->d_name, ".mrc") || name_len >= sizeof list->name) continue;
        total += (uint64_t)st.st_size;
        if (!strcmp(e->d_name, keep)) continue;
        if (mr_alloc_reserve((void **)&list, &cap, count + 1, sizeof *list) != MR_OK) break;
        cached_entry *c = &list[count++];
        memcpy(c->name, e->d_name, name_len + 1); /* fits: checked above */
        c->size = (uint64_t)st.st_size;
        int64_t a = ns_of(st.st_atim), m = ns_of(st.st_mtim);
        c->used_ns = a > m ? a : m;
    }
    uint64_t bound = max_bytes();
    if (total > bound && count) {
        qsort(list, count, sizeof *list, by_use);
        for (size_t i = 0; i < count && total > bound; i++)
            if (unlinkat(dirfd(d), list[i].name, 0) == 0) {
                total -= list[i].size;
                stats.pruned++;
            }
    }
    free(list);
    closedir(d);
}

static void write_file(const mr_cache_session *s, const mr_model *m)
{
    size_t len = 0;
    unsigned char *img = serialize(s, m, s->key, &len);
    if (!img) return;
    static unsigned counter;
    char *dir = mr_path_dirname(s->file);
    char *tmp = mr_str_fmt("%s.%ld.%u.tmp", s->file, (long)getpid(), counter++);
    if (!dir || !tmp) goto done;
    if (make_dirs(dir) != 0) {
        warn_once("create the cache folder", dir, errno);
        goto done;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        warn_once("write in", dir, errno);
        goto done;
    }
    size_t put_n = 0;
    int e = 0;
    while (put_n < len) {
        ssize_t k = write(fd, img + put_n, len - put_n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            e = k < 0 ? errno : ENOSPC;
            break;
        }
        put_n += (size_t)k;
    }
    if (close(fd) != 0 && !e) e = errno;
    if (!e && rename(tmp, s->file) != 0) e = errno;
    if (e) {
        unlink(tmp);
        warn_once("write", s->file, e);
    } else {
        stats.writes++;
        prune_folder(dir, mr_path_basename(s->file));
    }
done:
    free(dir);
    free(tmp);
    free(img);
}

/* ---- reader ----------------------------------------------------------------- */

typedef struct reader {
    unsigned char *base;
    size_t size;
    int bad;
    const char *model_path;  /* the path given to this load (texture_path) */
} reader;

/* A widened array of n bytes: allocated on its own, so the mesh owns and
 * frees it like a source load's (model.c frees only what lies outside the
 * block); 64-byte aligned, so that the 64-byte stores of widen_avx512 and
 * gather_rows_avx512 never split a cache line (malloc's 16-byte alignment
 * cost TM.glb ~1.5 us of ~7). NULL (bad) without memory. */
static void *widen_to(reader *r, uint64_t n)
{
    void *p = aligned_alloc(64, n ? ((size_t)n + 63) / 64 * 64 : 64);
    if (!p) r->bad = 1;
    return p;
}

/* The array of count elements of elem bytes at off, or NULL (setting bad
 * when the array does not fit the file or is misaligned). off == 0 with
 * count == 0, or off == 0 when optional, is a legitimate NULL. */
static void *at(reader *r, uint64_t off, uint64_t count, size_t elem, size_t align)
{
    if (off == 0) {
        if (count != 0) r->bad = 1;
        return NULL;
    }
    if (off % align || off >= r->size || (elem && count > (r->size - off) / elem)) {
        r->bad = 1;
        return NULL;
    }
    return r->base + off;
}

/* Optional array: NULL when off == 0 whatever count says. */
static void *opt(reader *r, uint64_t off, uint64_t count, size_t elem, size_t align)
{
    return off ? at(r, off, count, elem, align) : NULL;
}

/* A NUL-terminated string at off inside the file, or NULL for off == 0. */
static char *str(reader *r, uint64_t off)
{
    if (!off) return NULL;
    if (off >= r->size || !memchr(r->base + off, 0, r->size - off)) {
        r->bad = 1;
        return NULL;
    }
    return (char *)r->base + off;
}

/* A stored texture path (put_texture_path) as the loader gives it on this
 * load: in the model's folder, the folder as this load's path names it in
 * front (a new string, which the mesh owns); anything else as stored. */
static char *texture_path(reader *r, uint64_t off)
{
    char *stored = str(r, off);
    if (!stored || stored[0] != IN_MODEL_FOLDER) return stored;
    char *p = mr_str_fmt("%.*s%s", (int)texture_prefix(r->model_path), r->model_path, stored + 1);
    if (!p) r->bad = 1;
    return p;
}

/* Fixes up an mr_track image in place: offsets to pointers, with checks. */
static void fix_track(reader *r, mr_track *t, int components)
{
    uintptr_t to, vo;
    memcpy(&to, &t->times, sizeof to);
    memcpy(&vo, &t->values, sizeof vo);
    t->times = NULL;
    t->values = NULL;
    if (t->key_count < 0 || t->components != components || t->interp < MR_INTERP_LINEAR ||
        t->interp > MR_INTERP_CUBIC) {
        r->bad = 1;
        return;
    }
    if (t->key_count == 0) {
        if (to || vo) r->bad = 1;
        return;
    }
    uint64_t vals = (uint64_t)t->key_count * (uint64_t)components * (t->interp == MR_INTERP_CUBIC ? 3 : 1);
    t->times = at(r, to, (uint64_t)t->key_count, sizeof(float), sizeof(float));
    t->values = at(r, vo, vals, sizeof(float), sizeof(float));
    if (!t->times || !t->values) r->bad = 1;
}

static mr_joint_tracks *fix_tracks(reader *r, uint64_t off, int joints)
{
    mr_joint_tracks *jt = at(r, off, (uint64_t)joints, sizeof *jt, ALIGN);
    for (int j = 0; jt && j < joints; j++) {  /* every slot, so none keeps an offset */
        fix_track(r, &jt[j].t, 3);
        fix_track(r, &jt[j].r, 4);
        fix_track(r, &jt[j].s, 3);
    }
    return jt;
}

static float *dup_floats(reader *r, uint64_t off, int n)
{
    const float *src = opt(r, off, (uint64_t)n, sizeof(float), ALIGN);
    if (!src || r->bad) return NULL;
    float *copy = malloc((size_t)n * sizeof *copy + 1);
    if (!copy) {
        r->bad = 1;
        return NULL;
    }
    memcpy(copy, src, (size_t)n * sizeof *copy);
    return copy;
}

static mr_clip *read_clip(reader *r, const clip_rec *cr)
{
    if (cr->joint_count < 0 || cr->joint_count > MR_MAX_JOINTS || cr->marker_count < 0 ||
        cr->marker_count > MR_MAX_MARKERS || cr->shared_keys < 0) {
        r->bad = 1;
        return NULL;
    }
    mr_clip *c = calloc(1, sizeof *c);
    if (!c) {
        r->bad = 1;
        return NULL;
    }
    c->borrowed = r->base;
    c->borrowed_size = r->size;
    int n = cr->joint_count;
    c->name = str(r, cr->name);
    c->duration = cr->duration;
    c->rate = cr->rate;
    c->joint_count = n;
    if (!c->name) r->bad = 1;
    c->tracks = fix_tracks(r, cr->tracks, n);
    if (!c->tracks && n > 0) r->bad = 1;
    c->fine = cr->fine ? fix_tracks(r, cr->fine, n) : NULL;
    c->fine_added = cr->fine_added;
    c->fine_dropped = cr->fine_dropped;
    c->thin_tolerance = cr->thin_tolerance;
    c->max_angle = dup_floats(r, cr->max_angle, n);
    c->max_move = dup_floats(r, cr->max_move, n);
    c->shared_rate = cr->shared_rate;
    if (cr->shared_keys > 0) {
        c->shared_times = at(r, cr->shared_times, (uint64_t)cr->shared_keys, sizeof(float), sizeof(float));
        c->shared_keys = c->shared_times ? cr->shared_keys : 0;
    }
    if (cr->marker_count > 0 && !r->bad) {
        const marker_rec *mk = at(r, cr->markers, (uint64_t)cr->marker_count, sizeof *mk, 8);
        c->markers = mk ? calloc((size_t)cr->marker_count, sizeof *c->markers) : NULL;
        if (!c->markers) r->bad = 1;
        for (int i = 0; c->markers && i < cr->marker_count; i++) {
            c->markers[i].time = mk[i].time;
            if (!(c->markers[i].name = str(r, mk[i].name))) r->bad = 1;
        }
        c->marker_count = c->markers ? cr->marker_count : 0;
    }
    if (cr->dense && !r->bad) {
        mr_clip_dense *d = at(r, cr->dense, 1, sizeof *d, ALIGN);
        int lanes = (n + 3) / 4 * 4;
        if (!d || cr->dense_joints != n || cr->dense_lanes != lanes || cr->dense_keys < 1 ||
            cr->dense_keys != cr->shared_keys || cr->dense_rest_count < 0 || cr->dense_rest_count > 3 * n) {
            r->bad = 1;
        } else {
            d->keys = cr->dense_keys;
            d->joints = n;
            d->lanes = lanes;
            d->data = at(r, cr->dense_data, (uint64_t)d->keys * 10 * (uint64_t)lanes, sizeof(float), 16);
            d->rest_count = cr->dense_rest_count;
            d->rest = opt(r, cr->dense_rest, (uint64_t)d->rest_count, sizeof(int), sizeof(int));
            if (!d->data || (d->rest_count && !d->rest)) r->bad = 1;
            for (int i = 0; !r->bad && i < d->rest_count; i++)
                if (d->rest[i] < 0 || d->rest[i] >= n * 4 || d->rest[i] % 4 > 2) r->bad = 1;
            c->dense = d;
        }
    }
    return c;
}

/* Largest value of n uint32 / uint16 / uint8 (one body for each width):
 * 16 independent maxima, so the loop is not one long dependency chain; the
 * compiler's SSE2 code keeps one chain per vector, so with AVX2 two
 * 32-byte chains (~4x on TM.glb's 17 KB of row numbers and indices). */
#define DEFINE_MAX(name, T)                                                          \
    static T name##_portable(const T *v, size_t n)                                   \
    {                                                                                \
        T m[16] = {0};                                                               \
        size_t i = 0;                                                                \
        for (; i + 16 <= n; i += 16)                                                 \
            for (int k = 0; k < 16; k++) m[k] = v[i + k] > m[k] ? v[i + k] : m[k];   \
        for (; i < n; i++) m[0] = v[i] > m[0] ? v[i] : m[0];                         \
        for (int k = 1; k < 16; k++) m[0] = m[k] > m[0] ? m[k] : m[0];               \
        return m[0];                                                                 \
    }
DEFINE_MAX(max_u32, uint32_t)
DEFINE_MAX(max_u16, uint16_t)
DEFINE_MAX(max_u8, uint8_t)

#ifdef HAVE_AVX2_PATH
#define DEFINE_MAX_AVX2(name, T, vmax)                                               \
    __attribute__((target("avx2"))) static T name##_avx2(const T *v, size_t n)       \
    {                                                                                \
        const size_t per = 32 / sizeof(T);                                           \
        __m256i m0 = _mm256_setzero_si256(), m1 = m0;                                \
        size_t i = 0;                                                                \
        for (; i + 2 * per <= n; i += 2 * per) {                                     \
            m0 = vmax(m0, _mm256_loadu_si256((const __m256i *)(v + i)));             \
            m1 = vmax(m1, _mm256_loadu_si256((const __m256i *)(v + i + per)));       \
        }                                                                            \
        T lanes[32 / sizeof(T)], m = 0;                                              \
        _mm256_storeu_si256((__m256i *)lanes, vmax(m0, m1));                         \
        for (size_t k = 0; k < per; k++) m = lanes[k] > m ? lanes[k] : m;            \
        for (; i < n; i++) m = v[i] > m ? v[i] : m; /* not a call: no SSE code */    \
        return m;                                                                    \
    }
DEFINE_MAX_AVX2(max_u32, uint32_t, _mm256_max_epu32)
DEFINE_MAX_AVX2(max_u16, uint16_t, _mm256_max_epu16)
DEFINE_MAX_AVX2(max_u8, uint8_t, _mm256_max_epu8)
#define MAX_OF(name) (simd_level() ? name##_avx2(v, n) : name##_portable(v, n))
#else
#define MAX_OF(name) name##_portable(v, n)
#endif

static uint32_t max_u32(const uint32_t *v, size_t n) { return MAX_OF(max_u32); }
static uint16_t max_u16(const uint16_t *v, size_t n) { return MAX_OF(max_u16); }
static uint8_t max_u8(const uint8_t *v, size_t n) { return MAX_OF(max_u8); }

/* Widens v vertices of slots stored influences to MR_MAX_INFLUENCES
 * (joint 0, weight 0 in the rest). */
static void widen_scalar(uint16_t (*jdst)[MR_MAX_INFLUENCES], float (*wdst)[MR_MAX_INFLUENCES], const void *jsrc,
                         const float *wsrc, size_t from, size_t v, int slots, int joint_bytes)
{
    const uint8_t *j8 = jsrc;
    const uint16_t *j16 = jsrc;
    size_t S = (size_t)slots;
    for (size_t i = from; i < v; i++)
        for (size_t k = 0; k < MR_MAX_INFLUENCES; k++) {
            jdst[i][k] = k >= S ? 0 : joint_bytes == 1 ? j8[i * S + k] : j16[i * S + k];
            wdst[i][k] = k >= S ? 0.0f : wsrc[i * S + k];
        }
}

#if defined(__x86_64__)
/* SSE2 (every x86-64): each row is read with full-width loads, masked to
 * its slots and stored whole; the loads reach up to 8 elements past the
 * row, so the last rows (those that would read past the array) go through
 * the scalar loop. */
static void widen_sse2(uint16_t (*jdst)[MR_MAX_INFLUENCES], float (*wdst)[MR_MAX_INFLUENCES], const void *jsrc,
                       const float *wsrc, size_t v, int slots, int joint_bytes)
{
    size_t S = (size_t)slots, n = v * S, i = 0;
    uint32_t wm[8];
    uint16_t jm[8];
    for (size_t k = 0; k < 8; k++) {
        wm[k] = k < S ? 0xffffffffu : 0;
        jm[k] = k < S ? 0xffff : 0;
    }
    const __m128 wlo = _mm_castsi128_ps(_mm_loadu_si128((const __m128i *)wm));
    const __m128 whi = _mm_castsi128_ps(_mm_loadu_si128((const __m128i *)(wm + 4)));
    const __m128i jmask = _mm_loadu_si128((const __m128i *)jm), zero = _mm_setzero_si128();
    const unsigned char *jb = jsrc;
    size_t safe = S ? (n >= 8 ? (n - 8) / S + 1 : 0) : 0;  /* rows whose loads stay inside */
    for (; i < safe; i++) {
        const float *w = wsrc + i * S;
        _mm_storeu_ps(wdst[i], _mm_and_ps(_mm_loadu_ps(w), wlo));
        _mm_storeu_ps(wdst[i] + 4, _mm_and_ps(_mm_loadu_ps(w + 4), whi));
    }
    if (joint_bytes == 1)
        for (i = 0; i < safe; i++) {
            __m128i j = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(jb + i * S)), zero);
            _mm_storeu_si128((__m128i *)jdst[i], _mm_and_si128(j, jmask));
        }
    else
        for (i = 0; i < safe; i++) {
            __m128i j = _mm_loadu_si128((const __m128i *)(jb + i * S * 2));
            _mm_storeu_si128((__m128i *)jdst[i], _mm_and_si128(j, jmask));
        }
    widen_scalar(jdst, wdst, jsrc, wsrc, i, v, slots, joint_bytes);
}

/* AVX-512 (F, BW, VL): two vertices per iteration, each destination pair
 * written with one full-width store (64 bytes of weights, 32 of joints).
 * Masked loads read exactly the two rows (no reading past the array, no
 * scalar rows but an odd last one); a permute puts each row's slots in
 * place and zeroes the rest. */
__attribute__((target("avx512f,avx512bw,avx512vl"))) static void
widen_avx512(uint16_t (*jdst)[MR_MAX_INFLUENCES], float (*wdst)[MR_MAX_INFLUENCES], const void *jsrc,
             const float *wsrc, size_t v, int slots, int joint_bytes)
{
    const unsigned S = (unsigned)slots;
    int32_t wi[16];
    int16_t ji[16];
    int8_t bi[16];
    for (unsigned k = 0; k < 16; k++) {  /* destination slot k of the pair: row k / 8, slot k % 8 */
        wi[k] = (int32_t)(k / 8 * S + k % 8);
        ji[k] = (int16_t)(k / 8 * S + k % 8);
        bi[k] = (int8_t)(k % 8 < S ? k / 8 * S + k % 8 : 0x80);  /* 0x80: pshufb writes 0 */
    }
    const __mmask16 keep = (__mmask16)(((1u << S) - 1) | ((1u << S) - 1) << 8);
    const __mmask16 load16 = (__mmask16)((1u << 2 * S) - 1);  /* 2S <= 16 elements */
    const __m512i widx = _mm512_loadu_si512(wi);
    const __m256i jidx = _mm256_loadu_si256((const __m256i *)ji);
    const __m128i bidx = _mm_loadu_si128((const __m128i *)bi);
    size_t i = 0, pairs = v / 2 * 2;
    for (i = 0; i < pairs; i += 2) {
        __m512 w = _mm512_maskz_loadu_ps(load16, wsrc + i * S);
        _mm512_storeu_ps(wdst[i], _mm512_maskz_permutexvar_ps(keep, widx, w));
    }
    if (joint_bytes == 1) {
        const uint8_t *jb = jsrc;
        for (i = 0; i < pairs; i += 2) {
            __m128i b = _mm_shuffle_epi8(_mm_maskz_loadu_epi8(load16, jb + i * S), bidx);
            _mm256_storeu_si256((__m256i *)jdst[i], _mm256_cvtepu8_epi16(b));
        }
    } else {
        const uint16_t *jw = jsrc;
        for (i = 0; i < pairs; i += 2) {
            __m256i j = _mm256_maskz_loadu_epi16(load16, jw + i * S);
            _mm256_storeu_si256((__m256i *)jdst[i], _mm256_maskz_permutexvar_epi16(keep, jidx, j));
        }
    }
    _mm256_zeroupper();  /* the scalar code below may be SSE: no transition stall */
    widen_scalar(jdst, wdst, jsrc, wsrc, pairs, v, slots, joint_bytes);
}

static void widen(uint16_t (*jdst)[MR_MAX_INFLUENCES], float (*wdst)[MR_MAX_INFLUENCES], const void *jsrc,
                  const float *wsrc, size_t v, int slots, int joint_bytes)
{
    if (mr_simd() >= MR_SIMD_AVX512) widen_avx512(jdst, wdst, jsrc, wsrc, v, slots, joint_bytes);
    else widen_sse2(jdst, wdst, jsrc, wsrc, v, slots, joint_bytes);
}
#else
static void widen(uint16_t (*jdst)[MR_MAX_INFLUENCES], float (*wdst)[MR_MAX_INFLUENCES], const void *jsrc,
                  const float *wsrc, size_t v, int slots, int joint_bytes)
{
    widen_scalar(jdst, wdst, jsrc, wsrc, 0, v, slots, joint_bytes);
}
#endif

#if defined(__x86_64__)
/* AVX-512 (F, BW, VL, DQ), straight from the stored rows: per vertex a
 * masked load of its row's slots (zeros in the rest, nothing read past
 * the row), two vertices per 64-byte store of weights, four per store of
 * joints. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) static void
gather_rows_avx512(uint16_t (*jdst)[MR_MAX_INFLUENCES], float (*wdst)[MR_MAX_INFLUENCES], const void *js,
                   const float *ws, const uint16_t *row_of, size_t v, int slots, int joint_bytes)
{
    const size_t S = (size_t)slots;
    const __mmask8 k = (__mmask8)((1u << S) - 1);
    const uint8_t *j8 = js;
    const uint16_t *j16 = js;
    size_t i = 0;
    for (; i + 4 <= v; i += 4) {
        size_t a = row_of[i] * S, b = row_of[i + 1] * S, c = row_of[i + 2] * S, d = row_of[i + 3] * S;
        __m512 w0 = _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_maskz_loadu_ps(k, ws + a)),
                                       _mm256_maskz_loadu_ps(k, ws + b), 1);
        __m512 w1 = _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_maskz_loadu_ps(k, ws + c)),
                                       _mm256_maskz_loadu_ps(k, ws + d), 1);
        __m256i j0, j1;
        if (joint_bytes == 1) {
            j0 = _mm256_cvtepu8_epi16(_mm_unpacklo_epi64(_mm_maskz_loadu_epi8(k, j8 + a), _mm_maskz_loadu_epi8(k, j8 + b)));
            j1 = _mm256_cvtepu8_epi16(_mm_unpacklo_epi64(_mm_maskz_loadu_epi8(k, j8 + c), _mm_maskz_loadu_epi8(k, j8 + d)));
        } else {
            j0 = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_maskz_loadu_epi16(k, j16 + a)),
                                         _mm_maskz_loadu_epi16(k, j16 + b), 1);
            j1 = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_maskz_loadu_epi16(k, j16 + c)),
                                         _mm_maskz_loadu_epi16(k, j16 + d), 1);
        }
        _mm512_storeu_ps(wdst[i], w0);
        _mm512_storeu_ps(wdst[i + 2], w1);
        _mm512_storeu_si512(jdst[i], _mm512_inserti64x4(_mm512_castsi256_si512(j0), j1, 1));
    }
    for (; i < v; i++) {
        size_t a = row_of[i] * S;
        _mm256_storeu_ps(wdst[i], _mm256_maskz_loadu_ps(k, ws + a));
        _mm_storeu_si128((__m128i *)jdst[i], joint_bytes == 1 ? _mm_cvtepu8_epi16(_mm_maskz_loadu_epi8(k, j8 + a))
                                                              : _mm_maskz_loadu_epi16(k, j16 + a));
    }
}
#endif

/* Joints and weights: in place when stored with 8 wide slots, else widened
 * into arrays the mesh owns: per vertex, or (row_of) each vertex from its
 * row. Every stored joint is checked below joints, every row number below
 * rows, before any is used. */
static void read_influences(reader *r, const mesh_rec *mr, mr_mesh *me, int joints)
{
    uint64_t v = (uint64_t)mr->vertex_count;
    if (!mr->joints && !mr->weights) return;
    if (!mr->joints || !mr->weights || mr->slots < 0 || mr->slots > MR_MAX_INFLUENCES ||
        (mr->joint_bytes != 1 && mr->joint_bytes != 2) || joints <= 0 ||
        (mr->row_of && (mr->rows < 1 || mr->rows > MAX_ROWS || mr->slots < 1))) {
        r->bad = 1;
        return;
    }
    if (!mr->row_of && mr->slots == MR_MAX_INFLUENCES && mr->joint_bytes == 2) {
        me->joints = at(r, mr->joints, v, sizeof *me->joints, ALIGN);
        me->weights = at(r, mr->weights, v, sizeof *me->weights, ALIGN);
        if (!r->bad && v && max_u16(&me->joints[0][0], (size_t)v * MR_MAX_INFLUENCES) >= joints) r->bad = 1;
        return;
    }
    uint64_t count = mr->row_of ? (uint64_t)mr->rows : v, n = count * (uint64_t)mr->slots;
    const void *js = at(r, mr->joints, n, (size_t)mr->joint_bytes, ALIGN);
    const float *ws = at(r, mr->weights, n, sizeof(float), ALIGN);
    const uint16_t *row_of = mr->row_of ? at(r, mr->row_of, v, sizeof *row_of, ALIGN) : NULL;
    if (r->bad) return;
    unsigned max = n == 0 ? 0 : mr->joint_bytes == 1 ? max_u8(js, (size_t)n) : max_u16(js, (size_t)n);
    if (max >= (unsigned)joints || (row_of && v && max_u16(row_of, (size_t)v) >= (uint64_t)mr->rows)) r->bad = 1;
    if (r->bad) return;
    me->joints = widen_to(r, v * sizeof *me->joints);   /* the mesh owns them from here on */
    me->weights = widen_to(r, v * sizeof *me->weights);
    if (r->bad) return;
    if (!row_of) {
        widen(me->joints, me->weights, js, ws, (size_t)v, mr->slots, mr->joint_bytes);
        return;
    }
#if defined(__x86_64__)
    if (mr_simd() >= MR_SIMD_AVX512) {
        gather_rows_avx512(me->joints, me->weights, js, ws, row_of, (size_t)v, mr->slots, mr->joint_bytes);
        return;
    }
#endif
    /* Elsewhere the rows widened once into a scratch table (rows <= MAX_ROWS:
     * at most 3 MB), then each vertex's row copied. */
    uint16_t (*tj)[MR_MAX_INFLUENCES] = malloc((size_t)count * (sizeof *tj + sizeof(float[MR_MAX_INFLUENCES])));
    if (!tj) {
        r->bad = 1;
        return;
    }
    float (*tw)[MR_MAX_INFLUENCES] = (float (*)[MR_MAX_INFLUENCES])(tj + count);
    widen(tj, tw, js, ws, (size_t)count, mr->slots, mr->joint_bytes);
    for (size_t i = 0; i < (size_t)v; i++) {
        memcpy(me->joints[i], tj[row_of[i]], sizeof *tj);
        memcpy(me->weights[i], tw[row_of[i]], sizeof *tw);
    }
    free(tj);
}

/* Triangle indices: in place (uint32) or widened from uint16, each checked
 * below the vertex count. */
static void read_indices(reader *r, const mesh_rec *mr, mr_mesh *me)
{
    size_t n = (size_t)mr->index_count;
    if (mr->index_bytes == 4) {
        me->indices = at(r, mr->indices, n, sizeof(uint32_t), ALIGN);
        if (!r->bad && n && max_u32(me->indices, n) >= (uint32_t)mr->vertex_count) r->bad = 1;
        return;
    }
    const uint16_t *narrow = mr->index_bytes == 2 ? at(r, mr->indices, n, sizeof *narrow, ALIGN) : NULL;
    if (!narrow || (n && max_u16(narrow, n) >= (uint32_t)mr->vertex_count)) {
        r->bad = 1;
        return;
    }
    uint32_t *wide = widen_to(r, n * sizeof *wide);
    if (!wide) return;
    size_t i = 0;
#if defined(__x86_64__)
    const __m128i zero = _mm_setzero_si128();
    for (; i + 8 <= n; i += 8) {
        __m128i v = _mm_loadu_si128((const __m128i *)(narrow + i));
        _mm_storeu_si128((__m128i *)(wide + i), _mm_unpacklo_epi16(v, zero));
        _mm_storeu_si128((__m128i *)(wide + i + 4), _mm_unpackhi_epi16(v, zero));
    }
#endif
    for (; i < n; i++) wide[i] = narrow[i];
    me->indices = wide;
}

static void read_mesh(reader *r, const mesh_rec *mr, mr_mesh *me, int joints)
{
    if (mr->vertex_count < 0 || mr->index_count < 0 || mr->index_count % 3) {
        r->bad = 1;
        return;
    }
    uint64_t v = (uint64_t)mr->vertex_count;
    me->vertex_count = mr->vertex_count;
    me->index_count = mr->index_count;
    me->name = str(r, mr->name);
    me->positions = at(r, mr->positions, v, sizeof(vec3), ALIGN);
    me->normals = at(r, mr->normals, v, sizeof(vec3), ALIGN);
    me->uvs = at(r, mr->uvs, v, sizeof(vec2), ALIGN);
    if (r->bad) return;
    read_influences(r, mr, me, joints);
    if (r->bad) return;
    read_indices(r, mr, me);
    if (r->bad) return;
    me->source_over4 = mr->source_over4;
    me->source_over8 = mr->source_over8;
    mr_material *mt = &me->material;
    mt->name = str(r, mr->mat_name);
    mt->diffuse_map = texture_path(r, mr->diffuse_map);
    mt->normal_map = texture_path(r, mr->normal_map);
    mt->diffuse_bytes = opt(r, mr->diffuse_bytes, mr->diffuse_len, 1, ALIGN);
    mt->normal_bytes = opt(r, mr->normal_bytes, mr->normal_len, 1, ALIGN);
    mt->diffuse_bytes_len = mt->diffuse_bytes ? (size_t)mr->diffuse_len : 0;
    mt->normal_bytes_len = mt->normal_bytes ? (size_t)mr->normal_len : 0;
    memcpy(mt->diffuse, mr->diffuse, sizeof mt->diffuse);
    memcpy(mt->ambient, mr->ambient, sizeof mt->ambient);
    memcpy(mt->specular, mr->specular, sizeof mt->specular);
    memcpy(mt->emission, mr->emission, sizeof mt->emission);
    mt->shininess = mr->shininess;
}

/* Builds the model from a checked file image; NULL when anything is out of
 * range (the block is then the caller's to free). */
static mr_model *build(reader *r, const file_header *h, const char *path)
{
    const model_rec *mr = at(r, h->model, 1, sizeof *mr, 8);
    mr_model *m = mr ? calloc(1, sizeof *m) : NULL;
    int n = mr ? mr->joint_count : 0;
    if (!m || n < 0 || n > MR_MAX_JOINTS || mr->mesh_count < 0 || mr->clip_count < 0 || mr->warning_count < 0 ||
        mr->up < MR_UP_Y || mr->up > MR_UP_X) {
        free(m);
        free(r->base);
        return NULL;
    }
    m->cache_block = r->base;
    m->cache_block_size = r->size;
    m->path = mr_str_dup(path);
    m->format = str(r, mr->format);
    m->axes_note = str(r, mr->axes_note);
    m->axes.up = (mr_up_axis)mr->up;
    m->axes.meters_per_unit = mr->meters_per_unit;
    if (!m->path || !m->format) r->bad = 1;
    mr_skeleton *sk = &m->skeleton;
    if (n > 0 && !r->bad) {
        const uint64_t *names = at(r, mr->names, (uint64_t)n, sizeof *names, ALIGN);
        sk->names = (char **)names;  /* fixed up in place below */
        sk->parents = at(r, mr->parents, (uint64_t)n, sizeof(int), ALIGN);
        sk->rest_t = at(r, mr->rest_t, (uint64_t)n, sizeof(vec3), ALIGN);
        sk->rest_r = at(r, mr->rest_r, (uint64_t)n, sizeof(versor), ALIGN);
        sk->rest_s = at(r, mr->rest_s, (uint64_t)n, sizeof(vec3), ALIGN);
        sk->inverse_bind = at(r, mr->inverse_bind, (uint64_t)n, sizeof(mat4), ALIGN);
        if (!r->bad) {
            sk->joint_count = n;
            /* offsets to pointers in place, through memcpy (the slot changes type) */
            for (int j = 0; j < n; j++) {
                uint64_t off;
                memcpy(&off, (const unsigned char *)names + (size_t)j * sizeof off, sizeof off);
                char *s = str(r, off);
                if (!s || sk->parents[j] < -1 || sk->parents[j] >= j) r->bad = 1;
                memcpy((unsigned char *)names + (size_t)j * sizeof s, &s, sizeof s);
            }
        }
    }
    if (mr->warning_count > 0 && !r->bad) {
        const uint64_t *ws = at(r, mr->warnings, (uint64_t)mr->warning_count, sizeof *ws, 8);
        m->warnings = ws ? calloc((size_t)mr->warning_count, sizeof *m->warnings) : NULL;
        if (!m->warnings) r->bad = 1;
        for (int i = 0; m->warnings && i < mr->warning_count; i++)
            if (!(m->warnings[i] = str(r, ws[i]))) r->bad = 1;
        if (m->warnings) m->warning_count = mr->warning_count;
    }
    if (mr->mesh_count > 0 && !r->bad) {
        const mesh_rec *ms = at(r, mr->meshes, (uint64_t)mr->mesh_count, sizeof *ms, 8);
        m->meshes = ms ? calloc((size_t)mr->mesh_count, sizeof *m->meshes) : NULL;
        if (!m->meshes) r->bad = 1;
        for (int i = 0; m->meshes && !r->bad && i < mr->mesh_count; i++) {
            read_mesh(r, &ms[i], &m->meshes[i], sk->joint_count);
            m->mesh_count = i + 1;
        }
    }
    if (mr->clip_count > 0 && !r->bad) {
        const clip_rec *cs = at(r, mr->clips, (uint64_t)mr->clip_count, sizeof *cs, 8);
        m->clips = cs ? calloc((size_t)mr->clip_count, sizeof *m->clips) : NULL;
        if (!m->clips) r->bad = 1;
        for (int i = 0; m->clips && !r->bad && i < mr->clip_count; i++) {
            mr_clip *c = read_clip(r, &cs[i]);
            if (!c) break;
            m->clips[m->clip_count++] = c;
        }
    }
    if (r->bad) {
        mr_model_destroy(m);  /* frees what was allocated, skips the block's pointers, frees the block */
        return NULL;
    }
    return m;
}

/* The header's checks, in the order that names the likeliest cause; 1 when
 * it may be this session's file, else 0 with the reason recorded. */
static int header_ok(const file_header *h, size_t size, const mr_cache_session *s)
{
    if (memcmp(h->magic, MAGIC, sizeof h->magic)) return reject("not a marrow cache file");
    if (h->bom != BOM) return reject("written on a machine of the other byte order");
    if (h->version != MR_CACHE_VERSION)
        return reject("cache format version %u, this marrow reads %d", h->version, MR_CACHE_VERSION);
    if (h->layout != layout_fingerprint()) return reject("written by a marrow built from other loader code");
    if (h->key != s->key || h->source_count != (uint32_t)s->source_count) return reject("written for other sources");
    if (h->file_size != size)
        return reject("%s: %zu bytes, its header says %llu", size < h->file_size ? "truncated" : "too long", size,
                      (unsigned long long)h->file_size);
    return 1;
}

/* Reads and checks the cache file; the model on success, else NULL (the
 * reason for mr_cache_rejection when the file exists). On success
 * s->stamps hold the sources as they are now, and *refresh says that a
 * source had to be hashed (its recorded stamp was taken too close to its
 * last change, or its stat data changed with its content the same) while
 * its new stamp would be trusted: the caller rewrites the file so that
 * later loads skip the hashing (not under hash_always). */
static mr_model *read_file(mr_cache_session *s, const char *path, int *refresh)
{
    int fd = open(s->file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    file_header h;
    reader r = {0};
    int ok = fstat(fd, &st) == 0 && (uint64_t)st.st_size <= SIZE_MAX / 2;
    if (!ok) reject("cannot be read: %s", strerror(errno));
    else if (st.st_size < (off_t)sizeof h)
        ok = reject("truncated: %lld bytes, shorter than its %zu-byte header", (long long)st.st_size, sizeof h);
    if (ok) {
        r.size = (size_t)st.st_size;
        r.base = aligned_alloc(64, (r.size + 63) / 64 * 64);
        ok = r.base && read_all(fd, r.base, r.size) == 0;
        if (!ok) reject("cannot be read: %s", r.base ? strerror(errno) : "out of memory");
    }
    close(fd);
    if (ok) memcpy(&h, r.base, sizeof h);
    ok = ok && header_ok(&h, r.size, s);
    if (ok && mr_cache_hash(r.base + sizeof h, r.size - sizeof h) != h.payload_hash)
        ok = reject("damaged: the payload's checksum differs from its header's");
    const source_rec *src = ok ? at(&r, sizeof h, h.source_count, sizeof *src, 8) : NULL;
    if (ok && !src) ok = reject("damaged: source records out of range");
    for (int i = 0; ok && i < s->source_count; i++) {
        const char *p = str(&r, src[i].path);
        if (!p || r.bad || strcmp(p, s->sources[i])) ok = reject("written for other sources");
    }
    /* The sources as they are now: size, mtime, and stat data or content. */
    *refresh = 0;
    for (int i = 0; ok && i < s->source_count; i++) {
        int hashed;
        if (stamp_file(s->sources[i], &s->stamps[i], &src[i], &hashed) != 0)
            ok = reject("stale: %s changed since it was written", s->sources[i]);
        stats.hashed += hashed;
        const mr_cache_stamp *t = &s->stamps[i];
        if (ok && hashed && !hash_always() && t->ctime_ns > 0 && t->ctime_ns + RACY_NS < t->taken_ns)
            *refresh = 1;
    }
    mr_model *m = NULL;
    r.model_path = path;
    if (ok && !(m = build(&r, &h, path)))  /* owns the block from here on */
        reject("damaged: a count, offset or index out of range");
    if (!ok) free(r.base);
    if (!m) stats.rejected++;
    return m;
}

/* ---- the session --------------------------------------------------------- */

int mr_cache_begin(mr_cache_session *s, const char *path, const char *const *anims, int anim_count,
                   mr_model **out)
{
    *out = NULL;
    memset(s, 0, sizeof *s);
    /* A .gltf reads buffers from other files that the cache does not
     * fingerprint: never cached (a .glb holds its buffers). */
    char ext[8];
    if (!strcmp(mr_path_ext(path, ext, sizeof ext), "gltf")) return 0;
    if (!session_init(s, path, anims, anim_count)) return 0;
    int refresh = 0;
    mr_model *m = read_file(s, path, &refresh);
    if (m) {
        stats.hits++;
        if (refresh) {
            write_file(s, m);
            stats.refreshed++;
        }
        session_free(s);
        *out = m;
        return 1;
    }
    stats.misses++;
    /* Fingerprint before the source load: a source edited during the load
     * then fails the check in mr_cache_end. */
    if (session_fingerprint(s) != 0) session_free(s);
    return 0;
}

void mr_cache_end(mr_cache_session *s, const mr_model *model)
{
    if (s->active && s->fingerprinted && model) {
        int same = 1;
        for (int i = 0; same && i < s->source_count; i++) {
            struct stat st;
            const mr_cache_stamp *t = &s->stamps[i];
            same = stat(s->sources[i], &st) == 0 && (uint64_t)st.st_size == t->size &&
                   ns_of(st.st_mtim) == t->mtime_ns && ns_of(st.st_ctim) == t->ctime_ns &&
                   (uint64_t)st.st_ino == t->ino && (uint64_t)st.st_dev == t->dev;
        }
        if (same) write_file(s, model);
    }
    session_free(s);
}
