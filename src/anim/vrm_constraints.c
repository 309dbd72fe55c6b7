/* vrm_constraints.c — VRMC_node_constraint on a pose (vrm_constraints.h). */
#include "anim/vrm_constraints.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/quat.h"

/* ---- quaternion helpers (x, y, z, w; double) ---------------------------------- */

static void qload(const versor q, double out[4])
{
    for (int k = 0; k < 4; k++) out[k] = q[k];
}

static void qinv(const double q[4], double out[4])
{
    out[0] = -q[0]; out[1] = -q[1]; out[2] = -q[2]; out[3] = q[3];
}

static void qmul3(const double a[4], const double b[4], const double c[4], double out[4])
{
    double t[4];
    mr_quat_mul_d(a, b, t);
    mr_quat_mul_d(t, c, out);
}

/* The shortest turn taking unit vector u onto unit vector v (three.js's
 * setFromUnitVectors, the same choice of axis for opposite vectors). */
static void from_to(const double u[3], const double v[3], double q[4])
{
    double r = u[0] * v[0] + u[1] * v[1] + u[2] * v[2] + 1;
    if (r < 1e-12) {
        r = 0;
        if (fabs(u[0]) > fabs(u[2])) { q[0] = -u[1]; q[1] = u[0]; q[2] = 0; }
        else { q[0] = 0; q[1] = -u[2]; q[2] = u[1]; }
    } else {
        q[0] = u[1] * v[2] - u[2] * v[1];
        q[1] = u[2] * v[0] - u[0] * v[2];
        q[2] = u[0] * v[1] - u[1] * v[0];
    }
    q[3] = r;
    mr_quat_normalize_d(q);
}

static void slerp(const double a[4], const double b0[4], double t, double out[4])
{
    double b[4] = {b0[0], b0[1], b0[2], b0[3]};
    if (t <= 0) { memcpy(out, a, sizeof b); return; }
    if (t >= 1) { memcpy(out, b, sizeof b); mr_quat_normalize_d(out); return; }
    double c = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (c < 0) { for (int k = 0; k < 4; k++) b[k] = -b[k]; c = -c; }
    double wa, wb;
    if (c > 1 - 1e-12) { wa = 1 - t; wb = t; }
    else {
        double th = acos(c > 1 ? 1 : c), s = sin(th);
        wa = sin((1 - t) * th) / s;
        wb = sin(t * th) / s;
    }
    for (int k = 0; k < 4; k++) out[k] = wa * a[k] + wb * b[k];
    mr_quat_normalize_d(out);
}

static const double axes6[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};

/* ---- model space, walking up from a joint ---------------------------------------- */

/* Model-space rotation of joint j (identity for -1): the product of the
 * local rotations from the root down. */
static void model_rotation(const mr_skeleton *sk, const mr_pose *pose, int j, double q[4])
{
    q[0] = q[1] = q[2] = 0; q[3] = 1;
    for (int guard = 0; j >= 0 && guard <= sk->joint_count; j = sk->parents[j], guard++) {
        double l[4], t[4];
        qload(pose->r[j], l);
        mr_quat_mul_d(l, q, t);
        memcpy(q, t, sizeof t);
    }
}

/* Model-space position of joint j's origin. */
static void model_position(const mr_skeleton *sk, const mr_pose *pose, int j, double p[3])
{
    p[0] = p[1] = p[2] = 0;
    for (int guard = 0; j >= 0 && guard <= sk->joint_count; j = sk->parents[j], guard++) {
        double q[4], s[3] = {p[0] * pose->s[j][0], p[1] * pose->s[j][1], p[2] * pose->s[j][2]}, r[3];
        qload(pose->r[j], q);
        mr_quat_rotate_d(q, s, r);
        for (int k = 0; k < 3; k++) p[k] = r[k] + pose->t[j][k];
    }
}

