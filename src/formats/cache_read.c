/* cache_read.c — a cache file back to a model (cache.h, Trust): the one
 * place that reads cache files, which are never trusted.
 *
 * The file is read whole into one 64-byte aligned block; the header is
 * checked (magic, byte order, version, layout, key, size), then the
 * payload's checksum, then the source paths; the sources' stamps are
 * compared by cache_policy.c (cache_sources_match). Only then is the model
 * built (build): every count checked against its limit, every offset,
 * array and string against the file size (at, opt, str), every index
 * that later code uses to address memory range-checked before use, stored
 * narrow arrays checked before they are widened (SIMD below), and the
 * skeleton and clips validated as every loader does (rest rotations unit,
 * key times in order). A failure anywhere frees what was built and the
 * load reads the source. tests/fuzz/fuzz_cache.c feeds cache_read_block. */
#include "formats/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anim/clip_dense.h"
#include "anim/clip_pack.h"
#include "core/cpu.h"
#include "core/str.h"
#include "formats/cache_internal.h"

#if defined(__x86_64__)
#include <emmintrin.h>  /* SSE2: widening stored influences */
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX2_PATH 1
#endif

typedef struct reader {
    unsigned char *base;
    size_t size;
    int bad;
    const char *model_path;  /* the path given to this load (texture_path) */
} reader;

/* A widened array of n bytes: allocated on its own, so the mesh owns and
 * frees it like a source load's (model.c frees only what lies outside the
 * block); 64-byte aligned, so that the 64-byte stores of widen_avx512 and
 * gather_rows_avx512 never split a cache line (docs/PERFORMANCE.md).
 * NULL (bad) without memory. */
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
    if (!stored || stored[0] != CACHE_IN_MODEL_FOLDER) return stored;
    char *p = mr_str_fmt("%.*s%s", (int)cache_texture_prefix(r->model_path), r->model_path, stored + 1);
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
    mr_joint_tracks *jt = at(r, off, (uint64_t)joints, sizeof *jt, CACHE_ALIGN);
    for (int j = 0; jt && j < joints; j++) {  /* every slot, so none keeps an offset */
        fix_track(r, &jt[j].t, 3);
        fix_track(r, &jt[j].r, 4);
        fix_track(r, &jt[j].s, 3);
    }
    return jt;
}

static float *dup_floats(reader *r, uint64_t off, int n)
{
    const float *src = opt(r, off, (uint64_t)n, sizeof(float), CACHE_ALIGN);
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
    c->cache_block = r->base;
    c->cache_block_size = r->size;
    int n = cr->joint_count;
    c->name = str(r, cr->name);
    c->duration = cr->duration;
    c->rate = cr->rate;
    c->joint_count = n;
    mr_clip_runtime *rt = mr_clip_runtime_of(c);   /* takes joint_count and cache_block from c */
    if (!rt) {
        r->bad = 1;
        return c;
    }
    if (!c->name) r->bad = 1;
    c->tracks = fix_tracks(r, cr->tracks, n);
    if (!c->tracks && n > 0) r->bad = 1;
    /* keys given up for the pack (anim/clip.h): load.c gives the way back */
    c->source_dropped = cr->source_dropped != 0;
    c->source_key_count = cr->source_key_count > 0 ? cr->source_key_count : 0;
    if (c->source_dropped && !cr->pack) r->bad = 1;   /* nothing would sample it */
    rt->played = cr->played ? fix_tracks(r, cr->played, n) : NULL;
    rt->keys_added = cr->keys_added;
    rt->keys_dropped = cr->keys_dropped;
    rt->thin_tolerance = cr->thin_tolerance;
    rt->max_angle = dup_floats(r, cr->max_angle, n);
    rt->max_move = dup_floats(r, cr->max_move, n);
    rt->point_reach = dup_floats(r, cr->point_reach, n);
    for (int j = 0; rt->point_reach && j < n; j++)   /* as mr_clip_set_point_reach takes them */
        if (!(rt->point_reach[j] >= 0)) r->bad = 1;
    rt->shared_rate = cr->shared_rate;
    if (cr->shared_keys > 0) {
        rt->shared_times = at(r, cr->shared_times, (uint64_t)cr->shared_keys, sizeof(float), sizeof(float));
        rt->shared_keys = rt->shared_times ? cr->shared_keys : 0;
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
    if (cr->pack && !r->bad) {
        void *pack = cr->pack_bytes > 0 ? at(r, cr->pack, (uint64_t)cr->pack_bytes, 1, 8) : NULL;
        if (!pack || !mr_clip_pack_valid(pack, (size_t)cr->pack_bytes, n)) r->bad = 1;
        else {
            rt->pack = pack;
            rt->serial = mr_clip_pack_serial();
        }
    }
    if (cr->dense && !r->bad) {
        mr_clip_dense *d = at(r, cr->dense, 1, sizeof *d, CACHE_ALIGN);
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
            rt->dense = d;
        }
    }
    return c;
}

