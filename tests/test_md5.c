/* test_md5.c — the MD5 reader and writer (src/formats/md5*.c) and the
 * extension dispatch (src/formats/load.c): real models from ../shared/models
 * (Bob, snoutx10k), hand-written edge cases, the bad-file corpus in
 * tests/bad/md5, seeded mutations, the number parser against strtof, and
 * parse speed.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "core/file.h"
#include "core/path.h"
#include "core/str.h"
#include "formats/load.h"
#include "formats/md5.h"
#include "formats/md5_lex.h"
#include "ref_quat.h"
#include "test.h"
#include "test_files.h"

#define BOB_DIR SHARED_MODELS "assimp/test/models-nonbsd/MD5/"
#define BOB_MESH BOB_DIR "Bob.md5mesh"
#define BOB_ANIM BOB_DIR "Bob.md5anim"
#define SNOUT_DIR SHARED_MODELS "tomatenquark-essential/packages/models/snoutx10k/"
#define SNOUT_MESH SNOUT_DIR "snoutx10k.md5mesh"
#define CUBE_MESH SHARED_MODELS "assimp/test/models/MD5/SimpleCube.md5mesh"
#define BAD_DIR "tests/bad/md5"

static const char *const snout_anims[] = {
    SNOUT_DIR "backward.md5anim", SNOUT_DIR "dying.md5anim", SNOUT_DIR "forward.md5anim",
    SNOUT_DIR "idle.md5anim",     SNOUT_DIR "jump.md5anim",  SNOUT_DIR "pain.md5anim",
    SNOUT_DIR "shotgun_shoot.md5anim",
};
#define SNOUT_ANIMS ((int)(sizeof snout_anims / sizeof snout_anims[0]))

/* The two-joint skeleton the anim cases (and the .md5anim files in tests/bad/md5) use. */
static const char PAIR_MESH[] =
    "MD5Version 10\n"
    "commandline \"\"\n"
    "numJoints 2\n"
    "numMeshes 0\n"
    "joints {\n"
    "\t\"root\"\t-1 ( 0 0 0 ) ( 0 0 0 )\n"
    "\t\"child\"\t0 ( 0 0 10 ) ( 0 0 0 )\n"
    "}\n";

/* A valid anim for PAIR_MESH: root animates Tx, child Qx Qy Qz. */
static const char PAIR_ANIM[] =
    "MD5Version 10\n"
    "commandline \"\"\n"
    "numFrames 2\n"
    "numJoints 2\n"
    "frameRate 24\n"
    "numAnimatedComponents 4\n"
    "hierarchy {\n"
    "\t\"root\"\t-1 1 0\n"
    "\t\"child\"\t0 56 1\n"
    "}\n"
    "bounds {\n"
    "\t( -1 -1 -1 ) ( 1 1 11 )\n"
    "\t( -1 -1 -1 ) ( 1 1 11 )\n"
    "}\n"
    "baseframe {\n"
    "\t( 0 0 0 ) ( 0 0 0 )\n"
    "\t( 0 0 10 ) ( 0 0 0 )\n"
    "}\n"
    "frame 0 {\n"
    "\t0 0 0 0\n"
    "}\n"
    "frame 1 {\n"
    "\t1 0.5 0 0\n"
    "}\n";

/* ---- helpers ---- */

static char *read_text(const char *path, size_t *len)
{
    mr_error e;
    char *t = mr_file_read(path, len, &e);
    if (!t) printf("       cannot read %s: %s\n", path, e.msg);
    return t;
}

static mr_model *pair_model(void)
{
    mr_model *m = NULL;
    mr_error e;
    mr_md5_parse_mesh("pair.md5mesh", PAIR_MESH, strlen(PAIR_MESH), &m, &e);
    return m;
}

/* "md5: NAME:LINE: expected X, found Y" on one line; returns LINE or -1. */
static int error_line(const mr_error *e, const char *name)
{
    char prefix[1200];
    snprintf(prefix, sizeof prefix, "md5: %s:", name);
    size_t n = strlen(prefix);
    if (strncmp(e->msg, prefix, n) != 0 || strchr(e->msg, '\n')) return -1;
    const char *p = e->msg + n;
    if (*p < '0' || *p > '9') return -1;
    int line = (int)strtol(p, (char **)&p, 10);
    if (strncmp(p, ": expected ", 11) != 0 || !strstr(p, ", found ")) return -1;
    return line;
}

static int well_formed_error(mr_status st, const mr_error *e, const char *name)
{
    return st == MR_ERR_BAD_FILE && e->status == MR_ERR_BAD_FILE && error_line(e, name) >= 1;
}

static float dist3(const float *a, const float *b)
{
    float d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return sqrtf(d0 * d0 + d1 * d1 + d2 * d2);
}

/* |q1 - q2| up to sign (q and -q are the same rotation). */
static float quat_diff(const float *a, const float *b)
{
    float s = 0, d = 0;
    for (int k = 0; k < 4; k++) {
        s = fmaxf(s, fabsf(a[k] - b[k]));
        d = fmaxf(d, fabsf(a[k] + b[k]));
    }
    return fminf(s, d);
}

static char *make_temp_dir(void)
{
    char tmpl[] = "/tmp/marrow-md5-XXXXXX";
    char *d = mkdtemp(tmpl);
    return d ? mr_str_dup(d) : NULL;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* ---- an independent reading of the MD5 text (sscanf, double precision) ---- */

typedef struct ref_weight { int joint; double bias, pos[3]; } ref_weight;
typedef struct ref_mesh { int nv, nw; int *start, *count; ref_weight *w; } ref_mesh;
typedef struct ref_model {
    int nj, nm;
    int parent[MR_MAX_JOINTS];
    double t[MR_MAX_JOINTS][3], q[MR_MAX_JOINTS][4];
    ref_mesh mesh[16];
} ref_model;
typedef struct ref_anim {
    int frames, joints, comps;
    double rate;
    int flags[MR_MAX_JOINTS], start[MR_MAX_JOINTS];
    double base[MR_MAX_JOINTS][6];
    double *vals;   /* frames * comps */
} ref_anim;

static double ref_w(double x, double y, double z)
{
    double t = 1.0 - x * x - y * y - z * z;
    return t < 0 ? 0 : -sqrt(t);
}

static int ref_read_mesh(const char *path, ref_model *rm)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    memset(rm, 0, sizeof *rm);
    char line[1024];
    int in_joints = 0, j = 0, mesh = -1;
    while (fgets(line, sizeof line, f)) {
        double x, y, z, qx, qy, qz, b;
        int a, i, c, p;
        if (strstr(line, "joints {")) { in_joints = 1; continue; }
        if (in_joints && strchr(line, '}')) { in_joints = 0; continue; }
        if (in_joints && sscanf(line, " \"%*[^\"]\" %d ( %lf %lf %lf ) ( %lf %lf %lf )", &p, &x, &y,
                                &z, &qx, &qy, &qz) == 7) {
            rm->parent[j] = p;
            rm->t[j][0] = x; rm->t[j][1] = y; rm->t[j][2] = z;
            rm->q[j][0] = qx; rm->q[j][1] = qy; rm->q[j][2] = qz; rm->q[j][3] = ref_w(qx, qy, qz);
            j++;
        } else if (strstr(line, "mesh {")) {
            mesh++;
        } else if (sscanf(line, " numverts %d", &a) == 1) {
            rm->mesh[mesh].nv = a;
            rm->mesh[mesh].start = calloc((size_t)a + 1, sizeof(int));
            rm->mesh[mesh].count = calloc((size_t)a + 1, sizeof(int));
        } else if (sscanf(line, " numweights %d", &a) == 1) {
            rm->mesh[mesh].nw = a;
            rm->mesh[mesh].w = calloc((size_t)a + 1, sizeof(ref_weight));
        } else if (sscanf(line, " vert %d ( %lf %lf ) %d %d", &i, &x, &y, &a, &c) == 5) {
            rm->mesh[mesh].start[i] = a;
            rm->mesh[mesh].count[i] = c;
        } else if (sscanf(line, " weight %d %d %lf ( %lf %lf %lf )", &i, &a, &b, &x, &y, &z) == 6) {
            ref_weight *w = &rm->mesh[mesh].w[i];
            w->joint = a; w->bias = b; w->pos[0] = x; w->pos[1] = y; w->pos[2] = z;
        }
    }
    fclose(f);
    rm->nj = j;
    rm->nm = mesh + 1;
    return 0;
}

static void ref_free_mesh(ref_model *rm)
{
    for (int m = 0; m < rm->nm; m++) {
        free(rm->mesh[m].start);
        free(rm->mesh[m].count);
        free(rm->mesh[m].w);
    }
}

static int ref_read_anim(const char *path, ref_anim *ra)
{
    size_t len;
    char *text = read_text(path, &len);
    if (!text) return -1;
    memset(ra, 0, sizeof *ra);
    char *s = text;
    ra->frames = atoi(strstr(s, "numFrames") + 9);
    ra->joints = atoi(strstr(s, "numJoints") + 9);
    ra->rate = atof(strstr(s, "frameRate") + 9);
    ra->comps = atoi(strstr(s, "numAnimatedComponents") + 21);
    ra->vals = calloc((size_t)ra->frames * ra->comps + 1, sizeof(double));
    char *h = strstr(s, "hierarchy {") + 11;
    for (int j = 0; j < ra->joints; j++) {
        h = strchr(h, '"') + 1;
        h = strchr(h, '"') + 1;
        ra->flags[j] = (int)strtol(h, &h, 10);   /* parent, skipped */
        ra->flags[j] = (int)strtol(h, &h, 10);
        ra->start[j] = (int)strtol(h, &h, 10);
    }
    char *b = strstr(s, "baseframe {") + 11;
    for (int j = 0; j < ra->joints; j++)
        for (int k = 0; k < 6; k++) {
            b = strpbrk(b, "-0123456789.");
            ra->base[j][k] = strtod(b, &b);
        }
    char *fr = b;
    for (int f = 0; f < ra->frames; f++) {
        fr = strstr(fr, "frame ");
        fr = strchr(fr, '{') + 1;
        for (int c = 0; c < ra->comps; c++) ra->vals[(size_t)f * ra->comps + c] = strtod(fr, &fr);
    }
    free(text);
    return 0;
}

/* Model-space joints of frame f, by the MD5 rules. */
static void ref_frame_joints(const ref_anim *ra, const ref_model *rm, int f, double (*t)[3],
                             double (*q)[4])
{
    for (int j = 0; j < ra->joints; j++) {
        double c[6];
        memcpy(c, ra->base[j], sizeof c);
        int k = ra->start[j];
        for (int b = 0; b < 6; b++)
            if (ra->flags[j] & (1 << b)) c[b] = ra->vals[(size_t)f * ra->comps + k++];
        double lt[3] = {c[0], c[1], c[2]}, lq[4] = {c[3], c[4], c[5], ref_w(c[3], c[4], c[5])};
        int p = rm->parent[j];
        if (p < 0) {
            memcpy(t[j], lt, sizeof lt);
            memcpy(q[j], lq, sizeof lq);
        } else {
            double r[3];
            ref_qrot(q[p], lt, r);
            for (int a = 0; a < 3; a++) t[j][a] = t[p][a] + r[a];
            ref_qmul(q[p], lq, q[j]);
            double n = sqrt(q[j][0] * q[j][0] + q[j][1] * q[j][1] + q[j][2] * q[j][2] + q[j][3] * q[j][3]);
            for (int a = 0; a < 4; a++) q[j][a] /= n;
        }
    }
}