static void target_d(const mr_skeleton *sk, const mr_vrm_constraint *c, const mr_pose *pose, double out[4])
{
    double dst_rest[4], src_rest[4], src[4], inv_src_rest[4], inv_dst_rest[4];
    qload(sk->rest_r[c->joint], dst_rest);
    qload(sk->rest_r[c->source], src_rest);
    qload(pose->r[c->source], src);
    qinv(src_rest, inv_src_rest);
    qinv(dst_rest, inv_dst_rest);
    if (c->type == MR_VRM_CONSTRAINT_ROTATION) {
        qmul3(dst_rest, inv_src_rest, src, out);
    } else if (c->type == MR_VRM_CONSTRAINT_ROLL) {
        double d[4], t[4], n1[3], f[4];
        qmul3(inv_dst_rest, src, inv_src_rest, t);
        mr_quat_mul_d(t, dst_rest, d);
        mr_quat_normalize_d(d);
        const double *axis = axes6[2 * (c->axis < 0 || c->axis > 2 ? 0 : c->axis)];
        mr_quat_rotate_d(d, axis, n1);
        double len = sqrt(n1[0] * n1[0] + n1[1] * n1[1] + n1[2] * n1[2]);
        for (int k = 0; k < 3; k++) n1[k] /= len > 0 ? len : 1;
        from_to(n1, axis, f);
        qmul3(dst_rest, f, d, out);
    } else {
        double p[4], pinv[4], a0[3], a1[3], ps[3], pd[3], t[4], f[4];
        int parent = sk->parents[c->joint];
        model_rotation(sk, pose, parent, p);
        qinv(p, pinv);
        mr_quat_mul_d(p, dst_rest, t);
        mr_quat_rotate_d(t, axes6[c->axis < 0 || c->axis > 5 ? 0 : c->axis], a0);
        model_position(sk, pose, c->source, ps);
        model_position(sk, pose, c->joint, pd);
        for (int k = 0; k < 3; k++) a1[k] = ps[k] - pd[k];
        double len = sqrt(a1[0] * a1[0] + a1[1] * a1[1] + a1[2] * a1[2]);
        if (!(len > 1e-7)) { memcpy(out, dst_rest, sizeof dst_rest); return; }   /* coincident: no direction */
        for (int k = 0; k < 3; k++) a1[k] /= len;
        from_to(a0, a1, f);
        qmul3(pinv, f, p, t);
        mr_quat_mul_d(t, dst_rest, out);
    }
    mr_quat_normalize_d(out);
}

void mr_vrm_constraint_target(const mr_skeleton *sk, const mr_vrm_constraint *c, const mr_pose *pose, versor out)
{
    double q[4];
    target_d(sk, c, pose, q);
    for (int k = 0; k < 4; k++) out[k] = (float)q[k];
}

mr_status mr_vrm_constraints_apply(const mr_skeleton *sk, const mr_vrm *v, mr_pose *pose)
{
    if (!sk || !pose || pose->joint_count != sk->joint_count) return MR_ERR_INVALID_ARGUMENT;
    if (!v || !v->constraint_count) return MR_OK;
    if (!v->constraint_order || !v->constraints) return MR_ERR_INVALID_ARGUMENT;
    for (int k = 0; k < v->constraint_count; k++) {
        const mr_vrm_constraint *c = &v->constraints[v->constraint_order[k]];
        if (c->joint < 0 || c->joint >= sk->joint_count || c->source < 0 || c->source >= sk->joint_count) continue;
        double target[4], rest[4], q[4];
        target_d(sk, c, pose, target);
        qload(sk->rest_r[c->joint], rest);
        slerp(rest, target, c->weight, q);
        if (!(isfinite(q[0]) && isfinite(q[1]) && isfinite(q[2]) && isfinite(q[3]))) memcpy(q, rest, sizeof q);
        for (int i = 0; i < 4; i++) pose->r[c->joint][i] = (float)q[i];
    }
    return MR_OK;
}

/* ---- dependency order --------------------------------------------------------------- */

static const char *type_name(int t)
{
    return t == MR_VRM_CONSTRAINT_ROLL ? "roll" : t == MR_VRM_CONSTRAINT_AIM ? "aim" : "rotation";
}

/* The message of a cycle: the stack from `from` to the top, then from again. */
static void cycle_message(const mr_skeleton *sk, const mr_vrm_constraint *c, const int *stack, int from, int top,
                          mr_error *err)
{
    char buf[900];
    size_t n = 0;
    n += (size_t)snprintf(buf + n, sizeof buf - n, "circular dependency between constraints: ");
    for (int i = from; i <= top + 1 && n < sizeof buf - 1; i++) {
        int k = stack[i <= top ? i : from];
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s '%s'", i > from ? " -> " : "", type_name(c[k].type),
                              sk->names[c[k].joint]);
    }
    mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "%s (a constraint waits for those on its source and the source's ancestors; an aim also for those on its parent and above)", buf);
}

