/* test_vrm.c — VRM avatars (anim/vrm.h, formats/gltf_vrm.c,
 * formats/gltf_write_vrm.c, anim/vrm_map.h): a VRM 1.0 sample from
 * ../shared/models/vrm-samples loads with its humanoid map and expressions;
 * a VRM 0.x file (written here: humanoid, blendShapeMaster,
 * secondaryAnimation) loads with the same names; saving as .vrm and loading
 * again keeps the humanoid map, the expressions, the springs and the node
 * constraints; the expression rules (binary, block, blend); a clip of the
 * mannequin retargets onto a VRM avatar through its humanoid bones. */
#include <stdlib.h>
#include <unistd.h>

#include "anim/vrm.h"
#include "anim/vrm_map.h"
#include "formats/gltf.h"
#include "formats/gltf_write.h"
#include "formats/load.h"
#include "test.h"

#define SAMPLE SHARED_MODELS "vrm-samples/VRMC_vrm_expressions_isBinary_Overrides/VRMC_vrm_expressions_isBinary_Overrides.vrm"

static mr_model *load(const char *path)
{
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK_MSG(mr_gltf_load(path, &m, &err) == MR_OK, "%s", err.msg);
    return m;
}

static mr_model *save_and_load(const mr_model *m, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "/tmp/marrow_test_vrm_%d_%s", (int)getpid(), name);
    mr_error err = {0};
    CHECK_MSG(mr_gltf_write(m, path, &err) == MR_OK, "%s", err.msg);
    mr_model *back = load(path);
    unlink(path);
    return back;
}

static const char *bone(const mr_model *m, const char *name)
{
    int b = mr_vrm_bone_find(name);
    int j = m->vrm && b >= 0 ? m->vrm->humanoid[b] : -1;
    return j >= 0 ? m->skeleton.names[j] : "(none)";
}

static void same_vrm(const mr_model *a, const mr_model *b)
{
    CHECK(a->vrm && b->vrm);
    if (!a->vrm || !b->vrm) return;
    for (int k = 0; k < MR_VRM_BONE_COUNT; k++) {
        const char *x = a->vrm->humanoid[k] >= 0 ? a->skeleton.names[a->vrm->humanoid[k]] : "";
        const char *y = b->vrm->humanoid[k] >= 0 ? b->skeleton.names[b->vrm->humanoid[k]] : "";
        CHECK_MSG(!strcmp(x, y), "bone %s: %s vs %s", mr_vrm_bone_names[k], x, y);
    }
    CHECK(a->vrm->expression_count == b->vrm->expression_count);
    for (int i = 0; i < a->vrm->expression_count && i < b->vrm->expression_count; i++) {
        int k = mr_vrm_expression_find(b->vrm, a->vrm->expressions[i].name);
        CHECK_MSG(k >= 0, "expression %s lost", a->vrm->expressions[i].name);
        if (k < 0) continue;
        CHECK(a->vrm->expressions[i].is_binary == b->vrm->expressions[k].is_binary);
        CHECK(a->vrm->expressions[i].override_blink == b->vrm->expressions[k].override_blink);
        CHECK(a->vrm->expressions[i].bind_count == b->vrm->expressions[k].bind_count);
    }
}

TEST(vrm1_sample_loads_with_humanoid_and_expressions_and_saves_back)
{
    mr_model *m = load(SAMPLE);
    if (!m) return;
    CHECK(m->vrm && m->vrm->version == 1);
    CHECK(!strcmp(bone(m, "hips"), "Hips"));
    CHECK(!strcmp(bone(m, "head"), "Head"));
    CHECK(!strcmp(bone(m, "leftUpperArm"), "LeftUpperArm") || strcmp(bone(m, "leftUpperArm"), "(none)"));
    int happy = mr_vrm_expression_find(m->vrm, "happy"), blink = mr_vrm_expression_find(m->vrm, "blink");
    CHECK(happy >= 0 && blink >= 0);
    if (happy >= 0) {
        CHECK(m->vrm->expressions[happy].is_binary == 1);
        CHECK(m->vrm->expressions[happy].override_blink == MR_VRM_OVERRIDE_BLEND);
    }
    CHECK(m->vrm->look_at_json && strstr(m->vrm->look_at_json, "offsetFromHeadBone"));
    mr_model *back = save_and_load(m, "sample.vrm");
    if (back) {
        same_vrm(m, back);
        CHECK(back->vrm->look_at_json && strstr(back->vrm->look_at_json, "offsetFromHeadBone"));
    }
    mr_model_destroy(back);
    mr_model_destroy(m);
}

