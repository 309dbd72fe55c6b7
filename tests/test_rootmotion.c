/* test_rootmotion.c — root-motion extraction: ground plane per up axis,
 * pinning, steps and their composition, a joint under a turned parent, the
 * uniform path (straight and turning), and negative tests; then the
 * committed mannequin's travelling walk and run through a mixer: foot slip,
 * heading wander, sway and speed constancy. (Mixer-level root motion:
 * test_mixer.c.) */
#include "anim/mixer.h"
#include "anim/root_motion.h"
#include "choreo_fixture.h"
#include "core/str.h"
#include "formats/load.h"
#include "test.h"

#include <stdio.h>

TEST(rootmotion_step_is_the_horizontal_displacement)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_clip *c = fixture_cycle("walk", 1.0f, 10.0f, 0.0f, 40.0f);
    mr_root_motion rm;
    CHECK(mr_root_motion_init(&rm, &sk, J_PELVIS, MR_UP_Z, MR_ROOT_TRANSLATION) == MR_OK);
    mr_root_delta d = {{0, 0, 0}, 0};
    mr_root_motion_step(&rm, c, &sk, 0.2, 0.7, &d);
    CHECK_NEAR(d.translation[1], 20.0, 1e-3);
    CHECK(d.translation[2] == 0.0f);                  /* the bob is vertical: stays in the pose */
    mr_root_delta back = {{0, 0, 0}, 0};
    mr_root_motion_step(&rm, c, &sk, 0.7, 0.2, &back);
    CHECK_NEAR(back.translation[1], -20.0, 1e-3);
    mr_clip_destroy(c);
    mr_skeleton_deinit(&sk);
}

TEST(rootmotion_pin_keeps_vertical_and_swing)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_pose p;
    mr_pose_init(&p, J_COUNT);
    mr_pose_set_rest(&p, &sk);
    glm_vec3_copy((vec3){5, 7, 42}, p.t[J_PELVIS]);
    versor yaw, tilt;
    glm_quatv(yaw, 0.8f, (vec3){0, 0, 1});
    glm_quatv(tilt, 0.2f, (vec3){1, 0, 0});
    glm_quat_mul(yaw, tilt, p.r[J_PELVIS]);
    mr_root_motion rm;
    mr_root_motion_init(&rm, &sk, J_PELVIS, MR_UP_Z, MR_ROOT_TRANSLATION | MR_ROOT_YAW);
    mr_root_motion_pin(&rm, &p, (vec3){1, 2, 99}, 0.0f);
    CHECK(p.t[J_PELVIS][0] == 1.0f && p.t[J_PELVIS][1] == 2.0f && p.t[J_PELVIS][2] == 42.0f);
    CHECK(fabsf(glm_vec4_dot(p.r[J_PELVIS], tilt)) > 1.0f - 1e-6f);   /* only the tilt is left */
    mr_pose_deinit(&p);
    mr_skeleton_deinit(&sk);
}

TEST(rootmotion_compose_turns_later_steps)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_root_motion rm;
    mr_root_motion_init(&rm, &sk, J_PELVIS, MR_UP_Z, MR_ROOT_TRANSLATION | MR_ROOT_YAW);
    /* Walk 1 forward (+Y), turn left 90 degrees, walk 1 forward again. */
    mr_root_delta acc = {{0, 0, 0}, 0};
    mr_root_delta a = {{0, 1, 0}, GLM_PI_2f}, b = {{0, 1, 0}, 0.0f};
    mr_root_motion_delta_compose(&rm, &acc, &a);
    mr_root_motion_delta_compose(&rm, &acc, &b);
    CHECK_NEAR(acc.translation[0], -1.0, 1e-6);
    CHECK_NEAR(acc.translation[1], 1.0, 1e-6);
    CHECK_NEAR(acc.yaw, GLM_PI_2f, 1e-6);
    mr_skeleton_deinit(&sk);
}

