/* cpu.c — the SIMD level (see cpu.h). */
#include "core/cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mr_simd_level detect(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
        return MR_SIMD_AVX512;
    if (__builtin_cpu_supports("avx2")) return MR_SIMD_AVX2;
    if (__builtin_cpu_supports("avx")) return MR_SIMD_AVX;
#endif
    return MR_SIMD_SSE2;
}

static mr_simd_level cap_from_env(mr_simd_level level)
{
    static const char *const names[] = {"sse2", "avx", "avx2", "avx512"};
    const char *env = getenv("MARROW_SIMD");
    if (!env || !env[0]) return level;
    for (int i = 0; i <= MR_SIMD_AVX512; i++)
        if (!strcmp(env, names[i])) return (mr_simd_level)i < level ? (mr_simd_level)i : level;
    fprintf(stderr, "marrow: MARROW_SIMD=%s is none of sse2, avx, avx2, avx512; ignored\n", env);
    return level;
}

mr_simd_level mr_simd(void)
{
    static int level = -1;   /* a race here writes the same value */
    if (level < 0) level = (int)cap_from_env(detect());
    return (mr_simd_level)level;
}