/* A VRM 0.x avatar: hips > spine > head, a two-joint hair chain under the
 * head with a leaf, an arm; 0.x names (thumb proximal = 1.0's metacarpal),
 * a blendShapeGroup by preset, a bone group and a collider group. */
static const char vrm0[] =
    "{\"asset\":{\"version\":\"2.0\"},\"extensionsUsed\":[\"VRM\"],\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
    "\"nodes\":[{\"name\":\"hips\",\"translation\":[0,1,0],\"children\":[1,6]},"
    "{\"name\":\"spine\",\"translation\":[0,0.2,0],\"children\":[2]},"
    "{\"name\":\"head\",\"translation\":[0,0.4,0],\"children\":[3],"
    " \"extensions\":{\"VRMC_node_constraint\":{\"specVersion\":\"1.0\",\"constraint\":{\"rotation\":{\"source\":1,\"weight\":0.5}}}}},"
    "{\"name\":\"hair0\",\"translation\":[0,0,-0.1],\"children\":[4]},"
    "{\"name\":\"hair1\",\"translation\":[0,-0.1,0],\"children\":[5]},"
    "{\"name\":\"hair2\",\"translation\":[0,-0.1,0]},"
    "{\"name\":\"thumb\",\"translation\":[0.3,0,0]}],"
    "\"extensions\":{\"VRM\":{\"exporterVersion\":\"test\",\"meta\":{\"title\":\"zero\"},"
    " \"humanoid\":{\"humanBones\":[{\"bone\":\"hips\",\"node\":0},{\"bone\":\"spine\",\"node\":1},{\"bone\":\"head\",\"node\":2},"
    "  {\"bone\":\"leftThumbProximal\",\"node\":6}]},"
    " \"blendShapeMaster\":{\"blendShapeGroups\":[{\"name\":\"Joy\",\"presetName\":\"joy\",\"binds\":[],\"isBinary\":true},"
    "  {\"name\":\"Wink\",\"presetName\":\"unknown\",\"binds\":[]}]},"
    " \"secondaryAnimation\":{\"boneGroups\":[{\"comment\":\"hair\",\"stiffiness\":0.7,\"gravityPower\":0.2,"
    "  \"gravityDir\":{\"x\":0,\"y\":-1,\"z\":0},\"dragForce\":0.3,\"center\":-1,\"hitRadius\":0.02,\"bones\":[3],\"colliderGroups\":[0]}],"
    "  \"colliderGroups\":[{\"node\":2,\"colliders\":[{\"offset\":{\"x\":0,\"y\":0.1,\"z\":0.05},\"radius\":0.09}]}]}}}}";

