/* lua_draw.c — the drawing functions of the marrow module, and the only
 * place where the Lua layer calls the renderer (see draw.h).
 *
 *   marrow.draw(model [, pose] [, {transform = mat4, tint = {r,g,b,a},
 *               wireframe = bool, shadow = bool}])
 *   marrow.draw_skeleton(model, pose [, {transform, colour, names = bool}])
 *   marrow.attach(model, pose, joint [, offset] [, {transform, offset}]) -> mat4
 *       the joint's frame in world space: m[13], m[14], m[15] is the joint's
 *       world position, and a prop drawn with {transform = m} follows it;
 *       offset (a mat4 in the joint's frame, model units: inches for MD5)
 *       places the prop relative to the joint (a sword's grip in the hand).
 *       The prop's own coordinates are read in the character's frame, so
 *       an MD5 prop held by an MD5 character needs no conversion
 *   marrow.camera{target = vec3, distance, yaw, pitch, fov, near, far} -> eye, target
 *       fields not given keep their value; until a target or distance is
 *       set, the camera frames the models drawn
 *   marrow.light(i, {direction = vec3, colour = {r,g,b}})   i = 1 (casts the shadow) or 2
 *   marrow.scene{ambient = {r,g,b}, floor = bool, shadows = bool,
 *                sky_top = colour, sky_bottom = colour}
 *   marrow.line(a, b [, colour [, overlay]])  marrow.point(p [, colour [, size]])
 *   marrow.text(x, y, s [, colour])           pixels, top-left origin
 *   marrow.screenshot(path) -> path           written when the frame is done;
 *       relative paths are under --out (headless) or the working directory
 *   marrow.console(show)                      show (default) or hide the
 *       on-screen console of printed lines (errors are always shown)
 *
 * Drawing calls belong in draw(): what is recorded earlier in the frame is
 * dropped when draw() starts. World space is Y-up metres; a model is placed
 * by transform * its display matrix (MD5's Z-up inches to Y-up metres).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "gfx/renderer.h"
#include "lua/draw.h"
#include "lua/lua_internal.h"

enum { CMD_MODEL, CMD_SKELETON, CMD_LINE, CMD_POINT, CMD_TEXT };

typedef struct draw_cmd {
    mat4 world;              /* model and skeleton: transform * display */
    int kind;
    mr_cache_entry *entry;   /* model and skeleton */
    const mr_skeleton *sk;   /* skeleton */
    long mat_first;          /* first matrix in mats, -1 for the bind pose */
    int mat_count;
    float colour[4];         /* tint, line/point/text colour */
    int wireframe, no_shadow, names, overlay;
    float a[3], b[3];        /* line ends, point position */
    float x, y, size;        /* text position, point size */
    long text;               /* offset of the text in texts */
} draw_cmd;

typedef struct mr_lua_gfx {
    mr_renderer *r;
    draw_cmd *cmds;
    size_t cmd_count, cmd_cap;
    mat4 *mats;
    size_t mat_count, mat_cap;
    char *texts;
    size_t text_len, text_cap;
    char **shots;            /* screenshot paths asked for this frame */
    size_t shot_count, shot_cap;
    mr_camera camera;
    int camera_set;          /* the script set a target or distance */
    mr_scene scene;
    int skip_unchanged;      /* mr_lua_gfx_skip_unchanged */
    int have_last;           /* last_digest is the picture the renderer holds */
    uint64_t last_digest;
} mr_lua_gfx;

static mr_lua_gfx *gfx_of(lua_State *L)
{
    mr_lua_ctx *ctx = mr_lua_state_of(L)->ctx;
    if (!ctx->gfx) {
        ctx->gfx = calloc(1, sizeof *ctx->gfx);
        if (!ctx->gfx) luaL_error(L, "out of memory");
        ctx->gfx->camera.yaw = 30.0f;
        ctx->gfx->camera.pitch = 15.0f;
        ctx->gfx->camera.distance = 4.0f;
        ctx->gfx->camera.target[1] = 1.0f;
    }
    return ctx->gfx;
}

static draw_cmd *new_cmd(lua_State *L, mr_lua_gfx *g, int kind)
{
    if (mr_array_reserve((void **)&g->cmds, &g->cmd_cap, g->cmd_count + 1, sizeof *g->cmds))
        luaL_error(L, "out of memory recording a draw");
    draw_cmd *c = &g->cmds[g->cmd_count++];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->mat_first = -1;
    for (int i = 0; i < 4; i++) c->colour[i] = 1.0f;
    glm_mat4_identity(c->world);
    return c;
}

