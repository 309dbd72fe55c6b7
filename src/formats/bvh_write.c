/* bvh_write.c — a skeleton and one clip as BVH text (bvh_write.h). */
#include "formats/bvh_write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/clip_runtime.h"
#include "core/alloc.h"
#include "core/file.h"
#include "core/str.h"

#define DEFAULT_RATE 30.0
#define MAX_FRAMES 1000000
#define DEG (180.0 / 3.14159265358979323846)

typedef mr_strbuf buf;
#define put mr_strbuf_printf

static void indent(buf *b, int depth)
{
    for (int i = 0; i < depth; i++) put(b, "\t");
}

static void put_name(buf *b, const char *s)
{
    if (!s || !*s) s = "joint";
    for (const char *c = s; *c; c++) {
        char ch = *c;
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                 ch == '-' || ch == '.' || ch == ':';
        put(b, "%c", ok ? ch : '_');
    }
}

void mr_bvh_euler_zxy(const float qf[4], double out[3])
{
    double x = qf[0], y = qf[1], z = qf[2], w = qf[3];
    double n = sqrt(x * x + y * y + z * z + w * w);
    if (n > 0) x /= n, y /= n, z /= n, w /= n;
    /* rotation matrix rows */
    double m00 = 1 - 2 * (y * y + z * z), m01 = 2 * (x * y - z * w);
    double m10 = 2 * (x * y + z * w), m11 = 1 - 2 * (x * x + z * z);
    double m20 = 2 * (x * z - y * w), m21 = 2 * (y * z + x * w), m22 = 1 - 2 * (x * x + y * y);
    /* M = Rz(a) Rx(b) Ry(c): M21 = sin b, M01 = -sa cb, M11 = ca cb, M20 = -cb sc, M22 = cb cc */
    double sb = m21 > 1 ? 1 : m21 < -1 ? -1 : m21;
    double b = asin(sb), a, c;
    if (fabs(sb) < 0.9999999) {
        a = atan2(-m01, m11);
        c = atan2(-m20, m22);
    } else {
        c = 0;
        a = atan2(m10, m00);
    }
    out[0] = b * DEG;
    out[1] = c * DEG;
    out[2] = a * DEG;
}

/* The angle nearest prev that is a + k * 360. */
static double near_angle(double a, double prev)
{
    while (a - prev > 180.0) a -= 360.0;
    while (a - prev < -180.0) a += 360.0;
    return a;
}

typedef struct writer {
    const mr_skeleton *sk;
    const mr_clip *clip;
    int *moves;          /* joint: 1 when it gets position channels */
    int *children;       /* child count per joint */
} writer;

static void put_joint(buf *b, const writer *w, int j, int depth)
{
    const mr_skeleton *sk = w->sk;
    indent(b, depth);
    put(b, "%s ", sk->parents[j] < 0 ? "ROOT" : "JOINT");
    put_name(b, sk->names[j]);
    put(b, "\n");
    indent(b, depth);
    put(b, "{\n");
    indent(b, depth + 1);
    const float *o = sk->rest_t[j];
    put(b, "OFFSET %.9g %.9g %.9g\n", (double)o[0], (double)o[1], (double)o[2]);
    indent(b, depth + 1);
    if (w->moves[j]) put(b, "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n");
    else put(b, "CHANNELS 3 Zrotation Xrotation Yrotation\n");
    for (int c = j + 1; c < sk->joint_count; c++)
        if (sk->parents[c] == j) put_joint(b, w, c, depth + 1);
    if (!w->children[j]) {
        indent(b, depth + 1);
        put(b, "End Site\n");
        indent(b, depth + 1);
        put(b, "{\n");
        indent(b, depth + 2);
        put(b, "OFFSET %.9g %.9g %.9g\n", (double)o[0], (double)o[1], (double)o[2]);
        indent(b, depth + 1);
        put(b, "}\n");
    }
    indent(b, depth);
    put(b, "}\n");
}

