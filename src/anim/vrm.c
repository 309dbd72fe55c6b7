/* vrm.c — a VRM avatar's humanoid map, expressions and kept extensions (vrm.h). */
#include "anim/vrm.h"

#include <stdlib.h>
#include <string.h>

#include "core/str.h"

const char *const mr_vrm_bone_names[MR_VRM_BONE_COUNT] = {
    "hips", "spine", "chest", "upperChest", "neck", "head", "leftEye", "rightEye", "jaw",
    "leftUpperLeg", "leftLowerLeg", "leftFoot", "leftToes", "rightUpperLeg", "rightLowerLeg", "rightFoot", "rightToes",
    "leftShoulder", "leftUpperArm", "leftLowerArm", "leftHand", "rightShoulder", "rightUpperArm", "rightLowerArm", "rightHand",
    "leftThumbMetacarpal", "leftThumbProximal", "leftThumbDistal", "leftIndexProximal", "leftIndexIntermediate",
    "leftIndexDistal", "leftMiddleProximal", "leftMiddleIntermediate", "leftMiddleDistal", "leftRingProximal",
    "leftRingIntermediate", "leftRingDistal", "leftLittleProximal", "leftLittleIntermediate", "leftLittleDistal",
    "rightThumbMetacarpal", "rightThumbProximal", "rightThumbDistal", "rightIndexProximal", "rightIndexIntermediate",
    "rightIndexDistal", "rightMiddleProximal", "rightMiddleIntermediate", "rightMiddleDistal", "rightRingProximal",
    "rightRingIntermediate", "rightRingDistal", "rightLittleProximal", "rightLittleIntermediate", "rightLittleDistal",
};

const char *const mr_vrm_material_kinds[MR_VRM_MATERIAL_KINDS] = {
    "color", "emissionColor", "shadeColor", "matcapColor", "rimColor", "outlineColor", "textureTransform",
};

int mr_vrm_bone_find(const char *name)
{
    if (!name) return -1;
    for (int i = 0; i < MR_VRM_BONE_COUNT; i++)
        if (!strcmp(name, mr_vrm_bone_names[i])) return i;
    return -1;
}

int mr_vrm_expression_find(const mr_vrm *v, const char *name)
{
    for (int i = 0; v && name && i < v->expression_count; i++)
        if (v->expressions[i].name && !strcmp(v->expressions[i].name, name)) return i;
    return -1;
}

mr_springs_desc mr_vrm_springs_desc(const mr_vrm *v)
{
    mr_springs_desc d = {0};
    d.joints = v->spring_joints; d.joint_count = v->spring_joint_count;
    d.chains = v->chains; d.chain_count = v->chain_count;
    d.colliders = v->colliders; d.collider_count = v->collider_count;
    d.chain_colliders = v->chain_colliders; d.chain_collider_count = v->chain_collider_count;
    return d;
}

/* Which override group an expression's name belongs to: 1 blink, 2 look-at, 3 mouth, 0 none. */
static int group_of(const char *n)
{
    if (!n) return 0;
    if (!strcmp(n, "blink") || !strcmp(n, "blinkLeft") || !strcmp(n, "blinkRight")) return 1;
    if (!strcmp(n, "lookUp") || !strcmp(n, "lookDown") || !strcmp(n, "lookLeft") || !strcmp(n, "lookRight")) return 2;
    if (!strcmp(n, "aa") || !strcmp(n, "ih") || !strcmp(n, "ou") || !strcmp(n, "ee") || !strcmp(n, "oh")) return 3;
    return 0;
}

static float effective(const mr_vrm_expression *e, float w)
{
    if (!(w > 0)) return 0;
    if (w > 1) w = 1;
    return e->is_binary ? (w > 0.5f ? 1.0f : 0.0f) : w;
}

/* What the active expressions leave of each override group (three-vrm's
 * rule: block silences it, blend scales it by 1 - weight). */
static void group_keep(const mr_vrm *v, const float *weights, float keep[4])
{
    keep[0] = keep[1] = keep[2] = keep[3] = 1;
    for (int i = 0; i < v->expression_count; i++) {
        const mr_vrm_expression *e = &v->expressions[i];
        float w = effective(e, weights[i]);
        if (w <= 0) continue;
        int ov[4] = {0, e->override_blink, e->override_look_at, e->override_mouth};
        for (int g = 1; g < 4; g++) {
            if (ov[g] == MR_VRM_OVERRIDE_BLOCK) keep[g] = 0;
            else if (ov[g] == MR_VRM_OVERRIDE_BLEND) keep[g] *= 1 - w;
        }
    }
}

void mr_vrm_expressions_effective(const mr_vrm *v, const float *weights, float *out)
{
    if (!v || !weights) return;
    float keep[4];
    group_keep(v, weights, keep);
    for (int i = 0; i < v->expression_count; i++)
        out[i] = effective(&v->expressions[i], weights[i]) * keep[group_of(v->expressions[i].name)];
}

void mr_vrm_expressions_apply(const mr_vrm *v, const float *weights, const int *offsets, float *morph, int morph_count)
{
    if (!v || !weights) return;
    float keep[4];
    group_keep(v, weights, keep);
    for (int b = 0; b < v->bind_count; b++) {
        int k = offsets[v->binds[b].mesh] + v->binds[b].target;
        if (k >= 0 && k < morph_count) morph[k] = 0;
    }
    for (int i = 0; i < v->expression_count; i++) {
        const mr_vrm_expression *e = &v->expressions[i];
        float w = effective(e, weights[i]) * keep[group_of(e->name)];
        if (w <= 0) continue;
        for (int b = e->bind_first; b < e->bind_first + e->bind_count; b++) {
            int k = offsets[v->binds[b].mesh] + v->binds[b].target;
            if (k < 0 || k >= morph_count) continue;
            morph[k] += w * v->binds[b].weight;
            if (morph[k] > 1) morph[k] = 1;
        }
    }
}

