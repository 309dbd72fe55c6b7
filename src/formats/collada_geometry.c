/* collada_geometry.c — <geometry><mesh> primitives to indexed triangle lists.
 *
 * Every <triangles>, <polylist>, <polygons>, <tristrips> and <trifans>
 * becomes one cl_prim (one mr_mesh per primitive, hence per material).
 * Inputs may use separate index streams (offsets); a vertex is made for
 * each distinct (position, normal, texcoord) index tuple. Polygons are
 * split as fans; strips alternate their winding so every triangle keeps the
 * strip's facing. Counts are checked against the data and every index
 * against its source. Lines and other primitives are skipped with a warning.
 */
#include "formats/collada_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

typedef struct corner {
    int pos, nrm, uv;
} corner;

typedef struct prim_inputs {
    int stride;          /* indices per tuple: max offset + 1 */
    int off_vtx, off_nrm, off_uv;  /* -1 when absent */
    int nrm_in_vertices, uv_in_vertices;
    cl_source pos, nrm, uv;
    cl_el *nrm_el, *uv_el;
} prim_inputs;

typedef struct corner_list {
    corner *c;
    size_t n, cap;
} corner_list;

static int push_corner(corner_list *l, corner c)
{
    if (l->n == l->cap && mr_alloc_reserve((void **)&l->c, &l->cap, l->n + 1, sizeof *l->c) != 0) return -1;
    l->c[l->n++] = c;
    return 0;
}

/* Reads <vertices> inputs and the primitive's own inputs. */
static mr_status read_inputs(cl_doc *d, cl_el *vertices, cl_el *prim, prim_inputs *in)
{
    memset(in, 0, sizeof *in);
    in->off_vtx = in->off_nrm = in->off_uv = -1;
    long max_off = -1;
    long uv_set = -1;
    mr_status st;
    for (cl_el *c = cl_child(prim, "input"); c; c = cl_next(c, "input")) {
        const char *sem = cl_attr(c, "semantic");
        long off, set;
        if ((st = cl_int_attr(d, c, "offset", 0, 0, &off)) != MR_OK) return st;
        if ((st = cl_int_attr(d, c, "set", -1, 0, &set)) != MR_OK) return st;
        if (off > 64) return cl_fail(d, c, "offset %ld is implausibly large", off);
        if (off > max_off) max_off = off;
        if (!sem) return cl_fail(d, c, "<input> without a semantic");
        if (!strcmp(sem, "VERTEX")) {
            cl_el *v;
            if ((st = cl_ref(d, c, "source", "vertices", &v)) != MR_OK) return st;
            if (v != vertices) return cl_fail(d, c, "VERTEX input names another mesh's <vertices>");
            in->off_vtx = (int)off;
        } else if (!strcmp(sem, "NORMAL") && in->off_nrm < 0) {
            in->off_nrm = (int)off;
            in->nrm_el = c;
        } else if (!strcmp(sem, "TEXCOORD") && (in->off_uv < 0 || (set >= 0 && set < uv_set))) {
            in->off_uv = (int)off;
            in->uv_el = c;
            uv_set = set < 0 ? 0 : set;
        }
    }
    if (in->off_vtx < 0) return cl_fail(d, prim, "no VERTEX input");
    in->stride = (int)max_off + 1;
    cl_el *pos_el = NULL;
    for (cl_el *c = cl_child(vertices, "input"); c; c = cl_next(c, "input")) {
        const char *sem = cl_attr(c, "semantic");
        if (!sem) continue;
        if (!strcmp(sem, "POSITION")) pos_el = c;
        else if (!strcmp(sem, "NORMAL") && !in->nrm_el) {
            in->nrm_el = c;
            in->nrm_in_vertices = 1;
        } else if (!strcmp(sem, "TEXCOORD") && !in->uv_el) {
            in->uv_el = c;
            in->uv_in_vertices = 1;
        }
    }
    if (!pos_el) return cl_fail(d, vertices, "<vertices> has no POSITION input");
    if ((st = cl_input_source(d, pos_el, 0, 3, &in->pos)) != MR_OK) return st;
    if (in->nrm_el && (st = cl_input_source(d, in->nrm_el, 0, 3, &in->nrm)) != MR_OK) return st;
    if (in->uv_el && (st = cl_input_source(d, in->uv_el, 0, 2, &in->uv)) != MR_OK) return st;
    if (in->nrm_in_vertices) in->off_nrm = in->off_vtx;
    if (in->uv_in_vertices) in->off_uv = in->off_vtx;
    return MR_OK;
}

