/* collada_skin.c — <controller><skin>: bind shape, joints, inverse bind
 * matrices and per-vertex weights, with the joints bound to scene nodes.
 *
 * Joints named in a Name_array are looked up under the instance's
 * <skeleton> roots (all of them; the whole scene when there are none) by
 * sid, then id, then name, whether or not the node is typed JOINT. An
 * IDREF_array names node ids directly. <vertex_weights> inputs may sit at
 * any offsets; a JOINT index of -1 (the bind shape itself) is kept as -1.
 */
#include "formats/collada_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

/* Scene node instances the <skeleton> elements name. *roots is NULL (whole
 * scene) when there is no <skeleton>. */
static mr_status skeleton_roots(cl_doc *d, const cl_scene *s, cl_el *inst, int **roots, int *count)
{
    *roots = NULL;
    *count = 0;
    int n = 0;
    for (cl_el *c = cl_child(inst, "skeleton"); c; c = cl_next(c, "skeleton")) n++;
    if (!n) return MR_OK;
    int cap = n;
    int *r = mr_alloc_array((size_t)cap, sizeof *r);
    if (!r) return cl_fail_status(d, MR_ERR_NO_MEMORY, inst, "out of memory");
    for (cl_el *c = cl_child(inst, "skeleton"); c; c = cl_next(c, "skeleton")) {
        cl_el *target;
        mr_status st = cl_ref(d, c, NULL, NULL, &target);
        if (st != MR_OK) {
            free(r);
            return st;
        }
        int found = -1;
        if (cl_is(target, "visual_scene")) {
            found = -1;
        } else {
            const char *id = cl_attr(target, "id");
            for (int i = cl_scene_find(s, NULL, 0, id, 1); i >= 0; i = cl_scene_next(s, i, 1))
                if (s->nodes[i].el == target) {
                    found = i;
                    break;
                }
            if (found < 0)
                return free(r), cl_fail(d, c, "skeleton root '%s' is not a node of the instanced scene", id ? id : "?");
        }
        r[(*count)++] = found;
        if (found < 0) {  /* the whole scene: other roots add nothing */
            r[0] = -1;
            *count = 1;
            break;
        }
    }
    *roots = r;
    return MR_OK;
}

static mr_status bind_joints(cl_doc *d, const cl_scene *s, cl_el *inst, const cl_source *names, int idref,
                             cl_skin *skin)
{
    int *roots, nroots;
    mr_status st = skeleton_roots(d, s, inst, &roots, &nroots);
    if (st != MR_OK) return st;
    for (int j = 0; j < skin->joint_count; j++) {
        const char *key = names->names[(size_t)j * names->stride];
        int node = -1;
        if (idref) {
            node = cl_scene_find(s, roots, nroots, key, 1);
        } else {
            for (int field = 0; field < 3 && node < 0; field++) node = cl_scene_find(s, roots, nroots, key, field);
        }
        if (node < 0 && roots) {
            /* Exporters sometimes list a skeleton root below the real one:
             * fall back to the whole scene before giving up. */
            for (int field = idref ? 1 : 0; field < (idref ? 2 : 3) && node < 0; field++)
                node = cl_scene_find(s, NULL, 0, key, field);
        }
        if (node < 0) {
            free(roots);
            return cl_fail(d, names->el, "joint '%s' is not a node of the scene (searched by %s)", key,
                           idref ? "id" : "sid, id and name");
        }
        skin->joint_node[j] = node;
    }
    free(roots);
    return MR_OK;
}

