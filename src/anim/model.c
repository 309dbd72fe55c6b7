/* model.c — model ownership, clip list, warnings, bounds, display frame. */
#include "anim/model.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "anim/clip_optimize.h"
#include "anim/clip_runtime.h"
#include "anim/vrm.h"
#include "anim/morph.h"
#include "core/alloc.h"
#include "core/str.h"

static void budget_detach(mr_model *m);

mr_status mr_model_create(const char *path, const char *format, mr_model **out)
{
    *out = NULL;
    mr_model *m = calloc(1, sizeof *m);
    if (!m) return MR_ERR_NO_MEMORY;
    m->path = mr_str_dup(path ? path : "");
    m->format = mr_str_dup(format ? format : "");
    m->axes.up = MR_UP_Y;
    m->axes.meters_per_unit = 1.0f;
    if (!m->path || !m->format) {
        mr_model_destroy(m);
        return MR_ERR_NO_MEMORY;
    }
    *out = m;
    return MR_OK;
}

/* True when p points into the model's cache image (model.h). */
static int inside(const mr_model *m, const void *p)
{
    uintptr_t a = (uintptr_t)p, lo = (uintptr_t)m->cache_block;
    return p && a >= lo && a - lo < m->cache_block_size;
}

/* Sets a field to NULL when it points into the cache image, so the deinit
 * functions below free only what was allocated one by one. */
#define UNBORROW(m, field) \
    do { \
        if (inside((m), (const void *)(field))) (field) = NULL; \
    } while (0)

static void unborrow_all(mr_model *m)
{
    mr_skeleton *sk = &m->skeleton;
    if (sk->names)
        for (int j = 0; j < sk->joint_count; j++) UNBORROW(m, sk->names[j]);
    UNBORROW(m, sk->names);
    UNBORROW(m, sk->parents);
    UNBORROW(m, sk->rest_t);
    UNBORROW(m, sk->rest_r);
    UNBORROW(m, sk->rest_s);
    UNBORROW(m, sk->inverse_bind);
    UNBORROW(m, sk->scale_comp);
    for (int i = 0; i < m->mesh_count; i++) {
        mr_mesh *me = &m->meshes[i];
        UNBORROW(m, me->name);
        UNBORROW(m, me->positions);
        UNBORROW(m, me->normals);
        UNBORROW(m, me->uvs);
        UNBORROW(m, me->joints);
        UNBORROW(m, me->weights);
        UNBORROW(m, me->indices);
        UNBORROW(m, me->dq_blend);
        UNBORROW(m, me->material.name);
        UNBORROW(m, me->material.diffuse_map);
        UNBORROW(m, me->material.normal_map);
        UNBORROW(m, me->material.diffuse_bytes);
        UNBORROW(m, me->material.normal_bytes);
    }
    for (int i = 0; i < m->clip_count; i++) {
        mr_clip *c = m->clips[i];   /* clip.c and clip_runtime.c skip what lies inside */
        c->cache_block = m->cache_block;
        c->cache_block_size = m->cache_block_size;
        if (c->runtime) {
            c->runtime->cache_block = m->cache_block;
            c->runtime->cache_block_size = m->cache_block_size;
        }
    }
    for (int i = 0; i < m->warning_count; i++) UNBORROW(m, m->warnings[i]);
    UNBORROW(m, m->axes_note);
    UNBORROW(m, m->path);
    UNBORROW(m, m->format);
}

size_t mr_model_bytes(const mr_model *m)
{
    size_t n = sizeof *m + (size_t)m->skeleton.joint_count * 192;   /* name, parent, rest TRS, inverse bind */
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_mesh *me = &m->meshes[i];
        size_t per_vertex = sizeof(vec3) * 2 + sizeof(vec2);
        if (me->joints) per_vertex += sizeof *me->joints + sizeof *me->weights;
        n += (size_t)me->vertex_count * per_vertex + (size_t)me->index_count * sizeof(uint32_t);
        n += me->material.diffuse_bytes_len + me->material.normal_bytes_len;
        for (int k = 0; me->morph && k < me->morph->count; k++)  /* morph.h: deltas */
            n += (size_t)me->vertex_count * sizeof(vec3) * (me->morph->targets[k].normals ? 2 : 1);
    }
    for (int c = 0; c < m->clip_count; c++) n += mr_clip_bytes(m->clips[c]);
    return n;
}