TEST(rootmotion_joint_under_a_turned_parent_uses_the_model_ground)
{
    /* A "root" joint rotated -90 degrees about X (Y-up content under a
     * Z-up model) with the moving joint below it: motion along the child's
     * local Y is model Z (up), along its local Z is model... ground. */
    mr_skeleton sk;
    mr_skeleton_init(&sk, 2);
    sk.names[0] = mr_str_dup("root");
    sk.names[1] = mr_str_dup("hips");
    sk.parents[1] = 0;
    glm_quatv(sk.rest_r[0], GLM_PI_2f, (vec3){1, 0, 0});   /* local Y -> model Z */
    mr_clip *c = NULL;
    mr_clip_create("move", 2, &c);
    c->duration = 1.0f;
    mr_track *t = &c->tracks[1].t;
    mr_track_init(t, 2, MR_INTERP_LINEAR);
    t->times[1] = 1.0f;
    float v[6] = {0, 0, 0, 3, 4, 5};   /* local (3, 4, 5) over 1 s */
    memcpy(t->values, v, sizeof v);
    mr_root_motion rm;
    CHECK(mr_root_motion_init(&rm, &sk, 1, MR_UP_Z, MR_ROOT_TRANSLATION) == MR_OK);
    mr_root_delta d = {{0, 0, 0}, 0};
    mr_root_motion_step(&rm, c, &sk, 0.0, 1.0, &d);
    /* local (3, 4, 5) is model (3, -5, 4): the ground part is (3, -5, 0). */
    CHECK_NEAR(d.translation[0], 3.0, 1e-5);
    CHECK_NEAR(d.translation[1], -5.0, 1e-5);
    CHECK_NEAR(d.translation[2], 0.0, 1e-5);
    mr_clip_destroy(c);
    mr_skeleton_deinit(&sk);
}

TEST(rootmotion_refuses_bad_joint_flags_and_axis)
{
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_root_motion rm;
    CHECK(mr_root_motion_init(&rm, &sk, J_COUNT, MR_UP_Z, MR_ROOT_YAW) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_root_motion_init(&rm, &sk, -2, MR_UP_Z, MR_ROOT_YAW) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_root_motion_init(&rm, &sk, 0, MR_UP_Z, 8) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_root_motion_init(&rm, &sk, 0, (mr_up_axis)5, MR_ROOT_YAW) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_root_motion_init(&rm, NULL, 0, MR_UP_Z, MR_ROOT_YAW) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_root_motion_init(&rm, &sk, -1, MR_UP_Z, 0) == MR_OK);   /* off: joint ignored */
    CHECK(rm.joint == -1);
    mr_skeleton_deinit(&sk);
}

TEST(rootmotion_uniform_step_has_no_sway)
{
    /* fixture_cycle's pelvis sways 0.5 along X while moving 40/s along Y. */
    mr_skeleton sk;
    fixture_humanoid(&sk);
    mr_clip *c = fixture_cycle("walk", 1.0f, 10.0f, 0.0f, 40.0f);
    mr_root_motion exact, uni;
    mr_root_motion_init(&exact, &sk, J_PELVIS, MR_UP_Z, MR_ROOT_TRANSLATION | MR_ROOT_YAW);
    CHECK(mr_root_motion_init(&uni, &sk, J_PELVIS, MR_UP_Z, MR_ROOT_TRANSLATION | MR_ROOT_YAW | MR_ROOT_UNIFORM) ==
          MR_OK);
    mr_root_delta de = {{0, 0, 0}, 0}, du = {{0, 0, 0}, 0};
    mr_root_motion_step(&exact, c, &sk, 0.1, 0.3, &de);
    mr_root_motion_step(&uni, c, &sk, 0.1, 0.3, &du);
    CHECK(fabsf(de.translation[0]) > 0.1f);           /* the exact path sways */
    CHECK_NEAR(du.translation[0], 0.0, 1e-5);         /* the uniform one does not */
    CHECK_NEAR(du.translation[1], 8.0, 1e-4);
    CHECK(du.yaw == 0.0f);
    /* The sway stays in the pose: removing motion at t keeps pelvis x. */
    mr_pose p;
    mr_pose_init(&p, J_COUNT);
    mr_clip_sample(c, &sk, 0.25f, MR_WRAP_CLAMP, &p);
    float x = p.t[J_PELVIS][0], z = p.t[J_PELVIS][2];
    mr_root_motion_remove(&uni, c, &sk, 0.25f, &p);
    CHECK_NEAR(p.t[J_PELVIS][0], x, 1e-6);
    CHECK_NEAR(p.t[J_PELVIS][1], 0.0, 1e-4);          /* 10 travelled, 10 removed */
    CHECK(p.t[J_PELVIS][2] == z);
    /* Uniform alone extracts nothing: extraction is off. */
    CHECK(mr_root_motion_init(&uni, &sk, J_PELVIS, MR_UP_Z, MR_ROOT_UNIFORM) == MR_OK && uni.joint == -1);
    mr_pose_deinit(&p);
    mr_clip_destroy(c);
    mr_skeleton_deinit(&sk);
}