TEST(vrm0_loads_humanoid_expressions_and_springs)
{
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK_MSG(mr_gltf_parse("zero.vrm", vrm0, strlen(vrm0), &m, &err) == MR_OK, "%s", err.msg);
    if (!m) return;
    CHECK(m->vrm && m->vrm->version == 0);
    CHECK(!strcmp(bone(m, "hips"), "hips"));
    CHECK(!strcmp(bone(m, "leftThumbMetacarpal"), "thumb"));   /* 0.x thumb proximal */
    CHECK(mr_vrm_expression_find(m->vrm, "happy") >= 0);      /* preset joy */
    CHECK(mr_vrm_expression_find(m->vrm, "Wink") >= 0);
    CHECK(m->vrm->expressions[mr_vrm_expression_find(m->vrm, "happy")].is_binary);
    /* hair0 > hair1 > hair2: three springs, the leaf with a made-up tip */
    CHECK(m->vrm->chain_count == 1 && m->vrm->spring_joint_count == 3);
    CHECK(m->vrm->spring_joints[0].tail == mr_skeleton_find(&m->skeleton, "hair1"));
    CHECK(m->vrm->spring_joints[2].tail == -1);
    CHECK_NEAR(m->vrm->spring_joints[1].stiffness, 0.7, 1e-6);
    CHECK(m->vrm->collider_count == 1);
    CHECK_NEAR(m->vrm->colliders[0].offset[2], -0.05, 1e-6);    /* 0.x z points the other way */
    CHECK(m->vrm->constraint_count == 1);
    mr_springs *s = NULL;
    mr_springs_desc d = mr_vrm_springs_desc(m->vrm);
    CHECK(mr_springs_create(&m->skeleton, &d, &s, NULL) == MR_OK);
    mr_springs_destroy(s);
    mr_model *back = save_and_load(m, "zero.vrm");      /* written as VRM 1.0 */
    if (back) {
        same_vrm(m, back);
        CHECK(back->vrm->version == 1);
        /* the leaf's made-up tip has no VRM 1.0 form: two springs come back */
        CHECK(back->vrm->spring_joint_count == 2);
        CHECK(back->vrm->constraint_count == 1 && strstr(back->vrm->constraint_json[0], "\"joint\":\"spine\""));
    }
    mr_model_destroy(back);
    mr_model_destroy(m);
}

TEST(springs_survive_save_and_load)
{
    mr_model *m = load("tests/data/springs/spring_rig.gltf");
    if (!m) return;
    mr_model *back = save_and_load(m, "rig.glb");
    if (back && back->vrm) {
        const mr_vrm *a = m->vrm, *b = back->vrm;
        CHECK(a->spring_joint_count == b->spring_joint_count && a->chain_count == b->chain_count);
        CHECK(a->collider_count == b->collider_count);
        for (int i = 0; i < a->spring_joint_count && i < b->spring_joint_count; i++) {
            CHECK(a->spring_joints[i].joint == b->spring_joints[i].joint && a->spring_joints[i].tail == b->spring_joints[i].tail);
            CHECK_NEAR(a->spring_joints[i].drag, b->spring_joints[i].drag, 1e-6);
            CHECK_NEAR(a->spring_joints[i].stiffness, b->spring_joints[i].stiffness, 1e-6);
        }
        for (int c = 0; c < a->chain_count && c < b->chain_count; c++) {
            CHECK(a->chains[c].center == b->chains[c].center);
            CHECK(a->chains[c].collider_count == b->chains[c].collider_count);
        }
        for (int c = 0; c < a->collider_count && c < b->collider_count; c++) {
            CHECK(a->colliders[c].shape == b->colliders[c].shape && a->colliders[c].joint == b->colliders[c].joint);
            CHECK_NEAR(a->colliders[c].radius, b->colliders[c].radius, 1e-6);
        }
    } else {
        CHECK(back && back->vrm);
    }
    mr_model_destroy(back);
    mr_model_destroy(m);
}

