/* fbx_anim.c — FBX animation into clips: every AnimationStack (7.x) or
 * Take (6.x) is baked through the transform model (fbx_xform.c) at every
 * key time and every frame of the file's frame rate inside the stack's
 * time span, and between them where a joint's curves bend (bake_alone);
 * a joint's keys are its exact local transform there (LINEAR: between
 * samples marrow slerps). Blend shape channels' DeformPercent
 * curves become morph weight tracks. The active stack is added first so
 * that it is the clip played by default.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/morph.h"
#include "core/alloc.h"
#include "core/quat.h"
#include "core/str.h"
#include "formats/fbx_internal.h"

static mr_status oom(fbx_scene *s)
{
    return mr_error_set(s->err, MR_ERR_NO_MEMORY, "fbx: %s: out of memory", s->path);
}

/* World transforms by inherit type. Plain composition (InheritType 1):
 * World = ParentWorld * Local. The others carry a scale vector down the
 * chain instead of folding scale into the matrices: a node's scale is its
 * own Lcl Scaling times (componentwise) the accumulated scale it inherits
 * (RrSs: its parent's; Rrs: its parent's source, skipping the parent's own
 * scale), its translation is scaled by its parent's accumulated scale, and
 * it sits in its parent's unscaled frame (the parent's world without its
 * scale). */
void fbx_eval_worlds(const fbx_scene *s, double t, int animated, double (*worlds)[16], double (*locals)[16])
{
    double (*unscaled)[16] = s->unscaled, (*acc)[3] = s->acc_scale;
    for (int j = 0; j < s->node_count; j++) {
        const fbx_xf *x = &s->xf[j];
        double v[FBX_PROP_COUNT][3];
        memcpy(v[FBX_T], x->t, sizeof v[0]);
        memcpy(v[FBX_R], x->r, sizeof v[0]);
        memcpy(v[FBX_S], x->s, sizeof v[0]);
        if (animated) {
            for (int p = 0; p < FBX_PROP_COUNT; p++) {
                const fbx_anim_prop *a = &s->anim[j][p];
                int any = a->c[0] || a->c[1] || a->c[2];
                if (!any) continue;
                for (int k = 0; k < 3; k++) v[p][k] = a->c[k] ? fbx_curve_eval(a->c[k], t) : a->def[k];
            }
        }
        double rr[9], tr[3], local[16], un[16];
        fbx_xf_parts(x, v[FBX_T], v[FBX_R], v[FBX_S], rr, tr);
        int p = s->fbx_parent[j];
        double sc[3] = {v[FBX_S][0], v[FBX_S][1], v[FBX_S][2]};
        if (p >= 0 && x->inherit != 1) {
            int from = s->scale_from[j];
            for (int k = 0; k < 3; k++) {
                if (from >= 0) sc[k] *= acc[from][k];
                tr[k] *= acc[p][k];
            }
        }
        for (int c = 0; c < 3; c++) {
            for (int row = 0; row < 3; row++) {
                local[c * 4 + row] = rr[c * 3 + row] * sc[c];
                un[c * 4 + row] = rr[c * 3 + row];
            }
            local[c * 4 + 3] = un[c * 4 + 3] = 0;
        }
        memcpy(local + 12, tr, sizeof tr);
        memcpy(un + 12, tr, sizeof tr);
        local[15] = un[15] = 1;
        memcpy(acc[j], sc, sizeof sc);
        if (p < 0) {
            memcpy(worlds[j], local, sizeof local);
            memcpy(unscaled[j], un, sizeof un);
        } else if (x->inherit == 1) {
            fbx_m_mul(worlds[p], local, worlds[j]);
            fbx_m_mul(worlds[p], un, unscaled[j]);
        } else {
            fbx_m_mul(unscaled[p], local, worlds[j]);
            fbx_m_mul(unscaled[p], un, unscaled[j]);
        }
        if (locals) memcpy(locals[j], local, sizeof local);
    }
}

void fbx_joint_local(const fbx_scene *s, int j, double (*worlds)[16], double (*locals)[16], double out[16])
{
    int par = s->model->skeleton.parents[j];
    if (par < 0) {  /* a root, or a joint kept detached: its world */
        memcpy(out, worlds[j], 16 * sizeof *out);
        return;
    }
    /* InheritType 1 composes plainly. An RrSs or Rrs local (locals[j]) has
     * its translation scaled by the parent's accumulated scale a already and
     * sits in the parent's unscaled frame U, where the parent's world is
     * U * diag(a) (fbx_eval_worlds): so parent world^-1 * world is
     * diag(a)^-1 * locals[j], its rows divided by a (exact where a is 1;
     * taking locals[j] as it is under a scaled parent, Blender's 0.01
     * "Armature" with the template's default RrSs, would scale twice). */
    if (s->xf[j].inherit == 1) {
        memcpy(out, locals[j], 16 * sizeof *out);
        return;
    }
    const double *acc = s->acc_scale[par];
    if (acc[0] != 0 && acc[1] != 0 && acc[2] != 0 && isfinite(acc[0]) && isfinite(acc[1]) && isfinite(acc[2])) {
        /* a joint the skeleton flags in scale_comp (fbx_read.c) composes
         * as parent * T * diag(a)^-1 * R * S itself: only T is divided */
        memcpy(out, locals[j], 16 * sizeof *out);
        for (int c = fbx_scale_comp(s, j) ? 3 : 0; c < 4; c++) {
            for (int row = 0; row < 3; row++) out[c * 4 + row] = locals[j][c * 4 + row] / acc[row];
            out[c * 4 + 3] = locals[j][c * 4 + 3];
        }
        return;
    }
    double inv[16];
    fbx_m_inverse(worlds[par], inv);
    fbx_m_mul(inv, worlds[j], out);
}

/* ---- a stack's curves ---- */

typedef struct stack_curves {
    fbx_curve *curves;
    int count, cap;
    /* per blend record: its DeformPercent curve, or NULL */
    const fbx_curve **deform;
    double *deform_def;
} stack_curves;

static void curves_free(stack_curves *c, int blends)
{
    for (int i = 0; i < c->count; i++) fbx_curve_free(&c->curves[i]);
    free(c->curves);
    free(c->deform);
    free(c->deform_def);
    (void)blends;
    memset(c, 0, sizeof *c);
}

static mr_status add_curve(fbx_scene *s, stack_curves *c, fbx_curve *cv, int *index)
{
    if (c->count == c->cap) {
        int cap = c->cap ? c->cap * 2 : 64;
        fbx_curve *g = realloc(c->curves, sizeof *g * (size_t)cap);
        if (!g) return oom(s);
        c->curves = g;
        c->cap = cap;
    }
    c->curves[c->count] = *cv;
    *index = c->count++;
    return MR_OK;
}

static int prop_slot(const char *p)
{
    if (!p) return -1;
    if (!strcmp(p, "Lcl Translation")) return FBX_T;
    if (!strcmp(p, "Lcl Rotation")) return FBX_R;
    if (!strcmp(p, "Lcl Scaling")) return FBX_S;
    return -1;
}

/* Curve slots are filled with indices first (the array may grow), pointers after. */
typedef struct pending {
    int joint, slot, comp, curve;   /* joint -1: blend record `slot` */
} pending;

/* Appends p to *pend (*npend entries, room for *cap), growing it. */
static mr_status push_pending(fbx_scene *s, pending **pend, int *npend, int *cap, pending p)
{
    if (*npend == *cap) {
        int grown = *cap ? *cap * 2 : 64;
        pending *g = realloc(*pend, sizeof *g * (size_t)grown);
        if (!g) return oom(s);
        *pend = g;
        *cap = grown;
    }
    (*pend)[(*npend)++] = p;
    return MR_OK;
}

static mr_status bind_stack7(fbx_scene *s, int stack, stack_curves *c, pending **pend, int *npend)
{
    int cap = 0;
    int f1, n1 = fbx_children(s, stack, &f1);
    for (int k1 = 0; k1 < n1; k1++) {
        int layer = s->conns[s->conn_by_parent[f1 + k1]].child;
        if (strcmp(s->objs[layer].cls, "AnimationLayer")) continue;
        int f2, n2 = fbx_children(s, layer, &f2);
        for (int k2 = 0; k2 < n2; k2++) {
            int cn = s->conns[s->conn_by_parent[f2 + k2]].child;
            if (strcmp(s->objs[cn].cls, "AnimationCurveNode")) continue;
            /* what it drives */
            int f3, n3 = fbx_parents(s, cn, &f3), joint = -1, slot = -1, blend = -1;
            for (int k3 = 0; k3 < n3; k3++) {
                const fbx_conn *pc = &s->conns[s->conn_by_child[f3 + k3]];
                if (pc->parent < 0 || !pc->prop) continue;
                int j = s->obj_joint[pc->parent];
                if (j >= 0 && prop_slot(pc->prop) >= 0) {
                    joint = j;
                    slot = prop_slot(pc->prop);
                    break;
                }
                if (!strcmp(pc->prop, "DeformPercent")) {
                    for (int b = 0; b < s->blend_count; b++)
                        if (s->blends[b].channel_obj == pc->parent) {
                            blend = pc->parent;
                            break;
                        }
                    if (blend >= 0) break;
                }
            }
            if (joint < 0 && blend < 0) continue;
            if (joint >= 0) {
                fbx_anim_prop *a = &s->anim[joint][slot];
                if (a->c[0] || a->c[1] || a->c[2]) continue;  /* a lower layer animates it already */
                const double *st = slot == FBX_T ? s->xf[joint].t : slot == FBX_R ? s->xf[joint].r : s->xf[joint].s;
                a->def[0] = fbx_prop_num(s, cn, "d|X", st[0]);
                a->def[1] = fbx_prop_num(s, cn, "d|Y", st[1]);
                a->def[2] = fbx_prop_num(s, cn, "d|Z", st[2]);
            }
            int f4, n4 = fbx_children(s, cn, &f4);
            for (int k4 = 0; k4 < n4; k4++) {
                const fbx_conn *cc = &s->conns[s->conn_by_parent[f4 + k4]];
                if (strcmp(s->objs[cc->child].cls, "AnimationCurve") || !cc->prop) continue;
                int comp = -1;
                if (joint >= 0) {
                    if (!strcmp(cc->prop, "d|X")) comp = 0;
                    else if (!strcmp(cc->prop, "d|Y")) comp = 1;
                    else if (!strcmp(cc->prop, "d|Z")) comp = 2;
                } else if (!strcmp(cc->prop, "d|DeformPercent")) {
                    comp = 0;
                }
                if (comp < 0) continue;
                fbx_curve cv;
                mr_status st = fbx_curve_read(s, cc->child, &cv);
                if (st != MR_OK) {
                    fbx_curve_free(&cv);
                    return st;
                }
                if (cv.count == 0) {
                    fbx_curve_free(&cv);
                    continue;
                }
                int idx;
                if ((st = add_curve(s, c, &cv, &idx)) != MR_OK) {
                    fbx_curve_free(&cv);
                    return st;
                }
                if (joint >= 0 && (st = push_pending(s, pend, npend, &cap, (pending){joint, slot, comp, idx})) != MR_OK)
                    return st;
                for (int b = 0; joint < 0 && b < s->blend_count; b++)
                    if (s->blends[b].channel_obj == blend &&
                        (st = push_pending(s, pend, npend, &cap, (pending){-1, b, 0, idx})) != MR_OK)
                        return st;
            }
        }
    }
    return MR_OK;
}

