/* test_clip_optimize.c — optimised clips: per-track key reduction and
 * quantised keys (anim/clip_pack.h, built by mr_clip_optimize).
 *
 * The bound: every shared model clip, optimised, sampled at 241 times
 * through the public sampler, stays within the tolerance (a fraction of the
 * model size) of the exact curves of its SOURCE keys (each track through
 * mr_track_sample: lerp and slerp), measured on the skinned vertices, the
 * joint origins in model space and the virtual points along each joint's
 * axes (mr_clip_runtime_error, as ACL and ozz measure). test_slerp_fidelity.c
 * checks the same clips against references that read the files themselves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "test_files.h"

#include "anim/clip_measure.h"
#include "anim/clip_pack.h"
#include "anim/clip_pack_read.h"
#include "anim/clip_runtime.h"
#include "anim/model.h"
#include "core/alloc.h"
#include "core/path.h"
#include "core/str.h"
#include "formats/bvh.h"
#include "formats/collada.h"
#include "formats/load.h"

#if defined(__SANITIZE_ADDRESS__)
#define STEPS 40
#else
#define STEPS 240
#endif

/* The exact pose: every source track sampled on its own curve. */
static void exact_pose(const mr_clip *c, const mr_skeleton *sk, float t, mr_pose *p)
{
    t = mr_clip_wrap_time(c, t, MR_WRAP_CLAMP);
    mr_pose_set_rest(p, sk);
    for (int j = 0; j < sk->joint_count; j++) {
        const mr_joint_tracks *jt = &c->tracks[j];
        if (jt->t.key_count) mr_track_sample(&jt->t, t, p->t[j]);
        if (jt->r.key_count) mr_track_sample(&jt->r, t, p->r[j]);
        if (jt->s.key_count) mr_track_sample(&jt->s, t, p->s[j]);
    }
}

/* Joint origins then skinned vertices of pose p (count points). */
static vec3 *points(const mr_model *m, const mr_pose *p, int *count)
{
    const mr_skeleton *sk = &m->skeleton;
    int n = sk->joint_count, total = n;
    for (int i = 0; i < m->mesh_count; i++) total += m->meshes[i].vertex_count;
    mat4 *model = mr_alloc_array((size_t)n + 1, sizeof *model), *skin = mr_alloc_array((size_t)n + 1, sizeof *skin);
    vec3 *out = mr_alloc_array((size_t)total + 1, sizeof *out);
    CHECK(mr_pose_to_model(sk, p, model) == MR_OK);
    CHECK(mr_pose_skinning(sk, model, skin) == MR_OK);
    for (int j = 0; j < n; j++) glm_vec3_copy(model[j][3], out[j]);
    int at = n;
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_mesh *me = &m->meshes[i];
        vec3 *nrm = mr_alloc_array((size_t)me->vertex_count + 1, sizeof *nrm);
        mr_mesh_skin(me, skin, out + at, nrm);
        at += me->vertex_count;
        free(nrm);
    }
    free(model);
    free(skin);
    *count = total;
    return out;
}

/* Keys the packs of m's clips dropped from their candidates. */
static long dropped_keys(const mr_model *m)
{
    long n = 0;
    for (int c = 0; c < m->clip_count; c++) {
        const mr_clip_runtime *rt = m->clips[c]->runtime;
        if (rt && rt->pack) n += rt->pack->source_keys - rt->pack->keys;
    }
    return n;
}

/* Keys the sampler reads for joint's channel: the pack's, else the track's. */
static int played_keys(const mr_clip *c, int joint, int channel)
{
    if (c->runtime && c->runtime->pack) return mr_clip_pack_track_keys(c->runtime->pack, joint, channel);
    return mr_clip_track(c, joint, channel)->key_count;
}

static double model_size(const mr_model *m)
{
    vec3 lo, hi;
    return mr_model_bounds(m, lo, hi) ? glm_vec3_distance(lo, hi) : 0.0;
}

/* Worst distance over the model's clips from the exact curves, as a fraction
 * of the model size; adds the clips' sampled and source key counts. */