TEST(rootmotion_uniform_path_of_a_turning_clip_is_an_arc)
{
    /* The root goes from (0, 0) facing +X to (10, 10) having turned 90
     * degrees left: a quarter circle of radius 10 about (0, 10). */
    mr_skeleton sk;
    mr_skeleton_init(&sk, 1);
    sk.names[0] = mr_str_dup("root");
    mr_clip *c = NULL;
    mr_clip_create("turn", 1, &c);
    c->duration = 2.0f;
    mr_track *t = &c->tracks[0].t, *r = &c->tracks[0].r;
    mr_track_init(t, 2, MR_INTERP_LINEAR);
    mr_track_init(r, 2, MR_INTERP_LINEAR);
    t->times[1] = r->times[1] = 2.0f;
    float tv[6] = {0, 0, 5, 10, 10, 5};
    memcpy(t->values, tv, sizeof tv);
    versor q0 = GLM_QUAT_IDENTITY_INIT, q1;
    glm_quatv(q1, GLM_PI_2f, (vec3){0, 0, 1});
    memcpy(r->values, q0, sizeof q0);
    memcpy(r->values + 4, q1, sizeof q1);
    mr_root_motion rm;
    mr_root_motion_init(&rm, &sk, 0, MR_UP_Z, MR_ROOT_TRANSLATION | MR_ROOT_YAW | MR_ROOT_UNIFORM);
    float worst = 0.0f;
    for (int i = 0; i <= 8; i++) {
        vec3 p;
        float yaw;
        mr_root_motion_path(&rm, c, &sk, 2.0 * i / 8, p, &yaw);
        float a = GLM_PI_2f * i / 8;
        worst = fmaxf(worst, fabsf(p[0] - 10.0f * sinf(a)) + fabsf(p[1] - 10.0f * (1.0f - cosf(a))) + fabsf(p[2]));
        CHECK_NEAR(yaw, a, 1e-5);
    }
    CHECK_MSG(worst < 1e-4f, "off the arc by %g", worst);
    /* Steps in the character's frame compose back to the whole motion. */
    mr_root_delta acc = {{0, 0, 0}, 0};
    for (int i = 0; i < 5; i++) mr_root_motion_step(&rm, c, &sk, 0.4 * i, 0.4 * (i + 1), &acc);
    CHECK_NEAR(acc.translation[0], 10.0, 1e-4);
    CHECK_NEAR(acc.translation[1], 10.0, 1e-4);
    CHECK_NEAR(acc.yaw, GLM_PI_2f, 1e-5);
    mr_clip_destroy(c);
    mr_skeleton_deinit(&sk);
}

/* ---- the committed mannequin's locomotion ---- */

typedef struct gait_stats {
    float slip_mm;        /* largest move of a planted foot's ball in one frame */
    float wander_deg;     /* largest heading change within any one cycle */
    float sway_mm;        /* largest distance of the character from its straight line */
    float speed_spread;   /* (max - min) / mean of the per-frame speed */
    float speed;          /* mean speed, model units per second */
} gait_stats;

