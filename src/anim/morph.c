/* morph.c — morph target sets, applying weights, weight tracks and their
 * sampling (morph.h). */
#include "anim/morph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"

mr_status mr_morph_set_create(int count, int vertex_count, mr_morph_set **out)
{
    *out = NULL;
    if (count < 1 || vertex_count < 0) return MR_ERR_INVALID_ARGUMENT;
    mr_morph_set *s = calloc(1, sizeof *s);
    if (!s) return MR_ERR_NO_MEMORY;
    s->count = count;
    s->vertex_count = vertex_count;
    s->targets = mr_alloc_array((size_t)count, sizeof *s->targets);
    s->weights = mr_alloc_array((size_t)count, sizeof *s->weights);
    int ok = s->targets && s->weights;
    for (int k = 0; ok && k < count; k++) {
        s->targets[k].positions = mr_alloc_array((size_t)vertex_count ? (size_t)vertex_count : 1,
                                                 sizeof *s->targets[k].positions);
        s->targets[k].name = mr_str_fmt("target%d", k);
        ok = s->targets[k].positions && s->targets[k].name;
    }
    if (!ok) {
        mr_morph_set_destroy(s);
        return MR_ERR_NO_MEMORY;
    }
    *out = s;
    return MR_OK;
}

void mr_morph_set_destroy(mr_morph_set *s)
{
    if (!s) return;
    for (int k = 0; s->targets && k < s->count; k++) {
        free(s->targets[k].name);
        free(s->targets[k].positions);
        free(s->targets[k].normals);
    }
    free(s->targets);
    free(s->weights);
    free(s);
}

mr_status mr_morph_set_add_normals(mr_morph_set *s, int k)
{
    if (k < 0 || k >= s->count) return MR_ERR_INVALID_ARGUMENT;
    if (s->targets[k].normals) return MR_OK;
    s->targets[k].normals =
        mr_alloc_array(s->vertex_count ? (size_t)s->vertex_count : 1, sizeof *s->targets[k].normals);
    return s->targets[k].normals ? MR_OK : MR_ERR_NO_MEMORY;
}

int mr_morph_set_find(const mr_morph_set *s, const char *name)
{
    for (int k = 0; s && name && k < s->count; k++)
        if (!strcmp(s->targets[k].name, name)) return k;
    return -1;
}

void mr_morph_apply(const mr_mesh *mesh, const float *weights, vec3 *out_pos, vec3 *out_nrm)
{
    size_t n = (size_t)mesh->vertex_count;
    memcpy(out_pos, mesh->positions, n * sizeof *out_pos);
    memcpy(out_nrm, mesh->normals, n * sizeof *out_nrm);
    const mr_morph_set *s = mesh->morph;
    if (!s || s->vertex_count != mesh->vertex_count) return;
    if (!weights) weights = s->weights;
    int normals_moved = 0;
    for (int k = 0; k < s->count; k++) {
        float w = weights[k];
        if (w == 0.0f || !isfinite(w)) continue;
        const mr_morph_target *t = &s->targets[k];
        for (size_t v = 0; v < n; v++) glm_vec3_muladds(t->positions[v], w, out_pos[v]);
        if (!t->normals) continue;
        normals_moved = 1;
        for (size_t v = 0; v < n; v++) glm_vec3_muladds(t->normals[v], w, out_nrm[v]);
    }
    for (size_t v = 0; normals_moved && v < n; v++) {
        float len = glm_vec3_norm(out_nrm[v]);
        if (len > 1e-20f) glm_vec3_scale(out_nrm[v], 1.0f / len, out_nrm[v]);
        else glm_vec3_copy(mesh->normals[v], out_nrm[v]);
    }
}

mr_morph_channel *mr_morph_tracks_add(mr_morph_tracks **tracks, int mesh, int target_count, int key_count,
                                      mr_interp interp)
{
    if (mesh < 0 || target_count < 1 || key_count < 1) return NULL;
    size_t per = (size_t)target_count * (interp == MR_INTERP_CUBIC ? 3 : 1);
    if (SIZE_MAX / per < (size_t)key_count) return NULL;
    mr_morph_tracks *t = *tracks;
    int made = 0;
    if (!t) {
        t = calloc(1, sizeof *t);
        if (!t) return NULL;
        made = 1;
    }
    mr_morph_channel *grown = realloc(t->channels, (size_t)(t->channel_count + 1) * sizeof *grown);
    float *times = mr_alloc_array((size_t)key_count, sizeof *times);
    float *values = mr_alloc_array((size_t)key_count * per, sizeof *values);
    if (grown) t->channels = grown;
    if (!grown || !times || !values) {
        free(times);
        free(values);
        if (made) mr_morph_tracks_destroy(t);
        return NULL;
    }
    mr_morph_channel *ch = &t->channels[t->channel_count++];
    *ch = (mr_morph_channel){.mesh = mesh, .target_count = target_count, .key_count = key_count,
                             .interp = interp, .times = times, .values = values};
    *tracks = t;
    return ch;
}

