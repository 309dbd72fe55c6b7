/* collada_ref.h — an independent COLLADA evaluator for tests/test_collada.c.
 *
 * It shares no code with src/formats/collada_*.c: it walks the libxml2 tree
 * itself (ids in libxml2's hash table), parses numbers with strtod, and does all math in double with
 * row-major matrices, straight from the COLLADA 1.4 specification:
 *   node world   = parent world * (transform elements in document order)
 *   channels     override transform values by sid (and member) at time t;
 *                STEP / LINEAR / BEZIER (time solved by bisection for
 *                (time, value) tangents; one-value tangents are offsets
 *                from the keys) / HERMITE per component; "(i)(j)" is
 *                (row)(column) unless the data or an FCollada authoring
 *                tool says (column)(row), and a matrix animated by element
 *                keeps (0, 0, 0, 1) as bottom row; a whole <matrix> with LINEAR keys
 *                is interpolated as decomposed TRS, lerp and quaternion
 *                slerp (as assimp plays decomposed matrices)
 *   skinned      v' = sum_k w_k * JointWorld_k * INV_BIND_k * BSM * v
 *                (+ (1 - sum w) * NodeWorld * v when the weights fall short:
 *                the CTS reference convention; normalised when above 1),
 *                optionally limited to the N heaviest influences (equal
 *                weights: the joint whose bind origin, inverse of
 *                INV_BIND_MATRIX, is nearer BSM * v, then the node name,
 *                else id, else sid: the rule src/anim/mesh.h states)
 *   static       v' = NodeWorld * v
 * and finally the Y-up metre conversion of <asset>. ref_eval() returns the
 * posed position of every triangle corner, in the loader's mesh order
 * (scene order, primitives in document order, polygons as fans).
 */
#ifndef MR_TEST_COLLADA_REF_H
#define MR_TEST_COLLADA_REF_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/hash.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

/* 0: every influence (the file's skinning); N: only the N heaviest,
 * renormalised (what an N-influence runtime can show). */
static int ref_max_influences = 0;

typedef struct ref_doc {
    xmlDoc *doc;
    xmlNode *root;
    xmlHashTablePtr ids; /* id -> element (libxml2's own hash table) */
    int up;              /* 0 Y, 1 Z, 2 X */
    double meter;
} ref_doc;

/* ---- XML helpers ---------------------------------------------------------- */

static int ref_is(const xmlNode *n, const char *name)
{
    return n && n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

static xmlNode *ref_child(const xmlNode *n, const char *name)
{
    for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (ref_is(c, name)) return c;
    return NULL;
}

static xmlNode *ref_next(const xmlNode *n, const char *name)
{
    for (xmlNode *c = n->next; c; c = c->next)
        if (ref_is(c, name)) return c;
    return NULL;
}

static const char *ref_attr(const xmlNode *n, const char *name)
{
    for (xmlAttr *a = n ? n->properties : NULL; a; a = a->next)
        if (!strcmp((const char *)a->name, name) && a->children) return (const char *)a->children->content;
    return NULL;
}

static void ref_collect_ids(ref_doc *d, xmlNode *n)
{
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        const char *id = ref_attr(n, "id");
        if (id) xmlHashAddEntry(d->ids, (const xmlChar *)id, n);  /* the first one wins */
        ref_collect_ids(d, n->children);
    }
}

static xmlNode *ref_id(const ref_doc *d, const char *id)
{
    if (!id) return NULL;
    if (id[0] == '#') id++;
    return xmlHashLookup(d->ids, (const xmlChar *)id);
}

/* Numbers of an element's text, parsed once and cached on the node:
 * ref_numbers_view returns the cache, ref_numbers a copy to free. */
typedef struct ref_cached {
    int n;
    double v[];
} ref_cached;

static const double *ref_numbers_view(xmlNode *el, int *n)
{
    ref_cached *c = el->_private;
    if (!c) {
        xmlChar *txt = xmlNodeGetContent(el);
        int cap = 16, k = 0;
        c = malloc(sizeof *c + (size_t)cap * sizeof(double));
        const char *p = (const char *)txt;
        for (;;) {
            char *end;
            double x = strtod(p, &end);
            if (end == p) break;
            if (k == cap) c = realloc(c, sizeof *c + (size_t)(cap *= 2) * sizeof(double));
            c->v[k++] = x;
            p = end;
        }
        xmlFree(txt);
        c->n = k;
        el->_private = c;
    }
    *n = c->n;
    return c->v;
}

static double *ref_numbers(xmlNode *el, int *n)
{
    const double *c = ref_numbers_view(el, n);
    double *v = malloc((size_t)(*n + 1) * sizeof *v);
    memcpy(v, c, (size_t)*n * sizeof *v);
    return v;
}

static void ref_free_cache(xmlNode *n)
{
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        free(n->_private);
        n->_private = NULL;
        ref_free_cache(n->children);
    }
}

/* Whitespace-separated words of an element's text. */
static char **ref_words(const xmlNode *el, int *n)
{
    xmlChar *txt = xmlNodeGetContent(el);
    char **w = NULL;
    int k = 0;
    for (char *tok = strtok((char *)txt, " \t\r\n"); tok; tok = strtok(NULL, " \t\r\n")) {
        w = realloc(w, (size_t)(k + 1) * sizeof *w);
        w[k++] = strdup(tok);
    }
    xmlFree(txt);
    *n = k;
    return w;
}

static void ref_free_words(char **w, int n)
{
    for (int i = 0; i < n; i++) free(w[i]);
    free(w);
}

/* A <source> read through its accessor. */
typedef struct ref_src {
    const double *v;     /* whole array (the element's cache) */
    char **words;
    int nwords;
    int count, stride, offset;
} ref_src;

