/* gltf_vrm.c — the VRM extensions of a glTF (.vrm files are .glb): VRM 1.0's
 * VRMC_vrm (humanoid, expressions, lookAt, meta), VRMC_springBone (with
 * VRMC_springBone_extended_collider) and VRMC_node_constraint, and VRM
 * 0.x's VRM extension (humanoid, blendShapeMaster, secondaryAnimation,
 * firstPerson, meta), into model->vrm (anim/vrm.h).
 *
 * A malformed extension fails the load naming its JSON path (exit 3). The
 * nodes an extension names become joints (gl_vrm_mark_nodes, called while
 * the skeleton is built), so a spring's tip or a collider's node that no
 * skin uses is still there. Node constraints, the look-at settings and
 * expressions' material binds are read into their structs (and cycles of
 * constraints refused); constraints, look-at and meta are also kept as JSON
 * text, node indices replaced by joint names, for the writer. VRM 0.x
 * materialValues are not read.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/morph.h"
#include "anim/vrm.h"
#include "anim/vrm_constraints.h"
#include "core/str.h"
#include "formats/gltf_internal.h"

#define SB "/extensions/VRMC_springBone"

static gl_json *ext(const gl_json *o, const char *name) { return gl_json_get(gl_json_get(o, "extensions"), name); }

/* ---- nodes an extension names ------------------------------------------------ */

static void mark(unsigned char *m, int n, const gl_json *v)
{
    if (gl_json_is_integer(v) && v->u.i >= 0 && v->u.i < n) m[v->u.i] = 1;
}

static void mark_subtree(gl_doc *d, unsigned char *m, int n, long long node, int depth)
{
    if (node < 0 || node >= n || depth > 256) return;
    m[node] = 1;
    gl_json *kids = gl_json_get(gl_json_at(gl_json_get(d->root, "nodes"), (size_t)node), "children");
    for (size_t i = 0; i < gl_json_size(kids); i++)
        if (gl_json_is_integer(gl_json_at(kids, i))) mark_subtree(d, m, n, gl_json_at(kids, i)->u.i, depth + 1);
}

void gl_vrm_mark_nodes(gl_doc *d, unsigned char *m, int n)
{
    gl_json *sb = ext(d->root, "VRMC_springBone");
    gl_json *springs = gl_json_get(sb, "springs"), *cols = gl_json_get(sb, "colliders");
    for (size_t i = 0; i < gl_json_size(springs); i++) {
        gl_json *sp = gl_json_at(springs, i), *js = gl_json_get(sp, "joints");
        mark(m, n, gl_json_get(sp, "center"));
        for (size_t k = 0; k < gl_json_size(js); k++) mark(m, n, gl_json_get(gl_json_at(js, k), "node"));
    }
    for (size_t i = 0; i < gl_json_size(cols); i++) mark(m, n, gl_json_get(gl_json_at(cols, i), "node"));
    gl_json *vrm1 = ext(d->root, "VRMC_vrm");
    gl_json *hb = gl_json_get(gl_json_get(vrm1, "humanoid"), "humanBones");
    if (gl_json_is_object(hb))
        for (uint32_t i = 0; i < hb->n; i++) mark(m, n, gl_json_get(&hb->u.kids[i], "node"));
    gl_json *nodes = gl_json_get(d->root, "nodes");
    for (size_t i = 0; i < gl_json_size(nodes) && i < (size_t)n; i++) {
        gl_json *c = gl_json_get(ext(gl_json_at(nodes, i), "VRMC_node_constraint"), "constraint");
        if (!c) continue;
        m[i] = 1;
        for (uint32_t k = 0; gl_json_is_object(c) && k < c->n; k++) mark(m, n, gl_json_get(&c->u.kids[k], "source"));
    }
    gl_json *vrm0 = ext(d->root, "VRM");
    gl_json *hb0 = gl_json_get(gl_json_get(vrm0, "humanoid"), "humanBones");
    for (size_t i = 0; i < gl_json_size(hb0); i++) mark(m, n, gl_json_get(gl_json_at(hb0, i), "node"));
    gl_json *sa = gl_json_get(vrm0, "secondaryAnimation");
    gl_json *bg = gl_json_get(sa, "boneGroups"), *cg = gl_json_get(sa, "colliderGroups");
    for (size_t i = 0; i < gl_json_size(bg); i++) {
        gl_json *g = gl_json_at(bg, i), *bones = gl_json_get(g, "bones");
        mark(m, n, gl_json_get(g, "center"));
        for (size_t k = 0; k < gl_json_size(bones); k++)
            if (gl_json_is_integer(gl_json_at(bones, k))) mark_subtree(d, m, n, gl_json_at(bones, k)->u.i, 0);
    }
    for (size_t i = 0; i < gl_json_size(cg); i++) mark(m, n, gl_json_get(gl_json_at(cg, i), "node"));
}

/* ---- reading helpers ------------------------------------------------------------ */

typedef struct vrm_reader {
    gl_doc *d;
    const gl_scene *s;
    mr_vrm *v;
    int cap_joints, cap_chains, cap_colliders, cap_list, cap_expr, cap_binds;
} vrm_reader;

/* The joint of node member `key` of o (required): fails naming path/key. */
static mr_status joint_of(vrm_reader *r, gl_json *o, const char *path, const char *key, int required, int *out)
{
    int node = -1;
    mr_status st = gl_ref(r->d, o, path, key, required, "nodes", &node);
    if (st != MR_OK) return st;
    if (node < 0) { *out = -1; return MR_OK; }
    if (node >= r->s->node_count || r->s->joint[node] < 0)
        return gl_fail(r->d, path, "%s: node %d is not part of the scene's node tree", key, node);
    *out = r->s->joint[node];
    return MR_OK;
}

static mr_status grow(vrm_reader *r, void **arr, int *cap, int need, size_t size, const char *path)
{
    if (need <= *cap) return MR_OK;
    if (need > 1 << 20) return gl_fail_status(r->d, MR_ERR_LIMIT, path, "too many entries");
    int c = *cap ? *cap * 2 : 8;
    while (c < need) c *= 2;
    void *p = realloc(*arr, (size_t)c * size);
    if (!p) return gl_fail_status(r->d, MR_ERR_NO_MEMORY, path, "out of memory");
    *arr = p;
    *cap = c;
    return MR_OK;
}

static mr_status num_in(vrm_reader *r, gl_json *o, const char *path, const char *key, double lo, double hi, float *out)
{
    double v = *out;
    mr_status st = gl_num(r->d, o, path, key, GL_OPTIONAL, &v);
    if (st != MR_OK) return st;
    if (!(v >= lo && v <= hi))
        return gl_fail(r->d, path, "%s: expected a number in %g..%g, got %g", key, lo, hi, v);
    *out = (float)v;
    return MR_OK;
}

/* ---- JSON kept as text ---------------------------------------------------------- */

typedef struct jbuf { char *p; size_t n, cap; int fail; } jbuf;