static long new_mats(lua_State *L, mr_lua_gfx *g, int n)
{
    if (mr_array_reserve((void **)&g->mats, &g->mat_cap, g->mat_count + (size_t)n, sizeof *g->mats))
        luaL_error(L, "out of memory recording a draw");
    long first = (long)g->mat_count;
    g->mat_count += (size_t)n;
    return first;
}

/* ---- options ---------------------------------------------------------------- */

static int opt_field(lua_State *L, int opts, const char *name)
{
    if (lua_isnoneornil(L, opts)) {
        lua_pushnil(L);
        return LUA_TNIL;
    }
    return lua_getfield(L, opts, name);
}

/* world = opts.transform * display(model) */
static void world_matrix(lua_State *L, int opts, const mr_model *model, mat4 world)
{
    mat4 d, t = GLM_MAT4_IDENTITY_INIT;
    mr_model_display_matrix(model, d);
    if (opt_field(L, opts, "transform") != LUA_TNIL) {
        if (!luaL_testudata(L, -1, MR_LUA_MAT4))
            luaL_argerror(L, opts, lua_pushfstring(L, "opts.transform must be a mat4, got %s",
                                                   luaL_typename(L, -1)));
        mr_lua_check_mat4(L, lua_gettop(L), t);
    }
    lua_pop(L, 1);
    glm_mat4_mul(t, d, world);
}

static void opt_colour(lua_State *L, int opts, const char *name, float out[4])
{
    if (opt_field(L, opts, name) != LUA_TNIL) mr_lua_check_colour(L, lua_gettop(L), out);
    lua_pop(L, 1);
}

static int opt_bool(lua_State *L, int opts, const char *name, int def)
{
    int t = opt_field(L, opts, name);
    int v = t == LUA_TNIL ? def : lua_toboolean(L, -1);
    lua_pop(L, 1);
    return v;
}

static void check_opts_table(lua_State *L, int arg)
{
    if (!lua_isnoneornil(L, arg)) luaL_checktype(L, arg, LUA_TTABLE);
}

static mr_lua_pose *opt_pose(lua_State *L, int arg, const mr_model *model)
{
    if (lua_isnoneornil(L, arg)) return NULL;
    mr_lua_pose *p = mr_lua_check_pose(L, arg);
    if (p->pose.joint_count != model->skeleton.joint_count)
        luaL_argerror(L, arg, lua_pushfstring(L, "pose has %d joints but the model has %d",
                                              p->pose.joint_count, model->skeleton.joint_count));
    return p;
}

/* ---- drawing functions ------------------------------------------------------- */

static int l_draw(lua_State *L)
{
    mr_lua_model *m = mr_lua_check_model(L, 1);
    mr_lua_pose *p = opt_pose(L, 2, m->model);
    check_opts_table(L, 3);
    mr_lua_gfx *g = gfx_of(L);
    mat4 world;
    world_matrix(L, 3, m->model, world);
    float tint[4] = {1, 1, 1, 1};
    opt_colour(L, 3, "tint", tint);
    int wire = opt_bool(L, 3, "wireframe", 0), shadow = opt_bool(L, 3, "shadow", 1);
    long first = -1;
    int n = m->model->skeleton.joint_count;
    if (p && n > 0) {
        first = new_mats(L, g, n);
        mr_pose_skinning(&m->model->skeleton, mr_lua_pose_model(p), g->mats + first);
    }
    draw_cmd *c = new_cmd(L, g, CMD_MODEL);
    glm_mat4_copy(world, c->world);
    c->entry = m->entry;
    c->mat_first = first;
    c->mat_count = n;
    memcpy(c->colour, tint, sizeof tint);
    c->wireframe = wire;
    c->no_shadow = !shadow;
    return 0;
}

