/* collada_write.c — mr_collada_write: an mr_model as a COLLADA 1.4.1 document.
 *
 * What is written (see collada.h for the contract):
 *   <asset>     the model's own frame: up_axis from model->axes.up and
 *               <unit meter> from its meters_per_unit. Numbers are written
 *               as they are in the model (no conversion): an MD5 model goes
 *               out Z_UP in inches (0.0254), a COLLADA-loaded one Y_UP in
 *               metres. Reading the file back converts to Y-up metres like
 *               any other COLLADA file.
 *   skeleton    one JOINT node per joint (id and sid "J<index>", name = the
 *               joint name), nested by parent, each with <matrix
 *               sid="transform"> holding its rest TRS.
 *   meshes      one <geometry> per mesh (positions, normals, uvs sharing one
 *               index stream); a skinned mesh through a <controller><skin>
 *               whose joints are all skeleton joints with their inverse
 *               binds (identity bind shape); a static mesh as
 *               <instance_geometry> at the scene root.
 *   morphs      a mesh with morph targets (anim/morph.h): per target a
 *               <geometry> "m<i>-t<k>-geometry" (named as the target) whose
 *               positions are the target's position deltas, and a
 *               <controller id="m<i>-morph"><morph method="RELATIVE"> on
 *               the mesh's geometry with the default weights; the skin's
 *               source names the morph when the mesh is skinned, else the
 *               scene instances the morph. Normal deltas are not written.
 *               Weight tracks: one <animation> per target with the target
 *               "m<i>-morph/m<i>-morph-weights(k)", STEP or LINEAR keys as
 *               the track's; cubic-spline tracks as LINEAR keys at 32
 *               points per key interval.
 *   materials   one phong <effect> per mesh: colours, shininess, and the
 *               diffuse map as an <image> (path relative to the file).
 *   clips       per clip and animated joint one <animation> targeting
 *               J<index>/transform with a matrix key (T*R*S) at every key
 *               time of the joint's tracks; LINEAR or STEP as the tracks
 *               are. Cubic tracks (COLLADA's own curves, refitted by the
 *               reader) become LINEAR keys at their key times plus as many
 *               in between as keep them within 1e-4 of the model size of
 *               the curve. <library_animation_clips> names every clip,
 *               start 0, end = duration, and keeps the clip's rate in an
 *               <extra><technique profile="marrow"><frame_rate>.
 * Floats are written with 9 significant digits, so every value reads back
 * as the same float.
 */
#include "formats/write_check.h"
#include "formats/collada.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "anim/morph.h"
#include "core/alloc.h"
#include "core/file.h"
#include "core/path.h"
#include "core/str.h"

/* Cubic tracks are written as linear keys this close to the curve, as a
 * fraction of the model's size. */
#define CL_WRITE_TOLERANCE 1e-4f

/* ---- text building --------------------------------------------------------- */

typedef struct sb {
    char *p;
    size_t n, cap;
    int oom;
} sb;

static void sb_add(sb *b, const char *s, size_t n)
{
    if (b->oom) return;
    if (mr_alloc_reserve((void **)&b->p, &b->cap, b->n + n + 1, 1)) {
        b->oom = 1;
        return;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void sb_printf(sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sb *b, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        sb_add(b, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->oom = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb_add(b, big, (size_t)n);
    free(big);
}

/* Text with XML's five special characters escaped. */
static void sb_escaped(sb *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': sb_add(b, "&amp;", 5); break;
        case '<': sb_add(b, "&lt;", 4); break;
        case '>': sb_add(b, "&gt;", 4); break;
        case '"': sb_add(b, "&quot;", 6); break;
        case '\'': sb_add(b, "&apos;", 6); break;
        default: sb_add(b, s, 1);
        }
    }
}

/* The shortest decimal that reads back as exactly v (6 to 9 digits). */
static void sb_float(sb *b, float v)
{
    char tmp[32];
    if (v == 0.0f) v = 0.0f;  /* no "-0" */
    int n = 0;
    for (int digits = 6; digits <= 9; digits++) {
        n = snprintf(tmp, sizeof tmp, "%.*g", digits, (double)v);
        if (strtof(tmp, NULL) == v) break;
    }
    sb_add(b, tmp, (size_t)n);
}

static void sb_floats(sb *b, const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (i) sb_add(b, " ", 1);
        sb_float(b, v[i]);
    }
}

/* A column-major matrix as COLLADA's row-major text. */
static void sb_matrix(sb *b, const mat4 m)
{
    for (int row = 0; row < 4; row++)
        for (int col = 0; col < 4; col++) {
            if (row || col) sb_add(b, " ", 1);
            sb_float(b, m[col][row]);
        }
}

