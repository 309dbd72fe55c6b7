/* mirror.c — left/right pairs, the mid-plane and mirrored clips (see
 * mirror.h). The clip is mirrored in double precision. */
#include "anim/mirror.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/joint_map.h"
#include "core/quat.h"
#include "core/str.h"

/* ---- names ---------------------------------------------------------------- */

static const char *const words[][2] = {
    {"Left", "Right"}, {"left", "right"}, {"LEFT", "RIGHT"},
    {"Right", "Left"}, {"right", "left"}, {"RIGHT", "LEFT"},
};

static int alnum_at(const char *s, size_t i, size_t n) { return i < n && isalnum((unsigned char)s[i]); }

/* Length of the side token at s[i] and its replacement, or 0. */
static size_t token_at(const char *s, size_t i, size_t n, const char **repl)
{
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
        size_t len = strlen(words[w][0]);
        if (i + len <= n && !strncmp(s + i, words[w][0], len)) {
            *repl = words[w][1];
            return len;
        }
    }
    char c = s[i];
    if (c != 'L' && c != 'R' && c != 'l' && c != 'r') return 0;
    int before = i == 0 || !isalnum((unsigned char)s[i - 1]);
    static const char *const swap[] = {"R", "L", "r", "l"};
    const char *r = c == 'L' ? swap[0] : c == 'R' ? swap[1] : c == 'l' ? swap[2] : swap[3];
    /* a lone letter between separators: "L_arm", "thigh.L", "Bip01 R Foot" */
    if (before && !alnum_at(s, i + 1, n)) {
        *repl = r;
        return 1;
    }
    /* a capital in front of a capital: CMU's "LHipJoint", "RThumb" */
    if (before && (c == 'L' || c == 'R') && i + 1 < n && isupper((unsigned char)s[i + 1]) &&
        i + 2 < n && islower((unsigned char)s[i + 2])) {
        *repl = r;
        return 1;
    }
    return 0;
}

int mr_mirror_swap_name(const char *name, int k, char *out, size_t size)
{
    if (!name || !out || size == 0) return 0;
    size_t n = strlen(name);
    int place = 0;
    for (size_t i = 0; i < n; i++) {
        const char *repl = NULL;
        size_t len = token_at(name, i, n, &repl);
        if (!len) continue;
        if (place++ < k) {
            i += len - 1;
            continue;
        }
        size_t rl = strlen(repl);
        if (n - len + rl + 1 > size) return 0;
        memcpy(out, name, i);
        memcpy(out + i, repl, rl);
        memcpy(out + i + rl, name + i + len, n - i - len + 1);
        return 1;
    }
    return 0;
}

/* ---- the map -------------------------------------------------------------- */

/* Model-space rest positions and rotations, double. */
typedef struct dxf {
    double p[3], q[4], s[3];
} dxf;

static void dq_conj(const double q[4], double out[4])
{
    out[0] = -q[0]; out[1] = -q[1]; out[2] = -q[2]; out[3] = q[3];
}

/* Model transforms from locals (t, q, s per joint), parents first. */
static void to_model(const mr_skeleton *sk, const double (*t)[3], const double (*q)[4], const double (*s)[3],
                     dxf *out)
{
    for (int j = 0; j < sk->joint_count; j++) {
        int par = sk->parents[j];
        if (par < 0) {
            memcpy(out[j].p, t[j], sizeof out[j].p);
            memcpy(out[j].q, q[j], sizeof out[j].q);
            memcpy(out[j].s, s[j], sizeof out[j].s);
            continue;
        }
        double v[3] = {t[j][0] * out[par].s[0], t[j][1] * out[par].s[1], t[j][2] * out[par].s[2]};
        mr_quat_rotate_d(out[par].q, v, v);
        for (int k = 0; k < 3; k++) {
            out[j].p[k] = out[par].p[k] + v[k];
            out[j].s[k] = out[par].s[k] * s[j][k];
        }
        mr_quat_mul_d(out[par].q, q[j], out[j].q);
        mr_quat_normalize_d(out[j].q);
    }
}

