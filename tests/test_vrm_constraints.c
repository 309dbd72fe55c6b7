/* test_vrm_constraints.c — VRMC_node_constraint and the VRM look-at
 * (anim/vrm_constraints.h, anim/vrm_look_at.h, their reading in
 * formats/gltf_vrm.c).
 *
 * tests/data/vrm/constraints.gltf (made for this test: every rest rotation
 * non-trivial) holds two roll constraints (X and Y axes, weights 0.7 and
 * 1), three aim constraints (+X, -Z, +Y; one aims at a roll-constrained
 * joint, one at the child of a rotation-constrained joint), two rotation
 * constraints (one whose source is itself constrained), a head with eyes
 * and bone look-at settings with four different range maps. The expected
 * values come from the specification's pseudocode written again here in
 * double precision (textbook quaternion products, forward kinematics of
 * its own, the constraints evaluated pass after pass until nothing
 * changes instead of in a dependency order), and, as a second opinion,
 * from three-vrm 3.x (@pixiv/three-vrm-node-constraint and three-vrm-core's
 * VRMLookAt, through tests/tools/vrm_constraints_reference.cjs) run on the
 * same file and pose. The look-at is also checked on
 * the VRM consortium's sample in ../shared/models/vrm-samples (expression
 * type). three-vrm's eye bones take the down range map for looking up and
 * the up map for looking down; marrow follows the specification's table,
 * so the eye rotations are checked against the specification only.
 */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "anim/vrm.h"
#include "anim/vrm_constraints.h"
#include "anim/vrm_look_at.h"
#include "formats/gltf.h"
#include "formats/gltf_write.h"
#include "ref_quat.h"
#include "test.h"

#define MODEL "tests/data/vrm/constraints.gltf"
#define PI 3.14159265358979323846

/* The pose: local rotations (axis, degrees) set on these joints, constraint
 * destinations among them (their rotation is replaced). */
static const struct { const char *joint; double axis[3], deg; } SETS[] = {
    {"hips", {0.3, 1, 0.1}, 25}, {"arm", {0.2, 0.4, 1}, 50}, {"forearm", {1, 0.3, -0.2}, 70},
    {"sub", {0, 1, 0}, 40}, {"spine", {1, 0, 0.3}, 15}, {"head", {0.2, 1, 0}, 30}, {"twist", {0, 0, 1}, 33},
    {"sub_tip", {1, 1, 1}, 20}, {"root", {0, 1, 0}, -15},
};

/* three-vrm 3.x on the same file and pose (node constraints). */
static const struct { const char *joint; double q[4]; } THREE_VRM[] = {
    {"twist", {0.483534359, 0.009411271, 0.023805473, 0.874950999}},
    {"twist2", {0.060228754, -0.000205060, -0.234225076, 0.970314933}},
    {"sleeve", {0.020963384, 0.118889257, 0.240620446, 0.963082386}},
    {"cuff", {0.322322822, -0.550315242, -0.165337592, 0.752279611}},
    {"sub", {-0.009466852, 0.091065535, 0.590645524, 0.801720220}},
    {"sub_tip2", {0.016581301, 0.081028695, 0.291085219, 0.953115316}},
    {"pointer", {-0.137229323, 0.000000000, 0.712273723, 0.688356199}},
};

/* Look-at targets (model space) and three-vrm's yaw and pitch for them. */
static const struct { double target[3], yaw, pitch; } LOOK[] = {
    {{0.5, 1.9, 1.0}, 25.335940655, -29.017273299},
    {{-0.6, 1.2, 0.4}, -77.978973140, 25.211137741},
    {{0.1, 2.5, -0.3}, 162.594087181, -30.665098489},
    {{2, 1.6, 0.2}, 78.027281502, 8.676626380},
};

/* ---- reference math, written from the specification ---------------------------- */

static void axis_angle(const double axis[3], double deg, double q[4])
{
    double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]), h = deg * PI / 360;
    for (int k = 0; k < 3; k++) q[k] = axis[k] / n * sin(h);
    q[3] = cos(h);
}

static void inv(const double q[4], double o[4]) { o[0] = -q[0]; o[1] = -q[1]; o[2] = -q[2]; o[3] = q[3]; }

/* Quaternion.fromToRotation(a, b) for unit vectors: the angle between them
 * about their normalised cross product. */
static void from_to(const double a[3], const double b[3], double q[4])
{
    double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2], n = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    if (n < 1e-15) { q[0] = q[1] = q[2] = 0; q[3] = 1; return; }
    axis_angle(c, atan2(n, d) * 180 / PI, q);
}

static void ref_slerp(const double a[4], const double b0[4], double t, double o[4])
{
    double b[4] = {b0[0], b0[1], b0[2], b0[3]}, d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (d < 0) { for (int k = 0; k < 4; k++) b[k] = -b[k]; d = -d; }
    if (d > 1) d = 1;
    double th = acos(d);
    if (th < 1e-12) { memcpy(o, b, sizeof b); return; }
    for (int k = 0; k < 4; k++) o[k] = (sin((1 - t) * th) * a[k] + sin(t * th) * b[k]) / sin(th);
}

typedef struct ref_pose { int n; const int *parents; double t[64][3], r[64][4], wr[64][4], wt[64][3]; } ref_pose;

/* World (model-space) rotations and positions, parents first (unit scales). */
static void ref_fk(ref_pose *p)
{
    for (int j = 0; j < p->n; j++) {
        int q = p->parents[j];
        if (q < 0) {
            memcpy(p->wr[j], p->r[j], sizeof p->wr[j]);
            memcpy(p->wt[j], p->t[j], sizeof p->wt[j]);
        } else {
            double v[3];
            ref_qmul(p->wr[q], p->r[j], p->wr[j]);
            ref_qrot(p->wr[q], p->t[j], v);
            for (int k = 0; k < 3; k++) p->wt[j][k] = p->wt[q][k] + v[k];
        }
    }
}

