/* assimp_pose.c — an independent skinning reference for tests/cli_reference.sh.
 *
 *   assimp_pose MODEL [--anim-file FILE] [--anim INDEX|NAME] [--time T]
 *               [--rest | --bind] [--up X|Y|Z --unit M] [--list] [--joints] [-o OUT]
 *
 * Reads MODEL with assimp (its own readers, not marrow's), poses it and skins
 * EVERY vertex with ALL of its bone weights, and writes one line per vertex:
 *
 *     rx ry rz  px py pz  nx ny nz  u v
 *
 * r = the rest position (skinned with the node transforms as loaded; the
 * vertex correspondence of tests/tools/compare_poses.c), p = the posed
 * position, n = the rest normal (0 0 0 when the file has none), uv = the
 * first texture coordinate set (0 0 when none). A line "mesh NAME node NODE vertices N" starts each mesh
 * instance. Test-only: never linked into libmarrow or ./marrow.
 *
 * Posing follows assimp's documented animation model, written out here so it
 * shares nothing with marrow's sampler:
 *   - a node animated by a channel gets local = T * R * S from the channel's
 *     keys at tick T * mTicksPerSecond (25 when the file says 0): position and
 *     scaling keys lerp, rotation keys slerp along the shorter arc; before the
 *     first key the first holds, after the last the last holds;
 *   - world(node) = world(parent) * local(node);
 *   - a skinned vertex v goes to sum_b w_b * world(bone node) * offset_b * v
 *     (weights as assimp delivers them, never cut or renormalised here); a
 *     mesh without bones goes to world(mesh node) * v.
 * --rest poses with the node transforms as loaded (no animation); --bind
 * writes, as p, the vertices as stored with the weights applied (skinning
 * with identity matrices: mesh space, without the COLLADA bind shape
 * matrix, which assimp folds into the offset matrices).
 *
 * --anim-file reads an animation from a second file (an .md5anim beside an
 * .md5mesh: assimp only auto-loads the one named like the mesh) and applies
 * its channels to MODEL's nodes by name.
 *
 * Frames. assimp puts its own conventions into the scene's root node: the
 * COLLADA reader multiplies the <up_axis> rotation (to Y-up) and the <unit>
 * scale into it, the MD5 reader a rotation from Z-up to Y-up. The root of
 * both readers is the visual scene / a node the reader made, with no transform
 * of the file's own, so this tool drops the root node's transform (the
 * output is in the file's own coordinates) and prints what it dropped on
 * stderr (.gltf and .glb excepted: assimp's glTF2 reader adds nothing there,
 * so the root's own transform and animation are kept). --up A --unit M then map the file's frame to Y-up metres the way
 * COLLADA defines it (and marrow documents in src/formats/collada.h): Z_UP
 * (x, y, z) -> (x, z, -y), X_UP (x, y, z) -> (-y, x, z), then scale by M.
 *
 * --joints writes, instead of the meshes, one line per node in depth-first
 * order, "joint NAME x y z": the node's posed world position. It keeps the
 * root node's transform and animates it: for files whose root node is the
 * file's own first joint with no frame convention added (BVH: assimp makes
 * the ROOT joint the scene root and adds a mesh of its own, built from the
 * skeleton, which has no counterpart in marrow). Used by tests/cli_bvh.sh
 * and tests/cli_reference.sh for mesh-less files.
 *
 * --list prints, per animation: "anim INDEX NAME SECONDS tps TPS keys t0 t1 ..."
 * (the union of its key times, in seconds).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

typedef struct { double m[4][4]; } mat; /* row-major, acts on column vectors */

/* The root node's transform and animation are the file's, not assimp's
 * convention: kept for --joints (assimp makes a BVH ROOT the scene root) and
 * for glTF (assimp's glTF2 reader puts no convention into the root: a file's
 * single root node becomes assimp's root, transform and animation included). */
static int keep_root;
static int joints_only; /* --joints: write joint positions, not meshes */

