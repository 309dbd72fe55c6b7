/* cache.h — the binary model cache: a second load of a model reads one file.
 *
 * What is cached: the whole mr_model that mr_load_model built from a source
 * path plus its extra anim files (load.h): skeleton, meshes with every
 * vertex stream and their influences, materials with texture paths and
 * embedded image bytes, clips with their source keys and markers (clip.h)
 * and their runtime (clip_runtime.h: played keys, error budgets, shared
 * time line and SIMD bake), axes and the axes note, and the
 * warnings the load recorded (so `marrow info` shows the same warnings). A
 * cached model is the same model: every field compares equal, except
 * `path`, which is the path given to this load, and texture paths: one in
 * the model's folder or below it is put in the folder as this load's path
 * names it ("models/a.png" for "models/bob.md5mesh", "/w/models/a.png" for
 * "/w/models/bob.md5mesh"; a source load may spell the same file "./a.png"
 * for "bob.dae"), one elsewhere comes back absolute. So a model first
 * loaded from one working directory draws its textures when loaded from
 * another.
 *
 * Not cached: .gltf files, whose buffers (and so vertices and keys) come
 * from other files the cache does not fingerprint; a .glb holds its own.
 *
 * Where: one file per (absolute source path, absolute anim paths in order,
 * MR_CACHE_VERSION; each path's folder resolved through links, its file
 * name as given, so that a model reached through a linked folder shares
 * the file, and a link named otherwise than its target, whose name can
 * name a clip, does not) under the cache folder, named by the 64-bit hash of
 * those (`marrow-<16 hex digits>.mrc`); a marrow built from other loader code
 * finds the file's layout foreign and replaces it, so the folder holds one
 * file per model loaded, not one per build. The folder is
 * $MARROW_CACHE_DIR, else $XDG_CACHE_HOME/marrow, else $HOME/.cache/marrow
 * (created 0700 on the first write), bounded to 1 GiB (Size). Nothing is written
 * beside the model (model folders are often read-only). MARROW_CACHE=0 turns the cache off,
 * MARROW_CACHE=hash hashes every source on every load (hash_always below);
 * mr_cache_configure overrides the environment for the process. The
 * library uses the environment's choice; `marrow test` uses a private
 * cache folder of its own for the run, removed at its end (regression
 * scenes never depend on a user's cache), `make test` runs with
 * MARROW_CACHE=0 except the cache's own tests, which use a private folder.
 *
 * Validity: the file records, for every source file, a stamp: its size,
 * modification and change times (mtime, ctime) in nanoseconds, inode,
 * device, a 64-bit content hash (mr_cache_hash) and when the stamp was
 * taken (CLOCK_REALTIME, just before the stat). A cached load requires the
 * same size and mtime, and then either
 *   - the same ctime, inode and device, with the recorded ctime more than
 *     2 s older than the stamp: one statx(2), the source is not read. Any
 *     write, truncation, chmod or rename over the file after the stamp sets
 *     its ctime to the time of that change, which is later than the
 *     recorded ctime by construction (the 2 s cover coarse timestamps:
 *     jiffies, FAT's 2 s), and ctime cannot be set by a user; a copy put in
 *     its place (cp -p, tar, rsync) has another inode and a new ctime.
 *     AT_STATX_FORCE_SYNC makes a network file system fetch fresh
 *     attributes, as open(2) does, so NFS clients keep close-to-open
 *     consistency; or
 *   - the same content hash: the source is read (through one static 1 MiB
 *     buffer) and hashed (its speed: docs/PERFORMANCE.md).
 *     This is the path when stat data differ (a renamed-over identical copy
 *     still hits) or the stamp was taken within 2 s of the source's last
 *     change (a model loaded right after its export); once that change is
 *     older than 2 s, such a hit rewrites the file with a new stamp, so
 *     later hits need no read.
 * What the first path cannot see: a content change that keeps size, mtime,
 * ctime, inode and device, i.e. a system clock set back to the recorded
 * ctime's nanosecond, or a file system whose ctime does not follow writes
 * (a ctime of 0 is never trusted; some FUSE and FAT mounts report others).
 * Whoever must exclude those sets mr_cache_config.hash_always (or
 * MARROW_CACHE=hash): every
 * source is then hashed on every load (the rule before MR_CACHE_VERSION 2;
 * `marrow bench` times both). Any other difference makes the file stale:
 * the model is loaded from the source and the file replaced. The recorded
 * stamp is taken before the source load and written only when a second
 * stat after the load still shows the same size, times, inode and device
 * (a source edited during the load is not cached). Not stamped: files a
 * source names (a .gltf's external .bin buffers, an FBX file's Maya
 * geometry cache files, texture files whose
 * existence picks a material's map path): editing only those leaves a
 * cached model stale until its source changes or the cache file is removed.
 *
 * Trust: the folder and its files are this user's alone. A folder that
 * another user owns or that others may write (group or world) is not used
 * at all (one warning per process, loads stay uncached): another user
 * could put a file there that makes this user load the wrong model. A
 * cache file is opened without following a link (O_NOFOLLOW) or blocking
 * (O_NONBLOCK, so a FIFO in its place cannot hang a load) and ignored as
 * a miss, then replaced by the load's own write, when it is not a regular
 * file, not owned by this user (geteuid), writable by group or others, or
 * larger than the per-entry cap (MR_CACHE_ENTRY_SHARE). Files are written
 * 0600. Sources are stat'ed before they are opened, so a FIFO or device
 * given as a source is never opened by the cache.
 *
 * Even then a cache file is never trusted. It is read whole (one read) and
 * rejected — then replaced by the next write — when it is shorter than its
 * header, has another magic, version, byte order or layout, another key or
 * source paths, a size other than the header says, or a payload whose hash
 * differs from the header's; then every count is checked against its limit
 * and every offset, array and string against the file size before use, and
 * every index that later code uses to address memory (parents, triangle
 * indices, vertex joints, influence rows, bake channels) is range-checked,
 * stored joints, rows and indices before they are widened (a widened array
 * is allocated only for vertices whose positions, and indices whose stored
 * values, the file holds: at most 4 times the file's size; the scratch
 * table of shared rows at most 65536 rows of 48 bytes, each stored). Float values are taken as written
 * (the checksum guards them from damage; a bad float cannot address
 * memory).
 *
 * Layout (native byte order, rejected elsewhere): a 64-byte header (magic,
 * version, byte-order mark, layout fingerprint, key, file size, payload
 * hash, source count, model record offset), then the payload: source
 * records and fixed-width model, mesh, clip and marker records whose
 * pointer fields are 64-bit offsets from the file's start (0 = NULL), and
 * every array 32-byte aligned. The file is read into one 64-byte aligned
 * block that the model keeps (mr_model.cache_block): arrays stay where they
 * are read, pointers are fixed up in place, track tables and the clip bake
 * are slots of the file filled at load. Three arrays are stored narrower
 * than in memory, because widening is cheaper than reading (and hashing)
 * the bytes: joints and weights keep only the influence slots the mesh
 * uses (one past the last slot with a joint other than 0 or a weight other
 * than +0.0 in any vertex), joints one byte wide when all are below 256,
 * triangle indices two bytes wide when all fit. Influences are moreover
 * stored as the mesh's distinct rows (joints and weights of a vertex) and
 * a uint16 row per vertex when that takes at most half the bytes: vertices
 * split at seams and flat faces repeat the rows of one skinned point
 * (TM.glb: 4255 vertices, 441 rows; 85 KB stored as 17). A mesh using all
 * 8 slots with wide joints and no such sharing, or with indices past
 * 65535, is read in place. A cached load allocates the block, the model,
 * its path, mesh and clip arrays, per narrowed mesh its widened joints,
 * weights and indices (the mesh owns them; 64-byte aligned), for shared
 * rows on a CPU without AVX-512 a scratch table of them widened, and per
 * clip the clip, its error budgets and markers: no other per-vertex or
 * per-key work besides the range checks.
 *
 * Speed: docs/CACHE.md holds the version history of `marrow bench --only load`
 * (cached against assimp and source loads) and where a hit's time goes.
 *
 * Size: no cache file is larger than a quarter of the bound
 * (MR_CACHE_ENTRY_SHARE): a larger model is not written (stats.too_large),
 * so one model never pushes the rest of the folder out. After each write,
 * when the folder's cache files (marrow-<key>.mrc) add up
 * to more than the bound (mr_cache_config.max_bytes), the least recently
 * used go, by the later of their access and modification times (a hit reads
 * its file; with relatime the access time moves at most daily), until the
 * rest fit; the file just written stays. Temporary files an interrupted
 * write left behind go once they are an hour old. Only files marrow wrote
 * are counted or removed: a cache file's name (or the `<16 hex>.mrc` of a
 * marrow before the prefix), this user's, a regular file, and the cache
 * magic at its start (read just before removing it); anything else in the
 * folder stays, however old. The folder holds one file
 * per model path loaded, so it grows only with new paths (generated or
 * temporary models).
 *
 * Writes are atomic: a temporary file in the cache folder (unique per
 * process and write), then rename(2), so concurrent processes each see a
 * whole old or a whole new file. A write that fails (folder not creatable,
 * read-only, full disk) prints one warning per process to stderr and the
 * load goes on uncached.
 */
