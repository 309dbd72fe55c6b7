/* fbx_parse.h — an FBX document as a read-only tree of nodes.
 *
 * Both encodings give the same tree:
 *   binary  "Kaydara FBX Binary  \0\x1a\0" + version (5000..7700): records
 *           of name, properties (C Y I L F D S R scalars; b i l f d arrays,
 *           raw or zlib-deflated) and nested records; 32-bit record headers
 *           before 7500, 64-bit from 7500 on.
 *   ASCII   "; FBX 7.4.0 project file" / 6.1 / 5.8: `Name: prop, prop {`
 *           ... `}`; 7.x arrays are `*N { a: v,v,... }`, 5.8/6.x arrays a
 *           plain comma-separated list of scalar properties.
 *
 * Ownership: mr_fbx_parse copies nothing it does not need to; the document
 * owns every node, property, string and decoded array (one arena), freed by
 * mr_fbx_doc_free. Pointers into the document stay valid until then.
 *
 * Limits (hostile files): nesting depth MR_FBX_MAX_DEPTH; every inflated
 * array's size is checked against the count it declares and the total
 * decoded bytes against MR_FBX_MAX_INFLATE_RATIO times the file's size
 * (plus a small floor); node and property counts are bounded by what the
 * bytes can hold. Every refusal is MR_ERR_BAD_FILE (or MR_ERR_LIMIT) with a
 * message "fbx: FILE: at byte N: NODE/PATH: expected ..." (ASCII: "at line
 * N"; the path is left out where no node is open).
 */
#ifndef MR_FORMATS_FBX_PARSE_H
#define MR_FORMATS_FBX_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define MR_FBX_MAX_DEPTH 64
#define MR_FBX_MAX_INFLATE_RATIO 256

/* Property types: the binary format's type codes. ASCII numbers come out
 * as 'L' (integers) or 'D' (reals), ASCII strings and bare words (T, Y)
 * as 'S', ASCII 7.x arrays as 'l' (all integers) or 'd'. Binary 'C'
 * keeps its byte; the rarer one-byte 'B' and 'Z' (Maya's audio nodes) come
 * out as 'I', and 'c' byte arrays as 'b'. */
typedef struct mr_fbx_prop {
    char type;                   /* 'C' 'Y' 'I' 'L' 'F' 'D' 'S' 'R', or arrays 'b' 'i' 'l' 'f' 'd' */
    uint32_t count;              /* array elements; string/raw bytes */
    union {
        int64_t i;               /* C Y I L (C: the raw byte: 0/1 for booleans, or a letter) */
        double f;                /* F D */
        const char *s;           /* S (NUL-terminated in the arena, may hold NULs: use count), R */
        const void *array;       /* b: uint8_t, i: int32_t, l: int64_t, f: float, d: double (native order) */
    } v;
} mr_fbx_prop;

typedef struct mr_fbx_node {
    const char *name;            /* NUL-terminated */
    const mr_fbx_prop *props;
    uint32_t prop_count;
    const struct mr_fbx_node *children;
    uint32_t child_count;
    const struct mr_fbx_node *parent;   /* NULL for the root */
    uint64_t where;              /* binary: byte offset of the record; ASCII: line number */
} mr_fbx_node;

typedef struct mr_fbx_doc {
    const char *path;            /* as given to mr_fbx_parse (copied) */
    uint32_t version;            /* 7400, 6100, ... (ASCII: from the header comment, else FBXHeaderExtension/FBXVersion) */
    int ascii;                   /* 1 for an ASCII file */
    mr_fbx_node root;            /* the top-level records are root.children; root.name is "" */
    struct mr_fbx_arena *arena;  /* private */
} mr_fbx_doc;

/* Parses data[0..size) (binary or ASCII, told apart by the magic). path is
 * for messages only. On success *out owns a new document; on failure *out is
 * NULL and err names the file, the place and what was expected. */
mr_status mr_fbx_parse(const char *path, const uint8_t *data, size_t size, mr_fbx_doc **out,
                       mr_error *err);
void mr_fbx_doc_free(mr_fbx_doc *doc);

/* mr_fbx_parse that leaves undecoded the deflated arrays of the records
 * named in skip (NULL-terminated; binary files only): their headers and
 * the inflate budget are checked as for the others, but the data is not
 * inflated, the property keeps its type and count with v.array NULL, and
 * mr_fbx_doubles/mr_fbx_ints refuse such a node (MR_ERR_BAD_FILE, "left
 * undecoded"). For a reader that never reads those records (the model
 * reader: mesh edges and normal weights); a damaged stream there goes
 * unnoticed. */
mr_status mr_fbx_parse_skipping(const char *path, const uint8_t *data, size_t size, const char *const *skip,
                                mr_fbx_doc **out, mr_error *err);

/* The first child called name, or NULL (node may be NULL). */
const mr_fbx_node *mr_fbx_child(const mr_fbx_node *node, const char *name);
/* The next sibling after `after` with the same name as it, or NULL. */
const mr_fbx_node *mr_fbx_next(const mr_fbx_node *after);

/* Scalar property i as a number / string: 0, 0.0 or NULL when it is missing
 * or of another kind (a string asked as a number, ...). Numbers convert
 * between integer and real. */
int64_t mr_fbx_prop_int(const mr_fbx_node *node, uint32_t i);
double mr_fbx_prop_double(const mr_fbx_node *node, uint32_t i);
const char *mr_fbx_prop_string(const mr_fbx_node *node, uint32_t i, uint32_t *len);

/* A node's numbers as one array, whatever the encoding: a binary or ASCII
 * 7.x array property (the node's first property), or (5.8/6.x ASCII) the
 * node's numeric scalar properties in order. *out is allocated in the
 * document's arena (valid until mr_fbx_doc_free); *count its length.
 * MR_ERR_BAD_FILE naming the node's path when a value is not a number. */
mr_status mr_fbx_doubles(const mr_fbx_doc *doc, const mr_fbx_node *node, const double **out,
                         size_t *count, mr_error *err);
mr_status mr_fbx_ints(const mr_fbx_doc *doc, const mr_fbx_node *node, const int64_t **out,
                      size_t *count, mr_error *err);

/* The node's path for messages, e.g. `Objects/Geometry "Body"/Vertices`
 * (a node shows its first property when that is a string, else its second
 * when the first is an integer id and the second a string; FBX's
 * "Name\0\1Class" and "Class::Name" names show the Name part; an empty
 * name shows nothing). Writes into buf (cut to size). */
const char *mr_fbx_node_path(const mr_fbx_node *node, char *buf, size_t size);

/* "byte N" or "line N" for node, for messages. */
const char *mr_fbx_where(const mr_fbx_doc *doc, const mr_fbx_node *node, char *buf, size_t size);

#endif
