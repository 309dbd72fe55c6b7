/* ik_chain.c — FABRIK and CCD chain IK with cone, twist and hinge limits
 * (see ik_chain.h). */
#include "anim/ik_chain.h"

#include <math.h>
#include <string.h>

#include "core/quat.h"

#define EPS 1e-12f

static int finite3(const float *v) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

static const char *joint_name(const mr_skeleton *sk, int j)
{
    return sk->names && j >= 0 && j < sk->joint_count && sk->names[j] ? sk->names[j] : "?";
}

int mr_ik_chain_length(const mr_skeleton *sk, int first, int last)
{
    if (!sk || first < 0 || last < 0 || first >= sk->joint_count || last >= sk->joint_count) return 0;
    int n = 1;
    for (int k = last; k != first; k = sk->parents[k], n++)
        if (k < 0) return 0;
    return n;
}

/* ---- limits ---------------------------------------------------------------- */

/* q with w >= 0 (the same rotation). */
static void positive_w(versor q)
{
    if (q[3] < 0.0f) glm_vec4_negate(q);
}

/* d = swing * twist, twist about unit axis a; twist angle in (-pi, pi]. */
static void swing_twist(const versor d_in, const vec3 a, versor swing, versor twist, float *twist_angle)
{
    versor d;
    glm_vec4_copy((float *)d_in, d);
    positive_w(d);
    float p = d[0] * a[0] + d[1] * a[1] + d[2] * a[2];
    float n = sqrtf(p * p + d[3] * d[3]);
    if (n < 1e-9f) {                   /* half a turn of swing: no twist to speak of */
        glm_quat_identity(twist);
        *twist_angle = 0.0f;
    } else {
        twist[0] = a[0] * p / n;
        twist[1] = a[1] * p / n;
        twist[2] = a[2] * p / n;
        twist[3] = d[3] / n;
        *twist_angle = 2.0f * atan2f(p / n, d[3] / n);
    }
    versor tc;
    glm_quat_conjugate(twist, tc);
    glm_quat_mul(d, tc, swing);
    positive_w(swing);
}

static float swing_angle(const versor swing)
{
    float s = sqrtf(swing[0] * swing[0] + swing[1] * swing[1] + swing[2] * swing[2]);
    return 2.0f * atan2f(s, fabsf(swing[3]));
}

static void unit_or_x(const vec3 v, vec3 out)
{
    float n = glm_vec3_norm((float *)v);
    if (n > EPS && isfinite(n)) glm_vec3_scale((float *)v, 1.0f / n, out);
    else glm_vec3_copy((vec3){1, 0, 0}, out);
}

static float clampf(float x, float lo, float hi) { return x < lo ? lo : x > hi ? hi : x; }

/* The range lo..hi shrunk by the margin (to its middle when narrower). */
static float clamp_range(float x, float lo, float hi)
{
    float m = MR_IK_LIMIT_MARGIN;
    if (hi - lo <= 2.0f * m) return 0.5f * (lo + hi);
    return clampf(x, lo + m, hi - m);
}

mr_status mr_ik_limit_validate(const mr_ik_limit *l, mr_error *err)
{
    const float pi = (float)M_PI;
    if (!l) return MR_OK;
    switch (l->kind) {
    case MR_IK_LIMIT_NONE:
        return MR_OK;
    case MR_IK_LIMIT_CONE:
        if (!(l->cone >= 0.0f && l->cone <= pi))
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "cone %g rad, expected 0..pi", l->cone);
        if (l->has_twist && !(l->twist_min >= -pi && l->twist_max <= pi && l->twist_min <= l->twist_max))
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "twist %g..%g rad, expected -pi <= min <= max <= pi",
                                l->twist_min, l->twist_max);
        return MR_OK;
    case MR_IK_LIMIT_HINGE:
        if (!finite3(l->axis) || glm_vec3_norm((float *)l->axis) < 1e-9f)
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "hinge axis is zero or not finite");
        if (!(l->min >= -pi && l->max <= pi && l->min <= l->max))
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "hinge %g..%g rad, expected -pi <= min <= max <= pi",
                                l->min, l->max);
        return MR_OK;
    }
    return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "limit kind %d is unknown", (int)l->kind);
}

