/* obj_compare.c — does a posed OBJ (marrow pose --obj) show the same
 * surface points as a reference OBJ (an authoring tool's export)?
 *
 *   obj_compare OURS.obj REF.obj [TOLERANCE]
 *
 * Vertex order and splitting differ between writers (marrow writes a vertex
 * per polygon corner and triangulates; the reference shares control points
 * and keeps polygons), so positions are matched by nearest neighbour both
 * ways: every reference vertex used by a face must have one of ours within
 * TOLERANCE (default 1e-3) times the reference's bounding-box diagonal, and
 * every one of ours a reference vertex. Prints the largest distance over
 * the diagonal; exit 0 when within, 1 when not, 2 for unreadable input.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pts {
    double *p;
    size_t n, cap;
} pts;

static int push(pts *s, double x, double y, double z)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        double *g = realloc(s->p, cap * 3 * sizeof *g);
        if (!g) return 0;
        s->p = g;
        s->cap = cap;
    }
    s->p[3 * s->n] = x;
    s->p[3 * s->n + 1] = y;
    s->p[3 * s->n + 2] = z;
    s->n++;
    return 1;
}

/* The vertices of path that faces use (all of them when face_only is 0). */
static int read_obj(const char *path, int face_only, pts *out)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    pts all = {0};
    char *used = NULL;
    size_t used_cap = 0;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == 'v' && line[1] == ' ') {
            double x, y, z;
            if (sscanf(line + 2, "%lf %lf %lf", &x, &y, &z) == 3 && !push(&all, x, y, z)) break;
        } else if (line[0] == 'f' && line[1] == ' ' && face_only) {
            if (used_cap < all.n + 1) {
                size_t cap = all.cap + 1;
                char *g = realloc(used, cap);
                if (!g) break;
                memset(g + used_cap, 0, cap - used_cap);
                used = g;
                used_cap = cap;
            }
            char *p = line + 2;
            while (*p) {
                while (*p == ' ' || *p == '\t') p++;
                if (!*p || *p == '\n' || *p == '\r') break;
                long k = strtol(p, &p, 10);
                if (k < 0) k = (long)all.n + k + 1;
                if (k >= 1 && (size_t)k <= all.n && (size_t)k <= used_cap) used[k - 1] = 1;
                while (*p && *p != ' ' && *p != '\t') p++;
            }
        }
    }
    fclose(f);
    for (size_t i = 0; i < all.n; i++)
        if (!face_only || (used && i < used_cap && used[i])) push(out, all.p[3 * i], all.p[3 * i + 1], all.p[3 * i + 2]);
    free(all.p);
    free(used);
    return 1;
}

typedef struct grid {
    double lo[3], h;
    int dim;
    size_t *start, *items;
    const pts *s;
} grid;

static int cell_of(const grid *g, const double *p, int k)
{
    int c = (int)floor((p[k] - g->lo[k]) / g->h);
    return c < 0 ? 0 : c >= g->dim ? g->dim - 1 : c;
}

static size_t cell_index(const grid *g, int x, int y, int z)
{
    return ((size_t)x * (size_t)g->dim + (size_t)y) * (size_t)g->dim + (size_t)z;
}

static void grid_build(grid *g, const pts *s)
{
    double hi[3];
    g->s = s;
    for (int k = 0; k < 3; k++) g->lo[k] = hi[k] = s->n ? s->p[k] : 0;
    for (size_t i = 0; i < s->n; i++)
        for (int k = 0; k < 3; k++) {
            if (s->p[3 * i + k] < g->lo[k]) g->lo[k] = s->p[3 * i + k];
            if (s->p[3 * i + k] > hi[k]) hi[k] = s->p[3 * i + k];
        }
    double ext = 0;
    for (int k = 0; k < 3; k++) ext = fmax(ext, hi[k] - g->lo[k]);
    g->dim = (int)cbrt((double)s->n / 2) + 1;
    if (g->dim > 64) g->dim = 64;
    g->h = ext > 0 ? ext / g->dim * 1.0001 : 1;
    size_t cells = (size_t)g->dim * (size_t)g->dim * (size_t)g->dim;
    g->start = calloc(cells + 1, sizeof *g->start);
    g->items = calloc(s->n + 1, sizeof *g->items);
    for (size_t i = 0; i < s->n; i++) {
        const double *p = s->p + 3 * i;
        g->start[cell_index(g, cell_of(g, p, 0), cell_of(g, p, 1), cell_of(g, p, 2)) + 1]++;
    }
    for (size_t c = 0; c < cells; c++) g->start[c + 1] += g->start[c];
    size_t *fill = calloc(cells + 1, sizeof *fill);
    for (size_t i = 0; i < s->n; i++) {
        const double *p = s->p + 3 * i;
        size_t c = cell_index(g, cell_of(g, p, 0), cell_of(g, p, 1), cell_of(g, p, 2));
        g->items[g->start[c] + fill[c]++] = i;
    }
    free(fill);
}

