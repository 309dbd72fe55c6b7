/* collada_anim.c — <library_animations> and <library_animation_clips> to
 * per-joint TRS tracks.
 *
 * Samplers (INPUT, OUTPUT, INTERPOLATION, IN_TANGENT, OUT_TANGENT) are
 * evaluated as COLLADA defines them, per output component and per key
 * segment: STEP holds, LINEAR lerps, BEZIER is a cubic whose control points
 * are (time, value) pairs when the tangents have two values per component
 * (the curve parameter is solved from time); with one value per component
 * (FCollada 1.x, 1.4.0-era Maya and Max) the tangents are offsets from the
 * keys, C0 = P0 + OUT_TANGENT(k), C1 = P1 - IN_TANGENT(k+1), the parameter
 * linear in time (the CTS Blessed frames show it: tests/test_collada_cts.c).
 * HERMITE uses the tangents as slopes per unit of the
 * segment parameter. A channel whose target is a whole <matrix> with
 * LINEAR keys is decomposed at its keys into translation, rotation and
 * scale and played like marrow's LINEAR tracks (lerp, shortest-path
 * slerp, as assimp plays them), not as an element-wise matrix lerp, which
 * is not a rigid motion (it shrinks limbs between sparse keys).
 *
 * Channel targets name a node id and the sid of one of its transforms,
 * optionally a member: translate / scale (.X .Y .Z), rotate (.X .Y .Z
 * .ANGLE), matrix elements (i)(j), vector elements (i). (i)(j) is row i,
 * column j as COLLADA says, unless the document says otherwise: FCollada
 * exporters (3ds Max's ColladaMax above all) write column i, row j, and
 * bake the bottom row as constant 0 with (3)(3) = 0. One reading per
 * document (choose_element_order): the one under which no channel drives
 * a bottom-row element (3)(0..2) away from 0; else the one under which
 * more first keys equal the static <matrix>; else column first for an
 * FCollada / ColladaMax / ColladaMaya authoring tool, row first otherwise.
 * Column first is warned (file, a target and its line). A <matrix>
 * animated element by element keeps (0, 0, 0, 1) as bottom row whatever
 * its channels say (one warning when they say something other than that or
 * FCollada's (3)(3) = 0).
 * Targets outside the skeleton's transforms (materials, cameras, Maya's
 * blendParent, visibility) are skipped and counted in one warning.
 *
 * Tracks: for every animated joint the node's transform stack is rebuilt
 * at each key time of the union of its channels and decomposed into TRS
 * (or, for the stacks eval_trs knows, its TRS composed directly: no
 * matrix to decompose, and no rounding noise in a constant scale).
 * Joints whose keys are all STEP get STEP tracks. When LINEAR tracks
 * between those keys reproduce the exact curves (checked at the 1/2, then
 * 1/4 and 3/4 points of every segment), they are kept. Otherwise (Bezier,
 * Hermite, rotations about separate axes) the tracks are CUBIC: per
 * segment, Hermite tangents are fitted so the curve passes through the
 * exact values at 1/3 and 2/3; the fit is checked at 1/8 and 7/8, and
 * a segment still off by more than the tolerance is split at its midpoint
 * (CL_MAX_SPLIT levels, never below 2/CL_MAX_HZ s). The tolerance is
 * CL_TOLERANCE times the model size (bounding-box diagonal), as the
 * displacement of a point at that distance from the joint plus the
 * translation error seen through the parent's scale.
 */
#include "formats/collada_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/morph.h"
#include "core/alloc.h"
#include "core/quat.h"
#include "core/path.h"

#define CL_MAX_HZ 1920.0
#define CL_TOLERANCE 1e-5

enum { I_LINEAR = 0, I_STEP, I_BEZIER, I_HERMITE };

typedef struct sampler {
    cl_el *el;
    int count;           /* keys */
    int comps;           /* output values per key */
    cl_source in, out, itan, otan;
    int tan_dim;         /* 0 none, 1 value-only, 2 (time, value) per component */
    unsigned char *interp;
    int all_step;
    float *trs;          /* per key T(3) Q(4) S(3) for whole-matrix channels, or NULL */
    int hint;            /* last segment found */
} sampler;

typedef struct channel {
    sampler *s;
    cl_el *node_el;
    int xf;              /* index in the node's transform stack */
    int comp, ncomp;
    int mi, mj;          /* indices of an "(i)(j)" matrix element target, else -1 */
    int elem_matrix;     /* some elements of a <matrix>: its bottom row is (0, 0, 0, 1) */
    int matrix_trs;      /* whole-matrix LINEAR: interpolate decomposed keys */
    cl_el *el;         /* the <channel> */
    cl_el *anim;       /* the enclosing <animation> */
    int index;           /* document order */
} channel;

/* A channel aimed at a <morph> controller's weights. */
typedef struct morph_channel {
    sampler *s;
    const cl_el *morph;
    int target;          /* the weight it drives, or -1: all of them (one value per target per key) */
    int targets;         /* the morph's target count */
    cl_el *el, *anim;
} morph_channel;

typedef struct anim_ctx {
    cl_doc *d;
    const cl_scene *s;
    const cl_frame_conv *conv;
    float tol;
    int sampler_count;
    size_t sampler_cap;
    sampler **samplers;
    int channel_count;
    size_t channel_cap;
    channel *channels;
    int *by_node;        /* channel indices sorted by target node, then document order */
    int morph_count;
    size_t morph_cap;
    morph_channel *morphs;
    long skipped;
    char skipped_example[120];
    double conv_q[4];    /* the frame change's rotation (conv->rot) as a quaternion */
} anim_ctx;

/* ---- samplers ----------------------------------------------------------------- */

/* An INTERPOLATION name's kind (I_*), INTERP_AS_LINEAR for the splines
 * played as LINEAR, -1 for a name COLLADA does not define: one string
 * compare a key, where trying each name in turn took three for BEZIER. */
#define INTERP_AS_LINEAR (-2)
static int interp_of(const char *n)
{
    switch (n[0]) {
    case 'L': return strcmp(n, "LINEAR") ? -1 : I_LINEAR;
    case 'S': return strcmp(n, "STEP") ? -1 : I_STEP;
    case 'B': return !strcmp(n, "BEZIER") ? I_BEZIER : !strcmp(n, "BSPLINE") ? INTERP_AS_LINEAR : -1;
    case 'H': return strcmp(n, "HERMITE") ? -1 : I_HERMITE;
    case 'C': return strcmp(n, "CARDINAL") ? -1 : INTERP_AS_LINEAR;
    default: return -1;
    }
}

static void sampler_free(sampler *s)
{
    if (!s) return;
    free(s->interp);
    free(s->trs);
    free(s);
}

