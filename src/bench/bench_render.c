/* bench_render.c — headless render benchmark (see bench_render.h). */
#include "bench/bench_render.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "anim/clip.h"
#include "anim/pose.h"
#include "core/alloc.h"
#include "core/file.h"
#include "core/path.h"
#include "formats/load.h"
#include "gfx/renderer.h"
#include "platform/window.h"

typedef struct crowd {
    int n, joints;
    mr_pose pose;
    mat4 *model;              /* joints */
    mat4 *skin;               /* n * joints */
    mat4 *world;              /* n */
    float *offset;            /* n clip time offsets */
} crowd;

static void crowd_free(crowd *c)
{
    mr_pose_deinit(&c->pose);
    free(c->model);
    free(c->skin);
    free(c->world);
    free(c->offset);
}

/* Poses every instance at time t (its own offset added). */
static void crowd_pose(crowd *c, const mr_model *m, float t)
{
    const mr_clip *clip = m->clip_count ? m->clips[0] : NULL;
    for (int i = 0; i < c->n && c->joints; i++) {
        if (!clip || mr_clip_sample(clip, &m->skeleton, t + c->offset[i], MR_WRAP_LOOP, &c->pose))
            mr_pose_set_rest(&c->pose, &m->skeleton);
        mr_pose_to_model(&m->skeleton, &c->pose, c->model);
        mr_pose_skinning(&m->skeleton, c->model, c->skin + (size_t)i * (size_t)c->joints);
    }
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

mr_status mr_bench_render_run(const mr_bench_render_desc *d_in, mr_bench_render_result *out,
                              mr_error *err)
{
    memset(out, 0, sizeof *out);
    mr_bench_render_desc d = *d_in;
    if (d.instances <= 0) d.instances = 1;
    if (d.width <= 0) d.width = 640;
    if (d.height <= 0) d.height = 480;
    if (d.frames <= 0) d.frames = 60;
    if (d.warmup < 0) d.warmup = 0;
    else if (d.warmup == 0) d.warmup = 3;
    const mr_model *m = d.model;

    crowd c = {.n = d.instances, .joints = m->skeleton.joint_count};
    size_t nj = (size_t)c.joints, n = (size_t)c.n;
    if (mr_pose_init(&c.pose, c.joints) != MR_OK) goto oom;
    c.model = mr_alloc_array(nj, sizeof *c.model);
    c.skin = mr_alloc_array(nj * n, sizeof *c.skin);
    c.world = mr_alloc_array(n, sizeof *c.world);
    c.offset = mr_alloc_array(n, sizeof *c.offset);
    double *times = mr_alloc_array((size_t)d.frames, sizeof *times);
    double *pose_times = mr_alloc_array((size_t)d.frames, sizeof *pose_times);
    double *cpu_times = mr_alloc_array((size_t)d.frames, sizeof *cpu_times);
    uint8_t *pixels = mr_alloc_array((size_t)d.width * (size_t)d.height, 4);
    if (!c.model || !c.skin || !c.world || !c.offset || !times || !pose_times || !cpu_times || !pixels) {
        free(times);
        free(pose_times);
        free(cpu_times);
        free(pixels);
        goto oom;
    }

    /* Lay the instances on a square grid, spaced by the model's footprint. */
    mat4 display;
    mr_model_display_matrix(m, display);
    vec3 mn, mx;
    mr_model_bounds(m, mn, mx);
    float s = m->axes.meters_per_unit > 0 ? m->axes.meters_per_unit : 1.0f;
    float span = fmaxf(glm_vec3_distance(mn, mx) * s * 0.6f, 1e-3f);
    int cols = (int)ceilf(sqrtf((float)c.n));
    float dur = m->clip_count ? m->clips[0]->duration : 0.0f;
    for (int i = 0; i < c.n; i++) {
        mat4 place;
        glm_translate_make(place, (vec3){((float)(i % cols) - 0.5f * (float)(cols - 1)) * span, 0,
                                         ((float)(i / cols) - 0.5f * (float)(cols - 1)) * span});
        glm_mat4_mul(place, display, c.world[i]);
        c.offset[i] = dur > 0 ? fmodf((float)i * 0.377f, dur) : 0.0f;
    }

    double t0 = mr_bench_now();
    mr_window *win = NULL;
    mr_window_create(&(mr_window_desc){.width = d.width, .height = d.height,
                                       .headless = 1}, &win, err);
    if (!win) {
        free(times);
        free(pose_times);
        free(cpu_times);
        free(pixels);
        crowd_free(&c);
        return err ? err->status : MR_ERR_IO;
    }
    double t1 = mr_bench_now();
    mr_renderer *r = NULL;
    mr_status st = mr_renderer_create(&(mr_renderer_desc){.width = d.width, .height = d.height,
                                                          .samples = d.samples, .no_fxaa = d.no_fxaa,
                                                          .quiet = 1},
                                      &r, err);
    double t2 = mr_bench_now();
    mr_gpu_model g = {0};
    if (st == MR_OK) st = mr_renderer_upload_model(r, m, &g, err);
    double t3 = mr_bench_now();
    out->context_ms = (t1 - t0) * 1e3;
    out->create_ms = (t2 - t1) * 1e3;
    out->upload_ms = (t3 - t2) * 1e3;

    if (st == MR_OK) {
        /* Camera on the whole crowd, from the bind-pose bounds of each copy. */
        vec3 cmin, cmax;
        glm_vec3_fill(cmin, FLT_MAX);
        glm_vec3_fill(cmax, -FLT_MAX);
        for (int i = 0; i < c.n; i++) {
            vec3 a, b;
            if (mr_renderer_model_bounds(r, g, NULL, 0, c.world[i], a, b)) {
                glm_vec3_minv(cmin, a, cmin);
                glm_vec3_maxv(cmax, b, cmax);
            }
        }
        mr_scene scene = {0};
        scene.camera.yaw = 35;
        scene.camera.pitch = 20;
        mr_camera_frame_bounds(&scene.camera, cmin, cmax, (float)d.width / (float)d.height);
        scene.floor_y = cmin[1];
        scene.floor_extent = 2.5f * fmaxf(fmaxf(cmax[0] - cmin[0], cmax[2] - cmin[2]), cmax[1] - cmin[1]);
        scene.floor_center[0] = 0.5f * (cmin[0] + cmax[0]);
        scene.floor_center[1] = 0.5f * (cmin[2] + cmax[2]);
        scene.no_shadows = d.no_shadows;
        float yaw = scene.camera.yaw;
        int total = 1 + d.warmup + d.frames;
        for (int f = 0; f < total && st == MR_OK; f++) {
            double a = mr_bench_now(), ca = cpu_now();
            crowd_pose(&c, m, (float)f / 60.0f);
            double b = mr_bench_now();
            scene.camera.yaw = yaw + d.turn * (float)f;
            mr_renderer_begin_frame(r, &scene);
            for (int i = 0; i < c.n && st == MR_OK; i++)
                st = mr_renderer_draw_model(r, g, c.joints ? c.skin + (size_t)i * nj : NULL, c.joints,
                                            c.world[i], NULL);
            mr_renderer_text(r, 10, 8, "marrow bench", NULL);
            if (mr_renderer_end_frame(r) != MR_OK && st == MR_OK) st = MR_ERR_GL;
            if (st == MR_OK) st = mr_renderer_read_pixels(r, pixels, (size_t)d.width * d.height * 4);
            double e = mr_bench_now();
            if (f == 0) out->first_frame_ms = (e - a) * 1e3;
            else if (f > d.warmup) {
                times[f - 1 - d.warmup] = (e - a) * 1e3;
                pose_times[f - 1 - d.warmup] = (b - a) * 1e3;
                cpu_times[f - 1 - d.warmup] = (cpu_now() - ca) * 1e3;
            }
        }
        if (st != MR_OK) mr_error_set(err, st, "bench: drawing failed (%s)", mr_status_string(st));
        mr_frame_stats fs;
        mr_renderer_stats(r, &fs);
        out->triangles = fs.triangles;
        qsort(times, (size_t)d.frames, sizeof *times, cmp_double);
        qsort(pose_times, (size_t)d.frames, sizeof *pose_times, cmp_double);
        out->frame_ms = times[d.frames / 2];
        out->frame_min_ms = times[0];
        out->pose_ms = pose_times[d.frames / 2];
        qsort(cpu_times, (size_t)d.frames, sizeof *cpu_times, cmp_double);
        out->frame_cpu_ms = cpu_times[d.frames / 2];
        out->fps = out->frame_ms > 0 ? 1e3 / out->frame_ms : 0;
    }
    if (r) mr_renderer_destroy(r);
    mr_window_destroy(win);
    free(times);
    free(pose_times);
    free(cpu_times);
    free(pixels);
    crowd_free(&c);
    return st;
oom:
    crowd_free(&c);
    return mr_error_set(err, MR_ERR_NO_MEMORY, "bench: out of memory");
}

/* Loads mesh + anim from dir (NULL with a note when missing). */
static mr_model *load_pair(const char *dir, const char *mesh, const char *anim, const char *label)
{
    char *mp = mr_path_join(dir, mesh), *ap = mr_path_join(dir, anim);
    mr_model *m = NULL;
    mr_error err = {0};
    if (mp && ap && mr_file_exists(mp)) {
        const char *anims[1] = {ap};
        if (mr_load_model(mp, anims, mr_file_exists(ap) ? 1 : 0, &m, &err) != MR_OK)
            printf("  %-22s skipped: %s\n", label, err.msg);
    }
    free(mp);
    free(ap);
    return m;
}

/* Prints one row with the anti-aliasing and shadow settings used; returns
 * the median frame's process CPU ms (0 on failure). */
static double report(const char *label, const mr_bench_render_desc *d)
{
    mr_bench_render_result res;
    mr_error err = {0};
    char aa[24];
    if (d->samples > 1) snprintf(aa, sizeof aa, "%dx MSAA", d->samples);
    else snprintf(aa, sizeof aa, "%s", d->no_fxaa ? "none" : "FXAA");
    if (mr_bench_render_run(d, &res, &err) != MR_OK) {
        printf("  %-24s %-8s %-7s failed: %s\n", label, aa, d->no_shadows ? "off" : "on", err.msg);
        return 0;
    }
    printf("  %-24s %-8s %-7s %8d %7.1f %9.1f %8.1f %8.2f %8.1f %10.1f %8.1f\n", label, aa,
           d->no_shadows ? "off" : "on", res.triangles, res.fps, res.frame_ms, res.frame_cpu_ms,
           res.pose_ms, res.create_ms, res.first_frame_ms, res.context_ms);
    return res.frame_cpu_ms;
}

/* Keeps each vertex's first (heaviest) MR_INFLUENCE_SET influences,
 * renormalised: the model as a 4-influence renderer would upload it. */
static void cut_to_one_set(mr_model *m)
{
    for (int i = 0; i < m->mesh_count; i++) {
        mr_mesh *me = &m->meshes[i];
        for (int v = 0; me->joints && v < me->vertex_count; v++) {
            float sum = 0;
            for (int k = 0; k < MR_INFLUENCE_SET; k++) sum += me->weights[v][k];
            for (int k = 0; k < MR_MAX_INFLUENCES; k++)
                me->weights[v][k] = k < MR_INFLUENCE_SET && sum > 0 ? me->weights[v][k] / sum : 0.0f;
        }
    }
}

/* The second GPU influence set: 50 ThinMatrix characters (up to 6
 * influences) against the same model cut to 4, in this run. */
static void report_influences(const mr_bench_opts *o, int frames)
{
    char *path = mr_path_join(o->root, "thinmatrix-opengl-animation/Resources/res/model.dae");
    mr_model *wide = NULL, *narrow = NULL;
    mr_error err = {0};
    if (!path || !mr_file_exists(path) || mr_load_model(path, NULL, 0, &wide, &err) != MR_OK ||
        mr_load_model(path, NULL, 0, &narrow, &err) != MR_OK) {
        printf("  %-22s skipped: %s\n", "ThinMatrix", err.msg[0] ? err.msg : "not found");
    } else {
        cut_to_one_set(narrow);
        double a = report("50 ThinMatrix, 6 infl.", &(mr_bench_render_desc){.model = wide, .instances = 50, .frames = frames});
        double b = report("50 ThinMatrix, cut to 4", &(mr_bench_render_desc){.model = narrow, .instances = 50, .frames = frames});
        if (a > 0 && b > 0) printf("  second influence set: %.3fx the cpu ms of one set\n", a / b);
    }
    mr_model_destroy(wide);
    mr_model_destroy(narrow);
    free(path);
}

void mr_bench_render(const mr_bench_opts *o)
{
    int frames = o->quick ? 5 : 60;
    printf("== headless rendering (EGL, llvmpipe): 640x480, read back; median of %d frames\n",
           frames);
    printf("  %-24s %-8s %-7s %8s %7s %9s %8s %8s %8s %10s %8s\n", "scene", "aa", "shadows", "tris",
           "fps", "frame ms", "cpu ms", "pose ms", "shaders", "1st frame", "context");
    mr_model *bob = load_pair(o->root, "assimp/test/models-nonbsd/MD5/Bob.md5mesh",
                              "assimp/test/models-nonbsd/MD5/Bob.md5anim", "Bob");
    mr_model *man = load_pair("models", "mannequin.md5mesh", "walk.md5anim", "mannequin");
    if (bob) {
        /* the default (FXAA, shadows), then what changes with each setting */
        double fx = report("Bob", &(mr_bench_render_desc){.model = bob, .frames = frames});
        report("Bob, camera orbiting", &(mr_bench_render_desc){.model = bob, .frames = frames, .turn = 1.5f});
        double ms = report("Bob", &(mr_bench_render_desc){.model = bob, .frames = frames, .samples = 4});
        report("Bob", &(mr_bench_render_desc){.model = bob, .frames = frames, .no_fxaa = 1});
        report("Bob", &(mr_bench_render_desc){.model = bob, .frames = frames, .no_shadows = 1});
        if (fx > 0 && ms > 0) printf("  FXAA instead of 4x MSAA: %.3fx the cpu ms\n", fx / ms);
    } else {
        printf("  %-22s skipped: not found under %s\n", "Bob", o->root);
    }
    if (man) {
        report("50 mannequins", &(mr_bench_render_desc){.model = man, .instances = 50, .frames = frames});
        report("50 mannequins", &(mr_bench_render_desc){.model = man, .instances = 50, .frames = frames,
                                                        .samples = 4});
    }
    else if (bob) report("50 Bobs (no mannequin)", &(mr_bench_render_desc){.model = bob, .instances = 50, .frames = frames});
    report_influences(o, frames);
    printf("  (frame ms = wall time, cpu ms = process CPU time of all llvmpipe threads;\n"
           "   shaders = the renderer's creation, its programs' compile + link ms (the model program\n"
           "   variants a frame draws with are built at their first use); 1st frame = first draw incl.\n"
           "   those and llvmpipe JIT, ms)\n");
    mr_model_destroy(bob);
    mr_model_destroy(man);
}
