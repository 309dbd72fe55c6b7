/* path.c — path strings (see path.h). */
#include "core/path.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/str.h"

const char *mr_path_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

char *mr_path_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return mr_str_dup(".");
    if (slash == path) return mr_str_dup("/");
    return mr_str_ndup(path, (size_t)(slash - path));
}

char *mr_path_stem(const char *path)
{
    const char *base = mr_path_basename(path);
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? mr_str_ndup(base, (size_t)(dot - base)) : mr_str_dup(base);
}

const char *mr_path_ext(const char *path, char *buf, size_t bufsize)
{
    const char *base = mr_path_basename(path);
    const char *dot = strrchr(base, '.');
    size_t i = 0;
    if (dot && bufsize)
        for (dot++; *dot && i + 1 < bufsize; dot++) buf[i++] = (char)tolower((unsigned char)*dot);
    if (bufsize) buf[i] = '\0';
    return buf;
}

char *mr_path_join(const char *dir, const char *name)
{
    if (!dir || !*dir || name[0] == '/') return mr_str_dup(name);
    size_t n = strlen(dir);
    return mr_str_fmt("%s%s%s", dir, dir[n - 1] == '/' ? "" : "/", name);
}

char *mr_path_absolute(const char *path)
{
    char cwd[4096] = "";
    if (path[0] != '/' && !getcwd(cwd, sizeof cwd)) return NULL;
    size_t len = strlen(cwd) + strlen(path) + 3;
    char *full = malloc(len), *out = malloc(len);
    if (!full || !out) {
        free(full);
        free(out);
        return NULL;
    }
    snprintf(full, len, "%s/%s", cwd, path);
    size_t n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(full, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
        if (!strcmp(tok, ".")) continue;
        if (!strcmp(tok, "..")) {
            while (n > 0 && out[n - 1] != '/') n--;
            if (n > 0) n--;
            continue;
        }
        out[n++] = '/';
        size_t k = strlen(tok);
        memcpy(out + n, tok, k);
        n += k;
    }
    if (n == 0) out[n++] = '/';
    out[n] = '\0';
    free(full);
    return out;
}

char *mr_path_relative(const char *dir, const char *target)
{
    char *d = mr_path_absolute(dir), *t = mr_path_absolute(target), *out = NULL;
    if (d && t) {
        size_t i = 0, last = 0;  /* last: end of the common run of whole components */
        while (d[i] && d[i] == t[i]) {
            if (d[i] == '/') last = i;
            i++;
        }
        if (!d[i] && (t[i] == '/' || !t[i])) last = i;
        size_t ups = 0;
        if (d[1])  /* dir is not "/" */
            for (const char *p = d + last; *p; p++) ups += *p == '/';
        const char *rest = t + last + (t[last] == '/');
        out = malloc(ups * 3 + strlen(rest) + 1);
        if (out) {
            size_t n = 0;
            for (size_t k = 0; k < ups; k++, n += 3) memcpy(out + n, "../", 3);
            strcpy(out + n, rest);
        }
    }
    free(d);
    free(t);
    return out ? out : mr_str_dup(target);
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

char *mr_path_url_decode(const char *s, size_t *len)
{
    size_t n = strlen(s), j = 0;
    char *out = malloc(n + 1);
    if (!out) return NULL;
    for (size_t i = 0; i < n; i++) {
        int a, b;
        if (s[i] == '%' && i + 2 < n && (a = hexval((unsigned char)s[i + 1])) >= 0 &&
            (b = hexval((unsigned char)s[i + 2])) >= 0) {
            out[j++] = (char)(a * 16 + b);
            i += 2;
        } else {
            out[j++] = s[i];
        }
    }
    out[j] = '\0';
    if (len) *len = j;
    return out;
}
