/* check.c — a scene's shots against its goldens (check.h). */
#include "testkit/check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stb_image.h>

#include "core/file.h"
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
    mr_scene_result *res;
    const char *scene_dir;   /* OUT/SCENE */
    char golden_dir[1100];   /* beside the scene: NAME.golden */
    const mr_scene_decl *decl;
    uint8_t *diff, *mask;    /* grown to the frame size (diff_size bytes, mask a quarter) */
    size_t diff_size;
} shot_ctx;

/* The image half of a shot: compares rgba with the golden PNG (scene.ignore
 * masked), writes expected.png and diff.png; fills s and appends to part.
 * Returns 1 pass, 0 fail, -1 no golden image. */
static int compare_image(shot_ctx *c, mr_shot_result *s, const char *golden, const char *dir,
                         const uint8_t *rgba, int w, int h, const mr_scene_shot_info *info, char *part, size_t n)
{
    char ex[1500], df[1500];
    snprintf(ex, sizeof ex, "%s/expected.png", dir);
    snprintf(df, sizeof df, "%s/diff.png", dir);
    int gw, gh, gn;
    uint8_t *exp = stbi_load(golden, &gw, &gh, &gn, 4);
    if (!exp) {
        msgf(part, n, "no golden image %s", golden);
        return -1;
    }
    if (mr_file_copy(golden, ex, NULL) == MR_OK) s->has_expected = 1;   /* the golden's own bytes: no re-encoding */
    if (gw != w || gh != h) {
        msgf(part, n, "the frame is %dx%d, the golden %s is %dx%d", w, h, golden, gw, gh);
        stbi_image_free(exp);
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
    stbi_image_free(exp);
    if (c->diff_size && write_png(df, c->diff, w, h, s->msg, sizeof s->msg) == 0) s->has_diff = 1;
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
    mr_status st = mr_pose_shot_read(&exp, golden, &err);
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

static int on_shot(void *ud, int shot, int frame, const uint8_t *rgba, int w, int h, const mr_scene_shot_info *info)
{
    shot_ctx *c = ud;
    mr_scene_result *res = c->res;
    mr_shot_result *s = &res->shots[shot];
    memset(s, 0, sizeof *s);
    s->frame = frame;
    char dir[1400], path[1500], pose_path[1500], golden[1200], golden_pose[1200];
    snprintf(dir, sizeof dir, "%s/%04d", c->scene_dir, frame);
    mr_file_mkdirs(dir, NULL);
    snprintf(golden, sizeof golden, "%s/%04d.png", c->golden_dir, frame);
    snprintf(golden_pose, sizeof golden_pose, "%s/%04d.pose.json", c->golden_dir, frame);
    snprintf(path, sizeof path, "%s/actual.png", dir);
    snprintf(pose_path, sizeof pose_path, "%s/actual.pose.json", dir);
    mr_error err = {0};
    if (write_png(path, rgba, w, h, s->msg, sizeof s->msg)) {
        s->status = MR_SHOT_FAIL;
        return 0;
    }
    if (mr_pose_shot_write(info->poses, frame, pose_path, &err) != MR_OK) {
        s->status = MR_SHOT_FAIL;
        msgf(s->msg, sizeof s->msg, "%s", err.msg);
        return 0;
    }
    char ex[1500], df[1500];
    snprintf(ex, sizeof ex, "%s/expected.png", dir);
    snprintf(df, sizeof df, "%s/diff.png", dir);
    unlink(ex);
    unlink(df);
    if (c->update) {
        mr_file_mkdirs(c->golden_dir, NULL);
        s->status = MR_SHOT_UPDATED;
        if (write_png(golden, rgba, w, h, s->msg, sizeof s->msg)) s->status = MR_SHOT_FAIL;
        else if (mr_pose_shot_write(info->poses, frame, golden_pose, &err) != MR_OK) {
            s->status = MR_SHOT_FAIL;
            msgf(s->msg, sizeof s->msg, "%s", err.msg);
        }
        if (s->status == MR_SHOT_UPDATED) msgf(s->msg, sizeof s->msg, "wrote %s and %s", golden, golden_pose);
        return 0;
    }
    char img_part[700], pose_part[700];
    int img = compare_image(c, s, golden, dir, rgba, w, h, info, img_part, sizeof img_part);
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
    return 0;
}

int mr_check_scene(mr_scene_runner *runner, const char *script, const char *scene_dir, int update,
                   mr_scene_result *res)
{
    shot_ctx c = {.update = update, .res = res, .scene_dir = scene_dir};
    snprintf(c.golden_dir, sizeof c.golden_dir, "%.*s.golden", (int)(strlen(script) - 4), script);
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
    free(c.diff);
    free(c.mask);
    return rc;
}