void mr_model_destroy(mr_model *m)
{
    if (!m) return;
    /* no build of a pack reads the model (its budget: mr_model_add_clip) from here on */
    for (int i = 0; i < m->clip_count; i++) mr_clip_cancel(m->clips[i]);
    budget_detach(m);
    if (m->cache_block) unborrow_all(m);
    mr_skeleton_deinit(&m->skeleton);
    for (int i = 0; i < m->mesh_count; i++) mr_mesh_deinit(&m->meshes[i]);
    free(m->meshes);
    for (int i = 0; i < m->clip_count; i++) mr_clip_destroy(m->clips[i]);
    free(m->clips);
    for (int i = 0; i < m->warning_count; i++) free(m->warnings[i]);
    free(m->warnings);
    free(m->axes_note);
    mr_vrm_free(m->vrm);
    free(m->path);
    free(m->format);
    free(m->cache_block);
    free(m);
}

mr_clip *mr_model_find_clip(const mr_model *m, const char *name)
{
    for (int i = 0; i < m->clip_count; i++)
        if (strcmp(m->clips[i]->name, name) == 0) return m->clips[i];
    return NULL;
}

/* Points of the budget's reach (model_max_angle) sorted by the joint they
 * hang from, joints in depth-first preorder, so that the points a joint
 * and all its descendants move fill one range: for joint j,
 * [first[pre[j]], first[pre[j] + size[j]]). Each point comes twice: as
 * stored (bind pose, b*) and carried by its joint to the rest pose (r*). */
typedef struct reach_points {
    int *pre, *size;     /* joint_count: preorder index, joints in the subtree */
    size_t *first;       /* joint_count + 1 offsets, by preorder index */
    float *bx, *by, *bz, *rx, *ry, *rz;
} reach_points;

_Static_assert(MR_MAX_JOINTS < 32768, "influence_mask compares joint indices as signed 16-bit");

/* Bit k set when influence k of vertex v moves it: positive weight (NaN
 * is not) and a joint below n (at most MR_MAX_JOINTS). */
static inline unsigned influence_mask(const mr_mesh *me, int v, int n)
{
#if defined(__SSE2__) && MR_MAX_INFLUENCES == 8
    const __m128 zero = _mm_setzero_ps();
    unsigned w = (unsigned)_mm_movemask_ps(_mm_cmpgt_ps(_mm_loadu_ps(me->weights[v]), zero)) |
                 (unsigned)_mm_movemask_ps(_mm_cmpgt_ps(_mm_loadu_ps(me->weights[v] + 4), zero)) << 4;
    __m128i j = _mm_loadu_si128((const __m128i *)me->joints[v]);  /* n <= MR_MAX_JOINTS < 32768: signed compare */
    __m128i ok = _mm_and_si128(_mm_cmplt_epi16(j, _mm_set1_epi16((short)n)), _mm_cmpgt_epi16(j, _mm_set1_epi16(-1)));
    return w & (unsigned)_mm_movemask_epi8(_mm_packs_epi16(ok, _mm_setzero_si128()));
#else
    unsigned mask = 0;
    for (int k = 0; k < MR_MAX_INFLUENCES; k++)
        if (me->weights[v][k] > 0 && me->joints[v][k] < n) mask |= 1u << k;
    return mask;
#endif
}

/* Fills rp for model m (bind and rest joint positions, skin matrices):
 * each joint's position hangs from its parent, each vertex from each joint
 * that moves it. Returns 0 without memory. */
