/* watch.c — file change notification by inotify on directories, with a
 * polling fallback (see watch.h). */
#include "platform/watch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/path.h"
#include "core/str.h"

#define POLL_PERIOD 0.05         /* polling: seconds between scans */
#define QUIET 0.002              /* inotify: seconds without an event after a close-write */
#define OPEN_SETTLE 1.0          /* inotify: settle while a writer still holds the file open */

/* inotify: where an entry's save stands. */
enum { SAVE_NONE, SAVE_WRITING, SAVE_DONE };

typedef struct watch_dir {
    char *path;
    int wd;                  /* inotify watch descriptor, -1 when polling */
} watch_dir;

typedef struct watch_entry {
    char *dir;               /* directory (as watched) */
    char *name;              /* file name in dir, NULL = every file of dir */
    int tag;
    /* polling: last seen state (of the file, or a digest of the directory) */
    long long size, mtime_ns, ino;
    /* inotify */
    int save;                /* SAVE_*: writing (an event, no close-write yet) or done */
    int opens;               /* opens seen minus closes seen (never below 0) */
    double last_event;       /* time of the entry's newest event */
} watch_entry;

struct mr_watch {
    int fd;                  /* inotify fd, -1 when polling */
    watch_dir *dirs;
    size_t dir_count, dir_cap;
    watch_entry *entries;
    size_t entry_count, entry_cap;
    unsigned pending;        /* polling: tags with changes not yet settled */
    double last_event;       /* polling: time of the newest change */
    double settle;
    double last_poll;        /* polling mode: time of the last scan */
};

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

mr_status mr_watch_create(mr_watch **out)
{
    *out = NULL;
    mr_watch *w = calloc(1, sizeof *w);
    if (!w) return MR_ERR_NO_MEMORY;
    w->settle = 0.03;
    const char *mode = getenv("MARROW_WATCH");
    w->fd = mode && !strcmp(mode, "poll") ? -1 : inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    *out = w;
    return MR_OK;
}

int mr_watch_uses_inotify(const mr_watch *w) { return w->fd >= 0; }

int mr_watch_fd(const mr_watch *w) { return w->fd; }

void mr_watch_set_settle(mr_watch *w, double seconds) { w->settle = seconds; }

void mr_watch_clear(mr_watch *w)
{
    for (size_t i = 0; i < w->dir_count; i++) {
        if (w->fd >= 0 && w->dirs[i].wd >= 0) inotify_rm_watch(w->fd, w->dirs[i].wd);
        free(w->dirs[i].path);
    }
    for (size_t i = 0; i < w->entry_count; i++) {
        free(w->entries[i].dir);
        free(w->entries[i].name);
    }
    w->dir_count = w->entry_count = 0;
    w->pending = 0;
}

void mr_watch_destroy(mr_watch *w)
{
    if (!w) return;
    mr_watch_clear(w);
    free(w->dirs);
    free(w->entries);
    if (w->fd >= 0) close(w->fd);
    free(w);
}

/* Polling state of a file, or for a directory a digest of its files. */
static void scan(const watch_entry *e, long long *size, long long *mtime, long long *ino)
{
    *size = *mtime = *ino = -1;
    if (e->name) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", e->dir, e->name);
        struct stat st;
        if (stat(path, &st) == 0) {
            *size = (long long)st.st_size;
            *mtime = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
            *ino = (long long)st.st_ino;
        }
        return;
    }
    DIR *d = opendir(e->dir);
    if (!d) return;
    long long s = 0, m = 0, n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", e->dir, de->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        s += (long long)st.st_size;
        m ^= (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec + (long long)st.st_ino * 7919;
        n++;
    }
    closedir(d);
    *size = s;
    *mtime = m;
    *ino = n;
}

static mr_status add_dir(mr_watch *w, const char *dir)
{
    for (size_t i = 0; i < w->dir_count; i++)
        if (!strcmp(w->dirs[i].path, dir)) return MR_OK;
    if (mr_alloc_reserve((void **)&w->dirs, &w->dir_cap, w->dir_count + 1, sizeof *w->dirs))
        return MR_ERR_NO_MEMORY;
    watch_dir *d = &w->dirs[w->dir_count];
    d->wd = -1;
    if (w->fd >= 0) {
        d->wd = inotify_add_watch(w->fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE |
                                              IN_MODIFY | IN_ATTRIB | IN_MOVED_FROM | IN_OPEN |
                                              IN_CLOSE_NOWRITE);
        if (d->wd < 0) return MR_ERR_IO;
    }
    if (!(d->path = mr_str_dup(dir))) return MR_ERR_NO_MEMORY;
    w->dir_count++;
    return MR_OK;
}

static mr_status add_entry(mr_watch *w, const char *dir, const char *name, int tag)
{
    if (tag < 1 || tag > 30) return MR_ERR_INVALID_ARGUMENT;
    mr_status st = add_dir(w, dir);
    if (st != MR_OK) return st;
    if (mr_alloc_reserve((void **)&w->entries, &w->entry_cap, w->entry_count + 1, sizeof *w->entries))
        return MR_ERR_NO_MEMORY;
    watch_entry *e = &w->entries[w->entry_count];
    memset(e, 0, sizeof *e);
    e->dir = mr_str_dup(dir);
    e->name = name ? mr_str_dup(name) : NULL;
    if (!e->dir || (name && !e->name)) {
        free(e->dir);
        free(e->name);
        return MR_ERR_NO_MEMORY;
    }
    e->tag = tag;
    scan(e, &e->size, &e->mtime_ns, &e->ino);
    w->entry_count++;
    return MR_OK;
}

