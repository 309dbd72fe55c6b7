/* mannequin_clips.c — the mannequin's clips: idle, walk, wave and run, and
 * walk_inplace, run_inplace.
 *
 * Each frame is described by a `body` (pelvis offset and rotation, spine,
 * neck and head angles, per-arm angles, and where each ankle should be and
 * how the foot is pitched); apply_body turns it into local joint rotations,
 * solving each leg with an analytic two-bone IK so feet stay where they are
 * put. The clip functions only say how those numbers move over a loop phase
 * u in [0, 1): frame i of a clip with N frames samples u = (i mod N) / N, so
 * the last key (i = N) is bit-for-bit the first and the loop has no pop.
 *
 * Angles are degrees. Bind rotations are identity, so local axes are model
 * axes at rest: rotations about Y pitch (positive leans forward / swings a
 * limb back), about X roll (positive lifts the left side), about Z yaw
 * (positive turns to the left). Arms are described for the left side and
 * mirrored in the XZ plane for the right.
 */
#include "core/quat.h"
#include "mannequin/mannequin.h"

#include <math.h>
#include <string.h>

#define PI 3.14159265358979323846
#define RAD (PI / 180.0)

typedef struct arm_params {
    double clav_raise;   /* shrug: lifts the shoulder */
    double clav_fwd;     /* brings the shoulder forward */
    double adduct;       /* lowers the arm from the A-pose towards the side */
    double swing;        /* arm forward (negative: back) */
    double elbow;        /* elbow flexion */
    double wrist;        /* hand bent towards the palm */
} arm_params;

typedef struct body {
    double pelvis_t[3];  /* offset from the bind position, inches */
    double pelvis[3];    /* roll, pitch, yaw */
    double spine[3][3];  /* spine_01..03: roll, pitch, yaw */
    double neck[3], head[3];
    arm_params arm[2];   /* left, right (right in mirrored, left-side terms) */
    double ankle[2][3];  /* model-space ankle targets */
    double pitch[2];     /* foot pitch, positive lifts the toes */
    double toe[2];       /* toes bent up relative to the foot */
} body;

/* ---- small rotation helpers ---- */


/* Reflection of a rotation in the XZ plane (left side <-> right side). */
static void q_mirror(versor q)
{
    q[0] = -q[0];
    q[2] = -q[2];
}

/* Rotation taking the frame (dir0, ref0) to (dir1, ref1); each ref is made
 * perpendicular to its dir. */
static void q_frames(const vec3 dir0, const vec3 ref0, const vec3 dir1, const vec3 ref1, versor q)
{
    mat3 f0, f1, r;
    const float *dirs[2] = {dir0, dir1}, *refs[2] = {ref0, ref1};
    mat3 *fs[2] = {&f0, &f1};
    for (int i = 0; i < 2; i++) {
        vec3 d, e;
        glm_vec3_normalize_to((float *)dirs[i], d);
        glm_vec3_copy((float *)refs[i], e);
        glm_vec3_muladds(d, -glm_vec3_dot(d, e), e);
        glm_vec3_normalize(e);
        glm_vec3_copy(e, (*fs[i])[0]);
        glm_vec3_cross(d, e, (*fs[i])[1]);
        glm_vec3_copy(d, (*fs[i])[2]);
    }
    mat3 f0t;
    glm_mat3_transpose_to(f0, f0t);
    glm_mat3_mul(f1, f0t, r);
    glm_mat3_quat(r, q);
    glm_quat_normalize(q);
}

/* local = parent^-1 * model */
static void q_local(const versor parent_model, const versor model, versor local)
{
    versor inv;
    glm_quat_inv((float *)parent_model, inv);
    glm_quat_mul(inv, (float *)model, local);
}

static double smooth01(double x)
{
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    return x * x * (3 - 2 * x);
}

/* ---- turning a body into a pose ---- */

typedef struct rig {
    const mr_skeleton *sk;
    mr_pose pose;
    mat4 model[MR_MQ_JOINT_COUNT];
} rig;

static void model_rotation(const rig *r, int j, versor q)
{
    mat4 m;
    glm_mat4_copy((vec4 *)r->model[j], m);
    glm_mat4_quat(m, q);
    glm_quat_normalize(q);
}

/* Bind direction of the left arm (both arm bones point along it). */
static const vec3 ARM_DIR = {0.0f, 0.70710678f, -0.70710678f};