static int reach_points_build(reach_points *rp, const mr_model *m, const float *bind, const float *rest,
                              const mat4 *skin)
{
    const mr_skeleton *sk = &m->skeleton;
    int n = sk->joint_count;
    memset(rp, 0, sizeof *rp);
    rp->pre = mr_alloc_array((size_t)n, sizeof *rp->pre);
    rp->size = mr_alloc_array((size_t)n, sizeof *rp->size);
    int *cursor = mr_alloc_array((size_t)n, sizeof *cursor);
    rp->first = mr_alloc_array((size_t)n + 1, sizeof *rp->first);
    if (!rp->pre || !rp->size || !cursor || !rp->first) {
        free(cursor);
        return 0;
    }
    for (int j = 0; j < n; j++) rp->size[j] = 1;
    for (int j = n - 1; j >= 0; j--)
        if (sk->parents[j] >= 0) rp->size[sk->parents[j]] += rp->size[j];
    int roots = 0;
    for (int j = 0; j < n; j++) {  /* parents[j] < j: a parent's slot is known before its children's */
        int p = sk->parents[j];
        if (p >= 0) {
            rp->pre[j] = cursor[p];
            cursor[p] += rp->size[j];
        } else {
            rp->pre[j] = roots;
            roots += rp->size[j];
        }
        cursor[j] = rp->pre[j] + 1;
    }
    free(cursor);
    /* Count per joint (by preorder index), then offsets, then place. */
    size_t *at = rp->first;
    for (int j = 0; j <= n; j++) at[j] = 0;
    for (int j = 0; j < n; j++)
        if (sk->parents[j] >= 0) at[rp->pre[sk->parents[j]] + 1]++;
    /* A vertex hangs from each joint of positive weight (a joint named twice
     * gives the same point twice, which changes no maximum). masks[] keeps
     * each vertex's influence mask for the second pass, 0 for a vertex that
     * repeats an earlier one of its mesh (same position bits, same joints
     * under the same mask: the same points again). Meshes read from
     * COLLADA repeat a position once per corner (ThinMatrix: 8193 points,
     * 1393 distinct). */
    size_t *fill = mr_alloc_array((size_t)n, sizeof *fill);
    size_t nv = 0, most = 0;
    for (int i = 0; i < m->mesh_count; i++)
        if (m->meshes[i].joints && m->meshes[i].weights && m->meshes[i].vertex_count > 0) {
            nv += (size_t)m->meshes[i].vertex_count;
            if ((size_t)m->meshes[i].vertex_count > most) most = (size_t)m->meshes[i].vertex_count;
        }
    size_t cap = 2;
    while (cap < 2 * most) cap <<= 1;
    unsigned char *masks = mr_alloc_array(nv ? nv : 1, 1);
    int *slot = mr_alloc_array(cap, sizeof *slot);
    if (!fill || !masks || !slot) {
        free(fill);
        free(masks);
        free(slot);
        return 0;
    }
    for (int j = 0; j < n; j++) fill[j] = 0;
    size_t base = 0;
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_mesh *me = &m->meshes[i];
        if (!me->joints || !me->weights || me->vertex_count <= 0) continue;
        size_t mcap = 2;
        int shift = 63;
        while (mcap < 2 * (size_t)me->vertex_count) mcap <<= 1, shift--;
        for (size_t q = 0; q < mcap; q++) slot[q] = -1;
        for (int v = 0; v < me->vertex_count; v++) {
            unsigned mask = influence_mask(me, v, n);
            if (mask) {
                uint32_t b[3];
                memcpy(b, me->positions[v], sizeof b);
                uint64_t h = ((uint64_t)b[0] * 0x9E3779B97F4A7C15ull ^ (uint64_t)b[1] * 0xC2B2AE3D27D4EB4Full ^
                              (uint64_t)b[2] * 0x165667B19E3779F9ull ^ mask) * 0xD6E8FEB86659FD93ull;
                for (size_t q = (size_t)(h >> shift);; q = (q + 1) & (mcap - 1)) {
                    int u = slot[q];
                    if (u < 0) {
                        slot[q] = v;
                        break;
                    }
                    if (masks[base + (size_t)u] != mask || memcmp(me->positions[u], me->positions[v], sizeof b)) continue;
                    unsigned same = 1;
                    for (unsigned k = mask; k && same; k &= k - 1)
                        same = me->joints[u][__builtin_ctz(k)] == me->joints[v][__builtin_ctz(k)];
                    if (same) {
                        mask = 0;
                        break;
                    }
                }
            }
            masks[base + (size_t)v] = (unsigned char)mask;
            for (; mask; mask &= mask - 1) fill[me->joints[v][__builtin_ctz(mask)]]++;
        }
        base += (size_t)me->vertex_count;
    }
    free(slot);
    for (int j = 0; j < n; j++) at[rp->pre[j] + 1] += fill[j];
    for (int j = 0; j < n; j++) at[j + 1] += at[j];
    size_t total = at[n];
    float **arrays[6] = {&rp->bx, &rp->by, &rp->bz, &rp->rx, &rp->ry, &rp->rz};
    for (int a = 0; a < 6; a++)
        if (!(*arrays[a] = mr_alloc_array(total ? total : 1, sizeof(float)))) {
            free(fill);
            free(masks);
            return 0;
        }
    for (int j = 0; j < n; j++) fill[j] = at[rp->pre[j]];  /* by joint index from here on */
    for (int j = 0; j < n; j++)
        if (sk->parents[j] >= 0) {
            size_t s = fill[sk->parents[j]]++;
            const float *b = bind + (size_t)j * 3, *r = rest + (size_t)j * 3;
            rp->bx[s] = b[0], rp->by[s] = b[1], rp->bz[s] = b[2];
            rp->rx[s] = r[0], rp->ry[s] = r[1], rp->rz[s] = r[2];
        }
    base = 0;
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_mesh *me = &m->meshes[i];
        if (!me->joints || !me->weights || me->vertex_count <= 0) continue;
        for (int v = 0; v < me->vertex_count; v++) {
            const float *x = me->positions[v];
            for (unsigned mask = masks[base + (size_t)v]; mask; mask &= mask - 1) {
                int j = me->joints[v][__builtin_ctz(mask)];
                size_t s = fill[j]++;
                const vec4 *t = skin[j];
                rp->bx[s] = x[0], rp->by[s] = x[1], rp->bz[s] = x[2];
                /* glm_mat4_mulv3(skin[j], x, 1, p), the same roundings */
                rp->rx[s] = ((t[3][0] + t[2][0] * x[2]) + t[1][0] * x[1]) + t[0][0] * x[0];
                rp->ry[s] = ((t[3][1] + t[2][1] * x[2]) + t[1][1] * x[1]) + t[0][1] * x[0];
                rp->rz[s] = ((t[3][2] + t[2][2] * x[2]) + t[1][2] * x[1]) + t[0][2] * x[0];
            }
        }
        base += (size_t)me->vertex_count;
    }
    free(fill);
    free(masks);
    return 1;
}