void mr_ik_limit_apply(const mr_ik_limit *l, const versor rest, const vec3 bone, versor r)
{
    if (!l || l->kind == MR_IK_LIMIT_NONE) return;
    versor rc, d, swing, twist, out;
    glm_quat_conjugate((float *)rest, rc);
    glm_quat_mul(rc, r, d);
    glm_quat_normalize(d);
    vec3 a;
    float tw;
    if (l->kind == MR_IK_LIMIT_HINGE) {
        unit_or_x(l->axis, a);
        swing_twist(d, a, swing, twist, &tw);
        float t = clamp_range(tw, l->min, l->max);
        glm_quatv(out, t, a);
    } else {
        unit_or_x(bone, a);
        swing_twist(d, a, swing, twist, &tw);
        float sa = swing_angle(swing), lim = fmaxf(0.0f, l->cone - MR_IK_LIMIT_MARGIN);
        if (sa > lim) {
            vec3 ax = {swing[0], swing[1], swing[2]};
            if (glm_vec3_norm(ax) > EPS) {
                glm_vec3_normalize(ax);
                glm_quatv(swing, lim, ax);
            } else {
                glm_quat_identity(swing);
            }
        }
        if (l->has_twist) {
            float t = clamp_range(tw, l->twist_min, l->twist_max);
            if (t != tw) glm_quatv(twist, t, a);
        }
        glm_quat_mul(swing, twist, out);
    }
    glm_quat_mul((float *)rest, out, r);
    glm_quat_normalize(r);
}

float mr_ik_limit_violation(const mr_ik_limit *l, const versor rest, const vec3 bone, const versor r)
{
    if (!l || l->kind == MR_IK_LIMIT_NONE) return 0.0f;
    versor rc, d, swing, twist;
    glm_quat_conjugate((float *)rest, rc);
    glm_quat_mul(rc, (float *)r, d);
    glm_quat_normalize(d);
    vec3 a;
    float tw, v = 0.0f;
    if (l->kind == MR_IK_LIMIT_HINGE) {
        unit_or_x(l->axis, a);
        swing_twist(d, a, swing, twist, &tw);
        v = swing_angle(swing) - MR_IK_HINGE_NOISE;   /* off the axis: rounding only */
        v = fmaxf(v, fmaxf(l->min - tw, tw - l->max));
    } else {
        unit_or_x(bone, a);
        swing_twist(d, a, swing, twist, &tw);
        v = swing_angle(swing) - l->cone;
        if (l->has_twist) v = fmaxf(v, fmaxf(l->twist_min - tw, tw - l->twist_max));
    }
    return v > 0.0f ? v : 0.0f;
}

void mr_ik_limit_bone(const mr_skeleton *sk, int j, int child, vec3 out)
{
    if (child < 0)
        for (int k = j + 1; k < sk->joint_count; k++)
            if (sk->parents[k] == j) {
                child = k;
                break;
            }
    if (child >= 0) unit_or_x(sk->rest_t[child], out);
    else glm_vec3_copy((vec3){1, 0, 0}, out);
}

/* ---- validation ------------------------------------------------------------ */

mr_status mr_ik_chain_validate(const mr_ik_chain_job *job, mr_error *err)
{
    if (!job) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "chain IK: no job");
    const mr_skeleton *sk = job->skeleton;
    if (!sk || !job->pose) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "chain IK: needs a skeleton and a pose");
    if (job->pose->joint_count != sk->joint_count)
        return mr_error_set(err, MR_ERR_JOINT_COUNT, "chain IK: pose has %d joints, skeleton has %d",
                            job->pose->joint_count, sk->joint_count);
    int n = sk->joint_count;
    if (job->first < 0 || job->first >= n || job->last < 0 || job->last >= n)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "chain IK: joints %d, %d, expected 0..%d", job->first,
                            job->last, n - 1);
    int len = mr_ik_chain_length(sk, job->first, job->last);
    if (len < 2)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "chain IK: '%s' is not an ancestor of '%s'",
                            joint_name(sk, job->first), joint_name(sk, job->last));
    if (len > MR_IK_CHAIN_MAX_JOINTS)
        return mr_error_set(err, MR_ERR_LIMIT, "chain IK: %d joints from '%s' to '%s', at most %d", len,
                            joint_name(sk, job->first), joint_name(sk, job->last), MR_IK_CHAIN_MAX_JOINTS);
    if (!finite3(job->target) || (job->has_pole && !finite3(job->pole)))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "chain IK: target or pole is not finite");
    if (job->solver != MR_IK_FABRIK && job->solver != MR_IK_CCD)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "chain IK: solver %d is unknown", (int)job->solver);
    if (job->iterations < 0 || job->iterations > MR_IK_CHAIN_MAX_ITERATIONS)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "chain IK: %d iterations, expected 0..%d", job->iterations,
                            MR_IK_CHAIN_MAX_ITERATIONS);
    if (!(job->tolerance >= 0.0f && isfinite(job->tolerance)))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "chain IK: tolerance %g, expected >= 0", job->tolerance);
    if (!(job->weight >= 0.0f && job->weight <= 1.0f))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "chain IK: weight %g, expected 0..1", job->weight);
    if (job->limits) {
        int k = len - 1;
        for (int j = job->last; k >= 0; j = sk->parents[j], k--) {
            mr_error e = {0};
            if (mr_ik_limit_validate(&job->limits[k], &e) != MR_OK)
                return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "chain IK: limit of '%s': %s", joint_name(sk, j),
                                    e.msg);
        }
    }
    return MR_OK;
}

