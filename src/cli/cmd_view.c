/* cmd_view.c — `marrow view MODEL [ANIM...]`: the built-in viewer. In a
 * window it plays the clips with orbit/zoom/pause/step controls; headless
 * (or with --out) it writes one PNG or a numbered PNG sequence. The same
 * offscreen frame feeds the window and the files, so a window screenshot
 * equals a headless one.
 *
 * The window's loop is paced like `marrow run`'s (platform/pacer.h): at most
 * --fps-cap frames a second, nothing drawn while the window is hidden or
 * minimised, and no new frame while paused with no input. SIGINT/SIGTERM
 * end it like Esc (platform/stop.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/defaults.h"
#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/view.h"
#include "core/file.h"
#include "core/path.h"
#include "lua/script.h"
#include "platform/clock.h"
#include "platform/pacer.h"
#include "platform/stop.h"
#include "platform/window.h"

static const char view_help[] =
    "usage: marrow view MODEL [ANIM...] [options]\n"
    "\n"
    "Shows MODEL (.md5mesh with .md5anim clips, .dae, .gltf, .glb, .vrm, .fbx or .bvh)\n"
    "playing its clips, lit, on a floor with its shadow, framed whole from a\n"
    "front three-quarter view. A model without a mesh (BVH) is drawn as its\n"
    "skeleton. Without a display (DISPLAY and WAYLAND_DISPLAY unset), or with\n"
    "--headless, it renders offscreen (EGL) and writes PNG files instead.\n"
    "A VRM avatar's node constraints (VRMC_node_constraint) follow the clip.\n"
    "\n"
    "options:\n"
    "  --headless        never open a window\n"
    "  --out PATH        write the frame to PATH (.png); with --frames, PATH is a\n"
    "                    directory that gets frame_0000.png, frame_0001.png, ...\n"
    "                    (headless without --out: out/view.png)\n"
    "  --time T          clip time in seconds of the (first) frame [0]\n"
    "  --frames N        write N frames, 1/F s apart, starting at --time\n"
    "  --fps F           frame rate of a sequence [" MR_DEFAULT_FPS_TEXT "]\n"
    "  --size WxH        frame (and window) size in pixels [" MR_DEFAULT_SIZE_TEXT "]\n"
    "  --aa MODE         anti-aliasing: fxaa [default], msaa (4x), msaaN, none\n"
    "  --clip NAME       start with this clip [the first]\n"
    "  --skeleton        show the skeleton overlay; --names adds joint names\n"
    "  --wireframe       triangle edges only\n"
    "  --skinning MODE   linear or dq (dual quaternions: no collapse at twisted joints) for every mesh\n"
    "                    [each mesh's own: linear, or what its file asks for (FBX SkinningType)]\n"
    "  --no-hud          no text\n"
    "  --yaw D, --pitch D   camera angles in degrees [a front three-quarter view]\n"
    "  --zoom F          camera distance factor [1]; < 1 is closer\n"
    "  --follow          the camera travels with the character (its root joint),\n"
    "                    framed on the model's size instead of the clip's path\n"
    "  --quit-after N    end the window session after N frames (scripts, tests)\n"
    "  --fps-cap N       window: at most N frames per second [60]; 0 = no cap.\n"
    "                    Nothing is drawn while the window is minimised or\n"
    "                    hidden, or while paused and nothing changes\n"
    "\n"
    "window keys: drag = orbit, right-drag = pan, wheel = zoom, space = pause,\n"
    "left/right = step a frame, up/down = previous/next clip, S = skeleton,\n"
    "W = wireframe, F = frame the model, R = restart the clip,\n"
    "F12 = screenshot (marrow-NNNN.png), Esc = quit.\n"
    "\n"
    "Exit codes: 0 ok, 1 no GL context or shaders, 2 usage, 3 the model does not\n"
    "load or the clip is unknown, 130/143 stopped by SIGINT/SIGTERM.\n";

static const char key_help[] =
    "drag orbit | wheel zoom | space pause | left/right step | up/down clip | "
    "S skeleton | W wireframe | F frame | F12 screenshot";

typedef struct view_args {
    const char *model;
    const char **anims;
    int anim_count;
    const char *out, *clip;
    int headless, frames, width, height, skeleton, names, wireframe, no_hud, quit_after, follow;
    int skinning, fixed_skinning;
    float time, fps, fps_cap, zoom, yaw, pitch;
    int have_time, have_yaw, have_pitch;
    int samples, no_fxaa;              /* --aa */
} view_args;

