/* bench_lua.c — per-frame cost of the Lua layer: 100 characters, each doing
 * one clip sample and one model-space bone override from a script's
 * update(dt), in microseconds per frame. The baseline, measured in the same
 * run, is the same work called from C directly (mr_clip_sample +
 * mr_override_rotation), so the ratio is the price of scripting it.
 * The second table does the same for 100 mixers (a looping clip on track 1,
 * the clip again at half speed through a mask on track 2; mixer:update +
 * mixer:pose against mr_mixer_update + mr_mixer_evaluate). The third,
 * bench_lua_interp.c, times plain Lua functions against stock Lua. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "anim/mixer.h"
#include "anim/override.h"
#include "bench/bench.h"
#include "core/path.h"
#include "core/str.h"
#include "formats/load.h"
#include "lua/script.h"

#define CHARACTERS 100

typedef struct lua_bench_model {
    const char *label;
    const char *mesh, *anim;     /* relative to root (NULL: the project's models/) */
    int shared;                  /* 1: under the shared models root */
    const char *joint;           /* joint overridden */
} lua_bench_model;

static const lua_bench_model lua_models[] = {
    {"mannequin", "models/mannequin.md5mesh", "models/walk.md5anim", 0, "upperarm_l"},
    {"Bob", "assimp/test/models-nonbsd/MD5/Bob.md5mesh", "assimp/test/models-nonbsd/MD5/Bob.md5anim", 1,
     "upperarm.L"},
};

static const char script_fmt[] =
    "local m = require 'marrow'\n"
    "local man, clip, poses = nil, nil, {}\n"
    "local q = m.quat.euler(0, 40, 0)\n"
    "local opts = {space = 'model', weight = 0.8}\n"
    "function load()\n"
    "  man = assert(m.model('%s', {anims = {'%s'}}))\n"
    "  clip = man:clip(1)\n"
    "  for i = 1, %d do poses[i] = m.pose(man) end\n"
    "end\n"
    "function update(dt)\n"
    "  local t = m.time()\n"
    "  for i = 1, #poses do\n"
    "    local p = poses[i]\n"
    "    clip:sample(t + i * 0.0137, p)\n"
    "    p:rotate('%s', q, opts)\n"
    "  end\n"
    "end\n";

static const char mixer_script_fmt[] =
    "local m = require 'marrow'\n"
    "local mixers = {}\n"
    "function load()\n"
    "  local man = assert(m.model('%s', {anims = {'%s'}}))\n"
    "  local clip = man:clip(1)\n"
    "  local mask = man:mask{'%s'}\n"
    "  for i = 1, %d do\n"
    "    local mx = m.mixer(man)\n"
    "    mx:play(clip, {loop = 'repeat', start = (i * 0.0137) %% clip:duration()})\n"
    "    mx:track(2, {mask = mask}):play(clip, {loop = 'repeat', speed = 0.5})\n"
    "    mixers[i] = mx\n"
    "  end\n"
    "end\n"
    "function update(dt)\n"
    "  for i = 1, #mixers do\n"
    "    local mx = mixers[i]\n"
    "    mx:update(dt)\n"
    "    mx:pose()\n"
    "  end\n"
    "end\n";

/* Microseconds per frame of the C mixer baseline. */
static double time_c_mixer(const mr_model *m, const char *joint, int runs, int frames)
{
    const mr_skeleton *sk = &m->skeleton;
    mr_mixer *mx[CHARACTERS] = {0};
    mr_pose out;
    mr_mask mask;
    double result = -1;
    if (mr_pose_init(&out, sk->joint_count) != MR_OK) return -1;
    if (mr_mask_init(&mask, sk->joint_count, 0.0f) != MR_OK) {
        mr_pose_deinit(&out);
        return -1;
    }
    int j = mr_skeleton_find(sk, joint);
    mr_mask_set_subtree(&mask, sk, j < 0 ? 0 : j, 1.0f);
    const mr_clip *clip = m->clips[0];
    int ok = 1;
    for (int i = 0; i < CHARACTERS && ok; i++) {
        mr_mixer_create(sk, m->axes.up, NULL, &mx[i], NULL);
        mr_play_opts o = {0};
        o.loop = MR_LOOP_REPEAT;
        o.start = clip->duration > 0 ? fmodf(i * 0.0137f, clip->duration) : 0;
        ok = mx[i] && mr_mixer_play(mx[i], 0, clip, &o, NULL) == MR_OK &&
             mr_mixer_set_mask(mx[i], 1, &mask, NULL) == MR_OK;
        o.start = 0;
        o.speed = 0.5f;
        ok = ok && mr_mixer_play(mx[i], 1, clip, &o, NULL) == MR_OK;
    }
    if (ok) {
        double samples[64];
        for (int r = 0; r < runs; r++) {
            double t0 = mr_bench_now();
            for (int f = 0; f < frames; f++)
                for (int i = 0; i < CHARACTERS; i++) {
                    mr_mixer_update(mx[i], 1.0f / 60.0f, NULL);
                    mr_mixer_evaluate(mx[i], &out, NULL, NULL);
                }
            samples[r] = (mr_bench_now() - t0) * 1e6 / frames;
        }
        result = mr_bench_median(samples, runs);
    }
    for (int i = 0; i < CHARACTERS; i++) mr_mixer_destroy(mx[i]);
    mr_mask_deinit(&mask);
    mr_pose_deinit(&out);
    return result;
}

/* Microseconds per frame of the C baseline: each character's pose
 * sampled through its own playback cursor, as clip:sample samples a pose
 * (wrap_clip.c). */