static void ref_vertex(const ref_mesh *m, int v, double (*t)[3], double (*q)[4], double out[3])
{
    out[0] = out[1] = out[2] = 0;
    for (int k = 0; k < m->count[v]; k++) {
        const ref_weight *w = &m->w[m->start[v] + k];
        double r[3];
        ref_qrot(q[w->joint], w->pos, r);
        for (int a = 0; a < 3; a++) out[a] += w->bias * (t[w->joint][a] + r[a]);
    }
}

/* ---- reading real models ---- */

TEST(md5_load_mesh_bob_counts_frame_and_materials)
{
    mr_model *m = NULL;
    mr_error e = {0};
    CHECK(mr_md5_load_mesh(BOB_MESH, &m, &e) == MR_OK);
    if (!m) { printf("       %s\n", e.msg); return; }
    int v, t;
    mr_model_counts(m, &v, &t);
    CHECK(m->skeleton.joint_count == 33);
    CHECK(m->mesh_count == 6);
    CHECK(v == 875 && t == 1027);
    CHECK(strcmp(m->format, "md5") == 0);
    CHECK(strcmp(m->path, BOB_MESH) == 0);
    CHECK(m->axes.up == MR_UP_Z);
    CHECK_NEAR(m->axes.meters_per_unit, 0.0254, 1e-9);
    CHECK_STR_CONTAINS(m->axes_note, "Z-up, inches");
    CHECK_STR_CONTAINS(m->axes_note, "Y-up metres");
    CHECK(m->warning_count == 0);
    CHECK(strcmp(m->skeleton.names[0], "origin") == 0 && m->skeleton.parents[0] == -1);
    CHECK(strcmp(m->skeleton.names[32], "tiptoe.L") == 0 && m->skeleton.parents[32] == 31);
    CHECK(strcmp(m->meshes[0].name, "guard1_body") == 0);
    CHECK(strcmp(m->meshes[4].name, "round_grill") == 0);
    CHECK(strcmp(m->meshes[1].material.diffuse_map, BOB_DIR "guard1_face.png") == 0);
    CHECK(mr_file_exists(m->meshes[1].material.diffuse_map));
    CHECK(m->meshes[1].material.normal_map == NULL);
    CHECK(m->meshes[0].vertex_count == 494);
    mr_error ve;
    CHECK(mr_skeleton_validate(&m->skeleton, &ve) == MR_OK);
    mr_model_destroy(m);
}

TEST(md5_load_mesh_bob_normals_point_outward)
{
    mr_model *m = NULL;
    mr_error e;
    CHECK(mr_md5_load_mesh(BOB_MESH, &m, &e) == MR_OK);
    if (!m) return;
    /* The body mesh: normals should point away from its centroid on average. */
    const mr_mesh *b = &m->meshes[0];
    vec3 c = {0, 0, 0};
    for (int i = 0; i < b->vertex_count; i++) glm_vec3_add(c, b->positions[i], c);
    glm_vec3_scale(c, 1.0f / b->vertex_count, c);
    double mean = 0;
    int outward = 0;
    for (int i = 0; i < b->vertex_count; i++) {
        vec3 d;
        glm_vec3_sub(b->positions[i], c, d);
        glm_vec3_normalize(d);
        float dot = glm_vec3_dot(b->normals[i], d);
        mean += dot;
        outward += dot > 0;
        CHECK_NEAR(glm_vec3_norm(b->normals[i]), 1.0, 1e-5);
    }
    mean /= b->vertex_count;
    /* Signed volume about the centroid: positive when the counter-clockwise
     * faces look outward. */
    double volume = 0;
    for (int i = 0; i + 2 < b->index_count; i += 3) {
        vec3 p0, p1, p2, x;
        glm_vec3_sub(b->positions[b->indices[i]], c, p0);
        glm_vec3_sub(b->positions[b->indices[i + 1]], c, p1);
        glm_vec3_sub(b->positions[b->indices[i + 2]], c, p2);
        glm_vec3_cross(p1, p2, x);
        volume += glm_vec3_dot(p0, x) / 6.0;
    }
    printf("       Bob body: signed volume %.1f cubic inches\n", volume);
    CHECK(volume > 0);
    printf("       Bob body: mean dot(normal, dir from centroid) %.3f, %d of %d outward\n", mean,
           outward, b->vertex_count);
    CHECK(mean > 0.3);
    mr_model_destroy(m);
}

TEST(md5_load_mesh_flips_winding_and_v)
{
    mr_model *m = NULL;
    mr_error e;
    CHECK(mr_md5_load_mesh(BOB_MESH, &m, &e) == MR_OK);
    if (!m) return;
    /* Bob.md5mesh: "vert 0 ( 0.394531 0.513672 ) 0 1" and "tri 0 0 2 1". */
    CHECK_NEAR(m->meshes[0].uvs[0][0], 0.394531, 1e-7);
    CHECK_NEAR(m->meshes[0].uvs[0][1], 1.0 - 0.513672, 1e-7);
    uint32_t *ix = m->meshes[0].indices;
    CHECK(ix[0] == 0 && ix[1] == 1 && ix[2] == 2);
    mr_model_destroy(m);
}

TEST(md5_load_mesh_rest_pose_rebuilds_file_bind)
{
    mr_model *m = NULL;
    mr_error e;
    CHECK(mr_md5_load_mesh(BOB_MESH, &m, &e) == MR_OK);
    if (!m) return;
    ref_model *rm = calloc(1, sizeof *rm);
    ref_read_mesh(BOB_MESH, rm);
    const mr_skeleton *sk = &m->skeleton;
    mr_pose pose;
    mr_pose_init(&pose, sk->joint_count);
    mr_pose_set_rest(&pose, sk);
    mat4 *world = calloc((size_t)sk->joint_count, sizeof *world);
    mr_pose_to_model(sk, &pose, world);
    float worst_t = 0, worst_q = 0, worst_i = 0;
    for (int j = 0; j < sk->joint_count; j++) {
        float ft[3] = {(float)rm->t[j][0], (float)rm->t[j][1], (float)rm->t[j][2]};
        worst_t = fmaxf(worst_t, dist3(world[j][3], ft));
        versor q;
        glm_mat4_quat(world[j], q);
        float fq[4] = {(float)rm->q[j][0], (float)rm->q[j][1], (float)rm->q[j][2], (float)rm->q[j][3]};
        float n = sqrtf(fq[0] * fq[0] + fq[1] * fq[1] + fq[2] * fq[2] + fq[3] * fq[3]);
        for (int k = 0; k < 4; k++) fq[k] /= n;
        worst_q = fmaxf(worst_q, quat_diff(q, fq));
        mat4 id;
        glm_mat4_mul(world[j], sk->inverse_bind[j], id);
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) worst_i = fmaxf(worst_i, fabsf(id[c][r] - (c == r)));
        CHECK_NEAR(sk->rest_s[j][0], 1.0, 0);
    }
    printf("       rest pose vs file bind: position %.2g, rotation %.2g, world*inverse_bind-I %.2g\n",
           worst_t, worst_q, worst_i);
    CHECK(worst_t < 1e-4);
    CHECK(worst_q < 1e-5);
    CHECK(worst_i < 5e-5);   /* translations near 50 in float */
    free(world);
    mr_pose_deinit(&pose);
    mr_model_destroy(m);
    ref_free_mesh(rm);
    free(rm);
}

TEST(md5_load_mesh_vertices_follow_weight_formula)
{
    mr_model *m = NULL;
    mr_error e;
    CHECK(mr_md5_load_mesh(BOB_MESH, &m, &e) == MR_OK);
    if (!m) return;
    ref_model *rm = calloc(1, sizeof *rm);
    ref_read_mesh(BOB_MESH, rm);
    CHECK(rm->nm == m->mesh_count);
    float worst = 0;
    for (int k = 0; k < rm->nm && k < m->mesh_count; k++)
        for (int v = 0; v < rm->mesh[k].nv; v++) {
            double p[3];
            ref_vertex(&rm->mesh[k], v, rm->t, rm->q, p);
            float fp[3] = {(float)p[0], (float)p[1], (float)p[2]};
            worst = fmaxf(worst, dist3(m->meshes[k].positions[v], fp));
            float sum = 0;
            for (int i = 0; i < 4; i++) sum += m->meshes[k].weights[v][i];
            CHECK_NEAR(sum, 1.0, 1e-5);
        }
    CHECK(worst < 1e-4);
    mr_model_destroy(m);
    ref_free_mesh(rm);
    free(rm);
}

TEST(md5_load_anim_bob_clip)
{
    mr_model *m = NULL;
    mr_error e;
    CHECK(mr_md5_load_mesh(BOB_MESH, &m, &e) == MR_OK);
    if (!m) return;
    CHECK(mr_md5_load_anim(m, BOB_ANIM, &e) == MR_OK);
    CHECK(m->clip_count == 1);
    if (m->clip_count == 1) {
        mr_clip *c = m->clips[0];
        CHECK(strcmp(c->name, "Bob") == 0);
        CHECK(c->joint_count == 33);
        CHECK_NEAR(c->duration, 139.0 / 24.0, 1e-6);
        CHECK_NEAR(c->rate, 24.0, 0);
        CHECK(mr_clip_key_count(c) == 140);
        CHECK(c->tracks[5].r.key_count == 140 && c->tracks[5].t.key_count == 140);
        CHECK_NEAR(c->tracks[5].r.uniform_rate, 24.0, 1e-3);
        CHECK(c->tracks[5].r.interp == MR_INTERP_LINEAR);
        CHECK_NEAR(c->tracks[5].t.times[37], 37.0 / 24.0, 1e-6);
        /* frame 0, joint 0: "-0.000000 0.016430 -0.006044 -0.707107 -0.000242 -0.707107" */
        const float *q = c->tracks[0].r.values;
        CHECK_NEAR(q[0], -0.707107, 1e-6);
        CHECK_NEAR(q[3], -sqrt(fmax(0, 1 - 2 * 0.707107 * 0.707107 - 0.000242 * 0.000242)), 1e-6);
        CHECK(q[3] <= 0);
        CHECK_NEAR(c->tracks[0].t.values[1], 0.016430, 1e-7);
        CHECK(mr_clip_validate(c, &e) == MR_OK);
    }
    mr_model_destroy(m);
}

