/* springs.c — spring chains over a local pose (see springs.h for the model).
 *
 * The simulation runs in double precision on affine 3x4 matrices of its own
 * (rotation-scale rows and a translation): VRM's reference (three-vrm) runs
 * in JavaScript doubles, and the frame mode is compared with it at 0.1 mm
 * over thousands of steps (all in float, the same rig drifts to 0.08 mm:
 * docs/PERFORMANCE.md). World matrices are computed lazily, only for the
 * joints the springs read (the spring joints, their ancestors, the collider
 * joints and centres), and marked stale below a spring joint when it turns.
 * Each one made gets a stamp; a collider's world points and a centre's
 * inverse are made again only when their joint's stamp has changed. Inputs
 * are held as the pose's floats with the older frames' rotations already on
 * this frame's side of the sphere (a spring joint's rotation is the
 * springs', never read); set_input blends every needed joint's once a step
 * (three multiply-adds a value). A step is pass: the free chains side by
 * side in vector lanes, wrapped around four lanes (pass_lanes, "chains side
 * by side" below), then the others one joint at a time (step_one), parents
 * first. The lanes keep their chains' tips and rotations in rows of their
 * own (lane_state); the springs' cur and prev arrays hold them only at a
 * reset (lanes_pull, lanes_push).
 */
#include "anim/springs.h"

#include "core/cpu.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct { double r[9], t[3]; } xform;   /* x' = R x + t, R row-major */

#define LANE_MAX_COLLIDERS 16   /* a chain with more collides in scalar code */
/* per row, each lane's spring constants (lane_static): rest direction under the parent, rest
 * direction, gravity direction, rest rotation, rest matrix's inverse and translation and determinant,
 * stiffness, gravity power, 1 - drag, hit radius, q_from_unit_to's turn for opposite vectors, rest
 * direction usable (1 or 0) */
/* per row, each lane's state (lane_state): its tip now and a step ago (centre space), its
 * rotation; an empty slot carries values nothing keeps */
enum { D_CUR = 0, D_PREV = 3, D_ROT = 6, D_COUNT = 10 };
/* per row: each lane's spring, its joint, its tip joint (-1: none), whether the lane steps a spring in
 * that row (an empty slot repeats lane 0's spring: computed, never kept), its chain, and how the row
 * joins the rows around it (plan_groups) */
typedef struct {
    int idx[4], jnt[4], tail[4], act[4], chain[4];   /* chain: -1 for an empty slot */
    unsigned char fresh[4];      /* the slot's parent world comes from memory, not from the lane's last row */
    unsigned char handoff[4];    /* the slot's world is stored: a later row of another lane reads it */
    unsigned char end[4];        /* the slot holds its chain's last joint */
    unsigned char any_fresh, any_handoff;
} lane_row;

enum { S_AXP = 0, S_AX = 3, S_GD = 6, S_RQ = 9, S_RINV = 13, S_RT = 22, S_RDET = 25, S_ST = 26, S_GP = 27, S_KD = 28,
       S_RAD = 29, S_ALT = 30, S_AXOK = 33, S_COUNT = 34 };

struct mr_springs {
    int skel_joints;
    int mode;
    double h;                        /* fixed step, seconds */
    double teleport;                 /* model units; scaled by the placement's scale */
    mr_spring_joint *joints; int joint_count;
    mr_spring_chain *chains; int chain_count;
    mr_spring_collider *colliders; int collider_count;
    int *chain_colliders; int chain_collider_count;
    int *order;                      /* spring indices in skeleton order */
    int *scalar_order; int scalar_count;   /* those of order that pass's scalar loop steps (not in the lanes) */
    int *chain_of;                   /* spring -> chain */
    double (*cur)[3], (*prev)[3];    /* tips, centre space */
    double (*rot)[4];                /* last local rotation of each spring joint */
    double (*axis)[3];               /* rest tip direction, joint-local, unit (zero: degenerate) */
    double (*axis_parent)[3];        /* the same turned by the joint's rest local matrix, unit */
    double (*rest_child)[3];         /* tip offset for tail -1 */
    double (*gdir)[3];               /* gravity direction as given */
    double (*tip_last)[3];           /* frame mode: the tip's world position after the last update */
    xform *rest_local;               /* per spring: the joint's rest local matrix */
    double (*rest_inv)[9];           /* per spring: the inverse of its rotation-scale part */
    double *rest_det;                /* per spring: the determinant of that part */
    double (*rest_q)[4];             /* per spring: the joint's rest rotation, normalised */
    int *spring_of;                  /* skeleton joint -> spring, -1 */
    int *subtree_end;                /* last descendant of each joint */
    int *needed; int needed_count;   /* joints whose world matrices the springs read, ascending */
    int *needed_pos;                 /* per joint: its place in needed, -1 */
    unsigned char *valid;
    xform *world;
    unsigned long long *stamp;       /* per joint: when its world matrix was last made (s->clock) */
    unsigned long long clock;
    unsigned long long *center_stamp;          /* per chain: the centre's stamp its cached inverse was made from */
    xform *center_inv;
    unsigned long long *coll_stamp;            /* per collider: the joint's stamp its world points were made from */
    double (*coll_a)[3], (*coll_b)[3], (*coll_n)[3];  /* collider centre (first end, plane point), second end, plane normal */
    double (*in_now)[10];            /* the needed joints' t r s at the current input time (set_input) */
    float (*in_prev2)[10], (*in_prev)[10], (*in_cur)[10];    /* local t r s of the needed joints (the pose's floats): */
                                     /* two frames ago, last frame, this frame (the older */
                                     /* rotations turned to this frame's side of the sphere; a spring */
                                     /* joint's rotation is unread: the identity) */
    double xf_prev2[10], xf_prev[10], xf_cur[10];          /* the placement, t q s */
    double span_prev, span_cur;      /* seconds from two frames ago to the last, and to this one */
    int history;                     /* frames of input held since the reset (1..3) */
    double w[3];                     /* input weights of prev2, prev, cur at the current input time */
    xform xf;                        /* the placement at the current input time */
    double ws;                       /* its uniform scale */
    double u;                        /* input time within the frame, 0..1 */
    double time; long long steps;
    int initialized;
    int lane_chain_n;                /* free chains stepped side by side in four lanes (see pass_lanes) */
    int lane_max_cc;                 /* the most colliders of a chain in the lanes (LANE_MAX_COLLIDERS at most) */
    unsigned lane_capsule;           /* bit m: collider slot m holds a capsule in some lane's chain */
    unsigned char *grouped;          /* per spring: it steps in the lanes */
    unsigned char *lane_scalar;      /* per chain: a plane or inside collider (its lane collides in scalar code) */
    unsigned char *chain_free;       /* per chain: free (see pass_lanes), in the lanes or not */
    double (*lane_static)[S_COUNT][4]; int lane_rows;   /* per row: S_* constants of each lane; */
                                     /* read only after create, held in a lane_block shared by every */
                                     /* springs with the same constants (lane_share) */
    struct lane_block *lane_block;   /* the block lane_static lies in; NULL: lane_static is s's own */
    lane_row *lane_plan;             /* per row: each lane's spring, joint, tip joint */
    double (*lane_state)[D_COUNT][4];   /* per row: each lane's tips and rotation (D_*), the */
                                     /* lanes' own copy: cur and prev of a grouped spring live here */
};


/* ---- small double math ---------------------------------------------------- */

static inline void v_sub(const double a[3], const double b[3], double o[3]) { o[0] = a[0] - b[0]; o[1] = a[1] - b[1]; o[2] = a[2] - b[2]; }
static inline double v_dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline double v_len(const double a[3]) { return sqrt(v_dot(a, a)); }
/* three.js's normalize: a zero vector stays zero. */
static inline void v_norm(double a[3])
{
    double l = v_len(a);
    if (l > 0) {       /* times the reciprocal, as three.js's divideScalar does */
        double r = 1 / l;
        a[0] *= r; a[1] *= r; a[2] *= r;
    }
}

/* The helpers of the step are written out (no loops, locals before the
 * stores): the pass calls them about thirty times a joint, and the loops
 * and reloads through pointers cost more than their arithmetic. */
#define HOT static inline __attribute__((always_inline))

HOT void x_point(const xform *restrict m, const double p[3], double o[3])
{
    const double *r = m->r, x = p[0], y = p[1], z = p[2];
    double o0 = r[0] * x + r[1] * y + r[2] * z + m->t[0];
    double o1 = r[3] * x + r[4] * y + r[5] * z + m->t[1];
    double o2 = r[6] * x + r[7] * y + r[8] * z + m->t[2];
    o[0] = o0; o[1] = o1; o[2] = o2;
}

HOT void x_dir(const xform *restrict m, const double p[3], double o[3])
{
    const double *r = m->r, x = p[0], y = p[1], z = p[2];
    double o0 = r[0] * x + r[1] * y + r[2] * z;
    double o1 = r[3] * x + r[4] * y + r[5] * z;
    double o2 = r[6] * x + r[7] * y + r[8] * z;
    o[0] = o0; o[1] = o1; o[2] = o2;
}

/* o = a b's rotation-scale part (o may not be a or b). */
HOT void x_mul_r(const double *restrict a, const double *restrict b, double *restrict o)
{
    double b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3], b4 = b[4], b5 = b[5], b6 = b[6], b7 = b[7], b8 = b[8];
    for (int i = 0; i < 3; i++) {
        double a0 = a[3 * i], a1 = a[3 * i + 1], a2 = a[3 * i + 2];
        o[3 * i] = a0 * b0 + a1 * b3 + a2 * b6;
        o[3 * i + 1] = a0 * b1 + a1 * b4 + a2 * b7;
        o[3 * i + 2] = a0 * b2 + a1 * b5 + a2 * b8;
    }
}

HOT void x_mul(const xform *a, const xform *b, xform *o)
{
    xform r;
    x_mul_r(a->r, b->r, r.r);
    x_point(a, b->t, r.t);
    *o = r;
}

static void x_identity(xform *m)
{
    memset(m, 0, sizeof *m);
    m->r[0] = m->r[4] = m->r[8] = 1;
}

HOT double x_det(const xform *m)
{
    const double *r = m->r;
    return r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6]) + r[2] * (r[3] * r[7] - r[4] * r[6]);
}

static void x_inverse(const xform *m, xform *o)
{
    const double *r = m->r;
    double d = x_det(m);
    if (fabs(d) < 1e-300) { x_identity(o); return; }
    double id = 1.0 / d;
    xform v;
    v.r[0] = (r[4] * r[8] - r[5] * r[7]) * id;
    v.r[1] = (r[2] * r[7] - r[1] * r[8]) * id;
    v.r[2] = (r[1] * r[5] - r[2] * r[4]) * id;
    v.r[3] = (r[5] * r[6] - r[3] * r[8]) * id;
    v.r[4] = (r[0] * r[8] - r[2] * r[6]) * id;
    v.r[5] = (r[2] * r[3] - r[0] * r[5]) * id;
    v.r[6] = (r[3] * r[7] - r[4] * r[6]) * id;
    v.r[7] = (r[1] * r[6] - r[0] * r[7]) * id;
    v.r[8] = (r[0] * r[4] - r[1] * r[3]) * id;
    double t[3] = {-m->t[0], -m->t[1], -m->t[2]};
    x_dir(&v, t, v.t);
    *o = v;
}

/* R(q) S, row-major; q = x, y, z, w. */
HOT void x_rs(const double q[4], const double s[3], double *restrict m)
{
    double x = q[0], y = q[1], z = q[2], w = q[3], s0 = s[0], s1 = s[1], s2 = s[2];
    double xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z;
    m[0] = (1 - 2 * (yy + zz)) * s0; m[1] = 2 * (xy - wz) * s1; m[2] = 2 * (xz + wy) * s2;
    m[3] = 2 * (xy + wz) * s0; m[4] = (1 - 2 * (xx + zz)) * s1; m[5] = 2 * (yz - wx) * s2;
    m[6] = 2 * (xz - wy) * s0; m[7] = 2 * (yz + wx) * s1; m[8] = (1 - 2 * (xx + yy)) * s2;
}

/* T * R(q) * S. */
HOT void x_trs(const double t[3], const double q[4], const double s[3], xform *m)
{
    x_rs(q, s, m->r);
    m->t[0] = t[0]; m->t[1] = t[1]; m->t[2] = t[2];
}

HOT void q_mul(const double a[4], const double b[4], double o[4])
{
    const double a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3];
    double x = a3 * b0 + a0 * b3 + a1 * b2 - a2 * b1;
    double y = a3 * b1 - a0 * b2 + a1 * b3 + a2 * b0;
    double z = a3 * b2 + a0 * b1 - a1 * b0 + a2 * b3;
    double w = a3 * b3 - a0 * b0 - a1 * b1 - a2 * b2;
    o[0] = x; o[1] = y; o[2] = z; o[3] = w;
}

/* v turned by unit quaternion q (x, y, z, w). */
HOT void q_rotate(const double q[4], const double v[3], double o[3])
{
    const double q0 = q[0], q1 = q[1], q2 = q[2], q3 = q[3], v0 = v[0], v1 = v[1], v2 = v[2];
    double t0 = 2 * (q1 * v2 - q2 * v1), t1 = 2 * (q2 * v0 - q0 * v2), t2 = 2 * (q0 * v1 - q1 * v0);
    double x = v0 + q3 * t0 + q1 * t2 - q2 * t1;
    double y = v1 + q3 * t1 + q2 * t0 - q0 * t2;
    double z = v2 + q3 * t2 + q0 * t1 - q1 * t0;
    o[0] = x; o[1] = y; o[2] = z;
}