/* ---- the chain --------------------------------------------------------------- */

typedef struct chain {
    const mr_skeleton *sk;
    mr_pose *pose;
    const mr_ik_limit *limits;
    int n;
    int j[MR_IK_CHAIN_MAX_JOINTS];
    mat4 top;                              /* model matrix of first's parent */
    versor qtop;                           /* its rotation */
    mat4 m[MR_IK_CHAIN_MAX_JOINTS];        /* model matrices of the chain joints (at the last sync) */
    vec3 p[MR_IK_CHAIN_MAX_JOINTS];        /* their positions (see sweep) */
    versor q[MR_IK_CHAIN_MAX_JOINTS];      /* their model rotations (see sweep) */
    vec3 b[MR_IK_CHAIN_MAX_JOINTS];        /* bone i (to joint i + 1) in joint i's model rotation frame */
    float len[MR_IK_CHAIN_MAX_JOINTS];     /* bone i: joint i to joint i + 1 */
    vec3 bone[MR_IK_CHAIN_MAX_JOINTS];     /* limit bone axes */
    float total;
} chain;

/* Model matrices, positions and rotations of chain joints k.. from joint
 * k - 1's: local-to-model along the chain. */
static void update_from(chain *c, int k)
{
    for (int i = k; i < c->n; i++) {
        mat4 local;
        mr_pose_local_matrix(c->pose, c->j[i], local);
        glm_mul(i == 0 ? c->top : c->m[i - 1], local, c->m[i]);
        glm_vec3_copy(c->m[i][3], c->p[i]);
        glm_quat_mul(i == 0 ? c->qtop : c->q[i - 1], c->pose->r[c->j[i]], c->q[i]);
        glm_quat_normalize(c->q[i]);
    }
}

/* Model matrix of joint j by walking its parents (identity for -1). */
static void model_matrix(const mr_skeleton *sk, const mr_pose *pose, int j, mat4 out)
{
    int path[MR_MAX_JOINTS], n = 0;
    for (int k = j; k >= 0 && n < MR_MAX_JOINTS; k = sk->parents[k]) path[n++] = k;
    glm_mat4_identity(out);
    for (int i = n - 1; i >= 0; i--) {
        mat4 local;
        mr_pose_local_matrix(pose, path[i], local);
        glm_mul(out, local, out);
    }
}

static void chain_make(chain *c, const mr_ik_chain_job *job)
{
    const mr_skeleton *sk = job->skeleton;
    c->sk = sk;
    c->pose = job->pose;
    c->limits = job->limits;
    c->n = mr_ik_chain_length(sk, job->first, job->last);
    for (int k = c->n - 1, j = job->last; k >= 0; k--, j = sk->parents[j]) c->j[k] = j;
    model_matrix(sk, job->pose, sk->parents[job->first], c->top);
    mr_quat_from_matrix(c->top, c->qtop);
    update_from(c, 0);
    c->total = 0.0f;
    for (int i = 0; i + 1 < c->n; i++) {
        c->len[i] = glm_vec3_distance(c->p[i], c->p[i + 1]);
        c->total += c->len[i];
    }
    c->len[c->n - 1] = 0.0f;
    for (int i = 0; i + 1 < c->n; i++) {
        vec3 d;
        versor qc;
        glm_vec3_sub(c->p[i + 1], c->p[i], d);
        glm_quat_conjugate(c->q[i], qc);
        glm_quat_rotatev(qc, d, c->b[i]);
    }
    for (int i = 0; i < c->n; i++) mr_ik_limit_bone(sk, c->j[i], i + 1 < c->n ? c->j[i + 1] : -1, c->bone[i]);
}

