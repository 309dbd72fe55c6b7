/* alloc.c — overflow-checked allocation and string copies. */
#include "core/alloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *mr_alloc_array(size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    size_t total = count * size;
    if (total > MR_ALLOC_LIMIT) return NULL;
    return calloc(total ? total : 1, 1);
}

void *mr_alloc_array_unset(size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    size_t total = count * size;
    if (total > MR_ALLOC_LIMIT) return NULL;
    return malloc(total ? total : 1);
}

mr_status mr_alloc_reserve(void **array, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return MR_OK;
    size_t grown = *cap ? *cap : 16;
    while (grown < need) {
        if (grown > SIZE_MAX / 2) return MR_ERR_NO_MEMORY;
        grown *= 2;
    }
    if (size != 0 && grown > SIZE_MAX / size) return MR_ERR_NO_MEMORY;
    if (grown * size > MR_ALLOC_LIMIT) return MR_ERR_NO_MEMORY;
    void *p = realloc(*array, grown * size);
    if (!p) return MR_ERR_NO_MEMORY;
    memset((char *)p + *cap * size, 0, (grown - *cap) * size);
    *array = p;
    *cap = grown;
    return MR_OK;
}
