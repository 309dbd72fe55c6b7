/* udata.c — the userdata of every marrow type: pushing and checking them
 * (layouts in wrap.h). The methods live in wrap_<type>.c; this file is what
 * those files share, so none of them calls another.
 *
 * Math values are full userdata of floats (only 8-byte aligned: copy to
 * stack variables before cglm SIMD functions). A plain table {x, y, z} (or
 * {x=, y=, z=}) is accepted wherever a vec3 is expected, {x, y, z, w} for a
 * quat. Poses and masks keep their arrays inside their userdata block, so
 * they come from the script's capped allocator and the GC sees their size.
 * Views (skeleton, clip, pose, mask) keep their model userdata alive through
 * user value 1.
 */
#include <stdint.h>
#include <string.h>

#include "anim/morph.h"
#include "core/str.h"
#include "anim/clip_edit.h"
#include "anim/clip_runtime.h"
#include "anim/model.h"
#include "formats/load.h"
#include "lua/wrap.h"

/* ---- math values ------------------------------------------------------------ */

static float *push_floats(lua_State *L, int n, const char *mt)
{
    float *f = lua_newuserdatauv(L, sizeof(float) * (size_t)n, 0);
    luaL_setmetatable(L, mt);
    return f;
}

float *mr_lua_push_vec3(lua_State *L, const float v[3])
{
    return memcpy(push_floats(L, 3, MR_LUA_VEC3), v, sizeof(float) * 3);
}

float *mr_lua_push_quat(lua_State *L, const float q[4])
{
    return memcpy(push_floats(L, 4, MR_LUA_QUAT), q, sizeof(float) * 4);
}

float *mr_lua_push_mat4(lua_State *L, const mat4 m)
{
    return memcpy(push_floats(L, 16, MR_LUA_MAT4), m, sizeof(float) * 16);
}

static void check_floats(lua_State *L, int arg, int n, const char *tname, float *out)
{
    if (n == 3 ? mr_lua_to_vec3(L, arg, out) : mr_lua_to_quat(L, arg, out)) return;
    if (lua_type(L, arg) == LUA_TTABLE)
        mr_lua_arg_error(L, arg, lua_pushfstring(L, "%s expected, got a table without %d numbers", tname, n));
    mr_lua_type_error(L, arg, tname);
}

void mr_lua_check_vec3(lua_State *L, int arg, float out[3]) { check_floats(L, arg, 3, MR_LUA_VEC3, out); }
void mr_lua_check_quat(lua_State *L, int arg, float out[4]) { check_floats(L, arg, 4, MR_LUA_QUAT, out); }

void mr_lua_check_mat4(lua_State *L, int arg, mat4 out)
{
    if (!mr_lua_to_mat4(L, arg, out)) mr_lua_type_error(L, arg, MR_LUA_MAT4);
}

void mr_lua_check_colour(lua_State *L, int arg, float out[4])
{
    mr_lua_check_type(L, arg, LUA_TTABLE);
    if (!mr_lua_to_colour(L, arg, out))
        mr_lua_arg_error(L, arg, "colour expected: a table {r, g, b [, a]} of numbers 0..1");
}

/* ---- models and their views -------------------------------------------------- */

mr_lua_model *mr_lua_check_model(lua_State *L, int arg)
{
    mr_lua_model *m = mr_lua_check_udata(L, arg, MR_LUA_MODEL);
    if (!m->model) mr_lua_raise(L, "attempt to use a closed model");
    return m;
}

mr_lua_skeleton *mr_lua_check_skeleton(lua_State *L, int arg)
{
    return mr_lua_check_udata(L, arg, MR_LUA_SKELETON);
}

mr_lua_clip *mr_lua_check_clip(lua_State *L, int arg)
{
    return mr_lua_check_udata(L, arg, MR_LUA_CLIP);
}

void mr_lua_push_model(lua_State *L, mr_model *model)
{
    mr_lua_model *m = lua_newuserdatauv(L, sizeof *m, 0);
    m->model = NULL;                   /* released until set up */
    m->owner = NULL;
    luaL_setmetatable(L, MR_LUA_MODEL);
    m->model = m->owner = model;
}

void mr_lua_push_skeleton(lua_State *L, int model_idx)
{
    model_idx = lua_absindex(L, model_idx);
    mr_lua_model *m = mr_lua_check_model(L, model_idx);
    mr_lua_skeleton *s = lua_newuserdatauv(L, sizeof *s, 1);
    s->sk = &m->model->skeleton;
    s->owner = m->model;
    luaL_setmetatable(L, MR_LUA_SKELETON);
    lua_pushvalue(L, model_idx);
    lua_setiuservalue(L, -2, 1);
}

