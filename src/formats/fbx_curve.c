/* fbx_curve.c — FBX animation curves: reading (7.x AnimationCurve, 6.x
 * Channel keys) and evaluation.
 *
 * Each key's interpolation (KeyAttrFlags) is constant (0x2; with 0x100 it
 * holds the next key's value), linear (0x4) or cubic (0x8). A cubic
 * segment is a Bezier curve in (time, value) whose inner control points sit
 * a weight (1/3 of the interval unless weighted: 0x01000000 right,
 * 0x02000000 next left; weights are two 16-bit numbers over 10000 packed in
 * the third KeyAttrDataFloat) in from each key, at heights given by the
 * key's right slope and the next key's left slope (KeyAttrDataFloat's
 * RightSlope and NextLeftSlope; 4 numbers per attribute, each attribute
 * shared by KeyAttrRefCount keys in turn). Slopes of user (0x400) and TCB
 * tangents are used as stored. Auto tangents (cubic without user/TCB) are
 * solved from the neighbouring keys as FBX does: the slope through the
 * neighbours blended with the two one-sided slopes (unless time
 * independent, 0x2000), the stored slopes then acting as an auto bias in
 * percent towards one side (and beyond 500 % adding ((bias-500)/100)^2*40),
 * clamped to zero at a flat neighbour (0x1000) or against overshooting the
 * neighbours (clamp progressive, 0x4000); end keys take the one-sided
 * slope. Outside the keys: Pre-/Post-Extrapolation's Type: 'C' constant
 * (the default), 'R' repeat, 'A' repeat with the value offset, 'M' mirror,
 * 'K' keep the end tangent, repeated Repetition times (-1 for ever).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "formats/fbx_internal.h"

#define F_CONSTANT 0x2u
#define F_LINEAR 0x4u
#define F_CUBIC 0x8u
#define F_CONSTANT_NEXT 0x100u
#define F_TANGENT_TCB 0x200u
#define F_TANGENT_USER 0x400u
#define F_CLAMP 0x1000u
#define F_TIME_INDEPENDENT 0x2000u
#define F_CLAMP_PROGRESSIVE 0x4000u
#define F_WEIGHTED_RIGHT 0x01000000u
#define F_WEIGHTED_NEXT_LEFT 0x02000000u

void fbx_curve_free(fbx_curve *c)
{
    free(c->t);
    free(c->v);
    free(c->flags);
    free(c->data);
    free(c->tan);
    memset(c, 0, sizeof *c);
}

static double bezier(double p0, double p1, double p2, double p3, double u)
{
    double iu = 1 - u;
    return iu * iu * iu * p0 + 3 * iu * iu * u * p1 + 3 * iu * u * u * p2 + u * u * u * p3;
}

static double segment(const fbx_curve *c, int i, double t)
{
    double t0 = c->t[i], t1 = c->t[i + 1], v0 = c->v[i], v1 = c->v[i + 1];
    uint32_t f = c->flags[i];
    double dx = t1 - t0;
    if (!(dx > 0)) return v1;
    double u = (t - t0) / dx;
    if (f & F_CONSTANT) return (f & F_CONSTANT_NEXT) ? v1 : v0;
    if (!(f & F_CUBIC)) return v0 + (v1 - v0) * u;
    double wr = c->tan[i][3], wl = c->tan[i + 1][1];
    double y1 = v0 + c->tan[i][2] * wr * dx, y2 = v1 - c->tan[i + 1][0] * wl * dx;
    if (fabs(wr - 1.0 / 3.0) > 1e-6 || fabs(wl - 1.0 / 3.0) > 1e-6) {
        /* solve x(s) = u: x is monotone on [0, 1] for weights in [0, 1] */
        double x1 = wr, x2 = 1 - wl, lo = 0, hi = 1;
        for (int k = 0; k < 60; k++) {
            double mid = (lo + hi) / 2;
            if (bezier(0, x1, x2, 1, mid) < u) lo = mid;
            else hi = mid;
        }
        u = (lo + hi) / 2;
    }
    return bezier(v0, y1, y2, v1, u);
}

