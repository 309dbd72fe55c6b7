/* cache_internal.h — private declarations shared by the cache_*.c files.
 *
 * The cache (cache.h) in four files, each with one job:
 *   cache_hash.c    the checksum (mr_cache_hash), also in streaming form
 *   cache_policy.c  configuration (mr_cache_configure, the environment),
 *                   statistics and the rejection text, the cache folder,
 *                   source stamps (Validity), pruning (Size), and the
 *                   session: mr_cache_begin / mr_cache_end
 *   cache_write.c   a model to a file image (cache_layout.h), written
 *                   atomically; the layout fingerprint
 *   cache_read.c    a file image back to a model: the untrusted reader,
 *                   every count, offset and index checked (Trust), and the
 *                   SIMD widening of narrowed arrays
 * cache_read.c and cache_write.c know the layout; cache_policy.c knows
 * only source records (to compare stamps) and calls them by the two entry
 * points below.
 */
#ifndef MR_FORMATS_CACHE_INTERNAL_H
#define MR_FORMATS_CACHE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "formats/cache.h"
#include "formats/cache_layout.h"

/* ---- checksum in steps (cache_hash.c) ------------------------------------ */

/* mr_cache_hash in three steps, so a file can be hashed in chunks of whole
 * CACHE_HASH_BLOCK-byte blocks, in order: the same value as one call over
 * all bytes. */
#define CACHE_HASH_LANES 16
#define CACHE_HASH_BLOCK 64
typedef struct cache_hash_state {
    uint32_t a[CACHE_HASH_LANES], b[CACHE_HASH_LANES];
} cache_hash_state;
void cache_hash_start(cache_hash_state *st);
/* simd: 0 portable C, 1 AVX2 (cache_simd_level) */
void cache_hash_blocks(cache_hash_state *st, const unsigned char *p, size_t nblocks, int simd);
/* tail: the last n % CACHE_HASH_BLOCK bytes; n: the length of everything hashed */
uint64_t cache_hash_end(const cache_hash_state *st, const unsigned char *tail, size_t n);

/* 1 when this CPU runs the AVX2 paths (within MARROW_SIMD), else 0. */
int cache_simd_level(void);

/* ---- policy, state, sources (cache_policy.c) ----------------------------- */

/* The counters of mr_cache_get_stats; the writer and reader count too. */
extern mr_cache_stats cache_stats;

/* Records why a cache file is rejected (mr_cache_rejection); returns 0
 * (not ok) for chaining. */
int cache_reject(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Counts a failed write and prints one warning per process. */
void cache_warn_once(const char *what, const char *path, int e);

/* mkdir -p for the cache folder; 0 on success. */
int cache_make_dirs(const char *dir);

/* Keeps the folder within its bound (cache.h, Size); keep is the name of
 * the file just written. Best effort: what cannot be read or removed stays. */
void cache_prune(const char *dir, const char *keep);

/* Reads all of fd (size bytes) into buf; 0 on success. */
int cache_read_all(int fd, void *buf, size_t size);

/* Opens path (relative to dirfd, or AT_FDCWD) to read, never following a
 * link in its last component (O_NOFOLLOW) nor blocking on a FIFO or device
 * (O_NONBLOCK), and checks on the descriptor (fstat into *st) that it is a
 * regular file. The descriptor, or -1 when it cannot be opened (errno;
 * ELOOP for a link), or -2 when it is not a regular file. */
struct stat;
int cache_open_regular(int dirfd, const char *path, struct stat *st);

/* NULL when st (a cache file or the folder) is this user's (geteuid) and
 * writable by no one else; else why not, in words (static storage). */
const char *cache_not_ours(const struct stat *st);

/* 1 when the cache folder may be used: missing (created 0700 at the first
 * write), or a folder of this user's that no one else may write. Else 0,
 * with one warning per process. */
int cache_folder_usable(const char *dir);

/* The largest cache file written or read: the bound / MR_CACHE_ENTRY_SHARE. */
uint64_t cache_max_entry(void);

/* Compares the session's sources as they are now with the file's source
 * records (count: s->source_count) and fills s->stamps; 1 when all match
 * (Validity), else 0 with the rejection recorded. *refresh: a source had
 * to be hashed while its new stamp would be trusted (cache_read_file). */
int cache_sources_match(mr_cache_session *s, const source_rec *src, int *refresh);

/* ---- writer and reader --------------------------------------------------- */

/* Writes model as the session's cache file (cache_write.c): a temporary
 * file, then rename(2), then pruning; failures warn once and count. */
void cache_write_file(const mr_cache_session *s, const mr_model *m);

/* Reads and checks the session's cache file (cache_read.c); the model on
 * success (its path set to path, owned by the caller), else NULL (the
 * reason for mr_cache_rejection when the file exists). On success
 * s->stamps hold the sources as they are now, and *refresh says that the
 * caller should rewrite the file so that later loads skip hashing. */
mr_model *cache_read_file(mr_cache_session *s, const char *path, int *refresh);

/* cache_read_file's checks and build on a file already read whole into
 * base (64-byte aligned, size bytes; taken over: the model owns it, or it
 * is freed). s NULL: the key, the source paths and their stamps are not
 * checked, nor *refresh set (tests/fuzz/fuzz_cache.c feeds blocks here);
 * everything else is. */
mr_model *cache_read_block(unsigned char *base, size_t size, mr_cache_session *s, const char *path, int *refresh);

#endif