static void rest_locals(const mr_skeleton *sk, double (*t)[3], double (*q)[4], double (*s)[3])
{
    for (int j = 0; j < sk->joint_count; j++)
        for (int k = 0; k < 4; k++) {
            if (k < 3) {
                t[j][k] = sk->rest_t[j][k];
                s[j][k] = sk->rest_s[j][k];
            }
            q[j][k] = sk->rest_r[j][k];
        }
}

static mr_status pair(mr_mirror_map *map, const mr_skeleton *sk, int a, int b, mr_error *err)
{
    if (map->partner[a] >= 0 || map->partner[b] >= 0)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mirror: joint '%s' is paired twice",
                            sk->names[map->partner[a] >= 0 ? a : b]);
    map->partner[a] = b;
    map->partner[b] = a;
    return MR_OK;
}

void mr_mirror_map_deinit(mr_mirror_map *map)
{
    if (!map) return;
    free(map->partner);
    memset(map, 0, sizeof *map);
}

mr_status mr_mirror_map_find(mr_mirror_map *map, const mr_skeleton *sk, const char *const *pairs, int pair_count,
                             mr_error *err)
{
    if (!map || !sk || (pair_count > 0 && !pairs) || pair_count < 0)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mirror: needs a map and a skeleton");
    memset(map, 0, sizeof *map);
    int n = sk->joint_count;
    map->joint_count = n;
    map->partner = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!map->partner) return mr_error_set(err, MR_ERR_NO_MEMORY, "mirror: out of memory");
    for (int j = 0; j < n; j++) map->partner[j] = -1;
    mr_status st = MR_OK;
    for (int i = 0; i < pair_count && st == MR_OK; i++) {
        int a = pairs[2 * i] ? mr_skeleton_find(sk, pairs[2 * i]) : -1;
        int b = pairs[2 * i + 1] ? mr_skeleton_find(sk, pairs[2 * i + 1]) : -1;
        if (a < 0 || b < 0) {
            st = mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mirror: map names '%s', which is no joint",
                              a < 0 ? (pairs[2 * i] ? pairs[2 * i] : "(null)")
                                    : (pairs[2 * i + 1] ? pairs[2 * i + 1] : "(null)"));
            break;
        }
        if (a == b) {
            if (map->partner[a] >= 0)
                st = mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mirror: joint '%s' is paired twice", sk->names[a]);
            else map->partner[a] = a;
        } else {
            st = pair(map, sk, a, b, err);
        }
    }
    if (st != MR_OK) {
        mr_mirror_map_deinit(map);
        return st;
    }
    /* the body's roles, as retargeting finds them */
    for (int r = MR_ROLE_CLAVICLE; r < MR_ROLE_COUNT; r++) {
        int l = mr_joint_map_find_role(sk, (mr_joint_role)r, MR_SIDE_LEFT);
        int rr = mr_joint_map_find_role(sk, (mr_joint_role)r, MR_SIDE_RIGHT);
        if (l >= 0 && rr >= 0 && l != rr && map->partner[l] < 0 && map->partner[rr] < 0) pair(map, sk, l, rr, NULL);
    }
    /* names with a side token swapped */
    char buf[512];
    for (int j = 0; j < n; j++) {
        if (map->partner[j] >= 0 || !sk->names[j]) continue;
        for (int k = 0; mr_mirror_swap_name(sk->names[j], k, buf, sizeof buf); k++) {
            int q = mr_skeleton_find(sk, buf);
            if (q >= 0 && q != j && map->partner[q] < 0) {
                pair(map, sk, j, q, NULL);
                break;
            }
        }
    }
    for (int j = 0; j < n; j++)
        if (map->partner[j] < 0) map->partner[j] = j;
        else if (map->partner[j] > j) map->pair_count++;
    if (map->pair_count == 0) {
        mr_mirror_map_deinit(map);
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                            "mirror: found no left/right joint pairs in %d joints; give a map of pairs", n);
    }
    /* the plane, from the rest pose */
    double (*t)[3] = malloc(sizeof(double[3]) * (size_t)n), (*q)[4] = malloc(sizeof(double[4]) * (size_t)n);
    double (*s)[3] = malloc(sizeof(double[3]) * (size_t)n);
    dxf *m = malloc(sizeof(dxf) * (size_t)n);
    if (!t || !q || !s || !m) {
        free(t); free(q); free(s); free(m);
        mr_mirror_map_deinit(map);
        return mr_error_set(err, MR_ERR_NO_MEMORY, "mirror: out of memory");
    }
    rest_locals(sk, t, q, s);
    to_model(sk, (const double (*)[3])t, (const double (*)[4])q, (const double (*)[3])s, m);
    /* Positions of the bind pose (the inverse bind matrices' inverses): a
     * COLLADA node rest is often a frame of motion, the bind pose the one
     * the mesh was modelled in, symmetric where the body is. */
    if (sk->inverse_bind)
        for (int j = 0; j < n; j++) {
            mat4 b;
            glm_mat4_inv(sk->inverse_bind[j], b);
            if (isfinite(b[3][0]) && isfinite(b[3][1]) && isfinite(b[3][2]))
                for (int k = 0; k < 3; k++) m[j].p[k] = b[3][k];
        }
    /* A pair's level: how many paired joints lead down to it from the
     * centre line (clavicles and hip joints 1, upper arms and thighs 2,
     * ...). Pairs weigh 1 / level^2: those near the centre say best where
     * the sides are, the hands and feet may be posed anywhere. */
    int *level = malloc(sizeof(int) * (size_t)n);
    if (!level) {
        free(t); free(q); free(s); free(m);
        mr_mirror_map_deinit(map);
        return mr_error_set(err, MR_ERR_NO_MEMORY, "mirror: out of memory");
    }
    for (int j = 0; j < n; j++) {
        int par = sk->parents[j];
        level[j] = map->partner[j] == j ? 0 : (par >= 0 ? level[par] : 0) + 1;
    }
    double sum[3] = {0, 0, 0};
    for (int j = 0; j < n; j++) {
        int p = map->partner[j];
        if (p <= j) continue;
        double w = 1.0 / ((double)level[j] * (double)level[j]);
        double d[3] = {m[j].p[0] - m[p].p[0], m[j].p[1] - m[p].p[1], m[j].p[2] - m[p].p[2]};
        double dot = d[0] * sum[0] + d[1] * sum[1] + d[2] * sum[2];
        double sg = dot < 0 ? -w : w;
        for (int k = 0; k < 3; k++) sum[k] += sg * d[k];
    }
    free(level);
    double len = sqrt(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
    double nrm[3] = {1, 0, 0};
    if (len > 0)
        for (int k = 0; k < 3; k++) nrm[k] = sum[k] / len;
    for (int k = 0; k < 3; k++)
        if (fabs(nrm[k]) > cos(2.0 * M_PI / 180.0)) {   /* within 2 degrees of an axis */
            double sg = nrm[k] < 0 ? -1.0 : 1.0;
            nrm[0] = nrm[1] = nrm[2] = 0.0;
            nrm[k] = sg;
        }
    double off = 0.0;
    int cnt = 0;
    for (int j = 0; j < n; j++) {
        int p = map->partner[j];
        if (p <= j) continue;
        for (int k = 0; k < 3; k++) off += nrm[k] * 0.5 * (m[j].p[k] + m[p].p[k]);
        cnt++;
    }
    off /= cnt > 0 ? cnt : 1;
    for (int k = 0; k < 3; k++) map->normal[k] = (float)nrm[k];
    map->offset = (float)off;
    free(t); free(q); free(s); free(m);
    return MR_OK;
}