static int parse_args(int argc, char **argv, view_args *a)
{
    memset(a, 0, sizeof *a);
    a->width = MR_DEFAULT_WIDTH;
    a->height = MR_DEFAULT_HEIGHT;
    a->fps = MR_DEFAULT_FPS;
    a->fps_cap = (float)MR_PACER_DEFAULT_CAP;
    a->zoom = 1.0f;
    a->anims = calloc((size_t)argc, sizeof *a->anims);
    if (!a->anims) return mr_cli_usage_error("view", "out of memory");
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VALUE() do { if (!val) return mr_cli_usage_error("view", "%s needs a value", s); i++; } while (0)
        if (!strcmp(s, "--headless")) a->headless = 1;
        else if (!strcmp(s, "--skeleton")) a->skeleton = 1;
        else if (!strcmp(s, "--names")) a->skeleton = a->names = 1;
        else if (!strcmp(s, "--wireframe")) a->wireframe = 1;
        else if (!strcmp(s, "--no-hud")) a->no_hud = 1;
        else if (!strcmp(s, "--follow")) a->follow = 1;
        else if (!strcmp(s, "--out")) { NEED_VALUE(); a->out = val; }
        else if (!strcmp(s, "--clip")) { NEED_VALUE(); a->clip = val; }
        else if (!strcmp(s, "--skinning")) {
            NEED_VALUE();
            a->fixed_skinning = 1;
            if (!strcmp(val, "linear")) a->skinning = MR_SKINNING_LINEAR;
            else if (!strcmp(val, "dq") || !strcmp(val, "dual_quaternion")) a->skinning = MR_SKINNING_DUAL_QUATERNION;
            else return mr_cli_usage_error("view", "--skinning expects linear or dq, got '%s'", val);
        }
        else if (!strcmp(s, "--time")) {
            NEED_VALUE();
            if (mr_cli_float(val, &a->time) != 0)
                return mr_cli_usage_error("view", "--time expects seconds, got '%s'", val);
            a->have_time = 1;
        } else if (!strcmp(s, "--frames")) {
            NEED_VALUE();
            if (mr_cli_int(val, &a->frames) != 0 || a->frames < 1 || a->frames > 1000000)
                return mr_cli_usage_error("view", "--frames expects a count >= 1, got '%s'", val);
        } else if (!strcmp(s, "--fps")) {
            NEED_VALUE();
            if (mr_cli_float(val, &a->fps) != 0 || !(a->fps > 0) || a->fps > 10000)
                return mr_cli_usage_error("view", "--fps expects a rate > 0, got '%s'", val);
        } else if (!strcmp(s, "--fps-cap")) {
            NEED_VALUE();
            if (mr_cli_float(val, &a->fps_cap) != 0 || !(a->fps_cap >= 0) || a->fps_cap > 10000)
                return mr_cli_usage_error("view", "--fps-cap expects a rate >= 0 (0 = no cap), got '%s'", val);
        } else if (!strcmp(s, "--aa")) {
            NEED_VALUE();
            if (mr_cli_aa(val, &a->samples, &a->no_fxaa))
                return mr_cli_usage_error("view", "--aa expects fxaa, msaa, msaaN or none, got '%s'", val);
        } else if (!strcmp(s, "--size")) {
            NEED_VALUE();
            if (mr_cli_size(val, &a->width, &a->height) != 0)
                return mr_cli_usage_error("view", "--size expects WxH (1..16384), got '%s'", val);
        } else if (!strcmp(s, "--quit-after")) {
            NEED_VALUE();
            if (mr_cli_int(val, &a->quit_after) != 0 || a->quit_after < 1)
                return mr_cli_usage_error("view", "--quit-after expects a frame count >= 1, got '%s'", val);
        } else if (!strcmp(s, "--zoom")) {
            NEED_VALUE();
            if (mr_cli_float(val, &a->zoom) != 0 || !(a->zoom > 0))
                return mr_cli_usage_error("view", "--zoom expects a factor > 0, got '%s'", val);
        } else if (!strcmp(s, "--yaw")) {
            NEED_VALUE();
            if (mr_cli_float(val, &a->yaw) != 0)
                return mr_cli_usage_error("view", "--yaw expects degrees, got '%s'", val);
            a->have_yaw = 1;
        } else if (!strcmp(s, "--pitch")) {
            NEED_VALUE();
            if (mr_cli_float(val, &a->pitch) != 0 || a->pitch < -89 || a->pitch > 89)
                return mr_cli_usage_error("view", "--pitch expects degrees in -89..89, got '%s'", val);
            a->have_pitch = 1;
        } else if (s[0] == '-' && s[1]) {
            return mr_cli_usage_error("view", "unknown option '%s'", s);
        } else if (!a->model) {
            a->model = s;
        } else {
            a->anims[a->anim_count++] = s;
        }
#undef NEED_VALUE
    }
    if (!a->model) return mr_cli_usage_error("view", "no model given");
    if (a->frames && !a->out)
        return mr_cli_usage_error("view", "--frames needs --out DIR for the images");
    return MR_EXIT_OK;
}

