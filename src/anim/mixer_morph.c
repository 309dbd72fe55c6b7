/* mixer_morph.c — the morph weights a mixer plays (mixer.h, mr_mixer_morph):
 * mixing weights over time belongs to the mixer, not to the morph data
 * (anim/morph.h), so that morph.c calls nothing above its floor. */
#include "anim/mixer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "anim/morph.h"
#include "core/alloc.h"

/* The weights of one clip at time t for every mesh (layout of mr_mixer_morph). */
static void clip_weights(const mr_mesh *meshes, int mesh_count, const mr_clip *c, float t, float *out)
{
    for (int i = 0, off = 0; i < mesh_count; i++) {
        const mr_mesh *mesh = &meshes[i];
        if (!mesh->morph) continue;
        mr_morph_sample(c, mesh, i, t, MR_WRAP_CLAMP, out + off);
        off += mesh->morph->count;
    }
}

void mr_mixer_morph(const mr_mixer *mx, const mr_mesh *meshes, int mesh_count, float *out, int count)
{
    int total = 0;
    for (int i = 0; i < mesh_count; i++) total += meshes[i].morph ? meshes[i].morph->count : 0;
    if (count != total || total == 0) return;
    clip_weights(meshes, mesh_count, NULL, 0, out);  /* the defaults */
    float *blend = mr_alloc_array((size_t)total * 2, sizeof *blend), *one = blend + total;
    if (!blend) return;
    enum { MAX_INFO = 16 };
    mr_mixer_clip_info info[MAX_INFO];
    for (int t = 0; t < mr_mixer_track_count(mx); t++) {
        int n = mr_mixer_playing(mx, t, info, MAX_INFO);
        if (n > MAX_INFO) n = MAX_INFO;
        float fill = 0, track_w = 0;
        int any = 0;
        for (int k = 0; k < n; k++) {
            fill += info[k].weight;
            any |= info[k].clip && info[k].clip->morph && info[k].weight > 0;
        }
        if (!any || !(fill > 0) || mr_mixer_weight(mx, t, &track_w) != MR_OK || !(track_w > 0)) continue;
        memset(blend, 0, (size_t)total * sizeof *blend);
        for (int k = 0; k < n; k++) {
            if (!(info[k].weight > 0)) continue;
            if (info[k].clip && info[k].clip->morph) clip_weights(meshes, mesh_count, info[k].clip, info[k].time, one);
            else memcpy(one, out, (size_t)total * sizeof *one);
            for (int e = 0; e < total; e++) blend[e] += info[k].weight / fill * one[e];
        }
        float a = fminf(track_w * fill, 1.0f);
        for (int e = 0; e < total; e++) out[e] += (blend[e] - out[e]) * a;
    }
    free(blend);
}
