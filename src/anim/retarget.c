/* retarget.c — a clip of one skeleton played on another (see retarget.h). */
#include "anim/retarget.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/axes.h"
#include "anim/ik.h"
#include "core/alloc.h"
#include "core/quat.h"

#define CONTACT_SPEED 0.25f      /* leg lengths per second */
#define CONTACT_HEIGHT 0.02f     /* leg lengths above the lowest point */
#define CONTACT_FADE 0.15f       /* seconds of IK fade around a contact */

static int up_index(mr_up_axis up) { return up == MR_UP_Z ? 2 : up == MR_UP_X ? 0 : 1; }

/* Model-space rotations of every joint of a pose (parents first). Scale is
 * left out: it does not turn a child for the uniform scales rigs use. */
static void model_rotations(const mr_skeleton *sk, const versor *local, versor *g)
{
    for (int j = 0; j < sk->joint_count; j++) {
        int p = sk->parents[j];
        if (p < 0) glm_quat_copy((float *)local[j], g[j]);
        else glm_quat_mul(g[p], (float *)local[j], g[j]);
        glm_quat_normalize(g[j]);
    }
}

/* Model-space rotation of one joint (its chain from the root). */
static void chain_rotation(const mr_skeleton *sk, const mr_pose *pose, int j, versor out)
{
    int chain[MR_MAX_JOINTS], n = 0;
    for (int k = j; k >= 0 && n < MR_MAX_JOINTS; k = sk->parents[k]) chain[n++] = k;
    glm_quat_identity(out);
    while (n > 0) glm_quat_mul(out, pose->r[chain[--n]], out);
    glm_quat_normalize(out);
}

static int is_ancestor(const mr_skeleton *sk, int a, int d)
{
    for (int k = sk->parents[d]; k >= 0; k = sk->parents[k])
        if (k == a) return 1;
    return 0;
}

/* Deepest joint that is j itself or an ancestor of both a and b, -1 for
 * different trees. */
static int common_ancestor(const mr_skeleton *sk, int a, int b)
{
    if (a < 0) return b;
    for (int k = a; k >= 0; k = sk->parents[k])
        if (k == b || is_ancestor(sk, k, b)) return k;
    return -1;
}

/* Orthonormal frame (columns) from a primary and a secondary direction; 0
 * when the primary is degenerate, 1 for the primary alone, 2 for both. */
static int frame_of(const vec3 d1, const vec3 d2, mat3 f)
{
    vec3 a, b, c;
    if (glm_vec3_norm((float *)d1) < 1e-8f) return 0;
    glm_vec3_normalize_to((float *)d1, a);
    int n = 2;
    vec3 t;
    glm_vec3_copy((float *)d2, t);
    glm_vec3_muladds(a, -glm_vec3_dot(a, t), t);
    if (glm_vec3_norm(t) < 1e-4f * (glm_vec3_norm((float *)d2) + 1e-8f) || glm_vec3_norm(t) < 1e-8f) {
        /* any perpendicular: only the primary direction matters */
        vec3 other = {1, 0, 0};
        if (fabsf(a[0]) > 0.9f) glm_vec3_copy((vec3){0, 1, 0}, other);
        glm_vec3_cross(a, other, t);
        n = 1;
    }
    glm_vec3_normalize_to(t, b);
    glm_vec3_cross(a, b, c);
    glm_vec3_copy(a, f[0]);
    glm_vec3_copy(b, f[1]);
    glm_vec3_copy(c, f[2]);
    return n;
}

/* Rotation taking target rest directions (t1, t2) onto source rest
 * directions (s1, s2); count 1 uses the first pair only. */
static void align(const vec3 t1, const vec3 t2, const vec3 s1, const vec3 s2, int count, versor q)
{
    mat3 ft, fs, r;
    if (count >= 2 && frame_of(t1, t2, ft) == 2 && frame_of(s1, s2, fs) == 2) {
        glm_mat3_transpose(ft);
        glm_mat3_mul(fs, ft, r);
        glm_mat3_quat(r, q);
        glm_quat_normalize(q);
        return;
    }
    mr_quat_from_to(t1, s1, q);
}

float mr_retarget_leg_length(const mr_skeleton *sk)
{
    mr_pose rest = {0};
    mat4 *m = mr_alloc_array((size_t)(sk->joint_count + 1), sizeof *m);
    float sum = 0.0f;
    int sides = 0;
    if (m && mr_pose_init(&rest, sk->joint_count) == MR_OK && mr_pose_set_rest(&rest, sk) == MR_OK &&
        mr_pose_to_model(sk, &rest, m) == MR_OK) {
        for (int sd = MR_SIDE_LEFT; sd <= MR_SIDE_RIGHT; sd++) {
            int a = mr_joint_map_find_role(sk, MR_ROLE_THIGH, sd);
            int b = mr_joint_map_find_role(sk, MR_ROLE_CALF, sd);
            int c = mr_joint_map_find_role(sk, MR_ROLE_FOOT, sd);
            if (a < 0 || b < 0 || c < 0) continue;
            sum += glm_vec3_distance(m[a][3], m[b][3]) + glm_vec3_distance(m[b][3], m[c][3]);
            sides++;
        }
    }
    mr_pose_deinit(&rest);
    free(m);
    return sides ? sum / sides : 0.0f;
}

/* Sorted key times of every track of the clip, gaps cut to at most
 * 1/MR_RETARGET_MIN_RATE. Returns the count, 0 without memory, -1 over the limit. */
