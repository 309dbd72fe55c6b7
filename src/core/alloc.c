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

int mr_array_reserve(void **array, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return 0;
    size_t grown = *cap ? *cap : 16;
    while (grown < need) {
        if (grown > SIZE_MAX / 2) return -1;
        grown *= 2;
    }
    if (size != 0 && grown > SIZE_MAX / size) return -1;
    if (grown * size > MR_ALLOC_LIMIT) return -1;
    void *p = realloc(*array, grown * size);
    if (!p) return -1;
    memset((char *)p + *cap * size, 0, (grown - *cap) * size);
    *array = p;
    *cap = grown;
    return 0;
}

char *mr_strndup(const char *s, size_t n)
{
    if (!s) return NULL;
    char *d = malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *mr_strdup(const char *s)
{
    return s ? mr_strndup(s, strlen(s)) : NULL;
}

char *mr_strfmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s) return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}