/* The value inside the keys (t clamped to them). */
static double inside(const fbx_curve *c, double t)
{
    int n = c->count;
    if (t <= c->t[0]) return c->v[0];
    if (t >= c->t[n - 1]) return c->v[n - 1];
    int lo = c->hint, hi;
    if (lo >= 0 && lo + 1 < n && c->t[lo] <= t && t < c->t[lo + 1]) {
        hi = lo + 1;
    } else if (lo >= 0 && lo + 2 < n && c->t[lo + 1] <= t && t < c->t[lo + 2]) {
        lo++;  /* the next segment: sampling walks forwards */
        hi = lo + 1;
    } else {
        lo = 0;
        hi = n - 1;
        while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            if (c->t[mid] <= t) lo = mid;
            else hi = mid;
        }
    }
    ((fbx_curve *)c)->hint = lo;  /* a cache of where the last evaluation was */
    if (t == c->t[lo]) return c->v[lo];
    return segment(c, lo, t);
}

double fbx_curve_eval_segment(const fbx_curve *c, int i, double t)
{
    return segment(c, i, t);
}

double fbx_curve_eval(const fbx_curve *c, double t)
{
    if (!c || c->count <= 0) return 0;
    int n = c->count;
    if (n == 1) return c->v[0];
    double first = c->t[0], last = c->t[n - 1];
    if (t >= first && t <= last) return inside(c, t);
    int pre = t < first;
    int mode = pre ? c->pre_mode : c->post_mode, reps = pre ? c->pre_count : c->post_count;
    int k = pre ? 0 : n - 1;
    if (mode == 'K') {  /* keep the end key's tangent */
        double slope = pre ? c->tan[0][2] : c->tan[n - 1][0];
        if (c->flags[pre ? 0 : n - 2] & (F_CONSTANT)) slope = 0;
        if (!(c->flags[pre ? 0 : n - 2] & F_CUBIC) && !(c->flags[pre ? 0 : n - 2] & F_CONSTANT))
            slope = (c->v[1 + (pre ? 0 : n - 2)] - c->v[pre ? 0 : n - 2]) / (c->t[1 + (pre ? 0 : n - 2)] - c->t[pre ? 0 : n - 2]);
        return c->v[k] + slope * (t - c->t[k]);
    }
    if ((mode != 'R' && mode != 'A' && mode != 'M') || reps == 0) return c->v[k];
    /* in ticks, so that whole repetitions land on frames exactly */
    double t0 = rint(first * FBX_TICKS), t1 = rint(last * FBX_TICKS), x = t * FBX_TICKS;
    double span = t1 - t0;
    if (!(span >= 1)) return c->v[k];
    double delta = pre ? t0 - x : x - t1;
    double rep = floor(delta / span), rest = delta - rep * span;
    if (reps > 0 && rep >= reps) {
        rep = reps - 1;
        rest = span;
    }
    if (mode == 'M' && rep * 0.5 - floor(rep * 0.5) <= 0.25) rest = span - rest;
    if (pre) rest = span - rest;
    double v = inside(c, (t0 + rest) / FBX_TICKS);
    if (mode == 'A') {
        double step = c->v[n - 1] - c->v[0];
        v += (pre ? -step : step) * (rep + 1);
    }
    return v;
}

int fbx_curve_span_poly(const fbx_curve *c, double ta, double tb, double *t0, double *inv_dx, double p[4])
{
    if (!c || c->count < 2 || !(ta >= c->t[0]) || !(tb < c->t[c->count - 1]) || !(ta <= tb)) return 0;
    int i = c->hint;  /* sampling walks forwards: the last segment or the next */
    if (!(i >= 0 && i + 1 < c->count && c->t[i] <= ta && tb < c->t[i + 1])) i++;
    if (!(i >= 0 && i + 1 < c->count && c->t[i] <= ta && tb < c->t[i + 1])) {
        int lo = 0, hi = c->count - 1;
        while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            if (c->t[mid] <= ta) lo = mid;
            else hi = mid;
        }
        if (!(tb < c->t[lo + 1])) return 0;
        i = lo;
    }
    double dx = c->t[i + 1] - c->t[i], v0 = c->v[i], v1 = c->v[i + 1];
    uint32_t f = c->flags[i];
    if (!(dx > 0)) return 0;
    *t0 = c->t[i];
    *inv_dx = 1 / dx;
    p[1] = p[2] = p[3] = 0;
    if (f & F_CONSTANT) {
        p[0] = (f & F_CONSTANT_NEXT) ? v1 : v0;
    } else if (!(f & F_CUBIC)) {
        p[0] = v0;
        p[1] = v1 - v0;
    } else {
        double wr = c->tan[i][3], wl = c->tan[i + 1][1];
        if (fabs(wr - 1.0 / 3.0) > 1e-6 || fabs(wl - 1.0 / 3.0) > 1e-6) return 0;
        /* segment's Bezier (v0, y1, y2, v1) in the power basis */
        double y1 = v0 + c->tan[i][2] * wr * dx, y2 = v1 - c->tan[i + 1][0] * wl * dx;
        p[0] = v0;
        p[1] = 3 * (y1 - v0);
        p[2] = 3 * (v0 - 2 * y1 + y2);
        p[3] = v1 - v0 + 3 * (y1 - y2);
    }
    ((fbx_curve *)c)->hint = i;
    return 1;
}