/* Plays clip on a mixer with root motion from the pelvis (flags) for
 * `cycles` cycles at 60 updates per second, moving a character by the
 * reported motion, and measures the result in the world. */
static void measure_gait(const mr_model *m, const mr_clip *clip, unsigned flags, int cycles, gait_stats *out)
{
    const mr_skeleton *sk = &m->skeleton;
    int pelvis = mr_skeleton_find(sk, "pelvis");
    int ball[2] = {mr_skeleton_find(sk, "ball_l"), mr_skeleton_find(sk, "ball_r")};
    mr_mixer *mx = NULL;
    mr_mixer_create(sk, m->axes.up, NULL, &mx, NULL);
    CHECK(mr_mixer_set_root_motion(mx, pelvis, flags, NULL) == MR_OK);
    mr_play_opts o = {0};
    o.loop = MR_LOOP_REPEAT;
    o.root_motion = 1;
    CHECK(mr_mixer_play(mx, 0, clip, &o, NULL) == MR_OK);
    mr_pose pose;
    mr_pose_init(&pose, sk->joint_count);
    mat4 *mats = malloc(sizeof(mat4) * (size_t)sk->joint_count);
    /* Rest height of the ball joints: flat on the floor. */
    float rest_z[2];
    for (int s = 0; s < 2; s++) {
        mat4 bind;
        glm_mat4_inv((vec4 *)sk->inverse_bind[ball[s]], bind);
        rest_z[s] = bind[3][2];
    }
    const float dt = 1.0f / 60.0f, mm = m->axes.meters_per_unit * 1000.0f;
    int frames = (int)lroundf(clip->duration * 60.0f) * cycles, per_cycle = frames / cycles;
    vec3 pos = {0, 0, 0}, last_ball[2];
    float heading = 0.0f, *yaw_at = malloc(sizeof(float) * (size_t)(frames + 1));
    float smin = 1e9f, smax = 0.0f, ssum = 0.0f;
    int planted_before[2] = {0, 0};
    memset(out, 0, sizeof *out);
    yaw_at[0] = 0.0f;
    for (int f = 0; f <= frames; f++) {
        if (f > 0) {
            mr_mixer_update(mx, dt, NULL);
            mr_root_delta d;
            mr_mixer_root_delta(mx, &d);
            vec3 step;
            glm_vec3_copy(d.translation, step);
            glm_vec3_rotate(step, heading, (vec3){0, 0, 1});
            glm_vec3_add(pos, step, pos);
            heading += d.yaw;
            yaw_at[f] = heading;
            float v = glm_vec3_norm(step) / dt;
            smin = fminf(smin, v);
            smax = fmaxf(smax, v);
            ssum += v;
            /* Sway: distance from the line the character started on (+X). */
            out->sway_mm = fmaxf(out->sway_mm, fabsf(pos[1]) * mm);
        }
        mr_mixer_evaluate(mx, &pose, mats, NULL);
        for (int s = 0; s < 2; s++) {
            vec3 b;
            glm_vec3_copy(mats[ball[s]][3], b);
            glm_vec3_rotate(b, heading, (vec3){0, 0, 1});
            glm_vec3_add(b, pos, b);
            /* On the floor: within 0.5 mm of its rest height (a foot
             * lifting off is not planted). */
            int planted = mats[ball[s]][3][2] < rest_z[s] + 0.02f;
            if (planted && planted_before[s])
                out->slip_mm = fmaxf(out->slip_mm, glm_vec3_distance(b, last_ball[s]) * mm);
            planted_before[s] = planted;
            glm_vec3_copy(b, last_ball[s]);
        }
    }
    for (int f = 0; f + per_cycle <= frames; f++)
        for (int k = 1; k <= per_cycle; k++)
            out->wander_deg = fmaxf(out->wander_deg, fabsf(glm_deg(yaw_at[f + k] - yaw_at[f])));
    out->speed = ssum / frames;
    out->speed_spread = (smax - smin) / out->speed;
    free(yaw_at);
    free(mats);
    mr_pose_deinit(&pose);
    mr_mixer_destroy(mx);
}