/* 5.x/6.x: a model's `Channel: "Name (Shape)"` in a take animates the
 * DeformPercent of its blend channel Name (fbx_legacy.c builds those). */
static mr_status bind_shapes6(fbx_scene *s, const mr_fbx_node *m, int joint, stack_curves *c, pending **pend, int *npend,
                              int *cap)
{
    for (const mr_fbx_node *ch = mr_fbx_child(m, "Channel"); ch; ch = mr_fbx_next(ch)) {
        const char *cn = mr_fbx_prop_string(ch, 0, NULL);
        size_t len = cn ? strlen(cn) : 0;
        if (len < 9 || strcmp(cn + len - 8, " (Shape)")) continue;
        for (int b = 0; b < s->blend_count; b++) {
            int chan = s->blends[b].channel_obj;
            int def = fbx_linked(s, chan, 0, "Deformer", "BlendShape");
            if (def < 0 || fbx_linked(s, def, 0, "Model", NULL) != s->node_obj[joint]) continue;
            if (strlen(s->objs[chan].name) != len - 8 || strncmp(s->objs[chan].name, cn, len - 8)) continue;
            fbx_curve cv;
            int has, idx;
            mr_status st = fbx_curve_read_v6(s, ch, &cv, &has);
            if (st != MR_OK || !has) {
                fbx_curve_free(&cv);
                if (st != MR_OK) return st;
                continue;
            }
            if ((st = add_curve(s, c, &cv, &idx)) != MR_OK) {
                fbx_curve_free(&cv);
                return st;
            }
            if (*npend == *cap) {
                *cap = *cap ? *cap * 2 : 64;
                pending *g = realloc(*pend, sizeof *g * (size_t)*cap);
                if (!g) return oom(s);
                *pend = g;
            }
            (*pend)[(*npend)++] = (pending){-1, b, 0, idx};
        }
    }
    return MR_OK;
}

/* 6.x: Take/Model "Model::name"/Channel "Transform"/Channel "T"|"R"|"S"/Channel "X".. */
static mr_status bind_take6(fbx_scene *s, const mr_fbx_node *take, stack_curves *c, pending **pend, int *npend)
{
    int cap = 0;
    for (const mr_fbx_node *m = mr_fbx_child(take, "Model"); m; m = mr_fbx_next(m)) {
        const char *name = mr_fbx_prop_string(m, 0, NULL);
        if (!name) continue;
        const char *short_name = strstr(name, "::") ? strstr(name, "::") + 2 : name;
        int joint = -1;
        for (int j = 0; j < s->node_count; j++)
            if (!strcmp(s->objs[s->node_obj[j]].name, short_name)) {
                joint = j;
                break;
            }
        if (joint < 0) continue;
        mr_status sst = s->legacy ? bind_shapes6(s, m, joint, c, pend, npend, &cap) : MR_OK;
        if (sst != MR_OK) return sst;
        const mr_fbx_node *tr = NULL;
        for (const mr_fbx_node *ch = mr_fbx_child(m, "Channel"); ch; ch = mr_fbx_next(ch)) {
            const char *cn = mr_fbx_prop_string(ch, 0, NULL);
            if (cn && !strcmp(cn, "Transform")) tr = ch;
        }
        if (!tr) continue;
        for (const mr_fbx_node *ch = mr_fbx_child(tr, "Channel"); ch; ch = mr_fbx_next(ch)) {
            const char *cn = mr_fbx_prop_string(ch, 0, NULL);
            int slot = !cn ? -1 : !strcmp(cn, "T") ? FBX_T : !strcmp(cn, "R") ? FBX_R : !strcmp(cn, "S") ? FBX_S : -1;
            if (slot < 0) continue;
            fbx_anim_prop *a = &s->anim[joint][slot];
            const double *stv = slot == FBX_T ? s->xf[joint].t : slot == FBX_R ? s->xf[joint].r : s->xf[joint].s;
            memcpy(a->def, stv, sizeof a->def);
            for (const mr_fbx_node *axis = mr_fbx_child(ch, "Channel"); axis; axis = mr_fbx_next(axis)) {
                const char *an = mr_fbx_prop_string(axis, 0, NULL);
                int comp = !an ? -1 : !strcmp(an, "X") ? 0 : !strcmp(an, "Y") ? 1 : !strcmp(an, "Z") ? 2 : -1;
                if (comp < 0) continue;
                const mr_fbx_node *def = mr_fbx_child(axis, "Default");
                if (def && def->prop_count) a->def[comp] = mr_fbx_prop_double(def, 0);
                fbx_curve cv;
                int has;
                mr_status st = fbx_curve_read_v6(s, axis, &cv, &has);
                if (st != MR_OK) {
                    fbx_curve_free(&cv);
                    return st;
                }
                if (!has) {
                    fbx_curve_free(&cv);
                    continue;
                }
                int idx;
                if ((st = add_curve(s, c, &cv, &idx)) != MR_OK) {
                    fbx_curve_free(&cv);
                    return st;
                }
                if ((st = push_pending(s, pend, npend, &cap, (pending){joint, slot, comp, idx})) != MR_OK) return st;
            }
        }
    }
    return MR_OK;
}

static int nonuniform(const double v[3])
{
    double m = fmax(fabs(v[0]), fmax(fabs(v[1]), fabs(v[2])));
    return fabs(v[0] - v[1]) > 1e-6 * m || fabs(v[0] - v[2]) > 1e-6 * m;
}

/* Non-uniform at any key of the three curves (each evaluated at every key
 * time of any of them; a missing one holds def). */
static int curves_nonuniform(const fbx_curve *const c[3], const double def[3])
{
    for (int k = 0; k < 3; k++) {
        for (int i = 0; c[k] && i < c[k]->count; i++) {
            double v[3];
            for (int a = 0; a < 3; a++) v[a] = c[a] ? fbx_curve_eval(c[a], c[k]->t[i]) : def[a];
            if (nonuniform(v)) return 1;
        }
    }
    return 0;
}