static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static int key_times(const mr_clip *clip, float **out)
{
    size_t total = 0;
    for (int j = 0; j < clip->joint_count; j++) {
        for (int ch = 0; ch < 3; ch++) total += (size_t)mr_clip_track(clip, j, ch)->key_count;
    }
    float *all = mr_alloc_array(total + 1, sizeof *all);
    if (!all) return 0;
    size_t n = 0;
    for (int j = 0; j < clip->joint_count; j++) {
        /* the refined tracks (clip.h) when there are some: their keys are
         * where the source's nlerp meets its slerp */
        const mr_track *tr[3] = {mr_clip_track(clip, j, 0), mr_clip_track(clip, j, 1), mr_clip_track(clip, j, 2)};
        for (int c = 0; c < 3; c++)
            for (int i = 0; i < tr[c]->key_count; i++) all[n++] = tr[c]->times[i];
    }
    if (n == 0) all[n++] = 0.0f;
    qsort(all, n, sizeof *all, cmp_float);
    size_t u = 1;
    for (size_t i = 1; i < n; i++)
        if (all[i] - all[u - 1] > 1e-6f * (1.0f + fabsf(all[i]))) all[u++] = all[i];
    /* Count with the gaps cut. */
    double count = 1;
    for (size_t i = 1; i < u; i++) {
        double pieces = ceil(((double)all[i] - all[i - 1]) * MR_RETARGET_MIN_RATE - 1e-3);
        count += pieces < 1 ? 1 : pieces;
    }
    if (count > MR_RETARGET_MAX_KEYS) {
        free(all);
        return -1;
    }
    float *times = mr_alloc_array((size_t)count, sizeof *times);
    if (!times) {
        free(all);
        return 0;
    }
    int k = 0;
    times[k++] = all[0];
    for (size_t i = 1; i < u; i++) {
        double a = all[i - 1], b = all[i];
        int pieces = (int)ceil((b - a) * MR_RETARGET_MIN_RATE - 1e-3);
        if (pieces < 1) pieces = 1;
        for (int p = 1; p < pieces; p++) times[k++] = (float)(a + (b - a) * p / pieces);
        times[k++] = all[i];
    }
    free(all);
    *out = times;
    return k;
}

/* A limb held on contacts: start -> mid -> end of the target, src the
 * source joint of end. */
typedef struct limb {
    int start, mid, end, src;
    int foot;                    /* 1 foot, 0 hand */
} limb;

/* Everything one retarget works with; freed by ctx_free. */
typedef struct ctx {
    const mr_skeleton *ss, *ts;
    mr_pose sp, tp;
    mat4 *sm, *tm;               /* model matrices of sp and tp */
    versor *sg, *tg;             /* model rotations */
    versor *sg0, *tg0, *align;   /* rests; alignment per target joint */
    vec3 *sp0, *tp0;             /* rest positions (source's in target space) */
    float *times;
    vec3 *src_end, *fk_end;      /* per limb and key */
    float *weight;               /* per limb and key */
    vec3 *lock;                  /* per limb and key */
    int *rot_track;              /* per target joint: 1 when the new clip has a rotation track */
} ctx;

static void ctx_free(ctx *c)
{
    mr_pose_deinit(&c->sp);
    mr_pose_deinit(&c->tp);
    free(c->sm); free(c->tm); free(c->sg); free(c->tg);
    free(c->sg0); free(c->tg0); free(c->align); free(c->sp0); free(c->tp0);
    free(c->times); free(c->src_end); free(c->fk_end); free(c->weight); free(c->lock);
    free(c->rot_track);
}

/* p_out = scale * rot * p (source model space to target model space). */
static void to_target(const mat3 rot, float scale, const vec3 p, vec3 out)
{
    vec3 r;
    glm_mat3_mulv((vec3 *)rot, (float *)p, r);
    glm_vec3_scale(r, scale, out);
}

/* Length of v without its component along axis up. */
static float horizontal_norm(const vec3 v, int up)
{
    vec3 h = {v[0], v[1], v[2]};
    h[up] = 0;
    return glm_vec3_norm(h);
}

static float smooth01(float x)
{
    x = x < 0 ? 0 : x > 1 ? 1 : x;
    return x * x * (3 - 2 * x);
}

/* Velocity of the source's end joint at key i (central difference). */
static void end_velocity(const ctx *c, const vec3 *p, int i, int nkeys, vec3 v)
{
    int a = i > 0 ? i - 1 : i, b = i < nkeys - 1 ? i + 1 : i;
    float dt = c->times[b] - c->times[a];
    glm_vec3_sub((float *)p[b], (float *)p[a], v);
    glm_vec3_scale(v, dt > 0 ? 1.0f / dt : 0.0f, v);
}

/* The ground's velocity under the source's feet: zero for a clip that
 * moves its root, the treadmill speed for one that walks in place. The
 * horizontal velocity most of the feet's moves between two low keys share
 * (the densest cluster: lift-off and touch-down, which would drag a mean,
 * spread out) — or zero when at least half as many are that near zero. */
