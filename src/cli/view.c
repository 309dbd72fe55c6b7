/* view.c — what the viewer shows: posing, clip-wide bounds (CPU-skinned,
 * so the floor sits exactly under the feet), camera framing, drawing, HUD. */
#include "cli/view.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/clip.h"
#include "anim/clip_runtime.h"
#include "anim/morph.h"
#include "anim/vrm_constraints.h"
#include "core/alloc.h"
#include "core/path.h"

/* Poses sampled over a clip to find where it takes the model. */
#define BOUNDS_SAMPLES 48

static const mr_clip *current_clip(const mr_view *v)
{
    return v->clip >= 0 && v->clip < v->model->clip_count ? v->model->clips[v->clip] : NULL;
}

float mr_view_duration(const mr_view *v)
{
    const mr_clip *c = current_clip(v);
    return c ? c->duration : 0.0f;
}

float mr_view_frame_step(const mr_view *v)
{
    const mr_clip *c = current_clip(v);
    return c && c->rate > 0 ? 1.0f / c->rate : 1.0f / 30.0f;
}

void mr_view_pose(mr_view *v)
{
    const mr_skeleton *sk = &v->model->skeleton;
    if (sk->joint_count == 0) return;
    const mr_clip *c = current_clip(v);
    if (!c || mr_clip_sample_with(c, sk, v->time, MR_WRAP_LOOP, &v->pose, v->cursor) != MR_OK)
        mr_pose_set_rest(&v->pose, sk);
    mr_vrm_constraints_apply(sk, v->model->vrm, &v->pose);     /* a VRM avatar's node constraints */
    mr_pose_to_model(sk, &v->pose, v->joint_model);
    mr_pose_skinning(sk, v->joint_model, v->skin);
}

/* World bounds of the CPU-skinned vertices over BOUNDS_SAMPLES poses of the
 * current clip (the rest pose without clips); of the joints for a model
 * without vertices (BVH), whose skeleton is what is drawn. */
static void compute_bounds(mr_view *v)
{
    const mr_model *m = v->model;
    int maxv = 0;
    for (int i = 0; i < m->mesh_count; i++)
        if (m->meshes[i].vertex_count > maxv) maxv = m->meshes[i].vertex_count;
    vec3 *pos = mr_alloc_array((size_t)maxv, sizeof *pos);
    vec3 *nrm = mr_alloc_array((size_t)maxv, sizeof *nrm);
    glm_vec3_fill(v->bounds_min, FLT_MAX);
    glm_vec3_fill(v->bounds_max, -FLT_MAX);
    float saved = v->time, dur = mr_view_duration(v);
    int samples = current_clip(v) && dur > 0 ? BOUNDS_SAMPLES : 1;
    int any = 0, joints_only = maxv == 0;
    for (int s = 0; s < samples && pos && nrm; s++) {
        v->time = samples > 1 ? dur * (float)s / (float)(samples - 1) : 0.0f;
        /* clamp the last sample inside the clip (LOOP would wrap it to 0) */
        if (s == samples - 1 && samples > 1) v->time = dur * 0.9999f;
        mr_view_pose(v);
        for (int i = 0; i < m->mesh_count; i++) {
            const mr_mesh *mesh = &m->meshes[i];
            if (m->skeleton.joint_count > 0) mr_mesh_skin(mesh, v->skin, pos, nrm);
            else memcpy(pos, mesh->positions, (size_t)mesh->vertex_count * sizeof *pos);
            for (int k = 0; k < mesh->vertex_count; k++) {
                vec3 w;
                glm_mat4_mulv3(v->display, pos[k], 1.0f, w);
                glm_vec3_minv(v->bounds_min, w, v->bounds_min);
                glm_vec3_maxv(v->bounds_max, w, v->bounds_max);
                any = 1;
            }
        }
        for (int j = 0; joints_only && j < m->skeleton.joint_count; j++) {
            vec3 w;
            glm_mat4_mulv3(v->display, v->joint_model[j][3], 1.0f, w);
            glm_vec3_minv(v->bounds_min, w, v->bounds_min);
            glm_vec3_maxv(v->bounds_max, w, v->bounds_max);
            any = 1;
        }
    }
    free(pos);
    free(nrm);
    v->time = saved;
    if (!any) {
        /* no vertices: the renderer's joint-based bounds, or a unit box */
        if (!mr_renderer_model_bounds(v->r, v->gpu, NULL, 0, v->display, v->bounds_min,
                                      v->bounds_max)) {
            glm_vec3_fill(v->bounds_min, -0.5f);
            glm_vec3_fill(v->bounds_max, 0.5f);
        }
    }
}