static void project_limit(chain *c, int i)
{
    if (!c->limits) return;
    int j = c->j[i];
    mr_ik_limit_apply(&c->limits[i], c->sk->rest_r[j], c->bone[i], c->pose->r[j]);
}

/* The shortest rotation from u to v (non-zero), precise at small angles
 * (core/quat.h's mr_quat_from_to rounds turns below about 5e-4 rad to none,
 * which would stop a long chain millimetres short). */
static void from_to(const vec3 u, const vec3 v, versor q)
{
    vec3 c;
    glm_vec3_cross((float *)u, (float *)v, c);
    float w = glm_vec3_norm((float *)u) * glm_vec3_norm((float *)v) + glm_vec3_dot((float *)u, (float *)v);
    if (w <= 1e-6f * glm_vec3_norm((float *)u) * glm_vec3_norm((float *)v) && glm_vec3_norm(c) <= 1e-6f * w + 1e-30f) {
        mr_quat_from_to(u, v, q);      /* opposite: half a turn */
        return;
    }
    q[0] = c[0];
    q[1] = c[1];
    q[2] = c[2];
    q[3] = w;
    glm_quat_normalize(q);
}

/* Positions and rotations of chain joints k + 1.. from joint k's and the
 * locals: p[i+1] = p[i] + q[i] b[i], q[i+1] = q[i] r[i+1]. The bones b are
 * taken once (chain_make), so this is local-to-model along the chain
 * without matrices (exact for rigid chains and uniform scale; the result
 * is measured with matrices at the end). */
/* v rotated by the unit quaternion q (no normalisation: q is unit). */
static inline void rotate(const versor q, const vec3 v, vec3 out)
{
    /* v + 2w (u x v) + 2 u x (u x v), u = q.xyz */
    float cx = q[1] * v[2] - q[2] * v[1], cy = q[2] * v[0] - q[0] * v[2], cz = q[0] * v[1] - q[1] * v[0];
    float ccx = q[1] * cz - q[2] * cy, ccy = q[2] * cx - q[0] * cz, ccz = q[0] * cy - q[1] * cx;
    out[0] = v[0] + 2.0f * (q[3] * cx + ccx);
    out[1] = v[1] + 2.0f * (q[3] * cy + ccy);
    out[2] = v[2] + 2.0f * (q[3] * cz + ccz);
}

static void step(chain *c, int i)
{
    vec3 d;
    rotate(c->q[i], c->b[i], d);
    glm_vec3_add(c->p[i], d, c->p[i + 1]);
    glm_quat_mul(c->q[i], c->pose->r[c->j[i + 1]], c->q[i + 1]);
}

static void sweep(chain *c, int k)
{
    for (int i = k; i + 1 < c->n; i++) step(c, i);
}

/* Turns chain joint i by the model-space rotation q (about the joint) and
 * keeps its limit. Updates q[i] and, with move_tip, the tip's position
 * (what CCD reads next); the joints between are stale until a sweep. */
static void turn(chain *c, int i, const versor q, int move_tip)
{
    const float *pq = i == 0 ? c->qtop : c->q[i - 1];
    versor pinv, qold, qc, delta;
    float *r = c->pose->r[c->j[i]];
    glm_vec4_copy(c->q[i], qold);
    /* model rotation q * qold; the local follows from the parent's */
    glm_quat_mul((float *)q, qold, c->q[i]);
    glm_quat_normalize(c->q[i]);
    glm_quat_conjugate((float *)pq, pinv);
    glm_quat_mul(pinv, c->q[i], r);
    glm_quat_normalize(r);
    if (c->limits && c->limits[i].kind != MR_IK_LIMIT_NONE) {
        project_limit(c, i);
        glm_quat_mul((float *)pq, r, c->q[i]);
        glm_quat_normalize(c->q[i]);
    }
    if (move_tip && i + 1 < c->n) {
        vec3 rel;
        glm_quat_conjugate(qold, qc);
        glm_quat_mul(c->q[i], qc, delta);     /* the turn the subtree took, limits included */
        glm_vec3_sub(c->p[c->n - 1], c->p[i], rel);
        glm_quat_normalize(delta);
        rotate(delta, rel, rel);
        glm_vec3_add(c->p[i], rel, c->p[c->n - 1]);
    }
}

