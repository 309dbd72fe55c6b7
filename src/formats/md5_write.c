/* md5_write.c — the .md5mesh and .md5anim writers.
 *
 * Mesh: joints are the model-space bind pose (the inverse of inverse_bind),
 * rotations with w <= 0 as MD5 stores them. Each vertex influence becomes a
 * weight whose position is the vertex in that joint's space, computed
 * against the joint exactly as the reader will rebuild it from the printed
 * numbers, with bias = the influence's weight: the MD5 formula then gives the
 * vertex back. Triangles and v are flipped back to MD5's conventions.
 *
 * Anim: the clip is sampled at its rate (30 fps without one) on [0, duration];
 * components that change are animated, the others go to the baseframe.
 *
 * Numbers are printed with the fewest digits (up to 9) that read back as the
 * same float. Files are written whole through mr_file_write.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/file.h"
#include "core/quat.h"
#include "core/str.h"
#include "formats/write_check.h"
#include "formats/md5.h"
#include "formats/md5_lex.h"

#define DEFAULT_RATE 30.0f
#define MAX_FRAMES 1000000

typedef mr_strbuf wbuf;
#define put mr_strbuf_printf

/* Shortest of %.6g .. %.9g that reads back as f (into buf, 32 bytes). */
static const char *num(char *buf, float f)
{
    if (f == 0.0f) f = 0.0f;   /* no "-0" */
    for (int prec = 6; prec <= 9; prec++) {
        snprintf(buf, 32, "%.*g", prec, (double)f);
        if (prec == 9 || strtof(buf, NULL) == f) break;
    }
    return buf;
}

static void put_vec3(wbuf *b, const float v[3])
{
    char x[32], y[32], z[32];
    put(b, "( %s %s %s )", num(x, v[0]), num(y, v[1]), num(z, v[2]));
}

/* Text the MD5 lexer reads back inside a "string" or a // comment: quotes
 * and control characters become '_'. */
static void put_clean(wbuf *b, const char *s)
{
    for (const char *c = s ? s : ""; *c; c++) {
        unsigned char u = (unsigned char)*c;
        put(b, "%c", (u == '"' || u < 0x20 || u == 0x7f) ? '_' : *c);
    }
}

static void put_string(wbuf *b, const char *s)
{
    put(b, "\"");
    put_clean(b, s);
    put(b, "\"");
}

static mr_status finish(wbuf *b, const char *path, mr_error *err)
{
    mr_status st = MR_OK;
    if (b->failed) {
        st = mr_error_set(err, MR_ERR_NO_MEMORY, "md5: %s: out of memory", path);
    } else if (mr_file_write(path, b->data ? b->data : "", b->len, err) != 0) {
        if (err) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            mr_error_set(err, err->status, "md5: %s", msg);
        }
        st = err ? err->status : MR_ERR_IO;
    }
    free(b->data);
    return st;
}

/* ---- joints ---- */

typedef struct bind_joint {
    float t[3];          /* as printed */
    float xyz[3];        /* rotation as printed (w <= 0 implied) */
    float q[4];          /* rotation as the reader rebuilds it */
    int scaled;          /* the bind matrix had scale or a mirror (dropped) */
} bind_joint;

/* Reader's error for xyz against the unit quaternion q (w <= 0). */
static double xyz_error(const float xyz[3], const double q[4])
{
    float r[4];
    md5_quat_from_xyz(xyz, r);
    double e = 0;
    for (int k = 0; k < 4; k++) e = fmax(e, fabs(r[k] - q[k]));
    return e;
}

/* The x, y, z floats MD5 stores for the unit quaternion q: w <= 0, and, as
 * the reader rebuilds w from x²+y²+z² (badly conditioned when |w| is near 0),
 * the combination of neighbouring floats (one ulp either way) that reads
 * back closest to q. */
static void quat_to_xyz(const double q_in[4], float xyz[3])
{
    double q[4];
    double sign = q_in[3] > 0 ? -1.0 : 1.0;
    for (int k = 0; k < 4; k++) q[k] = sign * q_in[k];
    for (int k = 0; k < 3; k++) xyz[k] = (float)q[k];
    double best = xyz_error(xyz, q);
    if (best < 1e-7) return;
    float base[3] = {xyz[0], xyz[1], xyz[2]};
    for (int i = 0; i < 27; i++) {
        float t[3];
        int d[3] = {i % 3 - 1, (i / 3) % 3 - 1, i / 9 - 1};
        for (int k = 0; k < 3; k++)
            t[k] = d[k] == 0 ? base[k] : nextafterf(base[k], d[k] > 0 ? INFINITY : -INFINITY);
        double e = xyz_error(t, q);
        if (e < best) {
            best = e;
            memcpy(xyz, t, sizeof t);
        }
    }
}

