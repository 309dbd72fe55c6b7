/* clip_edit.c — authored keys, eases, edits and baking (clip_edit.h). */
#include "anim/clip_edit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/clip_runtime.h"
#include "anim/morph.h"
#include "core/alloc.h"

const char *const mr_ease_names[] = {
    "linear", "step", "smooth",
    "in", "out", "in_out",
    "in_cubic", "out_cubic", "in_out_cubic",
    "in_quart", "out_quart", "in_out_quart",
    "in_quint", "out_quint", "in_out_quint",
    "in_sine", "out_sine", "in_out_sine",
    "in_back", "out_back", "in_out_back",
    "in_elastic", "out_elastic", "in_out_elastic",
    "bezier",
    NULL,
};
_Static_assert(sizeof mr_ease_names / sizeof *mr_ease_names == MR_EASE_COUNT + 1, "one name per ease");

#define PI 3.14159265358979323846
#define KEY_SAME (MR_CLIP_MIN_KEY_INTERVAL * 10.0f)

/* ---- eases -------------------------------------------------------------------- */

/* x(s) of a cubic bezier from 0 to 1 with handles a, b. */
static double bez(double a, double b, double s)
{
    double r = 1.0 - s;
    return 3.0 * r * r * s * a + 3.0 * r * s * s * b + s * s * s;
}

static double bezier_ease(const float *h, double u)
{
    /* x is monotonic for handles in [0, 1]: bisect for s with x(s) = u. */
    double lo = 0.0, hi = 1.0;
    for (int i = 0; i < 60; i++) {
        double mid = 0.5 * (lo + hi);
        if (bez(h[0], h[2], mid) < u) lo = mid;
        else hi = mid;
    }
    return bez(h[1], h[3], 0.5 * (lo + hi));
}

static double in_pow(double u, int n) { return pow(u, n); }
static double out_pow(double u, int n) { return 1.0 - pow(1.0 - u, n); }
static double in_out_pow(double u, int n)
{
    return u < 0.5 ? pow(2.0, n - 1) * pow(u, n) : 1.0 - pow(-2.0 * u + 2.0, n) / 2.0;
}

double mr_ease_apply(mr_ease e, const float *bezier, double u)
{
    if (u <= 0.0) return e == MR_EASE_STEP ? 0.0 : 0.0;
    if (u >= 1.0) return 1.0;
    const double c1 = 1.70158, c2 = c1 * 1.525, c3 = c1 + 1.0;
    const double c4 = 2.0 * PI / 3.0, c5 = 2.0 * PI / 4.5;
    switch (e) {
    case MR_EASE_LINEAR: return u;
    case MR_EASE_STEP: return 0.0;
    case MR_EASE_SMOOTH: return u * u * (3.0 - 2.0 * u);
    case MR_EASE_IN: return in_pow(u, 2);
    case MR_EASE_OUT: return out_pow(u, 2);
    case MR_EASE_IN_OUT: return in_out_pow(u, 2);
    case MR_EASE_IN_CUBIC: return in_pow(u, 3);
    case MR_EASE_OUT_CUBIC: return out_pow(u, 3);
    case MR_EASE_IN_OUT_CUBIC: return in_out_pow(u, 3);
    case MR_EASE_IN_QUART: return in_pow(u, 4);
    case MR_EASE_OUT_QUART: return out_pow(u, 4);
    case MR_EASE_IN_OUT_QUART: return in_out_pow(u, 4);
    case MR_EASE_IN_QUINT: return in_pow(u, 5);
    case MR_EASE_OUT_QUINT: return out_pow(u, 5);
    case MR_EASE_IN_OUT_QUINT: return in_out_pow(u, 5);
    case MR_EASE_IN_SINE: return 1.0 - cos(u * PI / 2.0);
    case MR_EASE_OUT_SINE: return sin(u * PI / 2.0);
    case MR_EASE_IN_OUT_SINE: return -(cos(PI * u) - 1.0) / 2.0;
    case MR_EASE_IN_BACK: return c3 * u * u * u - c1 * u * u;
    case MR_EASE_OUT_BACK: return 1.0 + c3 * pow(u - 1.0, 3) + c1 * pow(u - 1.0, 2);
    case MR_EASE_IN_OUT_BACK:
        return u < 0.5 ? (pow(2.0 * u, 2) * ((c2 + 1.0) * 2.0 * u - c2)) / 2.0
                       : (pow(2.0 * u - 2.0, 2) * ((c2 + 1.0) * (u * 2.0 - 2.0) + c2) + 2.0) / 2.0;
    case MR_EASE_IN_ELASTIC: return -pow(2.0, 10.0 * u - 10.0) * sin((u * 10.0 - 10.75) * c4);
    case MR_EASE_OUT_ELASTIC: return pow(2.0, -10.0 * u) * sin((u * 10.0 - 0.75) * c4) + 1.0;
    case MR_EASE_IN_OUT_ELASTIC:
        return u < 0.5 ? -(pow(2.0, 20.0 * u - 10.0) * sin((20.0 * u - 11.125) * c5)) / 2.0
                       : (pow(2.0, -20.0 * u + 10.0) * sin((20.0 * u - 11.125) * c5)) / 2.0 + 1.0;
    case MR_EASE_BEZIER: return bezier ? bezier_ease(bezier, u) : u;
    case MR_EASE_COUNT: break;
    }
    return u;
}