static mr_status read_weights(cl_doc *d, cl_el *vw, const cl_source *joint_names, cl_skin *skin)
{
    long count;
    mr_status st = cl_int_attr(d, vw, "count", -1, 0, &count);
    if (st != MR_OK) return st;
    if (count < 0) return cl_fail(d, vw, "missing attribute 'count'");
    long off_j = -1, off_w = -1, max_off = -1;
    cl_source wsrc = {0}, jsrc = {0};
    for (cl_el *c = cl_child(vw, "input"); c; c = cl_next(c, "input")) {
        const char *sem = cl_attr(c, "semantic");
        long off;
        if ((st = cl_int_attr(d, c, "offset", 0, 0, &off)) != MR_OK) return st;
        if (off > 64) return cl_fail(d, c, "offset %ld is implausibly large", off);
        if (off > max_off) max_off = off;
        if (sem && !strcmp(sem, "JOINT")) {
            off_j = off;
            if ((st = cl_input_source(d, c, 1, 1, &jsrc)) != MR_OK) return st;
        } else if (sem && !strcmp(sem, "WEIGHT")) {
            off_w = off;
            if ((st = cl_input_source(d, c, 0, 1, &wsrc)) != MR_OK) return st;
        }
    }
    if (off_j < 0 || off_w < 0) return cl_fail(d, vw, "<vertex_weights> needs JOINT and WEIGHT inputs");
    /* Weights may index another joint list than <joints>: map by name. */
    int *jmap = NULL;
    if (jsrc.el != joint_names->el) {
        jmap = mr_alloc_array((size_t)jsrc.count, sizeof *jmap);
        if (!jmap) return cl_fail_status(d, MR_ERR_NO_MEMORY, vw, "out of memory");
        for (int k = 0; k < jsrc.count; k++) {
            const char *nm = jsrc.names[(size_t)k * jsrc.stride];
            jmap[k] = -1;
            for (int j = 0; j < skin->joint_count; j++)
                if (!strcmp(joint_names->names[(size_t)j * joint_names->stride], nm)) {
                    jmap[k] = j;
                    break;
                }
            if (jmap[k] < 0) {
                free(jmap);
                return cl_fail(d, jsrc.el, "joint '%s' is not listed in the skin's <joints>", nm);
            }
        }
    }
    int stride = (int)max_off + 1;
    cl_el *vc_el = cl_child(vw, "vcount"), *v_el = cl_child(vw, "v");
    int *vc = NULL, *v = NULL;
    size_t nvc = 0, nv = 0;
    if (count > 0 && (!vc_el || !v_el)) {
        free(jmap);
        return cl_fail(d, vw, "<vertex_weights> needs <vcount> and <v>");
    }
    if (vc_el && (st = cl_ints(d, vc_el, 0, &vc, &nvc)) != MR_OK) goto done;
    if (v_el && (st = cl_ints(d, v_el, -1, &v, &nv)) != MR_OK) goto done;
    if ((long)nvc != count) {
        st = cl_fail(d, vc_el, "count=\"%ld\" vertices but <vcount> holds %zu entries", count, nvc);
        goto done;
    }
    size_t total = 0;
    for (size_t k = 0; k < nvc; k++) total += (size_t)vc[k];
    if (total * (size_t)stride != nv) {
        st = cl_fail(d, v_el, "<vcount> adds up to %zu influences (%zu indices) but <v> holds %zu", total,
                     total * (size_t)stride, nv);
        goto done;
    }
    skin->vertex_count = (int)count;
    skin->offsets = mr_alloc_array((size_t)count + 1, sizeof *skin->offsets);
    skin->joints = mr_alloc_array(total, sizeof *skin->joints);
    skin->weights = mr_alloc_array(total, sizeof *skin->weights);
    if (!skin->offsets || !skin->joints || !skin->weights || total > (size_t)INT32_MAX) {
        st = cl_fail_status(d, MR_ERR_NO_MEMORY, vw, "out of memory for %zu influences", total);
        goto done;
    }
    size_t at = 0;
    for (long k = 0; k < count; k++) {
        skin->offsets[k] = (int)at;
        for (int i = 0; i < vc[k]; i++, at++) {
            const int *t = v + at * (size_t)stride;
            int j = t[off_j], w = t[off_w];
            if (j >= (jmap ? jsrc.count : skin->joint_count)) {
                st = cl_fail(d, v_el, "vertex %ld: joint index %d is out of range (%d joints)", k, j,
                             jmap ? jsrc.count : skin->joint_count);
                goto done;
            }
            if (w < 0 || w >= wsrc.count) {
                st = cl_fail(d, v_el, "vertex %ld: weight index %d is out of range (%d weights)", k, w, wsrc.count);
                goto done;
            }
            skin->joints[at] = j < 0 ? -1 : jmap ? jmap[j] : j;
            skin->weights[at] = wsrc.f[(size_t)w * wsrc.stride];
        }
    }
    skin->offsets[count] = (int)at;
    /* Weight left on the bind shape: explicit joint -1, or weights adding
     * up to less than 1 (see cl_skin in collada_internal.h). */
    for (long k = 0; k < count && !skin->uses_bind_shape; k++) {
        float sum = 0;
        for (int i = skin->offsets[k]; i < skin->offsets[k + 1]; i++) {
            if (skin->joints[i] < 0) skin->uses_bind_shape = 1;
            else sum += skin->weights[i];
        }
        if (sum < 1.0f - CL_BIND_SHAPE_EPS) skin->uses_bind_shape = 1;
    }
done:
    free(jmap);
    free(vc);
    free(v);
    return st;
}

