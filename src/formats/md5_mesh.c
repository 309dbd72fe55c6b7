/* md5_mesh.c — the .md5mesh reader: skeleton, meshes, materials.
 *
 * The file's joints are the model-space bind pose; the skeleton gets the
 * local (parent-relative) rest pose derived from them and inverse_bind from
 * the file's matrices directly. A vertex's bind position is the MD5 weight
 * formula sum(bias * (jointPos + jointRot * weightPos)); its influences are
 * its weights packed to 4. Triangles are flipped from MD5's clockwise front
 * faces to counter-clockwise, v to OpenGL's bottom-left origin.
 *
 * Every count is checked against the bytes left in the file before anything
 * is allocated for it, so a forged count fails instead of allocating.
 */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/alloc.h"
#include "core/file.h"
#include "core/path.h"
#include "core/quat.h"
#include "core/str.h"
#include "formats/md5.h"
#include "formats/md5_lex.h"

/* Smallest number of bytes each element can take in a valid file; a count
 * larger than bytes_left / these cannot be true. */
enum { MIN_JOINT = 16, MIN_MESH = 40, MIN_VERT = 12, MIN_TRI = 10, MIN_WEIGHT = 16 };

/* Missing textures get a warning each up to this many, then one summary. */
enum { MAX_TEXTURE_WARNINGS = 8 };

/* The verts of a mesh may refer to at most this many times numweights
 * weights in all (plus 1024): bounds the work of overlapping ranges. */
enum { MAX_SHARING = 8 };

/* Largest directory listed for texture lookups (beyond: one stat per name). */
enum { MAX_LISTED = 4096 };

typedef struct md5_vert {
    float u, v;
    int start, count;    /* weights [start, start + count) */
    int line;
} md5_vert;

typedef struct md5_weight {
    int joint;
    float bias;
    float pos[3];
} md5_weight;

typedef struct mesh_reader {
    md5_lex lx;
    mr_model *model;
    char *dir;           /* the .md5mesh's directory ("" when none) */
    float (*jt)[3];      /* model-space bind position per joint, as in the file */
    float (*jq)[4];      /* model-space bind rotation per joint (w computed) */
    md5_vert *verts;
    size_t verts_cap;
    md5_weight *weights;
    size_t weights_cap;
    int *pack_j;         /* one vertex's weights, for mr_mesh_pack_influences */
    float *pack_w;
    size_t pack_j_cap, pack_w_cap;
    char **files;        /* names in dir, read when the first texture is looked up */
    int file_count;
    int listed;          /* 0 not yet, 1 files holds dir's names, -1 look up with stat */
    int missing;         /* shaders whose image was not found */
    int cut;             /* vertices with more than MR_MAX_INFLUENCES weights */
    int renormalised;    /* vertices whose biases did not sum to 1 */
} mesh_reader;

static int out_of_memory(mesh_reader *r)
{
    return md5_out_of_memory(&r->lx);
}

/* Refuses negative counts and counts the rest of the file cannot hold. */
static int check_count(md5_lex *lx, int n, size_t min_bytes, const char *what)
{
    if (n < 0) return md5_fail(lx, "%s of 0 or more", what);
    size_t left = md5_left(lx), most = left / min_bytes;
    if ((size_t)n > most)
        return md5_fail(lx, "%s that fits the file (at most %zu in the %zu bytes left)", what, most,
                        left);
    return 0;
}

static int read_vec3(md5_lex *lx, float v[3], const char *what)
{
    if (md5_punct(lx, '(', what)) return -1;
    for (int k = 0; k < 3; k++)
        if (md5_float(lx, &v[k], "a number")) return -1;
    return md5_punct(lx, ')', what);
}

/* ---- joints ---- */

