/* fbx_parse_internal.h — what the FBX document parser's files share
 * (fbx_parse.c: the arena, the accessors and the messages; fbx_binary.c and
 * fbx_ascii.c: the two encodings). Nothing outside them includes it.
 *
 * While a file is read, the nodes of every open list are collected on one
 * scratch stack (ctx->nodes); when a list closes, its nodes are copied into
 * the arena as one array and popped. Parent pointers are set in one pass at
 * the end (a node's final address is known only when its own list closes).
 */
#ifndef MR_FORMATS_FBX_PARSE_INTERNAL_H
#define MR_FORMATS_FBX_PARSE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "formats/fbx_parse.h"

/* Decoded bytes allowed besides MR_FBX_MAX_INFLATE_RATIO * file size, so a
 * tiny file may still hold a few small compressed arrays. */
#define FBXP_INFLATE_FLOOR ((uint64_t)1 << 20)

typedef struct fbxp_block fbxp_block;
struct mr_fbx_arena {
    fbxp_block *head;
    size_t next_size;            /* size of the next block to allocate */
};

/* 8-byte aligned bytes from the arena; NULL when out of memory. */
void *fbxp_alloc(struct mr_fbx_arena *a, size_t bytes);
/* A NUL-terminated copy of s[0..len). */
char *fbxp_strdup(struct mr_fbx_arena *a, const char *s, size_t len);

typedef struct fbxp_ctx {
    const char *path;            /* for messages */
    const uint8_t *data;
    size_t size;
    mr_fbx_doc *doc;
    struct mr_fbx_arena *arena;
    mr_error *err;
    mr_fbx_node *nodes;          /* scratch stack of the open lists' nodes */
    size_t node_count, node_cap;
    size_t open[MR_FBX_MAX_DEPTH + 2];   /* index in nodes of each open node, outermost first */
    int depth;                   /* open nodes */
    const char *const *skip;     /* records whose deflated arrays stay undecoded (NULL-terminated), or NULL */
    uint64_t inflated;           /* decoded bytes so far (binary) */
    uint64_t inflate_budget;
} fbxp_ctx;

/* Pushes a zeroed node on the scratch stack; its index, or SIZE_MAX when out
 * of memory (the error is set). */
size_t fbxp_push_node(fbxp_ctx *c, uint64_t where);
/* Copies the scratch nodes from index base on into the arena and pops them. */
mr_status fbxp_close_list(fbxp_ctx *c, size_t base, const mr_fbx_node **children,
                          uint32_t *count, uint64_t where);
/* Fails with "fbx: FILE: at byte N (line N): OPEN/NODES: " + the message. */
mr_status fbxp_fail(fbxp_ctx *c, mr_status status, uint64_t where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* One path segment for node (`Geometry "Body"`), appended to buf at *len. */
void fbxp_path_segment(const mr_fbx_node *node, char *buf, size_t size, size_t *len);

mr_status fbxp_parse_binary(fbxp_ctx *c);
mr_status fbxp_parse_ascii(fbxp_ctx *c);

static inline uint32_t fbxp_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t fbxp_u64(const uint8_t *p)
{
    return (uint64_t)fbxp_u32(p) | (uint64_t)fbxp_u32(p + 4) << 32;
}

#endif
