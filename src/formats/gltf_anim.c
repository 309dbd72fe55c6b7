/* gltf_anim.c — animations -> clips: one clip per animation, channels on
 * translation / rotation / scale of skeleton joints, LINEAR / STEP /
 * CUBICSPLINE kept as they are (marrow's CUBIC has glTF's layout). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/morph.h"
#include "core/str.h"
#include "formats/gltf_internal.h"

typedef struct anim_counts {
    long weights, unused_nodes, duplicates, equal_times;
    char first_equal[256];       /* the first sampler input with merged keys */
} anim_counts;

/* Whether key k's time is to be kept: the first key, and every key at least
 * MR_CLIP_MIN_KEY_INTERVAL after the last kept one (times ascend). Closer
 * keys (equal times, float noise, 1e-44 s) are merged into the one kept
 * before them: below that interval a key rate is no float. */
static int keep_key(const float *times, int k, float *last)
{
    if (k > 0 && (double)times[k] - *last < MR_CLIP_MIN_KEY_INTERVAL) return 0;
    *last = times[k];
    return 1;
}

/* One animation's JSON and the prefixes of its paths. */
typedef struct anim_json {
    gl_json *channels, *samplers;
    char ch_prefix[128];         /* "/animations/A/channels/" */
    char sm_prefix[128];         /* "/animations/A/samplers/" */
} anim_json;

/* One sampler opened: its interpolation and its input (key times) and
 * output accessors read as floats (the output as out_type). spath, use_in
 * and use_out (256 bytes each) name the sampler and its accessors in
 * messages. On failure nothing is left to free. */
typedef struct sampler {
    char spath[256], use_in[256], use_out[256];
    const char *interp_s;
    mr_interp interp;
    int in, out;
    gl_accessor ti, vo;
} sampler;

static mr_status open_sampler(gl_doc *d, const anim_json *aj, long long si, int out_type, sampler *sm)
{
    gl_path(sm->spath, sizeof sm->spath, aj->sm_prefix, si, NULL);
    gl_json *smp = gl_json_at(aj->samplers, (size_t)si);
    if (!gl_json_is_object(smp)) return gl_fail(d, sm->spath, "expected an object");
    sm->in = sm->out = -1;
    sm->interp_s = "LINEAR";
    mr_status st;
    if ((st = gl_ref(d, smp, sm->spath, "input", GL_REQUIRED, "accessors", &sm->in)) != MR_OK) return st;
    if ((st = gl_ref(d, smp, sm->spath, "output", GL_REQUIRED, "accessors", &sm->out)) != MR_OK) return st;
    if ((st = gl_str(d, smp, sm->spath, "interpolation", GL_OPTIONAL, &sm->interp_s)) != MR_OK) return st;
    if (!strcmp(sm->interp_s, "LINEAR")) sm->interp = MR_INTERP_LINEAR;
    else if (!strcmp(sm->interp_s, "STEP")) sm->interp = MR_INTERP_STEP;
    else if (!strcmp(sm->interp_s, "CUBICSPLINE")) sm->interp = MR_INTERP_CUBIC;
    else
        return gl_fail(d, sm->spath, "'interpolation': \"%s\" (expected LINEAR, STEP or CUBICSPLINE)", sm->interp_s);
    gl_path(sm->use_in, sizeof sm->use_in, aj->sm_prefix, si, "/input");
    gl_path(sm->use_out, sizeof sm->use_out, aj->sm_prefix, si, "/output");
    if ((st = gl_accessor_floats(d, sm->in, GL_T_SCALAR, 1, sm->use_in, &sm->ti)) != MR_OK) return st;
    if ((st = gl_accessor_floats(d, sm->out, out_type, 0, sm->use_out, &sm->vo)) != MR_OK) {
        gl_accessor_free(d, &sm->ti);
        return st;
    }
    return MR_OK;
}

/* A `weights` channel: one mr_morph_channel per model mesh the node placed
 * (each of its primitives), keys as the file gives them (merged like
 * joint keys), target_count weights per key (CUBIC: in-tangents, values,
 * out-tangents). A node whose meshes have no targets: counted, not kept. */
