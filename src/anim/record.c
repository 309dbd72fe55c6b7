/* record.c — frame recording and measured key reduction (record.h). */
#include "anim/record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/clip_runtime.h"
#include "core/alloc.h"

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
    memset(rec, 0, sizeof *rec);
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
        if ((size_t)cap * (size_t)rec->joint_count * STRIDE * sizeof(float) > MR_RECORD_MAX_BYTES) return MR_ERR_LIMIT;
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

static mr_status build(const mr_record *rec, float budget, float size, float rate, mr_clip_edit **out, int *kept)
{
    float duration = rec->times[rec->count - 1] - rec->times[0];
    mr_status st = mr_clip_edit_create(rec->joint_count, duration, rate, out);
    *kept = 0;
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
                            float duration, float *error, int *checks)
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
        if ((st = mr_clip_sample(a, sk, (float)t, MR_WRAP_CLAMP, &pa)) != MR_OK) break;
        if ((st = mr_clip_sample(b, sk, (float)t, MR_WRAP_CLAMP, &pb)) != MR_OK) break;
        mr_pose_to_model(sk, &pa, ma);
        mr_pose_to_model(sk, &pb, mb);
        for (int j = 0; j < sk->joint_count; j++) {
            double d = 0.0;
            for (int c = 0; c < 3; c++) d += ((double)ma[j][3][c] - mb[j][3][c]) * ((double)ma[j][3][c] - mb[j][3][c]);
            if (d > worst) worst = d;
        }
        (*checks)++;
    }
    mr_pose_deinit(&pa);
    mr_pose_deinit(&pb);
    free(ma);
    free(mb);
    *error = (float)sqrt(worst);
    return st;
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
    mr_clip_edit *full = NULL;
    mr_clip *ref = NULL, *cur = NULL;
    int kept = 0;
    mr_status st = build(rec, 0.0f, size, rate, &full, &kept);
    result->keys_total = kept;
    if (st == MR_OK) st = mr_clip_create("reference", rec->joint_count, &ref);
    if (st == MR_OK) st = mr_clip_create("reduced", rec->joint_count, &cur);
    if (st == MR_OK) st = mr_clip_edit_bake(full, 1e-6f, size, ref);
    float budget = 0.5f * tolerance;
    for (int round = 0; st == MR_OK && tolerance > 0.0f && round < 12; round++, budget *= 0.5f) {
        mr_clip_edit *e = NULL;
        int k = 0;
        if ((st = build(rec, budget, size, rate, &e, &k)) != MR_OK) break;
        float error = 0.0f;
        int checks = 0;
        if ((st = mr_clip_edit_bake(e, 1e-6f, size, cur)) == MR_OK)
            st = mr_record_measure(ref, cur, sk, rec->times, rec->count, full->duration, &error, &checks);
        if (st == MR_OK && error <= tolerance) {
            result->error = error;
            result->keys_kept = k;
            result->checks = checks;
            *out = e;
            break;
        }
        mr_clip_edit_destroy(e);
    }
    if (st == MR_OK && !*out) {  /* keep every key */
        result->keys_kept = result->keys_total;
        st = mr_record_measure(ref, ref, sk, rec->times, rec->count, full->duration, &result->error, &result->checks);
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