/* Corner from the tuple starting at t; checks every index. */
static mr_status make_corner(cl_doc *d, cl_el *p_el, const prim_inputs *in, const int *t, corner *c)
{
    c->pos = t[in->off_vtx];
    c->nrm = in->nrm_el ? t[in->off_nrm] : 0;
    c->uv = in->uv_el ? t[in->off_uv] : 0;
    if (c->pos >= in->pos.count)
        return cl_fail(d, p_el, "position index %d is out of range: the source has %d", c->pos, in->pos.count);
    if (in->nrm_el && c->nrm >= in->nrm.count)
        return cl_fail(d, p_el, "normal index %d is out of range: the source has %d", c->nrm, in->nrm.count);
    if (in->uv_el && c->uv >= in->uv.count)
        return cl_fail(d, p_el, "texcoord index %d is out of range: the source has %d", c->uv, in->uv.count);
    return MR_OK;
}

/* Emits a polygon of n tuples starting at idx as a fan. */
static mr_status emit_fan(cl_doc *d, cl_el *p_el, const prim_inputs *in, const int *idx, long n,
                          corner_list *out, long *degenerate)
{
    if (n < 3) {
        (*degenerate)++;
        return MR_OK;
    }
    corner first, prev, cur;
    mr_status st;
    if ((st = make_corner(d, p_el, in, idx, &first)) != MR_OK) return st;
    if ((st = make_corner(d, p_el, in, idx + in->stride, &prev)) != MR_OK) return st;
    for (long k = 2; k < n; k++) {
        if ((st = make_corner(d, p_el, in, idx + k * in->stride, &cur)) != MR_OK) return st;
        if (push_corner(out, first) || push_corner(out, prev) || push_corner(out, cur))
            return cl_fail_status(d, MR_ERR_NO_MEMORY, p_el, "out of memory");
        prev = cur;
    }
    return MR_OK;
}

static mr_status emit_strip(cl_doc *d, cl_el *p_el, const prim_inputs *in, const int *idx, long n,
                            corner_list *out)
{
    mr_status st;
    for (long k = 0; k + 2 < n; k++) {
        corner a, b, c;
        if ((st = make_corner(d, p_el, in, idx + k * in->stride, &a)) != MR_OK) return st;
        if ((st = make_corner(d, p_el, in, idx + (k + 1) * in->stride, &b)) != MR_OK) return st;
        if ((st = make_corner(d, p_el, in, idx + (k + 2) * in->stride, &c)) != MR_OK) return st;
        int ok = (k & 1) ? !push_corner(out, b) && !push_corner(out, a) && !push_corner(out, c)
                         : !push_corner(out, a) && !push_corner(out, b) && !push_corner(out, c);
        if (!ok) return cl_fail_status(d, MR_ERR_NO_MEMORY, p_el, "out of memory");
    }
    return MR_OK;
}

