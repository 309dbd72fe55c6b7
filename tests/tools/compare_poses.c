/* compare_poses.c — compares posed meshes for tests/cli_reference.sh.
 *
 *   compare_poses match REST.obj POSED.obj REF.txt [POSED.obj REF.txt ...]
 *       REST.obj / POSED.obj: `marrow pose --rest` and `marrow pose ...` of one
 *       model (same vertex order); REF.txt: assimp_pose output (rest and posed
 *       position per vertex, see tests/tools/assimp_pose.c), in the same frame.
 *       Vertex correspondence: the two readers split vertices differently
 *       (marrow de-duplicates per index tuple, assimp keeps one vertex per
 *       corner), so each marrow vertex is paired with the assimp vertices whose
 *       REST position lies within 1e-4 (0.01 %) of the bounding-box diagonal of
 *       its own; among several, the one with the nearest rest normal and uv.
 *       Never by the posed position (that would hide the errors being
 *       measured). The rest pose, not the bind pose: assimp keeps COLLADA's
 *       bind shape matrix in its offset matrices, so only skinned positions
 *       are comparable; a rest pose that disagrees shows as unmatched vertices
 *       and as the rest distance.
 *       Prints per pair: "worst W% mean M% at VERTEX matched N/T unmatched U
 *       rest R% diag D": W the largest posed distance over matched vertices,
 *       R the largest nearest-vertex distance between the rest poses (either
 *       way, at most 2% of the diagonal), in percent of marrow's rest-pose
 *       bounding-box diagonal.
 *
 *   compare_poses joints REST.obj POSED.obj REF.txt [POSED.obj REF.txt ...]
 *       For models without meshes (BVH): REST.obj / POSED.obj are `marrow pose`
 *       skeletons ("# joint I NAME" before each v line), REF.txt is
 *       `assimp_pose --joints` ("joint NAME x y z"). Joints are paired by name;
 *       assimp names an End Site "EndSite_P", marrow "P_end". Prints per pair:
 *       "worst W% mean M% at JOINT matched N/T unmatched U diag D", W the
 *       largest distance in percent of the diagonal of REST's joint bounds.
 *
 *   compare_poses joints-rooted REST.obj POSED.obj REF.txt [...]
 *       The same with each side's positions taken relative to its root joint
 *       (marrow's first): for rest poses, where marrow stands a BVH root at its
 *       frame-0 position and assimp at its OFFSET (src/formats/bvh.h).
 *
 *   compare_poses points A.obj B.obj
 *       Symmetric nearest-vertex distance between two OBJ vertex sets (for
 *       meshes that share no vertex order, as the Khronos CTS references), in
 *       percent of A's bounding-box diagonal: "worst W% diag D".
 *
 * Nearest points are found in grids of cubic cells: the cells of eps hold
 * every point within eps of a query in its 27 cells, so a vertex with a
 * match there has its nearest distance there too; only the others search
 * the cells of the 2% cap (the same minimum among more points), and past
 * the cap every point. Distances are computed in long double and rounded
 * once, so a printed figure does not depend on the order of the sum.
 * (This was compare_poses.py; the C version prints the same lines for the
 * suite's 108 comparisons in a fraction of the time.)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { double *v; size_t n, cap; } vec;   /* a flat array of doubles */

static void push(vec *a, double x)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 256;
        a->v = realloc(a->v, a->cap * sizeof *a->v);
        if (!a->v) {
            fprintf(stderr, "compare_poses: out of memory\n");
            exit(2);
        }
    }
    a->v[a->n++] = x;
}

static double dist(const double *a, const double *b, int dims)
{
    long double s = 0;
    for (int k = 0; k < dims; k++) {
        long double d = (long double)a[k] - b[k];
        s += d * d;
    }
    return (double)sqrtl(s);
}

static FILE *open_or_die(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(2);
    }
    return f;
}

/* Up to max numbers after the first word of line (the OBJ keyword). */
static int numbers_after_keyword(const char *line, double *out, int max)
{
    const char *p = line;
    while (*p && *p != ' ' && *p != '\t') p++;
    int n = 0;
    while (n < max) {
        char *end;
        double x = strtod(p, &end);
        if (end == p) break;
        out[n++] = x;
        p = end;
    }
    return n;
}

