/* cache_policy.c — what the cache decides (cache.h): configuration from
 * mr_cache_configure and the environment, statistics and the rejection
 * text, the cache folder and its bound (Size), the key and stamps of a
 * load's sources (Validity), and the session that asks the reader
 * (cache_read.c) and the writer (cache_write.c). */
#define _GNU_SOURCE  /* statx(2) */
#include "formats/cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/path.h"
#include "core/str.h"
#include "anim/clip_runtime.h"
#include "formats/cache_internal.h"

/* ---- configuration ------------------------------------------------------- */

static mr_cache_mode config_mode = MR_CACHE_ENV;
static char *config_dir;
static int config_hash_always;
static uint64_t config_max_bytes;
mr_cache_stats cache_stats;
static int warned;
static int warned_folder;  /* the folder was refused (cache_folder_usable) */
static char rejection[192];  /* why the last cache file was rejected (mr_cache_rejection) */

void mr_cache_configure(const mr_cache_config *cfg)
{
    free(config_dir);
    config_dir = NULL;
    config_mode = cfg ? cfg->mode : MR_CACHE_ENV;
    config_hash_always = cfg ? cfg->hash_always : 0;
    config_max_bytes = cfg ? cfg->max_bytes : 0;
    if (cfg && cfg->dir) config_dir = mr_str_dup(cfg->dir);
    memset(&cache_stats, 0, sizeof cache_stats);
    warned = 0;
    warned_folder = 0;
    rejection[0] = '\0';
}

void mr_cache_get_stats(mr_cache_stats *out) { *out = cache_stats; }

const char *mr_cache_rejection(void) { return rejection; }

int cache_reject(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rejection, sizeof rejection, fmt, ap);
    va_end(ap);
    return 0;
}

const char *mr_cache_dir(void)
{
    static char buf[4096];
    if (config_mode == MR_CACHE_OFF) return NULL;
    if (config_mode == MR_CACHE_ENV) {
        const char *off = getenv("MARROW_CACHE");
        if (off && !strcmp(off, "0")) return NULL;
    }
    const char *env;
    int n;
    if (config_dir) n = snprintf(buf, sizeof buf, "%s", config_dir);
    else if ((env = getenv("MARROW_CACHE_DIR")) && env[0]) n = snprintf(buf, sizeof buf, "%s", env);
    else if ((env = getenv("XDG_CACHE_HOME")) && env[0] == '/') n = snprintf(buf, sizeof buf, "%s/marrow", env);
    else if ((env = getenv("HOME")) && env[0]) n = snprintf(buf, sizeof buf, "%s/.cache/marrow", env);
    else return NULL;
    return n > 0 && (size_t)n < sizeof buf ? buf : NULL;
}

/* ---- sources: key, fingerprint ------------------------------------------- */

static void session_free(mr_cache_session *s)
{
    for (int i = 0; i < s->source_count; i++) free(s->sources ? s->sources[i] : NULL);
    free(s->sources);
    free(s->stamps);
    free(s->file);
    memset(s, 0, sizeof *s);
}

static uint64_t session_key(const mr_cache_session *s)
{
    size_t len = 64;
    for (int i = 0; i < s->source_count; i++) len += strlen(s->sources[i]) + 1;
    char *buf = calloc(1, len);
    if (!buf) return 0;
    /* not the layout: a marrow with other loader code replaces this path's
     * file instead of adding one (the header's layout check retires it) */
    uint64_t head[2] = {MR_CACHE_VERSION, 0};
    memcpy(buf, head, sizeof head);
    size_t n = sizeof head;
    for (int i = 0; i < s->source_count; i++) {
        size_t k = strlen(s->sources[i]) + 1;
        memcpy(buf + n, s->sources[i], k);
        n += k;
    }
    uint64_t key = mr_cache_hash_portable(buf, n);
    free(buf);
    return key;
}

/* The path a source is keyed by: its folder resolved (a model reached
 * through a linked folder and through the folder itself, ../shared beside
 * a clone and its link's target, share one file) and its own name as
 * given, not resolved (a link's name can name what the load makes: a BVH
 * clip or an MD5 anim is named by its file's stem); the lexical absolute
 * path when the folder cannot be resolved. */
static char *source_key_path(const char *path)
{
    char *abs = mr_path_absolute(path);
    char *slash = abs ? strrchr(abs, '/') : NULL;
    if (!slash || slash == abs) return abs;
    *slash = '\0';
    char *dir = realpath(abs, NULL);
    *slash = '/';
    if (!dir) return abs;
    char *keyed = mr_str_fmt("%s%s", strcmp(dir, "/") ? dir : "", slash);
    free(dir);
    if (!keyed) return abs;
    free(abs);
    return keyed;
}