static void reach_points_free(reach_points *rp)
{
    free(rp->pre);
    free(rp->size);
    free(rp->first);
    free(rp->bx);
    free(rp->by);
    free(rp->bz);
    free(rp->rx);
    free(rp->ry);
    free(rp->rz);
}

/* The largest of r and the squared distances, in double (floats widen
 * exactly), from c to the points x, y, z [lo, hi). NaN distances are
 * skipped, as `if (d > r) r = d` does. */
static double max_dist2(const float *x, const float *y, const float *z, size_t lo, size_t hi, const float *c,
                        double r)
{
    size_t i = lo;
#if defined(__SSE2__)
    if (hi - lo >= 4) {
        const __m128d cx = _mm_set1_pd(c[0]), cy = _mm_set1_pd(c[1]), cz = _mm_set1_pd(c[2]);
        __m128d m0 = _mm_set1_pd(r), m1 = m0;
        for (; i + 4 <= hi; i += 4) {
            __m128 fx = _mm_loadu_ps(x + i), fy = _mm_loadu_ps(y + i), fz = _mm_loadu_ps(z + i);
            __m128d x0 = _mm_sub_pd(_mm_cvtps_pd(fx), cx), x1 = _mm_sub_pd(_mm_cvtps_pd(_mm_movehl_ps(fx, fx)), cx);
            __m128d y0 = _mm_sub_pd(_mm_cvtps_pd(fy), cy), y1 = _mm_sub_pd(_mm_cvtps_pd(_mm_movehl_ps(fy, fy)), cy);
            __m128d z0 = _mm_sub_pd(_mm_cvtps_pd(fz), cz), z1 = _mm_sub_pd(_mm_cvtps_pd(_mm_movehl_ps(fz, fz)), cz);
            __m128d d0 = _mm_add_pd(_mm_add_pd(_mm_mul_pd(x0, x0), _mm_mul_pd(y0, y0)), _mm_mul_pd(z0, z0));
            __m128d d1 = _mm_add_pd(_mm_add_pd(_mm_mul_pd(x1, x1), _mm_mul_pd(y1, y1)), _mm_mul_pd(z1, z1));
            m0 = _mm_max_pd(d0, m0);  /* d > m ? d : m, m when d is NaN */
            m1 = _mm_max_pd(d1, m1);
        }
        double lanes[4];
        _mm_storeu_pd(lanes, m0);
        _mm_storeu_pd(lanes + 2, m1);
        for (int k = 0; k < 4; k++)
            if (lanes[k] > r) r = lanes[k];
    }
#endif
    for (; i < hi; i++) {
        double dx = (double)x[i] - c[0], dy = (double)y[i] - c[1], dz = (double)z[i] - c[2];
        double d = dx * dx + dy * dy + dz * dz;
        if (d > r) r = d;
    }
    return r;
}

/* The slerp error budget of each joint (clip.h, "Slerp fidelity"):
 * B / S_j, in *max_move the thinning budget of its translations
 * (clip_optimize.h): B / S_j * reach_j / 2, and in *point_reach the
 * farthest point the joint itself carries (its skinned vertices, bind and
 * rest, plus the virtual points' distance: clip_runtime.h), each NULL
 * without memory. Reach is measured in the bind pose (vertices as stored,
 * joints at their inverse-bind origins) and in the rest pose (each vertex
 * carried by its joint from bind to rest): the farthest point that j or a
 * descendant moves.
 * Squared distances throughout, one sqrt per joint at the end: sqrt is
 * monotonic and correctly rounded, so the root of the largest square is the
 * largest root. Returns NULL when the model has no size or without memory
 * (the clip keeps the default budget). */