mr_status mr_watch_file(mr_watch *w, const char *path, int tag)
{
    char *dir = mr_path_dirname(path);
    if (!dir) return MR_ERR_NO_MEMORY;
    mr_status st = add_entry(w, dir, mr_path_basename(path), tag);
    free(dir);
    return st;
}

mr_status mr_watch_dir(mr_watch *w, const char *dir, int tag)
{
    return add_entry(w, dir, NULL, tag);
}

/* One inotify event on entry e. A close-write or a rename onto the name
 * ends a save; a write, a create (an O_TRUNC open writes too), a delete or
 * a rename away starts or continues one. */
static void entry_event(watch_entry *e, uint32_t mask, double now)
{
    if (mask & IN_OPEN) e->opens++;
    if ((mask & (IN_CLOSE_WRITE | IN_CLOSE_NOWRITE)) && e->opens > 0) e->opens--;
    if (mask & (IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_FROM)) e->save = SAVE_WRITING;
    else if (mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) e->save = SAVE_DONE;
    else if ((mask & IN_ATTRIB) && e->save == SAVE_NONE) e->save = SAVE_WRITING;  /* touch, chmod */
    else if (!(mask & IN_ATTRIB)) return;    /* opens and reads: no change, no new time */
    e->last_event = now;
}

/* Reads every queued event; 1 when there was any. */
static int read_events(mr_watch *w, double now)
{
    char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
    int any = 0;
    for (;;) {
        ssize_t n = read(w->fd, buf, sizeof buf);
        if (n <= 0) return any;        /* EAGAIN: nothing more */
        any = 1;
        for (char *p = buf; p < buf + n;) {
            struct inotify_event *ev = (struct inotify_event *)p;
            p += sizeof *ev + ev->len;
            if (ev->mask & IN_Q_OVERFLOW) {  /* events were lost: every entry may have changed */
                for (size_t i = 0; i < w->entry_count; i++) {
                    w->entries[i].save = SAVE_WRITING;
                    w->entries[i].opens = 0;
                    w->entries[i].last_event = now;
                }
                continue;
            }
            if (!ev->len) continue;    /* the directory itself (opened by a listing) */
            const char *dir = NULL;
            for (size_t i = 0; i < w->dir_count; i++)
                if (w->dirs[i].wd == ev->wd) dir = w->dirs[i].path;
            if (!dir) continue;
            for (size_t i = 0; i < w->entry_count; i++) {
                watch_entry *e = &w->entries[i];
                if (strcmp(e->dir, dir)) continue;
                if (e->name && strcmp(e->name, ev->name)) continue;
                if (!e->name && ev->name[0] == '.') continue;  /* editor swap files */
                entry_event(e, ev->mask, now);
            }
        }
    }
}

/* inotify: the tags whose save is complete. A close-write (or rename onto
 * the name) with no event after it for QUIET seconds is complete; so is a
 * change without one (a delete, a touch, a write through a mapping) after
 * settle seconds without an event, or OPEN_SETTLE while the file is still
 * open for writing. *wait gets the seconds until the next entry could be
 * complete (0: none is close to it). */
static unsigned settled(mr_watch *w, double now, double *wait)
{
    unsigned out = 0;
    *wait = 0;
    for (size_t i = 0; i < w->entry_count; i++) {
        watch_entry *e = &w->entries[i];
        if (e->save == SAVE_NONE) continue;
        double quiet = e->save == SAVE_DONE ? QUIET : e->opens > 0 ? OPEN_SETTLE : w->settle;
        double left = quiet - (now - e->last_event);
        if (left <= 0) {
            out |= 1u << e->tag;
            e->save = SAVE_NONE;
        } else if (e->save == SAVE_DONE && (*wait == 0 || left < *wait)) {
            *wait = left;
        }
    }
    return out;
}

static void poll_files(mr_watch *w, double now)
{
    if (now - w->last_poll < POLL_PERIOD) return;
    w->last_poll = now;
    for (size_t i = 0; i < w->entry_count; i++) {
        watch_entry *e = &w->entries[i];
        long long s, m, ino;
        scan(e, &s, &m, &ino);
        if (s != e->size || m != e->mtime_ns || ino != e->ino) {
            e->size = s;
            e->mtime_ns = m;
            e->ino = ino;
            w->pending |= 1u << e->tag;
            w->last_event = now;
        }
    }
}

unsigned mr_watch_poll(mr_watch *w)
{
    double now = now_seconds();
    if (w->fd < 0) {
        poll_files(w, now);
        if (!w->pending || now - w->last_event < w->settle) return 0;
        unsigned out = w->pending;
        w->pending = 0;
        return out;
    }
    read_events(w, now);
    double wait;
    unsigned out = settled(w, now, &wait);
    /* A save that just closed: wait out its quiet time here (QUIET, on the
     * inotify descriptor, so a further write ends the wait and cancels the
     * save) rather than a whole frame later. */
    for (int round = 0; wait > 0 && round < 4; round++) {   /* bounded: a writer saving non-stop */
        struct pollfd pfd = {.fd = w->fd, .events = POLLIN};
        int ms = (int)(wait * 1000.0) + 1;
        poll(&pfd, 1, ms);
        now = now_seconds();
        read_events(w, now);
        out |= settled(w, now, &wait);
    }
    return out;
}