/* Which way a character faces, guessed from its bind pose: feet stick out
 * forward of the shins. Compares the horizontal centroid of the lowest 8% of
 * the vertices (by height) with that of the band above (8-35%), in world
 * space, and snaps the offset to the nearest of +-X, +-Z. A model without
 * vertices (BVH) uses its bind-pose joints the same way (toes and their End
 * Sites against ankles and knees). Returns the yaw (degrees) of a camera
 * looking at the face, or fallback when the offset is too small to mean
 * anything (not a biped, a T-posed cube, ...). */
static float facing_yaw(const mr_view *v, float fallback)
{
    const mr_model *m = v->model;
    int nv;
    mr_model_counts(m, &nv, NULL);
    int joints = nv == 0, n = joints ? m->skeleton.joint_count : nv;
    vec3 *w = mr_alloc_array((size_t)n, sizeof *w);
    if (!w) return fallback;
    int k = 0;
    for (int i = 0; i < m->mesh_count; i++)
        for (int q = 0; q < m->meshes[i].vertex_count; q++, k++)
            glm_mat4_mulv3((vec4 *)v->display, m->meshes[i].positions[q], 1.0f, w[k]);
    for (int j = 0; joints && j < n; j++) {
        mat4 bind;
        glm_mat4_inv(m->skeleton.inverse_bind[j], bind);
        glm_mat4_mulv3((vec4 *)v->display, bind[3], 1.0f, w[j]);
    }
    float lo = FLT_MAX, hi = -FLT_MAX;
    for (int i = 0; i < n; i++) {
        if (w[i][1] < lo) lo = w[i][1];
        if (w[i][1] > hi) hi = w[i][1];
    }
    float height = hi - lo;
    double feet[3] = {0}, legs[3] = {0};   /* x sum, z sum, count */
    for (int i = 0; i < n && height > 0; i++) {
        float h = (w[i][1] - lo) / height;
        double *acc = h < 0.08f ? feet : h < 0.35f ? legs : NULL;
        if (!acc) continue;
        acc[0] += w[i][0];
        acc[1] += w[i][2];
        acc[2] += 1;
    }
    free(w);
    int least = joints ? 1 : 8;   /* a skeleton has a few joints per foot */
    if (!(height > 0) || feet[2] < least || legs[2] < least) return fallback;
    double dx = feet[0] / feet[2] - legs[0] / legs[2], dz = feet[1] / feet[2] - legs[1] / legs[2];
    if (fabs(dx) < 0.01 * height && fabs(dz) < 0.01 * height) return fallback;
    if (fabs(dx) > fabs(dz)) return dx > 0 ? 90.0f : -90.0f;
    return dz > 0 ? 0.0f : 180.0f;
}

mr_status mr_view_init(mr_view *v, mr_renderer *r, const mr_model *model, mr_error *err)
{
    memset(v, 0, sizeof *v);
    v->r = r;
    v->model = model;
    v->hud = 1;
    v->clip = model->clip_count > 0 ? 0 : -1;
    int nj = model->skeleton.joint_count;
    if (mr_pose_init(&v->pose, nj) != MR_OK)
        return mr_error_set(err, MR_ERR_NO_MEMORY, "view: out of memory");
    v->joint_model = mr_alloc_array((size_t)nj, sizeof *v->joint_model);
    v->skin = mr_alloc_array((size_t)nj, sizeof *v->skin);
    v->cursor = mr_clip_cursor_create(nj);   /* NULL: the keys are searched, the same pose */
    if (!v->joint_model || !v->skin) {
        mr_view_deinit(v);
        return mr_error_set(err, MR_ERR_NO_MEMORY, "view: out of memory");
    }
    mr_status st = mr_renderer_upload_model(r, model, &v->gpu, err);
    if (st != MR_OK) {
        mr_view_deinit(v);
        return st;
    }
    mr_model_display_matrix(model, v->display);
    /* Doom 3 style MD5 characters face +X in their own frame (still +X in
     * the world), COLLADA characters +Z; Blender exports (Bob) face -Y, i.e.
     * +Z in the world. So guess from the feet, with the format's habit as the
     * fallback. A camera 35 degrees off the facing direction, turned towards
     * the key light (default lights, from +X+Z), shows a lit face and a side. */
    float facing = facing_yaw(v, strcmp(model->format, "md5") == 0 ? 90.0f : 0.0f);
    const float key_light_yaw = 39.3f;   /* atan2(0.45, 0.55): the default key light */
    float a = facing + 35.0f, b = facing - 35.0f;
    float da = fabsf(remainderf(a - key_light_yaw, 360.0f)),
          db = fabsf(remainderf(b - key_light_yaw, 360.0f));
    v->default_yaw = da <= db ? a : b;
    compute_bounds(v);
    return MR_OK;
}

