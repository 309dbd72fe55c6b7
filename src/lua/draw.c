/* draw.c — the drawing glue: records what the script's draw() asks for
 * (through the hooks it registers in the context, see wrap.h) and replays
 * it on the renderer (see draw.h). The only file of src/lua that calls the
 * renderer's API; it also keeps the map from a cached model to its GPU
 * handle, so the model cache holds no GPU state.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <time.h>

#include "core/alloc.h"
#include "core/str.h"
#include "gfx/renderer.h"
#include "lua/draw.h"
#include "lua/wrap.h"

typedef struct draw_cmd {
    mat4 world;              /* model and skeleton: transform * display */
    int kind;                /* MR_LUA_DRAW_* */
    const mr_model *model;   /* model and skeleton */
    long mat_first;          /* first matrix in mats, -1 for the bind pose */
    int mat_count;
    long morph_first;        /* first weight in morphs, -1: the meshes' defaults */
    int morph_count, skinning, fixed_skinning;
    long mask_first;         /* dual quaternions: the per-joint shares in morphs, -1: none */
    float colour[4];         /* tint, line/point/text colour */
    int wireframe, no_shadow, names, overlay, axes;
    float a[3], b[3];        /* line ends, point position */
    float x, y, size;        /* text position, point size */
    long text;               /* offset of the text in texts */
} draw_cmd;

typedef struct gpu_entry {
    const mr_model *model;
    uint32_t id;             /* renderer handle, 0 until uploaded */
    int failed;              /* upload failed once: don't retry every frame */
} gpu_entry;

/* The frame's rendering time is estimated as triangles x the time per
 * triangle measured in earlier frames + calls x a fixed cost; before any
 * measurement, a first guess of a skinned, shadowed triangle on llvmpipe. */
#define DRAW_TRIANGLE_SECONDS 1e-6
#define DRAW_CALL_SECONDS 2e-5
#define DRAW_MEASURE_MIN_TRIANGLES 20000     /* fewer say too little to measure */

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct mr_lua_gfx {
    mr_lua_ctx *ctx;
    mr_renderer *r;          /* NULL: recorded, then dropped by mr_lua_draw_render */
    draw_cmd *cmds;
    size_t cmd_count, cmd_cap;
    size_t triangles;        /* model triangles recorded this frame */
    double tri_seconds;      /* what the renderer took per triangle (measured, smoothed) */
    mat4 *mats;
    size_t mat_count, mat_cap;
    float *morphs;           /* morph weights (and dq masks) of the recorded draws */
    size_t morph_count, morph_cap;
    char *texts;
    size_t text_len, text_cap;
    char **shots;            /* screenshot paths asked for this frame (their
                              * directories made by marrow.screenshot) */
    size_t shot_count, shot_cap;
    int shots_written;       /* screenshots written since attaching */
    gpu_entry *gpu;          /* model -> GPU handle */
    size_t gpu_count, gpu_cap;
    mr_lua_draw_pose_fn watch;  /* mr_lua_draw_watch_poses */
    void *watch_ud;
    mr_lua_draw_world_fn watch_world;  /* mr_lua_draw_watch_draws */
    void *watch_world_ud;
    int (*text_boxes)[4];    /* of the frame rendered last */
    size_t text_box_count, text_box_cap;
    int skip_unchanged;      /* mr_lua_draw_skip_unchanged */
    int have_last;           /* last_digest is the picture the renderer holds */
    uint64_t last_digest;
} mr_lua_gfx;

static mr_lua_gfx *gfx_of(mr_lua_ctx *ctx)
{
    mr_lua_host *h = mr_lua_host_of_ctx(ctx);
    return h->draw ? h->draw_user : NULL;
}

/* ---- the hooks: recording ------------------------------------------------------ */

static void begin(void *user)
{
    mr_lua_gfx *g = user;
    g->triangles = 0;
    g->cmd_count = 0;
    g->mat_count = 0;
    g->morph_count = 0;
    g->text_len = 0;
}