static mr_status read_sampler(anim_ctx *a, cl_el *el, sampler **out)
{
    cl_doc *d = a->d;
    *out = NULL;
    if (el->cache) {  /* read before (several channels may share it) */
        *out = el->cache;
        return MR_OK;
    }
    sampler *s = calloc(1, sizeof *s);
    if (!s) return cl_fail_status(d, MR_ERR_NO_MEMORY, el, "out of memory");
    s->el = el;
    cl_el *in = NULL, *o = NULL, *ip = NULL, *it = NULL, *ot = NULL;
    for (cl_el *c = cl_child(el, "input"); c; c = cl_next(c, "input")) {
        const char *sem = cl_attr(c, "semantic");
        if (!sem) continue;
        if (!strcmp(sem, "INPUT")) in = c;
        else if (!strcmp(sem, "OUTPUT")) o = c;
        else if (!strcmp(sem, "INTERPOLATION")) ip = c;
        else if (!strcmp(sem, "IN_TANGENT")) it = c;
        else if (!strcmp(sem, "OUT_TANGENT")) ot = c;
    }
    mr_status st = MR_OK;
    if (!in || !o) st = cl_fail(d, el, "<sampler> needs INPUT and OUTPUT inputs");
    if (st == MR_OK) st = cl_input_source(d, in, 0, 1, &s->in);
    if (st == MR_OK) st = cl_input_source(d, o, 0, 1, &s->out);
    if (st == MR_OK && s->out.count != s->in.count)
        st = cl_fail(d, o, "OUTPUT has %d keys but INPUT has %d", s->out.count, s->in.count);
    if (st != MR_OK) {
        sampler_free(s);
        return st;
    }
    s->count = s->in.count;
    s->comps = s->out.stride;
    for (int k = 1; k < s->count; k++)
        if (s->in.f[(size_t)k * s->in.stride] < s->in.f[(size_t)(k - 1) * s->in.stride]) {
            st = cl_fail(d, s->in.el, "key times go backwards at key %d (%g after %g)", k,
                         s->in.f[(size_t)k * s->in.stride], s->in.f[(size_t)(k - 1) * s->in.stride]);
            sampler_free(s);
            return st;
        }
    s->interp = mr_alloc_array((size_t)s->count, 1);
    if (!s->interp) {
        sampler_free(s);
        return cl_fail_status(d, MR_ERR_NO_MEMORY, el, "out of memory");
    }
    int curves = 0;
    if (ip) {
        cl_source names;
        if ((st = cl_input_source(d, ip, 1, 1, &names)) != MR_OK) {
            sampler_free(s);
            return st;
        }
        if (names.count != s->count) {
            st = cl_fail(d, ip, "INTERPOLATION has %d keys but INPUT has %d", names.count, s->count);
            sampler_free(s);
            return st;
        }
        for (int k = 0; k < s->count; k++) {
            const char *n = names.names[(size_t)k * names.stride];
            int kind = interp_of(n);
            if (kind >= 0) {
                s->interp[k] = (unsigned char)kind;
                curves |= kind == I_BEZIER || kind == I_HERMITE;
            } else if (kind == INTERP_AS_LINEAR) {
                s->interp[k] = I_LINEAR;
                if (d->model && k == 0)
                    mr_model_warn(d->model, "sampler '%s': %s interpolation played as LINEAR",
                                  cl_attr(el, "id") ? cl_attr(el, "id") : "?", n);
            } else {
                st = cl_fail(d, names.el, "key %d: unknown interpolation '%s'", k, n);
                sampler_free(s);
                return st;
            }
        }
    }
    if (curves) {
        if (!it || !ot) {
            if (d->model)
                mr_model_warn(d->model, "sampler '%s' has curve keys but no tangents: played as LINEAR",
                              cl_attr(el, "id") ? cl_attr(el, "id") : "?");
            for (int k = 0; k < s->count; k++)
                if (s->interp[k] == I_BEZIER || s->interp[k] == I_HERMITE) s->interp[k] = I_LINEAR;
        } else {
            if ((st = cl_input_source(d, it, 0, 1, &s->itan)) == MR_OK)
                st = cl_input_source(d, ot, 0, 1, &s->otan);
            if (st == MR_OK && (s->itan.count != s->count || s->otan.count != s->count))
                st = cl_fail(d, it, "tangents have %d/%d keys but INPUT has %d", s->itan.count, s->otan.count,
                             s->count);
            if (st == MR_OK && s->itan.stride != s->otan.stride)
                st = cl_fail(d, it, "IN_TANGENT and OUT_TANGENT strides differ (%d, %d)", s->itan.stride,
                             s->otan.stride);
            if (st == MR_OK) {
                if (s->itan.stride == 2 * s->comps) s->tan_dim = 2;
                else if (s->itan.stride == s->comps) s->tan_dim = 1;
                else st = cl_fail(d, it, "tangent stride %d fits neither %d nor %d values per key", s->itan.stride,
                                  s->comps, 2 * s->comps);
            }
            if (st != MR_OK) {
                sampler_free(s);
                return st;
            }
        }
    }
    s->all_step = 1;
    for (int k = 0; k + 1 < s->count; k++)
        if (s->interp[k] != I_STEP) s->all_step = 0;
    if (mr_alloc_reserve((void **)&a->samplers, &a->sampler_cap, (size_t)a->sampler_count + 1, sizeof *a->samplers)) {
        sampler_free(s);
        return cl_fail_status(d, MR_ERR_NO_MEMORY, el, "out of memory");
    }
    a->samplers[a->sampler_count++] = s;
    el->cache = s;
    *out = s;
    return MR_OK;
}

static inline double key_time(const sampler *s, int k)
{
    return s->in.f[(size_t)k * s->in.stride];
}

/* Last key index with time <= t, or -1 before the first key. Evaluation
 * mostly walks forward in time: the last answer is tried first, then the
 * segment after it (the next key time of a joint's key pass). */
static int find_segment(sampler *s, double t)
{
    if (t < key_time(s, 0)) return -1;
    for (int h = s->hint; h <= s->hint + 1; h++)
        if (h >= 0 && h < s->count && key_time(s, h) <= t && (h + 1 == s->count || t < key_time(s, h + 1))) {
            s->hint = h;
            return h;
        }
    int lo = 0, hi = s->count;  /* time[lo] <= t < time[hi] */
    while (hi - lo > 1) {
        int mid = (lo + hi) >> 1;
        if (key_time(s, mid) <= t) lo = mid;
        else hi = mid;
    }
    s->hint = lo;
    return lo;
}

static double bezier1(double p0, double c0, double c1, double p1, double u)
{
    double v = 1 - u;
    return v * v * v * p0 + 3 * v * v * u * c0 + 3 * v * u * u * c1 + u * u * u * p1;
}

/* Parameter u in [0,1] where the time curve (t0, c0, c1, t1) reaches t.
 * Control times are clamped into the segment so the curve is monotonic;
 * Newton steps guarded by bisection. */
static double solve_bezier_time(double t0, double c0, double c1, double t1, double t)
{
    if (c0 < t0) c0 = t0;
    if (c0 > t1) c0 = t1;
    if (c1 < t0) c1 = t0;
    if (c1 > t1) c1 = t1;
    double lo = 0, hi = 1, u = (t - t0) / (t1 - t0);
    for (int it = 0; it < 40; it++) {
        double x = bezier1(t0, c0, c1, t1, u) - t;
        if (fabs(x) <= 1e-8 * (fabs(t1 - t0) + 1e-30)) break;
        if (x > 0) hi = u;
        else lo = u;
        double v = 1 - u;
        double dx = 3 * v * v * (c0 - t0) + 6 * v * u * (c1 - c0) + 3 * u * u * (t1 - c1);
        double next = dx != 0 ? u - x / dx : -1;
        u = (next > lo && next < hi) ? next : 0.5 * (lo + hi);
    }
    return u;
}

/* The last solve_bezier_time: exporters give every component and channel
 * of a joint the same control times (Maya: a third of the segment), so one
 * evaluation of a joint mostly solves the same curve again. Inputs compared
 * bit for bit, so the answer is the one solving would give. */
typedef struct bezier_memo {
    double in[5];        /* t0, c0, c1, t1, t */
    double u;
    int valid;
} bezier_memo;

static double solve_bezier_time_memo(bezier_memo *m, double t0, double c0, double c1, double t1, double t)
{
    const double in[5] = {t0, c0, c1, t1, t};
    if (m->valid && memcmp(m->in, in, sizeof in) == 0) return m->u;
    memcpy(m->in, in, sizeof in);
    m->u = solve_bezier_time(t0, c0, c1, t1, t);
    m->valid = 1;
    return m->u;
}

/* Value of component c of the sampler at time t. */
static double sample_comp(const sampler *s, int k, double t, int c, bezier_memo *memo)
{
    if (k < 0) return s->out.f[c];
    const float *v0 = s->out.f + (size_t)k * s->out.stride;
    if (k >= s->count - 1) return v0[c];
    const float *v1 = v0 + s->out.stride;
    double t0 = key_time(s, k), t1 = key_time(s, k + 1);
    if (!(t1 > t0)) return v1[c];
    double u = (t - t0) / (t1 - t0);
    switch (s->interp[k]) {
    case I_STEP:
        return v0[c];
    case I_BEZIER: {
        const float *ot = s->otan.f + (size_t)k * s->otan.stride;
        const float *it = s->itan.f + (size_t)(k + 1) * s->itan.stride;
        if (s->tan_dim == 2) {
            double uu = solve_bezier_time_memo(memo, t0, ot[2 * c], it[2 * c], t1, t);
            return bezier1(v0[c], ot[2 * c + 1], it[2 * c + 1], v1[c], uu);
        }
        /* One value per component: offsets from the keys (FCollada 1.x,
         * 1.4.0-era Maya and Max; the CTS Blessed frames show it). */
        return bezier1(v0[c], v0[c] + ot[c], v1[c] - it[c], v1[c], u);
    }
    case I_HERMITE: {
        const float *ot = s->otan.f + (size_t)k * s->otan.stride;
        const float *it = s->itan.f + (size_t)(k + 1) * s->itan.stride;
        double m0 = s->tan_dim == 2 ? ot[2 * c + 1] : ot[c];
        double m1 = s->tan_dim == 2 ? it[2 * c + 1] : it[c];
        double u2 = u * u, u3 = u2 * u;
        return (2 * u3 - 3 * u2 + 1) * v0[c] + (u3 - 2 * u2 + u) * m0 + (-2 * u3 + 3 * u2) * v1[c] +
               (u3 - u2) * m1;
    }
    default:
        return v0[c] + u * (v1[c] - v0[c]);
    }
}

/* Decomposed keys for a whole-matrix channel (file space). */
static mr_status sampler_prepare_trs(anim_ctx *a, sampler *s)
{
    if (s->trs) return MR_OK;
    s->trs = mr_alloc_array((size_t)s->count * 10, sizeof *s->trs);
    if (!s->trs) return cl_fail_status(a->d, MR_ERR_NO_MEMORY, s->el, "out of memory");
    for (int k = 0; k < s->count; k++) {
        mat4 m;
        cl_mat_from_rows(s->out.f + (size_t)k * s->out.stride, m);
        float *p = s->trs + (size_t)k * 10;
        vec3 t, sc;
        versor q;
        mr_pose_trs_from_matrix(m, t, q, sc);
        memcpy(p, t, 12);
        memcpy(p + 3, q, 16);
        memcpy(p + 7, sc, 12);
        if (k > 0) {  /* keep neighbouring keys in the same hemisphere */
            float *pq = p - 10 + 3;
            if (pq[0] * p[3] + pq[1] * p[4] + pq[2] * p[5] + pq[3] * p[6] < 0)
                for (int i = 3; i < 7; i++) p[i] = -p[i];
        }
    }
    return MR_OK;
}

/* Shortest-path slerp of unit quaternions (in double): what marrow's LINEAR
 * rotation tracks mean (clip.h), and how other readers (assimp) play
 * decomposed matrix keys. */