static float *model_max_angle(const mr_model *m, float **max_move, float **point_reach)
{
    *max_move = NULL;
    *point_reach = NULL;
    const mr_skeleton *sk = &m->skeleton;
    int n = sk->joint_count;
    vec3 lo, hi;
    if (n <= 0 || !mr_model_bounds(m, lo, hi)) return NULL;
    double diag = glm_vec3_distance(lo, hi);
    if (!(diag > 0) || !isfinite(diag)) return NULL;
    float *bind = mr_alloc_array((size_t)n * 3, sizeof *bind), *rest = mr_alloc_array((size_t)n * 3, sizeof *rest);
    mat4 *world = mr_alloc_array((size_t)n, sizeof *world), *skin = mr_alloc_array((size_t)n, sizeof *skin);
    double *reach = mr_alloc_array((size_t)n, sizeof *reach), *down = mr_alloc_array((size_t)n, sizeof *down);
    double *up = mr_alloc_array((size_t)n, sizeof *up);
    float *out = mr_alloc_array((size_t)n, sizeof *out);
    reach_points rp = {0};
    if (!bind || !rest || !world || !skin || !reach || !down || !up || !out) goto fail;
    for (int j = 0; j < n; j++) {
        mat4 b, local;
        glm_mat4_inv(sk->inverse_bind[j], b);
        glm_vec3_copy(b[3], bind + (size_t)j * 3);
        mr_pose_trs_matrix(sk->rest_t[j], sk->rest_r[j], sk->rest_s[j], local);
        if (sk->parents[j] >= 0) mr_skeleton_compensate(sk, j, sk->rest_s[sk->parents[j]], local);
        if (sk->parents[j] >= 0) glm_mat4_mul(world[sk->parents[j]], local, world[j]);
        else glm_mat4_copy(local, world[j]);
        glm_vec3_copy(world[j][3], rest + (size_t)j * 3);
        glm_mat4_mul(world[j], sk->inverse_bind[j], skin[j]);
    }
    if (!reach_points_build(&rp, m, bind, rest, (const mat4 *)skin)) goto fail;
    /* The size the budgets are fractions of is the model as the rest pose
     * places it. Stored vertices can live in another space: a quantized
     * glTF (gltfpack) keeps integer positions and puts the dequantisation
     * into the inverse binds, so their bounds were hundreds of times the
     * model and the packs' tolerance with them (0.16% of the size off).
     * When the skinned vertices carried to rest span a size more than 2x
     * away from the stored bounds, that size is used and the reaches are
     * measured at rest only; otherwise nothing changes (the same budgets,
     * bit for bit). */
    int stored_elsewhere = 0;
    if (rp.first[n] > 0) {
        vec3 rlo = {FLT_MAX, FLT_MAX, FLT_MAX}, rhi = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
        for (size_t i = 0; i < rp.first[n]; i++) {
            vec3 p = {rp.rx[i], rp.ry[i], rp.rz[i]};
            glm_vec3_minv(rlo, p, rlo);
            glm_vec3_maxv(rhi, p, rhi);
        }
        double posed = glm_vec3_distance(rlo, rhi);
        if (posed > 0 && isfinite(posed) && (posed > 2 * diag || 2 * posed < diag)) {
            diag = posed;
            stored_elsewhere = 1;
        }
    }
    for (int j = 0; j < n; j++) {
        size_t a = rp.first[rp.pre[j]], b = rp.first[rp.pre[j] + rp.size[j]];
        double r = stored_elsewhere ? 0.0 : max_dist2(rp.bx, rp.by, rp.bz, a, b, bind + (size_t)j * 3, 0.0);
        /* plus the virtual points' distance: the bound then also holds for
         * the points ACL and ozz measure along each joint's axes (D from
         * j or from any joint below it) */
        reach[j] = sqrt(max_dist2(rp.rx, rp.ry, rp.rz, a, b, rest + (size_t)j * 3, r)) +
                   MR_CLIP_POINT_DISTANCE * diag;
    }
    /* S_j = down_j + up_j - reach_j: the heaviest chain through j. */
    for (int j = 0; j < n; j++) down[j] = reach[j] + (sk->parents[j] >= 0 ? down[sk->parents[j]] : 0.0);
    for (int j = 0; j < n; j++) up[j] = reach[j];
    for (int j = n - 1; j >= 0; j--) {
        int p = sk->parents[j];
        if (p >= 0 && up[j] + reach[p] > up[p]) up[p] = up[j] + reach[p];
    }
    double budget = 0.5 * MR_CLIP_FIDELITY * diag;
    for (int j = 0; j < n; j++) {
        double chain = down[j] + up[j] - reach[j];
        if (chain < 1e-3 * diag) chain = 1e-3 * diag;
        out[j] = (float)(budget / chain);
    }
    *max_move = mr_alloc_array((size_t)n, sizeof **max_move);
    for (int j = 0; *max_move && j < n; j++) (*max_move)[j] = (float)(0.5 * out[j] * reach[j]);
    /* A joint's own points follow its children's positions in its range
     * (reach_points_build): the children are measured at their own origins. */
    *point_reach = mr_alloc_array((size_t)n, sizeof **point_reach);
    for (int j = 0; *point_reach && j < n; j++) down[j] = 0;   /* children per joint */
    for (int j = 0; *point_reach && j < n; j++)
        if (sk->parents[j] >= 0) down[sk->parents[j]] += 1;
    for (int j = 0; *point_reach && j < n; j++) {
        size_t a = rp.first[rp.pre[j]] + (size_t)down[j], b = rp.first[rp.pre[j] + 1];
        double r = stored_elsewhere ? 0.0 : max_dist2(rp.bx, rp.by, rp.bz, a, b, bind + (size_t)j * 3, 0.0);
        double own = sqrt(max_dist2(rp.rx, rp.ry, rp.rz, a, b, rest + (size_t)j * 3, r)) +
                     MR_CLIP_POINT_DISTANCE * diag;
        (*point_reach)[j] = (float)(own < reach[j] ? own : reach[j]);
    }
    goto done;
fail:
    free(out);
    out = NULL;
done:
    reach_points_free(&rp);
    free(bind);
    free(rest);
    free(world);
    free(skin);
    free(reach);
    free(down);
    free(up);
    return out;
}