/* Model-space bind of joint j: inverse of inverse_bind, in double. */
static void bind_from_inverse(const mat4 inv, bind_joint *bj)
{
    double a[3][3], b[3], r[3][3];
    for (int row = 0; row < 3; row++) {
        for (int c = 0; c < 3; c++) a[row][c] = inv[c][row];
        b[row] = inv[3][row];
    }
    double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
                 a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                 a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    bj->scaled = 0;
    if (!(fabs(det) > 1e-30) || !isfinite(det)) {
        memset(r, 0, sizeof r);
        r[0][0] = r[1][1] = r[2][2] = 1;
        bj->scaled = 1;
    } else {
        /* r = a^-1 (adjugate / det) */
        r[0][0] = (a[1][1] * a[2][2] - a[1][2] * a[2][1]) / det;
        r[0][1] = (a[0][2] * a[2][1] - a[0][1] * a[2][2]) / det;
        r[0][2] = (a[0][1] * a[1][2] - a[0][2] * a[1][1]) / det;
        r[1][0] = (a[1][2] * a[2][0] - a[1][0] * a[2][2]) / det;
        r[1][1] = (a[0][0] * a[2][2] - a[0][2] * a[2][0]) / det;
        r[1][2] = (a[0][2] * a[1][0] - a[0][0] * a[1][2]) / det;
        r[2][0] = (a[1][0] * a[2][1] - a[1][1] * a[2][0]) / det;
        r[2][1] = (a[0][1] * a[2][0] - a[0][0] * a[2][1]) / det;
        r[2][2] = (a[0][0] * a[1][1] - a[0][1] * a[1][0]) / det;
        if (det < 0) bj->scaled = 1;
    }
    for (int row = 0; row < 3; row++)
        bj->t[row] = (float)-(r[row][0] * b[0] + r[row][1] * b[1] + r[row][2] * b[2]);
    /* Drop scale: normalise the columns (MD5 joints are rotation + position). */
    for (int c = 0; c < 3; c++) {
        double n = sqrt(r[0][c] * r[0][c] + r[1][c] * r[1][c] + r[2][c] * r[2][c]);
        if (fabs(n - 1.0) > 1e-4) bj->scaled = 1;
        if (n > 0)
            for (int row = 0; row < 3; row++) r[row][c] /= n;
    }
    double q[4];
    mr_quat_from_rows_d(r, q);
    quat_to_xyz(q, bj->xyz);
    md5_quat_from_xyz(bj->xyz, bj->q);
}

/* ---- mesh ---- */

/* The image's base name when the mesh has one, else its material's name. */
static const char *shader_of(const mr_mesh *mesh)
{
    if (mesh->material.diffuse_map && *mesh->material.diffuse_map) {
        const char *base = mesh->material.diffuse_map;
        for (const char *c = base; *c; c++)
            if (*c == '/' || *c == '\\') base = c + 1;
        return base;
    }
    return mesh->material.name ? mesh->material.name : "";
}

/* Number of weights written for vertex v: its positive influences (1 at least). */
static int vertex_weight_count(const mr_mesh *mesh, int v)
{
    if (!mesh->joints || !mesh->weights) return 1;
    int n = 0;
    for (int k = 0; k < MR_MAX_INFLUENCES; k++) n += mesh->weights[v][k] > 0.0f;
    return n ? n : 1;
}

static void put_weight(wbuf *b, int index, int joint, float bias, const bind_joint *bj,
                       const float pos[3])
{
    /* The vertex in the joint's space, as the reader rebuilds the joint. */
    double q[4] = {-bj->q[0], -bj->q[1], -bj->q[2], bj->q[3]};
    double d[3] = {(double)pos[0] - bj->t[0], (double)pos[1] - bj->t[1], (double)pos[2] - bj->t[2]};
    double w[3];
    mr_quat_rotate_d(q, d, w);
    float wf[3] = {(float)w[0], (float)w[1], (float)w[2]};
    char bs[32];
    put(b, "\tweight %d %d %s ", index, joint, num(bs, bias));
    put_vec3(b, wf);
    put(b, "\n");
}