static void slerp(const float *a, const float *b, double u, float *out)
{
    double dot = 0;
    for (int i = 0; i < 4; i++) dot += (double)a[i] * b[i];
    double sign = dot < 0 ? -1 : 1, c = fabs(dot);
    double w0 = 1 - u, w1 = u;
    /* At u = 0 or 1 the weights below are exactly 1 and 0 (sin(th) / sin(th),
     * sin(0) / s): no trigonometry for the keys themselves. */
    if (c < 1 - 1e-12 && u != 0 && u != 1) {
        double th = acos(c), s = sin(th);
        w0 = sin((1 - u) * th) / s;
        w1 = sin(u * th) / s;
    }
    double q[4], len = 0;
    for (int i = 0; i < 4; i++) {
        q[i] = w0 * a[i] + sign * w1 * b[i];
        len += q[i] * q[i];
    }
    len = sqrt(len);
    for (int i = 0; i < 4; i++) out[i] = (float)(len > 0 ? q[i] / len : (i == 3));
}

/* Writes the channel's value at time t into vals (the target element's
 * value array, row-major for matrices). */
static void channel_eval(const channel *ch, double t, float *vals, bezier_memo *memo)
{
    sampler *s = ch->s;
    int k = find_segment(s, t);
    if (ch->matrix_trs && k >= 0 && k < s->count - 1 && s->interp[k] == I_LINEAR &&
        key_time(s, k + 1) > key_time(s, k)) {
        double u = (t - key_time(s, k)) / (key_time(s, k + 1) - key_time(s, k));
        const float *p0 = s->trs + (size_t)k * 10, *p1 = p0 + 10;
        vec3 tr, sc;
        versor q, q0, q1;
        for (int i = 0; i < 3; i++) {
            tr[i] = (float)(p0[i] + u * (p1[i] - p0[i]));
            sc[i] = (float)(p0[7 + i] + u * (p1[7 + i] - p0[7 + i]));
        }
        memcpy(q0, p0 + 3, 16);
        memcpy(q1, p1 + 3, 16);
        slerp(q0, q1, u, q);
        mat4 m;
        mr_pose_trs_matrix(tr, q, sc, m);
        for (int row = 0; row < 4; row++)
            for (int col = 0; col < 4; col++) vals[row * 4 + col] = m[col][row];
        return;
    }
    for (int c = 0; c < ch->ncomp; c++) vals[ch->comp + c] = (float)sample_comp(s, k, t, c, memo);
}

/* ---- channels ------------------------------------------------------------------ */

static void note_skip(anim_ctx *a, const char *target)
{
    if (!a->skipped++) snprintf(a->skipped_example, sizeof a->skipped_example, "%s", target);
}

static int member_index(const char *m, int type)
{
    if (type == CL_XF_ROTATE && !strcmp(m, "ANGLE")) return 3;
    if (!strcmp(m, "X")) return 0;
    if (!strcmp(m, "Y")) return 1;
    if (!strcmp(m, "Z")) return 2;
    return -1;
}

/* A channel whose target is "CONTROLLER/SID(k)" (one weight: SID is
 * MORPH_WEIGHT_ARRAY, the weights source's or array's sid, whatever the
 * exporter named it) or "CONTROLLER/SID" (all the weights per key). */
static mr_status read_morph_channel(anim_ctx *a, cl_el *el, cl_el *anim, cl_el *samp_el, const cl_el *morph,
                                    const char *rest, const char *target)
{
    cl_doc *d = a->d;
    int targets = -1;
    for (int i = 0; i < d->morph_mesh_count; i++)
        if (d->morph_meshes[i].morph == morph) targets = d->morph_meshes[i].targets;
    if (targets < 0) {  /* a morph no instance shows */
        note_skip(a, target);
        return MR_OK;
    }
    int k = -1;
    const char *paren = strchr(rest, '(');
    if (paren) {
        char *end;
        long v = strtol(paren + 1, &end, 10);
        if (end == paren + 1 || *end != ')' || end[1] || v < 0)
            return cl_fail(d, el, "target '%s': cannot read the weight index", target);
        if (v >= targets)
            return cl_fail(d, el, "target '%s': weight %ld does not exist (the morph has %d targets)", target, v,
                           targets);
        k = (int)v;
    }
    sampler *s;
    mr_status st = read_sampler(a, samp_el, &s);
    if (st != MR_OK) return st;
    int want = k >= 0 ? 1 : targets;
    if (s->comps != want)
        return cl_fail(d, el, "target '%s' takes %d value(s) per key but the sampler's OUTPUT has %d", target, want,
                       s->comps);
    if (s->count == 0) return MR_OK;
    if (mr_alloc_reserve((void **)&a->morphs, &a->morph_cap, (size_t)a->morph_count + 1, sizeof *a->morphs))
        return cl_fail_status(d, MR_ERR_NO_MEMORY, el, "out of memory");
    a->morphs[a->morph_count++] = (morph_channel){s, morph, k, targets, el, anim};
    return MR_OK;
}

static mr_status read_channel(anim_ctx *a, cl_el *el, cl_el *anim)
{
    cl_doc *d = a->d;
    const char *target = cl_attr(el, "target");
    if (!target) return cl_fail(d, el, "<channel> without a target");
    cl_el *samp_el;
    mr_status st = cl_ref(d, el, "source", "sampler", &samp_el);
    if (st != MR_OK) return st;
    const char *slash = strchr(target, '/');
    if (!slash) {
        note_skip(a, target);
        return MR_OK;
    }
    cl_el *node = cl_find_id(d, target, (size_t)(slash - target));
    if (!node) {
        if (target[0] == '.' || target[0] == '#') {  /* relative or odd forms */
            note_skip(a, target);
            return MR_OK;
        }
        return cl_fail(d, el, "target '%s' names no element", target);
    }
    if (cl_is(node, "controller") && cl_child(node, "morph"))
        return read_morph_channel(a, el, anim, samp_el, cl_child(node, "morph"), slash + 1, target);
    if (!cl_is(node, "node")) {
        note_skip(a, target);
        return MR_OK;
    }
    const char *sid = slash + 1;
    size_t sid_len = strcspn(sid, ".(/");
    if (sid[sid_len] == '/') {
        note_skip(a, target);
        return MR_OK;
    }
    int xf = -1, type = 0, nvals = 0, k = 0;
    for (cl_el *c = cl_first_elem(node); c; c = cl_next_elem(c)) {
        int t = cl_is(c, "matrix") ? CL_XF_MATRIX : cl_is(c, "translate") ? CL_XF_TRANSLATE
              : cl_is(c, "rotate") ? CL_XF_ROTATE : cl_is(c, "scale") ? CL_XF_SCALE
              : cl_is(c, "lookat") ? CL_XF_LOOKAT : cl_is(c, "skew") ? CL_XF_SKEW : 0;
        if (!t) continue;
        const char *csid = cl_attr(c, "sid");
        if (csid && strlen(csid) == sid_len && !strncmp(csid, sid, sid_len)) {
            xf = k;
            type = t;
            nvals = t == CL_XF_MATRIX ? 16 : t == CL_XF_ROTATE ? 4 : t == CL_XF_LOOKAT ? 9 : t == CL_XF_SKEW ? 7 : 3;
            break;
        }
        k++;
    }
    if (xf < 0) {
        note_skip(a, target);
        return MR_OK;
    }
    const char *member = sid + sid_len;
    int comp = 0, ncomp = nvals, mi = -1, mj = -1;
    if (*member == '.') {
        comp = member_index(member + 1, type);
        if (comp < 0 || type == CL_XF_MATRIX || comp >= nvals) {
            note_skip(a, target);
            return MR_OK;
        }
        ncomp = 1;
    } else if (*member == '(') {
        int i = -1, j = -1, used = 0;
        if (sscanf(member, "(%d)(%d)%n", &i, &j, &used) == 2 && member[used] == '\0') {
            if (type != CL_XF_MATRIX || i < 0 || i > 3 || j < 0 || j > 3)
                return cl_fail(d, el, "target '%s': element (%d)(%d) does not exist", target, i, j);
            comp = i * 4 + j;  /* provisional: see choose_element_order */
            mi = i;
            mj = j;
        } else if (sscanf(member, "(%d)%n", &i, &used) == 1 && member[used] == '\0') {
            if (i < 0 || i >= nvals) return cl_fail(d, el, "target '%s': element (%d) does not exist", target, i);
            comp = i;
        } else {
            return cl_fail(d, el, "target '%s': cannot read the element index", target);
        }
        ncomp = 1;
    } else if (*member) {
        note_skip(a, target);
        return MR_OK;
    }
    sampler *s;
    if ((st = read_sampler(a, samp_el, &s)) != MR_OK) return st;
    if (s->comps != ncomp)
        return cl_fail(d, el, "target '%s' takes %d value(s) per key but the sampler's OUTPUT has %d", target, ncomp,
                       s->comps);
    if (s->count == 0) return MR_OK;
    channel ch = {s, node, xf, comp, ncomp, mi, mj, type == CL_XF_MATRIX && ncomp < 16, 0, el, anim, a->channel_count};
    if (type == CL_XF_MATRIX && ncomp == 16) {
        ch.matrix_trs = 1;
        if ((st = sampler_prepare_trs(a, s)) != MR_OK) return st;
    }
    if (mr_alloc_reserve((void **)&a->channels, &a->channel_cap, (size_t)a->channel_count + 1, sizeof *a->channels))
        return cl_fail_status(d, MR_ERR_NO_MEMORY, el, "out of memory");
    a->channels[a->channel_count++] = ch;
    return MR_OK;
}

