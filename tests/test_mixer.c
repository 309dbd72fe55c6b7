/* test_mixer.c — the mixer: playback and loop modes, cross-fades (weights
 * sum to 1, continuity, three-way fades), queue, stop, pause, seek, sync,
 * masked and additive layers, blend spaces, the pose hook, root motion, and
 * a negative test per invalid configuration. Events: test_events.c. */
#include <malloc.h>

#include "anim/ik.h"
#include "anim/mixer.h"
#include "choreo_fixture.h"
#include "test.h"

typedef struct world {
    mr_skeleton sk;
    mr_clip *walk, *run, *idle, *wave, *walk_fwd;
    mr_pose pose, want;
} world;

static void world_make(world *w)
{
    fixture_humanoid(&w->sk);
    w->walk = fixture_cycle("walk", 1.0f, 25.0f, 0.0f, 0.0f);
    w->run = fixture_cycle("run", 0.6f, 45.0f, 1.3f, 0.0f);
    w->idle = fixture_cycle("idle", 2.0f, 4.0f, 2.1f, 0.0f);
    w->wave = fixture_cycle("wave", 1.5f, 60.0f, 0.7f, 0.0f);
    w->walk_fwd = fixture_cycle("walk_fwd", 1.0f, 25.0f, 0.0f, 40.0f);   /* pelvis moves +Y 40 in/s */
    mr_pose_init(&w->pose, J_COUNT);
    mr_pose_init(&w->want, J_COUNT);
}

static void world_free(world *w)
{
    mr_clip_destroy(w->walk);
    mr_clip_destroy(w->run);
    mr_clip_destroy(w->idle);
    mr_clip_destroy(w->wave);
    mr_clip_destroy(w->walk_fwd);
    mr_pose_deinit(&w->pose);
    mr_pose_deinit(&w->want);
    mr_skeleton_deinit(&w->sk);
}

static mr_play_opts looping(void)
{
    mr_play_opts o = {0};
    o.loop = MR_LOOP_REPEAT;
    return o;
}

static float clip_weight(mr_mixer *mx, int track, const mr_clip *c)
{
    float w = -1.0f;
    mr_mixer_clip_weight(mx, track, c, &w);
    return w;
}

static float track_time(mr_mixer *mx, int track)
{
    float t = -1.0f;
    mr_mixer_time(mx, track, &t);
    return t;
}

TEST(mixer_plays_a_clip_at_its_time)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_play_opts o = looping();
    CHECK(mr_mixer_play(mx, 0, w.walk, &o, NULL) == MR_OK);
    for (int i = 0; i < 100; i++) mr_mixer_update(mx, 1.0f / 60, NULL);
    CHECK_NEAR(track_time(mx, 0), fmod(100.0 / 60, 1.0), 1e-4);
    CHECK(mr_mixer_evaluate(mx, &w.pose, NULL, NULL) == MR_OK);
    mr_clip_sample(w.walk, &w.sk, track_time(mx, 0), MR_WRAP_CLAMP, &w.want);
    for (int j = 0; j < J_COUNT; j++) CHECK(fixture_pose_equal(&w.pose, &w.want, j));
    /* Nothing playing: the rest pose. */
    mr_mixer_stop(mx, 0, 0.0f, NULL);
    mr_mixer_evaluate(mx, &w.pose, NULL, NULL);
    mr_pose_set_rest(&w.want, &w.sk);
    for (int j = 0; j < J_COUNT; j++) CHECK(fixture_pose_equal(&w.pose, &w.want, j));
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_loop_modes_once_repeat_pingpong_and_negative_speed)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_play_opts o = {0};            /* once: clamps at the end */
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    mr_mixer_update(mx, 2.5f, NULL);
    CHECK(track_time(mx, 0) == 1.0f);
    mr_mixer_clip_info info;
    CHECK(mr_mixer_playing(mx, 0, &info, 1) == 1 && info.ended);
    o.loop = MR_LOOP_REPEAT;                            /* 2 repetitions then clamp */
    o.repeat = 2;
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    mr_mixer_update(mx, 1.25f, NULL);
    CHECK_NEAR(track_time(mx, 0), 0.25, 1e-5);
    mr_mixer_update(mx, 1.0f, NULL);
    CHECK(track_time(mx, 0) == 1.0f);
    o.loop = MR_LOOP_PINGPONG;                          /* forward then back */
    o.repeat = 0;
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    mr_mixer_update(mx, 1.25f, NULL);
    CHECK_NEAR(track_time(mx, 0), 0.75, 1e-5);
    mr_mixer_update(mx, 1.0f, NULL);
    CHECK_NEAR(track_time(mx, 0), 0.25, 1e-5);
    o = (mr_play_opts){0};                         /* backward once: starts at the end */
    o.speed = -2.0f;
    o.restart = 1;
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    CHECK(track_time(mx, 0) == 1.0f);
    mr_mixer_update(mx, 0.2f, NULL);
    CHECK_NEAR(track_time(mx, 0), 0.6, 1e-5);
    mr_mixer_update(mx, 5.0f, NULL);
    CHECK(track_time(mx, 0) == 0.0f);
    /* An explicit start time. */
    o = (mr_play_opts){0};
    o.start = 0.4f;
    mr_mixer_play(mx, 0, w.run, &o, NULL);
    CHECK_NEAR(track_time(mx, 0), 0.4, 1e-6);
    mr_mixer_destroy(mx);
    world_free(&w);
}

/* Largest model-space move of any joint between two frames, as for clips. */
static float frame_move(const world *w, const mr_pose *a, const mr_pose *b)
{
    return fixture_max_move(&w->sk, a, b);
}

/* Plays frames at 60 fps, checking at each that the clips' weights on the
 * track sum to 1, that weights move continuously, and that the pose moves
 * no more than the clips themselves do plus what the weight change can
 * explain. Returns the largest per-frame pose move seen. */