/* Turns joint i so that the direction from it to `from` points at `to`. */
static void turn_toward(chain *c, int i, const vec3 from, const vec3 to, int move_tip)
{
    vec3 u, v;
    glm_vec3_sub((float *)from, c->p[i], u);
    glm_vec3_sub((float *)to, c->p[i], v);
    float nu = glm_vec3_norm(u), nv = glm_vec3_norm(v);
    if (nu <= 1e-7f * (c->total + EPS) || nv <= 1e-7f * (c->total + EPS)) return;
    versor q;
    from_to(u, v, q);
    turn(c, i, q, move_tip);
}

static float tip_error(const chain *c, const vec3 target)
{
    return glm_vec3_distance((float *)c->p[c->n - 1], (float *)target);
}

/* A unit vector perpendicular to unit d: toward the pole when it gives one. */
static void perpendicular(const vec3 d, const mr_ik_chain_job *job, const vec3 origin, vec3 out)
{
    if (job->has_pole) {
        vec3 p;
        glm_vec3_sub((float *)job->pole, (float *)origin, p);
        glm_vec3_muladds((float *)d, -glm_vec3_dot(p, (float *)d), p);
        float n = glm_vec3_norm(p);
        if (n > 1e-6f * (glm_vec3_norm((float *)job->pole) + 1.0f)) {
            glm_vec3_scale(p, 1.0f / n, out);
            return;
        }
    }
    vec3 other = {0, 0, 1};
    if (fabsf(d[2]) > 0.9f) glm_vec3_copy((vec3){1, 0, 0}, other);
    glm_vec3_cross((float *)d, other, out);
    glm_vec3_normalize(out);
}

/* Direction from a to b, or `fallback` when they coincide. */
static void dir_or(const vec3 a, const vec3 b, const vec3 fallback, vec3 out)
{
    vec3 d;
    glm_vec3_sub((float *)b, (float *)a, d);
    float n = glm_vec3_norm(d);
    if (n > EPS) glm_vec3_scale(d, 1.0f / n, out);
    else glm_vec3_copy((float *)fallback, out);
}

/* Rotates point x about the line a -> b so that it lies on the pole's side
 * of it (the plane of a, b and x turned to hold the pole). */
static void face_pole(const vec3 a, const vec3 b, const vec3 pole, vec3 x)
{
    vec3 u, px, pp;
    glm_vec3_sub((float *)b, (float *)a, u);
    float nu = glm_vec3_norm(u);
    if (nu < EPS) return;
    glm_vec3_scale(u, 1.0f / nu, u);
    glm_vec3_sub(x, (float *)a, px);
    glm_vec3_sub((float *)pole, (float *)a, pp);
    glm_vec3_muladds(u, -glm_vec3_dot(px, u), px);
    glm_vec3_muladds(u, -glm_vec3_dot(pp, u), pp);
    float npx = glm_vec3_norm(px), npp = glm_vec3_norm(pp);
    if (npx < 1e-6f * nu || npp < 1e-6f * nu) return;   /* on the line: no direction */
    vec3 along, rel;
    glm_vec3_sub(x, (float *)a, rel);
    glm_vec3_scale(u, glm_vec3_dot(rel, u), along);
    /* x = a + along + px  ->  a + along + |px| * pp / |pp| */
    for (int k = 0; k < 3; k++) x[k] = a[k] + along[k] + npx * pp[k] / npp;
}

/* All joints of p and the target on one line through root along d:
 * reaching cannot bend the chain, so bend it a little first (toward the
 * pole if any), unless the target is out of reach (dt: its distance). */
static void bend_if_straight(const chain *c, const mr_ik_chain_job *job, vec3 *p, const vec3 root, const vec3 d,
                             float dt)
{
    int n = c->n;
    vec3 rel, cr;
    glm_vec3_sub((float *)job->target, (float *)root, rel);
    glm_vec3_cross(rel, (float *)d, cr);
    float off = glm_vec3_norm(cr);
    for (int i = 1; i < n && off <= 1e-5f * c->total; i++) {
        glm_vec3_sub(p[i], (float *)root, rel);
        glm_vec3_cross(rel, (float *)d, cr);
        off = fmaxf(off, glm_vec3_norm(cr));
    }
    if (off <= 1e-5f * c->total && dt < c->total) {
        vec3 w;
        perpendicular(d, job, root, w);
        for (int i = 1; i + 1 < n; i++)
            glm_vec3_muladds(w, 0.1f * c->total * sinf((float)M_PI * (float)i / (float)(n - 1)), p[i]);
    }
}