#ifndef MR_FORMATS_CACHE_H
#define MR_FORMATS_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "anim/model.h"

/* Bump when the file layout changes. What a loader produces is covered
 * without a bump: the layout fingerprint includes a checksum of the code in
 * src/core, src/anim and src/formats (MR_LOADER_HASH, from the Makefile),
 * so a marrow built from other loader code never reads this one's files. */
#define MR_CACHE_VERSION 8   /* 8: a clip's point reach; 7: a packed clip segment's width per component; 6: a mesh's skinning mode and dual-quaternion blend */

typedef enum mr_cache_mode {
    MR_CACHE_ENV = 0,    /* the environment decides: on unless MARROW_CACHE=0 */
    MR_CACHE_OFF,
    MR_CACHE_ON,
} mr_cache_mode;

typedef struct mr_cache_config {
    mr_cache_mode mode;  /* 0 = the environment decides */
    const char *dir;     /* cache folder (copied), NULL = from the environment */
    int hash_always;     /* 1: read and hash every source on every cached load;
                          * 0 = trust unchanged stat data where Validity allows */
    uint64_t max_bytes;  /* folder bound (Size below); 0 = $MARROW_CACHE_MAX_MB
                          * megabytes when set, else MR_CACHE_MAX_BYTES */
} mr_cache_config;

