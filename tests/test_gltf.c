/* test_gltf.c — the glTF reader (src/formats/gltf*.c, gltf.h).
 *
 * Hand-made cases are tests/data/gltf/hard.gltf and hard.glb (written by
 * tests/data/gltf/make.py, which says what each one holds); the expected
 * values below follow from those few numbers by hand. Poses of real exports
 * are checked against assimp in tests/cli_reference.sh.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "test.h"

#include "anim/model.h"
#include "anim/morph.h"
#include "anim/pose.h"
#include "core/file.h"
#include "formats/gltf.h"
#include "formats/gltf_internal.h"
#include "formats/load.h"

#define HARD "tests/data/gltf/hard.gltf"
#define HARD_GLB "tests/data/gltf/hard.glb"
#define BAD "tests/data/gltf/bad/"
#define BLENDER SHARED_MODELS "blender-3.4-gltf/"

static mr_model *load(const char *path)
{
    mr_model *m = NULL;
    mr_error err;
    if (mr_load_model(path, NULL, 0, &m, &err) != MR_OK) {
        printf("    load %s: %s\n", path, err.msg);
        return NULL;
    }
    return m;
}

/* Rest-pose skinned position of vertex v of mesh 0. */
static void rest_vertex(const mr_model *m, int v, vec3 out)
{
    const mr_skeleton *sk = &m->skeleton;
    mr_pose pose;
    mr_pose_init(&pose, sk->joint_count);
    mr_pose_set_rest(&pose, sk);
    mat4 *model = calloc((size_t)sk->joint_count, sizeof *model), *skin = calloc((size_t)sk->joint_count, sizeof *skin);
    mr_pose_to_model(sk, &pose, model);
    mr_pose_skinning(sk, model, skin);
    const mr_mesh *me = &m->meshes[0];
    glm_vec3_zero(out);
    for (int k = 0; k < MR_MAX_INFLUENCES; k++) {
        vec3 p;
        glm_mat4_mulv3(skin[me->joints[v][k]], me->positions[v], 1.0f, p);
        glm_vec3_muladds(p, me->weights[v][k], out);
    }
    free(model);
    free(skin);
    mr_pose_deinit(&pose);
}

TEST(sparse_accessor_replaces_the_stored_vertex)
{
    mr_model *m = load(HARD);
    CHECK(m != NULL);
    if (!m) return;
    CHECK(m->mesh_count == 1);
    CHECK(m->meshes[0].vertex_count == 4);
    CHECK_NEAR(m->meshes[0].positions[3][0], 1, 0);
    CHECK_NEAR(m->meshes[0].positions[3][1], 1, 0);
    CHECK_NEAR(m->meshes[0].positions[3][2], 0, 0);
    mr_model_destroy(m);
}

TEST(triangle_strip_alternates_winding)
{
    mr_model *m = load(HARD);
    if (!m) { CHECK(m != NULL); return; }
    const uint32_t want[6] = {0, 1, 2, 2, 1, 3};
    CHECK(m->meshes[0].index_count == 6);
    for (int i = 0; i < 6 && m->meshes[0].index_count == 6; i++) CHECK(m->meshes[0].indices[i] == want[i]);
    mr_model_destroy(m);
}

TEST(eight_influences_from_two_sets_are_renormalised)
{
    mr_model *m = load(HARD);
    if (!m) { CHECK(m != NULL); return; }
    const mr_mesh *me = &m->meshes[0];
    int a = mr_skeleton_find(&m->skeleton, "A"), b = mr_skeleton_find(&m->skeleton, "B");
    CHECK(a >= 0 && b >= 0);
    float sum = 0, on_a = 0, on_b = 0;
    int used = 0;
    for (int k = 0; k < MR_MAX_INFLUENCES; k++) {
        sum += me->weights[0][k];
        used += me->weights[0][k] > 0;
        if (me->joints[0][k] == a) on_a += me->weights[0][k];
        if (me->joints[0][k] == b) on_b += me->weights[0][k];
    }
    CHECK(used == 8);  /* 4 float + 4 normalized-byte weights, none cut */
    CHECK_NEAR(sum, 1, 1e-6);
    CHECK_NEAR(on_a, 0.5, 1e-6);
    CHECK_NEAR(on_b, 0.5, 1e-6);
    CHECK(me->source_over4 == 1 && me->source_over8 == 0);
    CHECK(mr_mesh_influence_count(me) == 8);
    mr_model_destroy(m);
}