HOT void q_norm(double q[4])
{
    double l = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (l > 0) {       /* times the reciprocal, as three.js's normalize does */
        double r = 1 / l;
        for (int i = 0; i < 4; i++) q[i] *= r;
    }
    else { q[0] = q[1] = q[2] = 0; q[3] = 1; }
}

/* The shortest rotation taking unit vector a onto vector b of length lb >
 * 0 (as three.js's Quaternion.setFromUnitVectors computes it for b / lb),
 * times a positive factor: the caller normalises it (after a product). */
HOT void q_from_unit_to(const double a[3], const double b[3], double lb, double q[4])
{
    double r = v_dot(a, b) + lb;
    if (r < 2.220446049250313e-16 * lb) {
        r = 0;
        if (fabs(a[0]) > fabs(a[2])) { q[0] = -a[1]; q[1] = a[0]; q[2] = 0; }
        else { q[0] = 0; q[1] = -a[2]; q[2] = a[1]; }
    } else {
        q[0] = a[1] * b[2] - a[2] * b[1];
        q[1] = a[2] * b[0] - a[0] * b[2];
        q[2] = a[0] * b[1] - a[1] * b[0];
    }
    q[3] = r;
}

/* ---- description ------------------------------------------------------------ */

static int finite3(const float v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

mr_status mr_springs_validate(const mr_skeleton *sk, const mr_springs_desc *d, mr_error *err)
{
    if (!sk || !d) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: no skeleton or description");
    int n = sk->joint_count;
    if (d->joint_count < 0 || d->joint_count > MR_SPRINGS_MAX_JOINTS || (d->joint_count && !d->joints))
        return mr_error_set(err, MR_ERR_LIMIT, "springs: %d spring joints (at most %d)", d->joint_count, MR_SPRINGS_MAX_JOINTS);
    if (d->collider_count < 0 || d->collider_count > MR_SPRINGS_MAX_COLLIDERS || (d->collider_count && !d->colliders))
        return mr_error_set(err, MR_ERR_LIMIT, "springs: %d colliders (at most %d)", d->collider_count, MR_SPRINGS_MAX_COLLIDERS);
    if (d->chain_count < 0 || d->chain_count > d->joint_count || (d->chain_count && !d->chains))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: %d chains for %d joints", d->chain_count, d->joint_count);
    if (d->chain_collider_count < 0 || (d->chain_collider_count && !d->chain_colliders))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: bad collider list");
    if (d->step != MR_SPRINGS_FIXED && d->step != MR_SPRINGS_FRAME)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: step must be fixed or frame");
    if (!(d->rate == 0 || (d->rate >= 10 && d->rate <= 2000)))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: rate must be in 10..2000 steps a second, got %g", d->rate);
    if (!(d->teleport >= 0) || !isfinite(d->teleport))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: teleport must be a distance >= 0");
    for (int c = 0; c < d->collider_count; c++) {
        const mr_spring_collider *k = &d->colliders[c];
        if (k->joint < 0 || k->joint >= n)
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: collider %d: joint %d out of range (%d joints)", c + 1, k->joint, n);
        if (k->shape < MR_COLLIDER_SPHERE || k->shape > MR_COLLIDER_PLANE)
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: collider %d: unknown shape %d", c + 1, k->shape);
        if (!(k->radius >= 0) || !isfinite(k->radius))
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: collider %d: radius must be >= 0, got %g", c + 1, k->radius);
        if (!finite3(k->offset) || !finite3(k->tail) || !finite3(k->normal))
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: collider %d: offset, tail and normal must be finite", c + 1);
        if (k->shape == MR_COLLIDER_PLANE && k->normal[0] == 0 && k->normal[1] == 0 && k->normal[2] == 0)
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: collider %d: a plane needs a non-zero normal", c + 1);
    }
    for (int i = 0; i < d->chain_collider_count; i++)
        if (d->chain_colliders[i] < 0 || d->chain_colliders[i] >= d->collider_count)
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: collider index %d out of range (%d colliders)", d->chain_colliders[i] + 1, d->collider_count);
    int next = 0;
    for (int c = 0; c < d->chain_count; c++) {
        const mr_spring_chain *ch = &d->chains[c];
        if (ch->first != next || ch->count < 1 || ch->count > d->joint_count - ch->first)
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: chain %d: joints %d..%d do not follow the previous chain", c + 1, ch->first, ch->first + ch->count - 1);
        next = ch->first + ch->count;
        if (ch->center < -1 || ch->center >= n)
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: chain %d: center joint %d out of range", c + 1, ch->center);
        if (ch->collider_first < 0 || ch->collider_count < 0 || ch->collider_count > d->chain_collider_count - ch->collider_first)
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: chain %d: collider list out of range", c + 1);
        for (int i = ch->first; i < next; i++) {
            const mr_spring_joint *j = &d->joints[i];
            int k = i - ch->first + 1;
            if (j->joint < 0 || j->joint >= n)
                return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: chain %d joint %d: joint %d out of range (%d joints)", c + 1, k, j->joint, n);
            if (j->tail != -1 && (j->tail < 0 || j->tail >= n || sk->parents[j->tail] != j->joint))
                return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: chain %d joint %d: the tip '%s' is not a child of '%s'", c + 1, k,
                                    j->tail >= 0 && j->tail < n && sk->names && sk->names[j->tail] ? sk->names[j->tail] : "?",
                                    sk->names && sk->names[j->joint] ? sk->names[j->joint] : "?");
            if (!(j->stiffness >= 0) || !isfinite(j->stiffness))
                return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: chain %d joint %d: stiffness must be >= 0, got %g", c + 1, k, j->stiffness);
            if (!(j->drag >= 0 && j->drag <= 1))
                return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: chain %d joint %d: drag must be in 0..1, got %g", c + 1, k, j->drag);
            if (!(j->gravity_power >= 0) || !isfinite(j->gravity_power))
                return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: chain %d joint %d: gravity power must be >= 0, got %g", c + 1, k, j->gravity_power);
            if (!finite3(j->gravity_dir))
                return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: chain %d joint %d: gravity direction must be finite", c + 1, k);
            if (!(j->radius >= 0) || !isfinite(j->radius))
                return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: chain %d joint %d: radius must be >= 0, got %g", c + 1, k, j->radius);
            for (int o = 0; o < i; o++)
                if (d->joints[o].joint == j->joint)
                    return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: chain %d joint %d: '%s' is already in a spring", c + 1, k,
                                        sk->names && sk->names[j->joint] ? sk->names[j->joint] : "?");
        }
    }
    if (next != d->joint_count)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: %d spring joints belong to no chain", d->joint_count - next);
    return MR_OK;
}

static void *dup(const void *p, size_t size, int *fail)
{
    if (!size) return NULL;
    void *q = malloc(size);
    if (!q) { *fail = 1; return NULL; }
    if (p) memcpy(q, p, size); else memset(q, 0, size);
    return q;
}

/* ---- lane constants shared between springs ---------------------------------
 *
 * A character's lane constants (lane_static: 8.7 KB for four chains of 8
 * joints) depend only on its rig and spring settings, so the characters of
 * one rig hold the same bytes. Each set lives once, in a lane_block counted
 * by its users: at 100 characters the step reads one set from cache instead
 * of a hundred from memory. The blocks of the whole process sit on one list
 * (springs made on any thread), guarded by a mutex; a block is found by
 * comparing the bytes, so sharing changes no value.
 */
struct lane_block {
    struct lane_block *next;
    long refs;
    int rows;
    double (*st)[S_COUNT][4];
};

static pthread_mutex_t lane_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lane_block *lane_blocks;

/* s's own lane_static (made by plan_groups) swapped for the block holding the same bytes, made if none
 * does (out of memory for the block: s keeps its own) */
static void lane_share(mr_springs *s)
{
    size_t size = sizeof *s->lane_static * (size_t)s->lane_rows;
    pthread_mutex_lock(&lane_lock);
    struct lane_block *b = lane_blocks;
    while (b && (b->rows != s->lane_rows || memcmp(b->st, s->lane_static, size))) b = b->next;
    if (b) {
        b->refs++;
        free(s->lane_static);
    } else if ((b = malloc(sizeof *b))) {
        b->rows = s->lane_rows;
        b->refs = 1;
        b->st = s->lane_static;
        b->next = lane_blocks;
        lane_blocks = b;
    }
    pthread_mutex_unlock(&lane_lock);
    if (!b) return;
    s->lane_static = b->st;
    s->lane_block = b;
}

/* a clone takes a reference to src's block (or a copy of its own constants) */
static int lane_retain(mr_springs *s, const mr_springs *src)
{
    s->lane_block = src->lane_block;
    if (src->lane_block) {
        pthread_mutex_lock(&lane_lock);
        src->lane_block->refs++;
        pthread_mutex_unlock(&lane_lock);
        s->lane_static = src->lane_static;
        return 1;
    }
    int fail = 0;
    s->lane_static = dup(src->lane_static, sizeof *s->lane_static * (size_t)s->lane_rows, &fail);
    return !fail;
}

static void lane_release(mr_springs *s)
{
    struct lane_block *b = s->lane_block;
    if (!b) { free(s->lane_static); return; }
    pthread_mutex_lock(&lane_lock);
    int last = --b->refs == 0;
    if (last) {
        struct lane_block **p = &lane_blocks;
        while (*p != b) p = &(*p)->next;
        *p = b->next;
    }
    pthread_mutex_unlock(&lane_lock);
    if (last) { free(b->st); free(b); }
}

void mr_springs_destroy(mr_springs *s)
{
    if (!s) return;
    free(s->joints); free(s->chains); free(s->colliders); free(s->chain_colliders);
    free(s->order); free(s->scalar_order); free(s->chain_of); free(s->cur); free(s->prev); free(s->rot); free(s->axis); free(s->axis_parent);
    free(s->rest_child); free(s->gdir); free(s->tip_last); free(s->rest_local); free(s->spring_of); free(s->subtree_end); free(s->needed_pos);
    free(s->needed); free(s->valid); free(s->world); free(s->in_now); free(s->in_prev2); free(s->in_prev); free(s->in_cur);
    free(s->rest_inv); free(s->rest_det); free(s->rest_q); free(s->stamp); free(s->center_stamp); free(s->center_inv); free(s->coll_stamp);
    free(s->coll_a); free(s->coll_b); free(s->coll_n); free(s->grouped); free(s->lane_scalar); free(s->chain_free);
    lane_release(s); free(s->lane_plan); free(s->lane_state);
    free(s);
}

/* Every array of s sized from its counts (contents copied from src when given). */
static int alloc_arrays(mr_springs *s, const mr_springs *src)
{
    int fail = 0, J = s->joint_count, N = s->skel_joints;
#define DUP(field, count) s->field = dup(src ? src->field : NULL, sizeof *s->field * (size_t)(count), &fail)
    DUP(order, J); DUP(scalar_order, J); DUP(chain_of, J); DUP(cur, J); DUP(prev, J); DUP(rot, J); DUP(axis, J); DUP(axis_parent, J);
    DUP(rest_child, J); DUP(gdir, J); DUP(rest_local, J); DUP(tip_last, J);
    DUP(spring_of, N); DUP(subtree_end, N); DUP(needed, N); DUP(needed_pos, N); DUP(valid, N); DUP(world, N);
    DUP(in_now, N); DUP(in_prev2, N); DUP(in_prev, N); DUP(in_cur, N);
    DUP(rest_inv, J); DUP(rest_det, J); DUP(rest_q, J); DUP(stamp, N); DUP(center_stamp, s->chain_count); DUP(center_inv, s->chain_count);
    DUP(coll_stamp, s->collider_count); DUP(coll_a, s->collider_count); DUP(coll_b, s->collider_count);
    DUP(coll_n, s->collider_count); DUP(grouped, J); DUP(lane_scalar, s->chain_count); DUP(chain_free, s->chain_count);
    DUP(lane_plan, s->lane_rows);
    DUP(lane_state, s->lane_rows);
#undef DUP
    return !fail;
}

/* Which chains are free (see pass_lanes) and where each of their joints
 * steps in the lanes (lane_plan); a chain free alone runs in the scalar
 * loop. */