static void put_mesh(wbuf *b, const mr_mesh *mesh, const bind_joint *bj)
{
    char u[32], v[32];
    put(b, "mesh {\n\t// meshes: ");
    put_clean(b, mesh->name);
    put(b, "\n\tshader ");
    put_string(b, shader_of(mesh));
    put(b, "\n\n\tnumverts %d\n", mesh->vertex_count);
    int start = 0;
    for (int i = 0; i < mesh->vertex_count; i++) {
        int n = vertex_weight_count(mesh, i);
        put(b, "\tvert %d ( %s %s ) %d %d\n", i, num(u, mesh->uvs[i][0]),
            num(v, 1.0f - mesh->uvs[i][1]), start, n);
        start += n;
    }
    int tris = mesh->index_count / 3;
    put(b, "\n\tnumtris %d\n", tris);
    for (int t = 0; t < tris; t++)   /* back to MD5's clockwise front faces */
        put(b, "\ttri %d %u %u %u\n", t, mesh->indices[3 * t], mesh->indices[3 * t + 2],
            mesh->indices[3 * t + 1]);
    put(b, "\n\tnumweights %d\n", start);
    int w = 0;
    for (int i = 0; i < mesh->vertex_count; i++) {
        if (!mesh->joints || !mesh->weights) {
            put_weight(b, w++, 0, 1.0f, &bj[0], mesh->positions[i]);
            continue;
        }
        int any = 0;
        for (int k = 0; k < MR_MAX_INFLUENCES; k++) {
            float wt = mesh->weights[i][k];
            if (!(wt > 0.0f)) continue;
            int j = mesh->joints[i][k];
            put_weight(b, w++, j, wt, &bj[j], mesh->positions[i]);
            any = 1;
        }
        if (!any) {
            int j = mesh->joints[i][0];
            put_weight(b, w++, j, 1.0f, &bj[j], mesh->positions[i]);
        }
    }
    put(b, "}\n\n");
}

/* Joint indices of every mesh within the skeleton. */
static int meshes_fit(const mr_model *model, int joints)
{
    for (int m = 0; m < model->mesh_count; m++) {
        const mr_mesh *mesh = &model->meshes[m];
        if (!mesh->joints) continue;
        for (int i = 0; i < mesh->vertex_count; i++)
            for (int k = 0; k < MR_MAX_INFLUENCES; k++)
                if (mesh->joints[i][k] >= joints) return 0;
    }
    return 1;
}

mr_status mr_md5_write_mesh(const mr_model *model, const char *path, mr_error *err)
{
    if (!model || !path) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "md5: no model or path");
    mr_status checked = mr_write_check_model(model, path, err);   /* every reader takes it back */
    if (checked != MR_OK) return checked;
    const mr_skeleton *sk = &model->skeleton;
    int joints = sk->joint_count > 0 ? sk->joint_count : 1;   /* MD5 needs a joint: "origin" */
    if (!meshes_fit(model, sk->joint_count > 0 ? sk->joint_count : 1))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                            "md5: %s: a mesh refers to a joint the skeleton does not have", path);
    bind_joint *bj = mr_alloc_array((size_t)joints, sizeof *bj);
    if (!bj) return mr_error_set(err, MR_ERR_NO_MEMORY, "md5: %s: out of memory", path);
    wbuf b = {0};
    put(&b, "MD5Version 10\ncommandline \"written by marrow\"\n\n");
    int scaled = 0;
    for (int i = 0; i < sk->joint_count; i++) {
        bind_from_inverse(sk->inverse_bind[i], &bj[i]);
        scaled += bj[i].scaled;
    }
    if (sk->joint_count == 0) md5_quat_from_xyz(bj[0].xyz, bj[0].q);
    if (scaled)
        put(&b, "// marrow: %d joints had scale or a mirror in their bind pose; MD5 cannot store it "
                "and it was dropped\n\n", scaled);
    put(&b, "numJoints %d\nnumMeshes %d\n\njoints {\n", joints, model->mesh_count);
    for (int i = 0; i < joints; i++) {
        int parent = sk->joint_count ? sk->parents[i] : -1;
        put(&b, "\t");
        put_string(&b, sk->joint_count ? sk->names[i] : "origin");
        put(&b, "\t%d ", parent);
        put_vec3(&b, bj[i].t);
        put(&b, " ");
        put_vec3(&b, bj[i].xyz);
        put(&b, "\t\t// ");
        put_clean(&b, parent >= 0 ? sk->names[parent] : "");
        put(&b, "\n");
    }
    put(&b, "}\n\n");
    for (int m = 0; m < model->mesh_count; m++) put_mesh(&b, &model->meshes[m], bj);
    free(bj);
    return finish(&b, path, err);
}

/* ---- anim ---- */