/* ---- the clip --------------------------------------------------------------- */

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* Reflection of a point across the plane, of a direction, of a rotation. */
static void reflect_point(const double n[3], double off, const double p[3], double out[3])
{
    double d = n[0] * p[0] + n[1] * p[1] + n[2] * p[2] - off;
    for (int k = 0; k < 3; k++) out[k] = p[k] - 2.0 * d * n[k];
}

static void reflect_rotation(const double n[3], const double q[4], double out[4])
{
    /* H R H for the reflection H = I - 2 n n^T: the axis (a pseudovector)
     * becomes -H axis, the angle stays */
    double d = n[0] * q[0] + n[1] * q[1] + n[2] * q[2];
    for (int k = 0; k < 3; k++) out[k] = 2.0 * d * n[k] - q[k];
    out[3] = q[3];
}

typedef struct channel_buf {
    float *v;                /* keys * comps, joint-major: v[(j * keys + k) * comps + c] */
} channel_buf;

static int channel_keyed(const mr_track *partner_track, const float *v, int keys, int comps, const float *rest,
                         float eps)
{
    if (partner_track->key_count > 0) return 1;
    for (int k = 0; k < keys; k++)
        for (int c = 0; c < comps; c++)
            if (fabsf(v[k * comps + c] - rest[c]) > eps) return 1;
    return 0;
}