static double dist(const double *a, const double *b)
{
    double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

/* Distance from p to the nearest point of the grid's set. */
static double nearest(const grid *g, const double *p)
{
    double best = INFINITY;
    int c[3];
    for (int k = 0; k < 3; k++) c[k] = cell_of(g, p, k);
    for (int r = 0; r <= g->dim; r++) {
        /* every point in ring r is at least (r - 1) * h away */
        if ((r - 1) * g->h > best) break;
        for (int x = c[0] - r; x <= c[0] + r; x++)
            for (int y = c[1] - r; y <= c[1] + r; y++)
                for (int z = c[2] - r; z <= c[2] + r; z++) {
                    if (x < 0 || y < 0 || z < 0 || x >= g->dim || y >= g->dim || z >= g->dim) continue;
                    if (abs(x - c[0]) != r && abs(y - c[1]) != r && abs(z - c[2]) != r) continue;
                    size_t ci = cell_index(g, x, y, z);
                    for (size_t i = g->start[ci]; i < g->start[ci + 1]; i++) {
                        double d = dist(p, g->s->p + 3 * g->items[i]);
                        if (d < best) best = d;
                    }
                }
    }
    return best;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: obj_compare OURS.obj REF.obj [TOLERANCE]\n");
        return 2;
    }
    double tol = argc > 3 ? atof(argv[3]) : 1e-3;
    pts ours = {0}, ref = {0};
    if (!read_obj(argv[1], 0, &ours) || !read_obj(argv[2], 1, &ref)) {
        fprintf(stderr, "obj_compare: cannot read %s or %s\n", argv[1], argv[2]);
        return 2;
    }
    if (!ours.n || !ref.n) {
        printf("error inf: %zu vertices of ours, %zu of the reference\n", ours.n, ref.n);
        return 1;
    }
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) lo[k] = hi[k] = ref.p[k];
    for (size_t i = 0; i < ref.n; i++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], ref.p[3 * i + k]);
            hi[k] = fmax(hi[k], ref.p[3 * i + k]);
        }
    double diag = dist(lo, hi);
    if (!(diag > 0)) diag = 1;
    grid go, gr;
    grid_build(&go, &ours);
    grid_build(&gr, &ref);
    double worst_ref = 0, worst_ours = 0;
    size_t at_ref = 0, at_ours = 0;
    for (size_t i = 0; i < ref.n; i++) {
        double d = nearest(&go, ref.p + 3 * i);
        if (d > worst_ref) worst_ref = d, at_ref = i;
    }
    for (size_t i = 0; i < ours.n; i++) {
        double d = nearest(&gr, ours.p + 3 * i);
        if (d > worst_ours) worst_ours = d, at_ours = i;
    }
    double e = fmax(worst_ref, worst_ours) / diag;
    printf("error %.3g of the diagonal %.4g (reference vertex %zu: %.3g; our vertex %zu: %.3g; %zu vs %zu vertices)\n", e, diag,
           at_ref + 1, worst_ref / diag, at_ours + 1, worst_ours / diag, ours.n, ref.n);
    free(go.start);
    free(go.items);
    free(gr.start);
    free(gr.items);
    free(ours.p);
    free(ref.p);
    return e <= tol ? 0 : 1;
}