static double time_c(const mr_model *m, const char *joint, int runs, int frames)
{
    const mr_skeleton *sk = &m->skeleton;
    mr_pose poses[CHARACTERS];
    mr_clip_cursor *cursors[CHARACTERS];
    for (int i = 0; i < CHARACTERS; i++) {
        mr_pose_init(&poses[i], sk->joint_count);
        cursors[i] = mr_clip_cursor_create(sk->joint_count);
    }
    int j = mr_skeleton_find(sk, joint);
    if (j < 0) j = sk->joint_count > 1 ? 1 : 0;
    versor q;
    glm_quatv(q, glm_rad(40.0f), (vec3){0, 1, 0});
    double samples[64];
    for (int r = 0; r < runs; r++) {
        double t0 = mr_bench_now();
        for (int f = 0; f < frames; f++)
            for (int i = 0; i < CHARACTERS; i++) {
                mr_clip_sample_with(m->clips[0], sk, f / 60.0f + i * 0.0137f, MR_WRAP_LOOP, &poses[i], cursors[i]);
                mr_override_rotation(sk, &poses[i], j, q, MR_SPACE_MODEL, MR_OVERRIDE_ADD, 0.8f);
            }
        samples[r] = (mr_bench_now() - t0) * 1e6 / frames;
    }
    for (int i = 0; i < CHARACTERS; i++) {
        mr_pose_deinit(&poses[i]);
        mr_clip_cursor_destroy(cursors[i]);
    }
    return mr_bench_median(samples, runs);
}

/* Microseconds per frame of update() in Lua; < 0 when the script fails. */
static double time_lua(const char *mesh, const char *anim, const char *joint, int mixers, int runs,
                       int frames, size_t *memory)
{
    char path[] = "/tmp/marrow_bench_lua_XXXXXX.lua";
    int fd = mkstemps(path, 4);
    if (fd < 0) return -1;
    char *src = mixers ? mr_str_fmt(mixer_script_fmt, mesh, anim, joint, CHARACTERS)
                       : mr_str_fmt(script_fmt, mesh, anim, CHARACTERS, joint);
    ssize_t len = src ? (ssize_t)strlen(src) : -1;
    int wrote = src && write(fd, src, (size_t)len) == len;
    close(fd);
    free(src);
    double result = -1;
    mr_lua_desc d = {.script = path, .headless = 1, .quiet = 1, .budget = 60};
    mr_lua_ctx *ctx = NULL;
    if (wrote) mr_lua_ctx_create(&d, &ctx);
    if (ctx && mr_lua_start(ctx, NULL) == MR_OK) {
        double samples[64];
        int ok = 1;
        for (int r = 0; r < runs && ok; r++) {
            double t0 = mr_bench_now();
            for (int f = 0; f < frames && ok; f++) {
                ok = mr_lua_update(ctx, 1.0 / 60.0, NULL) == MR_OK;
                mr_lua_end_frame(ctx);
            }
            samples[r] = (mr_bench_now() - t0) * 1e6 / frames;
        }
        if (ok) result = mr_bench_median(samples, runs);
        *memory = mr_lua_memory(ctx);
    }
    if (ctx && mr_lua_error(ctx)) printf("  lua bench script failed: %s\n", mr_lua_error(ctx));
    mr_lua_ctx_destroy(ctx);
    unlink(path);
    return result;
}

/* One table: plain (clip sample + override) or mixers. */
static void bench_table(const mr_bench_opts *o, int mixers, int runs, int frames)
{
    printf("  %-10s %6s %12s %14s %9s %10s\n", "model", "joints", "Lua update()", "C baseline", "Lua/C",
           "Lua memory");
    for (size_t i = 0; i < sizeof lua_models / sizeof *lua_models; i++) {
        const lua_bench_model *b = &lua_models[i];
        char *mesh = b->shared ? mr_path_join(o->root, b->mesh) : mr_str_dup(b->mesh);
        char *anim = b->shared ? mr_path_join(o->root, b->anim) : mr_str_dup(b->anim);
        const char *anims[1] = {anim};
        mr_model *m = NULL;
        mr_error err = {0};
        if (!mesh || !anim || mr_load_model(mesh, anims, 1, &m, &err) != MR_OK || !m->clip_count) {
            printf("  %-10s skipped: %s\n", b->label, err.msg[0] ? err.msg : "no clip");
        } else {
            size_t mem = 0;
            double c = mixers ? time_c_mixer(m, b->joint, runs, frames * 4) : time_c(m, b->joint, runs, frames * 4);
            double lua = time_lua(mesh, anim, b->joint, mixers, runs, frames, &mem);
            if (lua >= 0 && c > 0)
                printf("  %-10s %6d %12.1f %14.1f %8.2fx %8.0f KB\n", b->label, m->skeleton.joint_count, lua,
                       c, lua / c, mem / 1024.0);
        }
        mr_model_destroy(m);
        free(mesh);
        free(anim);
    }
}

void mr_bench_lua(const mr_bench_opts *o)
{
    int runs = o->quick ? 3 : 15, frames = o->quick ? 5 : 60;
    printf("== Lua layer: %d characters, each one clip sample + one model-space override per frame,\n"
           "   us per frame, median of %d runs of %d frames\n", CHARACTERS, runs, frames);
    bench_table(o, 0, runs, frames);
    printf("== Lua layer: %d mixers (a clip on track 1, the clip again through a mask on track 2),\n"
           "   mixer:update + mixer:pose, us per frame, median of %d runs of %d frames\n", CHARACTERS, runs,
           frames);
    bench_table(o, 1, runs, frames);
    mr_bench_lua_interp(o);
}
