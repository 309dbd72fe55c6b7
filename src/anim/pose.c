/* pose.c — pose allocation, local-to-model and skinning matrices.
 *
 * The per-frame functions are straight loops over flat arrays: local TRS is
 * composed into an affine matrix directly (no intermediate rotation matrix),
 * each model matrix a weighted sum of its parent's columns (SSE, or AVX
 * where the CPU has it: core/cpu.h).
 */
#include "anim/pose.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/cpu.h"
#include "core/quat.h"

mr_status mr_pose_init(mr_pose *pose, int joint_count)
{
    memset(pose, 0, sizeof *pose);
    if (joint_count < 0 || joint_count > MR_MAX_JOINTS) return MR_ERR_LIMIT;
    size_t n = (size_t)joint_count;
    pose->t = mr_alloc_array(n, sizeof *pose->t);
    pose->r = mr_alloc_array(n, sizeof *pose->r);
    pose->s = mr_alloc_array(n, sizeof *pose->s);
    if (!pose->t || !pose->r || !pose->s) {
        mr_pose_deinit(pose);
        return MR_ERR_NO_MEMORY;
    }
    pose->joint_count = joint_count;
    for (int i = 0; i < joint_count; i++) {
        glm_quat_identity(pose->r[i]);
        glm_vec3_one(pose->s[i]);
    }
    return MR_OK;
}

void mr_pose_deinit(mr_pose *pose)
{
    if (!pose) return;
    free(pose->t);
    free(pose->r);
    free(pose->s);
    memset(pose, 0, sizeof *pose);
}

mr_status mr_pose_set_rest(mr_pose *pose, const mr_skeleton *sk)
{
    if (pose->joint_count != sk->joint_count) return MR_ERR_JOINT_COUNT;
    size_t n = (size_t)sk->joint_count;
    memcpy(pose->t, sk->rest_t, n * sizeof *pose->t);
    memcpy(pose->r, sk->rest_r, n * sizeof *pose->r);
    memcpy(pose->s, sk->rest_s, n * sizeof *pose->s);
    return MR_OK;
}

mr_status mr_pose_copy(mr_pose *dst, const mr_pose *src)
{
    if (dst->joint_count != src->joint_count) return MR_ERR_JOINT_COUNT;
    size_t n = (size_t)src->joint_count;
    memcpy(dst->t, src->t, n * sizeof *dst->t);
    memcpy(dst->r, src->r, n * sizeof *dst->r);
    memcpy(dst->s, src->s, n * sizeof *dst->s);
    return MR_OK;
}

/* T * R * S written out for a unit quaternion. */
static inline void compose_trs(const float *t, const float *q, const float *s, mat4 m)
{
    float x = q[0], y = q[1], z = q[2], w = q[3];
    float xx = x * x, yy = y * y, zz = z * z;
    float xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z;
    m[0][0] = (1.0f - 2.0f * (yy + zz)) * s[0];
    m[0][1] = 2.0f * (xy + wz) * s[0];
    m[0][2] = 2.0f * (xz - wy) * s[0];
    m[0][3] = 0.0f;
    m[1][0] = 2.0f * (xy - wz) * s[1];
    m[1][1] = (1.0f - 2.0f * (xx + zz)) * s[1];
    m[1][2] = 2.0f * (yz + wx) * s[1];
    m[1][3] = 0.0f;
    m[2][0] = 2.0f * (xz + wy) * s[2];
    m[2][1] = 2.0f * (yz - wx) * s[2];
    m[2][2] = (1.0f - 2.0f * (xx + yy)) * s[2];
    m[2][3] = 0.0f;
    m[3][0] = t[0];
    m[3][1] = t[1];
    m[3][2] = t[2];
    m[3][3] = 1.0f;
}

void mr_pose_trs_matrix(const vec3 t, const versor q, const vec3 s, mat4 out)
{
    compose_trs(t, q, s, out);
}

void mr_pose_local_matrix(const mr_pose *pose, int j, mat4 out)
{
    compose_trs(pose->t[j], pose->r[j], pose->s[j], out);
}

/* Where local-to-model reads the local transforms: a pose, or rows
 * (mr_pose_rows_to_model). */
typedef struct mr_local_rows {
    const mr_pose *pose;
    const float *rows;   /* NULL: pose */
    size_t lanes;
} mr_local_rows;