TEST(joints_not_one_subtree_without_inverse_binds_skin_at_identity)
{
    mr_model *m = load(HARD);
    if (!m) { CHECK(m != NULL); return; }
    const mr_skeleton *sk = &m->skeleton;
    int a = mr_skeleton_find(sk, "A"), b = mr_skeleton_find(sk, "B"), mid = mr_skeleton_find(sk, "Mid");
    CHECK(a >= 0 && b >= 0 && mid >= 0);
    CHECK(sk->parents[a] == -1);
    CHECK(sk->parents[b] == mid);  /* the non-joint node between comes along */
    /* No inverseBindMatrices: identity, so the rest pose moves each vertex by its joints' world transforms. */
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) CHECK_NEAR(sk->inverse_bind[a][c][r], c == r, 0);
    vec3 p;
    rest_vertex(m, 0, p);  /* half A (1,0,0), half B (0,1,1) */
    CHECK_NEAR(p[0], 0.5, 1e-6);
    CHECK_NEAR(p[1], 0.5, 1e-6);
    CHECK_NEAR(p[2], 0.5, 1e-6);
    rest_vertex(m, 1, p);  /* (1,0,0) on A */
    CHECK_NEAR(p[0], 2, 1e-6);
    CHECK_NEAR(p[1], 0, 1e-6);
    mr_model_destroy(m);
}

TEST(cubic_spline_and_step_channels_keep_their_interpolation)
{
    mr_model *m = load(HARD);
    if (!m) { CHECK(m != NULL); return; }
    mr_clip *c = mr_model_find_clip(m, "wave");
    CHECK(c != NULL);
    if (!c) { mr_model_destroy(m); return; }
    int a = mr_skeleton_find(&m->skeleton, "A"), b = mr_skeleton_find(&m->skeleton, "B");
    const mr_track *r = &c->tracks[a].r, *t = &c->tracks[b].t;
    CHECK(r->interp == MR_INTERP_CUBIC && r->key_count == 2);
    CHECK(t->interp == MR_INTERP_STEP && t->key_count == 2);
    CHECK_NEAR(c->duration, 1, 0);
    float q[4], v[3];
    mr_track_sample(r, 0.5f, q);  /* zero tangents: the normalised midpoint, 45 degrees about Z */
    CHECK_NEAR(q[2], sinf((float)M_PI / 8), 1e-5);
    CHECK_NEAR(q[3], cosf((float)M_PI / 8), 1e-5);
    mr_track_sample(r, 0.25f, q);  /* Hermite weight 3t^2-2t^3 = 0.15625 on the second key */
    float w = 0.15625f, s = sqrtf(0.5f);
    float qz = w * s, qw = (1 - w) + w * s, len = sqrtf(qz * qz + qw * qw);
    CHECK_NEAR(q[2], qz / len, 1e-5);
    CHECK_NEAR(q[3], qw / len, 1e-5);
    mr_track_sample(t, 0.99f, v);
    CHECK_NEAR(v[1], 1, 0);
    mr_track_sample(t, 1.0f, v);
    CHECK_NEAR(v[1], 2, 0);
    /* The morph target and its weights channel are kept (morph.h), not warned about. */
    CHECK(m->warning_count == 0);
    CHECK(m->meshes[0].morph && m->meshes[0].morph->count == 1);
    CHECK(c->morph && c->morph->channel_count == 1 && c->morph->channels[0].mesh == 0);
    mr_model_destroy(m);
}

TEST(glb_and_data_uri_gltf_read_the_same)
{
    mr_model *a = load(HARD), *b = load(HARD_GLB);
    CHECK(a && b);
    if (a && b) {
        CHECK(a->skeleton.joint_count == b->skeleton.joint_count);
        CHECK(a->meshes[0].vertex_count == b->meshes[0].vertex_count);
        CHECK(!memcmp(a->meshes[0].positions, b->meshes[0].positions, sizeof(vec3) * 4));
        CHECK(!memcmp(a->meshes[0].weights, b->meshes[0].weights, sizeof(float) * 8 * 4));
        CHECK(a->clip_count == 1 && b->clip_count == 1);
        CHECK(!strcmp(a->axes_note, "glTF: Y-up metres, +Z forward"));
    }
    mr_model_destroy(a);
    mr_model_destroy(b);
}