static int read_joints(mesh_reader *r, int count)
{
    md5_lex *lx = &r->lx;
    mr_skeleton *sk = &r->model->skeleton;
    if (mr_skeleton_init(sk, count) != MR_OK) return out_of_memory(r);
    r->jt = mr_alloc_array((size_t)count, sizeof *r->jt);
    r->jq = mr_alloc_array((size_t)count, sizeof *r->jq);
    if (!r->jt || !r->jq) return out_of_memory(r);
    if (md5_word(lx, "joints", "after the header")) return -1;
    if (md5_punct(lx, '{', "after 'joints'")) return -1;
    for (int i = 0; i < count; i++) {
        if (md5_peek_char(lx) != '"')
            return md5_fail_next(lx, "a joint name in quotes (joint %d of %d, numJoints)", i, count);
        const char *s;
        size_t n;
        if (md5_string(lx, &s, &n, "a joint name in quotes")) return -1;
        if (n == 0) return md5_fail(lx, "a joint name");
        for (int k = 0; k < i; k++)
            if (strlen(sk->names[k]) == n && memcmp(sk->names[k], s, n) == 0)
                return md5_fail(lx, "a joint name not used before (joint %d has it)", k);
        sk->names[i] = mr_str_ndup(s, n);
        if (!sk->names[i]) return out_of_memory(r);
        int parent;
        if (md5_int(lx, &parent, "a parent joint index")) return -1;
        if (parent < -1 || parent >= i)
            return md5_fail(lx, "a parent index of joint '%s' from -1 to %d (parents come before children)",
                            sk->names[i], i - 1);
        sk->parents[i] = parent;
        float q3[3];
        if (read_vec3(lx, r->jt[i], "around the joint position")) return -1;
        if (read_vec3(lx, q3, "around the joint rotation")) return -1;
        if (md5_quat_from_xyz(q3, r->jq[i]) > MD5_QUAT_SLACK) {
            char found[128];
            snprintf(found, sizeof found, "'( %g %g %g )'", q3[0], q3[1], q3[2]);
            return md5_fail_at(lx, lx->tok_line, found,
                               "a unit quaternion for joint '%s' (x, y, z of length at most 1)", sk->names[i]);
        }
    }
    if (md5_punct(lx, '}', "after the joints (numJoints)")) return -1;

    /* Local rest pose from the model-space bind, and inverse_bind from the
     * file's matrices (not recomposed from the rest pose). */
    for (int i = 0; i < count; i++) {
        double t[3] = {r->jt[i][0], r->jt[i][1], r->jt[i][2]};
        double q[4] = {r->jq[i][0], r->jq[i][1], r->jq[i][2], r->jq[i][3]};
        double lt[3] = {t[0], t[1], t[2]}, lq[4] = {q[0], q[1], q[2], q[3]};
        int p = sk->parents[i];
        if (p >= 0) {
            double pc[4] = {-r->jq[p][0], -r->jq[p][1], -r->jq[p][2], r->jq[p][3]};
            double d[3] = {t[0] - r->jt[p][0], t[1] - r->jt[p][1], t[2] - r->jt[p][2]};
            mr_quat_rotate_d(pc, d, lt);
            mr_quat_mul_d(pc, q, lq);
        }
        mr_quat_normalize_d(lq);
        for (int k = 0; k < 3; k++) sk->rest_t[i][k] = (float)lt[k];
        for (int k = 0; k < 4; k++) sk->rest_r[i][k] = (float)lq[k];
        double m[3][3];
        mr_quat_to_rows_d(q, m);
        mat4 *inv = &sk->inverse_bind[i];
        for (int c = 0; c < 3; c++) {
            for (int row = 0; row < 3; row++) (*inv)[c][row] = (float)m[c][row];  /* R^T */
            (*inv)[c][3] = 0.0f;
            (*inv)[3][c] = (float)-(m[0][c] * t[0] + m[1][c] * t[1] + m[2][c] * t[2]);
        }
        (*inv)[3][3] = 1.0f;
    }
    return 0;
}

/* ---- materials ---- */

static const char *const image_exts[] = {".png", ".tga", ".jpg", ".jpeg", ".PNG", ".TGA", ".JPG"};
#define N_IMAGE_EXTS (sizeof image_exts / sizeof image_exts[0])

