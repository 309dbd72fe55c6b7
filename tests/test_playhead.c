/* test_playhead.c — play position for once / repeat / ping-pong, and the
 * crossing rules: every marker, wrap and end reported once, in travel
 * order, whatever the step size or direction. */
#include "anim/playhead.h"
#include "test.h"

typedef struct rec {
    char seq[4096];          /* "m0 m1 L E ..." */
    int n;
    int limit;               /* stop listing after this many (0: no limit) */
} rec;

static int record(void *user, const mr_crossing *c)
{
    rec *r = user;
    char item[16];
    if (c->kind == MR_CROSS_MARKER) snprintf(item, sizeof item, "m%d ", c->marker);
    else snprintf(item, sizeof item, "%s ", c->kind == MR_CROSS_LOOP ? "L" : "E");
    if (strlen(r->seq) + strlen(item) < sizeof r->seq) strcat(r->seq, item);
    r->n++;
    return !(r->limit && r->n >= r->limit);
}

static const float marks[3] = {0.0f, 0.25f, 0.6f};

/* Plays `total` seconds at speed in steps of dt; returns the sequence. */
static void play(rec *r, mr_loop loop, int reps, double speed, double total, double dt, double start)
{
    memset(r, 0, sizeof *r);
    mr_playhead ph;
    mr_playhead_init(&ph, 1.0, loop, reps);
    mr_playhead_start(&ph, start, speed < 0);
    mr_marker_view mv = {marks, sizeof(float), 3, 1.0};
    int first = 1;
    for (double t = 0.0; t < total - 1e-12; t += dt) {
        double step = fmin(dt, total - t);
        mr_playhead_advance(&ph, speed * step, &mv, first, record, r);
        first = 0;
    }
}

TEST(playhead_once_reports_markers_then_end)
{
    rec r;
    play(&r, MR_LOOP_ONCE, 0, 1.0, 3.0, 0.1, 0.0);
    CHECK_MSG(strcmp(r.seq, "m0 m1 m2 E ") == 0, "got '%s'", r.seq);
    /* Holding at the end reports nothing more. */
    play(&r, MR_LOOP_ONCE, 0, 1.0, 3.0, 2.0, 0.0);
    CHECK_MSG(strcmp(r.seq, "m0 m1 m2 E ") == 0, "got '%s'", r.seq);
}

TEST(playhead_repeat_reports_every_wrap_in_one_big_step)
{
    rec r;
    /* 3 cycles in one step: markers of each cycle, a loop between cycles,
     * the end after the last. */
    play(&r, MR_LOOP_REPEAT, 3, 1.0, 10.0, 10.0, 0.0);
    CHECK_MSG(strcmp(r.seq, "m0 m1 m2 L m0 m1 m2 L m0 m1 m2 E ") == 0, "got '%s'", r.seq);
}

TEST(playhead_backward_reports_in_reverse_order)
{
    rec r;
    /* From the end of the last cycle back to the start: two full cycles. */
    play(&r, MR_LOOP_REPEAT, 2, -1.0, 5.0, 0.07, 1.0);
    CHECK_MSG(strcmp(r.seq, "m2 m1 m0 L m2 m1 m0 E ") == 0, "got '%s'", r.seq);
    /* From time 0 of the last cycle: that instant, then one cycle. */
    play(&r, MR_LOOP_REPEAT, 2, -1.0, 5.0, 0.07, 0.0);
    CHECK_MSG(strcmp(r.seq, "m0 m2 m1 m0 E ") == 0, "got '%s'", r.seq);
}

TEST(playhead_pingpong_reports_the_turn_once)
{
    rec r;
    /* Legs: 0->1 (m0 m1 m2), 1->0 (m2 m1 m0), 0->1: the turn instants (time
     * 1, then time 0) are each reported once. */
    play(&r, MR_LOOP_PINGPONG, 3, 1.0, 5.0, 0.1, 0.0);
    CHECK_MSG(strcmp(r.seq, "m0 m1 m2 L m2 m1 m0 L m1 m2 E ") == 0, "got '%s'", r.seq);
    /* A marker at the turning time 0: the second turn is at time 0, where m0 sits. */
}

TEST(playhead_sequence_does_not_depend_on_step_size)
{
    static const double dts[] = {1.0 / 240, 1.0 / 60, 1.0 / 30, 0.1, 0.25, 1.0 / 3, 0.5, 0.6, 1.0, 2.0};
    static const mr_loop loops[] = {MR_LOOP_ONCE, MR_LOOP_REPEAT, MR_LOOP_PINGPONG};
    static const int reps[] = {0, 3, 0, 4, 0};
    static const double speeds[] = {1.0, -1.0, 1.7, -0.8};
    for (int l = 0; l < 3; l++)
        for (int rp = 0; rp < 5; rp++)
            for (int s = 0; s < 4; s++) {
                rec ref, r;
                /* Reference: one step for the whole time (8 s of play). */
                play(&ref, loops[l], reps[rp], speeds[s], 8.0, 8.0, 0.3);
                for (size_t d = 0; d < sizeof dts / sizeof *dts; d++) {
                    play(&r, loops[l], reps[rp], speeds[s], 8.0, dts[d], 0.3);
                    CHECK_MSG(strcmp(r.seq, ref.seq) == 0, "loop %d reps %d speed %g dt %g: '%s' vs '%s'",
                              l, reps[rp], speeds[s], dts[d], r.seq, ref.seq);
                }
            }
}

