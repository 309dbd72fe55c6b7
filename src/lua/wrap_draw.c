/* wrap_draw.c — the drawing functions of the marrow module. They check
 * their arguments and hand each call to the drawing hooks a renderer
 * registered (mr_lua_host.draw, see draw.c); without a renderer every call
 * is checked the same and dropped. This file never calls the renderer.
 *
 *   marrow.draw(model [, pose] [, {transform = mat4, tint = {r,g,b,a},
 *               wireframe = bool, shadow = bool}])
 *   marrow.draw_skeleton(model [, pose] [, {transform, colour, names = bool,
 *                        axes = bool, limits = {...}}])   axes: each joint's local X, Y, Z
 *       as short red, green, blue lines (which axis runs along the bone);
 *       limits (pose:ik_chain's table): each limit drawn at its joint, a
 *       cone of lines around the bone's rest direction, or a hinge's arc
 *       from min to max (orange, over the model)
 *   marrow.camera{target = vec3, distance, yaw, pitch, fov, near, far} -> eye, target
 *       fields not given keep their value; until a target or distance is
 *       set, the camera frames the models drawn
 *   marrow.light(i, {direction = vec3, colour = {r,g,b}})   i = 1 (casts the shadow) or 2
 *   marrow.scene{ambient = {r,g,b}, floor = bool | {visible = bool,
 *                center = vec3 | false, radius = metres, grid = metres},
 *                shadows = bool, sky_top = colour, sky_bottom = colour}
 *       the floor is fixed in the world: by default under the camera's eye,
 *       3 camera distances across, fading with distance from the camera;
 *       center (its y is the floor's height) pins it, radius sizes it
 *       (0: the default), fields not given keep their value
 *   marrow.line(a, b [, colour [, overlay]])  marrow.point(p [, colour [, size]])
 *   marrow.text(x, y, s [, colour])           pixels, top-left origin
 *   marrow.screenshot(path) -> path           written when the frame is done;
 *       where io may write (sandbox.h): relative paths under --out (headless
 *       default: the working directory; a window without --out: beside the
 *       script), missing folders made
 *   marrow.render()                           the C module only: renders what
 *       was drawn since the last render, writes the screenshots asked for
 *   marrow.console(show)                      show or hide the on-screen
 *       console of printed lines: shown by default in a window, hidden by
 *       default headless (screenshots and regression shots stay clean;
 *       `marrow run --console` or marrow.console(true) draws it there too);
 *       errors are always shown, on their own panel
 *
 * Drawing calls belong in draw(): what is recorded earlier in the frame is
 * dropped when draw() starts. World space is Y-up metres; a model is placed
 * by transform * its display matrix (MD5's Z-up inches to Y-up metres).
 * marrow.attach (a joint's world frame) is in wrap_pose.c.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "core/quat.h"
#include "lua/ik_limits.h"
#include "lua/wrap.h"

static void record(lua_State *L, const mr_lua_draw_cmd *c)
{
    mr_lua_host *h = mr_lua_host_of(L);
    mr_error err;
    if (h->draw && h->draw->record(h->draw_user, c, &err) != MR_OK) mr_lua_raise(L, "%s", err.msg);
}

static mr_lua_draw_cmd new_cmd(int kind)
{
    mr_lua_draw_cmd c = {.kind = kind, .colour = {1, 1, 1, 1}};
    glm_mat4_identity(c.world);
    return c;
}

/* world = opts.transform * display(model) */
static void world_matrix(lua_State *L, const mr_lua_opts *o, const mr_model *model, mat4 world)
{
    mat4 d, t = GLM_MAT4_IDENTITY_INIT;
    mr_model_display_matrix(model, d);
    mr_lua_opt_mat4(L, o, "transform", t);
    glm_mat4_mul(t, d, world);
}

/* The arguments shared by draw and draw_skeleton: (model [, pose] [, opts]). */
static mr_lua_draw_cmd model_cmd(lua_State *L, int kind, mr_lua_model **m, mr_lua_pose **p, mr_lua_opts *o)
{
    *m = mr_lua_check_model(L, 1);
    int has_pose;
    *o = mr_lua_check_opts_after(L, 2, luaL_testudata(L, 2, MR_LUA_POSE) != NULL, "opts", &has_pose);
    *p = has_pose ? mr_lua_check_pose_of(L, 2, &(*m)->model->skeleton) : NULL;
    mr_lua_draw_cmd c = new_cmd(kind);
    world_matrix(L, o, (*m)->model, c.world);
    c.model = (*m)->model;
    return c;
}