/* Bounds of the skinned meshes (or of the joints) for one pose. */
static void pose_bounds(const mr_model *model, const mat4 *world, const mat4 *skin, vec3 *pos,
                        vec3 *nrm, float mn[3], float mx[3])
{
    int any = 0;
    for (int k = 0; k < 3; k++) { mn[k] = INFINITY; mx[k] = -INFINITY; }
    for (int m = 0; m < model->mesh_count; m++) {
        const mr_mesh *mesh = &model->meshes[m];
        mr_mesh_skin(mesh, skin, pos, nrm);
        for (int i = 0; i < mesh->vertex_count; i++)
            for (int k = 0; k < 3; k++) {
                if (pos[i][k] < mn[k]) mn[k] = pos[i][k];
                if (pos[i][k] > mx[k]) mx[k] = pos[i][k];
                any = 1;
            }
    }
    if (!any)
        for (int j = 0; j < model->skeleton.joint_count; j++)
            for (int k = 0; k < 3; k++) {
                if (world[j][3][k] < mn[k]) mn[k] = world[j][3][k];
                if (world[j][3][k] > mx[k]) mx[k] = world[j][3][k];
            }
}

typedef struct anim_writer {
    const mr_model *model;
    const mr_clip *clip;
    int frames, joints;
    float rate;
    float *vals;         /* frames * joints * 6: Tx Ty Tz Qx Qy Qz (w <= 0) */
    float *bounds;       /* frames * 6 */
    int *flags, *start;
    int components;
    int scaled;          /* joints whose sampled scale is not 1 */
    const char *first_scaled;
} anim_writer;

static mr_status sample_all(anim_writer *w)
{
    const mr_skeleton *sk = &w->model->skeleton;
    int most = 0;
    for (int m = 0; m < w->model->mesh_count; m++)
        if (w->model->meshes[m].vertex_count > most) most = w->model->meshes[m].vertex_count;
    mr_pose pose;
    mr_status st = mr_pose_init(&pose, w->joints);
    mat4 *world = mr_alloc_array((size_t)w->joints, sizeof *world);
    mat4 *skin = mr_alloc_array((size_t)w->joints, sizeof *skin);
    vec3 *pos = mr_alloc_array((size_t)most, sizeof *pos);
    vec3 *nrm = mr_alloc_array((size_t)most, sizeof *nrm);
    char *scaled = mr_alloc_array((size_t)w->joints, 1);
    if (st == MR_OK && (!world || !skin || !pos || !nrm || !scaled)) st = MR_ERR_NO_MEMORY;
    for (int f = 0; st == MR_OK && f < w->frames; f++) {
        float t = (float)((double)f / w->rate);
        if (t > w->clip->duration) t = w->clip->duration;
        st = mr_clip_sample_keys(w->clip, sk, t, MR_WRAP_CLAMP, &pose);
        if (st != MR_OK) break;
        for (int j = 0; j < w->joints; j++) {
            float *v = w->vals + ((size_t)f * w->joints + j) * 6;
            double q[4] = {pose.r[j][0], pose.r[j][1], pose.r[j][2], pose.r[j][3]};
            mr_quat_normalize_d(q);
            quat_to_xyz(q, v + 3);
            for (int k = 0; k < 3; k++) {
                v[k] = pose.t[j][k];
                if (fabsf(pose.s[j][k] - 1.0f) > 1e-5f && !scaled[j]) {
                    scaled[j] = 1;
                    if (!w->scaled++) w->first_scaled = sk->names[j];
                }
            }
        }
        if ((st = mr_pose_to_model(sk, &pose, world)) == MR_OK &&
            (st = mr_pose_skinning(sk, world, skin)) == MR_OK)
            pose_bounds(w->model, world, skin, pos, nrm, w->bounds + 6 * (size_t)f,
                        w->bounds + 6 * (size_t)f + 3);
    }
    mr_pose_deinit(&pose);
    free(world);
    free(skin);
    free(pos);
    free(nrm);
    free(scaled);
    return st;
}

/* Animated components: those whose value changes over the frames. */
static void choose_flags(anim_writer *w)
{
    w->components = 0;
    for (int j = 0; j < w->joints; j++) {
        int flags = 0;
        for (int f = 1; f < w->frames; f++) {
            const float *v0 = w->vals + (size_t)j * 6;
            const float *v = w->vals + ((size_t)f * w->joints + j) * 6;
            for (int k = 0; k < 6; k++)
                if (v[k] != v0[k]) flags |= 1 << k;
        }
        w->flags[j] = flags;
        w->start[j] = w->components;
        for (int k = 0; k < 6; k++) w->components += (flags >> k) & 1;
    }
}