/* Four independent lanes, each folding 16 bytes into one 64x64->128-bit
 * product (its halves xored): a few cycles per vertex, far less than the
 * budget it guards. */
typedef struct hasher {
    uint64_t lane[4];
} hasher;

#define HASH_K0 0x9E3779B97F4A7C15ull
#define HASH_K1 0xD6E8FEB86659FD93ull

static inline uint64_t fold_mul(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__)
    __extension__ unsigned __int128 r = (unsigned __int128)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
#else  /* the same product from 32-bit halves */
    uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    uint64_t lo = (mid << 32) | (uint32_t)ll, hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    return lo ^ hi;
#endif
}

static void hash_bytes(hasher *s, const void *p, size_t bytes)
{
    const unsigned char *b = p;
    size_t i = 0;
    uint64_t h0 = s->lane[0], h1 = s->lane[1], h2 = s->lane[2], h3 = s->lane[3];  /* kept in registers */
    uint64_t w[8];
    if (b)
        for (; i + 64 <= bytes; i += 64) {
            memcpy(w, b + i, 64);
            h0 = fold_mul(w[0] ^ h0 ^ HASH_K0, w[1] ^ HASH_K1);
            h1 = fold_mul(w[2] ^ h1 ^ HASH_K0, w[3] ^ HASH_K1);
            h2 = fold_mul(w[4] ^ h2 ^ HASH_K0, w[5] ^ HASH_K1);
            h3 = fold_mul(w[6] ^ h3 ^ HASH_K0, w[7] ^ HASH_K1);
        }
    memset(w, 0, sizeof w);
    if (b) memcpy(w, b + i, bytes - i);
    s->lane[0] = fold_mul(w[0] ^ h0 ^ HASH_K0, w[1] ^ HASH_K1 ^ bytes);
    s->lane[1] = fold_mul(w[2] ^ h1 ^ HASH_K0, w[3] ^ HASH_K1 ^ bytes);
    s->lane[2] = fold_mul(w[4] ^ h2 ^ HASH_K0, w[5] ^ HASH_K1 ^ bytes);
    s->lane[3] = fold_mul(w[6] ^ h3 ^ HASH_K0, w[7] ^ HASH_K1 ^ bytes);
}

static uint64_t budget_inputs(const mr_model *m)
{
    const mr_skeleton *sk = &m->skeleton;
    size_t n = sk->joint_count > 0 ? (size_t)sk->joint_count : 0;
    hasher s = {{1, 2, 3, 4}};
    int counts[2] = {sk->joint_count, m->mesh_count};
    hash_bytes(&s, counts, sizeof counts);
    if (n) {
        hash_bytes(&s, sk->parents, n * sizeof *sk->parents);
        hash_bytes(&s, sk->rest_t, n * sizeof *sk->rest_t);
        hash_bytes(&s, sk->rest_r, n * sizeof *sk->rest_r);
        hash_bytes(&s, sk->rest_s, n * sizeof *sk->rest_s);
        hash_bytes(&s, sk->inverse_bind, n * sizeof *sk->inverse_bind);
    }
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_mesh *me = &m->meshes[i];
        size_t v = me->vertex_count > 0 ? (size_t)me->vertex_count : 0;
        int shape[2] = {me->vertex_count, me->joints && me->weights};
        hash_bytes(&s, shape, sizeof shape);
        hash_bytes(&s, me->positions, v * sizeof *me->positions);
        if (shape[1]) {
            hash_bytes(&s, me->joints, v * sizeof *me->joints);
            hash_bytes(&s, me->weights, v * sizeof *me->weights);
        }
    }
    uint64_t h = 0;
    for (int l = 0; l < 4; l++) h = fold_mul(h ^ s.lane[l] ^ HASH_K0, (uint64_t)l ^ HASH_K1);
    return h;
}