static int ref_source(const ref_doc *d, const char *url, ref_src *s)
{
    memset(s, 0, sizeof *s);
    xmlNode *src = ref_id(d, url);
    if (!src) return -1;
    xmlNode *acc = ref_child(ref_child(src, "technique_common"), "accessor");
    xmlNode *arr = acc ? ref_id(d, ref_attr(acc, "source")) : NULL;
    if (!arr) return -1;
    int n;
    if (ref_is(arr, "float_array")) {
        s->v = ref_numbers_view(arr, &n);
        const char *cnt = ref_attr(arr, "count");
        if (cnt && atoi(cnt) < n) n = atoi(cnt);
    } else {
        s->words = ref_words(arr, &s->nwords);
        n = s->nwords;
    }
    s->count = atoi(ref_attr(acc, "count"));
    s->stride = ref_attr(acc, "stride") ? atoi(ref_attr(acc, "stride")) : 1;
    s->offset = ref_attr(acc, "offset") ? atoi(ref_attr(acc, "offset")) : 0;
    return 0;
}

static void ref_src_free(ref_src *s)
{
    ref_free_words(s->words, s->nwords);
    memset(s, 0, sizeof *s);
}

static const double *ref_at(const ref_src *s, int k)
{
    return s->v + s->offset + (size_t)k * s->stride;
}

/* ---- row-major double matrices --------------------------------------------- */

static void rm_identity(double *m)
{
    for (int i = 0; i < 16; i++) m[i] = (i % 5) == 0;
}

static void rm_mul(const double *a, const double *b, double *out)
{
    double r[16];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += a[i * 4 + k] * b[k * 4 + j];
            r[i * 4 + j] = s;
        }
    memcpy(out, r, sizeof r);
}

/* The point an affine row-major matrix sends to the origin: solves
 * R o + t = 0 by Cramer's rule (the inverse bind's joint origin). */
static void rm_origin_of(const double *m, double *o)
{
    double a[9] = {m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]};
    double b[3] = {-m[3], -m[7], -m[11]};
    double det = a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
                 a[2] * (a[3] * a[7] - a[4] * a[6]);
    for (int c = 0; c < 3; c++) {
        double t[9];
        memcpy(t, a, sizeof t);
        for (int r = 0; r < 3; r++) t[r * 3 + c] = b[r];
        double dc = t[0] * (t[4] * t[8] - t[5] * t[7]) - t[1] * (t[3] * t[8] - t[5] * t[6]) +
                    t[2] * (t[3] * t[7] - t[4] * t[6]);
        o[c] = det != 0 ? dc / det : 0;
    }
}

/* A node's name as the loader names joints: name, else id, else sid. */
static const char *ref_node_name(const xmlNode *el)
{
    const char *n = ref_attr(el, "name");
    if (!n || !*n) n = ref_attr(el, "id");
    if (!n || !*n) n = ref_attr(el, "sid");
    return n ? n : "";
}

static void rm_point(const double *m, const double *p, double *out)
{
    double r[3];
    for (int i = 0; i < 3; i++) r[i] = m[i * 4] * p[0] + m[i * 4 + 1] * p[1] + m[i * 4 + 2] * p[2] + m[i * 4 + 3];
    memcpy(out, r, sizeof r);
}

static void rm_rotation(double x, double y, double z, double deg, double *m)
{
    rm_identity(m);
    double len = sqrt(x * x + y * y + z * z);
    if (len == 0) return;
    x /= len, y /= len, z /= len;
    double a = deg * M_PI / 180, c = cos(a), s = sin(a), C = 1 - c;
    double r[16] = {x * x * C + c,     x * y * C - z * s, x * z * C + y * s, 0,
                    y * x * C + z * s, y * y * C + c,     y * z * C - x * s, 0,
                    z * x * C - y * s, z * y * C + x * s, z * z * C + c,     0,
                    0,                 0,                 0,                 1};
    memcpy(m, r, sizeof r);
}

/* Matrix of one transform element from its values. */
static void ref_xform(const char *kind, const double *v, double *m)
{
    rm_identity(m);
    if (!strcmp(kind, "matrix")) {
        memcpy(m, v, 16 * sizeof *v);
    } else if (!strcmp(kind, "translate")) {
        m[3] = v[0], m[7] = v[1], m[11] = v[2];
    } else if (!strcmp(kind, "rotate")) {
        rm_rotation(v[0], v[1], v[2], v[3], m);
    } else if (!strcmp(kind, "scale")) {
        m[0] = v[0], m[5] = v[1], m[10] = v[2];
    } else if (!strcmp(kind, "lookat")) {
        double z[3] = {v[0] - v[3], v[1] - v[4], v[2] - v[5]}, x[3], y[3];
        double zl = sqrt(z[0] * z[0] + z[1] * z[1] + z[2] * z[2]);
        for (int i = 0; i < 3; i++) z[i] /= zl;
        x[0] = v[7] * z[2] - v[8] * z[1], x[1] = v[8] * z[0] - v[6] * z[2], x[2] = v[6] * z[1] - v[7] * z[0];
        double xl = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        for (int i = 0; i < 3; i++) x[i] /= xl;
        y[0] = z[1] * x[2] - z[2] * x[1], y[1] = z[2] * x[0] - z[0] * x[2], y[2] = z[0] * x[1] - z[1] * x[0];
        for (int i = 0; i < 3; i++) m[i * 4] = x[i], m[i * 4 + 1] = y[i], m[i * 4 + 2] = z[i], m[i * 4 + 3] = v[i];
    } else if (!strcmp(kind, "skew")) {
        double a[3] = {v[1], v[2], v[3]}, t[3] = {v[4], v[5], v[6]};
        double al = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]), tl = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
        double s = tan(v[0] * M_PI / 180);
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) m[r * 4 + c] += s * (t[r] / tl) * (a[c] / al);
    }
}