mr_ease mr_ease_mirror(mr_ease e, const float *bezier, float *out_bezier)
{
    if (e >= MR_EASE_IN && e <= MR_EASE_IN_OUT_ELASTIC) {
        int family = (e - MR_EASE_IN) / 3, kind = (e - MR_EASE_IN) % 3;
        if (kind == 2) return e;
        return (mr_ease)(MR_EASE_IN + family * 3 + (1 - kind));
    }
    if (e == MR_EASE_BEZIER && bezier && out_bezier) {
        float h[4] = {1.0f - bezier[2], 1.0f - bezier[3], 1.0f - bezier[0], 1.0f - bezier[1]};
        memcpy(out_bezier, h, sizeof h);
    }
    return e;
}

/* ---- values ------------------------------------------------------------------- */

/* Interpolates a segment's values at eased w (any real w). */
static void mix(int channel, const float *a, const float *b, double w, float *out)
{
    if (channel != 1) {
        for (int i = 0; i < 3; i++) out[i] = (float)(a[i] + (b[i] - a[i]) * w);
        return;
    }
    double d = 0.0;
    for (int i = 0; i < 4; i++) d += (double)a[i] * b[i];
    double s = d < 0.0 ? -1.0 : 1.0;
    d = fabs(d);
    double k0, k1;
    if (d > 0.9999995) {
        k0 = 1.0 - w;
        k1 = w;
    } else {
        double th = acos(d > 1.0 ? 1.0 : d), sn = sin(th);
        k0 = sin((1.0 - w) * th) / sn;
        k1 = sin(w * th) / sn;
    }
    double q[4], n = 0.0;
    for (int i = 0; i < 4; i++) {
        q[i] = k0 * a[i] + k1 * s * b[i];
        n += q[i] * q[i];
    }
    n = n > 0.0 ? 1.0 / sqrt(n) : 0.0;
    for (int i = 0; i < 4; i++) out[i] = (float)(q[i] * n);
}

/* How far (model units) one unit of eased w moves points, for a segment. */
static double segment_reach(int channel, const float *a, const float *b, float size)
{
    if (channel == 1) {  /* the angle as 4 asin(|a -+ b| / 2): acos near 1 loses small angles */
        double dp = 0.0, dm = 0.0;
        for (int i = 0; i < 4; i++) {
            dp += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
            dm += ((double)a[i] + b[i]) * ((double)a[i] + b[i]);
        }
        double chord = sqrt(dp < dm ? dp : dm) / 2.0;
        return 4.0 * asin(chord > 1.0 ? 1.0 : chord) * size;
    }
    double n = 0.0;
    for (int i = 0; i < 3; i++) n += ((double)b[i] - a[i]) * ((double)b[i] - a[i]);
    return sqrt(n) * (channel == 2 ? size : 1.0);
}

/* ---- create / copy / destroy ---------------------------------------------------- */

mr_status mr_clip_edit_create(int joint_count, float duration, float rate, mr_clip_edit **out)
{
    *out = NULL;
    if (joint_count < 1 || joint_count > MR_MAX_JOINTS) return MR_ERR_INVALID_ARGUMENT;
    if (!isfinite(duration) || !(duration > 0.0f) || !isfinite(rate) || !(rate > 0.0f))
        return MR_ERR_INVALID_ARGUMENT;
    mr_clip_edit *e = calloc(1, sizeof *e);
    if (!e) return MR_ERR_NO_MEMORY;
    e->ch = mr_alloc_array((size_t)joint_count * 3, sizeof *e->ch);
    if (!e->ch) {
        free(e);
        return MR_ERR_NO_MEMORY;
    }
    memset(e->ch, 0, (size_t)joint_count * 3 * sizeof *e->ch);
    e->joint_count = joint_count;
    e->duration = duration;
    e->rate = rate;
    *out = e;
    return MR_OK;
}