/* ---- the model's pack budget, computed on first need ----
 * mr_model_add_clip gives each clip the model's budget as a source
 * (clip_runtime.h: mr_clip_budget_src) that computes model_max_angle when
 * it is first resolved: by the clip worker building the first pack, off
 * the load's path (the skinned points' reach of every joint was 25% of
 * TM.glb's load), or by a settle or mr_clip_finish here. Resolving reads
 * the model then: what changes the model's skeleton or meshes takes its
 * clips' budgets first (mr_clip_adopt_budget: anim/axes.c), and
 * mr_model_destroy cancels its clips' builds and detaches the model first.
 * Only a load's read defers it (packs held: mr_clip_hold_packs); a clip
 * added otherwise takes it at once, from the model as it is. A computed
 * budget is reused for further clips while the skeleton and meshes hash
 * the same as when it was computed; until then every clip added shares it
 * (the clips of one load). */
typedef struct budget_result {
    uint64_t inputs;     /* budget_inputs when computed */
    float *max_angle, *max_move, *point_reach;
    mr_clip_budget view;
} budget_result;

struct mr_model_budget {
    mr_clip_budget_src src;          /* first member: the handle clips hold */
    _Atomic int refs;                /* the model's, and each clip runtime's */
    _Atomic(const mr_model *) model; /* NULL once the model is gone: no budget */
    _Atomic(budget_result *) result; /* set once, by the first resolve to finish */
};

static void result_free(budget_result *r)
{
    if (!r) return;
    free(r->max_angle);
    free(r->max_move);
    free(r->point_reach);
    free(r);
}

static const mr_clip_budget *budget_resolve(mr_clip_budget_src *src)
{
    struct mr_model_budget *b = (struct mr_model_budget *)src;
    budget_result *r = atomic_load(&b->result);
    if (r) return &r->view;
    const mr_model *m = atomic_load(&b->model);
    if (!m || !(r = calloc(1, sizeof *r))) return NULL;
    r->inputs = budget_inputs(m);
    r->max_angle = model_max_angle(m, &r->max_move, &r->point_reach);  /* NULL: none (no size, or no memory) */
    r->view = (mr_clip_budget){r->max_angle, r->max_move, r->point_reach};
    budget_result *first = NULL;  /* a build on another thread may have finished first: its result stays */
    if (!atomic_compare_exchange_strong(&b->result, &first, r)) {
        result_free(r);
        r = first;
    }
    return &r->view;
}

static void budget_retain(mr_clip_budget_src *src)
{
    atomic_fetch_add(&((struct mr_model_budget *)src)->refs, 1);
}

static void budget_release(mr_clip_budget_src *src)
{
    struct mr_model_budget *b = (struct mr_model_budget *)src;
    if (atomic_fetch_sub(&b->refs, 1) != 1) return;
    result_free(atomic_load(&b->result));
    free(b);
}

/* The model's budget for a clip added now: the one it has unless that was
 * computed for other inputs, else a new one; NULL without memory. */
static struct mr_model_budget *model_budget(mr_model *m)
{
    struct mr_model_budget *b = m->budget;
    const budget_result *r = b ? atomic_load(&b->result) : NULL;
    if (b && r && r->inputs != budget_inputs(m)) {  /* the model changed since: its clips keep theirs */
        budget_detach(m);
        b = NULL;
    }
    if (b) return b;
    if (!(b = calloc(1, sizeof *b))) return NULL;
    b->src = (mr_clip_budget_src){budget_resolve, budget_retain, budget_release};
    atomic_init(&b->refs, 1);
    atomic_init(&b->model, m);
    atomic_init(&b->result, NULL);
    return m->budget = b;
}

/* The model lets go of its budget: a clip still holding it resolves to
 * what was computed, or to none. */
static void budget_detach(mr_model *m)
{
    if (!m->budget) return;
    atomic_store(&m->budget->model, NULL);
    budget_release(&m->budget->src);
    m->budget = NULL;
}

