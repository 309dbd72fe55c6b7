/* check.c — a scene's shots against its goldens (check.h). */
#include "testkit/check.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/file.h"
#include "core/image.h"
#include "core/path.h"
#include "core/str.h"
#include "gfx/renderer.h"
#include "testkit/compare.h"
#include "testkit/pixel_mask.h"
#include "testkit/pose_golden.h"

/* Formats into dst (n bytes), cutting long messages; arguments may point
 * into the same result struct. */
static void msgf(char *dst, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void msgf(char *dst, size_t n, const char *fmt, ...)
{
    char tmp[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    size_t len = strlen(tmp);
    if (len >= n) len = n - 1;
    memcpy(dst, tmp, len);
    dst[len] = '\0';
}

static int write_png(const char *path, const uint8_t *rgba, int w, int h, char *msg, size_t n)
{
    mr_error err = {0};
    if (mr_gfx_write_png(path, rgba, w, h, &err) == MR_OK) return 0;
    msgf(msg, n, "%s", err.msg);
    return -1;
}

typedef struct shot_ctx {
    int update;              /* write the goldens instead of comparing */
    int keep_passing;        /* write a passing shot's files too */
    mr_scene_result *res;
    const char *scene_dir;   /* OUT/SCENE */
    char golden_dir[1100];   /* beside the scene: NAME.golden (as shown in messages) */
    const char *golden_name; /* its last component, inside the scene's folder */
    int scene_fd;            /* the scene's folder, -1 when it cannot be opened */
    int golden_fd;           /* NAME.golden opened without following a link; -1: see golden_err */
    mr_error golden_err;     /* why golden_fd is -1 */
    int golden_missing;      /* ... because it does not exist */
    const mr_scene_decl *decl;
    uint8_t *diff, *mask;    /* grown to the frame size (diff_size bytes, mask a quarter) */
    size_t diff_size;
    int diff_ready;          /* diff holds this shot's diff image */
} shot_ctx;

/* Opens (with create, makes) the golden folder: a folder named NAME.golden
 * right inside the scene's folder, never a link (which could point
 * anywhere: --update would write there). 0, or -1 with golden_err set. */
static int open_golden_dir(shot_ctx *c, int create)
{
    if (c->golden_fd >= 0) return 0;
    if (c->scene_fd < 0) return -1;
    mr_error e = {0};
    c->golden_fd = mr_file_dir_open_at(c->scene_fd, c->golden_name, create, c->golden_dir, &e);
    if (c->golden_fd >= 0) return 0;
    c->golden_missing = e.status == MR_ERR_IO && errno == ENOENT;
    c->golden_err = e;
    return -1;
}

/* The golden PNG's bytes for a shot of w x h, read inside the golden folder
 * (no link, FIFO or device; at most what a w x h PNG can take) into *bytes;
 * 1 read, -1 missing, 0 refused (part says why). */
static int read_golden_png(shot_ctx *c, const char *name, const char *shown, int w, int h, unsigned char **bytes,
                           size_t *len, char *part, size_t n)
{
    *bytes = NULL;
    if (open_golden_dir(c, 0) != 0) {
        if (c->golden_missing || c->scene_fd < 0) return msgf(part, n, "no golden image %s", shown), -1;
        msgf(part, n, "%s", c->golden_err.msg);
        return 0;
    }
    /* zlib stores at worst about 0.1 % more than the raw rows (plus chunks) */
    size_t max = (size_t)w * h * 5 + ((size_t)1 << 20);
    mr_error e = {0};
    *bytes = (unsigned char *)mr_file_read_at(c->golden_fd, name, shown, max, len, &e);
    if (*bytes) return 1;
    if (e.status == MR_ERR_IO && errno == ENOENT) return msgf(part, n, "no golden image %s", shown), -1;
    msgf(part, n, "%s", e.msg);
    return 0;
}

/* The image half of a shot: compares rgba with the golden PNG (scene.ignore
 * masked) into c->diff (the diff image, when there is room for it); fills s
 * and writes part. The golden's own bytes are handed to *golden_bytes
 * (*golden_len; the caller frees them) once they are known to be a PNG, for
 * expected.png. Nothing is written to disk here. Returns 1 pass, 0 fail,
 * -1 no golden image. */
static int compare_image(shot_ctx *c, mr_shot_result *s, const char *golden, const char *df, const uint8_t *rgba,
                         int w, int h, const mr_scene_shot_info *info, unsigned char **golden_bytes,
                         size_t *golden_len, char *part, size_t n)
{
    unsigned char *bytes = NULL;
    size_t len = 0;
    int got = read_golden_png(c, mr_path_basename(golden), golden, w, h, &bytes, &len, part, n);
    if (got <= 0) return got;
    /* The header first: nothing is decoded that is not a PNG of the frame's size. */
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    int gw = 0, gh = 0;
    mr_error e = {0};
    if (len < 8 || memcmp(bytes, sig, 8)) {
        msgf(part, n, "the golden %s is not a PNG file", golden);
        free(bytes);
        return 0;
    }
    /* The size from the IHDR chunk, which a PNG holds first: whatever else
     * mr_image_decode checks (and its bomb check, one inflation of the
     * data) is done once, there. */
    if (len < 33 || memcmp(bytes + 8, "\0\0\0\15IHDR", 8)) {
        msgf(part, n, "the golden %s is not a PNG file (no IHDR chunk first)", golden);
        free(bytes);
        return 0;
    }
    uint32_t pw = (uint32_t)bytes[16] << 24 | (uint32_t)bytes[17] << 16 | (uint32_t)bytes[18] << 8 | bytes[19];
    uint32_t ph = (uint32_t)bytes[20] << 24 | (uint32_t)bytes[21] << 16 | (uint32_t)bytes[22] << 8 | bytes[23];
    *golden_bytes = bytes;
    *golden_len = len;
    if (pw != (uint32_t)w || ph != (uint32_t)h) {
        msgf(part, n, "the frame is %dx%d, the golden %s is %ux%u", w, h, golden, (unsigned)pw, (unsigned)ph);
        return 0;
    }
    uint8_t *exp = NULL;
    int comp = 0;
    if (mr_image_decode(bytes, len, golden, &exp, &gw, &gh, &comp, &e) != MR_OK) {
        msgf(part, n, "%s", e.msg);
        return 0;
    }
    size_t need = (size_t)w * h * 4;
    if (need > c->diff_size) {
        free(c->diff);
        free(c->mask);
        c->diff = malloc(need);
        c->mask = malloc(need / 4);
        c->diff_size = c->diff && c->mask ? need : 0;
    }
    const mr_scene_decl *d = c->decl;
    uint8_t *mask = NULL;
    if (c->mask && (d->ignore_count || (d->ignore_text && info->text_box_count))) {
        mask = c->mask;
        memset(mask, 0, need / 4);
        for (int i = 0; i < d->ignore_count; i++)
            mr_pixel_mask_rect(mask, w, h, d->ignore[i][0], d->ignore[i][1], d->ignore[i][2], d->ignore[i][3]);
        for (int i = 0; d->ignore_text && i < info->text_box_count; i++) {
            const int *b = info->text_boxes[i];
            mr_pixel_mask_rect(mask, w, h, b[0], b[1], b[2] - b[0] + 1, b[3] - b[1] + 1);
        }
    }
    mr_compare_tol tol = {d->threshold, d->max_diff, d->max_aa};
    mr_compare_result cr;
    mr_compare_images_masked(exp, rgba, w, h, &tol, mask, c->diff_size ? c->diff : NULL, &cr);
    mr_image_free(exp);
    c->diff_ready = c->diff_size != 0;
    s->diff = cr.diff;
    s->aa = cr.aa;
    s->diff_share = cr.diff_share;
    s->aa_share = cr.aa_share;
    s->max_delta = cr.max_delta;
    s->masked = cr.masked;
    char ignored[64] = "";
    if (cr.masked)
        snprintf(ignored, sizeof ignored, "; %.1f%% of the frame ignored", 100.0 * cr.masked / ((double)w * h));
    if (cr.pass)
        msgf(part, n, "pixels ok (%.3f%% differ, %.3f%% as anti-aliasing, largest difference %d%s)",
             100 * cr.diff_share, 100 * cr.aa_share, cr.max_delta, ignored);
    else
        msgf(part, n, "%.3f%% of pixels differ (%.3f%% more as anti-aliasing), largest difference %d, in x "
             "%d..%d y %d..%d%s; see %s", 100 * cr.diff_share, 100 * cr.aa_share, cr.max_delta, cr.box[0],
             cr.box[2], cr.box[1], cr.box[3], ignored, df);
    return cr.pass;
}

/* The pose half of a shot: compares the poses drawn with FRAME.pose.json.
 * Returns 1 pass, 0 fail, -1 no pose golden. */
static int compare_poses(shot_ctx *c, const char *golden, const mr_pose_shot *poses, char *part, size_t n)
{
    mr_pose_shot exp = {0};
    mr_error err = {0};
    mr_status st;
    if (open_golden_dir(c, 0) != 0) {
        st = c->golden_missing || c->scene_fd < 0 ? MR_ERR_IO : MR_ERR_BAD_FILE;
        err = c->golden_err;
    } else {
        st = mr_pose_shot_read_at(&exp, c->golden_fd, mr_path_basename(golden), golden, &err);
    }
    if (st == MR_ERR_IO) {
        msgf(part, n, "no pose golden %s", golden);
        return -1;
    }
    if (st != MR_OK) {
        msgf(part, n, "%s", err.msg);
        return 0;
    }
    mr_pose_tol tol = {c->decl->pose_tol, c->decl->pose_angle};
    int ok = mr_pose_shot_compare(&exp, poses, &tol, part, n);
    mr_pose_shot_deinit(&exp);
    return ok;
}

/* Removes what an earlier run left in a passing shot's FRAME folder (its
 * files, then the folder when nothing else is in it), so OUT never shows
 * stale failure images beside a pass. */
static void clear_shot_dir(const char *dir)
{
    static const char *const names[] = {"actual.png", "actual.pose.json", "expected.png", "diff.png"};
    char p[1500];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
}

/* Writes a shot's files under dir: actual.png, actual.pose.json and, when
 * compared, expected.png (the golden's bytes) and diff.png. 0, or -1 with
 * s->msg saying what could not be written. */
static int write_shot_files(shot_ctx *c, mr_shot_result *s, const char *dir, const uint8_t *rgba, int w, int h,
                            const mr_scene_shot_info *info, const unsigned char *golden_bytes, size_t golden_len,
                            int with_diff)
{
    char path[1500];
    mr_error err = {0};
    mr_file_mkdirs(dir, NULL);
    snprintf(path, sizeof path, "%s/actual.png", dir);
    if (write_png(path, rgba, w, h, s->msg, sizeof s->msg)) return -1;
    s->has_actual = 1;
    snprintf(path, sizeof path, "%s/actual.pose.json", dir);
    if (mr_pose_shot_write(info->poses, s->frame, path, &err) != MR_OK) {
        msgf(s->msg, sizeof s->msg, "%s", err.msg);
        return -1;
    }
    snprintf(path, sizeof path, "%s/expected.png", dir);
    unlink(path);
    if (golden_bytes && mr_file_write(path, golden_bytes, golden_len, NULL) == MR_OK) s->has_expected = 1;
    snprintf(path, sizeof path, "%s/diff.png", dir);
    unlink(path);
    if (with_diff && c->diff_ready && write_png(path, c->diff, w, h, s->msg, sizeof s->msg) == 0) s->has_diff = 1;
    return 0;
}

static int on_shot(void *ud, int shot, int frame, const uint8_t *rgba, int w, int h, const mr_scene_shot_info *info)
{
    shot_ctx *c = ud;
    mr_scene_result *res = c->res;
    mr_shot_result *s = &res->shots[shot];
    memset(s, 0, sizeof *s);
    s->frame = frame;
    char dir[1400], path[1500], golden[1200], golden_pose[1200], df[1500];
    snprintf(dir, sizeof dir, "%s/%04d", c->scene_dir, frame);
    snprintf(golden, sizeof golden, "%s/%04d.png", c->golden_dir, frame);
    snprintf(golden_pose, sizeof golden_pose, "%s/%04d.pose.json", c->golden_dir, frame);
    snprintf(path, sizeof path, "%s/actual.png", dir);
    snprintf(df, sizeof df, "%s/diff.png", dir);
    mr_error err = {0};
    if (c->update) {
        if (write_shot_files(c, s, dir, rgba, w, h, info, NULL, 0, 0) != 0) {
            s->status = MR_SHOT_FAIL;
            return 0;
        }
        s->status = MR_SHOT_UPDATED;
        unsigned char *png = NULL;
        size_t png_len = 0;
        if (open_golden_dir(c, 1) != 0) {
            s->status = MR_SHOT_FAIL;
            msgf(s->msg, sizeof s->msg, "%s frame %d: not updated: %s", res->name, frame, c->golden_err.msg);
        } else if (mr_gfx_encode_png(rgba, w, h, &png, &png_len) != MR_OK) {
            s->status = MR_SHOT_FAIL;
            msgf(s->msg, sizeof s->msg, "%s: cannot encode the %dx%d frame", golden, w, h);
        } else if (mr_file_write_at(c->golden_fd, mr_path_basename(golden), golden, png, png_len, &err) != MR_OK ||
                   mr_pose_shot_write_at(info->poses, frame, c->golden_fd, mr_path_basename(golden_pose),
                                         golden_pose, &err) != MR_OK) {
            s->status = MR_SHOT_FAIL;
            msgf(s->msg, sizeof s->msg, "%s", err.msg);
        }
        free(png);
        if (s->status == MR_SHOT_UPDATED) msgf(s->msg, sizeof s->msg, "wrote %s and %s", golden, golden_pose);
        return 0;
    }
    /* Compared in memory first: the files are written only for a shot that
     * does not pass (or with keep_passing), as PNG encoding is most of what
     * a passing shot would otherwise cost beside its rendering. */
    char img_part[700], pose_part[700];
    unsigned char *golden_bytes = NULL;
    size_t golden_len = 0;
    c->diff_ready = 0;
    int img = compare_image(c, s, golden, df, rgba, w, h, info, &golden_bytes, &golden_len, img_part,
                            sizeof img_part);
    int pose = compare_poses(c, golden_pose, info->poses, pose_part, sizeof pose_part);
    s->pose_failed = pose == 0;
    if (img < 0 || pose < 0) {
        s->status = img == 0 || pose == 0 ? MR_SHOT_FAIL : MR_SHOT_MISSING;
        msgf(s->msg, sizeof s->msg, "%s frame %d: %s; %s; look at %s and approve it with: marrow test --update %s",
             res->name, frame, img < 0 ? img_part : pose_part, img < 0 ? pose_part : img_part, path, res->path);
    } else if (pose == 0) {
        /* Which joints moved says more than which pixels did: poses first. */
        s->status = MR_SHOT_FAIL;
        msgf(s->msg, sizeof s->msg, "%s frame %d: %s; %s", res->name, frame, pose_part, img_part);
    } else {
        s->status = img ? MR_SHOT_PASS : MR_SHOT_FAIL;
        msgf(s->msg, sizeof s->msg, "%s frame %d: %s; %s", res->name, frame, img ? "ok" : img_part,
             img ? img_part : pose_part);
    }
    if (s->status == MR_SHOT_PASS && !c->keep_passing) {
        clear_shot_dir(dir);
    } else {
        char msg[sizeof s->msg];
        memcpy(msg, s->msg, sizeof msg);
        if (write_shot_files(c, s, dir, rgba, w, h, info, golden_bytes, golden_len, 1) != 0)
            s->status = MR_SHOT_FAIL;       /* s->msg says which file */
        else
            memcpy(s->msg, msg, sizeof msg);
    }
    free(golden_bytes);
    return 0;
}

int mr_check_scene(mr_scene_runner *runner, const char *script, const char *scene_dir, int update,
                   int keep_passing, mr_scene_result *res)
{
    shot_ctx c = {.update = update, .keep_passing = keep_passing, .res = res, .scene_dir = scene_dir, .scene_fd = -1, .golden_fd = -1};
    snprintf(c.golden_dir, sizeof c.golden_dir, "%.*s.golden", (int)(strlen(script) - 4), script);
    c.golden_name = mr_path_basename(c.golden_dir);
    char *folder = mr_path_dirname(script);
    c.scene_fd = folder ? mr_file_dir_open(folder, &c.golden_err) : -1;
    free(folder);
    mr_scene_decl decl;
    memset(&decl, 0, sizeof decl);
    c.decl = &decl;
    /* decl is filled before the first frame, so on_shot can read the tolerance. */
    int rc = mr_scene_runner_run(runner, script, scene_dir, &decl, on_shot, &c, NULL) == MR_OK ? 0 : -1;
    if (rc) msgf(res->message, sizeof res->message, "%s", mr_scene_runner_message(runner));
    res->shot_count = decl.shot_count;
    for (int i = 0; i < decl.shot_count; i++)
        if (res->shots[i].frame != decl.shots[i] || (rc && !res->shots[i].msg[0])) {
            memset(&res->shots[i], 0, sizeof res->shots[i]);
            res->shots[i].frame = decl.shots[i];
            res->shots[i].status = MR_SHOT_NOT_RUN;
            msgf(res->shots[i].msg, sizeof res->shots[i].msg, "%s frame %d: not run (the scene failed)",
                     res->name, decl.shots[i]);
        }
    res->error = rc != 0;
    if (c.golden_fd >= 0) close(c.golden_fd);
    if (c.scene_fd >= 0) close(c.scene_fd);
    free(c.diff);
    free(c.mask);
    return rc;
}