static mr_status record(void *user, const mr_lua_draw_cmd *in, mr_error *err)
{
    mr_lua_gfx *g = user;
    size_t text_len = in->kind == MR_LUA_DRAW_TEXT ? strlen(in->text) : 0;
    int n = in->mats ? in->mat_count : 0;
    /* What a frame may ask the renderer for is bounded like any script work. */
    size_t tris = 0;
    if (in->kind == MR_LUA_DRAW_MODEL)
        for (int i = 0; i < in->model->mesh_count; i++) tris += (size_t)in->model->meshes[i].index_count / 3;
    if (g->cmd_count >= MR_LUA_DRAW_MAX_CALLS)
        return mr_error_set(err, MR_ERR_LIMIT, "more than %d drawing calls in one frame (the most one frame may make)",
                            MR_LUA_DRAW_MAX_CALLS);
    if (g->triangles + tris > MR_LUA_DRAW_MAX_TRIANGLES)
        return mr_error_set(err, MR_ERR_LIMIT, "more than %d million triangles drawn in one frame (the most one "
                            "frame may draw)", MR_LUA_DRAW_MAX_TRIANGLES / 1000000);
    /* Rendering happens after draw() returns, outside its budget: the
     * frame's estimated rendering time counts against that budget instead. */
    double budget = mr_lua_host_of_ctx(g->ctx)->budget;
    double est = (double)(g->triangles + tris) * g->tri_seconds + (double)(g->cmd_count + 1) * DRAW_CALL_SECONDS;
    if (g->r && budget > 0 && est > budget)
        return mr_error_set(err, MR_ERR_LIMIT, "drawing this frame would take about %.1f s (%zu triangles in %zu calls, "
                            "at about %.2g us per triangle on this renderer), past the time budget of %g s",
                            est, g->triangles + tris, g->cmd_count + 1, g->tri_seconds * 1e6, budget);
    g->triangles += tris;
    if (mr_alloc_reserve((void **)&g->cmds, &g->cmd_cap, g->cmd_count + 1, sizeof *g->cmds) ||
        mr_alloc_reserve((void **)&g->mats, &g->mat_cap, g->mat_count + (size_t)n, sizeof *g->mats) ||
        (text_len && mr_alloc_reserve((void **)&g->texts, &g->text_cap, g->text_len + text_len + 1, 1)) ||
        ((in->morph || in->skinning_mask) &&
         mr_alloc_reserve((void **)&g->morphs, &g->morph_cap,
                          g->morph_count + (size_t)(in->morph ? in->morph_count : 0) +
                              (size_t)(in->skinning_mask ? in->mat_count : 0),
                          sizeof *g->morphs)))
        return mr_error_set(err, MR_ERR_NO_MEMORY, "out of memory recording a draw");
    draw_cmd *c = &g->cmds[g->cmd_count++];
    memset(c, 0, sizeof *c);
    c->kind = in->kind;
    glm_mat4_copy((vec4 *)in->world, c->world);
    c->model = in->model;
    c->mat_first = -1;
    c->mat_count = in->mat_count;
    c->morph_first = -1;
    c->mask_first = -1;
    c->skinning = in->skinning;
    c->fixed_skinning = in->fixed_skinning;
    if (in->skinning_mask && in->mat_count > 0) {
        c->mask_first = (long)g->morph_count;
        memcpy(g->morphs + g->morph_count, in->skinning_mask, (size_t)in->mat_count * sizeof *g->morphs);
        g->morph_count += (size_t)in->mat_count;
    }
    if (in->morph && in->morph_count) {
        c->morph_first = (long)g->morph_count;
        c->morph_count = in->morph_count;
        memcpy(g->morphs + g->morph_count, in->morph, (size_t)in->morph_count * sizeof *g->morphs);
        g->morph_count += (size_t)in->morph_count;
    }
    if (g->watch && (in->kind == MR_LUA_DRAW_MODEL || in->kind == MR_LUA_DRAW_SKELETON))
        g->watch(g->watch_ud, in->model, in->mats, in->kind == MR_LUA_DRAW_MODEL ? in->morph : NULL,
                 in->kind == MR_LUA_DRAW_MODEL ? in->morph_count : -1);
    if (g->watch_world && (in->kind == MR_LUA_DRAW_MODEL ||
                           (in->kind == MR_LUA_DRAW_SKELETON && in->model->mesh_count == 0)))
        g->watch_world(g->watch_world_ud, in->model, in->mats, (vec4 *)in->world);
    if (n) {
        c->mat_first = (long)g->mat_count;
        if (in->kind == MR_LUA_DRAW_MODEL) mr_pose_skinning(&in->model->skeleton, in->mats, g->mats + c->mat_first);
        else memcpy(g->mats + c->mat_first, in->mats, sizeof(mat4) * (size_t)n);
        g->mat_count += (size_t)n;
    }
    memcpy(c->colour, in->colour, sizeof c->colour);
    c->wireframe = in->wireframe;
    c->no_shadow = in->no_shadow;
    c->names = in->names;
    c->axes = in->axes;
    c->overlay = in->overlay;
    memcpy(c->a, in->a, sizeof c->a);
    memcpy(c->b, in->b, sizeof c->b);
    c->x = in->x;
    c->y = in->y;
    c->size = in->size;
    if (in->kind == MR_LUA_DRAW_TEXT) {
        c->text = (long)g->text_len;
        memcpy(g->texts + g->text_len, in->text, text_len + 1);
        g->text_len += text_len + 1;
    }
    return MR_OK;
}