TEST(expression_rules_binary_block_and_blend)
{
    mr_vrm v = {0};
    mr_vrm_expression e[3] = {
        {"happy", 1, MR_VRM_OVERRIDE_BLEND, 0, 0, 0, 1},
        {"blink", 0, 0, 0, 0, 1, 1},
        {"angry", 0, MR_VRM_OVERRIDE_BLOCK, 0, 0, 2, 2},
    };
    mr_vrm_bind b[4] = {{0, 0, 1.0f}, {0, 1, 0.8f}, {0, 2, 0.5f}, {1, 0, 1.0f}};
    v.expressions = e; v.expression_count = 3; v.binds = b; v.bind_count = 4;
    int offsets[2] = {0, 3};
    float morph[4], w[3];
    /* happy at 0.4 is binary: off; blink at 0.5 */
    w[0] = 0.4f; w[1] = 0.5f; w[2] = 0;
    for (int i = 0; i < 4; i++) morph[i] = 0.25f;
    mr_vrm_expressions_apply(&v, w, offsets, morph, 4);
    CHECK_NEAR(morph[0], 0, 1e-6);
    CHECK_NEAR(morph[1], 0.4, 1e-6);
    CHECK_NEAR(morph[2], 0, 1e-6);
    /* happy at 0.6 snaps to 1, blends blink by 1 - 1 = 0 */
    w[0] = 0.6f;
    mr_vrm_expressions_apply(&v, w, offsets, morph, 4);
    CHECK_NEAR(morph[0], 1, 1e-6);
    CHECK_NEAR(morph[1], 0, 1e-6);
    /* angry blocks blink whatever its weight */
    w[0] = 0; w[2] = 0.1f;
    mr_vrm_expressions_apply(&v, w, offsets, morph, 4);
    CHECK_NEAR(morph[1], 0, 1e-6);
    CHECK_NEAR(morph[2], 0.05, 1e-6);
    CHECK_NEAR(morph[3], 0.1, 1e-6);
}

TEST(a_clip_retargets_onto_a_vrm_avatar_through_its_humanoid_bones)
{
    mr_model *man = NULL, *vrm = load(SAMPLE);
    mr_error err = {0};
    const char *anims[] = {"models/walk.md5anim"};
    CHECK_MSG(mr_load_model("models/mannequin.md5mesh", anims, 1, &man, &err) == MR_OK, "%s", err.msg);
    if (!man || !vrm) { mr_model_destroy(man); mr_model_destroy(vrm); return; }
    /* rename the avatar's joints so names alone find nothing */
    for (int j = 0; j < vrm->skeleton.joint_count; j++) {
        free(vrm->skeleton.names[j]);
        char buf[32];
        snprintf(buf, sizeof buf, "J_%02d", j);
        vrm->skeleton.names[j] = strdup(buf);
    }
    mr_joint_map map;
    CHECK(mr_joint_map_auto(&map, &man->skeleton, &vrm->skeleton, &err) == MR_OK);
    int by_names = mr_joint_map_count(&map);
    mr_joint_map_deinit(&map);
    CHECK(mr_vrm_joint_map(&map, man, vrm, &err) == MR_OK);
    int hips = vrm->vrm->humanoid[mr_vrm_bone_find("hips")], head = vrm->vrm->humanoid[mr_vrm_bone_find("head")];
    int arm = vrm->vrm->humanoid[mr_vrm_bone_find("leftUpperArm")];
    CHECK(map.source_of[hips] == mr_skeleton_find(&man->skeleton, "pelvis"));
    CHECK(map.source_of[head] == mr_skeleton_find(&man->skeleton, "head"));
    if (arm >= 0) CHECK(map.source_of[arm] == mr_skeleton_find(&man->skeleton, "upperarm_l"));
    printf("       joints paired: %d by the renamed joints' names, %d with the humanoid map\n", by_names,
           mr_joint_map_count(&map));
    CHECK(mr_joint_map_count(&map) >= 12 && by_names == 0);
    mr_joint_map_deinit(&map);
    mr_model_destroy(man);
    mr_model_destroy(vrm);
}

