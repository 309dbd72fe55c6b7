/* gltf_write_vrm.c — a model's VRM data (anim/vrm.h) written back as VRM 1.0
 * extensions: VRMC_vrm (humanoid, expressions, meta, lookAt),
 * VRMC_springBone and VRMC_node_constraint, for gltf_write.c. A model read
 * from a VRM 0.x file is written as VRM 1.0; what 1.0 cannot say (a 0.x
 * chain end's made-up 7 cm tip) is left out. Joint j is node j, as
 * gltf_write.c writes them.
 */
#include "formats/gltf_write_vrm.h"

#include <string.h>

#include "anim/vrm.h"

static const char *const presets[] = {
    "happy", "angry", "sad", "relaxed", "surprised", "aa", "ih", "ou", "ee", "oh", "blink", "blinkLeft",
    "blinkRight", "lookUp", "lookDown", "lookLeft", "lookRight", "neutral", NULL,
};

static int is_preset(const char *n)
{
    for (int i = 0; n && presets[i]; i++)
        if (!strcmp(n, presets[i])) return 1;
    return 0;
}

/* Replaces every {"joint": name} in v (kept by gltf_vrm.c in place of a
 * node index) by the joint's node index; returns v or a replacement. */
static json_t *nodes_back(json_t *v, const mr_skeleton *sk)
{
    if (json_is_object(v)) {
        json_t *name = json_object_get(v, "joint");
        if (json_object_size(v) == 1 && json_is_string(name)) {
            int j = mr_skeleton_find(sk, json_string_value(name));
            json_decref(v);
            return json_integer(j < 0 ? 0 : j);
        }
        const char *k;
        json_t *x;
        void *tmp;
        json_object_foreach_safe(v, tmp, k, x) json_object_set_new(v, k, nodes_back(json_incref(x), sk));
    } else if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++)
            json_array_set_new(v, i, nodes_back(json_incref(json_array_get(v, i)), sk));
    }
    return v;
}

static json_t *jvec3(const float v[3]) { return json_pack("[f,f,f]", (double)v[0], (double)v[1], (double)v[2]); }

static const char *override_name(int o) { return o == MR_VRM_OVERRIDE_BLOCK ? "block" : o == MR_VRM_OVERRIDE_BLEND ? "blend" : "none"; }

/* Expression ei's material binds into x: a bind names a material of the
 * file it was read from; gltf_write.c writes one material per written mesh,
 * so it becomes a bind on every written mesh whose material has that name
 * (its first 63 bytes: what the bind keeps). */
static void material_binds(const mr_model *m, const int *mesh_node, int ei, json_t *x)
{
    const mr_vrm *v = m->vrm;
    json_t *colors = json_array(), *uvs = json_array();
    for (int b = 0; b < v->material_bind_count; b++) {
        const mr_vrm_material_bind *mb = &v->material_binds[b];
        if (mb->expression != ei) continue;
        for (int i = 0, written = 0; i < m->mesh_count; i++) {
            if (mesh_node[i] < 0) continue;
            int index = written++;
            const char *name = m->meshes[i].material.name;
            if (!name || strncmp(name, mb->material_name, sizeof mb->material_name - 1)) continue;
            if (mb->kind == MR_VRM_MATERIAL_UV)
                json_array_append_new(uvs, json_pack("{s:i,s:[f,f],s:[f,f]}", "material", index, "scale", (double)mb->target[0],
                                                     (double)mb->target[1], "offset", (double)mb->target[2], (double)mb->target[3]));
            else
                json_array_append_new(colors, json_pack("{s:i,s:s,s:[f,f,f,f]}", "material", index, "type",
                                                        mr_vrm_material_kinds[mb->kind], "targetValue", (double)mb->target[0],
                                                        (double)mb->target[1], (double)mb->target[2], (double)mb->target[3]));
        }
    }
    if (json_array_size(colors)) json_object_set_new(x, "materialColorBinds", colors);
    else json_decref(colors);
    if (json_array_size(uvs)) json_object_set_new(x, "textureTransformBinds", uvs);
    else json_decref(uvs);
}