int fbx_curve_constant(const fbx_curve *c)
{
    if (!c || c->count <= 0) return 0;
    for (int i = 0; i < c->count; i++)
        if (c->v[i] != c->v[0] || c->tan[i][0] != 0 || c->tan[i][2] != 0) return 0;
    return 1;
}

/* The stored attributes are read once, into tan: freed then, so that the
 * next curve's reuse the memory (mixamo.fbx: 159 curves of 506 keys). */
static void drop_data(fbx_curve *c)
{
    free(c->data);
    c->data = NULL;
}

/* n elements of size bytes, not zeroed (mr_alloc_array's bounds). */
static void *key_array(size_t n, size_t size)
{
    return n <= MR_ALLOC_LIMIT / size ? malloc(n * size) : NULL;
}

/* Room for n keys: times, values, flags and tangents are written for
 * every key a reader keeps before anything reads them (the 7.x reader
 * every key, the 6.x reader up to its count; check_keys moves the solved
 * tangents' room along unread), so they are left unzeroed; the stored
 * attributes are zeroed unless the reader writes every key's (zero_data
 * 0: a 7.x curve with KeyAttrFlags; one without reads them unset). */
static mr_status alloc_keys(fbx_scene *s, fbx_curve *c, size_t n, int zero_data)
{
    c->t = key_array(n + 1, sizeof *c->t);
    c->v = key_array(n + 1, sizeof *c->v);
    c->flags = key_array(n + 1, sizeof *c->flags);
    c->data = zero_data ? mr_alloc_array(n + 1, sizeof *c->data) : key_array(n + 1, sizeof *c->data);
    c->tan = key_array(n + 1, sizeof *c->tan);
    c->pre_mode = c->post_mode = 'C';
    c->pre_count = c->post_count = -1;
    if (!c->t || !c->v || !c->flags || !c->data || !c->tan)
        return mr_error_set(s->err, MR_ERR_NO_MEMORY, "fbx: %s: out of memory", s->path);
    return MR_OK;
}

/* An auto tangent's slope at key i from its neighbours (bias: the stored
 * slope, read as an auto bias in percent). */
static double auto_slope(const fbx_curve *c, int i, double wl, double wr, double bias)
{
    uint32_t f = c->flags[i];
    double tp = c->t[i - 1], t = c->t[i], tn = c->t[i + 1], vp = c->v[i - 1], v = c->v[i], vn = c->v[i + 1];
    if ((f & F_CLAMP) && fmin(fabs(vp - v), fabs(vn - v)) <= 0) return 0;
    double slope = (vn - vp) / (tn - tp);
    if (!(f & F_TIME_INDEPENDENT)) {
        double left = (v - vp) / (t - tp), right = (vn - v) / (tn - t), a = (t - tp) / (tn - tp);
        slope = 0.5 * slope + 0.5 * (left * (1 - a) + right * a);
        double bw = fabs(bias) / 100.0;
        if (bw > 0.0001) {
            double target = bias > 0 ? right : left, towards = target - slope;
            slope += (target - slope) * bw;
            if (bw > 5) {
                double sign = fabs(towards) > 0.00001 ? towards : bias;
                slope += (bw - 5) * (bw - 5) * 40.0 * (sign > 0 ? 1 : -1);
            }
        }
    }
    if (f & F_CLAMP_PROGRESSIVE) {
        double sign = slope >= 0 ? 1 : -1, mag = fabs(slope);
        double rl = wl * (t - tp), rr = wr * (tn - t);
        double ml = rl > 0 ? sign * (v - vp) / rl : 0, mr = rr > 0 ? sign * (vn - v) / rr : 0;
        if (!(ml > 0)) ml = 0;
        if (!(mr > 0)) mr = 0;
        mag = fmin(mag, fmin(ml, mr));
        slope = sign * mag;
    }
    return slope;
}