/* Joint i's local transform, copied out. */
static inline void local_of(const mr_local_rows *in, int i, float *t, float *q, float *s)
{
    if (!in->rows) {
        memcpy(t, in->pose->t[i], 3 * sizeof *t);
        memcpy(q, in->pose->r[i], 4 * sizeof *q);
        memcpy(s, in->pose->s[i], 3 * sizeof *s);
        return;
    }
    const float *r = in->rows + i;
    size_t L = in->lanes;
    for (int e = 0; e < 3; e++) {
        t[e] = r[(MR_LOCAL_TX + e) * L];
        s[e] = r[(MR_LOCAL_SX + e) * L];
    }
    for (int e = 0; e < 4; e++) q[e] = r[(MR_LOCAL_QX + e) * L];
}

static inline void compose_local(const mr_local_rows *in, int i, mat4 out)
{
    float t[3], q[4], s[3];
    local_of(in, i, t, q, s);
    compose_trs(t, q, s, out);
}

#if defined(__SSE__)
#include <xmmintrin.h>

#include "anim/soa4.h"

/* out = parent * TRS(t, q, s), composed in registers: the local matrix is
 * never stored, each output column is a weighted sum of parent columns. */
static inline void compose_child(const mat4 parent, const float *t, const float *q, const float *s,
                                 mat4 out)
{
    float x = q[0], y = q[1], z = q[2], w = q[3];
    float xx = x * x, yy = y * y, zz = z * z;
    float xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z;
    __m128 p0 = _mm_load_ps(parent[0]), p1 = _mm_load_ps(parent[1]);
    __m128 p2 = _mm_load_ps(parent[2]), p3 = _mm_load_ps(parent[3]);
#define MR_COLUMN(a, b, c) \
    _mm_add_ps(_mm_add_ps(_mm_mul_ps(p0, _mm_set1_ps(a)), _mm_mul_ps(p1, _mm_set1_ps(b))), \
               _mm_mul_ps(p2, _mm_set1_ps(c)))
    _mm_store_ps(out[0], MR_COLUMN((1.0f - 2.0f * (yy + zz)) * s[0], 2.0f * (xy + wz) * s[0],
                                   2.0f * (xz - wy) * s[0]));
    _mm_store_ps(out[1], MR_COLUMN(2.0f * (xy - wz) * s[1], (1.0f - 2.0f * (xx + zz)) * s[1],
                                   2.0f * (yz + wx) * s[1]));
    _mm_store_ps(out[2], MR_COLUMN(2.0f * (xz + wy) * s[2], 2.0f * (yz - wx) * s[2],
                                   (1.0f - 2.0f * (xx + yy)) * s[2]));
    _mm_store_ps(out[3], _mm_add_ps(MR_COLUMN(t[0], t[1], t[2]), p3));
#undef MR_COLUMN
}
#else
static inline void compose_child(const mat4 parent, const float *t, const float *q, const float *s,
                                 mat4 out)
{
    mat4 local;
    compose_trs(t, q, s, local);
    glm_mul((vec4 *)parent, local, out);
}
#endif

#if defined(__SSE__)
/* compose_trs's rotation-and-scale formulas on registers of type V, one
 * joint per lane, with that width's mul, add, sub and set1: written once
 * for 4 lanes and 8, so that both give compose_trs's values. Column k of
 * a local matrix is c[3k], c[3k+1], c[3k+2]; c[9..11], the translation,
 * are the caller's. */
#define MR_TRS_COEFFICIENTS(V, mul, add, sub, set1, x, y, z, w, sx, sy, sz, c) \
    do { \
        const V one_ = set1(1.0f), two_ = set1(2.0f); \
        V xx = mul(x, x), yy = mul(y, y), zz = mul(z, z); \
        V xy = mul(x, y), xz = mul(x, z), yz = mul(y, z); \
        V wx = mul(w, x), wy = mul(w, y), wz = mul(w, z); \
        (c)[0] = mul(sub(one_, mul(two_, add(yy, zz))), sx); \
        (c)[1] = mul(mul(two_, add(xy, wz)), sx); \
        (c)[2] = mul(mul(two_, sub(xz, wy)), sx); \
        (c)[3] = mul(mul(two_, sub(xy, wz)), sy); \
        (c)[4] = mul(sub(one_, mul(two_, add(xx, zz))), sy); \
        (c)[5] = mul(mul(two_, add(yz, wx)), sy); \
        (c)[6] = mul(mul(two_, add(xz, wy)), sz); \
        (c)[7] = mul(mul(two_, sub(yz, wx)), sz); \
        (c)[8] = mul(sub(one_, mul(two_, add(xx, yy))), sz); \
    } while (0)