static mr_status screenshot(void *user, const char *path, mr_error *err)
{
    mr_lua_gfx *g = user;
    char *copy = NULL;
    if (mr_alloc_reserve((void **)&g->shots, &g->shot_cap, g->shot_count + 1, sizeof *g->shots) ||
        !(copy = mr_str_dup(path)))
        return mr_error_set(err, MR_ERR_NO_MEMORY, "out of memory");
    g->shots[g->shot_count++] = copy;
    return MR_OK;
}

static void clear_shots(mr_lua_gfx *g)
{
    for (size_t i = 0; i < g->shot_count; i++) free(g->shots[i]);
    g->shot_count = 0;
}

static void release(void *user)
{
    mr_lua_gfx *g = user;
    for (size_t i = 0; i < g->gpu_count; i++)
        if (g->r && g->gpu[i].id) mr_renderer_release_model(g->r, (mr_gpu_model){g->gpu[i].id});
    clear_shots(g);
    free(g->gpu);
    free(g->shots);
    free(g->cmds);
    free(g->mats);
    free(g->morphs);
    free(g->texts);
    free(g->text_boxes);
    free(g);
}

static const mr_lua_draw_hooks hooks = {begin, record, screenshot, release};

/* ---- host side ------------------------------------------------------------------ */

void mr_lua_draw_attach(mr_lua_ctx *ctx, mr_renderer *r)
{
    mr_lua_host *h = mr_lua_host_of_ctx(ctx);
    if (!h->draw) {
        mr_lua_gfx *g = calloc(1, sizeof *g);
        if (!g) return;
        g->ctx = ctx;
        g->tri_seconds = DRAW_TRIANGLE_SECONDS;
        h->draw = &hooks;
        h->draw_user = g;
    }
    ((mr_lua_gfx *)h->draw_user)->r = r;
}

int mr_lua_draw_screenshots(const mr_lua_ctx *ctx)
{
    const mr_lua_gfx *g = gfx_of((mr_lua_ctx *)ctx);
    return g ? g->shots_written : 0;
}

int mr_lua_draw_recorded(const mr_lua_ctx *ctx)
{
    const mr_lua_gfx *g = gfx_of((mr_lua_ctx *)ctx);
    int n = 0;
    if (g)
        for (size_t i = 0; i < g->cmd_count; i++) n += g->cmds[i].kind == MR_LUA_DRAW_MODEL;
    return n;
}

