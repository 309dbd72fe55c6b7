/* collada_morph.c — <controller><morph>: target geometries and default
 * weights, turned into marrow's delta form (anim/morph.h).
 *
 * COLLADA 1.4.1 defines two methods:
 *   NORMALIZED  v = (1 - sum w_k) * base + sum w_k * target_k
 *   RELATIVE    v = base + sum w_k * target_k   (targets are offsets)
 * NORMALIZED is base + sum w_k * (target_k - base), so its deltas are
 * target - base; RELATIVE targets are the deltas as they stand. A target
 * is a <geometry><mesh> whose <vertices> POSITION source has as many
 * entries as the base's: its primitives use the base's index streams, so
 * entry i of the target moves entry i of the base wherever the base's
 * primitives use it (the target's own <p> is not read). A morph whose
 * source is a skin <controller> takes the skin's geometry as its base
 * (collada_skin.c reads it as the skin over the morph). Targets are named
 * by <input semantic="MORPH_TARGET"> (an IDREF_array or Name_array of
 * geometry ids), default weights by <input semantic="MORPH_WEIGHT">.
 * Missing targets, unknown ids, a weight count other than the target
 * count and position counts that disagree are refused with the element's
 * path and line; non-finite weights are refused by cl_floats. A morph
 * without MORPH_WEIGHT gets weights 0 and a warning.
 */
#include "formats/collada_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

/* The POSITION source of a <geometry><mesh>. */
static mr_status geometry_positions(cl_doc *d, cl_el *geometry, cl_source *out)
{
    cl_el *mesh = cl_child(geometry, "mesh");
    if (!mesh) return cl_fail(d, geometry, "morph target geometry is not a <mesh>");
    cl_el *vertices = cl_child(mesh, "vertices");
    if (!vertices) return cl_fail(d, mesh, "morph target <mesh> has no <vertices>");
    for (cl_el *c = cl_child(vertices, "input"); c; c = cl_next(c, "input")) {
        const char *sem = cl_attr(c, "semantic");
        if (sem && !strcmp(sem, "POSITION")) return cl_input_source(d, c, 0, 3, out);
    }
    return cl_fail(d, vertices, "<vertices> has no POSITION input");
}

mr_status cl_morph_read(cl_doc *d, cl_el *morph, int position_count, size_t room, cl_morph *out)
{
    memset(out, 0, sizeof *out);
    const char *method = cl_attr(morph, "method");
    int relative = 0;
    if (!method || !strcmp(method, "NORMALIZED")) relative = 0;
    else if (!strcmp(method, "RELATIVE")) relative = 1;
    else return cl_fail(d, morph, "method=\"%s\": expected NORMALIZED or RELATIVE", method);
    cl_el *base_el;
    mr_status st = cl_ref(d, morph, "source", NULL, &base_el);
    if (st != MR_OK) return st;
    cl_el *skin_el = cl_is(base_el, "controller") ? cl_child(base_el, "skin") : NULL;
    if (skin_el && (st = cl_ref(d, skin_el, "source", NULL, &base_el)) != MR_OK) return st;  /* morph of a skin */
    if (!cl_is(base_el, "geometry"))
        return cl_fail(d, morph, "morph source names a <%s>, expected a <geometry> or a skin of one",
                       (const char *)base_el->name);
    cl_source base;
    if ((st = geometry_positions(d, base_el, &base)) != MR_OK) return st;
    if (base.count != position_count)
        return cl_fail(d, morph, "base geometry has %d positions, its mesh %d", base.count, position_count);
    cl_el *targets = cl_child(morph, "targets");
    if (!targets) return cl_fail(d, morph, "<morph> without <targets>");
    cl_el *tin = NULL, *win = NULL;
    for (cl_el *c = cl_child(targets, "input"); c; c = cl_next(c, "input")) {
        const char *sem = cl_attr(c, "semantic");
        if (sem && !strcmp(sem, "MORPH_TARGET")) tin = c;
        else if (sem && !strcmp(sem, "MORPH_WEIGHT")) win = c;
    }
    if (!tin) return cl_fail(d, targets, "<targets> has no MORPH_TARGET input");
    cl_source ids, ws = {0};
    if ((st = cl_input_source(d, tin, 1, 1, &ids)) != MR_OK) return st;
    if (ids.count < 1) return cl_fail(d, tin, "MORPH_TARGET source lists no targets");
    if (win) {
        if ((st = cl_input_source(d, win, 0, 1, &ws)) != MR_OK) return st;
        if (ws.count != ids.count)
            return cl_fail(d, win, "%d MORPH_WEIGHT values for %d targets", ws.count, ids.count);
    } else if (d->model) {
        mr_model_warn(d->model, "morph (line %ld) has no MORPH_WEIGHT input: default weights 0", cl_line(targets));
    }
    out->count = ids.count;
    out->position_count = position_count;
    size_t n = (size_t)ids.count * (size_t)(position_count ? position_count : 1);
    if (n > room / sizeof(vec3))       /* one target geometry named many times: bounded like instancing */
        return cl_fail_status(d, MR_ERR_LIMIT, morph, "%d morph targets of %d positions make %zu bytes of deltas, "
                              "more than this file can describe (%zu bytes left of its mesh budget)", ids.count,
                              position_count, n * sizeof(vec3), room);
    out->deltas = n <= MR_ALLOC_LIMIT / sizeof(vec3) ? mr_alloc_array(n, sizeof *out->deltas) : NULL;
    out->names = mr_alloc_array((size_t)ids.count, sizeof *out->names);
    out->weights = mr_alloc_array((size_t)ids.count, sizeof *out->weights);
    if (!out->deltas || !out->names || !out->weights) {
        cl_morph_free(out);
        return cl_fail_status(d, MR_ERR_NO_MEMORY, morph, "out of memory for %d morph targets", ids.count);
    }
    for (int k = 0; k < ids.count; k++) {
        const char *id = ids.names[(size_t)k * ids.stride];
        cl_el *tg = cl_find_id(d, id, strlen(id));
        if (!tg || !cl_is(tg, "geometry")) {
            cl_morph_free(out);
            return cl_fail(d, ids.el, "morph target %d '%s' names %s", k, id, tg ? "an element other than a <geometry>" : "no element");
        }
        cl_source tp;
        if ((st = geometry_positions(d, tg, &tp)) != MR_OK) {
            cl_morph_free(out);
            return st;
        }
        if (tp.count != base.count) {
            cl_morph_free(out);
            return cl_fail(d, tp.el, "morph target '%s' has %d positions, the base geometry %d", id, tp.count,
                           base.count);
        }
        const char *name = cl_attr(tg, "name");
        out->names[k] = name && *name ? name : id;
        out->weights[k] = win ? ws.f[(size_t)k * ws.stride] : 0.0f;
        vec3 *dk = out->deltas + (size_t)k * (size_t)position_count;
        for (int i = 0; i < position_count; i++) {
            const float *t = tp.f + (size_t)i * tp.stride, *b = base.f + (size_t)i * base.stride;
            for (int c = 0; c < 3; c++) dk[i][c] = relative ? t[c] : t[c] - b[c];
        }
    }
    return MR_OK;
}

void cl_morph_free(cl_morph *m)
{
    free(m->deltas);
    free(m->names);
    free(m->weights);
    memset(m, 0, sizeof *m);
}