/* ---- helpers ------------------------------------------------------------------- */

static void compose(const float *t, const float *q, const float *s, mat4 out)
{
    versor qq = {q[0], q[1], q[2], q[3]};
    glm_quat_normalize(qq);
    glm_translate_make(out, (float *)t);
    glm_quat_rotate(out, qq, out);
    glm_scale(out, (float *)s);
}

static void sb_uri_path(sb *b, const char *path)
{
    for (const char *p = path; *p; p++) {
        if (*p == ' ') sb_add(b, "%20", 3);
        else if (*p == '%') sb_add(b, "%25", 3);
        else if (*p == '&') sb_add(b, "&amp;", 5);
        else if (*p == '<') sb_add(b, "&lt;", 4);
        else sb_add(b, p, 1);
    }
}

/* ---- sections --------------------------------------------------------------------- */

static void write_asset(sb *b, const mr_model *m)
{
    const char *up = m->axes.up == MR_UP_Z ? "Z_UP" : m->axes.up == MR_UP_X ? "X_UP" : "Y_UP";
    float unit = m->axes.meters_per_unit > 0 ? m->axes.meters_per_unit : 1.0f;
    sb_printf(b, "  <asset>\n    <contributor><authoring_tool>marrow</authoring_tool></contributor>\n");
    sb_printf(b, "    <unit meter=\"");
    sb_float(b, unit);
    sb_printf(b, "\"/>\n    <up_axis>%s</up_axis>\n  </asset>\n", up);
}

static void write_materials(sb *b, const mr_model *m, const char *out_dir)
{
    sb_printf(b, "  <library_images>\n");
    for (int i = 0; i < m->mesh_count; i++) {
        const char *map = m->meshes[i].material.diffuse_map;
        if (!map) continue;
        char *rel = mr_path_relative(out_dir, map);
        sb_printf(b, "    <image id=\"m%d-image\"><init_from>", i);
        sb_uri_path(b, rel ? rel : map);
        sb_printf(b, "</init_from></image>\n");
        free(rel);
    }
    sb_printf(b, "  </library_images>\n  <library_effects>\n");
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_material *mat = &m->meshes[i].material;
        sb_printf(b, "    <effect id=\"m%d-effect\"><profile_COMMON>\n", i);
        if (mat->diffuse_map)
            sb_printf(b, "      <newparam sid=\"m%d-surface\"><surface type=\"2D\"><init_from>m%d-image</init_from>"
                         "</surface></newparam>\n      <newparam sid=\"m%d-sampler\"><sampler2D><source>m%d-surface"
                         "</source></sampler2D></newparam>\n", i, i, i, i);
        sb_printf(b, "      <technique sid=\"common\"><phong>\n");
        const char *slot[4] = {"emission", "ambient", "diffuse", "specular"};
        const float *col[4] = {mat->emission, mat->ambient, mat->diffuse, mat->specular};
        for (int k = 0; k < 4; k++) {
            sb_printf(b, "        <%s>", slot[k]);
            if (k == 2 && mat->diffuse_map) sb_printf(b, "<texture texture=\"m%d-sampler\" texcoord=\"UV\"/>", i);
            else {
                sb_printf(b, "<color>");
                sb_floats(b, col[k], 4);
                sb_printf(b, "</color>");
            }
            sb_printf(b, "</%s>\n", slot[k]);
        }
        sb_printf(b, "        <shininess><float>");
        sb_float(b, mat->shininess);
        sb_printf(b, "</float></shininess>\n      </phong></technique>\n    </profile_COMMON></effect>\n");
    }
    sb_printf(b, "  </library_effects>\n  <library_materials>\n");
    for (int i = 0; i < m->mesh_count; i++) {
        sb_printf(b, "    <material id=\"m%d-material\" name=\"", i);
        sb_escaped(b, m->meshes[i].material.name ? m->meshes[i].material.name : "material");
        sb_printf(b, "\"><instance_effect url=\"#m%d-effect\"/></material>\n", i);
    }
    sb_printf(b, "  </library_materials>\n");
}

static void float_source(sb *b, const char *id, const float *v, int count, int stride, const char *params)
{
    sb_printf(b, "        <source id=\"%s\"><float_array id=\"%s-array\" count=\"%d\">", id, id, count * stride);
    sb_floats(b, v, (size_t)count * (size_t)stride);
    sb_printf(b, "</float_array>\n          <technique_common><accessor source=\"#%s-array\" count=\"%d\" "
                 "stride=\"%d\">", id, count, stride);
    for (const char *p = params; *p; p++) sb_printf(b, "<param name=\"%c\" type=\"float\"/>", *p);
    sb_printf(b, "</accessor></technique_common></source>\n");
}