static mr_status read_weights(gl_doc *d, const gl_scene *s, const anim_json *aj, long long si, int node,
                              mr_clip *clip, float *duration, anim_counts *cnt)
{
    mr_model *model = d->model;
    int tc = 0;
    for (int m = 0; m < model->mesh_count && !tc; m++)
        if (s->mesh_node[m] == node && model->meshes[m].morph) tc = model->meshes[m].morph->count;
    if (!tc) {
        cnt->weights++;
        return MR_OK;
    }
    sampler sm;
    mr_status st = open_sampler(d, aj, si, GL_T_SCALAR, &sm);
    if (st != MR_OK) return st;
    const char *spath = sm.spath, *use_in = sm.use_in, *use_out = sm.use_out, *interp_s = sm.interp_s;
    mr_interp interp = sm.interp;
    int in = sm.in, out = sm.out;
    gl_accessor ti = sm.ti, vo = sm.vo;
    int per = interp == MR_INTERP_CUBIC ? 3 : 1, n = ti.count;
    int kept = 0;
    float last = 0;
    if ((long long)vo.count != (long long)n * per * tc) {
        st = gl_fail(d, use_out, "accessor %d has %d weights for %d key times of %d morph targets (expected %lld for %s)",
                     out, vo.count, n, tc, (long long)n * per * tc, interp_s);
        goto done;
    }
    if (n == 0) goto done;
    for (int k = 0; k < n; k++) {
        if (!isfinite(ti.f[k]) || (k > 0 && ti.f[k] < ti.f[k - 1])) {
            st = gl_fail(d, use_in, "key %d time %g is not finite or before the key before it (accessor %d)", k,
                         ti.f[k], in);
            goto done;
        }
        kept += keep_key(ti.f, k, &last);
    }
    for (long long e = 0; e < (long long)n * per * tc; e++)
        if (!isfinite(vo.f[e])) {
            st = gl_fail(d, use_out, "weight %lld is not a finite number (accessor %d)", e, out);
            goto done;
        }
    if (interp == MR_INTERP_CUBIC && kept < 2) interp = MR_INTERP_LINEAR;
    int stride = tc * (interp == MR_INTERP_CUBIC ? 3 : 1);
    for (int m = 0; m < model->mesh_count && st == MR_OK; m++) {
        if (s->mesh_node[m] != node || !model->meshes[m].morph || model->meshes[m].morph->count != tc) continue;
        if ((st = gl_charge(d, spath, (size_t)kept, sizeof(float) * (1 + (size_t)stride))) != MR_OK) break;
        mr_morph_channel *ch = mr_morph_tracks_add(&clip->morph, m, tc, kept, interp);
        if (!ch) {
            st = gl_fail_status(d, MR_ERR_NO_MEMORY, spath, "out of memory");
            break;
        }
        last = 0;
        for (int k = 0, o = 0; k < n; k++) {
            if (!keep_key(ti.f, k, &last)) continue;
            ch->times[o] = ti.f[k];
            const float *src = vo.f + (size_t)k * (size_t)per * (size_t)tc;
            if (per == 3 && interp != MR_INTERP_CUBIC) src += tc;  /* the value of a lone cubic key */
            memcpy(ch->values + (size_t)o * (size_t)stride, src, (size_t)stride * sizeof(float));
            o++;
        }
        if (ch->times[kept - 1] > *duration) *duration = ch->times[kept - 1];
    }
done:
    gl_accessor_free(d, &ti);
    gl_accessor_free(d, &vo);
    return st;
}

