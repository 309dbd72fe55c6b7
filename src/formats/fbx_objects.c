/* fbx_objects.c — the FBX document's objects, connections and properties.
 *
 * 7.x: `Objects/Class: id, "Name\0\1Class", "Type"` (ASCII: "Class::Name"),
 * `Connections/C: "OO"|"OP", child, parent[, "prop"]`, id 0 the scene root.
 * 5.8/6.x: `Objects/Class: "Class::Name", "Type"`, `Connections/Connect:
 * "OO", "Class::Child", "Class::Parent"`, "Model::Scene" the root: an
 * object's id is then a 64-bit hash of its full name. Properties are
 * `Properties70/P: name, type, label, flags, values...` (7.x) or
 * `Properties60/Property: name, type, flags, values...`, an object's own
 * first, then its class's PropertyTemplate from Definitions.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "formats/fbx_internal.h"

static uint64_t hash_name(const char *p, size_t n);

mr_status fbx_fail(fbx_scene *s, const mr_fbx_node *at, const char *fmt, ...)
{
    char path[256], what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (at) mr_fbx_node_path(at, path, sizeof path);
    if (!at || !path[0]) return mr_error_set(s->err, MR_ERR_BAD_FILE, "fbx: %s: %s", s->path, what);
    return mr_error_set(s->err, MR_ERR_BAD_FILE, "fbx: %s: %s: %s", s->path, path, what);
}

char *fbx_keep(fbx_scene *s, char *str)
{
    if (!str) return NULL;
    size_t cap = (size_t)s->owned_cap;
    if (mr_alloc_reserve((void **)&s->owned, &cap, (size_t)s->owned_count + 1, sizeof *s->owned) != MR_OK) {
        free(str);
        return NULL;
    }
    s->owned_cap = (int)cap;
    s->owned[s->owned_count++] = str;
    return str;
}

int64_t fbx_name_id(const char *p, size_t n)
{
    return (int64_t)hash_name(p, n);
}

static uint64_t hash_name(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)p[i]) * 1099511628211ull;
    return h | 1ull << 62;  /* never 0, never negative */
}

/* "Name\0\1Class" -> Name; "Class::Name" -> Name. */
static char *display_name(const char *str, uint32_t len)
{
    for (uint32_t i = 0; i + 1 < len; i++)
        if (str[i] == 0 && str[i + 1] == 1) return mr_str_ndup(str, i);
    size_t n = strnlen(str, len);
    for (size_t i = 0; i + 1 < n; i++)
        if (str[i] == ':' && str[i + 1] == ':') return mr_str_ndup(str + i + 2, n - i - 2);
    return mr_str_ndup(str, n);
}

static const fbx_scene *sort_scene;
static int cmp_id(const void *a, const void *b)
{
    int64_t x = sort_scene->objs[*(const int *)a].id, y = sort_scene->objs[*(const int *)b].id;
    return x < y ? -1 : x > y;
}
static int cmp_parent(const void *a, const void *b)
{
    int ia = *(const int *)a, ib = *(const int *)b;
    int x = sort_scene->conns[ia].parent, y = sort_scene->conns[ib].parent;
    return x != y ? (x < y ? -1 : 1) : (ia < ib ? -1 : ia > ib);
}
static int cmp_child(const void *a, const void *b)
{
    int ia = *(const int *)a, ib = *(const int *)b;
    int x = sort_scene->conns[ia].child, y = sort_scene->conns[ib].child;
    return x != y ? (x < y ? -1 : 1) : (ia < ib ? -1 : ia > ib);
}

static void sort_conns(fbx_scene *s)
{
    sort_scene = s;
    qsort(s->conn_by_parent, (size_t)s->conn_count, sizeof(int), cmp_parent);
    qsort(s->conn_by_child, (size_t)s->conn_count, sizeof(int), cmp_child);
}