static void put_anim(wbuf *b, const anim_writer *w)
{
    const mr_skeleton *sk = &w->model->skeleton;
    char r[32];
    put(b, "MD5Version 10\ncommandline \"written by marrow\"\n");
    if (w->scaled) {
        put(b, "// marrow: MD5 has no scale: the scale of %d joints (first '", w->scaled);
        put_clean(b, w->first_scaled);
        put(b, "') was not written\n");
    }
    put(b, "\nnumFrames %d\nnumJoints %d\nframeRate %s\nnumAnimatedComponents %d\n\nhierarchy {\n",
        w->frames, w->joints, num(r, w->rate), w->components);
    for (int j = 0; j < w->joints; j++) {
        put(b, "\t");
        put_string(b, sk->names[j]);
        put(b, "\t%d %d %d\t// ", sk->parents[j], w->flags[j], w->start[j]);
        put_clean(b, sk->parents[j] >= 0 ? sk->names[sk->parents[j]] : "");
        put(b, "\n");
    }
    put(b, "}\n\nbounds {\n");
    for (int f = 0; f < w->frames; f++) {
        put(b, "\t");
        put_vec3(b, w->bounds + 6 * (size_t)f);
        put(b, " ");
        put_vec3(b, w->bounds + 6 * (size_t)f + 3);
        put(b, "\n");
    }
    put(b, "}\n\nbaseframe {\n");
    for (int j = 0; j < w->joints; j++) {
        put(b, "\t");
        put_vec3(b, w->vals + (size_t)j * 6);
        put(b, " ");
        put_vec3(b, w->vals + (size_t)j * 6 + 3);
        put(b, "\n");
    }
    put(b, "}\n\n");
    for (int f = 0; f < w->frames; f++) {
        put(b, "frame %d {\n", f);
        for (int j = 0; j < w->joints; j++) {
            if (!w->flags[j]) continue;
            const float *v = w->vals + ((size_t)f * w->joints + j) * 6;
            put(b, "\t");
            for (int k = 0; k < 6; k++)
                if (w->flags[j] & (1 << k)) put(b, "%s ", num(r, v[k]));
            put(b, "\n");
        }
        put(b, "}\n\n");
    }
}

mr_status mr_md5_write_anim(const mr_model *model, const mr_clip *clip, const char *path,
                            mr_error *err)
{
    if (!model || !clip || !path)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "md5: no model, clip or path");
    mr_status checked = mr_write_check_clip(model, clip, path, err);   /* every reader takes it back */
    if (checked != MR_OK) return checked;
    const mr_skeleton *sk = &model->skeleton;
    if (sk->joint_count < 1 || clip->joint_count != sk->joint_count)
        return mr_error_set(err, MR_ERR_JOINT_COUNT,
                            "md5: %s: clip '%s' has %d joints, the skeleton %d", path, clip->name,
                            clip->joint_count, sk->joint_count);
    if (!meshes_fit(model, sk->joint_count))
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                            "md5: %s: a mesh refers to a joint the skeleton does not have", path);
    anim_writer w = {.model = model, .clip = clip, .joints = sk->joint_count};
    w.rate = clip->rate > 0 && isfinite(clip->rate) ? clip->rate : DEFAULT_RATE;
    double frames = floor((double)clip->duration * w.rate + 0.5) + 1;
    if (!(clip->duration >= 0) || !(frames <= MAX_FRAMES))
        return mr_error_set(err, MR_ERR_LIMIT,
                            "md5: %s: clip '%s' would have %g frames at %g fps (limit %d)", path,
                            clip->name, frames, w.rate, MAX_FRAMES);
    w.frames = (int)frames;
    w.vals = mr_alloc_array((size_t)w.frames * (size_t)w.joints, 6 * sizeof *w.vals);
    w.bounds = mr_alloc_array((size_t)w.frames, 6 * sizeof *w.bounds);
    w.flags = mr_alloc_array((size_t)w.joints, sizeof *w.flags);
    w.start = mr_alloc_array((size_t)w.joints, sizeof *w.start);
    mr_status st = MR_ERR_NO_MEMORY;
    if (w.vals && w.bounds && w.flags && w.start) st = sample_all(&w);
    if (st != MR_OK) {
        mr_error_set(err, st, "md5: %s: cannot sample clip '%s': %s", path, clip->name,
                     mr_status_string(st));
    } else {
        choose_flags(&w);
        wbuf b = {0};
        put_anim(&b, &w);
        st = finish(&b, path, err);
    }
    free(w.vals);
    free(w.bounds);
    free(w.flags);
    free(w.start);
    return st;
}
