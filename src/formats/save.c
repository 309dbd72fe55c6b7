/* save.c — a model with chosen clips, written by extension (save.h). */
#include "formats/save.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/axes.h"
#include "anim/clip_runtime.h"
#include "anim/morph.h"
#include "anim/record.h"
#include "core/cancel.h"
#include "core/file.h"
#include "core/path.h"
#include "core/str.h"
#include "formats/bvh_write.h"
#include "formats/collada.h"
#include "formats/gltf_write.h"
#include "formats/md5.h"
#include "formats/textures.h"

int mr_save_kind(const char *path)
{
    char ext[16];
    const char *e = mr_path_ext(path, ext, sizeof ext);
    if (!e) return MR_SAVE_NONE;
    if (!strcmp(e, "glb") || !strcmp(e, "gltf") || !strcmp(e, "vrm")) return MR_SAVE_GLTF;
    if (!strcmp(e, "dae")) return MR_SAVE_COLLADA;
    if (!strcmp(e, "md5mesh")) return MR_SAVE_MD5MESH;
    if (!strcmp(e, "md5anim")) return MR_SAVE_MD5ANIM;
    if (!strcmp(e, "bvh")) return MR_SAVE_BVH;
    return MR_SAVE_NONE;
}

mr_status mr_save_check(const char *path, const mr_clip *const *clips, int clip_count, mr_error *err)
{
    int kind = mr_save_kind(path);
    if (kind == MR_SAVE_NONE)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "path: %s: unknown extension (expected .glb, .gltf, .vrm, .dae, "
                            ".md5mesh, .md5anim or .bvh)", path);
    if (kind == MR_SAVE_MD5ANIM && clip_count != 1)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "opts.clips: %s: an .md5anim holds exactly one clip, got %d",
                            path, clip_count);
    if (kind == MR_SAVE_BVH && clip_count != 1)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "opts.clips: %s: a .bvh holds one skeleton and exactly one "
                            "clip, got %d", path, clip_count);
    /* Morph weight tracks: only the glTF writer writes them (COLLADA's
     * morph controllers are not written yet); refused, nothing written. */
    if (kind != MR_SAVE_GLTF)
        for (int c = 0; c < clip_count; c++)
            if (clips[c]->morph && clips[c]->morph->channel_count > 0)
                return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                    "opts.clips[%d]: %s: %s cannot hold morph weight keys (clip '%s' has weights for "
                                    "mesh %d); save as .glb or .gltf",
                                    c + 1, path,
                                    kind == MR_SAVE_BVH ? "BVH" : kind == MR_SAVE_COLLADA ? "the COLLADA writer" : "MD5",
                                    clips[c]->name, clips[c]->morph->channels[0].mesh);
    if (kind == MR_SAVE_MD5MESH || kind == MR_SAVE_MD5ANIM || kind == MR_SAVE_BVH)
        for (int c = 0; c < clip_count; c++)
            for (int j = 0; j < clips[c]->joint_count; j++) {
                const mr_track *s = &clips[c]->tracks[j].s;
                int per = s->interp == MR_INTERP_CUBIC ? 9 : 3, off = s->interp == MR_INTERP_CUBIC ? 3 : 0;
                for (int k = 0; k < s->key_count; k++)
                    for (int i = 0; i < 3; i++)
                        if (fabsf(s->values[k * per + off + i] - 1.0f) > 1e-5f)
                            return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                                "opts.clips: %s: %s cannot hold scale keys (clip '%s', joint %d "
                                                "has scale %g at %g s); save as .glb, .gltf or .dae",
                                                path, kind == MR_SAVE_BVH ? "BVH" : "MD5", clips[c]->name, j, (double)s->values[k * per + off + i],
                                                (double)s->times[k]);
            }
    return MR_OK;
}

/* MD5 and BVH hold frames at one rate, played back linearly: the lowest of
 * rate * 2^k (k = 0..5) whose frames reproduce clip within tol model units,
 * measured at virtual points along each joint's axes (distance model
 * units; anim/points.h, as the runtime and the recorder measure) at every
 * frame, between frames and at 121 even times (anim/record.h); the highest
 * when none does. */
