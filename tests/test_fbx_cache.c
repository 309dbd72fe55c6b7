/* test_fbx_cache.c — Maya geometry caches on FBX meshes (src/formats/fbx_cache.c):
 * the ufbx project's maya_axes_anim_7700_ascii.fbx, whose mesh Y is driven
 * by maya_axes_anim_7700_ascii_fpc/YShape.xml + YShape.mcx (21 frames of
 * 26 points), copied with its cache into a scratch folder and the cache
 * data then broken on purpose:
 *   - intact: 21 morph targets on Y, every clip a channel keyed at the
 *     frames that puts weight 1 on the frame's target;
 *   - the data cut short, a chunk size past the end, an unknown chunk (its
 *     tag shown printable), a NaN point, frames out of order: refused
 *     (MR_ERR_BAD_FILE) naming the data file and the byte;
 *   - the data file missing, a channel with another point count, or more
 *     frames than FBX_CACHE_MAX_FRAMES: the model loads, the mesh keeps its
 *     own points, with a warning.
 * And 3ds Max's .pc2 (max_cache_box_7500_binary.fbx): 11 frames read;
 * cut short, another magic, a NaN, a zero frame step refused; another
 * point count warned about.
 * Hostile neighbours: the data as a FIFO, a link out of the folder, a
 * '..' cache file name: none is read (a warning), nothing hangs.
 * Skipped when ../shared/models/ufbx-data is missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anim/clip.h"
#include "anim/morph.h"
#include "core/file.h"
#include "formats/fbx.h"
#include "formats/fbx_internal.h"
#include "test.h"

#define SRC "../shared/models/ufbx-data/maya_axes_anim_7700_ascii"

static char dir[64];
static char *mcx;              /* the intact data */
static size_t mcx_len;

static int write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    size_t n = fwrite(data, 1, len, f);
    return fclose(f) == 0 && n == len;
}

/* Puts the FBX and its XML into dir, and data (len bytes; NULL: none) as
 * the .mcx. */
static int stage(const void *data, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/maya_axes_anim_7700_ascii_fpc/YShape.mcx", dir);
    unlink(path);
    if (data && !write_file(path, data, len)) return 0;
    return 1;
}

static mr_status load(mr_model **m, mr_error *err)
{
    char path[256];
    snprintf(path, sizeof path, "%s/a.fbx", dir);
    *m = NULL;
    return mr_fbx_load(path, m, err);
}

static const mr_mesh *mesh_y(const mr_model *m)
{
    for (int i = 0; i < m->mesh_count; i++)
        if (m->meshes[i].name && !strcmp(m->meshes[i].name, "Y")) return &m->meshes[i];
    return NULL;
}

/* Offset of the n-th (0-based) occurrence of tag in the data, or 0. */
static size_t tag_at(const char *tag, int n)
{
    for (size_t i = 0; i + 4 <= mcx_len; i++)
        if (!memcmp(mcx + i, tag, 4) && n-- == 0) return i;
    return 0;
}

TEST(fbx_cache_intact_frames_become_targets_and_tracks)
{
    CHECK(stage(mcx, mcx_len));
    mr_model *m;
    mr_error err = {0};
    CHECK_MSG(load(&m, &err) == MR_OK, "%s", err.msg);
    if (!m) return;
    const mr_mesh *y = mesh_y(m);
    CHECK(y && y->morph && y->morph->count == 21);
    CHECK(m->clip_count >= 1);
    const mr_morph_channel *ch = NULL;
    int yi = (int)(y - m->meshes);
    if (m->clip_count) ch = mr_morph_tracks_find(m->clips[0]->morph, yi);
    CHECK(ch && ch->key_count == 21);
    if (ch && ch->key_count == 21 && ch->target_count == 21) {
        CHECK_NEAR(ch->times[5], 5.0 / 24.0, 1e-6);
        const float *w = ch->values + 5 * 21;
        CHECK(w[5] == 1.0f && w[4] == 0.0f && w[6] == 0.0f);
    }
    /* frame 5's target moves points (the cache is not the mesh's own) */
    float most = 0;
    for (int v = 0; y && y->morph && v < y->vertex_count; v++)
        for (int k = 0; k < 3; k++) most = fmaxf(most, fabsf(y->morph->targets[5].positions[v][k]));
    CHECK_MSG(most > 0.1f, "frame 5 moves points by %g at most", most);
    mr_model_destroy(m);
}

static void expect_refusal(const char *what, const char *data, size_t len, const char *needle)
{
    CHECK(stage(data, len));
    mr_model *m;
    mr_error err = {0};
    mr_status st = load(&m, &err);
    CHECK_MSG(st == MR_ERR_BAD_FILE, "%s: status %d (%s)", what, st, err.msg);
    CHECK_MSG(strstr(err.msg, "YShape.mcx: byte ") && strstr(err.msg, needle), "%s: message \"%s\" (wanted \"%s\")", what,
              err.msg, needle);
    mr_model_destroy(m);
}