void mr_clip_edit_destroy(mr_clip_edit *e)
{
    if (!e) return;
    if (e->ch)
        for (int i = 0; i < e->joint_count * 3; i++) free(e->ch[i].keys);
    free(e->ch);
    for (int i = 0; e->w && i < e->weight_count; i++) free(e->w[i].keys);
    free(e->w);
    free(e->weight_rest);
    free(e->mesh_targets);
    free(e);
}

/* Every channel: the joints' (i < joint_count * 3), then the weights'. */
static int channel_total(const mr_clip_edit *e) { return e->joint_count * 3 + e->weight_count; }
static mr_edit_channel *channel_at(const mr_clip_edit *e, int i)
{
    return i < e->joint_count * 3 ? &e->ch[i] : &e->w[i - e->joint_count * 3];
}
static int channel_kind(const mr_clip_edit *e, int i) { return i < e->joint_count * 3 ? i % 3 : MR_EDIT_WEIGHT; }

mr_status mr_clip_edit_set_weights(mr_clip_edit *e, int mesh_count, const int *targets, const float *rest)
{
    if (mesh_count < 0) return MR_ERR_INVALID_ARGUMENT;
    long total = 0;
    for (int i = 0; i < mesh_count; i++) {
        if (targets[i] < 0) return MR_ERR_INVALID_ARGUMENT;
        total += targets[i];
    }
    if (total > (1 << 20)) return MR_ERR_INVALID_ARGUMENT;
    for (long k = 0; k < total; k++)
        if (!isfinite(rest[k])) return MR_ERR_INVALID_ARGUMENT;
    mr_edit_channel *w = total ? calloc((size_t)total, sizeof *w) : NULL;
    float *r = total ? mr_alloc_array((size_t)total, sizeof *r) : NULL;
    int *mt = mesh_count ? mr_alloc_array((size_t)mesh_count, sizeof *mt) : NULL;
    if ((total && (!w || !r)) || (mesh_count && !mt)) {
        free(w);
        free(r);
        free(mt);
        return MR_ERR_NO_MEMORY;
    }
    if (total) memcpy(r, rest, (size_t)total * sizeof *r);
    if (mesh_count) memcpy(mt, targets, (size_t)mesh_count * sizeof *mt);
    for (int i = 0; e->w && i < e->weight_count; i++) free(e->w[i].keys);
    free(e->w);
    free(e->weight_rest);
    free(e->mesh_targets);
    e->w = w;
    e->weight_rest = r;
    e->mesh_targets = mt;
    e->weight_count = (int)total;
    e->mesh_count = mesh_count;
    return MR_OK;
}

int mr_clip_edit_has_weight_keys(const mr_clip_edit *e)
{
    for (int i = 0; i < e->weight_count; i++)
        if (e->w[i].count) return 1;
    return 0;
}

static mr_status reserve(mr_edit_channel *c, int n)
{
    if (n <= c->cap) return MR_OK;
    int cap = c->cap ? c->cap : 4;
    while (cap < n) {
        if (cap > (1 << 24)) return MR_ERR_LIMIT;
        cap *= 2;
    }
    mr_edit_key *k = realloc(c->keys, (size_t)cap * sizeof *k);
    if (!k) return MR_ERR_NO_MEMORY;
    c->keys = k;
    c->cap = cap;
    return MR_OK;
}

/* Appends a key known to come after the channel's last (edits building a
 * new edit); a key within KEY_SAME of the last replaces it. */
static mr_status push_key(mr_edit_channel *c, const mr_edit_key *k)
{
    if (c->count && k->time - c->keys[c->count - 1].time < KEY_SAME) {
        c->keys[c->count - 1] = *k;
        return MR_OK;
    }
    mr_status st = reserve(c, c->count + 1);
    if (st != MR_OK) return st;
    c->keys[c->count++] = *k;
    return MR_OK;
}

mr_status mr_clip_edit_copy(const mr_clip_edit *e, mr_clip_edit **out)
{
    mr_status st = mr_clip_edit_create(e->joint_count, e->duration, e->rate, out);
    if (st != MR_OK) return st;
    if (e->mesh_count) st = mr_clip_edit_set_weights(*out, e->mesh_count, e->mesh_targets, e->weight_rest);
    for (int i = 0; i < channel_total(e) && st == MR_OK; i++) {
        const mr_edit_channel *c = channel_at(e, i);
        mr_edit_channel *d = channel_at(*out, i);
        st = reserve(d, c->count);
        if (st != MR_OK) break;
        if (c->count) memcpy(d->keys, c->keys, (size_t)c->count * sizeof(mr_edit_key));
        d->count = c->count;
    }
    if (st != MR_OK) {
        mr_clip_edit_destroy(*out);
        *out = NULL;
    }
    return st;
}

/* ---- keys ---------------------------------------------------------------------- */