mr_status fbx_nonuniform_scales(fbx_scene *s, char *out)
{
    for (int j = 0; j < s->node_count; j++) out[j] = (char)nonuniform(s->xf[j].s);
    mr_status st = MR_OK;
    for (int o = 0; o < s->obj_count && st == MR_OK; o++) {  /* 7.x: curve nodes on Lcl Scaling */
        if (strcmp(s->objs[o].cls, "AnimationCurveNode")) continue;
        int f, n = fbx_parents(s, o, &f), joint = -1;
        for (int k = 0; k < n; k++) {
            const fbx_conn *pc = &s->conns[s->conn_by_child[f + k]];
            if (pc->parent >= 0 && pc->prop && !strcmp(pc->prop, "Lcl Scaling") && s->obj_joint[pc->parent] >= 0)
                joint = s->obj_joint[pc->parent];
        }
        if (joint < 0 || out[joint]) continue;
        fbx_curve cv[3];
        const fbx_curve *cp[3] = {NULL, NULL, NULL};
        memset(cv, 0, sizeof cv);
        double def[3];
        def[0] = fbx_prop_num(s, o, "d|X", s->xf[joint].s[0]);
        def[1] = fbx_prop_num(s, o, "d|Y", s->xf[joint].s[1]);
        def[2] = fbx_prop_num(s, o, "d|Z", s->xf[joint].s[2]);
        int f2, n2 = fbx_children(s, o, &f2);
        for (int k = 0; k < n2 && st == MR_OK; k++) {
            const fbx_conn *cc = &s->conns[s->conn_by_parent[f2 + k]];
            if (!cc->prop || strcmp(s->objs[cc->child].cls, "AnimationCurve")) continue;
            int a = !strcmp(cc->prop, "d|X") ? 0 : !strcmp(cc->prop, "d|Y") ? 1 : !strcmp(cc->prop, "d|Z") ? 2 : -1;
            if (a < 0 || cp[a]) continue;
            st = fbx_curve_read(s, cc->child, &cv[a]);
            if (st == MR_OK && cv[a].count) cp[a] = &cv[a];
        }
        if (st == MR_OK && (nonuniform(def) || curves_nonuniform(cp, def))) out[joint] = 1;
        for (int a = 0; a < 3; a++) fbx_curve_free(&cv[a]);
    }
    const mr_fbx_node *takes = mr_fbx_child(&s->doc->root, "Takes");  /* 6.x */
    for (const mr_fbx_node *t = mr_fbx_child(takes, "Take"); t && st == MR_OK; t = mr_fbx_next(t))
        for (const mr_fbx_node *m = mr_fbx_child(t, "Model"); m && st == MR_OK; m = mr_fbx_next(m)) {
            const char *name = mr_fbx_prop_string(m, 0, NULL);
            if (!name) continue;
            const char *short_name = strstr(name, "::") ? strstr(name, "::") + 2 : name;
            int joint = -1;
            for (int j = 0; j < s->node_count; j++)
                if (!strcmp(s->objs[s->node_obj[j]].name, short_name)) joint = j;
            if (joint < 0 || out[joint]) continue;
            for (const mr_fbx_node *ch = mr_fbx_child(m, "Channel"); ch; ch = mr_fbx_next(ch)) {
                const char *cn = mr_fbx_prop_string(ch, 0, NULL);
                if (!cn || strcmp(cn, "Transform")) continue;
                for (const mr_fbx_node *sc = mr_fbx_child(ch, "Channel"); sc && st == MR_OK; sc = mr_fbx_next(sc)) {
                    const char *sn = mr_fbx_prop_string(sc, 0, NULL);
                    if (!sn || strcmp(sn, "S")) continue;
                    fbx_curve cv[3];
                    const fbx_curve *cp[3] = {NULL, NULL, NULL};
                    memset(cv, 0, sizeof cv);
                    double def[3] = {s->xf[joint].s[0], s->xf[joint].s[1], s->xf[joint].s[2]};
                    for (const mr_fbx_node *ax = mr_fbx_child(sc, "Channel"); ax && st == MR_OK; ax = mr_fbx_next(ax)) {
                        const char *an = mr_fbx_prop_string(ax, 0, NULL);
                        int a = !an ? -1 : !strcmp(an, "X") ? 0 : !strcmp(an, "Y") ? 1 : !strcmp(an, "Z") ? 2 : -1;
                        if (a < 0 || cp[a]) continue;
                        const mr_fbx_node *d = mr_fbx_child(ax, "Default");
                        if (d && d->prop_count) def[a] = mr_fbx_prop_double(d, 0);
                        int has;
                        st = fbx_curve_read_v6(s, ax, &cv[a], &has);
                        if (st == MR_OK && has) cp[a] = &cv[a];
                    }
                    if (st == MR_OK && (nonuniform(def) || curves_nonuniform(cp, def))) out[joint] = 1;
                    for (int a = 0; a < 3; a++) fbx_curve_free(&cv[a]);
                }
            }
        }
    return st;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sample times: keys and frames inside [t0, t1] (t >= 0), ascending, at
 * least 2e-6 s apart. */
static mr_status sample_times(fbx_scene *s, const stack_curves *c, double t0, double t1, int per_frame, double **out, int *count)
{
    size_t keys = 0;
    for (int i = 0; i < c->count; i++) keys += (size_t)c->curves[i].count;
    if (t0 < 0) t0 = 0;
    if (t1 < t0) t1 = t0;
    /* per_frame samples per frame: 1 for joints refined adaptively
     * (refine below), FBX_OVERSAMPLE for the rest: between samples marrow
     * interpolates linearly (slerp), FBX per Euler channel on its curves; a
     * quarter frame keeps the difference near 1e-4 of a character's size */
    double rate = s->fps * per_frame;
    double frames = (t1 - t0) * rate;
    if (frames > FBX_MAX_SAMPLES) {  /* long stacks: frames only */
        rate = s->fps;
        frames = (t1 - t0) * rate;
    }
    if (keys > (size_t)FBX_MAX_SAMPLES * 16)
        return mr_error_set(s->err, MR_ERR_LIMIT, "fbx: %s: an animation of %zu keys: more than marrow bakes (%d samples)",
                            s->path, keys, FBX_MAX_SAMPLES);
    /* every frame; a span of more frames than marrow bakes (keys hours
     * apart) gets the keys and SPARSE_STEPS samples between each two instead */
    enum { SPARSE_STEPS = 8 };
    int sparse = frames > FBX_MAX_SAMPLES;
    size_t nf = sparse ? keys * SPARSE_STEPS : (size_t)floor(frames + 1e-6) + 1;
    double *t = mr_alloc_array(keys + nf + 4, sizeof *t);
    if (!t) return oom(s);
    size_t n = 0;
    double start_frame = ceil(t0 * rate - 1e-6);
    for (size_t k = 0; !sparse && k < nf + 1; k++) {
        double v = (start_frame + (double)k) / rate;
        if (v <= t1 + 1e-9) t[n++] = v;
    }
    for (int i = 0; sparse && i < c->count; i++)
        for (int k = 0; k + 1 < c->curves[i].count; k++)
            for (int q = 1; q < SPARSE_STEPS; q++) {
                double a = c->curves[i].t[k], b = c->curves[i].t[k + 1], v = a + (b - a) * q / SPARSE_STEPS;
                if (v >= t0 && v <= t1) t[n++] = v;
            }
    t[n++] = t0;
    t[n++] = t1;
    for (int i = 0; i < c->count; i++) {
        /* curves keyed at the same times as the one before add nothing */
        if (i > 0 && c->curves[i].count == c->curves[i - 1].count &&
            !memcmp(c->curves[i].t, c->curves[i - 1].t, sizeof *c->curves[i].t * (size_t)c->curves[i].count))
            continue;
        for (int k = 0; k < c->curves[i].count; k++) {
            double v = c->curves[i].t[k];
            if (v >= t0 - 1e-9 && v <= t1 + 1e-9) t[n++] = v;
        }
    }
    qsort(t, n, sizeof *t, cmp_double);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] < 0) continue;
        /* clips keep float seconds: samples must stay apart as floats too */
        if (w > 0 && (t[i] - t[w - 1] < 2e-6 || (float)t[i] - (float)t[w - 1] < MR_CLIP_MIN_KEY_INTERVAL * 2)) continue;
        t[w++] = t[i];
    }
    if (w > FBX_MAX_SAMPLES) {
        free(t);
        return mr_error_set(s->err, MR_ERR_LIMIT, "fbx: %s: an animation needing %zu samples: more than marrow bakes (%d)", s->path, w,
                            FBX_MAX_SAMPLES);
    }
    *out = t;
    *count = (int)w;
    return MR_OK;
}

/* Slerp in double: cglm's float slerp is off by ~1e-5 rad, the reducer's
 * whole tolerance, so that no sample of a slow turn was ever dropped. The
 * angle between the ends is found once (slerp_prep), then each u costs two
 * sines. */
typedef struct slerp_d {
    const float *a, *b;
    double th, inv_sin, sgn;
} slerp_d;

static void slerp_prep(slerp_d *q, const float *a, const float *b)
{
    double d = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3];
    q->a = a;
    q->b = b;
    q->sgn = d < 0 ? -1 : 1;
    d = fabs(d);
    q->th = d < 1 - 1e-12 ? acos(d) : 0;
    q->inv_sin = q->th > 0 ? 1 / sin(q->th) : 0;
}

static void slerp_at(const slerp_d *q, double u, double out[4])
{
    double wa = 1 - u, wb = u, n = 0;
    if (q->th > 0) {
        wa = sin((1 - u) * q->th) * q->inv_sin;
        wb = sin(u * q->th) * q->inv_sin;
    }
    for (int k = 0; k < 4; k++) {
        out[k] = wa * q->a[k] + q->sgn * wb * q->b[k];
        n += out[k] * out[k];
    }
    n = 1 / sqrt(n);
    for (int k = 0; k < 4; k++) out[k] *= n;
}

/* Dropping baked samples that linear interpolation (slerp for rotations)
 * between the kept ones reproduces: every dropped sample stays within tol
 * (translation and scale: per component; rotation: radians). */
typedef struct reducer {
    const double *times;
    const float *base;           /* samples, 10 floats each (t, r, s) */
    int off, comps;
    double tol;
} reducer;

/* The reducer's distance of a rotation sample v from q (unit): the angle
 * between unit quaternions is 4 asin(|q - v| / 2), about 2 |q - v| (well
 * conditioned, unlike acos of the dot). */
static inline double quat_gap(const double q[4], const float *v)
{
    double v0 = v[0], v1 = v[1], v2 = v[2], v3 = v[3];
    double dot = q[0] * v0 + q[1] * v1 + q[2] * v2 + q[3] * v3;
    double e0, e1, e2, e3;  /* q - sgn v: q + v exactly when the sign is -1 */
    if (dot < 0) {
        e0 = q[0] + v0;
        e1 = q[1] + v1;
        e2 = q[2] + v2;
        e3 = q[3] + v3;
    } else {
        e0 = q[0] - v0;
        e1 = q[1] - v1;
        e2 = q[2] - v2;
        e3 = q[3] - v3;
    }
    return 2 * sqrt(e0 * e0 + e1 * e1 + e2 * e2 + e3 * e3);
}

/* Rotations are first measured against the normalised lerp of the ends,
 * which costs no sine: for ends an angle th apart (4D, th <= pi/2 once
 * signs agree) nlerp leaves slerp's arc by at most 0.0184 th^3, and th <=
 * 1.111 |a - b|, so quat_gap of the two differs by at most 0.06 |a - b|^3.
 * Only a sample that close to the tolerance is measured against the slerp
 * itself, so the decisions are the slerp's. */
static int segment_fits_rot(const reducer *r, int a, int b);

static inline int segment_fits(const reducer *r, int a, int b)
{
    if (r->comps == 4) return segment_fits_rot(r, a, b);
    const float *va = r->base + (size_t)a * 10 + r->off, *vb = r->base + (size_t)b * 10 + r->off;
    double span = r->times[b] - r->times[a];
    slerp_d sl = {0};
    int prepared = 0;
    double sgn = 1, margin = 0;
    if (r->comps == 4) {
        double d = (double)va[0] * vb[0] + (double)va[1] * vb[1] + (double)va[2] * vb[2] + (double)va[3] * vb[3], c2 = 0;
        sgn = d < 0 ? -1 : 1;
        for (int k = 0; k < 4; k++) c2 += (va[k] - sgn * vb[k]) * (va[k] - sgn * vb[k]);
        margin = 0.06 * c2 * sqrt(c2) + 1e-12;
    }
    for (int i = a + 1; i < b; i++) {
        double u = (r->times[i] - r->times[a]) / span;
        const float *v = r->base + (size_t)i * 10 + r->off;
        if (r->comps == 3) {
            for (int k = 0; k < 3; k++)
                if (fabs(va[k] + (vb[k] - va[k]) * u - v[k]) > r->tol) return 0;
        } else {
            double q[4], n = 0;
            for (int k = 0; k < 4; k++) {
                q[k] = (1 - u) * va[k] + sgn * u * vb[k];
                n += q[k] * q[k];
            }
            n = 1 / sqrt(n);
            for (int k = 0; k < 4; k++) q[k] *= n;
            double g = quat_gap(q, v);
            if (g > r->tol + margin) return 0;
            if (g >= r->tol - margin) {
                if (!prepared) slerp_prep(&sl, va, vb);
                prepared = 1;
                slerp_at(&sl, u, q);
                if (quat_gap(q, v) > r->tol) return 0;
            }
        }
    }
    return 1;
}

/* segment_fits for a rotation, written out: the same sums in the same
 * order (so the same decisions), in doubles held once, without the loops
 * over components (a reducer keeping nearly every sample asks this once a
 * sample, with one sample between a and b). */
static int segment_fits_rot(const reducer *r, int a, int b)
{
    const float *va = r->base + (size_t)a * 10 + r->off, *vb = r->base + (size_t)b * 10 + r->off;
    double a0 = va[0], a1 = va[1], a2 = va[2], a3 = va[3];
    double d = a0 * vb[0] + a1 * vb[1] + a2 * vb[2] + a3 * vb[3];
    double sgn = d < 0 ? -1 : 1;
    double b0 = sgn * vb[0], b1 = sgn * vb[1], b2 = sgn * vb[2], b3 = sgn * vb[3];
    double e0 = a0 - b0, e1 = a1 - b1, e2 = a2 - b2, e3 = a3 - b3;
    double c2 = e0 * e0 + e1 * e1 + e2 * e2 + e3 * e3;
    double margin = 0.06 * c2 * sqrt(c2) + 1e-12;
    double ta = r->times[a], span = r->times[b] - ta, lo = r->tol - margin, hi = r->tol + margin;
    slerp_d sl;
    int prepared = 0;
    for (int i = a + 1; i < b; i++) {
        double u = (r->times[i] - ta) / span, iu = 1 - u;
        const float *v = r->base + (size_t)i * 10 + r->off;
        double q[4] = {iu * a0 + u * b0, iu * a1 + u * b1, iu * a2 + u * b2, iu * a3 + u * b3};
        double n = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
        n = 1 / sqrt(n);
        q[0] *= n;
        q[1] *= n;
        q[2] *= n;
        q[3] *= n;
        double g = quat_gap(q, v);
        if (g > hi) return 0;
        if (g >= lo) {
            if (!prepared) slerp_prep(&sl, va, vb);
            prepared = 1;
            slerp_at(&sl, u, q);
            if (quat_gap(q, v) > r->tol) return 0;
        }
    }
    return 1;
}