static void write_geometries(sb *b, const mr_model *m)
{
    sb_printf(b, "  <library_geometries>\n");
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_mesh *me = &m->meshes[i];
        char id[64];
        sb_printf(b, "    <geometry id=\"m%d-geometry\" name=\"", i);
        sb_escaped(b, me->name ? me->name : "mesh");
        sb_printf(b, "\"><mesh>\n");
        snprintf(id, sizeof id, "m%d-positions", i);
        float_source(b, id, (const float *)me->positions, me->vertex_count, 3, "XYZ");
        snprintf(id, sizeof id, "m%d-normals", i);
        float_source(b, id, (const float *)me->normals, me->vertex_count, 3, "XYZ");
        snprintf(id, sizeof id, "m%d-uvs", i);
        float_source(b, id, (const float *)me->uvs, me->vertex_count, 2, "ST");
        sb_printf(b, "        <vertices id=\"m%d-vertices\"><input semantic=\"POSITION\" source=\"#m%d-positions\"/>"
                     "</vertices>\n", i, i);
        sb_printf(b, "        <triangles count=\"%d\" material=\"M%d\">\n"
                     "          <input semantic=\"VERTEX\" source=\"#m%d-vertices\" offset=\"0\"/>\n"
                     "          <input semantic=\"NORMAL\" source=\"#m%d-normals\" offset=\"0\"/>\n"
                     "          <input semantic=\"TEXCOORD\" source=\"#m%d-uvs\" offset=\"0\" set=\"0\"/>\n          <p>",
                  me->index_count / 3, i, i, i, i);
        for (int k = 0; k < me->index_count; k++) sb_printf(b, k ? " %u" : "%u", me->indices[k]);
        sb_printf(b, "</p>\n        </triangles>\n      </mesh></geometry>\n");
        for (int k = 0; me->morph && k < me->morph->count; k++) {
            sb_printf(b, "    <geometry id=\"m%d-t%d-geometry\" name=\"", i, k);
            sb_escaped(b, me->morph->targets[k].name);
            sb_printf(b, "\"><mesh>\n");
            snprintf(id, sizeof id, "m%d-t%d-positions", i, k);
            float_source(b, id, (const float *)me->morph->targets[k].positions, me->vertex_count, 3, "XYZ");
            sb_printf(b, "        <vertices id=\"m%d-t%d-vertices\"><input semantic=\"POSITION\" "
                         "source=\"#m%d-t%d-positions\"/></vertices>\n", i, k, i, k);
            sb_printf(b, "        <triangles count=\"%d\"><input semantic=\"VERTEX\" source=\"#m%d-t%d-vertices\" "
                         "offset=\"0\"/><p>", me->index_count / 3, i, k);
            for (int q = 0; q < me->index_count; q++) sb_printf(b, q ? " %u" : "%u", me->indices[q]);
            sb_printf(b, "</p></triangles>\n      </mesh></geometry>\n");
        }
    }
    sb_printf(b, "  </library_geometries>\n");
}

static void write_morph(sb *b, int i, const mr_morph_set *ms)
{
    sb_printf(b, "    <controller id=\"m%d-morph\"><morph source=\"#m%d-geometry\" method=\"RELATIVE\">\n"
                 "      <source id=\"m%d-morph-targets\"><IDREF_array id=\"m%d-morph-targets-array\" count=\"%d\">",
              i, i, i, i, ms->count);
    for (int k = 0; k < ms->count; k++) sb_printf(b, k ? " m%d-t%d-geometry" : "m%d-t%d-geometry", i, k);
    sb_printf(b, "</IDREF_array>\n        <technique_common><accessor source=\"#m%d-morph-targets-array\" "
                 "count=\"%d\"><param name=\"IDREF\" type=\"IDREF\"/></accessor></technique_common></source>\n",
              i, ms->count);
    char id[64];
    snprintf(id, sizeof id, "m%d-morph-weights", i);
    sb_add(b, "  ", 2);
    float_source(b, id, ms->weights, ms->count, 1, "W");
    sb_printf(b, "      <targets><input semantic=\"MORPH_TARGET\" source=\"#m%d-morph-targets\"/>"
                 "<input semantic=\"MORPH_WEIGHT\" source=\"#m%d-morph-weights\"/></targets>\n"
                 "    </morph></controller>\n", i, i);
}