mr_status mr_clip_edit_key(mr_clip_edit *e, int joint, int channel, float time, const float *value,
                           mr_ease ease, const float *bezier)
{
    if (channel < 0 || channel > MR_EDIT_WEIGHT || joint < 0 ||
        joint >= (channel == MR_EDIT_WEIGHT ? e->weight_count : e->joint_count))
        return MR_ERR_INVALID_ARGUMENT;
    if (!isfinite(time) || time < 0.0f || time > e->duration) return MR_ERR_INVALID_ARGUMENT;
    if ((int)ease < 0 || ease >= MR_EASE_COUNT) return MR_ERR_INVALID_ARGUMENT;
    mr_edit_key k = {.time = time, .ease = ease};
    int n = channel == 1 ? 4 : channel == MR_EDIT_WEIGHT ? 1 : 3;
    double len = 0.0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(value[i])) return MR_ERR_INVALID_ARGUMENT;
        k.value[i] = value[i];
        len += (double)value[i] * value[i];
    }
    if (channel == 1) {
        if (!(len > 1e-12)) return MR_ERR_INVALID_ARGUMENT;
        for (int i = 0; i < 4; i++) k.value[i] = (float)(value[i] / sqrt(len));
    }
    if (ease == MR_EASE_BEZIER) {
        if (!bezier) return MR_ERR_INVALID_ARGUMENT;
        for (int i = 0; i < 4; i++)
            if (!isfinite(bezier[i])) return MR_ERR_INVALID_ARGUMENT;
        if (bezier[0] < 0.0f || bezier[0] > 1.0f || bezier[2] < 0.0f || bezier[2] > 1.0f)
            return MR_ERR_INVALID_ARGUMENT;
        memcpy(k.bezier, bezier, sizeof k.bezier);
    }
    mr_edit_channel *c = channel == MR_EDIT_WEIGHT ? &e->w[joint] : &e->ch[joint * 3 + channel];
    int at = 0;
    while (at < c->count && c->keys[at].time < time - KEY_SAME) at++;
    if (at < c->count && fabsf(c->keys[at].time - time) < KEY_SAME) {
        if (c->keys[at].time != time) {   /* a different time, merged: counted for the caller to say */
            e->merged++;
            e->merged_time[0] = time;
            e->merged_time[1] = c->keys[at].time;
        }
        c->keys[at] = k;
        return MR_OK;
    }
    mr_status st = reserve(c, c->count + 1);
    if (st != MR_OK) return st;
    memmove(&c->keys[at + 1], &c->keys[at], (size_t)(c->count - at) * sizeof *c->keys);
    c->keys[at] = k;
    c->count++;
    return MR_OK;
}

int mr_clip_edit_remove(mr_clip_edit *e, int joint, int channel, float time)
{
    if (channel == MR_EDIT_WEIGHT ? joint < 0 || joint >= e->weight_count
                                  : joint < 0 || joint >= e->joint_count || channel < -1 || channel > 2)
        return 0;
    int removed = 0;
    for (int ch = 0; ch <= MR_EDIT_WEIGHT; ch++) {
        if (channel >= 0 ? ch != channel : ch == MR_EDIT_WEIGHT) continue;
        mr_edit_channel *c = ch == MR_EDIT_WEIGHT ? &e->w[joint] : &e->ch[joint * 3 + ch];
        int w = 0;
        for (int i = 0; i < c->count; i++) {
            if (fabsf(c->keys[i].time - time) < KEY_SAME) {
                removed++;
                continue;
            }
            c->keys[w++] = c->keys[i];
        }
        c->count = w;
    }
    return removed;
}

static void eval_channel(const mr_edit_channel *c, int channel, float time, float *out)
{
    int n = channel == 1 ? 4 : 3;
    if (time <= c->keys[0].time || c->count == 1) {
        memcpy(out, c->keys[0].value, (size_t)n * sizeof *out);
        return;
    }
    if (time >= c->keys[c->count - 1].time) {
        memcpy(out, c->keys[c->count - 1].value, (size_t)n * sizeof *out);
        return;
    }
    int lo = 0, hi = c->count - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (c->keys[mid].time <= time) lo = mid;
        else hi = mid;
    }
    const mr_edit_key *a = &c->keys[lo], *b = &c->keys[hi];
    double u = ((double)time - a->time) / ((double)b->time - a->time);
    mix(channel, a->value, b->value, mr_ease_apply(a->ease, a->bezier, u), out);
}

int mr_clip_edit_eval(const mr_clip_edit *e, int joint, int channel, float time, float *out)
{
    if (channel < 0 || channel > MR_EDIT_WEIGHT || joint < 0 ||
        joint >= (channel == MR_EDIT_WEIGHT ? e->weight_count : e->joint_count))
        return 0;
    const mr_edit_channel *c = channel == MR_EDIT_WEIGHT ? &e->w[joint] : &e->ch[joint * 3 + channel];
    if (!c->count) return 0;
    float v[4];
    eval_channel(c, channel, time, v);
    memcpy(out, v, (size_t)(channel == 1 ? 4 : channel == MR_EDIT_WEIGHT ? 1 : 3) * sizeof *out);
    return 1;
}

