/* record.c — frame recording and measured key reduction (record.h). */
#include "anim/record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/clip_runtime.h"
#include "anim/morph.h"
#include "anim/points.h"
#include "core/alloc.h"
#include "core/cancel.h"

#define STRIDE 10
#define MAX_SPAN 256     /* frames one kept segment may cover (bounds the greedy search) */

mr_status mr_record_init(mr_record *rec, int joint_count)
{
    memset(rec, 0, sizeof *rec);
    if (joint_count < 1 || joint_count > MR_MAX_JOINTS) return MR_ERR_INVALID_ARGUMENT;
    rec->joint_count = joint_count;
    return MR_OK;
}

void mr_record_deinit(mr_record *rec)
{
    free(rec->times);
    free(rec->trs);
    free(rec->weights);
    free(rec->mesh_targets);
    free(rec->weight_rest);
    memset(rec, 0, sizeof *rec);
}

mr_status mr_record_set_weights(mr_record *rec, int mesh_count, const int *targets, const float *rest)
{
    if (rec->count || mesh_count < 0) return MR_ERR_INVALID_ARGUMENT;
    long total = 0;
    for (int i = 0; i < mesh_count; i++) {
        if (targets[i] < 0) return MR_ERR_INVALID_ARGUMENT;
        total += targets[i];
    }
    if (total > (1 << 16)) return MR_ERR_INVALID_ARGUMENT;
    for (long k = 0; k < total; k++)
        if (!isfinite(rest[k])) return MR_ERR_INVALID_ARGUMENT;
    int *mt = mesh_count ? mr_alloc_array((size_t)mesh_count, sizeof *mt) : NULL;
    float *r = total ? mr_alloc_array((size_t)total, sizeof *r) : NULL;
    float *w = NULL;
    if (total && rec->cap) w = mr_alloc_array((size_t)rec->cap * (size_t)total, sizeof *w);
    if ((mesh_count && !mt) || (total && !r) || (total && rec->cap && !w)) {
        free(mt);
        free(r);
        free(w);
        return MR_ERR_NO_MEMORY;
    }
    if (mesh_count) memcpy(mt, targets, (size_t)mesh_count * sizeof *mt);
    if (total) memcpy(r, rest, (size_t)total * sizeof *r);
    free(rec->mesh_targets);
    free(rec->weight_rest);
    free(rec->weights);
    rec->mesh_targets = mt;
    rec->weight_rest = r;
    rec->weights = w;
    rec->mesh_count = mesh_count;
    rec->weight_count = (int)total;
    if (!(rec->weight_tolerance > 0.0f)) rec->weight_tolerance = MR_RECORD_WEIGHT_TOLERANCE;
    return MR_OK;
}

static float *frame_weights(const mr_record *rec, int i) { return rec->weights + (size_t)i * rec->weight_count; }

mr_status mr_record_weights(mr_record *rec, const float *weights)
{
    if (!rec->count) return MR_ERR_INVALID_ARGUMENT;
    for (int k = 0; k < rec->weight_count; k++)
        if (!isfinite(weights[k])) return MR_ERR_INVALID_ARGUMENT;
    if (rec->weight_count)
        memcpy(frame_weights(rec, rec->count - 1), weights, (size_t)rec->weight_count * sizeof *weights);
    return MR_OK;
}

static float *frame(const mr_record *rec, int i) { return rec->trs + (size_t)i * rec->joint_count * STRIDE; }