mr_status mr_vrm_constraints_order(const mr_skeleton *sk, const mr_vrm_constraint *c, int n, int *order, int *bad,
                                   mr_error *err)
{
    if (bad) *bad = -1;
    if (n < 0 || n > MR_VRM_MAX_CONSTRAINTS) {
        mr_error_set(err, MR_ERR_LIMIT, "constraints: %d constraints (at most %d)", n, MR_VRM_MAX_CONSTRAINTS);
        return MR_ERR_LIMIT;
    }
    if (n == 0) return MR_OK;
    int J = sk->joint_count;
    int *on = malloc(sizeof(int) * (size_t)J);
    int *state = calloc((size_t)n, sizeof(int));           /* 0 new, 1 pending, 2 done */
    int *stack = malloc(sizeof(int) * (size_t)(n + 1));
    int *phase = malloc(sizeof(int) * (size_t)(n + 1));    /* 0: walking up from the source, 1: from the parent */
    int *at = malloc(sizeof(int) * (size_t)(n + 1));       /* the joint the walk is at */
    mr_status st = MR_OK;
    if (!on || !state || !stack || !phase || !at) { st = MR_ERR_NO_MEMORY; mr_error_set(err, MR_ERR_NO_MEMORY, "out of memory"); goto done; }
    for (int j = 0; j < J; j++) on[j] = -1;
    for (int i = 0; i < n; i++) {
        const mr_vrm_constraint *k = &c[i];
        const char *what = NULL;
        if (k->joint < 0 || k->joint >= J) what = "its joint is not in the skeleton";
        else if (k->source < 0 || k->source >= J) what = "its source is not in the skeleton";
        else if (k->source == k->joint) what = "the source is the constrained joint itself";
        else if (k->type < MR_VRM_CONSTRAINT_ROLL || k->type > MR_VRM_CONSTRAINT_ROTATION) what = "unknown type";
        else if (k->type == MR_VRM_CONSTRAINT_ROLL && (k->axis < 0 || k->axis > 2)) what = "roll axis must be X, Y or Z";
        else if (k->type == MR_VRM_CONSTRAINT_AIM && (k->axis < 0 || k->axis > 5)) what = "unknown aim axis";
        else if (!(k->weight >= 0 && k->weight <= 1)) what = "weight must be a number in 0..1";
        else if (on[k->joint] >= 0) what = "the joint already has a constraint";
        if (what) {
            if (bad) *bad = i;
            mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "constraint %d%s%s%s: %s", i, k->joint >= 0 && k->joint < J ? " on '" : "",
                         k->joint >= 0 && k->joint < J ? sk->names[k->joint] : "", k->joint >= 0 && k->joint < J ? "'" : "",
                         what);
            st = MR_ERR_INVALID_ARGUMENT;
            goto done;
        }
        on[k->joint] = i;
    }
    int out = 0;
    for (int i = 0; i < n; i++) {
        if (state[i]) continue;
        int top = 0;
        stack[0] = i; phase[0] = 0; at[0] = c[i].source; state[i] = 1;
        while (top >= 0) {
            int k = stack[top];
            int j = at[top];
            if (j < 0) {
                if (phase[top] == 0 && c[k].type == MR_VRM_CONSTRAINT_AIM) {
                    phase[top] = 1;
                    at[top] = sk->parents[c[k].joint];
                    continue;
                }
                state[k] = 2;               /* every dependency done */
                order[out++] = k;
                top--;
                continue;
            }
            at[top] = sk->parents[j];
            int d = on[j];
            if (d < 0 || state[d] == 2) continue;
            if (state[d] == 1) {
                int from = top;
                while (from > 0 && stack[from] != d) from--;
                if (bad) *bad = d;
                cycle_message(sk, c, stack, from, top, err);
                st = MR_ERR_INVALID_ARGUMENT;
                goto done;
            }
            state[d] = 1;
            top++;
            stack[top] = d; phase[top] = 0; at[top] = c[d].source;
        }
    }
done:
    free(on); free(state); free(stack); free(phase); free(at);
    return st;
}
