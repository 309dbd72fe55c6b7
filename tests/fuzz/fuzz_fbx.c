/* fuzz_fbx.c — libFuzzer entry point for the FBX document parser
 * (src/formats/fbx_parse.c, fbx_binary.c, fbx_ascii.c). Built and run by
 * `make fuzz` / `make fuzz-smoke` (see fuzz.h).
 *
 * fuzz-seeds: fbx
 *
 * Each input is parsed as FBX (binary or ASCII by its magic); a document
 * that parses is walked the way a scene builder reads it: every node's path
 * and place, its properties through each accessor, its numbers through
 * mr_fbx_doubles and mr_fbx_ints, its children by name (mr_fbx_child /
 * mr_fbx_next), and its parent links. A refusal must leave *out NULL and
 * give one line "fbx: fuzz.fbx: at ...: expected ...".
 */
#include "fuzz.h"
#include "formats/fbx_parse.h"

static volatile double sink;

static void walk(const mr_fbx_doc *doc, const mr_fbx_node *n, int depth)
{
    char buf[512];
    mr_error err;
    if (depth > MR_FBX_MAX_DEPTH + 1) abort();   /* the parser bounds nesting */
    mr_fbx_node_path(n, buf, sizeof buf);
    mr_fbx_where(doc, n, buf, sizeof buf);
    for (uint32_t i = 0; i <= n->prop_count; i++) {
        uint32_t len;
        const char *s = mr_fbx_prop_string(n, i, &len);
        if (s && s[len] != 0) abort();   /* strings are NUL-terminated */
        mr_fbx_prop_int(n, i);
        mr_fbx_prop_double(n, i);
    }
    const double *d;
    const int64_t *iv;
    size_t count;
    mr_status st = mr_fbx_doubles(doc, n, &d, &count, &err);
    if (st == MR_OK) {
        for (size_t k = 0; k < count; k++) sink += d[k];   /* every element readable (ASan) */
    } else if (st != MR_ERR_NO_MEMORY && (strncmp(err.msg, "fbx: fuzz.fbx: at ", 18) != 0 || strchr(err.msg, '\n'))) {
        abort();
    }
    st = mr_fbx_ints(doc, n, &iv, &count, &err);
    if (st == MR_OK) {
        for (size_t k = 0; k < count; k++) sink += (double)iv[k];
    }
    for (uint32_t i = 0; i < n->child_count; i++) {
        const mr_fbx_node *c = &n->children[i];
        if (c->parent != n || !c->name) abort();
        /* the first of c's name, then each next one, end at a node of that name */
        const mr_fbx_node *first = mr_fbx_child(n, c->name);
        if (!first || first > c || strcmp(first->name, c->name) != 0) abort();
        const mr_fbx_node *next = mr_fbx_next(c);
        if (next && (next <= c || strcmp(next->name, c->name) != 0)) abort();
        walk(doc, c, depth + 1);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mr_fbx_doc *doc = NULL;
    mr_error err;
    mr_status st = mr_fbx_parse("fuzz.fbx", data, size, &doc, &err);
    if (st == MR_OK) {
        if (!doc || doc->root.parent) abort();
        walk(doc, &doc->root, 0);
        mr_fbx_doc_free(doc);
    } else if (doc) {
        abort();   /* failures leave *out NULL */
    } else if (st != MR_ERR_NO_MEMORY &&
               (strncmp(err.msg, "fbx: fuzz.fbx: at ", 18) != 0 || strchr(err.msg, '\n') ||
                !strstr(err.msg, ": expected "))) {
        abort();   /* every refusal is one line naming the file, the place and what was expected */
    }
    return 0;
}