static int plan_groups(mr_springs *s, const mr_skeleton *sk)
{
    int N = s->skel_joints;
    unsigned char *under = s->valid;     /* scratch: a spring joint or below one */
    for (int j = 0; j < N; j++) under[j] = s->spring_of[j] >= 0 || (sk->parents[j] >= 0 && under[sk->parents[j]]);
    int nf = 0, *list = malloc(sizeof *list * (size_t)(s->chain_count ? s->chain_count : 1));   /* the free chains */
    if (!list) return 0;
    for (int c = 0; c < s->chain_count; c++) {
        const mr_spring_chain *ch = &s->chains[c];
        int first = s->joints[ch->first].joint, end = s->subtree_end[first], ok = 1;
        for (int k = 1; k < ch->count; k++) {
            if (sk->parents[s->joints[ch->first + k].joint] != s->joints[ch->first + k - 1].joint) ok = 0;
            int tail = s->joints[ch->first + k - 1].tail;     /* a tip that is not the next joint: scalar */
            if (tail >= 0 && tail != s->joints[ch->first + k].joint) ok = 0;
        }
        int p0 = sk->parents[first];
        if (p0 >= 0 && under[p0]) ok = 0;
        if (ch->center >= 0 && under[ch->center]) ok = 0;
        s->lane_scalar[c] = 0;
        for (int m = 0; m < ch->collider_count; m++) {
            const mr_spring_collider *k = &s->colliders[s->chain_colliders[ch->collider_first + m]];
            if (under[k->joint]) ok = 0;
            if (k->shape == MR_COLLIDER_PLANE || k->inside || ch->collider_count > LANE_MAX_COLLIDERS) s->lane_scalar[c] = 1;
        }
        /* nothing reads below it: no collider, centre or other chain */
        for (int k = 0; k < s->collider_count && ok; k++)
            if (s->colliders[k].joint >= first && s->colliders[k].joint <= end) ok = 0;
        for (int o = 0; o < s->chain_count && ok; o++) {
            const mr_spring_chain *oc = &s->chains[o];
            if (oc->center >= first && oc->center <= end) ok = 0;
            int r = sk->parents[s->joints[oc->first].joint];
            if (o != c && r >= first && r <= end) ok = 0;
        }
        s->chain_free[c] = (unsigned char)ok;
        if (ok) list[nf++] = c;
    }
    if (N) memset(under, 0, (size_t)N);
    /* One free chain alone steps in the scalar loop (the lanes would compute four for one). */
    s->lane_chain_n = nf >= 2 ? nf : 0;
    if (!s->lane_chain_n) { free(list); return 1; }
    /* longest first (insertion sort: a few chains) */
    for (int a = 1; a < nf; a++)
        for (int b = a; b > 0 && s->chains[list[b]].count > s->chains[list[b - 1]].count; b--) {
            int t = list[b]; list[b] = list[b - 1]; list[b - 1] = t;
        }
    /* The chains wrapped around four lanes of R rows, R the least that holds them (the longest chain, or a
     * quarter of all their joints): each chain fills its lane's rows from where the last one ended; one
     * that does not fit starts in the next lane's first rows and ends in this lane's last (McNaughton's
     * wrap-around rule). A chain is never longer than R, so its first part ends before its second starts.
     * Nothing in the set reads a free chain and it reads nothing another moves, so any order of their
     * joints across lanes and rows gives the same bits. */
    int total = 0, R = 0;
    for (int a = 0; a < nf; a++) {
        total += s->chains[list[a]].count;
        if (s->chains[list[a]].count > R) R = s->chains[list[a]].count;
    }
    if ((total + 3) / 4 > R) R = (total + 3) / 4;
    s->lane_rows = R;
    for (int a = 0; a < nf; a++) {      /* over every chain (a lane's capsule slot is projected in all four) */
        const mr_spring_chain *ch = &s->chains[list[a]];
        int n = ch->collider_count < LANE_MAX_COLLIDERS ? ch->collider_count : LANE_MAX_COLLIDERS;
        if (n > s->lane_max_cc) s->lane_max_cc = n;
        for (int m = 0; m < n; m++)
            if (s->colliders[s->chain_colliders[ch->collider_first + m]].shape == MR_COLLIDER_CAPSULE)
                s->lane_capsule |= 1u << m;
    }
    s->lane_static = malloc(sizeof *s->lane_static * (size_t)R);
    s->lane_plan = calloc((size_t)R, sizeof *s->lane_plan);
    s->lane_state = calloc((size_t)R, sizeof *s->lane_state);
    if (!s->lane_static || !s->lane_plan || !s->lane_state) { free(list); return 0; }
    for (int r = 0; r < R; r++)
        for (int l = 0; l < 4; l++) s->lane_plan[r].idx[l] = -1;
    int lane = 0, row = 0;
    for (int a = 0; a < nf; a++) {
        const mr_spring_chain *ch = &s->chains[list[a]];
        int split = row + ch->count > R ? ch->count - (R - row) : 0;   /* joints in the next lane's first rows */
        for (int k = 0; k < ch->count; k++) {
            int l = k < split ? lane + 1 : lane, r = k < split ? k : row + k - split;
            lane_row *lr = &s->lane_plan[r];
            lr->idx[l] = ch->first + k;
            lr->chain[l] = list[a];
            lr->fresh[l] = k == 0 || k == split;          /* its parent's world comes from memory */
            lr->handoff[l] = split && k == split - 1;      /* its world is read by a later row of another lane */
            lr->any_fresh |= lr->fresh[l];
            lr->any_handoff |= lr->handoff[l];
            s->grouped[ch->first + k] = 1;
        }
        if (split) { lane++; row = split; }
        else if ((row += ch->count) == R) { lane++; row = 0; }
    }
    free(list);
    for (int r = 0; r < R; r++) {
        double (*st)[4] = s->lane_static[r];
        lane_row *lr = &s->lane_plan[r];
        for (int l = 0; l < 4; l++) {
            lr->act[l] = lr->idx[l] >= 0;
            if (!lr->act[l]) {     /* an empty slot repeats lane 0's spring (computed, never kept) */
                lr->idx[l] = lr->idx[0];
                lr->chain[l] = -1;
                lr->fresh[l] = r == 0;     /* a lane empty from the start takes lane 0's parent */
                lr->any_fresh |= lr->fresh[l];
            }
            int i = lr->idx[l];
            const mr_spring_joint *sj = &s->joints[i];
            lr->jnt[l] = sj->joint;
            lr->tail[l] = sj->tail;
            lr->end[l] = lr->act[l] && i == s->chains[lr->chain[l]].first + s->chains[lr->chain[l]].count - 1;
            const double *ax = s->axis[i];
            for (int k = 0; k < 3; k++) {
                st[S_AXP + k][l] = s->axis_parent[i][k]; st[S_AX + k][l] = ax[k]; st[S_GD + k][l] = s->gdir[i][k];
                st[S_RT + k][l] = s->rest_local[i].t[k];
            }
            for (int k = 0; k < 4; k++) st[S_RQ + k][l] = s->rest_q[i][k];
            for (int k = 0; k < 9; k++) st[S_RINV + k][l] = s->rest_inv[i][k];
            st[S_RDET][l] = s->rest_det[i];
            st[S_ST][l] = sj->stiffness;
            st[S_GP][l] = sj->gravity_power;
            st[S_KD][l] = (1 - sj->drag);      /* a float difference, as pass takes it */
            st[S_RAD][l] = sj->radius;
            /* q_from_unit_to's turn for opposite vectors */
            if (fabs(ax[0]) > fabs(ax[2])) { st[S_ALT][l] = -ax[1]; st[S_ALT + 1][l] = ax[0]; st[S_ALT + 2][l] = 0; }
            else { st[S_ALT][l] = 0; st[S_ALT + 1][l] = -ax[2]; st[S_ALT + 2][l] = ax[1]; }
            st[S_AXOK][l] = v_dot(ax, ax) > 0.5;
        }
    }
    return 1;
}

mr_status mr_springs_create(const mr_skeleton *sk, const mr_springs_desc *d, mr_springs **out, mr_error *err)
{
    if (!out) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "springs: no output");
    *out = NULL;
    mr_status st = mr_springs_validate(sk, d, err);
    if (st != MR_OK) return st;
    mr_springs *s = calloc(1, sizeof *s);
    if (!s) return mr_error_set(err, MR_ERR_NO_MEMORY, "springs: out of memory");
    int fail = 0, N = sk->joint_count, J = d->joint_count;
    s->skel_joints = N;
    s->mode = d->step;
    s->h = 1.0 / (d->rate > 0 ? d->rate : MR_SPRINGS_DEFAULT_RATE);
    s->joint_count = J; s->chain_count = d->chain_count; s->collider_count = d->collider_count;
    s->chain_collider_count = d->chain_collider_count;
    s->joints = dup(d->joints, sizeof *d->joints * (size_t)J, &fail);
    s->chains = dup(d->chains, sizeof *d->chains * (size_t)d->chain_count, &fail);
    s->colliders = dup(d->colliders, sizeof *d->colliders * (size_t)d->collider_count, &fail);
    s->chain_colliders = dup(d->chain_colliders, sizeof *d->chain_colliders * (size_t)d->chain_collider_count, &fail);
    if (fail || !alloc_arrays(s, NULL)) {
        mr_springs_destroy(s);
        return mr_error_set(err, MR_ERR_NO_MEMORY, "springs: out of memory");
    }
    for (int j = 0; j < N; j++) s->spring_of[j] = -1;
    for (int j = N - 1; j >= 0; j--) {
        if (s->subtree_end[j] < j) s->subtree_end[j] = j;
        int p = sk->parents[j];
        if (p >= 0 && s->subtree_end[p] < s->subtree_end[j]) s->subtree_end[p] = s->subtree_end[j];
    }
    double longest = 0;
    for (int c = 0; c < s->chain_count; c++) {
        double len = 0;
        for (int i = s->chains[c].first; i < s->chains[c].first + s->chains[c].count; i++) {
            s->chain_of[i] = c;
            const mr_spring_joint *sj = &s->joints[i];
            double rc[3];
            if (sj->tail >= 0) {
                for (int k = 0; k < 3; k++) rc[k] = sk->rest_t[sj->tail][k];
            } else {
                for (int k = 0; k < 3; k++) rc[k] = sk->rest_t[sj->joint][k];
                v_norm(rc);
                for (int k = 0; k < 3; k++) rc[k] *= MR_SPRINGS_VRM0_TIP;
            }
            memcpy(s->rest_child[i], rc, sizeof rc);
            len += v_len(rc);
            memcpy(s->axis[i], rc, sizeof rc);
            v_norm(s->axis[i]);
            for (int k = 0; k < 3; k++) s->gdir[i][k] = sj->gravity_dir[k];
            double t[3], q[4], sc[3];
            for (int k = 0; k < 3; k++) { t[k] = sk->rest_t[sj->joint][k]; sc[k] = sk->rest_s[sj->joint][k]; }
            for (int k = 0; k < 4; k++) q[k] = sk->rest_r[sj->joint][k];
            q_norm(q);
            x_trs(t, q, sc, &s->rest_local[i]);
            memcpy(s->rest_q[i], q, sizeof q);
            xform ri;
            x_inverse(&s->rest_local[i], &ri);
            memcpy(s->rest_inv[i], ri.r, sizeof ri.r);
            s->rest_det[i] = x_det(&s->rest_local[i]);
            x_dir(&s->rest_local[i], s->axis[i], s->axis_parent[i]);
            v_norm(s->axis_parent[i]);
            memcpy(s->rot[i], q, sizeof q);
            s->spring_of[sj->joint] = i;
        }
        if (len > longest) longest = len;
    }
    s->teleport = d->teleport > 0 ? d->teleport : 5 * longest;
    if (s->teleport <= 0) s->teleport = 1;
    /* skeleton order, parents first: spring_of lists them so */
    int o = 0;
    for (int j = 0; j < N; j++) if (s->spring_of[j] >= 0) s->order[o++] = s->spring_of[j];
    /* the joints whose world matrices are read: the spring joints and tips,
     * the collider joints, the centres, and their ancestors */
    unsigned char *mark = s->valid;
    memset(mark, 0, (size_t)N);
    for (int i = 0; i < J; i++) {
        mark[s->joints[i].joint] = 1;
        if (s->joints[i].tail >= 0) mark[s->joints[i].tail] = 1;
    }
    for (int c = 0; c < s->collider_count; c++) mark[s->colliders[c].joint] = 1;
    for (int c = 0; c < s->chain_count; c++) if (s->chains[c].center >= 0) mark[s->chains[c].center] = 1;
    for (int j = N - 1; j >= 0; j--)
        if (mark[j] && sk->parents[j] >= 0) mark[sk->parents[j]] = 1;
    for (int j = 0; j < N; j++) {
        s->needed_pos[j] = mark[j] ? s->needed_count : -1;
        if (mark[j]) s->needed[s->needed_count++] = j;
    }
    memset(mark, 0, (size_t)N);
    if (!plan_groups(s, sk)) {
        mr_springs_destroy(s);
        return mr_error_set(err, MR_ERR_NO_MEMORY, "springs: out of memory");
    }
    for (int k = 0; k < J; k++)
        if (!s->grouped[s->order[k]]) s->scalar_order[s->scalar_count++] = s->order[k];
    if (s->lane_static) lane_share(s);
    *out = s;
    return MR_OK;
}

mr_status mr_springs_clone(const mr_springs *src, mr_springs **out)
{
    *out = NULL;
    mr_springs *s = malloc(sizeof *s);
    if (!s) return MR_ERR_NO_MEMORY;
    *s = *src;
    s->joints = NULL; s->chains = NULL; s->colliders = NULL; s->chain_colliders = NULL;
    s->lane_static = NULL; s->lane_block = NULL;
    int fail = 0;
    s->joints = dup(src->joints, sizeof *s->joints * (size_t)s->joint_count, &fail);
    s->chains = dup(src->chains, sizeof *s->chains * (size_t)s->chain_count, &fail);
    s->colliders = dup(src->colliders, sizeof *s->colliders * (size_t)s->collider_count, &fail);
    s->chain_colliders = dup(src->chain_colliders, sizeof *s->chain_colliders * (size_t)s->chain_collider_count, &fail);
    /* alloc_arrays runs even when a dup above failed: it replaces every pointer copied from src */
    if (!alloc_arrays(s, src) || fail || !lane_retain(s, src)) {
        mr_springs_destroy(s);
        return MR_ERR_NO_MEMORY;
    }
    *out = s;
    return MR_OK;
}