static void ground_velocity(const ctx *c, const limb *limbs, int nlimbs, int nkeys, float leg, int up,
                            const float *minh, vec3 out)
{
    glm_vec3_zero(out);
    float *v = mr_alloc_array((size_t)nlimbs * (size_t)nkeys * 3 + 1, sizeof *v);
    int n = 0;
    for (int l = 0; v && l < nlimbs; l++) {
        if (!limbs[l].foot) continue;
        const vec3 *p = c->src_end + (size_t)l * nkeys;
        for (int i = 0; i + 1 < nkeys; i++) {
            /* between two low keys: a central difference would mix in the
             * swing at a contact's ends */
            float dt = c->times[i + 1] - c->times[i];
            if (p[i][up] - minh[l] >= CONTACT_HEIGHT * leg || p[i + 1][up] - minh[l] >= CONTACT_HEIGHT * leg ||
                !(dt > 0))
                continue;
            glm_vec3_sub((float *)p[i + 1], (float *)p[i], v + 3 * n);
            glm_vec3_scale(v + 3 * n, 1.0f / dt, v + 3 * n);
            v[3 * n + up] = 0;
            n++;
        }
    }
    /* the densest cluster: the sample with the most others within a tenth
     * of the contact speed, and the mean of those */
    float win = 0.1f * CONTACT_SPEED * leg;
    int best = -1, best_count = 0;
    for (int i = 0; i < n; i++) {
        int count = 0;
        for (int k = 0; k < n; k++) count += glm_vec3_distance(v + 3 * i, v + 3 * k) < win;
        if (count > best_count) { best_count = count; best = i; }
    }
    /* Standing ground wins unless the cluster clearly outnumbers the
     * samples around zero: motion capture whose root travels has its
     * planted feet jitter, and a cluster a few mm/s off zero would make
     * every held foot creep. */
    int at_zero = 0;
    for (int k = 0; k < n; k++) at_zero += glm_vec3_norm(v + 3 * k) < win;
    if (best >= 0 && 2 * at_zero < best_count) {
        vec3 sum = {0, 0, 0};
        for (int k = 0; k < n; k++)
            if (glm_vec3_distance(v + 3 * best, v + 3 * k) < win) glm_vec3_add(sum, v + 3 * k, sum);
        glm_vec3_scale(sum, 1.0f / (float)best_count, out);
    }
    free(v);
}

/* Finds the contacts of one limb over the keys and fills its weights and
 * lock points: a contact holds the end on a point moving with the ground
 * (vg: the source's, vt: the target's ground velocity). Returns the number
 * of contacts found. */
static int find_contacts(ctx *c, const limb *lb, int li, int nkeys, float leg, int up, float minh, float scale,
                         const vec3 vg, const vec3 vt, mr_retarget_info *info)
{
    vec3 *p = c->src_end + (size_t)li * nkeys, *fk = c->fk_end + (size_t)li * nkeys;
    float *w = c->weight + (size_t)li * nkeys;
    vec3 *lock = c->lock + (size_t)li * nkeys;
    unsigned char *still = calloc((size_t)nkeys, 1);
    if (!still) return 0;
    for (int i = 0; i < nkeys; i++) {
        vec3 v;
        end_velocity(c, p, i, nkeys, v);
        still[i] = glm_vec3_distance(v, (float *)vg) < CONTACT_SPEED * leg &&
                   (!lb->foot || p[i][up] - minh < CONTACT_HEIGHT * leg);
    }
    int found = 0;
    for (int i = 0; i < nkeys; i++) w[i] = 0.0f;
    for (int i = 0; i < nkeys;) {
        if (!still[i]) { i++; continue; }
        int a = i;
        while (i < nkeys && still[i]) i++;
        int b = i - 1;
        if (b == a) continue;
        /* the point at the contact's start that keeps the IK corrections least */
        vec3 avg = {0, 0, 0};
        for (int k = a; k <= b; k++) {
            vec3 q;
            glm_vec3_scale((float *)vt, c->times[k] - c->times[a], q);
            glm_vec3_sub(fk[k], q, q);
            glm_vec3_add(avg, q, avg);
        }
        glm_vec3_scale(avg, 1.0f / (float)(b - a + 1), avg);
        if (lb->foot) {
            /* on the target's floor: as high above its rest height as the
             * source's foot is above its lowest, times the scale */
            float h = 0;
            for (int k = a; k <= b; k++) h += p[k][up] - minh;
            avg[up] = c->tp0[lb->end][up] + scale * h / (float)(b - a + 1);
        }
        if (info) {
            if (info->contact_count < MR_RETARGET_MAX_CONTACTS) {
                mr_retarget_contact *ct = &info->contacts[info->contact_count];
                ct->joint = lb->end;
                ct->start = c->times[a];
                ct->end = c->times[b];
                glm_vec3_copy(avg, ct->point);
            }
            info->contact_count++;
        }
        found++;
        /* Inside: held; around it: faded, unless a nearer contact holds more. */
        for (int k = 0; k < nkeys; k++) {
            float d = c->times[k] < c->times[a] ? c->times[a] - c->times[k]
                    : c->times[k] > c->times[b] ? c->times[k] - c->times[b] : 0.0f;
            float wk = d == 0.0f ? 1.0f : smooth01(1.0f - d / CONTACT_FADE);
            if (wk > w[k]) {
                w[k] = wk;
                glm_vec3_copy(avg, lock[k]);
                glm_vec3_muladds((float *)vt, c->times[k] - c->times[a], lock[k]);
            }
        }
    }
    free(still);
    return found;
}

/* ---- mr_retarget_clip, phase by phase ------------------------------------
 * The phases share one ctx (joint arrays above, the run's settings below)
 * and run in this order: check, allocate, rests, map roots, rest alignment,
 * root scale, limbs, new clip, every key, contacts, finish. */