TEST(bad_files_are_refused_with_path_and_expectation)
{
    static const struct { const char *file; mr_status st; const char *says; } cases[] = {
        {"not_json.gltf", MR_ERR_BAD_FILE, "line 3, column 7"},
        {"wrong_shape.gltf", MR_ERR_BAD_FILE, "/accessors: expected an array"},
        {"past_view.gltf", MR_ERR_BAD_FILE, "/accessors/0: 4 elements of 12 bytes"},
        {"huge_count.gltf", MR_ERR_BAD_FILE, "run past the end of bufferView 0"},
        {"huge_sparse.gltf", MR_ERR_LIMIT, "/accessors/0: needs 6000000000 x 4 bytes"},
        {"index_out_of_range.gltf", MR_ERR_BAD_FILE, "/meshes/0/primitives/0/indices: index 2 is 7"},
        {"cycle.gltf", MR_ERR_BAD_FILE, "cycle"},
        {"two_parents.gltf", MR_ERR_BAD_FILE, "/nodes/2: 'children'[0]: node 0 is already a child"},
        {"nan.gltf", MR_ERR_BAD_FILE, "/accessors/0: element 1 component 0 is NaN"},
        {"inf.gltf", MR_ERR_BAD_FILE, "is infinite"},
        {"missing_bin.gltf", MR_ERR_IO, "/buffers/0: 'uri': cannot read"},
        {"not_base64.gltf", MR_ERR_BAD_FILE, "not base64"},
        {"escape.gltf", MR_ERR_BAD_FILE, "climbs out of the model's folder"},
        {"absolute.gltf", MR_ERR_BAD_FILE, "absolute path"},
        {"bad_version.gltf", MR_ERR_BAD_FILE, "/asset/version"},
        {"lying_chunk.glb", MR_ERR_BAD_FILE, "GLB chunk 0 at byte 12: length"},
        {"lying_length.glb", MR_ERR_BAD_FILE, "GLB header: length"},
        {"short_bin.glb", MR_ERR_BAD_FILE, "/buffers/0: 'byteLength' is 400"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, BAD "%s", cases[i].file);
        mr_model *m = (mr_model *)1;
        mr_error err = {0};
        mr_status st = mr_gltf_load(path, &m, &err);
        CHECK_MSG(st == cases[i].st, "%s: status %d, expected %d (%s)", cases[i].file, st, cases[i].st, err.msg);
        CHECK(m == NULL);
        CHECK_STR_CONTAINS(err.msg, cases[i].says);
        CHECK_STR_CONTAINS(err.msg, path);
        CHECK(strchr(err.msg, '\n') == NULL);
    }
}

TEST(uri_outside_the_model_folder_is_never_opened)
{
    gl_doc d;
    mr_error err;
    static const char json[] = "{\"asset\":{\"version\":\"2.0\"}}";
    CHECK(gl_doc_open(&d, "tests/data/gltf/x.gltf", (const unsigned char *)json, sizeof json - 1, &err) == MR_OK);
    static const char *refused[] = {"../x.bin", "a/../../x.bin", "..\\x.bin", "%2e%2e/x.bin", "/etc/passwd",
                                    "file:///etc/passwd", "http://example.com/x.bin", "C:/x.bin", ""};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        char *p = (char *)1;
        CHECK_MSG(gl_local_path(&d, "/buffers/0", refused[i], &p) == MR_ERR_BAD_FILE, "'%s' accepted", refused[i]);
        CHECK(p == NULL);
    }
    char *p = NULL;
    CHECK(gl_local_path(&d, "/buffers/0", "sub%20dir/a..b.bin", &p) == MR_OK);
    CHECK(p && !strcmp(p, "tests/data/gltf/sub dir/a..b.bin"));
    free(p);
    gl_doc_close(&d);
}