static int l_draw_skeleton(lua_State *L)
{
    mr_lua_model *m = mr_lua_check_model(L, 1);
    mr_lua_pose *p = opt_pose(L, 2, m->model);
    check_opts_table(L, 3);
    mr_lua_gfx *g = gfx_of(L);
    mat4 world;
    world_matrix(L, 3, m->model, world);
    float colour[4] = {0, 0, 0, 0};
    opt_colour(L, 3, "colour", colour);
    opt_colour(L, 3, "color", colour);
    int names = opt_bool(L, 3, "names", 0);
    const mr_skeleton *sk = &m->model->skeleton;
    if (sk->joint_count == 0) return 0;
    long first = new_mats(L, g, sk->joint_count);
    if (p) {
        memcpy(g->mats + first, mr_lua_pose_model(p), sizeof(mat4) * (size_t)sk->joint_count);
    } else {
        mr_pose rest;
        if (mr_pose_make(&rest, sk->joint_count) != MR_OK) return luaL_error(L, "out of memory");
        mr_pose_set_rest(&rest, sk);
        mr_pose_to_model(sk, &rest, g->mats + first);
        mr_pose_destroy(&rest);
    }
    draw_cmd *c = new_cmd(L, g, CMD_SKELETON);
    glm_mat4_copy(world, c->world);
    c->entry = m->entry;
    c->sk = sk;
    c->mat_first = first;
    c->mat_count = sk->joint_count;
    memcpy(c->colour, colour, sizeof colour);
    c->names = names;
    return 0;
}

static int l_attach(lua_State *L)
{
    mr_lua_model *m = mr_lua_check_model(L, 1);
    mr_lua_pose *p = opt_pose(L, 2, m->model);
    if (!p) return luaL_typeerror(L, 2, MR_LUA_POSE);
    int j = mr_lua_check_joint(L, 3, p->sk);
    mat4 offset = GLM_MAT4_IDENTITY_INIT;
    int opts = 4;
    if (luaL_testudata(L, 4, MR_LUA_MAT4)) {   /* attach(model, pose, joint, offset [, opts]) */
        mr_lua_check_mat4(L, 4, offset);
        opts = 5;
    }
    check_opts_table(L, opts);
    if (opt_field(L, opts, "offset") != LUA_TNIL) {
        if (!luaL_testudata(L, -1, MR_LUA_MAT4))
            luaL_argerror(L, opts, lua_pushfstring(L, "opts.offset must be a mat4, got %s", luaL_typename(L, -1)));
        mr_lua_check_mat4(L, lua_gettop(L), offset);
    }
    lua_pop(L, 1);
    mat4 world, dinv, joint, out;
    world_matrix(L, opts, m->model, world);    /* T * D */
    mr_model_display_matrix(m->model, dinv);
    glm_mat4_inv(dinv, dinv);
    glm_mat4_copy((vec4 *)mr_lua_pose_model(p)[j], joint);
    glm_mat4_mul(joint, offset, joint);         /* J * O: the prop in the joint's frame */
    glm_mat4_mul(world, joint, out);
    glm_mat4_mul(out, dinv, out);               /* T * D * J * O * D^-1 */
    mr_lua_push_mat4(L, out);
    return 1;
}

static float field_num(lua_State *L, int t, const char *name, float def, int *set)
{
    lua_getfield(L, t, name);
    float v = def;
    if (!lua_isnil(L, -1)) {
        int isnum;
        lua_Number n = lua_tonumberx(L, -1, &isnum);
        if (!isnum || !isfinite(n))
            luaL_argerror(L, t, lua_pushfstring(L, "'%s' must be a finite number", name));
        v = (float)n;
        if (set) *set = 1;
    }
    lua_pop(L, 1);
    return v;
}

static int l_camera(lua_State *L)
{
    mr_lua_gfx *g = gfx_of(L);
    mr_camera *c = &g->camera;
    if (!lua_isnoneornil(L, 1)) {
        luaL_checktype(L, 1, LUA_TTABLE);
        mr_camera n = *c;
        int placed = 0;
        if (lua_getfield(L, 1, "target") != LUA_TNIL) {
            mr_lua_check_vec3(L, lua_gettop(L), n.target);
            placed = 1;
        }
        lua_pop(L, 1);
        n.distance = field_num(L, 1, "distance", n.distance, &placed);
        n.yaw = field_num(L, 1, "yaw", n.yaw, NULL);
        n.pitch = field_num(L, 1, "pitch", n.pitch, NULL);
        n.fov_y = field_num(L, 1, "fov", n.fov_y, NULL);
        n.near_z = field_num(L, 1, "near", n.near_z, NULL);
        n.far_z = field_num(L, 1, "far", n.far_z, NULL);
        luaL_argcheck(L, n.fov_y >= 0 && n.fov_y < 179, 1, "fov must be within 0..179 degrees");
        *c = n;
        if (placed) g->camera_set = 1;
    }
    vec3 eye;
    mr_camera_eye(c, eye);
    mr_lua_push_vec3(L, eye);
    mr_lua_push_vec3(L, c->target);
    return 2;
}

