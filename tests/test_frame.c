/* test_frame.c — what keeps an idle window cheap, without timing anything:
 * mr_lua_draw_skip_unchanged (a frame equal to the last is not rendered, and
 * everything the picture depends on makes it render again), hidden frames
 * (update only; recorded drawing and screenshots dropped), and the stop
 * request (SIGTERM sets a flag, the process lives on, waits return), and a
 * frame's wait woken by a descriptor (what a save does to it). Runs on
 * a headless EGL context with a real renderer. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "anim_fixture.h"
#include "lua/frame.h"
#include "platform/clock.h"
#include "platform/pacer.h"
#include "core/file.h"
#include "gfx/renderer.h"
#include "lua/draw.h"
#include "lua/script.h"
#include "platform/stop.h"
#include "platform/window.h"
#include "test.h"

static char dir[64];
static mr_renderer *rend;

static const char *path_of(const char *name)
{
    static char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

/* A windowed-style context (skip on) running src, with the renderer. The
 * script reads the global `yaw` and `say` set by keypressed(). */
static mr_lua_ctx *make_ctx(const char *src)
{
    FILE *f = fopen(path_of("s.lua"), "w");
    fputs(src, f);
    fclose(f);
    mr_lua_desc d = {.script = path_of("s.lua"), .quiet = 1, .budget = 5, .out_dir = dir,
                     .width = 160, .height = 120};
    mr_lua_ctx *ctx = NULL;
    mr_lua_ctx_create(&d, &ctx);
    mr_model *m = NULL;
    mr_model_create("test:chain", "test", &m);
    fixture_chain(&m->skeleton);
    mr_lua_cache_add(ctx, "test:chain", m);
    mr_lua_draw_attach(ctx, rend);
    mr_lua_draw_skip_unchanged(ctx, 1);
    CHECK(mr_lua_start(ctx, NULL) == MR_OK);
    return ctx;
}

/* mr_lua_frame_window then end of frame: 1 when the frame was rendered. */
static int frame(mr_lua_ctx *ctx)
{
    int rendered = mr_lua_frame_window(ctx, 1.0 / 60);
    mr_lua_end_frame(ctx);
    return rendered;
}

static const char scene[] =
    "local m = require 'marrow'\n"
    "yaw = 30\n"
    "function keypressed(k)\n"
    "  if k == 'left' then yaw = yaw + 10 end\n"
    "  if k == 'p' then print('hello') end\n"
    "  if k == 's' then m.screenshot('shot.png') end\n"
    "  if k == 'c' then m.console(false) end\n"
    "  if k == 'e' then error('boom') end\n"
    "end\n"
    "function draw()\n"
    "  m.camera{target = {0, 1, 0}, distance = 4, yaw = yaw, pitch = 10}\n"
    "  m.line({0, 0, 0}, {1, 1, 1}, {1, 0, 0, 1})\n"
    "  m.text(4, 4, 'still')\n"
    "end\n";

TEST(skip_unchanged_renders_a_still_scene_once)
{
    mr_lua_ctx *ctx = make_ctx(scene);
    CHECK(frame(ctx) == 1);
    for (int i = 0; i < 5; i++) CHECK_MSG(frame(ctx) == 0, "frame %d after the first was rendered again", i);
    mr_lua_ctx_destroy(ctx);
}

TEST(skip_unchanged_renders_again_when_anything_shown_changes)
{
    mr_lua_ctx *ctx = make_ctx(scene);
    CHECK(frame(ctx) == 1);
    CHECK(frame(ctx) == 0);
    mr_lua_keypressed(ctx, "left", NULL);    /* the camera moves */
    CHECK(frame(ctx) == 1);
    CHECK(frame(ctx) == 0);
    mr_lua_keypressed(ctx, "p", NULL);       /* a console line appears */
    CHECK(frame(ctx) == 1);
    CHECK(frame(ctx) == 0);
    mr_lua_keypressed(ctx, "c", NULL);       /* the console is hidden */
    CHECK(frame(ctx) == 1);
    CHECK(frame(ctx) == 0);
    mr_lua_keypressed(ctx, "e", NULL);       /* an error is shown */
    CHECK(mr_lua_error(ctx) != NULL);
    CHECK(frame(ctx) == 1);
    CHECK(frame(ctx) == 0);
    mr_lua_set_error(ctx, NULL);       /* ... and cleared */
    CHECK(frame(ctx) == 1);
    mr_lua_draw_invalidate(ctx);        /* the host asks (shader reload, resize) */
    CHECK(frame(ctx) == 1);
    CHECK(frame(ctx) == 0);
    mr_error err = {0};
    CHECK(mr_renderer_resize(rend, 200, 100, &err) == MR_OK);  /* the frame size */
    CHECK(frame(ctx) == 1);
    CHECK(frame(ctx) == 0);
    CHECK(mr_renderer_resize(rend, 160, 120, &err) == MR_OK);
    mr_lua_ctx_destroy(ctx);
}

TEST(skip_unchanged_console_line_fading_out_renders_again)
{
    mr_lua_ctx *ctx = make_ctx(scene);
    mr_lua_keypressed(ctx, "p", NULL);
    CHECK(frame(ctx) == 1);
    CHECK(frame(ctx) == 0);
    /* Console lines show for 10 s of script time. */
    mr_lua_frame_window(ctx, 11.0);
    mr_lua_end_frame(ctx);
    int rendered = 0;
    for (int i = 0; i < 3; i++) rendered += frame(ctx);
    CHECK(rendered == 1);
    mr_lua_ctx_destroy(ctx);
}