mr_status cl_skin_read(cl_doc *d, const cl_scene *s, const cl_instance *inst, cl_skin *skin)
{
    memset(skin, 0, sizeof *skin);
    glm_mat4_identity(skin->bind_shape);
    mr_status st = cl_ref(d, inst->el, "url", "controller", &skin->controller);
    if (st != MR_OK) return st;
    cl_el *sk = cl_child(skin->controller, "skin");
    if (!sk) {
        cl_el *morph = cl_child(skin->controller, "morph"), *base;
        if (!morph) return cl_fail(d, skin->controller, "controller has neither <skin> nor <morph>");
        if ((st = cl_ref(d, morph, "source", NULL, &base)) != MR_OK) return st;
        skin->morph = morph;
        if (cl_is(base, "controller") && cl_child(base, "skin")) {
            /* A morph of a skinned mesh: read as the skin over the morph
             * (targets before skinning), which agrees at the bind pose. */
            if (d->model)
                mr_model_warn(d->model, "morph '%s' (line %ld) of a skin: its targets are applied before skinning",
                              cl_attr(skin->controller, "id") ? cl_attr(skin->controller, "id") : "?",
                              cl_line(morph));
            skin->controller = base;
            sk = cl_child(base, "skin");
        } else {
            if (!cl_is(base, "geometry"))
                return cl_fail(d, morph, "morph source names a <%s>, expected a <geometry> or a skin <controller>",
                               (const char *)base->name);
            skin->geometry = base;
            return MR_OK;
        }
    }
    skin->skin_el = sk;
    cl_el *src;
    if ((st = cl_ref(d, sk, "source", NULL, &src)) != MR_OK) return st;
    if (cl_is(src, "controller")) {
        cl_el *morph = cl_child(src, "morph");
        if (!morph) return cl_fail(d, sk, "skin of a skin is not supported");
        if (skin->morph) return cl_fail(d, sk, "a skin over a morph under a morph is not supported");
        if ((st = cl_ref(d, morph, "source", "geometry", &src)) != MR_OK) return st;
        skin->morph = morph;
    }
    if (!cl_is(src, "geometry"))
        return cl_fail(d, sk, "skin source names a <%s>, expected a <geometry>", (const char *)src->name);
    skin->geometry = src;
    cl_el *bsm = cl_child(sk, "bind_shape_matrix");
    if (bsm) {
        float rows[16];
        if ((st = cl_fixed_floats(d, bsm, rows, 16)) != MR_OK) return st;
        cl_mat_from_rows(rows, skin->bind_shape);
    }
    cl_el *joints = cl_child(sk, "joints");
    if (!joints) return cl_fail(d, sk, "<skin> without <joints>");
    cl_el *jin = NULL, *ibin = NULL;
    for (cl_el *c = cl_child(joints, "input"); c; c = cl_next(c, "input")) {
        const char *sem = cl_attr(c, "semantic");
        if (sem && !strcmp(sem, "JOINT")) jin = c;
        else if (sem && !strcmp(sem, "INV_BIND_MATRIX")) ibin = c;
    }
    if (!jin) return cl_fail(d, joints, "<joints> has no JOINT input");
    cl_source names, ibm = {0};
    if ((st = cl_input_source(d, jin, 1, 1, &names)) != MR_OK) return st;
    if (ibin && (st = cl_input_source(d, ibin, 0, 16, &ibm)) != MR_OK) return st;
    if (ibin && ibm.count != names.count)
        return cl_fail(d, ibin, "%d inverse bind matrices for %d joints", ibm.count, names.count);
    int idref = 0;
    {
        cl_el *tc = cl_child(names.el, "technique_common");
        cl_el *acc = tc ? cl_child(tc, "accessor") : NULL;
        cl_el *arr = NULL;
        if (acc) arr = cl_lookup(d, cl_attr(acc, "source"));
        else arr = cl_child(names.el, "IDREF_array");
        idref = arr && cl_is(arr, "IDREF_array");
    }
    skin->joint_count = names.count;
    skin->joint_node = mr_alloc_array((size_t)names.count, sizeof *skin->joint_node);
    skin->inv_bind = mr_alloc_array((size_t)names.count, sizeof *skin->inv_bind);
    if (!skin->joint_node || !skin->inv_bind) {
        cl_skin_free(skin);
        return cl_fail_status(d, MR_ERR_NO_MEMORY, joints, "out of memory");
    }
    for (int j = 0; j < names.count; j++) {
        if (ibin) cl_mat_from_rows(ibm.f + (size_t)j * ibm.stride, skin->inv_bind[j]);
        else glm_mat4_identity(skin->inv_bind[j]);
    }
    st = bind_joints(d, s, inst->el, &names, idref, skin);
    if (st == MR_OK) {
        cl_el *vw = cl_child(sk, "vertex_weights");
        if (!vw) st = cl_fail(d, sk, "<skin> without <vertex_weights>");
        else st = read_weights(d, vw, &names, skin);
    }
    if (st != MR_OK) cl_skin_free(skin);
    return st;
}

void cl_skin_free(cl_skin *skin)
{
    free(skin->joint_node);
    free(skin->inv_bind);
    free(skin->offsets);
    free(skin->joints);
    free(skin->weights);
    memset(skin, 0, sizeof *skin);
}