static float run_checked(world *w, mr_mixer *mx, int frames, const mr_clip *const *clips, int nclips,
                         mr_pose *prev, float prev_w[4], int *bad)
{
    static float prev_spread;
    mr_pose src[4], src_prev[4];
    for (int i = 0; i < nclips; i++) {
        mr_pose_init(&src[i], J_COUNT);
        mr_pose_init(&src_prev[i], J_COUNT);
    }
    float worst = 0.0f;
    for (int f = 0; f < frames; f++) {
        mr_mixer_update(mx, 1.0f / 60, NULL);
        mr_mixer_evaluate(mx, &w->pose, NULL, NULL);
        float wsum = 0.0f, dw = 0.0f, cw[4];
        for (int i = 0; i < nclips; i++) {
            cw[i] = clip_weight(mx, 0, clips[i]);
            wsum += cw[i];
            dw += fabsf(cw[i] - prev_w[i]);
        }
        if (fabsf(wsum - 1.0f) > 1e-5f) { (*bad)++; printf("       frame %d: weights sum to %g\n", f, wsum); }
        /* Each clip's own motion this frame, and how far apart the clips are. */
        mr_mixer_clip_info info[8];
        int n = mr_mixer_playing(mx, 0, info, 8);
        float clip_move = 0.0f, spread = 0.0f;
        for (int i = 0; i < n; i++) {
            mr_clip_sample(info[i].clip, &w->sk, info[i].time, MR_WRAP_CLAMP, &src[i]);
            mr_clip_sample(info[i].clip, &w->sk, info[i].time - info[i].speed / 60.0f, MR_WRAP_LOOP, &src_prev[i]);
            clip_move = fmaxf(clip_move, frame_move(w, &src[i], &src_prev[i]));
            for (int k = 0; k < i; k++) spread = fmaxf(spread, frame_move(w, &src[i], &src[k]));
        }
        /* Blended rotations move joints along arcs, up to pi/2 times the
         * chord between the poses (1.6); the spread is that of the clips on
         * either frame (a fade ending within the step has dropped its
         * outgoing clips already). */
        float move = frame_move(w, &w->pose, prev);
        float bound = 1.25f * clip_move + 1.6f * dw * fmaxf(spread, prev_spread) + 1e-3f;
        prev_spread = spread;
        if (f > 0 && move > bound) {
            (*bad)++;
            printf("       frame %d: pose moved %g, bound %g (clip %g, dw %g, spread %g)\n", f, move, bound,
                   clip_move, dw, spread);
        }
        if (f > 0) worst = fmaxf(worst, move);
        mr_pose_copy(prev, &w->pose);
        memcpy(prev_w, cw, sizeof cw);
    }
    for (int i = 0; i < nclips; i++) {
        mr_pose_deinit(&src[i]);
        mr_pose_deinit(&src_prev[i]);
    }
    return worst;
}