static void rest_of(const mr_skeleton *sk, int j, double q[4])
{
    for (int k = 0; k < 4; k++) q[k] = sk->rest_r[j][k];
}

/* The specification's pseudocode for one constraint, on reference pose p. */
static void ref_constraint(const mr_skeleton *sk, const mr_vrm_constraint *c, ref_pose *p, double out[4])
{
    static const double axes[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    double dst_rest[4], src_rest[4], t[4], target[4];
    rest_of(sk, c->joint, dst_rest);
    rest_of(sk, c->source, src_rest);
    const double *src = p->r[c->source];
    if (c->type == MR_VRM_CONSTRAINT_ROTATION) {
        double delta[4];                         /* srcDeltaQuat = srcRestQuat.inverse * srcQuat */
        inv(src_rest, t);
        ref_qmul(t, src, delta);
        ref_qmul(dst_rest, delta, target);
    } else if (c->type == MR_VRM_CONSTRAINT_ROLL) {
        double delta[4], in_parent[4], in_dst[4], to[3], ft[4], ftinv[4];
        const double *axis = axes[2 * c->axis];
        inv(src_rest, t);
        ref_qmul(t, src, delta);                 /* deltaSrcQuat */
        ref_qmul(src_rest, delta, in_parent);    /* srcRestQuat * deltaSrcQuat * srcRestQuat.inverse */
        ref_qmul(in_parent, t, in_parent);
        inv(dst_rest, t);                        /* dstRestQuat.inverse * ... * dstRestQuat */
        ref_qmul(t, in_parent, in_dst);
        ref_qmul(in_dst, dst_rest, in_dst);
        ref_qrot(in_dst, axis, to);
        from_to(axis, to, ft);
        inv(ft, ftinv);
        ref_qmul(dst_rest, ftinv, target);       /* dstRestQuat * fromToQuat.inverse * deltaSrcQuatInDst */
        ref_qmul(target, in_dst, target);
    } else {
        int par = sk->parents[c->joint];
        double pw[4] = {0, 0, 0, 1}, pwinv[4], from[3], to[3], ft[4];
        if (par >= 0) memcpy(pw, p->wr[par], sizeof pw);
        inv(pw, pwinv);
        ref_qmul(pw, dst_rest, t);
        ref_qrot(t, axes[c->axis], from);        /* aimAxis.applyQuaternion(dstParentWorldQuat * dstRestQuat) */
        double len = 0;
        for (int k = 0; k < 3; k++) { to[k] = p->wt[c->source][k] - p->wt[c->joint][k]; len += to[k] * to[k]; }
        for (int k = 0; k < 3; k++) to[k] /= sqrt(len);
        from_to(from, to, ft);
        ref_qmul(pwinv, ft, target);
        ref_qmul(target, pw, target);
        ref_qmul(target, dst_rest, target);
    }
    ref_slerp(dst_rest, target, c->weight, out);
}

/* Every constraint evaluated in file order, pass after pass, until no
 * rotation changes: the result of a dependency order found without one. */
static void ref_constraints(const mr_skeleton *sk, const mr_vrm *v, ref_pose *p)
{
    for (int pass = 0; pass < 2 * v->constraint_count + 2; pass++) {
        double change = 0;
        for (int i = 0; i < v->constraint_count; i++) {
            double q[4];
            ref_fk(p);
            ref_constraint(sk, &v->constraints[i], p, q);
            for (int k = 0; k < 4; k++) change = fmax(change, fabs(q[k] - p->r[v->constraints[i].joint][k]));
            memcpy(p->r[v->constraints[i].joint], q, sizeof q);
        }
        if (change == 0) break;
    }
    ref_fk(p);
}

/* ---- fixtures ------------------------------------------------------------------------ */

static mr_model *load(const char *path)
{
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK_MSG(mr_gltf_load(path, &m, &err) == MR_OK, "%s", err.msg);
    return m;
}

static int J(const mr_model *m, const char *name)
{
    int j = mr_skeleton_find(&m->skeleton, name);
    CHECK_MSG(j >= 0, "no joint %s", name);
    return j < 0 ? 0 : j;
}

/* The SETS pose, in marrow's pose and the reference's. */
static void make_pose(const mr_model *m, mr_pose *pose, ref_pose *ref)
{
    const mr_skeleton *sk = &m->skeleton;
    mr_pose_init(pose, sk->joint_count);
    mr_pose_set_rest(pose, sk);
    ref->n = sk->joint_count;
    ref->parents = sk->parents;
    for (int j = 0; j < sk->joint_count; j++) {
        for (int k = 0; k < 3; k++) ref->t[j][k] = sk->rest_t[j][k];
        rest_of(sk, j, ref->r[j]);
    }
    for (size_t i = 0; i < sizeof SETS / sizeof *SETS; i++) {
        int j = J(m, SETS[i].joint);
        axis_angle(SETS[i].axis, SETS[i].deg, ref->r[j]);
        for (int k = 0; k < 4; k++) pose->r[j][k] = (float)ref->r[j][k];
    }
}

static double qdiff(const versor a, const double b[4])
{
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3], s = d < 0 ? -1 : 1, worst = 0;
    for (int k = 0; k < 4; k++) worst = fmax(worst, fabs(a[k] - s * b[k]));
    return worst;
}

/* ---- constraints ---------------------------------------------------------------------- */