/* The rotation-and-scale coefficients of joints j..j+3's local matrices and
 * their translations: compose_trs's formulas, one register per
 * coefficient, joint l in lane l (the same values as per joint); column k
 * of a local matrix is c[3k], c[3k+1], c[3k+2] (k = 3: the translation). */
static inline __attribute__((always_inline)) void coefficients4(const mr_local_rows *in, int j, __m128 c[12])
{
    __m128 x, y, z, w, sx, sy, sz;
    if (in->rows) {   /* rows: already one register per component */
        const float *r = in->rows + j;
        size_t L = in->lanes;
        x = _mm_load_ps(r + MR_LOCAL_QX * L);
        y = _mm_load_ps(r + MR_LOCAL_QY * L);
        z = _mm_load_ps(r + MR_LOCAL_QZ * L);
        w = _mm_load_ps(r + MR_LOCAL_QW * L);
        MR_UNROLL for (int e = 0; e < 3; e++) c[9 + e] = _mm_load_ps(r + (MR_LOCAL_TX + e) * L);
        sx = _mm_load_ps(r + MR_LOCAL_SX * L);
        sy = _mm_load_ps(r + MR_LOCAL_SY * L);
        sz = _mm_load_ps(r + MR_LOCAL_SZ * L);
    } else {
        const mr_pose *pose = in->pose;
        x = _mm_loadu_ps(pose->r[j]);
        y = _mm_loadu_ps(pose->r[j + 1]);
        z = _mm_loadu_ps(pose->r[j + 2]);
        w = _mm_loadu_ps(pose->r[j + 3]);
        _MM_TRANSPOSE4_PS(x, y, z, w);
        mr_soa4_load_xyz(pose->s[j], &sx, &sy, &sz);
        mr_soa4_load_xyz(pose->t[j], &c[9], &c[10], &c[11]);
    }
    MR_TRS_COEFFICIENTS(__m128, _mm_mul_ps, _mm_add_ps, _mm_sub_ps, _mm_set1_ps, x, y, z, w, sx, sy, sz, c);
}

/* Where the groups of 4 joints end: at the last whole group of a pose;
 * rows have room for the last group whole (their lanes a multiple of 4). */
static inline int group_end(const mr_skeleton *sk, const mr_local_rows *in)
{
    return in->rows ? sk->joint_count : sk->joint_count / 4 * 4;
}

/* Joint i's parent; a root's model matrix is its local matrix, composed
 * here (-1). */
static inline __attribute__((always_inline)) int parent_of(const mr_skeleton *sk, const mr_local_rows *in, int i,
                                                           mat4 *model)
{
    int p = sk->parents[i];
    if (p < 0) compose_local(in, i, model[i]);
    return p;
}

/* Groups of 4 joints (group_end), each joint's columns as compose_child builds
 * them from its parent's; returns the joints done. Parents come before
 * children (skeleton.h), so a group's parents are done before it, or
 * earlier in the group and done first. A child that follows its parent
 * (most joints of a chain) takes the parent's columns from registers
 * (last) instead of reloading what was just stored. Unrolled, so that
 * the small arrays stay in registers. */
