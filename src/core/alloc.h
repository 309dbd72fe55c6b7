/* alloc.h — overflow-checked allocation.
 *
 * Every size computed from file content goes through mr_alloc_array, which
 * refuses count*size overflow and absurd totals (MR_ALLOC_LIMIT) instead of
 * asking the system for them. Memory from these functions is released with free().
 */
#ifndef MR_CORE_ALLOC_H
#define MR_CORE_ALLOC_H

#include <stddef.h>

#include "core/error.h"

/* Largest single allocation marrow makes from file-driven counts (1 GiB). */
#define MR_ALLOC_LIMIT ((size_t)1 << 30)

/* Zeroed array of count elements of size bytes; NULL on overflow, on a total
 * above MR_ALLOC_LIMIT or when the system is out of memory. count 0 gives a
 * valid 1-byte block so callers need not special-case empty arrays. */
void *mr_alloc_array(size_t count, size_t size);

/* mr_alloc_array for a caller that writes every element before it reads
 * any: the same bounds, the memory left unzeroed (zeroing a block that is
 * then written whole was several percent of a model's load). */
void *mr_alloc_array_unset(size_t count, size_t size);

/* Resizes *array (capacity *cap elements) so it holds at least need elements,
 * growing geometrically. Returns MR_OK, or MR_ERR_NO_MEMORY on overflow, on
 * a total above MR_ALLOC_LIMIT or when the system is out of memory (the old
 * block stays valid). New elements are zeroed. No message: the caller knows
 * what it was growing and says so. */
mr_status mr_alloc_reserve(void **array, size_t *cap, size_t need, size_t size);

#endif
