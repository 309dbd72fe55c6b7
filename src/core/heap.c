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
    /* Two arenas: the main thread's and one for the others (the clip
     * worker, llvmpipe's). glibc's default of 8 per core gave each thread
     * that packs clips its own arena, whose holes between packs and freed
     * build buffers nothing else reused: a library of 120 takes grew 349-462
     * kB a take for 317 kB of packs, depending on which thread built which
     * pack; with two, 318-355 kB. */
    mallopt(M_ARENA_MAX, 2);
#endif
}