/* v (3 a vertex), vn (3) and vt (2) lines of an OBJ file. */
static void read_obj(const char *path, vec *v, vec *n, vec *t)
{
    FILE *f = open_or_die(path);
    char line[4096];
    double x[3];
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "v ", 2) && numbers_after_keyword(line, x, 3) == 3) {
            for (int k = 0; k < 3; k++) push(v, x[k]);
        } else if (n && !strncmp(line, "vn ", 3) && numbers_after_keyword(line, x, 3) == 3) {
            for (int k = 0; k < 3; k++) push(n, x[k]);
        } else if (t && !strncmp(line, "vt ", 3) && numbers_after_keyword(line, x, 2) == 2) {
            for (int k = 0; k < 2; k++) push(t, x[k]);
        }
    }
    fclose(f);
}

/* assimp_pose rows of 11 numbers: rest xyz, posed xyz, rest normal, uv. */
enum { REF_W = 11 };
static void read_ref(const char *path, vec *rows)
{
    FILE *f = open_or_die(path);
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || !strncmp(line, "mesh ", 5)) continue;
        double x[REF_W + 1];
        int n = 0;
        const char *p = line;
        while (n <= REF_W) {
            char *end;
            double y = strtod(p, &end);
            if (end == p) break;
            x[n++] = y;
            p = end;
        }
        if (n == REF_W)
            for (int k = 0; k < REF_W; k++) push(rows, x[k]);
    }
    fclose(f);
}

/* The diagonal of the bounding box of n points stride doubles apart. */
static double diagonal(const double *p, size_t n, int stride)
{
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) lo[k] = hi[k] = p[k];
    for (size_t i = 1; i < n; i++)
        for (int k = 0; k < 3; k++) {
            double c = p[i * (size_t)stride + (size_t)k];
            if (c < lo[k]) lo[k] = c;
            if (c > hi[k]) hi[k] = c;
        }
    return dist(lo, hi, 3);
}

/* ---- grids ---------------------------------------------------------------- */

typedef struct { long long k[3]; size_t i; } cell_entry;
typedef struct { const double *p; int stride; double cell; cell_entry *e; size_t n; } grid;

static int cmp_entry(const void *a, const void *b)
{
    const cell_entry *x = a, *y = b;
    for (int k = 0; k < 3; k++)
        if (x->k[k] != y->k[k]) return x->k[k] < y->k[k] ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static void cell_of(const grid *g, const double *p, long long k[3])
{
    for (int c = 0; c < 3; c++) k[c] = (long long)floor(p[c] / g->cell);
}

static void grid_make(grid *g, const double *p, size_t n, int stride, double cell)
{
    g->p = p;
    g->stride = stride;
    g->cell = cell;
    g->n = n;
    g->e = malloc((n ? n : 1) * sizeof *g->e);
    if (!g->e) exit(2);
    for (size_t i = 0; i < n; i++) {
        cell_of(g, p + i * (size_t)stride, g->e[i].k);
        g->e[i].i = i;
    }
    qsort(g->e, n, sizeof *g->e, cmp_entry);
}

/* The points of the 27 cells around p (cell by cell, x outermost; in a
 * cell by index) into out; returns how many. */
static size_t grid_near(const grid *g, const double *p, size_t *out)
{
    long long c[3];
    cell_of(g, p, c);
    size_t m = 0;
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dz = -1; dz <= 1; dz++) {
                cell_entry key = {{c[0] + dx, c[1] + dy, c[2] + dz}, 0};
                size_t lo = 0, hi = g->n;   /* first entry >= key */
                while (lo < hi) {
                    size_t mid = lo + (hi - lo) / 2;
                    if (cmp_entry(&g->e[mid], &key) < 0) lo = mid + 1;
                    else hi = mid;
                }
                for (; lo < g->n && !memcmp(g->e[lo].k, key.k, sizeof key.k); lo++) out[m++] = g->e[lo].i;
            }
    return m;
}

/* The smallest distance from q to the points near it in g, else cap. */
static double nearest_in(const grid *g, const double *q, size_t *buf, double cap)
{
    size_t m = grid_near(g, q, buf);
    double best = cap;
    int first = 1;
    for (size_t a = 0; a < m; a++) {
        double d = dist(q, g->p + buf[a] * (size_t)g->stride, 3);
        if (first || d < best) best = d;
        first = 0;
    }
    if (!first && cap < best) best = cap;   /* the cap takes part as the last candidate */
    return best;
}