TEST(constraints_load_with_their_types_axes_weights_and_a_dependency_order)
{
    mr_model *m = load(MODEL);
    if (!m) return;
    const mr_vrm *v = m->vrm;
    CHECK(v && v->constraint_count == 7 && v->constraints && v->constraint_order);
    if (!v || v->constraint_count != 7) { mr_model_destroy(m); return; }
    int pos[64];
    for (int k = 0; k < 7; k++) pos[v->constraints[v->constraint_order[k]].joint] = k;
    for (int i = 0; i < 7; i++) {
        const mr_vrm_constraint *c = &v->constraints[i];
        const char *n = m->skeleton.names[c->joint];
        if (!strcmp(n, "twist")) CHECK(c->type == MR_VRM_CONSTRAINT_ROLL && c->axis == 0 && fabs(c->weight - 0.7) < 1e-7 && c->source == J(m, "forearm"));
        if (!strcmp(n, "twist2")) CHECK(c->type == MR_VRM_CONSTRAINT_ROLL && c->axis == 1 && c->weight == 1);
        if (!strcmp(n, "cuff")) CHECK(c->type == MR_VRM_CONSTRAINT_AIM && c->axis == 5 && c->source == J(m, "twist"));
        if (!strcmp(n, "pointer")) CHECK(c->type == MR_VRM_CONSTRAINT_AIM && c->axis == 2 && fabs(c->weight - 0.6) < 1e-7);
        if (!strcmp(n, "sub")) CHECK(c->type == MR_VRM_CONSTRAINT_ROTATION && fabs(c->weight - 0.5) < 1e-7);
    }
    /* cuff aims at twist (constrained); sub_tip2 follows sub; pointer aims at sub_tip2, under sub */
    CHECK(pos[J(m, "twist")] < pos[J(m, "cuff")]);
    CHECK(pos[J(m, "sub")] < pos[J(m, "sub_tip2")]);
    CHECK(pos[J(m, "sub_tip2")] < pos[J(m, "pointer")]);
    CHECK(pos[J(m, "sub")] < pos[J(m, "pointer")]);
    mr_model_destroy(m);
}

TEST(each_constraint_type_matches_the_specification_and_three_vrm)
{
    mr_model *m = load(MODEL);
    if (!m || !m->vrm) { mr_model_destroy(m); return; }
    mr_pose pose;
    static ref_pose ref;
    make_pose(m, &pose, &ref);
    CHECK(mr_vrm_constraints_apply(&m->skeleton, m->vrm, &pose) == MR_OK);
    ref_constraints(&m->skeleton, m->vrm, &ref);
    double worst = 0, worst3 = 0, worst_pos = 0;
    for (int i = 0; i < m->vrm->constraint_count; i++) {
        int j = m->vrm->constraints[i].joint;
        double d = qdiff(pose.r[j], ref.r[j]);
        CHECK_MSG(d < 1e-5, "%s: %.3g from the specification's formula", m->skeleton.names[j], d);
        worst = fmax(worst, d);
    }
    for (size_t i = 0; i < sizeof THREE_VRM / sizeof *THREE_VRM; i++) {
        double d = qdiff(pose.r[J(m, THREE_VRM[i].joint)], THREE_VRM[i].q);
        CHECK_MSG(d < 1e-5, "%s: %.3g from three-vrm", THREE_VRM[i].joint, d);
        worst3 = fmax(worst3, d);
    }
    /* model-space positions of every joint (a point 0.1 along each +X too) against the size (~1.8) */
    mat4 *model = malloc(sizeof(mat4) * (size_t)m->skeleton.joint_count);
    mr_pose_to_model(&m->skeleton, &pose, model);
    for (int j = 0; j < m->skeleton.joint_count; j++) {
        double ax[3] = {0.1, 0, 0}, v[3];
        ref_qrot(ref.wr[j], ax, v);
        for (int k = 0; k < 3; k++) {
            worst_pos = fmax(worst_pos, fabs(model[j][3][k] - ref.wt[j][k]));
            worst_pos = fmax(worst_pos, fabs(model[j][3][k] + 0.1 * model[j][0][k] - (ref.wt[j][k] + v[k])));
        }
    }
    free(model);
    CHECK_MSG(worst_pos < 1e-5 * 1.8, "positions %.3g from the specification's", worst_pos);
    printf("       7 constraints: largest quaternion difference %.2g (specification), %.2g (three-vrm); "
           "positions %.2g m (%.2g of the size)\n", worst, worst3, worst_pos, worst_pos / 1.8);
    mr_pose_deinit(&pose);
    mr_model_destroy(m);
}

TEST(weight_zero_keeps_the_rest_and_constraints_replace_what_the_pose_held)
{
    mr_model *m = load(MODEL);
    if (!m || !m->vrm) { mr_model_destroy(m); return; }
    mr_pose pose;
    static ref_pose ref;
    make_pose(m, &pose, &ref);
    for (int i = 0; i < m->vrm->constraint_count; i++) m->vrm->constraints[i].weight = 0;
    CHECK(mr_vrm_constraints_apply(&m->skeleton, m->vrm, &pose) == MR_OK);
    int twist = J(m, "twist");     /* the pose turned it 33 degrees: back to rest */
    double rest[4];
    rest_of(&m->skeleton, twist, rest);
    CHECK(qdiff(pose.r[twist], rest) < 1e-7);
    /* an aim whose source sits where the destination is: rest, no NaN */
    for (int i = 0; i < m->vrm->constraint_count; i++) m->vrm->constraints[i].weight = 1;
    int sleeve = J(m, "sleeve"), forearm = J(m, "forearm");
    mr_pose_set_rest(&pose, &m->skeleton);
    /* move the sleeve onto the forearm's origin, in its parent's (hips) frame */
    static ref_pose at_rest;
    at_rest = ref;
    for (int j = 0; j < at_rest.n; j++) rest_of(&m->skeleton, j, at_rest.r[j]);
    ref_fk(&at_rest);
    int hips = m->skeleton.parents[sleeve];
    double d[3], hinv[4], at[3];
    for (int k = 0; k < 3; k++) d[k] = at_rest.wt[forearm][k] - at_rest.wt[hips][k];
    inv(at_rest.wr[hips], hinv);
    ref_qrot(hinv, d, at);
    for (int k = 0; k < 3; k++) pose.t[sleeve][k] = (float)at[k];
    CHECK(mr_vrm_constraints_apply(&m->skeleton, m->vrm, &pose) == MR_OK);
    rest_of(&m->skeleton, sleeve, rest);
    CHECK(qdiff(pose.r[sleeve], rest) < 1e-6);
    for (int j = 0; j < m->skeleton.joint_count; j++)
        for (int k = 0; k < 4; k++) CHECK(isfinite(pose.r[j][k]));
    mr_pose_deinit(&pose);
    mr_model_destroy(m);
}