static int ref_xform_size(const char *kind)
{
    if (!strcmp(kind, "matrix")) return 16;
    if (!strcmp(kind, "rotate")) return 4;
    if (!strcmp(kind, "lookat")) return 9;
    if (!strcmp(kind, "skew")) return 7;
    if (!strcmp(kind, "translate") || !strcmp(kind, "scale")) return 3;
    return 0;
}

/* Rotation part of a row-major matrix -> quaternion (x, y, z, w), T, S. */
static void ref_decompose(const double *m, double *t, double *q, double *s)
{
    double c[3][3];
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 3; i++) c[j][i] = m[i * 4 + j];
        s[j] = sqrt(c[j][0] * c[j][0] + c[j][1] * c[j][1] + c[j][2] * c[j][2]);
    }
    double det = c[0][0] * (c[1][1] * c[2][2] - c[1][2] * c[2][1]) - c[1][0] * (c[0][1] * c[2][2] - c[0][2] * c[2][1]) +
                 c[2][0] * (c[0][1] * c[1][2] - c[0][2] * c[1][1]);
    if (det < 0) s[0] = -s[0];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) c[j][i] /= s[j];
    t[0] = m[3], t[1] = m[7], t[2] = m[11];
    /* m_ij = c[j][i] */
    double tr = c[0][0] + c[1][1] + c[2][2];
    if (tr > 0) {
        double k = 0.5 / sqrt(tr + 1);
        q[3] = 0.25 / k, q[0] = (c[1][2] - c[2][1]) * k, q[1] = (c[2][0] - c[0][2]) * k, q[2] = (c[0][1] - c[1][0]) * k;
    } else if (c[0][0] > c[1][1] && c[0][0] > c[2][2]) {
        double k = 2 * sqrt(1 + c[0][0] - c[1][1] - c[2][2]);
        q[3] = (c[1][2] - c[2][1]) / k, q[0] = 0.25 * k, q[1] = (c[1][0] + c[0][1]) / k, q[2] = (c[2][0] + c[0][2]) / k;
    } else if (c[1][1] > c[2][2]) {
        double k = 2 * sqrt(1 + c[1][1] - c[0][0] - c[2][2]);
        q[3] = (c[2][0] - c[0][2]) / k, q[0] = (c[1][0] + c[0][1]) / k, q[1] = 0.25 * k, q[2] = (c[2][1] + c[1][2]) / k;
    } else {
        double k = 2 * sqrt(1 + c[2][2] - c[0][0] - c[1][1]);
        q[3] = (c[0][1] - c[1][0]) / k, q[0] = (c[2][0] + c[0][2]) / k, q[1] = (c[2][1] + c[1][2]) / k, q[2] = 0.25 * k;
    }
}

static void ref_compose(const double *t, const double *q, const double *s, double *m)
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                      {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                      {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
    rm_identity(m);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) m[i * 4 + j] = r[i][j] * s[j];
        m[i * 4 + 3] = t[i];
    }
}

/* ---- animation ----------------------------------------------------------------- */

typedef struct ref_channel {
    const char *node_id;
    char sid[128];
    int comp, ncomp;     /* target components */
    int whole_matrix;
    int mi, mj;          /* "(i)(j)" as written, else -1 */
    ref_src in, out, itan, otan;
    char **interp;
    int ninterp;
    xmlNode *anim;       /* enclosing <animation> */
} ref_channel;

typedef struct ref_anim {
    int n;
    ref_channel *ch;
} ref_anim;

static double ref_bez(double a, double b, double c, double d, double u)
{
    double v = 1 - u;
    return v * v * v * a + 3 * v * v * u * b + 3 * v * u * u * c + u * u * u * d;
}

/* Value of component c of the channel at time t. */
static double ref_sample(const ref_channel *ch, double t, int c)
{
    int n = ch->in.count;
    const double *T = ch->in.v + ch->in.offset;
    int st = ch->in.stride;
    if (t <= T[0]) return ref_at(&ch->out, 0)[c];
    if (t >= T[(n - 1) * st]) return ref_at(&ch->out, n - 1)[c];
    int k = 0;
    while (k + 1 < n && T[(k + 1) * st] <= t) k++;
    double t0 = T[k * st], t1 = T[(k + 1) * st];
    double v0 = ref_at(&ch->out, k)[c], v1 = ref_at(&ch->out, k + 1)[c];
    double u = (t - t0) / (t1 - t0);
    const char *ip = ch->interp && k < ch->ninterp ? ch->interp[k] : "LINEAR";
    if (!strcmp(ip, "STEP")) return v0;
    if ((!strcmp(ip, "BEZIER") || !strcmp(ip, "HERMITE")) && ch->itan.v) {
        int two = ch->otan.stride == 2 * ch->out.stride;
        const double *ot = ref_at(&ch->otan, k), *it = ref_at(&ch->itan, k + 1);
        if (!strcmp(ip, "HERMITE")) {
            double m0 = two ? ot[2 * c + 1] : ot[c], m1 = two ? it[2 * c + 1] : it[c];
            double h00 = 2 * u * u * u - 3 * u * u + 1, h10 = u * u * u - 2 * u * u + u;
            double h01 = -2 * u * u * u + 3 * u * u, h11 = u * u * u - u * u;
            return h00 * v0 + h10 * m0 + h01 * v1 + h11 * m1;
        }
        /* One value per component: offsets from the keys (C0 = P0 + OUT,
         * C1 = P1 - IN), the parameter linear in time. */
        if (!two) return ref_bez(v0, v0 + ot[c], v1 - it[c], v1, u);
        double c0 = fmin(fmax(ot[2 * c], t0), t1), c1 = fmin(fmax(it[2 * c], t0), t1);
        double lo = 0, hi = 1;
        for (int i = 0; i < 60; i++) {  /* the clamped time curve is monotonic */
            double mid = 0.5 * (lo + hi);
            if (ref_bez(t0, c0, c1, t1, mid) < t) lo = mid;
            else hi = mid;
        }
        return ref_bez(v0, ot[2 * c + 1], it[2 * c + 1], v1, 0.5 * (lo + hi));
    }
    return v0 + u * (v1 - v0);
}