/* Reads the names in the model's directory once. A directory that cannot be
 * listed, or holds more than MAX_LISTED entries, is searched with one stat
 * per candidate instead. */
static void list_dir(mesh_reader *r)
{
    r->listed = -1;
    DIR *d = opendir(*r->dir ? r->dir : ".");
    if (!d) return;
    size_t cap = 0;
    struct dirent *e;
    int ok = 1;
    while (ok && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        ok = r->file_count < MAX_LISTED &&
             mr_alloc_reserve((void **)&r->files, &cap, (size_t)r->file_count + 1, sizeof *r->files) == 0 &&
             (r->files[r->file_count] = mr_str_dup(e->d_name)) != NULL;
        if (ok) r->file_count++;
    }
    closedir(d);
    if (ok) r->listed = 1;
}

/* dir/prefix[0..n)suffix when such a file exists, else NULL. With the
 * directory listed, the name matches in any letter case (exact first) and
 * the path uses the name as it is on disk. */
static char *existing(mesh_reader *r, const char *prefix, size_t n, const char *suffix)
{
    char *name = mr_str_fmt("%.*s%s", (int)n, prefix, suffix);
    if (!name) return NULL;
    if (!r->listed) list_dir(r);
    char *path = NULL;
    if (r->listed > 0) {
        const char *hit = NULL;
        for (int i = 0; !hit && i < r->file_count; i++)
            if (!strcmp(r->files[i], name)) hit = r->files[i];
        for (int i = 0; !hit && i < r->file_count; i++)
            if (!strcasecmp(r->files[i], name)) hit = r->files[i];
        if (hit) path = mr_path_join(r->dir, hit);
    } else {
        path = mr_path_join(r->dir, name);
    }
    free(name);
    if (path && mr_file_exists(path)) return path;
    free(path);
    return NULL;
}

/* The shader's image beside the model: the base name as is, then with an
 * image extension replacing or added to its own. */
static char *find_image(mesh_reader *r, const char *base)
{
    size_t len = strlen(base);
    char *p = existing(r, base, len, "");
    const char *dot = strrchr(base, '.');
    size_t stem = dot && dot != base ? (size_t)(dot - base) : len;
    for (size_t e = 0; !p && e < N_IMAGE_EXTS; e++) p = existing(r, base, stem, image_exts[e]);
    for (size_t e = 0; !p && stem != len && e < N_IMAGE_EXTS; e++)
        p = existing(r, base, len, image_exts[e]);
    return p;
}

/* <stem>_normal.* or <stem>_local.* beside the diffuse image (which is in
 * the model's directory), or NULL. */
static char *find_normal_map(mesh_reader *r, const char *diffuse)
{
    char *stem = mr_path_stem(diffuse);
    char *found = NULL;
    static const char *const suffixes[] = {"_normal", "_local"};
    for (int s = 0; stem && !found && s < 2; s++) {
        char *name = mr_str_fmt("%s%s", stem, suffixes[s]);
        for (size_t e = 0; name && !found && e < N_IMAGE_EXTS; e++)
            found = existing(r, name, strlen(name), image_exts[e]);
        free(name);
    }
    free(stem);
    return found;
}

/* An earlier mesh (among the last few) with the same shader, or NULL. */
static const mr_mesh *same_shader(const mesh_reader *r, int index, const char *shader)
{
    for (int i = index - 1; i >= 0 && i >= index - 64; i--) {
        const mr_mesh *m = &r->model->meshes[i];
        if (m->material.name && strcmp(m->material.name, shader) == 0) return m;
    }
    return NULL;
}

/* Names the mesh after its shader and resolves its textures (once per
 * shader: meshes sharing one reuse the first one's answer). */