/* An end key's auto slope: the one-sided slope (plus a bias beyond 500 %). */
static double edge_slope(const fbx_curve *c, int a, int b, uint32_t f, double bias)
{
    if (f & F_CLAMP_PROGRESSIVE) return 0;
    if ((f & F_CLAMP) && fabs(c->v[b] - c->v[a]) <= 0) return 0;
    double slope = (c->v[b] - c->v[a]) / (c->t[b] - c->t[a]);
    if (!(f & F_TIME_INDEPENDENT)) {
        double over = fabs(bias) / 100.0 - 5;
        if (over > 0) slope += over * over * 40.0 * (bias > 0 ? 1 : -1);
    }
    return slope;
}

/* Left/right slopes and weights of every key (c->tan) from the flags and
 * stored slopes, as the header comment says. */
static void solve_tangents(fbx_curve *c)
{
    double sl = 0, wl = 1.0 / 3.0;   /* the previous key's NextLeft values */
    int n = c->count;
    for (int i = 0; i < n; i++) {
        uint32_t f = c->flags[i];
        const float *d = c->data[i];
        double sr = d[0], wr = 1.0 / 3.0, nsl = d[1], nwl = 1.0 / 3.0;
        if (f & (F_WEIGHTED_RIGHT | F_WEIGHTED_NEXT_LEFT)) {
            uint32_t packed;
            memcpy(&packed, &d[2], sizeof packed);
            if (f & F_WEIGHTED_RIGHT) wr = (packed & 0xffffu) * 0.0001;
            if (f & F_WEIGHTED_NEXT_LEFT) nwl = (packed >> 16) * 0.0001;
        }
        int has_prev = i > 0 && c->t[i] > c->t[i - 1], has_next = i + 1 < n && c->t[i + 1] > c->t[i];
        if (f & F_CONSTANT) {
            sr = nsl = 0;
            wr = nwl = 1.0 / 3.0;
        } else if (f & F_CUBIC) {
            if (!(f & (F_TANGENT_TCB | F_TANGENT_USER))) {
                if (has_prev && has_next) {
                    if (fabs(sl + sr) <= 0.0001) {
                        sl = sr = auto_slope(c, i, wl, wr, sr);
                    } else {
                        double l = auto_slope(c, i, wl, wr, -sl), r = auto_slope(c, i, wl, wr, sr);
                        sl = l;
                        sr = r;
                    }
                } else if (has_prev) {
                    sl = sr = edge_slope(c, i - 1, i, f, -sl);
                } else if (has_next) {
                    sl = sr = edge_slope(c, i, i + 1, f, sr);
                } else {
                    sl = sr = 0;
                }
            }
        } else {
            wr = nwl = 1.0 / 3.0;
            sr = nsl = has_next ? (c->v[i + 1] - c->v[i]) / (c->t[i + 1] - c->t[i]) : 0;
        }
        c->tan[i][0] = (float)sl;
        c->tan[i][1] = (float)wl;
        c->tan[i][2] = (float)sr;
        c->tan[i][3] = (float)wr;
        sl = nsl;
        wl = nwl;
    }
}

static void read_extrapolation(const mr_fbx_node *n, const char *name, int *mode, int *count)
{
    const mr_fbx_node *e = mr_fbx_child(n, name);
    if (!e) return;
    const mr_fbx_node *type = mr_fbx_child(e, "Type");
    const char *str = mr_fbx_prop_string(type, 0, NULL);
    int m = str ? str[0] : (int)mr_fbx_prop_int(type, 0);
    if (m == 'C' || m == 'R' || m == 'A' || m == 'M' || m == 'K') *mode = m;
    const mr_fbx_node *rep = mr_fbx_child(e, "Repetition");
    if (rep) {
        int64_t r = mr_fbx_prop_int(rep, 0);
        *count = r < 0 || r > (1 << 30) ? -1 : (int)r;
    }
}