/* Whole-matrix channel: decomposed keys, lerp T and S, slerp R. */
static void ref_sample_matrix(const ref_channel *ch, double t, double *m)
{
    int n = ch->in.count, st = ch->in.stride;
    const double *T = ch->in.v + ch->in.offset;
    int k = 0;
    while (k + 1 < n && T[(k + 1) * st] <= t) k++;
    const char *ip = ch->interp && k < ch->ninterp ? ch->interp[k] : "LINEAR";
    if (t <= T[0] || k + 1 >= n || strcmp(ip, "LINEAR")) {
        for (int i = 0; i < 16; i++) m[i] = ref_sample(ch, t, i);
        return;
    }
    double u = (t - T[k * st]) / (T[(k + 1) * st] - T[k * st]);
    double t0[3], q0[4], s0[3], t1[3], q1[4], s1[3], tr[3], q[4], sc[3];
    ref_decompose(ref_at(&ch->out, k), t0, q0, s0);
    ref_decompose(ref_at(&ch->out, k + 1), t1, q1, s1);
    double dot = q0[0] * q1[0] + q0[1] * q1[1] + q0[2] * q1[2] + q0[3] * q1[3];
    if (dot < 0) {
        for (int i = 0; i < 4; i++) q1[i] = -q1[i];
        dot = -dot;
    }
    double a = 1 - u, b = u;  /* slerp (constant angular speed), as assimp plays them */
    if (dot < 1 - 1e-12) {
        double th = acos(dot);
        a = sin((1 - u) * th) / sin(th);
        b = sin(u * th) / sin(th);
    }
    double len = 0;
    for (int i = 0; i < 4; i++) {
        q[i] = a * q0[i] + b * q1[i];
        len += q[i] * q[i];
    }
    for (int i = 0; i < 4; i++) q[i] /= sqrt(len);
    for (int i = 0; i < 3; i++) tr[i] = t0[i] + u * (t1[i] - t0[i]), sc[i] = s0[i] + u * (s1[i] - s0[i]);
    ref_compose(tr, q, sc, m);
}

static void ref_read_animations(const ref_doc *d, xmlNode *parent, ref_anim *a)
{
    for (xmlNode *c = parent->children; c; c = c->next) {
        if (ref_is(c, "animation")) ref_read_animations(d, c, a);
        if (!ref_is(c, "channel")) continue;
        const char *target = ref_attr(c, "target");
        const char *slash = target ? strchr(target, '/') : NULL;
        if (!slash) continue;
        ref_channel ch;
        memset(&ch, 0, sizeof ch);
        char nodeid[256];
        snprintf(nodeid, sizeof nodeid, "%.*s", (int)(slash - target), target);
        xmlNode *node = ref_id(d, nodeid);
        if (!ref_is(node, "node")) continue;
        ch.node_id = ref_attr(node, "id");
        size_t sl = strcspn(slash + 1, ".(");
        snprintf(ch.sid, sizeof ch.sid, "%.*s", (int)sl, slash + 1);
        const char *member = slash + 1 + sl;
        const char *kind = NULL;
        for (xmlNode *x = node->children; x; x = x->next) {
            const char *sid = ref_attr(x, "sid");
            if (x->type == XML_ELEMENT_NODE && sid && !strcmp(sid, ch.sid) && ref_xform_size((const char *)x->name))
                kind = (const char *)x->name;
        }
        if (!kind) continue;
        int i, j;
        ch.mi = ch.mj = -1;
        if (*member == '.') {
            ch.ncomp = 1;
            ch.comp = !strcmp(member, ".X") ? 0 : !strcmp(member, ".Y") ? 1 : !strcmp(member, ".Z") ? 2
                    : !strcmp(member, ".ANGLE") ? 3 : -1;
            if (ch.comp < 0) continue;
        } else if (sscanf(member, "(%d)(%d)", &i, &j) == 2) {
            ch.ncomp = 1, ch.comp = i * 4 + j, ch.mi = i, ch.mj = j;
        } else if (sscanf(member, "(%d)", &i) == 1) {
            ch.ncomp = 1, ch.comp = i;
        } else {
            ch.ncomp = ref_xform_size(kind);
            ch.whole_matrix = !strcmp(kind, "matrix");
        }
        xmlNode *sampler = ref_id(d, ref_attr(c, "source"));
        for (xmlNode *in = ref_child(sampler, "input"); in; in = ref_next(in, "input")) {
            const char *sem = ref_attr(in, "semantic"), *src = ref_attr(in, "source");
            if (!strcmp(sem, "INPUT")) ref_source(d, src, &ch.in);
            else if (!strcmp(sem, "OUTPUT")) ref_source(d, src, &ch.out);
            else if (!strcmp(sem, "IN_TANGENT")) ref_source(d, src, &ch.itan);
            else if (!strcmp(sem, "OUT_TANGENT")) ref_source(d, src, &ch.otan);
            else if (!strcmp(sem, "INTERPOLATION")) {
                ref_src names;
                ref_source(d, src, &names);
                ch.interp = names.words;
                ch.ninterp = names.nwords;
            }
        }
        if (!ch.in.v || !ch.out.v || ch.in.count == 0) {
            ref_src_free(&ch.in), ref_src_free(&ch.out), ref_src_free(&ch.itan), ref_src_free(&ch.otan);
            ref_free_words(ch.interp, ch.ninterp);
            continue;
        }
        ch.anim = parent;
        a->ch = realloc(a->ch, (size_t)(a->n + 1) * sizeof *a->ch);
        a->ch[a->n++] = ch;
    }
}

/* Element order of "(i)(j)" targets, decided for the whole document:
 * (row)(column) as the specification says unless (column)(row) keeps the
 * bottom row's first three elements at 0 where (row)(column) does not, or
 * (on a tie) makes more first keys equal the static <matrix>, or (on a
 * tie) the authoring tool is FCollada-based. */
