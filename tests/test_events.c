/* test_events.c — clip markers (mr_clip_add_marker) and mixer events:
 * once per crossing for dt from 1/240 s to 2 s, in order, with negative
 * speed, ping-pong, several loops per step, during fades, queues, across
 * tracks, through the callback and the list, and the overflow limit. */
#include "anim/mixer.h"
#include "choreo_fixture.h"
#include "test.h"

typedef struct log {
    char seq[8192];          /* "start fl fr loop ..." */
    int n;
    float last_offset;
    int out_of_order;
    mr_mixer_event ev[512];
} log_t;

static const char *short_name(const char *name)
{
    if (!strcmp(name, "footstep_l")) return "fl";
    if (!strcmp(name, "footstep_r")) return "fr";
    return name;
}

static void on_event(void *user, const mr_mixer_event *e)
{
    log_t *l = user;
    if (l->n < 512) l->ev[l->n] = *e;
    l->n++;
    if (strlen(l->seq) + 16 < sizeof l->seq) {
        strcat(l->seq, short_name(e->name));
        strcat(l->seq, " ");
    }
}

typedef struct world {
    mr_skeleton sk;
    mr_clip *walk, *other;
} world;

static void world_make(world *w)
{
    fixture_humanoid(&w->sk);
    w->walk = fixture_cycle("walk", 1.0f, 25.0f, 0.0f, 0.0f);
    mr_clip_add_marker(w->walk, 0.75f, "footstep_r");
    mr_clip_add_marker(w->walk, 0.25f, "footstep_l");   /* added out of order on purpose */
    w->other = fixture_cycle("other", 1.0f, 10.0f, 1.0f, 0.0f);
}

static void world_free(world *w)
{
    mr_clip_destroy(w->walk);
    mr_clip_destroy(w->other);
    mr_skeleton_deinit(&w->sk);
}

/* Plays walk with opts for `total` seconds in steps of dt, logging events. */
static void play_log(world *w, const mr_play_opts *o, double total, double dt, log_t *l)
{
    memset(l, 0, sizeof *l);
    mr_mixer_desc d = {.max_events = 1024};
    mr_mixer *mx = NULL;
    mr_mixer_create(&w->sk, MR_UP_Z, &d, &mx, NULL);
    mr_mixer_on_event(mx, on_event, l);
    mr_mixer_play(mx, 0, w->walk, o, NULL);
    int steps = (int)ceil(total / dt - 1e-9);
    for (int i = 0; i < steps; i++) {
        double step = i == steps - 1 ? total - dt * (steps - 1) : dt;
        int before = l->n;
        mr_mixer_update(mx, (float)step, NULL);
        for (int k = before; k < l->n && k < 512; k++)
            if (l->ev[k].offset < 0.0f || l->ev[k].offset > (float)step + 1e-6f ||
                (k > before && l->ev[k].offset < l->ev[k - 1].offset))
                l->out_of_order++;
    }
    mr_mixer_destroy(mx);
}

static const double dts[] = {1.0 / 240, 1.0 / 120, 1.0 / 60, 1.0 / 30, 0.1, 0.25, 1.0 / 3, 0.5, 0.75, 1.0, 1.5, 2.0};
#define NDT (sizeof dts / sizeof *dts)

static void check_all_dts(world *w, const mr_play_opts *o, double total, const char *expect)
{
    for (size_t i = 0; i < NDT; i++) {
        log_t l;
        play_log(w, o, total, dts[i], &l);
        CHECK_MSG(strcmp(l.seq, expect) == 0, "dt %g: got '%s'\n         expected '%s'", dts[i], l.seq, expect);
        CHECK_MSG(l.out_of_order == 0, "dt %g: %d events out of order", dts[i], l.out_of_order);
    }
}

TEST(markers_are_kept_sorted_and_freed_with_the_clip)
{
    world w;
    world_make(&w);
    CHECK(w.walk->marker_count == 2);
    CHECK(w.walk->markers[0].time == 0.25f && strcmp(w.walk->markers[0].name, "footstep_l") == 0);
    CHECK(mr_clip_add_marker(w.walk, 0.25f, "dust") == MR_OK);   /* same time: after the existing one */
    CHECK(strcmp(w.walk->markers[1].name, "dust") == 0);
    CHECK(mr_clip_validate(w.walk, NULL) == MR_OK);
    world_free(&w);   /* ASan checks the names are freed */
}

