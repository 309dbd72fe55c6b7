/* fbx_read.c — mr_fbx_load: the FBX document (fbx_parse.h) into an
 * mr_model (rules in fbx.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/file.h"
#include "core/str.h"
#include "formats/fbx.h"
#include "formats/fbx_internal.h"

static mr_status oom(fbx_scene *s)
{
    return mr_error_set(s->err, MR_ERR_NO_MEMORY, "fbx: %s: out of memory", s->path);
}

static double time_mode_fps(int mode, double custom)
{
    static const double fps[] = {24, 120, 100, 60, 50, 48, 30, 30, 29.97, 29.97, 25, 24, 1000, 23.976, 0, 96, 72, 59.94, 119.88};
    if (mode == 14) return custom > 0 && custom < 10000 ? custom : 24;
    if (mode < 0 || mode >= (int)(sizeof fps / sizeof fps[0])) return 24;
    return fps[mode];
}

static void read_settings(fbx_scene *s)
{
    const mr_fbx_node *gs = mr_fbx_child(&s->doc->root, "GlobalSettings");
    if (!gs) gs = mr_fbx_child(mr_fbx_child(&s->doc->root, "Objects"), "GlobalSettings");
    const mr_fbx_node *p = mr_fbx_child(gs, "Properties70");
    if (!p) p = mr_fbx_child(gs, "Properties60");
    s->settings = p;
    const char *creator = mr_fbx_prop_string(mr_fbx_child(mr_fbx_child(&s->doc->root, "FBXHeaderExtension"), "Creator"), 0, NULL);
    if (!creator) creator = mr_fbx_prop_string(mr_fbx_child(&s->doc->root, "Creator"), 0, NULL);
    s->blender = !s->doc->ascii && creator && !strncmp(creator, "Blender", 7);
    s->fps = time_mode_fps((int)fbx_node_prop_num(p, "TimeMode", 0), fbx_node_prop_num(p, "CustomFrameRate", 0));
}

static void set_axes(fbx_scene *s)
{
    const mr_fbx_node *p = s->settings;
    int up = (int)fbx_node_prop_num(p, "UpAxis", 1), up_sign = (int)fbx_node_prop_num(p, "UpAxisSign", 1);
    int front = (int)fbx_node_prop_num(p, "FrontAxis", 2), front_sign = (int)fbx_node_prop_num(p, "FrontAxisSign", 1);
    int coord = (int)fbx_node_prop_num(p, "CoordAxis", 0), coord_sign = (int)fbx_node_prop_num(p, "CoordAxisSign", 1);
    double unit = fbx_node_prop_num(p, "UnitScaleFactor", 1);
    if (!(unit > 0) || !isfinite(unit)) unit = 1;
    static const char *names = "XYZ";
    if (up < 0 || up > 2) up = 1;
    if (front < 0 || front > 2) front = 2;
    if (coord < 0 || coord > 2) coord = 0;
    s->model->axes.up = up == 1 ? MR_UP_Y : up == 2 ? MR_UP_Z : MR_UP_X;
    s->model->axes.meters_per_unit = (float)(unit / 100.0);
    s->model->axes_note = mr_str_fmt("FBX %s%c up, %s%c front, %s%c right, %g cm per unit: kept as in the file%s",
                                     up_sign < 0 ? "-" : "+", names[up], front_sign < 0 ? "-" : "+", names[front],
                                     coord_sign < 0 ? "-" : "+", names[coord], unit,
                                     up_sign < 0 ? " (a negative up axis is shown upside down)" : "");
}

/* Depth-first from the roots, children in connection order. */
static mr_status order_models(fbx_scene *s)
{
    int n = s->obj_count;
    s->obj_joint = mr_alloc_array((size_t)n + 1, sizeof *s->obj_joint);
    s->fbx_parent = mr_alloc_array((size_t)n + 1, sizeof *s->fbx_parent);
    s->scale_from = mr_alloc_array((size_t)n + 1, sizeof *s->scale_from);
    s->node_obj = mr_alloc_array((size_t)n + 1, sizeof *s->node_obj);
    int *parent = mr_alloc_array((size_t)n + 1, sizeof *parent);
    int *stack = mr_alloc_array((size_t)n + 1, sizeof *stack);
    if (!s->obj_joint || !s->node_obj || !s->fbx_parent || !s->scale_from || !parent || !stack) {
        free(parent);
        free(stack);
        return oom(s);
    }
    for (int i = 0; i < n; i++) {
        s->obj_joint[i] = -1;
        parent[i] = -2;
    }
    for (int i = 0; i < n; i++) {
        if (strcmp(s->objs[i].cls, "Model")) continue;
        int p = fbx_linked(s, i, 0, "Model", NULL);
        parent[i] = p == i ? -1 : p;
    }
    /* roots: models whose parent is not a model (or that sit on a cycle: found below) */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < n; i++) {
            if (parent[i] == -2 || s->obj_joint[i] >= 0) continue;
            if (pass == 0 && parent[i] >= 0) continue;
            int sp = 0;
            stack[sp++] = i;
            while (sp > 0) {
                int o = stack[--sp];
                if (s->obj_joint[o] >= 0) continue;
                if (s->node_count >= MR_MAX_JOINTS)
                    return free(parent), free(stack),
                           mr_error_set(s->err, MR_ERR_LIMIT, "fbx: %s: more than %d nodes (marrow's joint limit)", s->path,
                                        MR_MAX_JOINTS);
                s->obj_joint[o] = s->node_count;
                s->node_obj[s->node_count++] = o;
                int first, c = fbx_children(s, o, &first);
                for (int k = c - 1; k >= 0; k--) {
                    int ch = s->conns[s->conn_by_parent[first + k]].child;
                    if (ch >= 0 && parent[ch] == o && s->obj_joint[ch] < 0) stack[sp++] = ch;
                }
            }
        }
    }
    /* a model reached first through a cycle has no parent joint before it */
    free(stack);
    s->xf = mr_alloc_array((size_t)s->node_count + 1, sizeof *s->xf);
    s->rest_world = mr_alloc_array((size_t)s->node_count + 1, sizeof *s->rest_world);
    s->anim = mr_alloc_array((size_t)s->node_count + 1, sizeof *s->anim);
    s->unscaled = mr_alloc_array((size_t)s->node_count + 1, sizeof *s->unscaled);
    s->acc_scale = mr_alloc_array((size_t)s->node_count + 1, sizeof *s->acc_scale);
    if (!s->xf || !s->rest_world || !s->anim || !s->unscaled || !s->acc_scale) {
        free(parent);
        return oom(s);
    }
    mr_skeleton *sk = &s->model->skeleton;
    mr_status st = mr_skeleton_init(sk, s->node_count);
    if (st != MR_OK) {
        free(parent);
        return mr_error_set(s->err, st, "fbx: %s: %d nodes: out of memory", s->path, s->node_count);
    }
    for (int j = 0; j < s->node_count; j++) {
        int o = s->node_obj[j];
        int p = parent[o];
        int pj = p >= 0 ? s->obj_joint[p] : -1;
        sk->parents[j] = s->fbx_parent[j] = pj < j ? pj : -1;
        fbx_xf_read(s, o, &s->xf[j]);
        if (s->legacy) fbx_legacy_rest(s, o, &s->xf[j]);
        int sp = sk->parents[j];
        s->scale_from[j] = sp < 0 ? -1 : s->xf[j].inherit == 0 ? sp : s->xf[j].inherit == 2 ? s->scale_from[sp] : -1;
        const char *name = s->objs[o].name;
        char *nm = name && name[0] ? mr_str_dup(name) : mr_str_fmt("node%d", j);
        for (int k = 2; nm && mr_skeleton_find(sk, nm) >= 0; k++) {
            char *u = mr_str_fmt("%s#%d", name && name[0] ? name : "node", k);
            free(nm);
            nm = u;
        }
        if (!nm) {
            free(parent);
            return oom(s);
        }
        sk->names[j] = nm;
    }
    free(parent);
    return MR_OK;
}

