/* test_slerp_fidelity.c — the sampler's refined nlerp against slerp of the
 * SOURCE keys (clip.h, "Slerp fidelity").
 *
 * For every animated file in ../shared/models, at 121 times per clip, the
 * posed mesh marrow computes through its public API (mr_clip_sample,
 * mr_pose_to_model, mr_pose_skinning, mr_mesh_skin) is compared with a
 * reference that reads the file itself and slerps its keys in double:
 *   MD5     the .md5anim frames (local joints: lerp position, slerp
 *           orientation, then the MD5 weight formula); this file's own
 *           parser and quaternion code;
 *   COLLADA tests/collada_ref.h (the exact curves: decomposed matrix keys
 *           slerped, every channel as COLLADA defines it).
 * Both references keep the MR_MAX_INFLUENCES heaviest influences,
 * renormalised, so only the animation differs. The bound is
 * MR_CLIP_FIDELITY (1e-4) of the bounding-box diagonal.
 */
#include <dirent.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ref_quat.h"
#include "test.h"
#include "test_files.h"

#include "anim/model.h"
#include "core/alloc.h"
#include "core/file.h"
#include "formats/collada.h"
#include "formats/load.h"

#include "collada_ref.h"
#include "core/path.h"
#include "core/str.h"

#if defined(__SANITIZE_ADDRESS__)
#define STEPS 20
#else
#define STEPS 120
#endif

/* ---- marrow's posed mesh ------------------------------------------------------ */

/* Skinned vertices of every mesh at time t of clip, concatenated in mesh
 * order (count: vertices); corners: the same per triangle corner. */
static vec3 *posed(const mr_model *m, const mr_clip *clip, float t, int corners, int *count)
{
    const mr_skeleton *sk = &m->skeleton;
    mr_pose pose;
    mr_pose_init(&pose, sk->joint_count);
    CHECK(mr_clip_sample(clip, sk, t, MR_WRAP_CLAMP, &pose) == MR_OK);
    mat4 *model = mr_alloc_array((size_t)sk->joint_count + 1, sizeof *model);
    mat4 *skin = mr_alloc_array((size_t)sk->joint_count + 1, sizeof *skin);
    CHECK(mr_pose_to_model(sk, &pose, model) == MR_OK);
    CHECK(mr_pose_skinning(sk, model, skin) == MR_OK);
    int total = 0;
    for (int i = 0; i < m->mesh_count; i++) total += corners ? m->meshes[i].index_count : m->meshes[i].vertex_count;
    vec3 *out = mr_alloc_array((size_t)total + 1, sizeof *out);
    int at = 0;
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_mesh *me = &m->meshes[i];
        vec3 *pos = mr_alloc_array((size_t)me->vertex_count + 1, sizeof *pos);
        vec3 *nrm = mr_alloc_array((size_t)me->vertex_count + 1, sizeof *nrm);
        mr_mesh_skin(me, skin, pos, nrm);
        if (corners)
            for (int k = 0; k < me->index_count; k++) glm_vec3_copy(pos[me->indices[k]], out[at++]);
        else
            for (int v = 0; v < me->vertex_count; v++) glm_vec3_copy(pos[v], out[at++]);
        free(pos);
        free(nrm);
    }
    free(model);
    free(skin);
    mr_pose_deinit(&pose);
    *count = total;
    return out;
}

static double worst_distance(const vec3 *ours, const double (*ref)[3], int n)
{
    double worst = 0;
    for (int i = 0; i < n; i++) {
        double d2 = 0;
        for (int c = 0; c < 3; c++) d2 += (ours[i][c] - ref[i][c]) * (ours[i][c] - ref[i][c]);
        if (d2 > worst) worst = d2;
    }
    return sqrt(worst);
}

static double model_size(const mr_model *m)
{
    vec3 lo, hi;
    return mr_model_bounds(m, lo, hi) ? glm_vec3_distance(lo, hi) : 0.0;
}

/* Keys the refinement added over the model's clips: over all tracks, and
 * rows of shared time lines (what the SIMD bake grows by). */
