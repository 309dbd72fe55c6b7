/* test_bvh.c — the BVH reader (src/formats/bvh.c) and its .bvh dispatch
 * (src/formats/load.c): the hand-written files of tests/data/bvh (3- and
 * 6-channel joints, ZXY against XYZ rotation orders, End Sites, CRLF), the
 * bad-file corpus tests/data/bvh/bad (EXPECT names each file's line and
 * message), generated edge cases, damaged copies of a valid file, and the
 * CMU files of Debian's assimp-testmodels.
 *
 * Rotation orders are checked against rotation MATRICES built here from
 * the file's angles (the reader builds quaternions), and against assimp in
 * tests/cli_bvh.sh and tests/cli_reference.sh.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "anim/pose.h"
#include "core/alloc.h"
#include "core/file.h"
#include "core/str.h"
#include "formats/bvh.h"
#include "formats/load.h"
#include "test.h"

#define DATA "tests/data/bvh/"
#define CMU "/usr/share/assimp/models/BVH/"

static mr_model *load(const char *path)
{
    mr_model *m = NULL;
    mr_error err = {0};
    mr_status st = mr_bvh_load(path, &m, &err);
    CHECK_MSG(st == MR_OK, "%s: %s", path, err.msg);
    return m;
}

/* Model-space joint positions of clip 0 at time t (NULL clip: rest pose). */
static void joint_positions(const mr_model *m, int use_clip, float t, vec3 *out)
{
    const mr_skeleton *sk = &m->skeleton;
    mr_pose pose;
    mat4 *mats = mr_alloc_array((size_t)sk->joint_count, sizeof *mats);
    CHECK(mats && mr_pose_init(&pose, sk->joint_count) == MR_OK);
    mr_pose_set_rest(&pose, sk);
    /* the file's keys exactly (the default runtime is packed, within 1e-4 of
     * the size of them: clip_runtime.h): these tests check the reader */
    const mr_clip *c = m->clips[0];
    for (int j = 0; use_clip && j < sk->joint_count; j++) {
        if (c->tracks[j].t.key_count) mr_track_sample(&c->tracks[j].t, t, pose.t[j]);
        if (c->tracks[j].r.key_count) mr_track_sample(&c->tracks[j].r, t, pose.r[j]);
        if (c->tracks[j].s.key_count) mr_track_sample(&c->tracks[j].s, t, pose.s[j]);
    }
    mr_pose_to_model(sk, &pose, mats);
    for (int j = 0; j < sk->joint_count; j++) glm_vec3_copy(mats[j][3], out[j]);
    mr_pose_deinit(&pose);
    free(mats);
}

TEST(bvh_parse_minimal_file_skeleton_clip_and_end_site)
{
    mr_model *m = load(DATA "minimal.bvh");
    if (!m) return;
    const mr_skeleton *sk = &m->skeleton;
    CHECK(!strcmp(m->format, "bvh"));
    CHECK(m->mesh_count == 0);
    CHECK(sk->joint_count == 3);
    CHECK(!strcmp(sk->names[0], "Hips") && !strcmp(sk->names[1], "Chest") && !strcmp(sk->names[2], "Chest_end"));
    CHECK(sk->parents[0] == -1 && sk->parents[1] == 0 && sk->parents[2] == 1);
    CHECK_NEAR(sk->rest_t[1][1], 10, 0);
    CHECK_NEAR(sk->rest_t[2][1], 5, 0);
    CHECK(m->clip_count == 1);
    const mr_clip *c = m->clips[0];
    CHECK(!strcmp(c->name, "minimal"));
    CHECK_NEAR(c->rate, 20, 1e-4);
    CHECK_NEAR(c->duration, 0.05, 1e-7);
    CHECK(c->tracks[0].t.key_count == 2 && c->tracks[0].r.key_count == 2);
    CHECK(c->tracks[1].t.key_count == 0 && c->tracks[1].r.key_count == 2);   /* 3 channels: rotation only */
    CHECK(c->tracks[2].t.key_count == 0 && c->tracks[2].r.key_count == 0);   /* End Site: rest */
    CHECK(m->axes.up == MR_UP_Y);
    CHECK_STR_CONTAINS(m->axes_note, "BVH states no axes or unit");
    CHECK(m->warning_count == 0);
    mr_model_destroy(m);
}

/* R = R(c1) R(c2) R(c3) as 3x3 matrices, in the order the channels are
 * written; axis 0..2 = X..Z, degrees. Row-major, acts on column vectors. */