static int l_draw(lua_State *L)
{
    mr_lua_model *m;
    mr_lua_pose *p;
    mr_lua_opts o;
    mr_lua_draw_cmd c = model_cmd(L, MR_LUA_DRAW_MODEL, &m, &p, &o);
    static const char *const keys[] = {"transform", "tint", "wireframe", "shadow", "skinning", "dq_mask", NULL};
    mr_lua_check_option_keys(L, &o, keys);
    mr_lua_opt_colour(L, &o, "tint", c.colour);
    c.wireframe = mr_lua_opt_bool(L, &o, "wireframe", 0);
    c.no_shadow = !mr_lua_opt_bool(L, &o, "shadow", 1);
    c.mat_count = m->model->skeleton.joint_count;
    if (p && c.mat_count > 0) c.mats = mr_lua_pose_model(p);   /* the recorder skins them */
    static const char *const skinnings[] = {"linear", "dq", NULL};
    c.fixed_skinning = mr_lua_opt_field(L, &o, "skinning") != LUA_TNIL;   /* absent: each mesh's own mode */
    lua_pop(L, 1);
    c.skinning = mr_lua_opt_enum(L, &o, "skinning", 0, skinnings) ? MR_SKINNING_DUAL_QUATERNION : MR_SKINNING_LINEAR;
    if (mr_lua_opt_field(L, &o, "dq_mask") != LUA_TNIL) {
        int top = lua_gettop(L);
        if (!luaL_testudata(L, top, MR_LUA_MASK)) mr_lua_opt_error(L, &o, "dq_mask", "a mask", top);
        mr_lua_mask *mk = mr_lua_check_mask(L, top, &m->model->skeleton);
        c.skinning = MR_SKINNING_DUAL_QUATERNION;
        c.skinning_mask = mk->mask.w;   /* the mask stays on the stack until record copies it */
    }
    if (p && p->morph_count) {
        c.morph = p->morph;
        c.morph_count = p->morph_count;
    }
    record(L, &c);
    lua_pop(L, 1);   /* dq_mask (or nil) */
    return 0;
}

/* ---- joint limits as lines ------------------------------------------------- */

static void limit_line(lua_State *L, const mat4 world, const vec3 a, const vec3 b)
{
    mr_lua_draw_cmd c = new_cmd(MR_LUA_DRAW_LINE);
    glm_mat4_mulv3((vec4 *)world, (float *)a, 1.0f, c.a);
    glm_mat4_mulv3((vec4 *)world, (float *)b, 1.0f, c.b);
    c.colour[0] = 1.0f;
    c.colour[1] = 0.55f;
    c.colour[2] = 0.1f;
    c.colour[3] = 1.0f;
    c.overlay = 1;
    record(L, &c);
}

/* The cone (or hinge arc) of joint j's limit: directions d = rest * q * bone
 * in its parent's frame, from the joint, a bone's length long. */
