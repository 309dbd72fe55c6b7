/* run_record.c — `marrow run --record OUT` (run_record.h). */
#include "cli/run_record.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/model.h"
#include "anim/record.h"
#include "core/path.h"
#include "core/str.h"
#include "formats/save.h"
#include "lua/draw.h"
#include "lua/wrap.h"

typedef struct recording {
    const mr_model *model;
    int occurrence;          /* the k-th draw of model in a frame */
    mr_record rec;
    int failed;              /* a capture failed (out of memory, time went back) */
} recording;

struct mr_run_record {
    mr_lua_ctx *ctx;
    char *out;
    char *name;              /* the clips' name: the script's stem */
    recording *recs;
    int count, cap;
    uint64_t frame;          /* frame of the draws counted in seen[] */
    const mr_model **seen;   /* models drawn this frame, one entry per draw */
    int seen_count, seen_cap;
    mr_pose pose;            /* scratch */
    mat4 *mats;
    int pose_joints;
};

static recording *find(mr_run_record *r, const mr_model *model, int occurrence)
{
    for (int i = 0; i < r->count; i++)
        if (r->recs[i].model == model && r->recs[i].occurrence == occurrence) return &r->recs[i];
    if (r->count == r->cap) {
        int cap = r->cap ? r->cap * 2 : 8;
        recording *g = realloc(r->recs, (size_t)cap * sizeof *g);
        if (!g) return NULL;
        r->recs = g;
        r->cap = cap;
    }
    recording *n = &r->recs[r->count];
    memset(n, 0, sizeof *n);
    if (mr_record_init(&n->rec, model->skeleton.joint_count) != MR_OK) return NULL;
    n->model = model;
    n->occurrence = occurrence;
    r->count++;
    return n;
}

static void on_draw(void *ud, const mr_model *model, const mat4 *joints, const mat4 world)
{
    mr_run_record *r = ud;
    const mr_lua_host *h = mr_lua_host_of_ctx(r->ctx);
    if (h->frame != r->frame) {
        r->frame = h->frame;
        r->seen_count = 0;
    }
    int occurrence = 0;
    for (int i = 0; i < r->seen_count; i++) occurrence += r->seen[i] == model;
    if (r->seen_count == r->seen_cap) {
        int cap = r->seen_cap ? r->seen_cap * 2 : 16;
        const mr_model **g = realloc(r->seen, (size_t)cap * sizeof *g);
        if (!g) return;
        r->seen = g;
        r->seen_cap = cap;
    }
    r->seen[r->seen_count++] = model;
    recording *rc = find(r, model, occurrence);
    const mr_skeleton *sk = &model->skeleton;
    int n = sk->joint_count;
    if (!rc || rc->failed || n < 1) return;
    if (r->pose_joints != n) {
        mr_pose_deinit(&r->pose);
        free(r->mats);
        r->mats = malloc((size_t)n * sizeof *r->mats);
        r->pose_joints = r->mats && mr_pose_init(&r->pose, n) == MR_OK ? n : 0;
        if (!r->pose_joints) return;
    }
    /* X = display^-1 * world: the draw transform in the model's axes. */
    mat4 d, di, x;
    mr_model_display_matrix(model, d);
    glm_mat4_inv(d, di);
    glm_mat4_mul(di, (vec4 *)world, x);
    if (joints) {
        for (int j = 0; j < n; j++) glm_mat4_mul(x, (vec4 *)joints[j], r->mats[j]);
        for (int j = 0; j < n; j++) {
            mat4 local, pinv;
            int p = sk->parents[j];
            if (p >= 0) {
                glm_mat4_inv(r->mats[p], pinv);
                glm_mat4_mul(pinv, r->mats[j], local);
            } else {
                glm_mat4_copy(r->mats[j], local);
            }
            mr_pose_trs_from_matrix(local, r->pose.t[j], r->pose.r[j], r->pose.s[j]);
        }
        if (mr_record_capture(&rc->rec, sk, (float)h->time, &r->pose, NULL) != MR_OK) rc->failed = 1;
    } else {
        mr_pose_set_rest(&r->pose, sk);
        if (mr_record_capture(&rc->rec, sk, (float)h->time, &r->pose, x) != MR_OK) rc->failed = 1;
    }
}

mr_status mr_run_record_create(mr_lua_ctx *ctx, const char *out, const char *script, mr_run_record **rec,
                               mr_error *err)
{
    *rec = NULL;
    if (mr_save_kind(out) == MR_SAVE_NONE)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "--record %s: unknown extension (expected .glb, .gltf, "
                            ".dae, .md5mesh, .md5anim or .bvh)", out);
    mr_run_record *r = calloc(1, sizeof *r);
    if (!r) return mr_error_set(err, MR_ERR_NO_MEMORY, "out of memory");
    r->ctx = ctx;
    r->out = mr_str_dup(out);
    r->name = mr_path_stem(script);
    r->frame = UINT64_MAX;
    if (!r->out || !r->name) {
        mr_run_record_destroy(r);
        return mr_error_set(err, MR_ERR_NO_MEMORY, "out of memory");
    }
    mr_lua_draw_watch_draws(ctx, on_draw, r);
    *rec = r;
    return MR_OK;
}