static mr_status make_parent_dir(const char *path, mr_error *err)
{
    char *dir = mr_path_dirname(path);
    mr_status st = dir ? mr_file_mkdirs(dir, err) : mr_error_set(err, MR_ERR_NO_MEMORY, "%s: out of memory", path);
    free(dir);
    return st;
}

/* Applies the camera options on top of the default framing. */
static void frame_camera(mr_view *v, const view_args *a, float aspect)
{
    v->follow = a->follow;
    mr_view_frame(v, aspect);
    if (a->have_yaw || a->have_pitch) {
        if (a->have_yaw) v->camera.yaw = a->yaw;
        if (a->have_pitch) v->camera.pitch = a->pitch;
        vec3 min, max;
        mr_view_frame_bounds(v, min, max);
        mr_camera_frame_bounds(&v->camera, min, max, aspect);
        if (v->follow) mr_view_follow_here(v);
    }
    v->camera.distance *= a->zoom;
}

/* Writes the frame(s) asked for with --out (or out/view.png); the window,
 * when there is one, shows each frame as it is written. */
static int write_frames(mr_window *win, mr_renderer *r, mr_view *v, const view_args *a)
{
    const char *out = a->out ? a->out : "out/view.png";
    int count = a->frames ? a->frames : 1;
    mr_error derr = {0};
    if ((a->frames ? mr_file_mkdirs(out, &derr) : make_parent_dir(out, &derr)) != MR_OK) {
        fprintf(stderr, "marrow view: %s\n", derr.msg);
        return MR_EXIT_FAILED;
    }
    int tty = isatty(2);
    char status[128], path[4200];
    for (int i = 0; i < count; i++) {
        if (mr_stop_requested()) return mr_stop_exit_code(mr_stop_requested());
        v->time = a->time + (float)i / a->fps;
        /* Fixed text only, so every run (and the window) gives the same bytes. */
        snprintf(status, sizeof status, "frame #%d   %g fps (fixed step)", i, (double)a->fps);
        if (mr_view_draw(v, status) != MR_OK) {
            fprintf(stderr, "marrow view: drawing frame %d failed (OpenGL error)\n", i);
            return MR_EXIT_FAILED;
        }
        if (a->frames) snprintf(path, sizeof path, "%s/frame_%04d.png", out, i);
        else snprintf(path, sizeof path, "%s", out);
        mr_error err = {0};
        if (mr_renderer_screenshot(r, path, &err) != MR_OK) {
            fprintf(stderr, "marrow view: %s\n", err.msg);
            return MR_EXIT_FAILED;
        }
        if (!mr_window_is_headless(win)) {
            int fw, fh;
            mr_input in;
            mr_window_poll(win, &in);
            mr_window_framebuffer_size(win, &fw, &fh);
            mr_renderer_present(r, fw, fh);
            mr_window_swap(win);
        }
        if (a->frames && tty) fprintf(stderr, "\rmarrow view: frame %d/%d", i + 1, count);
    }
    if (a->frames) {
        fprintf(stderr, "%smarrow view: %d frames at %g fps from t = %g s\n", tty ? "\n" : "", count,
                (double)a->fps, (double)a->time);
        printf("%s/frame_0000.png .. %s/frame_%04d.png\n", out, out, count - 1);
    } else {
        printf("%s\n", out);
    }
    return MR_EXIT_OK;
}