TEST(mixer_crossfade_is_continuous_and_weights_sum_to_one)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_play_opts o = looping();
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    mr_pose prev;
    mr_pose_init(&prev, J_COUNT);
    const mr_clip *clips[2] = {w.walk, w.run};
    float pw[4] = {1, 0, 0, 0};
    int bad = 0;
    run_checked(&w, mx, 20, clips, 2, &prev, pw, &bad);
    CHECK(mr_mixer_crossfade(mx, 0, w.run, 0.5f, MR_CURVE_SMOOTH, &o, NULL) == MR_OK);
    /* The outgoing clip keeps playing during the fade. */
    float t0 = track_time(mx, 0);
    (void)t0;
    mr_mixer_clip_info info[4];
    run_checked(&w, mx, 15, clips, 2, &prev, pw, &bad);
    CHECK(mr_mixer_playing(mx, 0, info, 4) == 2);
    CHECK(info[0].clip == w.run && info[0].current && info[1].clip == w.walk && !info[1].current);
    CHECK(info[1].time > 0.5f);   /* walk went on from 20/60 s */
    run_checked(&w, mx, 30, clips, 2, &prev, pw, &bad);
    CHECK(bad == 0);
    CHECK(clip_weight(mx, 0, w.run) == 1.0f && clip_weight(mx, 0, w.walk) == 0.0f);
    CHECK(mr_mixer_playing(mx, 0, info, 4) == 1);   /* the faded clip is gone */
    /* The check can see a pop: a cut between the clips jumps far beyond the bound. */
    mr_mixer_evaluate(mx, &w.pose, NULL, NULL);
    mr_pose_copy(&prev, &w.pose);
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    mr_mixer_evaluate(mx, &w.pose, NULL, NULL);
    CHECK(frame_move(&w, &w.pose, &prev) > 3.0f);
    mr_pose_deinit(&prev);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_three_way_fade_keeps_weights_summing_to_one_without_a_pop)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_play_opts o = looping();
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    mr_pose prev;
    mr_pose_init(&prev, J_COUNT);
    const mr_clip *clips[3] = {w.walk, w.run, w.idle};
    float pw[4] = {1, 0, 0, 0};
    int bad = 0;
    run_checked(&w, mx, 10, clips, 3, &prev, pw, &bad);
    mr_mixer_crossfade(mx, 0, w.run, 1.0f, MR_CURVE_SMOOTH, &o, NULL);   /* A -> B */
    run_checked(&w, mx, 30, clips, 3, &prev, pw, &bad);                  /* mid-fade */
    float wa = clip_weight(mx, 0, w.walk), wb = clip_weight(mx, 0, w.run);
    CHECK(wa > 0.3f && wb > 0.3f);
    mr_mixer_crossfade(mx, 0, w.idle, 1.0f, MR_CURVE_LINEAR, &o, NULL);  /* -> C */
    /* At the instant of the new fade the weights have not moved. */
    CHECK_NEAR(clip_weight(mx, 0, w.walk), wa, 1e-6);
    CHECK_NEAR(clip_weight(mx, 0, w.run), wb, 1e-6);
    CHECK(clip_weight(mx, 0, w.idle) == 0.0f);
    mr_mixer_clip_info info[4];
    CHECK(mr_mixer_playing(mx, 0, info, 4) == 3);
    run_checked(&w, mx, 70, clips, 3, &prev, pw, &bad);
    CHECK(bad == 0);
    CHECK(clip_weight(mx, 0, w.idle) == 1.0f);
    CHECK(mr_mixer_playing(mx, 0, info, 4) == 1);
    mr_pose_deinit(&prev);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_more_fades_than_slots_drop_the_lightest_clip)
{
    world w;
    world_make(&w);
    mr_mixer_desc d = {.max_clips_per_track = 2};
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, &d, &mx, NULL);
    mr_play_opts o = looping();
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    mr_mixer_crossfade(mx, 0, w.run, 1.0f, MR_CURVE_LINEAR, &o, NULL);
    mr_mixer_update(mx, 0.25f, NULL);                 /* walk 0.75, run 0.25 */
    mr_mixer_crossfade(mx, 0, w.idle, 1.0f, MR_CURVE_LINEAR, &o, NULL);
    /* run was lighter and is dropped; walk takes its share. */
    CHECK(clip_weight(mx, 0, w.run) == 0.0f);
    CHECK_NEAR(clip_weight(mx, 0, w.walk), 1.0, 1e-6);
    mr_mixer_update(mx, 0.5f, NULL);
    CHECK_NEAR(clip_weight(mx, 0, w.walk) + clip_weight(mx, 0, w.idle), 1.0, 1e-6);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_queue_starts_when_the_current_clip_ends)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_play_opts once = {0}, q = looping();
    q.delay = 0.25f;
    mr_mixer_play(mx, 0, w.walk, &once, NULL);        /* 1 s */
    CHECK(mr_mixer_queue(mx, 0, w.run, &q, NULL) == MR_OK);
    mr_mixer_update(mx, 1.1f, NULL);
    mr_mixer_clip_info info[4];
    mr_mixer_playing(mx, 0, info, 4);
    CHECK(info[0].clip == w.walk && info[0].ended);   /* waiting out the delay */
    mr_mixer_update(mx, 0.2f, NULL);                  /* 1.3 s: run started at 1.25 */
    mr_mixer_playing(mx, 0, info, 4);
    CHECK(info[0].clip == w.run);
    CHECK_NEAR(info[0].time, 0.05, 1e-5);
    /* One big step gives the same result. */
    mr_mixer_play(mx, 0, w.walk, &once, NULL);
    once.restart = 1;
    mr_mixer_play(mx, 0, w.walk, &once, NULL);
    mr_mixer_queue(mx, 0, w.run, &q, NULL);
    mr_mixer_update(mx, 1.3f, NULL);
    mr_mixer_playing(mx, 0, info, 4);
    CHECK(info[0].clip == w.run);
    CHECK_NEAR(info[0].time, 0.05, 1e-5);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_queue_after_an_endless_loop_starts_at_its_next_wrap_with_a_fade)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_play_opts o = looping(), q = (mr_play_opts){0};
    q.fade = 0.2f;
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    mr_mixer_update(mx, 1.4f, NULL);                  /* walk at 0.4 of its 2nd cycle */
    mr_mixer_queue(mx, 0, w.wave, &q, NULL);
    mr_mixer_update(mx, 0.5f, NULL);                  /* 1.9: still walking */
    CHECK(clip_weight(mx, 0, w.walk) == 1.0f);
    mr_mixer_update(mx, 0.2f, NULL);                  /* 2.1: wave fading in since 2.0 */
    CHECK_NEAR(clip_weight(mx, 0, w.wave), 0.5, 1e-4);   /* smoothstep(0.5) */
    CHECK_NEAR(clip_weight(mx, 0, w.walk) + clip_weight(mx, 0, w.wave), 1.0, 1e-6);
    mr_mixer_clip_info info[4];
    mr_mixer_playing(mx, 0, info, 4);
    CHECK(info[0].clip == w.wave);
    CHECK_NEAR(info[0].time, 0.1, 1e-5);
    CHECK(info[1].clip == w.walk && info[1].time == 1.0f);  /* walk holds its end while fading */
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_stop_fades_to_the_rest_pose)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_play_opts o = looping();
    mr_mixer_play(mx, 0, w.wave, &o, NULL);
    mr_mixer_update(mx, 0.3f, NULL);
    CHECK(mr_mixer_stop(mx, 0, 0.5f, NULL) == MR_OK);
    mr_mixer_update(mx, 0.25f, NULL);
    CHECK_NEAR(clip_weight(mx, 0, w.wave), 0.5, 1e-4);
    mr_mixer_update(mx, 0.3f, NULL);
    CHECK(clip_weight(mx, 0, w.wave) == 0.0f);
    CHECK(mr_mixer_playing(mx, 0, NULL, 0) == 0);
    mr_mixer_evaluate(mx, &w.pose, NULL, NULL);
    mr_pose_set_rest(&w.want, &w.sk);
    for (int j = 0; j < J_COUNT; j++) CHECK(fixture_pose_equal(&w.pose, &w.want, j));
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_pause_seek_and_speed)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_play_opts o = looping();
    mr_mixer_play(mx, 0, w.wave, &o, NULL);
    mr_mixer_update(mx, 0.3f, NULL);
    CHECK(mr_mixer_pause(mx, 0, 1, NULL) == MR_OK);
    mr_mixer_update(mx, 0.5f, NULL);
    CHECK_NEAR(track_time(mx, 0), 0.3, 1e-6);
    mr_mixer_pause(mx, 0, 0, NULL);
    mr_mixer_update(mx, 0.1f, NULL);
    CHECK_NEAR(track_time(mx, 0), 0.4, 1e-6);
    CHECK(mr_mixer_seek(mx, 0, 1.2f, NULL) == MR_OK);
    CHECK_NEAR(track_time(mx, 0), 1.2, 1e-6);
    CHECK(mr_mixer_set_speed(mx, 0, -0.5f, NULL) == MR_OK);
    mr_mixer_update(mx, 0.4f, NULL);
    CHECK_NEAR(track_time(mx, 0), 1.0, 1e-5);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_sync_crossfade_locks_normalised_phase)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_play_opts o = looping();
    mr_mixer_play(mx, 0, w.walk, &o, NULL);           /* 1 s cycle */
    mr_mixer_update(mx, 0.3f, NULL);
    o.sync = 1;
    mr_mixer_crossfade(mx, 0, w.run, 1.0f, MR_CURVE_SMOOTH, &o, NULL);   /* 0.6 s cycle */
    mr_mixer_clip_info info[4];
    mr_mixer_playing(mx, 0, info, 4);
    CHECK_NEAR(info[0].time / 0.6f, 0.3, 1e-5);      /* run starts at walk's phase */
    for (int f = 0; f < 59; f++) {
        mr_mixer_update(mx, 1.0f / 60, NULL);
        mr_mixer_playing(mx, 0, info, 4);
        float run_phase = info[0].time / 0.6f, walk_phase = info[1].time / 1.0f;
        CHECK_MSG(fabsf(run_phase - walk_phase) < 1e-4f || fabsf(fabsf(run_phase - walk_phase) - 1.0f) < 1e-4f,
                  "frame %d: run phase %g, walk phase %g", f, run_phase, walk_phase);
    }
    /* Without sync the run starts at 0 and drifts against the walk. */
    o.sync = 0;
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    mr_mixer_update(mx, 0.3f, NULL);
    mr_mixer_crossfade(mx, 0, w.run, 1.0f, MR_CURVE_SMOOTH, &o, NULL);
    mr_mixer_playing(mx, 0, info, 4);
    CHECK(info[0].time == 0.0f);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_masked_layer_leaves_unmasked_joints_bitwise)
{
    world w;
    world_make(&w);
    mr_mixer *base = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &base, NULL);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_play_opts o = looping();
    mr_mask upper;
    mr_mask_init(&upper, J_COUNT, 0.0f);
    mr_mask_set_subtree(&upper, &w.sk, J_UPPERARM_R, 1.0f);
    mr_mask_ramp(&upper, &w.sk, J_SPINE2, 2, 0.0f, 0.5f);   /* and a soft spine */
    mr_mask_set_subtree(&upper, &w.sk, J_UPPERARM_R, 1.0f);
    mr_mixer_play(base, 0, w.walk, &o, NULL);
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    CHECK(mr_mixer_set_mask(mx, 1, &upper, NULL) == MR_OK);
    mr_mixer_play(mx, 1, w.wave, &o, NULL);
    mr_mixer_set_weight(mx, 1, 0.9f, 0.0f, NULL);
    for (int f = 0; f < 40; f++) {
        mr_mixer_update(base, 1.0f / 30, NULL);
        mr_mixer_update(mx, 1.0f / 30, NULL);
        mr_mixer_evaluate(base, &w.want, NULL, NULL);
        mr_mixer_evaluate(mx, &w.pose, NULL, NULL);
        for (int j = 0; j < J_COUNT; j++)
            if (upper.w[j] == 0.0f) CHECK_MSG(fixture_pose_equal(&w.pose, &w.want, j), "frame %d joint %d", f, j);
        CHECK(!fixture_pose_equal(&w.pose, &w.want, J_HAND_R) || !fixture_pose_equal(&w.pose, &w.want, J_UPPERARM_R));
    }
    mr_mask_deinit(&upper);
    mr_mixer_destroy(base);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_additive_track_weight_zero_is_identity_and_one_adds_the_delta)
{
    world w;
    world_make(&w);
    mr_clip *nod = NULL;
    mr_blend_make_additive_clip(w.wave, &w.sk, NULL, 0.0f, &nod, NULL);
    mr_mixer *base = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &base, NULL);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_play_opts o = looping();
    mr_mixer_play(base, 0, w.walk, &o, NULL);
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    mr_mixer_set_additive(mx, 3, 1, NULL);
    mr_mixer_play(mx, 3, nod, &o, NULL);
    mr_mixer_set_weight(mx, 3, 0.0f, 0.0f, NULL);
    mr_mixer_update(base, 0.37f, NULL);
    mr_mixer_update(mx, 0.37f, NULL);
    mr_mixer_evaluate(base, &w.want, NULL, NULL);
    mr_mixer_evaluate(mx, &w.pose, NULL, NULL);
    for (int j = 0; j < J_COUNT; j++) CHECK(fixture_pose_equal(&w.pose, &w.want, j));
    /* Weight 1: base + delta, as mr_blend_additive computes it. */
    mr_mixer_set_weight(mx, 3, 1.0f, 0.0f, NULL);
    mr_mixer_evaluate(mx, &w.pose, NULL, NULL);
    mr_pose delta;
    mr_pose_init(&delta, J_COUNT);
    mr_clip_sample(nod, &w.sk, 0.37f, MR_WRAP_CLAMP, &delta);
    mr_blend_additive(&w.want, &delta, 1.0f, NULL);
    CHECK(fixture_max_move(&w.sk, &w.pose, &w.want) < 1e-4f);
    mr_pose_deinit(&delta);
    mr_mixer_destroy(base);
    mr_mixer_destroy(mx);
    mr_clip_destroy(nod);
    world_free(&w);
}

