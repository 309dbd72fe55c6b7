/* fbx_anims.c — mr_fbx_load_anims: the motions of another FBX file (a
 * Mixamo motion downloaded "without skin", a Blender export of an armature
 * and its actions) onto a loaded model, joints bound by name (fbx.h says
 * the rules).
 *
 * The motion file is read as a whole model by the same reader (its
 * skeleton, its stacks baked to clips through its own transform model), then
 * each of its clips that moves something is rebuilt for the model's
 * skeleton:
 *   - joint names are compared without their namespace (what precedes the
 *     last ':'), an exact full name first: "mixamorig:Hips",
 *     "mixamorig1:Hips" and "Hips" are the same joint;
 *   - down a chain that starts at a root of both files (same axes and
 *     unit) and goes on joint by joint, each under its parent's motion
 *     joint, the keys are copied as they are: a Mixamo motion of the same
 *     rig plays bit for bit as the character's own clip;
 *   - every other mapped joint (below a node of the motion's own, Blender's
 *     "Armature", or in a file of other axes or unit, and all below it)
 *     takes, at every key time of the clip, the local transform that puts
 *     it where the motion puts its joint in the model's space: the motion's
 *     model matrix brought into the model's coordinates (axes.h: rotated,
 *     translations in the model's unit), its rotation kept and its scale
 *     replaced by the joint's own model-space scale at rest (a unit scale
 *     above the bones, the 0.01 of Blender's armature, belongs to the
 *     motion's file, not to the joint), then parent's model matrix^-1 times
 *     it;
 *   - unmapped model joints keep their rest pose.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/axes.h"
#include "core/alloc.h"
#include "core/path.h"
#include "core/str.h"
#include "formats/fbx.h"
#include "formats/fbx_internal.h"

/* The name without its namespace ("mixamorig:Hips" -> "Hips"). */
static const char *bare(const char *name)
{
    const char *c = strrchr(name, ':');
    return c ? c + 1 : name;
}

/* For every joint of sk, the joint of src with its name (exact first,
 * else the same name without namespaces), or -1. Returns how many map. */
static int map_names(const mr_skeleton *sk, const mr_skeleton *src, int *src_of)
{
    int mapped = 0;
    for (int j = 0; j < sk->joint_count; j++) {
        src_of[j] = mr_skeleton_find(src, sk->names[j]);
        if (src_of[j] < 0) {
            const char *b = bare(sk->names[j]);
            for (int s = 0; s < src->joint_count; s++)
                if (!strcmp(bare(src->names[s]), b)) {
                    src_of[j] = s;
                    break;
                }
        }
        if (src_of[j] >= 0) mapped++;
    }
    return mapped;
}

/* TRS (quaternion x y z w) to a column-major matrix. */
static void trs_matrix(const float *t, const float *q, const float *s, double m[16])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                   2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                   2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    for (int c = 0; c < 3; c++) {
        for (int k = 0; k < 3; k++) m[c * 4 + k] = r[c * 3 + k] * s[c];
        m[c * 4 + 3] = 0;
    }
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m[15] = 1;
}

/* A source joint's local TRS at time t: its clip's tracks, else its rest. */
static void source_local(const mr_model *mo, const mr_clip *c, int s, float t, float k, float out[10])
{
    const mr_skeleton *sk = &mo->skeleton;
    const mr_joint_tracks *tr = &c->tracks[s];
    if (tr->t.key_count) mr_track_sample(&tr->t, t, out);
    else memcpy(out, sk->rest_t[s], 3 * sizeof(float));
    if (tr->r.key_count) mr_track_sample(&tr->r, t, out + 3);
    else memcpy(out + 3, sk->rest_r[s], 4 * sizeof(float));
    if (tr->s.key_count) mr_track_sample(&tr->s, t, out + 7);
    else memcpy(out + 7, sk->rest_s[s], 3 * sizeof(float));
    for (int i = 0; i < 3; i++) out[i] *= k;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* Every key time of the clip, ascending, distinct. */
static float *clip_times(const mr_clip *c, int *count)
{
    size_t n = 0;
    for (int j = 0; j < c->joint_count; j++)
        n += (size_t)c->tracks[j].t.key_count + (size_t)c->tracks[j].r.key_count + (size_t)c->tracks[j].s.key_count;
    float *t = mr_alloc_array(n + 1, sizeof *t);
    if (!t) return NULL;
    size_t w = 0;
    for (int j = 0; j < c->joint_count; j++) {
        const mr_track *tr[3] = {&c->tracks[j].t, &c->tracks[j].r, &c->tracks[j].s};
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < tr[k]->key_count; i++) t[w++] = tr[k]->times[i];
    }
    if (w == 0) t[w++] = 0;
    qsort(t, w, sizeof *t, cmp_float);
    size_t u = 0;
    for (size_t i = 0; i < w; i++)
        if (u == 0 || t[i] - t[u - 1] >= MR_CLIP_MIN_KEY_INTERVAL) t[u++] = t[i];
    *count = (int)u;
    return t;
}