static void ref_element_order(const ref_doc *d, ref_anim *a)
{
    int score[2][2] = {{0, 0}, {0, 0}};  /* [reading][bottom-row violations, first-key mismatches] */
    for (int c = 0; c < a->n; c++) {
        ref_channel *ch = &a->ch[c];
        if (ch->mi < 0) continue;
        const double *stat = NULL;
        int ns = 0;
        for (xmlNode *x = ref_id(d, ch->node_id)->children; x; x = x->next) {
            const char *sid = ref_attr(x, "sid");
            if (ref_is(x, "matrix") && sid && !strcmp(sid, ch->sid)) stat = ref_numbers_view(x, &ns);
        }
        for (int r = 0; r < 2; r++) {
            int e = r ? ch->mj * 4 + ch->mi : ch->mi * 4 + ch->mj;
            int nonzero = 0;
            for (int k = 0; k < ch->out.count; k++) nonzero |= fabs(ref_at(&ch->out, k)[0]) > 1e-6;
            if (e >= 12 && e < 15 && nonzero) score[r][0]++;
            if (stat && ns == 16 && fabs(ref_at(&ch->out, 0)[0] - stat[e]) > 1e-4 * (1 + fabs(stat[e]))) score[r][1]++;
        }
    }
    int cols_first;
    if (score[0][0] != score[1][0]) cols_first = score[1][0] < score[0][0];
    else if (score[0][1] != score[1][1]) cols_first = score[1][1] < score[0][1];
    else {
        cols_first = 0;
        for (xmlNode *c = ref_child(ref_child(d->root, "asset"), "contributor"); c; c = ref_next(c, "contributor")) {
            xmlNode *t = ref_child(c, "authoring_tool");
            xmlChar *txt = t ? xmlNodeGetContent(t) : NULL;
            if (txt && (strstr((char *)txt, "FCollada") || strstr((char *)txt, "ColladaMax") ||
                        strstr((char *)txt, "ColladaMaya")))
                cols_first = 1;
            xmlFree(txt);
        }
    }
    for (int c = 0; c < a->n; c++)
        if (a->ch[c].mi >= 0 && cols_first) a->ch[c].comp = a->ch[c].mj * 4 + a->ch[c].mi;
}

static void ref_anim_free(ref_anim *a)
{
    for (int i = 0; i < a->n; i++) {
        ref_src_free(&a->ch[i].in), ref_src_free(&a->ch[i].out);
        ref_src_free(&a->ch[i].itan), ref_src_free(&a->ch[i].otan);
        ref_free_words(a->ch[i].interp, a->ch[i].ninterp);
    }
    free(a->ch);
}

/* ---- scene ------------------------------------------------------------------------ */

typedef struct ref_node {
    xmlNode *el;
    int parent, end;
    double world[16];
} ref_node;

typedef struct ref_scene {
    int n;
    ref_node *nodes;
    int ninst;
    xmlNode **inst;      /* instance_geometry / instance_controller */
    int *inst_node;
} ref_scene;

/* Is channel ch in the active set (NULL: all)? */
static int ref_active(const ref_channel *ch, xmlNode *const *set, int nset)
{
    if (!set) return 1;
    for (xmlNode *p = ch->anim; p && ref_is(p, "animation"); p = p->parent)
        for (int i = 0; i < nset; i++)
            if (set[i] == p) return 1;
    return 0;
}

static void ref_local(const xmlNode *node, const ref_anim *a, xmlNode *const *set, int nset, double t, double *m)
{
    rm_identity(m);
    const char *id = ref_attr(node, "id");
    for (xmlNode *x = node->children; x; x = x->next) {
        if (x->type != XML_ELEMENT_NODE) continue;
        const char *kind = (const char *)x->name;
        int size = ref_xform_size(kind);
        if (!size) continue;
        int nv;
        double *v = ref_numbers(x, &nv);
        double xm[16];
        const char *sid = ref_attr(x, "sid");
        int whole = 0;
        for (int c = 0; a && id && sid && c < a->n; c++) {
            const ref_channel *ch = &a->ch[c];
            if (strcmp(ch->node_id, id) || strcmp(ch->sid, sid) || !ref_active(ch, set, nset)) continue;
            if (ch->whole_matrix) {
                ref_sample_matrix(ch, t, xm);
                whole = 1;
            } else {
                for (int k = 0; k < ch->ncomp; k++) v[ch->comp + k] = ref_sample(ch, t, k);
                whole = 0;
            }
        }
        /* A matrix animated element by element stays affine: its bottom
         * row is (0, 0, 0, 1) whatever the channels say. */
        for (int c = 0; a && id && sid && !strcmp(kind, "matrix") && c < a->n; c++)
            if (!strcmp(a->ch[c].node_id, id) && !strcmp(a->ch[c].sid, sid) && a->ch[c].ncomp == 1 &&
                ref_active(&a->ch[c], set, nset))
                v[12] = v[13] = v[14] = 0, v[15] = 1;
        if (!whole) ref_xform(kind, v, xm);
        rm_mul(m, xm, m);
        free(v);
    }
}