TEST(mixer_track_weight_fades_linearly)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_mixer_set_weight(mx, 2, 0.0f, 0.0f, NULL);
    CHECK(mr_mixer_set_weight(mx, 2, 0.8f, 0.4f, NULL) == MR_OK);
    mr_mixer_update(mx, 0.1f, NULL);
    float wt;
    mr_mixer_weight(mx, 2, &wt);
    CHECK_NEAR(wt, 0.2, 1e-6);
    mr_mixer_update(mx, 1.0f, NULL);
    mr_mixer_weight(mx, 2, &wt);
    CHECK(wt == 0.8f);
    /* play's weight option sets it at once. */
    mr_play_opts o = looping();
    o.weight = 0.3f;
    mr_mixer_play(mx, 2, w.wave, &o, NULL);
    mr_mixer_weight(mx, 2, &wt);
    CHECK(wt == 0.3f);
    mr_mixer_destroy(mx);
    world_free(&w);
}

static int hook_calls;
static void lift_head(void *user, const mr_skeleton *sk, mr_pose *pose)
{
    (void)sk;
    hook_calls++;
    pose->t[J_HEAD][2] += *(float *)user;
}

TEST(mixer_pose_hook_edits_the_pose_before_model_matrices)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_play_opts o = looping();
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    mat4 before[J_COUNT], after[J_COUNT];
    mr_mixer_evaluate(mx, &w.pose, before, NULL);
    float lift = 3.0f;
    mr_mixer_set_pose_hook(mx, lift_head, &lift);
    hook_calls = 0;
    CHECK(mr_mixer_evaluate(mx, &w.pose, after, NULL) == MR_OK);
    CHECK(hook_calls == 1);
    CHECK_NEAR(glm_vec3_distance(after[J_HEAD][3], before[J_HEAD][3]), 3.0, 1e-4);
    CHECK_NEAR(glm_vec3_distance(after[J_NECK][3], before[J_NECK][3]), 0.0, 1e-6);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_plays_blend_spaces_in_sync)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_blendspace bs;
    mr_blendspace_init(&bs, 1);
    mr_blendspace_add(&bs, w.walk, 1.0f, 0);
    mr_blendspace_add(&bs, w.run, 3.0f, 0);
    mr_play_opts o = looping();
    CHECK(mr_mixer_play_blendspace(mx, 0, &bs, 2.0f, 0, &o, NULL) == MR_OK);
    /* Blended cycle 0.8 s: after 0.2 s the phase is 0.25. */
    mr_mixer_update(mx, 0.2f, NULL);
    mr_mixer_evaluate(mx, &w.pose, NULL, NULL);
    float wt[2];
    mr_blendspace_weights(&bs, 2.0f, 0, wt);
    mr_pose scratch;
    mr_pose_init(&scratch, J_COUNT);
    mr_blendspace_sample(&bs, &w.sk, wt, 0.25f, &scratch, &w.want);
    CHECK(fixture_max_move(&w.sk, &w.pose, &w.want) < 1e-4f);
    CHECK_NEAR(clip_weight(mx, 0, w.walk), 0.5, 1e-6);
    /* Moving the parameter to the run end. */
    CHECK(mr_mixer_set_param(mx, 0, 3.0f, 0, NULL) == MR_OK);
    CHECK(clip_weight(mx, 0, w.run) == 1.0f);
    mr_mixer_update(mx, 0.15f, NULL);               /* run alone: 0.6 s cycle, +0.25 phase */
    mr_mixer_evaluate(mx, &w.pose, NULL, NULL);
    mr_clip_sample(w.run, &w.sk, 0.3f, MR_WRAP_CLAMP, &w.want);
    CHECK(fixture_max_move(&w.sk, &w.pose, &w.want) < 1e-3f);
    mr_pose_deinit(&scratch);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_root_motion_moves_the_character_not_the_pose)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    CHECK(mr_mixer_set_root_motion(mx, J_PELVIS, MR_ROOT_TRANSLATION | MR_ROOT_YAW, NULL) == MR_OK);
    mr_play_opts o = looping();
    o.root_motion = 1;
    mr_mixer_play(mx, 0, w.walk_fwd, &o, NULL);       /* +Y at 40 units/s, X sway */
    float total_y = 0.0f;
    for (int f = 0; f < 150; f++) {                   /* 2.5 s: two wraps */
        mr_mixer_update(mx, 1.0f / 60, NULL);
        mr_root_delta d;
        mr_mixer_root_delta(mx, &d);
        CHECK(d.translation[2] == 0.0f);              /* nothing along up (Z) */
        total_y += d.translation[1];
        mr_mixer_evaluate(mx, &w.pose, NULL, NULL);
        /* The pelvis stays over its start; its bob (Z) stays in the pose. */
        CHECK_NEAR(w.pose.t[J_PELVIS][1], 0.0, 1e-5);
        CHECK_NEAR(w.pose.t[J_PELVIS][0], w.walk_fwd->tracks[0].t.values[0], 1e-5);
    }
    CHECK_NEAR(total_y, 100.0, 0.05);
    /* One big step across several wraps gives the same distance. */
    mr_play_opts r = o;
    r.restart = 1;
    mr_mixer_play(mx, 0, w.walk_fwd, &r, NULL);
    mr_mixer_update(mx, 2.5f, NULL);
    mr_root_delta d;
    mr_mixer_root_delta(mx, &d);
    CHECK_NEAR(d.translation[1], 100.0, 1e-3);
    CHECK_NEAR(d.translation[0], w.walk_fwd->tracks[0].t.values[3 * 15] - w.walk_fwd->tracks[0].t.values[0], 1e-3);
    /* Backward play moves backward. */
    r.speed = -1.0f;
    mr_mixer_play(mx, 0, w.walk_fwd, &r, NULL);
    mr_mixer_update(mx, 0.5f, NULL);
    mr_mixer_root_delta(mx, &d);
    CHECK_NEAR(d.translation[1], -20.0, 1e-3);
    /* Without the play option nothing is extracted. */
    o.root_motion = 0;
    o.restart = 1;
    mr_mixer_play(mx, 0, w.walk_fwd, &o, NULL);
    mr_mixer_update(mx, 0.5f, NULL);
    mr_mixer_root_delta(mx, &d);
    CHECK(d.translation[1] == 0.0f);
    mr_mixer_evaluate(mx, &w.pose, NULL, NULL);
    CHECK_NEAR(w.pose.t[J_PELVIS][1], 20.0, 1e-3);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_root_motion_uses_the_model_ground_plane)
{
    world w;
    world_make(&w);
    /* The same clip read as Y-up: the pelvis's +Y travel is vertical, so
     * not extracted; X sway and Z are the ground plane. */
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Y, NULL, &mx, NULL);
    mr_mixer_set_root_motion(mx, J_PELVIS, MR_ROOT_TRANSLATION, NULL);
    mr_play_opts o = looping();
    o.root_motion = 1;
    mr_mixer_play(mx, 0, w.walk_fwd, &o, NULL);
    mr_mixer_update(mx, 0.25f, NULL);
    mr_root_delta d;
    mr_mixer_root_delta(mx, &d);
    CHECK(d.translation[1] == 0.0f);
    CHECK(fabsf(d.translation[0]) > 0.1f);
    mr_mixer_evaluate(mx, &w.pose, NULL, NULL);
    CHECK_NEAR(w.pose.t[J_PELVIS][1], 10.0, 1e-3);    /* vertical stays */
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_root_motion_reports_yaw_of_a_turning_clip)
{
    world w;
    world_make(&w);
    /* A clip turning the pelvis 90 degrees about Z per second while moving
     * forward along its own +Y. */
    mr_clip *turn = NULL;
    mr_clip_create("turn", J_COUNT, &turn);
    turn->duration = 1.0f;
    mr_track *r = &turn->tracks[J_PELVIS].r;
    mr_track_init(r, 31, MR_INTERP_LINEAR);
    for (int i = 0; i <= 30; i++) {
        r->times[i] = i / 30.0f;
        versor q;
        glm_quatv(q, glm_rad(90.0f) * i / 30.0f, (vec3){0, 0, 1});
        memcpy(r->values + 4 * i, q, sizeof q);
    }
    mr_track_finish(r);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_mixer_set_root_motion(mx, J_PELVIS, MR_ROOT_YAW, NULL);
    mr_play_opts o = looping();
    o.root_motion = 1;
    mr_mixer_play(mx, 0, turn, &o, NULL);
    float yaw = 0.0f;
    for (int f = 0; f < 90; f++) {                    /* 1.5 s across a wrap */
        mr_mixer_update(mx, 1.0f / 60, NULL);
        mr_root_delta d;
        mr_mixer_root_delta(mx, &d);
        yaw += d.yaw;
        mr_mixer_evaluate(mx, &w.pose, NULL, NULL);
        CHECK_NEAR(fabsf(w.pose.r[J_PELVIS][3]), 1.0, 1e-5);   /* the pose does not turn */
    }
    CHECK_NEAR(glm_deg(yaw), 135.0, 0.01);
    mr_mixer_destroy(mx);
    mr_clip_destroy(turn);
    world_free(&w);
}

