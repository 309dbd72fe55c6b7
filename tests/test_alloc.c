/* test_alloc.c — overflow-checked allocation (src/core/alloc.c): growth
 * keeps old elements and zeroes new ones; overflow, sizes above
 * MR_ALLOC_LIMIT and refused requests leave the old block untouched and say
 * MR_ERR_NO_MEMORY. */
#include <stdint.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "test.h"

TEST(alloc_reserve_grows_keeps_and_zeroes)
{
    int *a = NULL;
    size_t cap = 0;
    CHECK(mr_alloc_reserve((void **)&a, &cap, 3, sizeof *a) == MR_OK);
    CHECK(a != NULL && cap >= 3);
    for (int i = 0; i < 3; i++) a[i] = i + 1;
    size_t old = cap;
    CHECK(mr_alloc_reserve((void **)&a, &cap, old + 1, sizeof *a) == MR_OK);
    CHECK(cap > old);
    CHECK(a[0] == 1 && a[1] == 2 && a[2] == 3);
    int zero = 1;
    for (size_t i = old; i < cap; i++) zero &= a[i] == 0;
    CHECK(zero);
    int *same = a;
    CHECK(mr_alloc_reserve((void **)&a, &cap, 2, sizeof *a) == MR_OK);   /* fits: nothing moves */
    CHECK(a == same);
    free(a);
}

TEST(alloc_reserve_refuses_overflow_and_limit_keeping_the_block)
{
    char *a = NULL;
    size_t cap = 0;
    CHECK(mr_alloc_reserve((void **)&a, &cap, 10, 1) == MR_OK);
    a[0] = 'x';
    char *before = a;
    size_t cap_before = cap;
    CHECK(mr_alloc_reserve((void **)&a, &cap, SIZE_MAX, 1) == MR_ERR_NO_MEMORY);
    CHECK(mr_alloc_reserve((void **)&a, &cap, SIZE_MAX / 4, 8) == MR_ERR_NO_MEMORY);
    CHECK(mr_alloc_reserve((void **)&a, &cap, MR_ALLOC_LIMIT + 1, 1) == MR_ERR_NO_MEMORY);
    CHECK(a == before && cap == cap_before && a[0] == 'x');
    free(a);
}

TEST(alloc_array_refuses_overflow_and_gives_a_block_for_zero)
{
    CHECK(mr_alloc_array(SIZE_MAX / 2, 4) == NULL);
    CHECK(mr_alloc_array(MR_ALLOC_LIMIT + 1, 1) == NULL);
    void *p = mr_alloc_array(0, 16);
    CHECK(p != NULL);
    free(p);
}

int main(void)
{
    RUN(alloc_reserve_grows_keeps_and_zeroes);
    RUN(alloc_reserve_refuses_overflow_and_limit_keeping_the_block);
    RUN(alloc_array_refuses_overflow_and_gives_a_block_for_zero);
    return test_summary("alloc");
}