/* ---- inputs ------------------------------------------------------------------ */

static void decompose(const float m[16], double out[10])
{
    mat4 a;
    vec3 t, sc;
    versor q;
    if (m) memcpy(a, m, sizeof a); else glm_mat4_identity(a);
    mr_pose_trs_from_matrix(a, t, q, sc);
    for (int k = 0; k < 3; k++) { out[k] = t[k]; out[7 + k] = sc[k]; }
    for (int k = 0; k < 4; k++) out[3 + k] = q[k];
}

/* w[0] a2 + w[1] a + w[2] b: positions and scales as they are, rotations
 * on b's side of the sphere, then normalised. */
static void blend_trs(const double *a2, const double *a, const double *b, const double w[3], double t[3], double q[4],
                      double s[3])
{
    double s1 = a[3] * b[3] + a[4] * b[4] + a[5] * b[5] + a[6] * b[6] < 0 ? -1 : 1;
    double s2 = a2[3] * b[3] + a2[4] * b[4] + a2[5] * b[5] + a2[6] * b[6] < 0 ? -1 : 1;
    for (int k = 0; k < 3; k++) {
        t[k] = w[0] * a2[k] + w[1] * a[k] + w[2] * b[k];
        s[k] = w[0] * a2[7 + k] + w[1] * a[7 + k] + w[2] * b[7 + k];
    }
    for (int k = 0; k < 4; k++) q[k] = w[0] * s2 * a2[3 + k] + w[1] * s1 * a[3 + k] + w[2] * b[3 + k];
    q_norm(q);
}

/* The input of joint j at the current input time (this frame's, or what
 * set_input blended): elements k0 .. k1 - 1 of its t q s. */
HOT void input_range(const mr_springs *s, int j, int k0, int k1, double *o)
{
    if (s->u >= 1) {
        const float *v = s->in_cur[j];
        for (int k = k0; k < k1; k++) o[k] = v[k];
        return;
    }
    const double *v = s->in_now[j];
    for (int k = k0; k < k1; k++) o[k] = v[k];
}

static void input_trs(const mr_springs *s, int j, double t[3], double q[4], double sc[3])
{
    double v[10];
    input_range(s, j, 0, 10, v);
    for (int k = 0; k < 3; k++) { t[k] = v[k]; sc[k] = v[7 + k]; }
    for (int k = 0; k < 4; k++) q[k] = v[3 + k];
    if (s->u < 1) q_norm(q);
}

HOT void input_ts(const mr_springs *s, int j, double t[3], double sc[3])
{
    double v[10];
    input_range(s, j, 0, 3, v);
    input_range(s, j, 7, 10, v);
    for (int k = 0; k < 3; k++) { t[k] = v[k]; sc[k] = v[7 + k]; }
}

HOT void input_t(const mr_springs *s, int j, double t[3])
{
    input_range(s, j, 0, 3, t);
}

#if defined(__SSE2__)
/* three floats (the fourth lane 0), reading no further */
HOT __m128 load3(const float *p)
{
    __m128 xy = _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)p));
    return _mm_movelh_ps(xy, _mm_load_ss(p + 2));
}

/* two floats as two doubles */
HOT __m128d load2(const float *p)
{
    return _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)p)));
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
/* set_input's blend four values a step (values 0-3, 6-9, then 4-7: 6 and
 * 7 twice, the same products and sums, so the same bits; a spring joint's
 * 0-3 and 6-9 alone, as its rotation is not read) */
__attribute__((target("avx"))) static void blend_avx(mr_springs *s, double w0, double w1, double w2)
{
    const __m256d v0 = _mm256_set1_pd(w0), v1 = _mm256_set1_pd(w1), v2 = _mm256_set1_pd(w2);
    for (int i = 0; i < s->needed_count; i++) {
        int j = s->needed[i];
        const float *b = s->in_cur[j], *a = s->in_prev[j], *a2 = s->in_prev2[j];
        double *o = s->in_now[j];
        int n = s->spring_of[j] >= 0 ? 2 : 3;     /* a spring joint's: t and s */
        for (int k = 0; k < n; k++) {
            int at = k == 0 ? 0 : k == 1 ? 6 : 4;
            __m256d x = _mm256_mul_pd(v0, _mm256_cvtps_pd(_mm_loadu_ps(a2 + at)));
            __m256d y = _mm256_mul_pd(v1, _mm256_cvtps_pd(_mm_loadu_ps(a + at)));
            __m256d z = _mm256_mul_pd(v2, _mm256_cvtps_pd(_mm_loadu_ps(b + at)));
            _mm256_storeu_pd(o + at, _mm256_add_pd(_mm256_add_pd(x, y), z));
        }
        s->valid[j] = 0;
    }
}
#define BLEND_AVX 1
#endif

/* Sets the input time u (0: last frame, 1: this one) and marks every world
 * matrix stale. Inputs between frames follow the parabola through the last
 * three frames (Lagrange weights on their times), or the line through the
 * last two after a reset: at 30 fps a parabola follows a walk's bob ten
 * times closer than a line, which is what keeps 30, 60 and 144 fps alike. */
static void set_input(mr_springs *s, double u)
{
    double t[3], q[4], sc[3];
    s->u = u;
    if (u >= 1) {
        for (int k = 0; k < 3; k++) { t[k] = s->xf_cur[k]; sc[k] = s->xf_cur[7 + k]; }
        for (int k = 0; k < 4; k++) q[k] = s->xf_cur[3 + k];
    } else {
        double dp = s->span_prev, dc = s->span_cur;
        if (s->history >= 3 && dp > 0 && dc > 0) {
            double x = u * dc;          /* time since the last frame */
            s->w[0] = x * (x - dc) / (dp * (dp + dc));
            s->w[1] = -(x + dp) * (x - dc) / (dp * dc);
            s->w[2] = (x + dp) * x / ((dp + dc) * dc);
        } else {
            s->w[0] = 0; s->w[1] = 1 - u; s->w[2] = u;
        }
        blend_trs(s->xf_prev2, s->xf_prev, s->xf_cur, s->w, t, q, sc);
    }
    x_trs(t, q, sc, &s->xf);
    s->ws = cbrt(fabs(x_det(&s->xf)));
    /* every needed joint's input at u, once for the pass (the older rotations are already on this frame's side);
     * at u = 1 the frame's own are read as they are */
    const double w0 = s->w[0], w1 = s->w[1], w2 = s->w[2];
    if (u >= 1) {
        for (int i = 0; i < s->needed_count; i++) s->valid[s->needed[i]] = 0;
        return;
    }
#if defined(BLEND_AVX)
    if (mr_simd() >= MR_SIMD_AVX) { blend_avx(s, w0, w1, w2); return; }
#endif
    for (int i = 0; i < s->needed_count; i++) {
        int j = s->needed[i];
        const float *b = s->in_cur[j], *a = s->in_prev[j], *a2 = s->in_prev2[j];
        double *o = s->in_now[j];
#if defined(__SSE2__)
        /* two values a step: the same products and sums, lane by lane */
        __m128d v0 = _mm_set1_pd(w0), v1 = _mm_set1_pd(w1), v2 = _mm_set1_pd(w2);
        for (int k = 0; k < 10; k += 2)
            _mm_storeu_pd(o + k, _mm_add_pd(_mm_add_pd(_mm_mul_pd(v0, load2(a2 + k)), _mm_mul_pd(v1, load2(a + k))),
                                            _mm_mul_pd(v2, load2(b + k))));
#else
        for (int k = 0; k < 10; k++) o[k] = w0 * a2[k] + w1 * a[k] + w2 * b[k];
#endif
        s->valid[j] = 0;
    }
}

/* Takes this frame's input; dt > 0 moves the older frames down first (a
 * frame of dt 0 replaces the last one). */
static void load_pose(mr_springs *s, const mr_pose *pose, const float transform[16], double dt)
{
    int shift = dt > 0, fixed = s->mode == MR_SPRINGS_FIXED;
    if (shift) {       /* the oldest frame's arrays take this one */
        float (*old)[10] = s->in_prev2;
        s->in_prev2 = s->in_prev;
        s->in_prev = s->in_cur;
        s->in_cur = old;
    }
    for (int i = 0; i < s->needed_count; i++) {
        int j = s->needed[i];
        if (s->spring_of[j] >= 0) {     /* a spring joint turns as the springs say: its t and s are read, */
            float *o = s->in_cur[j];    /* its rotation is not (it stays the identity) */
            const float *t = pose->t[j], *sc = pose->s[j];
#if defined(__SSE2__)
            const __m128 zero = _mm_setzero_ps();
            __m128 vt = load3(t), vs = load3(sc);     /* all six finite: each times 0 is 0 */
            if (_mm_movemask_ps(_mm_and_ps(_mm_cmpeq_ps(_mm_mul_ps(vt, zero), zero),
                                           _mm_cmpeq_ps(_mm_mul_ps(vs, zero), zero))) == 15) {
                memcpy(o, t, 3 * sizeof(float));
                memcpy(o + 7, sc, 3 * sizeof(float));
            } else
#endif
            for (int k = 0; k < 3; k++) {
                o[k] = isfinite(t[k]) ? t[k] : 0.0f;
                o[7 + k] = isfinite(sc[k]) ? sc[k] : 1.0f;
            }
            o[3] = o[4] = o[5] = 0;
            o[6] = 1;
            continue;
        }
        float f[10];
        memcpy(f, pose->t[j], 3 * sizeof(float));
        memcpy(f + 3, pose->r[j], 4 * sizeof(float));
        memcpy(f + 7, pose->s[j], 3 * sizeof(float));
        float *o = s->in_cur[j];
        /* all ten finite: each times 0 is 0 (inf * 0 and NaN * 0 are NaN) */
#if defined(__SSE2__)
        /* read from the pose, not from f: a vector load across f's separate stores would wait for them */
        const __m128 zero = _mm_setzero_ps();
        __m128 vt = load3(pose->t[j]), vr = _mm_loadu_ps(pose->r[j]), vs = load3(pose->s[j]);
        __m128 e0 = _mm_cmpeq_ps(_mm_mul_ps(vt, zero), zero);
        __m128 e1 = _mm_cmpeq_ps(_mm_mul_ps(vr, zero), zero);
        __m128 e2 = _mm_cmpeq_ps(_mm_mul_ps(vs, zero), zero);
        int finite = _mm_movemask_ps(_mm_and_ps(_mm_and_ps(e0, e1), e2)) == 15;
#else
        float z = ((f[0] * 0.0f + f[1] * 0.0f) + (f[2] * 0.0f + f[3] * 0.0f)) +
                  ((f[4] * 0.0f + f[5] * 0.0f) + (f[6] * 0.0f + f[7] * 0.0f)) + (f[8] * 0.0f + f[9] * 0.0f);
        int finite = z == 0;
#endif
        float q2 = f[3] * f[3] + f[4] * f[4] + f[5] * f[5] + f[6] * f[6];
        if (finite && q2 >= 1e-12f) {
            memcpy(o, f, sizeof f);
        } else {
            if (!(isfinite(f[3]) && isfinite(f[4]) && isfinite(f[5]) && isfinite(f[6])) || q2 < 1e-12f) {
                f[3] = f[4] = f[5] = 0; f[6] = 1;
            }
            for (int k = 0; k < 10; k++) o[k] = isfinite(f[k]) ? f[k] : k >= 7 ? 1.0f : 0.0f;
        }
        /* the older rotations on this one's side of the sphere, so that a
         * blend of the three is a weighted sum (the frame mode never blends) */
#if defined(__SSE2__)
        if (fixed) {       /* the same products, summed in the same order (o's values: from f where o is f, */
                           /* as o's own stores could not yet be read as pairs) */
            const float *oq = finite && q2 >= 1e-12f ? f : o;
            __m128d o01 = load2(oq + 3), o23 = load2(oq + 5);
            for (int h = 0; h < 2; h++) {
                float *a = h ? s->in_prev2[j] : s->in_prev[j];
                __m128d p01 = _mm_mul_pd(load2(a + 3), o01), p23 = _mm_mul_pd(load2(a + 5), o23);
                double d = _mm_cvtsd_f64(p01) + _mm_cvtsd_f64(_mm_unpackhi_pd(p01, p01));
                d = d + _mm_cvtsd_f64(p23);
                d = d + _mm_cvtsd_f64(_mm_unpackhi_pd(p23, p23));
                if (d < 0)
                    for (int k = 3; k < 7; k++) a[k] = -a[k];
            }
        }
#else
        for (int h = 0; h < 2 * fixed; h++) {
            float *a = h ? s->in_prev2[j] : s->in_prev[j];
            if ((double)a[3] * o[3] + (double)a[4] * o[4] + (double)a[5] * o[5] + (double)a[6] * o[6] < 0)
                for (int k = 3; k < 7; k++) a[k] = -a[k];
        }
#endif
    }
    if (shift) {
        memcpy(s->xf_prev2, s->xf_prev, sizeof s->xf_cur);
        memcpy(s->xf_prev, s->xf_cur, sizeof s->xf_cur);
        s->span_prev = s->span_cur;
        s->span_cur = dt;
        if (s->history < 3) s->history++;
    }
    decompose(transform, s->xf_cur);
}

