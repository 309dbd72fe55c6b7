/* test_fbx_anims.c — motions from another FBX file onto an FBX model
 * (src/formats/fbx_anims.c, mr_fbx_load_anims; through mr_load_model as
 * marrow.model("x.fbx", {anims = {"y.fbx"}}) does). The files are small
 * ASCII FBX 7.4 documents written here: a character "ns:Hips" -> "ns:Spine"
 * in centimetres, and motions of the same skeleton
 *   - in another namespace, the same structure and unit (keys copied as
 *     they are);
 *   - without namespace, in metres, under a Blender-style "Armature" node
 *     scaled 0.01 (the joints placed through model space, no scale left);
 *   - in metres with the hips a root (translations in the model's unit);
 *   - whose nodes name no joint (refused, the message naming the file);
 * and where each clip puts the joints is checked against the numbers
 * worked out by hand. tests/cli_fbx_blender.sh runs the same on a real
 * Mixamo motion that Blender exports.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/fbx.h"
#include "formats/load.h"
#include "test.h"

static char dir[64];

/* Writes an ASCII FBX: unit (cm per unit), an optional Armature node with
 * scale arm_scale above Hips, joints "<ns>Hips" at hips_t and "<ns>Spine"
 * at (0, spine_y, 0) under it, and, when animated, one stack "Take" whose Hips
 * rotation about Z goes 0 -> 90 degrees and translation Y from hips_t[1]
 * to hips_t[1] / 2, linearly over 1 s. Returns the path (static buffer
 * per slot). */
static const char *write_fbx(int slot, double unit, const char *ns, int armature, double arm_scale, const double hips_t[3],
                             double spine_y, int animated)
{
    static char paths[4][128];
    snprintf(paths[slot], sizeof paths[slot], "%s/f%d.fbx", dir, slot);
    FILE *f = fopen(paths[slot], "w");
    if (!f) return NULL;
    fprintf(f, "; FBX 7.4.0 project file\n"
               "FBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}\n"
               "GlobalSettings:  {\n\tVersion: 1000\n\tProperties70:  {\n"
               "\t\tP: \"UpAxis\", \"int\", \"Integer\", \"\",1\n"
               "\t\tP: \"FrontAxis\", \"int\", \"Integer\", \"\",2\n"
               "\t\tP: \"CoordAxis\", \"int\", \"Integer\", \"\",0\n"
               "\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",%g\n"
               "\t\tP: \"TimeMode\", \"enum\", \"\", \"\",6\n"
               "\t}\n}\n"
               "Objects:  {\n",
            unit);
    if (armature)
        fprintf(f, "\tModel: 10, \"Model::Armature\", \"Null\" {\n\t\tProperties70:  {\n"
                   "\t\t\tP: \"Lcl Scaling\", \"Lcl Scaling\", \"\", \"A\",%g,%g,%g\n\t\t}\n\t}\n",
                arm_scale, arm_scale, arm_scale);
    fprintf(f, "\tModel: 11, \"Model::%sHips\", \"LimbNode\" {\n\t\tProperties70:  {\n"
               "\t\t\tP: \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\",%g,%g,%g\n\t\t}\n\t}\n"
               "\tModel: 12, \"Model::%sSpine\", \"LimbNode\" {\n\t\tProperties70:  {\n"
               "\t\t\tP: \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\",0,%g,0\n\t\t}\n\t}\n",
            ns, hips_t[0], hips_t[1], hips_t[2], ns, spine_y);
    if (animated) {
        fprintf(f, "\tAnimationStack: 100, \"AnimStack::Take\", \"\" {\n\t\tProperties70:  {\n"
                   "\t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \"\",46186158000\n\t\t}\n\t}\n"
                   "\tAnimationLayer: 101, \"AnimLayer::Base\", \"\" {\n\t}\n");
        const char *node[2] = {"R", "T"};
        for (int c = 0; c < 2; c++)
            fprintf(f, "\tAnimationCurveNode: %d, \"AnimCurveNode::%s\", \"\" {\n\t\tProperties70:  {\n"
                       "\t\t\tP: \"d|X\", \"Number\", \"\", \"A\",%g\n\t\t\tP: \"d|Y\", \"Number\", \"\", \"A\",%g\n"
                       "\t\t\tP: \"d|Z\", \"Number\", \"\", \"A\",%g\n\t\t}\n\t}\n",
                    102 + c, node[c], c ? hips_t[0] : 0, c ? hips_t[1] : 0, c ? hips_t[2] : 0);
        double v0[2] = {0, hips_t[1]}, v1[2] = {90, hips_t[1] / 2};
        for (int c = 0; c < 2; c++)
            fprintf(f, "\tAnimationCurve: %d, \"AnimCurve::\", \"\" {\n\t\tDefault: 0\n\t\tKeyVer: 4008\n"
                       "\t\tKeyTime: *2 {\n\t\t\ta: 0,46186158000\n\t\t}\n"
                       "\t\tKeyValueFloat: *2 {\n\t\t\ta: %g,%g\n\t\t}\n"
                       "\t\tKeyAttrFlags: *1 {\n\t\t\ta: 8452\n\t\t}\n"
                       "\t\tKeyAttrDataFloat: *4 {\n\t\t\ta: 0,0,218434821,0\n\t\t}\n"
                       "\t\tKeyAttrRefCount: *1 {\n\t\t\ta: 2\n\t\t}\n\t}\n",
                    104 + c, v0[c], v1[c]);
    }
    fprintf(f, "}\nConnections:  {\n");
    if (armature) fprintf(f, "\tC: \"OO\",10,0\n\tC: \"OO\",11,10\n");
    else fprintf(f, "\tC: \"OO\",11,0\n");
    fprintf(f, "\tC: \"OO\",12,11\n");
    if (animated)
        fprintf(f, "\tC: \"OO\",101,100\n\tC: \"OO\",102,101\n\tC: \"OO\",103,101\n"
                   "\tC: \"OP\",102,11,\"Lcl Rotation\"\n\tC: \"OP\",103,11,\"Lcl Translation\"\n"
                   "\tC: \"OP\",104,102,\"d|Z\"\n\tC: \"OP\",105,103,\"d|Y\"\n");
    fprintf(f, "}\n");
    fclose(f);
    return paths[slot];
}