/* Absolute paths and the cache file of a load; 0 when the cache is off
 * (or, with check_folder, its folder is refused: cache_folder_usable). */
static int session_init(mr_cache_session *s, const char *path, const char *const *anims, int anim_count,
                        int check_folder)
{
    memset(s, 0, sizeof *s);
    const char *dir = mr_cache_dir();
    if (!dir || anim_count < 0 || (check_folder && !cache_folder_usable(dir))) return 0;
    int n = 1 + anim_count;
    s->sources = calloc((size_t)n, sizeof *s->sources);
    s->stamps = calloc((size_t)n, sizeof *s->stamps);
    if (!s->sources || !s->stamps) goto fail;
    s->source_count = n;
    for (int i = 0; i < n; i++)
        if (!(s->sources[i] = source_key_path(i == 0 ? path : anims[i - 1]))) goto fail;
    s->key = session_key(s);
    s->file = mr_str_fmt("%s/" CACHE_NAME_PREFIX "%016llx" CACHE_NAME_SUFFIX, dir, (unsigned long long)s->key);
    if (!s->file) goto fail;
    s->active = 1;
    return 1;
fail:
    session_free(s);
    return 0;
}

char *mr_cache_file(const char *path, const char *const *anims, int anim_count)
{
    mr_cache_session s;
    if (!path || (anim_count > 0 && !anims) || !session_init(&s, path, anims, anim_count, 0)) return NULL;
    char *file = s.file;
    s.file = NULL;
    session_free(&s);
    return file;
}

/* ---- opening files: regular, not linked, this user's ---------------------- */

int cache_read_all(int fd, void *buf, size_t size)
{
    size_t got = 0;
    while (got < size) {
        ssize_t k = read(fd, (char *)buf + got, size - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        got += (size_t)k;
    }
    return 0;
}

int cache_open_regular(int dirfd, const char *path, struct stat *st)
{
    int fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return -1;
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        close(fd);
        return -2;
    }
    return fd;
}

const char *cache_not_ours(const struct stat *st)
{
    static char why[64];
    if (st->st_uid != geteuid()) {
        snprintf(why, sizeof why, "owned by uid %u, not by this user", (unsigned)st->st_uid);
        return why;
    }
    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, sizeof why, "writable by others (mode %03o)", (unsigned)(st->st_mode & 0777));
        return why;
    }
    return NULL;
}

int cache_folder_usable(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0) return 1;  /* created at the first write (or that fails, and warns) */
    const char *why = S_ISDIR(st.st_mode) ? cache_not_ours(&st) : "not a folder";
    if (!why) return 1;
    if (!warned_folder) {
        warned_folder = 1;
        fprintf(stderr,
                "marrow: cache: not using %s: %s; another user could plant models there "
                "(loads stay uncached; use a folder of your own, or chmod go-w it)\n",
                dir, why);
    }
    return 0;
}

/* A source changed by any write after a stamp gets a ctime at or after the
 * stamp's time (less the file system's timestamp granularity: jiffies on
 * Linux, 2 s on FAT); a stamp whose ctime is older than its time by more
 * than this window therefore proves, while size, mtime, ctime, inode and
 * device stay the same, that the content has not been written since. */
#define RACY_NS 2000000000LL

static int64_t ns_of(struct timespec t) { return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec; }

/* Hashing reads sources through one static buffer that stays mapped and
 * warm from load to load (a fresh buffer per load costs page faults on
 * every load once malloc hands the pages back); a second thread hashing
 * at the same time takes a buffer of its own. */
#define HASH_CHUNK (1u << 20)
static unsigned char hash_buf[HASH_CHUNK] __attribute__((aligned(64)));
static atomic_flag hash_buf_busy = ATOMIC_FLAG_INIT;

/* Reads n bytes of fd in chunks of whole blocks and hashes them; 0 on
 * success (as mr_cache_hash over all n bytes). */
static int hash_fd(int fd, size_t n, uint64_t *out)
{
    int own = !atomic_flag_test_and_set(&hash_buf_busy);
    unsigned char *buf = own ? hash_buf : malloc(HASH_CHUNK);
    int bad = !buf, simd = cache_simd_level();
    cache_hash_state st;
    cache_hash_start(&st);
    size_t done = 0, k = 0;
    while (!bad && done < n) {
        k = n - done < HASH_CHUNK ? n - done : HASH_CHUNK;
        bad = cache_read_all(fd, buf, k) != 0;
        if (!bad) cache_hash_blocks(&st, buf, k / CACHE_HASH_BLOCK, simd);
        done += k;
    }
    if (!bad) *out = cache_hash_end(&st, buf + k / CACHE_HASH_BLOCK * CACHE_HASH_BLOCK, n);
    if (own) atomic_flag_clear(&hash_buf_busy);
    else free(buf);
    return bad ? -1 : 0;
}