void mr_lua_push_clip(lua_State *L, int model_idx, const mr_clip *clip)
{
    model_idx = lua_absindex(L, model_idx);
    mr_lua_model *m = mr_lua_check_model(L, model_idx);
    mr_lua_clip *c = lua_newuserdatauv(L, sizeof *c, 2);
    c->clip = clip;
    c->owner = m->model;
    c->owned = NULL;
    c->edit = NULL;
    c->size = 0.0f;
    luaL_setmetatable(L, MR_LUA_CLIP);
    lua_pushvalue(L, model_idx);
    lua_setiuservalue(L, -2, 1);
}

/* A clip made by a script is owned by a hidden box userdata (user value 2
 * of the clip userdata), whose __gc frees it. The clip's own metatable has
 * no __gc: a script can reach that one (getmetatable(clip).__gc(clip)) and
 * would free a clip that mixers still sample and the userdata still points
 * at. Nothing gives a script the box, so it is finalized only once the clip
 * userdata (which mixers keep in their refs) is unreachable. */
#define MR_LUA_CLIP_BOX "marrow.clipbox"

static int clip_box_gc(lua_State *L)
{
    mr_clip **box = luaL_checkudata(L, 1, MR_LUA_CLIP_BOX);
    mr_clip_destroy(*box);
    *box = NULL;
    return 0;
}

