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
#include <time.h>
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

/* ---- descriptor-relative calls -------------------------------------------------- */

int mr_file_dir_open(const char *path, mr_error *err)
{
    int fd = open(*path ? path : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) mr_error_set(err, MR_ERR_IO, "%s: %s", *path ? path : ".", strerror(errno));
    return fd;
}

/* Whether name is one plain entry name (no '/', not "", "." or ".."). */
static int plain_name(const char *name)
{
    return *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

/* What an entry that is not the expected kind is, for messages. */
static const char *kind_of(mode_t m)
{
    return S_ISLNK(m) ? "a symbolic link" : S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a folder"
           : S_ISCHR(m) || S_ISBLK(m) ? "a device" : S_ISSOCK(m) ? "a socket" : S_ISREG(m) ? "a file"
           : "not a plain file";
}

int mr_file_dir_open_at(int dirfd, const char *name, int create, const char *shown, mr_error *err)
{
    if (!plain_name(name)) {
        mr_error_set(err, MR_ERR_BAD_FILE, "%s: not a plain folder name", shown);
        return -1;
    }
    if (create && mkdirat(dirfd, name, 0777) != 0 && errno != EEXIST) {
        mr_error_set(err, MR_ERR_IO, "%s: cannot create the folder (%s)", shown, strerror(errno));
        return -1;
    }
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) return fd;
    int e = errno;
    struct stat st;
    if (e != ENOENT && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode)) {
        mr_error_set(err, MR_ERR_BAD_FILE, "%s: is %s (expected a folder; refused)", shown, kind_of(st.st_mode));
        errno = e;
        return -1;
    }
    mr_error_set(err, MR_ERR_IO, "%s: %s", shown, strerror(e));
    errno = e;
    return -1;
}

int mr_file_open_at(int dirfd, const char *name, const char *shown, size_t *size, mr_error *err)
{
    if (!plain_name(name)) {
        mr_error_set(err, MR_ERR_BAD_FILE, "%s: not a plain file name", shown);
        return -1;
    }
    int fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == ELOOP)
            mr_error_set(err, MR_ERR_BAD_FILE, "%s: is a symbolic link (expected a regular file; refused)", shown);
        else
            mr_error_set(err, MR_ERR_IO, "%s: %s", shown, strerror(e));
        errno = e;
        return -1;
    }
    struct stat st = {0};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        mr_error_set(err, MR_ERR_BAD_FILE, "%s: is %s (expected a regular file; refused)", shown,
                     kind_of(st.st_mode));
        close(fd);
        errno = EINVAL;
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    if (size) *size = (size_t)st.st_size;
    return fd;
}

char *mr_file_read_at(int dirfd, const char *name, const char *shown, size_t max, size_t *size, mr_error *err)
{
    size_t len = 0;
    int fd = mr_file_open_at(dirfd, name, shown, &len, err);
    if (fd < 0) return NULL;
    if (len > max) {
        mr_error_set(err, MR_ERR_LIMIT, "%s: %zu bytes, more than the %zu this file may have", shown, len, max);
        close(fd);
        return NULL;
    }
    return read_whole(fd, shown, len, size, err);
}

long long mr_file_allocated(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0) return 0;
    long long blocks = (long long)st.st_blocks * 512;
    return blocks > (long long)st.st_size ? blocks : (long long)st.st_size;
}

/* The batch of files written all or nothing (file.h), per thread. */
typedef struct batch_entry {
    int dirfd;               /* a dup of the folder's descriptor */
    char *tmp, *name;
} batch_entry;

static _Thread_local struct {
    int open;
    int count, cap;
    batch_entry *e;
} batch;

/* Creates a fresh temporary ".NAME.XXXXXX" in dirfd (O_EXCL, no link
 * followed); its name goes to tmp (tmp_size bytes). */