static void write_controllers(sb *b, const mr_model *m)
{
    const mr_skeleton *sk = &m->skeleton;
    sb_printf(b, "  <library_controllers>\n");
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_mesh *me = &m->meshes[i];
        if (me->morph) write_morph(b, i, me->morph);
        if (!me->joints || !me->weights || sk->joint_count == 0) continue;
        sb_printf(b, "    <controller id=\"m%d-skin\"><skin source=\"#m%d-%s\">\n"
                     "      <bind_shape_matrix>1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1</bind_shape_matrix>\n", i, i,
                  me->morph ? "morph" : "geometry");
        sb_printf(b, "      <source id=\"m%d-joints\"><Name_array id=\"m%d-joints-array\" count=\"%d\">", i, i,
                  sk->joint_count);
        for (int j = 0; j < sk->joint_count; j++) sb_printf(b, j ? " J%d" : "J%d", j);
        sb_printf(b, "</Name_array>\n        <technique_common><accessor source=\"#m%d-joints-array\" count=\"%d\">"
                     "<param name=\"JOINT\" type=\"name\"/></accessor></technique_common></source>\n", i,
                  sk->joint_count);
        sb_printf(b, "      <source id=\"m%d-binds\"><float_array id=\"m%d-binds-array\" count=\"%d\">", i, i,
                  16 * sk->joint_count);
        for (int j = 0; j < sk->joint_count; j++) {
            if (j) sb_add(b, " ", 1);
            sb_matrix(b, sk->inverse_bind[j]);
        }
        sb_printf(b, "</float_array>\n        <technique_common><accessor source=\"#m%d-binds-array\" count=\"%d\" "
                     "stride=\"16\"><param name=\"TRANSFORM\" type=\"float4x4\"/></accessor></technique_common>"
                     "</source>\n", i, sk->joint_count);
        /* Weights: one value per influence, in vertex order. */
        int total = 0;
        for (int v = 0; v < me->vertex_count; v++)
            for (int k = 0; k < MR_MAX_INFLUENCES; k++) total += me->weights[v][k] > 0;
        sb_printf(b, "      <source id=\"m%d-weights\"><float_array id=\"m%d-weights-array\" count=\"%d\">", i, i,
                  total);
        int first = 1;
        for (int v = 0; v < me->vertex_count; v++)
            for (int k = 0; k < MR_MAX_INFLUENCES; k++)
                if (me->weights[v][k] > 0) {
                    if (!first) sb_add(b, " ", 1);
                    first = 0;
                    sb_float(b, me->weights[v][k]);
                }
        sb_printf(b, "</float_array>\n        <technique_common><accessor source=\"#m%d-weights-array\" count=\"%d\">"
                     "<param name=\"WEIGHT\" type=\"float\"/></accessor></technique_common></source>\n", i, total);
        sb_printf(b, "      <joints><input semantic=\"JOINT\" source=\"#m%d-joints\"/>"
                     "<input semantic=\"INV_BIND_MATRIX\" source=\"#m%d-binds\"/></joints>\n", i, i);
        sb_printf(b, "      <vertex_weights count=\"%d\"><input semantic=\"JOINT\" source=\"#m%d-joints\" offset=\"0\"/>"
                     "<input semantic=\"WEIGHT\" source=\"#m%d-weights\" offset=\"1\"/>\n        <vcount>",
                  me->vertex_count, i, i);
        for (int v = 0; v < me->vertex_count; v++) {
            int n = 0;
            for (int k = 0; k < MR_MAX_INFLUENCES; k++) n += me->weights[v][k] > 0;
            sb_printf(b, v ? " %d" : "%d", n);
        }
        sb_printf(b, "</vcount>\n        <v>");
        int w = 0;
        first = 1;
        for (int v = 0; v < me->vertex_count; v++)
            for (int k = 0; k < MR_MAX_INFLUENCES; k++)
                if (me->weights[v][k] > 0) {
                    sb_printf(b, first ? "%d %d" : " %d %d", me->joints[v][k], w++);
                    first = 0;
                }
        sb_printf(b, "</v>\n      </vertex_weights>\n    </skin></controller>\n");
    }
    sb_printf(b, "  </library_controllers>\n");
}

/* ---- animations --------------------------------------------------------------------- */

/* T, R, S of joint j at time t from the clip (rest values where a track
 * is empty), packed t[3] q[4] s[3]. */
static void sample_joint(const mr_model *m, const mr_clip *c, int j, float t, float *v)
{
    const mr_skeleton *sk = &m->skeleton;
    const mr_joint_tracks *jt = &c->tracks[j];
    if (jt->t.key_count) mr_track_sample(&jt->t, t, v);
    else memcpy(v, sk->rest_t[j], 12);
    if (jt->r.key_count) mr_track_sample(&jt->r, t, v + 3);
    else memcpy(v + 3, sk->rest_r[j], 16);
    if (jt->s.key_count) mr_track_sample(&jt->s, t, v + 7);
    else memcpy(v + 7, sk->rest_s[j], 12);
}

/* How far linear keys at a and b stray from the clip at the quarter
 * points: translation error plus rotation and scale error seen at `size`. */