static mat mat_identity(void)
{
    mat r = {{{0}}};
    for (int i = 0; i < 4; i++) r.m[i][i] = 1.0;
    return r;
}

static mat mat_from_ai(const struct aiMatrix4x4 *a)
{
    const ai_real *p = &a->a1;
    mat r;
    for (int i = 0; i < 16; i++) r.m[i / 4][i % 4] = p[i];
    return r;
}

static mat mat_mul(const mat *a, const mat *b)
{
    mat r;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += a->m[i][k] * b->m[k][j];
            r.m[i][j] = s;
        }
    return r;
}

static void mat_point(const mat *a, const double v[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = a->m[i][0] * v[0] + a->m[i][1] * v[1] + a->m[i][2] * v[2] + a->m[i][3];
}

static void mat_dir(const mat *a, const double v[3], double out[3])
{
    for (int i = 0; i < 3; i++) out[i] = a->m[i][0] * v[0] + a->m[i][1] * v[1] + a->m[i][2] * v[2];
}

/* T * R * S from a translation, a unit quaternion (w, x, y, z) and a scale. */
static mat mat_trs(const double t[3], const double q[4], const double s[3])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    double r[3][3] = {
        {1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
        {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
        {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)},
    };
    mat m = mat_identity();
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) m.m[i][j] = r[i][j] * s[j];
        m.m[i][3] = t[i];
    }
    return m;
}

/* Index of the last key at or before tick (0 before the first); *f is the
 * fraction towards the next key, 0 when tick is outside the keys. */
static unsigned key_segment(const double *times, unsigned n, double tick, double *f)
{
    *f = 0;
    if (n == 0 || tick <= times[0]) return 0;
    if (tick >= times[n - 1]) return n - 1;
    unsigned i = 0;
    while (i + 1 < n && times[i + 1] <= tick) i++;
    double dt = times[i + 1] - times[i];
    *f = dt > 0 ? (tick - times[i]) / dt : 0;
    return i;
}

static void eval_vec(const struct aiVectorKey *k, unsigned n, double tick, double out[3])
{
    double *times = malloc(n * sizeof *times), f;
    for (unsigned i = 0; i < n; i++) times[i] = k[i].mTime;
    unsigned i = key_segment(times, n, tick, &f);
    free(times);
    const struct aiVector3D *a = &k[i].mValue, *b = f > 0 ? &k[i + 1].mValue : a;
    out[0] = a->x + (b->x - a->x) * f;
    out[1] = a->y + (b->y - a->y) * f;
    out[2] = a->z + (b->z - a->z) * f;
}

/* Spherical interpolation along the shorter arc; out is normalised. */
static void slerp(const double a[4], const double b_in[4], double f, double out[4])
{
    double b[4] = {b_in[0], b_in[1], b_in[2], b_in[3]};
    double c = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (c < 0) {
        c = -c;
        for (int i = 0; i < 4; i++) b[i] = -b[i];
    }
    double s0 = 1 - f, s1 = f;
    if (c < 0.9999999) {
        double om = acos(c), so = sin(om);
        s0 = sin((1 - f) * om) / so;
        s1 = sin(f * om) / so;
    }
    double len = 0;
    for (int i = 0; i < 4; i++) {
        out[i] = s0 * a[i] + s1 * b[i];
        len += out[i] * out[i];
    }
    len = sqrt(len);
    for (int i = 0; i < 4; i++) out[i] /= len;
}

static void eval_quat(const struct aiQuatKey *k, unsigned n, double tick, double out[4])
{
    double *times = malloc(n * sizeof *times), f;
    for (unsigned i = 0; i < n; i++) times[i] = k[i].mTime;
    unsigned i = key_segment(times, n, tick, &f);
    free(times);
    const struct aiQuaternion *qa = &k[i].mValue, *qb = f > 0 ? &k[i + 1].mValue : qa;
    double a[4] = {qa->w, qa->x, qa->y, qa->z}, b[4] = {qb->w, qb->x, qb->y, qb->z};
    slerp(a, b, f, out);
}

