/* cmd_run.c — `marrow run`: runs a Lua script, in a window with live reload
 * of the script, its modules and the shaders, or headless and deterministic.
 *
 * The frame: input callbacks (window), reloads the watcher asks for,
 * update(dt), draw(), render + screenshots, present. Script errors never end
 * a windowed run (the last good script keeps running and the error is drawn
 * over the scene); headless, the first script error ends the run with exit
 * code 4. See src/lua/script.h for the lifecycle.
 *
 * A window's loop is paced (platform/pacer.h): at most --fps-cap frames a second,
 * sleeping between frames, and only update() at a low rate while the window
 * is hidden or minimised. The sleep wakes when the watcher's descriptor has
 * news, so a save is reloaded (its load() run) as soon as it is complete,
 * not at the next frame; the frame itself keeps its deadline.
 * SIGINT/SIGTERM end any run like closing the window (platform/stop.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/defaults.h"
#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/run_record.h"
#include "cli/stats.h"
#include "core/file.h"
#include "gfx/renderer.h"
#include "lua/draw.h"
#include "lua/frame.h"
#include "lua/script.h"
#include "platform/clock.h"
#include "platform/keys.h"
#include "platform/pacer.h"
#include "platform/stop.h"
#include "platform/watch.h"
#include "platform/window.h"

#define MAX_DT 0.1                     /* a windowed frame never steps more than this */
#define MAX_WAKES 8                    /* watcher wakes of one frame's sleep before it sleeps deaf */

enum { TAG_SCRIPT = 1, TAG_SHADERS = 2 };

static const char run_help[] =
    "usage: marrow run [--headless] SCRIPT.lua [options] [--] [ARGS...]\n"
    "\n"
    "Runs SCRIPT.lua, calling load(), update(dt), draw(), keypressed(key),\n"
    "mousemoved(x, y, dx, dy), resize(w, h) and unload() when it defines them.\n"
    "ARGS reach the script as the global table `arg`: arg[0] is the script's\n"
    "path, arg[1..] the words after the script that are not options, then\n"
    "everything after --. Options may come before or after the script; before\n"
    "--, a word starting with '-' must be one of the options below (a typo is\n"
    "a usage error), so script arguments that start with '-' go after --:\n"
    "  marrow run --headless walk.lua --frames 90 -- --speed 2 fast\n"
    "A headless run writes only the images the script asks for with\n"
    "marrow.screenshot(path) in draw(), and renders only the frames that ask\n"
    "(update and draw run every frame); a run that wrote none says so on stderr.\n"
    "\n"
    "In a window, saving the script, a module it required or a shader reloads\n"
    "it at once; errors are shown over the scene and the last good script\n"
    "keeps running. The window draws at most --fps-cap frames a second (it\n"
    "sleeps in between; vsync, where it works, also limits it). While the\n"
    "window is minimised or hidden nothing is drawn: update(dt) keeps running\n"
    "at 20 Hz with the real elapsed time (so animations are where the clock\n"
    "says when the window comes back), and saved files still reload.\n"
    "F12 writes the window's picture to marrow-NNNN.png in the current\n"
    "directory (the script also gets keypressed(\"f12\")).\n"
    "Headless (--headless, or no display) runs deterministically:\n"
    "fixed dt = 1/FPS, no wall clock, math.random seeded, and screenshot paths\n"
    "relative to --out; the first script error ends the run with exit code 4.\n"
    "\n"
    "options:\n"
    "  --headless      no window, even when a display is available\n"
    "  --frames N      headless: frames to run (default 60); 0 = until marrow.quit()\n"
    "  --fps F         headless: frames per second of simulated time (default\n"
    "                  " MR_DEFAULT_FPS_TEXT ", as marrow view, marrow test and recordings)\n"
    "  --fps-cap N     window: at most N frames per second (default 60); 0 = no cap\n"
    "  --size WxH      frame size in pixels (default " MR_DEFAULT_SIZE_TEXT ")\n"
    "  --aa MODE       anti-aliasing: fxaa (default: a post-process pass, cheap\n"
    "                  on llvmpipe), msaa (4x multisampling: the slower, exact\n"
    "                  edges), msaaN (N samples) or none\n"
    "  --out DIR       where relative screenshot paths go (default: .)\n"
    "  --record OUT    save what the script drew: every drawn model's pose each\n"
    "                  frame (draw transform = root motion), keys reduced within\n"
    "                  0.01 %% of the model size (measured), ONE FILE PER DRAWN\n"
    "                  MODEL (the k-th draw of a model in a frame is its own\n"
    "                  recording): OUT for the first, STEM-2.EXT, STEM-3.EXT...\n"
    "                  beside it; the format by OUT's extension (.glb .gltf .dae\n"
    "                  .md5mesh .md5anim .bvh), one clip named after the script\n"
    "  --budget S      seconds a callback may run before it is stopped (default 1)\n"
    "  --memory MIB    memory a script may use (default 1024)\n"
    "  --console       headless: draw the console of printed lines into the\n"
    "                  pictures (default: only in a window; print() always\n"
    "                  writes to stdout)\n"
    "  --trust         the script is your own: give it Lua's whole standard\n"
    "                  library (os.execute, io anywhere, debug, C modules).\n"
    "                  Without it a script runs in the sandbox: no processes,\n"
    "                  no native code or bytecode, io reads beside the script,\n"
    "                  the current folder, --out and loaded models, io writes\n"
    "                  under --out (beside the script in a window); see\n"
    "                  docs/API.md \"The sandbox\"\n"
    "SIGINT (Ctrl-C) or SIGTERM ends a run like closing the window: unload()\n"
    "runs and files are flushed; a script stuck in a call is stopped, and a\n"
    "run still going 1 s after the signal ends at once.\n"
    "Exit codes: 0 ok (or the code given to marrow.quit), 2 usage, 4 script error,\n"
    "130 stopped by SIGINT, 143 stopped by SIGTERM.\n";