/* Largest value of n uint32 / uint16 / uint8 (one body for each width):
 * 16 independent maxima, so the loop is not one long dependency chain; the
 * compiler's SSE2 code keeps one chain per vector, so with AVX2 two
 * 32-byte chains. */
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
#define MAX_OF(name) (cache_simd_level() ? name##_avx2(v, n) : name##_portable(v, n))
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
        (mr->row_of && (mr->rows < 1 || mr->rows > CACHE_MAX_ROWS || mr->slots < 1))) {
        r->bad = 1;
        return;
    }
    if (!mr->row_of && mr->slots == MR_MAX_INFLUENCES && mr->joint_bytes == 2) {
        me->joints = at(r, mr->joints, v, sizeof *me->joints, CACHE_ALIGN);
        me->weights = at(r, mr->weights, v, sizeof *me->weights, CACHE_ALIGN);
        if (!r->bad && v && max_u16(&me->joints[0][0], (size_t)v * MR_MAX_INFLUENCES) >= joints) r->bad = 1;
        return;
    }
    uint64_t count = mr->row_of ? (uint64_t)mr->rows : v, n = count * (uint64_t)mr->slots;
    const void *js = at(r, mr->joints, n, (size_t)mr->joint_bytes, CACHE_ALIGN);
    const float *ws = at(r, mr->weights, n, sizeof(float), CACHE_ALIGN);
    const uint16_t *row_of = mr->row_of ? at(r, mr->row_of, v, sizeof *row_of, CACHE_ALIGN) : NULL;
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
    /* Elsewhere the rows widened once into a scratch table (rows <= CACHE_MAX_ROWS:
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
        me->indices = at(r, mr->indices, n, sizeof(uint32_t), CACHE_ALIGN);
        if (!r->bad && n && max_u32(me->indices, n) >= (uint32_t)mr->vertex_count) r->bad = 1;
        return;
    }
    const uint16_t *narrow = mr->index_bytes == 2 ? at(r, mr->indices, n, sizeof *narrow, CACHE_ALIGN) : NULL;
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
    me->positions = at(r, mr->positions, v, sizeof(vec3), CACHE_ALIGN);
    me->normals = at(r, mr->normals, v, sizeof(vec3), CACHE_ALIGN);
    me->uvs = at(r, mr->uvs, v, sizeof(vec2), CACHE_ALIGN);
    if (r->bad) return;
    read_influences(r, mr, me, joints);
    if (r->bad) return;
    read_indices(r, mr, me);
    if (r->bad) return;
    me->source_over4 = mr->source_over4;
    me->source_over8 = mr->source_over8;
    if (mr->skinning != MR_SKINNING_LINEAR && mr->skinning != MR_SKINNING_DUAL_QUATERNION) {
        r->bad = 1;
        return;
    }
    me->skinning = (mr_skinning)mr->skinning;
    me->dq_blend = opt(r, mr->dq_blend, v, sizeof(float), CACHE_ALIGN);
    for (uint64_t i = 0; me->dq_blend && i < v; i++)
        if (!(me->dq_blend[i] >= 0 && me->dq_blend[i] <= 1)) {   /* NaN too */
            r->bad = 1;
            return;
        }
    mr_material *mt = &me->material;
    mt->name = str(r, mr->mat_name);
    mt->diffuse_map = texture_path(r, mr->diffuse_map);
    mt->normal_map = texture_path(r, mr->normal_map);
    mt->diffuse_bytes = opt(r, mr->diffuse_bytes, mr->diffuse_len, 1, CACHE_ALIGN);
    mt->normal_bytes = opt(r, mr->normal_bytes, mr->normal_len, 1, CACHE_ALIGN);
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
        const uint64_t *names = at(r, mr->names, (uint64_t)n, sizeof *names, CACHE_ALIGN);
        sk->names = (char **)names;  /* fixed up in place below */
        sk->parents = at(r, mr->parents, (uint64_t)n, sizeof(int), CACHE_ALIGN);
        sk->rest_t = at(r, mr->rest_t, (uint64_t)n, sizeof(vec3), CACHE_ALIGN);
        sk->rest_r = at(r, mr->rest_r, (uint64_t)n, sizeof(versor), CACHE_ALIGN);
        sk->rest_s = at(r, mr->rest_s, (uint64_t)n, sizeof(vec3), CACHE_ALIGN);
        sk->inverse_bind = at(r, mr->inverse_bind, (uint64_t)n, sizeof(mat4), CACHE_ALIGN);
        sk->scale_comp = opt(r, mr->scale_comp, (uint64_t)n, 1, CACHE_ALIGN);
        for (int j = 0; sk->scale_comp && j < n; j++)
            if (sk->scale_comp[j] > 1) r->bad = 1;
        if (!r->bad) {
            sk->joint_count = n;
            mr_skeleton_touch(sk);   /* a skeleton of its own for playback cursors */
            /* offsets to pointers in place, through memcpy (the slot changes type) */
            for (int j = 0; j < n; j++) {
                uint64_t off;
                memcpy(&off, (const unsigned char *)names + (size_t)j * sizeof off, sizeof off);
                char *s = str(r, off);
                if (!s || sk->parents[j] < -1 || sk->parents[j] >= j) r->bad = 1;
                memcpy((unsigned char *)names + (size_t)j * sizeof s, &s, sizeof s);
            }
            /* what every loader checks before it returns a skeleton: names
             * unique, the rest pose finite, its rotations unit (a file
             * could hold anything there) */
            mr_error verr;
            if (!r->bad && mr_skeleton_validate(sk, &verr) != MR_OK) r->bad = 1;
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
            mr_error verr;   /* what every loader checks: key times in order, values finite */
            if (mr_clip_validate(c, &verr) != MR_OK) r->bad = 1;
            /* the rest pose mr_model_add_clip gave the runtime with its
             * budgets (not stored: it is the skeleton's) */
            if (c->runtime && c->runtime->max_angle && c->joint_count == sk->joint_count &&
                mr_clip_set_rest(c, sk) != MR_OK)
                r->bad = 1;
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
    if (memcmp(h->magic, CACHE_MAGIC, sizeof h->magic)) return cache_reject("not a marrow cache file");
    if (h->bom != CACHE_BOM) return cache_reject("written on a machine of the other byte order");
    if (h->version != MR_CACHE_VERSION)
        return cache_reject("cache format version %u, this marrow reads %d", h->version, MR_CACHE_VERSION);
    if (h->layout != cache_layout_fingerprint())
        return cache_reject("written by a marrow built from other loader code");
    if (s && (h->key != s->key || h->source_count != (uint32_t)s->source_count))
        return cache_reject("written for other sources");
    if (h->file_size != size)
        return cache_reject("%s: %zu bytes, its header says %llu", size < h->file_size ? "truncated" : "too long", size,
                      (unsigned long long)h->file_size);
    return 1;
}