void mr_view_deinit(mr_view *v)
{
    if (v->r && v->gpu.id) mr_renderer_release_model(v->r, v->gpu);
    mr_pose_deinit(&v->pose);
    mr_clip_cursor_destroy(v->cursor);
    free(v->joint_model);
    free(v->skin);
    memset(v, 0, sizeof *v);
}

void mr_view_set_clip(mr_view *v, int clip)
{
    int n = v->model->clip_count;
    if (n == 0) return;
    v->clip = ((clip % n) + n) % n;
    v->time = 0.0f;
    compute_bounds(v);
}

/* The root joint's world position at v->time (the world origin without joints). */
static void root_world(mr_view *v, vec3 out)
{
    glm_vec3_zero(out);
    if (v->model->skeleton.joint_count == 0) return;
    mr_view_pose(v);
    glm_mat4_mulv3(v->display, v->joint_model[0][3], 1.0f, out);
}

void mr_view_frame_bounds(mr_view *v, vec3 min, vec3 max)
{
    glm_vec3_copy(v->bounds_min, min);
    glm_vec3_copy(v->bounds_max, max);
    if (!v->follow || v->model->skeleton.joint_count == 0) return;
    /* The bind-pose bounds (world), moved to where the root is now. */
    vec3 lo, hi, root, root0, c[2];
    if (!mr_model_bounds(v->model, lo, hi)) return;
    glm_vec3_zero(min);
    glm_vec3_zero(max);
    glm_mat4_mulv3(v->display, lo, 1.0f, c[0]);
    glm_mat4_mulv3(v->display, hi, 1.0f, c[1]);
    glm_vec3_minv(c[0], c[1], min);
    glm_vec3_maxv(c[0], c[1], max);
    mat4 bind;
    glm_mat4_inv(v->model->skeleton.inverse_bind[0], bind);
    glm_mat4_mulv3(v->display, bind[3], 1.0f, root0);
    root_world(v, root);
    for (int k = 0; k < 3; k += 2) {      /* horizontal only: the floor stays where it is */
        min[k] += root[k] - root0[k];
        max[k] += root[k] - root0[k];
    }
}

void mr_view_follow_here(mr_view *v)
{
    vec3 root;
    root_world(v, root);
    glm_vec3_sub(v->camera.target, root, v->follow_offset);
}

void mr_view_frame(mr_view *v, float aspect)
{
    v->camera.yaw = v->default_yaw;
    v->camera.pitch = 12.0f;
    v->camera.fov_y = 40.0f;
    vec3 min, max;
    mr_view_frame_bounds(v, min, max);
    mr_camera_frame_bounds(&v->camera, min, max, aspect);
    if (v->follow) mr_view_follow_here(v);
}