TEST(fbx_cache_broken_data_is_refused_naming_file_and_byte)
{
    char *d = malloc(mcx_len);
    if (!d) return;
    /* cut in the middle of the third frame's points */
    size_t fv = tag_at("FVCA", 2);
    CHECK(fv > 0);
    expect_refusal("cut", mcx, fv + 40, "runs past the end");
    /* a chunk size far past the end (FOR8: 8-byte size after 4 bytes of padding) */
    memcpy(d, mcx, mcx_len);
    memset(d + fv + 8, 0x7f, 4);
    expect_refusal("huge size", d, mcx_len, "runs past the end");
    /* an unknown chunk */
    memcpy(d, mcx, mcx_len);
    memcpy(d + tag_at("SIZE", 1), "ZZZZ", 4);
    expect_refusal("unknown chunk", d, mcx_len, "unknown chunk \"ZZZZ\"");
    /* a tag of control bytes (a newline, an escape) is shown printable: the
     * message stays one line a terminal cannot be steered by (fuzz_fbx_cache) */
    memcpy(d + tag_at("SIZE", 1), "\n\033Z\x80", 4);
    expect_refusal("unprintable chunk", d, mcx_len, "unknown chunk \"??Z?\" (expected ");
    /* a NaN point (big-endian float 0x7fc00000) */
    memcpy(d, mcx, mcx_len);
    memcpy(d + fv + 16 + 4, "\x7f\xc0\x00\x00", 4);
    expect_refusal("NaN", d, mcx_len, "expected finite positions");
    /* the third frame's time set back to 0 */
    memcpy(d, mcx, mcx_len);
    memset(d + tag_at("TIME", 2) + 16, 0, 4);
    expect_refusal("times out of order", d, mcx_len, "expected ascending times");
    free(d);
}

TEST(fbx_cache_missing_or_unfitting_data_leaves_the_mesh_with_a_warning)
{
    CHECK(stage(NULL, 0));
    mr_model *m;
    mr_error err = {0};
    CHECK_MSG(load(&m, &err) == MR_OK, "%s", err.msg);
    if (!m) return;
    const mr_mesh *y = mesh_y(m);
    CHECK(y && !y->morph);
    int warned = 0;
    for (int i = 0; i < m->warning_count; i++) warned |= strstr(m->warnings[i], "geometry cache data") != NULL;
    CHECK(warned);
    mr_model_destroy(m);
    /* every frame's points one short (the FVCA sizes 12 bytes less, the
     * data after each moved up): another point count than the mesh's */
    char *d = malloc(mcx_len);
    if (!d) return;
    memcpy(d, mcx, mcx_len);
    size_t fv = tag_at("FVCA", 0);
    unsigned char *sz = (unsigned char *)d + fv + 15;
    *sz = (unsigned char)(*sz - 12);
    CHECK(stage(d, mcx_len));
    free(d);
    CHECK_MSG(load(&m, &err) == MR_OK, "%s", err.msg);
    if (!m) return;
    y = mesh_y(m);
    CHECK(y && !y->morph);
    warned = 0;
    for (int i = 0; i < m->warning_count; i++) warned |= strstr(m->warnings[i], "one point per control point") != NULL;
    CHECK(warned);
    mr_model_destroy(m);
}

/* more frames than FBX_CACHE_MAX_FRAMES (frame 0's group repeated at
 * ascending times): not read, with a warning, the model loads */
TEST(fbx_cache_beyond_the_frame_bound_is_not_read)
{
    size_t first = tag_at("FOR8", 1), second = tag_at("FOR8", 2), time = tag_at("TIME", 0);
    CHECK(first > 0 && second > first && time > first && time < second);
    if (!(first > 0 && second > first && time > first && time < second)) return;
    size_t frame = second - first, n = FBX_CACHE_MAX_FRAMES + 1, len = first + n * frame;
    char *d = malloc(len);
    if (!d) return;
    memcpy(d, mcx, first);
    for (size_t k = 0; k < n; k++) {
        char *g = d + first + k * frame;
        memcpy(g, mcx + first, frame);
        uint32_t ticks = (uint32_t)(k * 250);
        unsigned char be4[4] = {(unsigned char)(ticks >> 24), (unsigned char)(ticks >> 16), (unsigned char)(ticks >> 8),
                                (unsigned char)ticks};
        memcpy(g + (time - first) + 16, be4, 4);
    }
    CHECK(stage(d, len));
    free(d);
    mr_model *m;
    mr_error err = {0};
    CHECK_MSG(load(&m, &err) == MR_OK, "%s", err.msg);
    if (!m) return;
    const mr_mesh *y = mesh_y(m);
    CHECK(y && !y->morph);
    int warned = 0;
    for (int i = 0; i < m->warning_count; i++) warned |= strstr(m->warnings[i], "holds more than") != NULL;
    CHECK(warned);
    mr_model_destroy(m);
}