static float segment_error(const mr_model *m, const mr_clip *c, int j, float a, float b, float size)
{
    float va[10], vb[10], vm[10], lin[10], worst = 0;
    sample_joint(m, c, j, a, va);
    sample_joint(m, c, j, b, vb);
    float dot = va[3] * vb[3] + va[4] * vb[4] + va[5] * vb[5] + va[6] * vb[6];
    for (int k = 1; k <= 3; k++) {
        float u = 0.25f * k;
        sample_joint(m, c, j, a + (b - a) * u, vm);
        for (int i = 0; i < 10; i++) lin[i] = va[i] + u * ((i >= 3 && i < 7 && dot < 0 ? -vb[i] : vb[i]) - va[i]);
        /* Rotation error as the chord between the unit quaternions (no
         * 1 - cos cancellation: small errors stay visible in float). */
        float ql = sqrtf(lin[3] * lin[3] + lin[4] * lin[4] + lin[5] * lin[5] + lin[6] * lin[6]);
        float qd = lin[3] * vm[3] + lin[4] * vm[4] + lin[5] * vm[5] + lin[6] * vm[6];
        float sign = qd < 0 ? -1.0f : 1.0f, chord = 0;
        for (int i = 3; i < 7; i++) {
            float d = lin[i] / (ql > 0 ? ql : 1) - sign * vm[i];
            chord += d * d;
        }
        float e = 0;
        for (int i = 0; i < 3; i++) e += fabsf(lin[i] - vm[i]) + size * fabsf(lin[7 + i] - vm[7 + i]);
        e += 2 * size * sqrtf(chord);
        worst = fmaxf(worst, e);
    }
    return worst;
}

typedef struct float_list {
    float *v;
    size_t n, cap;
} float_list;