/* Elbow hinge axis of the left arm in the upper arm's frame: flexion moves
 * the forearm towards +X. It is also the palm's normal (palm to the body). */
static void elbow_axis(vec3 k)
{
    glm_vec3_cross((float *)ARM_DIR, (vec3){1, 0, 0}, k);
    glm_vec3_normalize(k);
}

static void arm_locals(const arm_params *a, versor clav, versor upper, versor lower, versor hand)
{
    versor x, y, z;
    mr_quat_from_axis_deg(x, a->clav_raise, 1, 0, 0);
    mr_quat_from_axis_deg(z, -a->clav_fwd, 0, 0, 1);
    glm_quat_mul(z, x, clav);
    mr_quat_from_axis_deg(x, -a->adduct, 1, 0, 0);
    mr_quat_from_axis_deg(y, -a->swing, 0, 1, 0);
    glm_quat_mul(y, x, upper);
    vec3 k;
    elbow_axis(k);
    mr_quat_from_axis_deg(lower, a->elbow, k[0], k[1], k[2]);
    mr_quat_from_axis_deg(hand, -a->wrist, 1, 0, 0);
}

/* Two-bone IK for one leg: thigh and calf put the ankle on target (or as
 * near as the leg reaches), the knee towards +X; the foot takes its pitch in
 * model space and the toes bend by toe. Needs r->model of the pelvis. */
static void solve_leg(rig *r, const body *b, int side)
{
    int th = side ? MR_MQ_THIGH_R : MR_MQ_THIGH_L;
    const mr_skeleton *sk = r->sk;
    float l1 = glm_vec3_norm(sk->rest_t[th + 1]), l2 = glm_vec3_norm(sk->rest_t[th + 2]);
    vec3 hip, target = {(float)b->ankle[side][0], (float)b->ankle[side][1], (float)b->ankle[side][2]};
    glm_mat4_mulv3(r->model[MR_MQ_PELVIS], sk->rest_t[th], 1.0f, hip);
    vec3 to;
    glm_vec3_sub(target, hip, to);
    float dist = glm_vec3_norm(to);
    glm_vec3_scale(to, 1.0f / dist, to);
    float reach = (l1 + l2) * 0.9995f, least = fabsf(l1 - l2) + 0.01f;
    if (dist > reach) dist = reach;
    if (dist < least) dist = least;
    vec3 fwd = {1, 0, 0};
    glm_vec3_muladds(to, -glm_vec3_dot(to, fwd), fwd);
    glm_vec3_normalize(fwd);
    float cb = (l1 * l1 + dist * dist - l2 * l2) / (2 * l1 * dist);
    float sb = sqrtf(fmaxf(0.0f, 1 - cb * cb));
    vec3 knee, ankle, thigh_dir, calf_dir;
    glm_vec3_copy(hip, knee);
    glm_vec3_muladds(to, l1 * cb, knee);
    glm_vec3_muladds(fwd, l1 * sb, knee);
    glm_vec3_copy(hip, ankle);
    glm_vec3_muladds(to, dist, ankle);
    glm_vec3_sub(knee, hip, thigh_dir);
    glm_vec3_sub(ankle, knee, calf_dir);

    const vec3 down = {0, 0, -1}, x = {1, 0, 0};
    versor q_pelvis, q_thigh, q_calf, q_foot, q_ball;
    model_rotation(r, MR_MQ_PELVIS, q_pelvis);
    q_frames(down, x, thigh_dir, fwd, q_thigh);
    q_frames(down, x, calf_dir, fwd, q_calf);
    mr_quat_from_axis_deg(q_foot, -b->pitch[side], 0, 1, 0);
    q_local(q_pelvis, q_thigh, r->pose.r[th]);
    q_local(q_thigh, q_calf, r->pose.r[th + 1]);
    q_local(q_calf, q_foot, r->pose.r[th + 2]);
    mr_quat_from_axis_deg(q_ball, -b->toe[side], 0, 1, 0);
    glm_quat_copy(q_ball, r->pose.r[th + 3]);
}

