/* test_cpu.c — the SIMD level and its MARROW_SIMD cap (core/cpu.h). run.sh
 * runs this suite twice: as the machine is, and at MARROW_SIMD=sse2. */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "core/cpu.h"

TEST(simd_level_obeys_the_cap)
{
    const char *cap = getenv("MARROW_SIMD");
    mr_simd_level level = mr_simd();
    CHECK(level >= MR_SIMD_SSE2 && level <= MR_SIMD_AVX512);
    if (cap && !strcmp(cap, "sse2")) CHECK(level == MR_SIMD_SSE2);
    CHECK(mr_simd() == level);            /* read once */
}

int main(void)
{
    RUN(simd_level_obeys_the_cap);
    return test_summary("cpu");
}