TEST(blender_exports_load_with_their_clips)
{
    /* Joints: the skins' joints and their ancestors; a node whose mesh is
     * skinned throughout adds none (its transform is ignored, glTF 3.7.3). */
    static const struct { const char *file; int joints, meshes, clips; } cases[] = {
        {BLENDER "astroBoy_walk.glb", 65, 4, 1},  {BLENDER "thinmatrix_model.glb", 17, 1, 1},
        {BLENDER "letter-f-animated.glb", 3, 1, 1}, {BLENDER "skinnedcube.gltf", 3, 1, 1},
        {BLENDER "magnum_skin.gltf", 7, 3, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mr_model *m = load(cases[i].file);
        CHECK_MSG(m != NULL, "%s does not load", cases[i].file);
        if (!m) continue;
        CHECK_MSG(m->skeleton.joint_count == cases[i].joints, "%s: %d joints", cases[i].file, m->skeleton.joint_count);
        CHECK(m->mesh_count == cases[i].meshes);
        CHECK(m->clip_count == cases[i].clips);
        CHECK(!strcmp(m->format, "gltf"));
        mr_model_destroy(m);
    }
}

TEST(embedded_png_reaches_the_material_as_bytes)
{
    mr_model *m = load(BLENDER "astroBoy_walk.glb");
    if (!m) { CHECK(m != NULL); return; }
    int textured = 0;
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_material *mat = &m->meshes[i].material;
        if (!mat->diffuse_bytes) continue;
        textured++;
        CHECK(mat->diffuse_bytes_len > 8 && !memcmp(mat->diffuse_bytes, "\x89PNG", 4));
        CHECK_STR_CONTAINS(mat->diffuse_map, "astroBoy_walk.glb#/images/0");
    }
    CHECK(textured > 0);
    mr_model_destroy(m);
}

TEST(assimp_malformed_gltf_files_are_refused)
{
    static const struct { const char *file; const char *says; } cases[] = {
        {"IndexOutOfRange/IndexOutOfRange.gltf", "past the 24 vertices"},
        {"IndexOutOfRange/AllIndicesOutOfRange.gltf", "past the 24 vertices"},
        {"RecursiveNodes/RecursiveNodes.gltf", "cycle"},
        {"BoxWithInfinites-glTF-Binary/BoxWithInfinites.glb", "infinite"},
        {"MissingBin/BoxTextured.gltf", "cannot read"},
        {"SchemaFailures/sceneWrongType.gltf", "expected an integer"},
        {"TestNoRootNode/NoScene.gltf", "out of range"},
        {"wrongTypes/badArray.gltf", "expected an array"},
        {"wrongTypes/badObject.gltf", "expected an object"},
        {"wrongTypes/badUint.gltf", "out of range"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "/usr/share/assimp/models/glTF2/%s", cases[i].file);
        if (!mr_file_exists(path)) {
            CHECK_MSG(0, "%s missing (assimp-testmodels)", path);
            continue;
        }
        mr_model *m = NULL;
        mr_error err;
        CHECK_MSG(mr_gltf_load(path, &m, &err) != MR_OK, "%s loads", path);
        CHECK_STR_CONTAINS(err.msg, cases[i].says);
        mr_model_destroy(m);
    }
}

TEST(decompose_recovers_trs_with_negative_scale)
{
    mat4 m;
    versor q, r;
    glm_quat(q, 0.7f, 0.2f, 0.3f, 0.9f);
    glm_quat_normalize(q);
    mr_pose_trs_matrix((vec3){1, 2, 3}, q, (vec3){-2, 3, 4}, m);
    vec3 t, s;
    CHECK(mr_pose_trs_from_matrix(m, t, r, s) < 1e-5f);
    mat4 back;
    mr_pose_trs_matrix(t, r, s, back);
    for (int c = 0; c < 4; c++)
        for (int k = 0; k < 4; k++) CHECK_NEAR(back[c][k], m[c][k], 1e-5);
}

/* The reader's JSON tree is its own (gltf_json.c): a load allocates
 * nothing through jansson, and a refused JSON (parsed again by jansson for
 * its message) gives every jansson block back. */
static long hook_live, hook_total;
static void *counting_malloc(size_t n)
{
    void *p = malloc(n);
    if (p) hook_live++, hook_total++;
    return p;
}
static void counting_free(void *p)
{
    if (p) hook_live--;
    free(p);
}