static void apply_body(rig *r, const body *b)
{
    const mr_skeleton *sk = r->sk;
    mr_pose_set_rest(&r->pose, sk);
    for (int c = 0; c < 3; c++) r->pose.t[MR_MQ_PELVIS][c] += (float)b->pelvis_t[c];
    mr_quat_from_euler_deg(r->pose.r[MR_MQ_PELVIS], b->pelvis);
    for (int i = 0; i < 3; i++) mr_quat_from_euler_deg(r->pose.r[MR_MQ_SPINE_01 + i], b->spine[i]);
    mr_quat_from_euler_deg(r->pose.r[MR_MQ_NECK], b->neck);
    mr_quat_from_euler_deg(r->pose.r[MR_MQ_HEAD], b->head);
    for (int side = 0; side < 2; side++) {
        int cl = side ? MR_MQ_CLAVICLE_R : MR_MQ_CLAVICLE_L;
        versor *q = r->pose.r + cl;
        arm_locals(&b->arm[side], q[0], q[1], q[2], q[3]);
        if (side)
            for (int k = 0; k < 4; k++) q_mirror(q[k]);
    }
    mr_pose_to_model(sk, &r->pose, r->model);
    for (int side = 0; side < 2; side++) solve_leg(r, b, side);
}

/* Rest ankle positions: feet where the bind pose has them, flat. */
static void feet_at_rest(const rig *r, body *b)
{
    for (int side = 0; side < 2; side++) {
        int ft = side ? MR_MQ_FOOT_R : MR_MQ_FOOT_L;
        mat4 bind;
        glm_mat4_inv((vec4 *)r->sk->inverse_bind[ft], bind);
        for (int c = 0; c < 3; c++) b->ankle[side][c] = bind[3][c];
        b->pitch[side] = 0;
        b->toe[side] = 0;
    }
}

/* ---- idle ---- */

/* Standing: soft knees, weight shifting from foot to foot once per loop,
 * one breath per loop (chest lifts and opens, shoulders rise), a slow look
 * around, arms hanging and swaying a little. */
static void idle_body(const rig *r, double u, double shift, body *b)
{
    memset(b, 0, sizeof *b);
    double w = 2 * PI * u;
    double breath = 0.5 - 0.5 * cos(w);
    b->pelvis_t[0] = 0.1 * sin(w + 1.0);
    b->pelvis_t[1] = 0.45 * shift * sin(w);
    b->pelvis_t[2] = -0.35 - 0.06 * shift * (1 - cos(2 * w));
    b->pelvis[0] = 1.4 * shift * sin(w);
    b->pelvis[1] = 1.5;
    b->pelvis[2] = 1.5 * shift * sin(w + 0.5);
    b->spine[0][0] = -0.8 * b->pelvis[0];
    b->spine[0][1] = -0.8;
    b->spine[0][2] = -0.4 * b->pelvis[2];
    b->spine[1][0] = -0.3 * b->pelvis[0];
    b->spine[1][1] = -0.8 * breath;
    b->spine[2][1] = 0.4 - 1.2 * breath;
    b->spine[2][2] = -0.4 * b->pelvis[2];
    b->neck[1] = 1.0 * breath;
    b->neck[2] = 1.5 * sin(w + 2.0);
    b->head[0] = -0.6 * b->pelvis[0];
    b->head[1] = 1.0 * breath - 1.0;
    b->head[2] = 2.0 * sin(w + 2.0);
    for (int side = 0; side < 2; side++) {
        arm_params *a = &b->arm[side];
        double ph = side ? 2.2 : 0.0;
        a->clav_raise = 1.6 * breath;
        a->adduct = 37.0 - 1.5 * breath;
        a->swing = 1.5 + 1.2 * sin(w + ph);
        a->elbow = 12.0 + 2.0 * breath + 1.0 * sin(w + ph - 0.6);
        a->wrist = 10.0 + 1.0 * sin(w + ph - 1.2);
    }
    feet_at_rest(r, b);
}

/* ---- walk ---- */

/* The gait, for the left foot at phase p (the right is half a cycle on).
 * Stance (p < p_toe) on a treadmill moving back at `stride` per cycle (the
 * travelling clips carry the whole figure forward at that speed, pose_at): heel
 * strike with the toes up, rolling onto the flat foot by p_flat, heel
 * rising about the ball from p_heel to toe off at p_toe while the toes stay
 * flat. Swing: a cubic from the toe-off state to the heel-strike state with
 * matching velocities, lifted to clear the ground. The walk and the run
 * share this; the run has a short stance (flight phases between), a longer
 * stride, a flatter strike and a high heel kick. */