/* Forgets the older frames: every one is this frame. */
static void only_this_frame(mr_springs *s)
{
    memcpy(s->xf_prev, s->xf_cur, sizeof s->xf_cur);
    memcpy(s->xf_prev2, s->xf_cur, sizeof s->xf_cur);
    for (int i = 0; i < s->needed_count; i++) {
        int j = s->needed[i];
        memcpy(s->in_prev[j], s->in_cur[j], sizeof s->in_cur[j]);
        memcpy(s->in_prev2[j], s->in_cur[j], sizeof s->in_cur[j]);
    }
    s->history = 1;
    s->span_prev = s->span_cur = 0;
}

static const xform *make_world(mr_springs *s, const mr_skeleton *sk, int j);

static inline const xform *world_of(mr_springs *s, const mr_skeleton *sk, int j)
{
    return s->valid[j] ? &s->world[j] : make_world(s, sk, j);
}

static const xform *make_world(mr_springs *s, const mr_skeleton *sk, int j)
{
    int p = sk->parents[j];
    const xform *pw = p >= 0 ? world_of(s, sk, p) : &s->xf;
    double t[3], q[4], sc[3];
    int sp = s->spring_of[j];
    if (sp >= 0) {
        input_ts(s, j, t, sc);
        memcpy(q, s->rot[sp], sizeof q);
    } else {
        input_trs(s, j, t, q, sc);
    }
    xform local;
    x_trs(t, q, sc, &local);
    x_mul(pw, &local, &s->world[j]);
    s->valid[j] = 1;
    s->stamp[j] = ++s->clock;
    return &s->world[j];
}

/* The inverse of chain c's centre's world matrix, made again only when
 * that matrix has been. */
static const xform *center_inverse(mr_springs *s, const mr_skeleton *sk, int c)
{
    int j = s->chains[c].center;
    const xform *w = world_of(s, sk, j);
    if (s->center_stamp[c] != s->stamp[j]) {
        x_inverse(w, &s->center_inv[c]);
        s->center_stamp[c] = s->stamp[j];
    }
    return &s->center_inv[c];
}

HOT void invalidate_below(mr_springs *s, int j)
{
    int end = s->subtree_end[j];      /* a subtree is contiguous in skeleton order, and so in needed */
    for (int i = s->needed_pos[j] + 1; i < s->needed_count && s->needed[i] <= end; i++) s->valid[s->needed[i]] = 0;
}

/* ---- colliders ------------------------------------------------------------- */

/* Collider ci's world points, made again only when its joint's world
 * matrix has been. */
HOT void collider_points(mr_springs *s, const mr_skeleton *sk, int ci)
{
    const mr_spring_collider *c = &s->colliders[ci];
    const xform *w = world_of(s, sk, c->joint);
    if (s->coll_stamp[ci] != s->stamp[c->joint]) {    /* its world points, made once per placement of its joint */
        double off[3] = {c->offset[0], c->offset[1], c->offset[2]};
        x_point(w, off, s->coll_a[ci]);
        if (c->shape == MR_COLLIDER_PLANE) {
            double nl[3] = {c->normal[0], c->normal[1], c->normal[2]};
            xform inv;
            x_inverse(w, &inv);      /* normal matrix: the inverse transposed */
            for (int i = 0; i < 3; i++) s->coll_n[ci][i] = inv.r[i] * nl[0] + inv.r[3 + i] * nl[1] + inv.r[6 + i] * nl[2];
            v_norm(s->coll_n[ci]);
        } else if (c->shape == MR_COLLIDER_CAPSULE) {
            double tl[3] = {c->tail[0], c->tail[1], c->tail[2]};
            x_point(w, tl, s->coll_b[ci]);
        }
        s->coll_stamp[ci] = s->stamp[c->joint];
    }
}

/* Signed distance of p (a ball of radius hit) from collider c, the push
 * direction n and the point of the shape nearest to p (for spheres and
 * capsules; planes: unused). Negative: inside. */
HOT double collide_one(mr_springs *s, const mr_skeleton *sk, const mr_spring_collider *c, const double p[3], double hit,
                          double n[3], double centre[3])
{
    int ci = (int)(c - s->colliders);
    collider_points(s, sk, ci);
    double a[3] = {s->coll_a[ci][0], s->coll_a[ci][1], s->coll_a[ci][2]};
    double radius = c->radius * s->ws;
    if (c->shape == MR_COLLIDER_PLANE) {
        memcpy(n, s->coll_n[ci], 3 * sizeof(double));
        double d[3];
        v_sub(p, a, d);
        memcpy(centre, a, sizeof a);
        return v_dot(d, n) - hit;
    }
    if (c->shape == MR_COLLIDER_CAPSULE) {
        const double *b = s->coll_b[ci];
        double ab[3], ap[3];
        v_sub(b, a, ab);
        v_sub(p, a, ap);
        double dot = v_dot(ab, ap), l2 = v_dot(ab, ab);
        if (dot > 0) {
            double f = l2 <= dot ? 1 : dot / l2;
            for (int i = 0; i < 3; i++) a[i] += ab[i] * f;
        }
    }
    memcpy(centre, a, 3 * sizeof(double));
    v_sub(p, a, n);
    double reach = hit + radius, d2 = v_dot(n, n);
    if (!c->inside && d2 >= reach * reach && reach >= 0) return 1;   /* clear of it: no square root */
    double len = sqrt(d2);
    double dist = c->inside ? radius - hit - len : len - hit - radius;
    if (dist < 0 && len > 0) {         /* the push direction, as three-vrm computes it */
        double r = 1 / len;
        for (int i = 0; i < 3; i++) n[i] *= c->inside ? -r : r;
    }
    return dist;
}

/* Back to `len` from head (a zero offset stays at the head). */
HOT void fix_length(double tip[3], const double head[3], double len)
{
    double d[3];
    v_sub(tip, head, d);
    v_norm(d);
    for (int i = 0; i < 3; i++) tip[i] = head[i] + d[i] * len;
}

/* Any unit vector perpendicular to u. */
static void perpendicular(const double u[3], double o[3])
{
    double a[3] = {0, 0, 0};
    a[fabs(u[0]) < 0.6 ? 0 : fabs(u[1]) < 0.6 ? 1 : 2] = 1;
    double k = v_dot(a, u);
    for (int i = 0; i < 3; i++) o[i] = a[i] - u[i] * k;
    v_norm(o);
}

/* Moves tip to the nearest point of the sphere (head, len) on the boundary
 * of the ball (c, R): the circle where the two spheres meet. `keep_in`: the
 * tip belongs inside the ball. */
static void onto_circle(double tip[3], const double head[3], double len, const double c[3], double R, int keep_in)
{
    double u[3];
    v_sub(c, head, u);
    double dd = v_len(u);
    if (dd < 1e-12) return;      /* concentric: every point of the bone's sphere is as deep */
    for (int i = 0; i < 3; i++) u[i] /= dd;
    double a = (len * len - R * R + dd * dd) / (2 * dd);
    if (a >= len || a <= -len) {
        /* the spheres do not meet: the bone's sphere is all inside or all
         * outside the ball; take its point farthest out (or in) */
        double sgn = keep_in ? 1 : -1;
        for (int i = 0; i < 3; i++) tip[i] = head[i] + sgn * u[i] * len;
        return;
    }
    double rho = sqrt(len * len - a * a), w[3];
    v_sub(tip, head, w);
    double k = v_dot(w, u);
    for (int i = 0; i < 3; i++) w[i] -= u[i] * k;
    if (v_len(w) < 1e-12 * (len + 1)) perpendicular(u, w);
    v_norm(w);
    for (int i = 0; i < 3; i++) tip[i] = head[i] + u[i] * a + w[i] * rho;
}

static void onto_plane(double tip[3], const double head[3], double len, const double p0[3], const double n[3], double hit)
{
    double hp[3];
    v_sub(head, p0, hp);
    double h0 = v_dot(hp, n) - hit;      /* the head's height over the allowed side */
    if (h0 <= -len) {
        for (int i = 0; i < 3; i++) tip[i] = head[i] + n[i] * len;
        return;
    }
    if (h0 >= len) return;
    double rho = sqrt(len * len - h0 * h0), w[3];
    v_sub(tip, head, w);
    double k = v_dot(w, n);
    for (int i = 0; i < 3; i++) w[i] -= n[i] * k;
    if (v_len(w) < 1e-12 * (len + 1)) perpendicular(n, w);
    v_norm(w);
    for (int i = 0; i < 3; i++) tip[i] = head[i] - n[i] * h0 + w[i] * rho;
}

/* Whether tip (a ball of radius hit) is out of reach of every collider of
 * the chain, by collide_one's first test (planes and inside shapes: no):
 * then collide leaves it where it is. */
HOT int clear_of_all(mr_springs *s, const mr_skeleton *sk, const mr_spring_chain *ch, const double tip[3], double hit)
{
    const double x = tip[0], y = tip[1], z = tip[2];
    for (int i = 0; i < ch->collider_count; i++) {
        int ci = s->chain_colliders[ch->collider_first + i];
        const mr_spring_collider *c = &s->colliders[ci];
        if (c->shape == MR_COLLIDER_PLANE || c->inside) return 0;
        collider_points(s, sk, ci);
        const double *a = s->coll_a[ci];
        double a0 = a[0], a1 = a[1], a2 = a[2];
        if (c->shape == MR_COLLIDER_CAPSULE) {
            const double *b = s->coll_b[ci];
            double ab0 = b[0] - a0, ab1 = b[1] - a1, ab2 = b[2] - a2;
            double dot = ab0 * (x - a0) + ab1 * (y - a1) + ab2 * (z - a2);
            if (dot > 0) {
                double l2 = ab0 * ab0 + ab1 * ab1 + ab2 * ab2, f = l2 <= dot ? 1 : dot / l2;
                a0 += ab0 * f; a1 += ab1 * f; a2 += ab2 * f;
            }
        }
        double n0 = x - a0, n1 = y - a1, n2 = z - a2, reach = hit + c->radius * s->ws;
        if (!(n0 * n0 + n1 * n1 + n2 * n2 >= reach * reach)) return 0;
    }
    return 1;
}

HOT void collide(mr_springs *s, const mr_skeleton *sk, const mr_spring_chain *ch, double tip[3], const double head[3],
                    double len, double hit, int exact)
{
    double n[3], c[3];
    if (clear_of_all(s, sk, ch, tip, hit)) return;
    if (!exact) {       /* VRM's reference: one push and one length fix per collider */
        for (int i = 0; i < ch->collider_count; i++) {
            const mr_spring_collider *k = &s->colliders[s->chain_colliders[ch->collider_first + i]];
            double d = collide_one(s, sk, k, tip, hit, n, c);
            if (d < 0) {
                for (int a = 0; a < 3; a++) tip[a] -= n[a] * d;
                fix_length(tip, head, len);
            }
        }
        return;
    }
    for (int iter = 0; iter < 8; iter++) {
        int moved = 0;
        for (int i = 0; i < ch->collider_count; i++) {
            const mr_spring_collider *k = &s->colliders[s->chain_colliders[ch->collider_first + i]];
            double d = collide_one(s, sk, k, tip, hit, n, c);
            if (d >= -1e-9) continue;
            moved = 1;
            if (k->shape == MR_COLLIDER_PLANE) {
                onto_plane(tip, head, len, c, n, hit);
            } else {
                double R = k->radius * s->ws + (k->inside ? -hit : hit);
                if (R < 0) R = 0;
                onto_circle(tip, head, len, c, R, k->inside);
            }
        }
        if (!moved) break;
    }
}

/* ---- the step ------------------------------------------------------------------ */

/* Where every tip is now (the frame mode's bone lengths, see pass). */
static void remember_tips(mr_springs *s, const mr_skeleton *sk)
{
    if (s->mode != MR_SPRINGS_FRAME) return;
    for (int i = 0; i < s->joint_count; i++)
        if (s->joints[i].tail >= 0) memcpy(s->tip_last[i], world_of(s, sk, s->joints[i].tail)->t, sizeof s->tip_last[i]);
}

/* The direction (any length) of world point p in the frame of parent
 * world PW times spring i's rest local matrix: the inverse of that product
 * through the parent's adjugate, which differs from its inverse by the
 * determinant, and the rest matrix's inverse made once. */
HOT void rest_frame_dir(const mr_springs *s, const xform *PW, int i, const double p[3], double v[3])
{
    const double *r = PW->r, *t = s->rest_local[i].t;
    double det = x_det(PW), d[3], o[3];
    if (!(fabs(det * s->rest_det[i]) >= 1e-300)) {   /* singular: as x_inverse treats it */
        xform init, inv;
        x_mul(PW, &s->rest_local[i], &init);
        x_inverse(&init, &inv);
        x_point(&inv, p, v);
        return;
    }
    x_point(PW, t, o);                      /* where the joint's rest origin is */
    v_sub(p, o, d);
    double sg = det > 0 ? 1 : -1;
    double a[3] = {((r[4] * r[8] - r[5] * r[7]) * d[0] + (r[2] * r[7] - r[1] * r[8]) * d[1] + (r[1] * r[5] - r[2] * r[4]) * d[2]) * sg,
                   ((r[5] * r[6] - r[3] * r[8]) * d[0] + (r[0] * r[8] - r[2] * r[6]) * d[1] + (r[2] * r[3] - r[0] * r[5]) * d[2]) * sg,
                   ((r[3] * r[7] - r[4] * r[6]) * d[0] + (r[1] * r[6] - r[0] * r[7]) * d[1] + (r[0] * r[4] - r[1] * r[3]) * d[2]) * sg};
    const double *m = s->rest_inv[i];
    for (int k = 0; k < 3; k++) v[k] = m[3 * k] * a[0] + m[3 * k + 1] * a[1] + m[3 * k + 2] * a[2];
}