/* ---- baking -------------------------------------------------------------------- */

typedef struct point_list {
    int count, cap;
    float *times;
    float *values;   /* 4 per point */
} point_list;

static int emit(point_list *p, float t, const float *v)
{
    if (p->count && t - p->times[p->count - 1] < 2.0f * MR_CLIP_MIN_KEY_INTERVAL) return 1;
    if (p->count == p->cap) {
        int cap = p->cap ? p->cap * 2 : 64;
        float *t2 = realloc(p->times, (size_t)cap * sizeof *t2);
        if (!t2) return 0;
        p->times = t2;
        float *v2 = realloc(p->values, (size_t)cap * 4 * sizeof *v2);
        if (!v2) return 0;
        p->values = v2;
        p->cap = cap;
    }
    p->times[p->count] = t;
    memcpy(&p->values[p->count * 4], v, 4 * sizeof *v);
    p->count++;
    return 1;
}

typedef struct seg {
    const mr_edit_key *a, *b;
    int channel;
    double reach;        /* model units per unit of eased w */
    double tol;
} seg;

static double seg_w(const seg *s, double u) { return mr_ease_apply(s->a->ease, s->a->bezier, u); }

/* Emits the points strictly inside (ua, ub] that keep the linear pieces
 * within tolerance of the eased curve (piece errors judged at quarter
 * points in w, times reach). */
static int refine(point_list *p, const seg *s, double ua, double ub, double wa, double wb, int depth)
{
    double span = (double)s->b->time - s->a->time;
    int split = 0;
    if (depth < 20 && (ub - ua) * span > 8.0 * MR_CLIP_MIN_KEY_INTERVAL) {
        for (int q = 1; q <= 3 && !split; q++) {
            double u = ua + (ub - ua) * q / 4.0;
            double chord = wa + (wb - wa) * q / 4.0;
            if (fabs(seg_w(s, u) - chord) * s->reach > s->tol) split = 1;
        }
    }
    if (split) {
        double um = 0.5 * (ua + ub), wm = seg_w(s, um);
        return refine(p, s, ua, um, wa, wm, depth + 1) && refine(p, s, um, ub, wm, wb, depth + 1);
    }
    float v[4] = {0, 0, 0, 1};
    mix(s->channel, s->a->value, s->b->value, wb, v);
    return emit(p, (float)(s->a->time + span * ub), v);
}

/* Points of the segment a..b over u in [u0, u1] (the point at u0 first). */
static int bake_segment(point_list *p, int channel, const mr_edit_key *a, const mr_edit_key *b, double u0,
                        double u1, float tolerance, float size)
{
    seg s = {a, b, channel, segment_reach(channel, a->value, b->value, size), tolerance};
    double span = (double)b->time - a->time;
    float v[4] = {0, 0, 0, 1};
    double w0 = seg_w(&s, u0);
    mix(channel, a->value, b->value, w0, v);
    if (!emit(p, (float)(a->time + span * u0), v)) return 0;
    if (a->ease == MR_EASE_LINEAR) {
        mix(channel, a->value, b->value, u1, v);
        return emit(p, (float)(a->time + span * u1), v);
    }
    if (a->ease == MR_EASE_STEP) {
        double gap = MR_CLIP_EDIT_STEP_GAP + fabs(b->time) * 1e-6;
        double tj = a->time + span * u1 - gap;
        if (u1 >= 1.0 && tj > a->time + span * u0 + 2.0 * MR_CLIP_MIN_KEY_INTERVAL) {
            if (!emit(p, (float)tj, a->value)) return 0;
            return emit(p, b->time, b->value);
        }
        return emit(p, (float)(a->time + span * u1), v);
    }
    if (!(s.reach > 0.0)) {
        mix(channel, a->value, b->value, seg_w(&s, u1), v);
        return emit(p, (float)(a->time + span * u1), v);
    }
    return refine(p, &s, u0, u1, w0, seg_w(&s, u1), 0);
}