typedef struct gait_params {
    double stride;       /* treadmill travel per cycle, inches */
    double heel0;        /* treadmill position under the heel at heel strike */
    double p_flat, p_heel, p_toe;
    double strike_pitch, toeoff_pitch;
    double swing_lift;
} gait_params;

static const gait_params WALK = {MR_MQ_WALK_STRIDE, 10.6, 0.10, 0.45, 0.62, 15.0, 28.0, 2.4};
static const gait_params RUN = {MR_MQ_RUN_STRIDE, 8.0, 0.05, 0.18, 0.32, 6.0, 32.0, 11.0};

typedef struct foot_state { double x, z, pitch, toe; } foot_state;

static void rot2(double deg, double x, double z, double *ox, double *oz)
{
    double c = cos(deg * RAD), s = sin(deg * RAD);
    *ox = x * c - z * s;
    *oz = x * s + z * c;
}

static foot_state stance(const gait_params *g, double p)
{
    /* Foot geometry relative to the ankle: the heel's round is a circle of
     * radius 1.6 centred at (-1.0, -1.4), the ball joint is at (5.0, -2.0).
     * hx is where the treadmill has carried the point under the heel
     * circle's centre when the foot is flat. */
    foot_state f = {0, 0, 0, 0};
    double hx = g->heel0 - g->stride * p, ox, oz;
    if (p < g->p_flat) {
        /* Rolling on the heel: the centre moves ahead by radius * angle. */
        f.pitch = g->strike_pitch * (1 - smooth01(p / g->p_flat));
        rot2(f.pitch, 1.0, 1.4, &ox, &oz);
        f.x = hx - 1.6 * f.pitch * RAD + ox;
        f.z = 1.6 + oz;
    } else if (p < g->p_heel) {
        f.x = hx + 1.0;
        f.z = 3.0;
    } else {
        /* Heel rising about the ball joint; the toes stay flat. */
        f.pitch = -g->toeoff_pitch * smooth01((p - g->p_heel) / (g->p_toe - g->p_heel));
        rot2(f.pitch, -5.0, 2.0, &ox, &oz);
        f.x = hx + 6.0 + ox;
        f.z = 1.0 + oz;
        f.toe = -f.pitch;
    }
    return f;
}

static double hermite(double p0, double m0, double p1, double m1, double t)
{
    double t2 = t * t, t3 = t2 * t;
    return (2 * t3 - 3 * t2 + 1) * p0 + (t3 - 2 * t2 + t) * m0 + (-2 * t3 + 3 * t2) * p1 +
           (t3 - t2) * m1;
}

static foot_state gait(const gait_params *g, double p)
{
    p -= floor(p);
    if (p <= g->p_toe) return stance(g, p);
    const double h = 1e-4, span = 1.0 - g->p_toe;
    foot_state a = stance(g, g->p_toe), a0 = stance(g, g->p_toe - h), b = stance(g, 0), b1 = stance(g, h);
    double t = (p - g->p_toe) / span;
    foot_state f;
    f.x = hermite(a.x, (a.x - a0.x) / h * span, b.x, (b1.x - b.x) / h * span, t);
    f.z = hermite(a.z, (a.z - a0.z) / h * span, b.z, (b1.z - b.z) / h * span, t);
    f.z += g->swing_lift * pow(sin(PI * t), 2) * (1 - 0.3 * t);
    f.pitch = hermite(a.pitch, (a.pitch - a0.pitch) / h * span, b.pitch, 0.0, t);
    f.toe = a.toe * (1 - smooth01(t / 0.4));
    return f;
}

/* Ankle targets of both feet at phase p. */
static void place_feet(const rig *r, const gait_params *g, double p, body *b)
{
    for (int side = 0; side < 2; side++) {
        foot_state f = gait(g, p + (side ? 0.5 : 0.0));
        mat4 bind;
        glm_mat4_inv((vec4 *)r->sk->inverse_bind[side ? MR_MQ_FOOT_R : MR_MQ_FOOT_L], bind);
        b->ankle[side][0] = f.x;
        b->ankle[side][1] = bind[3][1];
        b->ankle[side][2] = f.z;
        b->pitch[side] = f.pitch;
        b->toe[side] = f.toe;
    }
}

