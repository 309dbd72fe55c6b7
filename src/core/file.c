/* file.c — whole-file reads and atomic writes (see file.h). */
#include "core/file.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/path.h"
#include "core/str.h"

int mr_file_open_regular(const char *path, int nofollow, size_t *size, mr_error *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
    if (fd < 0) {
        if (nofollow && errno == ELOOP)
            mr_error_set(err, MR_ERR_IO, "%s: is a symbolic link (expected a regular file)", path);
        else
            mr_error_set(err, MR_ERR_IO, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st = {0};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        mr_error_set(err, MR_ERR_IO, "%s: not a regular file (%s)", path,
                     S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a folder"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "not a plain file");
        close(fd);
        return -1;
    }
    if (size) *size = (size_t)st.st_size;
    return fd;
}

mr_status mr_file_read_fd(int fd, const char *path, void *buf, size_t len, mr_error *err)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            return mr_error_set(err, MR_ERR_IO, "%s: reading stopped after %zu of %zu bytes%s%s", path, got, len,
                                n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
        got += (size_t)n;
    }
    return MR_OK;
}

/* The whole of fd (size bytes) into a new NUL-terminated buffer; closes fd. */
static char *read_whole(int fd, const char *path, size_t len, size_t *size, mr_error *err)
{
    /* at most MR_ALLOC_LIMIT, not zeroed: read fills it (zeroing was 1 % of a
     * COLLADA load) */
    char *buf = len < MR_ALLOC_LIMIT ? malloc(len + 1) : NULL;
    if (!buf) {
        mr_error_set(err, MR_ERR_NO_MEMORY, "%s: file too large (%zu bytes)", path, len);
        close(fd);
        return NULL;
    }
    mr_status st = mr_file_read_fd(fd, path, buf, len, err);
    close(fd);
    if (st != MR_OK) {
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    if (size) *size = len;
    return buf;
}

char *mr_file_read(const char *path, size_t *size, mr_error *err)
{
    size_t len = 0;
    int fd = mr_file_open_regular(path, 0, &len, err);
    return fd < 0 ? NULL : read_whole(fd, path, len, size, err);
}

char *mr_file_model_dir(const char *model_path)
{
    return model_path && mr_file_exists(model_path) ? mr_path_dirname(model_path) : NULL;
}

char *mr_file_real_inside(const char *dir, const char *path, mr_error *err)
{
    if (!dir) {
        char *real = realpath(path, NULL);
        if (!real) mr_error_set(err, MR_ERR_IO, "%s: %s", path, strerror(errno));
        return real;
    }
    char *rdir = realpath(*dir ? dir : ".", NULL);
    if (!rdir) {
        mr_error_set(err, MR_ERR_IO, "%s: %s", *dir ? dir : ".", strerror(errno));
        return NULL;
    }
    char *real = realpath(path, NULL);
    if (!real) {
        mr_error_set(err, MR_ERR_IO, "%s: %s", path, strerror(errno));
        free(rdir);
        return NULL;
    }
    size_t n = strlen(rdir);
    int inside = !strcmp(rdir, "/") || (!strncmp(real, rdir, n) && (real[n] == '/' || real[n] == '\0'));
    if (!inside) {
        mr_error_set(err, MR_ERR_BAD_FILE, "%s: resolves to %s, outside the model's folder %s (expected a file "
                     "inside it)", path, real, rdir);
        free(real);
        real = NULL;
    }
    free(rdir);
    return real;
}

mr_status mr_file_check_inside(const char *dir, const char *path, mr_error *err)
{
    char *real = mr_file_real_inside(dir, path, err);
    if (!real) return err ? err->status : MR_ERR_IO;
    struct stat st;
    mr_status status = MR_OK;
    if (stat(real, &st) != 0 || !S_ISREG(st.st_mode))
        status = mr_error_set(err, MR_ERR_BAD_FILE, "%s: not a regular file (expected an image file)", path);
    free(real);
    return status;
}

int mr_file_open_inside(const char *dir, const char *path, size_t *size, mr_error *err)
{
    char *real = mr_file_real_inside(dir, path, err);
    if (!real) return -1;
    int fd = mr_file_open_regular(real, 1, size, err);
    free(real);
    return fd;
}

char *mr_file_read_inside(const char *dir, const char *path, size_t *size, mr_error *err)
{
    size_t len = 0;
    int fd = mr_file_open_inside(dir, path, &len, err);
    return fd < 0 ? NULL : read_whole(fd, path, len, size, err);
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

int mr_file_same(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

mr_status mr_file_copy(const char *from, const char *to, mr_error *err)
{
    mr_error e = {0};
    size_t size = 0;
    char *data = mr_file_read(from, &size, &e);
    mr_status st = data ? mr_file_write(to, data, size, &e) : e.status;
    free(data);
    if (st != MR_OK && err) *err = e;
    return st;
}

mr_status mr_file_mkdirs(const char *dir, mr_error *err)
{
    char *buf = mr_str_dup(dir);
    if (!buf) return mr_error_set(err, MR_ERR_NO_MEMORY, "%s: out of memory", dir);
    for (char *p = buf + (*buf != '\0'); *p; p++) {  /* "" has no second byte */
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) break;
        *p = '/';
    }
    if (*buf) mkdir(buf, 0777);
    struct stat st;
    int ok = stat(buf, &st) == 0 && S_ISDIR(st.st_mode);
    mr_status status = ok ? MR_OK : mr_error_set(err, MR_ERR_IO, "%s: cannot create the folder (%s)", buf,
                                                 strerror(errno ? errno : ENOTDIR));
    free(buf);
    return status;
}