TEST(saving_and_loading_keeps_the_constraints_and_what_they_do)
{
    mr_model *m = load(MODEL);
    if (!m || !m->vrm) { mr_model_destroy(m); return; }
    char path[256];
    snprintf(path, sizeof path, "/tmp/marrow_test_vrmc_%d.vrm", (int)getpid());
    mr_error err = {0};
    CHECK_MSG(mr_gltf_write(m, path, &err) == MR_OK, "%s", err.msg);
    mr_model *back = load(path);
    unlink(path);
    if (!back || !back->vrm) { CHECK(back && back->vrm); mr_model_destroy(back); mr_model_destroy(m); return; }
    CHECK(back->vrm->constraint_count == 7 && back->vrm->constraint_order);
    mr_pose a, b;
    static ref_pose ra, rb;
    make_pose(m, &a, &ra);
    make_pose(back, &b, &rb);
    mr_vrm_constraints_apply(&m->skeleton, m->vrm, &a);
    mr_vrm_constraints_apply(&back->skeleton, back->vrm, &b);
    for (int i = 0; i < m->vrm->constraint_count; i++) {
        int j = m->vrm->constraints[i].joint, k = J(back, m->skeleton.names[j]);
        double q[4] = {b.r[k][0], b.r[k][1], b.r[k][2], b.r[k][3]};
        CHECK_MSG(qdiff(a.r[j], q) < 1e-6, "%s differs after save and load", m->skeleton.names[j]);
    }
    mr_pose_deinit(&a);
    mr_pose_deinit(&b);
    mr_model_destroy(back);
    mr_model_destroy(m);
}

/* A glTF of nodes a > b > c, d (a root sibling) with the given extension on
 * node `on`; parses it and returns the status, the message in err. */
static mr_status parse_with(const char *con0, const char *con1, mr_error *err)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,3]}],\"nodes\":["
             "{\"name\":\"a\",\"children\":[1]%s%s%s},"
             "{\"name\":\"b\",\"translation\":[0,1,0],\"children\":[2]%s%s%s},"
             "{\"name\":\"c\",\"translation\":[0,1,0]},{\"name\":\"d\",\"translation\":[1,0,0]}]}",
             con0 ? ",\"extensions\":{\"VRMC_node_constraint\":" : "", con0 ? con0 : "", con0 ? "}" : "",
             con1 ? ",\"extensions\":{\"VRMC_node_constraint\":" : "", con1 ? con1 : "", con1 ? "}" : "");
    mr_model *m = NULL;
    mr_status st = mr_gltf_parse("bad.gltf", text, strlen(text), &m, err);
    mr_model_destroy(m);
    return st;
}

