/* str.c — new strings (see str.h). */
#include "core/str.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

char *mr_str_ndup(const char *s, size_t n)
{
    if (!s) return NULL;
    char *d = malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *mr_str_dup(const char *s)
{
    return s ? mr_str_ndup(s, strlen(s)) : NULL;
}

char *mr_str_fmt(const char *fmt, ...)
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

uint32_t mr_str_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

int mr_str_distance(const char *a, const char *b)
{
    int la = (int)strnlen(a, 63), lb = (int)strnlen(b, 63);
    int row[64];                       /* one row of the Levenshtein table */
    for (int j = 0; j <= lb; j++) row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int up = row[j];
            int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            int best = diag + cost;
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

int mr_str_closest(const char *name, const char *const *names, int count, int max_distance)
{
    int best = -1, best_d = max_distance + 1;
    for (int i = 0; i < count; i++) {
        if (!names[i]) continue;
        int d = mr_str_distance(name, names[i]);
        if (d < best_d) {
            best = i;
            best_d = d;
        }
    }
    return best;
}

int mr_str_list_add_unique(char ***items, int *count, int *cap, const char *s)
{
    for (int i = 0; i < *count; i++)
        if (!strcmp((*items)[i], s)) return 0;
    size_t c = (size_t)*cap;
    if (mr_alloc_reserve((void **)items, &c, (size_t)*count + 1, sizeof(char *))) return -1;
    *cap = (int)c;
    char *copy = mr_str_dup(s);
    if (!copy) return -1;
    (*items)[(*count)++] = copy;
    return 0;
}

void mr_strbuf_printf(mr_strbuf *b, const char *fmt, ...)
{
    if (b->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int n = vsnprintf(b->data ? b->data + b->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = 1;
            return;
        }
        if ((size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        if (mr_alloc_reserve((void **)&b->data, &b->cap, b->len + (size_t)n + 1, 1) != 0) {
            b->failed = 1;
            return;
        }
    }
}