static void fabrik_iteration(chain *c, const mr_ik_chain_job *job)
{
    int n = c->n;
    vec3 p[MR_IK_CHAIN_MAX_JOINTS], fb[MR_IK_CHAIN_MAX_JOINTS], root;
    for (int i = 0; i < n; i++) glm_vec3_copy(c->p[i], p[i]);
    for (int i = 0; i + 1 < n; i++) dir_or(p[i], p[i + 1], (vec3){1, 0, 0}, fb[i]);
    glm_vec3_copy(c->p[0], root);
    if (n > 2) {
        vec3 d;
        float dt = glm_vec3_distance(root, (float *)job->target);
        dir_or(root, p[n - 1], fb[0], d);
        bend_if_straight(c, job, p, root, d, dt);
    }
    /* backward: from the target to the root */
    glm_vec3_copy((float *)job->target, p[n - 1]);
    for (int i = n - 2; i >= 0; i--) {
        vec3 d, back;
        glm_vec3_negate_to(fb[i], back);
        dir_or(p[i + 1], p[i], back, d);
        for (int k = 0; k < 3; k++) p[i][k] = p[i + 1][k] + c->len[i] * d[k];
    }
    /* forward: from the root to the tip */
    glm_vec3_copy(root, p[0]);
    for (int i = 0; i + 1 < n; i++) {
        vec3 d;
        dir_or(p[i], p[i + 1], fb[i], d);
        for (int k = 0; k < 3; k++) p[i + 1][k] = p[i][k] + c->len[i] * d[k];
    }
    if (job->has_pole)
        for (int i = 1; i + 1 < n; i++) face_pole(p[i - 1], p[i + 1], job->pole, p[i]);
    /* positions to rotations, root first; limits kept at every joint */
    for (int i = 0; i + 1 < n; i++) {
        step(c, i);                           /* joint i + 1 below joint i as it is now */
        turn_toward(c, i, c->p[i + 1], p[i + 1], 0);
        step(c, i);                           /* ... and where the turn put it */
    }
}

/* ---- FABRIK on positions alone (chains without limits) --------------------- */

static int has_limits(const chain *c)
{
    if (!c->limits) return 0;
    for (int i = 0; i < c->n; i++)
        if (c->limits[i].kind != MR_IK_LIMIT_NONE) return 1;
    return 0;
}

/* One FABRIK pass on the positions p (in place): what fabrik_iteration does
 * before it turns joints, with one square root and one division per joint
 * and half-pass (the bone length over the distance scales the difference). */
static void fabrik_positions(const chain *c, const mr_ik_chain_job *job, vec3 *p)
{
    int n = c->n;
    vec3 p0[MR_IK_CHAIN_MAX_JOINTS], fb, root;   /* the pass's start: fallback directions */
    memcpy(p0, p, sizeof(vec3) * (size_t)n);
    glm_vec3_copy((float *)c->p[0], root);
    if (n > 2) {
        /* all joints and the target on one line: bend it a little first */
        vec3 d;
        float dt = glm_vec3_distance(root, (float *)job->target);
        dir_or(p0[0], p0[1], (vec3){1, 0, 0}, fb);
        dir_or(root, p[n - 1], fb, d);
        bend_if_straight(c, job, p, root, d, dt);
    }
    /* backward: from the target to the root */
    glm_vec3_copy((float *)job->target, p[n - 1]);
    for (int i = n - 2; i >= 0; i--) {
        float dx = p[i][0] - p[i + 1][0], dy = p[i][1] - p[i + 1][1], dz = p[i][2] - p[i + 1][2];
        float d2 = dx * dx + dy * dy + dz * dz;
        if (d2 > EPS * EPS) {
            float s = c->len[i] / sqrtf(d2);
            p[i][0] = p[i + 1][0] + s * dx;
            p[i][1] = p[i + 1][1] + s * dy;
            p[i][2] = p[i + 1][2] + s * dz;
        } else {                            /* coincident: the bone's old direction */
            dir_or(p0[i], p0[i + 1], (vec3){1, 0, 0}, fb);
            for (int k = 0; k < 3; k++) p[i][k] = p[i + 1][k] - c->len[i] * fb[k];
        }
    }
    /* forward: from the root to the tip */
    glm_vec3_copy(root, p[0]);
    for (int i = 0; i + 1 < n; i++) {
        float dx = p[i + 1][0] - p[i][0], dy = p[i + 1][1] - p[i][1], dz = p[i + 1][2] - p[i][2];
        float d2 = dx * dx + dy * dy + dz * dz;
        if (d2 > EPS * EPS) {
            float s = c->len[i] / sqrtf(d2);
            p[i + 1][0] = p[i][0] + s * dx;
            p[i + 1][1] = p[i][1] + s * dy;
            p[i + 1][2] = p[i][2] + s * dz;
        } else {
            dir_or(p0[i], p0[i + 1], (vec3){1, 0, 0}, fb);
            for (int k = 0; k < 3; k++) p[i + 1][k] = p[i][k] + c->len[i] * fb[k];
        }
    }
    if (job->has_pole)
        for (int i = 1; i + 1 < n; i++) face_pole(p[i - 1], p[i + 1], job->pole, p[i]);
}