TEST(bad_constraints_fail_the_load_naming_the_json_path)
{
    static const struct { const char *c0, *c1, *expect; } cases[] = {
        {"{\"specVersion\":\"1.0\"}", NULL, "/nodes/0/extensions/VRMC_node_constraint: missing required member 'constraint'"},
        {"{\"specVersion\":\"1.0\",\"constraint\":{}}", NULL, "/nodes/0/extensions/VRMC_node_constraint/constraint: expected a roll, aim or rotation"},
        {"{\"constraint\":{\"roll\":{\"source\":3,\"rollAxis\":\"X\"},\"aim\":{\"source\":3,\"aimAxis\":\"PositiveX\"}}}", NULL, "/nodes/0/extensions/VRMC_node_constraint/constraint: expected one of roll, aim or rotation"},
        {"{\"constraint\":{\"rotation\":{}}}", NULL, "/nodes/0/extensions/VRMC_node_constraint/constraint/rotation: missing required member 'source'"},
        {"{\"constraint\":{\"rotation\":{\"source\":99}}}", NULL, "/nodes/0/extensions/VRMC_node_constraint/constraint/rotation: 'source': index 99 is out of range"},
        {"{\"constraint\":{\"rotation\":{\"source\":0}}}", NULL, "/nodes/0/extensions/VRMC_node_constraint/constraint/rotation: source: node 0 is the constrained node itself"},
        {"{\"constraint\":{\"roll\":{\"source\":3,\"rollAxis\":\"W\"}}}", NULL, "/nodes/0/extensions/VRMC_node_constraint/constraint/roll: rollAxis: expected"},
        {"{\"constraint\":{\"roll\":{\"source\":3}}}", NULL, "/nodes/0/extensions/VRMC_node_constraint/constraint/roll: missing required member 'rollAxis'"},
        {"{\"constraint\":{\"aim\":{\"source\":3}}}", NULL, "/nodes/0/extensions/VRMC_node_constraint/constraint/aim: missing required member 'aimAxis'"},
        {"{\"constraint\":{\"aim\":{\"source\":3,\"aimAxis\":\"Up\"}}}", NULL, "/nodes/0/extensions/VRMC_node_constraint/constraint/aim: aimAxis: expected PositiveX"},
        {"{\"constraint\":{\"rotation\":{\"source\":3,\"weight\":1.5}}}", NULL, "/nodes/0/extensions/VRMC_node_constraint/constraint/rotation: weight: expected a number in 0..1"},
        {"{\"constraint\":{\"rotation\":{\"source\":3,\"weight\":\"half\"}}}", NULL, "/nodes/0/extensions/VRMC_node_constraint/constraint/rotation: 'weight': expected a number"},
        {"{\"constraint\":{\"rotation\":{\"source\":3,\"weight\":-0.1}}}", NULL, "weight: expected a number in 0..1"},
        {"[1,2]", NULL, "/nodes/0/extensions/VRMC_node_constraint: expected an object"},
        /* a follows d, b follows a, ... fine; a follows b and b follows a: a cycle */
        {"{\"constraint\":{\"rotation\":{\"source\":3}}}", "{\"constraint\":{\"rotation\":{\"source\":3}}}", NULL},
        {"{\"constraint\":{\"rotation\":{\"source\":3}}}", "{\"constraint\":{\"aim\":{\"source\":0,\"aimAxis\":\"PositiveY\"}}}", NULL},
        {"{\"constraint\":{\"rotation\":{\"source\":1}}}", "{\"constraint\":{\"rotation\":{\"source\":0}}}", "/nodes/0/extensions/VRMC_node_constraint: circular dependency between constraints: rotation 'a' -> rotation 'b' -> rotation 'a'"},
        /* a's source c sits under a: c moves with a's own result */
        {"{\"constraint\":{\"roll\":{\"source\":2,\"rollAxis\":\"Y\"}}}", NULL, "/nodes/0/extensions/VRMC_node_constraint: circular dependency between constraints: roll 'a' -> roll 'a'"},
        /* a aims at c, which hangs under a: where c is depends on a's own result */
        {"{\"constraint\":{\"aim\":{\"source\":2,\"aimAxis\":\"PositiveY\"}}}", "{\"constraint\":{\"aim\":{\"source\":3,\"aimAxis\":\"PositiveX\"}}}", "circular dependency"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mr_error err = {0};
        mr_status st = parse_with(cases[i].c0, cases[i].c1, &err);
        if (!cases[i].expect) {
            CHECK_MSG(st == MR_OK, "case %zu: %s", i, err.msg);
            continue;
        }
        CHECK_MSG(st == MR_ERR_BAD_FILE, "case %zu: status %d", i, (int)st);
        CHECK_STR_CONTAINS(err.msg, cases[i].expect);
        CHECK_STR_CONTAINS(err.msg, "bad.gltf");
    }
    /* a constraint on, or with its source in, a node outside the scene's tree */
    static const struct { const char *text, *expect; } lost[] = {
        {"{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"name\":\"a\"},"
         "{\"name\":\"lost\",\"extensions\":{\"VRMC_node_constraint\":{\"constraint\":{\"rotation\":{\"source\":0}}}}}]}",
         "/nodes/1/extensions/VRMC_node_constraint: node 1 is not part of the scene's node tree"},
        {"{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"name\":\"a\",\"children\":[1]},"
         "{\"name\":\"b\",\"extensions\":{\"VRMC_node_constraint\":{\"constraint\":{\"rotation\":{\"source\":2}}}}},{\"name\":\"lost\"}]}",
         "/nodes/1/extensions/VRMC_node_constraint/constraint/rotation: source: node 2 is not part of the scene's node tree"},
    };
    for (size_t i = 0; i < sizeof lost / sizeof *lost; i++) {
        mr_model *m = NULL;
        mr_error err = {0};
        CHECK(mr_gltf_parse("lost.gltf", lost[i].text, strlen(lost[i].text), &m, &err) == MR_ERR_BAD_FILE);
        CHECK_STR_CONTAINS(err.msg, lost[i].expect);
        mr_model_destroy(m);
    }
}

TEST(the_order_job_refuses_what_the_loader_cannot_write)
{
    mr_skeleton sk;
    CHECK(mr_skeleton_init(&sk, 3) == MR_OK);
    sk.parents[1] = 0; sk.parents[2] = 1;
    for (int j = 0; j < 3; j++) { char n[16]; snprintf(n, sizeof n, "j%d", j); sk.names[j] = strdup(n); }
    mr_vrm_constraint c[2] = {{1, 0, MR_VRM_CONSTRAINT_ROTATION, 0, NAN}, {2, 0, MR_VRM_CONSTRAINT_ROTATION, 0, 1}};
    int order[2], bad = -1;
    mr_error err = {0};
    CHECK(mr_vrm_constraints_order(&sk, c, 2, order, &bad, &err) != MR_OK && bad == 0);
    CHECK_STR_CONTAINS(err.msg, "weight must be a number in 0..1");
    c[0].weight = 1;
    c[1].joint = 1;
    CHECK(mr_vrm_constraints_order(&sk, c, 2, order, &bad, &err) != MR_OK && bad == 1);
    CHECK_STR_CONTAINS(err.msg, "already has a constraint");
    c[1].joint = 2;
    c[1].source = 7;
    CHECK(mr_vrm_constraints_order(&sk, c, 2, order, &bad, &err) != MR_OK && bad == 1);
    CHECK_STR_CONTAINS(err.msg, "source is not in the skeleton");
    c[1].source = 1;                     /* j2 follows j1, which follows j0 */
    CHECK(mr_vrm_constraints_order(&sk, c, 2, order, &bad, &err) == MR_OK);
    CHECK(order[0] == 0 && order[1] == 1);
    mr_skeleton_deinit(&sk);
}

/* ---- look-at ------------------------------------------------------------------------ */

static double map(const mr_vrm_range_map *r, double a)
{
    double x = fabs(a) / r->input_max;
    return r->output_scale * (x < 1 ? x : 1);
}

TEST(look_at_yaw_pitch_and_eye_bones_follow_the_specification)
{
    mr_model *m = load(MODEL);
    if (!m || !m->vrm) { mr_model_destroy(m); return; }
    const mr_vrm *v = m->vrm;
    const mr_vrm_look_at *la = &v->look_at;
    CHECK(la->present && la->type == MR_VRM_LOOK_AT_BONE && !la->face_minus_z);
    CHECK_NEAR(la->offset[2], 0.02, 1e-7);
    CHECK_NEAR(la->inner.input_max, 80, 0); CHECK_NEAR(la->inner.output_scale, 12, 0);
    CHECK_NEAR(la->up.input_max, 60, 0); CHECK_NEAR(la->down.output_scale, 9, 0);
    mr_pose pose;
    static ref_pose ref, rest;
    make_pose(m, &pose, &ref);
    mr_vrm_constraints_apply(&m->skeleton, v, &pose);
    ref_constraints(&m->skeleton, v, &ref);
    /* the head's rest model-space rotation */
    rest = ref;
    for (int j = 0; j < rest.n; j++) rest_of(&m->skeleton, j, rest.r[j]);
    ref_fk(&rest);
    int head = J(m, "head"), eyes[2] = {J(m, "eyeL"), J(m, "eyeR")};
    double worst_angle = 0, worst3 = 0, worst_eye = 0;
    for (size_t i = 0; i < sizeof LOOK / sizeof *LOOK; i++) {
        /* look-at space: origin offset in the head's frame, rotation head * rest head^-1 */
        double off[3] = {la->offset[0], la->offset[1], la->offset[2]}, o[3], rot[4], rinv[4], d[3], l[3];
        ref_qrot(ref.wr[head], off, o);
        for (int k = 0; k < 3; k++) o[k] += ref.wt[head][k];
        inv(rest.wr[head], rinv);
        ref_qmul(ref.wr[head], rinv, rot);
        inv(rot, rinv);
        for (int k = 0; k < 3; k++) d[k] = LOOK[i].target[k] - o[k];
        ref_qrot(rinv, d, l);
        double yaw = atan2(l[0], l[2]) * 180 / PI, pitch = atan2(-l[1], sqrt(l[0] * l[0] + l[2] * l[2])) * 180 / PI;
        float target[3] = {(float)LOOK[i].target[0], (float)LOOK[i].target[1], (float)LOOK[i].target[2]};
        double my_yaw, my_pitch;
        mr_pose p2;
        mr_pose_init(&p2, pose.joint_count);
        mr_pose_copy(&p2, &pose);
        CHECK(mr_vrm_look_at_angles(&m->skeleton, v, &p2, target, &my_yaw, &my_pitch) == MR_OK);
        worst_angle = fmax(worst_angle, fmax(fabs(my_yaw - yaw), fabs(my_pitch - pitch)));
        worst3 = fmax(worst3, fmax(fabs(my_yaw - LOOK[i].yaw), fabs(my_pitch - LOOK[i].pitch)));
        mr_vrm_look_at_eyes(&m->skeleton, v, &p2, my_yaw, my_pitch);
        for (int e = 0; e < 2; e++) {
            /* leftEye: yaw > 0 outer, else inner; rightEye the other way; pitch > 0 down, else up */
            const mr_vrm_range_map *h = (yaw > 0) == (e == 0) ? &la->outer : &la->inner;
            double ey = yaw > 0 ? map(h, yaw) : -map(h, yaw);
            double ep = pitch > 0 ? map(&la->down, pitch) : -map(&la->up, pitch);
            double qy[4], qx[4], E[4], P[4], Pinv[4], r[4], want[4];
            axis_angle((double[3]){0, 1, 0}, ey, qy);
            axis_angle((double[3]){1, 0, 0}, ep, qx);
            ref_qmul(qy, qx, E);                 /* Quaternion.from_YXZEuler(yaw, pitch, 0) */
            memcpy(P, rest.wr[m->skeleton.parents[eyes[e]]], sizeof P);
            inv(P, Pinv);
            rest_of(&m->skeleton, eyes[e], r);
            ref_qmul(Pinv, E, want);
            ref_qmul(want, P, want);
            ref_qmul(want, r, want);
            worst_eye = fmax(worst_eye, qdiff(p2.r[eyes[e]], want));
        }
        mr_pose_deinit(&p2);
    }
    CHECK_MSG(worst_angle < 1e-4, "yaw/pitch %.3g degrees from the specification's", worst_angle);
    CHECK_MSG(worst3 < 1e-4, "yaw/pitch %.3g degrees from three-vrm's", worst3);
    CHECK_MSG(worst_eye < 1e-6, "eye rotations %.3g from the specification's", worst_eye);
    printf("       4 targets: yaw/pitch within %.2g deg of the specification, %.2g of three-vrm; eyes within %.2g\n",
           worst_angle, worst3, worst_eye);
    mr_pose_deinit(&pose);
    mr_model_destroy(m);
}

/* The VRM consortium's sample (expression look-at, range maps 90 -> 1):
 * yaw, pitch and the look weights for a turned head, against the
 * specification's formulas and three-vrm 3.x on the same file and pose. */
#define SAMPLE SHARED_MODELS "vrm-samples/VRMC_vrm_expressions_isBinary_Overrides/VRMC_vrm_expressions_isBinary_Overrides.vrm"

TEST(look_at_on_the_vrm_sample_matches_the_specification_and_three_vrm)
{
    static const struct { const char *joint; double axis[3], deg; } sets[] = {
        {"Hips", {0, 1, 0}, 20}, {"Spine", {1, 0, 0.2}, 10}, {"Neck", {0.3, 1, 0}, 15}, {"Head", {1, 0.5, 0}, -20},
    };
    static const struct { double target[3], yaw, pitch, w[4]; } three[] = {   /* lookLeft, lookRight, lookUp, lookDown */
        {{0.5, 1.9, 1.0}, 5.927148, -31.724059, {0.065857, 0, 0.35249, 0}},
        {{-0.6, 1.2, 0.4}, -87.572688, -8.090891, {0, 0.97303, 0.089899, 0}},
        {{0.1, 2.5, -0.3}, 123.267814, -73.102774, {1, 0, 0.812253, 0}},
        {{2, 1.6, 0.2}, 61.698906, -7.232712, {0.685543, 0, 0.080363, 0}},
    };
    mr_model *m = load(SAMPLE);
    if (!m || !m->vrm) { mr_model_destroy(m); return; }
    const mr_vrm *v = m->vrm;
    CHECK(v->look_at.present && v->look_at.type == MR_VRM_LOOK_AT_EXPRESSION);
    const mr_skeleton *sk = &m->skeleton;
    mr_pose pose;
    static ref_pose ref, rest;
    mr_pose_init(&pose, sk->joint_count);
    mr_pose_set_rest(&pose, sk);
    ref.n = sk->joint_count;
    ref.parents = sk->parents;
    for (int j = 0; j < sk->joint_count; j++) {
        for (int k = 0; k < 3; k++) ref.t[j][k] = sk->rest_t[j][k];
        rest_of(sk, j, ref.r[j]);
    }
    rest = ref;
    ref_fk(&rest);
    for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) {
        int j = J(m, sets[i].joint);
        axis_angle(sets[i].axis, sets[i].deg, ref.r[j]);
        for (int k = 0; k < 4; k++) pose.r[j][k] = (float)ref.r[j][k];
    }
    ref_fk(&ref);
    int head = v->humanoid[mr_vrm_bone_find("head")];
    double worst_spec = 0, worst3 = 0, worst_w = 0;
    for (size_t i = 0; i < sizeof three / sizeof *three; i++) {
        double off[3] = {v->look_at.offset[0], v->look_at.offset[1], v->look_at.offset[2]}, o[3], rot[4], rinv[4], d[3], l[3];
        ref_qrot(ref.wr[head], off, o);
        for (int k = 0; k < 3; k++) o[k] += ref.wt[head][k];
        inv(rest.wr[head], rinv);
        ref_qmul(ref.wr[head], rinv, rot);
        inv(rot, rinv);
        for (int k = 0; k < 3; k++) d[k] = three[i].target[k] - o[k];
        ref_qrot(rinv, d, l);
        double yaw = atan2(l[0], l[2]) * 180 / PI, pitch = atan2(-l[1], sqrt(l[0] * l[0] + l[2] * l[2])) * 180 / PI;
        float target[3] = {(float)three[i].target[0], (float)three[i].target[1], (float)three[i].target[2]};
        double my_yaw, my_pitch, w[4];
        CHECK(mr_vrm_look_at_angles(sk, v, &pose, target, &my_yaw, &my_pitch) == MR_OK);
        worst_spec = fmax(worst_spec, fmax(fabs(my_yaw - yaw), fabs(my_pitch - pitch)));
        worst3 = fmax(worst3, fmax(fabs(my_yaw - three[i].yaw), fabs(my_pitch - three[i].pitch)));
        mr_vrm_look_at_weights(v, my_yaw, my_pitch, w);
        for (int k = 0; k < 4; k++) worst_w = fmax(worst_w, fabs(w[k] - three[i].w[k]));
        /* the specification's table with the sample's maps (90 degrees -> 1) */
        CHECK_NEAR(w[0], yaw > 0 ? fmin(yaw, 90) / 90 : 0, 1e-5);
        CHECK_NEAR(w[2], pitch < 0 ? fmin(-pitch, 90) / 90 : 0, 1e-5);
    }
    CHECK_MSG(worst_spec < 1e-4, "yaw/pitch %.3g degrees from the specification's", worst_spec);
    CHECK_MSG(worst3 < 1e-4, "yaw/pitch %.3g degrees from three-vrm's", worst3);
    CHECK_MSG(worst_w < 1e-5, "look weights %.3g from three-vrm's", worst_w);
    printf("       sample, 4 targets: yaw/pitch within %.2g deg of the specification, %.2g of three-vrm; weights within %.2g\n",
           worst_spec, worst3, worst_w);
    mr_pose_deinit(&pose);
    mr_model_destroy(m);
}