static int set_material(mesh_reader *r, mr_mesh *mesh, int index, const char *shader)
{
    const char *base = shader;
    for (const char *c = shader; *c; c++)
        if (*c == '/' || *c == '\\') base = c + 1;
    if (*base) {
        const mr_mesh *prev = same_shader(r, index, shader);
        mesh->name = mr_path_stem(base);
        mesh->material.name = mr_str_dup(shader);
        if (prev) {
            mesh->material.diffuse_map = mr_str_dup(prev->material.diffuse_map);
            mesh->material.normal_map = mr_str_dup(prev->material.normal_map);
            if (!mesh->material.diffuse_map || (prev->material.normal_map && !mesh->material.normal_map))
                return out_of_memory(r);
        } else if ((mesh->material.diffuse_map = find_image(r, base))) {
            mesh->material.normal_map = find_normal_map(r, mesh->material.diffuse_map);
            /* A link out of the model's folder: refused here with its
             * place, and by every reader later (core/file.h). */
            mr_error ferr = {0};
            if (mr_file_check_inside(r->dir, mesh->material.diffuse_map, &ferr) == MR_ERR_BAD_FILE)
                mr_model_warn(r->model, "mesh %d '%s': shader \"%s\": texture refused: %s; drawn as a checker", index,
                              mesh->name ? mesh->name : "", shader, ferr.msg);
        } else {
            mesh->material.diffuse_map = mr_path_join(r->dir, base);
            if (!mesh->material.diffuse_map) return out_of_memory(r);
            if (r->missing++ < MAX_TEXTURE_WARNINGS)
                mr_model_warn(r->model, "mesh %d '%s': texture \"%s\" not found (looked for %s and .png/.tga/.jpg beside the model)",
                              index, mesh->name ? mesh->name : "", shader, mesh->material.diffuse_map);
        }
    } else {
        mesh->name = mr_str_fmt("mesh%d", index);
        mesh->material.name = mr_str_dup(mesh->name);
    }
    if (!mesh->name || !mesh->material.name) return out_of_memory(r);
    /* MD5's only material is its texture: where one was found, it is the
     * colour, unscaled by the default grey. */
    if (mesh->material.diffuse_map && mr_file_exists(mesh->material.diffuse_map))
        for (int c = 0; c < 3; c++) mesh->material.diffuse[c] = 1.0f;
    return 0;
}

/* ---- meshes ---- */

static int reserve(mesh_reader *r, void **array, size_t *cap, size_t need, size_t size)
{
    if (mr_alloc_reserve(array, cap, need, size) != 0) return out_of_memory(r);
    return 0;
}

/* Bind positions and packed influences from the weights. */
static int build_vertices(mesh_reader *r, mr_mesh *mesh, int nv)
{
    for (int v = 0; v < nv; v++) {
        const md5_vert *vt = &r->verts[v];
        if (reserve(r, (void **)&r->pack_j, &r->pack_j_cap, (size_t)vt->count, sizeof *r->pack_j) ||
            reserve(r, (void **)&r->pack_w, &r->pack_w_cap, (size_t)vt->count, sizeof *r->pack_w))
            return -1;
        double pos[3] = {0, 0, 0}, sum = 0;
        for (int k = 0; k < vt->count; k++) {
            const md5_weight *w = &r->weights[vt->start + k];
            double q[4] = {r->jq[w->joint][0], r->jq[w->joint][1], r->jq[w->joint][2],
                           r->jq[w->joint][3]};
            double wp[3] = {w->pos[0], w->pos[1], w->pos[2]}, rp[3];
            mr_quat_rotate_d(q, wp, rp);
            for (int c = 0; c < 3; c++) pos[c] += w->bias * (r->jt[w->joint][c] + rp[c]);
            sum += w->bias;
            r->pack_j[k] = w->joint;
            r->pack_w[k] = w->bias;
        }
        if (!(sum > 1e-6)) {
            char found[96];
            snprintf(found, sizeof found, "biases summing to %g", sum);
            return md5_fail_at(&r->lx, vt->line, found,
                               "vert %d to have weights with a positive sum", v);
        }
        if (fabs(sum - 1.0) > 1e-3) {
            for (int c = 0; c < 3; c++) pos[c] /= sum;
            r->renormalised++;
        }
        for (int c = 0; c < 3; c++) mesh->positions[v][c] = (float)pos[c];
        mesh->uvs[v][0] = vt->u;
        mesh->uvs[v][1] = 1.0f - vt->v;
        /* Ties by distance to the joints' bind positions, then joint name. */
        mr_influence_rule rule = {.vertex = mesh->positions[v], .origins = (const vec3 *)r->jt,
                                  .names = (const char *const *)r->model->skeleton.names};
        int used = mr_mesh_pack_influences(r->pack_j, r->pack_w, vt->count, &rule, mesh->joints[v], mesh->weights[v]);
        mesh->source_over4 += used > 4;
        mesh->source_over8 += used > 8;
        if (used > MR_MAX_INFLUENCES) r->cut++;
    }
    return 0;
}