static void ref_walk(const ref_doc *d, xmlNode *el, int parent, const ref_anim *a, xmlNode *const *set, int nset,
                     double t, ref_scene *s)
{
    int self = s->n++;
    s->nodes = realloc(s->nodes, (size_t)s->n * sizeof *s->nodes);
    ref_node *n = &s->nodes[self];
    n->el = el;
    n->parent = parent;
    double local[16];
    ref_local(el, a, set, nset, t, local);
    if (parent >= 0) rm_mul(s->nodes[parent].world, local, s->nodes[self].world);
    else memcpy(s->nodes[self].world, local, sizeof local);
    for (xmlNode *c = el->children; c; c = c->next) {
        if (ref_is(c, "node")) ref_walk(d, c, self, a, set, nset, t, s);
        else if (ref_is(c, "instance_node")) ref_walk(d, ref_id(d, ref_attr(c, "url")), self, a, set, nset, t, s);
        else if (ref_is(c, "instance_geometry") || ref_is(c, "instance_controller")) {
            s->inst = realloc(s->inst, (size_t)(s->ninst + 1) * sizeof *s->inst);
            s->inst_node = realloc(s->inst_node, (size_t)(s->ninst + 1) * sizeof *s->inst_node);
            s->inst[s->ninst] = c;
            s->inst_node[s->ninst++] = self;
        }
    }
    s->nodes[self].end = s->n;
}

static void ref_scene_build(const ref_doc *d, const ref_anim *a, xmlNode *const *set, int nset, double t, ref_scene *s)
{
    memset(s, 0, sizeof *s);
    xmlNode *ivs = ref_child(ref_child(d->root, "scene"), "instance_visual_scene");
    xmlNode *vs = ivs ? ref_id(d, ref_attr(ivs, "url")) : ref_child(ref_child(d->root, "library_visual_scenes"), "visual_scene");
    for (xmlNode *c = vs ? vs->children : NULL; c; c = c->next)
        if (ref_is(c, "node")) ref_walk(d, c, -1, a, set, nset, t, s);
}

static void ref_scene_free(ref_scene *s)
{
    free(s->nodes);
    free(s->inst);
    free(s->inst_node);
}

/* First node under the roots with the given attribute value. */
static int ref_find(const ref_scene *s, const int *roots, int nroots, const char *attr, const char *value)
{
    for (int r = 0; r < (nroots ? nroots : 1); r++) {
        int lo = nroots && roots[r] >= 0 ? roots[r] : 0, hi = nroots && roots[r] >= 0 ? s->nodes[lo].end : s->n;
        for (int i = lo; i < hi; i++) {
            const char *v = ref_attr(s->nodes[i].el, attr);
            if (v && !strcmp(v, value)) return i;
        }
    }
    return -1;
}

/* ---- geometry and evaluation ------------------------------------------------------- */

typedef struct ref_points {
    int n, cap;
    double (*p)[3];
    int nmeshes;
    int *mesh_corners;   /* corners per mesh */
} ref_points;

static void ref_push(ref_points *o, const double *p)
{
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 256;
        o->p = realloc(o->p, (size_t)o->cap * sizeof *o->p);
    }
    memcpy(o->p[o->n++], p, 3 * sizeof(double));
}

/* Appends the fan/strip corners of one polygon given its position indices. */
static void ref_emit(ref_points *o, const double (*posed)[3], const int *pos, int n, int strip)
{
    for (int k = 2; k < n; k++) {
        int a = strip ? ((k & 1) ? k - 1 : k - 2) : 0, b = strip ? ((k & 1) ? k - 2 : k - 1) : k - 1;
        ref_push(o, posed[pos[a]]);
        ref_push(o, posed[pos[b]]);
        ref_push(o, posed[pos[k]]);
    }
}

static void ref_geometry(const ref_doc *d, xmlNode *geom, const double (*posed)[3], ref_points *o)
{
    xmlNode *mesh = ref_child(geom, "mesh");
    for (xmlNode *pr = mesh ? mesh->children : NULL; pr; pr = pr->next) {
        int strip = ref_is(pr, "tristrips");
        if (!ref_is(pr, "triangles") && !ref_is(pr, "polylist") && !ref_is(pr, "polygons") && !strip &&
            !ref_is(pr, "trifans"))
            continue;
        int stride = 0, voff = 0;
        for (xmlNode *in = ref_child(pr, "input"); in; in = ref_next(in, "input")) {
            int off = ref_attr(in, "offset") ? atoi(ref_attr(in, "offset")) : 0;
            if (off + 1 > stride) stride = off + 1;
            if (!strcmp(ref_attr(in, "semantic"), "VERTEX")) voff = off;
        }
        int before = o->n;
        int *vc = NULL, nvc = 0;
        if (ref_is(pr, "polylist")) {
            const double *v = ref_numbers_view(ref_child(pr, "vcount"), &nvc);
            vc = malloc((size_t)(nvc + 1) * sizeof *vc);
            for (int i = 0; i < nvc; i++) vc[i] = (int)v[i];
        }
        for (xmlNode *p = pr->children; p; p = p->next) {
            xmlNode *pe = ref_is(p, "p") ? p : ref_is(p, "ph") ? ref_child(p, "p") : NULL;
            if (!pe) continue;
            int n;
            const double *idx = ref_numbers_view(pe, &n);
            int verts = n / stride;
            int *pos = malloc((size_t)(verts + 1) * sizeof *pos);
            for (int i = 0; i < verts; i++) pos[i] = (int)idx[i * stride + voff];
            if (ref_is(pr, "triangles")) {
                for (int i = 0; i + 2 < verts; i += 3) ref_emit(o, posed, pos + i, 3, 0);
            } else if (vc) {
                int at = 0;
                for (int i = 0; i < nvc; i++) {
                    ref_emit(o, posed, pos + at, vc[i], 0);
                    at += vc[i];
                }
            } else {
                ref_emit(o, posed, pos, verts, strip);
            }
            free(pos);
        }
        free(vc);
        if (o->n > before) {
            o->mesh_corners = realloc(o->mesh_corners, (size_t)(o->nmeshes + 1) * sizeof *o->mesh_corners);
            o->mesh_corners[o->nmeshes++] = o->n - before;
        }
    }
}

/* Position source of a geometry. */
static int ref_positions(const ref_doc *d, xmlNode *geom, ref_src *pos)
{
    xmlNode *vert = ref_child(ref_child(geom, "mesh"), "vertices");
    for (xmlNode *in = ref_child(vert, "input"); in; in = ref_next(in, "input"))
        if (!strcmp(ref_attr(in, "semantic"), "POSITION")) return ref_source(d, ref_attr(in, "source"), pos);
    return -1;
}