static double worst_error(const mr_model *m, long *sampled, long *source)
{
    *sampled = *source = 0;
    const mr_skeleton *sk = &m->skeleton;
    double size = model_size(m), worst = 0;
    mr_pose a, b;
    mr_pose_init(&a, sk->joint_count);
    mr_pose_init(&b, sk->joint_count);
    for (int c = 0; c < m->clip_count; c++) {
        const mr_clip *clip = m->clips[c];
        for (int j = 0; j < clip->joint_count; j++)
            for (int k = 0; k < 3; k++) {
                const mr_track *src = k == 0 ? &clip->tracks[j].t : k == 1 ? &clip->tracks[j].r : &clip->tracks[j].s;
                *source += src->key_count;
                *sampled += played_keys(clip, j, k);
            }
        for (int s = 0; s <= STEPS; s++) {
            float t = clip->duration * (float)s / STEPS;
            CHECK(mr_clip_sample(clip, sk, t, MR_WRAP_CLAMP, &a) == MR_OK);
            exact_pose(clip, sk, t, &b);
            int na = 0, nb = 0;
            vec3 *pa = points(m, &a, &na), *pb = points(m, &b, &nb);
            for (int i = 0; i < na && na == nb; i++) {
                double e = glm_vec3_distance(pa[i], pb[i]) / size;
                if (e > worst) worst = e;
            }
            free(pa);
            free(pb);
        }
    }
    mr_pose_deinit(&a);
    mr_pose_deinit(&b);
    return worst;
}

/* Optimises every clip of m at tolerance, checks the bound; adds to the totals. */
/* Keys of pack's tracks that decode_run (a cursor's run of keys decoded
 * ahead, from each key in turn, in runs of 1 to 9) gives other bits for
 * than decode_key_from: 0 expected, the sign of a zero included. */
static long run_mismatches(const mr_clip_pack *pack)
{
    const uint8_t *base = (const uint8_t *)pack, *rec = base + pack->tracks;
    long bad = 0;
    for (int i = 0; i < pack->joint_count * 3; i++) {
        if (!has_track(base + pack->present, i)) continue;
        track_view tv = view_of(rec, pack->point_bytes);
        rec += tv.size;
        for (int k = 0; k < tv.count; k++) {
            float run[9][4], one[4];
            int n = tv.count - k < 1 + k % 9 ? tv.count - k : 1 + k % 9;
            seg_pos pos = SEG_POS_START;
            decode_run(&tv, k, n, &pos, run[0]);
            for (int r = 0; r < n; r++) {
                decode_key(&tv, k + r, one);
                bad += memcmp(run[r], one, i % 3 == 1 ? 16 : 12) != 0;   /* rotations: 4 floats */
            }
        }
    }
    return bad;
}

static void check_model(mr_model *m, const char *label, float tolerance, long *dropped_all, double *overall,
                        size_t *bytes_all, size_t *before_all)
{
    int packed = 1;
    double size = model_size(m), points = 0;
    size_t bytes = 0, before = 0;
    for (int c = 0; c < m->clip_count; c++) {
        mr_clip *clip = m->clips[c];
        before += mr_clip_runtime_bytes(clip);
        CHECK(mr_clip_optimize(clip, tolerance) == MR_OK);
        int cubic = 0;
        for (int j = 0; j < clip->joint_count; j++)
            for (int k = 0; k < 3; k++) cubic |= mr_clip_track(clip, j, k)->interp == MR_INTERP_CUBIC;
        packed &= cubic || clip->runtime->pack != NULL;   /* curves are not packed */
        if (clip->runtime->pack) {
            long bad = run_mismatches(clip->runtime->pack);
            CHECK_MSG(bad == 0, "%s clip %d: %ld keys decoded in runs differ from one by one", label, c, bad);
        }
        bytes += mr_clip_runtime_bytes(clip);
        double e = 0;
        CHECK(mr_clip_runtime_error(clip, &m->skeleton, (float)(MR_CLIP_POINT_DISTANCE * size), STEPS + 1, &e) ==
              MR_OK);
        points = fmax(points, e / size);
    }
    long sampled, source;
    double e = worst_error(m, &sampled, &source);
    if (strlen(label) > 50) label += strlen(label) - 50;
    printf("       %-50s %.6f%% (points %.6f%%), keys %ld -> %ld, bytes %zu -> %zu%s\n", label, e * 100,
           points * 100, source, sampled, before, bytes, packed ? "" : " NOT PACKED");
    double limit = tolerance > 0 ? tolerance : MR_CLIP_FIDELITY;
    CHECK_MSG(e <= limit, "%s: %.5f%% of the size from the exact curves", label, e * 100);
    CHECK_MSG(points <= limit, "%s: virtual points %.5f%% of the size from the exact curves", label, points * 100);
    CHECK_MSG(packed, "%s: a clip of linear keys was not packed", label);
    *bytes_all += bytes;
    *before_all += before;
    *dropped_all += dropped_keys(m);
    *overall = fmax(*overall, fmax(e, points));
}