TEST(jansson_only_words_the_refusals)
{
    json_malloc_t saved_malloc;
    json_free_t saved_free;
    json_get_alloc_funcs(&saved_malloc, &saved_free);
    json_set_alloc_funcs(counting_malloc, counting_free);
    hook_live = hook_total = 0;
    mr_model *m = load(HARD_GLB);
    long during = hook_total;
    CHECK(m != NULL && m->clip_count > 0);
    mr_model_destroy(m);
    mr_error err;
    CHECK(mr_gltf_load(BAD "not_json.gltf", &m, &err) != MR_OK);
    CHECK_STR_CONTAINS(err.msg, "line 3, column 7");
    json_set_alloc_funcs(saved_malloc, saved_free);
    CHECK(during == 0);
    CHECK(hook_total > 0);
    CHECK_MSG(hook_live == 0, "%ld jansson blocks not given back", hook_live);
}

/* ---- the JSON parser against jansson ------------------------------------- */

/* 1 when the trees hold the same values in the same order. */
static int same_tree(const gl_json *a, const json_t *b)
{
    switch (json_typeof(b)) {
    case JSON_OBJECT: {
        if (a->type != GL_JSON_OBJECT || a->n != json_object_size(b)) return 0;
        for (uint32_t i = 0; i < a->n; i++) {
            const gl_json *m = &a->u.kids[i];
            json_t *v = json_object_get(b, m->key);
            if (!v || strlen(m->key) != m->key_len || gl_json_get(a, m->key) != m || !same_tree(m, v)) return 0;
        }
        return 1;
    }
    case JSON_ARRAY:
        if (a->type != GL_JSON_ARRAY || a->n != json_array_size(b)) return 0;
        for (uint32_t i = 0; i < a->n; i++)
            if (!same_tree(&a->u.kids[i], json_array_get(b, i))) return 0;
        return 1;
    case JSON_STRING:
        return a->type == GL_JSON_STRING && a->n == json_string_length(b) && !memcmp(a->u.str, json_string_value(b), a->n) &&
               !a->u.str[a->n];
    case JSON_INTEGER: return a->type == GL_JSON_INTEGER && a->u.i == json_integer_value(b);
    case JSON_REAL: {
        double x = gl_json_real(a), y = json_real_value(b);
        return a->type == GL_JSON_REAL && !memcmp(&x, &y, sizeof x);  /* the same bits: -0.0 too */
    }
    case JSON_TRUE: return a->type == GL_JSON_TRUE;
    case JSON_FALSE: return a->type == GL_JSON_FALSE;
    default: return a->type == GL_JSON_NULL;
    }
}

/* Parses text with both; fails the test when they disagree. */
static int agree(const char *text, size_t len)
{
    char *copy = malloc(len + 1);
    memcpy(copy, text, len);
    copy[len] = 0;
    gl_chunk *arena = NULL;
    gl_json *mine = gl_json_parse(copy, len, SIZE_MAX, &arena);
    json_error_t je;
    json_t *ref = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    int ok = ref ? mine && same_tree(mine, ref) : !mine;
    if (!ok)
        printf("       disagree on %.*s: jansson %s, gl_json %s\n", (int)(len < 120 ? len : 120), text,
               ref ? "reads it" : je.text, mine ? "reads it" : "refuses it");
    json_decref(ref);
    gl_json_arena_free(arena);
    free(copy);
    return ok;
}