/* What one run of mr_retarget_clip decided so far. */
typedef struct run {
    ctx c;
    const mr_clip *clip;
    const mr_model *source, *target;
    const mr_joint_map *map;
    const mr_retarget_opts *opts;
    int ns, nt;
    mat3 crot;                   /* source model space -> target model space */
    float cscale;
    versor cq, cqi;
    int rt, rs;                  /* roots of the map (target, source); -1: none */
    versor body;                 /* the body's turn onto the source */
    float scale;                 /* root translation scale */
    mat4 root_parent_inv;
    limb limbs[4];
    int nlimbs, nkeys;
    float root_travel;           /* farthest the source root strays sideways from rest, target units */
    mr_clip *res;
} run;

static mr_status check_args(const mr_clip *clip, const mr_model *source, const mr_model *target,
                            const mr_joint_map *map, const mr_retarget_opts *opts, mr_error *err)
{
    if (!clip || !source || !target || !map)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "retarget: missing clip, model or map");
    const mr_skeleton *ss = &source->skeleton, *ts = &target->skeleton;
    if (clip->joint_count != ss->joint_count || map->source_count != ss->joint_count ||
        map->target_count != ts->joint_count)
        return mr_error_set(err, MR_ERR_JOINT_COUNT,
                            "retarget: clip '%s' has %d joints, source skeleton %d, target %d; the map is "
                            "for %d -> %d",
                            clip->name, clip->joint_count, ss->joint_count, ts->joint_count,
                            map->source_count, map->target_count);
    if (!(isfinite(opts->scale) && opts->scale >= 0))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "retarget: scale %g is not a finite number >= 0",
                            opts->scale);
    if (mr_joint_map_count(map) == 0)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                            "retarget: no joint of '%s' maps to a joint of '%s'", source->path, target->path);
    for (int j = 0; j < map->target_count; j++)
        if (map->source_of[j] >= ss->joint_count)
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "retarget: map entry %d is out of range", j);
    return MR_OK;
}

/* The per-joint arrays; 0, or -1 without memory. */
static int alloc_joints(ctx *c, int ns, int nt)
{
    c->sm = mr_alloc_array((size_t)ns, sizeof *c->sm);
    c->tm = mr_alloc_array((size_t)nt, sizeof *c->tm);
    c->sg = mr_alloc_array((size_t)ns, sizeof *c->sg);
    c->tg = mr_alloc_array((size_t)nt, sizeof *c->tg);
    c->sg0 = mr_alloc_array((size_t)ns, sizeof *c->sg0);
    c->tg0 = mr_alloc_array((size_t)nt, sizeof *c->tg0);
    c->align = mr_alloc_array((size_t)nt, sizeof *c->align);
    c->sp0 = mr_alloc_array((size_t)ns, sizeof *c->sp0);
    c->tp0 = mr_alloc_array((size_t)nt, sizeof *c->tp0);
    c->rot_track = mr_alloc_array((size_t)nt, sizeof *c->rot_track);
    if (!c->sm || !c->tm || !c->sg || !c->tg || !c->sg0 || !c->tg0 || !c->align || !c->sp0 || !c->tp0 ||
        !c->rot_track || mr_pose_init(&c->sp, ns) != MR_OK || mr_pose_init(&c->tp, nt) != MR_OK)
        return -1;
    return 0;
}

/* Source model space -> target model space, and both rests in it. Leaves
 * the target's rest matrices in c.tm until the first key. */
static void rests(run *r)
{
    ctx *c = &r->c;
    const mr_skeleton *ss = c->ss, *ts = c->ts;
    mr_axes_conversion(r->source->axes, r->target->axes, r->crot, &r->cscale);
    glm_mat3_quat(r->crot, r->cq);
    glm_quat_normalize(r->cq);
    glm_quat_inv(r->cq, r->cqi);

    mr_pose_set_rest(&c->sp, ss);
    mr_pose_set_rest(&c->tp, ts);
    mr_pose_to_model(ss, &c->sp, c->sm);
    mr_pose_to_model(ts, &c->tp, c->tm);
    model_rotations(ss, c->sp.r, c->sg0);
    model_rotations(ts, c->tp.r, c->tg0);
    for (int j = 0; j < r->ns; j++) to_target(r->crot, r->cscale, c->sm[j][3], c->sp0[j]);
    for (int j = 0; j < r->nt; j++) glm_vec3_copy(c->tm[j][3], c->tp0[j]);
}

/* Roots of the map: the common ancestors of the mapped joints. */
static void map_roots(run *r)
{
    const mr_skeleton *ss = r->c.ss, *ts = r->c.ts;
    const mr_joint_map *map = r->map;
    int rt = -2, rs = -2;
    for (int j = 0; j < r->nt; j++) {
        int s = map->source_of[j];
        if (s < 0) continue;
        rt = rt == -2 ? j : common_ancestor(ts, rt, j);
        rs = rs == -2 ? s : common_ancestor(ss, rs, s);
    }
    if (rt < 0 || rs < 0) rt = rs = -1;
    if (rs >= 0 && ss->parents[rs] >= 0) {
        /* a map of a part (an arm): its root follows its parent, unmoved */
        int hips = mr_joint_map_find_role(ss, MR_ROLE_HIPS, MR_SIDE_CENTRE);
        if (hips < 0 || !(hips == rs || is_ancestor(ss, rs, hips))) rt = rs = -1;
    }
    r->rt = rt;
    r->rs = rs;
}