TEST(malformed_vrm_extensions_name_the_json_path)
{
    static const struct { const char *ext, *expect; } cases[] = {
        {"\"VRMC_vrm\":{\"humanoid\":{\"humanBones\":{\"hips\":{\"node\":42}}}}", "/extensions/VRMC_vrm/humanoid/humanBones/hips"},
        {"\"VRMC_vrm\":{\"humanoid\":{\"humanBones\":{\"hips\":5}}}", "/extensions/VRMC_vrm/humanoid/humanBones/hips: expected an object"},
        {"\"VRMC_vrm\":{\"expressions\":{\"preset\":{\"happy\":{\"overrideBlink\":\"maybe\"}}}}", "/extensions/VRMC_vrm/expressions/preset/happy: overrideBlink"},
        {"\"VRMC_vrm\":{\"expressions\":{\"preset\":{\"happy\":{\"morphTargetBinds\":[{\"node\":0,\"index\":0}]}}}}", "/extensions/VRMC_vrm/expressions/preset/happy/morphTargetBinds/0: node: node 0 has no mesh with morph targets"},
        {"\"VRM\":{\"humanoid\":{\"humanBones\":[{\"node\":0}]}}", "/extensions/VRM/humanoid/humanBones/0"},
        {"\"VRM\":{\"secondaryAnimation\":{\"boneGroups\":[{\"bones\":[99]}]}}", "/extensions/VRM/secondaryAnimation/boneGroups/0/bones/0"},
        {"\"VRM\":{\"secondaryAnimation\":{\"boneGroups\":[{\"dragForce\":3,\"bones\":[0]}]}}", "/extensions/VRM/secondaryAnimation/boneGroups/0: dragForce"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[2048];
        snprintf(text, sizeof text, "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
                 "\"nodes\":[{\"name\":\"a\",\"mesh\":0,\"children\":[1]},{\"name\":\"b\"}],\"meshes\":[{\"primitives\":[]}],"
                 "\"extensions\":{%s}}", cases[i].ext);
        mr_model *m = NULL;
        mr_error err = {0};
        mr_status st = mr_gltf_parse("bad.vrm", text, strlen(text), &m, &err);
        CHECK(st == MR_ERR_BAD_FILE);
        CHECK_STR_CONTAINS(err.msg, cases[i].expect);
        mr_model_destroy(m);
    }
}

/* materialColorBinds and textureTransformBinds: read with the material's
 * own value as the base, moved by weight * (target - base) under the
 * binary and override rules, written back onto the saved materials. */
TEST(expression_material_binds_are_read_evaluated_and_saved)
{
    mr_model *m = load(SAMPLE);
    if (!m || !m->vrm) { mr_model_destroy(m); return; }
    const mr_vrm *v = m->vrm;
    CHECK(v->material_bind_count == 4);
    int happy = mr_vrm_expression_find(v, "happy"), blink = mr_vrm_expression_find(v, "blink");
    float w[8] = {0}, eff[8] = {0}, val[4];
    if (happy < 0 || blink < 0 || v->expression_count > 8) { CHECK(0); mr_model_destroy(m); return; }
    /* happy (binary) at 1 overrides blink at 1: only happy's binds move */
    w[happy] = 1; w[blink] = 1;
    mr_vrm_expressions_effective(v, w, eff);
    CHECK_NEAR(eff[happy], 1, 0);
    CHECK_NEAR(eff[blink], 0, 0);
    CHECK(mr_vrm_material_value(v, eff, 0, MR_VRM_MATERIAL_UV, val));        /* "Validation Window" */
    CHECK_NEAR(val[0], 0.125, 1e-6); CHECK_NEAR(val[2], 0.875, 1e-6); CHECK_NEAR(val[3], 0, 1e-6);
    CHECK(mr_vrm_material_value(v, eff, 3, MR_VRM_MATERIAL_UV, val));        /* blink's meter stays at its base */
    CHECK_NEAR(val[2], 0.5009765625, 1e-6);
    /* happy at 0.4 snaps to 0: blink's window offset */
    w[happy] = 0.4f;
    mr_vrm_expressions_effective(v, w, eff);
    mr_vrm_material_value(v, eff, 0, MR_VRM_MATERIAL_UV, val);
    CHECK_NEAR(val[2], 0, 1e-6); CHECK_NEAR(val[3], 0.875, 1e-6);
    CHECK(!mr_vrm_material_value(v, eff, 0, MR_VRM_MATERIAL_COLOR, val));    /* nothing binds its colour */
    mr_model *back = save_and_load(m, "materials.vrm");
    if (back && back->vrm) {
        CHECK(back->vrm->material_bind_count == 4);
        for (int b = 0; b < back->vrm->material_bind_count && b < 4; b++) {
            CHECK(!strcmp(back->vrm->material_binds[b].material_name, v->material_binds[b].material_name));
            for (int k = 0; k < 4; k++) CHECK_NEAR(back->vrm->material_binds[b].target[k], v->material_binds[b].target[k], 1e-6);
        }
    } else {
        CHECK(back && back->vrm);
    }
    mr_model_destroy(back);
    mr_model_destroy(m);
    /* a colour bind: the base is the material's baseColorFactor; bad ones name their path */
    static const char *const fmt =
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"name\":\"a\"}],"
        "\"materials\":[{\"name\":\"skin\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.5,0.5,0.5,1]}}],"
        "\"extensions\":{\"VRMC_vrm\":{\"specVersion\":\"1.0\",\"expressions\":{\"preset\":{\"angry\":"
        "{\"materialColorBinds\":[%s]}}}}}}";
    static const struct { const char *bind, *expect; } cases[] = {
        {"{\"material\":0,\"type\":\"color\",\"targetValue\":[1,0,0,1]}", NULL},
        {"{\"material\":3,\"type\":\"color\",\"targetValue\":[1,0,0,1]}", "/extensions/VRMC_vrm/expressions/preset/angry/materialColorBinds/0: 'material'"},
        {"{\"material\":0,\"type\":\"glow\",\"targetValue\":[1,0,0,1]}", "/extensions/VRMC_vrm/expressions/preset/angry/materialColorBinds/0: type: expected color"},
        {"{\"material\":0,\"type\":\"color\",\"targetValue\":[1,0]}", "/extensions/VRMC_vrm/expressions/preset/angry/materialColorBinds/0: targetValue: expected 3 or 4 numbers"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[2048];
        snprintf(text, sizeof text, fmt, cases[i].bind);
        mr_model *c = NULL;
        mr_error err = {0};
        mr_status st = mr_gltf_parse("binds.vrm", text, strlen(text), &c, &err);
        if (!cases[i].expect) {
            CHECK_MSG(st == MR_OK, "%s", err.msg);
            if (c && c->vrm && c->vrm->material_bind_count == 1) {
                float e1 = 0.5f;
                CHECK(!strcmp(c->vrm->material_binds[0].material_name, "skin"));
                CHECK_NEAR(c->vrm->material_binds[0].base[0], 0.5, 1e-6);
                CHECK(mr_vrm_material_value(c->vrm, &e1, 0, MR_VRM_MATERIAL_COLOR, val));
                CHECK_NEAR(val[0], 0.75, 1e-6);               /* 0.5 + 0.5 * (1 - 0.5) */
                CHECK_NEAR(val[1], 0.25, 1e-6);
            } else {
                CHECK(c && c->vrm && c->vrm->material_bind_count == 1);
            }
        } else {
            CHECK(st == MR_ERR_BAD_FILE);
            CHECK_STR_CONTAINS(err.msg, cases[i].expect);
        }
        mr_model_destroy(c);
    }
}

int main(void)
{
    RUN(vrm1_sample_loads_with_humanoid_and_expressions_and_saves_back);
    RUN(vrm0_loads_humanoid_expressions_and_springs);
    RUN(springs_survive_save_and_load);
    RUN(expression_rules_binary_block_and_blend);
    RUN(a_clip_retargets_onto_a_vrm_avatar_through_its_humanoid_bones);
    RUN(malformed_vrm_extensions_name_the_json_path);
    RUN(expression_material_binds_are_read_evaluated_and_saved);
    return test_summary("vrm");
}