static void euler_matrix(const int axes[3], const double deg[3], double out[3][3])
{
    double r[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int k = 0; k < 3; k++) {
        double a = deg[k] * 3.14159265358979323846 / 180, c = cos(a), s = sin(a), m[3][3] = {{0}};
        int i = (axes[k] + 1) % 3, j = (axes[k] + 2) % 3;
        m[axes[k]][axes[k]] = 1;
        m[i][i] = c;
        m[i][j] = -s;
        m[j][i] = s;
        m[j][j] = c;
        double t[3][3];
        for (int x = 0; x < 3; x++)
            for (int y = 0; y < 3; y++) t[x][y] = r[x][0] * m[0][y] + r[x][1] * m[1][y] + r[x][2] * m[2][y];
        memcpy(r, t, sizeof r);
    }
    memcpy(out, r, sizeof r);
}

/* Forward kinematics of order_*.bvh's frame f written out with matrices:
 * world(j) = world(parent) * [R | offset] (the root's translation is its
 * position channels). */
static void expected_positions(const int axes[3], int f, double pos[6][3])
{
    static const double rows[3][15] = {
        {0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {5, 20, -1, 30, 45, 60, 10, 20, 30, -40, 15, 5, 25, -35, 80},
        {10, 20, -2, 90, 10, -170, -90, 0, 0, 170, -60, 20, 0, 90, -45},
    };
    static const int parent[6] = {-1, 0, 1, 0, 3, 4};
    static const int col[6] = {3, 6, -1, 9, 12, -1};   /* rotation columns, -1 none */
    static const double offset[6][3] = {{0}, {0, 10, 0}, {0, 5, 0}, {3, -1, 0}, {0, -9, 0.5}, {0, -1, 2}};
    double rot[6][3][3];
    for (int j = 0; j < 6; j++) {
        double r[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        if (col[j] >= 0) euler_matrix(axes, &rows[f][col[j]], r);
        const double *t = j == 0 ? rows[f] : offset[j];
        if (parent[j] < 0) {
            memcpy(rot[j], r, sizeof r);
            memcpy(pos[j], t, 3 * sizeof *t);
            continue;
        }
        const int p = parent[j];
        for (int x = 0; x < 3; x++) {
            pos[j][x] = pos[p][x] + rot[p][x][0] * t[0] + rot[p][x][1] * t[1] + rot[p][x][2] * t[2];
            for (int y = 0; y < 3; y++)
                rot[j][x][y] = rot[p][x][0] * r[0][y] + rot[p][x][1] * r[1][y] + rot[p][x][2] * r[2][y];
        }
    }
}

static void check_order(const char *path, const int axes[3])
{
    mr_model *m = load(path);
    if (!m) return;
    CHECK(m->skeleton.joint_count == 6);
    for (int f = 0; f < 3; f++) {
        vec3 got[6];
        double want[6][3];
        joint_positions(m, 1, 0.04f * (float)f, got);
        expected_positions(axes, f, want);
        for (int j = 0; j < 6; j++)
            for (int k = 0; k < 3; k++)
                CHECK_MSG(fabs(got[j][k] - want[j][k]) < 1e-4, "%s frame %d joint %s axis %d: %.6f vs %.6f", path, f,
                          m->skeleton.names[j], k, got[j][k], want[j][k]);
    }
    mr_model_destroy(m);
}

TEST(bvh_rotation_order_zxy_is_rz_rx_ry_as_written)
{
    check_order(DATA "order_zxy.bvh", (const int[3]){2, 0, 1});
}

TEST(bvh_rotation_order_xyz_is_rx_ry_rz_as_written)
{
    check_order(DATA "order_xyz.bvh", (const int[3]){0, 1, 2});
}

TEST(bvh_rotation_orders_give_different_poses_for_the_same_numbers)
{
    mr_model *a = load(DATA "order_zxy.bvh"), *b = load(DATA "order_xyz.bvh");
    if (a && b) {
        vec3 pa[6], pb[6];
        joint_positions(a, 1, 0.04f, pa);
        joint_positions(b, 1, 0.04f, pb);
        CHECK(glm_vec3_distance(pa[2], pb[2]) > 1.0f);
    }
    mr_model_destroy(a);
    mr_model_destroy(b);
}

TEST(bvh_position_channels_replace_the_offset)
{
    mr_model *m = load(DATA "order_zxy.bvh");   /* root OFFSET 1 2 3, positions (0 20 0) */
    if (!m) return;
    vec3 p[6];
    joint_positions(m, 1, 0, p);
    CHECK_NEAR(p[0][0], 0, 0);
    CHECK_NEAR(p[0][1], 20, 0);
    CHECK_NEAR(p[0][2], 0, 0);
    joint_positions(m, 0, 0, p);   /* the root rests at its frame-0 position, not at OFFSET */
    CHECK_NEAR(p[0][0], 0, 0);
    CHECK_NEAR(p[0][1], 20, 0);
    CHECK_NEAR(p[0][2], 0, 0);
    mr_model_destroy(m);
}

TEST(bvh_six_channels_everywhere_with_crlf_lines)
{
    mr_model *m = load(DATA "six_channels_crlf.bvh");
    if (!m) return;
    const mr_clip *c = m->clips[0];
    CHECK(m->skeleton.joint_count == 4 && !strcmp(m->skeleton.names[3], "head_end"));
    for (int j = 0; j < 3; j++) CHECK(c->tracks[j].t.key_count == 2 && c->tracks[j].r.key_count == 2);
    /* root: "Zposition Xposition Yposition" = 1 2 3 -> (2, 3, 1) */
    float t[3];
    mr_track_sample(&c->tracks[0].t, 0, t);
    CHECK(t[0] == 2 && t[1] == 3 && t[2] == 1);
    mr_model_destroy(m);
    /* a line error in a CRLF file names the right line */
    size_t len;
    char *text = mr_file_read(DATA "six_channels_crlf.bvh", &len, NULL);
    CHECK(text != NULL);
    if (!text) return;
    char *at = strstr(text, "1 2 3 10");
    CHECK(at != NULL);
    if (at) at[0] = 'x';
    mr_error err = {0};
    CHECK(mr_bvh_parse("six.bvh", text, len, &m, &err) == MR_ERR_BAD_FILE && m == NULL);
    CHECK_STR_CONTAINS(err.msg, "bvh: six.bvh:24: expected a number (frame 0, channel 1 of 18), found 'x'");
    /* a number too large for a float, in the second frame's third channel */
    if (at) at[0] = '1';
    char *next = at ? strchr(at, '\n') : NULL;
    char *third = next ? strstr(next + 1, " ") : NULL;
    CHECK(third != NULL);
    if (third) {
        third = strstr(third + 1, " ");
        CHECK(third != NULL && third[1] != '\r');
    }
    if (third) {
        char *end = third + 1;
        while (*end != ' ' && *end != '\r' && *end != '\n') end++;
        size_t head = (size_t)(third + 1 - text), tail = len - (size_t)(end - text);
        char *big = malloc(head + 5 + tail);
        CHECK(big != NULL);
        if (big) {
            memcpy(big, text, head);
            memcpy(big + head, "1e39 ", 5);
            memcpy(big + head + 5, end, tail);   /* the separator after the number is kept too */
            mr_error err2 = {0};
            CHECK(mr_bvh_parse("six.bvh", big, head + 5 + tail, &m, &err2) == MR_ERR_BAD_FILE && m == NULL);
            CHECK_STR_CONTAINS(err2.msg, "bvh: six.bvh:25: expected a number (frame 1, channel 3 of 18) that fits a float");
            free(big);
        }
    }
    free(text);
}

TEST(bvh_rotation_keys_stay_on_one_hemisphere)
{
    mr_model *m = load(DATA "order_zxy.bvh");   /* Hips Y goes 45 -> 10 with Z 60 -> -170 */
    if (!m) return;
    const mr_clip *c = m->clips[0];
    for (int j = 0; j < c->joint_count; j++) {
        const mr_track *r = &c->tracks[j].r;
        for (int k = 1; k < r->key_count; k++) {
            const float *a = r->values + 4 * (k - 1), *b = r->values + 4 * k;
            CHECK_MSG(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] >= 0, "joint %d key %d", j, k);
        }
    }
    mr_model_destroy(m);
}

/* The manifest: FILE<TAB>LINE<TAB>message after "expected ". */
TEST(bvh_bad_files_are_refused_with_file_line_and_expectation)
{
    size_t len;
    mr_error ioerr;
    char *manifest = mr_file_read(DATA "bad/EXPECT", &len, &ioerr);
    CHECK_MSG(manifest, "%s", ioerr.msg);
    if (!manifest) return;
    int count = 0;
    char *save = NULL;
    for (char *line = strtok_r(manifest, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || !line[0]) continue;
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        CHECK(t2 != NULL);
        if (!t2) continue;
        *t1 = *t2 = '\0';
        char path[512], want[1024];
        snprintf(path, sizeof path, DATA "bad/%s", line);
        snprintf(want, sizeof want, "bvh: %s:%s: expected %s", path, t1 + 1, t2 + 1);
        mr_model *m = NULL;
        mr_error err = {0};
        mr_status st = mr_load_model(path, NULL, 0, &m, &err);
        CHECK_MSG(st == MR_ERR_BAD_FILE, "%s: status %d (%s)", path, st, err.msg);
        CHECK(m == NULL);
        CHECK_MSG(!strcmp(err.msg, want), "%s:\n         got  %s\n         want %s", path, err.msg, want);
        count++;
    }
    free(manifest);
    CHECK(count >= 25);
}

static mr_status parse_str(const char *text, mr_model **m, mr_error *err)
{
    return mr_bvh_parse("gen.bvh", text, strlen(text), m, err);
}

static const char SMALL[] = "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
                            "End Site\n{\nOFFSET 0 1 0\n}\n}\nMOTION\nFrames: 2\nFrame Time: 0.5\n0 0 0\n90 0 0\n";

TEST(bvh_frames_count_is_checked_against_the_file_before_allocating)
{
    char text[512];
    snprintf(text, sizeof text, "%.*sFrames: 1073741823\nFrame Time: 0.5\n0 0 0\n",
             (int)(strstr(SMALL, "Frames") - SMALL), SMALL);
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK(parse_str(text, &m, &err) == MR_ERR_BAD_FILE && m == NULL);
    CHECK_STR_CONTAINS(err.msg, "gen.bvh:12: expected a frame count that fits the file (Frames 1073741823 of 3 numbers each");
}

TEST(bvh_colons_are_optional_and_keywords_ignore_case)
{
    char *text = mr_str_dup(SMALL);
    char *f = strstr(text, "Frames:"), *t = strstr(text, "Time:");
    f[6] = ' ';
    t[4] = ' ';
    memcpy(strstr(text, "End Site"), "END SITE", 8);
    memcpy(strstr(text, "Zrotation"), "ZROTATION", 9);
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK_MSG(parse_str(text, &m, &err) == MR_OK, "%s", err.msg);
    if (m) CHECK(m->clip_count == 1 && m->clips[0]->tracks[0].r.key_count == 2);
    mr_model_destroy(m);
    free(text);
}

TEST(bvh_frame_lines_beyond_frames_are_ignored_with_a_warning)
{
    char text[512];
    snprintf(text, sizeof text, "%s180 0 0\n45 0 0\n", SMALL);
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK_MSG(parse_str(text, &m, &err) == MR_OK, "%s", err.msg);
    if (!m) return;
    CHECK(mr_clip_key_count(m->clips[0]) == 2);
    CHECK(m->warning_count == 1);
    CHECK_STR_CONTAINS(m->warnings[0], "gen.bvh:16: 2 lines after the last frame (Frames 2) ignored");
    mr_model_destroy(m);
}

TEST(bvh_zero_frames_gives_a_skeleton_without_clip)
{
    char text[512];
    snprintf(text, sizeof text, "%.*sFrames: 0\nFrame Time: 0.5\n", (int)(strstr(SMALL, "Frames") - SMALL), SMALL);
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK_MSG(parse_str(text, &m, &err) == MR_OK, "%s", err.msg);
    if (!m) return;
    CHECK(m->clip_count == 0 && m->skeleton.joint_count == 2);
    CHECK(m->warning_count == 1);
    CHECK_STR_CONTAINS(m->warnings[0], "gen.bvh:13: no clip: Frames is 0");
    mr_model_destroy(m);
}

TEST(bvh_more_joints_than_the_limit_are_refused)
{
    size_t cap = (size_t)(MR_MAX_JOINTS + 2) * 64 + 256, n = 0;
    char *text = malloc(cap);
    n += (size_t)snprintf(text + n, cap - n, "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 0\n");
    for (int i = 0; i < MR_MAX_JOINTS; i++)
        n += (size_t)snprintf(text + n, cap - n, "JOINT j%d\n{\nOFFSET 0 1 0\nCHANNELS 0\n}\n", i);
    n += (size_t)snprintf(text + n, cap - n, "}\nMOTION\nFrames: 0\nFrame Time: 1\n");
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK(parse_str(text, &m, &err) == MR_ERR_BAD_FILE && m == NULL);
    CHECK_STR_CONTAINS(err.msg, "expected at most 1024 joints (End Sites included), found 'j1023'");
    free(text);
}

TEST(bvh_end_site_names_are_made_unique)
{
    static const char text[] =
        "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 0\nEnd Site\n{\nOFFSET 0 1 0\n}\n"
        "End Site\n{\nOFFSET 1 0 0\n}\n}\nMOTION\nFrames: 0\nFrame Time: 1\n";
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK_MSG(parse_str(text, &m, &err) == MR_OK, "%s", err.msg);
    if (!m) return;
    CHECK(m->skeleton.joint_count == 3 && !strcmp(m->skeleton.names[1], "a_end") &&
          !strcmp(m->skeleton.names[2], "a_end2"));
    CHECK_STR_CONTAINS(m->warnings[0], "no joint has channels");
    mr_model_destroy(m);
}

TEST(bvh_unit_guess_picks_the_unit_nearest_a_person)
{
    const char *heights[] = {"1.6", "170", "60", "1750", "30"};
    const float want[] = {1.0f, 0.01f, 0.0254f, 0.001f, MR_BVH_CMU_UNIT};
    for (int i = 0; i < 5; i++) {
        char text[512];
        snprintf(text, sizeof text,
                 "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 0\nEnd Site\n{\nOFFSET 0 %s 0\n}\n}\n"
                 "MOTION\nFrames: 0\nFrame Time: 1\n", heights[i]);
        mr_model *m = NULL;
        mr_error err = {0};
        CHECK_MSG(parse_str(text, &m, &err) == MR_OK, "%s", err.msg);
        if (!m) continue;
        CHECK_MSG(m->axes.meters_per_unit == want[i], "height %s: %g m per unit", heights[i], m->axes.meters_per_unit);
        mr_model_destroy(m);
    }
}

TEST(bvh_load_dispatch_refuses_extra_anim_files)
{
    const char *anims[] = {"x.md5anim"};
    mr_model *m = NULL;
    mr_error err = {0};
    CHECK(mr_load_model(DATA "minimal.bvh", anims, 1, &m, &err) == MR_ERR_INVALID_ARGUMENT && !m);
    CHECK_STR_CONTAINS(err.msg, "a BVH file brings its own clip");
    CHECK(mr_load_model(DATA "minimal.bvh", NULL, 0, &m, &err) == MR_OK && m);
    mr_model_destroy(m);
    CHECK(mr_load_model(DATA "missing.bvh", NULL, 0, &m, &err) == MR_ERR_IO && !m);
    CHECK_STR_CONTAINS(err.msg, "bvh: " DATA "missing.bvh");
}

/* Every truncation and many byte flips of a valid file: loaded or refused
 * with a one-line "bvh: gen.bvh:LINE: expected" message, never a crash
 * (make asan checks the reads and leaks). */
TEST(bvh_damaged_copies_of_a_valid_file_fail_cleanly)
{
    size_t len;
    char *orig = mr_file_read(DATA "order_zxy.bvh", &len, NULL);
    CHECK(orig != NULL);
    if (!orig) return;
    char *buf = malloc(len + 1);
    unsigned seed = 4242;
    int loaded = 0, refused = 0;
    for (size_t k = 0; k < len + 400; k++) {
        size_t n = len;
        memcpy(buf, orig, len);
        if (k < len) n = k;   /* truncated */
        else {
            seed = seed * 1103515245u + 12345u;
            static const char bytes[] = "{}: \n\r-.e9xX0";
            buf[(seed >> 8) % len] = bytes[(seed >> 20) % (sizeof bytes - 1)];
        }
        mr_model *m = NULL;
        mr_error err = {0};
        mr_status st = mr_bvh_parse("gen.bvh", buf, n, &m, &err);
        if (st == MR_OK) {
            loaded++;
            CHECK(m != NULL);
            mr_model_destroy(m);
        } else {
            refused++;
            CHECK(m == NULL && st == MR_ERR_BAD_FILE);
            CHECK_MSG(!strncmp(err.msg, "bvh: gen.bvh:", 13) && strstr(err.msg, ": expected ") && !strchr(err.msg, '\n'),
                      "%s", err.msg);
        }
    }
    CHECK(loaded > 0 && refused > 0);
    free(buf);
    free(orig);
}

/* CMU 01_01 (assimp-testmodels; "playground: forward jumps, turn around"):
 * 31 joints with channels + 7 End Sites, 2752 frames at 120 fps, and a
 * figure that stays upright throughout: head above hips above toes, the
 * lower toe never more than a jump (6 units) off the floor, and on it
 * (within 1 unit) at some sample. */
TEST(bvh_cmu_01_01_loads_and_walks_upright)
{
    mr_model *m = load(CMU "01_01.bvh");
    if (!m) return;
    const mr_skeleton *sk = &m->skeleton;
    CHECK(sk->joint_count == 38);
    const mr_clip *c = m->clips[0];
    CHECK(!strcmp(c->name, "01_01") && mr_clip_key_count(c) == 2752);
    CHECK_NEAR(c->rate, 1 / 0.0083333, 1e-3);
    CHECK_NEAR(c->duration, 2751 * 0.0083333, 1e-4);
    CHECK(m->axes.meters_per_unit == MR_BVH_CMU_UNIT);
    int head = mr_skeleton_find(sk, "Head_end"), hips = mr_skeleton_find(sk, "Hips"),
        ltoe = mr_skeleton_find(sk, "LeftToeBase_end"), rtoe = mr_skeleton_find(sk, "RightToeBase_end");
    CHECK(head > 0 && hips == 0 && ltoe > 0 && rtoe > 0);
    vec3 *p = mr_alloc_array((size_t)sk->joint_count, sizeof *p);
    float lowest = INFINITY;
    for (int s = 0; s < 20 && p && head > 0 && ltoe > 0 && rtoe > 0; s++) {
        float t = c->duration * (float)s / 19;
        joint_positions(m, 1, t, p);
        float floor = fminf(p[ltoe][1], p[rtoe][1]);
        CHECK_MSG(p[head][1] > p[hips][1] + 5 && p[hips][1] > floor + 10, "t %.2f: head %.2f hips %.2f toe %.2f", t,
                  p[head][1], p[hips][1], floor);
        CHECK_MSG(fabsf(floor) < 6, "t %.2f: lowest toe at %.2f", t, floor);
        lowest = fminf(lowest, fabsf(floor));
    }
    CHECK_MSG(lowest < 1, "the toes never touch the floor (closest %.2f)", lowest);
    free(p);
    mr_model_destroy(m);
}

TEST(bvh_boxing_toes_reads_frames_not_the_extra_line)
{
    mr_model *m = load(CMU "Boxing_Toes.bvh");
    if (!m) return;
    CHECK(m->skeleton.joint_count == 26 && mr_clip_key_count(m->clips[0]) == 3069);
    CHECK(m->axes.meters_per_unit == 0.01f);
    CHECK(m->warning_count == 1);
    CHECK_STR_CONTAINS(m->warnings[0], "Boxing_Toes.bvh:3199: 1 line after the last frame (Frames 3069) ignored");
    mr_model_destroy(m);
}

int main(void)
{
    RUN(bvh_parse_minimal_file_skeleton_clip_and_end_site);
    RUN(bvh_rotation_order_zxy_is_rz_rx_ry_as_written);
    RUN(bvh_rotation_order_xyz_is_rx_ry_rz_as_written);
    RUN(bvh_rotation_orders_give_different_poses_for_the_same_numbers);
    RUN(bvh_position_channels_replace_the_offset);
    RUN(bvh_six_channels_everywhere_with_crlf_lines);
    RUN(bvh_rotation_keys_stay_on_one_hemisphere);
    RUN(bvh_bad_files_are_refused_with_file_line_and_expectation);
    RUN(bvh_frames_count_is_checked_against_the_file_before_allocating);
    RUN(bvh_colons_are_optional_and_keywords_ignore_case);
    RUN(bvh_frame_lines_beyond_frames_are_ignored_with_a_warning);
    RUN(bvh_zero_frames_gives_a_skeleton_without_clip);
    RUN(bvh_more_joints_than_the_limit_are_refused);
    RUN(bvh_end_site_names_are_made_unique);
    RUN(bvh_unit_guess_picks_the_unit_nearest_a_person);
    RUN(bvh_load_dispatch_refuses_extra_anim_files);
    RUN(bvh_damaged_copies_of_a_valid_file_fail_cleanly);
    RUN(bvh_cmu_01_01_loads_and_walks_upright);
    RUN(bvh_boxing_toes_reads_frames_not_the_extra_line);
    return test_summary("bvh");
}