/* The smallest distance from q to any of n points. */
static double nearest_all(const double *q, const double *p, size_t n, int stride)
{
    double best = 0;
    for (size_t i = 0; i < n; i++) {
        double d = dist(q, p + i * (size_t)stride, 3);
        if (i == 0 || d < best) best = d;
    }
    return best;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- match ---------------------------------------------------------------- */

/* For each marrow vertex, the assimp vertex at its rest position (within
 * eps; nearest normal and uv among several), or -1; *rest_worst the
 * largest nearest-vertex distance either way, capped. */
static long *pair(const vec *rest, const vec *nrm, const vec *uv, const vec *ref, double eps, double cap,
                  double *rest_worst)
{
    size_t nv = rest->n / 3, nr = ref->n / REF_W, nn = nrm->n / 3, nt = uv->n / 2;
    size_t *buf = malloc(((nv > nr ? nv : nr) + 1) * sizeof *buf);
    long *pairing = malloc((nv + 1) * sizeof *pairing);
    if (!buf || !pairing) exit(2);
    grid fine, coarse;
    grid_make(&fine, ref->v, nr, REF_W, eps);
    grid_make(&coarse, ref->v, nr, REF_W, cap);
    double worst = 0;
    for (size_t i = 0; i < nv; i++) {
        const double *b = rest->v + 3 * i;
        long best = -1;
        double score = 0, near = cap;
        size_t m = grid_near(&fine, b, buf);
        qsort(buf, m, sizeof *buf, cmp_size);
        for (size_t a = 0; a < m; a++) {
            const double *r = ref->v + buf[a] * REF_W;
            double d = dist(b, r, 3);
            if (d < near) near = d;
            if (d > eps) continue;
            double s = 0;
            if (i < nn && (r[6] != 0 || r[7] != 0 || r[8] != 0)) s += dist(nrm->v + 3 * i, r + 6, 3);
            if (i < nt) s += dist(uv->v + 2 * i, r + 9, 2);
            if (best < 0 || s < score) {
                best = (long)buf[a];
                score = s;
            }
        }
        pairing[i] = best;
        if (best < 0) {
            near = nearest_in(&coarse, b, buf, cap);
            if (near >= cap && nr < 100000) near = nearest_all(b, ref->v, nr, REF_W);
        }
        if (near > worst) worst = near;
    }
    grid fine_back, back;
    grid_make(&fine_back, rest->v, nv, 3, eps);
    grid_make(&back, rest->v, nv, 3, cap);
    for (size_t j = 0; j < nr; j++) {
        const double *p = ref->v + j * REF_W;
        double near = nearest_in(&fine_back, p, buf, cap);
        if (near > eps) {
            near = nearest_in(&back, p, buf, cap);
            if (near >= cap && nv < 100000) near = nearest_all(p, rest->v, nv, 3);
        }
        if (near > worst) worst = near;
    }
    free(fine.e);
    free(coarse.e);
    free(fine_back.e);
    free(back.e);
    free(buf);
    *rest_worst = worst;
    return pairing;
}

static int match(const char *rest_obj, char **pairs, int npairs)
{
    vec rest = {0}, nrm = {0}, uv = {0};
    read_obj(rest_obj, &rest, &nrm, &uv);
    if (!rest.n) {
        printf("error: no vertices in %s\n", rest_obj);
        return 1;
    }
    size_t n = rest.n / 3;
    double diag = diagonal(rest.v, n, 3), eps = 1e-4 * diag, cap = 0.02 * diag, rest_worst = 0;
    long *pairing = NULL;
    for (int q = 0; q < npairs; q++) {
        vec posed = {0}, ref = {0};
        read_obj(pairs[2 * q], &posed, NULL, NULL);
        read_ref(pairs[2 * q + 1], &ref);
        size_t nr = ref.n / REF_W;
        if (posed.n != rest.n || !nr) {
            printf("error: %zu rest, %zu posed, %zu reference vertices\n", n, posed.n / 3, nr);
            return 1;
        }
        if (!pairing) pairing = pair(&rest, &nrm, &uv, &ref, eps, cap, &rest_worst);
        double worst = 0, total = 0;
        long at = -1;
        size_t matched = 0;
        for (size_t i = 0; i < n; i++) {
            long j = pairing[i];
            if (j < 0 || (size_t)j >= nr) continue;
            matched++;
            double d = dist(posed.v + 3 * i, ref.v + (size_t)j * REF_W + 3, 3);
            total += d;
            if (d > worst) {
                worst = d;
                at = (long)i;
            }
        }
        printf("worst %.4f%% mean %.4f%% at %ld matched %zu/%zu unmatched %zu rest %.4f%% diag %.6g\n",
               100 * worst / diag, 100 * total / (double)(matched > 1 ? matched : 1) / diag, at, matched, n,
               n - matched, 100 * rest_worst / diag, diag);
        free(posed.v);
        free(ref.v);
    }
    free(pairing);
    free(rest.v);
    free(nrm.v);
    free(uv.v);
    return 0;
}

/* ---- points --------------------------------------------------------------- */

static int points(const char *a_obj, const char *b_obj)
{
    vec a = {0}, b = {0};
    read_obj(a_obj, &a, NULL, NULL);
    read_obj(b_obj, &b, NULL, NULL);
    size_t na = a.n / 3, nb = b.n / 3;
    if (!na || !nb) {
        printf("error: %zu and %zu vertices\n", na, nb);
        return 1;
    }
    double diag = diagonal(a.v, na, 3), cap = 0.02 * diag, worst = 0;   /* cells of 2%: anything further reads as 2% */
    grid ga, gb;
    grid_make(&ga, a.v, na, 3, cap);
    grid_make(&gb, b.v, nb, 3, cap);
    size_t *buf = malloc(((na > nb ? na : nb) + 1) * sizeof *buf);
    if (!buf) exit(2);
    for (size_t i = 0; i < na; i++) {
        double d = nearest_in(&gb, a.v + 3 * i, buf, cap);
        if (d > worst) worst = d;
    }
    for (size_t i = 0; i < nb; i++) {
        double d = nearest_in(&ga, b.v + 3 * i, buf, cap);
        if (d > worst) worst = d;
    }
    printf("worst %.4f%% diag %.6g\n", 100 * worst / diag, diag);
    free(buf);
    free(ga.e);
    free(gb.e);
    free(a.v);
    free(b.v);
    return 0;
}

/* ---- joints --------------------------------------------------------------- */

typedef struct { char **names; vec pos; size_t n; } joint_set;

static char *dup_trimmed(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r')) n--;
    char *d = malloc(n + 1);
    if (!d) exit(2);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

/* "# joint I NAME" then its "v x y z" line; a v line without a joint line
 * before it has no name (NULL). */
static void read_joints_obj(const char *path, joint_set *js)
{
    FILE *f = open_or_die(path);
    char line[4096], *name = NULL;
    size_t cap = 0;
    double x[3];
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "# joint ", 8)) {
            const char *p = line + 8;   /* the index, then the name */
            while (*p == ' ' || *p == '\t') p++;
            while (*p && *p != ' ' && *p != '\t' && *p != '\n') p++;
            free(name);
            name = dup_trimmed(p);
        } else if (!strncmp(line, "v ", 2) && numbers_after_keyword(line, x, 3) == 3) {
            if (js->n == cap) {
                cap = cap ? cap * 2 : 64;
                js->names = realloc(js->names, cap * sizeof *js->names);
                if (!js->names) exit(2);
            }
            js->names[js->n++] = name;
            name = NULL;
            for (int k = 0; k < 3; k++) push(&js->pos, x[k]);
        }
    }
    free(name);
    fclose(f);
}