/* Collects the corners of one primitive element. */
static mr_status read_corners(cl_doc *d, cl_el *prim, const prim_inputs *in, corner_list *out, long *degenerate)
{
    const char *kind = (const char *)prim->name;
    long count;
    mr_status st = cl_int_attr(d, prim, "count", -1, 0, &count);
    if (st != MR_OK) return st;
    if (count < 0) return cl_fail(d, prim, "missing attribute 'count'");
    int *idx = NULL, *vc = NULL;
    size_t n = 0, nvc = 0;

    if (!strcmp(kind, "triangles") || !strcmp(kind, "polylist")) {
        cl_el *p = cl_child(prim, "p");
        if (!p) {
            if (count == 0) return MR_OK;
            return cl_fail(d, prim, "count=\"%ld\" but there is no <p>", count);
        }
        if ((st = cl_ints(d, p, 0, &idx, &n)) != MR_OK) return st;
        if (!strcmp(kind, "triangles")) {
            size_t need = (size_t)count * 3 * (size_t)in->stride;
            if (n != need) {
                free(idx);
                return cl_fail(d, p, "count=\"%ld\" triangles with %d indices per vertex need %zu indices, <p> holds %zu",
                               count, in->stride, need, n);
            }
            if (mr_alloc_reserve((void **)&out->c, &out->cap, out->n + (size_t)count * 3, sizeof *out->c) != MR_OK) {
                free(idx);
                return cl_fail_status(d, MR_ERR_NO_MEMORY, prim, "out of memory for %ld triangles", count);
            }
            for (long t = 0; t < count && st == MR_OK; t++)
                st = emit_fan(d, p, in, idx + (size_t)t * 3 * in->stride, 3, out, degenerate);
        } else {
            cl_el *vcount = cl_child(prim, "vcount");
            if (!vcount) {
                free(idx);
                return cl_fail(d, prim, "<polylist> without <vcount>");
            }
            if ((st = cl_ints(d, vcount, 0, &vc, &nvc)) != MR_OK) {
                free(idx);
                return st;
            }
            if ((long)nvc != count) {
                free(idx);
                free(vc);
                return cl_fail(d, vcount, "count=\"%ld\" polygons but <vcount> holds %zu entries", count, nvc);
            }
            size_t total = 0;
            for (size_t k = 0; k < nvc; k++) total += (size_t)vc[k];
            if (total * (size_t)in->stride != n) {
                free(idx);
                free(vc);
                return cl_fail(d, p, "<vcount> adds up to %zu vertices (%zu indices) but <p> holds %zu", total,
                               total * (size_t)in->stride, n);
            }
            size_t tris = 0;  /* the fans' corners, reserved at once */
            for (size_t k = 0; k < nvc; k++) tris += vc[k] > 2 ? (size_t)vc[k] - 2 : 0;
            if (mr_alloc_reserve((void **)&out->c, &out->cap, out->n + tris * 3, sizeof *out->c) != MR_OK) {
                free(idx);
                free(vc);
                return cl_fail_status(d, MR_ERR_NO_MEMORY, prim, "out of memory for %zu triangles", tris);
            }
            size_t at = 0;
            for (size_t k = 0; k < nvc && st == MR_OK; k++) {
                st = emit_fan(d, p, in, idx + at, vc[k], out, degenerate);
                at += (size_t)vc[k] * (size_t)in->stride;
            }
        }
        free(idx);
        free(vc);
        return st;
    }

    /* polygons, tristrips, trifans: one <p> per polygon/strip/fan. */
    int polygons = !strcmp(kind, "polygons"), strips = !strcmp(kind, "tristrips");
    long seen = 0;
    for (cl_el *c = cl_first_elem(prim); c && st == MR_OK; c = cl_next_elem(c)) {
        cl_el *p = NULL;
        if (cl_is(c, "p")) p = c;
        else if (polygons && cl_is(c, "ph")) {
            p = cl_child(c, "p");  /* holes are dropped; the outline is kept */
            if (d->model && cl_child(c, "h"))
                mr_model_warn(d->model, "polygon with holes (line %ld): holes ignored", cl_line(c));
        }
        if (!p) continue;
        seen++;
        if ((st = cl_ints(d, p, 0, &idx, &n)) != MR_OK) return st;
        if (n % (size_t)in->stride) {
            free(idx);
            return cl_fail(d, p, "%zu indices is not a multiple of %d inputs", n, in->stride);
        }
        long verts = (long)(n / (size_t)in->stride);
        if (strips) st = emit_strip(d, p, in, idx, verts, out);
        else st = emit_fan(d, p, in, idx, verts, out, degenerate);
        free(idx);
        idx = NULL;
    }
    if (st == MR_OK && seen != count)
        return cl_fail(d, prim, "count=\"%ld\" but there are %ld <p> elements", count, seen);
    return st;
}

/* ---- de-duplication --------------------------------------------------------- */

static inline uint32_t hash_corner(corner c)
{
    uint64_t h = (uint64_t)(uint32_t)c.pos * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)(uint32_t)c.nrm * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t)(uint32_t)c.uv * 0x165667B19E3779F9ull;
    return (uint32_t)(h ^ (h >> 29));
}