TEST(skip_unchanged_never_skips_a_screenshot)
{
    mr_lua_ctx *ctx = make_ctx(scene);
    CHECK(frame(ctx) == 1);
    CHECK(frame(ctx) == 0);
    mr_lua_keypressed(ctx, "s", NULL);
    /* screenshots are asked for in keypressed, kept until the frame is done */
    CHECK(frame(ctx) == 1);
    CHECK(mr_file_exists(path_of("shot.png")));
    CHECK(frame(ctx) == 0);
    mr_lua_ctx_destroy(ctx);
}

TEST(skip_unchanged_off_renders_every_frame)
{
    mr_lua_ctx *ctx = make_ctx(scene);
    mr_lua_draw_skip_unchanged(ctx, 0);
    for (int i = 0; i < 3; i++) {
        int skipped = 1;
        CHECK(mr_lua_draw_render(ctx, &skipped, NULL) == MR_OK);
        CHECK(skipped == 0);
    }
    CHECK(mr_lua_frame_run(ctx, 1.0 / 60, 1, NULL) == MR_OK);
    mr_lua_ctx_destroy(ctx);
}

TEST(hidden_frame_updates_and_drops_what_was_recorded)
{
    mr_lua_ctx *ctx = make_ctx("local m = require 'marrow'\n"
                               "updates, draws = 0, 0\n"
                               "function update(dt)\n"
                               "  updates = updates + 1\n"
                               "  m.draw(m.model('test:chain'))\n"
                               "  m.screenshot('hidden.png')\n"
                               "end\n"
                               "function draw() draws = draws + 1 end\n"
                               "function keypressed() print(updates .. ' ' .. draws) end\n");
    for (int i = 0; i < 3; i++) {
        CHECK(mr_lua_frame_hidden(ctx, 0.05, NULL) == MR_OK);
        mr_lua_end_frame(ctx);
    }
    CHECK(mr_lua_draw_recorded(ctx) == 0);
    CHECK(mr_lua_update(ctx, 0, NULL) == MR_OK);  /* a recording is there until something drops it */
    CHECK(mr_lua_draw_recorded(ctx) == 1);
    mr_lua_draw_drop(ctx);
    mr_lua_keypressed(ctx, "x", NULL);
    const char *last = NULL;
    for (int i = 0; mr_lua_console_line(ctx, i); i++) last = mr_lua_console_line(ctx, i);
    CHECK_STR_CONTAINS(last, "4 0");
    CHECK_NEAR(mr_lua_time(ctx), 0.15, 1e-9);
    CHECK(!mr_file_exists(path_of("hidden.png")));
    mr_lua_ctx_destroy(ctx);
}

/* A frame's wait wakes when its descriptor is readable and keeps the frame's
 * deadline (a 2 s frame: a wait that did not wake would return 0, late). */
TEST(pacer_wait_wakes_on_a_readable_descriptor_and_keeps_the_deadline)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    mr_pacer p;
    mr_pacer_init(&p, 0.5);
    CHECK(write(fds[1], "x", 1) == 1);
    CHECK(mr_pacer_wait_fd(&p, 1, fds[0]) == 1);
    double deadline = p.next;
    CHECK(deadline > mr_clock_now() + 1.0);   /* the 2 s frame is still ahead */
    CHECK(mr_pacer_wait_fd(&p, 1, fds[0]) == 1);
    CHECK(p.next == deadline);                /* woken again: the same deadline */
    char c;
    CHECK(read(fds[0], &c, 1) == 1);
    /* Nothing to read, a 1 ms frame: the deadline comes, the next is set. */
    mr_pacer_init(&p, 1000);
    CHECK(mr_pacer_wait_fd(&p, 1, fds[0]) == 0);
    CHECK(p.waiting == 0);
    CHECK(mr_pacer_wait_fd(&p, 1, -1) == 0);  /* no descriptor: mr_pacer_wait */
    close(fds[0]);
    close(fds[1]);
}

TEST(stop_request_sets_a_flag_and_waits_return)
{
    mr_stop_install();
    CHECK(mr_stop_requested() == 0);
    raise(SIGTERM);
    CHECK(mr_stop_requested() == SIGTERM);
    CHECK(mr_stop_exit_code(SIGTERM) == 143);
    CHECK(mr_stop_exit_code(SIGINT) == 130);
    /* With a stop requested, a wait returns at once instead of in an hour. */
    mr_clock_sleep_until(mr_clock_now() + 3600);
    mr_pacer p;
    mr_pacer_init(&p, 0.001);
    mr_pacer_wait(&p, 1);
    CHECK(mr_stop_requested() == SIGTERM);
    signal(SIGTERM, SIG_DFL);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/marrow-frame-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    mr_error err = {0};
    mr_window *win = NULL;
    mr_window_create(&(mr_window_desc){.width = 160, .height = 120, .headless = 1}, &win, &err);
    if (!win || mr_renderer_create(&(mr_renderer_desc){.width = 160, .height = 120}, &rend, &err) != MR_OK) {
        printf("  FAIL no GL context or renderer: %s\n", err.msg);
        printf("frame: 0 passed, 1 failed\n");
        return 1;
    }
    RUN(skip_unchanged_renders_a_still_scene_once);
    RUN(skip_unchanged_renders_again_when_anything_shown_changes);
    RUN(skip_unchanged_console_line_fading_out_renders_again);
    RUN(skip_unchanged_never_skips_a_screenshot);
    RUN(skip_unchanged_off_renders_every_frame);
    RUN(hidden_frame_updates_and_drops_what_was_recorded);
    RUN(pacer_wait_wakes_on_a_readable_descriptor_and_keeps_the_deadline);
    RUN(stop_request_sets_a_flag_and_waits_return);
    mr_renderer_destroy(rend);
    mr_window_destroy(win);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return test_summary("frame");
}