TEST(json_parser_accepts_what_jansson_accepts)
{
    static const char *cases[] = {
        "{}", "[]", " [ ] ", "{\"a\":1}", "[1,2,3]", "[1,]", "[,1]", "{\"a\":1,}", "{\"a\" 1}", "{1:2}", "1", "\"s\"",
        "true", "", "   ", "[", "]", "{\"a\":1}x", "{\"a\":1} \n\t\r", "[true,false,null]", "[tru]", "[truex]",
        "[nul]", "[True]", "[-]", "[-0]", "[0]", "[01]", "[-01]", "[1.]", "[.5]", "[1.5]", "[1e]", "[1e+]", "[1E-3]",
        "[1e5]", "[+1]", "[0x10]", "[9223372036854775807]", "[9223372036854775808]", "[-9223372036854775808]",
        "[-9223372036854775809]", "[1e308]", "[1.7976931348623157e308]", "[1.7976931348623159e308]", "[1e309]",
        "[9.99e308]", "[123456789e300]", "[0.00001e313]", "[1e-400]", "[-0.0]", "[0e999999999999]", "[1e999999999]",
        "[0.1]", "[0.30000000000000004]", "[3.14159265358979323846264338327950288]", "[1e22]", "[1e23]",
        "[9007199254740993]", "[9007199254740993.0]", "[4.9e-324]", "[2.2250738585072011e-308]",
        "[\"\\u0041\\u00e9\\u20ac\\ud83d\\ude00\"]", "[\"\\u0000\"]", "[\"\\ud800\"]", "[\"\\udc00\"]",
        "[\"\\ud800\\u0041\"]", "[\"\\u12\"]", "[\"\\u12g4\"]", "[\"\\x\"]", "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]",
        "[\"a\tb\"]", "[\"a\nb\"]", "[\"\x7f\"]", "[\"\xc3\xa9\"]", "[\"\xc3\"]", "[\"\xc0\x80\"]", "[\"\xed\xa0\x80\"]",
        "[\"\xf4\x90\x80\x80\"]", "[\"\xf0\x9f\x98\x80\"]", "[\"\xe0\x80\xaf\"]", "[\"\xff\"]", "\xef\xbb\xbf[]",
        "{\"a\":1,\"a\":2}", "{\"a\":1,\"\\u0061\":2}", "{\"a\\u0000\":1}", "{\"\":1}", "{\"a\":{\"a\":{}}}",
        "{\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,\"k9\":9,\"k10\":10}",
        "{\"k1\":1,\"k2\":2,\"k3\":3,\"k4\":4,\"k5\":5,\"k6\":6,\"k7\":7,\"k8\":8,\"k9\":9,\"k1\":10}",
        "[\"unterminated]", "{\"a\":[1,2}", "[1 2]", "[[[]]]", "[{}]", "[\"a\",\"b\"]",
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) bad += !agree(cases[i], strlen(cases[i]));
    CHECK(agree("[\"a\0b\"]", 6));  /* a NUL byte */
    CHECK(agree("[1]\0", 4));
    CHECK(agree("[[6\0]]", 6));  /* jansson drops one NUL byte right after a number or a word */
    CHECK(agree("[true\0,1.5\0]", 13));
    CHECK(agree("[6\0\0]", 5));
    /* the depth limit: 2048 levels are read, 2049 are not (both ways) */
    static char deep[2 * 2050 + 8];
    for (int levels = 2047; levels <= 2050; levels++) {
        memset(deep, '[', (size_t)levels);
        memset(deep + levels, ']', (size_t)levels);
        bad += !agree(deep, 2 * (size_t)levels);
        memset(deep, '[', (size_t)levels);
        deep[levels] = '1';
        memset(deep + levels + 1, ']', (size_t)levels);
        bad += !agree(deep, 2 * (size_t)levels + 1);
    }
    CHECK_MSG(bad == 0, "%d cases where gl_json and jansson disagree", bad);
}

/* Reals are converted when read: the same double as strtod, bit for bit,
 * for the digits exporters write (17 significant digits, tiny and huge
 * exponents) and for half-way cases. */
TEST(json_reals_are_strtods_doubles)
{
    unsigned rng = 777u;
    int bad = 0;
    char text[96], num[64];
    for (int i = 0; i < 200000; i++) {
        rng = rng * 1103515245u + 12345u;
        unsigned long long m = (unsigned long long)rng << 32;
        rng = rng * 1103515245u + 12345u;
        m ^= rng;
        int digits = 1 + (int)(rng >> 8) % 19, e = (int)((rng = rng * 1103515245u + 12345u) >> 8) % 90 - 45;
        if (i % 3 == 0) {  /* a float printed with 17 digits, as Blender writes them */
            float f;
            unsigned u = (unsigned)m;
            memcpy(&f, &u, sizeof f);
            if (!isfinite(f)) continue;
            snprintf(num, sizeof num, "%.17g", (double)f);
            if (!strpbrk(num, ".e")) strcat(num, ".0");
        } else if (i % 3 == 1) {  /* a double's shortest-ish and half-way neighbours */
            double x;
            memcpy(&x, &m, sizeof x);
            if (!isfinite(x) || fabs(x) > 1e300) continue;
            snprintf(num, sizeof num, "%.*e", digits, x);
        } else {
            snprintf(num, sizeof num, "%llu.%llue%d", m % 1000000000ull, m >> 40, e);
        }
        int n = snprintf(text, sizeof text, "[%s]", num);
        gl_chunk *arena = NULL;
        gl_json *root = gl_json_parse(text, (size_t)n, SIZE_MAX, &arena);
        double want = strtod(num, NULL), got = root ? gl_json_number(gl_json_at(root, 0)) : -1;
        if (memcmp(&want, &got, sizeof want)) {
            if (bad++ < 5) printf("       %s: %.17g, strtod %.17g\n", num, got, want);
        }
        gl_json_arena_free(arena);
    }
    CHECK_MSG(bad == 0, "%d reals differ from strtod", bad);
}