mr_status mr_view_draw(mr_view *v, const char *status)
{
    mr_view_pose(v);
    if (v->follow && v->model->skeleton.joint_count > 0) {
        vec3 root;
        glm_mat4_mulv3(v->display, v->joint_model[0][3], 1.0f, root);
        v->camera.target[0] = root[0] + v->follow_offset[0];
        v->camera.target[2] = root[2] + v->follow_offset[2];
    }
    mr_scene scene = {0};
    scene.camera = v->camera;
    scene.floor_y = v->bounds_min[1];
    vec3 size;
    glm_vec3_sub(v->bounds_max, v->bounds_min, size);
    float extent = fmaxf(fmaxf(size[0], size[2]), size[1]);
    scene.floor_extent = extent * 2.5f;
    scene.floor_center[0] = 0.5f * (v->bounds_min[0] + v->bounds_max[0]);
    scene.floor_center[1] = 0.5f * (v->bounds_min[2] + v->bounds_max[2]);
    /* The shadow map covers where the clip takes the model, fixed for the
     * whole clip, so shadow edges stay put while it plays. */
    vec3 centre;
    glm_vec3_center(v->bounds_min, v->bounds_max, centre);
    memcpy(scene.shadow_center, centre, sizeof scene.shadow_center);
    scene.shadow_radius = 0.5f * glm_vec3_norm(size) * 1.05f;
    mr_status st = mr_renderer_begin_frame(v->r, &scene);
    if (st != MR_OK) return st;
    int nj = v->model->skeleton.joint_count;
    mr_draw_style style = {.wireframe = v->wireframe, .skinning = v->skinning, .fixed_skinning = v->fixed_skinning};
    /* Morph weights of the current clip at this time (the meshes' defaults
     * without a clip), mesh by mesh as the renderer takes them. */
    int nw = mr_renderer_morph_weight_count(v->r, v->gpu);
    float *weights = nw ? mr_alloc_array((size_t)nw, sizeof *weights) : NULL;
    if (weights) {
        const mr_clip *c = current_clip(v);
        for (int i = 0, off = 0; i < v->model->mesh_count && off < nw; i++) {
            const mr_mesh *mesh = &v->model->meshes[i];
            if (!mesh->morph) continue;
            mr_morph_sample(c, mesh, i, v->time, MR_WRAP_LOOP, weights + off);
            off += mesh->morph->count;
        }
        style.morph_weights = weights;
        style.morph_weight_count = nw;
    }
    st = mr_renderer_draw_model(v->r, v->gpu, nj ? (const mat4 *)v->skin : NULL, nj, v->display,
                                &style);
    free(weights);
    int nv;
    mr_model_counts(v->model, &nv, NULL);
    if ((v->skeleton || nv == 0) && nj)   /* a model without a mesh (BVH) is its skeleton */
        mr_renderer_draw_skeleton(v->r, &v->model->skeleton, v->joint_model, v->display,
                                  &(mr_skeleton_style){.names = v->names});
    if (v->hud) {
        char line[512];
        const mr_clip *c = current_clip(v);
        const char *name = mr_path_basename(v->model->path);
        if (c) {
            float t = mr_clip_wrap_time(c, v->time, MR_WRAP_LOOP);
            /* frames at the clip's playback rate, as a BVH or glTF clip's keys
             * count them: an FBX clip's keys are its bake's samples, several a
             * frame where it bends; without a rate, the keys (a hundredth of a
             * frame of slack: a float duration is a little short of its frames) */
            int frames = c->rate > 0 ? (int)floor((double)c->duration * c->rate + 0.01) + 1 : mr_clip_key_count(c);
            int frame = c->rate > 0 ? (int)floorf(t * c->rate + 1e-4f) : 0;
            snprintf(line, sizeof line, "%s   clip %d/%d '%s'   t %.2f / %.2f s   frame %d/%d", name,
                     v->clip + 1, v->model->clip_count, c->name, t, c->duration, frame,
                     frames > 0 ? frames : 1);
        } else {
            snprintf(line, sizeof line, "%s   no clips (rest pose)", name);
        }
        mr_renderer_text(v->r, 10, 8, line, NULL);
        if (status) mr_renderer_text(v->r, 10, 8 + mr_renderer_text_height(v->r), status, NULL);
        if (v->footer) {
            int w, h;
            mr_renderer_size(v->r, &w, &h);
            mr_renderer_text(v->r, 10, (float)h - 8 - mr_renderer_text_height(v->r), v->footer,
                             &(mr_text_style){.colour = {0.85f, 0.88f, 0.92f, 0.9f}});
        }
    }
    mr_status end = mr_renderer_end_frame(v->r);
    return st != MR_OK ? st : end;
}