static mr_status read_animation(anim_ctx *a, cl_el *anim, int depth)
{
    if (depth > 64) return cl_fail(a->d, anim, "<animation> nested deeper than 64 levels");
    for (cl_el *c = cl_first_elem(anim); c; c = cl_next_elem(c)) {
        mr_status st = MR_OK;
        if (cl_is(c, "channel")) st = read_channel(a, c, anim);
        else if (cl_is(c, "animation")) st = read_animation(a, c, depth + 1);
        if (st != MR_OK) return st;
    }
    return MR_OK;
}

/* ---- tracks -------------------------------------------------------------------- */

/* A joint's transform stack prepared for fast evaluation: runs of
 * elements no channel touches are multiplied out once. */
typedef struct stack_op {
    int xf;              /* animated element index, or -1 for the constant */
    mat4 m;              /* constant product when xf < 0 */
} stack_op;

typedef struct joint_eval {
    const cl_node *node;
    const channel **ch;  /* channels driving this joint in the clip */
    int nch;
    float (*vals)[16];   /* scratch: values of the node's transforms */
    stack_op *ops;
    int nops;
    float parent_scale;  /* largest axis scale of the parent's rest world */
    int trs;             /* the stack's form for eval_trs (TRS_NONE: matrices only) */
    const unsigned char *animated;  /* per element: a channel drives it (prepare_ops) */
    struct trs_op *rops; /* TRS_STACK: the rotations in order (prepare_trs) */
    int nrops;
    float t0[3], s0[3];  /* TRS_STACK: the constant translations' sum, the scales' product */
} joint_eval;

/* A rotation of a TRS_STACK joint: an animated <rotate> (xf), or (xf -1)
 * the product q of the constant ones between two animated ones. */
typedef struct trs_op {
    int xf;
    double q[4];
} trs_op;

static void prepare_ops(joint_eval *je, unsigned char *animated)
{
    const cl_node *n = je->node;
    memset(animated, 0, (size_t)n->xf_count);
    for (int c = 0; c < je->nch; c++) animated[je->ch[c]->xf] = 1;
    je->nops = 0;
    int open = 0;
    for (int i = 0; i < n->xf_count; i++) {
        if (animated[i]) {
            je->ops[je->nops].xf = i;
            je->nops++;
            open = 0;
            continue;
        }
        mat4 m;
        cl_xform_matrix(&n->xf[i], NULL, m);
        if (!open) {
            je->ops[je->nops].xf = -1;
            glm_mat4_copy(m, je->ops[je->nops].m);
            je->nops++;
            open = 1;
        } else {
            glm_mat4_mul(je->ops[je->nops - 1].m, m, je->ops[je->nops - 1].m);
        }
    }
}

/* Local matrix of the joint at time t, converted to the model frame. */
static void eval_local(const anim_ctx *a, joint_eval *je, double t, mat4 out)
{
    const cl_node *n = je->node;
    for (int c = 0; c < je->nch; c++) {
        const channel *ch = je->ch[c];
        memcpy(je->vals[ch->xf], n->xf[ch->xf].v, sizeof je->vals[0]);
    }
    bezier_memo memo = {.valid = 0};
    for (int c = 0; c < je->nch; c++) channel_eval(je->ch[c], t, je->vals[je->ch[c]->xf], &memo);
    for (int c = 0; c < je->nch; c++)
        if (je->ch[c]->elem_matrix) {  /* an affine transform, whatever the bottom-row channels say */
            float *v = je->vals[je->ch[c]->xf];
            v[12] = v[13] = v[14] = 0;
            v[15] = 1;
        }
    mat4 m, x;
    glm_mat4_identity(m);
    for (int i = 0; i < je->nops; i++) {
        const stack_op *op = &je->ops[i];
        /* Transform elements are affine: the cheaper affine product. */
        if (i == 0) {
            if (op->xf < 0) glm_mat4_copy((vec4 *)op->m, m);
            else cl_xform_matrix(&n->xf[op->xf], je->vals[op->xf], m);
        } else if (op->xf < 0) {
            glm_mul(m, (vec4 *)op->m, m);
        } else {
            cl_xform_matrix(&n->xf[op->xf], je->vals[op->xf], x);
            glm_mul(m, x, m);
        }
    }
    cl_conv_matrix(a->conv, m, out);
}

/* ---- the local as translation, rotation and scale ----
 * Two forms of a joint's stack give its local's TRS without a matrix
 * product and its decomposition: a whole <matrix> played as decomposed
 * keys (matrix_trs, within a LINEAR segment or at an end), and
 * translations, then rotations, then constant positive scales (the stack
 * Maya and Blender write: astroBoy's joints). The frame change C M C^-1
 * (C a rotation permuting the axes, and the unit) moves each part on its
 * own: the translation rotated and scaled, the rotation conjugated, the
 * scales permuted. Everything else is evaluated as matrices (eval_local). */
enum { TRS_NONE, TRS_MATRIX, TRS_STACK };

static int trs_form(const joint_eval *je)
{
    const cl_node *n = je->node;
    if (n->xf_count == 1 && n->xf[0].type == CL_XF_MATRIX)
        return je->nch == 1 && je->ch[0]->matrix_trs && je->ch[0]->s->trs ? TRS_MATRIX : TRS_NONE;
    int stage = 0;  /* translations, rotations, scales: in that order */
    for (int i = 0; i < n->xf_count; i++) {
        const cl_xform *x = &n->xf[i];
        int at = x->type == CL_XF_TRANSLATE ? 0 : x->type == CL_XF_ROTATE ? 1 : x->type == CL_XF_SCALE ? 2 : -1;
        if (at < stage) return TRS_NONE;
        stage = at;
        if (at == 2 && !(x->v[0] > 0 && x->v[1] > 0 && x->v[2] > 0)) return TRS_NONE;
    }
    for (int c = 0; c < je->nch; c++)
        if (n->xf[je->ch[c]->xf].type == CL_XF_SCALE) return TRS_NONE;
    return TRS_STACK;
}

/* The rotation of a <rotate> (axis, degrees) as a quaternion: the identity
 * for a vanishing axis, as rotation_matrix gives. */
static inline __attribute__((always_inline)) void rotate_quat(const float *v, double q[4])
{
    double ax = v[0], ay = v[1], az = v[2], len = sqrt(ax * ax + ay * ay + az * az);
    if (!(len > 1e-20)) {
        q[0] = q[1] = q[2] = 0;
        q[3] = 1;
        return;
    }
    /* the half angle's sine and cosine in float, as rotation_matrix's */
    float h = v[3] * (float)(M_PI / 360.0);
    double s = sinf(h) / len;
    q[0] = ax * s;
    q[1] = ay * s;
    q[2] = az * s;
    q[3] = cosf(h);
}

/* A TRS_STACK joint's constant parts, once: the translations' sum, the
 * scales' product, and each run of constant rotations as one quaternion. */
static void prepare_trs(joint_eval *je)
{
    const cl_node *n = je->node;
    double run[4] = {0, 0, 0, 1};
    int in_run = 0;
    je->nrops = 0;
    for (int k = 0; k < 3; k++) {
        je->t0[k] = 0;
        je->s0[k] = 1;
    }
    for (int i = 0; i < n->xf_count; i++) {
        const cl_xform *x = &n->xf[i];
        if (x->type == CL_XF_TRANSLATE && !je->animated[i]) {
            for (int k = 0; k < 3; k++) je->t0[k] += x->v[k];
        } else if (x->type == CL_XF_SCALE) {
            for (int k = 0; k < 3; k++) je->s0[k] *= x->v[k];
        } else if (x->type == CL_XF_ROTATE && !je->animated[i]) {
            double r[4];
            rotate_quat(x->v, r);
            mr_quat_mul_d(run, r, run);
            in_run = 1;
        } else if (x->type == CL_XF_ROTATE) {
            if (in_run) {
                je->rops[je->nrops].xf = -1;
                memcpy(je->rops[je->nrops++].q, run, sizeof run);
                run[0] = run[1] = run[2] = 0;
                run[3] = 1;
                in_run = 0;
            }
            je->rops[je->nrops++].xf = i;
        }
    }
    if (in_run) {
        je->rops[je->nrops].xf = -1;
        memcpy(je->rops[je->nrops++].q, run, sizeof run);
    }
}

/* The local at t as t[3] q[4] s[3] in the model frame (q of unit length,
 * w >= 0 as a decomposition gives it): 1, or 0 where je's form has none
 * (a matrix channel between keys that are not LINEAR). */