static void sweep(float tolerance, long *dropped_all)
{
    static const char *const snout[] = {"pain", "forward", "dying", "backward", "shotgun_shoot", "jump", "idle"};
    char **files = NULL;
    int n = 0, checked = 0;
    double overall = 0;
    size_t bytes = 0, before = 0;
    printf("       tolerance %g of the model size\n", tolerance);
    /* MD5: Bob and every snoutx10k clip. */
    for (int s = -1; s < 7; s++) {
        char mesh[512], anim[512];
        if (s < 0) {
            snprintf(mesh, sizeof mesh, "%sassimp/test/models-nonbsd/MD5/Bob.md5mesh", SHARED_MODELS);
            snprintf(anim, sizeof anim, "%sassimp/test/models-nonbsd/MD5/Bob.md5anim", SHARED_MODELS);
        } else {
            snprintf(mesh, sizeof mesh, "%stomatenquark-essential/packages/models/snoutx10k/snoutx10k.md5mesh",
                     SHARED_MODELS);
            snprintf(anim, sizeof anim, "%stomatenquark-essential/packages/models/snoutx10k/%s.md5anim",
                     SHARED_MODELS, snout[s]);
        }
        const char *anims[1] = {anim};
        mr_model *m = NULL;
        mr_error err = {0};
        CHECK_MSG(mr_load_model(mesh, anims, 1, &m, &err) == MR_OK, "%s: %s", anim, err.msg);
        if (!m) continue;
        check_model(m, mr_path_basename(anim), tolerance, dropped_all, &overall, &bytes, &before);
        checked++;
        mr_model_destroy(m);
    }
    /* COLLADA: every animated .dae of the shared models. */
    test_find_dae(SHARED_MODELS, &files, &n);
    qsort(files, (size_t)n, sizeof *files, test_cmp_str);
    for (int i = 0; i < n; i++) {
        mr_model *m = NULL;
        mr_error err = {0};
        if (mr_collada_load(files[i], &m, &err) == MR_OK && m->clip_count > 0 && model_size(m) > 0) {
            check_model(m, files[i] + strlen(SHARED_MODELS), tolerance, dropped_all, &overall, &bytes, &before);
            checked++;
        }
        mr_model_destroy(m);
        free(files[i]);
    }
    free(files);
    printf("       %d files, worst %.6f%% of the size, %ld keys dropped, %zu bytes -> %zu (%.1f:1)\n", checked,
           overall * 100, *dropped_all, before, bytes, (double)before / (double)bytes);
    CHECK(checked >= 20);
    /* a loaded clip's runtime is already the pack at the default tolerance
     * (mr_model_add_clip): optimising at it changes nothing; a looser one
     * shrinks the clips */
    if (tolerance > 0) CHECK_MSG(bytes < before, "%zu bytes optimised, %zu before", bytes, before);
    else CHECK_MSG(bytes == before, "%zu bytes optimised, %zu by default", bytes, before);
}

TEST(clip_optimize_every_shared_clip_stays_within_tolerance_and_drops_keys)
{
    long dropped_default = 0, dropped_loose = 0;
    sweep(0.0f, &dropped_default);
    sweep(1e-3f, &dropped_loose);
    CHECK(dropped_default > 0);
    CHECK(dropped_loose > dropped_default);
}

/* ---- synthetic: keys that matter and keys that do not ----------------------------- */

/* A model of three joints in a chain, root -> mid -> tip, each child one
 * unit along x from its parent, no mesh. */
static mr_model *chain_model(const char *name)
{
    mr_model *m = NULL;
    mr_model_create(name, "test", &m);
    mr_skeleton_init(&m->skeleton, 3);
    mr_skeleton *sk = &m->skeleton;
    sk->names[0] = mr_str_dup("root");
    sk->names[1] = mr_str_dup("mid");
    sk->names[2] = mr_str_dup("tip");
    sk->parents[1] = 0;
    sk->parents[2] = 1;
    sk->rest_t[1][0] = sk->rest_t[2][0] = 1.0f;
    mr_skeleton_compute_inverse_bind(sk);
    return m;
}

/* A three-joint arm (root, mid 1 unit along x, tip 1 further) with a 9-key
 * clip: the root's rotation zig-zags +-20 degrees about z every key (each
 * key matters), its translation moves along a straight line (only the ends
 * matter), and mid's rotation is flat but for one 0.5 degree bump at key 4.
 * shift: the translation keys' times move off the shared time line. */