static int refined_keys(const mr_model *m, int *rows)
{
    int n = 0;
    *rows = 0;
    for (int c = 0; c < m->clip_count; c++) {
        const mr_clip *clip = m->clips[c];
        const mr_clip_runtime *rt = clip->runtime;
        if (!rt) continue;
        n += rt->keys_added;
        if (rt->played && rt->shared_keys > 1) *rows += rt->shared_keys - mr_clip_key_count(clip);
    }
    return n;
}

/* ---- MD5 reference -------------------------------------------------------------- */

typedef struct md5_weight { int joint; double bias, pos[3]; } md5_weight;
typedef struct md5_ref_mesh { int nv, nw; int *start, *count; md5_weight *w; } md5_ref_mesh;
typedef struct md5_ref {
    int nj, nm;
    int *parent;
    md5_ref_mesh *mesh;
    /* anim */
    int frames, comps;
    double rate;
    int *flags, *first;
    double (*base)[6];
    double *vals;
} md5_ref;

/* Next number in text at *p (skips anything that is not one). */
static double num(const char **p)
{
    const char *s = *p;
    while (*s && !strchr("-+0123456789.", *s)) s++;
    char *end = NULL;
    double v = strtod(s, &end);
    *p = s + (end - s);
    return v;
}

static const char *after(const char *s, const char *word)
{
    const char *f = strstr(s, word);
    return f ? f + strlen(word) : NULL;
}

static int md5_read_mesh(const char *path, md5_ref *r)
{
    size_t len;
    mr_error err = {0};
    char *text = mr_file_read(path, &len, &err);
    if (!text) return -1;
    const char *p = after(text, "numJoints");
    r->nj = (int)num(&p);
    p = after(p, "numMeshes");
    r->nm = (int)num(&p);
    r->parent = calloc((size_t)r->nj, sizeof *r->parent);
    r->mesh = calloc((size_t)r->nm, sizeof *r->mesh);
    p = after(p, "joints {");
    for (int j = 0; j < r->nj; j++) {
        p = strchr(strchr(p, '"') + 1, '"') + 1;   /* the name */
        r->parent[j] = (int)num(&p);
        for (int k = 0; k < 6; k++) num(&p);
    }
    for (int m = 0; m < r->nm; m++) {
        md5_ref_mesh *me = &r->mesh[m];
        p = after(p, "mesh {");
        p = after(p, "numverts");
        me->nv = (int)num(&p);
        me->start = calloc((size_t)me->nv + 1, sizeof(int));
        me->count = calloc((size_t)me->nv + 1, sizeof(int));
        for (int v = 0; v < me->nv; v++) {
            p = after(p, "vert");
            int i = (int)num(&p);
            num(&p), num(&p);
            me->start[i] = (int)num(&p);
            me->count[i] = (int)num(&p);
        }
        p = after(p, "numweights");
        me->nw = (int)num(&p);
        me->w = calloc((size_t)me->nw + 1, sizeof *me->w);
        for (int w = 0; w < me->nw; w++) {
            p = after(p, "weight");
            int i = (int)num(&p);
            me->w[i].joint = (int)num(&p);
            me->w[i].bias = num(&p);
            for (int c = 0; c < 3; c++) me->w[i].pos[c] = num(&p);
        }
    }
    free(text);
    return 0;
}

static int md5_read_anim(const char *path, md5_ref *r)
{
    size_t len;
    mr_error err = {0};
    char *text = mr_file_read(path, &len, &err);
    if (!text) return -1;
    const char *p = after(text, "numFrames");
    r->frames = (int)num(&p);
    p = after(text, "frameRate");
    r->rate = num(&p);
    p = after(text, "numAnimatedComponents");
    r->comps = (int)num(&p);
    free(r->flags);
    free(r->first);
    free(r->base);
    free(r->vals);
    r->flags = calloc((size_t)r->nj, sizeof *r->flags);
    r->first = calloc((size_t)r->nj, sizeof *r->first);
    r->base = calloc((size_t)r->nj, sizeof *r->base);
    r->vals = calloc((size_t)r->frames * r->comps + 1, sizeof *r->vals);
    p = after(text, "hierarchy {");
    for (int j = 0; j < r->nj; j++) {
        p = strchr(strchr(p, '"') + 1, '"') + 1;
        num(&p);                       /* parent (the mesh's) */
        r->flags[j] = (int)num(&p);
        r->first[j] = (int)num(&p);
    }
    p = after(p, "baseframe {");
    for (int j = 0; j < r->nj; j++)
        for (int k = 0; k < 6; k++) r->base[j][k] = num(&p);
    for (int f = 0; f < r->frames; f++) {
        char tag[32];
        snprintf(tag, sizeof tag, "frame %d {", f);
        p = after(p, tag);
        for (int c = 0; c < r->comps; c++) r->vals[(size_t)f * r->comps + c] = num(&p);
    }
    free(text);
    return 0;
}