/* One spring joint's step (pass's loop). */
HOT void step_one(mr_springs *s, const mr_skeleton *sk, int i, double dt, double inertia, int commit)
{
    int exact = s->mode == MR_SPRINGS_FIXED;
    const mr_spring_joint *sj = &s->joints[i];
    const mr_spring_chain *ch = &s->chains[s->chain_of[i]];
    int j = sj->joint, p = sk->parents[j];
    /* the joint's own world matrix is only made once it has turned:
     * its position comes from the parent's */
    const xform *PW = p >= 0 ? world_of(s, sk, p) : &s->xf;
    double jt[3], js[3], head[3];
    input_ts(s, j, jt, js);
    x_point(PW, jt, head);
    double tl[3], tipw[3];
    if (!exact && sj->tail >= 0) {
        /* VRM's reference measures the bone from the joint now to where
         * its tip was left by the last update (a child's world matrix
         * that has not been refreshed yet); the frame mode does the same */
        memcpy(tipw, s->tip_last[i], sizeof tipw);
    } else {
        if (sj->tail >= 0) input_t(s, sj->tail, tl);
        else memcpy(tl, s->rest_child[i], sizeof tl);
        for (int a = 0; a < 3; a++) tl[a] *= js[a];
        q_rotate(s->rot[i], tl, tl);
        x_dir(PW, tl, tipw);
        for (int a = 0; a < 3; a++) tipw[a] += head[a];
    }
    double d0[3];
    v_sub(tipw, head, d0);
    double len = v_len(d0);
    const xform *C = NULL, *Cinv = NULL;   /* NULL: the world */
    if (ch->center >= 0) {
        Cinv = center_inverse(s, sk, s->chain_of[i]);
        C = &s->world[ch->center];
    }
    double next[3];
    if (dt > 0 || inertia > 0) {
        /* inertia in the centre's space; the pull back to the rest
         * direction (the rest offset turned by the joint's rest rotation
         * and the parent's world rotation) and gravity in the world's */
        double ax[3], nc[3];
        x_dir(PW, s->axis_parent[i], ax);
        v_norm(ax);
        double ks = sj->stiffness * dt * s->ws, kg = sj->gravity_power * dt * s->ws, kd = (1 - sj->drag) * inertia;
        for (int a = 0; a < 3; a++) nc[a] = s->cur[i][a] + (s->cur[i][a] - s->prev[i][a]) * kd;
        if (C) x_point(C, nc, next);
        else memcpy(next, nc, sizeof next);
        for (int a = 0; a < 3; a++) next[a] += ax[a] * ks + s->gdir[i][a] * kg;
    } else {
        if (C) x_point(C, s->cur[i], next);
        else memcpy(next, s->cur[i], sizeof next);
    }
    fix_length(next, head, len);
    if (ch->collider_count) collide(s, sk, ch, next, head, len, sj->radius * s->ws, exact);
    if (commit) {
        memcpy(s->prev[i], s->cur[i], sizeof s->cur[i]);
        if (Cinv) x_point(Cinv, next, s->cur[i]);
        else memcpy(s->cur[i], next, sizeof next);
    }
    /* the rotation that takes the rest direction onto the tip: the tip
     * in the frame the joint would have at rest under its parent now */
    double q[4];
    memcpy(q, s->rest_q[i], sizeof q);
    if (len > 1e-12 && v_dot(s->axis[i], s->axis[i]) > 0.5) {
        double v[3], apply[4];
        rest_frame_dir(s, PW, i, next, v);
        double lv = v_len(v);
        if (lv > 0 && isfinite(lv)) {
            q_from_unit_to(s->axis[i], v, lv, apply);
            q_mul(s->rest_q[i], apply, q);
            q_norm(q);      /* the one normalisation of the product */
        }
    }
    memcpy(s->rot[i], q, sizeof q);
    double local[9];       /* the joint's world: its translation is head */
    x_rs(q, js, local);
    xform *W = &s->world[j];
    x_mul_r(PW->r, local, W->r);
    memcpy(W->t, head, sizeof head);
    s->valid[j] = 1;
    s->stamp[j] = ++s->clock;
    /* below a free chain's joints hang only its next joints (made here, from this one) and its last tip */
    if (!s->chain_free[s->chain_of[i]] || i == ch->first + ch->count - 1) invalidate_below(s, j);
}

/* ---- chains side by side ---------------------------------------------------------
 *
 * The "free" chains (their parent, centre and colliders hang outside every
 * spring, their joints run parent to child, and no collider, centre or
 * other chain hangs below them: nothing else in the set reads them and
 * they read nothing another chain moves) are stepped side by side, four
 * joints a row, in the lanes of a vector of doubles, before pass's scalar
 * loop takes the others. plan_groups wraps the chains around the four
 * lanes; a lane that goes on with a chain another lane began reads its
 * parent's world from memory, where that lane stored it. Each lane does
 * pass's operations in pass's order (multiplies and adds, no fused ones,
 * the same square roots and divisions), so the results are the same bits
 * as the scalar loop's, and with AVX or without. A lane whose tip comes within reach of a collider,
 * or whose chain has a plane or an inside collider, collides through the
 * scalar collide; a lane whose rest frame is singular turns through the
 * scalar rest_frame_dir. */

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"   /* the vectors never cross a call: every helper here is inlined */
typedef double v4 __attribute__((vector_size(32)));
typedef long long v4i __attribute__((vector_size(32)));
typedef double v4u __attribute__((vector_size(32), aligned(8), may_alias));
typedef float v4f __attribute__((vector_size(16), aligned(4), may_alias));
#define V_LD(p) ((v4) * (const v4u *)(p))
#define V_ST(p, v) (*(v4u *)(p) = (v))
#define V_SET1(x) ((v4){(x), (x), (x), (x)})
#define V_SEL(m, a, b) ((v4)(((v4i)(m) & (v4i)(a)) | (~(v4i)(m) & (v4i)(b))))
#define V_MASK(c) ((v4)(c))
#if defined(__clang__)
#define V_SHUF(a, b, i0, i1, i2, i3) __builtin_shufflevector(a, b, i0, i1, i2, i3)
#else
#define V_SHUF(a, b, i0, i1, i2, i3) __builtin_shuffle(a, b, (v4i){i0, i1, i2, i3})
#endif

/* o = the square roots of x's lanes (vsqrtpd where AVX is on) */
#define V_SQRT(o, x) do { v4 x_ = (x); for (int l_ = 0; l_ < 4; l_++) (o)[l_] = sqrt(x_[l_]); } while (0)
#define V_DOT(a, b) ((a)[0] * (b)[0] + (a)[1] * (b)[1] + (a)[2] * (b)[2])

/* o = the 3x4 matrix m (r row-major, then t) times point p (t: 1) or direction (t: 0) */
HOT void v4_point(const v4 *m, const v4 *p, v4 *o, int with_t)
{
    v4 x = p[0], y = p[1], z = p[2];
    v4 o0 = m[0] * x + m[1] * y + m[2] * z, o1 = m[3] * x + m[4] * y + m[5] * z, o2 = m[6] * x + m[7] * y + m[8] * z;
    if (with_t) { o0 = o0 + m[9]; o1 = o1 + m[10]; o2 = o2 + m[11]; }
    o[0] = o0; o[1] = o1; o[2] = o2;
}

/* as v_norm: a zero vector stays zero */
HOT void v4_norm(v4 *a)
{
    v4 l;
    V_SQRT(l, V_DOT(a, a));
    v4 r = V_SET1(1.0) / l, m = V_MASK(l > V_SET1(0.0));
    for (int k = 0; k < 3; k++) a[k] = V_SEL(m, a[k] * r, a[k]);
}

/* o[k] = element k of r[0], r[1], r[2], r[3] (a 4x4 transpose: rows of four values into lanes, or back) */
HOT void transpose4(const v4 *r, v4 *o)
{
    v4 t0 = V_SHUF(r[0], r[1], 0, 4, 2, 6), t1 = V_SHUF(r[0], r[1], 1, 5, 3, 7);
    v4 t2 = V_SHUF(r[2], r[3], 0, 4, 2, 6), t3 = V_SHUF(r[2], r[3], 1, 5, 3, 7);
    o[0] = V_SHUF(t0, t2, 0, 1, 4, 5); o[1] = V_SHUF(t1, t3, 0, 1, 4, 5);
    o[2] = V_SHUF(t0, t2, 2, 3, 6, 7); o[3] = V_SHUF(t1, t3, 2, 3, 6, 7);
}

/* Rows r[0..3] (lane l of each: four values of lane l) stored at dst[l] + at .. + 3, for the lanes
 * whose dst is not NULL. */
HOT void store_lanes(const v4 *r, double *const dst[4], int at)
{
    v4 l[4];
    transpose4(r, l);
    for (int k = 0; k < 4; k++)
        if (dst[k]) V_ST(dst[k] + at, l[k]);
}

/* four values of a joint's input (input_range's values at .. at + 3) as doubles */
HOT void input4(const mr_springs *s, int j, int at, v4 *o)
{
    if (s->u >= 1) *o = __builtin_convertvector(*(const v4f *)(const void *)(s->in_cur[j] + at), v4);
    else *o = V_LD(s->in_now[j] + at);
}

/* What a lane needs of the chain it steps: the centre's world and its inverse (lane_state keeps the tips in
 * the centre's space), and the colliders' world points (their joints do not move in a pass). A lane that
 * takes another chain writes its own element of each vector. */
typedef struct {
    v4 C[12], Ci[12];                        /* the centre's r t, its inverse's (zero: no centre) */
    v4 cvec[LANE_MAX_COLLIDERS][7];          /* collider slot m: first end, second end, radius */
    v4i has_center, vectorised, con[LANE_MAX_COLLIDERS];   /* vectorised: the vectors test its colliders */
} lane_chain_data;

/* Lane l takes chain c (-1: an empty slot, no centre and no collider) from chain was (-2: none yet); what
 * the two share (the centre, the collider list: hair chains often have the same) it keeps. */
HOT void lane_take(mr_springs *s, const mr_skeleton *sk, lane_chain_data *k, int l, int c, int was, int max_cc)
{
    const mr_spring_chain *ch = c >= 0 ? &s->chains[c] : NULL, *old = was >= 0 ? &s->chains[was] : NULL;
    k->vectorised[l] = ch && !s->lane_scalar[c] ? -1 : 0;
    if (ch && old && ch->collider_count == old->collider_count &&
        !memcmp(&s->chain_colliders[ch->collider_first], &s->chain_colliders[old->collider_first],
                sizeof *s->chain_colliders * (size_t)ch->collider_count)) {
        if (ch->center == old->center && ch->center < 0) return;
        max_cc = 0;
    }
    k->has_center[l] = ch && ch->center >= 0 ? -1 : 0;
    if (k->has_center[l]) {
        const xform *ci = center_inverse(s, sk, c), *cw = &s->world[ch->center];
        for (int q = 0; q < 9; q++) { k->C[q][l] = cw->r[q]; k->Ci[q][l] = ci->r[q]; }
        for (int q = 0; q < 3; q++) { k->C[9 + q][l] = cw->t[q]; k->Ci[9 + q][l] = ci->t[q]; }
    } else {
        for (int q = 0; q < 12; q++) k->C[q][l] = k->Ci[q][l] = 0;
    }
    for (int m = 0; m < max_cc; m++) {
        v4 *cv = k->cvec[m];
        k->con[m][l] = ch && m < ch->collider_count ? -1 : 0;
        if (!k->con[m][l]) { for (int q = 0; q < 7; q++) cv[q][l] = 0; continue; }
        int ci = s->chain_colliders[ch->collider_first + m];
        const mr_spring_collider *co = &s->colliders[ci];
        collider_points(s, sk, ci);
        const double *b = co->shape == MR_COLLIDER_CAPSULE ? s->coll_b[ci] : s->coll_a[ci];
        for (int q = 0; q < 3; q++) { cv[q][l] = s->coll_a[ci][q]; cv[3 + q][l] = b[q]; }
        cv[6][l] = co->radius;
    }
}