static json_t *vrm_json(const mr_model *m, const int *mesh_node)
{
    const mr_vrm *v = m->vrm;
    const mr_skeleton *sk = &m->skeleton;
    json_t *o = json_pack("{s:s}", "specVersion", "1.0");
    json_t *bones = json_object();
    for (int b = 0; b < MR_VRM_BONE_COUNT; b++)
        if (v->humanoid[b] >= 0) json_object_set_new(bones, mr_vrm_bone_names[b], json_pack("{s:i}", "node", v->humanoid[b]));
    json_object_set_new(o, "humanoid", json_pack("{s:o}", "humanBones", bones));
    json_t *meta = v->version == 1 && v->meta_json ? json_loads(v->meta_json, 0, NULL) : NULL;
    if (!json_is_object(meta)) {
        json_decref(meta);
        meta = json_pack("{s:s,s:[s],s:s}", "name", "marrow", "authors", "unknown", "licenseUrl", "https://vrm.dev/licenses/1.0/");
    }
    json_object_del(meta, "thumbnailImage");       /* images are not written back */
    json_object_set_new(o, "meta", nodes_back(meta, sk));
    json_t *look = v->version == 1 && v->look_at_json ? json_loads(v->look_at_json, 0, NULL) : NULL;
    if (json_is_object(look)) json_object_set_new(o, "lookAt", look);
    else json_decref(look);
    json_t *preset = json_object(), *custom = json_object();
    for (int i = 0; i < v->expression_count; i++) {
        const mr_vrm_expression *e = &v->expressions[i];
        json_t *binds = json_array();
        for (int b = e->bind_first; b < e->bind_first + e->bind_count; b++) {
            int node = mesh_node[v->binds[b].mesh];
            if (node < 0) continue;
            json_array_append_new(binds, json_pack("{s:i,s:i,s:f}", "node", node, "index", v->binds[b].target, "weight",
                                                   (double)v->binds[b].weight));
        }
        json_t *x = json_pack("{s:o,s:b,s:s,s:s,s:s}", "morphTargetBinds", binds, "isBinary", e->is_binary,
                              "overrideBlink", override_name(e->override_blink), "overrideLookAt",
                              override_name(e->override_look_at), "overrideMouth", override_name(e->override_mouth));
        material_binds(m, mesh_node, i, x);
        json_object_set_new(is_preset(e->name) ? preset : custom, e->name, x);
    }
    json_object_set_new(o, "expressions", json_pack("{s:o,s:o}", "preset", preset, "custom", custom));
    return o;
}

static json_t *spring_joint(const mr_spring_joint *j, int node)
{
    return json_pack("{s:i,s:f,s:f,s:f,s:f,s:o}", "node", node, "hitRadius", (double)j->radius, "stiffness",
                     (double)j->stiffness, "gravityPower", (double)j->gravity_power, "dragForce", (double)j->drag,
                     "gravityDir", jvec3(j->gravity_dir));
}