TEST(look_at_expression_weights_and_range_maps)
{
    mr_vrm v = {0};
    v.look_at.present = 1;
    v.look_at.type = MR_VRM_LOOK_AT_EXPRESSION;
    v.look_at.inner = (mr_vrm_range_map){90, 0.3f};
    v.look_at.outer = (mr_vrm_range_map){40, 0.8f};
    v.look_at.down = (mr_vrm_range_map){30, 1.0f};
    v.look_at.up = (mr_vrm_range_map){60, 0.5f};
    static const double yp[][2] = {{10, 5}, {-20, -15}, {70, 45}, {-100, -80}, {0, 0}, {39.9, -59.9}};
    for (size_t i = 0; i < sizeof yp / sizeof *yp; i++) {
        double w[4], yaw = yp[i][0], pitch = yp[i][1];
        mr_vrm_look_at_weights(&v, yaw, pitch, w);
        /* lookLeft, lookRight from the outer map, lookUp, lookDown */
        CHECK_NEAR(w[0], yaw > 0 ? fmin(yaw, 40) / 40 * 0.8 : 0, 1e-6);
        CHECK_NEAR(w[1], yaw < 0 ? fmin(-yaw, 40) / 40 * 0.8 : 0, 1e-6);
        CHECK_NEAR(w[2], pitch < 0 ? fmin(-pitch, 60) / 60 * 0.5 : 0, 1e-6);
        CHECK_NEAR(w[3], pitch > 0 ? fmin(pitch, 30) / 30 * 1.0 : 0, 1e-6);
    }
    /* inputMaxValue 0: 0 for 0, outputScale for anything else (0.01 floor) */
    mr_vrm_range_map z = {0, 0.7f};
    CHECK_NEAR(mr_vrm_look_at_map(&z, 0), 0, 0);
    CHECK_NEAR(mr_vrm_look_at_map(&z, 0.5), 0.7, 1e-6);
    double w[4];
    mr_vrm_look_at_weights(&v, NAN, 1, w);
    CHECK(w[0] == 0 && w[1] == 0 && w[2] == 0 && w[3] == 0);
}