/* Rest alignment, in the target's model space. First the body as a
 * whole (a character may face another way than the source): up from the
 * hips to the head, across from the right thigh to the left. */
static void align_body(run *r)
{
    ctx *c = &r->c;
    const mr_skeleton *ts = c->ts;
    const mr_joint_map *map = r->map;
    glm_quat_identity(r->body);
    if (r->opts->keep_rest) return;
    int pick[4][2] = {{MR_ROLE_HEAD, MR_ROLE_NECK}, {MR_ROLE_HIPS, MR_ROLE_SPINE},
                      {MR_ROLE_THIGH, MR_ROLE_UPPERARM}, {MR_ROLE_THIGH, MR_ROLE_UPPERARM}};
    const mr_joint_side side[4] = {MR_SIDE_CENTRE, MR_SIDE_CENTRE, MR_SIDE_LEFT, MR_SIDE_RIGHT};
    int tj[4], ok = 1;
    for (int k = 0; k < 4; k++) {
        tj[k] = mr_joint_map_find_role(ts, pick[k][0], side[k]);
        if (tj[k] < 0 || map->source_of[tj[k]] < 0) tj[k] = mr_joint_map_find_role(ts, pick[k][1], side[k]);
        if (tj[k] < 0 || map->source_of[tj[k]] < 0) ok = 0;
    }
    if (ok && tj[2] == tj[3]) ok = 0;
    if (ok) {
        vec3 tu, tx, su, sx;
        glm_vec3_sub(c->tp0[tj[0]], c->tp0[tj[1]], tu);
        glm_vec3_sub(c->tp0[tj[2]], c->tp0[tj[3]], tx);
        glm_vec3_sub(c->sp0[map->source_of[tj[0]]], c->sp0[map->source_of[tj[1]]], su);
        glm_vec3_sub(c->sp0[map->source_of[tj[2]]], c->sp0[map->source_of[tj[3]]], sx);
        if (glm_vec3_norm(tu) > 1e-8f && glm_vec3_norm(su) > 1e-8f) align(tu, tx, su, sx, 2, r->body);
    }
}

/* Whether target joint j is a clavicle (its role in the map, else by name). */
static int is_clavicle(const mr_joint_map *map, const mr_skeleton *ts, int j)
{
    if (map->role_of && map->role_of[j] >= 0) return map->role_of[j] == MR_ROLE_CLAVICLE;
    mr_joint_side side;
    int ambiguous;
    return mr_joint_role_of(ts->names[j], &side, &ambiguous) == MR_ROLE_CLAVICLE;
}

/* Then each joint: its bones (toward its mapped children) turned onto
 * the source's, starting from the body's turn (clavicles excepted). */
static void align_joints(run *r)
{
    ctx *c = &r->c;
    const mr_skeleton *ss = c->ss, *ts = c->ts;
    const mr_joint_map *map = r->map;
    int nt = r->nt;
    for (int j = 0; j < nt; j++) {
        glm_quat_copy(r->body, c->align[j]);
        int s = map->source_of[j];
        if (s < 0 || r->opts->keep_rest) continue;
        int kids[2], nk = 0;
        /* A clavicle keeps its own rest direction: rigs place it apart (CMU's
         * starts at the spine and rises 20 degrees to the shoulder, the
         * mannequin's lies level), so turning its bone onto the source's
         * would lift the shoulders by the difference in every frame. It takes
         * its mapped ancestor's alignment, as a joint without mapped children,
         * and only the source's motion from its rest. */
        if (is_clavicle(map, ts, j)) nk = -1;
        for (int k = j + 1; nk >= 0 && k < nt && nk < 2; k++) {
            int sk = map->source_of[k];
            if (sk < 0 || !is_ancestor(ts, j, k) || !is_ancestor(ss, s, sk)) continue;
            int direct = 1;    /* no mapped joint between j and k */
            for (int a = ts->parents[k]; a != j; a = ts->parents[a])
                if (map->source_of[a] >= 0) direct = 0;
            if (direct) kids[nk++] = k;
        }
        if (nk <= 0) {
            for (int a = ts->parents[j]; a >= 0; a = ts->parents[a])
                if (map->source_of[a] >= 0) {
                    glm_quat_copy(c->align[a], c->align[j]);
                    break;
                }
            continue;
        }
        if (nk == 1) {
            /* one bone: turn it (already turned with the body) onto the source's */
            vec3 t1, s1, tb;
            glm_vec3_sub(c->tp0[kids[0]], c->tp0[j], t1);
            glm_vec3_sub(c->sp0[map->source_of[kids[0]]], c->sp0[s], s1);
            if (glm_vec3_norm(t1) < 1e-8f || glm_vec3_norm(s1) < 1e-8f) continue;
            glm_quat_rotatev(r->body, t1, tb);
            versor turn;
            mr_quat_from_to(tb, s1, turn);
            glm_quat_mul(turn, r->body, c->align[j]);
            glm_quat_normalize(c->align[j]);
            continue;
        }
        vec3 t1, t2 = {0, 0, 0}, s1, s2 = {0, 0, 0};
        glm_vec3_sub(c->tp0[kids[0]], c->tp0[j], t1);
        glm_vec3_sub(c->sp0[map->source_of[kids[0]]], c->sp0[s], s1);
        if (nk > 1) {
            glm_vec3_sub(c->tp0[kids[1]], c->tp0[j], t2);
            glm_vec3_sub(c->sp0[map->source_of[kids[1]]], c->sp0[s], s2);
        }
        if (glm_vec3_norm(t1) < 1e-8f || glm_vec3_norm(s1) < 1e-8f) continue;
        align(t1, t2, s1, s2, nk, c->align[j]);
    }
}