static int push_time(float_list *l, float t)
{
    if (mr_alloc_reserve((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v)) return -1;
    l->v[l->n++] = t;
    return 0;
}

/* Appends times in (a, b] so linear keys follow the clip within tol. */
static int refine(const mr_model *m, const mr_clip *c, int j, float a, float b, float size, float tol, int depth,
                  float_list *out)
{
    if (depth < 14 && b - a > 1.0f / 4096 && segment_error(m, c, j, a, b, size) > tol) {
        float mid = 0.5f * (a + b);
        if (refine(m, c, j, a, mid, size, tol, depth + 1, out)) return -1;
        return refine(m, c, j, mid, b, size, tol, depth + 1, out);
    }
    return push_time(out, b);
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* Key times of one joint in a clip (sorted, unique); NULL when unanimated.
 * Cubic tracks get extra keys where linear keys would stray from them by
 * more than CL_WRITE_TOLERANCE of the model size. */
static float *joint_key_times(const mr_model *m, const mr_clip *c, int j, float size, int *count)
{
    const mr_track *tr[3] = {&c->tracks[j].t, &c->tracks[j].r, &c->tracks[j].s};
    size_t n = 0;
    int cubic = 0;
    for (int k = 0; k < 3; k++) {
        n += (size_t)tr[k]->key_count;
        cubic |= tr[k]->key_count > 1 && tr[k]->interp == MR_INTERP_CUBIC;
    }
    *count = 0;
    if (!n) return NULL;
    float *t = mr_alloc_array(n, sizeof *t);
    if (!t) return NULL;
    size_t m_ = 0;
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < tr[k]->key_count; i++) t[m_++] = tr[k]->times[i];
    qsort(t, m_, sizeof *t, cmp_float);
    size_t u = 0;
    for (size_t i = 0; i < m_; i++)
        if (u == 0 || t[i] > t[u - 1]) t[u++] = t[i];
    if (!cubic) {
        *count = (int)u;
        return t;
    }
    float_list out = {0};
    int fail = push_time(&out, t[0]);
    for (size_t i = 1; i < u && !fail; i++)
        fail = refine(m, c, j, t[i - 1], t[i], size, CL_WRITE_TOLERANCE * size, 0, &out);
    free(t);
    if (fail) {
        free(out.v);
        return NULL;
    }
    *count = (int)out.n;
    return out.v;
}

static int joint_all_step(const mr_clip *c, int j)
{
    const mr_track *tr[3] = {&c->tracks[j].t, &c->tracks[j].r, &c->tracks[j].s};
    int any = 0;
    for (int k = 0; k < 3; k++) {
        if (!tr[k]->key_count) continue;
        any = 1;
        if (tr[k]->interp != MR_INTERP_STEP && tr[k]->key_count > 1) return 0;
    }
    return any;
}

static void write_joint_animation(sb *b, const mr_model *m, int ci, int j, const float *times, int n)
{
    const mr_clip *c = m->clips[ci];
    sb_printf(b, "    <animation id=\"c%d-J%d\">\n", ci, j);
    sb_printf(b, "      <source id=\"c%d-J%d-input\"><float_array id=\"c%d-J%d-input-array\" count=\"%d\">", ci, j, ci,
              j, n);
    sb_floats(b, times, (size_t)n);
    sb_printf(b, "</float_array>\n        <technique_common><accessor source=\"#c%d-J%d-input-array\" count=\"%d\">"
                 "<param name=\"TIME\" type=\"float\"/></accessor></technique_common></source>\n", ci, j, n);
    sb_printf(b, "      <source id=\"c%d-J%d-output\"><float_array id=\"c%d-J%d-output-array\" count=\"%d\">", ci, j, ci,
              j, 16 * n);
    for (int k = 0; k < n; k++) {
        float v[10];
        sample_joint(m, c, j, times[k], v);
        mat4 mat;
        compose(v, v + 3, v + 7, mat);
        if (k) sb_add(b, " ", 1);
        sb_matrix(b, mat);
    }
    sb_printf(b, "</float_array>\n        <technique_common><accessor source=\"#c%d-J%d-output-array\" count=\"%d\" "
                 "stride=\"16\"><param name=\"TRANSFORM\" type=\"float4x4\"/></accessor></technique_common></source>\n",
              ci, j, n);
    const char *interp = joint_all_step(c, j) ? "STEP" : "LINEAR";
    sb_printf(b, "      <source id=\"c%d-J%d-interpolation\"><Name_array id=\"c%d-J%d-interpolation-array\" count=\"%d\">",
              ci, j, ci, j, n);
    for (int k = 0; k < n; k++) sb_printf(b, k ? " %s" : "%s", interp);
    sb_printf(b, "</Name_array>\n        <technique_common><accessor source=\"#c%d-J%d-interpolation-array\" "
                 "count=\"%d\"><param name=\"INTERPOLATION\" type=\"name\"/></accessor></technique_common></source>\n",
              ci, j, n);
    sb_printf(b, "      <sampler id=\"c%d-J%d-sampler\"><input semantic=\"INPUT\" source=\"#c%d-J%d-input\"/>"
                 "<input semantic=\"OUTPUT\" source=\"#c%d-J%d-output\"/>"
                 "<input semantic=\"INTERPOLATION\" source=\"#c%d-J%d-interpolation\"/></sampler>\n",
              ci, j, ci, j, ci, j, ci, j);
    sb_printf(b, "      <channel source=\"#c%d-J%d-sampler\" target=\"J%d/transform\"/>\n    </animation>\n", ci, j, j);
}

/* Writes the animations; animated[c * joints + j] records what was written. */
/* Key times of a weights channel as written: its keys, and for a cubic
 * spline 31 more in every key interval. */
static float *weight_key_times(const mr_morph_channel *ch, int *count)
{
    int per = ch->interp == MR_INTERP_CUBIC ? 32 : 1;
    size_t n = (size_t)(ch->key_count - 1) * (size_t)per + 1;
    float *t = mr_alloc_array(n, sizeof *t);
    if (!t) return NULL;
    size_t at = 0;
    for (int k = 0; k < ch->key_count; k++)
        for (int q = 0; q < (k + 1 < ch->key_count ? per : 1); q++)
            t[at++] = q ? ch->times[k] + (ch->times[k + 1] - ch->times[k]) * (float)q / (float)per : ch->times[k];
    *count = (int)at;
    return t;
}

static void write_weight_animations(sb *b, const mr_clip *c, int ci)
{
    for (int q = 0; c->morph && q < c->morph->channel_count; q++) {
        const mr_morph_channel *ch = &c->morph->channels[q];
        int n;
        float *times = weight_key_times(ch, &n);
        float *w = times ? mr_alloc_array((size_t)n * (size_t)ch->target_count, sizeof *w) : NULL;
        if (!w) {
            free(times);
            b->oom = 1;
            return;
        }
        for (int k = 0; k < n; k++) mr_morph_channel_sample(ch, times[k], w + (size_t)k * ch->target_count);
        for (int t = 0; t < ch->target_count; t++) {
            char id[64];
            sb_printf(b, "    <animation id=\"c%d-m%d-w%d\">\n", ci, ch->mesh, t);
            snprintf(id, sizeof id, "c%d-m%d-w%d-input", ci, ch->mesh, t);
            float_source(b, id, times, n, 1, "T");
            snprintf(id, sizeof id, "c%d-m%d-w%d-output", ci, ch->mesh, t);
            sb_printf(b, "        <source id=\"%s\"><float_array id=\"%s-array\" count=\"%d\">", id, id, n);
            for (int k = 0; k < n; k++) {
                if (k) sb_add(b, " ", 1);
                sb_float(b, w[(size_t)k * ch->target_count + t]);
            }
            sb_printf(b, "</float_array>\n          <technique_common><accessor source=\"#%s-array\" count=\"%d\" "
                         "stride=\"1\"><param name=\"WEIGHT\" type=\"float\"/></accessor></technique_common>"
                         "</source>\n", id, n);
            sb_printf(b, "        <source id=\"c%d-m%d-w%d-interp\"><Name_array id=\"c%d-m%d-w%d-interp-array\" "
                         "count=\"%d\">", ci, ch->mesh, t, ci, ch->mesh, t, n);
            for (int k = 0; k < n; k++) sb_printf(b, k ? " %s" : "%s", ch->interp == MR_INTERP_STEP ? "STEP" : "LINEAR");
            sb_printf(b, "</Name_array>\n          <technique_common><accessor source=\"#c%d-m%d-w%d-interp-array\" "
                         "count=\"%d\"><param name=\"INTERPOLATION\" type=\"name\"/></accessor></technique_common>"
                         "</source>\n", ci, ch->mesh, t, n);
            sb_printf(b, "        <sampler id=\"c%d-m%d-w%d-sampler\"><input semantic=\"INPUT\" "
                         "source=\"#c%d-m%d-w%d-input\"/><input semantic=\"OUTPUT\" source=\"#c%d-m%d-w%d-output\"/>"
                         "<input semantic=\"INTERPOLATION\" source=\"#c%d-m%d-w%d-interp\"/></sampler>\n",
                      ci, ch->mesh, t, ci, ch->mesh, t, ci, ch->mesh, t, ci, ch->mesh, t);
            sb_printf(b, "        <channel source=\"#c%d-m%d-w%d-sampler\" target=\"m%d-morph/m%d-morph-weights(%d)\"/>\n"
                         "    </animation>\n", ci, ch->mesh, t, ch->mesh, ch->mesh, t);
        }
        free(w);
        free(times);
    }
}

static int write_animations(sb *b, const mr_model *m, unsigned char *animated)
{
    int nj = m->skeleton.joint_count;
    vec3 lo, hi;
    float size = mr_model_bounds(m, lo, hi) ? glm_vec3_distance(lo, hi) : 1.0f;
    if (!(size > 0)) size = 1.0f;
    sb_printf(b, "  <library_animations>\n");
    for (int ci = 0; ci < m->clip_count; ci++) {
        const mr_clip *c = m->clips[ci];
        if (c->joint_count != nj) continue;
        int any = 0;
        for (int j = 0; j < nj; j++) {
            int n;
            float *times = joint_key_times(m, c, j, size, &n);
            if (!times) continue;
            write_joint_animation(b, m, ci, j, times, n);
            animated[ci * nj + j] = 1;
            any = 1;
            free(times);
        }
        if (!any && nj > 0) {  /* a clip that holds the rest pose still needs a channel */
            float times[2] = {0, c->duration > 0 ? c->duration : 1};
            write_joint_animation(b, m, ci, 0, times, 2);
            animated[ci * nj] = 1;
        }
        write_weight_animations(b, c, ci);
    }
    sb_printf(b, "  </library_animations>\n  <library_animation_clips>\n");
    for (int ci = 0; ci < m->clip_count; ci++) {
        const mr_clip *c = m->clips[ci];
        if (c->joint_count != nj) continue;
        sb_printf(b, "    <animation_clip id=\"clip%d\" name=\"", ci);
        sb_escaped(b, c->name);
        sb_printf(b, "\" start=\"0\" end=\"");
        sb_float(b, c->duration);
        sb_printf(b, "\">\n");
        for (int j = 0; j < nj; j++)
            if (animated[ci * nj + j]) sb_printf(b, "      <instance_animation url=\"#c%d-J%d\"/>\n", ci, j);
        for (int q = 0; c->morph && q < c->morph->channel_count; q++)
            for (int t = 0; t < c->morph->channels[q].target_count; t++)
                sb_printf(b, "      <instance_animation url=\"#c%d-m%d-w%d\"/>\n", ci, c->morph->channels[q].mesh, t);
        if (c->rate > 0) {  /* COLLADA has no frame rate; keep it for the round trip */
            sb_printf(b, "      <extra><technique profile=\"marrow\"><frame_rate>");
            sb_float(b, c->rate);
            sb_printf(b, "</frame_rate></technique></extra>\n");
        }
        sb_printf(b, "    </animation_clip>\n");
    }
    sb_printf(b, "  </library_animation_clips>\n");
    return 0;
}

/* ---- scene ------------------------------------------------------------------------- */

static void write_joint_node(sb *b, const mr_skeleton *sk, int j, int depth)
{
    for (int i = 0; i < depth + 2; i++) sb_add(b, "  ", 2);
    sb_printf(b, "<node id=\"J%d\" sid=\"J%d\" name=\"", j, j);
    sb_escaped(b, sk->names[j] ? sk->names[j] : "joint");
    sb_printf(b, "\" type=\"JOINT\"><matrix sid=\"transform\">");
    mat4 rest;
    compose(sk->rest_t[j], sk->rest_r[j], sk->rest_s[j], rest);
    sb_matrix(b, rest);
    sb_printf(b, "</matrix>\n");
    for (int c = j + 1; c < sk->joint_count; c++)
        if (sk->parents[c] == j) write_joint_node(b, sk, c, depth + 1);
    for (int i = 0; i < depth + 2; i++) sb_add(b, "  ", 2);
    sb_printf(b, "</node>\n");
}

static void write_scene(sb *b, const mr_model *m)
{
    const mr_skeleton *sk = &m->skeleton;
    sb_printf(b, "  <library_visual_scenes>\n    <visual_scene id=\"scene\" name=\"scene\">\n");
    for (int j = 0; j < sk->joint_count; j++)
        if (sk->parents[j] < 0) write_joint_node(b, sk, j, 1);
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_mesh *me = &m->meshes[i];
        int skinned = me->joints && me->weights && sk->joint_count > 0;
        int controlled = skinned || me->morph;
        sb_printf(b, "      <node id=\"m%d-node\" name=\"", i);
        sb_escaped(b, me->name ? me->name : "mesh");
        sb_printf(b, "\">\n        <instance_%s url=\"#m%d-%s\">\n", controlled ? "controller" : "geometry", i,
                  skinned ? "skin" : me->morph ? "morph" : "geometry");
        if (skinned)
            for (int j = 0; j < sk->joint_count; j++)
                if (sk->parents[j] < 0) sb_printf(b, "          <skeleton>#J%d</skeleton>\n", j);
        sb_printf(b, "          <bind_material><technique_common><instance_material symbol=\"M%d\" "
                     "target=\"#m%d-material\"><bind_vertex_input semantic=\"UV\" input_semantic=\"TEXCOORD\" "
                     "input_set=\"0\"/></instance_material></technique_common></bind_material>\n", i, i);
        sb_printf(b, "        </instance_%s>\n      </node>\n", controlled ? "controller" : "geometry");
    }
    sb_printf(b, "    </visual_scene>\n  </library_visual_scenes>\n");
    sb_printf(b, "  <scene><instance_visual_scene url=\"#scene\"/></scene>\n");
}