static void walk_body(const rig *r, double p, body *b)
{
    memset(b, 0, sizeof *b);
    double w = 2 * PI * p;
    /* Pelvis: lowest at double support (p = 0, 0.5), highest at mid stance;
     * sways over the standing foot, drops on the swing side, turns with the
     * swinging leg. */
    b->pelvis_t[1] = 0.6 * sin(w);
    b->pelvis_t[2] = -1.1 - 0.7 * cos(2 * w);
    b->pelvis[0] = 3.0 * sin(w + 0.3);
    b->pelvis[1] = 2.0 + 0.6 * cos(2 * w);
    b->pelvis[2] = -5.0 * cos(w);
    /* Spine: counter-rotates the chest against the pelvis, keeps the
     * shoulders level and the head steady. */
    b->spine[0][0] = -0.5 * b->pelvis[0];
    b->spine[0][1] = -1.2;
    b->spine[0][2] = 2.5 * cos(w);
    b->spine[1][0] = -0.3 * b->pelvis[0];
    b->spine[1][1] = 0.3 + 0.4 * cos(2 * w - 0.5);
    b->spine[1][2] = 3.0 * cos(w);
    b->spine[2][0] = -0.2 * b->pelvis[0];
    b->spine[2][1] = 0.5;
    b->spine[2][2] = 2.5 * cos(w);
    b->neck[1] = -1.0;
    b->neck[2] = -1.5 * cos(w);
    b->head[1] = -1.0 - 0.5 * cos(2 * w);
    b->head[2] = -1.5 * cos(w);
    for (int side = 0; side < 2; side++) {
        double ws = w + (side ? PI : 0);  /* this side's phase */
        arm_params *a = &b->arm[side];
        /* The arm swings against its own leg: back at its heel strike. */
        a->clav_fwd = -1.5 * cos(ws);
        a->clav_raise = 0.5;
        a->adduct = 37.0;
        a->swing = 1.0 - 15.0 * cos(ws);
        a->elbow = 13.0 - 7.0 * cos(ws - 2 * PI * 0.05);
        a->wrist = 8.0 - 3.0 * cos(ws - 2 * PI * 0.1);
    }
    place_feet(r, &WALK, p, b);
}

/* ---- run ---- */

/* A run (on the spot; pose_at adds the travel): the same foot phases as the walk (left foot lands at
 * p = 0, the right at 0.5), a short stance with a flight phase after each,
 * the pelvis lowest at mid stance and highest in flight, the body leaning
 * forward, elbows bent near 90 degrees and the arms swinging wide against
 * the legs. */
static void run_body(const rig *r, double p, body *b)
{
    memset(b, 0, sizeof *b);
    double w = 2 * PI * p;
    double mid = 0.5 * (RUN.p_flat + RUN.p_heel);   /* mid stance */
    b->pelvis_t[0] = 0.8;
    b->pelvis_t[1] = 0.4 * sin(w);
    b->pelvis_t[2] = -2.0 - 1.2 * cos(2 * (w - 2 * PI * mid));
    b->pelvis[0] = 2.0 * sin(w + 0.3);
    b->pelvis[1] = 7.0;
    b->pelvis[2] = -8.0 * cos(w);
    b->spine[0][1] = 1.0;
    b->spine[0][2] = 3.5 * cos(w);
    b->spine[1][1] = 1.0 + 0.8 * cos(2 * (w - 2 * PI * mid));
    b->spine[1][2] = 4.0 * cos(w);
    b->spine[2][1] = 1.0;
    b->spine[2][2] = 3.0 * cos(w);
    b->neck[1] = -3.0;
    b->neck[2] = -2.5 * cos(w);
    b->head[1] = -5.0 - 0.8 * cos(2 * (w - 2 * PI * mid));
    b->head[2] = -2.5 * cos(w);
    for (int side = 0; side < 2; side++) {
        double ws = w + (side ? PI : 0);
        arm_params *a = &b->arm[side];
        a->clav_fwd = -3.0 * cos(ws);
        a->clav_raise = 1.5;
        a->adduct = 40.0;
        a->swing = -6.0 - 34.0 * cos(ws);
        a->elbow = 88.0 - 12.0 * cos(ws - 2 * PI * 0.05);
        a->wrist = 10.0;
    }
    place_feet(r, &RUN, p, b);
}

/* ---- wave ---- */

/* The right arm rises out to the side with the elbow up, the forearm upright
 * and the palm forwards, waves three times (the forearm rocking about the
 * elbow, the hand lagging behind it), and comes down again; the body leans a
 * little towards the left leg meanwhile. Between, the idle's breathing. */