/* Model-space position of joint j of m's clip c at time t (parents first). */
static void joint_position(const mr_model *m, const mr_clip *c, int j, float t, vec3 out)
{
    mat4 w[8];
    for (int k = 0; k <= j; k++) {
        float tr[3], q[4], s[3];
        const mr_joint_tracks *jt = &c->tracks[k];
        if (jt->t.key_count) mr_track_sample(&jt->t, t, tr);
        else memcpy(tr, m->skeleton.rest_t[k], sizeof tr);
        if (jt->r.key_count) mr_track_sample(&jt->r, t, q);
        else memcpy(q, m->skeleton.rest_r[k], sizeof q);
        if (jt->s.key_count) mr_track_sample(&jt->s, t, s);
        else memcpy(s, m->skeleton.rest_s[k], sizeof s);
        mat4 local;
        glm_quat_mat4(q, local);
        glm_scale(local, s);
        local[3][0] = tr[0];
        local[3][1] = tr[1];
        local[3][2] = tr[2];
        int p = m->skeleton.parents[k];
        if (p >= 0) glm_mat4_mul(w[p], local, w[k]);
        else glm_mat4_copy(local, w[k]);
    }
    glm_vec3_copy(w[j][3], out);
}

static const double HIPS[3] = {0, 100, 0}, HIPS_M[3] = {0, 1, 0};

