/* mask.c — per-joint weight masks and their helpers (see mask.h). */
#include "anim/mask.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

static int unit(float w) { return w >= 0.0f && w <= 1.0f; }   /* false for NaN */

static int usable(const mr_mask *m) { return m && m->w && m->joint_count >= 0; }

mr_status mr_mask_init(mr_mask *mask, int joint_count, float fill)
{
    if (!mask) return MR_ERR_INVALID_ARGUMENT;
    memset(mask, 0, sizeof *mask);
    if (joint_count < 0 || joint_count > MR_MAX_JOINTS) return MR_ERR_LIMIT;
    if (!unit(fill)) return MR_ERR_INVALID_ARGUMENT;
    mask->w = mr_alloc_array((size_t)joint_count, sizeof *mask->w);
    if (!mask->w) return MR_ERR_NO_MEMORY;
    mask->joint_count = joint_count;
    for (int i = 0; i < joint_count; i++) mask->w[i] = fill;
    return MR_OK;
}

void mr_mask_deinit(mr_mask *mask)
{
    if (!mask) return;
    free(mask->w);
    memset(mask, 0, sizeof *mask);
}

mr_status mr_mask_copy(mr_mask *dst, const mr_mask *src)
{
    if (!usable(dst) || !usable(src)) return MR_ERR_INVALID_ARGUMENT;
    if (dst->joint_count != src->joint_count) return MR_ERR_JOINT_COUNT;
    if (dst != src) memcpy(dst->w, src->w, (size_t)src->joint_count * sizeof *dst->w);
    return MR_OK;
}

mr_status mr_mask_fill(mr_mask *mask, float value)
{
    if (!usable(mask) || !unit(value)) return MR_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < mask->joint_count; i++) mask->w[i] = value;
    return MR_OK;
}

static mr_status check_joint(const mr_mask *mask, const mr_skeleton *sk, int joint)
{
    if (!usable(mask) || !sk) return MR_ERR_INVALID_ARGUMENT;
    if (mask->joint_count != sk->joint_count) return MR_ERR_JOINT_COUNT;
    if (joint < 0 || joint >= sk->joint_count) return MR_ERR_INVALID_ARGUMENT;
    return MR_OK;
}

/* Depth-first order makes a subtree a contiguous run after its root: it ends
 * at the first later joint whose parent precedes the root. depth[] of the
 * run's joints is filled when depth is not NULL. Returns one past the end. */
static int subtree_end(const mr_skeleton *sk, int joint, int *depth)
{
    int end = joint + 1;
    if (depth) depth[0] = 0;
    while (end < sk->joint_count && sk->parents[end] >= joint) {
        if (depth) depth[end - joint] = depth[sk->parents[end] - joint] + 1;
        end++;
    }
    return end;
}

mr_status mr_mask_set_subtree(mr_mask *mask, const mr_skeleton *sk, int joint, float weight)
{
    mr_status st = check_joint(mask, sk, joint);
    if (st != MR_OK) return st;
    if (!unit(weight)) return MR_ERR_INVALID_ARGUMENT;
    int end = subtree_end(sk, joint, NULL);
    for (int i = joint; i < end; i++) mask->w[i] = weight;
    return MR_OK;
}

mr_status mr_mask_ramp(mr_mask *mask, const mr_skeleton *sk, int joint, int count, float from,
                       float to)
{
    mr_status st = check_joint(mask, sk, joint);
    if (st != MR_OK) return st;
    if (count < 1 || !unit(from) || !unit(to)) return MR_ERR_INVALID_ARGUMENT;
    int depth[MR_MAX_JOINTS];
    int end = subtree_end(sk, joint, depth);
    for (int i = joint; i < end; i++) {
        int d = depth[i - joint];
        float a = count == 1 ? 1.0f : (float)(d < count - 1 ? d : count - 1) / (float)(count - 1);
        float w = from + (to - from) * a;
        mask->w[i] = w < 0.0f ? 0.0f : w > 1.0f ? 1.0f : w;
    }
    return MR_OK;
}

static mr_status check_pair(const mr_mask *dst, const mr_mask *a, const mr_mask *b)
{
    if (!usable(dst) || !usable(a) || !usable(b)) return MR_ERR_INVALID_ARGUMENT;
    if (a->joint_count != b->joint_count || dst->joint_count != a->joint_count)
        return MR_ERR_JOINT_COUNT;
    return MR_OK;
}

mr_status mr_mask_union(mr_mask *dst, const mr_mask *a, const mr_mask *b)
{
    mr_status st = check_pair(dst, a, b);
    if (st != MR_OK) return st;
    for (int i = 0; i < dst->joint_count; i++) dst->w[i] = a->w[i] > b->w[i] ? a->w[i] : b->w[i];
    return MR_OK;
}

mr_status mr_mask_intersect(mr_mask *dst, const mr_mask *a, const mr_mask *b)
{
    mr_status st = check_pair(dst, a, b);
    if (st != MR_OK) return st;
    for (int i = 0; i < dst->joint_count; i++) dst->w[i] = a->w[i] < b->w[i] ? a->w[i] : b->w[i];
    return MR_OK;
}

mr_status mr_mask_scale(mr_mask *mask, float factor)
{
    if (!usable(mask) || !isfinite(factor) || factor < 0.0f) return MR_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < mask->joint_count; i++) {
        float w = mask->w[i] * factor;
        mask->w[i] = w > 1.0f ? 1.0f : w;
    }
    return MR_OK;
}

mr_status mr_mask_invert(mr_mask *mask)
{
    if (!usable(mask)) return MR_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < mask->joint_count; i++) mask->w[i] = 1.0f - mask->w[i];
    return MR_OK;
}

mr_status mr_mask_validate(const mr_mask *mask, const mr_skeleton *sk, mr_error *err)
{
    if (!usable(mask) || !sk)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "mask: no mask or no skeleton");
    if (mask->joint_count != sk->joint_count)
        return mr_error_set(err, MR_ERR_JOINT_COUNT, "mask has %d joints, skeleton has %d",
                            mask->joint_count, sk->joint_count);
    for (int i = 0; i < mask->joint_count; i++)
        if (!unit(mask->w[i]))
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                "mask: joint %d '%s' has weight %g, expected a value in [0, 1]", i,
                                sk->names && sk->names[i] ? sk->names[i] : "?", mask->w[i]);
    return MR_OK;
}
