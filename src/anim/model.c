/* model.c — model ownership, clip list, warnings, bounds, display frame. */
#include "anim/model.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/clip_optimize.h"
#include "core/alloc.h"
#include "core/str.h"

mr_model *mr_model_new(const char *path, const char *format)
{
    mr_model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->path = mr_str_dup(path ? path : "");
    m->format = mr_str_dup(format ? format : "");
    m->axes.up = MR_UP_Y;
    m->axes.meters_per_unit = 1.0f;
    if (!m->path || !m->format) {
        mr_model_destroy(m);
        return NULL;
    }
    return m;
}

void mr_model_destroy(mr_model *m)
{
    if (!m) return;
    mr_skeleton_deinit(&m->skeleton);
    for (int i = 0; i < m->mesh_count; i++) mr_mesh_deinit(&m->meshes[i]);
    free(m->meshes);
    for (int i = 0; i < m->clip_count; i++) mr_clip_destroy(m->clips[i]);
    free(m->clips);
    for (int i = 0; i < m->warning_count; i++) free(m->warnings[i]);
    free(m->warnings);
    free(m->axes_note);
    free(m->path);
    free(m->format);
    free(m);
}

mr_clip *mr_model_find_clip(const mr_model *m, const char *name)
{
    for (int i = 0; i < m->clip_count; i++)
        if (strcmp(m->clips[i]->name, name) == 0) return m->clips[i];
    return NULL;
}

/* Largest distance from joint j's position (pos, 3 floats a joint) to the
 * point p, and from each of j's ancestors: raises reach along the chain. */
static void reach_chain(const mr_skeleton *sk, const float *pos, int j, const float *p, double *reach)
{
    for (; j >= 0; j = sk->parents[j]) {
        const float *q = pos + (size_t)j * 3;
        double d = sqrt(((double)p[0] - q[0]) * ((double)p[0] - q[0]) + ((double)p[1] - q[1]) * ((double)p[1] - q[1]) +
                        ((double)p[2] - q[2]) * ((double)p[2] - q[2]));
        if (d > reach[j]) reach[j] = d;
    }
}

/* The slerp error budget of each joint (clip.h, "Slerp fidelity"):
 * B / S_j, and in *max_move the thinning budget of its translations
 * (clip_optimize.h): B / S_j * reach_j / 2, NULL without memory. Reach is measured in the bind pose (vertices as stored, joints
 * at their inverse-bind origins) and in the rest pose (each vertex carried
 * by its joint from bind to rest). Returns NULL when the model has no size
 * or without memory (the clip keeps the default budget). */
static float *model_max_angle(const mr_model *m, float **max_move)
{
    *max_move = NULL;
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
    if (!bind || !rest || !world || !skin || !reach || !down || !up || !out) {
        free(out);
        out = NULL;
        goto done;
    }
    for (int j = 0; j < n; j++) {
        mat4 b, local;
        glm_mat4_inv(sk->inverse_bind[j], b);
        glm_vec3_copy(b[3], bind + (size_t)j * 3);
        mr_pose_trs_matrix(sk->rest_t[j], sk->rest_r[j], sk->rest_s[j], local);
        if (sk->parents[j] >= 0) glm_mat4_mul(world[sk->parents[j]], local, world[j]);
        else glm_mat4_copy(local, world[j]);
        glm_vec3_copy(world[j][3], rest + (size_t)j * 3);
        glm_mat4_mul(world[j], sk->inverse_bind[j], skin[j]);
        reach[j] = 0;
    }
    for (int j = 0; j < n; j++) {
        if (sk->parents[j] < 0) continue;
        reach_chain(sk, bind, sk->parents[j], bind + (size_t)j * 3, reach);
        reach_chain(sk, rest, sk->parents[j], rest + (size_t)j * 3, reach);
    }
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_mesh *me = &m->meshes[i];
        if (!me->joints || !me->weights) continue;
        for (int v = 0; v < me->vertex_count; v++)
            for (int k = 0; k < MR_MAX_INFLUENCES; k++) {
                int j = me->joints[v][k];
                if (!(me->weights[v][k] > 0) || j >= n) continue;
                vec3 p;
                glm_mat4_mulv3(skin[j], me->positions[v], 1.0f, p);
                reach_chain(sk, bind, j, me->positions[v], reach);
                reach_chain(sk, rest, j, p, reach);
            }
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
done:
    free(bind);
    free(rest);
    free(world);
    free(skin);
    free(reach);
    free(down);
    free(up);
    return out;
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
    if (clip->joint_count == m->skeleton.joint_count && !clip->max_angle) {
        float *move = NULL, *budget = model_max_angle(m, &move);
        if (budget) mr_clip_set_max_angle(clip, budget);
        if (budget && move) mr_clip_set_max_move(clip, move);
        free(budget);
        free(move);
    }
    mr_clip_finish(clip);
    mr_clip **grown = realloc(m->clips, (size_t)(m->clip_count + 1) * sizeof *grown);
    if (!grown) return MR_ERR_NO_MEMORY;
    m->clips = grown;
    m->clips[m->clip_count++] = clip;
    return MR_OK;
}

void mr_model_warn(mr_model *m, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **grown = realloc(m->warnings, (size_t)(m->warning_count + 1) * sizeof *grown);
    if (!grown) return;
    m->warnings = grown;
    m->warnings[m->warning_count] = mr_str_dup(buf);
    if (m->warnings[m->warning_count]) m->warning_count++;
}

int mr_model_bounds(const mr_model *m, vec3 min, vec3 max)
{
    glm_vec3_fill(min, FLT_MAX);
    glm_vec3_fill(max, -FLT_MAX);
    int any = 0;
    for (int i = 0; i < m->mesh_count; i++)
        for (int v = 0; v < m->meshes[i].vertex_count; v++) {
            glm_vec3_minv(min, m->meshes[i].positions[v], min);
            glm_vec3_maxv(max, m->meshes[i].positions[v], max);
            any = 1;
        }
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