/* Splits a node's own matrix into T, R (w,x,y,z) and S, for channels that
 * animate only some of the three (assimp keeps the rest from the node). */
static void decompose(const mat *m, double t[3], double q[4], double s[3])
{
    double r[3][3];
    for (int i = 0; i < 3; i++) t[i] = m->m[i][3];
    for (int j = 0; j < 3; j++) {
        s[j] = sqrt(m->m[0][j] * m->m[0][j] + m->m[1][j] * m->m[1][j] + m->m[2][j] * m->m[2][j]);
        for (int i = 0; i < 3; i++) r[i][j] = s[j] > 0 ? m->m[i][j] / s[j] : 0;
    }
    double det = r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1]) -
                 r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0]) +
                 r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0]);
    if (det < 0) {
        s[0] = -s[0];
        for (int i = 0; i < 3; i++) r[i][0] = -r[i][0];
    }
    double tr = r[0][0] + r[1][1] + r[2][2];
    if (tr > 0) {
        double k = sqrt(tr + 1) * 2;
        q[0] = k / 4;
        q[1] = (r[2][1] - r[1][2]) / k;
        q[2] = (r[0][2] - r[2][0]) / k;
        q[3] = (r[1][0] - r[0][1]) / k;
    } else if (r[0][0] > r[1][1] && r[0][0] > r[2][2]) {
        double k = sqrt(1 + r[0][0] - r[1][1] - r[2][2]) * 2;
        q[0] = (r[2][1] - r[1][2]) / k;
        q[1] = k / 4;
        q[2] = (r[0][1] + r[1][0]) / k;
        q[3] = (r[0][2] + r[2][0]) / k;
    } else if (r[1][1] > r[2][2]) {
        double k = sqrt(1 + r[1][1] - r[0][0] - r[2][2]) * 2;
        q[0] = (r[0][2] - r[2][0]) / k;
        q[1] = (r[0][1] + r[1][0]) / k;
        q[2] = k / 4;
        q[3] = (r[1][2] + r[2][1]) / k;
    } else {
        double k = sqrt(1 + r[2][2] - r[0][0] - r[1][1]) * 2;
        q[0] = (r[1][0] - r[0][1]) / k;
        q[1] = (r[0][2] + r[2][0]) / k;
        q[2] = (r[1][2] + r[2][1]) / k;
        q[3] = k / 4;
    }
}

/* Nodes flattened parent-first, with their world matrices. */
typedef struct {
    const struct aiNode **node;
    int *parent;
    mat *local, *world;
    int count, cap;
} node_table;

static void node_table_free(node_table *nt)
{
    free(nt->node);
    free(nt->parent);
    free(nt->local);
    free(nt->world);
}


static void collect(node_table *nt, const struct aiNode *n, int parent)
{
    if (nt->count == nt->cap) {
        nt->cap = nt->cap ? nt->cap * 2 : 64;
        nt->node = realloc(nt->node, (size_t)nt->cap * sizeof *nt->node);
        nt->parent = realloc(nt->parent, (size_t)nt->cap * sizeof *nt->parent);
        nt->local = realloc(nt->local, (size_t)nt->cap * sizeof *nt->local);
        nt->world = realloc(nt->world, (size_t)nt->cap * sizeof *nt->world);
        if (!nt->node || !nt->parent || !nt->local || !nt->world) {
            fprintf(stderr, "assimp_pose: out of memory\n");
            exit(1);
        }
    }
    int me = nt->count++;
    nt->node[me] = n;
    nt->parent[me] = parent;
    nt->local[me] = parent < 0 && !keep_root ? mat_identity() : mat_from_ai(&n->mTransformation);
    for (unsigned i = 0; i < n->mNumChildren; i++) collect(nt, n->mChildren[i], me);
}