/* Greedy: from each kept sample, the farthest one a segment reaches
 * (galloping out, then bisecting: a long still stretch costs n log n). */
static int reduce(const reducer *r, int n, int *kept)
{
    int m = 0, a = 0;
    kept[m++] = 0;
    while (a < n - 1) {
        int lo = a + 1, hi = n, step = 2;  /* lo fits (or is adjacent), hi does not */
        while (lo < n - 1) {
            int probe = step > n - 1 - a ? n - 1 : a + step;
            if (!segment_fits(r, a, probe)) {
                hi = probe;
                break;
            }
            lo = probe;
            if (probe == n - 1) break;
            step *= 2;
        }
        while (hi - lo > 1) {
            int mid = lo + (hi - lo) / 2;
            if (segment_fits(r, a, mid)) lo = mid;
            else hi = mid;
        }
        kept[m++] = lo;
        a = lo;
    }
    return m;
}

static int near3(const float *a, const float *b, float eps)
{
    return fabsf(a[0] - b[0]) <= eps && fabsf(a[1] - b[1]) <= eps && fabsf(a[2] - b[2]) <= eps;
}

/* ---- joints baked on their own ----
 * A joint whose marrow local depends on its own curves only (its skeleton
 * parent is its FBX parent, and no ancestor's scale is animated, so the
 * accumulated scale it inherits is constant) is evaluated alone: at the
 * keys and every frame first, then, between two such samples, at as many
 * evenly spaced times as the curve's bend there asks for. Linear
 * interpolation of samples h apart departs from a curve of second
 * derivative c by at most c h^2 / 8; c is estimated from the samples' second
 * differences (on each side of the interval: within a cubic key segment
 * the second derivative is linear, so its largest value is at an end), so
 * a stretch that interpolation already reproduces costs no evaluation. */
enum { ALONE_MAX_SPLIT = 8 };

typedef struct jsamples {
    double *t;
    float *v;                    /* 10 floats a sample: t, r, s */
    int n, cap;
    int oom;
} jsamples;

static inline void js_push(jsamples *js, double t, const float *v)
{
    if (js->oom) return;
    if (js->n == js->cap) {
        int cap = js->cap ? js->cap * 2 : 64;
        double *nt = realloc(js->t, sizeof *nt * (size_t)cap);
        if (nt) js->t = nt;
        float *nv = nt ? realloc(js->v, sizeof *nv * 10 * (size_t)cap) : NULL;
        if (!nt || !nv) {
            js->oom = 1;
            return;
        }
        js->v = nv;
        js->cap = cap;
    }
    js->t[js->n] = t;
    memcpy(js->v + (size_t)js->n * 10, v, sizeof *v * 10);
    js->n++;
}

/* What fbx_eval_worlds then fbx_joint_local give for a joint baked alone
 * (acc_scale holds its ancestors' constant scales), prepared once per
 * joint: the curves that are constant (every key the same value, flat
 * tangents) are folded into the static values, and a joint without pivots
 * or offsets under uniform accumulated scales (every Mixamo bone) gets its
 * rotation as a quaternion straight from the Euler angles
 * (Rpre * R * Rpost^-1 as a product of half-angle quaternions) instead of
 * a matrix product and its decomposition. */
typedef struct alone_eval {
    const fbx_xf *x;
    double v[FBX_PROP_COUNT][3];     /* T, R, S without the live curves */
    const fbx_curve *live[9];        /* the curves that change */
    unsigned char prop[9], comp[9];  /* their prop (FBX_T ..) and component */
    int nlive;
    const double *acc, *from;        /* the parent's accumulated scale and the one inherited (NULL: none) */
    int scale_comp;                  /* the skeleton undoes the parent's scale (fbx_scale_comp): only T is divided */
    int quick;                       /* the quaternion path applies */
    double ratio[3];                 /* quick: the inherited over the parent's accumulated scale */
    double qpre[4], qpost[4];        /* quick: Rpre and Rpost^-1 as quaternions */
    int pre_turns, post_turns;       /* quick: whether they turn at all (else the products are skipped) */
} alone_eval;

/* A scale whose components agree to 1e-12 (Mixamo's accumulate rounding
 * of 1e-16): dividing a rotation's rows by it shears it by less than a
 * float can show, so the decomposition's rotation is the rotation. */
static int uniform_scale(const double *a)
{
    if (!a) return 1;
    double m = fabs(a[0]);
    return m > 0 && isfinite(m) && fabs(a[1] - a[0]) <= 1e-12 * m && fabs(a[2] - a[0]) <= 1e-12 * m;
}

/* q = a * q for a = the rotation about axis ax by the half-angle with sine
 * sn and cosine c (mr_quat_mul_d with a's zeros left out). */
static inline void axis_mul(int ax, double sn, double c, double q[4])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    if (ax == 0) {
        q[0] = c * x + sn * w;
        q[1] = c * y - sn * z;
        q[2] = c * z + sn * y;
        q[3] = c * w - sn * x;
    } else if (ax == 1) {
        q[0] = c * x + sn * z;
        q[1] = c * y + sn * w;
        q[2] = c * z - sn * x;
        q[3] = c * w - sn * y;
    } else {
        q[0] = c * x - sn * y;
        q[1] = c * y + sn * x;
        q[2] = c * z + sn * w;
        q[3] = c * w - sn * z;
    }
}

/* q = a * q for a = the half-angle rotation of deg degrees about axis ax
 * (none for 0, as rot3 skips it). */
static inline void axis_turn(int ax, double deg, double q[4])
{
    if (deg == 0) return;
    double h = deg * (M_PI / 360.0);
    axis_mul(ax, sin(h), cos(h), q);
}

/* The quaternion of rot3's rotation: axes applied in seq order, so the
 * product is q(last) * ... * q(first). */
static void euler_quat(const double deg[3], int order, double q[4])
{
    static const int seq[7][3] = {{0, 1, 2}, {0, 2, 1}, {1, 2, 0}, {1, 0, 2}, {2, 0, 1}, {2, 1, 0}, {0, 1, 2}};
    if (order < 0 || order > 6) order = 0;
    const int *o = seq[order];
    q[0] = q[1] = q[2] = 0;
    q[3] = 1;
    axis_turn(o[0], deg[o[0]], q);
    axis_turn(o[1], deg[o[1]], q);
    axis_turn(o[2], deg[o[2]], q);
}

/* euler_quat from the sines (sn) and cosines (cs) of the half angles. */
static void euler_quat_sc(const double sn[3], const double cs[3], int order, double q[4])
{
    static const int seq[7][3] = {{0, 1, 2}, {0, 2, 1}, {1, 2, 0}, {1, 0, 2}, {2, 0, 1}, {2, 1, 0}, {0, 1, 2}};
    if (order < 0 || order > 6) order = 0;
    const int *o = seq[order];
    q[0] = q[1] = q[2] = 0;
    q[3] = 1;
    if (order == 0) {  /* XYZ, the default: the axes known here */
        axis_mul(0, sn[0], cs[0], q);
        axis_mul(1, sn[1], cs[1], q);
        axis_mul(2, sn[2], cs[2], q);
        return;
    }
    for (int k = 0; k < 3; k++) axis_mul(o[k], sn[o[k]], cs[o[k]], q);
}

static void alone_prepare(const fbx_scene *s, int j, alone_eval *e)
{
    memset(e, 0, sizeof *e);
    const fbx_xf *x = &s->xf[j];
    e->x = x;
    memcpy(e->v[FBX_T], x->t, sizeof e->v[0]);
    memcpy(e->v[FBX_R], x->r, sizeof e->v[0]);
    memcpy(e->v[FBX_S], x->s, sizeof e->v[0]);
    for (int p = 0; p < FBX_PROP_COUNT; p++) {
        const fbx_anim_prop *a = &s->anim[j][p];
        if (!a->c[0] && !a->c[1] && !a->c[2]) continue;
        for (int k = 0; k < 3; k++) {
            const fbx_curve *c = a->c[k];
            e->v[p][k] = c ? (double)c->v[0] : a->def[k];
            if (c && !fbx_curve_constant(c)) {
                e->live[e->nlive] = c;
                e->prop[e->nlive] = (unsigned char)p;
                e->comp[e->nlive++] = (unsigned char)k;
            }
        }
    }
    int p = s->fbx_parent[j];
    if (p >= 0 && x->inherit != 1) {
        e->acc = s->acc_scale[p];
        if (s->scale_from[j] >= 0) e->from = s->acc_scale[s->scale_from[j]];
    }
    e->scale_comp = fbx_scale_comp(s, j);
    static const double zero[3] = {0, 0, 0};
    e->quick = !e->scale_comp && !memcmp(x->roff, zero, sizeof zero) && !memcmp(x->rp, zero, sizeof zero) &&
               !memcmp(x->soff, zero, sizeof zero) && !memcmp(x->sp, zero, sizeof zero) && uniform_scale(e->acc) &&
               uniform_scale(e->from);
    if (e->quick) {
        for (int k = 0; k < 3; k++) e->ratio[k] = (e->from ? e->from[k] : 1) / (e->acc ? e->acc[k] : 1);
        e->pre_turns = memcmp(x->pre, zero, sizeof zero) != 0;
        e->post_turns = memcmp(x->post, zero, sizeof zero) != 0;
        euler_quat(x->pre, 0, e->qpre);
        euler_quat(x->post, 0, e->qpost);
        e->qpost[0] = -e->qpost[0];  /* Rpost^-1: the conjugate */
        e->qpost[1] = -e->qpost[1];
        e->qpost[2] = -e->qpost[2];
    }
}

/* fbx_m_decompose's sign: the component its branch (the matrix's trace,
 * else its largest diagonal entry) makes positive. */
static void decompose_sign(double q[4])
{
    double xx = q[0] * q[0], yy = q[1] * q[1], zz = q[2] * q[2];
    double m00 = 1 - 2 * (yy + zz), m11 = 1 - 2 * (xx + zz), m22 = 1 - 2 * (xx + yy);
    int k = m00 + m11 + m22 > 0 ? 3 : m00 > m11 && m00 > m22 ? 0 : m11 > m22 ? 1 : 2;
    if (q[k] < 0)
        for (int i = 0; i < 4; i++) q[i] = -q[i];
}