TEST(playhead_endless_repeat_counts_every_crossing)
{
    rec r;
    /* 8 s of play from 0.3 forward: cycles 0..7 partly, markers per cycle. */
    play(&r, MR_LOOP_REPEAT, 0, 1.0, 8.0, 1.0 / 240, 0.3);
    int m0 = 0, m1 = 0, m2 = 0, loops = 0;
    for (const char *p = r.seq; *p; p++) {
        if (p[0] == 'm' && p[1] == '0') m0++;
        if (p[0] == 'm' && p[1] == '1') m1++;
        if (p[0] == 'm' && p[1] == '2') m2++;
        if (p[0] == 'L') loops++;
    }
    /* Positions (0.3, 8.3]: m0 (0) at 1..8, m1 (0.25) at 1.25..8.25,
     * m2 (0.6) at 0.6..7.6, wraps at 1..8: 8 of each. */
    CHECK_MSG(m0 == 8 && m1 == 8 && m2 == 8 && loops == 8, "%d %d %d %d", m0, m1, m2, loops);
    CHECK(strstr(r.seq, "E") == NULL);
}

TEST(playhead_time_and_phase)
{
    mr_playhead ph;
    mr_playhead_init(&ph, 2.0, MR_LOOP_PINGPONG, 0);
    mr_playhead_start(&ph, 0.5, 0);
    CHECK_NEAR(mr_playhead_time(&ph), 0.5, 1e-12);
    mr_playhead_advance(&ph, 2.0, NULL, 0, NULL, NULL);    /* into the backward leg */
    CHECK_NEAR(mr_playhead_time(&ph), 1.5, 1e-12);
    CHECK_NEAR(mr_playhead_phase(&ph), 0.75, 1e-12);
    mr_playhead_seek(&ph, 0.2);
    CHECK_NEAR(mr_playhead_time(&ph), 0.2, 1e-12);
    /* Once: holds the end. */
    mr_playhead_init(&ph, 2.0, MR_LOOP_ONCE, 0);
    mr_playhead_advance(&ph, 5.0, NULL, 0, NULL, NULL);
    CHECK(mr_playhead_time(&ph) == 2.0);
    CHECK(mr_playhead_ended(&ph, 0) && !mr_playhead_ended(&ph, 1));
    /* Backward start of a finite repeat is its end. */
    mr_playhead_init(&ph, 2.0, MR_LOOP_REPEAT, 3);
    mr_playhead_start(&ph, 2.0, 1);
    CHECK(ph.pos == 6.0 && mr_playhead_time(&ph) == 2.0);
    CHECK_NEAR(mr_playhead_remaining(&ph, 1), 6.0, 1e-12);
}

TEST(playhead_endless_keeps_precision_over_long_play)
{
    mr_playhead ph;
    mr_playhead_init(&ph, 1.0, MR_LOOP_REPEAT, 0);
    for (int i = 0; i < 1000000; i++) mr_playhead_advance(&ph, 1.0 / 60, NULL, 0, NULL, NULL);
    CHECK(ph.pos >= 0.0 && ph.pos < 2.0);
    CHECK_NEAR(mr_playhead_time(&ph), fmod(1000000.0 / 60.0, 1.0), 1e-6);
}

TEST(playhead_finish_cycle_ends_an_endless_loop_at_the_next_wrap)
{
    rec r = {0};
    mr_playhead ph;
    mr_playhead_init(&ph, 1.0, MR_LOOP_REPEAT, 0);
    mr_playhead_advance(&ph, 2.4, NULL, 0, NULL, NULL);
    mr_playhead_finish_cycle(&ph, 0);
    CHECK_NEAR(mr_playhead_remaining(&ph, 0), 0.6, 1e-9);
    mr_marker_view mv = {marks, sizeof(float), 3, 1.0};
    mr_playhead_advance(&ph, 5.0, &mv, 0, record, &r);
    CHECK_MSG(strcmp(r.seq, "m2 E ") == 0, "got '%s'", r.seq);
    CHECK(mr_playhead_time(&ph) == 1.0);
}

TEST(playhead_listing_stops_when_asked_but_moves_all_the_way)
{
    rec r;
    memset(&r, 0, sizeof r);
    r.limit = 5;
    mr_playhead ph;
    mr_playhead_init(&ph, 0.001, MR_LOOP_REPEAT, 0);
    mr_marker_view mv = {marks, sizeof(float), 1, 1.0};
    double moved = mr_playhead_advance(&ph, 1000.0, &mv, 1, record, &r);
    CHECK(r.n == 5);
    CHECK(moved == 1000.0);
}