typedef struct run_opts {
    const char *script;
    int headless, frames, width, height;
    int samples, no_fxaa;              /* --aa */
    float fps, fps_cap, budget;
    int memory_mib;
    int console;
    int trust;                         /* --trust */
    const char *out;
    const char *record;                /* --record OUT */
    int argc;                          /* script arguments */
    char **argv;
} run_opts;

static const char *const run_options[] = {"--headless", "--frames", "--fps", "--fps-cap", "--size", "--aa", "--out", "--record",
                                          "--budget", "--memory", "--console", "--trust", "--help", NULL};

/* Edit distance of a and b (short strings), capped at 9. */
static int distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 30 || lb > 30) return 9;
    int d[32][32];
    for (size_t i = 0; i <= la; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            d[i][j] = best;
        }
    return d[la][lb] > 9 ? 9 : d[la][lb];
}

/* The known option closest to a typo (within 2 edits), or NULL. */
static const char *closest_option(const char *a)
{
    const char *best = NULL;
    int best_d = 3;
    for (int i = 0; run_options[i]; i++) {
        int d = distance(a, run_options[i]);
        if (d < best_d) {
            best_d = d;
            best = run_options[i];
        }
    }
    return best;
}

static int parse(int argc, char **argv, run_opts *o)
{
    *o = (run_opts){.frames = 60, .fps = MR_DEFAULT_FPS, .fps_cap = (float)MR_PACER_DEFAULT_CAP,
                    .width = MR_DEFAULT_WIDTH, .height = MR_DEFAULT_HEIGHT, .budget = 1.0f, .memory_mib = 1024};
    o->argv = calloc((size_t)argc + 1, sizeof *o->argv);
    if (!o->argv) return mr_cli_usage_error("run", "out of memory");
    int rest = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (rest) {
            o->argv[o->argc++] = argv[i];
            continue;
        }
        if (!strcmp(a, "--")) {
            rest = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(run_help, stdout);
            return -1;
        } else if (!strcmp(a, "--headless")) {
            o->headless = 1;
        } else if (!strcmp(a, "--trust")) {
            o->trust = 1;
        } else if (!strcmp(a, "--console")) {
            o->console = 1;
        } else if (!strcmp(a, "--frames")) {
            if (mr_cli_int(v, &o->frames)) return mr_cli_usage_error("run", "--frames needs a count >= 0");
            i++;
        } else if (!strcmp(a, "--fps")) {
            if (mr_cli_float(v, &o->fps) || !(o->fps > 0 && o->fps <= 10000))
                return mr_cli_usage_error("run", "--fps needs a number in (0, 10000]");
            i++;
        } else if (!strcmp(a, "--fps-cap")) {
            if (mr_cli_float(v, &o->fps_cap) || !(o->fps_cap >= 0 && o->fps_cap <= 10000))
                return mr_cli_usage_error("run", "--fps-cap needs a number in [0, 10000] (0 = no cap)");
            i++;
        } else if (!strcmp(a, "--size")) {
            if (mr_cli_size(v, &o->width, &o->height))
                return mr_cli_usage_error("run", "--size needs WxH, e.g. 640x480");
            i++;
        } else if (!strcmp(a, "--aa")) {
            if (mr_cli_aa(v, &o->samples, &o->no_fxaa))
                return mr_cli_usage_error("run", "--aa needs fxaa, msaa, msaaN or none");
            i++;
        } else if (!strcmp(a, "--out")) {
            if (!v) return mr_cli_usage_error("run", "--out needs a directory");
            o->out = v;
            i++;
        } else if (!strcmp(a, "--record")) {
            if (!v) return mr_cli_usage_error("run", "--record needs an output file (.glb .gltf .dae .md5mesh .md5anim .bvh)");
            o->record = v;
            i++;
        } else if (!strcmp(a, "--budget")) {
            if (mr_cli_float(v, &o->budget) || !(o->budget > 0 && o->budget <= 3600))
                return mr_cli_usage_error("run", "--budget needs seconds in (0, 3600]");
            i++;
        } else if (!strcmp(a, "--memory")) {
            if (mr_cli_int(v, &o->memory_mib) || o->memory_mib < 1 || o->memory_mib > 65536)
                return mr_cli_usage_error("run", "--memory needs MiB in 1..65536");
            i++;
        } else if (a[0] == '-' && (a[1] == '-' || (a[1] >= 'a' && a[1] <= 'z') || (a[1] >= 'A' && a[1] <= 'Z'))) {
            /* Before `--`, anything that looks like an option is one: a typo
             * (--frame 5) must not reach the script while the run silently
             * does its default. */
            const char *near = closest_option(a);
            if (near)
                return mr_cli_usage_error("run", "unknown option '%s' (did you mean %s?); arguments for the "
                                          "script that start with '-' go after '--'", a, near);
            return mr_cli_usage_error("run", "unknown option '%s'; arguments for the script that start "
                                      "with '-' go after '--'", a);
        } else if (!o->script) {
            o->script = a;
        } else {
            o->argv[o->argc++] = argv[i];
        }
    }
    if (!o->script) return mr_cli_usage_error("run", "no script given");
    if (!mr_file_exists(o->script)) {
        fprintf(stderr, "marrow run: cannot open '%s'\n", o->script);
        return MR_EXIT_USAGE;
    }
    return 0;
}