/* 3ds Max's .pc2 (max_cache_box_7500_binary.fbx: 11 samples of 770
 * points): read whole; cut short, another magic or a NaN refused naming
 * the file and byte, another point count warned about. */
#define PC2 "../shared/models/ufbx-data/max_cache_box_7500_binary"
static mr_status load_pc2(const char *data, size_t len, mr_model **m, mr_error *err)
{
    char path[256];
    snprintf(path, sizeof path, "%s/max_cache_box_7500_binary_fpc", dir);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/max_cache_box_7500_binary_fpc/max_cache_box.pc2", dir);
    unlink(path);
    if (data) write_file(path, data, len);
    snprintf(path, sizeof path, "%s/b.fbx", dir);
    *m = NULL;
    return mr_fbx_load(path, m, err);
}

TEST(fbx_cache_pc2_frames_and_broken_files)
{
    size_t fl, pl;
    mr_error err = {0};
    char *fbx = mr_file_read(PC2 ".fbx", &fl, &err);
    char *pc2 = mr_file_read(PC2 "_fpc/max_cache_box.pc2", &pl, &err);
    char path[256];
    snprintf(path, sizeof path, "%s/b.fbx", dir);
    CHECK(fbx && pc2 && pl > 32 && write_file(path, fbx, fl));
    if (!fbx || !pc2 || pl <= 32) return;
    mr_model *m;
    CHECK_MSG(load_pc2(pc2, pl, &m, &err) == MR_OK, "%s", err.msg);
    int targets = 0;
    for (int i = 0; m && i < m->mesh_count; i++)
        if (m->meshes[i].morph) targets += m->meshes[i].morph->count;
    CHECK_MSG(targets == 11, "%d cache targets", targets);
    mr_model_destroy(m);
    char *d = malloc(pl);
    struct { const char *what; size_t len; size_t at; const char *bytes; const char *needle; } bad[] = {
        {"cut", pl - 100, 0, NULL, "byte 32: expected"},
        {"magic", pl, 0, "POINTCACHE3", "byte 0: expected \"POINTCACHE2\""},
        {"NaN", pl, 32 + 4, "\x00\x00\xc0\x7f", "expected finite positions"},
        {"zero step", pl, 24, "\x00\x00\x00\x00", "positive frame step"},
    };
    for (size_t b = 0; d && b < sizeof bad / sizeof bad[0]; b++) {
        memcpy(d, pc2, pl);
        if (bad[b].bytes) memcpy(d + bad[b].at, bad[b].bytes, strlen(bad[b].bytes) ? strlen(bad[b].bytes) : 4);
        mr_status st = load_pc2(d, bad[b].len, &m, &err);
        CHECK_MSG(st == MR_ERR_BAD_FILE && strstr(err.msg, "max_cache_box.pc2: byte ") && strstr(err.msg, bad[b].needle),
                  "%s: status %d, \"%s\"", bad[b].what, st, err.msg);
        mr_model_destroy(m);
    }
    /* one point fewer than the mesh's control points: warned, not read */
    if (d) {
        memcpy(d, pc2, pl);
        d[16] = (char)(d[16] - 1);
        CHECK(load_pc2(d, pl, &m, &err) == MR_OK);
        int warned = 0;
        for (int i = 0; m && i < m->warning_count; i++) warned |= strstr(m->warnings[i], "one point per control point") != NULL;
        CHECK(warned);
        mr_model_destroy(m);
    }
    free(d);
    snprintf(path, sizeof path, "%s/max_cache_box_7500_binary_fpc/max_cache_box.pc2", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/max_cache_box_7500_binary_fpc", dir);
    rmdir(path);
    snprintf(path, sizeof path, "%s/b.fbx", dir);
    unlink(path);
    free(fbx);
    free(pc2);
}

/* What an attacker can put beside a model: the data file as a FIFO (no
 * hang), as a link to intact data outside the model's folder, and a
 * CacheFileName that climbs out with '..' to an intact copy: none is read,
 * the model loads with its own points and a warning naming the file. */
static int loads_without_cache(const char *why)
{
    mr_model *m = NULL;
    mr_error err = {0};
    mr_status st = load(&m, &err);
    CHECK_MSG(st == MR_OK, "%s: %s", why, err.msg);
    if (!m) return 0;
    const mr_mesh *y = mesh_y(m);
    int warned = 0;
    for (int i = 0; i < m->warning_count; i++) warned |= strstr(m->warnings[i], "geometry cache") != NULL;
    CHECK_MSG(y && !y->morph, "%s: the cache was read", why);
    CHECK_MSG(warned, "%s: no warning", why);
    mr_model_destroy(m);
    return 1;
}

TEST(fbx_cache_fifo_link_out_and_dotdot_are_not_read)
{
    char data[256], outside[256], outdir[128];
    snprintf(data, sizeof data, "%s/maya_axes_anim_7700_ascii_fpc/YShape.mcx", dir);
    CHECK(stage(NULL, 0));
    CHECK(mkfifo(data, 0600) == 0);
    loads_without_cache("a FIFO");
    unlink(data);
    /* intact data and description outside the model's folder */
    snprintf(outdir, sizeof outdir, "%s_out", dir);
    mkdir(outdir, 0777);
    snprintf(outside, sizeof outside, "%s/YShape.mcx", outdir);
    CHECK(write_file(outside, mcx, mcx_len));
    CHECK(symlink(outside, data) == 0);
    loads_without_cache("a link out of the folder");
    unlink(data);
    /* the FBX naming ..\<outdir>\YShape.xml: the same intact files, out of reach */
    char fbx_path[256], *fbx = NULL, xml_out[256];
    size_t len = 0;
    mr_error err = {0};
    snprintf(fbx_path, sizeof fbx_path, "%s/a.fbx", dir);
    fbx = mr_file_read(fbx_path, &len, &err);
    snprintf(xml_out, sizeof xml_out, "%s/YShape.xml", outdir);
    char xml_src[256];
    snprintf(xml_src, sizeof xml_src, "%s/maya_axes_anim_7700_ascii_fpc/YShape.xml", dir);
    size_t xml_len = 0;
    char *xml = mr_file_read(xml_src, &xml_len, &err);
    CHECK(fbx && xml && write_file(xml_out, xml, xml_len));
    const char *from = "\"maya_axes_anim_7700_ascii_fpc\\YShape.xml\"";
    char *at = fbx ? strstr(fbx, from) : NULL;
    CHECK(at != NULL);
    if (fbx && at) {
        const char *base = strrchr(outdir, '/') + 1;
        FILE *f = fopen(fbx_path, "wb");
        if (f) {
            fwrite(fbx, 1, (size_t)(at - fbx), f);
            fprintf(f, "\"..\\%s\\YShape.xml\"", base);
            fputs(at + strlen(from), f);
            fclose(f);
        }
        loads_without_cache("a '..' cache file name");
        write_file(fbx_path, fbx, len);   /* the file as it was */
    }
    free(fbx);
    free(xml);
    unlink(xml_out);
    unlink(outside);
    rmdir(outdir);
    CHECK(stage(mcx, mcx_len));
}

int main(void)
{
    if (!mr_file_exists(SRC ".fbx")) {
        printf("  skip fbx_cache: %s.fbx not found\n", SRC);
        return test_summary("fbx_cache");
    }
    snprintf(dir, sizeof dir, "/tmp/marrow_fbx_cache_XXXXXX");
    if (!mkdtemp(dir)) return 1;
    char path[256];
    snprintf(path, sizeof path, "%s/maya_axes_anim_7700_ascii_fpc", dir);
    mkdir(path, 0777);
    size_t len;
    mr_error err;
    char *fbx = mr_file_read(SRC ".fbx", &len, &err);
    char *xml = mr_file_read(SRC "_fpc/YShape.xml", &mcx_len, &err);
    size_t xml_len = xml ? strlen(xml) : 0;
    mcx = mr_file_read(SRC "_fpc/YShape.mcx", &mcx_len, &err);
    if (!fbx || !xml || !mcx) return 1;
    snprintf(path, sizeof path, "%s/a.fbx", dir);
    write_file(path, fbx, len);
    snprintf(path, sizeof path, "%s/maya_axes_anim_7700_ascii_fpc/YShape.xml", dir);
    write_file(path, xml, xml_len);
    RUN(fbx_cache_intact_frames_become_targets_and_tracks);
    RUN(fbx_cache_broken_data_is_refused_naming_file_and_byte);
    RUN(fbx_cache_missing_or_unfitting_data_leaves_the_mesh_with_a_warning);
    RUN(fbx_cache_beyond_the_frame_bound_is_not_read);
    RUN(fbx_cache_fifo_link_out_and_dotdot_are_not_read);
    if (mr_file_exists(PC2 ".fbx")) RUN(fbx_cache_pc2_frames_and_broken_files);
    snprintf(path, sizeof path, "%s/maya_axes_anim_7700_ascii_fpc/YShape.mcx", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/maya_axes_anim_7700_ascii_fpc/YShape.xml", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/maya_axes_anim_7700_ascii_fpc", dir);
    rmdir(path);
    snprintf(path, sizeof path, "%s/a.fbx", dir);
    unlink(path);
    rmdir(dir);
    free(fbx);
    free(xml);
    free(mcx);
    return test_summary("fbx_cache");
}