static int track_copy(mr_track *dst, const mr_track *src, float k)
{
    if (!src->key_count) return 1;
    if (mr_track_init(dst, src->key_count, src->interp) != MR_OK) return 0;
    memcpy(dst->times, src->times, sizeof *dst->times * (size_t)src->key_count);
    size_t vals = (size_t)src->key_count * (size_t)src->components * (src->interp == MR_INTERP_CUBIC ? 3 : 1);
    memcpy(dst->values, src->values, sizeof *dst->values * vals);
    if (k != 1 && src->components == 3)
        for (size_t i = 0; i < vals; i++) dst->values[i] *= k;
    mr_track_finish(dst);
    return 1;
}

/* The model-space matrix a mapped joint takes from its motion joint's m:
 * m's rotation (columns made orthonormal: a unit's scale above the joint,
 * Blender's 0.01 armature, is the motion file's business) times the
 * joint's own scale at rest, at m's position. */
static void model_matrix(const double m[16], const double scale[3], double out[16])
{
    double c[3][3];
    for (int k = 0; k < 3; k++)
        for (int r = 0; r < 3; r++) c[k][r] = m[k * 4 + r];
    for (int k = 0; k < 3; k++) {
        for (int q = 0; q < k; q++) {
            double d = c[k][0] * c[q][0] + c[k][1] * c[q][1] + c[k][2] * c[q][2];
            for (int r = 0; r < 3; r++) c[k][r] -= d * c[q][r];
        }
        double len = sqrt(c[k][0] * c[k][0] + c[k][1] * c[k][1] + c[k][2] * c[k][2]);
        for (int r = 0; r < 3; r++) c[k][r] = len > 0 ? c[k][r] / len : (double)(r == k);
    }
    for (int k = 0; k < 3; k++) {
        for (int r = 0; r < 3; r++) out[k * 4 + r] = c[k][r] * scale[k];
        out[k * 4 + 3] = 0;
    }
    memcpy(out + 12, m + 12, 3 * sizeof *out);
    out[15] = 1;
}

typedef struct binding {
    const mr_model *mo;          /* the motion */
    const mr_model *model;       /* the model it goes onto */
    const int *src_of;           /* per model joint: motion joint or -1 */
    const char *copy;            /* per model joint: 1 = keys taken as they are */
    double (*rest_scale)[3];     /* per model joint: the scale of its model matrix at rest */
    double conv[16];             /* motion coordinates to the model's (roots of the motion) */
    float k;                     /* motion units to the model's */
} binding;

