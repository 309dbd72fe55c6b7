/* blendspace.c — 1D linear and 2D gradient-band blend spaces (see blendspace.h). */
#include "anim/blendspace.h"

#include <math.h>
#include <string.h>

mr_status mr_blendspace_init(mr_blendspace *bs, int dims)
{
    if (!bs || (dims != 1 && dims != 2)) return MR_ERR_INVALID_ARGUMENT;
    memset(bs, 0, sizeof *bs);
    bs->dims = dims;
    return MR_OK;
}

static int same_point(const mr_blendspace *bs, int i, float x, float y)
{
    return bs->x[i] == x && (bs->dims == 1 || bs->y[i] == y);
}

mr_status mr_blendspace_add(mr_blendspace *bs, const mr_clip *clip, float x, float y)
{
    if (!bs || !clip || (bs->dims != 1 && bs->dims != 2)) return MR_ERR_INVALID_ARGUMENT;
    if (bs->dims == 1) y = 0.0f;
    if (!isfinite(x) || !isfinite(y)) return MR_ERR_INVALID_ARGUMENT;
    if (bs->count >= MR_BLENDSPACE_MAX) return MR_ERR_LIMIT;
    for (int i = 0; i < bs->count; i++)
        if (same_point(bs, i, x, y)) return MR_ERR_INVALID_ARGUMENT;
    int at = bs->count;
    if (bs->dims == 1)                      /* keep 1D sorted by x */
        while (at > 0 && bs->x[at - 1] > x) {
            bs->clips[at] = bs->clips[at - 1];
            bs->x[at] = bs->x[at - 1];
            at--;
        }
    bs->clips[at] = clip;
    bs->x[at] = x;
    bs->y[at] = y;
    bs->count++;
    return MR_OK;
}

mr_status mr_blendspace_validate(const mr_blendspace *bs, const mr_skeleton *sk, mr_error *err)
{
    if (!bs || !sk) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "blend space: none given");
    if (bs->dims != 1 && bs->dims != 2)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "blend space: %d dimensions, expected 1 or 2",
                            bs->dims);
    if (bs->count < 1 || bs->count > MR_BLENDSPACE_MAX)
        return mr_error_set(err, MR_ERR_EMPTY_CLIP, "blend space: %d clips, expected 1 to %d", bs->count,
                            MR_BLENDSPACE_MAX);
    for (int i = 0; i < bs->count; i++) {
        const mr_clip *c = bs->clips[i];
        if (!c) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "blend space: clip %d is missing", i);
        if (c->joint_count != sk->joint_count)
            return mr_error_set(err, MR_ERR_JOINT_COUNT, "blend space: clip '%s' has %d joints, skeleton has %d",
                                c->name, c->joint_count, sk->joint_count);
        if (!(c->duration > 0.0f) || !isfinite(c->duration))
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                "blend space: clip '%s' has duration %g, expected > 0 to share a phase",
                                c->name, c->duration);
        if (!isfinite(bs->x[i]) || !isfinite(bs->y[i]))
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "blend space: clip '%s' has a non-finite point",
                                c->name);
        for (int k = 0; k < i; k++)
            if (same_point(bs, k, bs->x[i], bs->y[i]))
                return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                    "blend space: clips '%s' and '%s' share the point (%g, %g)",
                                    bs->clips[k]->name, c->name, bs->x[i], bs->y[i]);
    }
    return MR_OK;
}

static void weights_1d(const mr_blendspace *bs, float x, float *w)
{
    int n = bs->count;
    for (int i = 0; i < n; i++) w[i] = 0.0f;
    if (x <= bs->x[0]) { w[0] = 1.0f; return; }
    if (x >= bs->x[n - 1]) { w[n - 1] = 1.0f; return; }
    int i = 0;
    while (i < n - 2 && x > bs->x[i + 1]) i++;
    float a = (x - bs->x[i]) / (bs->x[i + 1] - bs->x[i]);
    w[i] = 1.0f - a;
    w[i + 1] = a;
}

