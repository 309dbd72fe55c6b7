/* skeleton.c — allocation, validation and queries of mr_skeleton. */
#include "anim/skeleton.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"

void mr_skeleton_touch(mr_skeleton *sk)
{
    static _Atomic unsigned long long next;
    sk->serial = ++next;
}

mr_status mr_skeleton_init(mr_skeleton *sk, int joint_count)
{
    memset(sk, 0, sizeof *sk);
    if (joint_count < 0 || joint_count > MR_MAX_JOINTS) return MR_ERR_LIMIT;
    size_t n = (size_t)joint_count;
    sk->names = mr_alloc_array(n, sizeof *sk->names);
    sk->parents = mr_alloc_array(n, sizeof *sk->parents);
    sk->rest_t = mr_alloc_array(n, sizeof *sk->rest_t);
    sk->rest_r = mr_alloc_array(n, sizeof *sk->rest_r);
    sk->rest_s = mr_alloc_array(n, sizeof *sk->rest_s);
    sk->inverse_bind = mr_alloc_array(n, sizeof *sk->inverse_bind);
    if (!sk->names || !sk->parents || !sk->rest_t || !sk->rest_r || !sk->rest_s || !sk->inverse_bind) {
        mr_skeleton_deinit(sk);
        return MR_ERR_NO_MEMORY;
    }
    sk->joint_count = joint_count;
    mr_skeleton_touch(sk);
    for (int i = 0; i < joint_count; i++) {
        sk->parents[i] = -1;
        glm_quat_identity(sk->rest_r[i]);
        glm_vec3_one(sk->rest_s[i]);
        glm_mat4_identity(sk->inverse_bind[i]);
    }
    return MR_OK;
}

void mr_skeleton_deinit(mr_skeleton *sk)
{
    if (!sk) return;
    if (sk->names)
        for (int i = 0; i < sk->joint_count; i++) free(sk->names[i]);
    free(sk->names);
    free(sk->parents);
    free(sk->rest_t);
    free(sk->rest_r);
    free(sk->rest_s);
    free(sk->inverse_bind);
    free(sk->scale_comp);
    memset(sk, 0, sizeof *sk);
}

static int finite3(const float *v) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

/* The checks, with each name's hash in hash[] (NULL: names compared
 * whole, pair by pair). */
static mr_status validate(const mr_skeleton *sk, uint32_t *hash, mr_error *err)
{
    for (int i = 0; i < sk->joint_count; i++) {
        if (!sk->names[i] || !sk->names[i][0])
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "joint %d has no name", i);
        if (hash) hash[i] = mr_str_hash(sk->names[i]);
        if (sk->parents[i] < -1 || sk->parents[i] >= i)
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                "joint %d '%s': parent %d is not an earlier joint", i,
                                sk->names[i], sk->parents[i]);
        if (!finite3(sk->rest_t[i]) || !finite3(sk->rest_s[i]) || !isfinite(sk->rest_r[i][3]) ||
            !finite3(sk->rest_r[i]))
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                "joint %d '%s': rest pose is not finite", i, sk->names[i]);
        float len = glm_vec4_norm(sk->rest_r[i]);
        if (fabsf(len - 1.0f) > 1e-3f)
            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                "joint %d '%s': rest rotation is not a unit quaternion (length %g)",
                                i, sk->names[i], len);
        for (int k = 0; k < i; k++)
            if ((!hash || hash[k] == hash[i]) && strcmp(sk->names[k], sk->names[i]) == 0)
                return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                    "joints %d and %d share the name '%s'", k, i, sk->names[i]);
    }
    return MR_OK;
}

mr_status mr_skeleton_validate(const mr_skeleton *sk, mr_error *err)
{
    if (sk->joint_count < 0 || sk->joint_count > MR_MAX_JOINTS)
        return mr_error_set(err, MR_ERR_LIMIT, "skeleton has %d joints (limit %d)",
                            sk->joint_count, MR_MAX_JOINTS);
    uint32_t *hash = malloc((size_t)(sk->joint_count ? sk->joint_count : 1) * sizeof *hash);   /* NULL: pairs compared whole */
    mr_status st = validate(sk, hash, err);
    free(hash);
    return st;
}

mr_status mr_skeleton_add_scale_comp(mr_skeleton *sk)
{
    if (sk->scale_comp || sk->joint_count <= 0) return MR_OK;
    sk->scale_comp = calloc((size_t)sk->joint_count, 1);
    return sk->scale_comp ? MR_OK : MR_ERR_NO_MEMORY;
}

void mr_skeleton_compensate(const mr_skeleton *sk, int j, const float *parent_s, mat4 local)
{
    if (!sk->scale_comp || !sk->scale_comp[j] || sk->parents[j] < 0 || !parent_s) return;
    /* S_parent^-1 * (R * S): row k of the linear part divided by the
     * parent's scale k (T stays in front: the origin still moves with it) */
    for (int k = 0; k < 3; k++) {
        float d = parent_s[k];
        if (d == 0.0f || !isfinite(d)) continue;
        for (int c = 0; c < 3; c++) local[c][k] /= d;
    }
}

void mr_skeleton_compute_inverse_bind(mr_skeleton *sk)
{
    /* Model-space bind matrices go into inverse_bind first (parents come
     * before children, so each parent is final when its children need it),
     * then every entry is inverted in place. */
    for (int i = 0; i < sk->joint_count; i++) {
        mat4 local;
        glm_translate_make(local, sk->rest_t[i]);
        glm_quat_rotate(local, sk->rest_r[i], local);
        glm_scale(local, sk->rest_s[i]);
        if (sk->parents[i] >= 0) mr_skeleton_compensate(sk, i, sk->rest_s[sk->parents[i]], local);
        if (sk->parents[i] >= 0)
            glm_mat4_mul(sk->inverse_bind[sk->parents[i]], local, sk->inverse_bind[i]);
        else
            glm_mat4_copy(local, sk->inverse_bind[i]);
    }
    for (int i = 0; i < sk->joint_count; i++) glm_mat4_inv(sk->inverse_bind[i], sk->inverse_bind[i]);
}

int mr_skeleton_find(const mr_skeleton *sk, const char *name)
{
    if (!name) return -1;
    for (int i = 0; i < sk->joint_count; i++)
        if (sk->names[i] && strcmp(sk->names[i], name) == 0) return i;
    return -1;
}

mr_status mr_skeleton_copy(mr_skeleton *dst, const mr_skeleton *src)
{
    mr_status st = mr_skeleton_init(dst, src->joint_count);
    if (st != MR_OK) return st;
    size_t n = (size_t)src->joint_count;
    for (size_t i = 0; i < n; i++) {
        dst->names[i] = mr_str_dup(src->names[i]);
        if (src->names[i] && !dst->names[i]) {
            mr_skeleton_deinit(dst);
            return MR_ERR_NO_MEMORY;
        }
    }
    memcpy(dst->parents, src->parents, n * sizeof *dst->parents);
    memcpy(dst->rest_t, src->rest_t, n * sizeof *dst->rest_t);
    memcpy(dst->rest_r, src->rest_r, n * sizeof *dst->rest_r);
    memcpy(dst->rest_s, src->rest_s, n * sizeof *dst->rest_s);
    memcpy(dst->inverse_bind, src->inverse_bind, n * sizeof *dst->inverse_bind);
    if (src->scale_comp) {
        if (mr_skeleton_add_scale_comp(dst) != MR_OK) {
            mr_skeleton_deinit(dst);
            return MR_ERR_NO_MEMORY;
        }
        memcpy(dst->scale_comp, src->scale_comp, n);
    }
    return MR_OK;
}