/* The clip c of the motion rebuilt for the model, named name, in *out. */
static mr_status rebuild(const binding *b, const mr_clip *c, const char *name, mr_clip **out)
{
    const mr_skeleton *sk = &b->model->skeleton, *ss = &b->mo->skeleton;
    int nj = sk->joint_count, ns = ss->joint_count, nt = 0;
    mr_clip *clip = NULL;
    float *times = clip_times(c, &nt);
    double (*sw)[16] = mr_alloc_array((size_t)ns + 1, sizeof *sw);
    double (*tw)[16] = mr_alloc_array((size_t)nj + 1, sizeof *tw);
    mr_status st = MR_ERR_NO_MEMORY;
    if (!times || !sw || !tw || mr_clip_create(name, nj, &clip) != MR_OK) goto done;
    clip->duration = c->duration;
    clip->rate = c->rate;
    for (int j = 0; j < nj; j++) {
        int s = b->src_of[j];
        if (s < 0 || !b->copy[j]) continue;
        if (!track_copy(&clip->tracks[j].t, &c->tracks[s].t, b->k) || !track_copy(&clip->tracks[j].r, &c->tracks[s].r, 1) ||
            !track_copy(&clip->tracks[j].s, &c->tracks[s].s, 1))
            goto done;
    }
    for (int j = 0; j < nj; j++) {
        if (b->src_of[j] < 0 || b->copy[j]) continue;
        mr_joint_tracks *tr = &clip->tracks[j];
        if (mr_track_init(&tr->t, nt, MR_INTERP_LINEAR) != MR_OK || mr_track_init(&tr->r, nt, MR_INTERP_LINEAR) != MR_OK ||
            mr_track_init(&tr->s, nt, MR_INTERP_LINEAR) != MR_OK)
            goto done;
    }
    for (int i = 0; i < nt; i++) {
        float t = times[i], v[10];
        for (int s = 0; s < ns; s++) {
            double local[16];
            source_local(b->mo, c, s, t, b->k, v);
            trs_matrix(v, v + 3, v + 7, local);
            int p = ss->parents[s];
            fbx_m_mul(p >= 0 ? sw[p] : b->conv, local, sw[s]);
        }
        for (int j = 0; j < nj; j++) {
            int s = b->src_of[j], p = sk->parents[j];
            double local[16];
            if (s >= 0 && !b->copy[j]) {
                double inv[16], want[16];
                model_matrix(sw[s], b->rest_scale[j], want);
                if (p >= 0) fbx_m_inverse(tw[p], inv);
                else fbx_m_identity(inv);
                fbx_m_mul(inv, want, local);
                mr_joint_tracks *tr = &clip->tracks[j];
                vec3 lt, ls;
                versor lq;
                fbx_m_decompose(local, lt, lq, ls);
                if (i > 0) {
                    const float *q0 = tr->r.values + (size_t)(i - 1) * 4;
                    if (q0[0] * lq[0] + q0[1] * lq[1] + q0[2] * lq[2] + q0[3] * lq[3] < 0)
                        for (int q = 0; q < 4; q++) lq[q] = -lq[q];
                }
                tr->t.times[i] = tr->r.times[i] = tr->s.times[i] = t;
                memcpy(tr->t.values + (size_t)i * 3, lt, sizeof lt);
                memcpy(tr->r.values + (size_t)i * 4, lq, sizeof lq);
                memcpy(tr->s.values + (size_t)i * 3, ls, sizeof ls);
            } else if (s >= 0) {
                /* as the new clip plays it: the motion's keys, the model's rest where it has none */
                const mr_joint_tracks *tr = &c->tracks[s];
                source_local(b->mo, c, s, t, b->k, v);
                if (!tr->t.key_count) memcpy(v, sk->rest_t[j], 3 * sizeof(float));
                if (!tr->r.key_count) memcpy(v + 3, sk->rest_r[j], 4 * sizeof(float));
                if (!tr->s.key_count) memcpy(v + 7, sk->rest_s[j], 3 * sizeof(float));
                trs_matrix(v, v + 3, v + 7, local);
            } else {
                trs_matrix(sk->rest_t[j], sk->rest_r[j], sk->rest_s[j], local);
            }
            if (p >= 0) fbx_m_mul(tw[p], local, tw[j]);
            else memcpy(tw[j], local, sizeof local);
        }
    }
    for (int j = 0; j < nj; j++) {
        if (b->src_of[j] < 0 || b->copy[j]) continue;
        mr_track_finish(&clip->tracks[j].t);
        mr_track_finish(&clip->tracks[j].r);
        mr_track_finish(&clip->tracks[j].s);
    }
    *out = clip;
    clip = NULL;
    st = MR_OK;
done:
    mr_clip_destroy(clip);
    free(times);
    free(sw);
    free(tw);
    return st;
}

/* Does the clip move any motion joint (a track with keys)? */
static int clip_moves(const mr_clip *c)
{
    for (int j = 0; j < c->joint_count; j++)
        if (c->tracks[j].t.key_count || c->tracks[j].r.key_count || c->tracks[j].s.key_count) return 1;
    return 0;
}

