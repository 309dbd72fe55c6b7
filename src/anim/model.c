/* model.c — model ownership, clip list, warnings, bounds, display frame. */
#include "anim/model.h"

#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

mr_model *mr_model_new(const char *path, const char *format)
{
    mr_model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->path = mr_strdup(path ? path : "");
    m->format = mr_strdup(format ? format : "");
    m->frame.up = MR_UP_Y;
    m->frame.meters_per_unit = 1.0f;
    if (!m->path || !m->format) {
        mr_model_free(m);
        return NULL;
    }
    return m;
}

void mr_model_free(mr_model *m)
{
    if (!m) return;
    mr_skeleton_destroy(&m->skeleton);
    for (int i = 0; i < m->mesh_count; i++) mr_mesh_destroy(&m->meshes[i]);
    free(m->meshes);
    for (int i = 0; i < m->clip_count; i++) mr_clip_free(m->clips[i]);
    free(m->clips);
    for (int i = 0; i < m->warning_count; i++) free(m->warnings[i]);
    free(m->warnings);
    free(m->frame_note);
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

mr_status mr_model_add_clip(mr_model *m, mr_clip *clip)
{
    if (mr_model_find_clip(m, clip->name)) {
        for (int k = 2;; k++) {
            char *alt = mr_strfmt("%s#%d", clip->name, k);
            if (!alt) return MR_ERR_NO_MEMORY;
            if (!mr_model_find_clip(m, alt)) {
                free(clip->name);
                clip->name = alt;
                break;
            }
            free(alt);
        }
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
    m->warnings[m->warning_count] = mr_strdup(buf);
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
    if (m->frame.up == MR_UP_Z)       /* (x, y, z) -> (x, z, -y) */
        glm_rotate_x(out, -GLM_PI_2f, out);
    else if (m->frame.up == MR_UP_X)  /* (x, y, z) -> (-y, x, z) */
        glm_rotate_z(out, GLM_PI_2f, out);
    float s = m->frame.meters_per_unit > 0 ? m->frame.meters_per_unit : 1.0f;
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
