/* file.c — whole-file reads and atomic writes (see file.h). */
#include "core/file.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/str.h"

char *mr_file_read(const char *path, size_t *size, mr_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        mr_error_set(err, MR_ERR_IO, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        mr_error_set(err, MR_ERR_IO, "%s: not a regular file", path);
        fclose(f);
        return NULL;
    }
    size_t len = (size_t)st.st_size;
    /* at most MR_ALLOC_LIMIT, not zeroed: fread fills it (zeroing was 1 % of a
     * COLLADA load) */
    char *buf = len < MR_ALLOC_LIMIT ? malloc(len + 1) : NULL;
    if (!buf) {
        mr_error_set(err, MR_ERR_NO_MEMORY, "%s: file too large (%zu bytes)", path, len);
        fclose(f);
        return NULL;
    }
    size_t got = fread(buf, 1, len, f);
    int failed = ferror(f);
    fclose(f);
    if (failed || got != len) {
        mr_error_set(err, MR_ERR_IO, "%s: read error", path);
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    if (size) *size = len;
    return buf;
}

mr_status mr_file_write(const char *path, const void *data, size_t len, mr_error *err)
{
    char *tmp = mr_str_fmt("%s.tmp%ld", path, (long)getpid());
    if (!tmp) return mr_error_set(err, MR_ERR_NO_MEMORY, "%s: out of memory", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        mr_status st = mr_error_set(err, MR_ERR_IO, "%s: %s", path, strerror(errno));
        free(tmp);
        return st;
    }
    int ok = fwrite(data, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        mr_status st = mr_error_set(err, MR_ERR_IO, "%s: write failed: %s", path, strerror(errno));
        remove(tmp);
        free(tmp);
        return st;
    }
    free(tmp);
    return MR_OK;
}

int mr_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *mr_file_closest(const char *dir, const char *name, int max_distance)
{
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char *best = NULL;
    int best_d = max_distance + 1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        int dist = mr_str_distance(name, e->d_name);
        if (dist < best_d || (dist == best_d && best && strcmp(e->d_name, best) < 0)) {
            char *copy = mr_str_dup(e->d_name);
            if (!copy) break;
            free(best);
            best = copy;
            best_d = dist;
        }
    }
    closedir(d);
    return best;
}