TEST(vrm0_look_at_faces_minus_z_and_bad_settings_name_their_path)
{
    /* a VRM 0.x avatar faces -Z: a target straight ahead of it is yaw 0, one at -X (its left) yaw +90 */
    static const char vrm0[] =
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
        "\"nodes\":[{\"name\":\"hips\",\"translation\":[0,1,0],\"children\":[1]},{\"name\":\"head\",\"translation\":[0,0.5,0]}],"
        "\"extensions\":{\"VRM\":{\"humanoid\":{\"humanBones\":[{\"bone\":\"hips\",\"node\":0},{\"bone\":\"head\",\"node\":1}]},"
        "\"firstPerson\":{\"firstPersonBoneOffset\":{\"x\":0,\"y\":0.1,\"z\":0.05},\"lookAtTypeName\":\"BlendShape\","
        "\"lookAtHorizontalOuter\":{\"curve\":[0,0,0,1,1,1,1,0],\"xRange\":90,\"yRange\":1}}}}}";
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK_MSG(mr_gltf_parse("zero.vrm", vrm0, strlen(vrm0), &m, &err) == MR_OK, "%s", err.msg);
    if (m && m->vrm) {
        const mr_vrm_look_at *la = &m->vrm->look_at;
        CHECK(la->present && la->face_minus_z && la->type == MR_VRM_LOOK_AT_EXPRESSION);
        CHECK_NEAR(la->offset[2], -0.05, 1e-7);          /* 0.x's z points the other way */
        CHECK_NEAR(la->up.output_scale, 1, 0);           /* expression default */
        mr_pose pose;
        mr_pose_init(&pose, m->skeleton.joint_count);
        mr_pose_set_rest(&pose, &m->skeleton);
        double yaw, pitch;
        float ahead[3] = {0, 1.6f, -5.05f}, left[3] = {-3, 1.6f, -0.05f};
        CHECK(mr_vrm_look_at_angles(&m->skeleton, m->vrm, &pose, ahead, &yaw, &pitch) == MR_OK);
        CHECK_NEAR(yaw, 0, 1e-5);
        CHECK_NEAR(pitch, 0, 1e-5);
        CHECK(mr_vrm_look_at_angles(&m->skeleton, m->vrm, &pose, left, &yaw, &pitch) == MR_OK);
        CHECK_NEAR(yaw, 90, 1e-5);
        mr_pose_deinit(&pose);
    }
    mr_model_destroy(m);
    static const struct { const char *look, *expect; } cases[] = {
        {"{\"type\":\"eyes\"}", "/extensions/VRMC_vrm/lookAt: type: expected \"bone\" or \"expression\""},
        {"{\"offsetFromHeadBone\":[0,1]}", "/extensions/VRMC_vrm/lookAt: 'offsetFromHeadBone': expected 3 numbers"},
        {"{\"rangeMapVerticalUp\":{\"inputMaxValue\":200}}", "/extensions/VRMC_vrm/lookAt/rangeMapVerticalUp: inputMaxValue: expected a number in 0..180"},
        {"{\"rangeMapHorizontalInner\":3}", "/extensions/VRMC_vrm/lookAt/rangeMapHorizontalInner: expected an object"},
        {"7", "/extensions/VRMC_vrm/lookAt: expected an object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[1024];
        snprintf(text, sizeof text, "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
                 "\"nodes\":[{\"name\":\"head\"}],\"extensions\":{\"VRMC_vrm\":{\"specVersion\":\"1.0\","
                 "\"humanoid\":{\"humanBones\":{\"head\":{\"node\":0}}},\"lookAt\":%s}}}", cases[i].look);
        m = NULL;
        CHECK(mr_gltf_parse("bad.vrm", text, strlen(text), &m, &err) == MR_ERR_BAD_FILE);
        CHECK_STR_CONTAINS(err.msg, cases[i].expect);
        mr_model_destroy(m);
    }
}

int main(void)
{
    RUN(constraints_load_with_their_types_axes_weights_and_a_dependency_order);
    RUN(each_constraint_type_matches_the_specification_and_three_vrm);
    RUN(weight_zero_keeps_the_rest_and_constraints_replace_what_the_pose_held);
    RUN(saving_and_loading_keeps_the_constraints_and_what_they_do);
    RUN(bad_constraints_fail_the_load_naming_the_json_path);
    RUN(the_order_job_refuses_what_the_loader_cannot_write);
    RUN(look_at_yaw_pitch_and_eye_bones_follow_the_specification);
    RUN(look_at_on_the_vrm_sample_matches_the_specification_and_three_vrm);
    RUN(look_at_expression_weights_and_range_maps);
    RUN(vrm0_look_at_faces_minus_z_and_bad_settings_name_their_path);
    return test_summary("vrm_constraints");
}