void mr_lua_draw_watch_poses(mr_lua_ctx *ctx, mr_lua_draw_pose_fn fn, void *ud)
{
    mr_lua_gfx *g = gfx_of(ctx);
    if (!g) return;
    g->watch = fn;
    g->watch_ud = ud;
}

void mr_lua_draw_watch_draws(mr_lua_ctx *ctx, mr_lua_draw_world_fn fn, void *ud)
{
    mr_lua_gfx *g = gfx_of(ctx);
    if (!g) return;
    g->watch_world = fn;
    g->watch_world_ud = ud;
}

int mr_lua_draw_text_boxes(const mr_lua_ctx *ctx, const int (**boxes)[4])
{
    const mr_lua_gfx *g = gfx_of((mr_lua_ctx *)ctx);
    *boxes = g ? (const int (*)[4])g->text_boxes : NULL;
    return g ? (int)g->text_box_count : 0;
}

/* Remembers the pixels a marrow.text string covers (see mr_lua_draw_text_boxes). */
static void text_box(mr_lua_gfx *g, float x, float y, float width, const char *s)
{
    float lh = mr_renderer_text_height(g->r);
    if (width <= 0 || lh <= 0) return;
    if (mr_alloc_reserve((void **)&g->text_boxes, &g->text_box_cap, g->text_box_count + 1, sizeof *g->text_boxes))
        return;
    int lines = 1;
    for (; *s; s++) lines += *s == '\n';
    int *b = g->text_boxes[g->text_box_count++];
    b[0] = (int)floorf(x) - 2;
    b[1] = (int)floorf(y) - 2;
    b[2] = (int)ceilf(x + width) + 2;
    b[3] = (int)ceilf(y + lh * (float)lines) + 2;
}

/* Uploads a model on first use; 0 when it cannot be drawn. */
static uint32_t gpu_model(mr_lua_gfx *g, const mr_model *model)
{
    gpu_entry *e = NULL;
    for (size_t i = 0; i < g->gpu_count && !e; i++)
        if (g->gpu[i].model == model) e = &g->gpu[i];
    if (!e) {
        if (mr_alloc_reserve((void **)&g->gpu, &g->gpu_cap, g->gpu_count + 1, sizeof *g->gpu)) return 0;
        e = &g->gpu[g->gpu_count++];
        *e = (gpu_entry){model, 0, 0};
    }
    if (e->id && mr_renderer_model_valid(g->r, (mr_gpu_model){e->id})) return e->id;
    if (e->failed) return 0;
    mr_gpu_model h;
    mr_error err = {0};
    if (mr_renderer_upload_model(g->r, model, &h, &err) != MR_OK) {
        e->failed = 1;
        char line[1100];
        snprintf(line, sizeof line, "marrow.draw: %s cannot be drawn: %s", model->path, err.msg);
        fprintf(stderr, "%s\n", line);
        mr_lua_console_add(g->ctx, line);
        return 0;
    }
    e->id = h.id;
    return h.id;
}

static void auto_frame(mr_lua_gfx *g, const mr_lua_host *h, mr_camera *cam)
{
    vec3 lo = {1e30f, 1e30f, 1e30f}, hi = {-1e30f, -1e30f, -1e30f};
    int any = 0;
    for (size_t i = 0; i < g->cmd_count; i++) {
        draw_cmd *c = &g->cmds[i];
        if (c->kind != MR_LUA_DRAW_MODEL) continue;
        uint32_t id = gpu_model(g, c->model);
        vec3 a, b;
        if (!id || !mr_renderer_model_bounds(g->r, (mr_gpu_model){id}, NULL, 0, c->world, a, b)) continue;
        glm_vec3_minv(lo, a, lo);
        glm_vec3_maxv(hi, b, hi);
        any = 1;
    }
    if (any) mr_camera_frame_bounds(cam, lo, hi, (float)h->width / (float)h->height);
}

static float measure(void *user, const char *s, size_t n) { return mr_renderer_text_width(user, s, n); }

