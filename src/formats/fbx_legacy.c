/* fbx_legacy.c — the FBX 5.x layout (5000, 5800) as the 6.x scene objects.
 *
 * Before FBX 6 a file keeps no Objects or Connections section: every
 * `Model: "Model::Name"` (5000 binary: "Name") sits at the top level with
 * its geometry inside (Vertices, PolygonVertexIndex, Shape children as in
 * 6.x), its children named by `Children: "Model::A", ...`, its skin as
 * `Link: "Model::Bone" { Indexes, Weights, Transform, TransformLink }`
 * children (one cluster each), and no Properties60: its transform is the
 * Default of its own `Channel: "Transform" { Channel: "T" { Channel: "X"
 * {Default}}}` channels, else of the current take's channels for it.
 * Takes are 6.x's. fbx_index_legacy makes the same fbx_obj / fbx_conn
 * records 6.x gives (a model's id is the hash of its bare name; a skin and
 * its clusters get ids of their own), so the rest of the reader is shared.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "formats/fbx_internal.h"

/* "Model::Name" -> "Name" (the 5000 binary names models bare). */
static const char *bare(const char *name)
{
    const char *c = strstr(name, "::");
    return c ? c + 2 : name;
}

static int64_t name_id(const char *name)
{
    name = bare(name);
    return fbx_name_id(name, strlen(name));
}

static mr_status oom(fbx_scene *s)
{
    return mr_error_set(s->err, MR_ERR_NO_MEMORY, "fbx: %s: out of memory", s->path);
}

static fbx_obj *add_obj(fbx_scene *s, const mr_fbx_node *n, const char *cls, const char *name, const char *sub, int64_t id)
{
    fbx_obj *o = &s->objs[s->obj_count];
    o->node = n;
    o->cls = cls;
    o->sub = sub;
    o->id = id;
    o->name = fbx_keep(s, mr_str_dup(name));
    if (!o->name) return NULL;
    s->obj_count++;
    return o;
}

static void add_conn(fbx_scene *s, int child, int parent)
{
    if (child < 0) return;
    fbx_conn *c = &s->conns[s->conn_count];
    c->child = child;
    c->parent = parent;
    c->prop = NULL;
    s->conn_by_parent[s->conn_count] = s->conn_count;
    s->conn_by_child[s->conn_count] = s->conn_count;
    s->conn_count++;
}

static const char *model_sub(const mr_fbx_node *m)
{
    if (mr_fbx_child(m, "Vertices") && mr_fbx_child(m, "PolygonVertexIndex")) return "Mesh";
    const char *t = mr_fbx_prop_string(mr_fbx_child(m, "Type"), 0, NULL);
    return t ? t : "Null";
}