static void wave_arm(const rig *r, double env, double osc, double lag, versor clav_model,
                     versor upper, versor lower, versor hand, versor upper_idle,
                     versor lower_idle, versor hand_idle)
{
    const vec3 x = {1, 0, 0};
    vec3 k, target = {0.35f, 0.80f, 0.50f}, local_target;
    elbow_axis(k);
    glm_vec3_normalize(target);
    /* The raise, in the clavicle's frame (left-side terms). */
    versor inv, raise, twist, q;
    glm_quat_inv(clav_model, inv);
    glm_quat_rotatev(inv, target, local_target);
    glm_quat_from_vecs((float *)ARM_DIR, local_target, raise);
    /* Turn the arm about itself so that bending the elbow lifts the forearm
     * straight up: at 90 degrees of flexion the forearm points along
     * cos(a) X + sin(a) k (X and k carried by the raise). */
    vec3 xr, kr;
    glm_quat_mul(clav_model, raise, q);
    glm_quat_rotatev(q, (float *)x, xr);
    glm_quat_rotatev(q, k, kr);
    double a = atan2(kr[2], xr[2]);
    mr_quat_from_axis_deg(twist, a / RAD, ARM_DIR[0], ARM_DIR[1], ARM_DIR[2]);
    versor up_w, lo_w, ha_w;
    glm_quat_mul(raise, twist, up_w);
    mr_quat_from_axis_deg(lo_w, 58.0 + osc, k[0], k[1], k[2]);
    /* Palm forwards: twist the hand about the forearm as far as 70 degrees. */
    versor fore_model, dev, flex, htw;
    glm_quat_mul(clav_model, up_w, q);
    glm_quat_mul(q, lo_w, fore_model);
    vec3 p1, p2, minus_x = {-1, 0, 0};
    glm_quat_rotatev(fore_model, k, p1);
    glm_quat_rotatev(fore_model, minus_x, p2);
    double ht = atan2(p2[0], p1[0]) / RAD;
    if (ht > 70) ht = 70;
    if (ht < -70) ht = -70;
    mr_quat_from_axis_deg(htw, ht, ARM_DIR[0], ARM_DIR[1], ARM_DIR[2]);
    mr_quat_from_axis_deg(dev, 0.6 * lag, k[0], k[1], k[2]);
    mr_quat_from_axis_deg(flex, -8.0, 1, 0, 0);
    glm_quat_mul(htw, dev, q);
    glm_quat_mul(q, flex, ha_w);
    glm_quat_slerp(upper_idle, up_w, (float)env, upper);
    glm_quat_slerp(lower_idle, lo_w, (float)env, lower);
    glm_quat_slerp(hand_idle, ha_w, (float)env, hand);
}

static void wave_pose(rig *r, double u)
{
    body b;
    idle_body(r, u, 0.4, &b);
    double env = smooth01(u / 0.22) * (1 - smooth01((u - 0.78) / 0.22));
    /* Three waves between u = 0.2 and 0.8, faded in and out. */
    double win = smooth01((u - 0.14) / 0.12) * (1 - smooth01((u - 0.74) / 0.12));
    double osc = 22.0 * win * sin(2 * PI * 3 * (u - 0.2) / 0.6);
    double lag = 22.0 * win * sin(2 * PI * 3 * (u - 0.23) / 0.6);
    b.pelvis_t[1] += 0.5 * env;
    b.pelvis[0] += 1.5 * env;
    b.spine[0][0] -= 1.5 * env;
    b.spine[1][0] -= 1.5 * env;
    b.spine[2][0] -= 1.0 * env;
    b.head[0] += 3.0 * env;
    b.head[2] -= 4.0 * env;
    b.arm[1].clav_raise += 8.0 * env;
    apply_body(r, &b);

    /* The idle arm's rotations, mirrored back into left-side terms. */
    versor idle[3], clav;
    for (int k = 0; k < 3; k++) {
        glm_quat_copy(r->pose.r[MR_MQ_UPPERARM_R + k], idle[k]);
        q_mirror(idle[k]);
    }
    model_rotation(r, MR_MQ_CLAVICLE_R, clav);
    q_mirror(clav);
    versor *q = r->pose.r + MR_MQ_UPPERARM_R;
    wave_arm(r, env, osc, lag, clav, q[0], q[1], q[2], idle[0], idle[1], idle[2]);
    for (int k = 0; k < 3; k++) q_mirror(q[k]);
}

/* ---- clips ---- */