TEST(mixer_forget_removes_a_clip_everywhere)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_play_opts o = looping();
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    mr_mixer_crossfade(mx, 0, w.run, 1.0f, MR_CURVE_SMOOTH, &o, NULL);
    mr_mixer_queue(mx, 0, w.run, &o, NULL);
    mr_mixer_play(mx, 1, w.run, &o, NULL);
    mr_mixer_update(mx, 0.5f, NULL);                  /* walk and run both weigh 0.5 */
    mr_mixer_forget(mx, w.run);
    mr_mixer_clip_info info[4];
    CHECK(mr_mixer_playing(mx, 0, info, 4) == 1 && info[0].clip == w.walk);
    CHECK(clip_weight(mx, 0, w.walk) == 1.0f);
    CHECK(mr_mixer_playing(mx, 1, info, 4) == 0);
    mr_mixer_update(mx, 2.0f, NULL);   /* nothing refers to run any more */
    CHECK(mr_mixer_playing(mx, 0, info, 4) == 1 && info[0].clip == w.walk);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_play_of_the_current_clip_is_a_no_op_unless_restarted)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_play_opts o = looping();
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    mr_mixer_update(mx, 0.4f, NULL);
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    CHECK_NEAR(track_time(mx, 0), 0.4, 1e-6);
    /* New options are taken in place: speed and loop mode. */
    o.speed = 2.0f;
    o.loop = MR_LOOP_ONCE;
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    CHECK_NEAR(track_time(mx, 0), 0.4, 1e-6);
    mr_mixer_update(mx, 0.2f, NULL);
    CHECK_NEAR(track_time(mx, 0), 0.8, 1e-6);
    mr_mixer_update(mx, 0.2f, NULL);
    CHECK(track_time(mx, 0) == 1.0f);               /* once: holds the end */
    o.restart = 1;
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    CHECK(track_time(mx, 0) == 0.0f);
    mr_mixer_destroy(mx);
    world_free(&w);
}