/* The value count: parsing stops past max_values (',', '[', '{' outside
 * strings), so a JSON of tiny values costs no more than the budget allows. */
TEST(json_parse_stops_past_its_value_count)
{
    char a[] = "[[1,2],{\"a,[{\":3},\"x\"]", b[sizeof a];
    size_t n = strlen(a);
    for (size_t max = 0; max < 8; max++) {  /* 6 of them: 2 [, 1 {, 3 , */
        memcpy(b, a, sizeof a);
        gl_chunk *arena = NULL;
        gl_json *root = gl_json_parse(b, n, max, &arena);
        CHECK_MSG((root != NULL) == (max >= 6), "max %zu: %s", max, root ? "read" : "refused");
        gl_json_arena_free(arena);
    }
}

/* Random byte edits of a real export's JSON: the parsers agree on each. */
TEST(json_parser_agrees_with_jansson_on_mutated_exports)
{
    const char *files[] = {HARD, BLENDER "magnum_skin.gltf"};
    unsigned rng = 12345u;
    int bad = 0, read = 0, runs = 0;
    static const char alphabet[] = "{}[]:,\"\\0123456789.-+eEtrufalsn \n\x80\xc3\xa9\xff\x00u";
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        size_t len;
        mr_error err;
        char *text = mr_file_read(files[f], &len, &err);
        CHECK(text != NULL);
        if (!text) continue;
        bad += !agree(text, len);
        char *buf = malloc(len + 8);
        for (int r = 0; r < 1500; r++) {
            memcpy(buf, text, len);
            size_t n = len;
            int edits = 1 + (int)((rng = rng * 1103515245u + 12345u) >> 16) % 3;
            for (int k = 0; k < edits; k++) {
                size_t at = ((rng = rng * 1103515245u + 12345u) >> 8) % n;
                unsigned op = ((rng = rng * 1103515245u + 12345u) >> 16) % 3;
                char c = alphabet[((rng = rng * 1103515245u + 12345u) >> 16) % (sizeof alphabet - 1)];
                if (op == 0) buf[at] = c;                                   /* replace */
                else if (op == 1 && n > 1) memmove(buf + at, buf + at + 1, --n - at);  /* delete */
                else if (n < len + 7) { memmove(buf + at + 1, buf + at, n++ - at); buf[at] = c; }  /* insert */
            }
            int ok = agree(buf, n);
            bad += !ok;
            json_error_t je;
            json_t *j = json_loadb(buf, n, JSON_REJECT_DUPLICATES, &je);
            read += j != NULL;
            json_decref(j);
            runs++;
        }
        free(buf);
        free(text);
    }
    CHECK_MSG(bad == 0, "%d of %d mutated files where gl_json and jansson disagree", bad, runs);
    CHECK(read > 100 && read < runs - 100);  /* both kinds were tried */
}

int main(void)
{
    RUN(sparse_accessor_replaces_the_stored_vertex);
    RUN(triangle_strip_alternates_winding);
    RUN(eight_influences_from_two_sets_are_renormalised);
    RUN(joints_not_one_subtree_without_inverse_binds_skin_at_identity);
    RUN(cubic_spline_and_step_channels_keep_their_interpolation);
    RUN(glb_and_data_uri_gltf_read_the_same);
    RUN(bad_files_are_refused_with_path_and_expectation);
    RUN(uri_outside_the_model_folder_is_never_opened);
    RUN(blender_exports_load_with_their_clips);
    RUN(embedded_png_reaches_the_material_as_bytes);
    RUN(assimp_malformed_gltf_files_are_refused);
    RUN(decompose_recovers_trs_with_negative_scale);
    RUN(jansson_only_words_the_refusals);
    RUN(json_parser_accepts_what_jansson_accepts);
    RUN(json_parser_agrees_with_jansson_on_mutated_exports);
    RUN(json_reals_are_strtods_doubles);
    RUN(json_parse_stops_past_its_value_count);
    return test_summary("test_gltf");
}