int fbx_find(const fbx_scene *s, int64_t id)
{
    int lo = 0, hi = s->obj_count - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int64_t v = s->objs[s->by_id[mid]].id;
        if (v == id) return s->by_id[mid];
        if (v < id) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* The id a connection names: 7.x an integer, 6.x a "Class::Name" string. */
static int conn_end(fbx_scene *s, const mr_fbx_node *c, uint32_t i, int *ok)
{
    *ok = 1;
    if (i >= c->prop_count) {
        *ok = 0;
        return -1;
    }
    const mr_fbx_prop *p = &c->props[i];
    if (p->type == 'S') {
        if (!strcmp(p->v.s, "Model::Scene") || !p->count) return -1;
        return fbx_find(s, (int64_t)hash_name(p->v.s, p->count));
    }
    int64_t id = mr_fbx_prop_int(c, i);
    if (id == 0) return -1;
    int k = fbx_find(s, id);
    if (k < 0) *ok = 0;
    return k;
}

mr_status fbx_index(fbx_scene *s)
{
    const mr_fbx_node *objects = mr_fbx_child(&s->doc->root, "Objects");
    if (!objects && mr_fbx_child(&s->doc->root, "Model")) {
        sort_scene = s;
        return fbx_index_legacy(s, cmp_id, sort_conns);
    }
    if (!objects) return fbx_fail(s, &s->doc->root, "expected an Objects section");
    s->objs = mr_alloc_array(objects->child_count + 1u, sizeof *s->objs);
    if (!s->objs) return mr_error_set(s->err, MR_ERR_NO_MEMORY, "fbx: %s: out of memory", s->path);
    for (uint32_t i = 0; i < objects->child_count; i++) {
        const mr_fbx_node *n = &objects->children[i];
        fbx_obj *o = &s->objs[s->obj_count];
        o->node = n;
        o->cls = n->name;
        if (n->prop_count >= 1 && n->props[0].type == 'S') {  /* 6.x */
            s->v6 = 1;
            if (!strcmp(n->name, "GlobalSettings")) continue;
            o->id = (int64_t)hash_name(n->props[0].v.s, n->props[0].count);
            o->name = fbx_keep(s, display_name(n->props[0].v.s, n->props[0].count));
            o->sub = n->prop_count >= 2 && n->props[1].type == 'S' ? n->props[1].v.s : "";
        } else if (n->prop_count >= 2 && n->props[1].type == 'S') {
            o->id = mr_fbx_prop_int(n, 0);
            o->name = fbx_keep(s, display_name(n->props[1].v.s, n->props[1].count));
            o->sub = n->prop_count >= 3 && n->props[2].type == 'S' ? n->props[2].v.s : "";
        } else {
            continue;  /* not an object (e.g. a 6.x settings record) */
        }
        if (!o->name) return mr_error_set(s->err, MR_ERR_NO_MEMORY, "fbx: %s: out of memory", s->path);
        s->obj_count++;
    }
    s->by_id = mr_alloc_array((size_t)s->obj_count + 1, sizeof *s->by_id);
    if (!s->by_id) return mr_error_set(s->err, MR_ERR_NO_MEMORY, "fbx: %s: out of memory", s->path);
    for (int i = 0; i < s->obj_count; i++) s->by_id[i] = i;
    sort_scene = s;
    qsort(s->by_id, (size_t)s->obj_count, sizeof *s->by_id, cmp_id);
    const mr_fbx_node *conns = mr_fbx_child(&s->doc->root, "Connections");
    uint32_t nc = conns ? conns->child_count : 0;
    s->conns = mr_alloc_array(nc + 1u, sizeof *s->conns);
    s->conn_by_parent = mr_alloc_array(nc + 1u, sizeof(int));
    s->conn_by_child = mr_alloc_array(nc + 1u, sizeof(int));
    if (!s->conns || !s->conn_by_parent || !s->conn_by_child)
        return mr_error_set(s->err, MR_ERR_NO_MEMORY, "fbx: %s: out of memory", s->path);
    for (uint32_t i = 0; i < nc; i++) {
        const mr_fbx_node *c = &conns->children[i];
        if (strcmp(c->name, "C") && strcmp(c->name, "Connect")) continue;
        uint32_t kl;
        const char *kind = mr_fbx_prop_string(c, 0, &kl);
        if (!kind || kl != 2 || kind[0] != 'O') continue;  /* OO and OP only */
        int ok1, ok2;
        int child = conn_end(s, c, 1, &ok1), parent = conn_end(s, c, 2, &ok2);
        if (!ok1 || !ok2 || child < 0) continue;  /* to an object that is not there: ignored */
        fbx_conn *fc = &s->conns[s->conn_count];
        fc->child = child;
        fc->parent = parent;
        fc->prop = kind[1] == 'P' ? mr_fbx_prop_string(c, 3, NULL) : NULL;
        s->conn_by_parent[s->conn_count] = s->conn_count;
        s->conn_by_child[s->conn_count] = s->conn_count;
        s->conn_count++;
    }
    qsort(s->conn_by_parent, (size_t)s->conn_count, sizeof(int), cmp_parent);
    qsort(s->conn_by_child, (size_t)s->conn_count, sizeof(int), cmp_child);
    return MR_OK;
}

void fbx_scene_free(fbx_scene *s)
{
    for (int i = 0; i < s->owned_count; i++) free(s->owned[i]);
    free(s->owned);
    free(s->objs);
    free(s->by_id);
    free(s->conns);
    free(s->conn_by_parent);
    free(s->conn_by_child);
    free(s->node_obj);
    free(s->obj_joint);
    free(s->fbx_parent);
    free(s->scale_from);
    free(s->unscaled);
    free(s->acc_scale);
    free(s->xf);
    free(s->rest_world);
    free(s->anim);
    free(s->blends);
    for (int i = 0; i < s->mcache_count; i++) free(s->mcaches[i].times);
    free(s->mcaches);
}

static int range(const fbx_scene *s, const int *idx, int obj, int by_parent, int *first)
{
    int lo = 0, hi = s->conn_count;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        const fbx_conn *c = &s->conns[idx[mid]];
        int v = by_parent ? c->parent : c->child;
        if (v < obj) lo = mid + 1;
        else hi = mid;
    }
    int end = lo;
    while (end < s->conn_count) {
        const fbx_conn *c = &s->conns[idx[end]];
        if ((by_parent ? c->parent : c->child) != obj) break;
        end++;
    }
    *first = lo;
    return end - lo;
}