mr_status fbx_index_legacy(fbx_scene *s, int (*by_id)(const void *, const void *), void (*sort_conns)(fbx_scene *))
{
    const mr_fbx_node *root = &s->doc->root;
    s->v6 = 1;
    s->legacy = 1;
    size_t objs = 0, conns = 0;
    for (const mr_fbx_node *m = mr_fbx_child(root, "Model"); m; m = mr_fbx_next(m)) {
        objs += 2;  /* the model and a skin */
        const mr_fbx_node *ch = mr_fbx_child(m, "Children");
        conns += ch ? ch->prop_count : 0;
        objs++;  /* a blend shape deformer */
        for (uint32_t i = 0; i < m->child_count; i++) {
            if (!strcmp(m->children[i].name, "Link")) objs++, conns += 2;
            if (!strcmp(m->children[i].name, "Shape")) objs += 2, conns += 2;
        }
        conns += 3;  /* to the root, from its skin, from its blend shape deformer */
    }
    s->objs = mr_alloc_array(objs + 1, sizeof *s->objs);
    s->conns = mr_alloc_array(conns + 1, sizeof *s->conns);
    s->conn_by_parent = mr_alloc_array(conns + 1, sizeof(int));
    s->conn_by_child = mr_alloc_array(conns + 1, sizeof(int));
    if (!s->objs || !s->conns || !s->conn_by_parent || !s->conn_by_child) return oom(s);
    int models = 0;
    for (const mr_fbx_node *m = mr_fbx_child(root, "Model"); m; m = mr_fbx_next(m)) {
        const char *name = mr_fbx_prop_string(m, 0, NULL);
        if (!name) return fbx_fail(s, m, "expected the model's name");
        if (!add_obj(s, m, "Model", bare(name), model_sub(m), name_id(name))) return oom(s);
        models++;
    }
    /* skins and clusters: ids past every hash (hashes have bit 62 set) */
    int64_t next = 1;
    int model_count = s->obj_count;
    for (int i = 0; i < model_count; i++) {
        const mr_fbx_node *m = s->objs[i].node;
        int skin = -1;
        for (uint32_t k = 0; k < m->child_count; k++) {
            const mr_fbx_node *l = &m->children[k];
            if (strcmp(l->name, "Link")) continue;
            const char *bone = mr_fbx_prop_string(l, 0, NULL);
            if (!bone) return fbx_fail(s, l, "expected the linked bone's name");
            if (skin < 0) {
                skin = s->obj_count;
                if (!add_obj(s, m, "Deformer", s->objs[i].name, "Skin", next++)) return oom(s);
            }
            if (!add_obj(s, l, "SubDeformer", bare(bone), "Cluster", next++)) return oom(s);
        }
        int blend = -1;
        for (uint32_t k = 0; k < m->child_count; k++) {
            const mr_fbx_node *sh = &m->children[k];
            if (strcmp(sh->name, "Shape")) continue;
            const char *sn = mr_fbx_prop_string(sh, 0, NULL);
            if (!sn) return fbx_fail(s, sh, "expected the shape's name");
            if (blend < 0) {
                blend = s->obj_count;
                if (!add_obj(s, m, "Deformer", s->objs[i].name, "BlendShape", next++)) return oom(s);
            }
            if (!add_obj(s, sh, "Deformer", sn, "BlendShapeChannel", next++)) return oom(s);
            if (!add_obj(s, sh, "Geometry", sn, "Shape", next++)) return oom(s);
        }
    }
    s->by_id = mr_alloc_array((size_t)s->obj_count + 1, sizeof *s->by_id);
    if (!s->by_id) return oom(s);
    for (int i = 0; i < s->obj_count; i++) s->by_id[i] = i;
    qsort(s->by_id, (size_t)s->obj_count, sizeof *s->by_id, by_id);
    /* connections: children to parents, clusters to skins, bones to clusters */
    for (int i = 0; i < model_count; i++) {
        const mr_fbx_node *ch = mr_fbx_child(s->objs[i].node, "Children");
        for (uint32_t k = 0; ch && k < ch->prop_count; k++) {
            const char *cn = mr_fbx_prop_string(ch, k, NULL);
            int c = cn ? fbx_find(s, name_id(cn)) : -1;
            if (c >= 0 && c != i) add_conn(s, c, i);
        }
    }
    int owner = -1;
    for (int i = model_count; i < s->obj_count; i++) {
        const char *sub = s->objs[i].sub;
        if (!strcmp(sub, "BlendShapeChannel") || !strcmp(sub, "Shape")) {
            add_conn(s, i, !strcmp(sub, "Shape") ? i - 1 : owner);
            continue;
        }
        if (!strcmp(sub, "Skin") || !strcmp(sub, "BlendShape")) {
            for (int m = 0; m < model_count; m++)
                if (s->objs[m].node == s->objs[i].node) add_conn(s, i, m);
            owner = i;
            continue;
        }
        add_conn(s, i, owner);
        add_conn(s, fbx_find(s, name_id(s->objs[i].name)), i);
    }
    /* roots under the scene */
    for (int i = 0; i < model_count; i++) {
        int first;
        if (!fbx_parents(s, i, &first)) add_conn(s, i, -1);
    }
    (void)models;
    sort_conns(s);
    return MR_OK;
}