static void md5_free(md5_ref *r)
{
    for (int m = 0; m < r->nm; m++) {
        free(r->mesh[m].start);
        free(r->mesh[m].count);
        free(r->mesh[m].w);
    }
    free(r->mesh);
    free(r->parent);
    free(r->flags);
    free(r->first);
    free(r->base);
    free(r->vals);
}

/* Local joint j of frame f: position and unit orientation (w <= 0). */
static void md5_local(const md5_ref *r, int j, int f, double *t, double *q)
{
    double c[6];
    memcpy(c, r->base[j], sizeof c);
    int k = r->first[j];
    for (int b = 0; b < 6; b++)
        if (r->flags[j] & (1 << b)) c[b] = r->vals[(size_t)f * r->comps + k++];
    memcpy(t, c, 3 * sizeof *t);
    q[0] = c[3], q[1] = c[4], q[2] = c[5];
    double w = 1 - c[3] * c[3] - c[4] * c[4] - c[5] * c[5];
    q[3] = w > 0 ? -sqrt(w) : 0;
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++) q[i] /= n;
}

static void slerp_d(const double *a, const double *b0, double u, double *out)
{
    double b[4], d = 0;
    for (int i = 0; i < 4; i++) d += a[i] * b0[i];
    for (int i = 0; i < 4; i++) b[i] = d < 0 ? -b0[i] : b0[i];
    d = fabs(d);
    double w0 = 1 - u, w1 = u;
    if (d < 1 - 1e-15) {
        double th = acos(d), s = sin(th);
        w0 = sin((1 - u) * th) / s;
        w1 = sin(u * th) / s;
    }
    double n = 0;
    for (int i = 0; i < 4; i++) out[i] = w0 * a[i] + w1 * b[i], n += out[i] * out[i];
    for (int i = 0; i < 4; i++) out[i] /= sqrt(n);
}

/* Posed vertices (all meshes, in order) at time t: frames slerped, then the
 * MD5 weight formula over the MR_MAX_INFLUENCES heaviest weights,
 * renormalised. */
static double (*md5_posed(const md5_ref *r, double t, int *count))[3]
{
    double span = (r->frames - 1) / r->rate;
    double ft = t <= 0 ? 0 : t >= span ? r->frames - 1 : t * r->rate;
    int f = (int)floor(ft);
    if (f > r->frames - 2) f = r->frames > 1 ? r->frames - 2 : 0;
    double u = r->frames > 1 ? ft - f : 0;
    double (*jt)[3] = calloc((size_t)r->nj, sizeof *jt), (*jq)[4] = calloc((size_t)r->nj, sizeof *jq);
    for (int j = 0; j < r->nj; j++) {
        double t0[3], q0[4], t1[3], q1[4], lt[3], lq[4];
        md5_local(r, j, f, t0, q0);
        md5_local(r, j, r->frames > 1 ? f + 1 : f, t1, q1);
        for (int c = 0; c < 3; c++) lt[c] = t0[c] + u * (t1[c] - t0[c]);
        slerp_d(q0, q1, u, lq);
        int p = r->parent[j];
        if (p < 0) {
            memcpy(jt[j], lt, sizeof lt);
            memcpy(jq[j], lq, sizeof lq);
        } else {
            double v[3];
            ref_qrot(jq[p], lt, v);
            for (int c = 0; c < 3; c++) jt[j][c] = jt[p][c] + v[c];
            ref_qmul(jq[p], lq, jq[j]);
        }
    }
    int total = 0;
    for (int m = 0; m < r->nm; m++) total += r->mesh[m].nv;
    double (*out)[3] = calloc((size_t)total + 1, sizeof *out);
    int at = 0;
    for (int m = 0; m < r->nm; m++) {
        const md5_ref_mesh *me = &r->mesh[m];
        for (int v = 0; v < me->nv; v++, at++) {
            /* The heaviest weights first (ties: file order). */
            int idx[64], n = me->count[v] < 64 ? me->count[v] : 64;
            for (int k = 0; k < n; k++) idx[k] = me->start[v] + k;
            for (int a = 1; a < n; a++)
                for (int b = a; b > 0 && me->w[idx[b]].bias > me->w[idx[b - 1]].bias; b--) {
                    int x = idx[b];
                    idx[b] = idx[b - 1], idx[b - 1] = x;
                }
            if (n > MR_MAX_INFLUENCES) n = MR_MAX_INFLUENCES;
            double sum = 0;
            for (int k = 0; k < n; k++) sum += me->w[idx[k]].bias;
            for (int k = 0; k < n && sum > 0; k++) {
                const md5_weight *w = &me->w[idx[k]];
                double p[3];
                ref_qrot(jq[w->joint], w->pos, p);
                for (int c = 0; c < 3; c++) out[at][c] += w->bias / sum * (jt[w->joint][c] + p[c]);
            }
        }
    }
    free(jt);
    free(jq);
    *count = total;
    return out;
}