/* The quick path's scale (the joint's S times the inherited ratio): 1
 * when every component is positive, which the path needs. */
static inline int quick_scale(const alone_eval *e, const double s[3], double sc[3])
{
    for (int k = 0; k < 3; k++) sc[k] = s[k] * e->ratio[k];
    return sc[0] > 0 && sc[1] > 0 && sc[2] > 0;
}

/* The quick path's rotation before its normalisation: Rpre * R * Rpost^-1
 * as quaternions, R from the half angles' sines and cosines (half) or from
 * the Euler angles r (degrees). */
static inline void quick_turn(const alone_eval *e, const double (*half)[3], const double r[3], double q[4])
{
    if (half) euler_quat_sc(half[0], half[1], e->x->order, q);
    else euler_quat(r, e->x->order, q);
    if (e->pre_turns) mr_quat_mul_d(e->qpre, q, q);
    if (e->post_turns) mr_quat_mul_d(q, e->qpost, q);
}

/* The quick path's local from its rotation q (quick_turn's), translation
 * t and scale sc: q normalised (the identity where its length is not a
 * positive number: a curve out of range, as fbx_m_decompose gives) with
 * fbx_m_decompose's sign. */
static inline void quick_local(double q[4], const double t[3], const double sc[3], float o[10])
{
    double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), n = 1 / len;
    for (int k = 0; k < 4; k++) q[k] *= n;
    if (!(len > 0) || !isfinite(len)) {
        q[0] = q[1] = q[2] = 0;
        q[3] = 1;
    }
    decompose_sign(q);
    for (int k = 0; k < 3; k++) {
        o[k] = (float)t[k];  /* (t * acc) / acc, within a double's rounding */
        o[3 + k] = (float)q[k];
        o[7 + k] = (float)sc[k];
    }
    o[6] = (float)q[3];
}

/* The local transform from the joint's T, R, S values v (its static values
 * with the live curves' values at the sample written in). */
static void alone_pose(const alone_eval *e, double v[FBX_PROP_COUNT][3], const double (*half)[3], float o[10])
{
    const double *acc = e->acc;
    double qs[3];
    if (e->quick && quick_scale(e, v[FBX_S], qs)) {
        double q[4];
        quick_turn(e, half, v[FBX_R], q);
        quick_local(q, v[FBX_T], qs, o);
        return;
    }
    double rr[9], tr[3], local[16];
    fbx_xf_parts(e->x, v[FBX_T], v[FBX_R], v[FBX_S], rr, tr);
    double sc[3] = {v[FBX_S][0], v[FBX_S][1], v[FBX_S][2]};
    if (acc) {
        for (int k = 0; k < 3; k++) {
            if (e->from) sc[k] *= e->from[k];
            tr[k] *= acc[k];
        }
    }
    for (int c = 0; c < 3; c++) {
        for (int row = 0; row < 3; row++) local[c * 4 + row] = rr[c * 3 + row] * sc[c];
        local[c * 4 + 3] = 0;
    }
    memcpy(local + 12, tr, sizeof tr);
    local[15] = 1;
    if (acc)
        for (int c = e->scale_comp ? 3 : 0; c < 4; c++)
            for (int row = 0; row < 3; row++) local[c * 4 + row] /= acc[row];
    fbx_m_decompose(local, o, o + 3, o + 7);
}

/* The sine and cosine of half angle h near h0, whose are s0 and c0: by
 * the angle sum with Taylor polynomials of the step d (|d| < 0.2: the
 * polynomials are within 1e-15, with fewer terms under 0.02; a larger
 * step, libm). */
static inline void sincos_near(double h, double h0, double s0, double c0, double *sn, double *cs)
{
    double d = h - h0;
    if (d == 0) {  /* an axis no live curve turns: what the sums give */
        *sn = s0;
        *cs = c0;
        return;
    }
    if (!(fabs(d) < 0.2)) {
        *sn = sin(h);
        *cs = cos(h);
        return;
    }
    double d2 = d * d, sd, cd;
    if (fabs(d) < 0.02) {  /* the terms left out: under 3e-16 */
        sd = d * (1 + d2 * (-1.0 / 6 + d2 * (1.0 / 120)));
        cd = 1 + d2 * (-0.5 + d2 * (1.0 / 24 + d2 * (-1.0 / 720)));
    } else {
        sd = d * (1 + d2 * (-1.0 / 6 + d2 * (1.0 / 120 + d2 * (-1.0 / 5040 + d2 * (1.0 / 362880)))));
        cd = 1 + d2 * (-0.5 + d2 * (1.0 / 24 + d2 * (-1.0 / 720 + d2 * (1.0 / 40320 + d2 * (-1.0 / 3628800)))));
    }
    *sn = s0 * cd + c0 * sd;
    *cs = c0 * cd - s0 * sd;
}

/* The rotation's half angles of a quick joint's base samples, their sines
 * and cosines (9 doubles a sample): each sample's stepped from the one
 * before it (sincos_near), from libm's every HALF_EXACT samples so that
 * the steps' rounding stays under 1e-14; the split samples step from
 * their interval's first. */
enum { HALF_EXACT = 8 };

/* alone_local at ascending times t: cur[i] follows live curve i's keys
 * (the base samples are the keys and frames), so that fbx_curve_eval's
 * value is found without its search: a key's own at its time, else its
 * segment's. */
static void alone_local(const alone_eval *e, double t, int *cur, double *halfs, int index, float o[10])
{
    double v[FBX_PROP_COUNT][3];
    memcpy(v, e->v, sizeof v);
    for (int i = 0; i < e->nlive; i++) {
        const fbx_curve *c = e->live[i];
        int k = cur[i];
        while (k < c->count && c->t[k] < t) k++;
        cur[i] = k;
        double x;
        if (k < c->count && c->t[k] == t) x = c->v[k];
        else if (k > 0 && k < c->count) x = fbx_curve_eval_segment(c, k - 1, t);  /* t[k - 1] < t < t[k] */
        else x = fbx_curve_eval(c, t);
        v[e->prop[i]][e->comp[i]] = x;
    }
    if (!e->quick || !halfs) {
        alone_pose(e, v, NULL, o);
        return;
    }
    double half[2][3], *hs = halfs + (size_t)index * 9;
    for (int k = 0; k < 3; k++) {
        hs[k] = v[FBX_R][k] * (M_PI / 360.0);
        if (index % HALF_EXACT) {
            sincos_near(hs[k], hs[k - 9], hs[k - 6], hs[k - 3], &half[0][k], &half[1][k]);
        } else {
            half[0][k] = sin(hs[k]);
            half[1][k] = cos(hs[k]);
        }
        hs[3 + k] = half[0][k];
        hs[6 + k] = half[1][k];
    }
    alone_pose(e, v, (const double (*)[3])half, o);
}

/* The live curves over the pieces of a split between two neighbouring
 * samples (from its first piece's time to its last's): each curve's key
 * segment there as a polynomial in its own time (ok[i] 0: evaluated as
 * usual), and the rotation's half angles at the first piece, from which the
 * others' sines and cosines are stepped. */
typedef struct alone_span {
    double t0[9], inv_dx[9], p[9][4];
    int ok[9];
    double h0[3], s0[3], c0[3];  /* the rotation's half angles (radians) at the span's start, their sines and cosines */
} alone_span;

static inline double span_value(const alone_eval *e, const alone_span *sp, int i, double t)
{
    if (!sp->ok[i]) return fbx_curve_eval(e->live[i], t);
    const double *p = sp->p[i];
    double u = (t - sp->t0[i]) * sp->inv_dx[i];
    return p[0] + u * (p[1] + u * (p[2] + u * p[3]));
}

static void span_prepare(const alone_eval *e, double ta, double tb, const double *half, alone_span *sp)
{
    for (int i = 0; i < e->nlive; i++) sp->ok[i] = fbx_curve_span_poly(e->live[i], ta, tb, &sp->t0[i], &sp->inv_dx[i], sp->p[i]);
    double r[3];
    memcpy(r, e->v[FBX_R], sizeof r);
    for (int i = 0; i < e->nlive; i++)
        if (e->prop[i] == FBX_R) r[e->comp[i]] = span_value(e, sp, i, ta);
    for (int k = 0; k < 3; k++) {
        sp->h0[k] = r[k] * (M_PI / 360.0);
        if (half) {  /* from the interval's first sample's (alone_local) */
            sincos_near(sp->h0[k], half[k], half[3 + k], half[6 + k], &sp->s0[k], &sp->c0[k]);
        } else {
            sp->s0[k] = sin(sp->h0[k]);
            sp->c0[k] = cos(sp->h0[k]);
        }
    }
}

/* The sine and cosine of half angle h near the span's start h0. */
static inline void span_sincos(const alone_span *sp, int k, double h, double *sn, double *cs)
{
    sincos_near(h, sp->h0[k], sp->s0[k], sp->c0[k], sn, cs);
}

/* alone_local at t strictly inside the prepared span. */
static void span_local(const alone_eval *e, const alone_span *sp, double t, float o[10])
{
    double v[FBX_PROP_COUNT][3], half[2][3];
    memcpy(v, e->v, sizeof v);
    for (int i = 0; i < e->nlive; i++) v[e->prop[i]][e->comp[i]] = span_value(e, sp, i, t);
    if (!e->quick) {
        alone_pose(e, v, NULL, o);
        return;
    }
    for (int k = 0; k < 3; k++) span_sincos(sp, k, v[FBX_R][k] * (M_PI / 360.0), &half[0][k], &half[1][k]);
    alone_pose(e, v, (const double (*)[3])half, o);
}

/* span_local at the n times tq (inside the prepared span) into o: the
 * same operations for each time as span_local's, taken stage by stage
 * over the times, so that the pieces' dependency chains (the normalising
 * square root and division above all) overlap instead of following each
 * other. n is at most ALONE_MAX_SPLIT. */