mr_status mr_bvh_write(const mr_model *model, const mr_clip *clip, const char *path, mr_error *err)
{
    if (!model || !clip || !path) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "bvh: no model, clip or path");
    mr_status keys = mr_clip_source(clip, err);   /* the file's keys, when they are not resident */
    if (keys != MR_OK) return keys;
    const mr_skeleton *sk = &model->skeleton;
    int n = sk->joint_count;
    if (n < 1) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "bvh: %s: the model has no joints", path);
    if (clip->joint_count != n)
        return mr_error_set(err, MR_ERR_JOINT_COUNT, "bvh: %s: clip '%s' has %d joints, the skeleton %d", path,
                            clip->name, clip->joint_count, n);
    for (int j = 0; j < n; j++) {
        const mr_track *s = &clip->tracks[j].s;
        int per = s->interp == MR_INTERP_CUBIC ? 9 : 3, off = s->interp == MR_INTERP_CUBIC ? 3 : 0;
        for (int k = 0; k < s->key_count; k++)
            for (int i = 0; i < 3; i++)
                if (fabsf(s->values[k * per + off + i] - 1.0f) > 1e-5f)
                    return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                        "bvh: %s: BVH cannot hold scale keys (clip '%s', joint '%s' has scale %g "
                                        "at %g s)", path, clip->name, sk->names[j],
                                        (double)s->values[k * per + off + i], (double)s->times[k]);
    }
    double rate = clip->rate > 0 && isfinite(clip->rate) ? clip->rate : DEFAULT_RATE;
    double frames_d = floor((double)clip->duration * rate + 0.5) + 1;
    if (!(clip->duration >= 0) || !(frames_d <= MAX_FRAMES))
        return mr_error_set(err, MR_ERR_LIMIT, "bvh: %s: clip '%s' would have %g frames at %g fps (limit %d)", path,
                            clip->name, frames_d, rate, MAX_FRAMES);
    int frames = (int)frames_d;
    writer w = {.sk = sk, .clip = clip};
    w.moves = calloc((size_t)n, sizeof *w.moves);
    w.children = calloc((size_t)n, sizeof *w.children);
    float *vals = mr_alloc_array((size_t)frames * (size_t)n, 6 * sizeof *vals);
    mr_pose pose = {0};
    mr_status st = w.moves && w.children && vals ? mr_pose_init(&pose, n) : MR_ERR_NO_MEMORY;
    for (int f = 0; f < frames && st == MR_OK; f++) {
        double t = fmin(f / rate, clip->duration);
        st = mr_clip_sample_keys(clip, sk, (float)t, MR_WRAP_CLAMP, &pose);
        for (int j = 0; j < n && st == MR_OK; j++) {
            float *v = &vals[((size_t)f * n + j) * 6];
            memcpy(v, pose.t[j], 3 * sizeof *v);
            for (int i = 0; i < 3; i++)
                if (fabsf(v[i] - sk->rest_t[j][i]) > 1e-6f * (1.0f + fabsf(sk->rest_t[j][i])))
                    w.moves[j] = 1;
            double e[3];
            mr_bvh_euler_zxy(pose.r[j], e);
            if (f > 0) {
                const float *p = &vals[((size_t)(f - 1) * n + j) * 6 + 3];
                for (int i = 0; i < 3; i++) e[i] = near_angle(e[i], p[i]);
            }
            for (int i = 0; i < 3; i++) v[3 + i] = (float)e[i];
        }
    }
    for (int j = 0; j < n; j++) {
        if (sk->parents[j] < 0) w.moves[j] = 1;
        else if (w.children) w.children[sk->parents[j]]++;
    }
    buf b = {0};
    if (st == MR_OK) {
        put(&b, "HIERARCHY\n");
        for (int j = 0; j < n; j++)
            if (sk->parents[j] < 0) put_joint(&b, &w, j, 0);
        put(&b, "MOTION\nFrames: %d\nFrame Time: %.9g\n", frames, 1.0 / rate);
        for (int f = 0; f < frames; f++) {
            for (int j = 0; j < n; j++) {
                const float *v = &vals[((size_t)f * n + j) * 6];
                if (w.moves[j]) put(&b, "%.9g %.9g %.9g ", (double)v[0], (double)v[1], (double)v[2]);
                /* channel order Zrotation Xrotation Yrotation; v[3..5] = x, y, z angles */
                put(&b, "%.9g %.9g %.9g%s", (double)v[5], (double)v[3], (double)v[4], j + 1 < n ? " " : "");
            }
            put(&b, "\n");
        }
        if (b.failed) st = mr_error_set(err, MR_ERR_NO_MEMORY, "bvh: %s: out of memory", path);
        else st = mr_file_write(path, b.data, b.len, err);
    } else {
        mr_error_set(err, st, "bvh: %s: cannot sample clip '%s': %s", path, clip->name, mr_status_string(st));
    }
    free(b.data);
    mr_pose_deinit(&pose);
    free(vals);
    free(w.moves);
    free(w.children);
    return st;
}