static mr_status bake_channel(const mr_edit_channel *c, int channel, float tolerance, float size, int force_linear,
                              mr_track *track)
{
    int comps = channel == 1 ? 4 : channel == MR_EDIT_WEIGHT ? 1 : 3;
    if (!c->count) return mr_track_init(track, 0, MR_INTERP_LINEAR);
    int all_linear = 1, all_step = 1;
    for (int i = 0; i + 1 < c->count; i++) {
        all_linear &= c->keys[i].ease == MR_EASE_LINEAR;
        all_step &= c->keys[i].ease == MR_EASE_STEP;
    }
    if (force_linear) all_step = 0;
    if (all_linear || all_step) {
        mr_status st = mr_track_init(track, c->count, all_step && c->count > 1 ? MR_INTERP_STEP : MR_INTERP_LINEAR);
        if (st != MR_OK) return st;
        for (int i = 0; i < c->count; i++) {
            track->times[i] = c->keys[i].time;
            memcpy(&track->values[i * comps], c->keys[i].value, (size_t)comps * sizeof(float));
        }
        return MR_OK;
    }
    point_list p = {0};
    int ok = 1;
    for (int i = 0; ok && i + 1 < c->count; i++)
        ok = bake_segment(&p, channel, &c->keys[i], &c->keys[i + 1], 0.0, 1.0, tolerance, size);
    mr_status st = ok ? mr_track_init(track, p.count, MR_INTERP_LINEAR) : MR_ERR_NO_MEMORY;
    if (st == MR_OK)
        for (int i = 0; i < p.count; i++) {
            track->times[i] = p.times[i];
            memcpy(&track->values[i * comps], &p.values[i * 4], (size_t)comps * sizeof(float));
        }
    free(p.times);
    free(p.values);
    return st;
}

/* A baked weight track's value at t (STEP holds, LINEAR lerps, clamped). */
static float track_at(const mr_track *tr, float t)
{
    int n = tr->key_count;
    if (n == 1 || t <= tr->times[0]) return tr->values[0];
    if (t >= tr->times[n - 1]) return tr->values[n - 1];
    int lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (tr->times[mid] <= t) lo = mid;
        else hi = mid;
    }
    if (tr->interp == MR_INTERP_STEP) return tr->values[lo];
    float u = (t - tr->times[lo]) / (tr->times[hi] - tr->times[lo]);
    return tr->values[lo] + (tr->values[hi] - tr->values[lo]) * u;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* One morph channel for mesh i (weights first..first+n) when any is keyed. */
static mr_status bake_mesh_weights(const mr_clip_edit *e, int mesh, int first, int n, mr_morph_tracks **out)
{
    int keyed = 0, all_step = 1;
    for (int k = 0; k < n; k++) {
        const mr_edit_channel *c = &e->w[first + k];
        keyed |= c->count > 0;
        for (int i = 0; i + 1 < c->count; i++) all_step &= c->keys[i].ease == MR_EASE_STEP;
    }
    if (!keyed) return MR_OK;
    mr_track *tr = calloc((size_t)n, sizeof *tr);
    if (!tr) return MR_ERR_NO_MEMORY;
    mr_status st = MR_OK;
    size_t total = 0;
    for (int k = 0; k < n && st == MR_OK; k++) {
        tr[k].components = 1;
        if (!e->w[first + k].count) continue;
        st = bake_channel(&e->w[first + k], MR_EDIT_WEIGHT, MR_CLIP_EDIT_WEIGHT_TOLERANCE, 1.0f, !all_step, &tr[k]);
        total += (size_t)tr[k].key_count;
    }
    float *times = st == MR_OK ? mr_alloc_array(total ? total : 1, sizeof *times) : NULL;
    if (st == MR_OK && !times) st = MR_ERR_NO_MEMORY;
    if (st == MR_OK) {
        size_t m = 0;
        for (int k = 0; k < n; k++)
            for (int i = 0; i < tr[k].key_count; i++) times[m++] = tr[k].times[i];
        qsort(times, m, sizeof *times, cmp_float);
        size_t u = 0;  /* the union, keys closer than a baked key interval merged */
        for (size_t i = 0; i < m; i++)
            if (!u || times[i] - times[u - 1] >= 2.0f * MR_CLIP_MIN_KEY_INTERVAL) times[u++] = times[i];
        mr_morph_channel *ch = mr_morph_tracks_add(out, mesh, n, (int)u, all_step ? MR_INTERP_STEP : MR_INTERP_LINEAR);
        if (!ch) st = MR_ERR_NO_MEMORY;
        for (size_t i = 0; ch && i < u; i++) {
            ch->times[i] = times[i];
            for (int k = 0; k < n; k++)
                ch->values[i * (size_t)n + (size_t)k] =
                    tr[k].key_count ? track_at(&tr[k], times[i]) : e->weight_rest[first + k];
        }
    }
    free(times);
    for (int k = 0; k < n; k++) {
        free(tr[k].times);
        free(tr[k].values);
    }
    free(tr);
    return st;
}