mr_status mr_record_capture(mr_record *rec, const mr_skeleton *sk, float time, const mr_pose *pose,
                            const mat4 root)
{
    if (!isfinite(time) || pose->joint_count != rec->joint_count || sk->joint_count != rec->joint_count)
        return MR_ERR_INVALID_ARGUMENT;
    int at = rec->count;
    if (at > 0) {
        float last = rec->times[at - 1];
        if (time < last) return MR_ERR_INVALID_ARGUMENT;
        if (time - last < 2.0f * MR_CLIP_MIN_KEY_INTERVAL) at--;  /* the same frame again */
    }
    if (at == rec->cap) {
        if (rec->cap >= MR_RECORD_MAX_FRAMES) return MR_ERR_LIMIT;
        int cap = rec->cap ? rec->cap * 2 : 64;
        size_t per = (size_t)rec->joint_count * STRIDE + (size_t)rec->weight_count;
        if ((size_t)cap * per * sizeof(float) > MR_RECORD_MAX_BYTES) return MR_ERR_LIMIT;
        if (rec->weight_count) {
            float *w = realloc(rec->weights, (size_t)cap * (size_t)rec->weight_count * sizeof *w);
            if (!w) return MR_ERR_NO_MEMORY;
            rec->weights = w;
        }
        float *t = realloc(rec->times, (size_t)cap * sizeof *t);
        if (!t) return MR_ERR_NO_MEMORY;
        rec->times = t;
        float *v = realloc(rec->trs, (size_t)cap * rec->joint_count * STRIDE * sizeof *v);
        if (!v) return MR_ERR_NO_MEMORY;
        rec->trs = v;
        rec->cap = cap;
    }
    float *f = frame(rec, at), *prev = at > 0 ? frame(rec, at - 1) : NULL;
    for (int j = 0; j < rec->joint_count; j++) {
        float *k = f + j * STRIDE;
        if (root && sk->parents[j] < 0) {
            mat4 local, m;
            mr_pose_local_matrix(pose, j, local);
            glm_mat4_mul((vec4 *)root, local, m);
            mr_pose_trs_from_matrix(m, k, k + 3, k + 7);
        } else {
            memcpy(k, pose->t[j], 3 * sizeof *k);
            memcpy(k + 3, pose->r[j], 4 * sizeof *k);
            memcpy(k + 7, pose->s[j], 3 * sizeof *k);
        }
        if (prev) {
            const float *p = prev + j * STRIDE + 3;
            if (k[3] * p[0] + k[4] * p[1] + k[5] * p[2] + k[6] * p[3] < 0.0f)
                for (int i = 3; i < 7; i++) k[i] = -k[i];
        }
    }
    if (rec->weight_count && at == rec->count)  /* a new frame: the previous weights (the first: the rest) */
        memcpy(frame_weights(rec, at), at > 0 ? frame_weights(rec, at - 1) : rec->weight_rest,
               (size_t)rec->weight_count * sizeof(float));
    rec->times[at] = time;
    rec->count = at + 1;
    return MR_OK;
}

/* ---- greedy reduction ------------------------------------------------------------ */

static double deviation(const mr_record *rec, int j, int channel, int a, int e, int i, float size)
{
    int off = channel == 0 ? 0 : channel == 1 ? 3 : 7;
    const float *va = frame(rec, a) + j * STRIDE + off, *ve = frame(rec, e) + j * STRIDE + off;
    const float *vi = frame(rec, i) + j * STRIDE + off;
    double u = ((double)rec->times[i] - rec->times[a]) / ((double)rec->times[e] - rec->times[a]);
    if (channel == 1) {
        double d = 0.0;
        for (int c = 0; c < 4; c++) d += (double)va[c] * ve[c];
        double k0 = 1.0 - u, k1 = u;
        if (d < 0.9999995) {
            double th = acos(d < -1.0 ? -1.0 : d), sn = sin(th);
            k0 = sin((1.0 - u) * th) / sn;
            k1 = sin(u * th) / sn;
        }
        double q[4], n = 0.0, dp = 0.0, dm = 0.0;
        for (int c = 0; c < 4; c++) {
            q[c] = k0 * va[c] + k1 * ve[c];
            n += q[c] * q[c];
        }
        n = sqrt(n);
        for (int c = 0; c < 4; c++) {
            dp += (q[c] / n - vi[c]) * (q[c] / n - vi[c]);
            dm += (q[c] / n + vi[c]) * (q[c] / n + vi[c]);
        }
        /* the rotation angle between unit quaternions q, p is 4 asin(|q - p| / 2)
         * (no acos near 1, where float keys lose small angles) */
        double chord = sqrt(dp < dm ? dp : dm) / 2.0;
        return 4.0 * asin(chord > 1.0 ? 1.0 : chord) * size;
    }
    double s = 0.0;
    for (int c = 0; c < 3; c++) {
        double d = va[c] + (ve[c] - va[c]) * u - vi[c];
        s += d * d;
    }
    return sqrt(s) * (channel == 2 ? size : 1.0);
}

static mr_status add_key(mr_clip_edit *e, const mr_record *rec, int j, int channel, int i)
{
    int off = channel == 0 ? 0 : channel == 1 ? 3 : 7;
    return mr_clip_edit_key(e, j, channel, rec->times[i] - rec->times[0], frame(rec, i) + j * STRIDE + off,
                            MR_EASE_LINEAR, NULL);
}

static double weight_deviation(const mr_record *rec, int k, int a, int e, int i)
{
    float va = frame_weights(rec, a)[k], ve = frame_weights(rec, e)[k], vi = frame_weights(rec, i)[k];
    double u = ((double)rec->times[i] - rec->times[a]) / ((double)rec->times[e] - rec->times[a]);
    return fabs(va + (ve - va) * u - vi);
}