static int read_mesh(mesh_reader *r, int index, int mesh_total, mr_mesh *mesh)
{
    md5_lex *lx = &r->lx;
    int joints = r->model->skeleton.joint_count;
    if (!md5_accept(lx, "mesh"))
        return md5_fail_next(lx, "'mesh' (mesh %d of %d, numMeshes)", index, mesh_total);
    if (md5_punct(lx, '{', "after 'mesh'")) return -1;
    const char *s;
    size_t n;
    if (md5_word(lx, "shader", "at the start of the mesh")) return -1;
    if (md5_string(lx, &s, &n, "the shader path in quotes")) return -1;
    char *shader = mr_str_ndup(s, n);
    if (!shader) return out_of_memory(r);

    int nv, nt, nw;
    if (md5_word(lx, "numverts", "after the shader") || md5_int(lx, &nv, "a vertex count") ||
        check_count(lx, nv, MIN_VERT, "numverts") ||
        reserve(r, (void **)&r->verts, &r->verts_cap, (size_t)nv, sizeof *r->verts))
        goto fail;
    long long need_weights = 0;     /* weights the verts refer to */
    long long refs = 0;             /* sum of countWeight */
    int need_vert = -1;
    for (int v = 0; v < nv; v++) {
        md5_vert *vt = &r->verts[v];
        int idx;
        if (!md5_accept(lx, "vert")) {
            md5_fail_next(lx, "'vert' (vertex %d of %d, numverts)", v, nv);
            goto fail;
        }
        vt->line = lx->tok_line;
        if (md5_int(lx, &idx, "a vert index")) goto fail;
        if (idx != v) {
            md5_fail(lx, "vert index %d (verts are numbered in order)", v);
            goto fail;
        }
        if (md5_punct(lx, '(', "before the texture coordinates") ||
            md5_float(lx, &vt->u, "a number (texture u)") ||
            md5_float(lx, &vt->v, "a number (texture v)") ||
            md5_punct(lx, ')', "after the texture coordinates") ||
            md5_int(lx, &vt->start, "a startWeight index"))
            goto fail;
        if (vt->start < 0) {
            md5_fail(lx, "a startWeight of 0 or more");
            goto fail;
        }
        if (md5_int(lx, &vt->count, "a countWeight")) goto fail;
        if (vt->count < 1) {
            md5_fail(lx, "a countWeight of 1 or more");
            goto fail;
        }
        refs += vt->count;
        long long end = (long long)vt->start + vt->count;
        if (end > need_weights) {
            need_weights = end;
            need_vert = v;
        }
    }

    if (md5_word(lx, "numtris", "after the verts (numverts)") ||
        md5_int(lx, &nt, "a triangle count") || check_count(lx, nt, MIN_TRI, "numtris"))
        goto fail;
    if (nt > INT32_MAX / 3) {
        md5_fail(lx, "numtris of at most %d", INT32_MAX / 3);
        goto fail;
    }
    /* every index is read below, every vertex built whole (build_vertices),
     * normals computed (which zeroes them first) */
    unsigned set = MR_MESH_SET_POSITIONS | MR_MESH_SET_NORMALS | MR_MESH_SET_UVS | MR_MESH_SET_INDICES |
                   MR_MESH_SET_INFLUENCES;
    if (mr_mesh_init_set(mesh, nv, nt * 3, 1, set) != MR_OK) {
        out_of_memory(r);
        goto fail;
    }
    for (int t = 0; t < nt; t++) {
        int idx, abc[3];
        if (!md5_accept(lx, "tri")) {
            md5_fail_next(lx, "'tri' (triangle %d of %d, numtris)", t, nt);
            goto fail;
        }
        if (md5_int(lx, &idx, "a tri index")) goto fail;
        if (idx != t) {
            md5_fail(lx, "tri index %d (tris are numbered in order)", t);
            goto fail;
        }
        for (int k = 0; k < 3; k++) {
            if (md5_int(lx, &abc[k], "a vertex index")) goto fail;
            if (abc[k] < 0 || abc[k] >= nv) {
                md5_fail(lx, "a vertex index from 0 to %d (numverts %d)", nv - 1, nv);
                goto fail;
            }
        }
        /* MD5 front faces are clockwise: swap two corners for counter-clockwise. */
        mesh->indices[3 * t] = (uint32_t)abc[0];
        mesh->indices[3 * t + 1] = (uint32_t)abc[2];
        mesh->indices[3 * t + 2] = (uint32_t)abc[1];
    }

    if (md5_word(lx, "numweights", "after the tris (numtris)") ||
        md5_int(lx, &nw, "a weight count") || check_count(lx, nw, MIN_WEIGHT, "numweights"))
        goto fail;
    if (nw < need_weights) {
        const md5_vert *vt = &r->verts[need_vert];
        md5_fail(lx, "numweights of at least %lld (vert %d on line %d uses weights %d to %lld)",
                 need_weights, need_vert, vt->line, vt->start, need_weights - 1);
        goto fail;
    }
    /* Verts may share weights (a vertex split at a UV seam), but not so
     * much that the work grows far beyond the file's size. */
    if (refs > (long long)MAX_SHARING * nw + 1024) {
        md5_fail(lx, "verts that share weights at most %d times over (they use %lld weights in all)",
                 MAX_SHARING, refs);
        goto fail;
    }
    if (reserve(r, (void **)&r->weights, &r->weights_cap, (size_t)nw, sizeof *r->weights)) goto fail;
    for (int w = 0; w < nw; w++) {
        md5_weight *wt = &r->weights[w];
        int idx;
        if (!md5_accept(lx, "weight")) {
            md5_fail_next(lx, "'weight' (weight %d of %d, numweights)", w, nw);
            goto fail;
        }
        if (md5_int(lx, &idx, "a weight index")) goto fail;
        if (idx != w) {
            md5_fail(lx, "weight index %d (weights are numbered in order)", w);
            goto fail;
        }
        if (md5_int(lx, &wt->joint, "a joint index")) goto fail;
        if (wt->joint < 0 || wt->joint >= joints) {
            md5_fail(lx, "a joint index from 0 to %d (numJoints %d)", joints - 1, joints);
            goto fail;
        }
        if (md5_float(lx, &wt->bias, "a number (weight bias)") ||
            read_vec3(lx, wt->pos, "around the weight position"))
            goto fail;
    }
    if (md5_punct(lx, '}', "at the end of the mesh (after numweights weights)")) goto fail;
    if (build_vertices(r, mesh, nv)) goto fail;
    mr_mesh_compute_normals(mesh);
    if (set_material(r, mesh, index, shader)) goto fail;
    free(shader);
    return 0;
fail:
    free(shader);
    return -1;
}