void mr_morph_tracks_destroy(mr_morph_tracks *t)
{
    if (!t) return;
    for (int c = 0; c < t->channel_count; c++) {
        free(t->channels[c].times);
        free(t->channels[c].values);
    }
    free(t->channels);
    free(t);
}

const mr_morph_channel *mr_morph_tracks_find(const mr_morph_tracks *t, int mesh)
{
    for (int c = 0; t && c < t->channel_count; c++)
        if (t->channels[c].mesh == mesh) return &t->channels[c];
    return NULL;
}

void mr_morph_channel_sample(const mr_morph_channel *ch, float time, float *out)
{
    int n = ch->key_count, tc = ch->target_count;
    int cubic = ch->interp == MR_INTERP_CUBIC;
    size_t stride = (size_t)tc * (cubic ? 3 : 1);
    const float *v0 = ch->values + (cubic ? tc : 0);  /* the value of key 0 */
    if (n == 1 || !(time > ch->times[0])) {
        memcpy(out, v0, (size_t)tc * sizeof *out);
        return;
    }
    if (time >= ch->times[n - 1]) {
        memcpy(out, v0 + (size_t)(n - 1) * stride, (size_t)tc * sizeof *out);
        return;
    }
    int lo = 0, hi = n - 1;  /* times[lo] <= time < times[hi] */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (ch->times[mid] <= time) lo = mid;
        else hi = mid;
    }
    const float *a = v0 + (size_t)lo * stride, *b = v0 + (size_t)hi * stride;
    float dt = ch->times[hi] - ch->times[lo];
    float u = dt > 0 ? (time - ch->times[lo]) / dt : 0.0f;
    if (ch->interp == MR_INTERP_STEP) {
        memcpy(out, a, (size_t)tc * sizeof *out);
    } else if (!cubic) {
        for (int k = 0; k < tc; k++) out[k] = a[k] + (b[k] - a[k]) * u;
    } else {
        /* glTF: p(u) = (2u^3-3u^2+1) v_lo + (u^3-2u^2+u) dt b_lo
         *            + (-2u^3+3u^2) v_hi + (u^3-u^2) dt a_hi,
         * b_lo the out-tangent of lo (after its value), a_hi the in-tangent
         * of hi (before its value). */
        float u2 = u * u, u3 = u2 * u;
        float h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
        const float *out_tan = a + tc, *in_tan = b - tc;
        for (int k = 0; k < tc; k++)
            out[k] = h00 * a[k] + h10 * dt * out_tan[k] + h01 * b[k] + h11 * dt * in_tan[k];
    }
}

void mr_morph_sample(const mr_clip *clip, const mr_mesh *mesh, int mesh_index, float time, mr_wrap wrap,
                     float *out)
{
    const mr_morph_set *s = mesh->morph;
    if (!s) return;
    const mr_morph_channel *ch = clip ? mr_morph_tracks_find(clip->morph, mesh_index) : NULL;
    if (!ch || ch->target_count != s->count) {
        memcpy(out, s->weights, (size_t)s->count * sizeof *out);
        return;
    }
    float d = clip->duration, t = time;
    if (!isfinite(t)) t = 0;
    if (wrap == MR_WRAP_LOOP && d > 0) {
        t = fmodf(t, d);
        if (t < 0) t += d;
    }
    mr_morph_channel_sample(ch, t, out);
}

mr_status mr_morph_channel_validate(const mr_morph_channel *ch, mr_error *err)
{
    size_t per = (size_t)ch->target_count * (ch->interp == MR_INTERP_CUBIC ? 3 : 1);
    for (int k = 0; k < ch->key_count; k++) {
        if (!isfinite(ch->times[k]))
            return mr_error_set(err, MR_ERR_BAD_FILE, "morph channel of mesh %d: key %d time is not finite",
                                ch->mesh, k);
        if (k > 0 && ch->times[k] < ch->times[k - 1])
            return mr_error_set(err, MR_ERR_BAD_FILE,
                                "morph channel of mesh %d: key %d time %g is before key %d's %g (expected ascending)",
                                ch->mesh, k, ch->times[k], k - 1, ch->times[k - 1]);
        for (size_t e = 0; e < per; e++)
            if (!isfinite(ch->values[(size_t)k * per + e]))
                return mr_error_set(err, MR_ERR_BAD_FILE,
                                    "morph channel of mesh %d: key %d weight %zu is not a finite number", ch->mesh,
                                    k, e);
    }
    return MR_OK;
}