static mr_model *arm_model(float shift, mr_clip **out)
{
    mr_model *m = chain_model("arm");
    mr_clip *c = NULL;
    mr_clip_create("zigzag", 3, &c);
    c->duration = 1.0f;
    mr_track *r = &c->tracks[0].r, *t = &c->tracks[0].t, *mid = &c->tracks[1].r;
    mr_track_init(r, 9, MR_INTERP_LINEAR);
    mr_track_init(t, 9, MR_INTERP_LINEAR);
    mr_track_init(mid, 9, MR_INTERP_LINEAR);
    for (int i = 0; i < 9; i++) {
        r->times[i] = mid->times[i] = i / 8.0f;
        t->times[i] = i / 8.0f + (i > 0 && i < 8 ? shift : 0.0f);
        glm_quatv(r->values + 4 * i, glm_rad(i % 2 ? 20.0f : -20.0f), (vec3){0, 0, 1});
        t->values[3 * i] = 2.0f * t->times[i];
        t->values[3 * i + 1] = -1.0f * t->times[i];
        glm_quatv(mid->values + 4 * i, glm_rad(i == 4 ? 0.5f : 0.0f), (vec3){0, 1, 0});
    }
    CHECK(mr_model_add_clip(m, c) == MR_OK);
    CHECK(c->runtime && !c->runtime->pack);   /* opt-in: loading packs nothing */
    CHECK(mr_clip_optimize(c, 0.0f) == MR_OK);
    *out = c;
    return m;
}

TEST(clip_pack_keeps_keys_that_matter_and_drops_the_rest)
{
    /* shift 0: one time line shared by all tracks; 0.01: separate ones.
     * Either way each track is reduced on its own. */
    for (int pass = 0; pass < 2; pass++) {
        mr_clip *c;
        mr_model *m = arm_model(pass ? 0.01f : 0.0f, &c);
        CHECK(c->runtime->pack != NULL);
        /* every zig-zag key matters (the slerp refinement adds more) */
        CHECK_MSG(played_keys(c, 0, 1) >= 9, "pass %d: zig-zag keeps %d of 9", pass, played_keys(c, 0, 1));
        CHECK_MSG(played_keys(c, 0, 0) == 2, "pass %d: straight line keeps %d", pass, played_keys(c, 0, 0));
        CHECK_MSG(played_keys(c, 1, 1) == 5, "pass %d: bump keeps %d", pass, played_keys(c, 1, 1));
        CHECK(played_keys(c, 2, 1) == 0);                /* no track: the rest pose */
        CHECK(mr_clip_key_count(c) == 9);                /* the source keys stay */
        long sampled = 0, source = 0;
        double e = worst_error(m, &sampled, &source);
        CHECK_MSG(e <= MR_CLIP_FIDELITY, "pass %d: %.3g of the size", pass, e);
        CHECK(source == 27 && sampled == played_keys(c, 0, 1) + 2 + 5);
        mr_model_destroy(m);
    }
}

/* Mocap-like keys: 61 per track at 30 per second, zig-zagging 2 degrees
 * either way with a jitter (every key matters: the root's track is
 * uniform); the root also turns 2 degrees a key (120 over the clip, a few
 * in a segment); mid and tip turn 150 degrees
 * within one interval each, at different times, so the refinement adds
 * keys to each between its own two source keys (neither track is uniform
 * then, nor on consecutive points of the two together: a bitmap). */
static mr_model *mocap_model(mr_clip **out)
{
    mr_model *m = chain_model("mocap");
    mr_clip *c = NULL;
    mr_clip_create("mocap", 3, &c);
    c->duration = 2.0f;
    unsigned seed = 7;
    for (int j = 0; j < 3; j++) {
        mr_track *r = &c->tracks[j].r;
        mr_track_init(r, 61, MR_INTERP_LINEAR);
        for (int i = 0; i < 61; i++) {
            seed = seed * 1103515245u + 12345u;
            float jitter = (i % 2 ? 2.0f : -2.0f) + (float)(seed >> 16 & 0x7fff) / 32767.0f - 0.5f;
            float turn = j == 0 ? 2.0f * (float)i : i >= (j == 1 ? 20 : 40) ? 150.0f : 0.0f;
            r->times[i] = (float)((double)i / 30.0);
            glm_quatv(r->values + 4 * i, glm_rad(jitter + turn), j == 1 ? (vec3){0, 1, 0} : (vec3){0, 0, 1});
        }
    }
    CHECK(mr_model_add_clip(m, c) == MR_OK);
    CHECK(mr_clip_optimize(c, 0.0f) == MR_OK);
    *out = c;
    return m;
}

/* Joint's rotation record in pack (count 0: none). */
static track_view rotation_record(const mr_clip_pack *pack, int joint)
{
    const uint8_t *base = (const uint8_t *)pack, *rec = base + pack->tracks;
    for (int i = 0; i < pack->joint_count * 3; i++) {
        if (!has_track(base + pack->present, i)) continue;
        track_view tv = view_of(rec, pack->point_bytes);
        if (i == joint * 3 + 1) return tv;
        rec += tv.size;
    }
    return (track_view){0};
}

static int rotation_code(const mr_clip_pack *pack, int joint)
{
    return rotation_record(pack, joint).code;
}