HOT void lanes_body(mr_springs *s, const mr_skeleton *sk, double dt, double inertia, int commit)
{
    int exact = s->mode == MR_SPRINGS_FIXED, moving = dt > 0 || inertia > 0;
    int max_cc = s->lane_max_cc, taken[4] = {-2, -2, -2, -2};   /* each lane's chain now */
    lane_chain_data lc;
    const v4 *C = lc.C, *Ci = lc.Ci;
    double ws = s->ws;
    v4 pw_buf[2][12] = {{{0}}}, *P = pw_buf[0];   /* the parent's world; the joint's becomes the next one's */
    for (int d = 0; d < s->lane_rows; d++) {
        const lane_row *lr = &s->lane_plan[d];
        const int *idx = lr->idx, *jnt = lr->jnt, *act = lr->act;
        double (*ls)[4] = s->lane_state[d];
        int last[4];
        v4i vact;
        v4 jt[3], js[3], head[3], tipw[3];
        if (lr->any_fresh)        /* lanes that start a chain, or go on with one another lane began */
            for (int l = 0; l < 4; l++) {
                if (!lr->fresh[l]) continue;
                int p = sk->parents[jnt[l]];
                const xform *PW = p >= 0 ? world_of(s, sk, p) : &s->xf;
                for (int k = 0; k < 9; k++) P[k][l] = PW->r[k];
                for (int k = 0; k < 3; k++) P[9 + k][l] = PW->t[k];
                if (lr->chain[l] != taken[l]) {
                    lane_take(s, sk, &lc, l, lr->chain[l], taken[l], max_cc);
                    taken[l] = lr->chain[l];
                }
            }
        v4 mC = (v4)lc.has_center;
        /* the joints' inputs (input_ts: this frame's floats, or what set_input blended) and their tails'
         * (where the last update left the tip, the tail joint's input, or the rest offset), four values of
         * a lane at a time turned into lanes: t0 t1 t2 q0 -> jt, q3 s0 s1 s2 -> js */
        v4 rows[4], cols[4], tlv[3];
        for (int l = 0; l < 4; l++) input4(s, jnt[l], 0, &rows[l]);
        transpose4(rows, cols);
        for (int k = 0; k < 3; k++) jt[k] = cols[k];
        for (int l = 0; l < 4; l++) input4(s, jnt[l], 6, &rows[l]);
        transpose4(rows, cols);
        for (int k = 0; k < 3; k++) js[k] = cols[1 + k];
        for (int l = 0; l < 4; l++) {
            vact[l] = act[l] ? -1 : 0;
            int i = idx[l], tail = lr->tail[l];
            last[l] = !exact && tail >= 0;
            const double *p = last[l] ? s->tip_last[i] : s->rest_child[i];
            if (tail >= 0 && !last[l]) input4(s, tail, 0, &rows[l]);
            else rows[l] = (v4){p[0], p[1], p[2], 0};
        }
        transpose4(rows, cols);
        for (int k = 0; k < 3; k++) tlv[k] = cols[k];
        const double (*st)[4] = s->lane_static[d];
        v4_point(P, jt, head, 1);
        {   /* the tip: where the last update left it (frame mode), or the tail's offset turned by the last rotation */
            v4 tl[3], q[4], t[3], r[3];
            for (int k = 0; k < 3; k++) tl[k] = tlv[k] * js[k];
            for (int k = 0; k < 4; k++) q[k] = V_LD(ls[D_ROT + k]);
            v4 two = V_SET1(2.0);
            t[0] = two * (q[1] * tl[2] - q[2] * tl[1]);
            t[1] = two * (q[2] * tl[0] - q[0] * tl[2]);
            t[2] = two * (q[0] * tl[1] - q[1] * tl[0]);
            r[0] = tl[0] + q[3] * t[0] + q[1] * t[2] - q[2] * t[1];
            r[1] = tl[1] + q[3] * t[1] + q[2] * t[0] - q[0] * t[2];
            r[2] = tl[2] + q[3] * t[2] + q[0] * t[1] - q[1] * t[0];
            v4_point(P, r, tipw, 0);
            v4i ml = {last[0] ? -1 : 0, last[1] ? -1 : 0, last[2] ? -1 : 0, last[3] ? -1 : 0};
            for (int k = 0; k < 3; k++) tipw[k] = V_SEL((v4)ml, tlv[k], tipw[k] + head[k]);
        }
        v4 d0[3], next[3], hit = V_LD(st[S_RAD]) * V_SET1(ws);
        for (int k = 0; k < 3; k++) d0[k] = tipw[k] - head[k];
        v4 len;
        V_SQRT(len, V_DOT(d0, d0));
        {
            v4 cur[3], nc[3], cn[3];
            for (int k = 0; k < 3; k++) cur[k] = V_LD(ls[D_CUR + k]);
            if (moving) {
                v4 ax[3];
                v4 axp[3] = {V_LD(st[S_AXP]), V_LD(st[S_AXP + 1]), V_LD(st[S_AXP + 2])};
                v4_point(P, axp, ax, 0);
                v4_norm(ax);
                v4 ks = V_LD(st[S_ST]) * V_SET1(dt) * V_SET1(ws), kg = V_LD(st[S_GP]) * V_SET1(dt) * V_SET1(ws);
                v4 kd = V_LD(st[S_KD]) * V_SET1(inertia);
                for (int k = 0; k < 3; k++) nc[k] = cur[k] + (cur[k] - V_LD(ls[D_PREV + k])) * kd;
                v4_point(C, nc, cn, 1);
                for (int k = 0; k < 3; k++) next[k] = V_SEL(mC, cn[k], nc[k]) + (ax[k] * ks + V_LD(st[S_GD + k]) * kg);
            } else {
                v4_point(C, cur, cn, 1);
                for (int k = 0; k < 3; k++) next[k] = V_SEL(mC, cn[k], cur[k]);
            }
        }
        {   /* fix_length */
            v4 dd[3];
            for (int k = 0; k < 3; k++) dd[k] = next[k] - head[k];
            v4_norm(dd);
            for (int k = 0; k < 3; k++) next[k] = head[k] + dd[k] * len;
        }
        if (max_cc) {
            /* clear of every collider (no lane within reach): as collide_one's first test */
            v4i clear = lc.vectorised;
            for (int m = 0; m < max_cc; m++) {
                const v4 *cv = lc.cvec[m];
                v4i on = lc.con[m] & vact;
                v4 a[3], n[3];
                for (int k = 0; k < 3; k++) a[k] = cv[k];
                if (s->lane_capsule >> m & 1) {   /* a sphere's second end is its centre: ab = 0, dot = 0, it stays */
                    v4 ab[3], ap[3];
                    for (int k = 0; k < 3; k++) {
                        ab[k] = cv[3 + k] - a[k];
                        ap[k] = next[k] - a[k];
                    }
                    v4 dot = V_DOT(ab, ap), l2 = V_DOT(ab, ab);
                    v4 f = V_SEL(V_MASK(l2 <= dot), V_SET1(1.0), dot / l2), in = V_MASK(dot > V_SET1(0.0));
                    for (int k = 0; k < 3; k++) a[k] = V_SEL(in, a[k] + ab[k] * f, a[k]);
                }
                for (int k = 0; k < 3; k++) n[k] = next[k] - a[k];
                v4 reach = hit + cv[6] * V_SET1(ws), d2 = V_DOT(n, n);
                clear &= (v4i)(d2 >= reach * reach) | ~on;
            }
            for (int l = 0; l < 4; l++) {
                if (!act[l] || clear[l]) continue;     /* within reach: the scalar collide decides */
                double tip[3] = {next[0][l], next[1][l], next[2][l]}, hd[3] = {head[0][l], head[1][l], head[2][l]};
                collide(s, sk, &s->chains[lr->chain[l]], tip, hd, len[l], hit[l], exact);
                for (int k = 0; k < 3; k++) next[k][l] = tip[k];
            }
        }
        if (commit) {      /* the lanes' own state: s->cur and s->prev of their springs wait for lanes_push */
            v4 cn[3];
            v4_point(Ci, next, cn, 1);
            for (int k = 0; k < 3; k++) {
                V_ST(ls[D_PREV + k], V_LD(ls[D_CUR + k]));
                V_ST(ls[D_CUR + k], V_SEL(mC, cn[k], next[k]));
            }
        }
        /* the turn: rest_frame_dir, q_from_unit_to, q_mul and q_norm of pass */
        v4 q[4], rq[4];
        for (int k = 0; k < 4; k++) rq[k] = V_LD(st[S_RQ + k]);
        {
            v4 *r = P, v[3], o[3], dd[3], a[3];
            v4 det = r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6]) + r[2] * (r[3] * r[7] - r[4] * r[6]);
            v4 rt[3] = {V_LD(st[S_RT]), V_LD(st[S_RT + 1]), V_LD(st[S_RT + 2])};
            v4_point(P, rt, o, 1);
            for (int k = 0; k < 3; k++) dd[k] = next[k] - o[k];
            v4 sg = V_SEL(V_MASK(det > V_SET1(0.0)), V_SET1(1.0), V_SET1(-1.0));
            a[0] = ((r[4] * r[8] - r[5] * r[7]) * dd[0] + (r[2] * r[7] - r[1] * r[8]) * dd[1] + (r[1] * r[5] - r[2] * r[4]) * dd[2]) * sg;
            a[1] = ((r[5] * r[6] - r[3] * r[8]) * dd[0] + (r[0] * r[8] - r[2] * r[6]) * dd[1] + (r[2] * r[3] - r[0] * r[5]) * dd[2]) * sg;
            a[2] = ((r[3] * r[7] - r[4] * r[6]) * dd[0] + (r[1] * r[6] - r[0] * r[7]) * dd[1] + (r[0] * r[4] - r[1] * r[3]) * dd[2]) * sg;
            for (int k = 0; k < 3; k++)
                v[k] = V_LD(st[S_RINV + 3 * k]) * a[0] + V_LD(st[S_RINV + 3 * k + 1]) * a[1] + V_LD(st[S_RINV + 3 * k + 2]) * a[2];
            v4 sing = det * V_LD(st[S_RDET]), axok = V_MASK(V_LD(st[S_AXOK]) != V_SET1(0.0));
            v4 want = V_MASK((v4i)(len > V_SET1(1e-12)) & (v4i)axok);
            v4i odd = vact & (v4i)want & ~(v4i)(V_SEL(V_MASK(sing < V_SET1(0.0)), -sing, sing) >= V_SET1(1e-300));
            for (int l = 0; l < 4; l++) {
                if (!odd[l]) continue;
                xform PW;      /* singular: rest_frame_dir's own way */
                for (int k = 0; k < 9; k++) PW.r[k] = P[k][l];
                for (int k = 0; k < 3; k++) PW.t[k] = P[9 + k][l];
                double p[3] = {next[0][l], next[1][l], next[2][l]}, vv[3];
                rest_frame_dir(s, &PW, idx[l], p, vv);
                for (int k = 0; k < 3; k++) v[k][l] = vv[k];
            }
            v4 lv;
            V_SQRT(lv, V_DOT(v, v));
            v4i ok = (v4i)want & (v4i)(lv > V_SET1(0.0)) & (v4i)(lv < V_SET1(INFINITY));
            v4 ax[3] = {V_LD(st[S_AX]), V_LD(st[S_AX + 1]), V_LD(st[S_AX + 2])}, ap[4];
            v4 rr = V_DOT(ax, v) + lv;
            v4 opp = V_MASK(rr < V_SET1(2.220446049250313e-16) * lv);
            ap[0] = V_SEL(opp, V_LD(st[S_ALT]), ax[1] * v[2] - ax[2] * v[1]);
            ap[1] = V_SEL(opp, V_LD(st[S_ALT + 1]), ax[2] * v[0] - ax[0] * v[2]);
            ap[2] = V_SEL(opp, V_LD(st[S_ALT + 2]), ax[0] * v[1] - ax[1] * v[0]);
            ap[3] = V_SEL(opp, V_SET1(0.0), rr);
            v4 x = rq[3] * ap[0] + rq[0] * ap[3] + rq[1] * ap[2] - rq[2] * ap[1];
            v4 y = rq[3] * ap[1] - rq[0] * ap[2] + rq[1] * ap[3] + rq[2] * ap[0];
            v4 z = rq[3] * ap[2] + rq[0] * ap[1] - rq[1] * ap[0] + rq[2] * ap[3];
            v4 w = rq[3] * ap[3] - rq[0] * ap[0] - rq[1] * ap[1] - rq[2] * ap[2];
            v4 ql;
            V_SQRT(ql, x * x + y * y + z * z + w * w);
            v4 qr = V_SET1(1.0) / ql, pos = V_MASK(ql > V_SET1(0.0));
            v4 nq[4] = {V_SEL(pos, x * qr, V_SET1(0.0)), V_SEL(pos, y * qr, V_SET1(0.0)), V_SEL(pos, z * qr, V_SET1(0.0)),
                        V_SEL(pos, w * qr, V_SET1(1.0))};
            for (int k = 0; k < 4; k++) q[k] = V_SEL((v4)ok, nq[k], rq[k]);
        }
        /* the joint's world: P times R(q) S, at head */
        v4 *W = P == pw_buf[0] ? pw_buf[1] : pw_buf[0];
        {
            v4 x = q[0], y = q[1], z = q[2], w = q[3], one = V_SET1(1.0), two = V_SET1(2.0), L[9];
            v4 xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z;
            L[0] = (one - two * (yy + zz)) * js[0]; L[1] = two * (xy - wz) * js[1]; L[2] = two * (xz + wy) * js[2];
            L[3] = two * (xy + wz) * js[0]; L[4] = (one - two * (xx + zz)) * js[1]; L[5] = two * (yz - wx) * js[2];
            L[6] = two * (xz - wy) * js[0]; L[7] = two * (yz + wx) * js[1]; L[8] = (one - two * (xx + yy)) * js[2];
            for (int i = 0; i < 3; i++) {
                v4 a0 = P[3 * i], a1 = P[3 * i + 1], a2 = P[3 * i + 2];
                W[3 * i] = a0 * L[0] + a1 * L[3] + a2 * L[6];
                W[3 * i + 1] = a0 * L[1] + a1 * L[4] + a2 * L[7];
                W[3 * i + 2] = a0 * L[2] + a1 * L[5] + a2 * L[8];
            }
            for (int k = 0; k < 3; k++) W[9 + k] = head[k];
        }
        /* each lane's rotation, and its world matrix (r then t: 12 doubles) where the frame mode will read
         * its tips (remember_tips) or another lane goes on with its chain; four rows at a time turned into
         * lanes. Elsewhere the matrix is left stale: nothing in the step reads it, and make_world would make
         * it again from the same values. */
        double *dst[4];
        if (!exact || lr->any_handoff) {
            for (int l = 0; l < 4; l++) dst[l] = act[l] && (!exact || lr->handoff[l]) ? s->world[jnt[l]].r : NULL;
            store_lanes(W, dst, 0);
            store_lanes(W + 4, dst, 4);
            store_lanes(W + 8, dst, 8);
        }
        for (int l = 0; l < 4; l++) dst[l] = act[l] ? s->rot[idx[l]] : NULL;
        store_lanes(q, dst, 0);
        for (int k = 0; k < 4; k++) V_ST(ls[D_ROT + k], q[k]);
        unsigned long long clock = s->clock;     /* (nothing in this loop makes a world) */
        for (int l = 0; l < 4; l++) {
            if (!act[l]) continue;
            int j = jnt[l];
            s->valid[j] = !exact || lr->handoff[l];
            s->stamp[j] = ++clock;
            /* below a chain's joints hang only its next joints (made in the lanes) and its last tip */
            if (lr->end[l]) invalidate_below(s, j);
        }
        s->clock = clock;
        P = W;
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx"))) static void lanes_avx(mr_springs *s, const mr_skeleton *sk, double dt, double inertia,
                                                     int commit)
{
    lanes_body(s, sk, dt, inertia, commit);
}
#define LANES_AVX 1
#endif