static int to_model_groups_sse(const mr_skeleton *sk, const mr_local_rows *in_arg, mat4 *model)
{
    const mr_local_rows in_copy = *in_arg, *in = &in_copy;   /* see to_model_groups_avx (5.55 -> 5.2 ns) */
    __m128 last[4] = {_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()};
    int have_last = 0, j = 0;
    for (; j < group_end(sk, in); j += 4) {
        __m128 c[12];
        coefficients4(in, j, c);
        float cf[12][4] __attribute__((aligned(16)));   /* broadcast from here: no immediates */
        MR_UNROLL for (int k = 0; k < 12; k++) _mm_store_ps(cf[k], c[k]);
        MR_UNROLL for (int l = 0; l < 4; l++) {
            int i = j + l;
            if (i >= sk->joint_count) break;   /* the rows' last group */
            int p = parent_of(sk, in, i, model);
            if (p < 0) {
                have_last = 0;
                continue;
            }
            if (p != i - 1 || !have_last) {
                MR_UNROLL for (int k = 0; k < 4; k++) last[k] = _mm_load_ps(model[p][k]);
            }
            __m128 m[4];
            MR_UNROLL for (int k = 0; k < 4; k++) {
                __m128 col = _mm_add_ps(_mm_add_ps(_mm_mul_ps(last[0], _mm_set1_ps(cf[3 * k][l])),
                                                   _mm_mul_ps(last[1], _mm_set1_ps(cf[3 * k + 1][l]))),
                                        _mm_mul_ps(last[2], _mm_set1_ps(cf[3 * k + 2][l])));
                m[k] = k == 3 ? _mm_add_ps(col, last[3]) : col;
            }
            MR_UNROLL for (int k = 0; k < 4; k++) _mm_store_ps(model[i][k], last[k] = m[k]);
            have_last = 1;
        }
    }
    return j;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TO_MODEL_AVX 1
/* coefficients4's for joints j..j+7 from rows (at least j + 8 lanes): one
 * register of 8 lanes per coefficient, half the instructions. */
__attribute__((target("avx"))) static inline void coefficients8(const mr_local_rows *in, int j, __m256 c[12])
{
    const float *r = in->rows + j;
    size_t L = in->lanes;
    __m256 x = _mm256_loadu_ps(r + MR_LOCAL_QX * L), y = _mm256_loadu_ps(r + MR_LOCAL_QY * L);
    __m256 z = _mm256_loadu_ps(r + MR_LOCAL_QZ * L), w = _mm256_loadu_ps(r + MR_LOCAL_QW * L);
    MR_UNROLL for (int e = 0; e < 3; e++) c[9 + e] = _mm256_loadu_ps(r + (MR_LOCAL_TX + e) * L);
    __m256 sx = _mm256_loadu_ps(r + MR_LOCAL_SX * L), sy = _mm256_loadu_ps(r + MR_LOCAL_SY * L);
    __m256 sz = _mm256_loadu_ps(r + MR_LOCAL_SZ * L);
    MR_TRS_COEFFICIENTS(__m256, _mm256_mul_ps, _mm256_add_ps, _mm256_sub_ps, _mm256_set1_ps, x, y, z, w, sx, sy, sz, c);
}

/* The AVX path (joints4_avx, to_model_groups_avx): to_model_groups_sse's
 * arithmetic with two columns in each 256-bit register: columns 0 and 1 in one, 2 and 3 in the other, each lane the same
 * products and sums in the same order (column 2 gains -0.0 where column 3
 * gains the parent's translation: x + -0.0 is x, its sign included, in the
 * default rounding mode), so the results are the same bits (where a NaN
 * comes out, its sign and payload may differ). Half the multiplies, adds
 * and broadcasts; the parent's columns are broadcast to both halves as
 * they are loaded, or, for a child that follows its parent (a chain's
 * joints), taken from the registers just stored: a chain waits on its
 * parent's products, and a reload of what was just stored added to each
 * link's wait (snoutx10k: 4.2 -> 3.9 ns a joint). */
typedef struct avx_chain {
    __m256 last01, last23;   /* the last joint's columns, as stored */
    int have_last;
} avx_chain;

/* Joints j..j+3 (those below end) from their coefficients: [column k's |
 * column k + 1's], k = 0 and 2, per row, joint j + l in lane l of each half. */
__attribute__((target("avx"), always_inline)) static inline void joints4_avx(const mr_skeleton *sk,
                                                                            const mr_local_rows *in, mat4 *model,
                                                                            int j, int end, const __m256 c01[3],
                                                                            const __m256 c23[3], avx_chain *ch)
{
    const __m256 neg_zero = _mm256_set1_ps(-0.0f);
    MR_UNROLL for (int l = 0; l < 4; l++) {
        int i = j + l;
        if (i >= end) break;
        int p = parent_of(sk, in, i, model);
        if (p < 0) {
            ch->have_last = 0;
            continue;
        }
        /* the parent's columns 0, 1 and 2 in both halves; -0.0 | column 3: from
         * the registers just stored when the parent is the joint before */
        __m256 p0, p1, p2, p3;
        if (p == i - 1 && ch->have_last) {
            p0 = _mm256_permute2f128_ps(ch->last01, ch->last01, 0x00);
            p1 = _mm256_permute2f128_ps(ch->last01, ch->last01, 0x11);
            p2 = _mm256_permute2f128_ps(ch->last23, ch->last23, 0x00);
            p3 = _mm256_blend_ps(neg_zero, ch->last23, 0xf0);
        } else {
            p0 = _mm256_broadcast_ps((const __m128 *)model[p][0]);
            p1 = _mm256_broadcast_ps((const __m128 *)model[p][1]);
            p2 = _mm256_broadcast_ps((const __m128 *)model[p][2]);
            p3 = _mm256_blend_ps(neg_zero, _mm256_loadu_ps(model[p][2]), 0xf0);
        }
        const __m256i lane = _mm256_set1_epi32(l);   /* lane l of each half, in all four */
#define MR_BROADCAST(v) _mm256_permutevar_ps(v, lane)
        __m256 m01 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(p0, MR_BROADCAST(c01[0])),
                                                 _mm256_mul_ps(p1, MR_BROADCAST(c01[1]))),
                                   _mm256_mul_ps(p2, MR_BROADCAST(c01[2])));
        __m256 m23 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(p0, MR_BROADCAST(c23[0])),
                                                               _mm256_mul_ps(p1, MR_BROADCAST(c23[1]))),
                                                 _mm256_mul_ps(p2, MR_BROADCAST(c23[2]))),
                                   p3);
