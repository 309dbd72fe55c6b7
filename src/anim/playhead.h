/* playhead.h — where playback is in a clip, for once / repeat / ping-pong
 * playing, and which instants (markers, wraps, the end) a step crosses.
 *
 * The position `pos` runs over [lo, hi] in the clip's time units: cycle k
 * (k = floor(pos / length)) covers [k*length, (k+1)*length]. Repeat plays
 * every cycle forward; ping-pong plays odd cycles ("legs") backward. A
 * playhead with a repetition count ends at hi = reps * length (lo = 0); an
 * endless one has lo = -inf, hi = +inf and wraps its position internally so
 * long sessions keep full precision. Negative steps play backward (the end
 * is then lo).
 *
 * Crossing rules (each instant is reported exactly once, in travel order,
 * however large the step):
 *   - a step from a to b reports positions p with a < p <= b (forward) or
 *     b <= p < a (backward); with include_start, p == a too (the first step
 *     after starting or seeking);
 *   - in a repeat cycle boundary both "end of cycle" markers (time ==
 *     length) and "start of cycle" markers (time 0) are reported, around the
 *     LOOP crossing; at a ping-pong turn the shared instant is reported once;
 *   - LOOP at every interior cycle boundary (a wrap or a turn), END when the
 *     step reaches the end of a finite playhead.
 * Listing stops early when the callback returns 0 (a full event buffer);
 * the position still moves the whole step. Nothing allocates.
 */
#ifndef MR_ANIM_PLAYHEAD_H
#define MR_ANIM_PLAYHEAD_H

#include <stddef.h>

#include "core/error.h"

typedef enum mr_loop {
    MR_LOOP_ONCE = 0,    /* one cycle, then hold the end (clamp) */
    MR_LOOP_REPEAT,      /* wrap to the start: reps cycles, 0 = forever */
    MR_LOOP_PINGPONG,    /* turn around at each end: reps legs, 0 = forever */
} mr_loop;

typedef enum mr_crossing_kind {
    MR_CROSS_MARKER = 0,
    MR_CROSS_LOOP,       /* a wrap (repeat) or a turn (ping-pong) */
    MR_CROSS_END,        /* a finite playhead reached its end in the travel direction */
} mr_crossing_kind;

typedef struct mr_crossing {
    mr_crossing_kind kind;
    int marker;          /* index into the marker times (MARKER only), else -1 */
    float time;          /* clip time at the crossing */
    double frac;         /* 0..1: how far through the step it lies */
} mr_crossing;

/* Return non-zero to continue listing, 0 to stop. */
typedef int (*mr_crossing_fn)(void *user, const mr_crossing *c);
/* A stretch of one cycle travelled by a step, from clip time a to b. */
typedef void (*mr_segment_fn)(void *user, double a, double b);

typedef struct mr_playhead {
    double length;       /* cycle length (> 0), or 0 for a still clip */
    double lo, hi;       /* playable range of pos */
    double pos;
    int pingpong;
} mr_playhead;

/* Sets up a playhead for a cycle of `length` (finite, >= 0) played per loop
 * and reps (>= 0; ignored for ONCE), at position 0. A zero length gives a
 * still playhead whose end is its start. */
mr_status mr_playhead_init(mr_playhead *ph, double length, mr_loop loop, int reps);
/* Puts the playhead at clip time t (clamped to [0, length]) in its first
 * cycle, or in its last cycle when playing backward (an endless playhead
 * uses its first cycle either way). */
void mr_playhead_start(mr_playhead *ph, double t, int backward);
/* Clip time at the current position, in [0, length]. */
double mr_playhead_time(const mr_playhead *ph);
/* Fraction of the current cycle travelled, in [0, 1). */
double mr_playhead_phase(const mr_playhead *ph);
/* Moves to clip time t in the current cycle (keeps the repetition count). */
void mr_playhead_seek(mr_playhead *ph, double t);
/* 1 when the playhead sits at its end for the given direction. */
int mr_playhead_ended(const mr_playhead *ph, int backward);
/* Distance to the end in the given direction (INFINITY when endless). */
double mr_playhead_remaining(const mr_playhead *ph, int backward);
/* Makes an endless playhead finish at the next cycle boundary ahead (used
 * when a clip is queued after a looping one). No effect on a finite one. */
void mr_playhead_finish_cycle(mr_playhead *ph, int backward);

/* Marker times for mr_playhead_advance: count ascending times read as
 * *(const float *)((const char *)times + i * stride) * scale, so an array of
 * mr_marker (stride sizeof(mr_marker)) can be passed directly, and scale
 * maps clip seconds to the playhead's units (1 for a clip). */
typedef struct mr_marker_view {
    const float *times;
    size_t stride;
    int count;
    double scale;
} mr_marker_view;

/* Moves by delta (clamped to [lo, hi]) and lists the crossings of markers
 * (may be NULL), wraps and the end through fn (may be NULL). `time` in a
 * crossing is the position within the cycle in the playhead's units.
 * Returns the signed distance moved. */
double mr_playhead_advance(mr_playhead *ph, double delta, const mr_marker_view *markers,
                           int include_start, mr_crossing_fn fn, void *user);
/* Lists the per-cycle stretches a step of delta from the current position
 * would travel, in order, without moving (at most max_segments; returns the
 * number listed). Used to sum root motion across wraps. */
int mr_playhead_segments(const mr_playhead *ph, double delta, int max_segments, mr_segment_fn fn,
                         void *user);

#endif