/* Sets up what the watcher follows: the script's files and the shaders. */
static void watch_files(mr_watch *w, mr_lua_ctx *ctx)
{
    mr_watch_clear(w);
    const char *const *paths;
    int n = mr_lua_watched(ctx, &paths);
    for (int i = 0; i < n; i++) mr_watch_file(w, paths[i], TAG_SCRIPT);
    mr_watch_dir(w, mr_renderer_shader_dir(), TAG_SHADERS);
}

typedef struct runner {
    run_opts o;
    mr_window *win;
    mr_renderer *r;
    mr_lua_ctx *ctx;
    mr_watch *watch;
    int headless;
    int shader_error;                  /* the error shown is a shader log */
    double mouse_x, mouse_y;
    int have_mouse;
    int fb_w, fb_h;
    int present;                       /* the window needs the picture again */
    int screenshot;                    /* F12 was pressed: write the next frame shown */
} runner;

static void handle_input(runner *rn, int *close)
{
    mr_input in;
    mr_window_poll(rn->win, &in);
    if (in.close) *close = 1;
    if (in.refresh) rn->present = 1;
    if (in.pressed[MR_KEY_F12]) rn->screenshot = 1;
    char key[32];
    while (mr_keys_next(key)) mr_lua_keypressed(rn->ctx, key, NULL);
    double x, y;
    if (mr_keys_cursor(&x, &y)) {
        if (rn->have_mouse && (x != rn->mouse_x || y != rn->mouse_y))
            mr_lua_mousemoved(rn->ctx, x, y, x - rn->mouse_x, y - rn->mouse_y, NULL);
        rn->mouse_x = x;
        rn->mouse_y = y;
        rn->have_mouse = 1;
    }
    int w, h;
    mr_window_framebuffer_size(rn->win, &w, &h);
    if (w > 0 && h > 0 && (w != rn->fb_w || h != rn->fb_h)) {
        rn->fb_w = w;
        rn->fb_h = h;
        mr_error err = {0};
        if (rn->r && mr_renderer_resize(rn->r, w, h, &err) != MR_OK) fprintf(stderr, "%s\n", err.msg);
        mr_lua_resize(rn->ctx, w, h, NULL);
        mr_lua_draw_invalidate(rn->ctx);
    }
}