static void overlay(mr_lua_gfx *g, const mr_lua_host *h)
{
    mr_renderer *r = g->r;
    float lh = mr_renderer_text_height(r);
    if (lh <= 0) return;
    int w, ht;
    mr_renderer_size(r, &w, &ht);
    float inner = (float)w - 16.0f;    /* 8 px margins: long lines wrap at the frame's width */
    /* The error, at most 24 lines, on its own dark panel across the bottom:
     * the script's own text (most scripts write theirs at the top) stays in
     * view, and the error is not mixed into it. */
    const char *err = mr_lua_error(g->ctx);
    char buf[4096];
    float panel_h = 0.0f;
    if (err) {
        char raw[4096];
        snprintf(raw, sizeof raw, "%s", err);
        for (char *p = raw; *p; p++)
            if (*p == '\t') *p = ' ';
        mr_lua_console_wrap(raw, inner, measure, r, buf, sizeof buf);
        int lines = 1;
        for (char *p = buf; *p; p++) {
            if (*p == '\n' && ++lines > 24) {
                *p = '\0';
                lines = 24;
                break;
            }
        }
        panel_h = 16.0f + lh * (float)lines;
    }
    /* Console: the last lines printed, bottom-left (above the error panel),
     * for 10 s of script time. */
    if (!h->console.hidden) {
        char wrapped[MR_LUA_CONSOLE_LINES][512];
        int lines[MR_LUA_CONSOLE_LINES], n = 0, shown = 0;
        double t;
        const char *line;
        for (int i = 0; (line = mr_lua_console_get(&h->console, i, &t)); i++) {
            if (h->time - t >= 10.0) continue;
            lines[n] = mr_lua_console_wrap(line, inner, measure, r, wrapped[n], sizeof wrapped[n]);
            shown += lines[n++];
        }
        float y = (float)ht - panel_h - 8.0f - lh * (float)shown;
        mr_text_style grey = {.colour = {0.92f, 0.92f, 0.92f, 1}};
        for (int i = 0; i < n; i++) {
            mr_renderer_text(r, 8.0f, y, wrapped[i], &grey);
            y += lh * (float)lines[i];
        }
    }
    if (err) {
        static const float panel[4] = {0.08f, 0.02f, 0.02f, 0.88f};
        float top = (float)ht - panel_h;
        mr_renderer_panel(r, 0.0f, top, (float)w, panel_h, panel);
        mr_text_style red = {.colour = {1.0f, 0.45f, 0.4f, 1}};
        mr_renderer_text(r, 8.0f, top + 8.0f, buf, &red);
    }
}

/* The renderer's scene from what the script set. */
static mr_scene scene_of(const mr_lua_view *v)
{
    mr_scene s = {0};
    s.camera = v->camera;
    memcpy(s.ambient, v->ambient, sizeof s.ambient);
    for (int i = 0; i < 2; i++) {
        memcpy(s.lights[i].direction, v->light_direction[i], sizeof(float) * 3);
        memcpy(s.lights[i].colour, v->light_colour[i], sizeof(float) * 3);
    }
    memcpy(s.sky_top, v->sky_top, sizeof s.sky_top);
    memcpy(s.sky_bottom, v->sky_bottom, sizeof s.sky_bottom);
    s.hide_floor = v->hide_floor;
    s.floor_y = v->floor_center[1];
    s.floor_center[0] = v->floor_center[0];
    s.floor_center[1] = v->floor_center[2];
    s.floor_centered = v->floor_centered;
    s.floor_extent = v->floor_radius;
    s.grid_step = v->grid_step;
    s.no_shadows = v->no_shadows;
    return s;
}

/* FNV-1a over n bytes, continuing from h. */
static uint64_t digest_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* A digest of everything the rendered picture depends on: the recording,
 * the view (camera, lights, sky), frame size and the overlay (console lines
 * shown, error). Recorded commands are zeroed before they are filled, and a
 * byte that differs only makes a frame render again, never the reverse. */