TEST(clip_pack_gives_key_times_without_points_and_segments_its_keys)
{
    mr_clip *c;
    mr_model *m = mocap_model(&c);
    const mr_clip_pack *pack = c->runtime->pack;
    CHECK(pack != NULL);
    if (!pack) {
        mr_model_destroy(m);
        return;
    }
    CHECK_MSG(rotation_code(pack, 0) & PACK_UNIFORM, "root code %#x", rotation_code(pack, 0));
    CHECK_MSG(played_keys(c, 0, 1) == 61, "root keeps %d", played_keys(c, 0, 1));
    /* in 4 segments of their own ranges and widths (61 keys: the last has 13) */
    track_view root = rotation_record(pack, 0);
    CHECK_MSG(root.bits == 0 && root.seg_bits, "root bits %d", root.bits);
    for (int sg = 0; root.seg_bits && sg < 4; sg++) {   /* a width per component: the turn's widest */
        int w[4], widest = 0;
        CHECK_MSG((root.seg_bits[sg] & SEG_WIDTH_MASK) <= 24, "segment %d: %d bits", sg, root.seg_bits[sg] & 31);
        segment_key_bits(&root, sg, w);
        for (int e = 0; e < root.comps; e++) {
            CHECK_MSG(w[e] <= 24, "segment %d component %d: %d bits", sg, e, w[e]);
            if (w[e] > widest) widest = w[e];
        }
        CHECK_MSG(widest >= 1, "segment %d: %d bits", sg, widest);
        /* a turn about z: x and y never move, and cost no bits */
        CHECK_MSG(w[0] == 0 && w[1] == 0, "segment %d: x %d y %d bits", sg, w[0], w[1]);
    }
    for (int j = 1; j < 3; j++) {
        CHECK_MSG(rotation_code(pack, j) & PACK_BITMAP, "joint %d code %#x", j, rotation_code(pack, j));
        CHECK_MSG(played_keys(c, j, 1) > 61, "joint %d keeps %d: refined keys too", j, played_keys(c, j, 1));
    }
    CHECK_MSG(run_mismatches(pack) == 0, "%ld keys decoded in runs differ", run_mismatches(pack));
    /* the uniform root's keys are not among the points: only mid's and tip's */
    CHECK_MSG(pack->point_count < 61 + 61, "%d points", pack->point_count);
    long sampled = 0, source = 0;
    double e = worst_error(m, &sampled, &source);
    CHECK_MSG(e <= MR_CLIP_FIDELITY, "%.3g of the size", e);
    /* a cursor plays what the search finds, forward, backward and jumping */
    mr_clip_cursor *cur = mr_clip_cursor_create(0);
    mr_pose a, b;
    mr_pose_init(&a, 3);
    mr_pose_init(&b, 3);
    int differ = 0;
    for (int i = 0; i < 900; i++) {
        float t = i < 300 ? i / 150.0f : i < 600 ? (600 - i) / 150.0f : (float)((i * 7919) % 2000) / 1000.0f;
        CHECK(mr_clip_sample_with(c, &m->skeleton, t, MR_WRAP_CLAMP, &a, cur) == MR_OK);
        CHECK(mr_clip_sample(c, &m->skeleton, t, MR_WRAP_CLAMP, &b) == MR_OK);
        for (int j = 0; j < 3; j++)
            for (int e4 = 0; e4 < 4; e4++) differ += a.r[j][e4] != b.r[j][e4];
    }
    CHECK_MSG(differ == 0, "%d components differ", differ);
    mr_clip_cursor_destroy(cur);
    mr_pose_deinit(&a);
    mr_pose_deinit(&b);
    mr_model_destroy(m);
}

/* A pack read from outside (the cache) is checked before it is sampled:
 * every byte flipped in turn gives a block that is refused or samples
 * within the skeleton's joints (ASan watches the reads). */
/* A root that spins a full turn about a slanted axis (every component of
 * its rotation passes zero over the clip, so no one component can be
 * rebuilt for the whole track), 601 jittered keys at 60 a second (38
 * segments: two skips), its children still: the rotation's segments each
 * rebuild their own. */
static mr_model *spin_model(mr_clip **out)
{
    mr_model *m = chain_model("spin");
    mr_clip *c = NULL;
    mr_clip_create("spin", 3, &c);
    c->duration = 10.0f;
    unsigned seed = 11;
    mr_track *r = &c->tracks[0].r;
    mr_track_init(r, 601, MR_INTERP_LINEAR);
    vec3 axis = {1.0f, 1.0f, 1.0f};
    glm_vec3_normalize(axis);
    for (int i = 0; i < 601; i++) {
        seed = seed * 1103515245u + 12345u;
        float jitter = (float)(seed >> 16 & 0x7fff) / 32767.0f - 0.5f;
        r->times[i] = (float)((double)i / 60.0);
        glm_quatv(r->values + 4 * i, glm_rad(1.5f * (float)i + jitter), axis);
    }
    CHECK(mr_model_add_clip(m, c) == MR_OK);
    CHECK(mr_clip_optimize(c, 0.0f) == MR_OK);
    *out = c;
    return m;
}