static int read_model(mesh_reader *r)
{
    md5_lex *lx = &r->lx;
    int joints, meshes;
    if (md5_header(lx)) return -1;
    if (md5_word(lx, "numJoints", "after the version")) return -1;
    if (md5_int(lx, &joints, "a joint count")) return -1;
    if (joints < 1 || joints > MR_MAX_JOINTS)
        return md5_fail(lx, "numJoints from 1 to %d", MR_MAX_JOINTS);
    if (check_count(lx, joints, MIN_JOINT, "numJoints")) return -1;
    if (md5_word(lx, "numMeshes", "after numJoints")) return -1;
    if (md5_int(lx, &meshes, "a mesh count")) return -1;
    if (check_count(lx, meshes, MIN_MESH, "numMeshes")) return -1;
    if (read_joints(r, joints)) return -1;

    mr_model *m = r->model;
    m->meshes = mr_alloc_array((size_t)meshes, sizeof *m->meshes);
    if (!m->meshes) return out_of_memory(r);
    for (int i = 0; i < meshes; i++) {
        m->mesh_count = i + 1;   /* so a failure frees what this mesh allocated */
        if (read_mesh(r, i, meshes, &m->meshes[i])) return -1;
    }
    /* More meshes than numMeshes is an error; other trailing text is
     * ignored with a warning (as for anims). */
    if (md5_peek_word(lx, "mesh"))
        return md5_fail_next(lx, "end of file after %d meshes (numMeshes)", meshes);
    if (!md5_at_end(lx)) {
        if (lx->failed) return -1;
        mr_model_warn(m, "%s:%d: text after the last mesh (numMeshes %d) was ignored", lx->name,
                      lx->line, meshes);
    }

    if (r->missing > MAX_TEXTURE_WARNINGS)
        mr_model_warn(m, "%d more textures were not found", r->missing - MAX_TEXTURE_WARNINGS);
    if (r->cut)
        mr_model_warn(m, "%d vertices had more than %d weights: kept the %d heaviest, renormalised",
                      r->cut, MR_MAX_INFLUENCES, MR_MAX_INFLUENCES);
    if (r->renormalised)
        mr_model_warn(m, "%d vertices had weights not summing to 1: renormalised", r->renormalised);
    return 0;
}