/* hash_always from the configuration, or MARROW_CACHE=hash when the
 * environment decides. */
static int hash_always(void)
{
    if (config_hash_always) return 1;
    const char *env = config_mode == MR_CACHE_ENV ? getenv("MARROW_CACHE") : NULL;
    return env && !strcmp(env, "hash");
}

/* ctime 0: a file system that reports no change time; never trusted. */
static int stat_trusted(const source_rec *rec) { return rec->ctime_ns > 0 && rec->ctime_ns + RACY_NS < rec->taken_ns; }

/* Stamps one file. With rec (a cached load): returns 0 when the file
 * still matches rec: size and mtime equal, and either the stat data prove
 * it unwritten (stat_trusted, unless hash_always) or its content hash is
 * equal; *hashed tells whether it was read. Without rec: reads and hashes
 * it. -1 on a mismatch or an error. A source that is not a regular file
 * (a FIFO, a device) is never opened: it is stat'ed first, then opened
 * without blocking and checked again on the descriptor. One statx or
 * stat, at most one open, fstat and read. */
static int stamp_file(const char *path, mr_cache_stamp *out, const source_rec *rec, int *hashed)
{
    *hashed = 0;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
#ifdef STATX_BASIC_STATS
    /* One statx(2) settles the usual case. AT_STATX_FORCE_SYNC makes a
     * network file system fetch fresh attributes, as open(2) does
     * (close-to-open), so a change made on another machine is seen. */
    struct statx sx;
    if (rec && !hash_always() && statx(AT_FDCWD, path, AT_STATX_FORCE_SYNC, STATX_BASIC_STATS, &sx) == 0 &&
        (sx.stx_mask & STATX_BASIC_STATS) == STATX_BASIC_STATS) {
        if (!S_ISREG(sx.stx_mode)) return -1;
        out->size = sx.stx_size;
        out->mtime_ns = (int64_t)sx.stx_mtime.tv_sec * 1000000000 + sx.stx_mtime.tv_nsec;
        out->ctime_ns = (int64_t)sx.stx_ctime.tv_sec * 1000000000 + sx.stx_ctime.tv_nsec;
        out->ino = sx.stx_ino;
        out->dev = (uint64_t)makedev(sx.stx_dev_major, sx.stx_dev_minor);
        out->taken_ns = ns_of(now);
        if (out->size != rec->size || out->mtime_ns != rec->mtime_ns) return -1;
        if (out->ctime_ns == rec->ctime_ns && out->ino == rec->ino && out->dev == rec->dev && stat_trusted(rec)) {
            out->hash = rec->hash;
            return 0;
        }
    }
#endif
    struct stat pre, st;
    if (stat(path, &pre) != 0 || !S_ISREG(pre.st_mode)) return -1;
    int fd = cache_open_regular(AT_FDCWD, path, &st);
    if (fd == -1 && errno == ELOOP) {
        /* the source is a link (sources may be): open what it resolves to,
         * still without following a link swapped in since */
        char *real = realpath(path, NULL);
        fd = real ? cache_open_regular(AT_FDCWD, real, &st) : -1;
        free(real);
    }
    if (fd < 0) return -1;
    if (st.st_size < 0 || st.st_ino != pre.st_ino || st.st_dev != pre.st_dev) {
        close(fd);
        return -1;
    }
    out->size = (uint64_t)st.st_size;
    out->mtime_ns = ns_of(st.st_mtim);
    out->ctime_ns = ns_of(st.st_ctim);
    out->ino = (uint64_t)st.st_ino;
    out->dev = (uint64_t)st.st_dev;
    out->taken_ns = ns_of(now);
    if (rec && (out->size != rec->size || out->mtime_ns != rec->mtime_ns)) {
        close(fd);
        return -1;
    }
    if (rec && !hash_always() && out->ctime_ns == rec->ctime_ns && out->ino == rec->ino &&
        out->dev == rec->dev && stat_trusted(rec)) {
        close(fd);
        out->hash = rec->hash;
        return 0;
    }
    int bad = hash_fd(fd, (size_t)st.st_size, &out->hash);
    close(fd);
    *hashed = !bad;
    return bad || (rec && out->hash != rec->hash) ? -1 : 0;
}