mr_status mr_fbx_load_anims(mr_model *model, const char *path, mr_error *err)
{
    if (!model || !path) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "fbx: no model or motion path");
    mr_model *mo = NULL;
    mr_status st = mr_fbx_load(path, &mo, err);
    if (st != MR_OK) return st;
    const mr_skeleton *sk = &model->skeleton;
    int nj = sk->joint_count;
    int *src_of = mr_alloc_array((size_t)nj + 1, sizeof *src_of);
    char *copy = calloc((size_t)nj + 1, 1);
    char *stem = mr_path_stem(path);
    double (*rest_world)[16] = mr_alloc_array((size_t)nj + 1, sizeof *rest_world);
    double (*rest_scale)[3] = mr_alloc_array((size_t)nj + 1, sizeof *rest_scale);
    mr_clip *clip = NULL;
    if (!src_of || !copy || !stem || !rest_world || !rest_scale) {
        st = mr_error_set(err, MR_ERR_NO_MEMORY, "fbx: %s: out of memory", path);
        goto done;
    }
    if (map_names(sk, &mo->skeleton, src_of) == 0) {
        st = mr_error_set(err, MR_ERR_BAD_FILE,
                          "fbx: %s: Objects/Model: no node names a joint of %s (expected the model's joint names, "
                          "e.g. \"%s\", with any namespace)",
                          path, model->path ? model->path : "the model", nj ? sk->names[0] : "Hips");
        goto done;
    }
    binding b = {.mo = mo, .model = model, .src_of = src_of, .copy = copy, .rest_scale = rest_scale};
    mat3 rot;
    float scale;
    mr_axes_conversion(mo->axes, model->axes, rot, &scale);
    b.k = scale;
    fbx_m_identity(b.conv);
    int same_frame = 1;
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) {
            b.conv[c * 4 + r] = rot[c][r];
            if (fabsf(rot[c][r] - (c == r)) > 1e-6f) same_frame = 0;
        }
    /* translations are scaled per joint (source_local), so conv rotates only.
     * Keys are copied down a chain that starts at a root of both files in
     * the same frame and unit, each joint under its parent's motion joint. */
    for (int j = 0; j < nj; j++) {
        int s = src_of[j], p = sk->parents[j];
        if (s < 0) continue;
        int ps = mo->skeleton.parents[s];
        copy[j] = p >= 0 ? ps >= 0 && src_of[p] == ps && copy[p] : ps < 0 && same_frame && b.k == 1;
    }
    for (int j = 0; j < nj; j++) {
        double local[16], w[16];
        int p = sk->parents[j];
        trs_matrix(sk->rest_t[j], sk->rest_r[j], sk->rest_s[j], local);
        if (p >= 0) fbx_m_mul(rest_world[p], local, w);
        else memcpy(w, local, sizeof w);
        memcpy(rest_world[j], w, sizeof w);
        for (int k = 0; k < 3; k++) rest_scale[j][k] = sqrt(w[k * 4] * w[k * 4] + w[k * 4 + 1] * w[k * 4 + 1] + w[k * 4 + 2] * w[k * 4 + 2]);
    }
    int moving = 0;
    for (int i = 0; i < mo->clip_count; i++) moving += clip_moves(mo->clips[i]);
    for (int i = 0; i < mo->clip_count; i++) {
        const mr_clip *c = mo->clips[i];
        if (!clip_moves(c)) continue;
        st = rebuild(&b, c, moving == 1 ? stem : c->name, &clip);
        if (st != MR_OK) {
            st = mr_error_set(err, st, "fbx: %s: animation \"%s\": out of memory", path, c->name);
            goto done;
        }
        mr_error verr;
        if (mr_clip_validate(clip, &verr) != MR_OK) {
            st = mr_error_set(err, MR_ERR_BAD_FILE, "fbx: %s: animation \"%s\": %s", path, c->name, verr.msg);
            goto done;
        }
        if ((st = mr_model_add_clip(model, clip)) != MR_OK) {
            st = mr_error_set(err, st, "fbx: %s: animation \"%s\": cannot add the clip", path, c->name);
            goto done;
        }
        clip = NULL;
    }
    if (!moving) {
        st = mr_error_set(err, MR_ERR_BAD_FILE, "fbx: %s: Objects/AnimationStack: no animation (expected a motion)", path);
        goto done;
    }
    int used = 0;
    for (int s = 0; s < mo->skeleton.joint_count; s++)
        for (int j = 0; j < nj; j++)
            if (src_of[j] == s) {
                used++;
                break;
            }
    if (used < mo->skeleton.joint_count)
        mr_model_warn(model, "%s: %d of its %d nodes name no joint here (their motion is left out)", path,
                      mo->skeleton.joint_count - used, mo->skeleton.joint_count);
done:
    mr_clip_destroy(clip);
    free(src_of);
    free(copy);
    free(stem);
    free(rest_world);
    free(rest_scale);
    mr_model_destroy(mo);
    return st;
}