int fbx_children(const fbx_scene *s, int obj, int *first)
{
    return range(s, s->conn_by_parent, obj, 1, first);
}

int fbx_parents(const fbx_scene *s, int obj, int *first)
{
    return range(s, s->conn_by_child, obj, 0, first);
}

int fbx_linked(const fbx_scene *s, int obj, int child, const char *cls, const char *sub)
{
    int first, n = child ? fbx_children(s, obj, &first) : fbx_parents(s, obj, &first);
    const int *idx = child ? s->conn_by_parent : s->conn_by_child;
    for (int k = 0; k < n; k++) {
        const fbx_conn *c = &s->conns[idx[first + k]];
        int o = child ? c->child : c->parent;
        if (o < 0) continue;
        if (cls && strcmp(s->objs[o].cls, cls)) continue;
        if (sub && strcmp(s->objs[o].sub, sub)) continue;
        return o;
    }
    return -1;
}

static const mr_fbx_node *props_of(const mr_fbx_node *n)
{
    const mr_fbx_node *p = mr_fbx_child(n, "Properties70");
    return p ? p : mr_fbx_child(n, "Properties60");
}

const mr_fbx_node *fbx_node_prop(const mr_fbx_node *props, const char *name, uint32_t *first)
{
    if (!props) return NULL;
    uint32_t skip = !strcmp(props->name, "Properties70") ? 4 : 3;
    for (uint32_t i = 0; i < props->child_count; i++) {
        const mr_fbx_node *p = &props->children[i];
        const char *pn = mr_fbx_prop_string(p, 0, NULL);
        if (pn && !strcmp(pn, name)) {
            if (first) *first = skip;
            return p;
        }
    }
    return NULL;
}

double fbx_node_prop_num(const mr_fbx_node *props, const char *name, double def)
{
    uint32_t f;
    const mr_fbx_node *p = fbx_node_prop(props, name, &f);
    if (!p || p->prop_count <= f) return def;
    char t = p->props[f].type;
    if (t == 'S' || t == 'R' || (t >= 'a' && t <= 'z')) return def;
    return mr_fbx_prop_double(p, f);
}

static const mr_fbx_node *template_for(const fbx_scene *s, const char *cls)
{
    const mr_fbx_node *defs = mr_fbx_child(&s->doc->root, "Definitions");
    for (const mr_fbx_node *t = mr_fbx_child(defs, "ObjectType"); t; t = mr_fbx_next(t)) {
        const char *tn = mr_fbx_prop_string(t, 0, NULL);
        if (!tn || strcmp(tn, cls)) continue;
        const mr_fbx_node *pt = mr_fbx_child(t, "PropertyTemplate");
        return pt ? props_of(pt) : NULL;
    }
    return NULL;
}

const mr_fbx_node *fbx_prop(const fbx_scene *s, int obj, const char *name, uint32_t *first)
{
    const mr_fbx_node *p = fbx_node_prop(props_of(s->objs[obj].node), name, first);
    if (p) return p;
    return fbx_node_prop(template_for(s, s->objs[obj].cls), name, first);
}

double fbx_prop_num(const fbx_scene *s, int obj, const char *name, double def)
{
    uint32_t f;
    const mr_fbx_node *p = fbx_prop(s, obj, name, &f);
    if (!p || p->prop_count <= f) return def;
    char t = p->props[f].type;
    if (t == 'S' || t == 'R' || (t >= 'a' && t <= 'z')) return def;
    return mr_fbx_prop_double(p, f);
}

void fbx_prop_vec3(const fbx_scene *s, int obj, const char *name, const double def[3], double out[3])
{
    uint32_t f;
    const mr_fbx_node *p = fbx_prop(s, obj, name, &f);
    for (int k = 0; k < 3; k++) {
        out[k] = def[k];
        if (p && p->prop_count > f + (uint32_t)k) {
            char t = p->props[f + k].type;
            if (t != 'S' && t != 'R' && !(t >= 'a' && t <= 'z')) out[k] = mr_fbx_prop_double(p, f + (uint32_t)k);
        }
    }
}

const char *fbx_prop_str(const fbx_scene *s, int obj, const char *name)
{
    uint32_t f;
    const mr_fbx_node *p = fbx_prop(s, obj, name, &f);
    return p ? mr_fbx_prop_string(p, f, NULL) : NULL;
}

mr_status fbx_array_d(fbx_scene *s, const mr_fbx_node *n, const char *child, const double **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    const mr_fbx_node *c = mr_fbx_child(n, child);
    if (!c) return MR_OK;
    return mr_fbx_doubles(s->doc, c, out, count, s->err);
}

mr_status fbx_array_i(fbx_scene *s, const mr_fbx_node *n, const char *child, const int64_t **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    const mr_fbx_node *c = mr_fbx_child(n, child);
    if (!c) return MR_OK;
    return mr_fbx_ints(s->doc, c, out, count, s->err);
}