int cache_sources_match(mr_cache_session *s, const source_rec *src, int *refresh)
{
    *refresh = 0;
    for (int i = 0; i < s->source_count; i++) {
        int hashed, same = stamp_file(s->sources[i], &s->stamps[i], &src[i], &hashed) == 0;
        cache_stats.hashed += hashed;
        if (!same) return cache_reject("stale: %s changed since it was written", s->sources[i]);
        const mr_cache_stamp *t = &s->stamps[i];
        if (hashed && !hash_always() && t->ctime_ns > 0 && t->ctime_ns + RACY_NS < t->taken_ns) *refresh = 1;
    }
    return 1;
}

static int session_fingerprint(mr_cache_session *s)
{
    int hashed;
    for (int i = 0; i < s->source_count; i++)
        if (stamp_file(s->sources[i], &s->stamps[i], NULL, &hashed) != 0) return -1;
    s->fingerprinted = 1;
    return 0;
}

/* ---- folder: warnings, creation, bound ------------------------------------ */

void cache_warn_once(const char *what, const char *path, int e)
{
    cache_stats.write_failures++;
    if (warned) return;
    warned = 1;
    fprintf(stderr, "marrow: cache: cannot %s %s: %s (loads stay uncached; MARROW_CACHE=0 turns the cache off)\n",
            what, path, strerror(e));
}

int cache_make_dirs(const char *dir)
{
    char *p = mr_str_dup(dir);
    if (!p) return -1;
    for (char *q = p + 1;; q++) {
        if (*q != '/' && *q) continue;
        char c = *q;
        *q = '\0';
        if (mkdir(p, 0700) != 0 && errno != EEXIST) {
            free(p);
            return -1;
        }
        if (!c) break;
        *q = c;
    }
    free(p);
    return 0;
}

/* The folder bound (cache.h, Size). */
static uint64_t max_bytes(void)
{
    if (config_max_bytes) return config_max_bytes;
    const char *env = getenv("MARROW_CACHE_MAX_MB");
    char *end;
    unsigned long long mb = env && *env ? strtoull(env, &end, 10) : 0;
    if (env && *env && !*end && mb > 0 && mb < ((uint64_t)1 << 40)) return (uint64_t)mb << 20;
    return MR_CACHE_MAX_BYTES;
}

uint64_t cache_max_entry(void) { return max_bytes() / MR_CACHE_ENTRY_SHARE; }

typedef struct cached_entry {
    char name[32];
    uint64_t size;
    int64_t used_ns;  /* the later of access and modification */
} cached_entry;

static int by_use(const void *a, const void *b)
{
    int64_t x = ((const cached_entry *)a)->used_ns, y = ((const cached_entry *)b)->used_ns;
    return x < y ? -1 : x > y;
}

/* What a name in the cache folder is: CACHE_FILE for a cache file's name
 * ("marrow-<16 hex digits>.mrc", or "<16 hex digits>.mrc" as a marrow
 * before the prefix named them), CACHE_TEMP for such a name followed by
 * ".<pid>.<n>.tmp" (cache_write_file's temporary files), else 0. */
enum { CACHE_FILE = 1, CACHE_TEMP };
static int name_kind(const char *name)
{
    const char *p = name;
    size_t k = strlen(CACHE_NAME_PREFIX);
    if (!strncmp(p, CACHE_NAME_PREFIX, k)) p += k;
    for (int i = 0; i < 16; i++, p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))) return 0;
    k = strlen(CACHE_NAME_SUFFIX);
    if (strncmp(p, CACHE_NAME_SUFFIX, k)) return 0;
    p += k;
    if (!*p) return CACHE_FILE;
    for (int part = 0; part < 2; part++) {
        if (*p++ != '.' || *p < '0' || *p > '9') return 0;
        while (*p >= '0' && *p <= '9') p++;
    }
    return !strcmp(p, ".tmp") ? CACHE_TEMP : 0;
}

/* 1 when the regular file name in the folder (dirfd) starts with the cache
 * magic: a file marrow wrote, which pruning may remove (a temporary file
 * cut before its first 8 bytes stays: it holds less than 8 bytes). */
static int has_magic(int dirfd, const char *name)
{
    struct stat st;
    char magic[sizeof CACHE_MAGIC - 1];
    int fd = cache_open_regular(dirfd, name, &st);
    if (fd < 0) return 0;
    int ok = cache_read_all(fd, magic, sizeof magic) == 0 && !memcmp(magic, CACHE_MAGIC, sizeof magic);
    close(fd);
    return ok;
}

