/* str.h — new strings: copies and printf. Each returns a string the caller
 * frees with free(), or NULL when out of memory (or for NULL in). Plus the
 * one "did you mean" measure every message that suggests a name uses. */
#ifndef MR_CORE_STR_H
#define MR_CORE_STR_H

#include <stddef.h>
#include <stdint.h>

/* Copies of strings; NULL in gives NULL out. Free with free(). */
char *mr_str_dup(const char *s);
char *mr_str_ndup(const char *s, size_t n);
/* printf into a new string. */
char *mr_str_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Case-insensitive edit distance (insertions, deletions, substitutions)
 * between a and b; each is compared on its first 63 bytes. */
int mr_str_distance(const char *a, const char *b);
/* The index of the name in names[0..count) closest to name by
 * mr_str_distance, when within max_distance (ties: the first); -1 when
 * none is. NULL entries are skipped. */
int mr_str_closest(const char *name, const char *const *names, int count, int max_distance);

/* A 32-bit FNV-1a hash of s: equal strings hash equal, so a list's
 * duplicates are found comparing hashes first (a strcmp only where two
 * agree) instead of every pair's bytes. */
uint32_t mr_str_hash(const char *s);

/* Appends a copy of s to the growable list (*items: *count strings in
 * *cap slots, each owned) unless it holds s already. Returns 0, or -1 when
 * out of memory (the list is unchanged). */
int mr_str_list_add_unique(char ***items, int *count, int *cap, const char *s);

/* A string grown by appending printf output (the writers' text): data holds
 * len bytes plus a NUL, owned (free(data)); once out of memory it stops
 * growing and failed says so. Zero-initialise to start. */
typedef struct mr_strbuf {
    char *data;
    size_t len, cap;
    int failed;
} mr_strbuf;
void mr_strbuf_printf(mr_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