static void ref_convert(const ref_doc *d, double *p)
{
    double x = p[0], y = p[1], z = p[2];
    if (d->up == 1) p[0] = x, p[1] = z, p[2] = -y;
    else if (d->up == 2) p[0] = -y, p[1] = x, p[2] = z;
    for (int i = 0; i < 3; i++) p[i] *= d->meter;
}

static void ref_instance(const ref_doc *d, const ref_scene *s, int ii, ref_points *o)
{
    xmlNode *inst = s->inst[ii];
    const double *node_world = s->nodes[s->inst_node[ii]].world;
    xmlNode *target = ref_id(d, ref_attr(inst, "url"));
    xmlNode *skin = ref_is(inst, "instance_controller") ? ref_child(target, "skin") : NULL;
    xmlNode *geom = skin ? ref_id(d, ref_attr(skin, "source")) : target;
    if (ref_is(inst, "instance_controller") && !skin) geom = ref_id(d, ref_attr(ref_child(target, "morph"), "source"));
    ref_src pos;
    if (ref_positions(d, geom, &pos)) return;
    double (*posed)[3] = calloc((size_t)pos.count + 1, sizeof *posed);
    if (!skin) {
        for (int i = 0; i < pos.count; i++) rm_point(node_world, ref_at(&pos, i), posed[i]);
    } else {
        double bsm[16];
        rm_identity(bsm);
        xmlNode *b = ref_child(skin, "bind_shape_matrix");
        if (b) {
            int n;
            const double *v = ref_numbers_view(b, &n);
            if (n >= 16) memcpy(bsm, v, sizeof bsm);
        }
        ref_src names = {0}, ibm = {0}, wsrc = {0};
        for (xmlNode *in = ref_child(ref_child(skin, "joints"), "input"); in; in = ref_next(in, "input")) {
            if (!strcmp(ref_attr(in, "semantic"), "JOINT")) ref_source(d, ref_attr(in, "source"), &names);
            if (!strcmp(ref_attr(in, "semantic"), "INV_BIND_MATRIX")) ref_source(d, ref_attr(in, "source"), &ibm);
        }
        /* Skeleton roots, then each joint by sid, id, name (IDREF: id). */
        int roots[64], nroots = 0;
        for (xmlNode *sk = ref_child(inst, "skeleton"); sk && nroots < 64; sk = ref_next(sk, "skeleton")) {
            xmlChar *txt = xmlNodeGetContent(sk);
            char *u = (char *)txt;
            while (*u == ' ' || *u == '\n' || *u == '\t' || *u == '\r') u++;
            u[strcspn(u, " \t\r\n")] = 0;
            xmlNode *r = ref_id(d, u);
            int found = -1;
            for (int i = 0; i < s->n && found < 0; i++)
                if (s->nodes[i].el == r) found = i;
            roots[nroots++] = found;
            xmlFree(txt);
        }
        xmlNode *src_el = ref_id(d, ref_attr(ref_child(ref_child(skin, "joints"), "input"), "source"));
        int idref = 0;
        {
            xmlNode *jin = NULL;
            for (xmlNode *in = ref_child(ref_child(skin, "joints"), "input"); in; in = ref_next(in, "input"))
                if (!strcmp(ref_attr(in, "semantic"), "JOINT")) jin = in;
            src_el = ref_id(d, ref_attr(jin, "source"));
            xmlNode *acc = ref_child(ref_child(src_el, "technique_common"), "accessor");
            idref = ref_is(ref_id(d, ref_attr(acc, "source")), "IDREF_array");
        }
        int nj = names.count;
        double (*skinm)[16] = calloc((size_t)nj + 1, sizeof *skinm);
        double (*jorg)[3] = calloc((size_t)nj + 1, sizeof *jorg);  /* bind origins, for ties */
        int *jnode = calloc((size_t)nj + 1, sizeof *jnode);
        for (int j = 0; j < nj; j++) {
            const char *nm = names.words[names.offset + j * names.stride];
            int node = -1;
            static const char *fields[3] = {"sid", "id", "name"};
            for (int f = idref ? 1 : 0; f < (idref ? 2 : 3) && node < 0; f++) node = ref_find(s, roots, nroots, fields[f], nm);
            for (int f = idref ? 1 : 0; f < (idref ? 2 : 3) && node < 0; f++) node = ref_find(s, NULL, 0, fields[f], nm);
            double ib[16];
            if (ibm.v) memcpy(ib, ref_at(&ibm, j), sizeof ib);
            else rm_identity(ib);
            jnode[j] = node;
            rm_origin_of(ib, jorg[j]);
            rm_mul(s->nodes[node].world, ib, skinm[j]);
            rm_mul(skinm[j], bsm, skinm[j]);
        }
        xmlNode *vw = ref_child(skin, "vertex_weights");
        int off_j = 0, off_w = 0, stride = 0;
        for (xmlNode *in = ref_child(vw, "input"); in; in = ref_next(in, "input")) {
            int off = atoi(ref_attr(in, "offset"));
            if (off + 1 > stride) stride = off + 1;
            if (!strcmp(ref_attr(in, "semantic"), "JOINT")) off_j = off;
            if (!strcmp(ref_attr(in, "semantic"), "WEIGHT")) {
                off_w = off;
                ref_source(d, ref_attr(in, "source"), &wsrc);
            }
        }
        int nvc, nv;
        const double *vc = ref_numbers_view(ref_child(vw, "vcount"), &nvc), *v = ref_numbers_view(ref_child(vw, "v"), &nv);
        int at = 0;
        for (int i = 0; i < nvc && i < pos.count; i++) {
            /* Influences as (weight, posed point); the bind shape (joint -1
             * and what the weights leave short of 1) is one more. */
            int ni = 0, inode[80];  /* scene node of each influence */
            double iw[80], ip[80][3], idist[80], sum = 0, shape = 0, bv[3];
            rm_point(bsm, ref_at(&pos, i), bv);  /* the vertex in bind space */
            for (int k = 0; k < (int)vc[i]; k++, at++) {
                int j = (int)v[at * stride + off_j];
                double w = ref_at(&wsrc, (int)v[at * stride + off_w])[0];
                if (j < 0) {
                    shape += w;
                } else if (ni < 79 && w > 0) {
                    rm_point(skinm[j], ref_at(&pos, i), ip[ni]);
                    inode[ni] = jnode[j];
                    idist[ni] = 0;
                    for (int c = 0; c < 3; c++) idist[ni] += (bv[c] - jorg[j][c]) * (bv[c] - jorg[j][c]);
                    iw[ni++] = w;
                }
                sum += w;
            }
            if (sum < 1 - 1e-3) shape += 1 - sum;
            if (shape > 0) {
                rm_point(node_world, ref_at(&pos, i), ip[ni]);
                inode[ni] = s->inst_node[ii];
                double so[3] = {bsm[3], bsm[7], bsm[11]};  /* the bind shape's origin */
                idist[ni] = 0;
                for (int c = 0; c < 3; c++) idist[ni] += (bv[c] - so[c]) * (bv[c] - so[c]);
                iw[ni++] = shape;
            }
            if (ref_max_influences > 0) {  /* keep the heaviest, renormalise */
                for (int a = 0; a < ni; a++)
                    for (int e = a + 1; e < ni; e++) {
                        /* Weights compared as the loader stores them (float). */
                        float fa = (float)iw[a], fe = (float)iw[e];
                        int c = fe != fa ? (fe > fa ? -1 : 1)
                              : idist[e] != idist[a] ? (idist[e] < idist[a] ? -1 : 1)
                              : strcmp(ref_node_name(s->nodes[inode[e]].el), ref_node_name(s->nodes[inode[a]].el));
                        if (c < 0) {
                            double tw = iw[a], td = idist[a], tp[3];
                            int tn = inode[a];
                            iw[a] = iw[e], iw[e] = tw;
                            idist[a] = idist[e], idist[e] = td;
                            inode[a] = inode[e], inode[e] = tn;
                            memcpy(tp, ip[a], sizeof tp), memcpy(ip[a], ip[e], sizeof tp), memcpy(ip[e], tp, sizeof tp);
                        }
                    }
                if (ni > ref_max_influences) ni = ref_max_influences;
            }
            double acc[3] = {0, 0, 0}, total = 0;
            for (int k = 0; k < ni; k++) {
                for (int c = 0; c < 3; c++) acc[c] += iw[k] * ip[k][c];
                total += iw[k];
            }
            for (int c = 0; c < 3; c++) posed[i][c] = total > 0 ? acc[c] / total : 0;
        }
        free(skinm);
        free(jorg);
        free(jnode);
        ref_src_free(&names), ref_src_free(&ibm), ref_src_free(&wsrc);
    }
    for (int i = 0; i < pos.count; i++) ref_convert(d, posed[i]);
    ref_geometry(d, geom, (const double (*)[3])posed, o);
    free(posed);
    ref_src_free(&pos);
}