/* Only files marrow wrote are counted and removed: a cache file's name
 * (name_kind), this user's, a regular file (not a link), and, checked
 * just before removing it, the magic at its start. A foreign file in the
 * folder stays, whatever its name or age. */
void cache_prune(const char *dir, const char *keep)
{
    DIR *d = opendir(dir);
    if (!d) return;
    cached_entry *list = NULL;
    size_t count = 0, cap = 0;
    uint64_t total = 0;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct dirent *e;
    uid_t me = geteuid();
    while ((e = readdir(d))) {
        struct stat st;
        int kind = name_kind(e->d_name);
        if (!kind || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            st.st_uid != me)
            continue;
        if (kind == CACHE_TEMP) {
            if (ns_of(st.st_mtim) + 3600 * (int64_t)1000000000 < ns_of(now) && has_magic(dirfd(d), e->d_name))
                unlinkat(dirfd(d), e->d_name, 0);
            continue;
        }
        size_t name_len = strlen(e->d_name);
        if (name_len >= sizeof list->name) continue;
        total += (uint64_t)st.st_size;
        if (!strcmp(e->d_name, keep)) continue;
        if (mr_alloc_reserve((void **)&list, &cap, count + 1, sizeof *list) != MR_OK) break;
        cached_entry *c = &list[count++];
        memcpy(c->name, e->d_name, name_len + 1); /* fits: checked above */
        c->size = (uint64_t)st.st_size;
        int64_t a = ns_of(st.st_atim), m = ns_of(st.st_mtim);
        c->used_ns = a > m ? a : m;
    }
    uint64_t bound = max_bytes();
    if (total > bound && count) {
        qsort(list, count, sizeof *list, by_use);
        for (size_t i = 0; i < count && total > bound; i++) {
            if (!has_magic(dirfd(d), list[i].name)) {
                total -= list[i].size;  /* named like ours, but not: neither counted nor removed */
                continue;
            }
            if (unlinkat(dirfd(d), list[i].name, 0) == 0) {
                total -= list[i].size;
                cache_stats.pruned++;
            }
        }
    }
    free(list);
    closedir(d);
}

/* ---- the session --------------------------------------------------------- */

int mr_cache_begin(mr_cache_session *s, const char *path, const char *const *anims, int anim_count,
                   mr_model **out)
{
    *out = NULL;
    memset(s, 0, sizeof *s);
    /* A .gltf reads buffers from other files that the cache does not
     * fingerprint: never cached (a .glb holds its buffers). */
    char ext[8];
    if (!strcmp(mr_path_ext(path, ext, sizeof ext), "gltf")) return 0;
    if (!session_init(s, path, anims, anim_count, 1)) return 0;
    int refresh = 0;
    mr_model *m = cache_read_file(s, path, &refresh);
    if (m) {
        cache_stats.hits++;
        if (refresh) {
            cache_write_file(s, m);
            cache_stats.refreshed++;
        }
        session_free(s);
        *out = m;
        return 1;
    }
    cache_stats.misses++;
    /* Fingerprint before the source load: a source edited during the load
     * then fails the check in mr_cache_end. */
    if (session_fingerprint(s) != 0) session_free(s);
    return 0;
}

/* Whether the model has morph targets or morph weight tracks, which the
 * cache layout does not hold: such a model is loaded from its source. */
static int has_morphs(const mr_model *m)
{
    for (int i = 0; i < m->mesh_count; i++)
        if (m->meshes[i].morph) return 1;
    for (int i = 0; i < m->clip_count; i++)
        if (m->clips[i]->morph) return 1;
    return 0;
}

void mr_cache_end(mr_cache_session *s, const mr_model *model)
{
    if (s->active && s->fingerprinted && model && !has_morphs(model) && !model->vrm) {   /* nor VRM data */
        int same = 1;
        for (int i = 0; same && i < s->source_count; i++) {
            struct stat st;
            const mr_cache_stamp *t = &s->stamps[i];
            same = stat(s->sources[i], &st) == 0 && (uint64_t)st.st_size == t->size &&
                   ns_of(st.st_mtim) == t->mtime_ns && ns_of(st.st_ctim) == t->ctime_ns &&
                   (uint64_t)st.st_ino == t->ino && (uint64_t)st.st_dev == t->dev;
        }
        /* The file holds packed clips (a cached load is then a read and a
         * validation): the packs the worker builds are waited for here, or
         * built here when it has not started them (clip_runtime.h). */
        for (int i = 0; same && i < model->clip_count; i++) mr_clip_settle(model->clips[i]);
        if (same) cache_write_file(s, model);
    }
    session_free(s);
}