/* FABRIK for a chain without limits: the passes move positions only, and
 * the best positions turn into local rotations once, root first (each
 * joint by the shortest turn from where the solve found it). Returns the
 * iterations left to the rotation passes: none unless the rotations miss
 * the tolerance that the positions met (rounding). */
static int fabrik_fast(chain *c, mr_ik_chain_job *job, float tol, int iters, float *err_best, versor *best)
{
    int n = c->n;
    vec3 p[MR_IK_CHAIN_MAX_JOINTS], pbest[MR_IK_CHAIN_MAX_JOINTS];
    memcpy(p, c->p, sizeof(vec3) * (size_t)n);
    float eb = tip_error(c, job->target), eprev = eb;
    int it = 0, found = 0;
    /* a margin under the tolerance for the rounding of the turns */
    float ptol = 0.5f * tol;
    /* Near full reach FABRIK crawls: each pass takes the same share r of
     * the error off. After two plain passes in a row the positions jump
     * toward the limit of that crawl (Aitken: x + (x - x_prev) r / (1 - r));
     * the next pass puts every bone back to its length, and only passes'
     * outputs count (kept when best). */
    vec3 pprev[MR_IK_CHAIN_MAX_JOINTS];
    int plain = 0;
    while (it < iters) {
        memcpy(pprev, p, sizeof(vec3) * (size_t)n);
        fabrik_positions(c, job, p);
        it++;
        float e = glm_vec3_distance(p[n - 1], (float *)job->target);
        if (e < eb) {
            eb = e;
            memcpy(pbest, p, sizeof(vec3) * (size_t)n);
            found = 1;
        }
        if (e <= ptol) break;
        /* no gain at all from a plain pass (out of reach and straight, or
         * a fold): done */
        if (plain && !job->has_pole && !(e < eprev)) break;
        float r = e / eprev;
        eprev = e;
        if (plain >= 2 && r > 0.3f && r < 0.999f) {
            float k = fminf(r / (1.0f - r), 50.0f);
            for (int i = 1; i < n; i++)
                for (int a = 0; a < 3; a++) p[i][a] += k * (p[i][a] - pprev[i][a]);
            plain = 0;
        } else {
            plain++;
        }
    }
    job->iterations_done = it;
    if (found) {
        for (int i = 0; i + 1 < n; i++) {
            step(c, i);
            turn_toward(c, i, c->p[i + 1], pbest[i + 1], 0);
            step(c, i);
        }
    }
    float e = tip_error(c, job->target);
    if (e < *err_best) {
        *err_best = e;
        for (int i = 0; i < n; i++) glm_vec4_copy(c->pose->r[c->j[i]], best[i]);
    }
    return eb <= ptol && e > tol ? it : iters;
}

static void ccd_iteration(chain *c, const mr_ik_chain_job *job)
{
    for (int i = c->n - 2; i >= 0; i--) {
        vec3 tip;
        glm_vec3_copy(c->p[c->n - 1], tip);
        turn_toward(c, i, tip, job->target, 1);
    }
    sweep(c, 0);
}

/* CCD's pole: the whole chain turned about the line from its root to its
 * tip so that its inner joints' mean offset from that line faces the pole. */