static uint64_t frame_digest(mr_lua_gfx *g, const mr_lua_host *h)
{
    uint64_t d = 0xcbf29ce484222325ull;
    d = digest_bytes(d, g->cmds, g->cmd_count * sizeof *g->cmds);
    d = digest_bytes(d, g->mats, g->mat_count * sizeof *g->mats);
    d = digest_bytes(d, g->morphs, g->morph_count * sizeof *g->morphs);
    d = digest_bytes(d, g->texts, g->text_len);
    d = digest_bytes(d, &h->view, sizeof h->view);
    int size[2];
    mr_renderer_size(g->r, &size[0], &size[1]);
    d = digest_bytes(d, size, sizeof size);
    d = digest_bytes(d, &h->console.hidden, sizeof h->console.hidden);
    if (!h->console.hidden) {
        double t;
        const char *line;
        for (int i = 0; (line = mr_lua_console_get(&h->console, i, &t)); i++)
            if (h->time - t < 10.0) d = digest_bytes(d, line, strlen(line) + 1);
    }
    const char *err = mr_lua_error(g->ctx);
    if (err) d = digest_bytes(d, err, strlen(err) + 1);
    return d;
}

void mr_lua_draw_skip_unchanged(mr_lua_ctx *ctx, int on)
{
    mr_lua_gfx *g = gfx_of(ctx);
    if (!g) return;
    g->skip_unchanged = on;
    g->have_last = 0;
}

void mr_lua_draw_invalidate(mr_lua_ctx *ctx)
{
    mr_lua_gfx *g = gfx_of(ctx);
    if (g) g->have_last = 0;
}

void mr_lua_draw_drop(mr_lua_ctx *ctx)
{
    mr_lua_gfx *g = gfx_of(ctx);
    if (!g) return;
    clear_shots(g);
    begin(g);
}

int mr_lua_draw_screenshots_pending(const mr_lua_ctx *ctx)
{
    const mr_lua_gfx *g = gfx_of((mr_lua_ctx *)ctx);
    return g && g->shot_count > 0;
}

/* A failure of the frame: shown as the context's error; the first one of
 * the frame also goes to err and gives the status. */
static void render_fail(mr_lua_ctx *ctx, mr_status *rc, mr_status st, const char *msg, mr_error *err)
{
    mr_lua_set_error(ctx, msg);
    if (*rc == MR_OK) *rc = mr_error_set(err, st, "%s", msg);
}

