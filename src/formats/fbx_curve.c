/* fbx_curve.c — FBX animation curves: reading (7.x AnimationCurve, 6.x
 * Channel keys) and evaluation.
 *
 * Each key's interpolation (KeyAttrFlags): constant (0x2; with 0x100 it
 * holds the next key's value), linear (0x4) or cubic (0x8). A cubic segment
 * is a Bezier curve in (time, value): control points one third of the
 * interval in from each key (or the key's weight, when weighted: 0x01000000
 * right, 0x02000000 next left; weights packed as two 16-bit numbers over
 * 9999), their heights given by the slopes RightSlope and NextLeftSlope
 * (KeyAttrDataFloat: 4 numbers per attribute, shared by KeyAttrRefCount
 * keys in turn). Non-weighted segments are Hermite curves with those
 * slopes; weighted ones solve the time polynomial first. Before the first
 * and after the last key the end value holds (constant extrapolation), or
 * the curve repeats / keeps its slope when the 6.x file says so.
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
#define F_WEIGHTED_RIGHT 0x01000000u
#define F_WEIGHTED_NEXT_LEFT 0x02000000u

void fbx_curve_free(fbx_curve *c)
{
    free(c->t);
    free(c->v);
    free(c->flags);
    free(c->data);
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
    const float *d = c->data[i];
    double w0 = 1.0 / 3.0, w1 = 1.0 / 3.0;
    uint32_t packed;
    float fw = d[2];
    memcpy(&packed, &fw, sizeof packed);
    if (f & F_WEIGHTED_RIGHT) w0 = (packed & 0xffffu) / 9999.0;
    if (f & F_WEIGHTED_NEXT_LEFT) w1 = (packed >> 16) / 9999.0;
    double y1 = v0 + d[0] * w0 * dx, y2 = v1 - d[1] * w1 * dx;
    if (fabs(w0 - 1.0 / 3.0) > 1e-9 || fabs(w1 - 1.0 / 3.0) > 1e-9) {
        /* solve x(u) = t, x monotone on [0, 1] when the weights are in [0, 1] */
        double x1 = w0, x2 = 1 - w1, lo = 0, hi = 1;
        for (int k = 0; k < 60; k++) {
            double mid = (lo + hi) / 2;
            if (bezier(0, x1, x2, 1, mid) < u) lo = mid;
            else hi = mid;
        }
        u = (lo + hi) / 2;
    }
    return bezier(v0, y1, y2, v1, u);
}

double fbx_curve_eval(const fbx_curve *c, double t)
{
    if (!c || c->count <= 0) return 0;
    int n = c->count;
    double first = c->t[0], last = c->t[n - 1];
    if (n == 1) return c->v[0];
    double span = last - first;
    if (t < first) {
        if (c->pre_mode == 1 && span > 0) t = last - fmod(first - t, span);
        else if (c->pre_mode == 3) {
            double slope = (c->v[1] - c->v[0]) / (c->t[1] - c->t[0]);
            return c->v[0] - slope * (first - t);
        } else return c->v[0];
    } else if (t > last) {
        if (c->post_mode == 1 && span > 0) t = first + fmod(t - last, span);
        else if (c->post_mode == 3) {
            double slope = (c->v[n - 1] - c->v[n - 2]) / (c->t[n - 1] - c->t[n - 2]);
            return c->v[n - 1] + slope * (t - last);
        } else return c->v[n - 1];
    }
    int lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (c->t[mid] <= t) lo = mid;
        else hi = mid;
    }
    if (t >= c->t[hi]) return c->v[hi];
    return segment(c, lo, t);
}

static mr_status alloc_keys(fbx_scene *s, fbx_curve *c, size_t n)
{
    c->t = mr_alloc_array(n + 1, sizeof *c->t);
    c->v = mr_alloc_array(n + 1, sizeof *c->v);
    c->flags = mr_alloc_array(n + 1, sizeof *c->flags);
    c->data = mr_alloc_array(n + 1, sizeof *c->data);
    if (!c->t || !c->v || !c->flags || !c->data)
        return mr_error_set(s->err, MR_ERR_NO_MEMORY, "fbx: %s: out of memory", s->path);
    return MR_OK;
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
        c->t[w] = c->t[i];
        c->v[w] = c->v[i];
        c->flags[w] = c->flags[i];
        memcpy(c->data[w], c->data[i], sizeof c->data[w]);
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
    if ((st = fbx_array_d(s, n, "KeyValueFloat", &vals, &nv)) != MR_OK) return st;
    if (!vals && (st = fbx_array_d(s, n, "KeyValueDouble", &vals, &nv)) != MR_OK) return st;
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
    if ((st = alloc_keys(s, c, nt)) != MR_OK) return st;
    size_t attr = 0;
    int64_t left = nf ? refs[0] : 0;
    for (size_t i = 0; i < nt; i++) {
        c->t[i] = (double)times[i] / FBX_TICKS;
        c->v[i] = (float)vals[i];
        while (nf && left <= 0 && attr + 1 < nf) left = refs[++attr];
        if (nf) {
            c->flags[i] = (uint32_t)flags[attr];
            for (int k = 0; k < 4; k++) c->data[i][k] = (float)data[attr * 4 + (size_t)k];
            if (s->doc->ascii) {  /* ASCII writes the packed weights as an integer */
                uint32_t packed = (uint32_t)(int64_t)data[attr * 4 + 2];
                memcpy(&c->data[i][2], &packed, sizeof packed);
            }
            left--;
        } else {
            c->flags[i] = F_LINEAR;
        }
    }
    c->count = (int)nt;
    return check_keys(s, n, c);
}