static int eval_trs(const anim_ctx *a, joint_eval *je, double t, float o[10])
{
    const cl_node *n = je->node;
    double q[4] = {0, 0, 0, 1};
    float tr[3] = {0, 0, 0}, sc[3] = {1, 1, 1};
    if (je->trs == TRS_MATRIX) {
        sampler *s = je->ch[0]->s;
        int k = find_segment(s, t);
        const float *p0 = s->trs + (size_t)(k < 0 ? 0 : k) * 10;
        if (k >= 0 && k < s->count - 1) {
            if (s->interp[k] != I_LINEAR || !(key_time(s, k + 1) > key_time(s, k))) return 0;
            /* channel_eval's interpolation of the decomposed keys */
            double u = (t - key_time(s, k)) / (key_time(s, k + 1) - key_time(s, k));
            const float *p1 = p0 + 10;
            float qf[4];
            for (int i = 0; i < 3; i++) {
                tr[i] = (float)(p0[i] + u * (p1[i] - p0[i]));
                sc[i] = (float)(p0[7 + i] + u * (p1[7 + i] - p0[7 + i]));
            }
            slerp(p0 + 3, p1 + 3, u, qf);
            for (int i = 0; i < 4; i++) q[i] = qf[i];
        } else {  /* before the first key or from the last on: its value */
            for (int i = 0; i < 3; i++) {
                tr[i] = p0[i];
                sc[i] = p0[7 + i];
            }
            for (int i = 0; i < 4; i++) q[i] = p0[3 + i];
        }
    } else {
        for (int c = 0; c < je->nch; c++) memcpy(je->vals[je->ch[c]->xf], n->xf[je->ch[c]->xf].v, sizeof je->vals[0]);
        bezier_memo memo = {.valid = 0};
        for (int c = 0; c < je->nch; c++) channel_eval(je->ch[c], t, je->vals[je->ch[c]->xf], &memo);
        memcpy(tr, je->t0, sizeof tr);
        memcpy(sc, je->s0, sizeof sc);
        for (int i = 0; i < n->xf_count; i++)
            if (je->animated[i] && n->xf[i].type == CL_XF_TRANSLATE)
                for (int k = 0; k < 3; k++) tr[k] += je->vals[i][k];
        for (int r = 0; r < je->nrops; r++) {
            const trs_op *op = &je->rops[r];
            if (op->xf < 0) {
                mr_quat_mul_d(q, op->q, q);
            } else {
                double rq[4];
                rotate_quat(je->vals[op->xf], rq);
                mr_quat_mul_d(q, rq, q);
            }
        }
    }
    const cl_frame_conv *cv = a->conv;
    if (!cv->identity_rot) {  /* cl_conv_matrix's C M C^-1, part by part */
        vec3 t2;
        glm_mat3_mulv((vec3 *)cv->rot, tr, t2);
        float s2[3];
        for (int i = 0; i < 3; i++)
            s2[i] = fabsf(cv->rot[0][i]) * sc[0] + fabsf(cv->rot[1][i]) * sc[1] + fabsf(cv->rot[2][i]) * sc[2];
        memcpy(tr, t2, sizeof tr);
        memcpy(sc, s2, sizeof sc);
        const double *c = a->conv_q;
        double cc[4] = {-c[0], -c[1], -c[2], c[3]};
        mr_quat_mul_d(c, q, q);
        mr_quat_mul_d(q, cc, q);
    }
    double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double inv = len > 0 ? (q[3] < 0 ? -1 : 1) / len : 0;
    for (int k = 0; k < 3; k++) {
        o[k] = (float)((double)tr[k] * cv->meter);  /* cl_conv_matrix's translation */
        o[3 + k] = (float)(q[k] * inv);
        o[7 + k] = sc[k];
    }
    o[6] = len > 0 ? (float)(q[3] * inv) : 1.0f;
    return 1;
}

/* A key: time, TRS packed as t[3] q[4] s[3], and the cubic tangents
 * (per second) arriving at and leaving the key. */
typedef struct key {
    double t;
    float v[10];
    float tin[10], tout[10];
} key;

/* k's rotation put in align's hemisphere (align NULL: as it is). */
static void align_key(const key *align, key *k)
{
    if (align && k->v[3] * align->v[3] + k->v[4] * align->v[4] + k->v[5] * align->v[5] + k->v[6] * align->v[6] < 0)
        for (int i = 3; i < 7; i++) k->v[i] = -k->v[i];
}

/* The exact local at t in k (tangents 0), its rotation as evaluated;
 * key_at puts it in align's hemisphere (align NULL: as evaluated). */
static void key_at_raw(const anim_ctx *a, joint_eval *je, double t, key *k)
{
    k->t = t;
    if (!(je->trs && eval_trs(a, je, t, k->v))) {
        mat4 m;
        eval_local(a, je, t, m);
        vec3 tr, sc;
        versor q;
        mr_pose_trs_from_matrix(m, tr, q, sc);
        memcpy(k->v, tr, 12);
        memcpy(k->v + 3, q, 16);
        memcpy(k->v + 7, sc, 12);
    }
    memset(k->tin, 0, sizeof k->tin);
    memset(k->tout, 0, sizeof k->tout);
}

static void key_at(const anim_ctx *a, joint_eval *je, double t, const key *align, key *k)
{
    key_at_raw(a, je, t, k);
    align_key(align, k);
}

static void compose_packed(const float *v, mat4 out)
{
    vec3 t = {v[0], v[1], v[2]}, s = {v[7], v[8], v[9]};
    versor q = {v[3], v[4], v[5], v[6]};
    float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (len > 0)
        for (int i = 0; i < 4; i++) q[i] /= len;
    else
        glm_quat_identity(q);
    mr_pose_trs_matrix(t, q, s, out);
}

/* What mr_track_sample gives between k0 and k1 at fraction u: lerp and
 * shortest-path slerp (LINEAR) or the Hermite curve (CUBIC). */
static void interp_keys(const key *k0, const key *k1, float u, int cubic, mat4 out)
{
    float v[10];
    if (!cubic) {
        for (int i = 0; i < 10; i++) v[i] = k0->v[i] + u * (k1->v[i] - k0->v[i]);
        slerp(k0->v + 3, k1->v + 3, u, v + 3);
    } else {
        float dt = (float)(k1->t - k0->t);
        float u2 = u * u, u3 = u2 * u;
        float h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
        for (int i = 0; i < 10; i++)
            v[i] = h00 * k0->v[i] + h10 * dt * k0->tout[i] + h01 * k1->v[i] + h11 * dt * k1->tin[i];
    }
    compose_packed(v, out);
}

/* Error of local matrix b against the exact a, in model units: the
 * translation difference seen through the parent's scale, plus the
 * displacement of a point at distance `size` through the relative change
 * of each axis (so a node's own scale does not inflate it). */
static float mat_error(const mat4 a, const mat4 b, float size, float parent_scale)
{
    float dt = 0, dr = 0;
    for (int i = 0; i < 3; i++) dt += (a[3][i] - b[3][i]) * (a[3][i] - b[3][i]);
    for (int c = 0; c < 3; c++) {
        float e = 0, n = 0;
        for (int i = 0; i < 3; i++) {
            e += (a[c][i] - b[c][i]) * (a[c][i] - b[c][i]);
            n += a[c][i] * a[c][i];
        }
        if (n > 1e-30f) e /= n;
        if (e > dr) dr = e;
    }
    return sqrtf(dt) * parent_scale + size * sqrtf(dr);
}

static float segment_error(const anim_ctx *a, joint_eval *je, const key *k0, const key *k1, const float *fr, int nfr,
                           int cubic, float size)
{
    float worst = 0;
    for (int i = 0; i < nfr; i++) {
        mat4 exact, approx;
        double t = k0->t + (k1->t - k0->t) * fr[i];
        float v[10];
        if (je->trs && eval_trs(a, je, t, v)) compose_packed(v, exact);
        else eval_local(a, je, t, exact);
        interp_keys(k0, k1, fr[i], cubic, approx);
        float e = mat_error(exact, approx, size, je->parent_scale);
        if (e > worst) worst = e;
    }
    return worst;
}

typedef struct key_list {
    key *k;
    size_t n, cap;
} key_list;