TEST(clip_pack_rebuilds_a_component_per_segment_where_none_does_for_the_track)
{
    mr_clip *c;
    mr_model *m = spin_model(&c);
    const mr_clip_pack *pack = c->runtime->pack;
    CHECK(pack != NULL);
    if (!pack) {
        mr_model_destroy(m);
        return;
    }
    track_view root = rotation_record(pack, 0);
    CHECK_MSG((root.code & PACK_REBUILT) == PACK_EACH, "root code %#x", root.code);
    CHECK_MSG(root.bits == 0 && root.comps == 3 && root.seg_rebuilt, "root bits %d, %d components", root.bits,
              root.comps);
    int used = 0;
    for (int sg = 0; root.seg_rebuilt && sg < segment_count(root.count); sg++) {
        CHECK_MSG(root.seg_rebuilt[sg] <= 3, "segment %d rebuilds %d", sg, root.seg_rebuilt[sg]);
        used |= 1 << (root.seg_rebuilt[sg] & 3);
    }
    CHECK_MSG(used & (used - 1), "one component rebuilt in every segment (%#x)", used);   /* two or more */
    CHECK_MSG(run_mismatches(pack) == 0, "%ld keys decoded in runs differ", run_mismatches(pack));
    long sampled = 0, source = 0;
    double e = worst_error(m, &sampled, &source);
    CHECK_MSG(e <= MR_CLIP_FIDELITY, "%.3g of the size", e);
    /* a cursor plays the same keys as the search (which starts from the
     * skip before each key's segment), forward and jumping back */
    CHECK_MSG(skip_count(root.count) == 2, "%zu skips", skip_count(root.count));
    mr_clip_cursor *cur = mr_clip_cursor_create(0);
    mr_pose a, b;
    mr_pose_init(&a, 3);
    mr_pose_init(&b, 3);
    for (int s = 0; s <= 1200; s++) {
        float t = 10.0f * (float)(s < 1000 ? s : (s * 7919) % 1000) / 1000;
        mr_clip_pack_sample(pack, &m->skeleton, t, &a);
        CHECK(mr_clip_cursor_sample(cur, pack, c->runtime->serial, &m->skeleton, t, &b));
        float d = 0;
        for (int k = 0; k < 4; k++) d = fmaxf(d, fabsf(a.r[0][k] - b.r[0][k]));
        if (d > 1e-6f) {
            CHECK_MSG(0, "t %g: search and cursor %g apart", t, d);
            break;
        }
    }
    /* a segment naming a component past w is refused */
    size_t n = pack->bytes;
    uint8_t *copy = malloc(n);
    if (copy && root.seg_rebuilt) {
        memcpy(copy, pack, n);
        CHECK(mr_clip_pack_valid(copy, n, 3));
        copy[root.seg_rebuilt - (const uint8_t *)pack] = 4;
        CHECK(!mr_clip_pack_valid(copy, n, 3));
        memcpy(copy, pack, n);   /* a skip one bit off */
        copy[root.skips + 4 - (const uint8_t *)pack] ^= 1;
        CHECK(!mr_clip_pack_valid(copy, n, 3));
    }
    free(copy);
    mr_pose_deinit(&a);
    mr_pose_deinit(&b);
    mr_clip_cursor_destroy(cur);
    mr_model_destroy(m);
}

TEST(clip_pack_valid_refuses_corrupt_blocks)
{
    for (int which = 0; which < 3; which++) {   /* point indices; uniform and bitmap tracks; PACK_EACH */
    mr_clip *c;
    mr_model *m = which == 2 ? spin_model(&c) : which ? mocap_model(&c) : arm_model(0.01f, &c);
    const mr_clip_pack *pack = c->runtime->pack;
    CHECK(pack && mr_clip_pack_valid(pack, pack->bytes, 3));
    CHECK(!mr_clip_pack_valid(pack, pack->bytes - 4, 3));
    CHECK(!mr_clip_pack_valid(pack, pack->bytes, 4));
    CHECK(!mr_clip_pack_valid(NULL, 0, 3));
    size_t n = pack->bytes;
    uint32_t *copy = malloc(n);
    mr_pose p;
    mr_pose_init(&p, 3);
    int refused = 0;
    for (size_t i = 0; copy && i < n; i++)
        for (int bit = 0; bit < 8; bit += 3) {
            memcpy(copy, pack, n);
            ((uint8_t *)copy)[i] ^= (uint8_t)(1u << bit);
            if (!mr_clip_pack_valid(copy, n, 3)) {
                refused++;
                continue;
            }
            mr_clip_pack_sample((const mr_clip_pack *)copy, &m->skeleton, 0.3f, &p);
        }
    CHECK(refused > 0);
    free(copy);
    mr_pose_deinit(&p);
    mr_model_destroy(m);
    }
}