static double segs[16][2];
static int seg_n;
static void collect(void *user, double a, double b)
{
    (void)user;
    if (seg_n < 16) { segs[seg_n][0] = a; segs[seg_n][1] = b; }
    seg_n++;
}

TEST(playhead_segments_split_at_wraps)
{
    mr_playhead ph;
    mr_playhead_init(&ph, 1.0, MR_LOOP_REPEAT, 0);
    mr_playhead_start(&ph, 0.5, 0);
    seg_n = 0;
    CHECK(mr_playhead_segments(&ph, 2.75, 16, collect, NULL) == 4);
    /* 0.5->1, 0->1, 0->1, 0->0.25 */
    CHECK(segs[0][0] == 0.5 && segs[0][1] == 1.0);
    CHECK(segs[1][0] == 0.0 && segs[1][1] == 1.0 && segs[2][1] == 1.0);
    CHECK(segs[3][0] == 0.0 && segs[3][1] == 0.25);
    CHECK(ph.pos == 0.5);                       /* listing does not move */
    /* Ping-pong backward legs run from 1 to 0. */
    mr_playhead_init(&ph, 1.0, MR_LOOP_PINGPONG, 0);
    mr_playhead_start(&ph, 0.5, 0);
    seg_n = 0;
    CHECK(mr_playhead_segments(&ph, 1.0, 16, collect, NULL) == 2);
    CHECK(segs[0][0] == 0.5 && segs[0][1] == 1.0 && segs[1][0] == 1.0 && segs[1][1] == 0.5);
    /* Backward on a finite repeat stops at 0, and the cap is respected. */
    mr_playhead_init(&ph, 1.0, MR_LOOP_REPEAT, 2);
    mr_playhead_start(&ph, 0.5, 1);             /* last cycle: pos 1.5 */
    seg_n = 0;
    CHECK(mr_playhead_segments(&ph, -10.0, 16, collect, NULL) == 2);
    CHECK(segs[0][0] == 0.5 && segs[0][1] == 0.0 && segs[1][0] == 1.0 && segs[1][1] == 0.0);
    CHECK(mr_playhead_segments(&ph, -10.0, 1, collect, NULL) == 1);
}

TEST(playhead_init_refuses_bad_arguments)
{
    mr_playhead ph;
    CHECK(mr_playhead_init(&ph, NAN, MR_LOOP_ONCE, 0) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_playhead_init(&ph, -1.0, MR_LOOP_ONCE, 0) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_playhead_init(&ph, 1.0, MR_LOOP_REPEAT, -2) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_playhead_init(&ph, 1.0, (mr_loop)7, 0) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_playhead_init(NULL, 1.0, MR_LOOP_ONCE, 0) == MR_ERR_INVALID_ARGUMENT);
}

TEST(playhead_ignores_a_nan_step)
{
    mr_playhead ph;
    mr_playhead_init(&ph, 1.0, MR_LOOP_REPEAT, 0);
    mr_playhead_advance(&ph, 0.3, NULL, 0, NULL, NULL);
    CHECK(mr_playhead_advance(&ph, NAN, NULL, 0, NULL, NULL) == 0.0);
    CHECK_NEAR(ph.pos, 0.3, 1e-12);
}

TEST(playhead_still_clip_ends_at_once)
{
    rec r;
    memset(&r, 0, sizeof r);
    mr_playhead ph;
    mr_playhead_init(&ph, 0.0, MR_LOOP_REPEAT, 0);
    mr_marker_view mv = {marks, sizeof(float), 1, 1.0};
    mr_playhead_advance(&ph, 0.1, &mv, 1, record, &r);
    mr_playhead_advance(&ph, 0.1, &mv, 0, record, &r);
    CHECK_MSG(strcmp(r.seq, "m0 E ") == 0, "got '%s'", r.seq);
}

int main(void)
{
    RUN(playhead_once_reports_markers_then_end);
    RUN(playhead_repeat_reports_every_wrap_in_one_big_step);
    RUN(playhead_backward_reports_in_reverse_order);
    RUN(playhead_pingpong_reports_the_turn_once);
    RUN(playhead_sequence_does_not_depend_on_step_size);
    RUN(playhead_endless_repeat_counts_every_crossing);
    RUN(playhead_time_and_phase);
    RUN(playhead_endless_keeps_precision_over_long_play);
    RUN(playhead_finish_cycle_ends_an_endless_loop_at_the_next_wrap);
    RUN(playhead_listing_stops_when_asked_but_moves_all_the_way);
    RUN(playhead_segments_split_at_wraps);
    RUN(playhead_init_refuses_bad_arguments);
    RUN(playhead_ignores_a_nan_step);
    RUN(playhead_still_clip_ends_at_once);
    return test_summary("playhead");
}