static void span_locals(const alone_eval *e, const alone_span *sp, const double *tq, int n, float (*o)[10])
{
    if (!e->quick) {
        for (int q = 0; q < n; q++) span_local(e, sp, tq[q], o[q]);
        return;
    }
    double v[ALONE_MAX_SPLIT][FBX_PROP_COUNT][3], half[ALONE_MAX_SPLIT][2][3], rot[ALONE_MAX_SPLIT][4],
        sc[ALONE_MAX_SPLIT][3];
    int quick[ALONE_MAX_SPLIT];
    for (int q = 0; q < n; q++) memcpy(v[q], e->v, sizeof v[q]);
    for (int i = 0; i < e->nlive; i++)
        for (int q = 0; q < n; q++) v[q][e->prop[i]][e->comp[i]] = span_value(e, sp, i, tq[q]);
    for (int q = 0; q < n; q++)
        for (int k = 0; k < 3; k++) span_sincos(sp, k, v[q][FBX_R][k] * (M_PI / 360.0), &half[q][0][k], &half[q][1][k]);
    for (int q = 0; q < n; q++)
        if ((quick[q] = quick_scale(e, v[q][FBX_S], sc[q]))) quick_turn(e, (const double (*)[3])half[q], v[q][FBX_R], rot[q]);
    for (int q = 0; q < n; q++) {
        if (quick[q]) quick_local(rot[q], v[q][FBX_T], sc[q], o[q]);
        else alone_pose(e, v[q], (const double (*)[3])half[q], o[q]);
    }
}

static inline void align(const float *prev, float *o)
{
    if (prev[3] * o[3] + prev[4] * o[4] + prev[5] * o[5] + prev[6] * o[6] < 0)
        for (int k = 3; k < 7; k++) o[k] = -o[k];
}

static int too_close(double a, double b)
{
    return b - a < 2e-6 || (float)b - (float)a < MR_CLIP_MIN_KEY_INTERVAL * 2;
}

/* the rotation vector (about: 2 sin(angle / 2) along the axis) taking
 * unit quaternion a to b, b * conj(a) */
static void turn(const float *a, const float *b, double w[3])
{
    double ax = -a[0], ay = -a[1], az = -a[2], aw = a[3];
    double x = b[3] * ax + aw * b[0] + (b[1] * az - b[2] * ay);
    double y = b[3] * ay + aw * b[1] + (b[2] * ax - b[0] * az);
    double z = b[3] * az + aw * b[2] + (b[0] * ay - b[1] * ax);
    double ww = b[3] * aw - (b[0] * ax + b[1] * ay + b[2] * az);
    double sgn = ww < 0 ? -2 : 2;
    w[0] = sgn * x;
    w[1] = sgn * y;
    w[2] = sgn * z;
}

/* The rates of interval j of base samples (j, j + 1), h apart: the
 * translation's and scale's differences over h (out[0..2], out[6..8]) and
 * the turn over h (out[3..5]). */
static void rates(const double *t, const float *v, int j, double out[9])
{
    double h = t[j + 1] - t[j], w[3];
    const float *b = v + (size_t)j * 10, *c = v + (size_t)(j + 1) * 10;
    for (int k = 0; k < 3; k++) out[k] = (c[k] - b[k]) / h;
    turn(b + 3, c + 3, w);
    for (int k = 0; k < 3; k++) out[3 + k] = w[k] / h;
    for (int k = 0; k < 3; k++) out[6 + k] = (c[7 + k] - b[7 + k]) / h;
}

/* |second derivative| at base sample i (0 < i < n - 1), in tolerances,
 * from the rates of the intervals before (r1) and after (r2) it: for
 * rotations, how fast the angular velocity (of left deltas: one frame)
 * changes. */
static double bend(const double *t, int i, const double r1[9], const double r2[9], const double tol[3])
{
    double h1 = t[i] - t[i - 1], h2 = t[i + 1] - t[i], worst = 0, inv = 2 / (h1 + h2);
    for (int q = 0; q < 3; q++) {
        double d2 = 0;
        for (int k = 3 * q; k < 3 * q + 3; k++) {
            double dd = (r2[k] - r1[k]) * inv;
            d2 += dd * dd;
        }
        double x = sqrt(d2) / tol[q];
        if (x > worst) worst = x;  /* fmax without the libm call (worst is never NaN; a NaN x is passed over as by fmax) */
    }
    return worst;
}

/* Joint j's tracks from its samples (base: 10 floats each at times).
 * same_t, same_s: every sample's translation (scale) is the first one's
 * (bake_alone knows when), so that only the first is compared with rest. */
static mr_status joint_tracks(fbx_scene *s, mr_clip *clip, int j, const double *times, const float *base, int ns, double tol_t,
                              int same_t, int same_s)
{
    mr_skeleton *sk = &s->model->skeleton;
    int moves_t = 0, moves_r = 0, moves_s = 0;
    /* a channel that stays at its rest value (within float noise of the
     * decomposition) needs no track */
    float rest_tol = 1e-6f * (1 + fabsf(sk->rest_t[j][0]) + fabsf(sk->rest_t[j][1]) + fabsf(sk->rest_t[j][2]));
    float rest_tol_s = 1e-6f * (fabsf(sk->rest_s[j][0]) + fabsf(sk->rest_s[j][1]) + fabsf(sk->rest_s[j][2]));
    /* each channel's scan ends at its first sample off rest */
    for (int i = 0; i < (same_t ? 1 : ns) && !moves_t; i++) moves_t = !near3(base + (size_t)i * 10, sk->rest_t[j], rest_tol);
    for (int i = 0; i < ns && !moves_r; i++) {
        const float *o = base + (size_t)i * 10;
        float dot = o[3] * sk->rest_r[j][0] + o[4] * sk->rest_r[j][1] + o[5] * sk->rest_r[j][2] + o[6] * sk->rest_r[j][3];
        moves_r = fabsf(dot) < 1 - 1e-12f || fabsf(o[3] - sk->rest_r[j][0]) > 1e-7f || fabsf(o[4] - sk->rest_r[j][1]) > 1e-7f ||
                  fabsf(o[5] - sk->rest_r[j][2]) > 1e-7f || fabsf(o[6] - sk->rest_r[j][3]) > 1e-7f;
    }
    for (int i = 0; i < (same_s ? 1 : ns) && !moves_s; i++) moves_s = !near3(base + (size_t)i * 10 + 7, sk->rest_s[j], rest_tol_s);
    if (!moves_t && !moves_r && !moves_s) return MR_OK;
    int *kept = mr_alloc_array_unset((size_t)ns + 1, sizeof *kept);  /* reduce writes what it returns */
    if (!kept) return oom(s);
    mr_track *tr[3] = {&clip->tracks[j].t, &clip->tracks[j].r, &clip->tracks[j].s};
    int moves[3] = {moves_t, moves_r, moves_s}, off[3] = {0, 3, 7}, comps[3] = {3, 4, 3};
    for (int k = 0; k < 3; k++) {
        if (!moves[k]) continue;
        reducer red = {times, base, off[k], comps[k], k == 0 ? tol_t : k == 1 ? 1e-5 : 1e-6};
        int kept_n = reduce(&red, ns, kept);
        if (mr_track_init_unset(tr[k], kept_n, MR_INTERP_LINEAR) != MR_OK) {  /* every key written below */
            free(kept);
            return oom(s);
        }
        float *tv = tr[k]->values;
        for (int q = 0; q < kept_n; q++) {
            int i = kept[q];
            tr[k]->times[q] = (float)times[i];
            /* copies of a size known here, not a call a key */
            if (comps[k] == 4) memcpy(tv + (size_t)q * 4, base + (size_t)i * 10 + off[k], sizeof(float) * 4);
            else memcpy(tv + (size_t)q * 3, base + (size_t)i * 10 + off[k], sizeof(float) * 3);
        }
        mr_track_finish(tr[k]);
    }
    free(kept);
    return MR_OK;
}

/* The pieces interval i of a joint's base times is split into: c h^2 / 8
 * within 1/2 of the tolerance after m pieces, m = h sqrt(c / 4), at most
 * ALONE_MAX_SPLIT. Where the joint's samples would pass its budget, every
 * interval's m is divided by one factor k (found by bisection), so the
 * error left, about k^2 times the target, is spread over the whole clip;
 * a first-come budget left the clip's end unsplit (mixamo.com 58.7% in:
 * 5.7e-3 of the size off its curves). */
static double interval_want(const double *bt, const double *bends, int nb, int i)
{
    double h = bt[i + 1] - bt[i];
    /* bends are never NaN (bend): the larger without fmax's libm call */
    double c = bends[i] > bends[i + 1] ? bends[i] : bends[i + 1];
    if (i == 0 && nb > 2 && bends[1] > c) c = bends[1];
    if (i + 2 == nb && nb > 2 && bends[nb - 2] > c) c = bends[nb - 2];
    return h * sqrt(c / 4);
}

/* ceil(want / k) within 1..ALONE_MAX_SPLIT, without ceil (a libm call on
 * baseline x86-64, the bisection's main cost): ceil(x) > 1 exactly when
 * x > 1, ceil(x) < MAX exactly when x <= MAX - 1, and between them ceil(x)
 * is the truncation plus one unless x is whole; NaN gives 1 as before. */
static int pieces_at(double want, double k)
{
    double x = want / k;
    if (!(x > 1)) return 1;
    if (!(x <= ALONE_MAX_SPLIT - 1)) return ALONE_MAX_SPLIT;
    int m = (int)x;
    return (double)m < x ? m + 1 : m;
}

/* The extra samples at factor k (k >= 1) of the n intervals whose want
 * is over 1: an interval wanting at most 1 piece gets 1 at any such k. */
static long extra_samples(const double *want, int n, double k)
{
    long extra = 0;
    for (int i = 0; i < n; i++) extra += pieces_at(want[i], k) - 1;
    return extra;
}

static void split_within_budget(const double *bt, const double *bends, int nb, int budget, int *pieces)
{
    int n = nb - 1;
    if (n < 1) {
        if (nb > 0) pieces[0] = 1;
        return;
    }
    /* written before read: want[0..n), over[0..nover) */
    double *want = mr_alloc_array_unset((size_t)n * 2, sizeof *want), *over = want ? want + n : NULL, k = 1;
    if (want) {
        /* the bisection counts only the intervals wanting more than one
         * piece (packed at the front of over[]) */
        int nover = 0;
        for (int i = 0; i < n; i++) {
            want[i] = interval_want(bt, bends, nb, i);
            if (want[i] > 1) over[nover++] = want[i];
        }
        long room = budget - nb;
        if (extra_samples(over, nover, 1) > room) {
            double lo = 1, hi = 2;
            while (extra_samples(over, nover, hi) > room && hi < 1e12) hi *= 2;
            for (int it = 0; it < 40 && hi - lo > 1e-3 * lo; it++) {
                double mid = 0.5 * (lo + hi);
                if (extra_samples(over, nover, mid) > room) lo = mid;
                else hi = mid;
            }
            k = hi;
        }
        for (int i = 0; i < n; i++) pieces[i] = pieces_at(want[i], k);
    } else {
        for (int i = 0; i < n; i++) pieces[i] = 1;  /* no room to plan: the base samples */
    }
    pieces[n] = 1;
    free(want);
}

/* Joint j baked alone at the base times (keys and frames), then split
 * where it bends. */