static int interactive(mr_window *win, mr_renderer *r, mr_view *v, const view_args *a)
{
    int paused = 0, frame_no = 0;
    double last = mr_clock_now(), fps_time = last;
    int fps_frames = 0, drawn = 0, last_fw = 0, last_fh = 0;
    float fps = 0;
    mr_pacer pacer;
    mr_pacer_init(&pacer, a->fps_cap);
    v->footer = key_help;
    v->time = a->time;
    for (int iteration = 1;; iteration++) {
        int sig = mr_stop_requested();
        if (sig) return mr_stop_exit_code(sig);
        mr_input in;
        mr_window_poll(win, &in);
        if (in.close) break;
        int fw, fh;
        mr_window_framebuffer_size(win, &fw, &fh);
        if (fw > 0 && fh > 0) mr_renderer_resize(r, fw, fh, NULL);
        /* A paused, untouched view would draw the same picture again. */
        int changed = !paused || !drawn || fw != last_fw || fh != last_fh || in.drag_dx || in.drag_dy ||
                      in.pan_dx || in.pan_dy || in.scroll;
        for (int k = 0; k < MR_KEY_COUNT; k++) changed |= in.pressed[k] != 0;
        last_fw = fw;
        last_fh = fh;
        float aspect = fh > 0 ? (float)fw / (float)fh : 1.0f;

        float step = mr_view_frame_step(v);
        if (in.pressed[MR_KEY_SPACE] & 1) paused = !paused;
        int steps = in.pressed[MR_KEY_RIGHT] - in.pressed[MR_KEY_LEFT];
        if (steps) {
            paused = 1;
            v->time = (roundf(v->time / step) + (float)steps) * step;
        }
        int clips = in.pressed[MR_KEY_DOWN] - in.pressed[MR_KEY_UP];
        if (clips && v->model->clip_count > 1) {
            float yaw = v->camera.yaw, pitch = v->camera.pitch;
            mr_view_set_clip(v, v->clip + clips);
            v->camera.yaw = yaw;
            v->camera.pitch = pitch;
            mr_camera_frame_bounds(&v->camera, v->bounds_min, v->bounds_max, aspect);
        }
        if (in.pressed[MR_KEY_S] & 1) v->skeleton = !v->skeleton;
        if (in.pressed[MR_KEY_W] & 1) v->wireframe = !v->wireframe;
        if (in.pressed[MR_KEY_F]) mr_view_frame(v, aspect);
        if (in.pressed[MR_KEY_R]) v->time = 0;
        mr_camera_orbit(&v->camera, -in.drag_dx * 0.35f, in.drag_dy * 0.35f);
        if (fh > 0) mr_camera_pan(&v->camera, -in.pan_dx / (float)fh, in.pan_dy / (float)fh);
        if (in.scroll != 0) mr_camera_zoom(&v->camera, powf(0.88f, in.scroll));

        double now = mr_clock_now();
        float dt = (float)(now - last);
        last = now;
        if (!paused) v->time += dt;
        float dur = mr_view_duration(v);
        if (dur > 0) v->time = fmodf(v->time, dur) + (v->time < 0 ? dur : 0);
        int visible = mr_window_visible(win);
        if (!visible || !changed) {
            if (!visible) drawn = 0;       /* shown again: its contents are gone */
            else if (in.refresh) {
                mr_renderer_present(r, fw, fh);
                mr_window_swap(win);
            }
            if (a->quit_after && iteration >= a->quit_after) break;
            mr_pacer_wait(&pacer, visible);
            continue;
        }
        drawn = 1;
        fps_frames++;
        if (now - fps_time >= 0.5) {
            fps = (float)(fps_frames / (now - fps_time));
            fps_frames = 0;
            fps_time = now;
        }
        char status[128];
        snprintf(status, sizeof status, "frame #%d   %.1f fps%s", frame_no++, (double)fps,
                 paused ? "   [paused]" : "");
        if (mr_view_draw(v, status) != MR_OK) {
            fprintf(stderr, "marrow view: drawing failed (OpenGL error)\n");
            return MR_EXIT_FAILED;
        }
        if (in.pressed[MR_KEY_F12]) {
            char name[64];
            mr_error err = {0};
            mr_cli_screenshot_name(name, sizeof name);
            if (mr_renderer_screenshot(r, name, &err) == MR_OK) printf("marrow view: wrote %s\n", name);
            else fprintf(stderr, "marrow view: %s\n", err.msg);
        }
        mr_renderer_present(r, fw, fh);
        mr_window_swap(win);
        if (a->quit_after && iteration >= a->quit_after) break;
        mr_pacer_wait(&pacer, 1);
    }
    return MR_EXIT_OK;
}