#define MAX_DOUBLINGS 5
static float fit_rate(const mr_skeleton *sk, const mr_clip *clip, float tol, float distance)
{
    float rate = clip->rate > 0 && isfinite(clip->rate) ? clip->rate : 30.0f;
    if (!(clip->duration > 0)) return rate;
    for (int k = 0; k <= MAX_DOUBLINGS; k++, rate *= 2.0f) {
        double frames_d = floor((double)clip->duration * rate + 0.5) + 1;
        if (frames_d > 200000) break;
        int frames = (int)frames_d, n = sk->joint_count;
        mr_clip *fr = NULL;
        mr_pose pose = {0};
        float *times = malloc((size_t)frames * sizeof *times);
        mr_status st = times && mr_pose_init(&pose, n) == MR_OK ? mr_clip_create("fit", n, &fr) : MR_ERR_NO_MEMORY;
        for (int j = 0; j < n && st == MR_OK; j++) {
            mr_track *tr[3] = {&fr->tracks[j].t, &fr->tracks[j].r, &fr->tracks[j].s};
            for (int c = 0; c < 3 && st == MR_OK; c++) st = mr_track_init(tr[c], frames, MR_INTERP_LINEAR);
        }
        for (int f = 0; f < frames && st == MR_OK; f++) {
            if ((f & 1023) == 1023 && mr_cancel_requested()) st = MR_ERR_LIMIT;   /* core/cancel.h */
            times[f] = (float)fmin(f / (double)rate, clip->duration);
            st = mr_clip_sample_keys(clip, sk, times[f], MR_WRAP_CLAMP, &pose);
            for (int j = 0; j < n && st == MR_OK; j++) {
                mr_joint_tracks *jt = &fr->tracks[j];
                jt->t.times[f] = jt->r.times[f] = jt->s.times[f] = (float)(f / (double)rate);
                memcpy(&jt->t.values[f * 3], pose.t[j], 3 * sizeof(float));
                memcpy(&jt->r.values[f * 4], pose.r[j], 4 * sizeof(float));
                memcpy(&jt->s.values[f * 3], pose.s[j], 3 * sizeof(float));
                if (f > 0) {  /* the short way, as the readers interpolate */
                    float *q = &jt->r.values[f * 4], *p = &jt->r.values[(f - 1) * 4];
                    if (q[0] * p[0] + q[1] * p[1] + q[2] * p[2] + q[3] * p[3] < 0)
                        for (int i = 0; i < 4; i++) q[i] = -q[i];
                }
            }
        }
        float error = INFINITY;
        int checks = 0;
        if (st == MR_OK) {
            fr->duration = (float)((frames - 1) / (double)rate);
            mr_clip_finish(fr);
            mr_record_measure(clip, fr, sk, times, frames, clip->duration, distance, &error, &checks);
        }
        mr_clip_destroy(fr);
        mr_pose_deinit(&pose);
        free(times);
        if (st != MR_OK || error <= tol || k == MAX_DOUBLINGS || mr_cancel_requested()) return rate;
    }
    return rate / 2.0f;
}

/* Sets each clip's rate to what its frames need (fit_rate), the model size
 * from the bind pose. */
static void fit_rates(mr_model *m)
{
    vec3 lo, hi;
    float size = mr_model_bounds(m, lo, hi) ? glm_vec3_distance(lo, hi) : 1.0f;
    if (!(size > 0) || !isfinite(size)) size = 1.0f;
    for (int i = 0; i < m->clip_count; i++)
        m->clips[i]->rate = fit_rate(&m->skeleton, m->clips[i], 0.5f * MR_CLIP_FIDELITY * size,
                                     (float)(MR_CLIP_POINT_DISTANCE * size));
}