double fbx_legacy_deform(const fbx_scene *s, int channel)
{
    const char *name = s->objs[channel].name;
    int def = fbx_linked(s, channel, 0, "Deformer", "BlendShape");
    int model = def >= 0 ? fbx_linked(s, def, 0, "Model", NULL) : -1;
    if (model < 0) return 0;
    size_t len = strlen(name);
    for (const mr_fbx_node *ch = mr_fbx_child(s->objs[model].node, "Channel"); ch; ch = mr_fbx_next(ch)) {
        const char *cn = mr_fbx_prop_string(ch, 0, NULL);
        if (!cn || strncmp(cn, name, len) || strcmp(cn + len, " (Shape)")) continue;
        const mr_fbx_node *d = mr_fbx_child(ch, "Default");
        double v = d && d->prop_count ? mr_fbx_prop_double(d, 0) : 0;
        return v == v && v - v == 0 ? v : 0;
    }
    return 0;
}

/* The Default values of a `Channel: "Transform"` node into x. */
static int channel_defaults(const mr_fbx_node *tr, fbx_xf *x)
{
    int got = 0;
    for (const mr_fbx_node *ch = mr_fbx_child(tr, "Channel"); ch; ch = mr_fbx_next(ch)) {
        const char *cn = mr_fbx_prop_string(ch, 0, NULL);
        double *dst = !cn ? NULL : !strcmp(cn, "T") ? x->t : !strcmp(cn, "R") ? x->r : !strcmp(cn, "S") ? x->s : NULL;
        if (!dst) continue;
        for (const mr_fbx_node *ax = mr_fbx_child(ch, "Channel"); ax; ax = mr_fbx_next(ax)) {
            const char *an = mr_fbx_prop_string(ax, 0, NULL);
            int c = !an ? -1 : !strcmp(an, "X") ? 0 : !strcmp(an, "Y") ? 1 : !strcmp(an, "Z") ? 2 : -1;
            const mr_fbx_node *d = mr_fbx_child(ax, "Default");
            if (c < 0 || !d || !d->prop_count) continue;
            double v = mr_fbx_prop_double(d, 0);
            if (v == v && v - v == 0) dst[c] = v, got = 1;
        }
    }
    return got;
}

static const mr_fbx_node *transform_channel(const mr_fbx_node *m)
{
    for (const mr_fbx_node *ch = mr_fbx_child(m, "Channel"); ch; ch = mr_fbx_next(ch)) {
        const char *cn = mr_fbx_prop_string(ch, 0, NULL);
        if (cn && !strcmp(cn, "Transform")) return ch;
    }
    return NULL;
}

void fbx_legacy_rest(const fbx_scene *s, int obj, fbx_xf *x)
{
    if (channel_defaults(transform_channel(s->objs[obj].node), x)) return;
    const mr_fbx_node *takes = mr_fbx_child(&s->doc->root, "Takes");
    const char *cur = mr_fbx_prop_string(mr_fbx_child(takes, "Current"), 0, NULL);
    const mr_fbx_node *take = mr_fbx_child(takes, "Take");
    for (const mr_fbx_node *t = take; cur && t; t = mr_fbx_next(t)) {
        const char *tn = mr_fbx_prop_string(t, 0, NULL);
        if (tn && !strcmp(tn, cur)) take = t;
    }
    for (const mr_fbx_node *m = mr_fbx_child(take, "Model"); m; m = mr_fbx_next(m)) {
        const char *mn = mr_fbx_prop_string(m, 0, NULL);
        if (mn && !strcmp(bare(mn), s->objs[obj].name)) {
            channel_defaults(transform_channel(m), x);
            return;
        }
    }
}
