/* fbx_binary.c — binary FBX into the document tree of fbx_parse.h.
 *
 * After the 27-byte header (22-byte magic, a byte-order byte: 0 for
 * little-endian, which nearly every writer uses, else big-endian; uint32
 * version) come records:
 *   end offset, property count, property bytes   (uint32 each; uint64 from 7500)
 *   uint8 name length, name, properties, nested records
 * A record whose nested list is not empty ends that list with a null
 * record (a header of zeros); the top-level list ends with one too, and a
 * footer follows that nothing here reads. An end offset of 0 in a record
 * with a name (written by some exporters) means the record ends after its
 * properties. Every offset is checked against
 * the file and the enclosing record before it is used, every array's bytes
 * against the count it declares, and what libdeflate inflates against the
 * document's budget (fbx_parse_internal.h). A deflated array whose stored
 * bytes equal an earlier one's (same type and count) shares that array
 * instead of being inflated again: mixamo.fbx's 315 KeyTime arrays are 3
 * distinct streams, and 1.6 of its 5.3 MB of inflated arrays repeat.
 */
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h>

#include "formats/fbx_parse_internal.h"

#define HEADER_SIZE 27

typedef struct bin {
    fbxp_ctx *c;
    int wide;                    /* 64-bit record headers (7500 on) */
    size_t head;                 /* record header bytes before the name */
    int swap;                    /* the file's byte order is not the host's */
    int big;                     /* the file is big-endian (Maya can write that) */
    struct libdeflate_decompressor *z;  /* made at the first compressed array */
    struct seen *seen;           /* the inflated arrays by their stored bytes (open addressing) */
    size_t seen_cap, seen_count;
} bin;

/* An inflated array: its stored (deflated) bytes and what they gave. */
typedef struct seen {
    uint64_t hash;               /* of the stored bytes; 0: an empty slot */
    const uint8_t *src;
    uint32_t clen, count;
    char type;
    const void *array;
} seen;

static inline uint64_t hash_word(uint64_t h, const uint8_t *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    return h ^ (h >> 32);
}

/* FNV-style mixing of 8 bytes at a time, of the whole of a short array's
 * stored bytes and of a sample of a long one's (its first and last 64
 * bytes and 32 words between): equal bytes give equal hashes, and
 * seen_find compares the bytes themselves, so the sample only has to tell
 * most arrays apart (hashing all of mixamo.fbx's 2.5 MB was 1% of its
 * load; its Vertices and Normals never repeat). Never 0 (the empty slot). */
