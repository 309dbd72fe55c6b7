/* bench.c — the timing helpers every `marrow bench` section shares
 * (bench.h). The sections and bench_assimp.c call these; nothing here calls
 * a section, so calls between the bench files run one way. */
#include <stdlib.h>
#include <time.h>

#include "bench/bench.h"

double mr_bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double mr_bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