static mr_status read_channel(gl_doc *d, const gl_scene *s, const anim_json *aj, int c, mr_clip *clip,
                              float *duration, anim_counts *cnt)
{
    char path[160];
    gl_path(path, sizeof path, aj->ch_prefix, c, NULL);
    gl_json *ch = gl_json_at(aj->channels, (size_t)c), *target, *samplers = aj->samplers;
    if (!gl_json_is_object(ch)) return gl_fail(d, path, "expected an object");
    long long si = 0;
    mr_status st = gl_obj(d, ch, path, "target", GL_REQUIRED, &target);
    if (st == MR_OK) st = gl_int(d, ch, path, "sampler", GL_REQUIRED, 0, (long long)gl_json_size(samplers) - 1, &si);
    if (st != MR_OK) return st;
    char tpath[256];
    gl_path(tpath, sizeof tpath, aj->ch_prefix, c, "/target");
    const char *what;
    long long node = -1;
    if ((st = gl_str(d, target, tpath, "path", GL_REQUIRED, &what)) != MR_OK) return st;
    if ((st = gl_int(d, target, tpath, "node", GL_OPTIONAL, 0, s->node_count - 1, &node)) != MR_OK) return st;
    int comps = !strcmp(what, "rotation") ? 4 : !strcmp(what, "translation") || !strcmp(what, "scale") ? 3 : 0;
    if (!strcmp(what, "weights")) return node < 0 ? MR_OK : read_weights(d, s, aj, si, (int)node, clip, duration, cnt);
    if (!comps)
        return gl_fail(d, tpath, "'path': \"%s\" (expected translation, rotation, scale or weights)", what);
    if (node < 0) return MR_OK;  /* an extension's target (KHR_animation_pointer) */
    int joint = s->joint[node];
    if (joint < 0) {
        cnt->unused_nodes++;
        return MR_OK;
    }
    sampler sm;
    if ((st = open_sampler(d, aj, si, comps == 4 ? GL_T_VEC4 : GL_T_VEC3, &sm)) != MR_OK) return st;
    const char *spath = sm.spath, *use_in = sm.use_in, *use_out = sm.use_out, *interp_s = sm.interp_s;
    mr_interp interp = sm.interp;
    int in = sm.in, out = sm.out;
    gl_accessor ti = sm.ti, vo = sm.vo;
    int per = interp == MR_INTERP_CUBIC ? 3 : 1;
    int n = ti.count;
    if ((long long)vo.count != (long long)n * per) {
        st = gl_fail(d, use_out, "accessor %d has %d values for %d key times (expected %d for %s)", out, vo.count, n,
                     n * per, interp_s);
        goto done;
    }
    if (interp == MR_INTERP_CUBIC && n < 2) interp = MR_INTERP_LINEAR;  /* one key: a constant */
    /* Keys with the same time as the kept one before, or less than
     * MR_CLIP_MIN_KEY_INTERVAL after it, are dropped (the first of them wins). */
    int kept = 0;
    float last = 0;
    for (int k = 0; k < n; k++) {
        if (!isfinite(ti.f[k])) {
            st = gl_fail(d, use_in, "key %d time %g is not a finite number (accessor %d)", k, ti.f[k], in);
            goto done;
        }
        if (k > 0 && ti.f[k] < ti.f[k - 1]) {
            st = gl_fail(d, use_in, "key %d time %g is before key %d's %g (expected increasing times; accessor %d)", k,
                         ti.f[k], k - 1, ti.f[k - 1], in);
            goto done;
        }
        kept += keep_key(ti.f, k, &last);
    }
    if (n > kept && !cnt->equal_times) snprintf(cnt->first_equal, sizeof cnt->first_equal, "%s", use_in);
    cnt->equal_times += n - kept;
    mr_joint_tracks *jt = &clip->tracks[joint];
    mr_track *tr = comps == 4 ? &jt->r : !strcmp(what, "translation") ? &jt->t : &jt->s;
    if (tr->key_count) cnt->duplicates++;
    if ((st = gl_charge(d, spath, (size_t)kept, sizeof(float) * (1 + (size_t)comps * (size_t)per))) != MR_OK) goto done;
    if (mr_track_init(tr, kept, interp) != MR_OK) {
        st = gl_fail_status(d, MR_ERR_NO_MEMORY, spath, "out of memory");
        goto done;
    }
    int stride = comps * (interp == MR_INTERP_CUBIC ? 3 : 1);
    last = 0;
    for (int k = 0, o = 0; k < n; k++) {
        if (!keep_key(ti.f, k, &last)) continue;
        tr->times[o] = ti.f[k];
        float *dst = tr->values + (size_t)o * (size_t)stride;
        if (per == 3 && interp == MR_INTERP_CUBIC) {
            memcpy(dst, vo.f + (size_t)k * 3 * (size_t)comps, (size_t)stride * sizeof *dst);
        } else {
            memcpy(dst, vo.f + ((size_t)k * (size_t)per + (per == 3 ? 1 : 0)) * (size_t)comps,
                   (size_t)comps * sizeof *dst);
        }
        if (comps == 4) {
            float *q = dst + (interp == MR_INTERP_CUBIC ? 4 : 0);
            float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            if (!(len > 1e-6f)) {
                st = gl_fail(d, use_out, "key %d is a zero quaternion (accessor %d)", k, out);
                goto done;
            }
            if (interp != MR_INTERP_CUBIC)
                for (int e = 0; e < 4; e++) q[e] /= len;
        }
        o++;
    }
    if (kept && tr->times[kept - 1] > *duration) *duration = tr->times[kept - 1];
done:
    gl_accessor_free(d, &ti);
    gl_accessor_free(d, &vo);
    return st;
}

/* What marrow's writer keeps in an animation's extras (gltf_write.h):
 * "duration" past the last key, "rate", "markers" [{time, name}]. Values
 * that do not fit (wrong types, times outside the clip) are left out. */