mr_status mr_model_add_clip(mr_model *m, mr_clip *clip)
{
    if (mr_model_find_clip(m, clip->name)) {
        for (int k = 2;; k++) {
            char *alt = mr_str_fmt("%s#%d", clip->name, k);
            if (!alt) return MR_ERR_NO_MEMORY;
            if (!mr_model_find_clip(m, alt)) {
                free(clip->name);
                clip->name = alt;
                break;
            }
            free(alt);
        }
    }
    /* room first: a clip given the model's budget is one of its clips (mr_model_destroy
     * cancels their builds before the budget's model goes) */
    mr_clip **grown = realloc(m->clips, (size_t)(m->clip_count + 1) * sizeof *grown);
    if (!grown) return MR_ERR_NO_MEMORY;
    m->clips = grown;
    if (clip->joint_count == m->skeleton.joint_count &&
        !(clip->runtime && (clip->runtime->max_angle || clip->runtime->budget_src))) {
        struct mr_model_budget *b = model_budget(m);
        if (b) mr_clip_set_budget_src(clip, &b->src);  /* without memory: the default budget */
        /* outside a load's read, taken now, from the model as it is */
        if (!mr_clip_packs_held()) mr_clip_adopt_budget(clip);
        mr_clip_set_rest(clip, &m->skeleton);   /* without memory: no track is left out */
    }
    /* Packed by default at MR_CLIP_FIDELITY, off the load's path
     * (clip_runtime.h: mr_clip_finish_later). */
    mr_clip_runtime *rt = mr_clip_runtime_of(clip);
    if (rt && !(rt->thin_tolerance > 0)) rt->thin_tolerance = MR_CLIP_FIDELITY;
    mr_clip_finish_later(clip);
    m->clips[m->clip_count++] = clip;
    return MR_OK;
}

void mr_model_warn(mr_model *m, const char *fmt, ...)
{
    if (m->warning_count > MR_MODEL_MAX_WARNINGS) return;
    char buf[512];
    if (m->warning_count == MR_MODEL_MAX_WARNINGS) {
        snprintf(buf, sizeof buf, "more warnings than %d: the rest are not kept", MR_MODEL_MAX_WARNINGS);
    } else {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        for (char *c = buf; *c; c++)   /* names from a file: one printable line, no terminal controls */
            if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    }
    char **grown = realloc(m->warnings, (size_t)(m->warning_count + 1) * sizeof *grown);
    if (!grown) return;
    m->warnings = grown;
    m->warnings[m->warning_count] = mr_str_dup(buf);
    if (m->warnings[m->warning_count]) m->warning_count++;
}

int mr_model_bounds(const mr_model *m, vec3 min, vec3 max)
{
    /* In registers, with glm_vec3_minv's and maxv's comparisons (lo < p ? lo : p). */
    float x0 = FLT_MAX, y0 = FLT_MAX, z0 = FLT_MAX, x1 = -FLT_MAX, y1 = -FLT_MAX, z1 = -FLT_MAX;
    int any = 0;
    for (int i = 0; i < m->mesh_count; i++) {
        const vec3 *pos = m->meshes[i].positions;
        for (int v = 0; v < m->meshes[i].vertex_count; v++) {
            float x = pos[v][0], y = pos[v][1], z = pos[v][2];
            x0 = x0 < x ? x0 : x, y0 = y0 < y ? y0 : y, z0 = z0 < z ? z0 : z;
            x1 = x1 > x ? x1 : x, y1 = y1 > y ? y1 : y, z1 = z1 > z ? z1 : z;
        }
        any |= m->meshes[i].vertex_count > 0;
    }
    min[0] = x0, min[1] = y0, min[2] = z0;
    max[0] = x1, max[1] = y1, max[2] = z1;
    if (!any && m->skeleton.joint_count > 0) {
        for (int j = 0; j < m->skeleton.joint_count; j++) {
            mat4 bind;
            glm_mat4_inv(m->skeleton.inverse_bind[j], bind);
            glm_vec3_minv(min, bind[3], min);
            glm_vec3_maxv(max, bind[3], max);
        }
        any = 1;
    }
    if (!any) {
        glm_vec3_zero(min);
        glm_vec3_zero(max);
    }
    return any;
}

void mr_model_display_matrix(const mr_model *m, mat4 out)
{
    glm_mat4_identity(out);
    if (m->axes.up == MR_UP_Z)       /* (x, y, z) -> (x, z, -y) */
        glm_rotate_x(out, -GLM_PI_2f, out);
    else if (m->axes.up == MR_UP_X)  /* (x, y, z) -> (-y, x, z) */
        glm_rotate_z(out, GLM_PI_2f, out);
    float s = m->axes.meters_per_unit > 0 ? m->axes.meters_per_unit : 1.0f;
    glm_scale_uni(out, s);
}

void mr_model_counts(const mr_model *m, int *vertices, int *triangles)
{
    int v = 0, t = 0;
    for (int i = 0; i < m->mesh_count; i++) {
        v += m->meshes[i].vertex_count;
        t += m->meshes[i].index_count / 3;
    }
    if (vertices) *vertices = v;
    if (triangles) *triangles = t;
}