static void handle_changes(runner *rn)
{
    unsigned changed = mr_watch_poll(rn->watch);
    if (changed & (1u << TAG_SCRIPT)) {
        mr_lua_reload(rn->ctx, NULL);
        mr_lua_draw_invalidate(rn->ctx);
        rn->shader_error = 0;
        watch_files(rn->watch, rn->ctx);
    }
    if ((changed & (1u << TAG_SHADERS)) && rn->r) {
        mr_error err = {0};
        mr_lua_draw_invalidate(rn->ctx);
        if (mr_renderer_reload_shaders(rn->r, &err) != MR_OK) {
            char msg[1100];
            snprintf(msg, sizeof msg, "shaders: %s", err.msg);
            mr_lua_set_error(rn->ctx, msg);
            rn->shader_error = 1;
        } else {
            printf("reloaded shaders\n");
            fflush(stdout);
            if (rn->shader_error) mr_lua_set_error(rn->ctx, NULL);
            rn->shader_error = 0;
        }
    }
}

static int run_loop(runner *rn)
{
    int quit_code = 0;
    double dt = 1.0 / rn->o.fps, last = mr_clock_now();
    mr_pacer pacer;
    mr_pacer_init(&pacer, rn->o.fps_cap);
    for (int frame = 0;; frame++) {
        if (rn->headless && rn->o.frames > 0 && frame >= rn->o.frames) break;
        int sig = mr_stop_requested();
        if (sig) return mr_stop_exit_code(sig);
        int close = 0;
        if (!rn->headless) {
            handle_input(rn, &close);
            handle_changes(rn);
            double now = mr_clock_now();
            dt = now - last;
            last = now;
            if (dt > MAX_DT) dt = MAX_DT;
            if (dt < 0) dt = 0;
        }
        if (close) break;
        int visible = !rn->headless && mr_window_visible(rn->win);
        if (rn->headless) {
            /* Rendered only when the frame takes a screenshot: nothing
             * else of a headless frame's picture is ever seen. */
            if (mr_lua_frame_step(rn->ctx, dt, 0, NULL) != MR_OK)
                return mr_stop_requested() ? mr_stop_exit_code(mr_stop_requested()) : MR_EXIT_SCRIPT;
        } else if (visible) {
            if (mr_lua_frame_window(rn->ctx, dt)) rn->present = 1;
            if (rn->screenshot && rn->r) {
                /* F12: the frame just drawn (or the last one, unchanged), as in `view` */
                char name[64];
                mr_error err = {0};
                mr_cli_screenshot_name(name, sizeof name);
                if (mr_renderer_screenshot(rn->r, name, &err) == MR_OK) printf("marrow run: wrote %s\n", name);
                else fprintf(stderr, "marrow run: %s\n", err.msg);
                fflush(stdout);
            }
            rn->screenshot = 0;
            if (rn->present && rn->r) {
                mr_renderer_present(rn->r, rn->fb_w, rn->fb_h);
                mr_window_swap(rn->win);
            }
            rn->present = 0;
        } else {
            mr_lua_frame_hidden(rn->ctx, dt, NULL);
            rn->present = 1;               /* shown again: its contents are gone */
        }
        mr_stats_tick(rn->ctx, (uint64_t)frame, rn->r != NULL);
        mr_lua_end_frame(rn->ctx);
        if (mr_lua_quit_requested(rn->ctx, &quit_code)) break;
        if (!rn->headless) {
            /* A save wakes the wait (the watcher's descriptor) and reloads
             * now, not at the next frame: the frame's deadline is kept, and a
             * few wakes a frame at most (a writer busy in the script's
             * folder wakes it on every write). */
            int fd = rn->watch ? mr_watch_fd(rn->watch) : -1;
            for (int wakes = 0; mr_pacer_wait_fd(&pacer, visible, wakes < MAX_WAKES ? fd : -1); wakes++)
                handle_changes(rn);
        }
    }
    return quit_code < 0 || quit_code > 255 ? MR_EXIT_FAILED : quit_code;
}

