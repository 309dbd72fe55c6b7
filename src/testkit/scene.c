/* scene.c — regression scenes, headless, frame by frame, with the pixels
 * of each shot passed to a callback; a runner keeps the GL context and the
 * renderer from one scene to the next (see scene.h). */
#include "testkit/scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gfx/renderer.h"
#include "lua/draw.h"
#include "lua/frame.h"
#include "platform/window.h"

struct mr_scene_runner {
    mr_window *win;
    mr_renderer *r;
};

mr_status mr_scene_runner_create(mr_scene_runner **out, mr_error *err)
{
    *out = NULL;
    mr_scene_runner *run = calloc(1, sizeof *run);
    if (!run) return mr_error_set(err, MR_ERR_NO_MEMORY, "scene runner: out of memory");
    mr_error e = {0};
    run->win = mr_window_open(&(mr_window_desc){.width = 320, .height = 240, .headless = 1}, &e);
    if (!run->win) {
        free(run);
        return mr_error_set(err, e.status ? e.status : MR_ERR_IO, "no headless OpenGL context: %s", e.msg);
    }
    mr_status st = mr_renderer_create(&(mr_renderer_desc){.width = 320, .height = 240, .quiet = 1}, &run->r, &e);
    if (st != MR_OK) {
        mr_window_destroy(run->win);
        free(run);
        return mr_error_set(err, st, "renderer: %s", e.msg);
    }
    *out = run;
    return MR_OK;
}

void mr_scene_runner_destroy(mr_scene_runner *run)
{
    if (!run) return;
    mr_renderer_destroy(run->r);
    mr_window_destroy(run->win);
    free(run);
}

static void copy_error(mr_lua_ctx *ctx, char *err, size_t n, const char *fallback)
{
    const char *e = mr_lua_error(ctx);
    snprintf(err, n, "%s", e ? e : fallback);
}

typedef struct pose_watch {
    mr_pose_shot poses;
    mr_error err;            /* the first failure to record one */
} pose_watch;

static void watch_pose(void *ud, const mr_model *model, const mat4 *joints)
{
    pose_watch *w = ud;
    if (w->err.status == MR_OK) mr_pose_shot_add(&w->poses, model, joints, &w->err);
}

int mr_scene_runner_run(mr_scene_runner *run, const char *script, const char *out_dir, mr_scene_decl *decl,
                        mr_shot_fn fn, void *ud, char *err, size_t err_size)
{
    memset(decl, 0, sizeof *decl);
    int rc = -1;
    mr_error e = {0};
    uint8_t *pixels = NULL;
    pose_watch watch = {0};
    mr_lua_desc ld = {.script = script, .headless = 1, .out_dir = out_dir, .width = 320,
                      .height = 240};
    mr_lua_ctx *ctx = mr_lua_ctx_create(&ld);
    if (!ctx) {
        snprintf(err, err_size, "out of memory");
        goto done;
    }
    if (mr_lua_start(ctx) != 0) {
        copy_error(ctx, err, err_size, "the script failed to load");
        goto done;
    }
    mr_scene_decl d;
    if (mr_lua_scene_read(ctx, &d, err, err_size) != 0) goto done;
    *decl = d;
    mr_lua_set_size(ctx, d.width, d.height);
    if (mr_renderer_resize(run->r, d.width, d.height, &e) != MR_OK) {
        snprintf(err, err_size, "renderer: %s", e.msg);
        goto done;
    }
    mr_lua_draw_attach(ctx, run->r);
    size_t size = (size_t)d.width * d.height * 4;
    pixels = malloc(size);
    if (!pixels) {
        snprintf(err, err_size, "out of memory for a %dx%d frame", d.width, d.height);
        goto done;
    }
    double dt = 1.0 / d.fps;
    int shot = 0;
    for (int frame = 0; frame < d.frames && shot < d.shot_count; frame++) {
        int is_shot = frame == d.shots[shot];
        mr_pose_shot_clear(&watch.poses);
        if (is_shot) mr_lua_draw_watch_poses(ctx, watch_pose, &watch);
        int failed = mr_lua_frame_step(ctx, dt, is_shot) != 0;
        mr_lua_draw_watch_poses(ctx, NULL, NULL);
        if (failed) {
            copy_error(ctx, err, err_size, "script error");
            goto done;
        }
        if (watch.err.status != MR_OK) {
            snprintf(err, err_size, "frame %d: recording the poses drawn: %s", frame, watch.err.msg);
            goto done;
        }
        if (is_shot) {
            mr_scene_shot_info info = {.poses = &watch.poses};
            info.text_box_count = mr_lua_draw_text_boxes(ctx, &info.text_boxes);
            if (mr_renderer_read_pixels(run->r, pixels, size) != MR_OK) {
                snprintf(err, err_size, "frame %d: cannot read the pixels back", frame);
                goto done;
            }
            if (fn && fn(ud, shot, frame, pixels, d.width, d.height, &info) != 0) {
                snprintf(err, err_size, "stopped at frame %d", frame);
                goto done;
            }
            shot++;
        }
        mr_lua_end_frame(ctx);
        int code;
        if (mr_lua_quit_requested(ctx, &code) && shot < d.shot_count) {
            snprintf(err, err_size, "%s: the script quit at frame %d, before shot frame %d", script, frame,
                     d.shots[shot]);
            goto done;
        }
    }
    mr_lua_stop(ctx);
    if (mr_lua_error(ctx)) {
        copy_error(ctx, err, err_size, "unload() failed");
        goto done;
    }
    rc = 0;

done:
    mr_pose_shot_deinit(&watch.poses);
    free(pixels);
    mr_lua_ctx_destroy(ctx);   /* releases the scene's models while the context is current */
    return rc;
}

int mr_scene_run(const char *script, const char *out_dir, mr_scene_decl *decl, mr_shot_fn fn, void *ud,
                 char *err, size_t err_size)
{
    memset(decl, 0, sizeof *decl);
    mr_scene_runner *run;
    mr_error e = {0};
    if (mr_scene_runner_create(&run, &e) != MR_OK) {
        snprintf(err, err_size, "%s", e.msg);
        return -1;
    }
    int rc = mr_scene_runner_run(run, script, out_dir, decl, fn, ud, err, err_size);
    mr_scene_runner_destroy(run);
    return rc;
}