static void read_extras(gl_json *extras, mr_clip *clip)
{
    if (!gl_json_is_object(extras)) return;
    gl_json *v = gl_json_get(extras, "duration");
    if (gl_json_is_number(v) && isfinite(gl_json_number(v)) && gl_json_number(v) > clip->duration &&
        gl_json_number(v) < 1e7)
        clip->duration = (float)gl_json_number(v);
    v = gl_json_get(extras, "rate");
    if (gl_json_is_number(v) && gl_json_number(v) > 0 && gl_json_number(v) < 1e6)
        clip->rate = (float)gl_json_number(v);
    gl_json *mk = gl_json_get(extras, "markers");
    size_t n = gl_json_is_array(mk) ? gl_json_size(mk) : 0;
    for (size_t i = 0; i < n && i < MR_MAX_MARKERS; i++) {
        gl_json *m = gl_json_at(mk, i), *t = gl_json_get(m, "time"), *nm = gl_json_get(m, "name");
        if (gl_json_is_number(t) && gl_json_is_string(nm))
            mr_clip_add_marker(clip, (float)gl_json_number(t), gl_json_string(nm));
    }
}

mr_status gl_anim_read(gl_doc *d, const gl_scene *s)
{
    gl_json *anims;
    int count;
    mr_status st = gl_top(d, "animations", &anims, &count);
    if (st != MR_OK) return st;
    anim_counts cnt = {0};
    int joints = d->model->skeleton.joint_count;
    for (int a = 0; a < count; a++) {
        char path[128];
        snprintf(path, sizeof path, "/animations/%d", a);
        gl_json *anim, *channels;
        const char *name = NULL;
        if ((st = gl_elem(d, "animations", a, path, &anim)) != MR_OK) return st;
        if ((st = gl_arr(d, anim, path, "channels", GL_REQUIRED, &channels)) != MR_OK) return st;
        if ((st = gl_str(d, anim, path, "name", GL_OPTIONAL, &name)) != MR_OK) return st;
        if (joints == 0) continue;
        anim_json aj = {.channels = channels};
        if (gl_json_size(channels) &&
            (st = gl_arr(d, anim, path, "samplers", GL_REQUIRED, &aj.samplers)) != MR_OK)
            return st;
        snprintf(aj.ch_prefix, sizeof aj.ch_prefix, "%s/channels/", path);
        snprintf(aj.sm_prefix, sizeof aj.sm_prefix, "%s/samplers/", path);
        char *fallback = name && *name ? NULL : mr_str_fmt("animation%d", a);
        mr_clip *clip = NULL;
        mr_clip_create(fallback ? fallback : name, joints, &clip);
        free(fallback);
        if (!clip) return gl_fail_status(d, MR_ERR_NO_MEMORY, path, "out of memory");
        float duration = 0;
        int nc = (int)gl_json_size(channels);
        for (int c = 0; c < nc && st == MR_OK; c++) st = read_channel(d, s, &aj, c, clip, &duration, &cnt);
        if (st != MR_OK) {
            mr_clip_destroy(clip);
            return st;
        }
        clip->duration = duration;
        /* rate: the spacing shared by every track's keys, when there is one */
        float rate = -1;
        for (int j = 0; j < joints && rate != 0; j++) {
            mr_track *tr[3] = {&clip->tracks[j].t, &clip->tracks[j].r, &clip->tracks[j].s};
            for (int k = 0; k < 3; k++) {
                if (tr[k]->key_count < 2) continue;
                mr_track_finish(tr[k]);
                float u = tr[k]->uniform_rate;
                if (rate < 0) rate = u;
                else if (fabsf(u - rate) > 1e-3f * rate) rate = 0;
            }
        }
        clip->rate = rate > 0 ? rate : 0;
        read_extras(gl_json_get(anim, "extras"), clip);
        mr_error verr;
        if (mr_clip_validate(clip, &verr) != MR_OK) {
            mr_clip_destroy(clip);
            return gl_fail(d, path, "%s", verr.msg);
        }
        if ((st = mr_model_add_clip(d->model, clip)) != MR_OK) {
            mr_clip_destroy(clip);
            return gl_fail_status(d, st, path, "cannot add the clip");
        }
    }
    if (cnt.weights)
        mr_model_warn(d->model, "%s: %ld morph-target weights channels animate nodes whose meshes have no morph targets; not kept",
                      d->name, cnt.weights);
    if (cnt.duplicates)
        mr_model_warn(d->model, "%s: %ld channels animate a property another channel of the same animation already "
                      "animates; the later one is kept", d->name, cnt.duplicates);
    if (cnt.equal_times)
        mr_model_warn(d->model, "%s: %ld animation keys repeat the time of the key before or follow it by less than "
                      "%g s (first at %s); the first of each is kept",
                      d->name, cnt.equal_times, MR_CLIP_MIN_KEY_INTERVAL, cnt.first_equal);
    return MR_OK;
}
