/* file.c — whole-file reads, atomic writes and path helpers. */
#include "core/file.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"

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
    char *buf = mr_alloc_array(len + 1, 1);
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

int mr_file_write(const char *path, const void *data, size_t len, mr_error *err)
{
    char *tmp = mr_strfmt("%s.tmp%ld", path, (long)getpid());
    if (!tmp) return mr_error_set(err, MR_ERR_NO_MEMORY, "%s: out of memory", path), -1;
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        mr_error_set(err, MR_ERR_IO, "%s: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    int ok = fwrite(data, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        mr_error_set(err, MR_ERR_IO, "%s: write failed: %s", path, strerror(errno));
        remove(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

int mr_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

const char *mr_path_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

char *mr_path_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return mr_strdup(".");
    if (slash == path) return mr_strdup("/");
    return mr_strndup(path, (size_t)(slash - path));
}

char *mr_path_stem(const char *path)
{
    const char *base = mr_path_basename(path);
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? mr_strndup(base, (size_t)(dot - base)) : mr_strdup(base);
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
    if (!dir || !*dir || name[0] == '/') return mr_strdup(name);
    size_t n = strlen(dir);
    return mr_strfmt("%s%s%s", dir, dir[n - 1] == '/' ? "" : "/", name);
}