int mr_cmd_run(int argc, char **argv)
{
    runner rn = {0};
    mr_run_record *recorder = NULL;
    int rc = parse(argc, argv, &rn.o);
    if (rc) {
        free(rn.o.argv);
        return rc < 0 ? MR_EXIT_OK : rc;  /* -1: --help was printed */
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    mr_stop_install();
    mr_lua_set_stop_source(mr_stop_requested);

    mr_error err = {0};
    mr_window_desc wd = {.width = rn.o.width, .height = rn.o.height, .title = rn.o.script,
                         .headless = rn.o.headless};
    mr_window_create(&wd, &rn.win, &err);
    if (!rn.win) {
        fprintf(stderr, "marrow run: no OpenGL context (%s); drawing is disabled\n", err.msg);
        rn.headless = 1;
    } else {
        rn.headless = mr_window_is_headless(rn.win);
        mr_window_framebuffer_size(rn.win, &rn.fb_w, &rn.fb_h);
        mr_renderer_desc rd = {.width = rn.headless ? rn.o.width : rn.fb_w,
                               .height = rn.headless ? rn.o.height : rn.fb_h,
                               .samples = rn.o.samples, .no_fxaa = rn.o.no_fxaa};
        if (mr_renderer_create(&rd, &rn.r, &err) != MR_OK) {
            fprintf(stderr, "marrow run: %s; drawing is disabled\n", err.msg);
            rn.r = NULL;
        }
        if (!rn.headless) mr_keys_attach();
    }
    int w = rn.o.width, h = rn.o.height;
    if (rn.r) mr_renderer_size(rn.r, &w, &h);
    mr_lua_desc ld = {.script = rn.o.script, .argc = rn.o.argc, .argv = rn.o.argv,
                      .headless = rn.headless, .memory_limit = (size_t)rn.o.memory_mib << 20,
                      .budget = rn.o.budget, .out_dir = rn.o.out, .width = w, .height = h,
                      .console = rn.o.console, .trust = rn.o.trust};
    mr_lua_ctx_create(&ld, &rn.ctx);
    if (!rn.ctx) {
        fprintf(stderr, "marrow run: out of memory\n");
        rc = MR_EXIT_FAILED;
        goto done;
    }
    mr_lua_draw_attach(rn.ctx, rn.r);
    if (!rn.headless) mr_lua_draw_skip_unchanged(rn.ctx, 1);
    if (rn.o.record && mr_run_record_create(rn.ctx, rn.o.record, rn.o.script, &recorder, &err) != MR_OK) {
        rc = mr_cli_usage_error("run", "%s", err.msg);
        goto done;
    }
    if (!rn.headless) {
        mr_watch_create(&rn.watch);
        if (!rn.watch) fprintf(stderr, "marrow run: cannot watch files; live reload is off\n");
    }
    if (rn.headless) {                 /* the clock a headless run keeps, said once on stderr:
                                        * stdout stays the script's own */
        if (rn.o.frames > 0)
            fprintf(stderr, "marrow run: headless, %d frame%s at %g fps (%.3g s of simulated time), %dx%d\n", rn.o.frames,
                   rn.o.frames == 1 ? "" : "s", (double)rn.o.fps, rn.o.frames / (double)rn.o.fps, w, h);
        else
            fprintf(stderr, "marrow run: headless, until marrow.quit() at %g fps, %dx%d\n", (double)rn.o.fps, w, h);
        fflush(stderr);
    }
    if (mr_lua_start(rn.ctx, NULL) != MR_OK && rn.headless) {
        rc = mr_stop_requested() ? mr_stop_exit_code(mr_stop_requested()) : MR_EXIT_SCRIPT;
        goto done;
    }
    if (rn.watch) watch_files(rn.watch, rn.ctx);
    rc = run_loop(&rn);
    if (recorder && mr_run_record_save(recorder) < 0 && rc == 0) rc = MR_EXIT_FAILED;
    mr_lua_stop(rn.ctx);
    if (rn.headless && rc == 0 && mr_lua_error(rn.ctx)) rc = MR_EXIT_SCRIPT;  /* unload() failed */
    if (rn.headless && rn.r && rc == 0 && mr_lua_draw_screenshots(rn.ctx) == 0)
        fprintf(stderr, "marrow run: warning: %s ran %llu frame(s) headless and wrote no image; a headless "
                        "run only writes what the script asks for: call marrow.screenshot(\"NAME.png\") "
                        "in draw() (relative paths go under --out)\n",
                rn.o.script, (unsigned long long)mr_lua_frame(rn.ctx));
    fflush(NULL);

done:
    mr_run_record_destroy(recorder);
    mr_lua_ctx_destroy(rn.ctx);
    mr_watch_destroy(rn.watch);
    if (rn.r) mr_renderer_destroy(rn.r);
    if (rn.win) mr_window_destroy(rn.win);
    free(rn.o.argv);
    return rc;
}