/* Worst error over 121 times of the clip loaded from anim, as a fraction of
 * the model size; -1 when the shapes disagree. */
static double md5_check(const char *mesh, const char *anim, int *added)
{
    mr_model *m = NULL;
    mr_error err = {0};
    const char *anims[1] = {anim};
    CHECK_MSG(mr_load_model(mesh, anims, 1, &m, &err) == MR_OK, "%s: %s", anim, err.msg);
    if (!m) return -1;
    md5_ref r = {0};
    CHECK(md5_read_mesh(mesh, &r) == 0 && md5_read_anim(anim, &r) == 0);
    double size = model_size(m), worst = 0;
    const mr_clip *clip = m->clips[m->clip_count - 1];
    int rows;
    *added = refined_keys(m, &rows);
    if (rows) printf("       (%d source frames, %d time-line keys added)\n", mr_clip_key_count(clip), rows);
    for (int k = 0; k <= STEPS; k++) {
        double t = clip->duration * k / STEPS;
        int n = 0, rn = 0;
        vec3 *ours = posed(m, clip, (float)t, 0, &n);
        double (*ref)[3] = md5_posed(&r, t, &rn);
        if (n != rn) {
            worst = -1;
        } else if (worst >= 0) {
            double e = worst_distance(ours, (const double (*)[3])ref, n) / size;
            if (e > worst) worst = e;
        }
        free(ours);
        free(ref);
    }
    md5_free(&r);
    mr_model_destroy(m);
    return worst;
}

TEST(md5_every_shared_clip_follows_slerp_of_its_frames)
{
    static const char *const bob[] = {"Bob"};
    static const char *const snout[] = {"pain", "forward", "dying", "backward", "shotgun_shoot", "jump", "idle"};
    static const struct {
        const char *dir, *mesh;
        const char *const *anims;
        int n;
    } sets[] = {
        {SHARED_MODELS "assimp/test/models-nonbsd/MD5/", "Bob", bob, 1},
        {SHARED_MODELS "tomatenquark-essential/packages/models/snoutx10k/", "snoutx10k", snout, 7},
    };
    int checked = 0;
    for (size_t s = 0; s < sizeof sets / sizeof *sets; s++)
        for (int a = 0; a < sets[s].n; a++) {
            char mesh[512], anim[512];
            snprintf(mesh, sizeof mesh, "%s%s.md5mesh", sets[s].dir, sets[s].mesh);
            snprintf(anim, sizeof anim, "%s%s.md5anim", sets[s].dir, sets[s].anims[a]);
            int added = 0;
            double e = md5_check(mesh, anim, &added);
            printf("       %-40s %.6f%% of the size, %d keys added\n", mr_path_basename(anim), e * 100, added);
            CHECK_MSG(e >= 0, "%s: vertex counts differ from the reference", anim);
            CHECK_MSG(e <= MR_CLIP_FIDELITY, "%s: %.5f%% of the size from slerp", anim, e * 100);
            checked++;
        }
    CHECK(checked == 8);
}