static int push_key(key_list *l, const key *k)
{
    if (mr_alloc_reserve((void **)&l->k, &l->cap, l->n + 1, sizeof *l->k)) return -1;
    l->k[l->n++] = *k;
    return 0;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* Sorted unique key times of the joint's channels: times less than
 * MR_CLIP_MIN_KEY_INTERVAL after the one kept before them, as the clip's
 * floats, are merged into it (channels keyed a rounding error apart). */
static double *joint_times(const joint_eval *je, size_t *count)
{
    size_t n = 0;
    for (int c = 0; c < je->nch; c++) n += (size_t)je->ch[c]->s->count;
    double *t = mr_alloc_array(n, sizeof *t);
    if (!t) return NULL;
    size_t m = 0;
    for (int c = 0; c < je->nch; c++) {
        const sampler *s = je->ch[c]->s;
        for (int k = 0; k < s->count; k++) t[m++] = key_time(s, k);
    }
    qsort(t, m, sizeof *t, cmp_double);
    size_t u = 0;
    for (size_t i = 0; i < m; i++)
        if (u == 0 || (double)(float)t[i] - (double)(float)t[u - 1] >= MR_CLIP_MIN_KEY_INTERVAL) t[u++] = t[i];
    *count = u;
    return t;
}

/* The exact local at t as key_at_raw gives it, from known[0..n) when one
 * is at t to the bit (a split's halves meet their parent's fit points:
 * the first half's 2/3 is the whole's 1/3), else evaluated. */
static void key_at_known(const anim_ctx *a, joint_eval *je, double t, const key *known, int n, key *k)
{
    for (int i = 0; i < n; i++)
        if (known[i].t == t) {
            *k = known[i];
            return;
        }
    key_at_raw(a, je, t, k);
}

/* Hermite tangents of segment [k0, k1] that make the curve pass through
 * the exact values at 1/3 and 2/3 of the segment: k0->tout, k1->tin.
 * raw gets those two exact values as evaluated (before alignment), for
 * the halves of a split; known: exact values already evaluated. */
static void fit_segment(const anim_ctx *a, joint_eval *je, key *k0, key *k1, const key *known, int nknown, key raw[2])
{
    key f1, f2;
    double dt = k1->t - k0->t;
    key_at_known(a, je, k0->t + dt / 3, known, nknown, &raw[0]);
    key_at_known(a, je, k0->t + 2 * dt / 3, known, nknown, &raw[1]);
    f1 = raw[0];
    f2 = raw[1];
    align_key(k0, &f1);
    align_key(k0, &f2);
    /* Hermite basis at u = 1/3 and 2/3. */
    const float a00 = 20.0f / 27, a01 = 7.0f / 27, b00 = 7.0f / 27, b01 = 20.0f / 27;
    for (int i = 0; i < 10; i++) {
        float r1 = f1.v[i] - a00 * k0->v[i] - a01 * k1->v[i];
        float r2 = f2.v[i] - b00 * k0->v[i] - b01 * k1->v[i];
        float m0 = 4.5f * (2 * r1 - r2), m1 = 4.5f * (r1 - 2 * r2);
        k0->tout[i] = (float)(m0 / dt);
        k1->tin[i] = (float)(m1 / dt);
    }
}

#define CL_MAX_SPLIT 12

/* Appends keys after k0 up to and including k1 so that every cubic
 * segment is within tolerance (split at midpoints, CL_MAX_SPLIT levels at
 * most, never below 1/CL_MAX_HZ). k0 is the last key of out; known: the
 * exact values the segment this one halves was fitted through. */
static mr_status emit_cubic(anim_ctx *a, joint_eval *je, key_list *out, key k1, float size, int depth,
                            const key *known, int nknown)
{
    /* A cubic through the exact values at 0, 1/3, 2/3, 1 errs most near
     * 1/8 and 7/8 (the middle lobe is about half as large). */
    static const float check[2] = {0.125f, 0.875f};
    key *k0 = &out->k[out->n - 1];
    if (k0->v[3] * k1.v[3] + k0->v[4] * k1.v[4] + k0->v[5] * k1.v[5] + k0->v[6] * k1.v[6] < 0)
        for (int i = 3; i < 7; i++) k1.v[i] = -k1.v[i];
    key fitted[2];
    fit_segment(a, je, k0, &k1, known, nknown, fitted);
    if (depth < CL_MAX_SPLIT && k1.t - k0->t > 2.0 / CL_MAX_HZ &&
        segment_error(a, je, k0, &k1, check, 2, 1, size) > a->tol) {
        key mid;
        key_at(a, je, 0.5 * (k0->t + k1.t), k0, &mid);
        mr_status st = emit_cubic(a, je, out, mid, size, depth + 1, fitted, 2);
        if (st != MR_OK) return st;
        return emit_cubic(a, je, out, k1, size, depth + 1, fitted, 2);
    }
    if (push_key(out, &k1)) return cl_fail_status(a->d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    return MR_OK;
}

enum { KEYS_STEP, KEYS_LINEAR, KEYS_CUBIC };

/* Builds the key list for one joint (see the file comment). */
static mr_status joint_keys(anim_ctx *a, joint_eval *je, float size, key_list *out, int *mode)
{
    out->n = 0;
    *mode = KEYS_STEP;
    for (int c = 0; c < je->nch; c++)
        if (!je->ch[c]->s->all_step) *mode = KEYS_LINEAR;
    size_t nt;
    double *times = joint_times(je, &nt);
    if (!times) return cl_fail_status(a->d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    key_list src = {0};
    key k;
    for (size_t i = 0; i < nt; i++) {
        key_at(a, je, times[i], src.n ? &src.k[src.n - 1] : NULL, &k);
        if (push_key(&src, &k)) {
            free(times);
            free(src.k);
            return cl_fail_status(a->d, MR_ERR_NO_MEMORY, NULL, "out of memory");
        }
    }
    free(times);
    int linear_ok = 1;
    if (*mode == KEYS_LINEAR) {
        static const float mid[1] = {0.5f}, quarters[2] = {0.25f, 0.75f};
        for (size_t i = 0; i + 1 < src.n && linear_ok; i++)
            if (segment_error(a, je, &src.k[i], &src.k[i + 1], mid, 1, 0, size) > a->tol) linear_ok = 0;
        for (size_t i = 0; i + 1 < src.n && linear_ok; i++)
            if (segment_error(a, je, &src.k[i], &src.k[i + 1], quarters, 2, 0, size) > a->tol) linear_ok = 0;
    }
    if (*mode == KEYS_STEP || linear_ok || src.n < 2) {
        free(out->k);
        *out = src;
        return MR_OK;
    }
    *mode = KEYS_CUBIC;
    mr_status st = MR_OK;
    if (push_key(out, &src.k[0])) st = cl_fail_status(a->d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    for (size_t i = 1; i < src.n && st == MR_OK; i++) st = emit_cubic(a, je, out, src.k[i], size, 0, NULL, 0);
    free(src.k);
    return st;
}

/* Fills one track (which: 0 translation, 1 rotation, 2 scale) from the
 * keys. A track that never moves by more than float noise keeps one key,
 * or none when that is the rest value. Noise is 1e-8 of the model size for
 * translations (a file's own units survive a write and read back) and
 * 1e-6 relative for rotation and scale components. */
static mr_status fill_track(mr_track *tr, const key *k, size_t n, int which, const float *rest, int mode, float size)
{
    int comps = which == 1 ? 4 : 3, off = which == 0 ? 0 : which == 1 ? 3 : 7;
    const float *first = k[0].v + off;
    int constant = 1, at_rest = 1;
    for (size_t i = 0; i < n && constant; i++)
        for (int c = 0; c < comps; c++) {
            float eps = which == 0 ? 1e-8f * size : 1e-6f * (1.0f + fabsf(first[c]));
            if (fabsf(k[i].v[off + c] - first[c]) > eps) constant = 0;
            if (mode == KEYS_CUBIC && i + 1 < n && fabsf(k[i].tout[off + c]) * (float)(k[i + 1].t - k[i].t) > eps)
                constant = 0;
            if (mode == KEYS_CUBIC && i > 0 && fabsf(k[i].tin[off + c]) * (float)(k[i].t - k[i - 1].t) > eps)
                constant = 0;
        }
    if (constant) {
        float dot = 0;
        for (int c = 0; c < comps; c++) dot += first[c] * rest[c];
        for (int c = 0; c < comps && at_rest; c++) {
            float r = which == 1 && dot < 0 ? -rest[c] : rest[c];
            float eps = which == 0 ? 1e-8f * size : 1e-6f * (1.0f + fabsf(r));
            if (fabsf(first[c] - r) > eps) at_rest = 0;
        }
        if (at_rest) return MR_OK;
        n = 1;
        mode = KEYS_LINEAR;
    }
    mr_interp interp = mode == KEYS_STEP ? MR_INTERP_STEP : mode == KEYS_CUBIC ? MR_INTERP_CUBIC : MR_INTERP_LINEAR;
    mr_status st = mr_track_init(tr, (int)n, interp);
    if (st != MR_OK) return st;
    for (size_t i = 0; i < n; i++) {
        tr->times[i] = (float)k[i].t;
        if (interp == MR_INTERP_CUBIC) {
            float *dst = tr->values + i * 3 * (size_t)comps;
            memcpy(dst, k[i].tin + off, (size_t)comps * sizeof(float));
            memcpy(dst + comps, k[i].v + off, (size_t)comps * sizeof(float));
            memcpy(dst + 2 * comps, k[i].tout + off, (size_t)comps * sizeof(float));
        } else {
            memcpy(tr->values + i * (size_t)comps, k[i].v + off, (size_t)comps * sizeof(float));
        }
    }
    mr_track_finish(tr);
    return MR_OK;
}

/* ---- clips ------------------------------------------------------------------------- */

static int in_animations(cl_el *anim, cl_el *const *set, int n)
{
    for (cl_el *p = anim; p && cl_is(p, "animation"); p = p->parent)
        for (int i = 0; i < n; i++)
            if (set[i] == p) return 1;
    return 0;
}

typedef struct node_key {
    uintptr_t node;      /* the target <node> element's address */
    int index;           /* channel index, document order */
} node_key;

static int cmp_node_key(const void *x, const void *y)
{
    const node_key *a = x, *b = y;
    if (a->node != b->node) return a->node < b->node ? -1 : 1;
    return a->index - b->index;
}

/* Orders channels by target node (document order within one node, so a
 * later channel on the same value wins). */
static mr_status index_channels(anim_ctx *a)
{
    node_key *keys = mr_alloc_array((size_t)a->channel_count + 1, sizeof *keys);
    a->by_node = mr_alloc_array((size_t)a->channel_count + 1, sizeof *a->by_node);
    if (!keys || !a->by_node) {
        free(keys);
        return cl_fail_status(a->d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    }
    for (int i = 0; i < a->channel_count; i++) keys[i] = (node_key){(uintptr_t)a->channels[i].node_el, i};
    qsort(keys, (size_t)a->channel_count, sizeof *keys, cmp_node_key);
    for (int i = 0; i < a->channel_count; i++) a->by_node[i] = keys[i].index;
    free(keys);
    return MR_OK;
}

/* Position in by_node of the first channel on node el (channel_count when
 * there is none). */
static int first_channel(const anim_ctx *a, const cl_el *el)
{
    int lo = 0, hi = a->channel_count;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if ((uintptr_t)a->channels[a->by_node[mid]].node_el < (uintptr_t)el) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static int cmp_double_asc(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static int morph_in_clip(const morph_channel *mc, const cl_el *morph, cl_el *const *set, int nset)
{
    return mc->morph == morph && (!set || in_animations(mc->anim, set, nset));
}

/* Morph weight tracks of a clip: per morph driven by channels in `set`
 * (NULL: all), the weights sampled at the union of those channels' key
 * times (targets no channel drives keep the mesh's default weight), STEP
 * when every key is STEP, else LINEAR between those times (a Bezier
 * weight curve is kept at its keys only), given to every mesh made from
 * that morph. *last grows to the last key time. */
static mr_status morph_tracks(anim_ctx *a, cl_el *const *set, int nset, mr_model *model, mr_clip *clip,
                              double *last)
{
    cl_doc *d = a->d;
    for (int i = 0; i < a->morph_count; i++) {
        const morph_channel *mc = &a->morphs[i];
        if (!morph_in_clip(mc, mc->morph, set, nset)) continue;
        int first = 1;  /* the morph's first channel in this clip does the work */
        for (int j = 0; j < i && first; j++) first = !morph_in_clip(&a->morphs[j], mc->morph, set, nset);
        if (!first) continue;
        size_t n = 0;
        int all_step = 1;
        for (int j = i; j < a->morph_count; j++)
            if (morph_in_clip(&a->morphs[j], mc->morph, set, nset)) n += (size_t)a->morphs[j].s->count;
        double *times = mr_alloc_array(n, sizeof *times);
        if (!times) return cl_fail_status(d, MR_ERR_NO_MEMORY, mc->el, "out of memory");
        size_t at = 0;
        for (int j = i; j < a->morph_count; j++) {
            const morph_channel *o = &a->morphs[j];
            if (!morph_in_clip(o, mc->morph, set, nset)) continue;
            for (int k = 0; k < o->s->count; k++) times[at++] = key_time(o->s, k);
            all_step &= o->s->all_step;
        }
        qsort(times, n, sizeof *times, cmp_double_asc);
        size_t u = 0;
        for (size_t k = 0; k < n; k++)
            if (!u || times[k] - times[u - 1] > 1e-6) times[u++] = times[k];
        if (u && times[u - 1] > *last) *last = times[u - 1];
        for (int m = 0; m < d->morph_mesh_count; m++) {
            const cl_morph_mesh *mm = &d->morph_meshes[m];
            if (mm->morph != mc->morph) continue;
            const mr_morph_set *ms = model->meshes[mm->mesh].morph;
            mr_morph_channel *ch = mr_morph_tracks_add(&clip->morph, mm->mesh, mm->targets, (int)u,
                                                       all_step ? MR_INTERP_STEP : MR_INTERP_LINEAR);
            if (!ch) {
                free(times);
                return cl_fail_status(d, MR_ERR_NO_MEMORY, mc->el, "out of memory");
            }
            for (size_t k = 0; k < u; k++) {
                ch->times[k] = (float)times[k];
                float *w = ch->values + k * (size_t)mm->targets;
                for (int t = 0; t < mm->targets; t++) w[t] = ms ? ms->weights[t] : 0.0f;
                for (int j = i; j < a->morph_count; j++) {
                    morph_channel *o = &a->morphs[j];
                    if (!morph_in_clip(o, mc->morph, set, nset)) continue;
                    int seg = find_segment(o->s, times[k]);
                    bezier_memo memo = {0};
                    if (o->target >= 0) w[o->target] = (float)sample_comp(o->s, seg, times[k], 0, &memo);
                    else
                        for (int t = 0; t < mm->targets; t++) w[t] = (float)sample_comp(o->s, seg, times[k], t, &memo);
                }
            }
            mr_error err;
            if (mr_morph_channel_validate(ch, &err) != MR_OK) {
                free(times);
                return cl_fail(d, mc->el, "%s", err.msg);
            }
        }
        free(times);
    }
    return MR_OK;
}

/* Builds a clip from the channels selected by `set` (NULL: all). */
static mr_status build_clip(anim_ctx *a, const char *name, cl_el *const *set, int nset, double end, double rate,
                            float size, mr_model *model, int *used)
{
    const cl_scene *s = a->s;
    const mr_skeleton *sk = &model->skeleton;
    mr_clip *clip = NULL;
    mr_clip_create(name, sk->joint_count, &clip);
    if (!clip) return cl_fail_status(a->d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    const channel **chs = mr_alloc_array((size_t)a->channel_count + 1, sizeof *chs);
    int maxxf = 1;
    for (int i = 0; i < s->node_count; i++)
        if (s->nodes[i].xf_count > maxxf) maxxf = s->nodes[i].xf_count;
    float(*vals)[16] = mr_alloc_array((size_t)maxxf, sizeof *vals);
    stack_op *ops = mr_alloc_array((size_t)maxxf, sizeof *ops);
    unsigned char *animated = mr_alloc_array((size_t)maxxf, 1);
    trs_op *rops = mr_alloc_array((size_t)maxxf, sizeof *rops);
    key_list keys = {0};
    mr_status st = MR_OK;
    if (!chs || !vals || !ops || !animated || !rops) st = cl_fail_status(a->d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    double last = 0;
    int any_joint = 0;
    double rate_step = -1;
    int uniform = 1;
    for (int i = 0; i < s->node_count && st == MR_OK; i++) {
        const cl_node *n = &s->nodes[i];
        if (n->joint < 0) continue;
        int nch = 0;
        for (int k = first_channel(a, n->el); k < a->channel_count; k++) {
            const channel *ch = &a->channels[a->by_node[k]];
            if (ch->node_el != n->el) break;
            if (ch->xf >= n->xf_count) continue;
            if (set && !in_animations(ch->anim, set, nset)) continue;
            chs[nch++] = ch;
            used[ch->index] = 1;
        }
        if (!nch) continue;
        any_joint = 1;
        for (int c = 0; c < nch; c++) {
            const sampler *sm = chs[c]->s;
            last = fmax(last, key_time(sm, sm->count - 1));
            for (int k = 1; k < sm->count && uniform; k++) {
                double dt = key_time(sm, k) - key_time(sm, k - 1);
                if (rate_step < 0) rate_step = dt;
                else if (fabs(dt - rate_step) > 1e-4 * rate_step) uniform = 0;
            }
        }
        joint_eval je = {n, chs, nch, vals, ops, 0, a->conv->scale, TRS_NONE, NULL, NULL, 0, {0, 0, 0}, {1, 1, 1}};
        if (n->parent >= 0) {
            const cl_node *p = &s->nodes[n->parent];
            float ps = 0;
            for (int c = 0; c < 3; c++) ps = fmaxf(ps, glm_vec3_norm((float *)p->world[c]));
            je.parent_scale = ps * a->conv->scale;
        }
        prepare_ops(&je, animated);
        je.animated = animated;
        je.rops = rops;
        je.trs = trs_form(&je);
        if (je.trs == TRS_STACK) prepare_trs(&je);
        int mode;
        if ((st = joint_keys(a, &je, size, &keys, &mode)) != MR_OK) break;
        int j = n->joint;
        mr_joint_tracks *jt = &clip->tracks[j];
        if ((st = fill_track(&jt->t, keys.k, keys.n, 0, sk->rest_t[j], mode, size)) != MR_OK) break;
        if ((st = fill_track(&jt->r, keys.k, keys.n, 1, sk->rest_r[j], mode, size)) != MR_OK) break;
        if ((st = fill_track(&jt->s, keys.k, keys.n, 2, sk->rest_s[j], mode, size)) != MR_OK) break;
    }
    free(keys.k);
    free(chs);
    free(vals);
    free(ops);
    free(animated);
    free(rops);
    if (st == MR_OK) st = morph_tracks(a, set, nset, model, clip, &last);
    if (st == MR_OK && !any_joint && !clip->morph) {
        mr_clip_destroy(clip);
        return MR_OK;  /* nothing in this clip moves the skeleton */
    }
    if (st != MR_OK) {
        mr_clip_destroy(clip);
        return st;
    }
    clip->duration = (float)(end > 0 ? end : last);
    if (rate > 0) clip->rate = (float)rate;
    else if (uniform && rate_step > 1e-6) clip->rate = (float)(1.0 / rate_step);
    if ((st = mr_model_add_clip(model, clip)) != MR_OK) {
        mr_clip_destroy(clip);
        return cl_fail_status(a->d, st, NULL, "out of memory");
    }
    return MR_OK;
}

static void anim_free(anim_ctx *a)
{
    for (int i = 0; i < a->sampler_count; i++) {
        a->samplers[i]->el->cache = NULL;
        sampler_free(a->samplers[i]);
    }
    free(a->samplers);
    free(a->morphs);
    free(a->channels);
    free(a->by_node);
}

static mr_status read_clips(anim_ctx *a, float size, mr_model *model, int *used)
{
    cl_doc *d = a->d;
    cl_el *lib_clips = cl_child(d->root, "library_animation_clips");
    int nclips = 0;
    for (cl_el *l = lib_clips; l; l = cl_next(l, "library_animation_clips"))
        for (cl_el *c = cl_child(l, "animation_clip"); c; c = cl_next(c, "animation_clip")) nclips++;
    if (!nclips) {
        char *stem = mr_path_stem(d->name);
        const char *name = stem && *stem ? stem : "default";
        mr_status st = build_clip(a, name, NULL, 0, 0, 0, size, model, used);
        free(stem);
        return st;
    }
    for (cl_el *l = lib_clips; l; l = cl_next(l, "library_animation_clips"))
        for (cl_el *c = cl_child(l, "animation_clip"); c; c = cl_next(c, "animation_clip")) {
            int n = 0;
            for (cl_el *ia = cl_child(c, "instance_animation"); ia; ia = cl_next(ia, "instance_animation")) n++;
            cl_el **set = mr_alloc_array((size_t)n + 1, sizeof *set);
            if (!set) return cl_fail_status(d, MR_ERR_NO_MEMORY, c, "out of memory");
            int k = 0;
            mr_status st = MR_OK;
            for (cl_el *ia = cl_child(c, "instance_animation"); ia && st == MR_OK; ia = cl_next(ia, "instance_animation"))
                st = cl_ref(d, ia, "url", "animation", &set[k++]);
            double end = 0;
            const char *e = cl_attr(c, "end");
            if (st == MR_OK && e) {
                char *stop;
                end = strtod(e, &stop);
                if (stop == e || !isfinite(end) || end < 0) st = cl_fail(d, c, "end=\"%s\" is not a time", e);
            }
            /* marrow's writer keeps the frame rate in an <extra>. */
            double rate = 0;
            for (cl_el *ex = cl_child(c, "extra"); ex && st == MR_OK; ex = cl_next(ex, "extra"))
                for (cl_el *te = cl_child(ex, "technique"); te; te = cl_next(te, "technique")) {
                    const char *prof = cl_attr(te, "profile");
                    cl_el *fr = prof && !strcmp(prof, "marrow") ? cl_child(te, "frame_rate") : NULL;
                    float v;
                    if (fr && cl_fixed_floats(d, fr, &v, 1) == MR_OK && v > 0) rate = v;
                }
            const char *name = cl_attr(c, "name");
            if (!name) name = cl_attr(c, "id");
            if (st == MR_OK) st = build_clip(a, name ? name : "clip", set, k, end, rate, size, model, used);
            free(set);
            if (st != MR_OK) return st;
        }
    return MR_OK;
}

/* ---- matrix element order ------------------------------------------------------ */

/* Is the document written by an FCollada-based exporter (Feeling
 * Software's ColladaMax / ColladaMaya, FCollada itself)? Case matters:
 * OpenCOLLADA's exporters ("OpenCOLLADA...") write (row)(column). */
static int fcollada_tool(const cl_doc *d)
{
    for (cl_el *as = cl_child(d->root, "asset"); as; as = cl_next(as, "asset"))
        for (cl_el *c = cl_child(as, "contributor"); c; c = cl_next(c, "contributor"))
            for (cl_el *t = cl_child(c, "authoring_tool"); t; t = cl_next(t, "authoring_tool")) {
                size_t len;
                char *owned = NULL;
                const char *text = cl_text(t, &len, &owned);
                char buf[256];
                snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), text ? text : "");
                free(owned);
                if (strstr(buf, "FCollada") || strstr(buf, "ColladaMax") || strstr(buf, "ColladaMaya")) return 1;
            }
    return 0;
}

/* Static value of a channel's target <matrix> at row r, column c, or NAN
 * when the node is not in the scene. */
static float static_element(const anim_ctx *a, const channel *ch, int r, int c)
{
    const char *id = cl_attr(ch->node_el, "id");
    for (int i = cl_scene_find(a->s, NULL, 0, id, 1); i >= 0; i = cl_scene_next(a->s, i, 1))
        if (a->s->nodes[i].el == ch->node_el && ch->xf < a->s->nodes[i].xf_count)
            return a->s->nodes[i].xf[ch->xf].v[r * 4 + c];
    return NAN;
}

/* "(i)(j)" matrix element targets: COLLADA says row i, column j, but
 * FCollada-based exporters (3ds Max's ColladaMax above all) write column i,
 * row j. One reading per document, from the data: the reading under which
 * no channel moves a bottom-row element (0..2) away from 0, then the one
 * under which more first keys reproduce the static <matrix>, then the
 * authoring tool. Also warns once when channels drive the bottom row to
 * anything but (0, 0, 0, 1) (FCollada's (3)(3) = 0 excepted): it is
 * ignored. */
static void choose_element_order(anim_ctx *a)
{
    int n = 0, offdiag = 0;
    int bad[2] = {0, 0}, miss[2] = {0, 0};
    const channel *example = NULL;
    for (int c = 0; c < a->channel_count; c++) {
        const channel *ch = &a->channels[c];
        if (ch->mi < 0) continue;
        n++;
        if (ch->mi != ch->mj) offdiag = 1, example = example ? example : ch;
        const sampler *s = ch->s;
        for (int r = 0; r < 2; r++) {
            int row = r ? ch->mj : ch->mi, col = r ? ch->mi : ch->mj;
            if (row == 3 && col < 3)
                for (int k = 0; k < s->count; k++)
                    if (fabsf(s->out.f[(size_t)k * s->out.stride]) > 1e-6f) {
                        bad[r]++;
                        break;
                    }
            float st = static_element(a, ch, row, col), v0 = s->out.f[0];
            if (!isnan(st) && fabsf(v0 - st) > 1e-4f * (1 + fabsf(st))) miss[r]++;
        }
    }
    if (!n) return;
    int cols_first = bad[0] != bad[1] ? bad[1] < bad[0] : miss[0] != miss[1] ? miss[1] < miss[0] : fcollada_tool(a->d);
    long odd = 0;
    for (int c = 0; c < a->channel_count; c++) {
        channel *ch = &a->channels[c];
        if (ch->mi < 0) continue;
        int row = cols_first ? ch->mj : ch->mi, col = cols_first ? ch->mi : ch->mj;
        ch->comp = row * 4 + col;
        if (row != 3) continue;
        const sampler *s = ch->s;
        for (int k = 0; k < s->count; k++) {
            float v = s->out.f[(size_t)k * s->out.stride];
            if (col < 3 ? v != 0 : (v != 1 && v != 0)) {
                odd++;
                break;
            }
        }
    }
    if (a->d->model && cols_first && offdiag) {
        const char *why = bad[0] != bad[1] ? "the bottom row stays 0 only that way"
                        : miss[0] != miss[1] ? "the first keys reproduce the static <matrix> only that way"
                                             : "FCollada-based authoring tool; the data does not decide";
        mr_model_warn(a->d->model, "%s: %d matrix element target(s) (e.g. '%s', line %ld) read as (column)(row): %s",
                      a->d->name, n, cl_attr(example->el, "target"), cl_line(example->el), why);
    }
    if (a->d->model && odd)
        mr_model_warn(a->d->model, "%s: %ld channel(s) animate a matrix's bottom row away from (0, 0, 0, 1): ignored",
                      a->d->name, odd);
}

mr_status cl_anim_read(cl_doc *d, const cl_scene *s, const cl_frame_conv *conv, float size, mr_model *model)
{
    anim_ctx a = {0};
    a.d = d;
    a.s = s;
    a.conv = conv;
    a.tol = (float)(CL_TOLERANCE * size);
    double rows[3][3];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) rows[r][c] = conv->rot[c][r];
    mr_quat_from_rows_d(rows, a.conv_q);
    mr_status st = MR_OK;
    for (cl_el *lib = cl_child(d->root, "library_animations"); lib && st == MR_OK;
         lib = cl_next(lib, "library_animations"))
        st = read_animation(&a, lib, 0);
    if (st == MR_OK) choose_element_order(&a);
    int *used = NULL;
    if (st == MR_OK && a.channel_count) {
        used = mr_alloc_array((size_t)a.channel_count, sizeof *used);
        if (!used) st = cl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    }
    if (st == MR_OK && a.channel_count) st = index_channels(&a);
    if (st == MR_OK && (a.channel_count || a.morph_count)) st = read_clips(&a, size, model, used);
    if (st == MR_OK) {
        long unused = 0, outside = 0;
        for (int c = 0; c < a.channel_count; c++) {
            if (used[c]) continue;
            /* Channels on nodes outside the skeleton (cameras, lights). */
            int in_skel = 0;
            const char *id = cl_attr(a.channels[c].node_el, "id");
            for (int i = cl_scene_find(s, NULL, 0, id, 1); i >= 0 && !in_skel; i = cl_scene_next(s, i, 1))
                in_skel = s->nodes[i].el == a.channels[c].node_el && s->nodes[i].joint >= 0;
            if (in_skel) unused++;
            else outside++;
        }
        if (a.skipped)
            mr_model_warn(model, "%ld animation channel(s) target something other than a node transform (e.g. '%s'): ignored",
                          a.skipped, a.skipped_example);
        if (outside) mr_model_warn(model, "%ld animation channel(s) move nodes outside the skeleton: ignored", outside);
        if (unused) mr_model_warn(model, "%ld animation channel(s) are in no <animation_clip>: ignored", unused);
    }
    free(used);
    anim_free(&a);
    return st;
}
