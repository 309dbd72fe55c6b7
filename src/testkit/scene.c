/* scene.c — regression scenes, headless, frame by frame, with the pixels
 * of each shot passed to a callback; a runner keeps the GL context and the
 * renderer from one scene to the next (see scene.h). */
#include "testkit/scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "gfx/renderer.h"
#include "lua/draw.h"
#include "lua/frame.h"
#include "platform/window.h"

struct mr_scene_runner {
    mr_window *win;
    mr_renderer *r;
    char *message;           /* the last failed run's whole message, or NULL */
};

mr_status mr_scene_runner_create(mr_scene_runner **out, mr_error *err)
{
    *out = NULL;
    mr_scene_runner *run = calloc(1, sizeof *run);
    if (!run) return mr_error_set(err, MR_ERR_NO_MEMORY, "scene runner: out of memory");
    mr_error e = {0};
    mr_window_create(&(mr_window_desc){.width = 320, .height = 240, .headless = 1}, &run->win, &e);
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
    free(run->message);
    free(run);
}

const char *mr_scene_runner_message(const mr_scene_runner *run) { return run->message ? run->message : ""; }

/* Ends a run with status st: the whole text is kept for
 * mr_scene_runner_message, err gets what fits. */
static mr_status fail(mr_scene_runner *run, mr_error *err, mr_status st, const char *text)
{
    free(run->message);
    run->message = mr_str_dup(text);
    return mr_error_set(err, st, "%s", text);
}

/* A failure of the script: the context's error (message and traceback). */
static mr_status fail_script(mr_scene_runner *run, mr_error *err, mr_status st, mr_lua_ctx *ctx,
                             const char *fallback)
{
    const char *e = mr_lua_error(ctx);
    return fail(run, err, st, e ? e : fallback);
}

typedef struct pose_watch {
    mr_pose_shot poses;
    mr_error err;            /* the first failure to record one */
} pose_watch;

static void watch_pose(void *ud, const mr_model *model, const mat4 *joints, const float *morph, int morph_count)
{
    pose_watch *w = ud;
    if (w->err.status == MR_OK) mr_pose_shot_add_morph(&w->poses, model, joints, morph, morph_count, &w->err);
}

mr_status mr_scene_runner_run(mr_scene_runner *run, const char *script, const char *out_dir,
                              mr_scene_decl *decl, mr_shot_fn fn, void *ud, mr_error *err)
{
    memset(decl, 0, sizeof *decl);
    free(run->message);
    run->message = NULL;
    mr_status rc;
    mr_error e = {0};
    char line[4608];         /* a message with a path in it, before it is kept whole */
    uint8_t *pixels = NULL;
    pose_watch watch = {0};
    mr_lua_desc ld = {.script = script, .headless = 1, .out_dir = out_dir, .width = 320,
                      .height = 240};
    mr_lua_ctx *ctx = NULL;
    if ((rc = mr_lua_ctx_create(&ld, &ctx)) != MR_OK) {
        rc = fail(run, err, rc, "out of memory");
        goto done;
    }
    if ((rc = mr_lua_start(ctx, NULL)) != MR_OK) {
        rc = fail_script(run, err, rc, ctx, "the script failed to load");
        goto done;
    }
    mr_scene_decl d;
    if ((rc = mr_lua_scene_read(ctx, &d, &e)) != MR_OK) {
        rc = fail(run, err, rc, e.msg);
        goto done;
    }
    *decl = d;
    mr_lua_set_size(ctx, d.width, d.height);
    if ((rc = mr_renderer_resize(run->r, d.width, d.height, &e)) != MR_OK) {
        snprintf(line, sizeof line, "renderer: %s", e.msg);
        rc = fail(run, err, rc, line);
        goto done;
    }
    mr_lua_draw_attach(ctx, run->r);
    size_t size = (size_t)d.width * d.height * 4;
    pixels = malloc(size);
    if (!pixels) {
        snprintf(line, sizeof line, "out of memory for a %dx%d frame", d.width, d.height);
        rc = fail(run, err, MR_ERR_NO_MEMORY, line);
        goto done;
    }
    double dt = 1.0 / d.fps;
    int shot = 0;
    for (int frame = 0; frame < d.frames && shot < d.shot_count; frame++) {
        int is_shot = frame == d.shots[shot];
        mr_pose_shot_clear(&watch.poses);
        if (is_shot) mr_lua_draw_watch_poses(ctx, watch_pose, &watch);
        rc = mr_lua_frame_step(ctx, dt, is_shot, NULL);
        mr_lua_draw_watch_poses(ctx, NULL, NULL);
        if (rc != MR_OK) {
            rc = fail_script(run, err, rc, ctx, "script error");
            goto done;
        }
        if (watch.err.status != MR_OK) {
            snprintf(line, sizeof line, "frame %d: recording the poses drawn: %s", frame, watch.err.msg);
            rc = fail(run, err, watch.err.status, line);
            goto done;
        }
        if (is_shot) {
            mr_scene_shot_info info = {.poses = &watch.poses};
            info.text_box_count = mr_lua_draw_text_boxes(ctx, &info.text_boxes);
            if ((rc = mr_renderer_read_pixels(run->r, pixels, size)) != MR_OK) {
                snprintf(line, sizeof line, "frame %d: cannot read the pixels back", frame);
                rc = fail(run, err, rc, line);
                goto done;
            }
            if (fn && fn(ud, shot, frame, pixels, d.width, d.height, &info) != 0) {
                snprintf(line, sizeof line, "stopped at frame %d", frame);
                rc = fail(run, err, MR_ERR_LIMIT, line);
                goto done;
            }
            shot++;
        }
        mr_lua_end_frame(ctx);
        int code;
        if (mr_lua_quit_requested(ctx, &code) && shot < d.shot_count) {
            snprintf(line, sizeof line, "%s: the script quit at frame %d, before shot frame %d", script, frame,
                     d.shots[shot]);
            rc = fail(run, err, MR_ERR_SCRIPT, line);
            goto done;
        }
    }
    mr_lua_stop(ctx);
    rc = mr_lua_error(ctx) ? fail_script(run, err, MR_ERR_SCRIPT, ctx, "unload() failed") : MR_OK;

done:
    mr_pose_shot_deinit(&watch.poses);
    free(pixels);
    mr_lua_ctx_destroy(ctx);   /* releases the scene's models while the context is current */
    return rc;
}

mr_status mr_scene_run(const char *script, const char *out_dir, mr_scene_decl *decl, mr_shot_fn fn, void *ud,
                       mr_error *err)
{
    memset(decl, 0, sizeof *decl);
    mr_scene_runner *run;
    mr_status st = mr_scene_runner_create(&run, err);
    if (st != MR_OK) return st;
    st = mr_scene_runner_run(run, script, out_dir, decl, fn, ud, err);
    mr_scene_runner_destroy(run);
    return st;
}
