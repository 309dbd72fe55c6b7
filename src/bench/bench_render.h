/* bench_render.h — headless rendering figures for `marrow bench`.
 *
 * mr_bench_render_run opens its own headless EGL context (so no GL context
 * may be current on the calling thread), creates a renderer, uploads one
 * model and draws it `instances` times per frame — each instance on a grid,
 * sampled at its own clip time, skinned on the GPU, shadowed, on the floor —
 * then reads every frame back (glReadPixels waits for llvmpipe to finish),
 * and closes everything again. It reports the one-off costs (context,
 * shader compile + link, upload, the first frame with llvmpipe's shader
 * JIT) separately from the steady frame time.
 *
 * The camera frames the bind pose and the floor lies under it, as `marrow
 * view` places them, so a steady camera lets the renderer keep the floor
 * between frames; `turn` orbits the camera every frame instead.
 *
 * mr_bench_render is the bench section: Bob alone (with the renderer's
 * defaults — FXAA, shadows — with the camera orbiting, then with 4x MSAA,
 * without anti-aliasing and without shadows; each row names its settings),
 * and a crowd of 50
 * mannequins (models/mannequin.md5mesh + models/walk.md5anim; Bob stands in
 * while those do not exist) with FXAA and with 4x MSAA, at 640x480; then 50 of
 * ThinMatrix's character (up to 6 influences: the GPU's second attribute
 * set) against the same model cut to 4 influences, as a ratio.
 */
#ifndef MR_BENCH_RENDER_H
#define MR_BENCH_RENDER_H

#include "anim/model.h"
#include "bench/bench.h"

typedef struct mr_bench_render_desc {
    const mr_model *model;    /* borrowed; posed by its first clip (bind pose without) */
    int instances;            /* copies drawn per frame [1] */
    int width, height;        /* [640x480] */
    int samples;              /* MSAA samples [1: none, FXAA instead] */
    int no_fxaa;              /* 1: single-sampled without the FXAA pass */
    int frames;               /* timed frames [60] */
    int warmup;               /* untimed frames after the first [3]; < 0: none */
    int no_shadows;           /* 1: no shadow pass */
    float turn;               /* degrees the camera orbits per frame [0: it stays] */
} mr_bench_render_desc;

typedef struct mr_bench_render_result {
    double context_ms;        /* headless EGL context */
    double create_ms;         /* renderer: shader compile + link, framebuffers, font atlas */
    double upload_ms;         /* model vertex/index buffers and textures */
    double first_frame_ms;    /* the first frame: llvmpipe compiles the shaders here (JIT) */
    double frame_ms;          /* median steady frame: pose + draw + shadow + resolve + read back */
    double frame_min_ms;      /* fastest steady frame */
    double frame_cpu_ms;      /* median process CPU time per steady frame (all
                               * llvmpipe threads): steadier than wall time on a
                               * busy machine */
    double pose_ms;           /* median CPU share of a frame: sampling, local-to-model, skinning */
    double fps;               /* 1000 / frame_ms */
    int triangles;            /* triangles per frame (main pass) */
} mr_bench_render_result;

/* Runs the benchmark described by d; fills *out. Fails (err set) when no
 * headless context or renderer can be made. */
mr_status mr_bench_render_run(const mr_bench_render_desc *d, mr_bench_render_result *out,
                              mr_error *err);

/* The `marrow bench` section (prints a table). */
void mr_bench_render(const mr_bench_opts *o);

#endif