/* Root translation scale (opts, leg lengths or heights), and the inverse of
 * the root's parent at rest (c.tm still holds the target's rest). */
static void root_scale(run *r)
{
    const mr_skeleton *ss = r->c.ss, *ts = r->c.ts;
    float scale = r->opts->scale;
    if (scale == 0.0f) {
        float lt = mr_retarget_leg_length(ts), ls = mr_retarget_leg_length(ss) * r->cscale;
        if (lt > 0 && ls > 0) {
            scale = lt / ls;
        } else {
            vec3 a0, a1, b0, b1;
            int ut = up_index(r->target->axes.up), us = up_index(r->source->axes.up);
            if (mr_model_bounds(r->target, a0, a1) && mr_model_bounds(r->source, b0, b1) && b1[us] > b0[us])
                scale = (a1[ut] - a0[ut]) / ((b1[us] - b0[us]) * r->cscale);
            if (!(scale > 0) || !isfinite(scale)) scale = 1.0f;
        }
    }
    r->scale = scale;
    glm_mat4_identity(r->root_parent_inv);
    if (r->rt >= 0 && ts->parents[r->rt] >= 0) glm_mat4_inv(r->c.tm[ts->parents[r->rt]], r->root_parent_inv);
}

/* Limbs held on contacts: feet and hands as opts ask, where the target
 * has the whole chain and the end is mapped. */
static void find_limbs(run *r)
{
    const mr_skeleton *ts = r->c.ts;
    r->nlimbs = 0;
    for (int kind = 0; kind < 2; kind++) {
        if (kind == 0 ? !r->opts->feet : !r->opts->hands) continue;
        for (int sd = MR_SIDE_LEFT; sd <= MR_SIDE_RIGHT; sd++) {
            limb lb = {
                .start = mr_joint_map_find_role(ts, kind == 0 ? MR_ROLE_THIGH : MR_ROLE_UPPERARM, sd),
                .mid = mr_joint_map_find_role(ts, kind == 0 ? MR_ROLE_CALF : MR_ROLE_FOREARM, sd),
                .end = mr_joint_map_find_role(ts, kind == 0 ? MR_ROLE_FOOT : MR_ROLE_HAND, sd),
                .foot = kind == 0,
            };
            if (lb.start < 0 || lb.mid < 0 || lb.end < 0 || r->map->source_of[lb.end] < 0) continue;
            if (!is_ancestor(ts, lb.start, lb.mid) || !is_ancestor(ts, lb.mid, lb.end)) continue;
            lb.src = r->map->source_of[lb.end];
            r->limbs[r->nlimbs++] = lb;
        }
    }
}

/* Key times and the new clip with its tracks. MR_OK, MR_ERR_LIMIT (err
 * set), or MR_ERR_NO_MEMORY (err not set; also for a clip of no keys). */
static mr_status new_clip(run *r, mr_error *err)
{
    ctx *c = &r->c;
    int nt = r->nt;
    r->nkeys = key_times(r->clip, &c->times);
    if (r->nkeys < 0)
        return mr_error_set(err, MR_ERR_LIMIT, "retarget: clip '%s' would need more than %d keys", r->clip->name,
                            MR_RETARGET_MAX_KEYS);
    if (r->nkeys == 0) return MR_ERR_NO_MEMORY;
    if (r->nlimbs) {
        size_t n = (size_t)r->nlimbs * (size_t)r->nkeys;
        c->src_end = mr_alloc_array(n, sizeof *c->src_end);
        c->fk_end = mr_alloc_array(n, sizeof *c->fk_end);
        c->weight = mr_alloc_array(n, sizeof *c->weight);
        c->lock = mr_alloc_array(n, sizeof *c->lock);
        if (!c->src_end || !c->fk_end || !c->weight || !c->lock) return MR_ERR_NO_MEMORY;
    }
    mr_clip_create(r->clip->name, nt, &r->res);
    if (!r->res) return MR_ERR_NO_MEMORY;
    mr_clip *res = r->res;
    for (int j = 0; j < nt; j++) c->rot_track[j] = r->map->source_of[j] >= 0;
    for (int l = 0; l < r->nlimbs; l++)
        c->rot_track[r->limbs[l].start] = c->rot_track[r->limbs[l].mid] = c->rot_track[r->limbs[l].end] = 1;
    for (int j = 0; j < nt; j++)
        if (c->rot_track[j] && mr_track_init(&res->tracks[j].r, r->nkeys, MR_INTERP_LINEAR) != MR_OK)
            return MR_ERR_NO_MEMORY;
    if (r->rt >= 0 && mr_track_init(&res->tracks[r->rt].t, r->nkeys, MR_INTERP_LINEAR) != MR_OK)
        return MR_ERR_NO_MEMORY;
    return MR_OK;
}