static mr_status write_channel(mr_track *tr, const float *times, const float *v, int keys, int comps,
                               mr_interp interp)
{
    int constant = 1;
    for (int k = 1; k < keys && constant; k++)
        for (int c = 0; c < comps; c++)
            if (v[k * comps + c] != v[c]) {
                constant = 0;
                break;
            }
    int nk = constant ? 1 : keys;
    mr_status st = mr_track_init(tr, nk, interp);
    if (st != MR_OK) return st;
    memcpy(tr->times, times, sizeof(float) * (size_t)nk);
    memcpy(tr->values, v, sizeof(float) * (size_t)nk * (size_t)comps);
    mr_track_finish(tr);
    return MR_OK;
}

mr_status mr_mirror_clip(const mr_clip *clip, const mr_skeleton *sk, const mr_mirror_map *map, const char *name,
                         mr_clip **out, mr_error *err)
{
    if (out) *out = NULL;
    if (!clip || !sk || !map || !out || !map->partner)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mirror: needs a clip, a skeleton, a map and an output");
    int n = sk->joint_count;
    if (clip->joint_count != n || map->joint_count != n)
        return mr_error_set(err, MR_ERR_JOINT_COUNT, "mirror: clip '%s' has %d joints, the skeleton %d",
                            clip->name ? clip->name : "?", clip->joint_count, n);
    mr_status st = mr_clip_source(clip, err);   /* the source keys, read again when they were given up */
    if (st != MR_OK) return st;
    /* the union of the key times */
    size_t total = 0;
    int step = 1, any = 0;
    for (int j = 0; j < n; j++) {
        const mr_track *tr[3] = {&clip->tracks[j].t, &clip->tracks[j].r, &clip->tracks[j].s};
        for (int c = 0; c < 3; c++) {
            total += (size_t)tr[c]->key_count;
            if (tr[c]->key_count > 0) {
                any = 1;
                if (tr[c]->interp != MR_INTERP_STEP) step = 0;
            }
        }
    }
    if (total > (size_t)MR_MIRROR_MAX_KEYS * 3 * (size_t)(n > 0 ? n : 1))
        return mr_error_set(err, MR_ERR_LIMIT, "mirror: clip '%s' has %zu keys, too many", clip->name, total);
    float *times = malloc(sizeof(float) * (total ? total : 1));
    if (!times) return mr_error_set(err, MR_ERR_NO_MEMORY, "mirror: out of memory");
    size_t nt = 0;
    for (int j = 0; j < n; j++) {
        const mr_track *tr[3] = {&clip->tracks[j].t, &clip->tracks[j].r, &clip->tracks[j].s};
        for (int c = 0; c < 3; c++)
            for (int k = 0; k < tr[c]->key_count; k++) times[nt++] = tr[c]->times[k];
    }
    qsort(times, nt, sizeof(float), cmp_float);
    size_t keys = 0;
    for (size_t i = 0; i < nt; i++)
        if (keys == 0 || times[i] != times[keys - 1]) times[keys++] = times[i];
    if (keys > MR_MIRROR_MAX_KEYS) {
        free(times);
        return mr_error_set(err, MR_ERR_LIMIT, "mirror: clip '%s' has %zu key times, at most %d", clip->name, keys,
                            MR_MIRROR_MAX_KEYS);
    }
    char *own_name = name ? NULL : mr_str_fmt("%s_mirror", clip->name ? clip->name : "clip");
    mr_clip *c = NULL;
    st = mr_clip_create(name ? name : own_name, n, &c);
    free(own_name);
    if (st != MR_OK) {
        free(times);
        return mr_error_set(err, st, "mirror: out of memory");
    }
    c->duration = clip->duration;
    c->rate = clip->rate;
    for (int i = 0; i < clip->marker_count && st == MR_OK; i++)
        st = mr_clip_add_marker(c, clip->markers[i].time, clip->markers[i].name);
    if (!any || keys == 0 || st != MR_OK) {
        free(times);
        if (st != MR_OK) {
            mr_clip_destroy(c);
            return mr_error_set(err, st, "mirror: markers of '%s'", clip->name);
        }
        *out = c;
        return MR_OK;
    }
    size_t K = keys;
    double (*lt)[3] = malloc(sizeof(double[3]) * (size_t)n), (*lq)[4] = malloc(sizeof(double[4]) * (size_t)n);
    double (*ls)[3] = malloc(sizeof(double[3]) * (size_t)n);
    dxf *rest = malloc(sizeof(dxf) * (size_t)n), *cur = malloc(sizeof(dxf) * (size_t)n);
    dxf *mir = malloc(sizeof(dxf) * (size_t)n);
    float *vr = malloc(sizeof(float) * 4 * K * (size_t)n), *vt = malloc(sizeof(float) * 3 * K * (size_t)n);
    float *vs = malloc(sizeof(float) * 3 * K * (size_t)n);
    if (!lt || !lq || !ls || !rest || !cur || !mir || !vr || !vt || !vs) {
        st = mr_error_set(err, MR_ERR_NO_MEMORY, "mirror: out of memory for %zu keys of %d joints", K, n);
        goto done;
    }
    rest_locals(sk, lt, lq, ls);
    to_model(sk, (const double (*)[3])lt, (const double (*)[4])lq, (const double (*)[3])ls, rest);
    double nrm[3] = {map->normal[0], map->normal[1], map->normal[2]}, off = map->offset;
    float size = 0.0f;
    for (int j = 0; j < n; j++) {
        float d = (float)sqrt(rest[j].p[0] * rest[j].p[0] + rest[j].p[1] * rest[j].p[1] + rest[j].p[2] * rest[j].p[2]);
        if (d > size) size = d;
    }
    for (size_t k = 0; k < K; k++) {
        float tm = times[k];
        for (int j = 0; j < n; j++) {
            const mr_joint_tracks *jt = &clip->tracks[j];
            float f[4];
            if (jt->t.key_count) {
                mr_track_sample(&jt->t, tm, f);
                for (int i = 0; i < 3; i++) lt[j][i] = f[i];
            } else {
                for (int i = 0; i < 3; i++) lt[j][i] = sk->rest_t[j][i];
            }
            if (jt->r.key_count) {
                mr_track_sample(&jt->r, tm, f);
                for (int i = 0; i < 4; i++) lq[j][i] = f[i];
                mr_quat_normalize_d(lq[j]);
            } else {
                for (int i = 0; i < 4; i++) lq[j][i] = sk->rest_r[j][i];
            }
            if (jt->s.key_count) {
                mr_track_sample(&jt->s, tm, f);
                for (int i = 0; i < 3; i++) ls[j][i] = f[i];
            } else {
                for (int i = 0; i < 3; i++) ls[j][i] = sk->rest_s[j][i];
            }
        }
        to_model(sk, (const double (*)[3])lt, (const double (*)[4])lq, (const double (*)[3])ls, cur);
        /* mirrored model-space rotations and positions */
        for (int j = 0; j < n; j++) {
            int p = map->partner[j];
            double rc[4], d[4], dm[4];
            dq_conj(rest[p].q, rc);
            mr_quat_mul_d(cur[p].q, rc, d);
            reflect_rotation(nrm, d, dm);
            mr_quat_mul_d(dm, rest[j].q, mir[j].q);
            mr_quat_normalize_d(mir[j].q);
            reflect_point(nrm, off, cur[p].p, mir[j].p);
        }
        /* back to locals, parents first */
        for (int j = 0; j < n; j++) {
            int p = map->partner[j], par = sk->parents[j];
            double ps[3] = {1, 1, 1}, pq[4] = {0, 0, 0, 1}, pp[3] = {0, 0, 0};
            if (par >= 0) {
                memcpy(ps, mir[par].s, sizeof ps);
                memcpy(pq, mir[par].q, sizeof pq);
                memcpy(pp, mir[par].p, sizeof pp);
            }
            double pc[4], r[4], v[3];
            dq_conj(pq, pc);
            mr_quat_mul_d(pc, mir[j].q, r);
            mr_quat_normalize_d(r);
            for (int i = 0; i < 3; i++) v[i] = mir[j].p[i] - pp[i];
            mr_quat_rotate_d(pc, v, v);
            float *or = vr + ((size_t)j * K + k) * 4, *ot = vt + ((size_t)j * K + k) * 3;
            float *os = vs + ((size_t)j * K + k) * 3;
            /* the rest's hemisphere, then continuity with the previous key */
            const float *ref = k > 0 ? or - 4 : sk->rest_r[j];
            double dot = r[0] * ref[0] + r[1] * ref[1] + r[2] * ref[2] + r[3] * ref[3];
            for (int i = 0; i < 4; i++) or[i] = (float)(dot < 0 ? -r[i] : r[i]);
            for (int i = 0; i < 3; i++) {
                double sc = ls[p][i];
                os[i] = (float)sc;
                mir[j].s[i] = ps[i] * sc;
                ot[i] = fabs(ps[i]) > 1e-30 ? (float)(v[i] / ps[i]) : sk->rest_t[j][i];
            }
        }
    }
    mr_interp interp = step ? MR_INTERP_STEP : MR_INTERP_LINEAR;
    for (int j = 0; j < n && st == MR_OK; j++) {
        int p = map->partner[j];
        const float *r = vr + (size_t)j * K * 4, *t = vt + (size_t)j * K * 3, *s = vs + (size_t)j * K * 3;
        if (channel_keyed(&clip->tracks[p].r, r, (int)K, 4, sk->rest_r[j], 2e-7f))
            st = write_channel(&c->tracks[j].r, times, r, (int)K, 4, interp);
        if (st == MR_OK && channel_keyed(&clip->tracks[p].t, t, (int)K, 3, sk->rest_t[j], 2e-7f * size))
            st = write_channel(&c->tracks[j].t, times, t, (int)K, 3, interp);
        if (st == MR_OK && channel_keyed(&clip->tracks[p].s, s, (int)K, 3, sk->rest_s[j], 2e-7f))
            st = write_channel(&c->tracks[j].s, times, s, (int)K, 3, interp);
    }
    if (st != MR_OK) st = mr_error_set(err, st, "mirror: out of memory");
done:
    free(lt); free(lq); free(ls); free(rest); free(cur); free(mir); free(vr); free(vt); free(vs);
    free(times);
    if (st != MR_OK) {
        mr_clip_destroy(c);
        return st;
    }
    *out = c;
    return MR_OK;
}