/* The rest pose: each node's static transform. */
static mr_status rest_pose(fbx_scene *s)
{
    mr_skeleton *sk = &s->model->skeleton;
    double (*locals)[16] = mr_alloc_array((size_t)s->node_count + 1, sizeof *locals);
    if (!locals) return oom(s);
    fbx_eval_worlds(s, 0, 0, s->rest_world, locals);
    for (int j = 0; j < s->node_count; j++) {
        double local[16];
        fbx_joint_local(s, j, s->rest_world, locals, local);
        fbx_m_decompose(local, sk->rest_t[j], sk->rest_r[j], sk->rest_s[j]);
    }
    free(locals);
    mr_skeleton_touch(sk);
    mr_skeleton_compute_inverse_bind(sk);
    /* A node squashed flat at rest (a zero scale, Maya's 1e-12) has no
     * usable inverse: its rigid meshes are kept in their own space instead
     * (identity inverse bind), which skinning composes exactly. */
    for (int j = 0; j < s->node_count; j++) {
        const double *w = s->rest_world[j];
        double lo = INFINITY, hi = 0;
        for (int c = 0; c < 3; c++) {
            double len = sqrt(w[c * 4] * w[c * 4] + w[c * 4 + 1] * w[c * 4 + 1] + w[c * 4 + 2] * w[c * 4 + 2]);
            lo = fmin(lo, len);
            hi = fmax(hi, len);
        }
        if (!(lo > 1e-6 * hi) || !(hi > 0)) glm_mat4_identity(sk->inverse_bind[j]);
    }
    return MR_OK;
}