int mr_vrm_material_value(const mr_vrm *v, const float *effective_w, int material, int kind, float out[4])
{
    int found = 0;
    for (int b = 0; v && b < v->material_bind_count; b++) {
        const mr_vrm_material_bind *m = &v->material_binds[b];
        if (m->material != material || m->kind != kind) continue;
        if (!found) memcpy(out, m->base, sizeof m->base);
        found = 1;
        float w = effective_w ? effective_w[m->expression] : 0;
        if (!(w > 0)) continue;
        for (int k = 0; k < 4; k++) out[k] += w * (m->target[k] - m->base[k]);
    }
    if (found && kind != MR_VRM_MATERIAL_UV)
        for (int k = 0; k < 4; k++) out[k] = out[k] < 0 ? 0 : out[k] > 1 ? 1 : out[k];
    return found;
}

static void *dup_arr(const void *p, size_t n, size_t size, int *fail)
{
    if (!p || !n) return NULL;
    void *q = malloc(n * size);
    if (!q) { *fail = 1; return NULL; }
    memcpy(q, p, n * size);
    return q;
}

static char *dup_str(const char *s, int *fail)
{
    if (!s) return NULL;
    char *d = mr_str_dup(s);
    if (!d) *fail = 1;
    return d;
}

mr_vrm *mr_vrm_copy(const mr_vrm *v)
{
    if (!v) return NULL;
    mr_vrm *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    int fail = 0;
    *c = *v;
    c->expressions = NULL; c->binds = NULL; c->spring_joints = NULL; c->chains = NULL; c->colliders = NULL;
    c->chain_colliders = NULL; c->chain_names = NULL; c->meta_json = NULL; c->look_at_json = NULL;
    c->constraint_joint = NULL; c->constraint_json = NULL; c->constraints = NULL; c->constraint_order = NULL;
    c->material_binds = NULL;
    c->expressions = dup_arr(v->expressions, (size_t)v->expression_count, sizeof *v->expressions, &fail);
    for (int i = 0; c->expressions && i < v->expression_count; i++) c->expressions[i].name = dup_str(v->expressions[i].name, &fail);
    c->binds = dup_arr(v->binds, (size_t)v->bind_count, sizeof *v->binds, &fail);
    c->spring_joints = dup_arr(v->spring_joints, (size_t)v->spring_joint_count, sizeof *v->spring_joints, &fail);
    c->chains = dup_arr(v->chains, (size_t)v->chain_count, sizeof *v->chains, &fail);
    c->colliders = dup_arr(v->colliders, (size_t)v->collider_count, sizeof *v->colliders, &fail);
    c->chain_colliders = dup_arr(v->chain_colliders, (size_t)v->chain_collider_count, sizeof *v->chain_colliders, &fail);
    if (v->chain_names && v->chain_count) {
        c->chain_names = calloc((size_t)v->chain_count, sizeof *c->chain_names);
        if (!c->chain_names) fail = 1;
        for (int i = 0; c->chain_names && i < v->chain_count; i++) c->chain_names[i] = dup_str(v->chain_names[i], &fail);
    }
    c->meta_json = dup_str(v->meta_json, &fail);
    c->look_at_json = dup_str(v->look_at_json, &fail);
    c->constraint_joint = dup_arr(v->constraint_joint, (size_t)v->constraint_count, sizeof *v->constraint_joint, &fail);
    c->constraints = dup_arr(v->constraints, (size_t)v->constraint_count, sizeof *v->constraints, &fail);
    c->constraint_order = dup_arr(v->constraint_order, (size_t)v->constraint_count, sizeof *v->constraint_order, &fail);
    c->material_binds = dup_arr(v->material_binds, (size_t)v->material_bind_count, sizeof *v->material_binds, &fail);
    if (v->constraint_count) {
        c->constraint_json = calloc((size_t)v->constraint_count, sizeof *c->constraint_json);
        if (!c->constraint_json) fail = 1;
        for (int i = 0; c->constraint_json && i < v->constraint_count; i++) c->constraint_json[i] = dup_str(v->constraint_json[i], &fail);
    }
    if (fail) {
        if (!c->expressions) c->expression_count = 0;
        if (!c->chain_names) c->chain_count = 0;
        if (!c->constraint_json) c->constraint_count = 0;
        mr_vrm_free(c);
        return NULL;
    }
    return c;
}

void mr_vrm_free(mr_vrm *v)
{
    if (!v) return;
    for (int i = 0; v->expressions && i < v->expression_count; i++) free(v->expressions[i].name);
    for (int i = 0; v->chain_names && i < v->chain_count; i++) free(v->chain_names[i]);
    for (int i = 0; v->constraint_json && i < v->constraint_count; i++) free(v->constraint_json[i]);
    free(v->expressions); free(v->binds); free(v->spring_joints); free(v->chains); free(v->colliders);
    free(v->chain_colliders); free(v->chain_names); free(v->meta_json); free(v->look_at_json);
    free(v->constraint_joint); free(v->constraint_json); free(v->constraints); free(v->constraint_order);
    free(v->material_binds);
    free(v);
}