static int l_light(lua_State *L)
{
    mr_lua_gfx *g = gfx_of(L);
    lua_Integer i = luaL_checkinteger(L, 1);
    luaL_argcheck(L, i == 1 || i == 2, 1, "light index must be 1 or 2");
    luaL_checktype(L, 2, LUA_TTABLE);
    mr_light *l = &g->scene.lights[i - 1];
    if (lua_getfield(L, 2, "direction") != LUA_TNIL) mr_lua_check_vec3(L, lua_gettop(L), l->direction);
    lua_pop(L, 1);
    float c[4] = {l->color[0], l->color[1], l->color[2], 1};
    opt_colour(L, 2, "colour", c);
    opt_colour(L, 2, "color", c);
    memcpy(l->color, c, sizeof(float) * 3);
    return 0;
}

static int l_scene(lua_State *L)
{
    mr_lua_gfx *g = gfx_of(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    mr_scene *s = &g->scene;
    float c[4];
    if (lua_getfield(L, 1, "ambient") != LUA_TNIL) {
        mr_lua_check_colour(L, lua_gettop(L), c);
        memcpy(s->ambient, c, sizeof(float) * 3);
    }
    lua_pop(L, 1);
    if (lua_getfield(L, 1, "sky_top") != LUA_TNIL) {
        mr_lua_check_colour(L, lua_gettop(L), c);
        memcpy(s->sky_top, c, sizeof c);
    }
    lua_pop(L, 1);
    if (lua_getfield(L, 1, "sky_bottom") != LUA_TNIL) {
        mr_lua_check_colour(L, lua_gettop(L), c);
        memcpy(s->sky_bottom, c, sizeof c);
    }
    lua_pop(L, 1);
    s->hide_floor = !opt_bool(L, 1, "floor", !s->hide_floor);
    s->no_shadows = !opt_bool(L, 1, "shadows", !s->no_shadows);
    return 0;
}

static void opt_arg_colour(lua_State *L, int arg, float out[4])
{
    for (int i = 0; i < 4; i++) out[i] = 1.0f;
    if (!lua_isnoneornil(L, arg)) mr_lua_check_colour(L, arg, out);
}

static int l_line(lua_State *L)
{
    float a[3], b[3], col[4];
    mr_lua_check_vec3(L, 1, a);
    mr_lua_check_vec3(L, 2, b);
    opt_arg_colour(L, 3, col);
    draw_cmd *c = new_cmd(L, gfx_of(L), CMD_LINE);
    memcpy(c->a, a, sizeof a);
    memcpy(c->b, b, sizeof b);
    memcpy(c->colour, col, sizeof col);
    c->overlay = lua_toboolean(L, 4);
    return 0;
}

static int l_point(lua_State *L)
{
    float a[3], col[4];
    mr_lua_check_vec3(L, 1, a);
    opt_arg_colour(L, 2, col);
    float size = (float)luaL_optnumber(L, 3, 6.0);
    draw_cmd *c = new_cmd(L, gfx_of(L), CMD_POINT);
    memcpy(c->a, a, sizeof a);
    memcpy(c->colour, col, sizeof col);
    c->size = size;
    return 0;
}

static int l_text(lua_State *L)
{
    float x = (float)luaL_checknumber(L, 1), y = (float)luaL_checknumber(L, 2);
    luaL_checkany(L, 3);
    float col[4];
    opt_arg_colour(L, 4, col);
    size_t len;
    const char *s = luaL_tolstring(L, 3, &len);
    mr_lua_gfx *g = gfx_of(L);
    if (mr_array_reserve((void **)&g->texts, &g->text_cap, g->text_len + len + 1, 1))
        return luaL_error(L, "out of memory recording text");
    draw_cmd *c = new_cmd(L, g, CMD_TEXT);
    c->x = x;
    c->y = y;
    c->text = (long)g->text_len;
    memcpy(g->texts + g->text_len, s, len + 1);
    g->text_len += len + 1;
    memcpy(c->colour, col, sizeof col);
    return 0;
}

static void make_parents(const char *path);

static int l_console(lua_State *L)
{
    mr_lua_state_of(L)->ctx->console_hidden = !lua_toboolean(L, 1);
    return 0;
}

static int l_screenshot(lua_State *L)
{
    mr_lua_ctx *ctx = mr_lua_state_of(L)->ctx;
    const char *path = luaL_checkstring(L, 1);
    luaL_argcheck(L, path[0] != '\0', 1, "empty path");
    mr_lua_gfx *g = gfx_of(L);
    if (path[0] != '/' && ctx->out_dir) lua_pushfstring(L, "%s/%s", ctx->out_dir, path);
    else lua_pushstring(L, path);
    if (mr_array_reserve((void **)&g->shots, &g->shot_cap, g->shot_count + 1, sizeof *g->shots))
        return luaL_error(L, "out of memory");
    /* Fail here, at the script's line, when the file cannot be written. */
    const char *full = lua_tostring(L, -1);
    make_parents(full);
    const char *slash = strrchr(full, '/');
    lua_pushlstring(L, full, slash ? (size_t)(slash - full) : 1);
    if (access(slash ? lua_tostring(L, -1) : ".", W_OK) != 0)
        return luaL_error(L, "marrow.screenshot: cannot write '%s': %s", full, strerror(errno));
    lua_pop(L, 1);
    char *copy = mr_strdup(full);
    if (!copy) return luaL_error(L, "out of memory");
    g->shots[g->shot_count++] = copy;
    return 1;
}

static const luaL_Reg draw_funcs[] = {
    {"draw", l_draw},   {"draw_skeleton", l_draw_skeleton}, {"attach", l_attach},
    {"camera", l_camera}, {"light", l_light}, {"scene", l_scene},
    {"line", l_line},   {"point", l_point}, {"text", l_text},
    {"screenshot", l_screenshot}, {"console", l_console},
    {NULL, NULL},
};

void mr_lua_open_draw(lua_State *L)
{
    luaL_setfuncs(L, draw_funcs, 0);
}

/* ---- host side ------------------------------------------------------------------ */

void mr_lua_gfx_begin(mr_lua_ctx *ctx)
{
    mr_lua_gfx *g = ctx->gfx;
    if (!g) return;
    g->cmd_count = 0;
    g->mat_count = 0;
    g->text_len = 0;
}

static void clear_shots(mr_lua_gfx *g)
{
    for (size_t i = 0; i < g->shot_count; i++) free(g->shots[i]);
    g->shot_count = 0;
}

void mr_lua_gfx_attach(mr_lua_ctx *ctx, mr_renderer *r)
{
    if (!ctx->gfx) {
        ctx->gfx = calloc(1, sizeof *ctx->gfx);
        if (!ctx->gfx) return;
        ctx->gfx->camera.yaw = 30.0f;
        ctx->gfx->camera.pitch = 15.0f;
        ctx->gfx->camera.distance = 4.0f;
        ctx->gfx->camera.target[1] = 1.0f;
    }
    ctx->gfx->r = r;
}

void mr_lua_gfx_free(mr_lua_ctx *ctx)
{
    mr_lua_gfx *g = ctx->gfx;
    if (!g) return;
    for (int i = 0; i < ctx->cache_count; i++) {
        if (g->r && ctx->cache[i]->gpu_id) mr_renderer_release_model(g->r, (mr_gpu_model){ctx->cache[i]->gpu_id});
        ctx->cache[i]->gpu_id = 0;
    }
    clear_shots(g);
    free(g->shots);
    free(g->cmds);
    free(g->mats);
    free(g->texts);
    free(g);
    ctx->gfx = NULL;
}

int mr_lua_gfx_recorded(const mr_lua_ctx *ctx)
{
    int n = 0;
    if (ctx->gfx)
        for (size_t i = 0; i < ctx->gfx->cmd_count; i++) n += ctx->gfx->cmds[i].kind == CMD_MODEL;
    return n;
}

/* Uploads a cache entry's model on first use; 0 when it cannot be drawn. */
static uint32_t gpu_model(mr_lua_ctx *ctx, mr_cache_entry *e)
{
    mr_lua_gfx *g = ctx->gfx;
    if (e->gpu_id && mr_renderer_model_valid(g->r, (mr_gpu_model){e->gpu_id})) return e->gpu_id;
    if (e->gpu_failed) return 0;
    mr_gpu_model h;
    mr_error err = {0};
    if (mr_renderer_upload_model(g->r, e->model, &h, &err) != MR_OK) {
        e->gpu_failed = 1;
        char line[1100];
        snprintf(line, sizeof line, "marrow.draw: %s cannot be drawn: %s", e->model->path, err.msg);
        fprintf(stderr, "%s\n", line);
        mr_lua_console_add(ctx, line);
        return 0;
    }
    e->gpu_id = h.id;
    return h.id;
}

/* Creates the directories above path. */
static void make_parents(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(buf, 0777);
            *p = '/';
        }
}