/* OUT for the first recording, STEM-k.EXT beside it for the k-th. */
static char *path_for(const char *out, int k)
{
    if (k == 1) return mr_str_dup(out);
    const char *dot = strrchr(out, '.');
    const char *slash = strrchr(out, '/');
    if (!dot || (slash && dot < slash)) return mr_str_fmt("%s-%d", out, k);
    return mr_str_fmt("%.*s-%d%s", (int)(dot - out), out, k, dot);
}

/* The name of the model's unit for the printed error (the model keeps its
 * file's: MD5 inches, COLLADA and glTF metres). */
static const char *unit_name(float meters_per_unit)
{
    if (fabsf(meters_per_unit - 0.0254f) < 1e-6f) return "inch";
    if (fabsf(meters_per_unit - 1.0f) < 1e-6f) return "m";
    if (fabsf(meters_per_unit - 0.01f) < 1e-7f) return "cm";
    return "model units";
}

int mr_run_record_save(mr_run_record *r)
{
    mr_lua_draw_watch_draws(r->ctx, NULL, NULL);
    int written = 0, k = 0;
    if (!r->count) fprintf(stderr, "marrow run: --record %s: the script drew no model; nothing recorded\n", r->out);
    for (int i = 0; i < r->count; i++) {
        recording *rc = &r->recs[i];
        const mr_model *m = rc->model;
        if (rc->failed) {
            fprintf(stderr, "marrow run: --record: capturing %s failed (out of memory, or time went back)\n", m->path);
            return -1;
        }
        if (rc->rec.count < 2) {
            fprintf(stderr, "marrow run: --record: %s was drawn in %d frame(s); a clip needs 2\n", m->path,
                    rc->rec.count);
            continue;
        }
        vec3 lo, hi;
        float size = mr_model_bounds(m, lo, hi) ? glm_vec3_distance(lo, hi) : 1.0f;
        if (!(size > 0.0f) || !isfinite(size)) size = 1.0f;
        mr_clip_edit *edit = NULL;
        mr_record_result res;
        mr_error err = {0};
        mr_clip *clip = NULL;
        float rate = rc->rec.count > 1 ? (float)((rc->rec.count - 1) /
                                                 ((double)rc->rec.times[rc->rec.count - 1] - rc->rec.times[0]))
                                       : 30.0f;
        mr_status st = mr_record_reduce(&rc->rec, &m->skeleton, MR_CLIP_FIDELITY * size, size, rate, &edit, &res,
                                        &err);
        if (st == MR_OK && (st = mr_clip_create(r->name, m->skeleton.joint_count, &clip)) == MR_OK)
            st = mr_clip_edit_bake(edit, 0.5f * MR_CLIP_FIDELITY * size, size, clip);
        mr_clip_edit_destroy(edit);
        char *path = st == MR_OK ? path_for(r->out, ++k) : NULL;
        int files = 0;
        if (st == MR_OK && path) {
            const mr_clip *clips[1] = {clip};
            st = mr_save_model(m, clips, 1, path, &files, &err);
        } else if (st == MR_OK) {
            st = mr_error_set(&err, MR_ERR_NO_MEMORY, "out of memory");
        }
        if (st != MR_OK) {
            fprintf(stderr, "marrow run: --record: %s\n", err.msg[0] ? err.msg : mr_status_string(st));
            free(path);
            mr_clip_destroy(clip);
            return -1;
        }
        const char *unit = unit_name(m->axes.meters_per_unit);
        printf("recorded %s (draw %d): %d frames, %d of %d keys kept, error %.3g %s (measured at %d times, "
               "tolerance %.3g %s) -> %s\n", m->path, rc->occurrence + 1, rc->rec.count, res.keys_kept,
               res.keys_total, (double)res.error, unit, res.checks, (double)(MR_CLIP_FIDELITY * size), unit, path);
        written += files;
        free(path);
        mr_clip_destroy(clip);
    }
    return written;
}

void mr_run_record_destroy(mr_run_record *r)
{
    if (!r) return;
    for (int i = 0; i < r->count; i++) mr_record_deinit(&r->recs[i].rec);
    free(r->recs);
    free(r->seen);
    mr_pose_deinit(&r->pose);
    free(r->mats);
    free(r->out);
    free(r->name);
    free(r);
}