mr_status mr_lua_draw_render(mr_lua_ctx *ctx, int *skipped, mr_error *err)
{
    if (skipped) *skipped = 0;
    mr_lua_gfx *g = gfx_of(ctx);
    if (!g) return MR_OK;
    const mr_lua_host *h = mr_lua_host_of_ctx(ctx);
    mr_status rc = MR_OK;
    if (!g->r) {
        if (g->shot_count)
            render_fail(ctx, &rc, MR_ERR_SCRIPT, "marrow.screenshot: no renderer in this run", err);
        clear_shots(g);
        begin(g);
        return rc;
    }
    uint64_t digest = 0;
    if (g->skip_unchanged) {
        digest = frame_digest(g, h);
        if (!g->shot_count && g->have_last && digest == g->last_digest) {
            begin(g);
            if (skipped) *skipped = 1;
            return MR_OK;
        }
    }
    g->have_last = 0;
    double t0 = seconds_now();
    size_t tris = g->triangles, calls = g->cmd_count;
    mr_scene scene = scene_of(&h->view);
    if (!h->view.camera_set) auto_frame(g, h, &scene.camera);
    mr_status status = mr_renderer_begin_frame(g->r, &scene);
    if (status != MR_OK) {
        render_fail(ctx, &rc, status, "renderer: cannot begin a frame", err);
        return rc;
    }
    g->text_box_count = 0;
    for (size_t i = 0; i < g->cmd_count; i++) {
        draw_cmd *c = &g->cmds[i];
        switch (c->kind) {
        case MR_LUA_DRAW_MODEL: {
            uint32_t id = gpu_model(g, c->model);
            if (!id) break;
            mr_draw_style st = {.wireframe = c->wireframe, .no_shadow = c->no_shadow, .skinning = c->skinning,
                                .fixed_skinning = c->fixed_skinning,
                                .skinning_mask = c->mask_first >= 0 ? g->morphs + c->mask_first : NULL};
            if (c->morph_first >= 0 && c->morph_count == mr_renderer_morph_weight_count(g->r, (mr_gpu_model){id})) {
                st.morph_weights = g->morphs + c->morph_first;
                st.morph_weight_count = c->morph_count;
            }
            memcpy(st.tint, c->colour, sizeof(float) * 4);
            mr_renderer_draw_model(g->r, (mr_gpu_model){id}, c->mat_first >= 0 ? g->mats + c->mat_first : NULL,
                                   c->mat_count, c->world, &st);
            break;
        }
        case MR_LUA_DRAW_SKELETON: {
            mr_skeleton_style st = {0};
            if (c->colour[3] > 0) memcpy(st.bone_colour, c->colour, sizeof(float) * 4);
            st.names = c->names;
            st.axes = c->axes;
            mr_renderer_draw_skeleton(g->r, &c->model->skeleton, g->mats + c->mat_first, c->world, &st);
            break;
        }
        case MR_LUA_DRAW_LINE:
            mr_renderer_line(g->r, c->a, c->b, c->colour, c->overlay ? MR_LINE_OVERLAY : 0);
            break;
        case MR_LUA_DRAW_POINT:
            mr_renderer_point(g->r, c->a, c->colour, c->size);
            break;
        case MR_LUA_DRAW_TEXT: {
            mr_text_style st = {0};
            memcpy(st.colour, c->colour, sizeof(float) * 4);
            float tw = mr_renderer_text(g->r, c->x, c->y, g->texts + c->text, &st);
            text_box(g, c->x, c->y, tw, g->texts + c->text);
            break;
        }
        }
    }
    overlay(g, h);
    if ((status = mr_renderer_end_frame(g->r)) != MR_OK)
        render_fail(ctx, &rc, status, "renderer: the frame failed", err);
    for (size_t i = 0; i < g->shot_count; i++) {
        mr_error e = {0};
        if ((status = mr_renderer_screenshot(g->r, g->shots[i], &e)) == MR_OK) {
            /* The PNG counts against the script's write quota (wrap.h):
             * past it the file is removed and the frame fails. */
            struct stat sb;
            lua_State *L = mr_lua_current_state(ctx);
            if (L && stat(g->shots[i], &sb) == 0 &&
                mr_lua_host_charge_write(L, (long long)sb.st_blocks * 512 > (long long)sb.st_size
                                                ? (long long)sb.st_blocks * 512 : (long long)sb.st_size) != 0) {
                unlink(g->shots[i]);
                char *msg = mr_str_fmt("marrow.screenshot: %s: the script's write quota is spent (files, saves and "
                                       "screenshots together); not written", g->shots[i]);
                render_fail(ctx, &rc, MR_ERR_LIMIT, msg ? msg : "marrow.screenshot: the write quota is spent", err);
                free(msg);
            } else {
                g->shots_written++;
            }
        } else {
            char *msg = mr_str_fmt("marrow.screenshot: %s", e.msg);
            render_fail(ctx, &rc, status, msg ? msg : "marrow.screenshot failed", err);
            free(msg);
        }
    }
    if (tris >= DRAW_MEASURE_MIN_TRIANGLES) {
        double per = (seconds_now() - t0 - (double)calls * DRAW_CALL_SECONDS) / (double)tris;
        if (per > 1e-9) g->tri_seconds = 0.7 * g->tri_seconds + 0.3 * per;
    }
    clear_shots(g);
    begin(g);
    if (rc == MR_OK && g->skip_unchanged && digest) {
        g->last_digest = digest;
        g->have_last = 1;
    }
    return rc;
}