/* Default bound of the cache folder's .mrc files (1 GiB). */
#define MR_CACHE_MAX_BYTES ((uint64_t)1 << 30)

/* No cache file is larger than the bound divided by this (a quarter): a
 * larger model is not written, so one model never empties the folder, and
 * a larger file found there is not read. */
#define MR_CACHE_ENTRY_SHARE 4

/* Sets the process-wide cache policy (NULL: back to the environment's).
 * Not thread-safe: call before loading on other threads. */
void mr_cache_configure(const mr_cache_config *cfg);

/* The cache folder in use, or NULL when the cache is off (returns a
 * pointer to static storage, valid until the next call). */
const char *mr_cache_dir(void);

/* Counters since process start (or the last mr_cache_configure). */
typedef struct mr_cache_stats {
    int hits;            /* loads answered from a cache file */
    int misses;          /* loads that read the source (no file, stale or rejected) */
    int rejected;        /* cache files present but corrupt, foreign or stale */
    int writes;          /* cache files written */
    int write_failures;  /* writes that failed (warned once) */
    int hashed;          /* sources a cached load read and hashed (the rest were trusted on stat data) */
    int refreshed;       /* hits that rewrote their file with a stamp that needs no hashing */
    int pruned;          /* files removed to keep the folder within its bound */
    int too_large;       /* models not written: their file would exceed the per-entry cap */
} mr_cache_stats;
void mr_cache_get_stats(mr_cache_stats *out);

/* Why the last cache file found unusable was rejected, e.g. "truncated:
 * 1000 bytes, its header says 243552", "cache format version 3, this
 * marrow reads 4", "stale: /m/bob.md5mesh changed since it was written",
 * "damaged: the payload's checksum differs from its header's"; "" when
 * none was since process start (or the last mr_cache_configure). Such a
 * file is replaced by the load's own write. Static storage, overwritten by
 * the next rejection; not thread-safe (for tools: `marrow info`). */
const char *mr_cache_rejection(void);

/* The cache file for a source path and its anims (new string), or NULL
 * when the cache is off or without memory. */
char *mr_cache_file(const char *path, const char *const *anims, int anim_count);

/* 64-bit checksum of n bytes: weighted Fletcher sums (16 lanes of 32-bit
 * A += weighted pair of int16, B += A) over 64-byte blocks, AVX2 when the
 * CPU has it, the same value in portable C otherwise; the tail and the
 * length mixed in at the end. Sees any change within one 16-bit element,
 * and blocks moved, swapped or repeated (cache_hash.c). For change detection,
 * not for security. mr_cache_hash_portable and mr_cache_hash_avx2
 * (portable on a CPU without AVX2) force a path (for tests). */
uint64_t mr_cache_hash(const void *data, size_t n);
uint64_t mr_cache_hash_portable(const void *data, size_t n);
uint64_t mr_cache_hash_avx2(const void *data, size_t n);

/* ---- used by mr_load_model (load.c) ---------------------------------- */

/* What the cache records of one source (Validity above). */
typedef struct mr_cache_stamp {
    uint64_t size, hash, ino, dev;
    int64_t mtime_ns, ctime_ns;
    int64_t taken_ns;    /* CLOCK_REALTIME just before the stat */
} mr_cache_stamp;

/* One load's view of the cache: filled by mr_cache_begin, consumed by
 * mr_cache_end. */
typedef struct mr_cache_session {
    int active;          /* 0: cache off or unusable for this load */
    char *file;          /* the cache file */
    uint64_t key;        /* the hash that names it (paths and MR_CACHE_VERSION) */
    int source_count;
    char **sources;      /* absolute paths (folders resolved): the model, then the anims */
    mr_cache_stamp *stamps;  /* per source, hashed */
    int fingerprinted;   /* stamps above were taken */
} mr_cache_session;

/* Looks the load up. On a hit returns 1 with *out the cached model (its
 * path set to path). Otherwise returns 0 and leaves s ready for
 * mr_cache_end after the source load. */
int mr_cache_begin(mr_cache_session *s, const char *path, const char *const *anims, int anim_count,
                   mr_model **out);

/* After a successful source load: writes model to the cache file when the
 * sources did not change during the load. Always releases s (model may be
 * NULL after a failed load: then only releases). */
void mr_cache_end(mr_cache_session *s, const mr_model *model);

#endif