/* "joint NAME x y z" lines (a later line of a name replaces an earlier);
 * EndSite_P is renamed P_end. */
static void read_joints_ref(const char *path, joint_set *js)
{
    FILE *f = open_or_die(path);
    char line[4096];
    size_t cap = 0;
    while (fgets(line, sizeof line, f)) {
        char name[1024], tail[2];
        double x[3];
        if (strncmp(line, "joint ", 6) ||
            sscanf(line, "joint %1023s %lf %lf %lf %1s", name, &x[0], &x[1], &x[2], tail) != 4)
            continue;
        char *nm = !strncmp(name, "EndSite_", 8) ? malloc(strlen(name) + 1) : dup_trimmed(name);
        if (!nm) exit(2);
        if (!strncmp(name, "EndSite_", 8)) sprintf(nm, "%s_end", name + 8);
        size_t at = js->n;
        for (size_t i = 0; i < js->n; i++)
            if (!strcmp(js->names[i], nm)) at = i;
        if (at < js->n) {
            free(nm);
            memcpy(js->pos.v + 3 * at, x, sizeof x);
            continue;
        }
        if (js->n == cap) {
            cap = cap ? cap * 2 : 64;
            js->names = realloc(js->names, cap * sizeof *js->names);
            if (!js->names) exit(2);
        }
        js->names[js->n++] = nm;
        for (int k = 0; k < 3; k++) push(&js->pos, x[k]);
    }
    fclose(f);
}