TEST(clip_settings_refuse_negative_and_nan)
{
    mr_clip *c = NULL;
    mr_clip_create("c", 2, &c);
    float bad[2] = {0.1f, -1.0f}, nan2[2] = {NAN, 0.1f}, good[2] = {0.0f, 0.5f};
    CHECK(mr_clip_set_max_move(c, bad) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_set_max_move(c, nan2) == MR_ERR_INVALID_ARGUMENT);
    CHECK(!c->runtime || c->runtime->max_move == NULL);
    CHECK(mr_clip_set_max_move(c, good) == MR_OK);
    CHECK(c->runtime && c->runtime->max_move && c->runtime->max_move[1] == 0.5f);
    CHECK(mr_clip_set_max_move(NULL, good) == MR_ERR_INVALID_ARGUMENT);
    /* the point reach takes the same values; the slerp budget none at 0 */
    CHECK(mr_clip_set_point_reach(c, bad) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_set_point_reach(c, nan2) == MR_ERR_INVALID_ARGUMENT);
    CHECK(c->runtime && c->runtime->point_reach == NULL);
    CHECK(mr_clip_set_point_reach(c, good) == MR_OK);
    CHECK(c->runtime && c->runtime->point_reach && c->runtime->point_reach[1] == 0.5f);
    CHECK(mr_clip_set_point_reach(c, NULL) == MR_OK);
    CHECK(c->runtime && c->runtime->point_reach == NULL);
    CHECK(mr_clip_set_max_angle(c, good) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_optimize(c, -1.0f) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_optimize(c, NAN) == MR_ERR_INVALID_ARGUMENT);
    CHECK(mr_clip_optimize(c, INFINITY) == MR_ERR_INVALID_ARGUMENT);
    CHECK(c->runtime && c->runtime->thin_tolerance == 0.0f);
    mr_clip_destroy(c);
}

/* ---- the measured budget (clip_measure.h) -------------------------------------------- */

/* CMU mocap (assimp-testmodels) as loaded, packed at the default
 * tolerance: within 1e-4 of the size of its source keys at 8 times a
 * frame (every quarter point the measure judges and the eighths between
 * them), the pack's own measure within the tolerance, and smaller than the
 * proven budget made it (12.3:1 and 11.3:1 against raw poses). */
TEST(clip_measure_spends_the_tolerance_on_cmu_takes)
{
    static const char *const takes[] = {"01_01", "01_03"};
    static const double at_least[] = {17.5, 16.0};   /* issue 46: 16:1 (ACL 2.1: 15.5:1 and 15.2:1) */
    for (int i = 0; i < 2; i++) {
        char path[256];
        snprintf(path, sizeof path, "/usr/share/assimp/models/BVH/%s.bvh", takes[i]);
        mr_model *m = NULL;
        mr_error err = {0};
        CHECK_MSG(mr_bvh_load(path, &m, &err) == MR_OK, "%s: %s", path, err.msg);
        if (!m) continue;
        mr_clip *c = m->clips[0];
        mr_clip_settle(c);
        CHECK(c->runtime && c->runtime->pack);
        if (!c->runtime || !c->runtime->pack) {
            mr_model_destroy(m);
            continue;
        }
        double size = model_size(m), e = 1.0, measured = 2.0;
        int keys = mr_clip_key_count(c);
#if defined(__SANITIZE_ADDRESS__)
        int samples = keys + 1;
#else
        int samples = 8 * (keys - 1) + 1;
#endif
        CHECK(mr_clip_runtime_error(c, &m->skeleton, (float)(MR_CLIP_POINT_DISTANCE * size), samples, &e) ==
              MR_OK);
        CHECK(mr_clip_measure_error(c, c->runtime, c->runtime->pack, &measured) == MR_OK);
        double ratio = (double)keys * c->joint_count * 10 * sizeof(float) / c->runtime->pack->bytes;
        printf("       %s: %u bytes, %.2f:1 against raw poses, error %.3g of the size at %d times, measure %.3f\n",
               takes[i], c->runtime->pack->bytes, ratio, e / size, samples, measured);
        CHECK_MSG(e <= MR_CLIP_FIDELITY * size, "%s: %.3g of the size", takes[i], e / size);
        CHECK_MSG(measured <= 1.0, "%s: measure %.3f", takes[i], measured);
        CHECK_MSG(ratio >= at_least[i], "%s: %.2f:1", takes[i], ratio);
        mr_model_destroy(m);
    }
    /* without a model's budgets there is nothing to measure against */
    mr_clip *bare = NULL;
    mr_clip_create("bare", 2, &bare);
    double w = 0;
    mr_clip_pack fake = {0};
    fake.joint_count = 2;
    CHECK(mr_clip_measure_error(bare, mr_clip_runtime_of(bare), &fake, &w) == MR_ERR_INVALID_ARGUMENT);
    mr_clip_destroy(bare);
}