static void ccd_pole(chain *c, const mr_ik_chain_job *job)
{
    int n = c->n;
    if (n < 3) return;
    vec3 a, b, u, mean = {0, 0, 0}, pp;
    glm_vec3_copy(c->p[0], a);
    glm_vec3_copy(c->p[n - 1], b);
    glm_vec3_sub(b, a, u);
    float nu = glm_vec3_norm(u);
    if (nu < 1e-6f * (c->total + EPS)) return;
    glm_vec3_scale(u, 1.0f / nu, u);
    for (int i = 1; i + 1 < n; i++) {
        vec3 r;
        glm_vec3_sub(c->p[i], a, r);
        glm_vec3_muladds(u, -glm_vec3_dot(r, u), r);
        glm_vec3_add(mean, r, mean);
    }
    glm_vec3_sub((float *)job->pole, a, pp);
    glm_vec3_muladds(u, -glm_vec3_dot(pp, u), pp);
    float nm = glm_vec3_norm(mean), np = glm_vec3_norm(pp);
    if (nm < 1e-6f * c->total || np < 1e-6f * c->total) return;
    versor q;
    from_to(mean, pp, q);       /* both perpendicular to u: a turn about u */
    turn(c, 0, q, 0);                   /* about the line to the tip: the tip stays */
    sweep(c, 0);
}

mr_status mr_ik_chain_run(mr_ik_chain_job *job, mr_error *err)
{
    mr_status st = mr_ik_chain_validate(job, err);
    if (st != MR_OK) return st;
    chain c;
    chain_make(&c, job);
    job->joint_count = c.n;
    job->iterations_done = 0;
    float tol = job->tolerance > 0.0f ? job->tolerance : (c.total > 0.0f ? 1e-5f * c.total : 1e-6f);
    int iters = job->iterations ? job->iterations : MR_IK_CHAIN_ITERATIONS;
    versor before[MR_IK_CHAIN_MAX_JOINTS], best[MR_IK_CHAIN_MAX_JOINTS];
    for (int i = 0; i < c.n; i++) glm_vec4_copy(job->pose->r[c.j[i]], before[i]);
    /* The input's own limits first: every output keeps them. */
    if (c.limits) {
        for (int i = 0; i < c.n; i++) project_limit(&c, i);
        update_from(&c, 0);
    }
    float err_best = tip_error(&c, job->target);
    if (job->weight > 0.0f && err_best > tol) {
        for (int i = 0; i < c.n; i++) glm_vec4_copy(job->pose->r[c.j[i]], best[i]);
        {
            /* the whole chain turned at its root to point its tip at the
             * target first: the passes then only bend it */
            vec3 tipv;
            glm_vec3_copy(c.p[c.n - 1], tipv);
            turn_toward(&c, 0, tipv, job->target, 1);
            sweep(&c, 0);
        }
        /* without limits, FABRIK moves positions and turns joints once */
        int it0 = job->solver == MR_IK_FABRIK && !has_limits(&c) ? fabrik_fast(&c, job, tol, iters, &err_best, best) : 0;
        for (int it = it0; it < iters && err_best > tol; it++) {
            float e0 = tip_error(&c, job->target);
            if (job->solver == MR_IK_FABRIK) {
                fabrik_iteration(&c, job);
                /* limits bend FABRIK's positions away from what the joints
                 * allow; a rotation pass works within them */
                if (c.limits) ccd_iteration(&c, job);
            } else {
                ccd_iteration(&c, job);
                if (job->has_pole) ccd_pole(&c, job);
                /* a stalled or crawling CCD (the tip folded onto a joint, a
                 * straight chain pointing away, a long chain near its
                 * reach) gets one reaching pass */
                if (tip_error(&c, job->target) >= e0 * 0.9f) {
                    fabrik_iteration(&c, job);
                    if (c.limits) ccd_iteration(&c, job);
                }
            }
            job->iterations_done = it + 1;
            float e = tip_error(&c, job->target);
            if (e < err_best) {
                err_best = e;
                for (int i = 0; i < c.n; i++) glm_vec4_copy(job->pose->r[c.j[i]], best[i]);
            }
            if (e <= tol) break;
        }
        for (int i = 0; i < c.n; i++) glm_vec4_copy(best[i], job->pose->r[c.j[i]]);
        if (job->weight < 1.0f)
            for (int i = 0; i < c.n; i++)
                mr_quat_nlerp(before[i], job->pose->r[c.j[i]], job->weight, job->pose->r[c.j[i]]);
        if (c.limits)
            for (int i = 0; i < c.n; i++) project_limit(&c, i);
        update_from(&c, 0);
    }
    job->error = tip_error(&c, job->target);
    job->reached = job->error <= tol;
    return MR_OK;
}