/* Key i of a clip of `frames` frames: loop phase u = (i mod frames) /
 * frames, so the last key has the first one's pose. A travelling clip
 * (walk, run) is its gait in place carried forward (+X) by stride * i /
 * frames: the treadmill under the stance foot runs back at exactly that
 * speed, so the planted foot stands still in model space. Only the
 * pelvis translation differs from the clip in place (every rotation is
 * the same bits), and the last key is the first one a stride ahead. */
static void pose_at(rig *r, const char *name, int i, int frames)
{
    body b;
    double u = (double)(i % frames) / frames, travel = 0.0;
    if (!strcmp(name, "idle")) {
        idle_body(r, u, 1.0, &b);
        apply_body(r, &b);
    } else if (!strcmp(name, "walk") || !strcmp(name, "walk_inplace")) {
        walk_body(r, u, &b);
        apply_body(r, &b);
        if (!strcmp(name, "walk")) travel = WALK.stride * i / frames;
    } else if (!strcmp(name, "run") || !strcmp(name, "run_inplace")) {
        run_body(r, u, &b);
        apply_body(r, &b);
        if (!strcmp(name, "run")) travel = RUN.stride * i / frames;
    } else {
        wave_pose(r, u);
    }
    r->pose.t[MR_MQ_PELVIS][0] += (float)travel;
}

mr_status mr_mannequin_clip(const mr_skeleton *sk, const char *name, mr_clip **out)
{
    int frames;
    *out = NULL;
    if (!sk || !name || sk->joint_count != MR_MQ_JOINT_COUNT) return MR_ERR_INVALID_ARGUMENT;
    if (!strcmp(name, "idle")) frames = MR_MQ_IDLE_FRAMES;
    else if (!strcmp(name, "walk") || !strcmp(name, "walk_inplace")) frames = MR_MQ_WALK_FRAMES;
    else if (!strcmp(name, "wave")) frames = MR_MQ_WAVE_FRAMES;
    else if (!strcmp(name, "run") || !strcmp(name, "run_inplace")) frames = MR_MQ_RUN_FRAMES;
    else return MR_ERR_INVALID_ARGUMENT;

    mr_clip *clip = NULL;
    mr_clip_create(name, MR_MQ_JOINT_COUNT, &clip);
    rig r = {.sk = sk};
    if (!clip || mr_pose_init(&r.pose, MR_MQ_JOINT_COUNT) != MR_OK) goto fail;
    int keys = frames + 1;
    clip->rate = MR_MQ_RATE;
    clip->duration = (float)frames / MR_MQ_RATE;
    for (int j = 0; j < MR_MQ_JOINT_COUNT; j++) {
        if (mr_track_init(&clip->tracks[j].r, keys, MR_INTERP_LINEAR) != MR_OK) goto fail;
        if (j == MR_MQ_PELVIS && mr_track_init(&clip->tracks[j].t, keys, MR_INTERP_LINEAR) != MR_OK)
            goto fail;
    }
    for (int i = 0; i < keys; i++) {
        pose_at(&r, name, i, frames);
        float t = (float)i / MR_MQ_RATE;
        for (int j = 0; j < MR_MQ_JOINT_COUNT; j++) {
            mr_track *tr = &clip->tracks[j].r;
            /* Normalised, w >= 0: one hemisphere, no sign flips between
             * keys. Plain float stores: track values need not be aligned. */
            const float *p = r.pose.r[j];
            float *q = tr->values + (size_t)i * 4;
            float len = sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]);
            float k = p[3] < 0 ? -1.0f / len : 1.0f / len;
            for (int c = 0; c < 4; c++) q[c] = p[c] * k;
            tr->times[i] = t;
        }
        mr_track *tt = &clip->tracks[MR_MQ_PELVIS].t;
        for (int c = 0; c < 3; c++) tt->values[(size_t)i * 3 + c] = r.pose.t[MR_MQ_PELVIS][c];
        tt->times[i] = t;
    }
    for (int j = 0; j < MR_MQ_JOINT_COUNT; j++) {
        mr_track_finish(&clip->tracks[j].r);
        mr_track_finish(&clip->tracks[j].t);
    }
    mr_pose_deinit(&r.pose);
    *out = clip;
    return MR_OK;
fail:
    mr_pose_deinit(&r.pose);
    mr_clip_destroy(clip);
    return MR_ERR_NO_MEMORY;
}