static void auto_frame(mr_lua_ctx *ctx, mr_camera *cam)
{
    mr_lua_gfx *g = ctx->gfx;
    vec3 lo = {1e30f, 1e30f, 1e30f}, hi = {-1e30f, -1e30f, -1e30f};
    int any = 0;
    for (size_t i = 0; i < g->cmd_count; i++) {
        draw_cmd *c = &g->cmds[i];
        if (c->kind != CMD_MODEL) continue;
        uint32_t id = gpu_model(ctx, c->entry);
        vec3 a, b;
        if (!id || !mr_renderer_model_bounds(g->r, (mr_gpu_model){id}, NULL, 0, c->world, a, b)) continue;
        glm_vec3_minv(lo, a, lo);
        glm_vec3_maxv(hi, b, hi);
        any = 1;
    }
    if (any) mr_camera_frame_bounds(cam, lo, hi, (float)ctx->width / (float)ctx->height);
}

static void overlay(mr_lua_ctx *ctx)
{
    mr_renderer *r = ctx->gfx->r;
    float lh = mr_renderer_text_height(r);
    if (lh <= 0) return;
    int w, h;
    mr_renderer_size(r, &w, &h);
    /* Console: the last lines printed, bottom-left, for 10 s of script time. */
    if (!ctx->console_hidden) {
        int shown = 0;
        for (int i = 0; mr_lua_console_line(ctx, i); i++)
            if (ctx->time - ctx->console_time[(ctx->console_head + i) % MR_LUA_CONSOLE_LINES] < 10.0) shown++;
        float y = (float)h - 8.0f - lh * (float)shown;
        mr_text_style grey = {.color = {0.92f, 0.92f, 0.92f, 1}};
        for (int i = 0; mr_lua_console_line(ctx, i); i++) {
            if (ctx->time - ctx->console_time[(ctx->console_head + i) % MR_LUA_CONSOLE_LINES] >= 10.0) continue;
            mr_renderer_text(r, 8.0f, y, mr_lua_console_line(ctx, i), &grey);
            y += lh;
        }
    }
    /* The error, over the scene, top-left, at most 24 lines. */
    const char *err = mr_lua_error(ctx);
    if (err) {
        char buf[4096];
        snprintf(buf, sizeof buf, "%s", err);
        int lines = 1;
        for (char *p = buf; *p; p++) {
            if (*p == '\t') *p = ' ';
            if (*p == '\n' && ++lines > 24) {
                *p = '\0';
                break;
            }
        }
        mr_text_style red = {.color = {1.0f, 0.35f, 0.3f, 1}};
        mr_renderer_text(r, 8.0f, 8.0f, buf, &red);
    }
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
 * camera, scene, frame size and the overlay (console lines shown, error).
 * Padding bytes inside the recorded structs are zero (new_cmd, calloc), and
 * a byte that differs only makes a frame render again, never the reverse. */
static uint64_t frame_digest(mr_lua_ctx *ctx)
{
    mr_lua_gfx *g = ctx->gfx;
    uint64_t h = 0xcbf29ce484222325ull;
    h = digest_bytes(h, g->cmds, g->cmd_count * sizeof *g->cmds);
    h = digest_bytes(h, g->mats, g->mat_count * sizeof *g->mats);
    h = digest_bytes(h, g->texts, g->text_len);
    h = digest_bytes(h, &g->camera, sizeof g->camera);
    h = digest_bytes(h, &g->camera_set, sizeof g->camera_set);
    h = digest_bytes(h, &g->scene, sizeof g->scene);
    int size[2];
    mr_renderer_size(g->r, &size[0], &size[1]);
    h = digest_bytes(h, size, sizeof size);
    h = digest_bytes(h, &ctx->console_hidden, sizeof ctx->console_hidden);
    if (!ctx->console_hidden) {
        for (int i = 0; mr_lua_console_line(ctx, i); i++) {
            if (ctx->time - ctx->console_time[(ctx->console_head + i) % MR_LUA_CONSOLE_LINES] >= 10.0) continue;
            const char *line = mr_lua_console_line(ctx, i);
            h = digest_bytes(h, line, strlen(line) + 1);
        }
    }
    const char *err = mr_lua_error(ctx);
    if (err) h = digest_bytes(h, err, strlen(err) + 1);
    return h;
}

void mr_lua_gfx_skip_unchanged(mr_lua_ctx *ctx, int on)
{
    if (!ctx->gfx) return;
    ctx->gfx->skip_unchanged = on;
    ctx->gfx->have_last = 0;
}

void mr_lua_gfx_invalidate(mr_lua_ctx *ctx)
{
    if (ctx->gfx) ctx->gfx->have_last = 0;
}

void mr_lua_gfx_drop(mr_lua_ctx *ctx)
{
    if (!ctx->gfx) return;
    clear_shots(ctx->gfx);
    mr_lua_gfx_begin(ctx);
}

int mr_lua_gfx_render(mr_lua_ctx *ctx)
{
    mr_lua_gfx *g = ctx->gfx;
    if (!g) return 0;
    int rc = 0;
    if (!g->r) {
        if (g->shot_count) {
            mr_lua_set_error(ctx, "marrow.screenshot: no renderer in this run");
            rc = -1;
        }
        clear_shots(g);
        mr_lua_gfx_begin(ctx);
        return rc;
    }
    uint64_t digest = 0;
    if (g->skip_unchanged) {
        digest = frame_digest(ctx);
        if (!g->shot_count && g->have_last && digest == g->last_digest) {
            mr_lua_gfx_begin(ctx);
            return 1;
        }
    }
    g->have_last = 0;
    mr_scene scene = g->scene;
    scene.camera = g->camera;
    if (!g->camera_set) auto_frame(ctx, &scene.camera);
    if (mr_renderer_begin_frame(g->r, &scene) != MR_OK) {
        mr_lua_set_error(ctx, "renderer: cannot begin a frame");
        return -1;
    }
    for (size_t i = 0; i < g->cmd_count; i++) {
        draw_cmd *c = &g->cmds[i];
        switch (c->kind) {
        case CMD_MODEL: {
            uint32_t id = gpu_model(ctx, c->entry);
            if (!id) break;
            mr_draw_style st = {.wireframe = c->wireframe, .no_shadow = c->no_shadow};
            memcpy(st.tint, c->colour, sizeof(float) * 4);
            mr_renderer_draw_model(g->r, (mr_gpu_model){id}, c->mat_first >= 0 ? g->mats + c->mat_first : NULL,
                                   c->mat_count, c->world, &st);
            break;
        }
        case CMD_SKELETON: {
            mr_skeleton_style st = {0};
            if (c->colour[3] > 0) memcpy(st.bone_color, c->colour, sizeof(float) * 4);
            st.names = c->names;
            mr_renderer_draw_skeleton(g->r, c->sk, g->mats + c->mat_first, c->world, &st);
            break;
        }
        case CMD_LINE:
            mr_renderer_line(g->r, c->a, c->b, c->colour, c->overlay ? MR_LINE_OVERLAY : 0);
            break;
        case CMD_POINT:
            mr_renderer_point(g->r, c->a, c->colour, c->size);
            break;
        case CMD_TEXT: {
            mr_text_style st = {0};
            memcpy(st.color, c->colour, sizeof(float) * 4);
            mr_renderer_text(g->r, c->x, c->y, g->texts + c->text, &st);
            break;
        }
        }
    }
    overlay(ctx);
    if (mr_renderer_end_frame(g->r) != MR_OK) {
        mr_lua_set_error(ctx, "renderer: the frame failed");
        rc = -1;
    }
    for (size_t i = 0; i < g->shot_count; i++) {
        mr_error err = {0};
        make_parents(g->shots[i]);
        if (mr_renderer_screenshot(g->r, g->shots[i], &err) != MR_OK) {
            char *msg = mr_strfmt("marrow.screenshot: %s", err.msg);
            mr_lua_set_error(ctx, msg ? msg : "marrow.screenshot failed");
            free(msg);
            rc = -1;
        }
    }
    clear_shots(g);
    mr_lua_gfx_begin(ctx);
    if (rc == 0 && g->skip_unchanged && digest) {
        g->last_digest = digest;
        g->have_last = 1;
    }
    return rc;
}