TEST(markers_refuse_bad_time_or_name)
{
    world w;
    world_make(&w);
    CHECK(mr_clip_add_marker(w.walk, 1.5f, "late") == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_add_marker(w.walk, -0.1f, "early") == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_add_marker(w.walk, NAN, "nan") == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_add_marker(w.walk, 0.5f, "") == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_add_marker(w.walk, 0.5f, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_add_marker(NULL, 0.5f, "x") == MR_ERR_INVALID_ARGUMENT);
    CHECK(w.walk->marker_count == 2);
    /* validate catches markers broken by hand. */
    mr_error err = {0};
    w.walk->markers[0].time = 0.9f;
    CHECK(mr_clip_validate(w.walk, &err) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err.msg, "before the previous one");
    w.walk->markers[0].time = 3.0f;
    CHECK(mr_clip_validate(w.walk, &err) == MR_ERR_BAD_TIME);
    w.walk->markers[0].time = 0.25f;
    world_free(&w);
}

TEST(events_fire_once_per_crossing_for_any_dt)
{
    world w;
    world_make(&w);
    mr_play_opts o = {0};
    o.loop = MR_LOOP_REPEAT;
    char expect[1024] = "start ";
    for (int k = 0; k < 10; k++) strcat(expect, "fl fr loop ");
    check_all_dts(&w, &o, 10.1, expect);
    world_free(&w);
}

TEST(events_reverse_under_negative_speed)
{
    world w;
    world_make(&w);
    mr_play_opts o = {0};
    o.loop = MR_LOOP_REPEAT;
    o.speed = -1.0f;
    char expect[1024] = "start ";
    for (int k = 0; k < 10; k++) strcat(expect, "fr fl loop ");
    check_all_dts(&w, &o, 10.1, expect);
    /* A finite backward loop ends at time 0. */
    o.repeat = 3;
    check_all_dts(&w, &o, 10.1, "start fr fl loop fr fl loop fr fl end ");
    world_free(&w);
}

TEST(events_in_pingpong_with_repetitions)
{
    world w;
    world_make(&w);
    mr_play_opts o = {0};
    o.loop = MR_LOOP_PINGPONG;
    o.repeat = 3;
    check_all_dts(&w, &o, 5.0, "start fl fr loop fr fl loop fl fr end ");
    o.speed = -1.5f;   /* backward from the end of the last leg */
    check_all_dts(&w, &o, 5.0, "start fr fl loop fl fr loop fr fl end ");
    world_free(&w);
}

TEST(events_once_clip_ends_once)
{
    world w;
    world_make(&w);
    mr_play_opts o = {0};
    check_all_dts(&w, &o, 6.0, "start fl fr end ");
    world_free(&w);
}

TEST(events_of_several_loops_in_one_step_are_in_order_with_offsets)
{
    world w;
    world_make(&w);
    mr_play_opts o = {0};
    o.loop = MR_LOOP_REPEAT;
    log_t l;
    memset(&l, 0, sizeof l);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    mr_mixer_update(mx, 3.3f, NULL);
    int count;
    const mr_mixer_event *ev = mr_mixer_events(mx, &count);
    /* start, then fl fr loop x3, then fl (3.25) */
    CHECK(count == 1 + 9 + 1);
    static const float when[] = {0, 0.25f, 0.75f, 1, 1.25f, 1.75f, 2, 2.25f, 2.75f, 3, 3.25f};
    for (int i = 0; i < count && i < 11; i++) {
        CHECK_MSG(fabsf(ev[i].offset - when[i]) < 1e-5f, "event %d '%s' at %g, expected %g", i, ev[i].name,
                  ev[i].offset, when[i]);
        CHECK(ev[i].clip == w.walk && ev[i].track == 0);
    }
    CHECK(ev[1].kind == MR_EVENT_MARKER && ev[1].time == 0.25f);
    CHECK(ev[3].kind == MR_EVENT_LOOP && ev[3].time == 0.0f && strcmp(ev[3].name, "loop") == 0);
    CHECK(ev[0].kind == MR_EVENT_START && strcmp(ev[0].name, "start") == 0);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(events_of_the_outgoing_clip_fire_during_a_fade)
{
    world w;
    world_make(&w);
    log_t l;
    memset(&l, 0, sizeof l);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_mixer_on_event(mx, on_event, &l);
    mr_play_opts o = {0};
    o.loop = MR_LOOP_REPEAT;
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    for (int i = 0; i < 30; i++) mr_mixer_update(mx, 1.0f / 60, NULL);   /* 0.5 s */
    mr_mixer_crossfade(mx, 0, w.other, 1.0f, MR_CURVE_SMOOTH, &o, NULL);
    for (int i = 0; i < 150; i++) mr_mixer_update(mx, 1.0f / 60, NULL);  /* to 3.0 s */
    /* walk: fl at 0.25, fr at 0.75 and loop at 1.0 (fading), fl at 1.25
     * (fading); gone at 1.5. other: start at 0.5, loops at 1.5, 2.5. */
    CHECK_MSG(strcmp(l.seq, "start fl start fr loop fl loop loop ") == 0, "got '%s'", l.seq);
    CHECK(l.ev[3].clip == w.walk && l.ev[5].clip == w.walk);
    CHECK(l.ev[4].clip == w.walk && l.ev[6].clip == w.other);
    mr_mixer_destroy(mx);
    world_free(&w);
}

static mr_mixer *chain_mixer;
static const mr_clip *chain_clip;
static int chain_replays;
static void replay_on_end(void *user, const mr_mixer_event *e)
{
    on_event(user, e);
    if (e->kind == MR_EVENT_END && chain_replays < 2) {
        chain_replays++;
        mr_play_opts o = {0};
        o.restart = 1;
        CHECK(mr_mixer_play(chain_mixer, 0, chain_clip, &o, NULL) == MR_OK);   /* re-entrant play is fine */
        CHECK(mr_mixer_update(chain_mixer, 0.1f, NULL) == MR_ERR_INVALID_ARGUMENT);  /* update is not */
    }
}

TEST(events_callback_may_play_but_not_update)
{
    world w;
    world_make(&w);
    log_t l;
    memset(&l, 0, sizeof l);
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &chain_mixer, NULL);
    chain_clip = w.walk;
    chain_replays = 0;
    mr_mixer_on_event(chain_mixer, replay_on_end, &l);
    mr_mixer_play(chain_mixer, 0, w.walk, NULL, NULL);
    /* Ends at 1.0 (reported by the update to 1.2, replayed from there), and
     * at 2.2 (update to 2.4): the third play is at 0.6 s after 3.0. */
    for (int i = 0; i < 5; i++) mr_mixer_update(chain_mixer, 0.6f, NULL);
    CHECK_MSG(strcmp(l.seq, "start fl fr end start fl fr end start fl ") == 0, "got '%s'", l.seq);
    CHECK(chain_replays == 2);
    mr_mixer_destroy(chain_mixer);
    world_free(&w);
}

TEST(events_queue_end_then_start_at_the_same_instant)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_mixer_play(mx, 0, w.walk, NULL, NULL);
    mr_mixer_queue(mx, 0, w.other, NULL, NULL);
    mr_mixer_update(mx, 0.9f, NULL);
    mr_mixer_update(mx, 0.3f, NULL);
    int count;
    const mr_mixer_event *ev = mr_mixer_events(mx, &count);
    CHECK(count == 2);
    CHECK(ev[0].kind == MR_EVENT_END && ev[0].clip == w.walk);
    CHECK(ev[1].kind == MR_EVENT_START && ev[1].clip == w.other);
    CHECK_NEAR(ev[0].offset, 0.1, 1e-5);
    CHECK_NEAR(ev[1].offset, 0.1, 1e-5);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(events_of_two_tracks_are_interleaved_by_time)
{
    world w;
    world_make(&w);
    mr_clip_add_marker(w.other, 0.5f, "blink");
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_mixer_play(mx, 0, w.walk, NULL, NULL);
    mr_mixer_play(mx, 1, w.other, NULL, NULL);
    mr_mixer_update(mx, 0.8f, NULL);
    int count;
    const mr_mixer_event *ev = mr_mixer_events(mx, &count);
    CHECK(count == 5);
    CHECK(ev[0].kind == MR_EVENT_START && ev[1].kind == MR_EVENT_START);
    CHECK(!strcmp(ev[2].name, "footstep_l") && ev[2].track == 0);
    CHECK(!strcmp(ev[3].name, "blink") && ev[3].track == 1);
    CHECK(!strcmp(ev[4].name, "footstep_r") && ev[4].track == 0);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(events_seek_reports_a_marker_at_the_new_time_once)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_play_opts o = {0};
    o.loop = MR_LOOP_REPEAT;
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    mr_mixer_update(mx, 0.1f, NULL);
    mr_mixer_seek(mx, 0, 0.75f, NULL);     /* jump over fl: not reported; fr is at the new time */
    mr_mixer_update(mx, 0.1f, NULL);
    int count;
    const mr_mixer_event *ev = mr_mixer_events(mx, &count);
    CHECK(count == 1 && !strcmp(ev[0].name, "footstep_r"));
    mr_mixer_update(mx, 0.1f, NULL);
    mr_mixer_events(mx, &count);
    CHECK(count == 0);
    /* Speed 0 sitting on a marker reports it once, not every frame. */
    mr_mixer_seek(mx, 0, 0.25f, NULL);
    mr_mixer_set_speed(mx, 0, 0.0f, NULL);
    int total = 0;
    for (int i = 0; i < 5; i++) {
        mr_mixer_update(mx, 0.1f, NULL);
        mr_mixer_events(mx, &count);
        total += count;
    }
    CHECK(total == 1);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(events_paused_track_reports_nothing)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_play_opts o = {0};
    o.loop = MR_LOOP_REPEAT;
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    mr_mixer_update(mx, 0.1f, NULL);
    mr_mixer_pause(mx, 0, 1, NULL);
    mr_mixer_update(mx, 5.0f, NULL);
    int count;
    mr_mixer_events(mx, &count);
    CHECK(count == 0);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(events_of_a_blend_space_come_from_its_dominant_clip)
{
    world w;
    world_make(&w);
    mr_clip *run = fixture_cycle("run", 0.5f, 40.0f, 0.0f, 0.0f);
    mr_clip_add_marker(run, 0.125f, "footstep_l");
    mr_clip_add_marker(run, 0.375f, "footstep_r");
    mr_blendspace bs;
    mr_blendspace_init(&bs, 1);
    mr_blendspace_add(&bs, w.walk, 1.0f, 0);
    mr_blendspace_add(&bs, run, 2.0f, 0);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    log_t l;
    memset(&l, 0, sizeof l);
    mr_mixer_on_event(mx, on_event, &l);
    mr_play_opts o = {0};
    o.loop = MR_LOOP_REPEAT;
    mr_mixer_play_blendspace(mx, 0, &bs, 1.75f, 0, &o, NULL);   /* run dominates, cycle 0.625 s */
    mr_mixer_update(mx, 0.625f * 2 + 0.01f, NULL);
    CHECK_MSG(strcmp(l.seq, "start fl fr loop fl fr loop ") == 0, "got '%s'", l.seq);
    CHECK(l.ev[1].clip == run && l.ev[1].time == 0.125f);
    CHECK_NEAR(l.ev[1].offset, 0.625f * 0.25f, 1e-5);
    mr_mixer_destroy(mx);
    mr_clip_destroy(run);
    world_free(&w);
}

TEST(events_beyond_the_list_are_counted_and_do_not_hang)
{
    world w;
    world_make(&w);
    mr_clip *tick = fixture_cycle("tick", 0.01f, 5.0f, 0.0f, 0.0f);
    mr_clip_add_marker(tick, 0.005f, "tick");
    mr_mixer_desc d = {.max_events = 4};
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, &d, &mx, NULL);
    mr_play_opts o = {0};
    o.loop = MR_LOOP_REPEAT;
    mr_mixer_play(mx, 0, tick, &o, NULL);
    CHECK(mr_mixer_update(mx, 1.0e6f, NULL) == MR_OK);    /* 1e8 cycles in one step */
    int count;
    mr_mixer_events(mx, &count);
    CHECK(count == 4);
    CHECK(mr_mixer_events_dropped(mx) > 0);
    float t;
    mr_mixer_time(mx, 0, &t);
    CHECK(t >= 0.0f && t <= 0.01f);
    mr_mixer_destroy(mx);
    mr_clip_destroy(tick);
    world_free(&w);
}

int main(void)
{
    RUN(markers_are_kept_sorted_and_freed_with_the_clip);
    RUN(markers_refuse_bad_time_or_name);
    RUN(events_fire_once_per_crossing_for_any_dt);
    RUN(events_reverse_under_negative_speed);
    RUN(events_in_pingpong_with_repetitions);
    RUN(events_once_clip_ends_once);
    RUN(events_of_several_loops_in_one_step_are_in_order_with_offsets);
    RUN(events_of_the_outgoing_clip_fire_during_a_fade);
    RUN(events_callback_may_play_but_not_update);
    RUN(events_queue_end_then_start_at_the_same_instant);
    RUN(events_of_two_tracks_are_interleaved_by_time);
    RUN(events_seek_reports_a_marker_at_the_new_time_once);
    RUN(events_paused_track_reports_nothing);
    RUN(events_of_a_blend_space_come_from_its_dominant_clip);
    RUN(events_beyond_the_list_are_counted_and_do_not_hang);
    return test_summary("events");
}