static int create_temp(int dirfd, const char *name, char *tmp, size_t tmp_size)
{
    static _Thread_local unsigned long long seq;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    unsigned long long x = ((unsigned long long)getpid() << 32) ^ (unsigned long long)ts.tv_nsec ^
                           ((unsigned long long)ts.tv_sec << 20) ^ (++seq * 0x9E3779B97F4A7C15ull);
    static const char digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int attempt = 0; attempt < 100; attempt++) {
        char rnd[7];
        for (int i = 0; i < 6; i++) {
            x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
            rnd[i] = digits[(x * 0x2545F4914F6CDD1Dull >> 58) % (sizeof digits - 1)];
        }
        rnd[6] = '\0';
        snprintf(tmp, tmp_size, ".%.200s.%s", name, rnd);
        int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    errno = EEXIST;
    return -1;
}

mr_status mr_file_write_at(int dirfd, const char *name, const char *shown, const void *data, size_t len,
                           mr_error *err)
{
    if (!plain_name(name)) return mr_error_set(err, MR_ERR_IO, "%s: not a plain file name", shown);
    if (strlen(name) > NAME_MAX) return mr_error_set(err, MR_ERR_IO, "%s: %s", shown, strerror(ENAMETOOLONG));
    char tmp[256];
    int fd = create_temp(dirfd, name, tmp, sizeof tmp);
    if (fd < 0) return mr_error_set(err, MR_ERR_IO, "%s: %s", shown, strerror(errno));
    size_t done = 0;
    int e = 0;
    while (done < len) {
        ssize_t n = write(fd, (const char *)data + done, len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            e = n < 0 ? errno : ENOSPC;
            break;
        }
        done += (size_t)n;
    }
    if (close(fd) != 0 && !e) e = errno;
    if (!e && batch.open) {
        size_t cap = (size_t)batch.cap;
        batch_entry be = {dup(dirfd), mr_str_dup(tmp), mr_str_dup(name)};
        if (be.dirfd >= 0 && be.tmp && be.name &&
            !mr_alloc_reserve((void **)&batch.e, &cap, (size_t)batch.count + 1, sizeof *batch.e)) {
            batch.cap = (int)cap;
            batch.e[batch.count++] = be;
            return MR_OK;
        }
        if (be.dirfd >= 0) close(be.dirfd);
        free(be.tmp);
        free(be.name);
        e = ENOMEM;
    }
    if (!e && renameat(dirfd, tmp, dirfd, name) != 0) e = errno;
    if (e) {
        unlinkat(dirfd, tmp, 0);
        return mr_error_set(err, e == ENOMEM ? MR_ERR_NO_MEMORY : MR_ERR_IO, "%s: write failed: %s", shown,
                            strerror(e));
    }
    return MR_OK;
}