/* Reads and checks the cache file (cache_internal.h). *refresh: a source
 * had to be hashed (its recorded stamp was taken too close to its last
 * change, or its stat data changed with its content the same) while its
 * new stamp would be trusted: the caller rewrites the file so that later
 * loads skip the hashing (not under hash_always). */
mr_model *cache_read_file(mr_cache_session *s, const char *path, int *refresh)
{
    struct stat st;
    int fd = cache_open_regular(AT_FDCWD, s->file, &st);
    if (fd == -1 && errno == ENOENT) return NULL;  /* no file: a plain miss */
    if (fd < 0) {
        if (fd == -2) cache_reject("not a regular file");
        else if (errno == ELOOP) cache_reject("a link (never followed)");
        else cache_reject("cannot be opened: %s", strerror(errno));
        cache_stats.rejected++;
        return NULL;
    }
    /* this user's alone: another could make this user load the wrong model */
    const char *not_ours = cache_not_ours(&st);
    unsigned char *base = NULL;
    size_t size = 0;
    int ok = 1;
    if (not_ours) ok = cache_reject("%s", not_ours);
    else if ((uint64_t)st.st_size > cache_max_entry() || (uint64_t)st.st_size > SIZE_MAX / 2)
        ok = cache_reject("too large: %lld bytes, a cache file holds at most %llu", (long long)st.st_size,
                          (unsigned long long)cache_max_entry());
    if (ok) {
        size = (size_t)st.st_size;
        base = aligned_alloc(64, (size + 63) / 64 * 64 + 64);   /* never 0 bytes */
        ok = base && cache_read_all(fd, base, size) == 0;
        if (!ok) cache_reject("cannot be read: %s", base ? strerror(errno) : "out of memory");
    }
    close(fd);
    if (!ok) {
        free(base);
        cache_stats.rejected++;
        return NULL;
    }
    return cache_read_block(base, size, s, path, refresh);
}

mr_model *cache_read_block(unsigned char *base, size_t size, mr_cache_session *s, const char *path, int *refresh)
{
    file_header h;
    reader r = {.base = base, .size = size, .model_path = path};
    int ok = 1;
    if (size < sizeof h)
        ok = cache_reject("truncated: %zu bytes, shorter than its %zu-byte header", size, sizeof h);
    if (ok) memcpy(&h, base, sizeof h);
    ok = ok && header_ok(&h, size, s);
    if (ok && mr_cache_hash(base + sizeof h, size - sizeof h) != h.payload_hash)
        ok = cache_reject("damaged: the payload's checksum differs from its header's");
    const source_rec *src = ok ? at(&r, sizeof h, h.source_count, sizeof *src, 8) : NULL;
    if (ok && !src) ok = cache_reject("damaged: source records out of range");
    for (int i = 0; ok && s && i < s->source_count; i++) {
        const char *p = str(&r, src[i].path);
        if (!p || r.bad || strcmp(p, s->sources[i])) ok = cache_reject("written for other sources");
    }
    /* The sources as they are now: size, mtime, and stat data or content. */
    if (refresh) *refresh = 0;
    if (ok && s) ok = cache_sources_match(s, src, refresh);
    mr_model *m = NULL;
    if (ok && !(m = build(&r, &h, path)))  /* owns the block from here on */
        cache_reject("damaged: a count, offset or index out of range");
    if (!ok) free(base);
    if (!m) cache_stats.rejected++;
    return m;
}