/* 6.x: `Key: time,value,type[,params...], ...` with types L (linear),
 * C (constant, then 's' or 'n'), U (cubic, then a tangent mode letter and
 * slopes/weights: 's' or 'a' + right slope, next left slope; 'b'/'p'
 * variants carry weights). */
mr_status fbx_curve_read_v6(fbx_scene *s, const mr_fbx_node *ch, fbx_curve *c, int *has)
{
    memset(c, 0, sizeof *c);
    *has = 0;
    const mr_fbx_node *key = mr_fbx_child(ch, "Key");
    if (!key) return MR_OK;
    uint32_t np = key->prop_count;
    size_t cap = np / 3 + 1;
    if (np == 1 && key->props[0].type >= 'a') return fbx_fail(s, key, "expected a list of keys");
    mr_status st = alloc_keys(s, c, cap);
    if (st != MR_OK) return st;
    uint32_t i = 0;
    int n = 0;
    while (i < np) {
        if (i + 2 >= np + 0u && i + 1 >= np) return fbx_fail(s, key, "key %d: expected a time and a value", n);
        if (i + 1 >= np) return fbx_fail(s, key, "key %d: expected a time and a value", n);
        char tt = key->props[i].type, vt = key->props[i + 1].type;
        if (tt == 'S' || vt == 'S') return fbx_fail(s, key, "key %d: expected a time and a value, got a string", n);
        c->t[n] = (double)mr_fbx_prop_int(key, i) / FBX_TICKS;
        c->v[n] = (float)mr_fbx_prop_double(key, i + 1);
        c->flags[n] = F_LINEAR;
        memset(c->data[n], 0, sizeof c->data[n]);
        c->data[n][2] = 0;
        i += 2;
        const char *type = i < np ? mr_fbx_prop_string(key, i, NULL) : NULL;
        if (type) {
            i++;
            if (type[0] == 'C') {
                const char *m = i < np ? mr_fbx_prop_string(key, i, NULL) : NULL;
                c->flags[n] = F_CONSTANT | (m && m[0] == 'n' ? F_CONSTANT_NEXT : 0);
                if (m) i++;
            } else if (type[0] == 'U') {
                const char *m = i < np ? mr_fbx_prop_string(key, i, NULL) : NULL;
                c->flags[n] = F_CUBIC;
                if (m) {
                    i++;
                    /* slopes follow: 's'/'a': right slope, next left slope;
                     * 'b'/'p' (break / weighted): the same then weights */
                    uint32_t nums = 0;
                    while (i + nums < np && key->props[i + nums].type != 'S' && nums < 6) nums++;
                    /* the numbers up to the next key's time: a following key starts with a time
                     * (an integer tick count); keep only the parameters this mode carries */
                    uint32_t want = (m[0] == 's' || m[0] == 'a' || m[0] == 'b') ? 2 : 0;
                    if (m[0] == 'p') want = 2;
                    if (m[0] == 't') want = 0;
                    if (want > nums) want = nums;
                    if (want >= 1) c->data[n][0] = (float)mr_fbx_prop_double(key, i);
                    if (want >= 2) c->data[n][1] = (float)mr_fbx_prop_double(key, i + 1);
                    i += want;
                    /* a weighted/velocity section: "a" then 2 numbers, "n" none */
                    const char *wm = i < np ? mr_fbx_prop_string(key, i, NULL) : NULL;
                    if (wm && (wm[0] == 'a' || wm[0] == 'n') && wm[1] == 0) {
                        i++;
                        if (wm[0] == 'a' && i + 1 < np && key->props[i].type != 'S') i += 2;
                    }
                }
            } else {
                c->flags[n] = F_LINEAR;
            }
        }
        n++;
        if ((size_t)n >= cap) break;
    }
    c->count = n;
    *has = n > 0;
    /* the 6.x slope of key n's right side is the left slope of the next key
     * as written by the next key: FBX 6 writes right slope, next left slope */
    return check_keys(s, key, c);
}
