/* cache_hash.c — the cache's checksum (cache.h: mr_cache_hash): of cache
 * payloads, of sources (their content hash in a stamp) and of the key that
 * names a cache file. Streaming form for hashing a file in chunks in
 * cache_internal.h. */
#include "formats/cache.h"

#include <string.h>

#include "core/cpu.h"
#include "formats/cache_internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX2_PATH 1
#endif

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
#define LANES CACHE_HASH_LANES
#define BLOCK CACHE_HASH_BLOCK
#define MIX 0x9E3779B185EBCA87ull

typedef cache_hash_state hash_state;

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

void cache_hash_start(hash_state *st) { memset(st, 0, sizeof *st); }

void cache_hash_blocks(hash_state *st, const unsigned char *p, size_t nblocks, int simd)
{
#ifdef HAVE_AVX2_PATH
    if (simd) blocks_avx2(st, p, nblocks);
    else blocks_portable(st, p, nblocks);
#else
    (void)simd;
    blocks_portable(st, p, nblocks);
#endif
}

uint64_t cache_hash_end(const hash_state *st, const unsigned char *tail, size_t n)
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
    cache_hash_start(&st);
    cache_hash_blocks(&st, p, n / BLOCK, simd);
    return cache_hash_end(&st, p + n / BLOCK * BLOCK, n);
}

int cache_simd_level(void)
{
#ifdef HAVE_AVX2_PATH
    return mr_simd() >= MR_SIMD_AVX2;
#else
    return 0;
#endif
}

uint64_t mr_cache_hash_portable(const void *data, size_t n) { return hash_with(data, n, 0); }

uint64_t mr_cache_hash_avx2(const void *data, size_t n) { return hash_with(data, n, cache_simd_level() >= 1); }

uint64_t mr_cache_hash(const void *data, size_t n) { return hash_with(data, n, cache_simd_level()); }