static void lanes_base(mr_springs *s, const mr_skeleton *sk, double dt, double inertia, int commit)
{
    lanes_body(s, sk, dt, inertia, commit);
}
#pragma GCC diagnostic pop

/* The lanes' state from the springs' arrays (after a reset wrote them), and back. */
static void lanes_pull(mr_springs *s)
{
    for (int r = 0; r < s->lane_rows; r++)
        for (int l = 0; l < 4; l++) {
            int i = s->lane_plan[r].idx[l];
            for (int k = 0; k < 3; k++) {
                s->lane_state[r][D_CUR + k][l] = s->cur[i][k];
                s->lane_state[r][D_PREV + k][l] = s->prev[i][k];
            }
            for (int k = 0; k < 4; k++) s->lane_state[r][D_ROT + k][l] = s->rot[i][k];
        }
}

static void lanes_push(mr_springs *s)
{
    for (int r = 0; r < s->lane_rows; r++)
        for (int l = 0; l < 4; l++) {
            if (!s->lane_plan[r].act[l]) continue;
            int i = s->lane_plan[r].idx[l];
            for (int k = 0; k < 3; k++) {
                s->cur[i][k] = s->lane_state[r][D_CUR + k][l];
                s->prev[i][k] = s->lane_state[r][D_PREV + k][l];
            }
            for (int k = 0; k < 4; k++) s->rot[i][k] = s->lane_state[r][D_ROT + k][l];
        }
}

/* The free chains, side by side. */
static void pass_lanes(mr_springs *s, const mr_skeleton *sk, double dt, double inertia, int commit)
{
#if defined(LANES_AVX)
    if (mr_simd() >= MR_SIMD_AVX) { lanes_avx(s, sk, dt, inertia, commit); return; }
#endif
    lanes_base(s, sk, dt, inertia, commit);
}

/* One pass over every spring at the current input: integrate by dt with
 * inertia scaled by `inertia` (0 with dt 0: only pose the joints from the
 * state), collide, keep the new tips when commit, and turn the joints. */
static void pass(mr_springs *s, const mr_skeleton *sk, double dt, double inertia, int commit)
{
    if (s->lane_rows) pass_lanes(s, sk, dt, inertia, commit);
    for (int o = 0; o < s->scalar_count; o++) step_one(s, sk, s->scalar_order[o], dt, inertia, commit);
    if (commit) remember_tips(s, sk);
}

static void write_pose(const mr_springs *s, mr_pose *pose)
{
    for (int i = 0; i < s->joint_count; i++) {
        float *r = pose->r[s->joints[i].joint];
        for (int k = 0; k < 4; k++) r[k] = (float)s->rot[i][k];
    }
}

static int check(const mr_springs *s, const mr_skeleton *sk, const mr_pose *pose)
{
    return s && sk && pose && pose->t && sk->joint_count == s->skel_joints && pose->joint_count == s->skel_joints;
}

/* Tips at the rest direction from the current input. */
static void reset_state(mr_springs *s, const mr_skeleton *sk)
{
    set_input(s, 1);
    for (int o = 0; o < s->joint_count; o++) {
        int i = s->order[o];
        const mr_spring_joint *sj = &s->joints[i];
        const mr_spring_chain *ch = &s->chains[s->chain_of[i]];
        double q[4];
        for (int k = 0; k < 4; k++) q[k] = sk->rest_r[sj->joint][k];
        q_norm(q);
        memcpy(s->rot[i], q, sizeof q);
        s->valid[sj->joint] = 0;
        invalidate_below(s, sj->joint);
        const xform *W = world_of(s, sk, sj->joint);
        double tl[3], tipw[3];
        if (sj->tail >= 0) {
            double qq[4], sc[3];
            input_trs(s, sj->tail, tl, qq, sc);
        } else {
            memcpy(tl, s->rest_child[i], sizeof tl);
        }
        x_point(W, tl, tipw);
        xform Cinv;
        if (ch->center >= 0) x_inverse(world_of(s, sk, ch->center), &Cinv);
        else x_identity(&Cinv);
        x_point(&Cinv, tipw, s->cur[i]);
        memcpy(s->prev[i], s->cur[i], sizeof s->cur[i]);
    }
    remember_tips(s, sk);
    lanes_pull(s);
    s->time = 0;
    s->steps = 0;
    s->initialized = 1;
    if (s->mode == MR_SPRINGS_FIXED) {    /* start outside the colliders, at rest */
        pass(s, sk, 0, 0, 1);
        lanes_push(s);
        memcpy(s->prev, s->cur, sizeof *s->cur * (size_t)s->joint_count);
        lanes_pull(s);
    }
}

mr_status mr_springs_reset(mr_springs *s, const mr_skeleton *sk, mr_pose *pose, const float transform[16])
{
    if (!check(s, sk, pose)) return MR_ERR_JOINT_COUNT;
    load_pose(s, pose, transform, 0);
    only_this_frame(s);
    reset_state(s, sk);
    write_pose(s, pose);
    return MR_OK;
}

static int teleported(const mr_springs *s)
{
    double d[3];
    v_sub(s->xf_cur, s->xf_prev, d);
    double scale = cbrt(fabs(s->xf_cur[7] * s->xf_cur[8] * s->xf_cur[9]));
    if (!(v_len(d) <= s->teleport * (scale > 0 ? scale : 1))) return 1;
    double dot = 0;
    for (int k = 3; k < 7; k++) dot += s->xf_cur[k] * s->xf_prev[k];
    return fabs(dot) < 0.70710678;      /* turned more than 90 degrees */
}

mr_status mr_springs_update(mr_springs *s, const mr_skeleton *sk, mr_pose *pose, double dt, const float transform[16])
{
    if (!check(s, sk, pose)) return MR_ERR_JOINT_COUNT;
    if (!(dt > 0)) dt = 0;
    if (dt > MR_SPRINGS_MAX_DT) dt = MR_SPRINGS_MAX_DT;
    load_pose(s, pose, transform, dt);
    if (!s->initialized || teleported(s)) {
        only_this_frame(s);
        reset_state(s, sk);
        write_pose(s, pose);
        return MR_OK;
    }
    if (s->mode == MR_SPRINGS_FRAME) {
        set_input(s, 1);
        pass(s, sk, dt, dt > 0 ? 1 : 0, dt > 0);
        write_pose(s, pose);
        return MR_OK;
    }
    double t0 = s->time, t1 = s->time + dt, h = s->h, u = 0;
    long long n1 = (long long)floor(t1 / h + 1e-6);
    for (long long k = s->steps + 1; k <= n1; k++) {
        u = dt > 0 ? (k * h - t0) / dt : 1;
        u = u < 0 ? 0 : u > 1 ? 1 : u;
        set_input(s, u);
        pass(s, sk, h, 1, 1);
    }
    int on_step = n1 > s->steps && u >= 1 - 1e-9;   /* the last step was at this frame's time */
    if (n1 > s->steps) s->steps = n1;
    s->time = t1;
    double frac = t1 - (double)s->steps * h;
    if (frac > 1e-6 * h) {
        set_input(s, 1);
        pass(s, sk, frac, frac / h, 0);
    } else if (!on_step) {
        set_input(s, 1);
        pass(s, sk, 0, 0, 0);
    }                                  /* else: that step's rotations are this frame's */
    if (s->steps > (1LL << 30)) {     /* keep the clock's doubles fine-grained */
        s->time -= (double)s->steps * h;
        s->steps = 0;
    }
    write_pose(s, pose);
    return MR_OK;
}

/* ---- queries ----------------------------------------------------------------- */

int mr_springs_mode(const mr_springs *s) { return s->mode; }
int mr_springs_joint_count(const mr_springs *s) { return s->joint_count; }
const mr_spring_joint *mr_springs_joint(const mr_springs *s, int i) { return &s->joints[i]; }
int mr_springs_collider_count(const mr_springs *s) { return s->collider_count; }
const mr_spring_collider *mr_springs_collider(const mr_springs *s, int i) { return &s->colliders[i]; }
int mr_springs_chain_count(const mr_springs *s) { return s->chain_count; }
const mr_spring_chain *mr_springs_chain(const mr_springs *s, int i) { return &s->chains[i]; }
const int *mr_springs_chain_colliders(const mr_springs *s) { return s->chain_colliders; }

int mr_springs_lane_chains(const mr_springs *s)
{
    return s->lane_chain_n;
}

int mr_springs_lane_sharers(const mr_springs *s)
{
    if (!s->lane_static) return 0;
    if (!s->lane_block) return 1;
    pthread_mutex_lock(&lane_lock);
    int n = (int)s->lane_block->refs;
    pthread_mutex_unlock(&lane_lock);
    return n;
}

double mr_springs_penetration(const mr_springs *cs, const mr_skeleton *sk, const mr_pose *pose, const float transform[16])
{
    if (!check(cs, sk, pose)) return 0;
    mr_springs *s = (mr_springs *)cs;   /* uses the scratch world matrices only */
    /* the world matrices of the pose as it is, rotations included */
    double keep_prev[10], keep_cur[10];
    memcpy(keep_prev, s->xf_prev, sizeof keep_prev);
    memcpy(keep_cur, s->xf_cur, sizeof keep_cur);
    decompose(transform, s->xf_cur);
    s->u = 1;
    double t[3], q[4], sc[3];
    for (int k = 0; k < 3; k++) { t[k] = s->xf_cur[k]; sc[k] = s->xf_cur[7 + k]; }
    for (int k = 0; k < 4; k++) q[k] = s->xf_cur[3 + k];
    x_trs(t, q, sc, &s->xf);
    s->ws = cbrt(fabs(x_det(&s->xf)));
    /* compute worlds straight from the pose (not the spring state) */
    for (int i = 0; i < s->needed_count; i++) {
        int j = s->needed[i], p = sk->parents[j];
        double tt[3], qq[4], ss[3];
        for (int k = 0; k < 3; k++) { tt[k] = pose->t[j][k]; ss[k] = pose->s[j][k]; }
        for (int k = 0; k < 4; k++) qq[k] = pose->r[j][k];
        q_norm(qq);
        xform local;
        x_trs(tt, qq, ss, &local);
        x_mul(p >= 0 ? &s->world[p] : &s->xf, &local, &s->world[j]);
        s->valid[j] = 1;
        s->stamp[j] = ++s->clock;
    }
    double worst = 0;
    for (int i = 0; i < s->joint_count; i++) {
        const mr_spring_joint *sj = &s->joints[i];
        const mr_spring_chain *ch = &s->chains[s->chain_of[i]];
        double tl[3], tip[3], n[3], c[3];
        if (sj->tail >= 0) for (int k = 0; k < 3; k++) tl[k] = pose->t[sj->tail][k];
        else memcpy(tl, s->rest_child[i], sizeof tl);
        x_point(&s->world[sj->joint], tl, tip);
        for (int k = 0; k < ch->collider_count; k++) {
            double d = collide_one(s, sk, &s->colliders[s->chain_colliders[ch->collider_first + k]], tip, sj->radius * s->ws, n, c);
            if (-d > worst) worst = -d;
        }
    }
    memcpy(s->xf_prev, keep_prev, sizeof keep_prev);
    memcpy(s->xf_cur, keep_cur, sizeof keep_cur);
    for (int i = 0; i < s->needed_count; i++) s->valid[s->needed[i]] = 0;
    return worst;
}
