/* cpu.h — which SIMD extensions this process may use.
 *
 * The build targets plain x86-64 (SSE2); kernels that gain from wider
 * vectors carry their own target attributes and ask here at run time. The
 * level is what the CPU and the OS offer, capped by the environment
 * variable MARROW_SIMD (sse2, avx, avx2 or avx512): the tests run the
 * suites with such kernels again at sse2 so every path is checked on any
 * machine, and a user can compare results across machines. Every path
 * gives the same results (each kernel's comment says so), so the cap
 * changes only speed. Read once, on first use; an unknown value is
 * ignored with a warning on stderr. */
#ifndef MR_CORE_CPU_H
#define MR_CORE_CPU_H

typedef enum mr_simd_level {
    MR_SIMD_SSE2 = 0,   /* the baseline (also every non-x86 machine) */
    MR_SIMD_AVX,
    MR_SIMD_AVX2,
    MR_SIMD_AVX512,     /* F, BW, VL and DQ */
} mr_simd_level;

mr_simd_level mr_simd(void);

#endif