TEST(md5_skinning_bob_frames_match_md5_formula)
{
    mr_model *m = NULL;
    mr_error e;
    CHECK(mr_md5_load_mesh(BOB_MESH, &m, &e) == MR_OK);
    if (!m) return;
    CHECK(mr_md5_load_anim(m, BOB_ANIM, &e) == MR_OK);
    ref_model *rm = calloc(1, sizeof *rm);
    ref_anim *ra = calloc(1, sizeof *ra);
    ref_read_mesh(BOB_MESH, rm);
    ref_read_anim(BOB_ANIM, ra);
    const mr_skeleton *sk = &m->skeleton;
    int nj = sk->joint_count;
    mr_pose pose;
    mr_pose_init(&pose, nj);
    mat4 *world = calloc((size_t)nj, sizeof *world), *skin = calloc((size_t)nj, sizeof *skin);
    double (*t)[3] = calloc((size_t)nj, sizeof *t);
    double (*q)[4] = calloc((size_t)nj, sizeof *q);
    vec3 *pos = calloc(600, sizeof *pos), *nrm = calloc(600, sizeof *nrm);
    vec3 mn, mx;
    mr_model_bounds(m, mn, mx);
    float diag = glm_vec3_distance(mn, mx);
    const int frames[3] = {0, 37, 139};
    float worst = 0;
    int over4 = 0, compared = 0;
    for (int fi = 0; fi < 3 && m->clip_count == 1; fi++) {
        int f = frames[fi];
        CHECK(mr_clip_sample(m->clips[0], sk, (float)f / 24.0f, MR_WRAP_CLAMP, &pose) == MR_OK);
        mr_pose_to_model(sk, &pose, world);
        mr_pose_skinning(sk, world, skin);
        ref_frame_joints(ra, rm, f, t, q);
        for (int k = 0; k < m->mesh_count; k++) {
            const mr_mesh *mesh = &m->meshes[k];
            CHECK(mesh->vertex_count <= 600);
            mr_mesh_skin(mesh, skin, pos, nrm);
            for (int v = 0; v < mesh->vertex_count; v++) {
                if (rm->mesh[k].count[v] > 4) {
                    over4 += fi == 0;
                    continue;
                }
                double p[3];
                ref_vertex(&rm->mesh[k], v, t, q, p);
                float fp[3] = {(float)p[0], (float)p[1], (float)p[2]};
                worst = fmaxf(worst, dist3(pos[v], fp));
                compared++;
            }
        }
    }
    printf("       Bob frames 0/37/139: max skinning error %.3g (%.2g%% of the %.1f bbox diagonal), "
           "%d vertex checks, %d vertices with >4 weights skipped\n",
           worst, 100.0 * worst / diag, diag, compared, over4);
    CHECK(compared == 3 * 875 - 3 * over4);
    CHECK(worst < 0.001f * diag);
    free(world); free(skin); free(t); free(q); free(pos); free(nrm);
    free(ra->vals);
    free(ra);
    ref_free_mesh(rm);
    free(rm);
    mr_pose_deinit(&pose);
    mr_model_destroy(m);
}

TEST(md5_load_anim_one_frame_is_valid)
{
    mr_model *m = NULL;
    mr_error e;
    CHECK(mr_md5_load_mesh(SNOUT_MESH, &m, &e) == MR_OK);
    if (!m) return;
    CHECK(mr_md5_load_anim(m, SNOUT_DIR "jump.md5anim", &e) == MR_OK);
    CHECK(m->clip_count == 1);
    if (m->clip_count == 1) {
        CHECK(strcmp(m->clips[0]->name, "jump") == 0);
        CHECK_NEAR(m->clips[0]->duration, 0.0, 0);
        CHECK(mr_clip_key_count(m->clips[0]) == 1);
        mr_pose pose;
        mr_pose_init(&pose, m->skeleton.joint_count);
        CHECK(mr_clip_sample(m->clips[0], &m->skeleton, 0.5f, MR_WRAP_LOOP, &pose) == MR_OK);
        mr_pose_deinit(&pose);
    }
    mr_model_destroy(m);
}

TEST(md5_load_all_snoutx10k_anims)
{
    mr_model *m = NULL;
    mr_error e;
    CHECK(mr_md5_load_mesh(SNOUT_MESH, &m, &e) == MR_OK);
    if (!m) return;
    CHECK(m->skeleton.joint_count == 75 && m->mesh_count == 2);
    /* The shader paths are absolute ("/home/geartrooper/Desktop/Snout/lower.png"):
     * found by base name beside the mesh. */
    CHECK(strcmp(m->meshes[0].material.diffuse_map, SNOUT_DIR "lower.png") == 0);
    CHECK_STR_CONTAINS(m->meshes[0].material.name, "/home/geartrooper");
    CHECK(m->warning_count == 0);
    for (int i = 0; i < SNOUT_ANIMS; i++) {
        mr_status st = mr_md5_load_anim(m, snout_anims[i], &e);
        CHECK_MSG(st == MR_OK, "%s: %s", snout_anims[i], e.msg);
    }
    CHECK(m->clip_count == SNOUT_ANIMS);
    /* backward.md5anim ends with fragments of text after its last frame. */
    CHECK(m->warning_count == 1);
    if (m->warning_count) CHECK_STR_CONTAINS(m->warnings[0], "backward.md5anim:6330: text after the last frame");
    mr_model_destroy(m);
}

TEST(md5_load_anim_refuses_other_skeleton)
{
    mr_model *m = NULL;
    mr_error e;
    CHECK(mr_md5_load_mesh(SNOUT_MESH, &m, &e) == MR_OK);
    if (!m) return;
    mr_status st = mr_md5_load_anim(m, BOB_ANIM, &e);
    CHECK(well_formed_error(st, &e, BOB_ANIM));
    CHECK_STR_CONTAINS(e.msg, "expected joint 'Root' (joint 0 of the model's skeleton), found '\"origin\"'");
    CHECK(m->clip_count == 0);
    mr_model_destroy(m);
}

/* PAIR_ANIM with one line replaced. */
static mr_status pair_anim_edit(mr_model *m, const char *from, const char *to, mr_error *e)
{
    char text[2048];
    const char *at = strstr(PAIR_ANIM, from);
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - PAIR_ANIM), PAIR_ANIM, to, at + strlen(from));
    return mr_md5_parse_anim(m, "edit.md5anim", NULL, text, strlen(text), e);
}