/* Weight k's channel, reduced greedily within budget (0: every frame). */
static mr_status build_weight(const mr_record *rec, float budget, mr_clip_edit *out, int k, int *kept)
{
    int moved = 0;  /* a weight that never left its rest gets no keys (the clip holds the rest) */
    for (int i = 0; i < rec->count && !moved; i++) moved = frame_weights(rec, i)[k] != rec->weight_rest[k];
    if (!moved) return MR_OK;
    int a = 0;
    mr_status st = mr_clip_edit_key(out, k, MR_EDIT_WEIGHT, 0.0f, &frame_weights(rec, 0)[k], MR_EASE_LINEAR, NULL);
    (*kept)++;
    while (st == MR_OK && a < rec->count - 1) {
        int e = a + 1;
        while (e + 1 < rec->count && e + 1 - a <= MAX_SPAN && budget > 0.0f) {
            int ok = 1;
            for (int i = a + 1; i <= e && ok; i++) ok = weight_deviation(rec, k, a, e + 1, i) <= budget;
            if (!ok) break;
            e++;
        }
        st = mr_clip_edit_key(out, k, MR_EDIT_WEIGHT, rec->times[e] - rec->times[0], &frame_weights(rec, e)[k],
                              MR_EASE_LINEAR, NULL);
        (*kept)++;
        a = e;
    }
    return st;
}

static mr_status build(const mr_record *rec, float budget, float wbudget, float size, float rate, mr_clip_edit **out,
                       int *kept)
{
    float duration = rec->times[rec->count - 1] - rec->times[0];
    mr_status st = mr_clip_edit_create(rec->joint_count, duration, rate, out);
    *kept = 0;
    if (st == MR_OK && rec->mesh_count)
        st = mr_clip_edit_set_weights(*out, rec->mesh_count, rec->mesh_targets, rec->weight_rest);
    for (int k = 0; k < rec->weight_count && st == MR_OK; k++) st = build_weight(rec, wbudget, *out, k, kept);
    for (int j = 0; j < rec->joint_count && st == MR_OK; j++)
        for (int ch = 0; ch < 3 && st == MR_OK; ch++) {
            int a = 0;
            st = add_key(*out, rec, j, ch, 0);
            (*kept)++;
            while (st == MR_OK && a < rec->count - 1) {
                int e = a + 1;
                /* extend while every frame between a and e+1 stays within the budget */
                while (e + 1 < rec->count && e + 1 - a <= MAX_SPAN && budget > 0.0f) {
                    int ok = 1;
                    for (int i = a + 1; i <= e && ok; i++) ok = deviation(rec, j, ch, a, e + 1, i, size) <= budget;
                    if (!ok) break;
                    e++;
                }
                st = add_key(*out, rec, j, ch, e);
                (*kept)++;
                a = e;
                if (st == MR_OK && (*kept & 1023) == 0 && mr_cancel_requested()) st = MR_ERR_LIMIT;
            }
        }
    if (st != MR_OK) {
        mr_clip_edit_destroy(*out);
        *out = NULL;
    }
    return st;
}

/* ---- measuring ------------------------------------------------------------------- */

mr_status mr_record_measure(const mr_clip *a, const mr_clip *b, const mr_skeleton *sk, const float *times, int n,
                            float duration, float distance, float *error, int *checks)
{
    *error = 0.0f;
    *checks = 0;
    mr_pose pa = {0}, pb = {0};
    mat4 *ma = mr_alloc_array((size_t)sk->joint_count, sizeof *ma);
    mat4 *mb = mr_alloc_array((size_t)sk->joint_count, sizeof *mb);
    mr_status st = ma && mb ? mr_pose_init(&pa, sk->joint_count) : MR_ERR_NO_MEMORY;
    if (st == MR_OK) st = mr_pose_init(&pb, sk->joint_count);
    int total = n + (n > 1 ? n - 1 : 0) + MR_RECORD_CHECKS;
    double worst = 0.0;
    for (int k = 0; k < total && st == MR_OK; k++) {
        double t;
        if (k < n) t = times[k] - times[0];
        else if (k < 2 * n - 1) t = 0.5 * ((double)times[k - n] + times[k - n + 1]) - times[0];
        else t = (double)duration * (k - (n > 1 ? 2 * n - 1 : n)) / (MR_RECORD_CHECKS - 1);
        if ((k & 255) == 255 && mr_cancel_requested()) {   /* a script's budget ran out (core/cancel.h) */
            st = MR_ERR_LIMIT;
            break;
        }
        /* the keys, not the runtime packs: a pack may spend its whole
         * tolerance, which is its own promise, not the keys' */
        if ((st = mr_clip_sample_keys(a, sk, (float)t, MR_WRAP_CLAMP, &pa)) != MR_OK) break;
        if ((st = mr_clip_sample_keys(b, sk, (float)t, MR_WRAP_CLAMP, &pb)) != MR_OK) break;
        mr_pose_to_model(sk, &pa, ma);
        mr_pose_to_model(sk, &pb, mb);
        worst = fmax(worst, mr_points_apart((const mat4 *)ma, (const mat4 *)mb, sk->joint_count, distance));
        (*checks)++;
    }
    mr_pose_deinit(&pa);
    mr_pose_deinit(&pb);
    free(ma);
    free(mb);
    *error = (float)worst;
    return st;
}

