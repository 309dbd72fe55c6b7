/* playhead.c — play position over once / repeat / ping-pong cycles and the
 * crossings of a step (see playhead.h for the rules). */
#include "anim/playhead.h"

#include <math.h>

static int endless(const mr_playhead *ph) { return isinf(ph->hi) && isinf(ph->lo); }

mr_status mr_playhead_init(mr_playhead *ph, double length, mr_loop loop, int reps)
{
    if (!ph || !isfinite(length) || length < 0.0 || reps < 0) return MR_ERR_INVALID_ARGUMENT;
    if (loop != MR_LOOP_ONCE && loop != MR_LOOP_REPEAT && loop != MR_LOOP_PINGPONG)
        return MR_ERR_INVALID_ARGUMENT;
    ph->length = length;
    ph->pingpong = loop == MR_LOOP_PINGPONG;
    ph->pos = 0.0;
    if (loop == MR_LOOP_ONCE) reps = 1;
    if (length == 0.0) {
        ph->lo = ph->hi = 0.0;
    } else if (reps == 0) {
        ph->lo = -INFINITY;
        ph->hi = INFINITY;
    } else {
        ph->lo = 0.0;
        ph->hi = length * reps;
    }
    return MR_OK;
}

/* Cycle k is played backward (a ping-pong leg going back). */
static int reversed(const mr_playhead *ph, double k) { return ph->pingpong && fmod(fabs(k), 2.0) == 1.0; }

/* Index of the last cycle of a finite playhead. */
static double last_cycle(const mr_playhead *ph) { return ph->hi / ph->length - 1.0; }

/* Cycle holding pos: at the finite end that is the last cycle. */
static double cycle_of(const mr_playhead *ph, double pos)
{
    double k = floor(pos / ph->length);
    if (!isinf(ph->hi) && k > last_cycle(ph)) k = last_cycle(ph);
    if (!isinf(ph->lo) && k < 0.0) k = 0.0;
    return k;
}

/* Clip time of pos inside cycle k. */
static double local_in(const mr_playhead *ph, double k, double pos)
{
    double off = pos - k * ph->length;
    if (off < 0.0) off = 0.0;
    if (off > ph->length) off = ph->length;
    return reversed(ph, k) ? ph->length - off : off;
}

double mr_playhead_time(const mr_playhead *ph)
{
    if (!(ph->length > 0.0)) return 0.0;
    return local_in(ph, cycle_of(ph, ph->pos), ph->pos);
}

double mr_playhead_phase(const mr_playhead *ph)
{
    if (!(ph->length > 0.0)) return 0.0;
    double f = mr_playhead_time(ph) / ph->length;
    return f >= 1.0 ? 0.0 : f;
}

void mr_playhead_start(mr_playhead *ph, double t, int backward)
{
    if (!(ph->length > 0.0)) { ph->pos = 0.0; return; }
    if (!(t >= 0.0)) t = 0.0;
    if (t > ph->length) t = ph->length;
    double k = backward && !endless(ph) ? last_cycle(ph) : 0.0;
    ph->pos = k * ph->length + (reversed(ph, k) ? ph->length - t : t);
}

void mr_playhead_seek(mr_playhead *ph, double t)
{
    if (!(ph->length > 0.0)) return;
    if (!(t >= 0.0)) t = 0.0;
    if (t > ph->length) t = ph->length;
    double k = cycle_of(ph, ph->pos);
    ph->pos = k * ph->length + (reversed(ph, k) ? ph->length - t : t);
}

int mr_playhead_ended(const mr_playhead *ph, int backward)
{
    return backward ? ph->pos <= ph->lo : ph->pos >= ph->hi;
}

double mr_playhead_remaining(const mr_playhead *ph, int backward)
{
    return backward ? ph->pos - ph->lo : ph->hi - ph->pos;
}

void mr_playhead_finish_cycle(mr_playhead *ph, int backward)
{
    if (!endless(ph) || !(ph->length > 0.0)) return;
    if (backward) ph->lo = (ceil(ph->pos / ph->length) - 1.0) * ph->length;
    else ph->hi = (floor(ph->pos / ph->length) + 1.0) * ph->length;
}

/* ---- crossings ----------------------------------------------------------- */

typedef struct walk {
    const mr_playhead *ph;
    double a, b;             /* step from a to b */
    int fwd, include_start;
    mr_crossing_fn fn;
    void *user;
    int stopped;
} walk;

static int in_step(const walk *w, double p)
{
    if (w->include_start && p == w->a) return 1;
    return w->fwd ? (p > w->a && p <= w->b) : (p >= w->b && p < w->a);
}

static void emit(walk *w, mr_crossing_kind kind, int marker, double time, double p)
{
    if (w->stopped || !w->fn) return;
    double span = w->b - w->a;
    mr_crossing c = {kind, marker, (float)time, span != 0.0 ? (p - w->a) / span : 0.0};
    if (c.frac < 0.0) c.frac = 0.0;
    if (c.frac > 1.0) c.frac = 1.0;
    if (!w->fn(w->user, &c)) w->stopped = 1;
}