TEST(same_structure_other_namespace_copies_keys)
{
    const char *model_path = write_fbx(0, 1, "ns:", 0, 1, HIPS, 10, 0);
    const char *motion = write_fbx(1, 1, "other:", 0, 1, HIPS, 10, 1);
    mr_model *m = NULL, *mo = NULL;
    mr_error err = {0};
    const char *anims[1] = {motion};
    CHECK(mr_load_model(model_path, anims, 1, &m, &err) == MR_OK);
    CHECK(mr_fbx_load(motion, &mo, &err) == MR_OK);
    if (!m || !mo) {
        printf("       %s\n", err.msg);
        mr_model_destroy(m);
        mr_model_destroy(mo);
        return;
    }
    CHECK(m->clip_count == 1);
    const mr_clip *c = m->clip_count ? m->clips[m->clip_count - 1] : NULL;
    CHECK(c && !strcmp(c->name, "f1"));   /* one moving stack: named after the file */
    if (!c) goto done;
    /* the keys as the motion's own clip has them, bit for bit */
    const mr_clip *own = mo->clips[0];
    int hips = mr_skeleton_find(&m->skeleton, "ns:Hips"), ohips = mr_skeleton_find(&mo->skeleton, "other:Hips");
    CHECK(hips >= 0 && ohips >= 0);
    if (hips < 0 || ohips < 0) goto done;
    CHECK(c->tracks[hips].r.key_count == own->tracks[ohips].r.key_count && c->tracks[hips].r.key_count > 0);
    CHECK(!memcmp(c->tracks[hips].r.values, own->tracks[ohips].r.values,
                  sizeof(float) * 4 * (size_t)own->tracks[ohips].r.key_count));
    vec3 spine;
    joint_position(m, c, mr_skeleton_find(&m->skeleton, "ns:Spine"), 1, spine);
    CHECK_NEAR(spine[0], -10, 1e-4);
    CHECK_NEAR(spine[1], 50, 1e-4);
    CHECK_NEAR(spine[2], 0, 1e-4);
done:
    mr_model_destroy(m);
    mr_model_destroy(mo);
}

TEST(armature_node_and_metres_placed_through_model_space)
{
    /* the motion in metres (UnitScaleFactor 100), its bones in centimetres
     * inside an Armature node scaled 0.01 (Blender's export), no namespace */
    const char *model_path = write_fbx(0, 1, "ns:", 0, 1, HIPS, 10, 0);
    const char *motion = write_fbx(2, 100, "", 1, 0.01, HIPS, 10, 1);
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK(mr_load_model(model_path, (const char *[]){motion}, 1, &m, &err) == MR_OK);
    if (!m) {
        printf("       %s\n", err.msg);
        return;
    }
    const mr_clip *c = m->clip_count ? m->clips[m->clip_count - 1] : NULL;
    CHECK(c != NULL);
    if (!c) goto done;
    int hips = mr_skeleton_find(&m->skeleton, "ns:Hips"), spine = mr_skeleton_find(&m->skeleton, "ns:Spine");
    /* at 0: the rest; at 1 s: hips down to 50 cm, turned 90 degrees about Z */
    vec3 p;
    joint_position(m, c, hips, 0, p);
    CHECK_NEAR(p[1], 100, 1e-3);
    joint_position(m, c, spine, 0, p);
    CHECK_NEAR(p[0], 0, 1e-3);
    CHECK_NEAR(p[1], 110, 1e-3);
    joint_position(m, c, hips, 1, p);
    CHECK_NEAR(p[0], 0, 1e-3);
    CHECK_NEAR(p[1], 50, 1e-3);
    joint_position(m, c, spine, 1, p);
    CHECK_NEAR(p[0], -10, 1e-3);
    CHECK_NEAR(p[1], 50, 1e-3);
    CHECK_NEAR(p[2], 0, 1e-3);
    /* halfway: 45 degrees, 75 cm (the motion's linear curves, baked per frame) */
    joint_position(m, c, spine, 0.5f, p);
    CHECK_NEAR(p[0], -10 * sinf(GLM_PI_4f), 1e-3);
    CHECK_NEAR(p[1], 75 + 10 * cosf(GLM_PI_4f), 1e-3);
    /* the armature's 0.01 scale is not the character's: no scale left */
    float s[3];
    mr_track_sample(&c->tracks[hips].s, 1, s);
    CHECK(c->tracks[hips].s.key_count > 0);
    CHECK_NEAR(s[0], 1, 1e-5);
    CHECK_NEAR(s[1], 1, 1e-5);
done:
    mr_model_destroy(m);
}

TEST(metres_without_armature_scaled_to_the_model_unit)
{
    /* the same skeleton in metres (Hips a root at 1 m): copied keys would
     * stand the character 1 cm tall */
    const char *model_path = write_fbx(0, 1, "ns:", 0, 1, HIPS, 10, 0);
    const char *motion = write_fbx(1, 100, "", 0, 1, HIPS_M, 0.1, 1);
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK(mr_load_model(model_path, (const char *[]){motion}, 1, &m, &err) == MR_OK);
    if (!m) {
        printf("       %s\n", err.msg);
        return;
    }
    const mr_clip *c = m->clips[m->clip_count - 1];
    int spine = mr_skeleton_find(&m->skeleton, "ns:Spine");
    vec3 p;
    joint_position(m, c, spine, 0, p);
    CHECK_NEAR(p[1], 110, 1e-3);
    joint_position(m, c, spine, 1, p);
    CHECK_NEAR(p[0], -10, 1e-3);
    CHECK_NEAR(p[1], 50, 1e-3);
    mr_model_destroy(m);
}