static mr_status build_prim(cl_doc *d, cl_el *prim, const prim_inputs *in, const corner_list *cl,
                            cl_prim *out)
{
    size_t cap = 16;
    while (cap < cl->n * 2) cap <<= 1;
    /* All three are written before they are read: malloc, no zeroing. */
    int ok = cl->n <= (size_t)INT32_MAX / 2 && cap <= MR_ALLOC_LIMIT / sizeof(int) &&
             cl->n <= MR_ALLOC_LIMIT / sizeof(corner);
    int *table = ok ? malloc(cap * sizeof *table) : NULL;
    int *remap = ok ? malloc((cl->n ? cl->n : 1) * sizeof *remap) : NULL;
    corner *uniq = ok ? malloc((cl->n ? cl->n : 1) * sizeof *uniq) : NULL;
    if (!table || !remap || !uniq) {
        free(table);
        free(remap);
        free(uniq);
        return cl_fail_status(d, MR_ERR_NO_MEMORY, prim, "out of memory for %zu corners", cl->n);
    }
    memset(table, 0xff, cap * sizeof *table);
    int nv = 0;
    for (size_t i = 0; i < cl->n; i++) {
        corner c = cl->c[i];
        size_t h = hash_corner(c) & (cap - 1);
        for (;;) {
            int v = table[h];
            if (v < 0) {
                table[h] = nv;
                uniq[nv] = c;
                remap[i] = nv++;
                break;
            }
            if (uniq[v].pos == c.pos && uniq[v].nrm == c.nrm && uniq[v].uv == c.uv) {
                remap[i] = v;
                break;
            }
            h = (h + 1) & (cap - 1);
        }
    }
    free(table);
    /* positions and indices written below, normals and uvs when the
     * primitive has them */
    unsigned set = MR_MESH_SET_POSITIONS | MR_MESH_SET_INDICES | (in->nrm_el ? MR_MESH_SET_NORMALS : 0) |
                   (in->uv_el ? MR_MESH_SET_UVS : 0);
    mr_status st = mr_mesh_init_set(&out->mesh, nv, (int)cl->n, 0, set);
    out->pos_index = st == MR_OK ? mr_alloc_array((size_t)nv, sizeof *out->pos_index) : NULL;
    if (st != MR_OK || !out->pos_index) {
        free(remap);
        free(uniq);
        mr_mesh_deinit(&out->mesh);
        return cl_fail_status(d, MR_ERR_NO_MEMORY, prim, "out of memory for %d vertices", nv);
    }
    mr_mesh *m = &out->mesh;
    for (int v = 0; v < nv; v++) {
        const float *p = in->pos.f + (size_t)uniq[v].pos * in->pos.stride;
        glm_vec3_copy((vec3){p[0], p[1], p[2]}, m->positions[v]);
        out->pos_index[v] = uniq[v].pos;
        if (in->nrm_el) {
            const float *n = in->nrm.f + (size_t)uniq[v].nrm * in->nrm.stride;
            glm_vec3_copy((vec3){n[0], n[1], n[2]}, m->normals[v]);
        }
        if (in->uv_el) {
            const float *t = in->uv.f + (size_t)uniq[v].uv * in->uv.stride;
            m->uvs[v][0] = t[0];
            m->uvs[v][1] = t[1];
        }
    }
    for (size_t i = 0; i < cl->n; i++) m->indices[i] = (uint32_t)remap[i];
    out->has_normals = in->nrm_el != NULL;
    out->symbol = cl_attr(prim, "material");
    out->el = prim;
    free(remap);
    free(uniq);
    return MR_OK;
}

static int is_triangle_prim(const cl_el *c)
{
    return cl_is(c, "triangles") || cl_is(c, "polylist") || cl_is(c, "polygons") || cl_is(c, "tristrips") ||
           cl_is(c, "trifans");
}

mr_status cl_geometry_read(cl_doc *d, cl_el *geometry, cl_geometry *g)
{
    memset(g, 0, sizeof *g);
    g->name = cl_attr(geometry, "name");
    if (!g->name) g->name = cl_attr(geometry, "id");
    if (!g->name) g->name = "geometry";
    cl_el *mesh = cl_child(geometry, "mesh");
    if (!mesh) {
        if (d->model)
            mr_model_warn(d->model, "geometry '%s' (line %ld) is not a <mesh>; skipped", g->name, cl_line(geometry));
        return MR_OK;
    }
    cl_el *vertices = cl_child(mesh, "vertices");
    int nprims = 0, skipped = 0;
    for (cl_el *c = cl_first_elem(mesh); c; c = cl_next_elem(c)) {
        if (is_triangle_prim(c)) nprims++;
        else if (cl_is(c, "lines") || cl_is(c, "linestrips")) skipped++;
    }
    if (skipped && d->model)
        mr_model_warn(d->model, "geometry '%s': %d line primitive(s) skipped", g->name, skipped);
    if (!nprims) return MR_OK;
    if (!vertices) return cl_fail(d, mesh, "<mesh> has primitives but no <vertices>");
    g->prims = mr_alloc_array((size_t)nprims, sizeof *g->prims);
    if (!g->prims) return cl_fail_status(d, MR_ERR_NO_MEMORY, mesh, "out of memory");
    long degenerate = 0;
    mr_status st = MR_OK;
    for (cl_el *c = cl_first_elem(mesh); c && st == MR_OK; c = cl_next_elem(c)) {
        if (!is_triangle_prim(c)) continue;
        prim_inputs in;
        if ((st = read_inputs(d, vertices, c, &in)) != MR_OK) break;
        g->position_count = in.pos.count;
        corner_list cl = {0};
        st = read_corners(d, c, &in, &cl, &degenerate);
        if (st == MR_OK && cl.n > 0) {
            st = build_prim(d, c, &in, &cl, &g->prims[g->prim_count]);
            if (st == MR_OK) g->prim_count++;
        }
        free(cl.c);
    }
    if (st != MR_OK) {
        cl_geometry_free(g);
        return st;
    }
    if (degenerate && d->model)
        mr_model_warn(d->model, "geometry '%s': %ld polygon(s) with fewer than 3 vertices skipped", g->name,
                      degenerate);
    return MR_OK;
}

void cl_geometry_free(cl_geometry *g)
{
    for (int i = 0; i < g->prim_count; i++) {
        mr_mesh_deinit(&g->prims[i].mesh);
        free(g->prims[i].pos_index);
    }
    free(g->prims);
    memset(g, 0, sizeof *g);
}