static void draw_limit(lua_State *L, const mat4 world, const mr_skeleton *sk, const mat4 *mats, int j,
                       const mr_ik_limit *l)
{
    vec3 bone, apex;
    mr_ik_limit_bone(sk, j, -1, bone);
    versor parent = {0, 0, 0, 1}, base;
    if (sk->parents[j] >= 0) mr_quat_from_matrix((vec4 *)mats[sk->parents[j]], parent);
    glm_quat_mul(parent, sk->rest_r[j], base);
    glm_vec3_copy((float *)mats[j][3], apex);
    float len = 0.0f;
    for (int k = j + 1; k < sk->joint_count; k++)
        if (sk->parents[k] == j) {
            len = glm_vec3_distance((float *)mats[k][3], apex);
            break;
        }
    if (len <= 0.0f) len = glm_vec3_norm(sk->rest_t[j]) * 0.5f;
    enum { SEG = 16 };
    vec3 prev = {0, 0, 0}, first = {0, 0, 0};
    for (int i = 0; i <= SEG; i++) {
        versor q, m;
        if (l->kind == MR_IK_LIMIT_HINGE) {
            float t = l->min + (l->max - l->min) * (float)i / SEG;
            vec3 ax;
            glm_vec3_normalize_to((float *)l->axis, ax);
            glm_quatv(q, t, ax);
        } else {
            /* a direction on the cone's rim: the bone swung by `cone` about
             * an axis perpendicular to it, turned round the bone */
            vec3 perp, other = {0, 0, 1};
            if (fabsf(bone[2]) > 0.9f) glm_vec3_copy((vec3){1, 0, 0}, other);
            glm_vec3_cross(bone, other, perp);
            glm_vec3_normalize(perp);
            versor round, sw;
            glm_quatv(round, 2.0f * GLM_PIf * (float)i / SEG, bone);
            glm_quat_rotatev(round, perp, perp);
            glm_quatv(sw, l->cone, perp);
            glm_quat_copy(sw, q);
        }
        glm_quat_mul(base, q, m);
        vec3 d, tip;
        glm_quat_rotatev(m, bone, d);
        glm_vec3_scale(d, len, d);
        glm_vec3_add(apex, d, tip);
        if (i % 2 == 0 || l->kind == MR_IK_LIMIT_HINGE) limit_line(L, world, apex, tip);
        if (i > 0) limit_line(L, world, prev, tip);
        else glm_vec3_copy(tip, first);
        glm_vec3_copy(tip, prev);
    }
    (void)first;
}