TEST(motion_naming_no_joint_is_refused_with_the_file)
{
    const char *model_path = write_fbx(0, 1, "ns:", 0, 1, HIPS, 10, 0);
    const char *motion = write_fbx(3, 1, "ns:Not", 0, 1, HIPS, 10, 1);   /* "ns:NotHips", "ns:NotSpine" */
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK(mr_load_model(model_path, (const char *[]){motion}, 1, &m, &err) == MR_ERR_BAD_FILE);
    CHECK(m == NULL);
    CHECK_STR_CONTAINS(err.msg, motion);
    CHECK_STR_CONTAINS(err.msg, "no node names a joint");
    /* a motion without animation */
    const char *still = write_fbx(3, 1, "ns:", 0, 1, HIPS, 10, 0);
    CHECK(mr_load_model(model_path, (const char *[]){still}, 1, &m, &err) == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(err.msg, "no animation");
    mr_model_destroy(m);
}

TEST(non_fbx_motion_for_an_fbx_model_is_refused)
{
    const char *model_path = write_fbx(0, 1, "ns:", 0, 1, HIPS, 10, 0);
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK(mr_load_model(model_path, (const char *[]){"walk.bvh"}, 1, &m, &err) != MR_OK);
    CHECK(m == NULL);
    CHECK_STR_CONTAINS(err.msg, "walk.bvh");
    CHECK_STR_CONTAINS(err.msg, "expected a .fbx file");
}

/* A joint whose X and Z rotations zigzag between 0 and 40 degrees at every
 * frame for 4 s (linear keys, so the rotation between two keys is the
 * Euler path Rz(z(t)) Rx(x(t)), which no slerp of its ends follows): the
 * bake splits every interval, more than the joint's sample budget holds.
 * The budget must be spread over the clip: a first-come one split the
 * first half and left the second unsplit (mixamo.com: 5.7e-3 of the size
 * off its curves 58.7% in). */
static const char *write_zigzag(void)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/f2.fbx", dir);
    FILE *f = fopen(path, "w");
    if (!f) return NULL;
    enum { KEYS = 121 };
    fprintf(f, "; FBX 7.4.0 project file\n"
               "FBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}\n"
               "GlobalSettings:  {\n\tVersion: 1000\n\tProperties70:  {\n"
               "\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",1\n"
               "\t\tP: \"TimeMode\", \"enum\", \"\", \"\",6\n\t}\n}\n"
               "Objects:  {\n"
               "\tModel: 11, \"Model::Hips\", \"LimbNode\" {\n\t}\n"
               "\tModel: 12, \"Model::Spine\", \"LimbNode\" {\n\t\tProperties70:  {\n"
               "\t\t\tP: \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\",0,100,0\n\t\t}\n\t}\n"
               "\tAnimationStack: 100, \"AnimStack::Take\", \"\" {\n\t\tProperties70:  {\n"
               "\t\t\tP: \"LocalStop\", \"KTime\", \"Time\", \"\",%lld\n\t\t}\n\t}\n"
               "\tAnimationLayer: 101, \"AnimLayer::Base\", \"\" {\n\t}\n"
               "\tAnimationCurveNode: 102, \"AnimCurveNode::R\", \"\" {\n\t}\n",
            (long long)(KEYS - 1) * 1539538600LL);
    for (int c = 0; c < 2; c++) {
        fprintf(f, "\tAnimationCurve: %d, \"AnimCurve::\", \"\" {\n\t\tDefault: 0\n\t\tKeyVer: 4008\n"
                   "\t\tKeyTime: *%d {\n\t\t\ta: ", 104 + c, KEYS);
        for (int i = 0; i < KEYS; i++) fprintf(f, "%s%lld", i ? "," : "", (long long)i * 1539538600LL);
        fprintf(f, "\n\t\t}\n\t\tKeyValueFloat: *%d {\n\t\t\ta: ", KEYS);
        for (int i = 0; i < KEYS; i++) fprintf(f, "%s%d", i ? "," : "", (i + c) % 2 ? 40 : 0);
        fprintf(f, "\n\t\t}\n\t\tKeyAttrFlags: *1 {\n\t\t\ta: 4\n\t\t}\n"
                   "\t\tKeyAttrDataFloat: *4 {\n\t\t\ta: 0,0,0,0\n\t\t}\n"
                   "\t\tKeyAttrRefCount: *1 {\n\t\t\ta: %d\n\t\t}\n\t}\n", KEYS);
    }
    fprintf(f, "}\nConnections:  {\n\tC: \"OO\",11,0\n\tC: \"OO\",12,11\n"
               "\tC: \"OO\",101,100\n\tC: \"OO\",102,101\n\tC: \"OP\",102,11,\"Lcl Rotation\"\n"
               "\tC: \"OP\",104,102,\"d|X\"\n\tC: \"OP\",105,102,\"d|Z\"\n}\n");
    fclose(f);
    return path;
}