TEST(rootmotion_mannequin_walk_and_run_travel_straight_with_planted_feet)
{
    static const char *const anims[] = {"models/walk.md5anim", "models/run.md5anim",
                                        "models/walk_inplace.md5anim", "models/run_inplace.md5anim"};
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK_MSG(mr_load_model("models/mannequin.md5mesh", anims, 4, &m, &err) == MR_OK, "%s", err.msg);
    if (!m) return;
    const unsigned uniform = MR_ROOT_TRANSLATION | MR_ROOT_YAW | MR_ROOT_UNIFORM;
    static const struct { const char *clip; double speed; } want[] = {{"walk", 43.0 / 1.1}, {"run", 66.0 / 0.7}};
    for (int i = 0; i < 2; i++) {
        const mr_clip *c = mr_model_find_clip(m, want[i].clip);
        CHECK(c != NULL);
        if (!c) continue;
        gait_stats g, raw;
        measure_gait(m, c, uniform, 4, &g);
        measure_gait(m, c, MR_ROOT_TRANSLATION | MR_ROOT_YAW, 4, &raw);
        printf("  %s: uniform slip %.2f mm/frame, wander %.3f deg/cycle, sway %.3f mm, speed %.2f in/s "
               "(spread %.4f); exact path: slip %.1f mm, wander %.1f deg, sway %.1f mm\n",
               want[i].clip, g.slip_mm, g.wander_deg, g.sway_mm, g.speed, g.speed_spread, raw.slip_mm,
               raw.wander_deg, raw.sway_mm);
        CHECK_MSG(g.slip_mm < 5.0f, "%s: planted foot moves %g mm in a frame", want[i].clip, g.slip_mm);
        CHECK_MSG(g.wander_deg < 1.0f, "%s: heading wanders %g degrees per cycle", want[i].clip, g.wander_deg);
        CHECK_MSG(g.sway_mm < 1.0f, "%s: %g mm off the straight line", want[i].clip, g.sway_mm);
        CHECK_MSG(g.speed_spread < 0.01f, "%s: speed varies by %g", want[i].clip, g.speed_spread);
        CHECK_NEAR(g.speed, want[i].speed, 0.01 * want[i].speed);
    }
    /* Before: the clips in place with the exact path (for the record). */
    for (int i = 0; i < 2; i++) {
        const char *name = i ? "run_inplace" : "walk_inplace";
        const mr_clip *c = mr_model_find_clip(m, name);
        CHECK(c != NULL);
        if (!c) continue;
        gait_stats old;
        measure_gait(m, c, MR_ROOT_TRANSLATION | MR_ROOT_YAW, 4, &old);
        printf("  %s, exact path: slip %.1f mm/frame, wander %.1f deg/cycle, sway %.1f mm, speed %.2f in/s\n", name,
               old.slip_mm, old.wander_deg, old.sway_mm, old.speed);
    }
    /* The clip in place gives no motion, and keeps its sway in the pose. */
    const mr_clip *inplace = mr_model_find_clip(m, "walk_inplace");
    CHECK(inplace != NULL);
    if (inplace) {
        gait_stats g;
        measure_gait(m, inplace, uniform, 1, &g);
        CHECK(g.speed < 1e-4f && g.sway_mm == 0.0f);
    }
    mr_model_destroy(m);
}

int main(void)
{
    RUN(rootmotion_step_is_the_horizontal_displacement);
    RUN(rootmotion_pin_keeps_vertical_and_swing);
    RUN(rootmotion_compose_turns_later_steps);
    RUN(rootmotion_joint_under_a_turned_parent_uses_the_model_ground);
    RUN(rootmotion_refuses_bad_joint_flags_and_axis);
    RUN(rootmotion_uniform_step_has_no_sway);
    RUN(rootmotion_uniform_path_of_a_turning_clip_is_an_arc);
    RUN(rootmotion_mannequin_walk_and_run_travel_straight_with_planted_feet);
    return test_summary("rootmotion");
}