static void draw_limits(lua_State *L, const mr_lua_opts *o, const mat4 world, const mr_skeleton *sk,
                        const mat4 *mats)
{
    if (mr_lua_opt_field(L, o, "limits") == LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    int n = sk->joint_count;
    int *all = lua_newuserdatauv(L, sizeof(int) * (size_t)n, 0);
    mr_ik_limit *lim = lua_newuserdatauv(L, sizeof(mr_ik_limit) * (size_t)n, 0);
    for (int j = 0; j < n; j++) all[j] = j;
    mr_lua_ik_limits(L, o, sk, all, n, lim);
    for (int j = 0; j < n; j++)
        if (lim[j].kind != MR_IK_LIMIT_NONE) draw_limit(L, world, sk, mats, j, &lim[j]);
    lua_pop(L, 2);
}

static int l_draw_skeleton(lua_State *L)
{
    mr_lua_model *m;
    mr_lua_pose *p;
    mr_lua_opts o;
    mr_lua_draw_cmd c = model_cmd(L, MR_LUA_DRAW_SKELETON, &m, &p, &o);
    static const char *const keys[] = {"transform", "colour", "color", "names", "axes", "limits", NULL};
    mr_lua_check_option_keys(L, &o, keys);
    memset(c.colour, 0, sizeof c.colour);
    mr_lua_opt_colour(L, &o, "colour", c.colour);
    mr_lua_opt_colour(L, &o, "color", c.colour);
    c.names = mr_lua_opt_bool(L, &o, "names", 0);
    c.axes = mr_lua_opt_bool(L, &o, "axes", 0);
    const mr_skeleton *sk = &m->model->skeleton;
    if (sk->joint_count == 0) return 0;
    c.mat_count = sk->joint_count;
    if (p) {
        c.mats = mr_lua_pose_model(p);
        record(L, &c);
        draw_limits(L, &o, c.world, sk, c.mats);
        return 0;
    }
    mr_lua_pose *rest = mr_lua_push_pose(L, 1, NULL);     /* the bind pose, freed by the GC */
    c.mats = mr_lua_pose_model(rest);
    record(L, &c);
    draw_limits(L, &o, c.world, sk, c.mats);
    return 0;
}

static int l_camera(lua_State *L)
{
    mr_lua_view *v = &mr_lua_host_of(L)->view;
    mr_camera *c = &v->camera;
    mr_lua_opts o = mr_lua_check_opts(L, 1, "");
    static const char *const keys[] = {"target", "distance", "yaw", "pitch", "fov", "near", "far", NULL};
    mr_lua_check_option_keys(L, &o, keys);
    if (o.idx) {
        mr_camera n = *c;
        int placed = mr_lua_opt_vec3(L, &o, "target", n.target);
        if (mr_lua_opt_field(L, &o, "distance") != LUA_TNIL) placed = 1;
        lua_pop(L, 1);
        n.distance = mr_lua_opt_num(L, &o, "distance", n.distance, -1e30, 1e30);
        n.yaw = mr_lua_opt_num(L, &o, "yaw", n.yaw, -1e30, 1e30);
        n.pitch = mr_lua_opt_num(L, &o, "pitch", n.pitch, -1e30, 1e30);
        n.fov_y = mr_lua_opt_num(L, &o, "fov", n.fov_y, 0, 178.999);
        n.near_z = mr_lua_opt_num(L, &o, "near", n.near_z, -1e30, 1e30);
        n.far_z = mr_lua_opt_num(L, &o, "far", n.far_z, -1e30, 1e30);
        *c = n;
        if (placed) v->camera_set = 1;
    }
    vec3 eye;
    mr_camera_eye(c, eye);
    mr_lua_push_vec3(L, eye);
    mr_lua_push_vec3(L, c->target);
    return 2;
}

static int l_light(lua_State *L)
{
    mr_lua_view *v = &mr_lua_host_of(L)->view;
    lua_Integer i = mr_lua_check_integer(L, 1);
    mr_lua_arg_check(L, i == 1 || i == 2, 1, "light index must be 1 or 2");
    mr_lua_check_type(L, 2, LUA_TTABLE);
    mr_lua_opts o = mr_lua_check_opts(L, 2, "");
    static const char *const keys[] = {"direction", "colour", "color", NULL};
    mr_lua_check_option_keys(L, &o, keys);
    mr_lua_opt_vec3(L, &o, "direction", v->light_direction[i - 1]);
    float c[4] = {v->light_colour[i - 1][0], v->light_colour[i - 1][1], v->light_colour[i - 1][2], 1};
    mr_lua_opt_colour(L, &o, "colour", c);
    mr_lua_opt_colour(L, &o, "color", c);
    memcpy(v->light_colour[i - 1], c, sizeof(float) * 3);
    return 0;
}

static int l_scene(lua_State *L)
{
    mr_lua_view *v = &mr_lua_host_of(L)->view;
    mr_lua_check_type(L, 1, LUA_TTABLE);
    mr_lua_opts o = mr_lua_check_opts(L, 1, "");
    static const char *const keys[] = {"ambient", "sky_top", "sky_bottom", "floor", "shadows", NULL};
    static const char *const floor_keys[] = {"visible", "center", "radius", "grid", NULL};
    mr_lua_check_option_keys(L, &o, keys);
    float c[4];
    if (mr_lua_opt_colour(L, &o, "ambient", c)) memcpy(v->ambient, c, sizeof(float) * 3);
    mr_lua_opt_colour(L, &o, "sky_top", v->sky_top);
    mr_lua_opt_colour(L, &o, "sky_bottom", v->sky_bottom);
    int t = mr_lua_opt_field(L, &o, "floor");
    if (t == LUA_TTABLE) {
        mr_lua_opts f = {o.arg, lua_absindex(L, -1), "floor"};
        mr_lua_check_option_keys(L, &f, floor_keys);
        v->hide_floor = !mr_lua_opt_bool(L, &f, "visible", !v->hide_floor);
        if (mr_lua_opt_field(L, &f, "center") == LUA_TBOOLEAN && !lua_toboolean(L, -1))
            v->floor_centered = 0;                             /* center = false: under the eye */
        else if (mr_lua_opt_vec3(L, &f, "center", v->floor_center))
            v->floor_centered = 1;
        lua_pop(L, 1);
        v->floor_radius = mr_lua_opt_num(L, &f, "radius", v->floor_radius, 0, 1e6);
        v->grid_step = mr_lua_opt_num(L, &f, "grid", v->grid_step, 0, 1e5);
    } else if (t != LUA_TNIL) {
        v->hide_floor = !lua_toboolean(L, -1);
    }
    lua_pop(L, 1);
    v->no_shadows = !mr_lua_opt_bool(L, &o, "shadows", !v->no_shadows);
    return 0;
}

static void opt_arg_colour(lua_State *L, int arg, float out[4])
{
    for (int i = 0; i < 4; i++) out[i] = 1.0f;
    if (!lua_isnoneornil(L, arg)) mr_lua_check_colour(L, arg, out);
}

static int l_line(lua_State *L)
{
    mr_lua_draw_cmd c = new_cmd(MR_LUA_DRAW_LINE);
    mr_lua_check_vec3(L, 1, c.a);
    mr_lua_check_vec3(L, 2, c.b);
    opt_arg_colour(L, 3, c.colour);
    c.overlay = lua_toboolean(L, 4);
    record(L, &c);
    return 0;
}

static int l_point(lua_State *L)
{
    mr_lua_draw_cmd c = new_cmd(MR_LUA_DRAW_POINT);
    mr_lua_check_vec3(L, 1, c.a);
    opt_arg_colour(L, 2, c.colour);
    c.size = (float)mr_lua_opt_number(L, 3, 6.0);
    record(L, &c);
    return 0;
}

static int l_text(lua_State *L)
{
    mr_lua_draw_cmd c = new_cmd(MR_LUA_DRAW_TEXT);
    c.x = (float)mr_lua_check_number(L, 1);
    c.y = (float)mr_lua_check_number(L, 2);
    mr_lua_check_any(L, 3);
    opt_arg_colour(L, 4, c.colour);
    c.text = luaL_tolstring(L, 3, NULL);
    record(L, &c);
    return 0;
}

static int l_console(lua_State *L)
{
    mr_lua_host_of(L)->console.hidden = !lua_toboolean(L, 1);
    return 0;
}


static int l_screenshot(lua_State *L)
{
    mr_lua_host *h = mr_lua_host_of(L);
    const char *path = mr_lua_check_string(L, 1);
    mr_lua_arg_check(L, path[0] != '\0', 1, "empty path");
    /* Where the script may write (the sandbox's rules: under --out, missing
     * folders made once the whole path is known to be inside); fail here, at the script's line, when it cannot. */
    if (!mr_lua_host_write_path(L, path)) return mr_lua_raise(L, "cannot write %s", lua_tostring(L, -1));
    const char *full = lua_tostring(L, -1);
    const char *slash = strrchr(full, '/');
    lua_pushlstring(L, full, slash ? (size_t)(slash - full) : 1);
    if (access(slash ? lua_tostring(L, -1) : ".", W_OK) != 0)
        return mr_lua_raise(L, "cannot write '%s': %s", full, strerror(errno));
    lua_pop(L, 1);
    /* The PNG counts against the write quota once written (draw.c); a
     * quota already spent refuses it here, at the script's line. */
    if (mr_lua_host_charge_write(L, 1) != 0)
        return mr_lua_raise(L, "cannot write '%s': the script's write quota is spent (files, saves and screenshots "
                            "together)", full);
    mr_error err;
    if (!h->draw) return mr_lua_raise(L, "no renderer in this run");
    if (h->draw->screenshot(h->draw_user, full, &err) != MR_OK) return mr_lua_raise(L, "%s", err.msg);
    return 1;
}

/* marrow.render(): a plain Lua program (the C module) renders what it drew
 * since the last render and writes the screenshots it asked for. */
static int l_render(lua_State *L)
{
    mr_lua_host *h = mr_lua_host_of(L);
    if (!h->render_self)
        return mr_lua_raise(L, "marrow run renders after each draw() by itself; marrow.render is for a plain "
                               "Lua program that did require \"marrow\"");
    return h->render_self(L);
}

void mr_lua_open_draw(lua_State *L)
{
    static const luaL_Reg funcs[] = {
        {"draw", l_draw},     {"draw_skeleton", l_draw_skeleton},
        {"camera", l_camera}, {"light", l_light}, {"scene", l_scene},
        {"line", l_line},     {"point", l_point}, {"text", l_text},
        {"screenshot", l_screenshot}, {"console", l_console}, {"render", l_render},
        {NULL, NULL},
    };
    mr_lua_setfuncs(L, "marrow.", funcs);
}