void mr_lua_push_owned_clip(lua_State *L, int model_idx, mr_clip *clip)
{
    model_idx = lua_absindex(L, model_idx);
    mr_clip **box = lua_newuserdatauv(L, sizeof *box, 0);
    *box = NULL;
    if (luaL_newmetatable(L, MR_LUA_CLIP_BOX)) {
        lua_pushcfunction(L, clip_box_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    *box = clip;                       /* from here on the box frees it */
    mr_lua_push_clip(L, model_idx, clip);
    ((mr_lua_clip *)lua_touserdata(L, -1))->owned = clip;
    lua_insert(L, -2);
    lua_setiuservalue(L, -2, 2);
}

/* ---- authored clips (marrow.clip, anim/clip_edit.h) ---------------------------- */

/* The box owns the clip and its edit (freed together), like the clip box. */
#define EDIT_BOX "marrow.clipeditbox"

typedef struct edit_box {
    mr_clip *clip;
    mr_clip_edit *edit;
    size_t charged;          /* bytes counted in the host's held_bytes */
} edit_box;

static int edit_box_gc(lua_State *L)
{
    edit_box *b = luaL_checkudata(L, 1, EDIT_BOX);
    mr_lua_host *h = mr_lua_host_of(L);
    h->held_bytes -= b->charged < h->held_bytes ? b->charged : h->held_bytes;
    b->charged = 0;
    mr_clip_destroy(b->clip);
    mr_clip_edit_destroy(b->edit);
    b->clip = NULL;
    b->edit = NULL;
    return 0;
}

static float model_size(const mr_model *m)
{
    vec3 lo, hi;
    if (!mr_model_bounds(m, lo, hi)) return 1.0f;
    float s = sqrtf((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                    (hi[2] - lo[2]) * (hi[2] - lo[2]));
    return s > 0.0f && isfinite(s) ? s : 1.0f;
}

static float bake_tolerance(float size) { return 0.5f * MR_CLIP_FIDELITY * size; }

void mr_lua_authored_charge(lua_State *L, int clip_idx)
{
    clip_idx = lua_absindex(L, clip_idx);
    lua_getiuservalue(L, clip_idx, 2);
    edit_box *b = luaL_testudata(L, -1, EDIT_BOX);
    lua_pop(L, 1);
    if (!b || !b->edit || !b->clip) return;
    mr_lua_host *h = mr_lua_host_of(L);
    size_t now = mr_clip_edit_bytes(b->edit) + mr_clip_bytes(b->clip);
    h->held_bytes = h->held_bytes - b->charged + now;
    b->charged = now;
    size_t heap = mr_lua_host_heap(L), used = heap + h->model_bytes + h->held_bytes;
    if (h->memory_limit && used > h->memory_limit)
        mr_lua_raise(L, "authored clips and recordings hold %d MiB, and with the script's %d MiB of Lua and %d MiB "
                        "of models that is past its memory limit of %d MiB (--memory)",
                     (int)(h->held_bytes >> 20), (int)(heap >> 20), (int)(h->model_bytes >> 20),
                     (int)(h->memory_limit >> 20));
}

mr_lua_clip *mr_lua_push_authored_clip(lua_State *L, int model_idx, const char *name, mr_clip_edit *edit)
{
    model_idx = lua_absindex(L, model_idx);
    mr_model *m = mr_lua_check_model(L, model_idx)->model;
    edit_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->clip = NULL;
    b->edit = edit;
    b->charged = 0;
    if (luaL_newmetatable(L, EDIT_BOX)) {
        lua_pushcfunction(L, edit_box_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);           /* from here on the box frees the edit */
    if (mr_clip_create(name, m->skeleton.joint_count, &b->clip) != MR_OK)
        mr_lua_raise(L, "out of memory for clip '%s'", name);
    float size = model_size(m);
    if (mr_clip_edit_bake(edit, bake_tolerance(size), size, b->clip) != MR_OK)
        mr_lua_raise(L, "out of memory baking clip '%s'", name);
    mr_lua_push_clip(L, model_idx, b->clip);
    mr_lua_clip *c = lua_touserdata(L, -1);
    c->owned = b->clip;
    c->edit = edit;
    c->size = size;
    lua_insert(L, -2);
    lua_setiuservalue(L, -2, 2);
    mr_lua_authored_charge(L, -1);
    return c;
}


int mr_lua_clip_edit_transfer(lua_State *T, const mr_lua_clip *c)
{
    mr_clip_edit *copy = NULL;
    if (mr_clip_edit_copy(c->edit, &copy) != MR_OK) return 0;
    mr_lua_push_model(T, c->owner);
    mr_lua_clip *n = mr_lua_push_authored_clip(T, -1, c->clip->name, copy);
    for (int i = 0; i < c->clip->marker_count; i++)
        mr_clip_add_marker(n->owned, c->clip->markers[i].time, c->clip->markers[i].name);
    lua_remove(T, -2);
    return 1;
}

/* ---- poses --------------------------------------------------------------------- */

mr_lua_pose *mr_lua_check_pose(lua_State *L, int arg)
{
    mr_lua_pose *p = mr_lua_check_udata(L, arg, MR_LUA_POSE);
    if (!p->pose.t) mr_lua_raise(L, "attempt to use a closed pose");
    return p;
}

mr_lua_pose *mr_lua_check_pose_of(lua_State *L, int arg, const mr_skeleton *sk)
{
    mr_lua_pose *p = mr_lua_check_pose(L, arg);
    if (sk && p->pose.joint_count != sk->joint_count)
        mr_lua_arg_error(L, arg, lua_pushfstring(L, "pose has %d joints, expected %d", p->pose.joint_count,
                                                 sk->joint_count));
    return p;
}

/* Rotations and matrices need 16-byte alignment (cglm SIMD); Lua aligns
 * userdata to 8, so the block has 15 spare bytes to align the arrays. */
static size_t pose_bytes(int n, int morphs)
{
    return sizeof(mr_lua_pose) + 15 + (size_t)n * (sizeof(versor) + sizeof(mat4) + 2 * sizeof(vec3)) +
           (size_t)morphs * sizeof(float);
}

/* The morph weights of a model's poses: every mesh's targets (morph.h). */
static int morph_count(const mr_model *m)
{
    int k = 0;
    for (int i = 0; i < m->mesh_count; i++) k += m->meshes[i].morph ? m->meshes[i].morph->count : 0;
    return k;
}

/* A cursor is host memory outside the Lua heap, about 34 KB on a 22-joint
 * skeleton: one that would take the script past its --memory is not made
 * (the pose is then sampled by searching the keys, as before cursors). */
struct mr_clip_cursor *mr_lua_pose_cursor(lua_State *L, mr_lua_pose *p)
{
    if (p->cursor) return p->cursor;
    mr_lua_host *h = mr_lua_host_of(L);
    size_t used = mr_lua_host_heap(L) + h->model_bytes + h->held_bytes;
    if (h->memory_limit && p->cursor_bytes && used + p->cursor_bytes > h->memory_limit)
        return NULL;   /* refused before and still no room: not made and freed at every sample */
    mr_clip_cursor *cur = mr_clip_cursor_create(p->pose.joint_count);
    size_t bytes = mr_clip_cursor_bytes(cur);
    if (cur && h->memory_limit && used + bytes > h->memory_limit) {
        mr_clip_cursor_destroy(cur);
        p->cursor_bytes = bytes;
        return NULL;
    }
    h->held_bytes += bytes;
    p->cursor = cur;
    p->cursor_bytes = bytes;
    return cur;
}

void mr_lua_pose_drop_cursor(lua_State *L, mr_lua_pose *p)
{
    if (!p->cursor) return;
    mr_lua_host *h = mr_lua_host_of(L);
    h->held_bytes -= p->cursor_bytes < h->held_bytes ? p->cursor_bytes : h->held_bytes;
    mr_clip_cursor_destroy(p->cursor);
    p->cursor = NULL;
    p->cursor_bytes = 0;
}

void mr_lua_pose_copy_morph(mr_lua_pose *dst, const mr_lua_pose *src)
{
    if (dst->morph_count == src->morph_count && dst->morph_count)
        memcpy(dst->morph, src->morph, (size_t)dst->morph_count * sizeof *dst->morph);
}

mr_lua_pose *mr_lua_push_pose(lua_State *L, int model_idx, const mr_pose *src)
{
    model_idx = lua_absindex(L, model_idx);
    mr_lua_model *m = mr_lua_check_model(L, model_idx);
    const mr_skeleton *sk = &m->model->skeleton;
    int n = sk->joint_count, k = morph_count(m->model);
    mr_lua_pose *p = lua_newuserdatauv(L, pose_bytes(n, k), 1);
    memset(p, 0, sizeof *p);           /* released state until the arrays are set */
    luaL_setmetatable(L, MR_LUA_POSE);
    lua_pushvalue(L, model_idx);
    lua_setiuservalue(L, -2, 1);
    uintptr_t base = ((uintptr_t)(p + 1) + 15) & ~(uintptr_t)15;
    p->pose.r = (versor *)base;
    p->model = (mat4 *)(base + (size_t)n * sizeof(versor));
    p->pose.t = (vec3 *)((char *)p->model + (size_t)n * sizeof(mat4));
    p->pose.s = p->pose.t + n;
    p->morph = (float *)(p->pose.s + n);
    p->morph_count = k;
    for (int i = 0, off = 0; i < m->model->mesh_count; i++) {
        const mr_morph_set *set = m->model->meshes[i].morph;
        if (!set) continue;
        memcpy(p->morph + off, set->weights, (size_t)set->count * sizeof *p->morph);
        off += set->count;
    }
    p->pose.joint_count = n;
    p->sk = sk;
    p->owner = m->model;
    if (src) mr_pose_copy(&p->pose, src);
    else mr_pose_set_rest(&p->pose, sk);
    return p;
}

const mat4 *mr_lua_pose_model(mr_lua_pose *p)
{
    if (!p->model_valid) {
        mr_pose_to_model(p->sk, &p->pose, p->model);
        p->model_valid = 1;
    }
    return (const mat4 *)p->model;
}

/* ---- masks and blend spaces ------------------------------------------------------ */

mr_lua_mask *mr_lua_check_mask(lua_State *L, int arg, const mr_skeleton *sk)
{
    mr_lua_mask *m = mr_lua_check_udata(L, arg, MR_LUA_MASK);
    if (sk && m->mask.joint_count != sk->joint_count)
        mr_lua_arg_error(L, arg, lua_pushfstring(L, "mask has %d joints, expected %d", m->mask.joint_count,
                                                 sk->joint_count));
    return m;
}

mr_lua_mask *mr_lua_push_mask(lua_State *L, int model_idx, float fill)
{
    model_idx = lua_absindex(L, model_idx);
    mr_lua_model *mo = mr_lua_check_model(L, model_idx);
    int n = mo->model->skeleton.joint_count;
    mr_lua_mask *m = lua_newuserdatauv(L, sizeof *m + (size_t)n * sizeof(float), 1);
    m->mask.joint_count = n;
    m->mask.w = (float *)(m + 1);
    for (int j = 0; j < n; j++) m->mask.w[j] = fill;
    m->sk = &mo->model->skeleton;
    luaL_setmetatable(L, MR_LUA_MASK);
    lua_pushvalue(L, model_idx);
    lua_setiuservalue(L, -2, 1);
    return m;
}

mr_lua_blendspace *mr_lua_check_blendspace(lua_State *L, int arg, const mr_skeleton *sk)
{
    mr_lua_blendspace *b = mr_lua_check_udata(L, arg, MR_LUA_BLENDSPACE);
    if (sk && b->sk->joint_count != sk->joint_count)
        mr_lua_arg_error(L, arg, lua_pushfstring(L, "blend space of %d joints, expected %d", b->sk->joint_count,
                                                 sk->joint_count));
    return b;
}

/* ---- joints ---------------------------------------------------------------------- */

/* Pushes "; did you mean 'a', 'b'?" (or a hint listing names) for name. */
static void push_suggestions(lua_State *L, const mr_skeleton *sk, const char *name)
{
    int best[3] = {-1, -1, -1}, dist[3] = {1 << 30, 1 << 30, 1 << 30};
    int limit = (int)strlen(name) / 3;
    if (limit < 1) limit = 1;
    for (int j = 0; j < sk->joint_count; j++) {
        int d = mr_str_distance(name, sk->names[j]);
        if (d > limit) continue;
        for (int k = 0; k < 3; k++)
            if (d < dist[k]) {
                for (int m = 2; m > k; m--) {
                    dist[m] = dist[m - 1];
                    best[m] = best[m - 1];
                }
                dist[k] = d;
                best[k] = j;
                break;
            }
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    if (best[0] >= 0) {
        luaL_addstring(&b, "; did you mean ");
        for (int k = 0; k < 3 && best[k] >= 0; k++) {
            if (k) luaL_addstring(&b, k == 2 || best[k + 1 < 3 ? k + 1 : k] < 0 ? " or " : ", ");
            luaL_addchar(&b, '\'');
            luaL_addstring(&b, sk->names[best[k]]);
            luaL_addchar(&b, '\'');
        }
        luaL_addchar(&b, '?');
    } else if (sk->joint_count <= 16) {
        luaL_addstring(&b, "; joints are");
        for (int j = 0; j < sk->joint_count; j++) {
            luaL_addstring(&b, j ? ", '" : " '");
            luaL_addstring(&b, sk->names[j]);
            luaL_addchar(&b, '\'');
        }
    } else {
        lua_pushfstring(L, "; the skeleton has %d joints (skeleton:names() lists them)", sk->joint_count);
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
}

int mr_lua_check_joint(lua_State *L, int arg, const mr_skeleton *sk)
{
    return mr_lua_check_joint_in(L, arg, arg, "", sk);
}

int mr_lua_check_joint_in(lua_State *L, int idx, int arg, const char *where, const mr_skeleton *sk)
{
    idx = lua_absindex(L, idx);
    int t = lua_type(L, idx);
    if (t == LUA_TNUMBER) {
        int isint;
        lua_Integer i = lua_tointegerx(L, idx, &isint);
        if (!isint || i < 1 || i > sk->joint_count)
            mr_lua_arg_error(L, arg, lua_pushfstring(L, "%sjoint index %s out of range 1..%d", where,
                                                     luaL_tolstring(L, idx, NULL), sk->joint_count));
        return (int)i - 1;
    }
    if (t == LUA_TSTRING) {
        const char *name = lua_tostring(L, idx);
        if (strlen(name) != lua_rawlen(L, idx))   /* "pelvis\0x" is no joint, not "pelvis" */
            mr_lua_arg_error(L, arg, lua_pushfstring(L, "%sa joint name without NUL bytes expected (it has one at "
                                                     "byte %d)", where, (int)strlen(name) + 1));
        int j = mr_skeleton_find(sk, name);
        if (j >= 0) return j;
        push_suggestions(L, sk, name);
        mr_lua_arg_error(L, arg, lua_pushfstring(L, "%sunknown joint '%s'%s", where, name, lua_tostring(L, -1)));
    }
    if (idx == arg && !where[0]) return mr_lua_type_error(L, arg, "joint name or index");
    return mr_lua_arg_error(L, arg, lua_pushfstring(L, "%sjoint name or index expected, got %s", where,
                                                    mr_lua_describe(L, idx)));
}

/* ---- the host's models (wrap.h) ---------------------------------------------- */

void mr_lua_host_settle_models(mr_lua_host *h)
{
    if (!h->model_pending) {
        mr_load_finish(h->cache_later, NULL);   /* nothing loaded to write */
        h->cache_later = NULL;
        return;
    }
    for (int i = 0; i < h->model_pending->clip_count; i++) mr_clip_settle(h->model_pending->clips[i]);
    mr_load_finish(h->cache_later, h->model_pending);   /* the cache file, with the packs */
    h->cache_later = NULL;
    size_t now = mr_model_bytes(h->model_pending);
    h->model_bytes = h->model_bytes - h->pending_bytes + now;
    h->model_pending = NULL;
}