/* Keys must be finite and ascending (equal times keep the later key). */
static mr_status check_keys(fbx_scene *s, const mr_fbx_node *at, fbx_curve *c)
{
    int w = 0;
    for (int i = 0; i < c->count; i++) {
        if (!isfinite(c->t[i]) || !isfinite(c->v[i]))
            return fbx_fail(s, at, "key %d: expected a finite time and value", i);
        if (w > 0 && c->t[i] < c->t[w - 1])
            return fbx_fail(s, at, "key %d: time %g s is before the previous key's %g s (expected ascending times)",
                            i, c->t[i], c->t[w - 1]);
        if (w > 0 && c->t[i] == c->t[w - 1]) w--;
        if (w == i) {  /* nothing dropped yet: the key is in place */
            w++;
            continue;
        }
        c->t[w] = c->t[i];
        c->v[w] = c->v[i];
        c->flags[w] = c->flags[i];
        memcpy(c->data[w], c->data[i], sizeof c->data[w]);
        memcpy(c->tan[w], c->tan[i], sizeof c->tan[w]);
        w++;
    }
    c->count = w;
    return MR_OK;
}

mr_status fbx_curve_read(fbx_scene *s, int obj, fbx_curve *c)
{
    memset(c, 0, sizeof *c);
    const mr_fbx_node *n = s->objs[obj].node;
    const int64_t *times, *flags, *refs;
    const double *vals, *data;
    size_t nt, nv, nf, nd, nr;
    mr_status st;
    if ((st = fbx_array_i(s, n, "KeyTime", &times, &nt)) != MR_OK) return st;
    /* a float array (binary files) is taken as it is: widened to doubles
     * and back it is the same, at twice its size in memory */
    const mr_fbx_node *kv = mr_fbx_child(n, "KeyValueFloat");
    const float *fvals = kv && kv->prop_count >= 1 && kv->props[0].type == 'f' ? kv->props[0].v.array : NULL;
    if (fvals) {
        vals = NULL;
        nv = kv->props[0].count;
    } else {
        if ((st = fbx_array_d(s, n, "KeyValueFloat", &vals, &nv)) != MR_OK) return st;
        if (!vals && (st = fbx_array_d(s, n, "KeyValueDouble", &vals, &nv)) != MR_OK) return st;
    }
    if ((st = fbx_array_i(s, n, "KeyAttrFlags", &flags, &nf)) != MR_OK) return st;
    if ((st = fbx_array_d(s, n, "KeyAttrDataFloat", &data, &nd)) != MR_OK) return st;
    if ((st = fbx_array_i(s, n, "KeyAttrRefCount", &refs, &nr)) != MR_OK) return st;
    if (nt != nv)
        return fbx_fail(s, mr_fbx_child(n, "KeyValueFloat") ? mr_fbx_child(n, "KeyValueFloat") : n,
                        "expected %zu values (one per KeyTime), got %zu", nt, nv);
    if (nd < nf * 4) return fbx_fail(s, mr_fbx_child(n, "KeyAttrDataFloat") ? mr_fbx_child(n, "KeyAttrDataFloat") : n,
                                     "expected 4 numbers per KeyAttrFlags entry (%zu), got %zu", nf, nd);
    if (nr < nf) return fbx_fail(s, mr_fbx_child(n, "KeyAttrRefCount") ? mr_fbx_child(n, "KeyAttrRefCount") : n,
                                 "expected one count per KeyAttrFlags entry (%zu), got %zu", nf, nr);
    if (nt == 0) return MR_OK;
    if ((st = alloc_keys(s, c, nt, !nf)) != MR_OK) return st;  /* with attributes, every key's written below */
    size_t attr = 0;
    int64_t left = nf ? refs[0] : 0;
    const mr_fbx_node *dn = mr_fbx_child(n, "KeyAttrDataFloat");
    int int_bits = s->doc->ascii && dn && dn->prop_count == 1 && dn->props[0].type == 'l';
    if (!s->doc->ascii && nf) {
        /* binary: each attribute's numbers converted once for the keys sharing it */
        size_t i = 0;
        for (attr = 0; attr < nf && i < nt; attr++) {
            /* an attribute of no keys is passed over; the last holds every key left */
            int64_t share = attr + 1 == nf ? (int64_t)(nt - i) : refs[attr];
            float d[4] = {(float)data[attr * 4], (float)data[attr * 4 + 1], (float)data[attr * 4 + 2], (float)data[attr * 4 + 3]};
            uint32_t fl = (uint32_t)flags[attr];
            for (; share > 0 && i < nt; share--, i++) {
                c->t[i] = (double)times[i] / FBX_TICKS;
                c->v[i] = fvals ? fvals[i] : (float)vals[i];
                c->flags[i] = fl;
                memcpy(c->data[i], d, sizeof d);
            }
        }
    }
    for (size_t i = s->doc->ascii || !nf ? 0 : nt; i < nt; i++) {
        c->t[i] = (double)times[i] / FBX_TICKS;
        c->v[i] = fvals ? fvals[i] : (float)vals[i];
        while (nf && left <= 0 && attr + 1 < nf) left = refs[++attr];
        if (nf) {
            c->flags[i] = (uint32_t)flags[attr];
            for (int k = 0; k < 4; k++) {
                double x = data[attr * 4 + (size_t)k];
                if (int_bits || (s->doc->ascii && k == 2)) {
                    /* ASCII writes the packed weights, and some writers every
                     * number, as the float's 32 bits in an integer */
                    uint32_t bits = (uint32_t)(int64_t)x;
                    memcpy(&c->data[i][k], &bits, sizeof bits);
                    if (!isfinite(c->data[i][k])) c->data[i][k] = 0;
                } else {
                    c->data[i][k] = (float)x;
                }
            }
            left--;
        } else {
            c->flags[i] = F_LINEAR;
        }
    }
    c->count = (int)nt;
    read_extrapolation(n, "Pre-Extrapolation", &c->pre_mode, &c->pre_count);
    read_extrapolation(n, "Post-Extrapolation", &c->post_mode, &c->post_count);
    st = check_keys(s, n, c);
    if (st == MR_OK) solve_tangents(c);
    drop_data(c);
    return st;
}