/* The builder packs again only the joints it is asked to, and the same
 * factors give the same bytes: nothing asked gives the last pack again,
 * factors of 1 the pack with no scale, factors of 4 a smaller one. */
TEST(clip_pack_builder_repacks_only_the_joints_asked)
{
    char mesh[512], anim[512];
    snprintf(mesh, sizeof mesh, "%sassimp/test/models-nonbsd/MD5/Bob.md5mesh", SHARED_MODELS);
    snprintf(anim, sizeof anim, "%sassimp/test/models-nonbsd/MD5/Bob.md5anim", SHARED_MODELS);
    const char *anims[1] = {anim};
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK_MSG(mr_load_model(mesh, anims, 1, &m, &err) == MR_OK, "%s", err.msg);
    if (!m) return;
    mr_clip *c = m->clips[0];
    mr_clip_settle(c);
    CHECK(mr_clip_source(c, NULL) == MR_OK);
    int n = c->joint_count, windows = 3;
    float *g = malloc((size_t)n * windows * sizeof *g);
    unsigned char *changed = calloc((size_t)n, 1);
    mr_clip_pack_builder *b = mr_clip_pack_builder_create(c, c->runtime);
    CHECK(b && g && changed);
    if (!b || !g || !changed) {
        free(g);
        free(changed);
        mr_model_destroy(m);
        return;
    }
    mr_clip_pack_scale scale = {windows, 0.0f, c->duration / windows, g};
    mr_clip_pack *first = mr_clip_pack_builder_run(b, NULL, NULL);
    mr_clip_pack *again = mr_clip_pack_builder_run(b, NULL, changed);   /* nothing asked */
    CHECK(first && again && first->bytes == again->bytes && !memcmp(first, again, first->bytes));
    for (int i = 0; i < n * windows; i++) g[i] = 1.0f;
    memset(changed, 1, (size_t)n);
    mr_clip_pack *ones = mr_clip_pack_builder_run(b, &scale, changed);
    CHECK(first && ones && first->bytes == ones->bytes && !memcmp(first, ones, first->bytes));
    for (int i = 0; i < n * windows; i++) g[i] = 4.0f;
    mr_clip_pack *loose = mr_clip_pack_builder_run(b, &scale, changed);
    CHECK(first && loose && loose->bytes < first->bytes);
    /* back to 1 for half the joints: those repack as they were, the others keep
     * their loose packing (between the two) */
    memset(changed, 0, (size_t)n);
    for (int j = 0; j < n / 2; j++) {
        changed[j] = 1;
        for (int w = 0; w < windows; w++) g[j * windows + w] = 1.0f;
    }
    mr_clip_pack *half = mr_clip_pack_builder_run(b, &scale, changed);
    CHECK(first && loose && half && half->bytes > loose->bytes && half->bytes < first->bytes);
    printf("       Bob: %u bytes, %u with every budget 4x, %u with half the joints back\n", first ? first->bytes : 0,
           loose ? loose->bytes : 0, half ? half->bytes : 0);
    CHECK(mr_clip_pack_valid(half, half ? half->bytes : 0, n));
    free(first);
    free(again);
    free(ones);
    free(loose);
    free(half);
    free(g);
    free(changed);
    mr_clip_pack_builder_destroy(b);
    mr_model_destroy(m);
}

int main(void)
{
    RUN(clip_settings_refuse_negative_and_nan);
    RUN(clip_pack_keeps_keys_that_matter_and_drops_the_rest);
    RUN(clip_pack_gives_key_times_without_points_and_segments_its_keys);
    RUN(clip_pack_rebuilds_a_component_per_segment_where_none_does_for_the_track);
    RUN(clip_pack_valid_refuses_corrupt_blocks);
    RUN(clip_optimize_every_shared_clip_stays_within_tolerance_and_drops_keys);
    RUN(clip_pack_builder_repacks_only_the_joints_asked);
    RUN(clip_measure_spends_the_tolerance_on_cmu_takes);
    return test_summary("clip_optimize");
}