/* The largest weight difference between two baked clips' morph tracks at
 * the check times of mr_record_measure. */
static float measure_weights(const mr_clip *a, const mr_clip *b, const float *times, int n, float duration)
{
    if (!a->morph) return 0.0f;
    int total = n + (n > 1 ? n - 1 : 0) + MR_RECORD_CHECKS;
    double worst = 0.0;
    for (int c = 0; c < a->morph->channel_count; c++) {
        const mr_morph_channel *ca = &a->morph->channels[c], *cb = mr_morph_tracks_find(b->morph, ca->mesh);
        if (!cb || cb->target_count != ca->target_count) return INFINITY;
        float wa[256], wb[256];
        if (ca->target_count > 256) return INFINITY;
        for (int k = 0; k < total; k++) {
            double t;
            if (k < n) t = times[k] - times[0];
            else if (k < 2 * n - 1) t = 0.5 * ((double)times[k - n] + times[k - n + 1]) - times[0];
            else t = (double)duration * (k - (n > 1 ? 2 * n - 1 : n)) / (MR_RECORD_CHECKS - 1);
            mr_morph_channel_sample(ca, (float)t, wa);
            mr_morph_channel_sample(cb, (float)t, wb);
            for (int e = 0; e < ca->target_count; e++) worst = fmax(worst, fabs((double)wa[e] - wb[e]));
        }
    }
    return (float)worst;
}

mr_status mr_record_reduce(const mr_record *rec, const mr_skeleton *sk, float tolerance, float size, float rate,
                           mr_clip_edit **out, mr_record_result *result, mr_error *err)
{
    *out = NULL;
    memset(result, 0, sizeof *result);
    if (rec->count < 2)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "the recording has %d frame%s; a clip needs 2 captures "
                            "at different times", rec->count, rec->count == 1 ? "" : "s");
    if (sk->joint_count != rec->joint_count) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "joint counts differ");
    if (!isfinite(tolerance) || tolerance < 0.0f) tolerance = 0.0f;
    float distance = (float)(MR_CLIP_POINT_DISTANCE * size);   /* the virtual points (anim/points.h) */
    mr_clip_edit *full = NULL;
    mr_clip *ref = NULL, *cur = NULL;
    int kept = 0;
    mr_status st = build(rec, 0.0f, 0.0f, size, rate, &full, &kept);
    result->keys_total = kept;
    if (st == MR_OK) st = mr_clip_create("reference", rec->joint_count, &ref);
    if (st == MR_OK) st = mr_clip_create("reduced", rec->joint_count, &cur);
    if (st == MR_OK) st = mr_clip_edit_bake(full, 1e-6f, size, ref);
    float budget = 0.5f * tolerance, wtol = rec->weight_tolerance > 0.0f ? rec->weight_tolerance : 0.0f;
    float wbudget = 0.5f * wtol;
    for (int round = 0; st == MR_OK && tolerance > 0.0f && round < 12; round++, budget *= 0.5f, wbudget *= 0.5f) {
        mr_clip_edit *e = NULL;
        int k = 0;
        if (mr_cancel_requested()) st = MR_ERR_LIMIT;
        if (st != MR_OK || (st = build(rec, budget, wbudget, size, rate, &e, &k)) != MR_OK) break;
        float error = 0.0f, werror = 0.0f;
        int checks = 0;
        if ((st = mr_clip_edit_bake(e, 1e-6f, size, cur)) == MR_OK)
            st = mr_record_measure(ref, cur, sk, rec->times, rec->count, full->duration, distance, &error, &checks);
        if (st == MR_OK) werror = measure_weights(ref, cur, rec->times, rec->count, full->duration);
        if (st == MR_OK && error <= tolerance && werror <= wtol) {
            result->error = error;
            result->weight_error = werror;
            result->keys_kept = k;
            result->checks = checks;
            *out = e;
            break;
        }
        mr_clip_edit_destroy(e);
    }
    if (st == MR_OK && !*out) {  /* keep every key */
        result->keys_kept = result->keys_total;
        st = mr_record_measure(ref, ref, sk, rec->times, rec->count, full->duration, distance, &result->error,
                               &result->checks);
        *out = full;
        full = NULL;
    }
    mr_clip_edit_destroy(full);
    mr_clip_destroy(ref);
    mr_clip_destroy(cur);
    if (st != MR_OK) {
        mr_clip_edit_destroy(*out);
        *out = NULL;
        return mr_error_set(err, st, "reducing the recording: %s", mr_status_string(st));
    }
    return MR_OK;
}