static size_t heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

static void ik_hook(void *user, const mr_skeleton *sk, mr_pose *pose)
{
    (void)user;
    mr_two_bone_job job = {sk, pose, J_UPPERARM_R, J_LOWERARM_R, J_HAND_R, {-15, 8, 55}, {0, 1, 0}, 1.0f, 0.0f, 0};
    mr_ik_two_bone(&job, NULL);
}

TEST(mixer_update_and_evaluate_allocate_nothing)
{
    world w;
    world_make(&w);
    mr_clip_add_marker(w.walk, 0.5f, "step");
    mr_clip *nod = NULL;
    mr_blend_make_additive_clip(w.wave, &w.sk, NULL, 0.0f, &nod, NULL);
    mr_mask upper;
    mr_mask_init(&upper, J_COUNT, 0.0f);
    mr_mask_set_subtree(&upper, &w.sk, J_SPINE3, 1.0f);
    mr_blendspace bs;
    mr_blendspace_init(&bs, 1);
    mr_blendspace_add(&bs, w.walk, 1.0f, 0);
    mr_blendspace_add(&bs, w.run, 3.0f, 0);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_mixer_set_root_motion(mx, J_PELVIS, MR_ROOT_TRANSLATION | MR_ROOT_YAW, NULL);
    mr_mixer_set_pose_hook(mx, ik_hook, NULL);
    mr_play_opts o = looping();
    o.root_motion = 1;
    mr_mixer_play(mx, 0, w.walk, &o, NULL);
    mr_mixer_set_mask(mx, 1, &upper, NULL);
    mr_mixer_play(mx, 1, w.wave, &o, NULL);
    mr_mixer_set_additive(mx, 2, 1, NULL);
    mr_mixer_play(mx, 2, nod, &o, NULL);
    mr_mixer_play_blendspace(mx, 3, &bs, 2.0f, 0, &o, NULL);
    mat4 model[J_COUNT];
    mr_mixer_update(mx, 1.0f / 60, NULL);             /* warm up */
    mr_mixer_evaluate(mx, &w.pose, model, NULL);
    size_t before = heap_in_use();
    for (int f = 0; f < 600; f++) {
        if (f == 100) mr_mixer_crossfade(mx, 0, w.run, 0.5f, MR_CURVE_SMOOTH, &o, NULL);
        if (f == 200) mr_mixer_queue(mx, 0, w.idle, &o, NULL);
        if (f == 300) mr_mixer_set_param(mx, 3, 1.5f, 0, NULL);
        mr_mixer_update(mx, f % 7 == 0 ? 0.7f : 1.0f / 60, NULL);
        mr_mixer_evaluate(mx, &w.pose, model, NULL);
    }
    CHECK_MSG(heap_in_use() == before, "heap grew by %zu bytes", heap_in_use() - before);
    mr_mixer_destroy(mx);
    mr_mask_deinit(&upper);
    mr_clip_destroy(nod);
    world_free(&w);
}

/* ---- negative tests ------------------------------------------------------ */

TEST(mixer_create_refuses_too_many_tracks)
{
    world w;
    world_make(&w);
    mr_error err = {0};
    mr_mixer_desc d = {.max_tracks = MR_MIXER_MAX_TRACKS + 1};
    mr_mixer *mx = (mr_mixer *)&w;     /* *out is cleared on failure */
    CHECK(mr_mixer_create(&w.sk, MR_UP_Z, &d, &mx, &err) == MR_ERR_LIMIT);
    CHECK(mx == NULL);
    CHECK(err.status == MR_ERR_LIMIT);
    CHECK_STR_CONTAINS(err.msg, "65 tracks");
    d.max_tracks = -1;
    CHECK(mr_mixer_create(&w.sk, MR_UP_Z, &d, &mx, NULL) == MR_ERR_LIMIT && mx == NULL);
    world_free(&w);
}

TEST(mixer_create_refuses_bad_clip_and_event_limits)
{
    world w;
    world_make(&w);
    mr_mixer *mx;
    mr_mixer_desc d = {.max_clips_per_track = 1};
    CHECK(mr_mixer_create(&w.sk, MR_UP_Z, &d, &mx, NULL) == MR_ERR_LIMIT && mx == NULL);
    d.max_clips_per_track = MR_MIXER_MAX_CLIPS + 1;
    CHECK(mr_mixer_create(&w.sk, MR_UP_Z, &d, &mx, NULL) == MR_ERR_LIMIT && mx == NULL);
    mr_mixer_desc e = {.max_events = -5};
    CHECK(mr_mixer_create(&w.sk, MR_UP_Z, &e, &mx, NULL) == MR_ERR_LIMIT && mx == NULL);
    world_free(&w);
}

TEST(mixer_create_refuses_no_skeleton_or_unknown_up_axis)
{
    world w;
    world_make(&w);
    mr_error err = {0};
    mr_mixer *mx;
    CHECK(mr_mixer_create(NULL, MR_UP_Z, NULL, &mx, &err) == MR_ERR_INVALID_ARGUMENT && mx == NULL);
    CHECK(err.status == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_create(&w.sk, (mr_up_axis)9, NULL, &mx, NULL) == MR_ERR_INVALID_ARGUMENT && mx == NULL);
    world_free(&w);
}