/* A joint whose InheritType is not plain composition (RrSs, Rrs) under an
 * ancestor whose scale is ever non-uniform has a world transform that no
 * local TRS under a plainly composing parent gives (the parent's
 * non-uniform scale would shear it). Then every such joint of the file is
 * flagged in the skeleton's scale_comp (skeleton.h "Inherit modes": the
 * parent's scale moves its origin but does not reach its axes), which is
 * how FBX composes them: world = the parent's world without its scale *
 * the joint's local, its translation scaled by the parent's scale
 * (fbx_eval_worlds), its own scale times what it inherits
 * componentwise. Their marrow locals are fbx_joint_local's. Files without
 * such a joint keep plain composition (their locals are exact there). */
static mr_status flag_scale_comp(fbx_scene *s)
{
    char *scaled = calloc((size_t)s->node_count + 1, 1);
    if (!scaled) return oom(s);
    mr_status st = fbx_nonuniform_scales(s, scaled);
    mr_skeleton *sk = &s->model->skeleton;
    int count = 0;
    for (int j = 0; st == MR_OK && j < s->node_count && !count; j++) {
        if (s->xf[j].inherit == 1 || s->fbx_parent[j] < 0) continue;
        for (int a = s->fbx_parent[j]; a >= 0 && !count; a = s->fbx_parent[a]) count = scaled[a];
    }
    free(scaled);
    if (st != MR_OK || !count) return st;
    if (mr_skeleton_add_scale_comp(sk) != MR_OK) return oom(s);
    for (int j = 0; j < s->node_count; j++)
        sk->scale_comp[j] = s->xf[j].inherit != 1 && sk->parents[j] >= 0 && sk->parents[j] == s->fbx_parent[j];
    return MR_OK;
}

static mr_status build(fbx_scene *s)
{
    mr_status st = fbx_index(s);
    if (st != MR_OK) return st;
    read_settings(s);
    if ((st = order_models(s)) != MR_OK) return st;
    if ((st = flag_scale_comp(s)) != MR_OK) return st;
    if ((st = rest_pose(s)) != MR_OK) return st;
    if ((st = fbx_meshes_build(s)) != MR_OK) return st;
    if ((st = fbx_clips_build(s)) != MR_OK) return st;
    set_axes(s);
    mr_error verr;
    if (mr_skeleton_validate(&s->model->skeleton, &verr) != MR_OK)
        return mr_error_set(s->err, MR_ERR_BAD_FILE, "fbx: %s: Objects/Model: skeleton: %s", s->path, verr.msg);
    return MR_OK;
}

mr_status mr_fbx_parse_model(const char *name, const void *buf, size_t len, mr_model **out, mr_error *err)
{
    if (!out) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "fbx: no output model");
    *out = NULL;
    if (!name || !buf) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "fbx: no input");
    mr_fbx_doc *doc = NULL;
    /* records the reader never reads: mixamo.fbx's NormalsW and Edges are
     * 0.74 of its 6.4 MB of deflated arrays */
    static const char *const unread[] = {"Edges", "NormalsW", "BinormalsW", "TangentsW", NULL};
    mr_status st = mr_fbx_parse_skipping(name, buf, len, unread, &doc, err);
    if (st != MR_OK) return st;
    mr_model *model = NULL;
    mr_model_create(name, "fbx", &model);
    if (!model) {
        mr_fbx_doc_free(doc);
        return mr_error_set(err, MR_ERR_NO_MEMORY, "fbx: %s: out of memory", name);
    }
    fbx_scene s;
    memset(&s, 0, sizeof s);
    s.doc = doc;
    s.path = name;
    s.err = err;
    s.model = model;
    st = build(&s);
    fbx_scene_free(&s);
    mr_fbx_doc_free(doc);
    if (st != MR_OK) {
        mr_model_destroy(model);
        return st;
    }
    *out = model;
    return MR_OK;
}

mr_status mr_fbx_load(const char *path, mr_model **out, mr_error *err)
{
    if (!out) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "fbx: no output model");
    *out = NULL;
    if (!path) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "fbx: no path");
    size_t len;
    mr_error ioerr;
    char *buf = mr_file_read(path, &len, &ioerr);
    if (!buf) return mr_error_set(err, ioerr.status, "fbx: %s", ioerr.msg);
    mr_status st = mr_fbx_parse_model(path, buf, len, out, err);
    free(buf);
    return st;
}