static int ref_open(ref_doc *d, const char *path)
{
    memset(d, 0, sizeof *d);
    d->doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!d->doc) return -1;
    d->root = xmlDocGetRootElement(d->doc);
    d->ids = xmlHashCreate(256);
    ref_collect_ids(d, d->root);
    d->meter = 1;
    xmlNode *asset = ref_child(d->root, "asset");
    const char *m = ref_attr(ref_child(asset, "unit"), "meter");
    if (m) d->meter = atof(m);
    xmlNode *up = ref_child(asset, "up_axis");
    if (up) {
        xmlChar *t = xmlNodeGetContent(up);
        d->up = strstr((char *)t, "Z_UP") ? 1 : strstr((char *)t, "X_UP") ? 2 : 0;
        xmlFree(t);
    }
    return 0;
}

static void ref_close(ref_doc *d)
{
    ref_free_cache(d->root);
    xmlHashFree(d->ids, NULL);
    xmlFreeDoc(d->doc);
}

/* Posed corners of the document at time t with the channels of the
 * <animation_clip> named clip (NULL: every channel). */
static void ref_eval(const ref_doc *d, const char *clip, double t, ref_points *o)
{
    memset(o, 0, sizeof *o);
    ref_anim a = {0};
    for (xmlNode *lib = ref_child(d->root, "library_animations"); lib; lib = ref_next(lib, "library_animations"))
        ref_read_animations(d, lib, &a);
    ref_element_order(d, &a);
    xmlNode *set[256];
    int nset = 0, use_set = 0;
    xmlNode *clips = ref_child(d->root, "library_animation_clips");
    for (xmlNode *c = ref_child(clips, "animation_clip"); c && clip; c = ref_next(c, "animation_clip")) {
        const char *nm = ref_attr(c, "name") ? ref_attr(c, "name") : ref_attr(c, "id");
        if (!nm || strcmp(nm, clip)) continue;
        use_set = 1;
        for (xmlNode *ia = ref_child(c, "instance_animation"); ia && nset < 256; ia = ref_next(ia, "instance_animation"))
            set[nset++] = ref_id(d, ref_attr(ia, "url"));
    }
    ref_scene s;
    ref_scene_build(d, &a, use_set ? set : NULL, nset, t, &s);
    for (int i = 0; i < s.ninst; i++) ref_instance(d, &s, i, o);
    ref_scene_free(&s);
    ref_anim_free(&a);
}

static void ref_points_free(ref_points *o)
{
    free(o->p);
    free(o->mesh_corners);
    memset(o, 0, sizeof *o);
}

#endif