/* 6.x: `Key:` is one heterogeneous list: per key a time (ticks), a value
 * and a letter (binary: a 'C' byte; ASCII: a bare word): 'L' linear; 'C'
 * constant, then (KeyVer 4004 on) 's' or 'n' (hold this or the next
 * value); 'U' cubic, then a slope mode: 's'/'b' with two slopes (right,
 * next left), 'a' (baked keys: automatic slopes), 'p'/'q' with two
 * numbers, 't' with three, 'd' with one (all but 's'/'b' solved as
 * automatic, clamped, time-independent slopes); then weight modes ('n'
 * none, 'a' right and next left weight, 'r' right, 'l' next left, 'c'
 * none): one after 's'/'b' (none in KeyVer 4003), none after 'a' before
 * KeyVer 4005, one or two after 'p'/'q', one after 'd', none after 't'. */
static int letter(const mr_fbx_node *key, uint32_t i)
{
    if (i >= key->prop_count) return -1;
    const mr_fbx_prop *p = &key->props[i];
    if (p->type == 'S') return p->count ? (unsigned char)p->v.s[0] : -1;
    double v = mr_fbx_prop_double(key, i);
    return v >= 0 && v < 256 ? (int)v : -1;
}

static int number(const mr_fbx_node *key, uint32_t i, double *out)
{
    if (i >= key->prop_count || key->props[i].type == 'S' || key->props[i].type == 'R') return 0;
    *out = mr_fbx_prop_double(key, i);
    return isfinite(*out);
}