/* Every key: model-space motion of the source onto the target. */
static mr_status transfer_keys(run *r, mr_error *err)
{
    ctx *c = &r->c;
    const mr_skeleton *ss = c->ss, *ts = c->ts;
    const mr_joint_map *map = r->map;
    mr_clip *res = r->res;
    int nt = r->nt, rt = r->rt, rs = r->rs, nkeys = r->nkeys;
    mat4 parent_inv;
    glm_mat4_copy(r->root_parent_inv, parent_inv);
    vec3 src_root0 = {0, 0, 0}, tgt_root0 = {0, 0, 0};
    r->root_travel = 0;
    if (rt >= 0) {
        glm_vec3_copy(c->sp0[rs], src_root0);
        glm_vec3_copy(c->tp0[rt], tgt_root0);
    }
    for (int i = 0; i < nkeys; i++) {
        float t = c->times[i];
        mr_status st;
        if ((st = mr_clip_sample_keys(r->clip, ss, t, MR_WRAP_CLAMP, &c->sp)) != MR_OK)
            return mr_error_set(err, st, "retarget: clip '%s' does not sample at %g s", r->clip->name, t);
        model_rotations(ss, c->sp.r, c->sg);
        mr_pose_to_model(ss, &c->sp, c->sm);
        for (int j = 0; j < nt; j++) {
            int s = map->source_of[j], p = ts->parents[j];
            if (s >= 0) {
                /* D = cq * sg(t) * sg0^-1 * cq^-1, then D * align * tg0 */
                versor d, tmp, inv0;
                glm_quat_inv(c->sg0[s], inv0);
                glm_quat_mul(r->cq, c->sg[s], tmp);
                glm_quat_mul(tmp, inv0, tmp);
                glm_quat_mul(tmp, r->cqi, d);
                glm_quat_mul(d, c->align[j], tmp);
                glm_quat_mul(tmp, c->tg0[j], c->tg[j]);
                glm_quat_normalize(c->tg[j]);
            } else if (p >= 0) {
                glm_quat_mul(c->tg[p], ts->rest_r[j], c->tg[j]);
                glm_quat_normalize(c->tg[j]);
            } else {
                glm_quat_copy(ts->rest_r[j], c->tg[j]);
            }
            if (!c->rot_track[j]) continue;
            versor local;
            if (p >= 0) {
                versor pinv;
                glm_quat_inv(c->tg[p], pinv);
                glm_quat_mul(pinv, c->tg[j], local);
            } else {
                glm_quat_copy(c->tg[j], local);
            }
            glm_quat_normalize(local);
            memcpy(res->tracks[j].r.values + (size_t)i * 4, local, sizeof(versor));
            res->tracks[j].r.times[i] = t;
            glm_quat_copy(local, c->tp.r[j]);
        }
        if (rt >= 0) {
            vec3 src_now, dp, pos;
            to_target(r->crot, r->cscale, c->sm[rs][3], src_now);
            glm_vec3_sub(src_now, src_root0, dp);
            r->root_travel = fmaxf(r->root_travel, horizontal_norm(dp, up_index(r->target->axes.up)));
            glm_vec3_scale(dp, r->scale, dp);
            glm_vec3_add(tgt_root0, dp, pos);
            if (ts->parents[rt] >= 0) glm_mat4_mulv3(parent_inv, pos, 1.0f, pos);
            memcpy(res->tracks[rt].t.values + (size_t)i * 3, pos, sizeof(vec3));
            res->tracks[rt].t.times[i] = t;
            glm_vec3_copy(pos, c->tp.t[rt]);
        }
        if (r->nlimbs) {
            mr_pose_to_model(ts, &c->tp, c->tm);
            for (int l = 0; l < r->nlimbs; l++) {
                to_target(r->crot, r->cscale, c->sm[r->limbs[l].src][3], c->src_end[(size_t)l * nkeys + i]);
                glm_vec3_copy(c->tm[r->limbs[l].end][3], c->fk_end[(size_t)l * nkeys + i]);
            }
        }
    }
    return MR_OK;
}