static int find_node(const node_table *nt, const char *name)
{
    for (int i = 0; i < nt->count; i++)
        if (!strcmp(nt->node[i]->mName.data, name)) return i;
    return -1;
}

static void compose(node_table *nt)
{
    for (int i = 0; i < nt->count; i++)
        nt->world[i] = nt->parent[i] < 0 ? nt->local[i] : mat_mul(&nt->world[nt->parent[i]], &nt->local[i]);
}

static double anim_tps(const struct aiAnimation *a)
{
    return a->mTicksPerSecond > 0 ? a->mTicksPerSecond : 25.0;
}

static void apply_anim(node_table *nt, const struct aiAnimation *a, double seconds)
{
    double tick = seconds * anim_tps(a);
    for (unsigned c = 0; c < a->mNumChannels; c++) {
        const struct aiNodeAnim *ch = a->mChannels[c];
        int n = find_node(nt, ch->mNodeName.data);
        if (n < 0) {
            fprintf(stderr, "assimp_pose: channel for unknown node '%s' skipped\n", ch->mNodeName.data);
            continue;
        }
        if (nt->parent[n] < 0 && !keep_root) continue; /* the root carries assimp's frame, dropped */
        double t[3], q[4], s[3];
        decompose(&nt->local[n], t, q, s);
        if (ch->mNumPositionKeys) eval_vec(ch->mPositionKeys, ch->mNumPositionKeys, tick, t);
        if (ch->mNumRotationKeys) eval_quat(ch->mRotationKeys, ch->mNumRotationKeys, tick, q);
        if (ch->mNumScalingKeys) eval_vec(ch->mScalingKeys, ch->mNumScalingKeys, tick, s);
        nt->local[n] = mat_trs(t, q, s);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void list_anims(const struct aiScene *sc, FILE *out)
{
    for (unsigned i = 0; i < sc->mNumAnimations; i++) {
        const struct aiAnimation *a = sc->mAnimations[i];
        double tps = anim_tps(a);
        size_t n = 0, cap = 0;
        double *t = NULL;
        for (unsigned c = 0; c < a->mNumChannels; c++) {
            const struct aiNodeAnim *ch = a->mChannels[c];
            size_t add = ch->mNumPositionKeys + ch->mNumRotationKeys + ch->mNumScalingKeys;
            if (n + add > cap) {
                cap = (n + add) * 2;
                t = realloc(t, cap * sizeof *t);
                if (!t) exit(1);
            }
            for (unsigned k = 0; k < ch->mNumPositionKeys; k++) t[n++] = ch->mPositionKeys[k].mTime / tps;
            for (unsigned k = 0; k < ch->mNumRotationKeys; k++) t[n++] = ch->mRotationKeys[k].mTime / tps;
            for (unsigned k = 0; k < ch->mNumScalingKeys; k++) t[n++] = ch->mScalingKeys[k].mTime / tps;
        }
        if (n) qsort(t, n, sizeof *t, cmp_double);
        fprintf(out, "anim %u %s %.9g tps %.9g keys", i, a->mName.length ? a->mName.data : "-",
                a->mDuration / tps, tps);
        for (size_t k = 0; k < n; k++)
            if (k == 0 || t[k] - t[k - 1] > 1e-7) fprintf(out, " %.9g", t[k]);
        fputc('\n', out);
        free(t);
    }
}

static const struct aiScene *import(const char *path)
{
    struct aiPropertyStore *props = aiCreatePropertyStore();
    /* The frame conventions are applied by this tool (see above); the
     * property only keeps the reader from adding its own. */
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, 1);
    /* Triangulate only: no step that merges vertices, limits or drops weights. */
    const struct aiScene *sc = aiImportFileExWithProperties(path, aiProcess_Triangulate, NULL, props);
    aiReleasePropertyStore(props);
    if (!sc) fprintf(stderr, "assimp_pose: %s: %s\n", path, aiGetErrorString());
    return sc;
}

/* Maps the file's frame to Y-up metres (see the header comment). */
static void to_frame(char up, double unit, double v[3], int is_point)
{
    double x = v[0], y = v[1], z = v[2];
    if (up == 'Z') { v[0] = x; v[1] = z; v[2] = -y; }
    else if (up == 'X') { v[0] = -y; v[1] = x; v[2] = z; }
    if (is_point)
        for (int i = 0; i < 3; i++) v[i] *= unit;
}

/* The node of bone b of mesh me. assimp names a bone by its node's name; when
 * several nodes share that name (magnum's skin-multiple-sets.dae has Node_3
 * both at the top level and in the joint chain), the one whose parent is also
 * a bone of the mesh, else the first. */
static int bone_node(const node_table *nt, const struct aiMesh *me, unsigned b)
{
    const char *name = me->mBones[b]->mName.data;
    int first = -1;
    for (int i = 0; i < nt->count; i++) {
        if (strcmp(nt->node[i]->mName.data, name)) continue;
        if (first < 0) first = i;
        int p = nt->parent[i];
        for (unsigned o = 0; p >= 0 && o < me->mNumBones; o++)
            if (!strcmp(nt->node[p]->mName.data, me->mBones[o]->mName.data)) return i;
    }
    return first;
}

/* Skins mesh me for the node matrices of nt (mesh instance at node). */
static void skin_mesh(const struct aiMesh *me, const node_table *nt, int node, double (*pos)[3], double (*nrm)[3])
{
    unsigned nv = me->mNumVertices;
    if (me->mNumBones == 0) {
        for (unsigned v = 0; v < nv; v++) {
            double p[3] = {me->mVertices[v].x, me->mVertices[v].y, me->mVertices[v].z};
            mat_point(&nt->world[node], p, pos[v]);
            if (me->mNormals) {
                double n[3] = {me->mNormals[v].x, me->mNormals[v].y, me->mNormals[v].z};
                mat_dir(&nt->world[node], n, nrm[v]);
            }
        }
        return;
    }
    for (unsigned b = 0; b < me->mNumBones; b++) {
        const struct aiBone *bone = me->mBones[b];
        int bn = bone_node(nt, me, b);
        if (bn < 0) {
            fprintf(stderr, "assimp_pose: bone '%s' has no node\n", bone->mName.data);
            exit(1);
        }
        mat off = mat_from_ai(&bone->mOffsetMatrix);
        mat skin = mat_mul(&nt->world[bn], &off);
        for (unsigned k = 0; k < bone->mNumWeights; k++) {
            unsigned v = bone->mWeights[k].mVertexId;
            double w = bone->mWeights[k].mWeight, q[3];
            if (v >= nv) continue;
            double src[3] = {me->mVertices[v].x, me->mVertices[v].y, me->mVertices[v].z};
            mat_point(&skin, src, q);
            for (int i = 0; i < 3; i++) pos[v][i] += w * q[i];
            if (me->mNormals) {
                double n[3] = {me->mNormals[v].x, me->mNormals[v].y, me->mNormals[v].z};
                mat_dir(&skin, n, q);
                for (int i = 0; i < 3; i++) nrm[v][i] += w * q[i];
            }
        }
    }
}

/* The vertices as stored, weighted like skinning with identity matrices
 * (mesh space: without the COLLADA bind shape matrix, which assimp keeps in
 * the offset matrices). */
static void bind_mesh(const struct aiMesh *me, const node_table *rest, int node, double (*pos)[3])
{
    if (me->mNumBones == 0) {
        for (unsigned v = 0; v < me->mNumVertices; v++) {
            double p[3] = {me->mVertices[v].x, me->mVertices[v].y, me->mVertices[v].z};
            mat_point(&rest->world[node], p, pos[v]);
        }
        return;
    }
    for (unsigned b = 0; b < me->mNumBones; b++)
        for (unsigned k = 0; k < me->mBones[b]->mNumWeights; k++) {
            const struct aiVertexWeight *w = &me->mBones[b]->mWeights[k];
            if (w->mVertexId >= me->mNumVertices) continue;
            pos[w->mVertexId][0] += w->mWeight * me->mVertices[w->mVertexId].x;
            pos[w->mVertexId][1] += w->mWeight * me->mVertices[w->mVertexId].y;
            pos[w->mVertexId][2] += w->mWeight * me->mVertices[w->mVertexId].z;
        }
}

static void write_mesh(FILE *out, const struct aiMesh *me, const node_table *rest, const node_table *posed,
                       int node, int bind_only, char up, double unit)
{
    unsigned nv = me->mNumVertices;
    double(*rpos)[3] = calloc(nv + 1, sizeof *rpos), (*pos)[3] = calloc(nv + 1, sizeof *pos),
          (*nrm)[3] = calloc(nv + 1, sizeof *nrm), (*junk)[3] = calloc(nv + 1, sizeof *junk);
    if (!rpos || !pos || !nrm || !junk) {
        fprintf(stderr, "assimp_pose: out of memory\n");
        exit(1);
    }
    skin_mesh(me, rest, node, rpos, nrm);
    if (bind_only) bind_mesh(me, rest, node, pos);
    else skin_mesh(me, posed, node, pos, junk);
    fprintf(out, "mesh %s node %s vertices %u\n", me->mName.length ? me->mName.data : "-",
            posed->node[node]->mName.data, nv);
    for (unsigned v = 0; v < nv; v++) {
        double uv[2] = {0, 0};
        if (me->mTextureCoords[0]) {
            uv[0] = me->mTextureCoords[0][v].x;
            uv[1] = me->mTextureCoords[0][v].y;
        }
        double l = sqrt(nrm[v][0] * nrm[v][0] + nrm[v][1] * nrm[v][1] + nrm[v][2] * nrm[v][2]);
        for (int i = 0; i < 3 && l > 0; i++) nrm[v][i] /= l;
        to_frame(up, unit, rpos[v], 1);
        to_frame(up, unit, pos[v], 1);
        to_frame(up, unit, nrm[v], 0);
        fprintf(out, "%.9g %.9g %.9g %.9g %.9g %.9g %.6f %.6f %.6f %.6f %.6f\n", rpos[v][0], rpos[v][1],
                rpos[v][2], pos[v][0], pos[v][1], pos[v][2], nrm[v][0], nrm[v][1], nrm[v][2], uv[0], uv[1]);
    }
    free(rpos);
    free(pos);
    free(nrm);
    free(junk);
}

static void write_instances(FILE *out, const struct aiScene *sc, const node_table *rest,
                            const node_table *posed, int bind_only, char up, double unit)
{
    for (int n = 0; n < posed->count; n++)
        for (unsigned k = 0; k < posed->node[n]->mNumMeshes; k++)
            write_mesh(out, sc->mMeshes[posed->node[n]->mMeshes[k]], rest, posed, n, bind_only, up, unit);
}

/* --joints: every node's posed world position. */
static void write_joints(FILE *out, const node_table *posed, char up, double unit)
{
    for (int n = 0; n < posed->count; n++) {
        double p[3] = {posed->world[n].m[0][3], posed->world[n].m[1][3], posed->world[n].m[2][3]};
        to_frame(up, unit, p, 1);
        fprintf(out, "joint %s %.9g %.9g %.9g\n", posed->node[n]->mName.data, p[0], p[1], p[2]);
    }
}

static int usage(void)
{
    fputs("usage: assimp_pose MODEL [--anim-file FILE] [--anim INDEX|NAME] [--time T]\n"
          "                   [--rest | --bind] [--up X|Y|Z --unit M] [--list] [--joints] [-o OUT]\n",
          stderr);
    return 2;
}

int main(int argc, char **argv)
{
    const char *model = NULL, *anim_file = NULL, *anim_sel = NULL, *out_path = NULL;
    double seconds = 0, unit = 1;
    int rest_only = 0, bind_only = 0, list = 0;
    char up = 'Y';
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--anim-file") && more) anim_file = argv[++i];
        else if (!strcmp(a, "--anim") && more) anim_sel = argv[++i];
        else if (!strcmp(a, "--time") && more) seconds = atof(argv[++i]);
        else if (!strcmp(a, "--unit") && more) unit = atof(argv[++i]);
        else if (!strcmp(a, "--up") && more) up = argv[++i][0];
        else if (!strcmp(a, "-o") && more) out_path = argv[++i];
        else if (!strcmp(a, "--rest")) rest_only = 1;
        else if (!strcmp(a, "--bind")) bind_only = 1;
        else if (!strcmp(a, "--list")) list = 1;
        else if (!strcmp(a, "--joints")) joints_only = 1;
        else if (a[0] != '-' && !model) model = a;
        else return usage();
    }
    if (!model || (up != 'X' && up != 'Y' && up != 'Z') || !(unit > 0)) return usage();

    const char *dot = strrchr(model, '.');
    keep_root = joints_only || (dot && (!strcasecmp(dot, ".gltf") || !strcasecmp(dot, ".glb")));
    const struct aiScene *sc = import(model), *asc = NULL;
    if (!sc) return 3;
    const struct aiScene *anim_scene = sc;
    if (anim_file) {
        asc = import(anim_file);
        if (!asc) return 3;
        anim_scene = asc;
    }
    FILE *out = out_path ? fopen(out_path, "w") : stdout;
    if (!out) {
        perror(out_path);
        return 1;
    }
    if (list) {
        list_anims(anim_scene, out);
        if (out != stdout) fclose(out);
        aiReleaseImport(sc);
        if (asc) aiReleaseImport(asc);
        return 0;
    }

    const struct aiAnimation *anim = NULL;
    if (!rest_only && !bind_only && anim_scene->mNumAnimations) {
        anim = anim_scene->mAnimations[0];
        if (anim_sel) {
            char *end;
            long idx = strtol(anim_sel, &end, 10);
            anim = NULL;
            if (!*end && idx >= 0 && (unsigned long)idx < anim_scene->mNumAnimations)
                anim = anim_scene->mAnimations[idx];
            for (unsigned i = 0; !anim && i < anim_scene->mNumAnimations; i++)
                if (!strcmp(anim_scene->mAnimations[i]->mName.data, anim_sel)) anim = anim_scene->mAnimations[i];
            if (!anim) {
                fprintf(stderr, "assimp_pose: %s has no animation '%s'\n", model, anim_sel);
                aiReleaseImport(sc);
                if (asc) aiReleaseImport(asc);
                return 3;
            }
        }
    }

    node_table rest = {0}, posed = {0};
    collect(&rest, sc->mRootNode, -1);
    collect(&posed, sc->mRootNode, -1);
    mat root = mat_from_ai(&sc->mRootNode->mTransformation);
    fprintf(stderr, "assimp_pose: %s the root transform [", keep_root ? "kept" : "dropped");
    for (int i = 0; i < 16; i++) fprintf(stderr, "%s%.6g", i ? " " : "", root.m[i / 4][i % 4]);
    fprintf(stderr, "]\n");
    if (anim) apply_anim(&posed, anim, seconds);
    compose(&rest);
    compose(&posed);

    fprintf(out, "# assimp_pose: %s, %s", model, bind_only ? "bind pose" : rest_only || !anim ? "rest pose" : "animation");
    if (anim) fprintf(out, " '%s' at %.9g s", anim->mName.data, seconds);
    fprintf(out, ", up %c unit %g\n", up, unit);
    if (joints_only) write_joints(out, &posed, up, unit);
    else write_instances(out, sc, &rest, &posed, bind_only, up, unit);
    node_table_free(&rest);
    node_table_free(&posed);

    if (out != stdout && fclose(out) != 0) {
        perror(out_path);
        return 1;
    }
    aiReleaseImport(sc);
    if (asc) aiReleaseImport(asc);
    return 0;
}