mr_status mr_collada_write(const mr_model *model, const char *path, mr_error *err)
{
    if (!model || !path) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "collada: nothing to write");
    mr_status checked = mr_write_check_model(model, path, err);   /* every reader takes it back */
    if (checked != MR_OK) return checked;
    mr_error verr;
    if (mr_skeleton_validate(&model->skeleton, &verr) != MR_OK)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "collada: %s: cannot write: %s", path, verr.msg);
    for (int i = 0; i < model->mesh_count; i++) {
        const mr_mesh *me = &model->meshes[i];
        for (int v = 0; me->joints && v < me->vertex_count; v++)
            for (int k = 0; k < MR_MAX_INFLUENCES; k++)
                if (me->joints[v][k] >= model->skeleton.joint_count && me->weights[v][k] > 0)
                    return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                                        "collada: %s: cannot write: mesh %d vertex %d uses joint %d of %d", path, i, v,
                                        me->joints[v][k], model->skeleton.joint_count);
    }
    sb b = {0};
    sb_printf(&b, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
                  "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n");
    write_asset(&b, model);
    char *dir = mr_path_dirname(path);
    write_materials(&b, model, dir ? dir : ".");
    free(dir);
    write_geometries(&b, model);
    write_controllers(&b, model);
    int nj = model->skeleton.joint_count;
    unsigned char *animated = mr_alloc_array((size_t)model->clip_count * (size_t)(nj ? nj : 1) + 1, 1);
    if (!animated) b.oom = 1;
    else if (model->clip_count) write_animations(&b, model, animated);
    free(animated);
    write_scene(&b, model);
    sb_printf(&b, "</COLLADA>\n");
    if (b.oom) {
        free(b.p);
        return mr_error_set(err, MR_ERR_NO_MEMORY, "collada: %s: out of memory writing the document", path);
    }
    mr_error werr;
    int rc = mr_file_write(path, b.p, b.n, &werr);
    free(b.p);
    if (rc != 0) return mr_error_set(err, werr.status, "collada: %s", werr.msg);
    return MR_OK;
}
