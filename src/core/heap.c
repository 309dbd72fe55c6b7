/* heap.c — the process's allocator policy (heap.h). */
#include "core/heap.h"

#include <stdlib.h>  /* defines __GLIBC__ on glibc */
#if defined(__GLIBC__)
#include <malloc.h>
#endif

void mr_heap_keep_freed(void)
{
#if defined(__GLIBC__)
    static int done;
    if (done) return;
    done = 1;
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 128 << 20);
#endif
}