static void weights_2d(const mr_blendspace *bs, float x, float y, float *w)
{
    int n = bs->count;
    float sum = 0.0f;
    for (int i = 0; i < n; i++) {
        float px = x - bs->x[i], py = y - bs->y[i], wi = 1.0f;
        for (int j = 0; j < n && wi > 0.0f; j++) {
            if (j == i) continue;
            float ex = bs->x[j] - bs->x[i], ey = bs->y[j] - bs->y[i];
            float h = 1.0f - (px * ex + py * ey) / (ex * ex + ey * ey);
            if (h < wi) wi = h;
        }
        w[i] = wi > 0.0f ? wi : 0.0f;
        sum += w[i];
    }
    if (sum > 0.0f) {
        for (int i = 0; i < n; i++) w[i] /= sum;
        return;
    }
    /* Not reached for distinct points, kept so weights always sum to 1. */
    int best = 0;
    float bd = INFINITY;
    for (int i = 0; i < n; i++) {
        float d = (x - bs->x[i]) * (x - bs->x[i]) + (y - bs->y[i]) * (y - bs->y[i]);
        if (d < bd) { bd = d; best = i; }
        w[i] = 0.0f;
    }
    w[best] = 1.0f;
}

mr_status mr_blendspace_weights(const mr_blendspace *bs, float x, float y, float *weights)
{
    if (!bs || !weights || bs->count < 1 || bs->count > MR_BLENDSPACE_MAX) return MR_ERR_INVALID_ARGUMENT;
    if (bs->dims == 1) y = 0.0f;
    if (!isfinite(x) || !isfinite(y)) return MR_ERR_INVALID_ARGUMENT;
    if (bs->count == 1) weights[0] = 1.0f;
    else if (bs->dims == 1) weights_1d(bs, x, weights);
    else weights_2d(bs, x, y, weights);
    return MR_OK;
}

float mr_blendspace_duration(const mr_blendspace *bs, const float *weights)
{
    float d = 0.0f;
    for (int i = 0; i < bs->count; i++) d += weights[i] * bs->clips[i]->duration;
    return d;
}

int mr_blendspace_dominant(const mr_blendspace *bs, const float *weights)
{
    int best = -1;
    for (int i = 0; i < bs->count; i++)
        if (best < 0 || weights[i] > weights[best]) best = i;
    return best;
}

mr_status mr_blendspace_sample(const mr_blendspace *bs, const mr_skeleton *sk, const float *weights,
                               float phase, mr_pose *scratch, mr_pose *out)
{
    return mr_blendspace_sample_with(bs, sk, weights, phase, scratch, out, NULL);
}

mr_status mr_blendspace_sample_with(const mr_blendspace *bs, const mr_skeleton *sk, const float *weights,
                                    float phase, mr_pose *scratch, mr_pose *out, mr_clip_cursor *const *cursors)
{
    if (!bs || !sk || !weights || !scratch || !out || scratch == out) return MR_ERR_INVALID_ARGUMENT;
    if (!isfinite(phase)) return MR_ERR_BAD_TIME;
    if (bs->count < 1 || bs->count > MR_BLENDSPACE_MAX) return MR_ERR_EMPTY_CLIP;
    if (scratch->joint_count != sk->joint_count || out->joint_count != sk->joint_count)
        return MR_ERR_JOINT_COUNT;
    for (int i = 0; i < bs->count; i++) {
        if (!bs->clips[i]) return MR_ERR_INVALID_ARGUMENT;
        if (bs->clips[i]->joint_count != sk->joint_count) return MR_ERR_JOINT_COUNT;
        if (!(isfinite(weights[i]) && weights[i] >= 0.0f)) return MR_ERR_INVALID_ARGUMENT;
    }
    phase -= floorf(phase);
    float total = 0.0f;
    int used = -1, nonzero = 0;
    for (int i = 0; i < bs->count; i++)
        if (weights[i] > 0.0f) { total += weights[i]; used = i; nonzero++; }
    if (nonzero == 1)        /* one clip: sample straight into out, exactly */
        return mr_clip_sample_with(bs->clips[used], sk, phase * bs->clips[used]->duration, MR_WRAP_CLAMP, out,
                                   cursors ? cursors[used] : NULL);
    mr_blend_begin(out);
    for (int i = 0; i < bs->count; i++) {
        if (!(weights[i] > 0.0f)) continue;
        mr_status st = mr_clip_sample_with(bs->clips[i], sk, phase * bs->clips[i]->duration, MR_WRAP_CLAMP, scratch,
                                           cursors ? cursors[i] : NULL);
        if (st != MR_OK) return st;
        mr_blend_add(out, scratch, weights[i]);
    }
    return mr_blend_end(out, sk, total, 0.0f);
}