static mr_status bake_alone(fbx_scene *s, mr_clip *clip, int j, const double *times, int ns, double tol_t, double tol_r)
{
    jsamples js = {0};
    int own = 0;
    for (int p = 0; p < FBX_PROP_COUNT; p++) own |= s->anim[j][p].c[0] || s->anim[j][p].c[1] || s->anim[j][p].c[2];
    /* no curves of its own: constant (its ancestors' moves are not its) */
    int nb = own ? ns : ns > 1 ? 2 : 1;
    /* every entry of these four is written before anything reads it */
    float *base = mr_alloc_array_unset((size_t)nb * 10, sizeof *base);
    double *bt = mr_alloc_array_unset((size_t)nb, sizeof *bt), *bends = mr_alloc_array_unset((size_t)nb, sizeof *bends);
    int *pieces = NULL;
    double *halfs = NULL;
    mr_status st = MR_OK;
    if (!base || !bt || !bends) {
        st = oom(s);
        goto done;
    }
    alone_eval ev;
    alone_prepare(s, j, &ev);
    int cur[9] = {0};
    /* every sample's entries are written before the next reads them; nb is
     * at most FBX_MAX_SAMPLES. Without memory: libm's. */
    if (ev.quick) halfs = malloc(sizeof *halfs * 9 * (size_t)nb);
    for (int i = 0; i < nb; i++) {
        bt[i] = own ? times[i] : i ? times[ns - 1] : times[0];
        alone_local(&ev, bt[i], cur, halfs, i, base + (size_t)i * 10);
        if (i) align(base + (size_t)(i - 1) * 10, base + (size_t)i * 10);
    }
    double tol[3] = {tol_t * 20, tol_r, 2e-5};
    /* each interval's rates once, for the samples on both sides of it */
    double rate[2][9];
    bends[0] = bends[nb - 1] = 0;
    if (nb > 2) rates(bt, base, 0, rate[0]);
    for (int i = 1; i < nb - 1; i++) {
        rates(bt, base, i, rate[i & 1]);
        bends[i] = bend(bt, i, rate[(i - 1) & 1], rate[i & 1], tol);
    }
    int budget = 4 * nb + 64;
    pieces = mr_alloc_array_unset((size_t)nb, sizeof *pieces);
    if (!pieces) {
        st = oom(s);
        goto done;
    }
    split_within_budget(bt, bends, nb, budget, pieces);
    /* room for every sample the budget allows (js_push grows it past that) */
    js.t = malloc(sizeof *js.t * (size_t)(budget + nb));
    js.v = malloc(sizeof *js.v * 10 * (size_t)(budget + nb));
    js.cap = js.t && js.v ? budget + nb : 0;
    for (int i = 0; i < nb; i++) {
        /* each sample takes the sign nearer the one before it, pieces of a
         * split included */
        float B[10];
        memcpy(B, base + (size_t)i * 10, sizeof B);
        if (js.n) align(js.v + (size_t)(js.n - 1) * 10, B);
        js_push(&js, bt[i], B);
        if (i == nb - 1) break;
        double h = bt[i + 1] - bt[i];
        int m = pieces[i];
        while (m > 1 && too_close(0, h / m)) m--;
        if (m < 2) continue;
        float P[ALONE_MAX_SPLIT][10];
        double tq[ALONE_MAX_SPLIT];
        alone_span sp;
        span_prepare(&ev, bt[i] + h * 1 / m, bt[i] + h * (m - 1) / m, halfs ? halfs + (size_t)i * 9 : NULL, &sp);
        for (int q = 1; q < m; q++) tq[q - 1] = bt[i] + h * q / m;
        span_locals(&ev, &sp, tq, m - 1, P);
        for (int q = 0; q < m - 1; q++) {
            align(js.v + (size_t)(js.n - 1) * 10, P[q]);
            js_push(&js, tq[q], P[q]);
        }
    }
    /* the quick path (alone_pose) writes T and S from the static values
     * when no curve of theirs changes: the same at every sample */
    int live_t = 0, live_s = 0;
    for (int i = 0; i < ev.nlive; i++) {
        live_t |= ev.prop[i] == FBX_T;
        live_s |= ev.prop[i] == FBX_S;
    }
    int quick_all = ev.quick && !live_s && ev.v[FBX_S][0] * ev.ratio[0] > 0 && ev.v[FBX_S][1] * ev.ratio[1] > 0 &&
                    ev.v[FBX_S][2] * ev.ratio[2] > 0;
    st = js.oom ? oom(s) : joint_tracks(s, clip, j, js.t, js.v, js.n, tol_t, quick_all && !live_t, quick_all);
done:
    free(base);
    free(bt);
    free(bends);
    free(pieces);
    free(halfs);
    free(js.t);
    free(js.v);
    return st;
}

/* Geometry caches (fbx_cache.c): a mesh's cache frames are morph targets
 * first .. first + frames - 1; its channel has a key at every frame's
 * time, the frame's target at weight 1 and the others 0, so that linear
 * keys cross-fade from one frame's points to the next (the cache's own
 * linear interpolation), and before the first frame or after the last
 * the nearest is held. Blend shapes of the same mesh follow their
 * DeformPercent at those times (c NULL: their static weights). Added to
 * every clip. */
static mr_status cache_tracks(fbx_scene *s, const stack_curves *c, mr_clip *clip)
{
    for (int i = 0; i < s->mcache_count; i++) {
        const fbx_mcache *mc = &s->mcaches[i];
        const mr_morph_set *set = s->model->meshes[mc->mesh].morph;
        if (!set || mr_morph_tracks_find(clip->morph, mc->mesh)) continue;
        mr_morph_channel *ch = mr_morph_tracks_add(&clip->morph, mc->mesh, set->count, mc->frames, MR_INTERP_LINEAR);
        if (!ch) return oom(s);
        for (int f = 0; f < mc->frames; f++) {
            ch->times[f] = (float)mc->times[f];
            float *w = ch->values + (size_t)f * (size_t)set->count;
            memcpy(w, set->weights, sizeof *w * (size_t)set->count);
            for (int b = 0; c && b < s->blend_count; b++) {
                if (s->blends[b].mesh != mc->mesh) continue;
                double d = c->deform[b] ? fbx_curve_eval(c->deform[b], mc->times[f]) : c->deform_def[b];
                fbx_blend_weights(&s->blends[b], d, w);
            }
            for (int k = 0; k < mc->frames; k++) w[mc->first + k] = k == f ? 1.0f : 0.0f;
        }
    }
    return MR_OK;
}

static mr_status bake(fbx_scene *s, const char *name, stack_curves *c, double t0, double t1)
{
    mr_skeleton *sk = &s->model->skeleton;
    int nj = s->node_count;
    double *times = NULL, *otimes = NULL;
    int ns = 0, ons = 0;
    mr_status st = sample_times(s, c, t0, t1, 1, &times, &ns);
    if (st != MR_OK) return st;
    char *flag = calloc((size_t)nj + 1, 1), *alone = calloc((size_t)nj + 1, 1), *sanim = calloc((size_t)nj + 1, 1);
    double (*worlds)[16] = mr_alloc_array((size_t)nj + 1, sizeof *worlds);
    double (*locals)[16] = mr_alloc_array((size_t)nj + 1, sizeof *locals);
    float *trs = NULL;
    mr_clip *clip = NULL;
    /* translations are kept within 1e-6 of the skeleton's extent at rest */
    double tol_t = 0;
    for (int j = 0; j < nj; j++)
        for (int k = 0; k < 3; k++) tol_t = fmax(tol_t, fabs(s->rest_world[j][12 + k]));
    double size = tol_t;
    tol_t = tol_t > 0 ? tol_t * 1e-6 : 1e-9;
    if (!flag || !alone || !sanim || !worlds || !locals) {
        st = oom(s);
        goto done;
    }
    int any = 0, together = 0, deforms = 0;
    for (int j = 0; j < nj; j++) {
        for (int p = 0; p < FBX_PROP_COUNT; p++)
            if (s->anim[j][p].c[0] || s->anim[j][p].c[1] || s->anim[j][p].c[2]) flag[j] = 1;
        int par = s->fbx_parent[j];
        if (par >= 0 && flag[par] && (s->xf[j].inherit != 1 || sk->parents[j] < 0)) flag[j] = 1;
        any |= flag[j];
    }
    for (int b = 0; b < s->blend_count; b++) deforms |= c->deform[b] != NULL;
    if (any) fbx_eval_worlds(s, times[0], 1, worlds, locals);  /* the constant scales joints baked alone inherit */
    for (int j = 0; j < nj; j++) {
        const fbx_anim_prop *sa = &s->anim[j][FBX_S];
        int p = s->fbx_parent[j];
        sanim[j] = sa->c[0] || sa->c[1] || sa->c[2] || (p >= 0 && (p >= j || sanim[p]));
        if (!flag[j]) continue;
        if (p < 0) alone[j] = sk->parents[j] < 0;
        else if (p < j && sk->parents[j] == p) {
            const double *a = s->acc_scale[p];
            alone[j] = s->xf[j].inherit == 1 || (!sanim[p] && a[0] != 0 && a[1] != 0 && a[2] != 0 && isfinite(a[0]) &&
                                                 isfinite(a[1]) && isfinite(a[2]));
        }
        together |= !alone[j];
    }
    if ((st = mr_clip_create(name, nj, &clip)) != MR_OK) {
        st = oom(s);
        goto done;
    }
    clip->duration = (float)times[ns - 1];
    clip->rate = (float)s->fps;
    /* rotations: within 2e-5 of the model's size at the farthest joint a
     * joint moves (reach: an upper bound, children before parents) */
    double *reach = calloc((size_t)nj + 1, sizeof *reach);
    if (!reach) {
        st = oom(s);
        goto done;
    }
    for (int d = nj - 1; d >= 0; d--) {
        int up = s->fbx_parent[d];
        if (up < 0 || up >= d) continue;
        double dx = s->rest_world[d][12] - s->rest_world[up][12], dy = s->rest_world[d][13] - s->rest_world[up][13],
               dz = s->rest_world[d][14] - s->rest_world[up][14];
        reach[up] = fmax(reach[up], reach[d] + sqrt(dx * dx + dy * dy + dz * dz));
    }
    for (int j = 0; j < nj && st == MR_OK; j++) {
        if (!alone[j]) continue;
        double tol_r = size > 0 ? fmin(2e-5 * size / fmax(reach[j], 0.1 * size), 2e-4) : 2e-5;
        st = bake_alone(s, clip, j, times, ns, tol_t, tol_r);
    }
    free(reach);
    if (st != MR_OK) goto done;
    /* the others (and morph weights): the whole skeleton at OVERSAMPLE a frame */
    if (together || deforms) {
        if ((st = sample_times(s, c, t0, t1, FBX_OVERSAMPLE, &otimes, &ons)) != MR_OK) goto done;
    }
    if (together) {
        trs = mr_alloc_array((size_t)nj * (size_t)ons * 10 + 1, sizeof *trs);
        if (!trs) {
            st = oom(s);
            goto done;
        }
        for (int i = 0; i < ons; i++) {
            fbx_eval_worlds(s, otimes[i], 1, worlds, locals);
            for (int j = 0; j < nj; j++) {
                if (!flag[j] || alone[j]) continue;
                double local[16];
                fbx_joint_local(s, j, worlds, locals, local);
                float *o = trs + ((size_t)j * (size_t)ons + (size_t)i) * 10;
                fbx_m_decompose(local, o, o + 3, o + 7);
                if (i > 0) align(o - 10, o);
            }
        }
        for (int j = 0; j < nj; j++) {
            if (!flag[j] || alone[j]) continue;
            if ((st = joint_tracks(s, clip, j, otimes, trs + (size_t)j * (size_t)ons * 10, ons, tol_t, 0, 0)) != MR_OK) goto done;
        }
    }
    /* morph weights */
    if ((st = cache_tracks(s, c, clip)) != MR_OK) goto done;
    for (int b = 0; b < s->blend_count; b++) {
        if (!c->deform[b]) continue;
        int mesh = s->blends[b].mesh;
        if (mr_morph_tracks_find(clip->morph, mesh)) continue;
        const mr_morph_set *set = s->model->meshes[mesh].morph;
        mr_morph_channel *ch = mr_morph_tracks_add(&clip->morph, mesh, set->count, ons, MR_INTERP_LINEAR);
        if (!ch) {
            st = oom(s);
            goto done;
        }
        for (int i = 0; i < ons; i++) {
            ch->times[i] = (float)otimes[i];
            float *w = ch->values + (size_t)i * (size_t)set->count;
            memcpy(w, set->weights, sizeof *w * (size_t)set->count);
            for (int b2 = 0; b2 < s->blend_count; b2++) {
                if (s->blends[b2].mesh != mesh) continue;
                double d = c->deform[b2] ? fbx_curve_eval(c->deform[b2], otimes[i]) : c->deform_def[b2];
                fbx_blend_weights(&s->blends[b2], d, w);
            }
        }
    }
    mr_error verr;
    if (mr_clip_validate(clip, &verr) != MR_OK) {
        st = mr_error_set(s->err, MR_ERR_BAD_FILE, "fbx: %s: animation \"%s\": %s", s->path, name, verr.msg);
        goto done;
    }
    if ((st = mr_model_add_clip(s->model, clip)) != MR_OK) {
        st = mr_error_set(s->err, st, "fbx: %s: animation \"%s\": cannot add the clip", s->path, name);
        goto done;
    }
    clip = NULL;
done:
    mr_clip_destroy(clip);
    free(times);
    free(otimes);
    free(flag);
    free(alone);
    free(sanim);
    free(worlds);
    free(locals);
    free(trs);
    return st;
}