mr_status mr_file_write(const char *path, const void *data, size_t len, mr_error *err)
{
    const char *name = mr_path_basename(path);
    char *dir = mr_path_dirname(path);
    if (!dir) return mr_error_set(err, MR_ERR_NO_MEMORY, "%s: out of memory", path);
    int dfd = mr_file_dir_open(dir, err);
    free(dir);
    if (dfd < 0) return mr_error_set(err, MR_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    mr_status st = mr_file_write_at(dfd, name, path, data, len, err);
    close(dfd);
    return st;
}

static void batch_free(int remove_temps)
{
    for (int i = 0; i < batch.count; i++) {
        if (remove_temps) unlinkat(batch.e[i].dirfd, batch.e[i].tmp, 0);
        close(batch.e[i].dirfd);
        free(batch.e[i].tmp);
        free(batch.e[i].name);
    }
    free(batch.e);
    memset(&batch, 0, sizeof batch);
}

mr_status mr_file_batch_begin(void)
{
    if (batch.open) return MR_ERR_INVALID_ARGUMENT;
    batch.open = 1;
    return MR_OK;
}

void mr_file_batch_abort(void)
{
    if (batch.open) batch_free(1);
}

long long mr_file_batch_size(void)
{
    long long bytes = 0;
    for (int i = 0; batch.open && i < batch.count; i++) {
        int fd = openat(batch.e[i].dirfd, batch.e[i].tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) {
            bytes += mr_file_allocated(fd);
            close(fd);
        }
    }
    return bytes;
}

mr_status mr_file_batch_commit(mr_error *err)
{
    if (!batch.open) return MR_OK;
    for (int i = 0; i < batch.count; i++)
        if (renameat(batch.e[i].dirfd, batch.e[i].tmp, batch.e[i].dirfd, batch.e[i].name) != 0) {
            mr_status st = mr_error_set(err, MR_ERR_IO, "%s: write failed: %s", batch.e[i].name, strerror(errno));
            for (int k = 0; k < i; k++) unlinkat(batch.e[k].dirfd, batch.e[k].name, 0);  /* nothing half-written */
            batch_free(1);
            return st;
        }
    batch_free(0);
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

void mr_file_remove_scratch(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char *p = mr_path_join(dir, e->d_name);
        if (p) unlink(p);
        free(p);
    }
    closedir(d);
    rmdir(dir);
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

mr_status mr_file_mkdirs_inside(const char *root, const char *dir, mr_error *err)
{
    char *rroot = realpath(root, NULL);
    if (!rroot) return mr_error_set(err, MR_ERR_IO, "%s: %s", root, strerror(errno));
    char *have = mr_str_dup(dir);
    mr_status st = have ? MR_OK : mr_error_set(err, MR_ERR_NO_MEMORY, "%s: out of memory", dir);
    /* The deepest existing prefix of dir, cut at a '/'; the rest is made. */
    size_t keep = have ? strlen(have) : 0;
    struct stat sb;
    while (st == MR_OK && keep > 0) {
        have[keep] = '\0';
        if (stat(have, &sb) == 0) break;
        while (keep > 0 && have[keep - 1] != '/') keep--;   /* drop the last component */
        while (keep > 1 && have[keep - 1] == '/') keep--;   /* and the slashes before it */
        if (keep == 1 && have[0] == '/') {
            have[keep] = '\0';
            break;
        }
    }
    const char *rest = have ? dir + strlen(have) : "";
    if (st == MR_OK && keep == 0) {        /* a relative path none of which exists: from "." */
        have[0] = '\0';
        rest = dir;
    }
    /* Check the whole missing part before making anything. */
    for (const char *p = rest; st == MR_OK && *p; ) {
        while (*p == '/') p++;
        size_t n = strcspn(p, "/");
        if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            st = mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "%s: names '%.*s' in folders that do not exist yet "
                              "(refused; nothing was made)", dir, (int)n, p);
        p += n;
    }
    char *real = st == MR_OK ? realpath(*have ? have : ".", NULL) : NULL;
    if (st == MR_OK && !real) st = mr_error_set(err, MR_ERR_IO, "%s: %s", have, strerror(errno));
    if (st == MR_OK) {
        size_t n = strlen(rroot);
        int inside = !strcmp(rroot, "/") || (!strncmp(real, rroot, n) && (real[n] == '/' || real[n] == '\0'));
        if (!inside)
            st = mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "%s: %s resolves to %s, outside %s (refused; nothing "
                              "was made)", dir, *have ? have : ".", real, rroot);
    }
    int fd = st == MR_OK ? mr_file_dir_open(real, err) : -1;
    if (st == MR_OK && fd < 0) st = MR_ERR_IO;
    for (const char *p = rest; st == MR_OK && *p; ) {
        while (*p == '/') p++;
        size_t n = strcspn(p, "/");
        if (!n) break;
        char name[NAME_MAX + 1];
        if (n > NAME_MAX) {
            st = mr_error_set(err, MR_ERR_IO, "%s: %s", dir, strerror(ENAMETOOLONG));
            break;
        }
        memcpy(name, p, n);
        name[n] = '\0';
        int next = mr_file_dir_open_at(fd, name, 1, dir, err);
        close(fd);
        fd = next;
        if (fd < 0) st = err && err->status ? err->status : MR_ERR_IO;
        p += n;
    }
    if (fd >= 0) close(fd);
    free(real);
    free(have);
    free(rroot);
    return st;
}