static void put(jbuf *b, const char *s, size_t n)
{
    if (b->fail) return;
    if (b->n + n + 1 > b->cap) {
        size_t c = b->cap ? b->cap * 2 : 256;
        while (c < b->n + n + 1) c *= 2;
        char *q = realloc(b->p, c);
        if (!q) { b->fail = 1; return; }
        b->p = q;
        b->cap = c;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void put_str(jbuf *b, const char *s)
{
    put(b, "\"", 1);
    for (; *s; s++) {
        char e[8];
        if (*s == '"' || *s == '\\') { e[0] = '\\'; e[1] = *s; put(b, e, 2); }
        else if ((unsigned char)*s < 0x20) { snprintf(e, sizeof e, "\\u%04x", *s); put(b, e, 6); }
        else put(b, s, 1);
    }
    put(b, "\"", 1);
}

/* Writes v as JSON; integer members called "source" or "node" that name a
 * joint's node become {"joint": name} so a writer can map them back. */
static void to_text(vrm_reader *r, jbuf *b, const gl_json *v, const char *key, int depth)
{
    char tmp[64];
    if (depth > 64) { put(b, "null", 4); return; }
    switch (v->type) {
    case GL_JSON_NULL: put(b, "null", 4); break;
    case GL_JSON_TRUE: put(b, "true", 4); break;
    case GL_JSON_FALSE: put(b, "false", 5); break;
    case GL_JSON_INTEGER:
        if (key && (!strcmp(key, "source") || !strcmp(key, "node")) && v->u.i >= 0 && v->u.i < r->s->node_count &&
            r->s->joint[v->u.i] >= 0) {
            put(b, "{\"joint\":", 9);
            put_str(b, r->d->model->skeleton.names[r->s->joint[v->u.i]]);
            put(b, "}", 1);
        } else {
            int k = snprintf(tmp, sizeof tmp, "%lld", v->u.i);
            put(b, tmp, (size_t)k);
        }
        break;
    case GL_JSON_REAL: put(b, v->u.str, v->n); break;
    case GL_JSON_STRING: put_str(b, v->u.str); break;
    case GL_JSON_ARRAY:
        put(b, "[", 1);
        for (uint32_t i = 0; i < v->n; i++) {
            if (i) put(b, ",", 1);
            to_text(r, b, &v->u.kids[i], key, depth + 1);
        }
        put(b, "]", 1);
        break;
    case GL_JSON_OBJECT:
        put(b, "{", 1);
        for (uint32_t i = 0; i < v->n; i++) {
            if (i) put(b, ",", 1);
            put_str(b, v->u.kids[i].key);
            put(b, ":", 1);
            to_text(r, b, &v->u.kids[i], v->u.kids[i].key, depth + 1);
        }
        put(b, "}", 1);
        break;
    }
}

static mr_status keep(vrm_reader *r, const gl_json *v, char **out)
{
    if (!v) return MR_OK;
    jbuf b = {0};
    to_text(r, &b, v, NULL, 0);
    if (b.fail) {
        free(b.p);
        return gl_fail_status(r->d, MR_ERR_NO_MEMORY, NULL, "out of memory keeping VRM data");
    }
    *out = b.p;
    return MR_OK;
}

/* ---- springs ---------------------------------------------------------------------- */

static mr_status add_collider(vrm_reader *r, const mr_spring_collider *c, const char *path)
{
    mr_vrm *v = r->v;
    mr_status st = grow(r, (void **)&v->colliders, &r->cap_colliders, v->collider_count + 1, sizeof *c, path);
    if (st == MR_OK) v->colliders[v->collider_count++] = *c;
    return st;
}

static mr_status add_list(vrm_reader *r, int c, const char *path)
{
    mr_vrm *v = r->v;
    mr_status st = grow(r, (void **)&v->chain_colliders, &r->cap_list, v->chain_collider_count + 1, sizeof(int), path);
    if (st == MR_OK) v->chain_colliders[v->chain_collider_count++] = c;
    return st;
}

static mr_status add_joint(vrm_reader *r, const mr_spring_joint *j, const char *path)
{
    mr_vrm *v = r->v;
    mr_status st = grow(r, (void **)&v->spring_joints, &r->cap_joints, v->spring_joint_count + 1, sizeof *j, path);
    if (st == MR_OK) v->spring_joints[v->spring_joint_count++] = *j;
    return st;
}

static mr_status add_chain(vrm_reader *r, const mr_spring_chain *c, const char *name, const char *path)
{
    mr_vrm *v = r->v;
    int cap = r->cap_chains;
    mr_status st = grow(r, (void **)&v->chains, &r->cap_chains, v->chain_count + 1, sizeof *c, path);
    if (st == MR_OK) st = grow(r, (void **)&v->chain_names, &cap, v->chain_count + 1, sizeof(char *), path);
    if (st != MR_OK) return st;
    v->chains[v->chain_count] = *c;
    v->chain_names[v->chain_count++] = name ? mr_str_dup(name) : NULL;
    return MR_OK;
}

static mr_status read_shape(vrm_reader *r, gl_json *shape, const char *path, int extended, mr_spring_collider *c)
{
    char p[160];
    gl_json *sphere = gl_json_get(shape, "sphere"), *capsule = gl_json_get(shape, "capsule");
    gl_json *plane = extended ? gl_json_get(shape, "plane") : NULL;
    gl_json *body = sphere ? sphere : capsule ? capsule : plane;
    if (!gl_json_is_object(body))
        return gl_fail(r->d, path, "expected a sphere or capsule%s object", extended ? " or plane" : "");
    snprintf(p, sizeof p, "%s/%s", path, sphere ? "sphere" : capsule ? "capsule" : "plane");
    c->shape = sphere ? MR_COLLIDER_SPHERE : capsule ? MR_COLLIDER_CAPSULE : MR_COLLIDER_PLANE;
    mr_status st = gl_nums(r->d, body, p, "offset", GL_OPTIONAL, 3, c->offset);
    if (st == MR_OK && capsule) st = gl_nums(r->d, body, p, "tail", GL_OPTIONAL, 3, c->tail);
    if (st == MR_OK && plane) {
        c->normal[2] = 1;
        st = gl_nums(r->d, body, p, "normal", GL_OPTIONAL, 3, c->normal);
        if (st == MR_OK && c->normal[0] == 0 && c->normal[1] == 0 && c->normal[2] == 0)
            return gl_fail(r->d, p, "normal: expected a non-zero vector");
    }
    if (st == MR_OK && !plane) st = num_in(r, body, p, "radius", 0, 1e6, &c->radius);
    if (st == MR_OK && extended && !plane) {
        gl_json *in = gl_json_get(body, "inside");
        if (in && !gl_json_is_boolean(in)) return gl_fail(r->d, p, "inside: expected true or false");
        c->inside = gl_json_is_true(in);
    }
    return st;
}

static mr_status read_springs_v1(vrm_reader *r, gl_json *sb)
{
    char p[160];
    mr_status st;
    gl_json *cols = NULL, *groups = NULL, *springs = NULL;
    if ((st = gl_arr(r->d, sb, SB, "colliders", GL_OPTIONAL, &cols)) != MR_OK) return st;
    if ((st = gl_arr(r->d, sb, SB, "colliderGroups", GL_OPTIONAL, &groups)) != MR_OK) return st;
    if ((st = gl_arr(r->d, sb, SB, "springs", GL_OPTIONAL, &springs)) != MR_OK) return st;
    for (size_t i = 0; i < gl_json_size(cols); i++) {
        gl_json *c = gl_json_at(cols, i), *shape = NULL;
        snprintf(p, sizeof p, SB "/colliders/%zu", i);
        if (!gl_json_is_object(c)) return gl_fail(r->d, p, "expected an object");
        mr_spring_collider k = {0};
        if ((st = joint_of(r, c, p, "node", GL_REQUIRED, &k.joint)) != MR_OK) return st;
        gl_json *x = gl_json_get(ext(c, "VRMC_springBone_extended_collider"), "shape");
        if (x) {
            char px[200];
            snprintf(px, sizeof px, "%s/extensions/VRMC_springBone_extended_collider/shape", p);
            st = read_shape(r, x, px, 1, &k);
        } else {
            if ((st = gl_obj(r->d, c, p, "shape", GL_REQUIRED, &shape)) != MR_OK) return st;
            char ps[200];
            snprintf(ps, sizeof ps, "%s/shape", p);
            st = read_shape(r, shape, ps, 0, &k);
        }
        if (st == MR_OK) st = add_collider(r, &k, p);
        if (st != MR_OK) return st;
    }
    for (size_t i = 0; i < gl_json_size(groups); i++) {
        snprintf(p, sizeof p, SB "/colliderGroups/%zu", i);
        gl_json *g = gl_json_at(groups, i), *list = NULL;
        if (!gl_json_is_object(g)) return gl_fail(r->d, p, "expected an object");
        if ((st = gl_arr(r->d, g, p, "colliders", GL_REQUIRED, &list)) != MR_OK) return st;
        for (size_t k = 0; k < gl_json_size(list); k++) {
            gl_json *e = gl_json_at(list, k);
            if (!gl_json_is_integer(e) || e->u.i < 0 || e->u.i >= (long long)gl_json_size(cols))
                return gl_fail(r->d, p, "colliders/%zu: expected a collider index below %zu", k, gl_json_size(cols));
        }
    }
    for (size_t i = 0; i < gl_json_size(springs); i++) {
        snprintf(p, sizeof p, SB "/springs/%zu", i);
        gl_json *sp = gl_json_at(springs, i), *js = NULL, *cg = NULL;
        if (!gl_json_is_object(sp)) return gl_fail(r->d, p, "expected an object");
        if ((st = gl_arr(r->d, sp, p, "joints", GL_REQUIRED, &js)) != MR_OK) return st;
        if ((st = gl_arr(r->d, sp, p, "colliderGroups", GL_OPTIONAL, &cg)) != MR_OK) return st;
        mr_spring_chain ch = {r->v->spring_joint_count, 0, -1, r->v->chain_collider_count, 0};
        if ((st = joint_of(r, sp, p, "center", GL_OPTIONAL, &ch.center)) != MR_OK) return st;
        for (size_t k = 0; k < gl_json_size(cg); k++) {
            gl_json *e = gl_json_at(cg, k);
            if (!gl_json_is_integer(e) || e->u.i < 0 || e->u.i >= (long long)gl_json_size(groups))
                return gl_fail(r->d, p, "colliderGroups/%zu: expected a collider group index below %zu", k, gl_json_size(groups));
            gl_json *list = gl_json_get(gl_json_at(groups, (size_t)e->u.i), "colliders");
            for (size_t c = 0; c < gl_json_size(list); c++)
                if ((st = add_list(r, (int)gl_json_at(list, c)->u.i, p)) != MR_OK) return st;
        }
        ch.collider_count = r->v->chain_collider_count - ch.collider_first;
        int prev = -1;
        mr_spring_joint pj = {0};
        for (size_t k = 0; k < gl_json_size(js); k++) {
            char pj_path[200];
            snprintf(pj_path, sizeof pj_path, "%s/joints/%zu", p, k);
            gl_json *o = gl_json_at(js, k);
            if (!gl_json_is_object(o)) return gl_fail(r->d, pj_path, "expected an object");
            mr_spring_joint j = {0};
            j.stiffness = 1; j.drag = 0.5f; j.gravity_dir[1] = -1;   /* the specification's defaults */
            if ((st = joint_of(r, o, pj_path, "node", GL_REQUIRED, &j.joint)) != MR_OK) return st;
            if ((st = num_in(r, o, pj_path, "hitRadius", 0, 1e6, &j.radius)) != MR_OK) return st;
            if ((st = num_in(r, o, pj_path, "stiffness", 0, 1e6, &j.stiffness)) != MR_OK) return st;
            if ((st = num_in(r, o, pj_path, "gravityPower", 0, 1e6, &j.gravity_power)) != MR_OK) return st;
            if ((st = num_in(r, o, pj_path, "dragForce", 0, 1, &j.drag)) != MR_OK) return st;
            if ((st = gl_nums(r->d, o, pj_path, "gravityDir", GL_OPTIONAL, 3, j.gravity_dir)) != MR_OK) return st;
            if (prev >= 0) {
                if (r->d->model->skeleton.parents[j.joint] != prev)
                    return gl_fail(r->d, pj_path, "node: expected a child of the previous joint's node");
                pj.tail = j.joint;
                if ((st = add_joint(r, &pj, pj_path)) != MR_OK) return st;
                ch.count++;
            }
            pj = j;
            prev = j.joint;
        }
        if (ch.count == 0) {
            mr_model_warn(r->d->model, "%s: %s: a spring needs two joints or more; ignored", r->d->name, p);
            r->v->chain_collider_count = ch.collider_first;
            continue;
        }
        if ((st = add_chain(r, &ch, gl_json_string(gl_json_get(sp, "name")), p)) != MR_OK) return st;
    }
    return MR_OK;
}

/* VRM 0.x: every bone group lists root bones; each root's subtree is a chain
 * whose joints take their first child as tip (a leaf: a 7 cm tip). */
static mr_status add_subtree(vrm_reader *r, int joint, const mr_spring_joint *proto, mr_spring_chain *ch, const char *path, int depth)
{
    const mr_skeleton *sk = &r->d->model->skeleton;
    if (depth > MR_MAX_JOINTS) return gl_fail(r->d, path, "bone tree too deep");
    for (int i = 0; i < r->v->spring_joint_count; i++)
        if (r->v->spring_joints[i].joint == joint) return MR_OK;   /* already a spring (three-vrm simulates it twice) */
    mr_spring_joint j = *proto;
    j.joint = joint;
    j.tail = -1;
    for (int c = joint + 1; c < sk->joint_count; c++)
        if (sk->parents[c] == joint) { j.tail = c; break; }
    mr_status st = add_joint(r, &j, path);
    if (st != MR_OK) return st;
    ch->count++;
    for (int c = joint + 1; c < sk->joint_count; c++)
        if (sk->parents[c] == joint && (st = add_subtree(r, c, proto, ch, path, depth + 1)) != MR_OK) return st;
    return MR_OK;
}

static mr_status vec_xyz(vrm_reader *r, gl_json *o, const char *path, const char *key, float out[3], int flip_z)
{
    gl_json *v = gl_json_get(o, key);
    if (!v) return MR_OK;
    if (!gl_json_is_object(v)) return gl_fail(r->d, path, "%s: expected an object {x, y, z}", key);
    const char *names[3] = {"x", "y", "z"};
    for (int k = 0; k < 3; k++) {
        gl_json *c = gl_json_get(v, names[k]);
        if (!c) continue;
        if (!gl_json_is_number(c) || !isfinite(gl_json_number(c))) return gl_fail(r->d, path, "%s/%s: expected a number", key, names[k]);
        out[k] = (float)gl_json_number(c);
    }
    if (flip_z) out[2] = -out[2];
    return MR_OK;
}

static mr_status read_springs_v0(vrm_reader *r, gl_json *sa)
{
    char p[160];
    mr_status st;
    gl_json *bg = NULL, *cg = NULL;
    const char *base = "/extensions/VRM/secondaryAnimation";
    if ((st = gl_arr(r->d, sa, base, "boneGroups", GL_OPTIONAL, &bg)) != MR_OK) return st;
    if ((st = gl_arr(r->d, sa, base, "colliderGroups", GL_OPTIONAL, &cg)) != MR_OK) return st;
    int *group_first = calloc(gl_json_size(cg) + 1, sizeof(int) * 2);
    if (!group_first) return gl_fail_status(r->d, MR_ERR_NO_MEMORY, base, "out of memory");
    for (size_t i = 0; i < gl_json_size(cg); i++) {
        snprintf(p, sizeof p, "%s/colliderGroups/%zu", base, i);
        gl_json *g = gl_json_at(cg, i), *list = NULL;
        int joint = -1;
        if (!gl_json_is_object(g)) { st = gl_fail(r->d, p, "expected an object"); break; }
        if ((st = joint_of(r, g, p, "node", GL_REQUIRED, &joint)) != MR_OK) break;
        if ((st = gl_arr(r->d, g, p, "colliders", GL_OPTIONAL, &list)) != MR_OK) break;
        group_first[2 * i] = r->v->collider_count;
        for (size_t k = 0; st == MR_OK && k < gl_json_size(list); k++) {
            char pc[200];
            snprintf(pc, sizeof pc, "%s/colliders/%zu", p, k);
            gl_json *c = gl_json_at(list, k);
            mr_spring_collider col = {0};
            col.joint = joint;
            if (!gl_json_is_object(c)) st = gl_fail(r->d, pc, "expected an object");
            if (st == MR_OK) st = vec_xyz(r, c, pc, "offset", col.offset, 1);   /* z points the other way in VRM 0.x */
            if (st == MR_OK) st = num_in(r, c, pc, "radius", 0, 1e6, &col.radius);
            if (st == MR_OK) st = add_collider(r, &col, pc);
        }
        group_first[2 * i + 1] = r->v->collider_count - group_first[2 * i];
    }
    for (size_t i = 0; st == MR_OK && i < gl_json_size(bg); i++) {
        snprintf(p, sizeof p, "%s/boneGroups/%zu", base, i);
        gl_json *g = gl_json_at(bg, i), *bones = NULL, *gl = NULL;
        if (!gl_json_is_object(g)) { st = gl_fail(r->d, p, "expected an object"); break; }
        mr_spring_joint proto = {0};
        proto.stiffness = 1; proto.drag = 0.4f; proto.gravity_dir[1] = -1;   /* three-vrm's defaults for 0.x */
        if ((st = num_in(r, g, p, "stiffiness", 0, 1e6, &proto.stiffness)) != MR_OK) break;
        if ((st = num_in(r, g, p, "gravityPower", 0, 1e6, &proto.gravity_power)) != MR_OK) break;
        if ((st = num_in(r, g, p, "dragForce", 0, 1, &proto.drag)) != MR_OK) break;
        if ((st = num_in(r, g, p, "hitRadius", 0, 1e6, &proto.radius)) != MR_OK) break;
        if ((st = vec_xyz(r, g, p, "gravityDir", proto.gravity_dir, 0)) != MR_OK) break;
        if ((st = gl_arr(r->d, g, p, "bones", GL_OPTIONAL, &bones)) != MR_OK) break;
        if ((st = gl_arr(r->d, g, p, "colliderGroups", GL_OPTIONAL, &gl)) != MR_OK) break;
        int center = -1;
        gl_json *cn = gl_json_get(g, "center");
        if (gl_json_is_integer(cn) && cn->u.i >= 0 && (st = joint_of(r, g, p, "center", GL_REQUIRED, &center)) != MR_OK) break;
        int list_first = r->v->chain_collider_count;
        for (size_t k = 0; st == MR_OK && k < gl_json_size(gl); k++) {
            gl_json *e = gl_json_at(gl, k);
            if (!gl_json_is_integer(e) || e->u.i < 0 || e->u.i >= (long long)gl_json_size(cg)) {
                st = gl_fail(r->d, p, "colliderGroups/%zu: expected a collider group index below %zu", k, gl_json_size(cg));
                break;
            }
            for (int c = 0; st == MR_OK && c < group_first[2 * e->u.i + 1]; c++) st = add_list(r, group_first[2 * e->u.i] + c, p);
        }
        for (size_t k = 0; st == MR_OK && k < gl_json_size(bones); k++) {
            char pb[200];
            snprintf(pb, sizeof pb, "%s/bones/%zu", p, k);
            int root = -1;
            gl_json *holder = gl_json_at(bones, k);
            if (!gl_json_is_integer(holder) || holder->u.i < 0 || holder->u.i >= r->s->node_count || r->s->joint[holder->u.i] < 0) {
                st = gl_fail(r->d, pb, "expected a node index of the scene");
                break;
            }
            root = r->s->joint[holder->u.i];
            mr_spring_chain ch = {r->v->spring_joint_count, 0, center, list_first, r->v->chain_collider_count - list_first};
            if ((st = add_subtree(r, root, &proto, &ch, pb, 0)) != MR_OK) break;
            if (ch.count) st = add_chain(r, &ch, gl_json_string(gl_json_get(g, "comment")), pb);
        }
    }
    free(group_first);
    return st;
}

/* ---- humanoid and expressions ---------------------------------------------------- */

static mr_status set_bone(vrm_reader *r, const char *name, int version, gl_json *o, const char *path)
{
    char buf[64];
    if (version == 0 && name) {      /* 0.x thumbs: proximal, intermediate, distal */
        const char *t = strstr(name, "Thumb");
        if (t && (!strcmp(t, "ThumbProximal") || !strcmp(t, "ThumbIntermediate"))) {
            snprintf(buf, sizeof buf, "%.*sThumb%s", (int)(t - name), name, !strcmp(t, "ThumbProximal") ? "Metacarpal" : "Proximal");
            name = buf;
        }
    }
    int b = mr_vrm_bone_find(name);
    if (b < 0) {
        mr_model_warn(r->d->model, "%s: %s: unknown humanoid bone '%s' ignored", r->d->name, path, name ? name : "?");
        return MR_OK;
    }
    return joint_of(r, o, path, "node", GL_REQUIRED, &r->v->humanoid[b]);
}

static int override_of(const char *s)
{
    return !s || !strcmp(s, "none") ? MR_VRM_OVERRIDE_NONE : !strcmp(s, "block") ? MR_VRM_OVERRIDE_BLOCK
         : !strcmp(s, "blend") ? MR_VRM_OVERRIDE_BLEND : -1;
}

/* Binds of glTF mesh `mesh` (or of the node `node`'s mesh) onto model meshes. */
static mr_status add_binds(vrm_reader *r, int node, int mesh, int target, float weight, const char *path, mr_vrm_expression *e)
{
    gl_json *nodes = gl_json_get(r->d->root, "nodes");
    int found = 0;
    for (int m = 0; m < r->d->model->mesh_count; m++) {
        int n = r->s->mesh_node[m];
        int gm = (int)gl_json_integer(gl_json_get(gl_json_at(nodes, (size_t)n), "mesh"));
        if (node >= 0 ? n != node : gm != mesh) continue;
        const mr_morph_set *ms = r->d->model->meshes[m].morph;
        if (!ms || target >= ms->count) return gl_fail(r->d, path, "index: the mesh has no morph target %d", target);
        mr_status st = grow(r, (void **)&r->v->binds, &r->cap_binds, r->v->bind_count + 1, sizeof *r->v->binds, path);
        if (st != MR_OK) return st;
        r->v->binds[r->v->bind_count++] = (mr_vrm_bind){m, target, weight};
        e->bind_count++;
        found = 1;
    }
    if (!found) return gl_fail(r->d, path, node >= 0 ? "node: node %d has no mesh with morph targets" : "mesh: mesh %d has no morph targets", node >= 0 ? node : mesh);
    return MR_OK;
}

/* The base value of material `mat`'s `kind`: baseColorFactor,
 * emissiveFactor, VRMC_materials_mtoon's factors, KHR_texture_transform of
 * the base colour texture; the glTF defaults when absent. */
static void material_base(gl_json *mat, int kind, float out[4])
{
    static const char *const mtoon[] = {NULL, NULL, "shadeColorFactor", "matcapFactor", "parametricRimColorFactor", "outlineColorFactor"};
    static const float defaults[MR_VRM_MATERIAL_KINDS][4] = {
        {1, 1, 1, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}, {1, 1, 1, 1}, {0, 0, 0, 1}, {0, 0, 0, 1}, {1, 1, 0, 0},
    };
    memcpy(out, defaults[kind], sizeof defaults[kind]);
    gl_json *src = NULL;
    if (kind == MR_VRM_MATERIAL_COLOR) src = gl_json_get(gl_json_get(mat, "pbrMetallicRoughness"), "baseColorFactor");
    else if (kind == MR_VRM_MATERIAL_EMISSION) src = gl_json_get(mat, "emissiveFactor");
    else if (kind == MR_VRM_MATERIAL_UV) {
        gl_json *tt = ext(gl_json_get(gl_json_get(mat, "pbrMetallicRoughness"), "baseColorTexture"), "KHR_texture_transform");
        gl_json *sc = gl_json_get(tt, "scale"), *of = gl_json_get(tt, "offset");
        for (size_t k = 0; k < 2; k++) {
            if (gl_json_size(sc) == 2 && gl_json_is_number(gl_json_at(sc, k))) out[k] = (float)gl_json_number(gl_json_at(sc, k));
            if (gl_json_size(of) == 2 && gl_json_is_number(gl_json_at(of, k))) out[2 + k] = (float)gl_json_number(gl_json_at(of, k));
        }
        return;
    } else src = gl_json_get(ext(mat, "VRMC_materials_mtoon"), mtoon[kind]);
    for (size_t k = 0; k < gl_json_size(src) && k < 4; k++)
        if (gl_json_is_number(gl_json_at(src, k)) && isfinite(gl_json_number(gl_json_at(src, k))))
            out[k] = (float)gl_json_number(gl_json_at(src, k));
}

/* VRM 1.0 materialColorBinds and textureTransformBinds of expression e (index ei). */
static mr_status add_material_binds(vrm_reader *r, gl_json *o, const char *path, int ei)
{
    static const char *const color_kinds[] = {"color", "emissionColor", "shadeColor", "matcapColor", "rimColor", "outlineColor", NULL};
    gl_json *materials = gl_json_get(r->d->root, "materials");
    const char *keys[2] = {"materialColorBinds", "textureTransformBinds"};
    for (int which = 0; which < 2; which++) {
        gl_json *list = NULL;
        mr_status st = gl_arr(r->d, o, path, keys[which], GL_OPTIONAL, &list);
        if (st != MR_OK) return st;
        for (size_t i = 0; i < gl_json_size(list); i++) {
            char pb[240];
            snprintf(pb, sizeof pb, "%s/%s/%zu", path, keys[which], i);
            gl_json *b = gl_json_at(list, i);
            if (!gl_json_is_object(b)) return gl_fail(r->d, pb, "expected an object");
            mr_vrm_material_bind mb = {.expression = ei};
            long long mat = 0;
            if ((st = gl_int(r->d, b, pb, "material", GL_REQUIRED, 0, (long long)gl_json_size(materials) - 1, &mat)) != MR_OK)
                return gl_json_size(materials) ? st : gl_fail(r->d, pb, "material: the file has no materials");
            mb.material = (int)mat;
            const char *mn = gl_json_string(gl_json_get(gl_json_at(materials, (size_t)mat), "name"));
            if (mn) snprintf(mb.material_name, sizeof mb.material_name, "%s", mn);
            else snprintf(mb.material_name, sizeof mb.material_name, "material%lld", mat);
            if (which == 0) {
                const char *type = NULL;
                if ((st = gl_str(r->d, b, pb, "type", GL_REQUIRED, &type)) != MR_OK) return st;
                mb.kind = -1;
                for (int k = 0; color_kinds[k]; k++)
                    if (!strcmp(type, color_kinds[k])) mb.kind = k;
                if (mb.kind < 0)
                    return gl_fail(r->d, pb, "type: expected color, emissionColor, shadeColor, matcapColor, rimColor or outlineColor, got \"%s\"", type);
                material_base(gl_json_at(materials, (size_t)mat), mb.kind, mb.base);
                gl_json *tv = gl_json_get(b, "targetValue");
                size_t n = gl_json_size(tv);
                if (!gl_json_is_array(tv) || n < 3 || n > 4) return gl_fail(r->d, pb, "targetValue: expected 3 or 4 numbers");
                memcpy(mb.target, mb.base, sizeof mb.target);
                if ((st = gl_nums(r->d, b, pb, "targetValue", GL_REQUIRED, (int)n, mb.target)) != MR_OK) return st;
            } else {
                mb.kind = MR_VRM_MATERIAL_UV;
                material_base(gl_json_at(materials, (size_t)mat), mb.kind, mb.base);
                float sc[2] = {1, 1}, of[2] = {0, 0};
                if ((st = gl_nums(r->d, b, pb, "scale", GL_OPTIONAL, 2, sc)) != MR_OK) return st;
                if ((st = gl_nums(r->d, b, pb, "offset", GL_OPTIONAL, 2, of)) != MR_OK) return st;
                mb.target[0] = sc[0]; mb.target[1] = sc[1]; mb.target[2] = of[0]; mb.target[3] = of[1];
            }
            mr_vrm *v = r->v;
            if (v->material_bind_count >= 1 << 16) return gl_fail_status(r->d, MR_ERR_LIMIT, pb, "more than 65536 material binds");
            mr_vrm_material_bind *grown = realloc(v->material_binds, (size_t)(v->material_bind_count + 1) * sizeof *grown);
            if (!grown) return gl_fail_status(r->d, MR_ERR_NO_MEMORY, pb, "out of memory");
            v->material_binds = grown;
            v->material_binds[v->material_bind_count++] = mb;
        }
    }
    return MR_OK;
}

static mr_status add_expression(vrm_reader *r, const char *name, gl_json *o, const char *path, int version)
{
    mr_status st = grow(r, (void **)&r->v->expressions, &r->cap_expr, r->v->expression_count + 1, sizeof *r->v->expressions, path);
    if (st != MR_OK) return st;
    mr_vrm_expression e = {0};
    e.bind_first = r->v->bind_count;
    gl_json *bin = gl_json_get(o, "isBinary");
    if (bin && !gl_json_is_boolean(bin)) return gl_fail(r->d, path, "isBinary: expected true or false");
    e.is_binary = gl_json_is_true(bin);
    if (version == 1) {
        const char *keys[3] = {"overrideBlink", "overrideLookAt", "overrideMouth"};
        int *dst[3] = {&e.override_blink, &e.override_look_at, &e.override_mouth};
        for (int k = 0; k < 3; k++) {
            gl_json *ov = gl_json_get(o, keys[k]);
            int v = override_of(gl_json_string(ov));
            if (ov && (!gl_json_is_string(ov) || v < 0)) return gl_fail(r->d, path, "%s: expected \"none\", \"block\" or \"blend\"", keys[k]);
            *dst[k] = v;
        }
    }
    gl_json *binds = NULL;
    if ((st = gl_arr(r->d, o, path, version == 1 ? "morphTargetBinds" : "binds", GL_OPTIONAL, &binds)) != MR_OK) return st;
    for (size_t i = 0; i < gl_json_size(binds); i++) {
        char pb[200];
        snprintf(pb, sizeof pb, "%s/%s/%zu", path, version == 1 ? "morphTargetBinds" : "binds", i);
        gl_json *b = gl_json_at(binds, i);
        if (!gl_json_is_object(b)) return gl_fail(r->d, pb, "expected an object");
        long long index = 0, at = -1;
        double w = version == 1 ? 1.0 : 100.0;
        if ((st = gl_int(r->d, b, pb, "index", GL_REQUIRED, 0, 1 << 20, &index)) != MR_OK) return st;
        if ((st = gl_num(r->d, b, pb, "weight", GL_OPTIONAL, &w)) != MR_OK) return st;
        if (version == 0) w /= 100.0;
        if (!(w >= 0 && w <= 1)) return gl_fail(r->d, pb, "weight: expected 0..%s, got %g", version ? "1" : "100", version ? w : w * 100);
        if (version == 1) {
            if ((st = gl_int(r->d, b, pb, "node", GL_REQUIRED, 0, r->s->node_count - 1, &at)) != MR_OK) return st;
            st = add_binds(r, (int)at, -1, (int)index, (float)w, pb, &e);
        } else {
            if ((st = gl_int(r->d, b, pb, "mesh", GL_REQUIRED, 0, 1 << 20, &at)) != MR_OK) return st;
            st = add_binds(r, -1, (int)at, (int)index, (float)w, pb, &e);
        }
        if (st != MR_OK) return st;
    }
    if (version == 1 && (st = add_material_binds(r, o, path, r->v->expression_count)) != MR_OK) return st;
    e.name = mr_str_dup(name);
    if (!e.name) return gl_fail_status(r->d, MR_ERR_NO_MEMORY, path, "out of memory");
    r->v->expressions[r->v->expression_count++] = e;
    return MR_OK;
}

/* VRM 0.x preset names as VRM 1.0 calls them. */
static const char *preset_v0(const char *p)
{
    static const char *map[][2] = {
        {"joy", "happy"}, {"angry", "angry"}, {"sorrow", "sad"}, {"fun", "relaxed"}, {"a", "aa"}, {"i", "ih"},
        {"u", "ou"}, {"e", "ee"}, {"o", "oh"}, {"blink", "blink"}, {"blink_l", "blinkLeft"}, {"blink_r", "blinkRight"},
        {"lookup", "lookUp"}, {"lookdown", "lookDown"}, {"lookleft", "lookLeft"}, {"lookright", "lookRight"},
        {"neutral", "neutral"},
    };
    for (size_t i = 0; p && i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(p, map[i][0])) return map[i][1];
    return NULL;
}

/* ---- look-at ------------------------------------------------------------------------ */

/* A range map {inputMaxValue, outputScale} (1.0) or degree map {xRange,
 * yRange, curve} (0.x) at o/key; defaults as three-vrm's: 90 and out_default. */
static mr_status read_range(vrm_reader *r, gl_json *o, const char *path, const char *key, int version, float out_default,
                            mr_vrm_range_map *m)
{
    char p[200];
    m->input_max = 90;
    m->output_scale = out_default;
    gl_json *g = gl_json_get(o, key);
    if (!g) return MR_OK;
    snprintf(p, sizeof p, "%s/%s", path, key);
    if (!gl_json_is_object(g)) return gl_fail(r->d, p, "expected an object");
    mr_status st = num_in(r, g, p, version ? "inputMaxValue" : "xRange", 0, 180, &m->input_max);
    if (st == MR_OK) st = num_in(r, g, p, version ? "outputScale" : "yRange", -1e6, 1e6, &m->output_scale);
    if (st == MR_OK && m->input_max < 0.01f) {
        mr_model_warn(r->d->model, "%s: %s: %s %g is below 0.01, read as 0.01", r->d->name, p,
                      version ? "inputMaxValue" : "xRange", m->input_max);
        m->input_max = 0.01f;
    }
    return st;
}

static mr_status read_look_at(vrm_reader *r, gl_json *la, int version)
{
    const char *path = version ? "/extensions/VRMC_vrm/lookAt" : "/extensions/VRM/firstPerson";
    mr_vrm_look_at *l = &r->v->look_at;
    if (!la) return MR_OK;
    if (!gl_json_is_object(la)) return gl_fail(r->d, path, "expected an object");
    gl_json *type = gl_json_get(la, version ? "type" : "lookAtTypeName");
    const char *ts = gl_json_string(type);
    l->type = MR_VRM_LOOK_AT_BONE;
    if (type) {
        if (ts && !strcmp(ts, version ? "bone" : "Bone")) l->type = MR_VRM_LOOK_AT_BONE;
        else if (ts && !strcmp(ts, version ? "expression" : "BlendShape")) l->type = MR_VRM_LOOK_AT_EXPRESSION;
        else return gl_fail(r->d, path, version ? "type: expected \"bone\" or \"expression\"" : "lookAtTypeName: expected \"Bone\" or \"BlendShape\"");
    }
    float out_default = l->type == MR_VRM_LOOK_AT_EXPRESSION ? 1.0f : 10.0f;
    l->offset[0] = 0; l->offset[1] = 0.06f; l->offset[2] = 0;    /* three-vrm's fallback */
    mr_status st = MR_OK;
    if (version) {
        if (gl_json_get(la, "offsetFromHeadBone")) st = gl_nums(r->d, la, path, "offsetFromHeadBone", GL_REQUIRED, 3, l->offset);
    } else if (gl_json_get(la, "firstPersonBoneOffset")) {
        st = vec_xyz(r, la, path, "firstPersonBoneOffset", l->offset, 1);   /* z points the other way in VRM 0.x */
    }
    for (int k = 0; st == MR_OK && k < 3; k++)
        if (!isfinite(l->offset[k])) st = gl_fail(r->d, path, "offset: expected finite numbers");
    if (st == MR_OK) st = read_range(r, la, path, version ? "rangeMapHorizontalInner" : "lookAtHorizontalInner", version, out_default, &l->inner);
    if (st == MR_OK) st = read_range(r, la, path, version ? "rangeMapHorizontalOuter" : "lookAtHorizontalOuter", version, out_default, &l->outer);
    if (st == MR_OK) st = read_range(r, la, path, version ? "rangeMapVerticalDown" : "lookAtVerticalDown", version, out_default, &l->down);
    if (st == MR_OK) st = read_range(r, la, path, version ? "rangeMapVerticalUp" : "lookAtVerticalUp", version, out_default, &l->up);
    l->face_minus_z = !version;
    l->present = st == MR_OK;
    return st;
}

static mr_status read_vrm1(vrm_reader *r, gl_json *vrm)
{
    mr_status st;
    const char *base = "/extensions/VRMC_vrm";
    gl_json *hum = NULL, *bones = NULL, *exprs = NULL;
    if ((st = gl_obj(r->d, vrm, base, "humanoid", GL_OPTIONAL, &hum)) != MR_OK) return st;
    if (hum && (st = gl_obj(r->d, hum, "/extensions/VRMC_vrm/humanoid", "humanBones", GL_REQUIRED, &bones)) != MR_OK) return st;
    for (uint32_t i = 0; bones && i < bones->n; i++) {
        char p[160];
        snprintf(p, sizeof p, "%s/humanoid/humanBones/%s", base, bones->u.kids[i].key);
        if (!gl_json_is_object(&bones->u.kids[i])) return gl_fail(r->d, p, "expected an object {node}");
        if ((st = set_bone(r, bones->u.kids[i].key, 1, &bones->u.kids[i], p)) != MR_OK) return st;
    }
    if ((st = gl_obj(r->d, vrm, base, "expressions", GL_OPTIONAL, &exprs)) != MR_OK) return st;
    const char *groups[2] = {"preset", "custom"};
    for (int g = 0; g < 2 && exprs; g++) {
        gl_json *set = NULL;
        char pg[160];
        snprintf(pg, sizeof pg, "%s/expressions", base);
        if ((st = gl_obj(r->d, exprs, pg, groups[g], GL_OPTIONAL, &set)) != MR_OK) return st;
        for (uint32_t i = 0; set && i < set->n; i++) {
            char p[200];
            snprintf(p, sizeof p, "%s/expressions/%s/%s", base, groups[g], set->u.kids[i].key);
            if (!gl_json_is_object(&set->u.kids[i])) return gl_fail(r->d, p, "expected an object");
            if ((st = add_expression(r, set->u.kids[i].key, &set->u.kids[i], p, 1)) != MR_OK) return st;
        }
    }
    if ((st = keep(r, gl_json_get(vrm, "meta"), &r->v->meta_json)) != MR_OK) return st;
    if ((st = read_look_at(r, gl_json_get(vrm, "lookAt"), 1)) != MR_OK) return st;
    return keep(r, gl_json_get(vrm, "lookAt"), &r->v->look_at_json);
}

static mr_status read_vrm0(vrm_reader *r, gl_json *vrm)
{
    mr_status st;
    const char *base = "/extensions/VRM";
    gl_json *hum = NULL, *bones = NULL, *bsm = NULL, *groups = NULL, *sa = NULL;
    if ((st = gl_obj(r->d, vrm, base, "humanoid", GL_OPTIONAL, &hum)) != MR_OK) return st;
    if (hum && (st = gl_arr(r->d, hum, "/extensions/VRM/humanoid", "humanBones", GL_OPTIONAL, &bones)) != MR_OK) return st;
    for (size_t i = 0; i < gl_json_size(bones); i++) {
        char p[160];
        snprintf(p, sizeof p, "%s/humanoid/humanBones/%zu", base, i);
        gl_json *b = gl_json_at(bones, i);
        const char *name = NULL;
        if (!gl_json_is_object(b)) return gl_fail(r->d, p, "expected an object {bone, node}");
        if ((st = gl_str(r->d, b, p, "bone", GL_REQUIRED, &name)) != MR_OK) return st;
        if ((st = set_bone(r, name, 0, b, p)) != MR_OK) return st;
    }
    if ((st = gl_obj(r->d, vrm, base, "blendShapeMaster", GL_OPTIONAL, &bsm)) != MR_OK) return st;
    if (bsm && (st = gl_arr(r->d, bsm, "/extensions/VRM/blendShapeMaster", "blendShapeGroups", GL_OPTIONAL, &groups)) != MR_OK) return st;
    for (size_t i = 0; i < gl_json_size(groups); i++) {
        char p[160];
        snprintf(p, sizeof p, "%s/blendShapeMaster/blendShapeGroups/%zu", base, i);
        gl_json *g = gl_json_at(groups, i);
        if (!gl_json_is_object(g)) return gl_fail(r->d, p, "expected an object");
        const char *name = preset_v0(gl_json_string(gl_json_get(g, "presetName")));
        if (!name) name = gl_json_string(gl_json_get(g, "name"));
        if (!name) return gl_fail(r->d, p, "expected a name or a presetName");
        if (mr_vrm_expression_find(r->v, name) >= 0) continue;
        if ((st = add_expression(r, name, g, p, 0)) != MR_OK) return st;
    }
    if ((st = gl_obj(r->d, vrm, base, "secondaryAnimation", GL_OPTIONAL, &sa)) != MR_OK) return st;
    if (sa && (st = read_springs_v0(r, sa)) != MR_OK) return st;
    if ((st = keep(r, gl_json_get(vrm, "meta"), &r->v->meta_json)) != MR_OK) return st;
    if ((st = read_look_at(r, gl_json_get(vrm, "firstPerson"), 0)) != MR_OK) return st;
    return keep(r, gl_json_get(vrm, "firstPerson"), &r->v->look_at_json);
}

/* One VRMC_node_constraint (on node i, at path p) into r->v. */
static mr_status read_constraint(vrm_reader *r, size_t i, gl_json *c, const char *p)
{
    static const char *const kinds[3] = {"roll", "aim", "rotation"};
    static const int types[3] = {MR_VRM_CONSTRAINT_ROLL, MR_VRM_CONSTRAINT_AIM, MR_VRM_CONSTRAINT_ROTATION};
    static const char *const roll_axes[] = {"X", "Y", "Z", NULL};
    static const char *const aim_axes[] = {"PositiveX", "NegativeX", "PositiveY", "NegativeY", "PositiveZ", "NegativeZ", NULL};
    if (!gl_json_is_object(c)) return gl_fail(r->d, p, "expected an object {specVersion, constraint}");
    gl_json *ver = gl_json_get(c, "specVersion");
    const char *vs = gl_json_string(ver);
    if (!vs || (strcmp(vs, "1.0") && strcmp(vs, "1.0-beta")))
        mr_model_warn(r->d->model, "%s: %s/specVersion: expected \"1.0\", read as 1.0", r->d->name, p);
    gl_json *con = NULL;
    mr_status st = gl_obj(r->d, c, p, "constraint", GL_REQUIRED, &con);
    if (st != MR_OK) return st;
    char pc[200];
    snprintf(pc, sizeof pc, "%s/constraint", p);
    int kind = -1;
    for (int k = 0; k < 3; k++) {
        if (!gl_json_get(con, kinds[k])) continue;
        if (kind >= 0) return gl_fail(r->d, pc, "expected one of roll, aim or rotation, got both %s and %s", kinds[kind], kinds[k]);
        kind = k;
    }
    if (kind < 0) return gl_fail(r->d, pc, "expected a roll, aim or rotation object");
    gl_json *body = gl_json_get(con, kinds[kind]);
    snprintf(pc, sizeof pc, "%s/constraint/%s", p, kinds[kind]);
    if (!gl_json_is_object(body)) return gl_fail(r->d, pc, "expected an object");
    mr_vrm_constraint k = {r->s->joint[i], -1, types[kind], 0, 1.0f};
    if (k.joint < 0) return gl_fail(r->d, p, "node %zu is not part of the scene's node tree", i);
    if ((st = joint_of(r, body, pc, "source", GL_REQUIRED, &k.source)) != MR_OK) return st;
    if (k.source == k.joint) return gl_fail(r->d, pc, "source: node %zu is the constrained node itself", i);
    if (kind != 2) {
        const char *key = kind == 0 ? "rollAxis" : "aimAxis";
        const char *const *names = kind == 0 ? roll_axes : aim_axes;
        const char *axis = NULL;
        if ((st = gl_str(r->d, body, pc, key, GL_REQUIRED, &axis)) != MR_OK) return st;
        k.axis = -1;
        for (int a = 0; names[a]; a++)
            if (!strcmp(axis, names[a])) k.axis = a;
        if (k.axis < 0)
            return gl_fail(r->d, pc, "%s: expected %s, got \"%s\"", key,
                           kind == 0 ? "\"X\", \"Y\" or \"Z\"" : "PositiveX, NegativeX, PositiveY, NegativeY, PositiveZ or NegativeZ", axis);
    }
    if ((st = num_in(r, body, pc, "weight", 0, 1, &k.weight)) != MR_OK) return st;
    mr_vrm *v = r->v;
    int n = v->constraint_count;
    int *nj = realloc(v->constraint_joint, (size_t)(n + 1) * sizeof *nj);
    if (nj) v->constraint_joint = nj;
    char **ns = realloc(v->constraint_json, (size_t)(n + 1) * sizeof *ns);
    if (ns) v->constraint_json = ns;
    mr_vrm_constraint *nc = realloc(v->constraints, (size_t)(n + 1) * sizeof *nc);
    if (nc) v->constraints = nc;
    if (!nj || !ns || !nc) return gl_fail_status(r->d, MR_ERR_NO_MEMORY, p, "out of memory");
    v->constraint_joint[n] = k.joint;
    v->constraint_json[n] = NULL;
    v->constraints[n] = k;
    v->constraint_count = n + 1;
    return keep(r, c, &v->constraint_json[n]);
}

static mr_status read_constraints(vrm_reader *r)
{
    gl_json *nodes = gl_json_get(r->d->root, "nodes");
    size_t count = gl_json_size(nodes);
    int *node_of = NULL;
    mr_status st = MR_OK;
    for (size_t i = 0; i < count && st == MR_OK; i++) {
        gl_json *c = ext(gl_json_at(nodes, i), "VRMC_node_constraint");
        if (!c) continue;
        char p[160];
        snprintf(p, sizeof p, "/nodes/%zu/extensions/VRMC_node_constraint", i);
        if (r->v->constraint_count >= MR_VRM_MAX_CONSTRAINTS)
            return gl_fail_status(r->d, MR_ERR_LIMIT, p, "more than %d constraints", MR_VRM_MAX_CONSTRAINTS);
        int *grown = realloc(node_of, (size_t)(r->v->constraint_count + 1) * sizeof *grown);
        if (!grown) { free(node_of); return gl_fail_status(r->d, MR_ERR_NO_MEMORY, p, "out of memory"); }
        node_of = grown;
        node_of[r->v->constraint_count] = (int)i;
        st = read_constraint(r, i, c, p);
    }
    if (st == MR_OK && r->v->constraint_count) {
        mr_vrm *v = r->v;
        int bad = -1;
        mr_error err = {0};
        v->constraint_order = malloc(sizeof(int) * (size_t)v->constraint_count);
        if (!v->constraint_order) st = gl_fail_status(r->d, MR_ERR_NO_MEMORY, NULL, "out of memory");
        else if ((st = mr_vrm_constraints_order(&r->d->model->skeleton, v->constraints, v->constraint_count,
                                                v->constraint_order, &bad, &err)) != MR_OK) {
            char p[160];
            snprintf(p, sizeof p, "/nodes/%d/extensions/VRMC_node_constraint", bad >= 0 ? node_of[bad] : 0);
            st = st == MR_ERR_NO_MEMORY ? gl_fail_status(r->d, st, p, "%s", err.msg) : gl_fail(r->d, p, "%s", err.msg);
        }
    }
    free(node_of);
    return st;
}

mr_status gl_vrm_read(gl_doc *d, const gl_scene *s)
{
    gl_json *vrm1 = ext(d->root, "VRMC_vrm"), *sb = ext(d->root, "VRMC_springBone"), *vrm0 = ext(d->root, "VRM");
    int constraints = 0;
    gl_json *nodes = gl_json_get(d->root, "nodes");
    for (size_t i = 0; i < gl_json_size(nodes); i++) constraints |= ext(gl_json_at(nodes, i), "VRMC_node_constraint") != NULL;
    if (!vrm1 && !sb && !vrm0 && !constraints) return MR_OK;
    mr_vrm *v = calloc(1, sizeof *v);
    if (!v) return gl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    for (int b = 0; b < MR_VRM_BONE_COUNT; b++) v->humanoid[b] = -1;
    d->model->vrm = v;           /* the model frees it on failure too */
    v->version = vrm1 || sb || !vrm0 ? 1 : 0;
    vrm_reader r = {d, s, v, 0, 0, 0, 0, 0, 0};
    mr_status st = MR_OK;
    if (vrm1 && !gl_json_is_object(vrm1)) return gl_fail(d, "/extensions/VRMC_vrm", "expected an object");
    if (sb && !gl_json_is_object(sb)) return gl_fail(d, SB, "expected an object");
    if (vrm0 && !gl_json_is_object(vrm0)) return gl_fail(d, "/extensions/VRM", "expected an object");
    if (vrm1) st = read_vrm1(&r, vrm1);
    else if (vrm0) st = read_vrm0(&r, vrm0);
    if (st == MR_OK && sb) st = read_springs_v1(&r, sb);
    if (st == MR_OK) st = read_constraints(&r);
    if (st != MR_OK) return st;
    mr_springs_desc desc = mr_vrm_springs_desc(v);
    mr_error err;
    if (mr_springs_validate(&d->model->skeleton, &desc, &err) != MR_OK)
        return gl_fail(d, vrm0 && !sb ? "/extensions/VRM/secondaryAnimation" : SB, "%s", err.msg);
    return MR_OK;
}