static void resolve(fbx_scene *s, stack_curves *c, const pending *p, int np)
{
    for (int i = 0; i < np; i++) {
        if (p[i].joint >= 0) s->anim[p[i].joint][p[i].slot].c[p[i].comp] = &c->curves[p[i].curve];
        else c->deform[p[i].slot] = &c->curves[p[i].curve];
    }
}

static void curve_span(const stack_curves *c, double *t0, double *t1)
{
    *t0 = INFINITY;
    *t1 = -INFINITY;
    for (int i = 0; i < c->count; i++) {
        if (!c->curves[i].count) continue;
        if (c->curves[i].t[0] < *t0) *t0 = c->curves[i].t[0];
        if (c->curves[i].t[c->curves[i].count - 1] > *t1) *t1 = c->curves[i].t[c->curves[i].count - 1];
    }
    if (*t0 > *t1) *t0 = *t1 = 0;
}

static mr_status one_stack(fbx_scene *s, int stack, const mr_fbx_node *take)
{
    memset(s->anim, 0, sizeof *s->anim * (size_t)s->node_count);
    stack_curves c;
    memset(&c, 0, sizeof c);
    pending *pend = NULL;
    int np = 0;
    mr_status st;
    c.deform = calloc((size_t)s->blend_count + 1, sizeof *c.deform);
    c.deform_def = calloc((size_t)s->blend_count + 1, sizeof *c.deform_def);
    if (!c.deform || !c.deform_def) {
        st = oom(s);
        goto done;
    }
    for (int b = 0; b < s->blend_count; b++) c.deform_def[b] = fbx_deform_percent(s, s->blends[b].channel_obj);
    st = take ? bind_take6(s, take, &c, &pend, &np) : bind_stack7(s, stack, &c, &pend, &np);
    if (st != MR_OK) goto done;
    resolve(s, &c, pend, np);
    double k0, k1, t0, t1;
    curve_span(&c, &k0, &k1);
    char *name;
    if (take) {
        const char *tn = mr_fbx_prop_string(take, 0, NULL);
        name = mr_str_dup(tn && tn[0] ? tn : "take");
        const mr_fbx_node *lt = mr_fbx_child(take, "LocalTime");
        if (!lt) lt = mr_fbx_child(take, "ReferenceTime");
        if (lt && lt->prop_count >= 2) {
            t0 = (double)mr_fbx_prop_int(lt, 0) / FBX_TICKS;
            t1 = (double)mr_fbx_prop_int(lt, 1) / FBX_TICKS;
        } else {
            t0 = k0;
            t1 = k1;
        }
    } else {
        name = mr_str_dup(s->objs[stack].name[0] ? s->objs[stack].name : "stack");
        uint32_t f;
        if (fbx_prop(s, stack, "LocalStop", &f)) {
            t0 = fbx_prop_num(s, stack, "LocalStart", 0) / FBX_TICKS;
            t1 = fbx_prop_num(s, stack, "LocalStop", 0) / FBX_TICKS;
        } else if (fbx_prop(s, stack, "ReferenceStop", &f)) {
            t0 = fbx_prop_num(s, stack, "ReferenceStart", 0) / FBX_TICKS;
            t1 = fbx_prop_num(s, stack, "ReferenceStop", 0) / FBX_TICKS;
        } else {
            t0 = k0;
            t1 = k1;
        }
    }
    if (!isfinite(t0) || !isfinite(t1) || t1 - t0 > 1e6) {
        t0 = k0;
        t1 = k1;
    }
    /* the keys count too: a stack whose span cuts its keys keeps them */
    if (c.count && k0 < t0) t0 = k0;
    if (c.count && k1 > t1) t1 = k1;
    if (!name) {
        st = oom(s);
        goto done;
    }
    st = bake(s, name, &c, t0, t1);
    free(name);
done:
    free(pend);
    curves_free(&c, s->blend_count);
    memset(s->anim, 0, sizeof *s->anim * (size_t)s->node_count);
    return st;
}

static const char *active_name(const fbx_scene *s)
{
    const mr_fbx_node *docs = mr_fbx_child(&s->doc->root, "Documents");
    for (const mr_fbx_node *d = mr_fbx_child(docs, "Document"); d; d = mr_fbx_next(d)) {
        const mr_fbx_node *p = mr_fbx_child(d, "Properties70");
        uint32_t f;
        const mr_fbx_node *a = fbx_node_prop(p, "ActiveAnimStackName", &f);
        const char *n = a ? mr_fbx_prop_string(a, f, NULL) : NULL;
        if (n && n[0]) return n;
    }
    uint32_t f;
    const mr_fbx_node *a = fbx_node_prop(s->settings, "ActiveAnimStackName", &f);
    const char *n = a ? mr_fbx_prop_string(a, f, NULL) : NULL;
    if (n && n[0]) return n;
    const mr_fbx_node *takes = mr_fbx_child(&s->doc->root, "Takes");
    n = mr_fbx_prop_string(mr_fbx_child(takes, "Current"), 0, NULL);
    return n && n[0] ? n : NULL;
}

static int stack_is(const fbx_scene *s, int o, const char *name)
{
    return name && !strcmp(s->objs[o].name, name);
}

/* A file whose geometry caches play with no stack to carry them (a
 * Marvelous Designer export) gets one clip, "geometry cache", of their
 * weight channels only, as long as the last frame. */
static mr_status cache_clip(fbx_scene *s)
{
    if (!s->mcache_count || s->model->clip_count) return MR_OK;
    mr_clip *clip = NULL;
    if (mr_clip_create("geometry cache", s->node_count, &clip) != MR_OK) return oom(s);
    double end = 0;
    for (int i = 0; i < s->mcache_count; i++) end = fmax(end, s->mcaches[i].times[s->mcaches[i].frames - 1]);
    clip->duration = (float)end;
    clip->rate = (float)s->fps;
    mr_status st = cache_tracks(s, NULL, clip);
    mr_error verr;
    if (st == MR_OK && mr_clip_validate(clip, &verr) != MR_OK)
        st = mr_error_set(s->err, MR_ERR_BAD_FILE, "fbx: %s: geometry cache clip: %s", s->path, verr.msg);
    if (st == MR_OK && (st = mr_model_add_clip(s->model, clip)) != MR_OK)
        st = mr_error_set(s->err, st, "fbx: %s: geometry cache clip: cannot add the clip", s->path);
    if (st != MR_OK) mr_clip_destroy(clip);
    return st;
}

mr_status fbx_clips_build(fbx_scene *s)
{
    if (s->node_count == 0) {  /* nothing to animate: a clip needs joints */
        mr_model_warn(s->model, "%s: no nodes: its animation stacks are left out", s->path);
        return MR_OK;
    }
    const char *active = active_name(s);
    mr_status st = MR_OK;
    int any = 0;
    for (int pass = 0; pass < 2 && st == MR_OK; pass++)
        for (int o = 0; o < s->obj_count && st == MR_OK; o++) {
            if (strcmp(s->objs[o].cls, "AnimationStack")) continue;
            if ((pass == 0) != stack_is(s, o, active)) continue;
            st = one_stack(s, o, NULL);
            any = 1;
        }
    if (any || st != MR_OK) return st == MR_OK ? cache_clip(s) : st;
    const mr_fbx_node *takes = mr_fbx_child(&s->doc->root, "Takes");
    for (int pass = 0; pass < 2 && st == MR_OK; pass++)
        for (const mr_fbx_node *t = mr_fbx_child(takes, "Take"); t && st == MR_OK; t = mr_fbx_next(t)) {
            const char *tn = mr_fbx_prop_string(t, 0, NULL);
            int is_active = active && tn && !strcmp(tn, active);
            if ((pass == 0) != is_active) continue;
            st = one_stack(s, -1, t);
        }
    return st == MR_OK ? cache_clip(s) : st;
}