/* The edit's weight keys as morph tracks (*out NULL without any). */
static mr_status bake_weights(const mr_clip_edit *e, mr_morph_tracks **out)
{
    *out = NULL;
    mr_status st = MR_OK;
    for (int i = 0, first = 0; i < e->mesh_count && st == MR_OK; first += e->mesh_targets[i], i++)
        if (e->mesh_targets[i] > 0) st = bake_mesh_weights(e, i, first, e->mesh_targets[i], out);
    if (st != MR_OK) {
        mr_morph_tracks_destroy(*out);
        *out = NULL;
    }
    return st;
}

mr_status mr_clip_edit_bake(const mr_clip_edit *e, float tolerance, float size, mr_clip *clip)
{
    if (!clip || clip->joint_count != e->joint_count) return MR_ERR_INVALID_ARGUMENT;
    mr_clip_cancel(clip);   /* a pack being built reads the keys replaced here */
    mr_clip_keep_source(clip, NULL);   /* and they are no longer a file's */
    if (!(tolerance > 0.0f)) tolerance = 1e-6f;
    mr_status result = MR_OK;
    for (int j = 0; j < e->joint_count; j++) {
        mr_track *tr[3] = {&clip->tracks[j].t, &clip->tracks[j].r, &clip->tracks[j].s};
        for (int ch = 0; ch < 3; ch++) {
            mr_track fresh = {.components = ch == 1 ? 4 : 3};
            mr_status st = bake_channel(&e->ch[j * 3 + ch], ch, tolerance, size, 0, &fresh);
            if (st != MR_OK) {
                free(fresh.times);
                free(fresh.values);
                result = st;
                continue;
            }
            free(tr[ch]->times);
            free(tr[ch]->values);
            *tr[ch] = fresh;
        }
    }
    mr_morph_tracks *morph = NULL;
    mr_status st = bake_weights(e, &morph);
    if (st == MR_OK) {
        mr_morph_tracks_destroy(clip->morph);
        clip->morph = morph;
    } else {
        result = st;
    }
    clip->duration = e->duration;
    clip->rate = e->rate;
    mr_clip_finish(clip);
    return result;
}

/* ---- edits --------------------------------------------------------------------- */

mr_status mr_clip_edit_trim(const mr_clip_edit *e, float t0, float t1, float tolerance, float size,
                            mr_clip_edit **out)
{
    *out = NULL;
    if (!isfinite(t0) || !isfinite(t1) || t0 < 0.0f || t1 > e->duration || !(t1 - t0 > KEY_SAME))
        return MR_ERR_INVALID_ARGUMENT;
    mr_status st = mr_clip_edit_create(e->joint_count, t1 - t0, e->rate, out);
    if (st != MR_OK) return st;
    if (e->mesh_count) st = mr_clip_edit_set_weights(*out, e->mesh_count, e->mesh_targets, e->weight_rest);
    if (!(tolerance > 0.0f)) tolerance = 1e-6f;
    for (int i = 0; i < channel_total(e) && st == MR_OK; i++) {
        const mr_edit_channel *c = channel_at(e, i);
        int channel = channel_kind(e, i);
        if (channel == MR_EDIT_WEIGHT) tolerance = MR_CLIP_EDIT_WEIGHT_TOLERANCE, size = 1.0f;
        mr_edit_channel *d = channel_at(*out, i);
        if (!c->count) continue;
        /* The value at t0, then each key inside, with cut segments resampled. */
        for (int k = -1; k < c->count && st == MR_OK; k++) {
            const mr_edit_key *a = k >= 0 ? &c->keys[k] : NULL, *b = k + 1 < c->count ? &c->keys[k + 1] : NULL;
            float ta = a ? a->time : -INFINITY, tb = b ? b->time : INFINITY;
            if (tb <= t0 || ta >= t1) continue;
            if (!a || !b) {  /* before the first key or after the last: a hold */
                mr_edit_key hold = *(a ? a : b);
                hold.ease = MR_EASE_LINEAR;
                float ts[2] = {fmaxf(ta, t0), fminf(tb, t1)};
                for (int q = 0; q < 2 && st == MR_OK; q++) {
                    hold.time = ts[q] - t0;
                    st = push_key(d, &hold);
                }
                continue;
            }
            if (ta >= t0 && tb <= t1) {  /* whole segment */
                mr_edit_key ka = *a, kb = *b;
                ka.time -= t0;
                kb.time -= t0;
                if ((st = push_key(d, &ka)) == MR_OK) st = push_key(d, &kb);
                continue;
            }
            double span = (double)tb - ta;
            double u0 = t0 > ta ? (t0 - ta) / span : 0.0, u1 = t1 < tb ? (t1 - ta) / span : 1.0;
            point_list p = {0};
            if (!bake_segment(&p, channel, a, b, u0, u1, tolerance, size)) st = MR_ERR_NO_MEMORY;
            for (int q = 0; q < p.count && st == MR_OK; q++) {
                mr_edit_key k2 = {.time = p.times[q] - t0, .ease = MR_EASE_LINEAR};
                if (q == p.count - 1 && u1 >= 1.0) k2 = *b, k2.time -= t0;
                else if (a->ease == MR_EASE_STEP) k2.ease = MR_EASE_STEP;
                if (k2.time < 0.0f) k2.time = 0.0f;
                if (k2.time > t1 - t0) k2.time = t1 - t0;
                if (!(q == p.count - 1 && u1 >= 1.0)) memcpy(k2.value, &p.values[q * 4], sizeof k2.value);
                st = push_key(d, &k2);
            }
            free(p.times);
            free(p.values);
        }
    }
    if (st != MR_OK) {
        mr_clip_edit_destroy(*out);
        *out = NULL;
    }
    return st;
}

