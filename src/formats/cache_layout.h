/* cache_layout.h — the bytes of a cache file, as cache_write.c lays them out
 * and cache_read.c checks them (private to the cache_*.c files; the layout
 * in words is in cache.h, Layout).
 *
 * Native byte order (the header's bom tells another order), 64-byte header,
 * then the payload: source records right after the header, then strings,
 * arrays (CACHE_ALIGN-aligned) and fixed-width records whose pointer fields
 * are 64-bit offsets from the file's start (0 = NULL). Nothing here is
 * trusted by the reader: every field is checked before use. */
#ifndef MR_FORMATS_CACHE_LAYOUT_H
#define MR_FORMATS_CACHE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CACHE_MAGIC "\x89MRCACHE"
#define CACHE_BOM 0x01020304u
#define CACHE_ALIGN 32

/* A cache file's name in the folder: CACHE_NAME_PREFIX, the key as 16 hex
 * digits, CACHE_NAME_SUFFIX. With the magic at the file's start, the name
 * is what lets pruning tell marrow's files from anyone else's. */
#define CACHE_NAME_PREFIX "marrow-"
#define CACHE_NAME_SUFFIX ".mrc"

typedef struct file_header {
    char magic[8];
    uint32_t version, bom;
    uint64_t layout, key, file_size, payload_hash;
    uint64_t model;      /* offset of the model record */
    uint32_t source_count, reserved;
} file_header;

typedef struct source_rec {
    uint64_t size;
    int64_t mtime_ns;
    uint64_t hash, path;
    int64_t ctime_ns, taken_ns;
    uint64_t ino, dev;
} source_rec;

typedef struct model_rec {
    uint64_t format, axes_note, warnings, meshes, clips;
    uint64_t names, parents, rest_t, rest_r, rest_s, inverse_bind;
    uint64_t scale_comp;     /* joint_count bytes (skeleton.h "Inherit modes"), or 0: none */
    int32_t up, warning_count, mesh_count, clip_count, joint_count;
    float meters_per_unit;
} model_rec;

typedef struct mesh_rec {
    uint64_t name, positions, normals, uvs, joints, weights, indices;
    uint64_t mat_name, diffuse_map, normal_map, diffuse_bytes, normal_bytes, diffuse_len, normal_len;
    uint64_t row_of;      /* per vertex its uint16 influence row (0: joints and weights per vertex) */
    float diffuse[4], ambient[4], specular[4], emission[4];
    float shininess;
    int32_t vertex_count, index_count, source_over4, source_over8;
    int32_t slots;        /* influence slots stored per vertex, 0..MR_MAX_INFLUENCES */
    int32_t joint_bytes;  /* 1 or 2: width of a stored joint index */
    int32_t index_bytes;  /* 2 or 4: width of a stored triangle index */
    int32_t rows;         /* with row_of: the distinct influence rows stored at joints, weights */
    int32_t skinning;     /* mr_skinning */
    uint64_t dq_blend;    /* vertex_count floats in [0, 1], or 0 (mr_mesh.dq_blend) */
} mesh_rec;

typedef struct clip_rec {
    uint64_t name, markers, tracks, played, max_angle, max_move, shared_times, dense, dense_data, dense_rest;
    uint64_t pack;        /* the packed clip (anim/clip_pack.h) as it is, pack_bytes long, or 0 */
    uint64_t point_reach; /* joint_count floats (mr_clip_runtime.point_reach), or 0 */
    float duration, rate, thin_tolerance, shared_rate;
    int32_t joint_count, marker_count, keys_added, keys_dropped, shared_keys;
    int32_t dense_keys, dense_joints, dense_lanes, dense_rest_count, pack_bytes;
    int32_t source_dropped;    /* 1: the tracks hold no keys (anim/clip.h: read again from the source) */
    int32_t source_key_count;  /* mr_clip_key_count's answer then */
} clip_rec;

typedef struct marker_rec {
    uint64_t name;
    float time;
    int32_t pad;
} marker_rec;

_Static_assert(sizeof(char *) <= sizeof(uint64_t), "name offsets become pointers in place");
_Static_assert(sizeof(file_header) == 64, "cache header is 64 bytes");
_Static_assert(sizeof(source_rec) == 64 && sizeof(model_rec) == 120 && sizeof(mesh_rec) == 232 &&
                   sizeof(clip_rec) == 160 && sizeof(marker_rec) == 16,
               "cache records have no padding");

/* Most distinct influence rows a mesh stores (mesh_rec.rows; row_of holds
 * uint16 row numbers): the writer stores at most this many, the reader
 * rejects a file that claims more. */
#define CACHE_MAX_ROWS 65536

/* First byte of a stored texture path that is relative to the model's
 * folder (cache_write.c: put_texture_path; cache_read.c: texture_path). */
#define CACHE_IN_MODEL_FOLDER '\x01'

/* Length of the folder part of a model path as given, through its last
 * '/' ("models/" of "models/bob.md5mesh"; 0 when there is none). The
 * loaders build texture paths in that folder from it. */
static inline size_t cache_texture_prefix(const char *model_path)
{
    const char *slash = model_path ? strrchr(model_path, '/') : NULL;
    return slash ? (size_t)(slash - model_path) + 1 : 0;
}

/* What the reader and writer agree on besides MR_CACHE_VERSION (file_header.layout);
 * cache_write.c, which the Makefile compiles with MR_LOADER_HASH. */
uint64_t cache_layout_fingerprint(void);

#endif