TEST(md5_parse_anim_hierarchy_differences_name_the_joint)
{
    mr_model *m = pair_model();
    CHECK(m != NULL);
    if (!m) return;
    mr_error e;
    CHECK(pair_anim_edit(m, "\"child\"\t0 56 1", "\"arm\"\t0 56 1", &e) == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(e.msg, "edit.md5anim:9: expected joint 'child' (joint 1 of the model's skeleton), found '\"arm\"'");
    CHECK(pair_anim_edit(m, "\"child\"\t0 56 1", "\"child\"\t-1 56 1", &e) == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(e.msg, "expected parent 0 for joint 'child'");
    CHECK(pair_anim_edit(m, "numJoints 2", "numJoints 1", &e) == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(e.msg, "expected joint 'child' (joint 1 of the model's 2; numJoints is 1)");
    CHECK(pair_anim_edit(m, "\"child\"\t0 56 1\n", "\"child\"\t0 56 1\n\"hand\" 1 0 0\n", &e) ==
          MR_ERR_BAD_FILE);   /* numJoints 2 still: the extra line is not a '}' */
    CHECK(m->clip_count == 0);
    CHECK(mr_md5_parse_anim(m, "pair.md5anim", NULL, PAIR_ANIM, strlen(PAIR_ANIM), &e) == MR_OK);
    CHECK(m->clip_count == 1);
    mr_model_destroy(m);
}

TEST(md5_parse_anim_unflagged_group_holds_baseframe)
{
    mr_model *m = pair_model();
    if (!m) { CHECK(m != NULL); return; }
    mr_error e;
    /* root: Tx only (flags 1); child: nothing animated, baseframe differs from the bind. */
    CHECK(pair_anim_edit(m, "\"child\"\t0 56 1", "\"child\"\t0 0 5", &e) == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(e.msg, "expected a startIndex from 0 to 4");
    const char *edited =
        "MD5Version 10 commandline \"\" numFrames 2 numJoints 2 frameRate 10 numAnimatedComponents 2\n"
        "hierarchy { \"root\" -1 9 0 \"child\" 0 0 2 }\n"
        "bounds { ( 0 0 0 ) ( 1 1 1 ) ( 0 0 0 ) ( 1 1 1 ) }\n"
        "baseframe { ( 5 6 7 ) ( 0 0.6 0 ) ( 1 2 3 ) ( 0 0 0.6 ) }\n"
        "frame 0 { 0.5 0 } frame 1 { 1.5 0.6 }";
    CHECK(mr_md5_parse_anim(m, "flags.md5anim", "flags", edited, strlen(edited), &e) == MR_OK);
    mr_clip *c = m->clip_count ? m->clips[0] : NULL;
    CHECK(c != NULL);
    if (c) {
        CHECK(strcmp(c->name, "flags") == 0);
        CHECK_NEAR(c->duration, 0.1, 1e-7);
        /* root translation: x animated, y z from the baseframe */
        CHECK(c->tracks[0].t.key_count == 2);
        CHECK_NEAR(c->tracks[0].t.values[3], 1.5, 0);
        CHECK_NEAR(c->tracks[0].t.values[4], 6, 0);
        CHECK_NEAR(c->tracks[0].t.values[5], 7, 0);
        /* root rotation: qx animated (0 then 0.6), qy 0.6 from the baseframe, w rebuilt */
        CHECK(c->tracks[0].r.key_count == 2);
        CHECK_NEAR(c->tracks[0].r.values[4], 0.6, 1e-7);
        CHECK_NEAR(c->tracks[0].r.values[5], 0.6, 1e-7);
        CHECK_NEAR(c->tracks[0].r.values[7], -sqrt(1 - 0.72), 1e-6);
        /* child: one key each, the baseframe's values (not the mesh's bind 0 0 10) */
        CHECK(c->tracks[1].t.key_count == 1 && c->tracks[1].r.key_count == 1);
        CHECK_NEAR(c->tracks[1].t.values[2], 3, 0);
        CHECK_NEAR(c->tracks[1].r.values[2], 0.6, 1e-7);
        CHECK_NEAR(c->tracks[1].r.values[3], -0.8, 1e-6);
        CHECK(c->tracks[1].s.key_count == 0);
    }
    mr_model_destroy(m);
}

/* ---- hand-written meshes ---- */

static mr_status parse_mesh_text(const char *name, const char *text, mr_model **m, mr_error *e)
{
    return mr_md5_parse_mesh(name, text, strlen(text), m, e);
}

/* Joints a..j at x = 0..9. Vertex 0 has 5 weights (all kept), vertex 1
 * has 10 and vertex 2 has 9 (both cut to 8). */
static const char *const many_weights_text =
        "MD5Version 10 commandline \"\" numJoints 10 numMeshes 1\n"
        "joints { \"a\" -1 ( 0 0 0 ) ( 0 0 0 ) \"b\" 0 ( 1 0 0 ) ( 0 0 0 ) \"c\" 0 ( 2 0 0 ) ( 0 0 0 )\n"
        "\"d\" 0 ( 3 0 0 ) ( 0 0 0 ) \"e\" 0 ( 4 0 0 ) ( 0 0 0 ) \"f\" 0 ( 5 0 0 ) ( 0 0 0 )\n"
        "\"g\" 0 ( 6 0 0 ) ( 0 0 0 ) \"h\" 0 ( 7 0 0 ) ( 0 0 0 ) \"i\" 0 ( 8 0 0 ) ( 0 0 0 )\n"
        "\"j\" 0 ( 9 0 0 ) ( 0 0 0 ) }\n"
        "mesh { shader \"\" numverts 3\n"
        "vert 0 ( 0 0 ) 0 5 vert 1 ( 0 0 ) 5 10 vert 2 ( 0 0 ) 15 9\n"
        "numtris 1 tri 0 0 1 2 numweights 24\n"
        "weight 0 0 0.1 ( 0 0 0 ) weight 1 1 0.3 ( 0 0 0 ) weight 2 2 0.2 ( 0 0 0 )\n"
        "weight 3 3 0.25 ( 0 0 0 ) weight 4 4 0.15 ( 0 0 0 )\n"
        "weight 5 0 0.01 ( 0 1 0 ) weight 6 1 0.02 ( 0 1 0 ) weight 7 2 0.13 ( 0 1 0 )\n"
        "weight 8 3 0.04 ( 0 1 0 ) weight 9 4 0.15 ( 0 1 0 ) weight 10 5 0.06 ( 0 1 0 )\n"
        "weight 11 6 0.17 ( 0 1 0 ) weight 12 7 0.08 ( 0 1 0 ) weight 13 8 0.19 ( 0 1 0 )\n"
        "weight 14 9 0.15 ( 0 1 0 )\n"
        "weight 15 0 0.2 ( 0 0 1 ) weight 16 1 0.1 ( 0 0 1 ) weight 17 2 0.1 ( 0 0 1 )\n"
        "weight 18 3 0.1 ( 0 0 1 ) weight 19 4 0.1 ( 0 0 1 ) weight 20 5 0.1 ( 0 0 1 )\n"
        "weight 21 6 0.1 ( 0 0 1 ) weight 22 7 0.1 ( 0 0 1 ) weight 23 8 0.1 ( 0 0 1 ) }";

TEST(md5_parse_mesh_more_than_8_weights_warns_once)
{
    mr_model *m = NULL;
    mr_error e;
    CHECK(parse_mesh_text("w.md5mesh", many_weights_text, &m, &e) == MR_OK);
    if (!m) { printf("       %s\n", e.msg); return; }
    CHECK(m->warning_count == 1);
    if (m->warning_count) CHECK_STR_CONTAINS(m->warnings[0], "2 vertices had more than 8 weights: kept the 8 heaviest, renormalised");
    const mr_mesh *mesh = &m->meshes[0];
    CHECK(mesh->source_over4 == 3 && mesh->source_over8 == 2);
    /* Vertex 0: all 5, heaviest first, unnormalised biases already sum to 1. */
    static const int want0[5] = {1, 3, 2, 4, 0};
    for (int k = 0; k < 5; k++) CHECK(mesh->joints[0][k] == want0[k]);
    CHECK(mesh->weights[0][5] == 0.0f);
    CHECK_NEAR(mesh->weights[0][0], 0.3, 1e-6);
    /* Vertex 1: the 8 heaviest of 10 (0.01 and 0.02 cut), renormalised by 0.97. */
    static const int want1[8] = {8, 6, 4, 9, 2, 7, 5, 3};
    float sum = 0;
    for (int k = 0; k < 8; k++) {
        CHECK_MSG(mesh->joints[1][k] == want1[k], "slot %d: joint %d", k, mesh->joints[1][k]);
        sum += mesh->weights[1][k];
    }
    CHECK_NEAR(sum, 1.0, 1e-6);
    CHECK_NEAR(mesh->weights[1][0], 0.19 / 0.97, 1e-6);
    /* Vertex 2: 0.2 on a, then seven of the eight equal 0.1: the dropped one
     * is i, the joint farthest from the vertex (at about x = 3.6). */
    CHECK(mesh->joints[2][0] == 0);
    for (int k = 1; k < 8; k++) CHECK(mesh->joints[2][k] == k);
    /* The bind position uses every weight: sum bias * joint x. */
    CHECK_NEAR(mesh->positions[0][0], 0.3 + 0.4 + 0.75 + 0.6, 1e-6);
    CHECK_NEAR(mesh->positions[1][1], 1.0, 1e-6);
    CHECK(strcmp(mesh->name, "mesh0") == 0 && mesh->material.diffuse_map == NULL);
    mr_model_destroy(m);
}

/* An md5mesh with 10 root joints listed in the order `order` (order[i]: the
 * joint written i-th); joint k is named names[k] and sits at (xs[k], 0, 0).
 * One vertex (three, for a triangle) has 10 equal weights, at the origin. */
static char *tie_mesh_text(const int *order, const char *const *names, const float *xs)
{
    char *t = malloc(8192);
    int n = snprintf(t, 8192, "MD5Version 10 numJoints 10 numMeshes 1 joints {\n");
    for (int i = 0; i < 10; i++)
        n += snprintf(t + n, 8192 - (size_t)n, "\"%s\" -1 ( %g 0 0 ) ( 0 0 0 )\n", names[order[i]], xs[order[i]]);
    n += snprintf(t + n, 8192 - (size_t)n,
                  "} mesh { shader \"\" numverts 3 vert 0 ( 0 0 ) 0 10 vert 1 ( 0 0 ) 0 10 vert 2 ( 0 0 ) 0 10\n"
                  "numtris 1 tri 0 0 1 2 numweights 10\n");
    for (int i = 0; i < 10; i++)  /* weights listed by file position: another order again */
        n += snprintf(t + n, 8192 - (size_t)n, "weight %d %d 0.1 ( %g 0 0 )\n", i, i, -xs[order[i]]);
    snprintf(t + n, 8192 - (size_t)n, "}\n");
    return t;
}

/* The 8 kept joints' names of vertex 0, sorted, joined with spaces. */
static void kept_names(const mr_model *m, char *out, size_t cap)
{
    const char *kept[MR_MAX_INFLUENCES];
    int n = 0;
    for (int k = 0; k < MR_MAX_INFLUENCES; k++)
        if (m->meshes[0].weights[0][k] > 0) kept[n++] = m->skeleton.names[m->meshes[0].joints[0][k]];
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (strcmp(kept[b], kept[a]) < 0) {
                const char *t = kept[a];
                kept[a] = kept[b];
                kept[b] = t;
            }
    out[0] = 0;
    for (int k = 0; k < n; k++) {
        strncat(out, kept[k], cap - strlen(out) - 1);
        if (k + 1 < n) strncat(out, " ", cap - strlen(out) - 1);
    }
}

TEST(md5_parse_mesh_equal_weights_cut_does_not_depend_on_joint_order)
{
    /* Joint k at x = k + 1 from the vertex; names sort the other way, so
     * names alone would keep the far ones, index alone depends on the order. */
    static const char *names[10] = {"z9", "z8", "z7", "z6", "z5", "z4", "z3", "z2", "z1", "z0"};
    float near_xs[10], same_xs[10];
    for (int k = 0; k < 10; k++) near_xs[k] = (float)(k + 1), same_xs[k] = 5.0f;
    static const int orders[4][10] = {
        {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0},
        {3, 9, 0, 5, 1, 8, 2, 7, 4, 6}, {8, 9, 1, 0, 7, 6, 2, 3, 5, 4}};
    for (int place = 0; place < 2; place++) {
        /* By distance: z9..z2 (the 8 nearest); all at one place: by name, z0..z7. */
        const char *want = place == 0 ? "z2 z3 z4 z5 z6 z7 z8 z9" : "z0 z1 z2 z3 z4 z5 z6 z7";
        for (int o = 0; o < 4; o++) {
            char *text = tie_mesh_text(orders[o], names, place == 0 ? near_xs : same_xs);
            mr_model *m = NULL;
            mr_error e;
            CHECK(parse_mesh_text("tie.md5mesh", text, &m, &e) == MR_OK);
            free(text);
            if (!m) { printf("       %s\n", e.msg); continue; }
            CHECK_NEAR(m->meshes[0].positions[0][0], 0.0, 1e-5);
            char got[128];
            kept_names(m, got, sizeof got);
            CHECK_MSG(!strcmp(got, want), "order %d, place %d: kept %s, want %s", o, place, got, want);
            CHECK(m->meshes[0].source_over8 == 3);
            mr_model_destroy(m);
        }
    }
}

TEST(md5_parse_mesh_biases_not_summing_to_1_renormalised)
{
    const char *text =
        "MD5Version 10 numJoints 1 numMeshes 1 joints { \"a\" -1 ( 0 0 0 ) ( 0 0 0 ) }\n"
        "mesh { shader \"\" numverts 3 vert 0 ( 0 0 ) 0 1 vert 1 ( 0 0 ) 1 1 vert 2 ( 0 0 ) 2 2\n"
        "numtris 1 tri 0 0 1 2 numweights 4\n"
        "weight 0 0 0.5 ( 2 0 0 ) weight 1 0 2 ( 0 2 0 ) weight 2 0 0.25 ( 0 0 2 ) weight 3 0 0.25 ( 0 0 4 ) }";
    mr_model *m = NULL;
    mr_error e;
    CHECK(parse_mesh_text("bias.md5mesh", text, &m, &e) == MR_OK);
    if (!m) { printf("       %s\n", e.msg); return; }
    CHECK(m->warning_count == 1);
    if (m->warning_count) CHECK_STR_CONTAINS(m->warnings[0], "3 vertices had weights not summing to 1: renormalised");
    CHECK_NEAR(m->meshes[0].positions[0][0], 2.0, 1e-6);
    CHECK_NEAR(m->meshes[0].positions[1][1], 2.0, 1e-6);
    CHECK_NEAR(m->meshes[0].positions[2][2], 3.0, 1e-6);
    CHECK_NEAR(m->meshes[0].weights[0][0], 1.0, 0);
    mr_model_destroy(m);
}

TEST(md5_parse_mesh_crlf_tabs_comments_no_final_newline)
{
    size_t len;
    char *lf = read_text(BOB_MESH, &len);
    if (!lf) { CHECK(lf != NULL); return; }
    /* CRLF everywhere, a block comment and a // comment after every line, no final newline. */
    char *crlf = malloc(len * 3 + 64);
    size_t o = 0;
    o += (size_t)sprintf(crlf, "/* converted\r\n to CRLF */");
    for (size_t i = 0; i < len; i++) {
        if (lf[i] == '\n') {
            memcpy(crlf + o, " //x\r\n", 6);
            o += 6;
        } else {
            crlf[o++] = lf[i] == ' ' ? '\t' : lf[i];
        }
    }
    while (o > 0 && (crlf[o - 1] == '\n' || crlf[o - 1] == '\r' || crlf[o - 1] == 'x' || crlf[o - 1] == '/' ||
                     crlf[o - 1] == ' '))
        o--;
    crlf[o] = '\0';
    mr_model *a = NULL, *b = NULL;
    mr_error e;
    CHECK(mr_md5_parse_mesh(BOB_MESH, lf, len, &a, &e) == MR_OK);
    CHECK(mr_md5_parse_mesh(BOB_MESH, crlf, o, &b, &e) == MR_OK);
    if (a && b) {
        int same = a->mesh_count == b->mesh_count;
        for (int k = 0; same && k < a->mesh_count; k++) {
            const mr_mesh *x = &a->meshes[k], *y = &b->meshes[k];
            same = x->vertex_count == y->vertex_count && x->index_count == y->index_count &&
                   !memcmp(x->positions, y->positions, sizeof *x->positions * x->vertex_count) &&
                   !memcmp(x->uvs, y->uvs, sizeof *x->uvs * x->vertex_count) &&
                   !memcmp(x->indices, y->indices, sizeof *x->indices * x->index_count);
        }
        CHECK(same);
    }
    /* A CRLF error names the right line. */
    char *cut = strstr(crlf, "numverts\t494");
    mr_model *c = NULL;
    CHECK(cut != NULL);
    if (cut) {
        memcpy(cut, "numverts\t4x4", 12);
        CHECK(mr_md5_parse_mesh("crlf.md5mesh", crlf, o, &c, &e) == MR_ERR_BAD_FILE);
        CHECK(error_line(&e, "crlf.md5mesh") == 47);   /* Bob.md5mesh line 47 */
    }
    /* A lone CR ends a line too. */
    const char *cr = "MD5Version 10\rnumJoints 1\rnumMeshes 0\rjoints {\r\"a\" -1 ( 0 0 0 ) ( 0 x 0 )\r}";
    CHECK(parse_mesh_text("cr.md5mesh", cr, &c, &e) == MR_ERR_BAD_FILE);
    CHECK(error_line(&e, "cr.md5mesh") == 5);
    mr_model_destroy(a);
    mr_model_destroy(b);
    free(lf);
    free(crlf);
}

TEST(md5_parse_mesh_resolves_textures_by_base_name)
{
    char *dir = make_temp_dir();
    if (!dir) { CHECK(dir != NULL); return; }
    char *p;
    p = mr_path_join(dir, "skin.png"); write_text(p, "x"); free(p);
    p = mr_path_join(dir, "skin_normal.tga"); write_text(p, "x"); free(p);
    p = mr_path_join(dir, "face.jpg"); write_text(p, "x"); free(p);
    p = mr_path_join(dir, "face_local.png"); write_text(p, "x"); free(p);
    p = mr_path_join(dir, "body"); write_text(p, "x"); free(p);
    p = mr_path_join(dir, "Armor.PNG"); write_text(p, "x"); free(p);
    const char *text =
        "MD5Version 10 numJoints 1 numMeshes 6 joints { \"a\" -1 ( 0 0 0 ) ( 0 0 0 ) }\n"
        "mesh { shader \"C:\\\\art\\\\skin.tga\" numverts 0 numtris 0 numweights 0 }\n"
        "mesh { shader \"/home/someone/face\" numverts 0 numtris 0 numweights 0 }\n"
        "mesh { shader \"models/monsters/body\" numverts 0 numtris 0 numweights 0 }\n"
        "mesh { shader \"textures/missing.dds\" numverts 0 numtris 0 numweights 0 }\n"
        "mesh { shader \"\" numverts 0 numtris 0 numweights 0 }\n"
        "mesh { shader \"armor.tga\" numverts 0 numtris 0 numweights 0 }\n";
    char *path = mr_path_join(dir, "t.md5mesh");
    write_text(path, text);
    mr_model *m = NULL;
    mr_error e;
    CHECK(mr_md5_load_mesh(path, &m, &e) == MR_OK);
    if (m) {
        char *want;
        want = mr_path_join(dir, "skin.png");
        CHECK(strcmp(m->meshes[0].material.diffuse_map, want) == 0);
        free(want);
        want = mr_path_join(dir, "skin_normal.tga");
        CHECK(m->meshes[0].material.normal_map && strcmp(m->meshes[0].material.normal_map, want) == 0);
        free(want);
        CHECK(strcmp(m->meshes[0].name, "skin") == 0);
        want = mr_path_join(dir, "face.jpg");
        CHECK(strcmp(m->meshes[1].material.diffuse_map, want) == 0);
        free(want);
        want = mr_path_join(dir, "face_local.png");
        CHECK(m->meshes[1].material.normal_map && strcmp(m->meshes[1].material.normal_map, want) == 0);
        free(want);
        want = mr_path_join(dir, "body");
        CHECK(strcmp(m->meshes[2].material.diffuse_map, want) == 0);
        free(want);
        want = mr_path_join(dir, "missing.dds");
        CHECK(strcmp(m->meshes[3].material.diffuse_map, want) == 0);
        free(want);
        CHECK(m->meshes[3].material.normal_map == NULL);
        CHECK(strcmp(m->meshes[4].name, "mesh4") == 0 && m->meshes[4].material.diffuse_map == NULL);
        want = mr_path_join(dir, "Armor.PNG");   /* any letter case, the name as on disk */
        CHECK(strcmp(m->meshes[5].material.diffuse_map, want) == 0);
        free(want);
        CHECK(m->warning_count == 1);
        if (m->warning_count) CHECK_STR_CONTAINS(m->warnings[0], "\"textures/missing.dds\" not found");
    } else {
        printf("       %s\n", e.msg);
    }
    mr_model_destroy(m);
    free(path);
    test_remove_tree(dir);
    free(dir);
}

TEST(md5_parse_mesh_missing_texture_warnings_are_capped)
{
    char text[4096];
    int o = snprintf(text, sizeof text,
                     "MD5Version 10 numJoints 1 numMeshes 12 joints { \"a\" -1 ( 0 0 0 ) ( 0 0 0 ) }\n");
    for (int i = 0; i < 12; i++)
        o += snprintf(text + o, sizeof text - (size_t)o,
                      "mesh { shader \"gone%d.tga\" numverts 0 numtris 0 numweights 0 }\n", i % 10);
    mr_model *m = NULL;
    mr_error e;
    CHECK(parse_mesh_text("/nonexistent/dir/t.md5mesh", text, &m, &e) == MR_OK);
    if (!m) return;
    CHECK(m->warning_count == 9);   /* 8 named, then "2 more": 10 distinct shaders */
    if (m->warning_count == 9) {
        CHECK_STR_CONTAINS(m->warnings[0], "mesh 0 'gone0': texture \"gone0.tga\" not found (looked for /nonexistent/dir/gone0.tga");
        CHECK_STR_CONTAINS(m->warnings[8], "2 more textures were not found");
    }
    CHECK(strcmp(m->meshes[11].material.diffuse_map, "/nonexistent/dir/gone1.tga") == 0);
    mr_model_destroy(m);
}

TEST(md5_parse_mesh_absurd_count_refused_before_allocating)
{
    const char *text =
        "MD5Version 10 numJoints 1 numMeshes 1 joints { \"a\" -1 ( 0 0 0 ) ( 0 0 0 ) }\n"
        "mesh { shader \"\"\nnumverts 2000000000\nvert 0 ( 0 0 ) 0 1 }";
    mr_model *m = (mr_model *)&m;   /* must come back NULL */
    mr_error e;
    CHECK(parse_mesh_text("big.md5mesh", text, &m, &e) == MR_ERR_BAD_FILE);
    CHECK(m == NULL);
    CHECK_STR_CONTAINS(e.msg, "md5: big.md5mesh:3: expected numverts that fits the file (at most 1 in the 21 bytes left), found '2000000000'");
    const char *anim = "MD5Version 10 numFrames 1000000 numJoints 1";
    mr_model *p = pair_model();
    CHECK(p && mr_md5_parse_anim(p, "big.md5anim", NULL, anim, strlen(anim), &e) == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(e.msg, "expected numFrames that fits the file");
    mr_model_destroy(p);
}

TEST(md5_parse_mesh_every_truncation_of_a_cube_fails_cleanly)
{
    size_t len;
    char *text = read_text(CUBE_MESH, &len);
    if (!text) { CHECK(text != NULL); return; }
    int bad = 0, ok = 0;
    char *buf = malloc(len + 1);
    /* Every prefix: the file's content is complete only at the very end. */
    for (size_t n = 0; n <= len; n++) {
        memcpy(buf, text, n);
        buf[n] = '\0';
        mr_model *m = NULL;
        mr_error e;
        mr_status st = mr_md5_parse_mesh("cube.md5mesh", buf, n, &m, &e);
        if (st == MR_OK) { ok++; mr_model_destroy(m); }
        else if (well_formed_error(st, &e, "cube.md5mesh") && m == NULL) bad++;
        else CHECK_MSG(0, "prefix %zu: status %d '%s'", n, st, e.msg);
    }
    /* The last "}" and the blank lines after it are the only complete prefixes. */
    CHECK(ok >= 1 && ok <= 4);
    CHECK(ok + bad == (int)len + 1);
    free(buf);
    free(text);
}

/* ---- bad files ---- */

static int check_bad_file(const char *path, mr_model *pair)
{
    mr_error e = {0};
    mr_status st;
    int is_anim = strstr(path, ".md5anim") != NULL;
    mr_model *m = NULL;
    if (is_anim) st = mr_md5_load_anim(pair, path, &e);
    else st = mr_md5_load_mesh(path, &m, &e);
    int line = error_line(&e, path);
    int expect = 1;
    size_t len;
    char *text = read_text(path, &len);
    if (text && sscanf(text, "// line %d:", &expect) != 1) expect = 1;
    free(text);
    int good = st == MR_ERR_BAD_FILE && line == expect && m == NULL && pair->clip_count == 0;
    CHECK_MSG(good, "%s: status %d, line %d (want %d): %s", path, st, line, expect, e.msg);
    if (getenv("MD5_SHOW_ERRORS")) printf("       %s\n", e.msg);
    mr_model_destroy(m);
    return good;
}

TEST(md5_bad_corpus_fails_with_one_line_error)
{
    DIR *d = opendir(BAD_DIR);
    CHECK(d != NULL);
    if (!d) return;
    mr_model *pair = pair_model();
    CHECK(pair != NULL);
    int files = 0, meshes = 0, anims = 0;
    struct dirent *ent;
    while (pair && (ent = readdir(d))) {
        const char *n = ent->d_name;
        size_t l = strlen(n);
        int mesh = l > 8 && !strcmp(n + l - 8, ".md5mesh"), anim = l > 8 && !strcmp(n + l - 8, ".md5anim");
        if (!mesh && !anim) continue;
        char *path = mr_path_join(BAD_DIR, n);
        check_bad_file(path, pair);
        free(path);
        files++;
        meshes += mesh;
        anims += anim;
    }
    closedir(d);
    printf("       %d bad files (%d meshes, %d anims)\n", files, meshes, anims);
    CHECK(meshes >= 40 && anims >= 25);
    mr_model_destroy(pair);
}

#define QUIRK_DIR "tests/quirks/md5"

/* 1 when two clips hold the same keys (times and values, bit for bit). */
static int same_clip(const mr_clip *a, const mr_clip *b)
{
    if (a->joint_count != b->joint_count || a->duration != b->duration) return 0;
    for (int i = 0; i < a->joint_count; i++) {
        const mr_track *ta[3] = {&a->tracks[i].t, &a->tracks[i].r, &a->tracks[i].s};
        const mr_track *tb[3] = {&b->tracks[i].t, &b->tracks[i].r, &b->tracks[i].s};
        for (int k = 0; k < 3; k++) {
            int n = ta[k]->key_count, w = k == 1 ? 4 : 3;
            if (n != tb[k]->key_count) return 0;
            if (n && (memcmp(ta[k]->times, tb[k]->times, (size_t)n * sizeof(float)) ||
                      memcmp(ta[k]->values, tb[k]->values, (size_t)n * w * sizeof(float))))
                return 0;
        }
    }
    return 1;
}

/* Every tests/quirks/md5 anim (PAIR_ANIM with extra, fewer or no bounds
 * entries) loads with exactly the warning its first line states, and its
 * clip is PAIR_ANIM's. */
TEST(md5_quirk_anims_bounds_count_off_load_with_located_warning)
{
    mr_model *ref = pair_model();
    mr_error e;
    CHECK(ref && mr_md5_parse_anim(ref, "pair.md5anim", NULL, PAIR_ANIM, strlen(PAIR_ANIM), &e) == MR_OK);
    DIR *d = opendir(QUIRK_DIR);
    CHECK(d != NULL);
    if (!d || !ref || ref->clip_count != 1) {
        if (d) closedir(d);
        mr_model_destroy(ref);
        return;
    }
    int files = 0;
    struct dirent *ent;
    while ((ent = readdir(d))) {
        size_t l = strlen(ent->d_name);
        if (l < 9 || strcmp(ent->d_name + l - 8, ".md5anim")) continue;
        char *path = mr_path_join(QUIRK_DIR, ent->d_name);
        size_t len;
        char *text = path ? read_text(path, &len) : NULL;
        int line = 0, at = 0;
        CHECK_MSG(text && sscanf(text, "// line %d: %n", &line, &at) == 1 && at > 0, "%s: no '// line N: ' header", path);
        mr_model *m = pair_model();
        if (text && line > 0 && m) {
            char want[512];
            snprintf(want, sizeof want, "%s:%d: %.*s", path, line, (int)strcspn(text + at, "\r\n"), text + at);
            mr_status st = mr_md5_load_anim(m, path, &e);
            CHECK_MSG(st == MR_OK, "%s: %s", path, e.msg);
            CHECK_MSG(m->warning_count == 1 && !strcmp(m->warnings[0], want), "%s: %d warnings, first '%s', want '%s'",
                      path, m->warning_count, m->warning_count ? m->warnings[0] : "", want);
            CHECK_MSG(m->clip_count == 1 && same_clip(m->clips[0], ref->clips[0]), "%s: clip differs from PAIR_ANIM's", path);
            files++;
        }
        mr_model_destroy(m);
        free(text);
        free(path);
    }
    closedir(d);
    printf("       %d quirk anims\n", files);
    CHECK(files >= 3);
    mr_model_destroy(ref);
}

TEST(md5_assimp_invalid_files_fail)
{
    static const char *const files[] = {
        SHARED_MODELS "assimp/test/models/MD5/invalid/InvalidBoneIndex.md5mesh",
        SHARED_MODELS "assimp/test/models/MD5/invalid/OverflowingTriangleIndex.md5mesh",
        SHARED_MODELS "assimp/test/models/MD5/invalid/OverflowingVertexIndex.md5mesh",
        SHARED_MODELS "assimp/test/models/MD5/invalid/OverflowingWeightIndex.md5mesh",
        SHARED_MODELS "assimp/test/models/invalid/empty.md5mesh",
    };
    static const int lines[] = {23, 18, 15, 21, 1};
    for (int i = 0; i < 5; i++) {
        mr_model *m = NULL;
        mr_error e;
        mr_status st = mr_md5_load_mesh(files[i], &m, &e);
        CHECK_MSG(well_formed_error(st, &e, files[i]) && m == NULL, "%s: %s", files[i], e.msg);
        CHECK_MSG(error_line(&e, files[i]) == lines[i], "%s", e.msg);
    }
}

TEST(md5_load_missing_file_is_io_error)
{
    mr_model *m = NULL;
    mr_error e;
    CHECK(mr_md5_load_mesh("no/such/file.md5mesh", &m, &e) == MR_ERR_IO);
    CHECK(m == NULL);
    CHECK_STR_CONTAINS(e.msg, "md5: no/such/file.md5mesh: ");
    mr_model *p = pair_model();
    CHECK(p && mr_md5_load_anim(p, "no/such/walk.md5anim", &e) == MR_ERR_IO);
    mr_model_destroy(p);
}

/* ---- mutations ---- */

static uint64_t rng_state;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

/* Applies 1-3 random edits to buf (len bytes, capacity cap); returns the new length. */
static size_t mutate(char *buf, size_t len, size_t cap)
{
    static const char interesting[] = "0123456789-+.eE ()\"{}\n\r\t/*x\0";
    int edits = 1 + (int)(rng() % 3);
    for (int k = 0; k < edits && len > 0; k++) {
        size_t at = rng() % len;
        switch (rng() % 6) {
        case 0: buf[at] = interesting[rng() % (sizeof interesting - 1)]; break;
        case 1: buf[at] = (char)(rng() & 0xff); break;
        case 2: {  /* delete a span */
            size_t n = 1 + rng() % 8;
            if (at + n > len) n = len - at;
            memmove(buf + at, buf + at + n, len - at - n);
            len -= n;
            break;
        }
        case 3:  /* insert a byte */
            if (len + 1 < cap) {
                memmove(buf + at + 1, buf + at, len - at);
                buf[at] = interesting[rng() % (sizeof interesting - 1)];
                len++;
            }
            break;
        case 4: len = at; break;  /* truncate */
        case 5: {  /* copy a span over another place (duplicated numbers, lines) */
            char span[40];
            size_t n = 1 + rng() % sizeof span, to = rng() % len;
            if (at + n > len) n = len - at;
            if (len + n < cap) {
                memcpy(span, buf + at, n);
                memmove(buf + to + n, buf + to, len - to);
                memcpy(buf + to, span, n);
                len += n;
            }
            break;
        }
        }
    }
    buf[len] = '\0';
    return len;
}

/* Bob with one mesh (the 4th, iron_grill) and three frames: small enough
 * for thousands of parses under ASan, still every construct of the files. */
static char *mini_mesh(const char *full)
{
    const char *first = strstr(full, "mesh {");
    const char *m = first;
    for (int i = 0; i < 3 && m; i++) m = strstr(m + 1, "mesh {");
    const char *next = m ? strstr(m + 1, "mesh {") : NULL;
    if (!first || !m || !next) return NULL;
    char *out = mr_str_fmt("%.*s%.*s", (int)(first - full), full, (int)(next - m), m);
    char *n = out ? strstr(out, "numMeshes 6") : NULL;
    if (n) n[10] = '1';
    return out;
}

static char *mini_anim(const char *full)
{
    const char *bounds = strstr(full, "bounds {\n");
    const char *base = strstr(full, "baseframe {");
    const char *f3 = strstr(full, "frame 3 {");
    if (!bounds || !base || !f3) return NULL;
    const char *b = bounds + 9;
    for (int i = 0; i < 3; i++) b = strchr(b, '\n') + 1;
    char *out = mr_str_fmt("%.*s%.*s}\n\n%.*s", (int)(bounds - full), full, (int)(b - bounds), bounds,
                          (int)(f3 - base), base);
    char *n = out ? strstr(out, "numFrames 140") : NULL;
    if (n) memcpy(n, "numFrames 3  ", 13);
    return out;
}

static void run_mutations(const char *name, const char *text, int count, mr_model *model,
                          int *ok, int *failed)
{
    size_t len = strlen(text), cap = len + 1024;
    char *buf = malloc(cap);
    for (int i = 0; i < count; i++) {
        memcpy(buf, text, len + 1);
        size_t n = mutate(buf, len, cap);
        mr_error e = {0};
        mr_status st;
        mr_model *m = NULL;
        if (model) {
            st = mr_md5_parse_anim(model, name, NULL, buf, n, &e);
            if (st == MR_OK) mr_clip_destroy(model->clips[--model->clip_count]);
        } else {
            st = mr_md5_parse_mesh(name, buf, n, &m, &e);
            if (st == MR_OK) mr_model_destroy(m);
        }
        if (st == MR_OK) (*ok)++;
        else if (well_formed_error(st, &e, name) && m == NULL) (*failed)++;
        else CHECK_MSG(0, "%s mutation %d: status %d '%s'", name, i, st, e.msg);
    }
    free(buf);
}

TEST(md5_mutations_of_bob_load_or_fail_cleanly)
{
    size_t ml, al;
    char *mesh = read_text(BOB_MESH, &ml), *anim = read_text(BOB_ANIM, &al);
    char *mm = mesh ? mini_mesh(mesh) : NULL, *ma = anim ? mini_anim(anim) : NULL;
    CHECK(mm && ma);
    mr_model *bob = NULL;
    mr_error e;
    CHECK(mr_md5_load_mesh(BOB_MESH, &bob, &e) == MR_OK);
    if (mm && ma && bob) {
        mr_model *check = NULL;
        CHECK(mr_md5_parse_mesh(BOB_MESH, mm, strlen(mm), &check, &e) == MR_OK);
        mr_model_destroy(check);
        CHECK(mr_md5_parse_anim(bob, BOB_ANIM, NULL, ma, strlen(ma), &e) == MR_OK);
        if (bob->clip_count) mr_clip_destroy(bob->clips[--bob->clip_count]);
        int ok = 0, failed = 0;
        rng_state = 0x9E3779B97F4A7C15ull;
        run_mutations(BOB_MESH, mm, 2500, NULL, &ok, &failed);
        run_mutations(BOB_ANIM, ma, 2500, bob, &ok, &failed);
        run_mutations(BOB_MESH, mesh, 60, NULL, &ok, &failed);
        run_mutations(BOB_ANIM, anim, 60, bob, &ok, &failed);
        printf("       5120 mutations: %d still load, %d refused with a well-formed error\n", ok, failed);
        CHECK(ok + failed == 5120);
        CHECK(failed > 2500);
    }
    mr_model_destroy(bob);
    free(mm);
    free(ma);
    free(mesh);
    free(anim);
}

/* ---- numbers ---- */

static int same_float(float a, float b)
{
    uint32_t x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    return x == y;
}

/* Parses s with md5_parse_float and strtof; 1 when they agree bit for bit. */
static int agrees(const char *s, size_t n)
{
    char buf[128];
    if (n >= sizeof buf) return 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    float mine;
    const char *stop;
    if (md5_parse_float(buf, buf + n, &mine, &stop) != 0 || stop != buf + n) return 0;
    return same_float(mine, strtof(buf, NULL));
}

TEST(md5_float_parser_matches_strtof_on_real_files)
{
    const char *files[3 + SNOUT_ANIMS] = {BOB_MESH, BOB_ANIM, SNOUT_MESH};
    for (int i = 0; i < SNOUT_ANIMS; i++) files[3 + i] = snout_anims[i];
    long numbers = 0, wrong = 0;
    for (int f = 0; f < 3 + SNOUT_ANIMS; f++) {
        size_t len;
        char *t = read_text(files[f], &len);
        if (!t) continue;
        for (size_t i = 0; i < len;) {
            if (strchr("0123456789-.", t[i]) && (i == 0 || strchr(" \t\n\r(", t[i - 1]))) {
                size_t j = i;
                while (j < len && strchr("0123456789-+.eE", t[j])) j++;
                if (j > i && (j == len || strchr(" \t\r\n)", t[j]))) {
                    numbers++;
                    if (!agrees(t + i, j - i)) {
                        if (wrong++ < 5) printf("       differs: %.*s\n", (int)(j - i), t + i);
                    }
                }
                i = j > i ? j : i + 1;
            } else {
                i++;
            }
        }
        free(t);
    }
    printf("       %ld numbers from the real files, %ld differ from strtof\n", numbers, wrong);
    CHECK(numbers > 100000);
    CHECK(wrong == 0);
}

TEST(md5_float_parser_matches_strtof_on_random_decimals)
{
    static const char *const tricky[] = {
        "16777217", "16777219", "0.500000029802322387695312500", "3.4028235e38", "3.4028236e38",
        "1e39", "1.17549435e-38", "1.4e-45", "7e-46", "0.0000000000000000000000000000001",
        "123456789012345678901234567890", "-0", "+.5", "5.", "9007199254740993",
        "1.00000005960464477539062500000001", "0.1", "0.2", "0.3", "-0.707107", "1e22", "1e23",
        "4.7019774e-38", "2.3509887e-38",
    };
    int wrong = 0;
    for (size_t i = 0; i < sizeof tricky / sizeof tricky[0]; i++)
        if (!agrees(tricky[i], strlen(tricky[i]))) {
            wrong++;
            printf("       differs: %s\n", tricky[i]);
        }
    rng_state = 12345;
    char s[64];
    for (int i = 0; i < 200000; i++) {
        int o = 0;
        if (rng() & 1) s[o++] = '-';
        int digits = 1 + (int)(rng() % 12), point = (int)(rng() % (digits + 1));
        for (int d = 0; d < digits; d++) {
            if (d == point) s[o++] = '.';
            s[o++] = (char)('0' + rng() % 10);
        }
        if (rng() % 4 == 0) o += sprintf(s + o, "e%d", (int)(rng() % 90) - 45);
        s[o] = '\0';
        if (!agrees(s, (size_t)o)) {
            if (wrong++ < 5) printf("       differs: %s\n", s);
        }
    }
    CHECK(wrong == 0);
}

/* ---- writing ---- */

static void compare_models(const mr_model *a, const mr_model *b, float *worst)
{
    const mr_skeleton *x = &a->skeleton, *y = &b->skeleton;
    CHECK(x->joint_count == y->joint_count);
    if (x->joint_count != y->joint_count) return;
    for (int j = 0; j < x->joint_count; j++) {
        CHECK(strcmp(x->names[j], y->names[j]) == 0 && x->parents[j] == y->parents[j]);
        worst[0] = fmaxf(worst[0], dist3(x->rest_t[j], y->rest_t[j]));
        worst[0] = fmaxf(worst[0], quat_diff(x->rest_r[j], y->rest_r[j]));
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++)
                worst[0] = fmaxf(worst[0], fabsf(x->inverse_bind[j][c][r] - y->inverse_bind[j][c][r]));
    }
    CHECK(a->mesh_count == b->mesh_count);
    for (int k = 0; k < a->mesh_count && k < b->mesh_count; k++) {
        const mr_mesh *p = &a->meshes[k], *q = &b->meshes[k];
        CHECK(p->vertex_count == q->vertex_count && p->index_count == q->index_count);
        if (p->vertex_count != q->vertex_count || p->index_count != q->index_count) continue;
        CHECK(strcmp(p->name, q->name) == 0);
        CHECK(memcmp(p->indices, q->indices, sizeof *p->indices * p->index_count) == 0);
        for (int v = 0; v < p->vertex_count; v++) {
            worst[1] = fmaxf(worst[1], dist3(p->positions[v], q->positions[v]));
            worst[1] = fmaxf(worst[1], fabsf(p->uvs[v][0] - q->uvs[v][0]));
            worst[1] = fmaxf(worst[1], fabsf(p->uvs[v][1] - q->uvs[v][1]));
            worst[1] = fmaxf(worst[1], dist3(p->normals[v], q->normals[v]));
            for (int i = 0; i < 4; i++) {
                CHECK(p->joints[v][i] == q->joints[v][i] || p->weights[v][i] == 0);
                worst[1] = fmaxf(worst[1], fabsf(p->weights[v][i] - q->weights[v][i]));
            }
        }
    }
}

/* The exact pose of a clip's source keys at t: what the writer wrote and the
 * reader read (the default runtime is packed, within 1e-4 of the size of
 * these: clip_runtime.h). */
static void sample_keys(const mr_clip *c, const mr_skeleton *sk, float t, mr_pose *p)
{
    mr_pose_set_rest(p, sk);
    for (int j = 0; j < sk->joint_count; j++) {
        if (c->tracks[j].t.key_count) mr_track_sample(&c->tracks[j].t, t, p->t[j]);
        if (c->tracks[j].r.key_count) mr_track_sample(&c->tracks[j].r, t, p->r[j]);
        if (c->tracks[j].s.key_count) mr_track_sample(&c->tracks[j].s, t, p->s[j]);
    }
}

/* Samples both clips' keys at every frame time; largest difference of T and R. */
static float compare_clips(const mr_model *ma, const mr_clip *a, const mr_model *mb, const mr_clip *b)
{
    CHECK(strcmp(a->name, b->name) == 0);
    CHECK_NEAR(a->duration, b->duration, 1e-6);
    CHECK_NEAR(a->rate, b->rate, 0);
    CHECK(mr_clip_key_count(a) == mr_clip_key_count(b));
    int n = ma->skeleton.joint_count;
    mr_pose pa, pb;
    mr_pose_init(&pa, n);
    mr_pose_init(&pb, n);
    float worst = 0;
    int frames = mr_clip_key_count(a);
    for (int f = 0; f < frames; f++) {
        float t = (float)((double)f / a->rate);
        sample_keys(a, &ma->skeleton, t, &pa);
        sample_keys(b, &mb->skeleton, t, &pb);
        for (int j = 0; j < n; j++) {
            worst = fmaxf(worst, dist3(pa.t[j], pb.t[j]));
            worst = fmaxf(worst, quat_diff(pa.r[j], pb.r[j]));
        }
        /* and the keys themselves, where both have them */
        for (int j = 0; j < n; j++) {
            const mr_track *ta = &a->tracks[j].r, *tb = &b->tracks[j].r;
            if (ta->key_count == frames && tb->key_count == frames)
                worst = fmaxf(worst, quat_diff(ta->values + 4 * f, tb->values + 4 * f));
        }
    }
    mr_pose_deinit(&pa);
    mr_pose_deinit(&pb);
    return worst;
}

TEST(md5_write_read_bob_round_trip)
{
    char *dir = make_temp_dir();
    mr_model *a = NULL, *b = NULL;
    mr_error e;
    const char *anims[] = {BOB_ANIM};
    CHECK(dir && mr_load_model(BOB_MESH, anims, 1, &a, &e) == MR_OK);
    if (!dir || !a) { free(dir); return; }
    char *mesh = mr_path_join(dir, "Bob.md5mesh"), *anim = mr_path_join(dir, "Bob.md5anim");
    CHECK(mr_md5_write_mesh(a, mesh, &e) == MR_OK);
    CHECK(mr_md5_write_anim(a, a->clips[0], anim, &e) == MR_OK);
    const char *back[] = {anim};
    CHECK(mr_load_model(mesh, back, 1, &b, &e) == MR_OK);
    if (b) {
        float worst[2] = {0, 0};
        compare_models(a, b, worst);
        float wk = b->clip_count == 1 ? compare_clips(a, a->clips[0], b, b->clips[0]) : 1;
        printf("       Bob round trip: joints %.2g, vertices %.2g, keys %.2g\n", worst[0], worst[1], wk);
        CHECK(worst[0] < 1e-5 && worst[1] < 1e-5 && wk < 1e-5);
        /* textures are missing beside the copy: one warning per shader (two
         * meshes share guard1_body.png) */
        CHECK(b->warning_count == 5);
    } else {
        printf("       %s\n", e.msg);
    }
    mr_model_destroy(a);
    mr_model_destroy(b);
    free(mesh);
    free(anim);
    test_remove_tree(dir);
    free(dir);
}

/* 5 and 8 influences survive writing and reading back: same joints, same
 * weights, same slots. */
TEST(md5_write_read_keeps_8_influences)
{
    char *dir = make_temp_dir();
    mr_model *a = NULL, *b = NULL;
    mr_error e;
    CHECK(dir && parse_mesh_text("w.md5mesh", many_weights_text, &a, &e) == MR_OK);
    if (!dir || !a) { free(dir); mr_model_destroy(a); return; }
    char *mesh = mr_path_join(dir, "w.md5mesh");
    CHECK(mr_md5_write_mesh(a, mesh, &e) == MR_OK);
    CHECK(mr_load_model(mesh, NULL, 0, &b, &e) == MR_OK);
    if (b) {
        const mr_mesh *p = &a->meshes[0], *q = &b->meshes[0];
        CHECK(mr_mesh_influence_count(q) == MR_MAX_INFLUENCES);
        CHECK(q->source_over4 == 3 && q->source_over8 == 0);  /* the cut happened on the first read */
        float worst = 0;
        for (int v = 0; v < p->vertex_count && v < q->vertex_count; v++)
            for (int k = 0; k < MR_MAX_INFLUENCES; k++) {
                CHECK(p->joints[v][k] == q->joints[v][k] || p->weights[v][k] == 0);
                worst = fmaxf(worst, fabsf(p->weights[v][k] - q->weights[v][k]));
            }
        CHECK_MSG(worst < 1e-6, "weights differ by %g", worst);
        for (int w = 0; w < b->warning_count; w++)
            CHECK_MSG(!strstr(b->warnings[w], "more than"), "%s", b->warnings[w]);
    } else {
        printf("       %s\n", e.msg);
    }
    mr_model_destroy(a);
    mr_model_destroy(b);
    free(mesh);
    test_remove_tree(dir);
    free(dir);
}

TEST(md5_write_read_snoutx10k_all_anims_round_trip)
{
    char *dir = make_temp_dir();
    mr_model *a = NULL, *b = NULL;
    mr_error e;
    CHECK(dir && mr_load_model(SNOUT_MESH, snout_anims, SNOUT_ANIMS, &a, &e) == MR_OK);
    if (!dir || !a) { free(dir); return; }
    char *mesh = mr_path_join(dir, "snout.md5mesh");
    char *paths[SNOUT_ANIMS];
    CHECK(mr_md5_write_mesh(a, mesh, &e) == MR_OK);
    for (int i = 0; i < SNOUT_ANIMS; i++) {
        char *file = mr_str_fmt("%s.md5anim", a->clips[i]->name);
        paths[i] = mr_path_join(dir, file);
        free(file);
        CHECK(mr_md5_write_anim(a, a->clips[i], paths[i], &e) == MR_OK);
    }
    CHECK(mr_load_model(mesh, (const char *const *)paths, SNOUT_ANIMS, &b, &e) == MR_OK);
    if (b) {
        float worst[2] = {0, 0}, wk = 0;
        compare_models(a, b, worst);
        CHECK(b->clip_count == SNOUT_ANIMS);
        for (int i = 0; i < SNOUT_ANIMS && i < b->clip_count; i++)
            wk = fmaxf(wk, compare_clips(a, a->clips[i], b, b->clips[i]));
        printf("       snoutx10k round trip (%d anims): joints %.2g, vertices %.2g, keys %.2g\n",
               SNOUT_ANIMS, worst[0], worst[1], wk);
        CHECK(worst[0] < 1e-5 && worst[1] < 1e-5 && wk < 1e-5);
    } else {
        printf("       %s\n", e.msg);
    }
    for (int i = 0; i < SNOUT_ANIMS; i++) free(paths[i]);
    mr_model_destroy(a);
    mr_model_destroy(b);
    free(mesh);
    test_remove_tree(dir);
    free(dir);
}

TEST(md5_write_anim_notes_scale_in_a_comment)
{
    char *dir = make_temp_dir();
    mr_model *m = pair_model();
    mr_error e;
    CHECK(dir && m && mr_md5_parse_anim(m, "pair.md5anim", NULL, PAIR_ANIM, strlen(PAIR_ANIM), &e) == MR_OK);
    if (!dir || !m || !m->clip_count) { free(dir); mr_model_destroy(m); return; }
    mr_clip *c = m->clips[0];
    mr_track *s = &c->tracks[1].s;
    mr_track_init(s, 1, MR_INTERP_LINEAR);
    s->values[0] = s->values[1] = s->values[2] = 2.0f;
    mr_clip_finish(c);  /* keys of a clip already in a model were edited */
    char *path = mr_path_join(dir, "scaled.md5anim");
    CHECK(mr_md5_write_anim(m, c, path, &e) == MR_OK);
    size_t len;
    char *text = read_text(path, &len);
    CHECK(text && strstr(text, "// marrow: MD5 has no scale: the scale of 1 joints (first 'child') was not written"));
    free(text);
    CHECK(mr_md5_load_anim(m, path, &e) == MR_OK);
    CHECK(m->clip_count == 2 && m->clips[1]->tracks[1].s.key_count == 0);
    /* without a rate: sampled at 30 fps */
    c->rate = 0;
    c->duration = 1.0f;
    CHECK(mr_md5_write_anim(m, c, path, &e) == MR_OK);
    CHECK(mr_md5_load_anim(m, path, &e) == MR_OK);
    CHECK(m->clip_count == 3 && mr_clip_key_count(m->clips[2]) == 31);
    CHECK(m->clip_count == 3 && m->clips[2]->rate == 30.0f);
    free(path);
    mr_model_destroy(m);
    test_remove_tree(dir);
    free(dir);
}

TEST(md5_write_mesh_without_skeleton_binds_to_origin_and_cleans_names)
{
    char *dir = make_temp_dir();
    mr_model *m = NULL;
    mr_model_create("static.dae", "collada", &m);
    if (!dir || !m) { CHECK(0); free(dir); mr_model_destroy(m); return; }
    m->meshes = calloc(1, sizeof *m->meshes);
    m->mesh_count = 1;
    mr_mesh *mesh = &m->meshes[0];
    mr_mesh_init(mesh, 3, 3, 0);
    float p[3][3] = {{0, 0, 0}, {10, 0, 0}, {0, 10, 5}};
    for (int i = 0; i < 3; i++) glm_vec3_copy(p[i], mesh->positions[i]);
    mesh->indices[0] = 0; mesh->indices[1] = 1; mesh->indices[2] = 2;
    mesh->uvs[2][1] = 0.25f;
    mesh->name = mr_str_dup("pla\nte");            /* goes into a // comment */
    mesh->material.name = mr_str_dup("st\"e\x01l");  /* goes into the shader string */
    char *path = mr_path_join(dir, "plate.md5mesh");
    mr_error e;
    CHECK(mr_md5_write_mesh(m, path, &e) == MR_OK);
    mr_model *b = NULL;
    CHECK(mr_md5_load_mesh(path, &b, &e) == MR_OK);
    if (b) {
        CHECK(b->skeleton.joint_count == 1 && strcmp(b->skeleton.names[0], "origin") == 0);
        CHECK(b->mesh_count == 1 && b->meshes[0].vertex_count == 3);
        for (int i = 0; i < 3; i++) CHECK(dist3(b->meshes[0].positions[i], p[i]) < 1e-6);
        CHECK_NEAR(b->meshes[0].uvs[2][1], 0.25, 1e-7);
        CHECK(b->meshes[0].indices[1] == 1 && b->meshes[0].indices[2] == 2);
        CHECK(strcmp(b->meshes[0].material.name, "st_e_l") == 0);
    }
    mr_model_destroy(b);
    mr_model_destroy(m);
    free(path);
    test_remove_tree(dir);
    free(dir);
}

/* ---- load.c ---- */

TEST(model_load_refuses_unknown_extension)
{
    mr_model *m = (mr_model *)&m;
    mr_error e;
    CHECK(mr_load_model("models/thing.OBJ", NULL, 0, &m, &e) == MR_ERR_BAD_FILE);
    CHECK(m == NULL);
    CHECK(strcmp(e.msg, "models/thing.OBJ: unsupported model format '.obj' (expected .md5mesh, .dae, .gltf, .glb, .vrm, .fbx or .bvh)") == 0);
    CHECK(mr_load_model("models/thing", NULL, 0, &m, &e) == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(e.msg, "unsupported model format");
    CHECK(mr_load_model("models/walk.md5anim", NULL, 0, &m, &e) == MR_ERR_BAD_FILE);
    CHECK(strcmp(e.msg, "models/walk.md5anim: an .md5anim holds clips without a skeleton's mesh "
                        "(expected its .md5mesh first, with this file among the anims)") == 0);
}

TEST(model_load_md5_with_anims_and_anim_errors)
{
    mr_model *m = NULL;
    mr_error e;
    const char *ok[] = {SNOUT_DIR "jump.md5anim", SNOUT_DIR "pain.md5anim"};
    CHECK(mr_load_model(SNOUT_MESH, ok, 2, &m, &e) == MR_OK);
    CHECK(m && m->clip_count == 2 && strcmp(m->clips[1]->name, "pain") == 0);
    mr_model_destroy(m);
    m = (mr_model *)&m;
    const char *wrong[] = {SNOUT_DIR "jump.md5anim", BOB_ANIM};
    CHECK(mr_load_model(SNOUT_MESH, wrong, 2, &m, &e) == MR_ERR_BAD_FILE);
    CHECK(m == NULL);
    CHECK_STR_CONTAINS(e.msg, "md5: " BOB_ANIM ":10: expected joint 'Root'");
    m = (mr_model *)&m;
    const char *missing[] = {"nowhere.md5anim"};
    CHECK(mr_load_model(SNOUT_MESH, missing, 1, &m, &e) == MR_ERR_IO);
    CHECK(m == NULL);
}

/* ---- speed ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

TEST(md5_parse_speed_of_real_files)
{
    const char *env = getenv("MD5_BENCH_RUNS");
    int runs = env ? atoi(env) : 3;
    if (runs < 1 || runs > 1000) runs = 3;
    const char *files[3 + SNOUT_ANIMS] = {BOB_MESH, SNOUT_MESH, BOB_ANIM};
    for (int i = 0; i < SNOUT_ANIMS; i++) files[3 + i] = snout_anims[i];
    mr_model *bob = NULL, *snout = NULL;
    mr_error e;
    CHECK(mr_md5_load_mesh(BOB_MESH, &bob, &e) == MR_OK);
    CHECK(mr_md5_load_mesh(SNOUT_MESH, &snout, &e) == MR_OK);
    /* Wall time, and this thread's CPU time (steadier on a shared machine). */
    double *t = calloc((size_t)runs, sizeof *t), *cpu = calloc((size_t)runs, sizeof *cpu);
    for (int f = 0; f < 3 + SNOUT_ANIMS && bob && snout; f++) {
        size_t len;
        char *text = read_text(files[f], &len);
        if (!text) continue;
        int anim = strstr(files[f], ".md5anim") != NULL;
        mr_model *owner = f == 2 ? bob : snout;
        for (int r = 0; r < runs; r++) {
            double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
            mr_status st;
            mr_model *m = NULL;
            if (anim) st = mr_md5_parse_anim(owner, files[f], NULL, text, len, &e);
            else st = mr_md5_parse_mesh(files[f], text, len, &m, &e);
            t[r] = clock_s(CLOCK_MONOTONIC) - t0;
            cpu[r] = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
            if (anim && st == MR_OK) mr_clip_destroy(owner->clips[--owner->clip_count]);
            mr_model_destroy(m);
            CHECK(st == MR_OK);
        }
        qsort(t, (size_t)runs, sizeof *t, cmp_double);
        qsort(cpu, (size_t)runs, sizeof *cpu, cmp_double);
        printf("       %-22s %7zu bytes  %6.1f MB/s wall, %6.1f MB/s cpu (medians of %d)\n",
               mr_path_basename(files[f]), len, len / t[runs / 2] / 1e6, len / cpu[runs / 2] / 1e6, runs);
        free(text);
    }
    free(t);
    free(cpu);
    mr_model_destroy(bob);
    mr_model_destroy(snout);
}

int main(void)
{
    RUN(md5_load_mesh_bob_counts_frame_and_materials);
    RUN(md5_load_mesh_bob_normals_point_outward);
    RUN(md5_load_mesh_flips_winding_and_v);
    RUN(md5_load_mesh_rest_pose_rebuilds_file_bind);
    RUN(md5_load_mesh_vertices_follow_weight_formula);
    RUN(md5_load_anim_bob_clip);
    RUN(md5_skinning_bob_frames_match_md5_formula);
    RUN(md5_load_anim_one_frame_is_valid);
    RUN(md5_load_all_snoutx10k_anims);
    RUN(md5_load_anim_refuses_other_skeleton);
    RUN(md5_parse_anim_hierarchy_differences_name_the_joint);
    RUN(md5_parse_anim_unflagged_group_holds_baseframe);
    RUN(md5_parse_mesh_more_than_8_weights_warns_once);
    RUN(md5_parse_mesh_equal_weights_cut_does_not_depend_on_joint_order);
    RUN(md5_parse_mesh_biases_not_summing_to_1_renormalised);
    RUN(md5_parse_mesh_crlf_tabs_comments_no_final_newline);
    RUN(md5_parse_mesh_resolves_textures_by_base_name);
    RUN(md5_parse_mesh_missing_texture_warnings_are_capped);
    RUN(md5_parse_mesh_absurd_count_refused_before_allocating);
    RUN(md5_parse_mesh_every_truncation_of_a_cube_fails_cleanly);
    RUN(md5_bad_corpus_fails_with_one_line_error);
    RUN(md5_quirk_anims_bounds_count_off_load_with_located_warning);
    RUN(md5_assimp_invalid_files_fail);
    RUN(md5_load_missing_file_is_io_error);
    RUN(md5_mutations_of_bob_load_or_fail_cleanly);
    RUN(md5_float_parser_matches_strtof_on_real_files);
    RUN(md5_float_parser_matches_strtof_on_random_decimals);
    RUN(md5_write_read_bob_round_trip);
    RUN(md5_write_read_keeps_8_influences);
    RUN(md5_write_read_snoutx10k_all_anims_round_trip);
    RUN(md5_write_anim_notes_scale_in_a_comment);
    RUN(md5_write_mesh_without_skeleton_binds_to_origin_and_cleans_names);
    RUN(model_load_refuses_unknown_extension);
    RUN(model_load_md5_with_anims_and_anim_errors);
    RUN(md5_parse_speed_of_real_files);
    return test_summary("md5");
}