static double marker_at(const mr_marker_view *m, int i)
{
    return *(const float *)((const char *)m->times + (size_t)i * m->stride) * m->scale;
}

/* Markers of cycle k in travel order. A ping-pong leg's start is the
 * previous leg's end: reported there, so skipped here (unless it is where
 * playback starts). */
static void cycle_markers(walk *w, double k, const mr_marker_view *m)
{
    const mr_playhead *ph = w->ph;
    double c = k * ph->length;
    int rev = reversed(ph, k);
    int has_prev = isinf(ph->lo) || k > 0.0;
    for (int n = 0; n < m->count && !w->stopped; n++) {
        /* Ascending p when (forward) == (not reversed). */
        int i = (w->fwd == !rev) ? n : m->count - 1 - n;
        double t = marker_at(m, i);
        double p = c + (rev ? ph->length - t : t);
        if (ph->pingpong && has_prev && p == c && !(w->include_start && p == w->a)) continue;
        if (in_step(w, p)) emit(w, MR_CROSS_MARKER, i, t, p);
    }
}

static void still_step(walk *w, const mr_marker_view *m)
{
    /* A still clip: everything happens at its only instant, once, on the
     * first step after it starts. */
    if (!w->include_start) return;
    for (int i = 0; m && i < m->count && !w->stopped; i++) emit(w, MR_CROSS_MARKER, i, 0.0, w->a);
    emit(w, MR_CROSS_END, -1, 0.0, w->a);
}

double mr_playhead_advance(mr_playhead *ph, double delta, const mr_marker_view *markers,
                           int include_start, mr_crossing_fn fn, void *user)
{
    if (!isfinite(delta)) return 0.0;
    double a = ph->pos, b = a + delta;
    if (b > ph->hi) b = ph->hi;
    if (b < ph->lo) b = ph->lo;
    walk w = {ph, a, b, delta >= 0.0, include_start, fn, user, 0};
    const mr_marker_view none = {0};
    const mr_marker_view *m = markers && markers->count > 0 && markers->times ? markers : &none;
    if (!(ph->length > 0.0)) {
        if (delta != 0.0 || include_start) still_step(&w, m);
        return 0.0;
    }
    if (fn && (delta != 0.0 || include_start)) {
        double L = ph->length;
        if (w.fwd) {
            double k0 = cycle_of(ph, a), k1 = cycle_of(ph, b);
            for (double k = k0; k <= k1 && !w.stopped; k++) {
                cycle_markers(&w, k, m);
                double edge = (k + 1.0) * L;
                if (edge > a && edge <= b && edge < ph->hi)
                    emit(&w, MR_CROSS_LOOP, -1, local_in(ph, k + 1.0, edge), edge);
            }
            if (b >= ph->hi && (a < ph->hi || include_start) && delta >= 0.0)
                emit(&w, MR_CROSS_END, -1, local_in(ph, cycle_of(ph, b), b), b);
        } else {
            double k0 = cycle_of(ph, a), k1 = floor(b / L);
            if (k1 * L == b) k1 -= 1.0;   /* arriving on a boundary: the cycle below ends there */
            if (!isinf(ph->lo) && k1 < 0.0) k1 = 0.0;
            for (double k = k0; k >= k1 && !w.stopped; k--) {
                cycle_markers(&w, k, m);
                double edge = k * L;
                if (edge >= b && edge < a && edge > ph->lo)
                    emit(&w, MR_CROSS_LOOP, -1, local_in(ph, k - 1.0, edge), edge);
            }
            if (b <= ph->lo && (a > ph->lo || include_start))
                emit(&w, MR_CROSS_END, -1, local_in(ph, cycle_of(ph, b), b), b);
        }
    }
    ph->pos = b;
    if (endless(ph)) {                      /* keep |pos| small; even cycles keep ping-pong parity */
        double span = 2.0 * ph->length;
        ph->pos = b - span * floor(b / span);
    }
    return b - a;
}

int mr_playhead_segments(const mr_playhead *ph, double delta, int max_segments, mr_segment_fn fn,
                         void *user)
{
    if (!(ph->length > 0.0) || !isfinite(delta) || delta == 0.0) return 0;
    double a = ph->pos, b = a + delta, L = ph->length;
    if (b > ph->hi) b = ph->hi;
    if (b < ph->lo) b = ph->lo;
    int n = 0;
    if (b > a) {
        for (double k = cycle_of(ph, a); k <= cycle_of(ph, b) && n < max_segments; k++) {
            double s = fmax(a, k * L), e = fmin(b, (k + 1.0) * L);
            if (e > s) { fn(user, local_in(ph, k, s), local_in(ph, k, e)); n++; }
        }
    } else if (b < a) {
        double k1 = floor(b / L);
        if (!isinf(ph->lo) && k1 < 0.0) k1 = 0.0;
        for (double k = cycle_of(ph, a); k >= k1 && n < max_segments; k--) {
            double s = fmin(a, (k + 1.0) * L), e = fmax(b, k * L);
            if (s > e) { fn(user, local_in(ph, k, s), local_in(ph, k, e)); n++; }
        }
    }
    return n;
}