static long find_name(const joint_set *js, const char *name)
{
    if (!name) return -1;
    for (size_t i = 0; i < js->n; i++)
        if (!strcmp(js->names[i], name)) return (long)i;
    return -1;
}

static void free_joints(joint_set *js)
{
    for (size_t i = 0; i < js->n; i++) free(js->names[i]);
    free(js->names);
    free(js->pos.v);
}

static int joints(const char *rest_obj, char **pairs, int npairs, int rooted)
{
    joint_set rest = {0};
    read_joints_obj(rest_obj, &rest);
    if (!rest.n) {
        printf("error: no joints in %s\n", rest_obj);
        return 1;
    }
    double diag = diagonal(rest.pos.v, rest.n, 3);
    for (int q = 0; q < npairs; q++) {
        joint_set posed = {0}, ref = {0};
        read_joints_obj(pairs[2 * q], &posed);
        read_joints_ref(pairs[2 * q + 1], &ref);
        long root = posed.n ? find_name(&ref, posed.names[0]) : -1;
        if (rooted && root >= 0) {
            double o[3], r0[3];
            memcpy(o, posed.pos.v, sizeof o);
            memcpy(r0, ref.pos.v + 3 * root, sizeof r0);
            for (size_t i = 0; i < posed.n; i++)
                for (int k = 0; k < 3; k++) posed.pos.v[3 * i + (size_t)k] -= o[k];
            for (size_t i = 0; i < ref.n; i++)
                for (int k = 0; k < 3; k++) ref.pos.v[3 * i + (size_t)k] -= r0[k];
        }
        double worst = 0, total = 0;
        const char *at = "-";
        size_t matched = 0;
        for (size_t i = 0; i < posed.n; i++) {
            long j = find_name(&ref, posed.names[i]);
            if (j < 0) continue;
            matched++;
            double d = dist(posed.pos.v + 3 * i, ref.pos.v + 3 * (size_t)j, 3);
            total += d;
            if (d > worst) {
                worst = d;
                at = posed.names[i];
            }
        }
        printf("worst %.4f%% mean %.4f%% at %s matched %zu/%zu unmatched %zu diag %.6g\n", 100 * worst / diag,
               100 * total / (double)(matched > 1 ? matched : 1) / diag, at, matched, posed.n, posed.n - matched,
               diag);
        free_joints(&posed);
        free_joints(&ref);
    }
    free_joints(&rest);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 5 && argc % 2 == 1 && (!strcmp(argv[1], "joints") || !strcmp(argv[1], "joints-rooted")))
        return joints(argv[2], argv + 3, (argc - 3) / 2, !strcmp(argv[1], "joints-rooted"));
    if (argc >= 5 && argc % 2 == 1 && !strcmp(argv[1], "match")) return match(argv[2], argv + 3, (argc - 3) / 2);
    if (argc == 4 && !strcmp(argv[1], "points")) return points(argv[2], argv[3]);
    fprintf(stderr, "usage: compare_poses match REST.obj POSED.obj REF.txt [POSED.obj REF.txt ...]\n"
                    "       compare_poses joints|joints-rooted REST.obj POSED.obj REF.txt [...]\n"
                    "       compare_poses points A.obj B.obj\n"
                    "(the header of tests/tools/compare_poses.c says what each prints)\n");
    return 2;
}