TEST(a_tight_sample_budget_is_spread_over_the_whole_clip)
{
    const char *path = write_zigzag();
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK(path && mr_fbx_load(path, &m, &err) == MR_OK);
    if (!m) {
        printf("       %s\n", err.msg);
        return;
    }
    const mr_clip *c = m->clip_count ? m->clips[0] : NULL;
    CHECK(c && c->tracks[0].r.key_count > 0);
    if (!c || !c->tracks[0].r.key_count) goto done;
    /* the angle between the baked rotation and the curves' own, Rz * Rx,
     * at 16 times an interval, worst in each half of the clip */
    double worst[2] = {0, 0};
    for (int i = 0; i < 120 * 16; i++) {
        double t = i / (30.0 * 16);
        int k = i / 16;
        double u = (i % 16) / 16.0;
        double x0 = k % 2 ? 40 : 0, z0 = k % 2 ? 0 : 40;
        double x = (x0 + (40 - 2 * x0) * u) * (M_PI / 360), z = (z0 + (40 - 2 * z0) * u) * (M_PI / 360);
        /* qz * qx, both half-angles */
        double want[4] = {cos(z) * sin(x), sin(z) * sin(x), sin(z) * cos(x), cos(z) * cos(x)};
        float q[4];
        mr_track_sample(&c->tracks[0].r, (float)t, q);
        double dot = fabs(want[0] * q[0] + want[1] * q[1] + want[2] * q[2] + want[3] * q[3]);
        double angle = 2 * acos(fmin(1, dot));
        int half = i >= 60 * 16;
        if (angle > worst[half]) worst[half] = angle;
    }
    printf("       worst angle off the curves: %.3g rad in the first 2 s, %.3g rad in the last 2 s (%d keys)\n",
           worst[0], worst[1], c->tracks[0].r.key_count);
    CHECK(worst[1] < 2 * worst[0] + 1e-6);
    CHECK(worst[0] < 2 * worst[1] + 1e-6);
    CHECK(worst[0] < 1e-2 && worst[1] < 1e-2);   /* a first-come budget: 0.062 rad in the last 2 s */
done:
    mr_model_destroy(m);
}

int main(void)
{
    setenv("MARROW_CACHE", "0", 1);
    snprintf(dir, sizeof dir, "/tmp/test_fbx_anims.XXXXXX");
    if (!mkdtemp(dir)) return 2;
    RUN(same_structure_other_namespace_copies_keys);
    RUN(armature_node_and_metres_placed_through_model_space);
    RUN(metres_without_armature_scaled_to_the_model_unit);
    RUN(motion_naming_no_joint_is_refused_with_the_file);
    RUN(non_fbx_motion_for_an_fbx_model_is_refused);
    RUN(a_tight_sample_budget_is_spread_over_the_whole_clip);
    for (int i = 0; i < 4; i++) {
        char p[128];
        snprintf(p, sizeof p, "%s/f%d.fbx", dir, i);
        if (!getenv("KEEP")) unlink(p);   /* KEEP=1 keeps the files to look at */
    }
    if (!getenv("KEEP")) rmdir(dir);
    return test_summary("fbx_anims");
}