int mr_cmd_view(int argc, char **argv)
{
    if (mr_cli_wants_help(argc, argv)) {
        fputs(view_help, stdout);
        return MR_EXIT_OK;
    }
    view_args a;
    mr_stop_install();
    mr_lua_set_stop_source(mr_stop_requested);
    int code = parse_args(argc, argv, &a);
    if (code != MR_EXIT_OK) {
        free(a.anims);
        return code;
    }
    mr_model *model = mr_cli_load_model(a.model, a.anims, a.anim_count, &code);
    free(a.anims);
    a.anims = NULL;
    if (!model) return code;
    int clip = model->clip_count ? 0 : -1;
    if (a.clip) {
        clip = -1;
        for (int i = 0; i < model->clip_count; i++)
            if (!strcmp(model->clips[i]->name, a.clip)) clip = i;
        if (clip < 0) {
            fprintf(stderr, "marrow view: %s has no clip '%s' (clips:", model->path, a.clip);
            for (int i = 0; i < model->clip_count; i++) fprintf(stderr, " %s", model->clips[i]->name);
            fprintf(stderr, "%s)\n", model->clip_count ? "" : " none");
            mr_model_destroy(model);
            return MR_EXIT_BAD_INPUT;
        }
    }

    mr_error err = {0};
    char title[300];
    snprintf(title, sizeof title, "marrow view - %s", mr_path_basename(model->path));
    mr_window *win = NULL;
    mr_window_create(&(mr_window_desc){.width = a.width, .height = a.height,
                                       .title = title, .headless = a.headless},
                     &win, &err);
    if (!win) {
        fprintf(stderr, "marrow view: %s\n", err.msg);
        mr_model_destroy(model);
        return MR_EXIT_FAILED;
    }
    mr_renderer *r = NULL;
    if (mr_renderer_create(&(mr_renderer_desc){.width = a.width, .height = a.height,
                                               .samples = a.samples, .no_fxaa = a.no_fxaa},
                           &r, &err) !=
        MR_OK) {
        fprintf(stderr, "marrow view: %s\n", err.msg);
        mr_window_destroy(win);
        mr_model_destroy(model);
        return MR_EXIT_FAILED;
    }
    mr_view v;
    if (mr_view_init(&v, r, model, &err) != MR_OK) {
        fprintf(stderr, "marrow view: %s\n", err.msg);
        mr_renderer_destroy(r);
        mr_window_destroy(win);
        mr_model_destroy(model);
        return err.status == MR_ERR_NO_MEMORY ? MR_EXIT_FAILED : MR_EXIT_BAD_INPUT;
    }
    if (clip > 0) mr_view_set_clip(&v, clip);
    v.skeleton = a.skeleton;
    v.names = a.names;
    v.wireframe = a.wireframe;
    v.skinning = a.skinning;
    v.fixed_skinning = a.fixed_skinning;
    v.hud = !a.no_hud;
    frame_camera(&v, &a, (float)a.width / (float)a.height);

    if (a.out || mr_window_is_headless(win)) code = write_frames(win, r, &v, &a);
    else code = interactive(win, r, &v, &a);

    mr_view_deinit(&v);
    mr_renderer_destroy(r);
    mr_window_destroy(win);
    mr_model_destroy(model);
    return code;
}
