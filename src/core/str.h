/* str.h — new strings: copies and printf. Each returns a string the caller
 * frees with free(), or NULL when out of memory (or for NULL in). */
#ifndef MR_CORE_STR_H
#define MR_CORE_STR_H

#include <stddef.h>

/* Copies of strings; NULL in gives NULL out. Free with free(). */
char *mr_str_dup(const char *s);
char *mr_str_ndup(const char *s, size_t n);
/* printf into a new string. */
char *mr_str_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