TEST(mixer_refuses_unknown_track_index)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_error err = {0};
    CHECK(mr_mixer_play(mx, 8, w.walk, NULL, &err) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err.msg, "track 8 does not exist (tracks 0..7)");
    CHECK(mr_mixer_play(mx, -1, w.walk, NULL, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_crossfade(mx, 99, w.walk, 1.0f, MR_CURVE_LINEAR, NULL, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_queue(mx, 8, w.walk, NULL, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_stop(mx, 8, 0.0f, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_pause(mx, 8, 1, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_seek(mx, 8, 0.0f, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_set_speed(mx, 8, 1.0f, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_set_weight(mx, 8, 1.0f, 0.0f, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_set_mask(mx, 8, NULL, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_set_additive(mx, 8, 1, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_set_param(mx, 8, 0, 0, NULL) == MR_ERR_INVALID_ARGUMENT);
    float v;
    CHECK(mr_mixer_time(mx, 8, &v) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_weight(mx, 8, &v) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_clip_weight(mx, 8, w.walk, &v) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_playing(mx, 8, NULL, 0) == -1);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_refuses_clip_with_mismatched_joint_count)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_clip *other = NULL;
    mr_clip_create("other", 7, &other);
    mr_error err = {0};
    CHECK(mr_mixer_play(mx, 0, other, NULL, &err) == MR_ERR_JOINT_COUNT);
    CHECK_STR_CONTAINS(err.msg, "clip 'other' has 7 joints, skeleton has 18");
    CHECK(mr_mixer_queue(mx, 0, other, NULL, NULL) == MR_ERR_JOINT_COUNT);
    CHECK(mr_mixer_play(mx, 0, NULL, NULL, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_playing(mx, 0, NULL, 0) == 0);
    mr_clip_destroy(other);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_refuses_nan_dt)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_mixer_play(mx, 0, w.walk, NULL, NULL);
    mr_mixer_update(mx, 0.25f, NULL);
    mr_error err = {0};
    CHECK(mr_mixer_update(mx, NAN, &err) == MR_ERR_BAD_TIME);
    CHECK_STR_CONTAINS(err.msg, "dt nan");
    CHECK(mr_mixer_update(mx, INFINITY, NULL) == MR_ERR_BAD_TIME);
    CHECK(mr_mixer_update(mx, -0.1f, NULL) == MR_ERR_BAD_TIME);
    CHECK_NEAR(track_time(mx, 0), 0.25, 1e-6);   /* unchanged */
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_refuses_nan_or_out_of_range_weights)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_play_opts o = {0};
    o.weight = NAN;
    CHECK(mr_mixer_play(mx, 0, w.walk, &o, NULL) == MR_ERR_INVALID_ARGUMENT);
    o.weight = 1.5f;
    CHECK(mr_mixer_play(mx, 0, w.walk, &o, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_set_weight(mx, 0, NAN, 0.0f, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_set_weight(mx, 0, -0.2f, 0.0f, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_set_weight(mx, 0, 0.5f, NAN, NULL) == MR_ERR_INVALID_ARGUMENT);
    float wt;
    mr_mixer_weight(mx, 0, &wt);
    CHECK(wt == 1.0f);
    CHECK(mr_mixer_playing(mx, 0, NULL, 0) == 0);
    mr_mixer_destroy(mx);
    world_free(&w);
}

/* Zero-filled options are the defaults (issue 11: a struct with only .loop
 * set once played a frozen clip at weight 0); speed 0 and weight 0 are
 * asked for with .frozen and .mute. */
TEST(mixer_play_opts_zero_filled_play_forward_at_speed_one_and_keep_the_weight)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_play_opts o = {.loop = MR_LOOP_REPEAT};
    CHECK(mr_mixer_set_weight(mx, 1, 0.4f, 0.0f, NULL) == MR_OK);
    CHECK(mr_mixer_play(mx, 0, w.walk, &o, NULL) == MR_OK);
    CHECK(mr_mixer_play(mx, 1, w.wave, &o, NULL) == MR_OK);
    for (int i = 0; i < 15; i++) mr_mixer_update(mx, 1.0f / 60, NULL);
    float wt = -1;
    CHECK_NEAR(track_time(mx, 0), 0.25f, 1e-4);
    CHECK(mr_mixer_weight(mx, 0, &wt) == MR_OK && wt == 1.0f);
    CHECK(mr_mixer_weight(mx, 1, &wt) == MR_OK && wt == 0.4f);   /* weight 0 keeps the track's */
    mr_play_opts back = {.speed = -1};                           /* start 0: from the end backward */
    CHECK(mr_mixer_play(mx, 0, w.run, &back, NULL) == MR_OK);
    mr_mixer_update(mx, 0.1f, NULL);
    CHECK_NEAR(track_time(mx, 0), 0.5f, 1e-4);
    mr_play_opts still = {.frozen = 1, .start = 0.3f, .mute = 1};
    CHECK(mr_mixer_play(mx, 1, w.walk, &still, NULL) == MR_OK);
    mr_mixer_update(mx, 0.5f, NULL);
    CHECK_NEAR(track_time(mx, 1), 0.3f, 1e-6);
    CHECK(mr_mixer_weight(mx, 1, &wt) == MR_OK && wt == 0.0f);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_refuses_bad_play_options)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_error err = {0};
    mr_play_opts o = {0};
    o.speed = NAN;
    CHECK(mr_mixer_play(mx, 0, w.walk, &o, &err) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err.msg, "speed");
    o = (mr_play_opts){0};
    o.fade = -1.0f;
    CHECK(mr_mixer_play(mx, 0, w.walk, &o, NULL) == MR_ERR_INVALID_ARGUMENT);
    o = (mr_play_opts){0};
    o.start = 5.0f;                                   /* beyond the 1 s clip */
    CHECK(mr_mixer_play(mx, 0, w.walk, &o, &err) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err.msg, "start 5");
    o = (mr_play_opts){0};
    o.start = NAN;
    CHECK(mr_mixer_play(mx, 0, w.walk, &o, NULL) == MR_ERR_INVALID_ARGUMENT);
    o = (mr_play_opts){0};
    o.loop = (mr_loop)42;
    CHECK(mr_mixer_play(mx, 0, w.walk, &o, NULL) == MR_ERR_INVALID_ARGUMENT);
    o = (mr_play_opts){0};
    o.repeat = -3;
    CHECK(mr_mixer_play(mx, 0, w.walk, &o, NULL) == MR_ERR_INVALID_ARGUMENT);
    o = (mr_play_opts){0};
    o.curve = (mr_curve)7;
    CHECK(mr_mixer_play(mx, 0, w.walk, &o, NULL) == MR_ERR_INVALID_ARGUMENT);
    o = (mr_play_opts){0};
    o.delay = NAN;
    CHECK(mr_mixer_queue(mx, 0, w.walk, &o, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_crossfade(mx, 0, w.walk, NAN, MR_CURVE_SMOOTH, NULL, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_stop(mx, 0, NAN, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_playing(mx, 0, NULL, 0) == 0);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_refuses_a_full_queue)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_mixer_play(mx, 0, w.walk, NULL, NULL);
    for (int i = 0; i < MR_MIXER_QUEUE; i++) CHECK(mr_mixer_queue(mx, 0, w.run, NULL, NULL) == MR_OK);
    mr_error err = {0};
    CHECK(mr_mixer_queue(mx, 0, w.run, NULL, &err) == MR_ERR_LIMIT);
    CHECK_STR_CONTAINS(err.msg, "already has 8 clips queued");
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_refuses_mask_of_wrong_size)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_mask small, bad;
    mr_mask_init(&small, 5, 1.0f);
    mr_mask_init(&bad, J_COUNT, 1.0f);
    bad.w[3] = NAN;
    mr_error err = {0};
    CHECK(mr_mixer_set_mask(mx, 1, &small, &err) == MR_ERR_JOINT_COUNT);
    CHECK_STR_CONTAINS(err.msg, "mask has 5 joints");
    CHECK(mr_mixer_set_mask(mx, 1, &bad, &err) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_set_mask(mx, 1, NULL, NULL) == MR_OK);
    mr_mask_deinit(&small);
    mr_mask_deinit(&bad);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_refuses_seek_speed_and_param_without_a_fitting_clip)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    CHECK(mr_mixer_seek(mx, 0, 0.5f, NULL) == MR_ERR_INVALID_ARGUMENT);       /* idle */
    CHECK(mr_mixer_set_speed(mx, 0, 2.0f, NULL) == MR_ERR_INVALID_ARGUMENT);
    mr_mixer_play(mx, 0, w.walk, NULL, NULL);
    CHECK(mr_mixer_seek(mx, 0, NAN, NULL) == MR_ERR_BAD_TIME);
    CHECK(mr_mixer_set_speed(mx, 0, INFINITY, NULL) == MR_ERR_INVALID_ARGUMENT);
    mr_error err = {0};
    CHECK(mr_mixer_set_param(mx, 0, 1.0f, 0.0f, &err) == MR_ERR_INVALID_ARGUMENT);
    CHECK_STR_CONTAINS(err.msg, "not playing a blend space");
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_refuses_invalid_blend_space_and_nan_parameter)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_blendspace bs;
    mr_blendspace_init(&bs, 2);
    CHECK(mr_mixer_play_blendspace(mx, 0, &bs, 0, 0, NULL, NULL) == MR_ERR_EMPTY_CLIP);
    mr_blendspace_add(&bs, w.walk, 0, 1);
    mr_blendspace_add(&bs, w.run, 0, 3);
    CHECK(mr_mixer_play_blendspace(mx, 0, &bs, NAN, 0, NULL, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_play_blendspace(mx, 0, &bs, 0, 2, NULL, NULL) == MR_OK);
    CHECK(mr_mixer_set_param(mx, 0, 0, NAN, NULL) == MR_ERR_INVALID_ARGUMENT);
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_refuses_root_motion_joint_out_of_range)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    CHECK(mr_mixer_set_root_motion(mx, J_COUNT, MR_ROOT_TRANSLATION, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_set_root_motion(mx, -1, MR_ROOT_YAW, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_set_root_motion(mx, 0, 0x80, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_set_root_motion(mx, -1, 0, NULL) == MR_OK);   /* off */
    mr_mixer_destroy(mx);
    world_free(&w);
}

TEST(mixer_evaluate_refuses_pose_of_wrong_size)
{
    world w;
    world_make(&w);
    mr_mixer *mx = NULL;
    mr_mixer_create(&w.sk, MR_UP_Z, NULL, &mx, NULL);
    mr_pose small;
    mr_pose_init(&small, 3);
    mr_error err = {0};
    CHECK(mr_mixer_evaluate(mx, &small, NULL, &err) == MR_ERR_JOINT_COUNT);
    CHECK(mr_mixer_evaluate(mx, NULL, NULL, NULL) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_mixer_update(NULL, 0.1f, NULL) == MR_ERR_INVALID_ARGUMENT);
    mr_pose_deinit(&small);
    mr_mixer_destroy(mx);
    world_free(&w);
}

int main(void)
{
    RUN(mixer_plays_a_clip_at_its_time);
    RUN(mixer_loop_modes_once_repeat_pingpong_and_negative_speed);
    RUN(mixer_crossfade_is_continuous_and_weights_sum_to_one);
    RUN(mixer_three_way_fade_keeps_weights_summing_to_one_without_a_pop);
    RUN(mixer_more_fades_than_slots_drop_the_lightest_clip);
    RUN(mixer_queue_starts_when_the_current_clip_ends);
    RUN(mixer_queue_after_an_endless_loop_starts_at_its_next_wrap_with_a_fade);
    RUN(mixer_stop_fades_to_the_rest_pose);
    RUN(mixer_pause_seek_and_speed);
    RUN(mixer_sync_crossfade_locks_normalised_phase);
    RUN(mixer_masked_layer_leaves_unmasked_joints_bitwise);
    RUN(mixer_additive_track_weight_zero_is_identity_and_one_adds_the_delta);
    RUN(mixer_track_weight_fades_linearly);
    RUN(mixer_pose_hook_edits_the_pose_before_model_matrices);
    RUN(mixer_plays_blend_spaces_in_sync);
    RUN(mixer_root_motion_moves_the_character_not_the_pose);
    RUN(mixer_root_motion_uses_the_model_ground_plane);
    RUN(mixer_root_motion_reports_yaw_of_a_turning_clip);
    RUN(mixer_forget_removes_a_clip_everywhere);
    RUN(mixer_play_of_the_current_clip_is_a_no_op_unless_restarted);
    RUN(mixer_update_and_evaluate_allocate_nothing);
    RUN(mixer_create_refuses_too_many_tracks);
    RUN(mixer_create_refuses_bad_clip_and_event_limits);
    RUN(mixer_create_refuses_no_skeleton_or_unknown_up_axis);
    RUN(mixer_refuses_unknown_track_index);
    RUN(mixer_refuses_clip_with_mismatched_joint_count);
    RUN(mixer_refuses_nan_dt);
    RUN(mixer_refuses_nan_or_out_of_range_weights);
    RUN(mixer_play_opts_zero_filled_play_forward_at_speed_one_and_keep_the_weight);
    RUN(mixer_refuses_bad_play_options);
    RUN(mixer_refuses_a_full_queue);
    RUN(mixer_refuses_mask_of_wrong_size);
    RUN(mixer_refuses_seek_speed_and_param_without_a_fitting_clip);
    RUN(mixer_refuses_invalid_blend_space_and_nan_parameter);
    RUN(mixer_refuses_root_motion_joint_out_of_range);
    RUN(mixer_evaluate_refuses_pose_of_wrong_size);
    return test_summary("mixer");
}