#undef MR_BROADCAST
        _mm256_storeu_ps(model[i][0], ch->last01 = m01);
        _mm256_storeu_ps(model[i][2], ch->last23 = m23);
        ch->have_last = 1;
    }
}

/* Rows 8 joints at a time while they have 8 lanes left (coefficients8:
 * half the instructions of coefficients4's; snoutx10k 3.95 -> 3.75 ns a
 * joint), then groups of 4 (a pose, or the rows' last 4 lanes). */
__attribute__((target("avx"))) static int to_model_groups_avx(const mr_skeleton *sk, const mr_local_rows *in_arg,
                                                              mat4 *model)
{
    /* a local copy: the vector stores to model may alias anything the
     * compiler cannot see is local, so it reloaded in's fields after each
     * (3.75 -> 3.5 ns a joint) */
    const mr_local_rows in_copy = *in_arg, *in = &in_copy;
    avx_chain ch = {_mm256_setzero_ps(), _mm256_setzero_ps(), 0};
    int end = group_end(sk, in), j = 0;
    if (in->rows) {
        for (; j < end && (size_t)j + 8 <= in->lanes; j += 8) {
            __m256 c[12];
            coefficients8(in, j, c);
            __m256 c01[3], c23[3];
            MR_UNROLL for (int r = 0; r < 3; r++) {
                c01[r] = _mm256_permute2f128_ps(c[r], c[3 + r], 0x20);
                c23[r] = _mm256_permute2f128_ps(c[6 + r], c[9 + r], 0x20);
            }
            joints4_avx(sk, in, model, j, end, c01, c23, &ch);
            MR_UNROLL for (int r = 0; r < 3; r++) {
                c01[r] = _mm256_permute2f128_ps(c[r], c[3 + r], 0x31);
                c23[r] = _mm256_permute2f128_ps(c[6 + r], c[9 + r], 0x31);
            }
            joints4_avx(sk, in, model, j + 4, end, c01, c23, &ch);
        }
    }
    for (; j < end; j += 4) {
        __m128 c[12];
        coefficients4(in, j, c);
        __m256 c01[3], c23[3];
        MR_UNROLL for (int r = 0; r < 3; r++) {
            c01[r] = _mm256_insertf128_ps(_mm256_castps128_ps256(c[r]), c[3 + r], 1);
            c23[r] = _mm256_insertf128_ps(_mm256_castps128_ps256(c[6 + r]), c[9 + r], 1);
        }
        joints4_avx(sk, in, model, j, end, c01, c23, &ch);
    }
    return end;
}

#endif
#endif

/* Model matrices with the inherit modes of skeleton.h: joints flagged in
 * scale_comp undo their parent's local scale (one pass, no SIMD groups: only
 * skeletons that have the flags come here). */
static void to_model_comp(const mr_skeleton *sk, const mr_local_rows *in, mat4 *model)
{
    for (int i = 0; i < sk->joint_count; i++) {
        int p = sk->parents[i];
        float t[3], q[4], s[3];
        local_of(in, i, t, q, s);
        if (p < 0) {
            compose_trs(t, q, s, model[i]);
        } else if (!sk->scale_comp[i]) {
            compose_child(model[p], t, q, s, model[i]);
        } else {
            float pt[3], pq[4], ps[3];
            mat4 local;
            local_of(in, p, pt, pq, ps);
            compose_trs(t, q, s, local);
            mr_skeleton_compensate(sk, i, ps, local);
            glm_mul((vec4 *)model[p], local, model[i]);
        }
    }
}

