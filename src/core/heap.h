/* heap.h — the process's allocator policy. */
#ifndef MR_CORE_HEAP_H
#define MR_CORE_HEAP_H

/* Keeps freed memory in the process for reuse (glibc: large blocks come
 * from the heap below 32 MB instead of fresh mappings, and the heap is not
 * trimmed below 128 MB). With glibc's defaults every free of a large block
 * hands it back to the kernel and the next allocation faults it in again
 * page by page (llvmpipe's per-draw vertex buffers, a COLLADA load's
 * arrays; what that cost: docs/PERFORMANCE.md), and the threads share one
 * arena (heap.c says why). Process-wide; the first call sets it, later calls do
 * nothing. The marrow program calls it at start, the renderer when created. */
void mr_heap_keep_freed(void);

#endif