static mr_status write_md5(mr_model *m, const char *path, int mesh, int *written, mr_error *err)
{
    mr_axes md5_axes = {MR_UP_Z, 0.0254f};
    mr_status st = mr_axes_convert_model(m, md5_axes, err);
    if (st != MR_OK) return st;
    fit_rates(m);
    if (!mesh) {
        st = mr_md5_write_anim(m, m->clips[0], path, err);
        if (st == MR_OK) (*written)++;
        return st;
    }
    if ((st = mr_md5_write_mesh(m, path, err)) != MR_OK) return st;
    (*written)++;
    char *dir = mr_path_dirname(path);
    if (!dir) return mr_error_set(err, MR_ERR_NO_MEMORY, "%s: out of memory", path);
    *written += mr_textures_copy(m, dir, 0, NULL, NULL);   /* MD5 names them by base name, beside the mesh */
    for (int i = 0; st == MR_OK && i < m->clip_count; i++) {
        char *name = mr_str_fmt("%s.md5anim", m->clips[i]->name);
        for (char *c = name; c && *c; c++)
            if (*c == '/' || *c == '\\' || *c == ':' || (unsigned char)*c < 32) *c = '_';
        char *p = name ? mr_path_join(dir, name) : NULL;
        st = p ? mr_md5_write_anim(m, m->clips[i], p, err) : mr_error_set(err, MR_ERR_NO_MEMORY, "out of memory");
        if (st == MR_OK) (*written)++;
        free(name);
        free(p);
    }
    free(dir);
    return st;
}

mr_status mr_save_model(const mr_model *model, const mr_clip *const *clips, int clip_count, const char *path,
                        int *written, mr_error *err)
{
    int count = 0;
    if (written) *written = 0;
    mr_status st = mr_save_check(path, clips, clip_count, err);
    if (st != MR_OK) return st;
    for (int i = 0; i < clip_count; i++)
        if (clips[i]->joint_count != model->skeleton.joint_count)
            return mr_error_set(err, MR_ERR_JOINT_COUNT, "opts.clips[%d]: clip '%s' has %d joints, the model %d",
                                i + 1, clips[i]->name, clips[i]->joint_count, model->skeleton.joint_count);
    /* Copy -> convert -> write: the live model is never touched, and the
     * file it was loaded from is not read again (it may have changed). */
    mr_model *m = NULL;
    st = mr_model_copy(model, clips, clip_count, &m);
    if (st != MR_OK) return mr_error_set(err, st, "%s: copying the model: %s", path, mr_status_string(st));
    /* Every file of the save (a mesh and its clips, a .gltf and its .bin)
     * is written to a temporary name and renamed only when all were:
     * nothing is half-written. A caller's own batch (marrow.save's, to
     * check the write quota first) holds them instead. */
    int own_batch = mr_file_batch_begin() == MR_OK;
    if (st == MR_OK) switch (mr_save_kind(path)) {
        case MR_SAVE_GLTF: {
            mr_axes gltf_axes = {MR_UP_Y, 1.0f};
            st = mr_axes_convert_model(m, gltf_axes, err);
            if (st == MR_OK) st = mr_gltf_write(m, path, err);
            if (st == MR_OK) count = 1;
            break;
        }
        case MR_SAVE_COLLADA: {
            /* The document names its textures: copies beside it, named there. */
            char *dir = mr_path_dirname(path);
            if (!dir) {
                st = mr_error_set(err, MR_ERR_NO_MEMORY, "%s: out of memory", path);
                break;
            }
            int textures = mr_textures_copy(m, dir, 1, NULL, NULL);
            free(dir);
            st = mr_collada_write(m, path, err);
            if (st == MR_OK) count = 1 + textures;
            break;
        }
        case MR_SAVE_MD5MESH: st = write_md5(m, path, 1, &count, err); break;
        case MR_SAVE_MD5ANIM: st = write_md5(m, path, 0, &count, err); break;
        case MR_SAVE_BVH: {
            mr_axes bvh_axes = {MR_UP_Y, 0.01f};  /* centimetres: what the reader guesses for a person */
            st = mr_axes_convert_model(m, bvh_axes, err);
            if (st == MR_OK) fit_rates(m);
            if (st == MR_OK) st = mr_bvh_write(m, m->clips[0], path, err);
            if (st == MR_OK) count = 1;
            break;
        }
        default: st = MR_ERR_INVALID_ARGUMENT; break;
        }
    if (st == MR_OK && mr_cancel_requested())   /* stopped part-way (a script's budget): nothing is kept */
        st = mr_error_set(err, MR_ERR_LIMIT, "%s: stopped: the time budget ran out while saving; nothing written",
                          path);
    if (own_batch && st == MR_OK) st = mr_file_batch_commit(err);
    else if (own_batch) mr_file_batch_abort();
    if (st != MR_OK) count = 0;
    mr_model_destroy(m);
    if (written) *written = count;
    return st;
}