mr_status mr_md5_parse_mesh(const char *name, const char *text, size_t len, mr_model **out,
                            mr_error *err)
{
    if (out) *out = NULL;
    if (!name || !text || !out)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "md5: no file name, text or output");
    mesh_reader r;
    memset(&r, 0, sizeof r);
    md5_lex_init(&r.lx, name, text, len, err);
    mr_model_create(name, "md5", &r.model);
    r.dir = strchr(name, '/') ? mr_path_dirname(name) : mr_str_dup("");
    if (!r.model || !r.dir) {
        mr_model_destroy(r.model);
        free(r.dir);
        return mr_error_set(err, MR_ERR_NO_MEMORY, "md5: %s: out of memory", name);
    }
    r.model->axes.up = MR_UP_Z;
    r.model->axes.meters_per_unit = 0.0254f;
    r.model->axes_note = mr_str_dup("MD5 is kept in id Tech 4's frame (Z-up, inches) and "
                                    "displayed as Y-up metres");
    int failed = read_model(&r) != 0;
    mr_status status = r.lx.no_memory ? MR_ERR_NO_MEMORY : MR_ERR_BAD_FILE;
    if (!failed) {
        mr_error verr;
        if (mr_skeleton_validate(&r.model->skeleton, &verr) != MR_OK) {
            mr_error_set(err, MR_ERR_BAD_FILE, "md5: %s:1: expected a valid skeleton, found %s", name,
                         verr.msg);
            failed = 1;
        }
    }
    free(r.dir);
    free(r.jt);
    free(r.jq);
    free(r.verts);
    free(r.weights);
    free(r.pack_j);
    free(r.pack_w);
    for (int i = 0; i < r.file_count; i++) free(r.files[i]);
    free(r.files);
    if (failed) {
        mr_model_destroy(r.model);
        return status;
    }
    *out = r.model;
    return MR_OK;
}

mr_status mr_md5_load_mesh(const char *path, mr_model **out, mr_error *err)
{
    if (out) *out = NULL;
    if (!path || !out) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "md5: no path or output");
    size_t len;
    mr_error ferr;
    char *text = mr_file_read(path, &len, &ferr);
    if (!text) return mr_error_set(err, ferr.status, "md5: %s", ferr.msg);
    mr_status st = mr_md5_parse_mesh(path, text, len, out, err);
    free(text);
    return st;
}
