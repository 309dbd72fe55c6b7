/* axes.c — converting a model's numbers from one up axis / unit to another. */
#include "anim/axes.h"

#include <math.h>
#include <string.h>

#include "anim/morph.h"

/* Axes -> world rotation (columns: where the model's x, y, z go). */
static void to_world(mr_up_axis up, mat3 r)
{
    glm_mat3_identity(r);
    if (up == MR_UP_Z) {        /* (x, y, z) -> (x, z, -y) */
        glm_mat3_copy((mat3){{1, 0, 0}, {0, 0, -1}, {0, 1, 0}}, r);
    } else if (up == MR_UP_X) { /* (x, y, z) -> (-y, x, z) */
        glm_mat3_copy((mat3){{0, 1, 0}, {-1, 0, 0}, {0, 0, 1}}, r);
    }
}

void mr_axes_conversion(mr_axes from, mr_axes to, mat3 rot, float *scale)
{
    mat3 a, b;
    to_world(from.up, a);
    to_world(to.up, b);
    glm_mat3_transpose(b);
    glm_mat3_mul(b, a, rot);
    *scale = (float)((double)from.meters_per_unit / (double)to.meters_per_unit);
}

static double conversion_scale(mr_axes from, mr_axes to)
{
    return (double)from.meters_per_unit / (double)to.meters_per_unit;
}

/* r is a signed axis permutation, so the product is exact; the scale is
 * applied in double so each value is rounded once. */
static void map3(const mat3 r, double s, float *v)
{
    double out[3];
    for (int i = 0; i < 3; i++) out[i] = (double)r[0][i] * v[0] + (double)r[1][i] * v[1] + (double)r[2][i] * v[2];
    for (int i = 0; i < 3; i++) v[i] = (float)(out[i] * s);
}

/* A scale vector under the axis permutation: diag(r S r^T). */
static void map_scale(const mat3 r, float *v)
{
    float out[3];
    for (int i = 0; i < 3; i++) {
        out[i] = 0;
        for (int k = 0; k < 3; k++) out[i] += fabsf(r[k][i]) * v[k];
    }
    memcpy(v, out, sizeof out);
}

/* A quaternion's vector part rotates with r (a rotation); the scalar part
 * stays. This conjugates the rotation it encodes: q' = qr q qr^-1. */
static void map_quat(const mat3 r, float *q)
{
    map3(r, 1.0f, q);
}

static void map_matrix(const mat3 r, double s, mat4 m)
{
    mat3 a, rt, tmp;
    glm_mat4_pick3(m, a);
    glm_mat3_transpose_to((vec3 *)r, rt);
    glm_mat3_mul((vec3 *)r, a, tmp);
    glm_mat3_mul(tmp, rt, a);
    glm_mat4_ins3(a, m);
    map3(r, s, m[3]);
}

static void map_track(mr_track *t, const mat3 r, double s, int which)
{
    int per_key = t->interp == MR_INTERP_CUBIC ? 3 : 1;
    int c = t->components;
    for (int k = 0; k < t->key_count * per_key; k++) {
        float *v = t->values + (size_t)k * c;
        if (which == 0) map3(r, s, v);  /* translation and its tangents */
        else if (which == 1) map_quat(r, v);
        else map_scale(r, v);
    }
}

mr_status mr_axes_convert_model(mr_model *m, mr_axes to, mr_error *err)
{
    if (!(to.meters_per_unit > 0) || !isfinite(to.meters_per_unit) || !(m->axes.meters_per_unit > 0))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "frame conversion: unit must be a positive number");
    mat3 r;
    float fs;
    mr_axes_conversion(m->axes, to, r, &fs);
    double s = conversion_scale(m->axes, to);
    /* no pack is built while the model changes, and each clip's budget is
     * the model's as it was (then scaled below with its keys) */
    for (int c = 0; c < m->clip_count; c++) {
        mr_clip_cancel(m->clips[c]);
        mr_clip_adopt_budget(m->clips[c]);
    }
    mr_skeleton *sk = &m->skeleton;
    for (int j = 0; j < sk->joint_count; j++) {
        map3(r, s, sk->rest_t[j]);
        map_quat(r, sk->rest_r[j]);
        map_scale(r, sk->rest_s[j]);
        map_matrix(r, s, sk->inverse_bind[j]);
    }
    mr_skeleton_touch(sk);
    for (int i = 0; i < m->mesh_count; i++) {
        mr_mesh *me = &m->meshes[i];
        for (int v = 0; v < me->vertex_count; v++) {
            map3(r, s, me->positions[v]);
            map3(r, 1.0f, me->normals[v]);
        }
        /* morph targets: position deltas are lengths too, normal deltas turn */
        for (int k = 0; me->morph && k < me->morph->count; k++) {
            mr_morph_target *t = &me->morph->targets[k];
            for (int v = 0; v < me->morph->vertex_count; v++) {
                map3(r, s, t->positions[v]);
                if (t->normals) map3(r, 1.0f, t->normals[v]);
            }
        }
    }
    for (int c = 0; c < m->clip_count; c++) {
        mr_clip *clip = m->clips[c];
        mr_clip_cancel(clip);   /* a pack being built reads these keys */
        mr_clip_keep_source(clip, NULL);   /* edited here: no longer the file's */
        float *max_move = clip->runtime ? clip->runtime->max_move : NULL;
        float *point_reach = clip->runtime ? clip->runtime->point_reach : NULL;
        for (int j = 0; j < clip->joint_count; j++) {
            map_track(&clip->tracks[j].t, r, s, 0);
            map_track(&clip->tracks[j].r, r, s, 1);
            map_track(&clip->tracks[j].s, r, s, 2);
            if (max_move) max_move[j] *= (float)s;   /* model units */
            if (point_reach) point_reach[j] *= (float)s;
        }
        mr_clip_finish_later(clip);  /* the keys changed: rebuild the runtime */
    }
    m->axes = to;
    return MR_OK;
}