static json_t *springs_json(const mr_model *m)
{
    const mr_vrm *v = m->vrm;
    json_t *o = json_pack("{s:s}", "specVersion", "1.0");
    json_t *cols = json_array(), *groups = json_array(), *springs = json_array();
    for (int c = 0; c < v->collider_count; c++) {
        const mr_spring_collider *k = &v->colliders[c];
        json_t *shape;
        if (k->shape == MR_COLLIDER_CAPSULE)
            shape = json_pack("{s:{s:o,s:f,s:o}}", "capsule", "offset", jvec3(k->offset), "radius", (double)k->radius, "tail", jvec3(k->tail));
        else
            shape = json_pack("{s:{s:o,s:f}}", "sphere", "offset", jvec3(k->offset), "radius", (double)k->radius);
        json_t *col = json_pack("{s:i,s:o}", "node", k->joint, "shape", shape);
        if (k->shape == MR_COLLIDER_PLANE || k->inside) {   /* VRMC_springBone_extended_collider says it exactly */
            json_t *x = k->shape == MR_COLLIDER_PLANE
                ? json_pack("{s:{s:o,s:o}}", "plane", "offset", jvec3(k->offset), "normal", jvec3(k->normal))
                : k->shape == MR_COLLIDER_CAPSULE
                ? json_pack("{s:{s:o,s:f,s:o,s:b}}", "capsule", "offset", jvec3(k->offset), "radius", (double)k->radius, "tail", jvec3(k->tail), "inside", 1)
                : json_pack("{s:{s:o,s:f,s:b}}", "sphere", "offset", jvec3(k->offset), "radius", (double)k->radius, "inside", 1);
            json_object_set_new(col, "extensions", json_pack("{s:{s:s,s:o}}", "VRMC_springBone_extended_collider",
                                                             "specVersion", "1.0", "shape", x));
        }
        json_array_append_new(cols, col);
    }
    for (int c = 0; c < v->chain_count; c++) {
        const mr_spring_chain *ch = &v->chains[c];
        json_t *list = json_array();
        for (int i = 0; i < ch->collider_count; i++) json_array_append_new(list, json_integer(v->chain_colliders[ch->collider_first + i]));
        json_array_append_new(groups, json_pack("{s:o}", "colliders", list));
        /* VRM 1.0 springs are straight runs ending at a tip: a chain (a VRM
         * 0.x subtree may branch) is written as its runs */
        json_t *joints = NULL;
        for (int i = ch->first; i < ch->first + ch->count; i++) {
            const mr_spring_joint *j = &v->spring_joints[i];
            if (j->tail < 0) continue;
            json_t *last = joints ? json_array_get(joints, json_array_size(joints) - 1) : NULL;
            if (!last || json_integer_value(json_object_get(last, "node")) != j->joint) {
                if (joints) {
                    json_t *sp = json_pack("{s:o,s:[i]}", "joints", joints, "colliderGroups", c);
                    if (ch->center >= 0) json_object_set_new(sp, "center", json_integer(ch->center));
                    json_array_append_new(springs, sp);
                }
                joints = json_array();
                json_array_append_new(joints, spring_joint(j, j->joint));
            } else {
                json_array_set_new(joints, json_array_size(joints) - 1, spring_joint(j, j->joint));
            }
            json_array_append_new(joints, json_pack("{s:i}", "node", j->tail));
        }
        if (joints) {
            json_t *sp = json_pack("{s:o,s:[i]}", "joints", joints, "colliderGroups", c);
            if (v->chain_names && v->chain_names[c]) json_object_set_new(sp, "name", json_string(v->chain_names[c]));
            if (ch->center >= 0) json_object_set_new(sp, "center", json_integer(ch->center));
            json_array_append_new(springs, sp);
        }
    }
    json_object_set_new(o, "colliders", cols);
    json_object_set_new(o, "colliderGroups", groups);
    json_object_set_new(o, "springs", springs);
    return o;
}

void mr_gltf_write_vrm(json_t *root, const mr_model *m, const int *mesh_node)
{
    const mr_vrm *v = m->vrm;
    if (!v) return;
    json_t *used = json_array(), *ext = json_object_get(root, "extensions");
    if (!ext) json_object_set_new(root, "extensions", ext = json_object());
    int human = 0;
    for (int b = 0; b < MR_VRM_BONE_COUNT; b++) human |= v->humanoid[b] >= 0;
    if (human || v->expression_count) {
        json_object_set_new(ext, "VRMC_vrm", vrm_json(m, mesh_node));
        json_array_append_new(used, json_string("VRMC_vrm"));
    }
    if (v->spring_joint_count) {
        json_object_set_new(ext, "VRMC_springBone", springs_json(m));
        json_array_append_new(used, json_string("VRMC_springBone"));
        for (int c = 0; c < v->collider_count; c++)
            if (v->colliders[c].shape == MR_COLLIDER_PLANE || v->colliders[c].inside) {
                json_array_append_new(used, json_string("VRMC_springBone_extended_collider"));
                break;
            }
    }
    json_t *nodes = json_object_get(root, "nodes");
    for (int i = 0; i < v->constraint_count; i++) {
        json_t *c = json_loads(v->constraint_json[i], 0, NULL);
        json_t *node = json_array_get(nodes, (size_t)v->constraint_joint[i]);
        if (!json_is_object(c) || !node) { json_decref(c); continue; }
        json_t *ne = json_object_get(node, "extensions");
        if (!ne) json_object_set_new(node, "extensions", ne = json_object());
        json_object_set_new(ne, "VRMC_node_constraint", nodes_back(c, &m->skeleton));
        if (i == 0) json_array_append_new(used, json_string("VRMC_node_constraint"));
    }
    if (json_array_size(used)) json_object_set_new(root, "extensionsUsed", used);
    else json_decref(used);
    if (!json_object_size(ext)) json_object_del(root, "extensions");
}
