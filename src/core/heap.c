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
    /* One arena for every thread. glibc's default of 8 per core gave each
     * thread that packs clips its own arena, whose holes between packs and
     * freed build buffers nothing else reused: a library of 120 takes grew
     * 349-462 kB a take for 317 kB of packs, depending on which thread
     * built which pack (the clip worker, or a callback that samples a clip
     * whose pack has not started); with two arenas (the main thread's, one
     * for the others) 309-355 kB, and once 576 kB in a make test that ran
     * three suites at once on two cores (cli_clip_library's 0.5 MB check
     * failed). With one, the same holes serve either thread: 309-312 kB in
     * 4 runs beside other suites, and llvmpipe's threads drew 50 mannequins
     * at the same speed (bench render: 17.2-19.0 frames a second either
     * way; small blocks come from each thread's own cache, not the arena). */
    mallopt(M_ARENA_MAX, 1);
#endif
}