/* Contacts: hold the limbs' ends with two-bone IK, key by key. */
static void hold_contacts(run *r, mr_retarget_info *info)
{
    ctx *c = &r->c;
    const mr_skeleton *ts = c->ts;
    const limb *limbs = r->limbs;
    mr_clip *res = r->res;
    int nt = r->nt, rt = r->rt, nkeys = r->nkeys, nlimbs = r->nlimbs;
    float scale = r->scale;
    float leg = mr_retarget_leg_length(c->ss) * r->cscale;
    if (!(leg > 0)) {
        vec3 b0, b1;
        leg = mr_model_bounds(r->target, b0, b1) ? 0.5f * glm_vec3_distance(b0, b1) : 1.0f;
    }
    int up = up_index(r->target->axes.up);
    float minh[4];
    for (int l = 0; l < nlimbs; l++) {
        minh[l] = INFINITY;
        for (int i = 0; i < nkeys; i++) minh[l] = fminf(minh[l], c->src_end[(size_t)l * nkeys + i][up]);
    }
    vec3 vg, vt;
    /* A root that travels a leg's length or more walks over standing
     * ground; only a clip that stays in place can have a treadmill. */
    glm_vec3_zero(vg);
    if (r->root_travel < leg) ground_velocity(c, limbs, nlimbs, nkeys, leg, up, minh, vg);
    glm_vec3_scale(vg, scale, vt);
    if (info) glm_vec3_copy(vt, info->ground_velocity);
    for (int l = 0; l < nlimbs; l++) find_contacts(c, &limbs[l], l, nkeys, leg, up, minh[l], scale, vg, vt, info);
    for (int i = 0; i < nkeys; i++) {
        /* the pose of key i */
        mr_pose_set_rest(&c->tp, ts);
        for (int j = 0; j < nt; j++)
            if (c->rot_track[j]) memcpy(c->tp.r[j], res->tracks[j].r.values + (size_t)i * 4, sizeof(versor));
        if (rt >= 0) memcpy(c->tp.t[rt], res->tracks[rt].t.values + (size_t)i * 3, sizeof(vec3));
        for (int l = 0; l < nlimbs; l++) {
            const limb *lb = &limbs[l];
            float w = c->weight[(size_t)l * nkeys + i];
            /* A foot never goes below the target's floor: as high above
             * its rest height as the source's is above its lowest. */
            vec3 fk;
            glm_vec3_copy(c->fk_end[(size_t)l * nkeys + i], fk);
            float floor_h = c->tp0[lb->end][up] + scale * (c->src_end[(size_t)l * nkeys + i][up] - minh[l]);
            int lift = lb->foot && fk[up] < floor_h;
            if (lift) fk[up] = floor_h;
            if (w <= 0.0f && !lift) continue;
            versor keep, parent_r, pinv;
            chain_rotation(ts, &c->tp, lb->end, keep);
            mr_two_bone_job job = {
                .skeleton = ts, .pose = &c->tp, .start = lb->start, .mid = lb->mid, .end = lb->end,
                .weight = lift ? 1.0f : w,
            };
            glm_vec3_copy(c->lock[(size_t)l * nkeys + i], job.target);
            if (lift) glm_vec3_lerp(fk, c->lock[(size_t)l * nkeys + i], w, job.target);
            if (mr_ik_two_bone(&job, NULL) != MR_OK) continue;
            if (!job.reached && w >= 1.0f && info) info->unreached++;
            chain_rotation(ts, &c->tp, ts->parents[lb->end], parent_r);
            glm_quat_inv(parent_r, pinv);
            glm_quat_mul(pinv, keep, c->tp.r[lb->end]);
            glm_quat_normalize(c->tp.r[lb->end]);
            const int js[3] = {lb->start, lb->mid, lb->end};
            for (int k = 0; k < 3; k++)
                memcpy(res->tracks[js[k]].r.values + (size_t)i * 4, c->tp.r[js[k]], sizeof(versor));
        }
    }
}

/* Keep each rotation track in one hemisphere, then finish: duration, rate,
 * markers, validation. */
static mr_status finish_clip(run *r, mr_error *err)
{
    mr_clip *res = r->res;
    const mr_clip *clip = r->clip;
    for (int j = 0; j < r->nt; j++) {
        mr_track *tr = &res->tracks[j].r;
        for (int i = 1; i < tr->key_count; i++) {
            float *a = tr->values + (size_t)(i - 1) * 4, *b = tr->values + (size_t)i * 4;
            if (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0)
                for (int k = 0; k < 4; k++) b[k] = -b[k];
        }
        mr_track_finish(tr);
        mr_track_finish(&res->tracks[j].t);
    }
    res->duration = clip->duration;
    res->rate = clip->rate;
    mr_status st;
    for (int m = 0; m < clip->marker_count; m++)
        if ((st = mr_clip_add_marker(res, clip->markers[m].time, clip->markers[m].name)) != MR_OK) return st;
    return mr_clip_validate(res, err);
}

mr_status mr_retarget_clip(const mr_clip *clip, const mr_model *source, const mr_model *target,
                           const mr_joint_map *map, const mr_retarget_opts *opts_in, mr_clip **out,
                           mr_retarget_info *info, mr_error *err)
{
    static const mr_retarget_opts no_opts = {0};
    const mr_retarget_opts *opts = opts_in ? opts_in : &no_opts;
    *out = NULL;
    if (info) memset(info, 0, sizeof *info);
    mr_status st = check_args(clip, source, target, map, opts, err);
    if (st != MR_OK) return st;
    /* The runtime finished first (its played keys are read below; a pack
     * installed gives the source keys up), then the source keys, resident. */
    mr_clip_settle(clip);
    if ((st = mr_clip_source(clip, err)) != MR_OK) return st;

    run r = {.clip = clip, .source = source, .target = target, .map = map, .opts = opts};
    r.c.ss = &source->skeleton;
    r.c.ts = &target->skeleton;
    r.ns = r.c.ss->joint_count;
    r.nt = r.c.ts->joint_count;
    st = MR_ERR_NO_MEMORY;
    if (alloc_joints(&r.c, r.ns, r.nt)) goto fail;
    rests(&r);
    map_roots(&r);
    align_body(&r);
    align_joints(&r);
    root_scale(&r);
    find_limbs(&r);
    if ((st = new_clip(&r, err)) != MR_OK) goto fail;
    if ((st = transfer_keys(&r, err)) != MR_OK) goto fail;
    if (r.nlimbs) hold_contacts(&r, info);
    if ((st = finish_clip(&r, err)) != MR_OK) goto fail;
    if (info) {
        info->scale = r.scale;
        info->root_source = r.rs;
        info->root_target = r.rt;
        info->keys = r.nkeys;
        info->body_turn = 2.0f * acosf(fminf(fabsf(r.body[3]), 1.0f)) * (180.0f / GLM_PIf);
    }
    ctx_free(&r.c);
    *out = r.res;
    return MR_OK;

fail:
    if (st == MR_ERR_NO_MEMORY || st == MR_OK) st = mr_error_set(err, MR_ERR_NO_MEMORY, "retarget: out of memory");
    mr_clip_destroy(r.res);
    ctx_free(&r.c);
    return st;
}