enum { HASH_WHOLE = 512, HASH_BETWEEN = 32 };
static uint64_t stored_hash(const uint8_t *p, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    size_t i = 0;
    if (n <= HASH_WHOLE) {
        for (; i + 8 <= n; i += 8) h = hash_word(h, p + i);
        for (; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    } else {
        for (i = 0; i < 64; i += 8) h = hash_word(h, p + i);
        for (int k = 0; k < HASH_BETWEEN; k++) h = hash_word(h, p + 64 + (n - 136) * (size_t)k / HASH_BETWEEN);
        for (i = n - 64; i < n; i += 8) h = hash_word(h, p + i);
    }
    h ^= h >> 29;
    return h ? h : 1;
}

/* The array inflated before from the same stored bytes, type and count, or
 * NULL. Arrays whose samples agree but whose bytes differ are compared a
 * few times at most (SEEN_TRIES), then inflated and not remembered
 * (*crowded), so that a file of many such arrays costs no more than one
 * of distinct arrays. */
enum { SEEN_TRIES = 4 };
static const void *seen_find(const bin *b, uint64_t h, const uint8_t *src, uint32_t clen, uint32_t count, char type,
                             int *crowded)
{
    *crowded = 0;
    if (!b->seen_cap) return NULL;
    int tries = 0;
    for (size_t i = h & (b->seen_cap - 1);; i = (i + 1) & (b->seen_cap - 1)) {
        const seen *e = &b->seen[i];
        if (!e->hash) return NULL;
        if (e->hash == h && e->clen == clen && e->count == count && e->type == type) {
            if (!memcmp(e->src, src, clen)) return e->array;
            if (++tries >= SEEN_TRIES) {
                *crowded = 1;
                return NULL;
            }
        }
    }
}

/* Remembers an inflated array (without memory: not remembered, inflated again next time). */
static void seen_add(bin *b, uint64_t h, const uint8_t *src, uint32_t clen, uint32_t count, char type, const void *array)
{
    if ((b->seen_count + 1) * 2 > b->seen_cap) {
        size_t cap = b->seen_cap ? b->seen_cap * 2 : 256;
        seen *g = calloc(cap, sizeof *g);
        if (!g) return;
        for (size_t k = 0; k < b->seen_cap; k++) {
            const seen *e = &b->seen[k];
            if (!e->hash) continue;
            size_t i = e->hash & (cap - 1);
            while (g[i].hash) i = (i + 1) & (cap - 1);
            g[i] = *e;
        }
        free(b->seen);
        b->seen = g;
        b->seen_cap = cap;
    }
    size_t i = h & (b->seen_cap - 1);
    while (b->seen[i].hash) i = (i + 1) & (b->seen_cap - 1);
    b->seen[i] = (seen){h, src, clen, count, type, array};
    b->seen_count++;
}

static uint32_t rd32(const bin *b, uint64_t at)
{
    const uint8_t *p = b->c->data + at;
    return b->big ? (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24
                  : fbxp_u32(p);
}

static uint64_t rd64(const bin *b, uint64_t at)
{
    return b->big ? (uint64_t)rd32(b, at) << 32 | rd32(b, at + 4) : fbxp_u64(b->c->data + at);
}

/* Reverses the bytes of each es-byte element of a[0..bytes). */
static void swap_elements(void *a, uint64_t bytes, size_t es)
{
    uint8_t *s = a;
    for (uint64_t k = 0; es > 1 && k < bytes; k += es)
        for (size_t i = 0; i < es / 2; i++) {
            uint8_t tmp = s[k + i];
            s[k + i] = s[k + es - 1 - i];
            s[k + es - 1 - i] = tmp;
        }
}

static const char *type_name(char t)
{
    switch (t) {
    case 'b': return "bool array";
    case 'i': return "int32 array";
    case 'l': return "int64 array";
    case 'f': return "float array";
    case 'd': return "double array";
    default: return "array";
    }
}

/* Array property of element size es at data[p..end): *p moves past it. */
static mr_status read_array(bin *b, mr_fbx_prop *prop, char t, size_t es, uint64_t *p, uint64_t end,
                            uint32_t index, int skip)
{
    fbxp_ctx *c = b->c;
    const uint8_t *d = c->data;
    uint64_t at = *p;
    if (end - *p < 12)
        return fbxp_fail(c, MR_ERR_BAD_FILE, at, "property %u (%s): expected a 12-byte array header, %llu bytes left",
                         index, type_name(t), (unsigned long long)(end - *p));
    uint32_t count = rd32(b, *p), enc = rd32(b, *p + 4), clen = rd32(b, *p + 8);
    *p += 12;
    if (clen > end - *p)
        return fbxp_fail(c, MR_ERR_BAD_FILE, at,
                         "property %u (%s): expected %u stored bytes, the record holds %llu more",
                         index, type_name(t), clen, (unsigned long long)(end - *p));
    uint64_t bytes = (uint64_t)count * es;
    prop->count = count;
    if (enc == 0) {
        if (bytes != clen)
            return fbxp_fail(c, MR_ERR_BAD_FILE, at,
                             "property %u (%s): array length mismatch: expected %llu bytes for %u elements, %u are stored",
                             index, type_name(t), (unsigned long long)bytes, count, clen);
        void *a = fbxp_alloc(c->arena, (size_t)bytes);
        if (!a) return fbxp_fail(c, MR_ERR_NO_MEMORY, at, "out of memory for %u elements", count);
        if (bytes) memcpy(a, d + *p, (size_t)bytes);
        prop->v.array = a;
    } else if (enc == 1) {
        if (bytes > c->inflate_budget - c->inflated)
            return fbxp_fail(c, MR_ERR_LIMIT, at,
                             "property %u (%s): %u elements would inflate the file's arrays to %llu bytes: expected "
                             "at most %llu for a file of %zu bytes (%d times its size, plus 1 MiB)",
                             index, type_name(t), count, (unsigned long long)(c->inflated + bytes),
                             (unsigned long long)c->inflate_budget, c->size, MR_FBX_MAX_INFLATE_RATIO);
        c->inflated += bytes;
        if (bytes) {
            /* The zlib wrapper's 2-byte header is checked here and its
             * Adler-32 trailer left unread: raw inflate skips a checksum
             * that cost a tenth of the parse, and the decoded size is
             * checked exactly below. */
            const uint8_t *zh = d + *p;
            if (clen < 2 || (zh[0] & 0x0f) != 8 || (zh[0] >> 4) > 7 || (zh[1] & 0x20) || (zh[0] << 8 | zh[1]) % 31)
                return fbxp_fail(c, MR_ERR_BAD_FILE, at, "property %u (%s): expected a zlib stream header, found %s",
                                 index, type_name(t), clen < 2 ? "fewer than 2 bytes" : "other bytes");
        }
        if (skip) {  /* a record the caller never reads (mr_fbx_parse_skipping) */
            prop->v.array = NULL;
            *p += clen;
            return MR_OK;
        }
        uint64_t h = bytes ? stored_hash(d + *p, clen) : 0;
        int crowded = 0;
        const void *same = bytes ? seen_find(b, h, d + *p, clen, count, t, &crowded) : NULL;
        if (same) {  /* inflated (and byte-swapped) before: shared, the arena owns it */
            prop->v.array = same;
            *p += clen;
            return MR_OK;
        }
        void *a = fbxp_alloc(c->arena, (size_t)bytes);
        if (!a) return fbxp_fail(c, MR_ERR_NO_MEMORY, at, "out of memory for %u elements", count);
        prop->v.array = a;
        if (bytes) {
            if (!b->z && !(b->z = libdeflate_alloc_decompressor()))
                return fbxp_fail(c, MR_ERR_NO_MEMORY, at, "out of memory for the inflater");
            /* libdeflate (2-3x zlib's inflate): the decoded size is known
             * exactly, so the output buffer is the array itself */
            size_t got = 0;
            enum libdeflate_result zs =
                libdeflate_deflate_decompress_ex(b->z, d + *p + 2, clen - 2, a, (size_t)bytes, NULL, &got);
            if (zs != LIBDEFLATE_SUCCESS || got != bytes) {
                if (zs == LIBDEFLATE_INSUFFICIENT_SPACE)
                    return fbxp_fail(c, MR_ERR_BAD_FILE, at,
                                     "property %u (%s): array length mismatch: expected %u elements, the "
                                     "deflated data holds more",
                                     index, type_name(t), count);
                if (zs == LIBDEFLATE_SUCCESS)
                    return fbxp_fail(c, MR_ERR_BAD_FILE, at,
                                     "property %u (%s): array length mismatch: expected %llu bytes for %u elements, "
                                     "the deflated data holds %zu",
                                     index, type_name(t), (unsigned long long)bytes, count, got);
                return fbxp_fail(c, MR_ERR_BAD_FILE, at, "property %u (%s): expected deflate data, found invalid or truncated data",
                                 index, type_name(t));
            }
            if (b->swap) swap_elements(a, bytes, es);
            if (!crowded) seen_add(b, h, d + *p, clen, count, t, a);
            *p += clen;
            return MR_OK;
        }
    } else {
        return fbxp_fail(c, MR_ERR_BAD_FILE, at, "property %u (%s): expected encoding 0 or 1, found %u", index,
                         type_name(t), enc);
    }
    if (b->swap) swap_elements((void *)prop->v.array, bytes, es);
    *p += clen;
    return MR_OK;
}

/* The properties of the record at `at`, in data[p..end). */
static mr_status read_props(bin *b, mr_fbx_node *node, uint64_t n, uint64_t p, uint64_t end, uint64_t at)
{
    fbxp_ctx *c = b->c;
    const uint8_t *d = c->data;
    uint64_t start = p;
    if (n == 0) return end == p ? MR_OK
                                : fbxp_fail(c, MR_ERR_BAD_FILE, at, "expected no property bytes for 0 properties, found %llu",
                                            (unsigned long long)(end - p));
    if (n > (end - p) / 2)
        return fbxp_fail(c, MR_ERR_BAD_FILE, at, "expected at most %llu properties in %llu bytes, found a count of %llu",
                         (unsigned long long)((end - p) / 2), (unsigned long long)(end - p), (unsigned long long)n);
    mr_fbx_prop *props = fbxp_alloc(c->arena, (size_t)n * sizeof *props);
    if (!props) return fbxp_fail(c, MR_ERR_NO_MEMORY, at, "out of memory for %llu properties", (unsigned long long)n);
    int skip = 0;   /* a record whose deflated arrays stay undecoded */
    for (const char *const *k = c->skip; k && *k && !skip; k++) skip = !strcmp(*k, node->name);
    node->props = props;   /* prop_count grows as they are read: a message may show the first ones */
    for (uint32_t i = 0; i < n; i++) {
        mr_fbx_prop *pr = &props[i];
        uint64_t pat = p;
        if (p >= end)
            return fbxp_fail(c, MR_ERR_BAD_FILE, pat, "property %u: expected a type code, the property list ended", i);
        char t = (char)d[p++];
        size_t need = 0;
        switch (t) {
        case 'C': case 'B': case 'Z': need = 1; break;
        case 'Y': need = 2; break;
        case 'I': case 'F': need = 4; break;
        case 'L': case 'D': need = 8; break;
        case 'S': case 'R': need = 4; break;
        case 'b': case 'c': case 'i': case 'l': case 'f': case 'd': break;
        default:
            return fbxp_fail(c, MR_ERR_BAD_FILE, pat,
                             "property %u: expected a type code (C Y I L F D S R b i l f d), found 0x%02x", i,
                             (unsigned)(uint8_t)t);
        }
        if (end - p < need)
            return fbxp_fail(c, MR_ERR_BAD_FILE, pat, "property %u ('%c'): truncated: expected %zu bytes, %llu left", i,
                             t, need, (unsigned long long)(end - p));
        mr_status st = MR_OK;
        switch (t) {
        case 'C': pr->type = 'C'; pr->v.i = d[p];  /* the raw byte: 0/1 for booleans, a letter for Pre/Post-Extrapolation's Type */ break;
        case 'B': case 'Z': pr->type = 'I'; pr->v.i = d[p]; break;
        case 'Y':
            pr->type = 'Y';
            pr->v.i = (int16_t)(uint16_t)(b->big ? d[p] << 8 | d[p + 1] : d[p] | d[p + 1] << 8);
            break;
        case 'I': pr->type = 'I'; pr->v.i = (int32_t)rd32(b, p); break;
        case 'L': pr->type = 'L'; pr->v.i = (int64_t)rd64(b, p); break;
        case 'F': {
            uint32_t u = rd32(b, p);
            float f;
            memcpy(&f, &u, 4);
            pr->type = 'F';
            pr->v.f = f;
            break;
        }
        case 'D': {
            uint64_t u = rd64(b, p);
            memcpy(&pr->v.f, &u, 8);
            pr->type = 'D';
            break;
        }
        case 'S': case 'R': {
            uint32_t len = rd32(b, p);
            if (len > end - p - 4)
                return fbxp_fail(c, MR_ERR_BAD_FILE, pat,
                                 "property %u ('%c'): expected %u bytes of data, the property list holds %llu", i, t,
                                 len, (unsigned long long)(end - p - 4));
            pr->type = t;
            pr->count = len;
            pr->v.s = fbxp_strdup(c->arena, (const char *)d + p + 4, len);
            if (!pr->v.s) return fbxp_fail(c, MR_ERR_NO_MEMORY, pat, "out of memory for a string of %u bytes", len);
            need = 4 + (size_t)len;
            break;
        }
        case 'b': case 'c': pr->type = 'b'; st = read_array(b, pr, 'b', 1, &p, end, i, skip); break;
        case 'i': pr->type = 'i'; st = read_array(b, pr, 'i', 4, &p, end, i, skip); break;
        case 'l': pr->type = 'l'; st = read_array(b, pr, 'l', 8, &p, end, i, skip); break;
        case 'f': pr->type = 'f'; st = read_array(b, pr, 'f', 4, &p, end, i, skip); break;
        case 'd': pr->type = 'd'; st = read_array(b, pr, 'd', 8, &p, end, i, skip); break;
        }
        if (st != MR_OK) return st;
        p += need;
        node->prop_count = i + 1;
    }
    if (p != end)
        return fbxp_fail(c, MR_ERR_BAD_FILE, at, "expected the %llu properties to fill %llu bytes, they take %llu",
                         (unsigned long long)n, (unsigned long long)(end - start),
                         (unsigned long long)(p - start));
    return MR_OK;
}

/* The records in data[*pos..end) (a parent's nested list, or the file's top
 * level), up to and including a null record; their nodes become the
 * arena array *children. *pos moves past what was read. */
static mr_status read_list(bin *b, uint64_t *pos, uint64_t end, int top, const mr_fbx_node **children,
                           uint32_t *count)
{
    fbxp_ctx *c = b->c;
    const uint8_t *d = c->data;
    size_t base = c->node_count;
    uint64_t p = *pos;
    while (p < end) {
        uint64_t at = p;
        if (end - p < b->head + 1) {
            if (top) break;   /* a file cut after its last record: what came is whole */
            return fbxp_fail(c, MR_ERR_BAD_FILE, at, "truncated record: expected a %zu-byte record header, %llu bytes left",
                             b->head + 1, (unsigned long long)(end - p));
        }
        uint64_t rend, nprops, plen;
        if (b->wide) {
            rend = rd64(b, p);
            nprops = rd64(b, p + 8);
            plen = rd64(b, p + 16);
        } else {
            rend = rd32(b, p);
            nprops = rd32(b, p + 4);
            plen = rd32(b, p + 8);
        }
        uint8_t nlen = d[p + b->head];
        if (rend == 0 && nlen == 0) {
            p += b->head + 1;   /* the null record */
            break;
        }
        p += b->head + 1;
        if (rend == 0 && end - p >= nlen && end - p - nlen >= plen)
            rend = p + nlen + plen;   /* some writers leave the end of a record without children 0 */
        if (rend > c->size)
            return fbxp_fail(c, MR_ERR_BAD_FILE, at,
                             "truncated record: expected its end (byte %llu) inside the file (%zu bytes)",
                             (unsigned long long)rend, c->size);
        if (rend > end)
            return fbxp_fail(c, MR_ERR_BAD_FILE, at, "record end offset %llu is past its parent's end: expected at most %llu",
                             (unsigned long long)rend, (unsigned long long)end);
        if (rend < p || rend - p < nlen || rend - p - nlen < plen)
            return fbxp_fail(c, MR_ERR_BAD_FILE, at,
                             "record end offset %llu is before the end of its name and %llu property bytes: "
                             "expected at least %llu",
                             (unsigned long long)rend, (unsigned long long)plen,
                             (unsigned long long)(p + nlen + plen < p ? UINT64_MAX : p + nlen + plen));
        if (nprops > UINT32_MAX)
            return fbxp_fail(c, MR_ERR_BAD_FILE, at, "expected fewer than 2^32 properties, found %llu",
                             (unsigned long long)nprops);
        size_t idx = fbxp_push_node(c, at);
        if (idx == SIZE_MAX) return MR_ERR_NO_MEMORY;
        const char *name = fbxp_strdup(c->arena, (const char *)d + p, nlen);
        if (!name) return fbxp_fail(c, MR_ERR_NO_MEMORY, at, "out of memory");
        c->nodes[idx].name = name;
        p += nlen;
        c->open[c->depth++] = idx;   /* open[] has room for one past the limit, for this message */
        if (c->depth > MR_FBX_MAX_DEPTH)
            return fbxp_fail(c, MR_ERR_LIMIT, at, "nesting deeper than %d records: expected at most %d levels",
                             MR_FBX_MAX_DEPTH, MR_FBX_MAX_DEPTH);
        mr_status st = read_props(b, &c->nodes[idx], nprops, p, p + plen, at);
        if (st != MR_OK) return st;
        p += plen;
        if (p < rend) {
            const mr_fbx_node *ch;
            uint32_t n;
            uint64_t q = p;
            st = read_list(b, &q, rend, 0, &ch, &n);
            if (st != MR_OK) return st;
            c->nodes[idx].children = ch;
            c->nodes[idx].child_count = n;
        }
        c->depth--;
        p = rend;
    }
    *pos = p;
    return fbxp_close_list(c, base, children, count, p);
}

mr_status fbxp_parse_binary(fbxp_ctx *c)
{
    if (c->size < HEADER_SIZE)
        return fbxp_fail(c, MR_ERR_BAD_FILE, c->size, "truncated header: expected %d bytes, found %zu", HEADER_SIZE,
                         c->size);
    bin b = {.c = c};
    b.big = c->data[22] != 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    b.swap = !b.big;
#else
    b.swap = b.big;
#endif
    c->doc->version = rd32(&b, 23);
    b.wide = c->doc->version >= 7500;
    b.head = b.wide ? 24 : 12;
    uint64_t pos = HEADER_SIZE;
    mr_status st = read_list(&b, &pos, c->size, 1, &c->doc->root.children, &c->doc->root.child_count);
    if (b.z) libdeflate_free_decompressor(b.z);
    free(b.seen);
    return st;
}