/* ---- COLLADA against collada_ref.h ------------------------------------------------- */

/* Worst error of every clip of a COLLADA file against the reference, as a
 * fraction of the model size (bind bounds or the reference's rest pose,
 * the larger: a clip may scale the mesh to nothing); -1 on a shape mismatch. */
static double collada_check(mr_model *m, const char *path)
{
    ref_doc d;
    if (ref_open(&d, path)) return -1;
    xmlNode *lib = ref_child(d.root, "library_animation_clips");
    int named = lib && ref_child(lib, "animation_clip");
    ref_max_influences = MR_MAX_INFLUENCES;
    ref_points rest;
    ref_eval(&d, NULL, 0, &rest);
    double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
    for (int i = 0; i < rest.n; i++)
        for (int c = 0; c < 3; c++) lo[c] = fmin(lo[c], rest.p[i][c]), hi[c] = fmax(hi[c], rest.p[i][c]);
    double size = model_size(m);
    if (rest.n)
        size = fmax(size, sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                               (hi[2] - lo[2]) * (hi[2] - lo[2])));
    ref_points_free(&rest);
    double worst = 0;
    for (int c = 0; c < m->clip_count && worst >= 0; c++)
        for (int k = 0; k <= STEPS && worst >= 0; k++) {
            float t = m->clips[c]->duration * (float)k / STEPS;
            ref_points rp;
            ref_eval(&d, named ? m->clips[c]->name : NULL, t, &rp);
            int n = 0;
            vec3 *ours = posed(m, m->clips[c], t, 1, &n);
            if (n != rp.n) worst = -1;
            else worst = fmax(worst, worst_distance(ours, (const double (*)[3])rp.p, n) / size);
            free(ours);
            ref_points_free(&rp);
        }
    ref_max_influences = 0;
    ref_close(&d);
    return worst;
}

TEST(collada_every_shared_clip_follows_its_exact_curves)
{
    char **files = NULL;
    int n = 0, checked = 0;
    test_find_dae(SHARED_MODELS, &files, &n);
    qsort(files, (size_t)n, sizeof *files, test_cmp_str);
    double overall = 0;
    for (int i = 0; i < n; i++) {
        mr_model *m = NULL;
        mr_error err = {0};
        if (mr_collada_load(files[i], &m, &err) != MR_OK || m->clip_count == 0 || m->mesh_count == 0) {
            mr_model_destroy(m);   /* not animated, or one of the corpus's broken files */
            free(files[i]);
            continue;
        }
        double e = collada_check(m, files[i]);
        const char *name = files[i] + strlen(SHARED_MODELS);
        if (strlen(name) > 60) name += strlen(name) - 60;
        int rows, added = refined_keys(m, &rows);
        printf("       %-60s %.6f%%, %d keys added (%d time-line)\n", name, e * 100, added, rows);
        CHECK_MSG(e >= 0, "%s: meshes differ in shape from the reference", files[i]);
        CHECK_MSG(e <= MR_CLIP_FIDELITY, "%s: %.5f%% of the size from the exact curves", files[i], e * 100);
        overall = fmax(overall, e);
        checked++;
        mr_model_destroy(m);
        free(files[i]);
    }
    free(files);
    printf("       %d animated files, worst %.6f%% of the size\n", checked, overall * 100);
    CHECK(checked >= 10);
}

/* ---- synthetic: two keys 90 and 179 degrees apart -------------------------------- */

/* A two-joint arm: the root turns about z between two keys `degrees`
 * apart; the child sits `reach` away along x. Checks the child's position
 * and the root's rotation against slerp at 121 times. */