/* Model matrices of every joint from in (a pose or rows). */
static void to_model(const mr_skeleton *sk, const mr_local_rows *in, mat4 *model)
{
    const int *parents = sk->parents;
    int i = 0;
    if (sk->scale_comp) {
        to_model_comp(sk, in, model);
        return;
    }
#if defined(TO_MODEL_AVX)
    i = mr_simd() >= MR_SIMD_AVX ? to_model_groups_avx(sk, in, model) : to_model_groups_sse(sk, in, model);
#elif defined(__SSE__)
    i = to_model_groups_sse(sk, in, model);
#endif
    for (; i < sk->joint_count; i++) {
        int p = parents[i];
        float t[3], q[4], s[3];
        local_of(in, i, t, q, s);
        if (p < 0) compose_trs(t, q, s, model[i]);
        else compose_child(model[p], t, q, s, model[i]);
    }
}

mr_status mr_pose_to_model(const mr_skeleton *sk, const mr_pose *pose, mat4 *model)
{
    if (!sk || !pose || !model) return MR_ERR_INVALID_ARGUMENT;
    if (pose->joint_count != sk->joint_count) return MR_ERR_JOINT_COUNT;
    mr_local_rows in = {pose, NULL, 0};
    to_model(sk, &in, model);
    return MR_OK;
}

void mr_pose_rows_to_model(const mr_skeleton *sk, const float *rows, size_t lanes, mat4 *model)
{
    mr_local_rows in = {NULL, rows, lanes};
    to_model(sk, &in, model);
}

mr_status mr_pose_skinning(const mr_skeleton *sk, const mat4 *model, mat4 *skin)
{
    if (!sk || !model || !skin) return MR_ERR_INVALID_ARGUMENT;
    for (int i = 0; i < sk->joint_count; i++)
        glm_mul((vec4 *)model[i], sk->inverse_bind[i], skin[i]);
    return MR_OK;
}

/* Quaternion of an orthonormal rotation matrix (columns c0, c1, c2), with
 * the canonical sign w >= 0. */
static void quat_from_basis(const vec3 c0, const vec3 c1, const vec3 c2, versor q)
{
    const float *col[3] = {c0, c1, c2};
    double rows[3][3], d[4];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) rows[r][c] = col[c][r];
    mr_quat_from_rows_d(rows, d);
    double sign = d[3] < 0 ? -1.0 : 1.0;
    for (int k = 0; k < 4; k++) q[k] = (float)(sign * d[k]);
}

float mr_pose_trs_from_matrix(const mat4 m, vec3 t, versor q, vec3 s)
{
    t[0] = m[3][0];
    t[1] = m[3][1];
    t[2] = m[3][2];
    vec3 c[3];
    for (int i = 0; i < 3; i++) {
        glm_vec3_copy((float *)m[i], c[i]);
        s[i] = glm_vec3_norm(c[i]);
    }
    vec3 cr;
    glm_vec3_cross(c[1], c[2], cr);
    if (glm_vec3_dot(c[0], cr) < 0) s[0] = -s[0];
    /* Normalise; a vanishing axis is rebuilt from the other two. */
    int zero = -1;
    for (int i = 0; i < 3; i++) {
        if (fabsf(s[i]) > 1e-30f) glm_vec3_scale(c[i], 1.0f / s[i], c[i]);
        else zero = i;
    }
    float shear = 0.0f;
    if (zero >= 0) {
        int a = (zero + 1) % 3, b = (zero + 2) % 3;
        if (fabsf(s[a]) <= 1e-30f) glm_vec3_copy((vec3){a == 0, a == 1, a == 2}, c[a]);
        if (fabsf(s[b]) <= 1e-30f || fabsf(glm_vec3_dot(c[a], c[b])) > 0.999f) glm_vec3_ortho(c[a], c[b]);
        glm_vec3_normalize(c[b]);
        glm_vec3_cross(c[a], c[b], c[zero]);
        glm_vec3_normalize(c[zero]);
    } else {
        float d01 = fabsf(glm_vec3_dot(c[0], c[1])), d02 = fabsf(glm_vec3_dot(c[0], c[2]));
        float d12 = fabsf(glm_vec3_dot(c[1], c[2]));
        shear = fmaxf(d01, fmaxf(d02, d12));
    }
    /* Gram-Schmidt keeps the result a rotation when there is shear or
     * rounding noise. */
    glm_vec3_normalize(c[0]);
    glm_vec3_muladds(c[0], -glm_vec3_dot(c[0], c[1]), c[1]);
    glm_vec3_normalize(c[1]);
    vec3 c2;
    glm_vec3_cross(c[0], c[1], c2);
    quat_from_basis(c[0], c[1], c2, q);
    return shear;
}
