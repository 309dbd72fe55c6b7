/* watch.h — tells when files change on disk, for live reload.
 *
 * Files are watched through their directories (inotify on Linux), so a save
 * that writes a new file and renames it over the old one (vim, VS Code) is
 * seen like a write in place. Each watched entry carries a tag; a whole
 * directory can be watched too (every file in it, e.g. the shaders).
 * When inotify is not available (or MARROW_WATCH=poll is set) the watcher
 * polls: it compares size, mtime and inode of every watched file at most
 * every 50 ms.
 *
 * A save is reported when the file system says it is complete, never while
 * it is being written: with inotify, when the writer closes the file
 * (IN_CLOSE_WRITE) or a file is renamed onto the name (IN_MOVED_TO), and no
 * further event came for 2 ms (an editor that truncates, then writes in
 * pieces, then closes is reported once, after the close; one that closes
 * and writes again within 2 ms is reported after the last close). A
 * change that never closes (a delete, a touch, a write through a mapping)
 * is reported once no event came for `settle` seconds (default 30 ms), or
 * 1 s while the file is still open for writing. Polling (no inotify) reports
 * a change once size, mtime and inode stayed the same for `settle` seconds.
 * Poll often (each frame): a save is picked up at the next poll.
 *
 * Single-threaded; mr_watch_poll blocks only to wait out a save's last 2 ms
 * (on the inotify descriptor); nothing is allocated in it once the watch
 * list is set.
 */
#ifndef MR_PLATFORM_WATCH_H
#define MR_PLATFORM_WATCH_H

#include "core/error.h"

typedef struct mr_watch mr_watch;

/* A new watcher in *out; MR_ERR_NO_MEMORY (and *out NULL) when there is no
 * memory. Free with mr_watch_destroy. */
mr_status mr_watch_create(mr_watch **out);
void mr_watch_destroy(mr_watch *w);

/* 1 when changes come from inotify, 0 when polling. */
int mr_watch_uses_inotify(const mr_watch *w);
/* The inotify descriptor, readable when a watched directory has news, for a
 * loop that sleeps between frames to wake on a save and call mr_watch_poll
 * at once (platform/pacer.h, mr_pacer_wait_fd) instead of at its next frame;
 * -1 when polling. Owned by the watcher. */
int mr_watch_fd(const mr_watch *w);

/* Removes every watched entry. */
void mr_watch_clear(mr_watch *w);
/* Watches one file (tag 1..30). The file need not exist yet. Returns MR_OK;
 * MR_ERR_IO when its directory cannot be watched, MR_ERR_INVALID_ARGUMENT
 * for a tag out of range, MR_ERR_NO_MEMORY. */
mr_status mr_watch_file(mr_watch *w, const char *path, int tag);
/* Watches every file directly in dir (statuses as mr_watch_file). */
mr_status mr_watch_dir(mr_watch *w, const char *dir, int tag);

/* Bit (1 << tag) set for each tag with a settled change since the last
 * call. Non-blocking. */
unsigned mr_watch_poll(mr_watch *w);

/* The settle time in seconds of a change without a close, and of every
 * change when polling (default 0.03). */
void mr_watch_set_settle(mr_watch *w, double seconds);

#endif