mr_status fbx_curve_read_v6(fbx_scene *s, const mr_fbx_node *ch, fbx_curve *c, int *has)
{
    memset(c, 0, sizeof *c);
    *has = 0;
    const mr_fbx_node *key = mr_fbx_child(ch, "Key");
    if (!key) return MR_OK;
    int ver = (int)mr_fbx_prop_int(mr_fbx_child(ch, "KeyVer"), 0);
    if (ver <= 0) ver = s->doc->version < 5000 ? 4003 : s->doc->version < 6000 ? 4004 : 4005;
    uint32_t np = key->prop_count;
    size_t cap = np / 3 + 1;
    mr_status st = alloc_keys(s, c, cap, 1);
    if (st != MR_OK) return st;
    uint32_t i = 0;
    int n = 0;
    char *autos = calloc(cap, 1);
    if (!autos) {
        fbx_curve_free(c);
        return mr_error_set(s->err, MR_ERR_NO_MEMORY, "fbx: %s: out of memory", s->path);
    }
    double sl = 0, wl = 1.0 / 3.0;
#define NEED(k) do { if (i + (k) > np) { free(autos); return fbx_fail(s, key, "key %d: expected %d more numbers", n, (int)(k)); } } while (0)
    while (i < np && (size_t)n < cap) {
        double t, v;
        if (!number(key, i, &t) || !number(key, i + 1, &v)) {
            free(autos);
            return fbx_fail(s, key, "key %d (entry %u): expected a time and a value", n, i);
        }
        int mode = letter(key, i + 2);
        i += 3;
        c->t[n] = t / FBX_TICKS;
        c->v[n] = (float)v;
        double sr = 0, wr = 1.0 / 3.0, nsl = 0, nwl = 1.0 / 3.0;
        if (mode == 'U') {
            c->flags[n] = F_CUBIC;
            int sm = letter(key, i++);
            int weights = 1;
            if (sm == 's' || sm == 'b') {
                NEED(2);
                number(key, i, &sr);
                number(key, i + 1, &nsl);
                i += 2;
                if (ver == 4003) weights = 0;
            } else if (sm == 'a') {
                autos[n] = 1;
                if (ver <= 4004) weights = 0;
            } else if (sm == 'p' || sm == 'q') {
                autos[n] = 1;
                NEED(2);
                i += 2;
                weights = ver <= 4004 ? 1 : 2;
            } else if (sm == 't') {
                autos[n] = 1;
                NEED(3);
                i += 3;
                weights = 0;
            } else if (sm == 'd') {
                autos[n] = 1;
                NEED(1);
                i += 1;
            } else {
                free(autos);
                return fbx_fail(s, key, "key %d: expected a slope mode (s, b, a, p, q, t or d)", n);
            }
            for (; weights > 0; weights--) {
                int wm = letter(key, i++);
                if (wm == 'a') {
                    NEED(2);
                    number(key, i, &wr);
                    number(key, i + 1, &nwl);
                    i += 2;
                } else if (wm == 'l') {
                    NEED(1);
                    number(key, i++, &nwl);
                } else if (wm == 'r') {
                    NEED(1);
                    number(key, i++, &wr);
                } else if (wm != 'n' && wm != 'c') {
                    free(autos);
                    return fbx_fail(s, key, "key %d: expected a weight mode (n, a, l, r or c)", n);
                }
            }
        } else if (mode == 'L') {
            c->flags[n] = F_LINEAR;
        } else if (mode == 'C') {
            c->flags[n] = F_CONSTANT;
            if (ver >= 4004) {
                if (letter(key, i) == 'n') c->flags[n] |= F_CONSTANT_NEXT;
                i++;
            }
        } else {
            free(autos);
            return fbx_fail(s, key, "key %d: expected an interpolation (U, L or C)", n);
        }
        if (!(wr >= 0 && wr <= 1)) wr = 1.0 / 3.0;
        if (!(nwl >= 0 && nwl <= 1)) nwl = 1.0 / 3.0;
        c->tan[n][0] = (float)sl;
        c->tan[n][1] = (float)wl;
        c->tan[n][2] = (float)sr;
        c->tan[n][3] = (float)wr;
        sl = nsl;
        wl = nwl;
        n++;
    }
#undef NEED
    c->count = n;
    /* automatic slopes: clamped progressive, time independent, from the neighbours */
    for (int k = 0; k < n; k++) {
        if (!autos[k]) continue;
        double slope = 0;
        if (k > 0 && k + 1 < n && c->t[k] > c->t[k - 1] && c->t[k + 1] > c->t[k]) {
            uint32_t keep = c->flags[k];
            c->flags[k] = F_CLAMP_PROGRESSIVE | F_TIME_INDEPENDENT;
            slope = auto_slope(c, k, c->tan[k][1], c->tan[k][3], 0);
            c->flags[k] = keep;
        }
        c->tan[k][2] = (float)slope;
        if (k + 1 < n) c->tan[k + 1][0] = (float)slope;
    }
    for (int k = 0; k + 1 < n; k++)
        if (c->flags[k] & F_LINEAR) {
            double dt = c->t[k + 1] - c->t[k];
            double slope = dt > 0 ? (c->v[k + 1] - c->v[k]) / dt : 0;
            c->tan[k][2] = (float)slope;
            c->tan[k + 1][0] = (float)slope;
        }
    free(autos);
    *has = n > 0;
    read_extrapolation(ch, "Pre-Extrapolation", &c->pre_mode, &c->pre_count);
    read_extrapolation(ch, "Post-Extrapolation", &c->post_mode, &c->post_count);
    st = check_keys(s, key, c);
    drop_data(c);
    return st;
}