static void wide_keys(float degrees, int in_model, double *worst_angle, double *worst_pos, int *added)
{
    mr_model *m = NULL;
    mr_model_create("arm", "test", &m);
    mr_skeleton_init(&m->skeleton, 2);
    mr_skeleton *sk = &m->skeleton;
    sk->names[0] = mr_str_dup("root");
    sk->names[1] = mr_str_dup("tip");
    sk->parents[1] = 0;
    sk->rest_t[1][0] = 1.0f;
    mr_skeleton_compute_inverse_bind(sk);
    mr_clip *c = NULL;
    mr_clip_create("turn", 2, &c);
    c->duration = 1.0f;
    mr_track *r = &c->tracks[0].r;
    mr_track_init(r, 2, MR_INTERP_LINEAR);
    r->times[1] = 1.0f;
    glm_quatv(r->values, glm_rad(10.0f), (vec3){0, 0, 1});
    glm_quatv(r->values + 4, glm_rad(10.0f + degrees), (vec3){0, 0, 1});
    if (in_model) {
        CHECK(mr_model_add_clip(m, c) == MR_OK);
        mr_clip_settle(c);   /* a model's clip is packed off the load's path: its refinement done */
    } else {
        mr_clip_finish(c);
    }
    *added = c->runtime ? c->runtime->keys_added : 0;
    mr_pose p;
    mr_pose_init(&p, 2);
    mat4 world[2];
    *worst_angle = *worst_pos = 0;
    for (int k = 0; k <= 120; k++) {
        double u = k / 120.0, a = glm_rad(10.0) + u * glm_rad((double)degrees);
        CHECK(mr_clip_sample(c, sk, (float)u, MR_WRAP_CLAMP, &p) == MR_OK);
        double got = 2 * atan2(p.r[0][2], p.r[0][3]);
        double e = fabs(remainder(got - a, 2 * M_PI));
        if (e > *worst_angle) *worst_angle = e;
        mr_pose_to_model(sk, &p, world);
        double dx = world[1][3][0] - cos(a), dy = world[1][3][1] - sin(a);
        if (sqrt(dx * dx + dy * dy) > *worst_pos) *worst_pos = sqrt(dx * dx + dy * dy);
    }
    mr_pose_deinit(&p);
    if (in_model) mr_model_destroy(m);
    else {
        mr_clip_destroy(c);
        mr_model_destroy(m);
    }
}

TEST(clip_finish_wide_keys_follow_slerp)
{
    static const float degrees[2] = {90.0f, 179.0f};
    for (int i = 0; i < 2; i++)
        for (int in_model = 0; in_model < 2; in_model++) {
            double angle, pos;
            int added;
            wide_keys(degrees[i], in_model, &angle, &pos, &added);
            printf("       %3.0f degree keys, %s: %d keys added, %.2e rad, tip %.2e of the arm\n", degrees[i],
                   in_model ? "model budget  " : "default budget", added, angle, pos);
            CHECK(added > 0);
            /* The model is the arm (size = 1): its budget is half the
             * fidelity over the one-joint chain; the default is tighter. */
            CHECK_MSG(pos <= MR_CLIP_FIDELITY, "%g degree keys: tip %.3g of the arm from slerp", degrees[i], pos);
            /* In a model the clip is packed: the refinement's half of the
             * fidelity plus the quantisation's, within the fidelity. */
            CHECK_MSG(angle <= (in_model ? MR_CLIP_FIDELITY : MR_CLIP_DEFAULT_MAX_ANGLE) + 1e-6,
                      "%g degree keys: %.3g rad from slerp", degrees[i], angle);
        }
    /* Without refinement the same keys are far off: what the cut repairs. */
    mr_track tr = {.components = 4};
    mr_track_init(&tr, 2, MR_INTERP_LINEAR);
    tr.times[1] = 1.0f;
    glm_quatv(tr.values, 0.0f, (vec3){0, 0, 1});
    glm_quatv(tr.values + 4, glm_rad(90.0f), (vec3){0, 0, 1});
    mr_track_finish(&tr);
    float q[4];
    mr_track_sample(&tr, 0.25f, q);   /* the exact curve: slerp */
    CHECK_NEAR(glm_deg(2 * atan2f(q[2], q[3])), 22.5, 1e-3);
    free(tr.times);
    free(tr.values);
}

int main(void)
{
    RUN(clip_finish_wide_keys_follow_slerp);
    RUN(md5_every_shared_clip_follows_slerp_of_its_frames);
    RUN(collada_every_shared_clip_follows_its_exact_curves);
    return test_summary("slerp_fidelity");
}
