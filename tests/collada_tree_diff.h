/* collada_tree_diff.h — compares two COLLADA document trees (cl_el,
 * src/formats/collada_internal.h) element by element: names, namespaces,
 * lines, attributes in order, text, and the id table's answers. Used by
 * test_collada_xml.c and fuzz_collada.c to hold the plain-XML parser
 * (collada_xml_scan.c) to libxml2's tree. */
#ifndef MARROW_TESTS_COLLADA_TREE_DIFF_H
#define MARROW_TESTS_COLLADA_TREE_DIFF_H

#include <stdio.h>
#include <string.h>

#include "formats/collada_internal.h"

static int cl_tree_str_eq(const char *a, const char *b)
{
    if (!a || !b) return a == b;
    return strcmp(a, b) == 0;
}

/* 0 when the trees are the same; else 1 with the first difference in why. */
static int cl_tree_diff(cl_doc *a, cl_doc *b, char *why, size_t cap)
{
    const cl_el *x = a->root, *y = b->root;
    long count = 0;
    while (x || y) {
        count++;
        if (!x || !y) {
            snprintf(why, cap, "element %ld: present in %s only", count, x ? "the first" : "the second");
            return 1;
        }
        if (!cl_tree_str_eq(x->name, y->name) || !cl_tree_str_eq(x->ns, y->ns) || x->line != y->line ||
            x->attr_count != y->attr_count || x->text_len != y->text_len ||
            memcmp(x->text, y->text, x->text_len) != 0 || x->text[x->text_len] || y->text[y->text_len]) {
            snprintf(why, cap, "element %ld <%s> line %d / <%s> line %d: name, namespace (%s / %s), line, "
                     "attribute count (%d / %d) or text (%zu / %zu bytes) differ",
                     count, x->name, x->line, y->name, y->line, x->ns ? x->ns : "none", y->ns ? y->ns : "none",
                     x->attr_count, y->attr_count, x->text_len, y->text_len);
            return 1;
        }
        for (int i = 0; i < x->attr_count; i++) {
            if (!cl_tree_str_eq(x->attrs[i].name, y->attrs[i].name) ||
                !cl_tree_str_eq(x->attrs[i].value, y->attrs[i].value)) {
                snprintf(why, cap, "element %ld <%s> line %d: attribute %d is %s=\"%.40s\" / %s=\"%.40s\"", count,
                         x->name, x->line, i, x->attrs[i].name, x->attrs[i].value, y->attrs[i].name,
                         y->attrs[i].value);
                return 1;
            }
            if (strcmp(x->attrs[i].name, "id") == 0 && x->attrs[i].value[0]) {
                const char *id = x->attrs[i].value;
                const cl_el *fx = cl_find_id(a, id, strlen(id)), *fy = cl_find_id(b, id, strlen(id));
                if (!fx || !fy || fx->line != fy->line || !cl_tree_str_eq(fx->name, fy->name)) {
                    snprintf(why, cap, "id '%.40s' finds different elements", id);
                    return 1;
                }
            }
        }
        if ((x->parent == NULL) != (y->parent == NULL)) {
            snprintf(why, cap, "element %ld <%s>: parent differs", count, x->name);
            return 1;
        }
        /* depth first, document order, in step */
        if (x->first || y->first) {
            x = x->first;
            y = y->first;
            continue;
        }
        while (x && y && !x->next && !y->next) {
            x = x->parent;
            y = y->parent;
        }
        if (!x || !y) {
            if (x || y) {
                snprintf(why, cap, "element %ld: the trees end at different places", count);
                return 1;
            }
            break;
        }
        x = x->next;
        y = y->next;
    }
    return 0;
}

#endif