mr_status mr_clip_edit_reverse(const mr_clip_edit *e, mr_clip_edit **out)
{
    mr_status st = mr_clip_edit_copy(e, out);
    if (st != MR_OK) return st;
    for (int i = 0; i < channel_total(e); i++) {
        const mr_edit_channel *c = channel_at(e, i);
        mr_edit_key *d = channel_at(*out, i)->keys;
        int n = c->count;
        for (int k = 0; k < n; k++) {
            /* Reversed key k comes from key n-1-k; its segment is the one that
             * ended at it in the original, whose ease is the previous key's. */
            const mr_edit_key *src = &c->keys[n - 1 - k];
            d[k] = *src;
            d[k].time = e->duration - src->time;
            if (d[k].time < 0.0f) d[k].time = 0.0f;
            const mr_edit_key *seg_from = n - 2 - k >= 0 ? &c->keys[n - 2 - k] : src;
            d[k].ease = mr_ease_mirror(seg_from->ease, seg_from->bezier, d[k].bezier);
        }
    }
    return MR_OK;
}

mr_status mr_clip_edit_retime(const mr_clip_edit *e, float duration, mr_clip_edit **out)
{
    *out = NULL;
    if (!isfinite(duration) || !(duration > 0.0f)) return MR_ERR_INVALID_ARGUMENT;
    mr_status st = mr_clip_edit_copy(e, out);
    if (st != MR_OK) return st;
    double f = (double)duration / e->duration;
    (*out)->duration = duration;
    for (int i = 0; i < channel_total(e); i++) {
        mr_edit_channel *c = channel_at(*out, i);
        for (int k = 0; k < c->count; k++) c->keys[k].time = (float)fmin(c->keys[k].time * f, duration);
        /* Keys squeezed together: keep the later one. */
        int w = 0;
        for (int k = 0; k < c->count; k++) {
            if (w && c->keys[k].time - c->keys[w - 1].time < KEY_SAME) w--;
            c->keys[w++] = c->keys[k];
        }
        c->count = w;
    }
    return MR_OK;
}

mr_status mr_clip_edit_append(const mr_clip_edit *a, const mr_clip_edit *b, mr_clip_edit **out)
{
    *out = NULL;
    if (a->joint_count != b->joint_count || a->weight_count != b->weight_count) return MR_ERR_INVALID_ARGUMENT;
    mr_status st = mr_clip_edit_copy(a, out);
    if (st != MR_OK) return st;
    (*out)->duration = a->duration + b->duration;
    for (int i = 0; i < channel_total(a) && st == MR_OK; i++) {
        mr_edit_channel *d = channel_at(*out, i);
        const mr_edit_channel *c = channel_at(b, i);
        /* a's hold to its end, so b's first key does not bend a's last stretch. */
        if (d->count && c->count && d->keys[d->count - 1].time < a->duration - KEY_SAME) {
            mr_edit_key hold = d->keys[d->count - 1];
            hold.time = a->duration;
            hold.ease = MR_EASE_LINEAR;
            st = push_key(d, &hold);
        }
        for (int k = 0; k < c->count && st == MR_OK; k++) {
            mr_edit_key key = c->keys[k];
            key.time += a->duration;
            if (key.time > (*out)->duration) key.time = (*out)->duration;
            st = push_key(d, &key);
        }
    }
    if (st != MR_OK) {
        mr_clip_edit_destroy(*out);
        *out = NULL;
    }
    return st;
}

size_t mr_clip_edit_bytes(const mr_clip_edit *e)
{
    size_t n = sizeof *e;
    for (int i = 0; i < e->joint_count * 3; i++) n += (size_t)e->ch[i].cap * sizeof(mr_edit_key);
    for (int i = 0; i < e->weight_count; i++) n += (size_t)e->w[i].cap * sizeof(mr_edit_key);
    return n;
}
