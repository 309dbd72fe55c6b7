/* wrap.h — internal to src/lua: what the binding files share. The shape
 * follows LÖVE's wrap_<Type> files and Lua's liolib.c: every Lua type has
 * one wrap_<type>.c holding all its methods and its module functions, and
 * registers them from one opener. What several of them need (the userdata
 * layouts, pushing and checking each type, argument and option checking)
 * lives below them in udata.c and args.c.
 *
 * Files and the one direction calls run (a file only uses files below it;
 * tests/cli_lua.sh checks that a wrap file exports nothing but its opener,
 * so none can call another; tests/cli_layering.sh that the four bottom
 * files include nothing above them, and `nm -u` on the objects shows the rest):
 *
 *   script.c          the lifecycle of a running script (script.h)
 *   frame.c           one frame of a script: update, draw, render (frame.h)
 *   draw.c  scene.c   the host's drawing glue (draw.h) and scene reader (scene.h)
 *   transfer.c        the reload hand-over; owns the list of types it copies
 *   module.c          the C module for plain Lua (luaopen_marrow), and the
 *                     host lookup every binding uses (mr_lua_host_of)
 *   wrap_marrow.c     the `marrow` module: small functions, calls every opener
 *   wrap_model.c wrap_skeleton.c wrap_clip.c wrap_pose.c wrap_mask.c
 *   wrap_blendspace.c wrap_mixer.c wrap_math.c wrap_draw.c wrap_ik_body.c
 *   wrap_clip_edit.c wrap_recorder.c wrap_save.c
 *                     one per type (wrap_draw.c: the drawing functions;
 *                     wrap_clip_edit.c: authoring, marrow.clip and clip:key;
 *                     wrap_recorder.c: marrow.record; wrap_save.c:
 *                     marrow.save); none calls another
 *   udata.c           userdata layouts, push/check of every type, joints
 *   args.c            argument and option checking, function names
 *   sandbox.c console.c models.c callbacks.c
 *                     the Lua state, the printed lines, the models, the
 *                     callback names; these know nothing of each other or
 *                     of the bindings
 *   sandbox_lib.c sandbox_io.c watchdog.c pattern.c
 *                     the sandbox's parts (sandbox_internal.h): the script's
 *                     environment from the allow-list and its refusal stubs,
 *                     the confined io, the thread that stops what the count
 *                     hook cannot (watchdog.h), Lua's pattern matching with a
 *                     step budget (pattern.h)
 *
 * script.c and draw.c meet only through mr_lua_host (below): the host side
 * fills it, bindings read and write it; drawing goes through the hooks a
 * renderer registers (mr_lua_draw_hooks), so without one a script runs
 * with every drawing call checked and dropped.
 */
#ifndef MR_LUA_WRAP_H
#define MR_LUA_WRAP_H

#include <stdint.h>

#include <lauxlib.h>
#include <lua.h>

#include "anim/blendspace.h"
#include "anim/mask.h"
#include "anim/model.h"
#include "gfx/camera.h"
#include "lua/models.h"
#include "lua/console.h"
#include "lua/sandbox.h"
#include "lua/script.h"

/* Metatable names (also the type names in error messages). */
#define MR_LUA_VEC3 "vec3"
#define MR_LUA_QUAT "quat"
#define MR_LUA_MAT4 "mat4"
#define MR_LUA_MODEL "model"
#define MR_LUA_SKELETON "skeleton"
#define MR_LUA_CLIP "clip"
#define MR_LUA_POSE "pose"
#define MR_LUA_MIXER "mixer"
#define MR_LUA_TRACK "track"
#define MR_LUA_MASK "mask"
#define MR_LUA_BLENDSPACE "blendspace"
#define MR_LUA_SPRINGS "springs"

/* ---- the host, as bindings see it ------------------------------------------ */

/* One recorded drawing call (see wrap_draw.c for the Lua side). Pointers
 * are valid during the hook call only: a recorder copies what it keeps. */
enum { MR_LUA_DRAW_MODEL, MR_LUA_DRAW_SKELETON, MR_LUA_DRAW_LINE, MR_LUA_DRAW_POINT, MR_LUA_DRAW_TEXT };

typedef struct mr_lua_draw_cmd {
    int kind;
    mat4 world;              /* model and skeleton: transform * display */
    const mr_model *model;   /* model and skeleton (owned by the model table) */
    const mat4 *mats;        /* model-space joint matrices (the pose); a model
                              * drawn without a pose: NULL (the bind pose) */
    int mat_count;
    const float *morph;      /* model: the pose's morph weights (renderer layout), or NULL */
    int morph_count;
    int skinning;            /* model: mr_skinning (0: each mesh's own, mr_draw_style) */
    int fixed_skinning;      /* model: 1: skinning given (linear then for every mesh) */
    const float *skinning_mask;  /* model, dual quaternions: per joint share (a mask), or NULL */
    float colour[4];         /* tint, bone, line, point or text colour */
    int wireframe, no_shadow, names, overlay, axes;
    float a[3], b[3];        /* line ends, point position */
    float x, y, size;        /* text position, point size */
    const char *text;
} mr_lua_draw_cmd;

/* Registered by a renderer (draw.c's mr_lua_draw_attach). record and
 * screenshot return MR_OK, or a status with a message in err (raised as a
 * Lua error at the script's line). */
typedef struct mr_lua_draw_hooks {
    void (*begin)(void *user);                                 /* draw() starts: drop the recording */
    mr_status (*record)(void *user, const mr_lua_draw_cmd *cmd, mr_error *err);
    mr_status (*screenshot)(void *user, const char *path, mr_error *err);
    void (*release)(void *user);                               /* the context is destroyed */
} mr_lua_draw_hooks;

/* What the script sets about the view (camera, lights, sky); the renderer
 * reads it at the end of the frame. Zero fields take the renderer's
 * defaults (see mr_scene in gfx/renderer.h). */
typedef struct mr_lua_view {
    mr_camera camera;
    int camera_set;          /* the script set a target or distance */
    float light_direction[2][3], light_colour[2][3];
    float ambient[3], sky_top[4], sky_bottom[4];
    int hide_floor, no_shadows;
    float floor_center[3];   /* world point on the floor (y: its height) */
    int floor_centered;      /* floor_center's x, z place the floor (else: under the eye) */
    float floor_radius, grid_step;  /* 0: the renderer's defaults */
} mr_lua_view;

/* Per context; the sandbox's user pointer of every state is this struct. */
typedef struct mr_lua_host {
    mr_lua_models models;
    mr_lua_console console;
    mr_lua_view view;
    double time;             /* simulated seconds */
    uint64_t frame;
    int width, height;
    int headless;
    int quit, quit_code;
    const char *out_dir;     /* base of relative screenshot paths, NULL = cwd */
    double budget;           /* seconds a frame callback may run (mr_lua_desc.budget) */
    size_t memory_limit;     /* mr_lua_desc.memory_limit: the Lua heap and the models
                              * scripts loaded count against it together */
    size_t model_bytes;      /* mr_model_bytes of the models scripts loaded */
    const mr_model *model_pending;  /* the last one loaded, whose packs may still be on */
    size_t pending_bytes;    /* the worker (clip_runtime.h), and what was counted for it */
    struct mr_load_later *cache_later;  /* its cache file, written once its packs are in */
    size_t held_bytes;       /* recordings' frames: host memory outside the Lua heap,
                              * counted against memory_limit like models */
    const char *resolve_dirs[2];  /* where relative model paths are looked for after the
                              * cwd: the script's folder, marrow's root (owned by the context) */
    char model_error[256];   /* the message of the last marrow.model that returned nil */
    int (*render_self)(lua_State *L);   /* the C module's marrow.render(), or NULL */
    const mr_lua_draw_hooks *draw;  /* NULL: no renderer, drawing calls are dropped */
    void *draw_user;
} mr_lua_host;

/* The host of the state (module.c): the sandbox's user in `marrow run`, the
 * module's context in a plain Lua that did require "marrow". Bindings reach
 * the sandbox only through these:
 *   mr_lua_host_resolve pushes a script's relative path resolved
 *     (mr_lua_sandbox_push_resolved; plain Lua: as given);
 *   mr_lua_host_pause / _resume bracket C work run outside Lua (a save, a
 *     reduction), forgiven by the budget up to an allowance per call and
 *     stopped past it (mr_lua_sandbox_pause; plain Lua has no budget);
 *     when that work returns MR_ERR_LIMIT, mr_lua_host_stop stops the call
 *     with the budget's error, "... was stopped <why>" (why: "in
 *     recorder:clip, reducing 20001 frames"), which a pcall cannot swallow;
 *     _pause_load / _resume_load bracket model loading, not counted at all;
 *   mr_lua_host_loaded says a model loaded from path (its folder becomes
 *     readable by the script's io: mr_lua_sandbox_allow_read);
 *   mr_lua_host_heap is the bytes of the Lua heap (the sandbox's count);
 *   mr_lua_host_write_path pushes where a file the script saves goes and
 *     returns 1, or pushes "path: why not" and returns 0 (the sandbox's io
 *     rules: mr_lua_sandbox_push_write_path; plain Lua: as given). */
mr_lua_host *mr_lua_host_of(lua_State *L);
/* Settles the last model a script loaded (its packs) and writes its cache
 * file (wrap_model.c); the context calls it before freeing its models. */
void mr_lua_host_settle_models(mr_lua_host *h);
void mr_lua_host_resolve(lua_State *L, const char *path);
double mr_lua_host_pause(lua_State *L);
void mr_lua_host_resume(lua_State *L, double token);
int mr_lua_host_stop(lua_State *L, const char *fmt, ...);
void mr_lua_host_loaded(lua_State *L, const char *path);
size_t mr_lua_host_heap(lua_State *L);
int mr_lua_host_write_path(lua_State *L, const char *path);
/* Counts bytes a binding wrote (or is about to) against the sandbox's write
 * quota (mr_lua_sandbox_charge_write); 0 within it, -1 when it would pass
 * it (nothing counted); negative bytes give back a count for a write that
 * failed. Plain Lua has no quota: 0. */
int mr_lua_host_charge_write(lua_State *L, long long bytes);

/* ---- arguments and options (args.c) ---------------------------------------- */

/* Sets each function of l into the table at -1 as a closure that knows its
 * name: prefix + name ("marrow." for module functions, "pose:" for methods,
 * "vec3." for metamethods). Every error raised through the helpers below
 * names the function that way; for methods (prefix ending in ':') argument
 * numbers skip self, as Lua's own messages for obj:method() calls do. */
void mr_lua_setfuncs(lua_State *L, const char *prefix, const luaL_Reg *l);
/* Pushes f as a closure named name; shift = arguments not counted in
 * messages (1 for methods and for constructors called through __call). */
void mr_lua_pushfunc(lua_State *L, lua_CFunction f, const char *name, int shift);
/* Makes the metatable `tname` with meta (prefix "tname.") and methods
 * (prefix "tname:") as __index. */
void mr_lua_newtype(lua_State *L, const char *tname, const luaL_Reg *meta, const luaL_Reg *methods);
/* Adds methods (prefix "tname:") to the __index of the metatable `tname`,
 * made before by mr_lua_newtype: a module extending another's type. */
void mr_lua_add_methods(lua_State *L, const char *tname, const luaL_Reg *methods);

/* "bad argument #arg to 'name' (msg)"; "calling 'name' on bad self (msg)". */
int mr_lua_arg_error(lua_State *L, int arg, const char *msg);
/* "... (tname expected, got <what the value is>)"; for a nil where tname
 * names a model, after a marrow.model returned nil: "... (model is nil
 * (marrow.model returned nil, <its message>))". */
int mr_lua_type_error(lua_State *L, int arg, const char *tname);
#define mr_lua_arg_check(L, cond, arg, msg) ((void)((cond) || mr_lua_arg_error(L, (arg), (msg))))
/* "name: <message>" at the script's line (luaL_error with the function's name). */
int mr_lua_raise(lua_State *L, const char *fmt, ...);
/* Pushes a short description of the value at idx for messages: 5, 'abc',
 * a table of 2 numbers, a pose, nil. */
const char *mr_lua_describe(lua_State *L, int idx);

/* Raises when the call has more than max arguments (stack slots, self
 * included): quat.euler(1, 2, 3, 4) is "bad argument #4 to
 * 'marrow.quat.euler' (at most 3 arguments expected, got 4)". */
void mr_lua_check_max_args(lua_State *L, int max);
lua_Number mr_lua_check_number(lua_State *L, int arg);
lua_Number mr_lua_opt_number(lua_State *L, int arg, lua_Number def);
/* A finite number within lo..hi ("<what> must be ..."). */
lua_Number mr_lua_check_range(lua_State *L, int arg, const char *what, double lo, double hi);
lua_Integer mr_lua_check_integer(lua_State *L, int arg);
lua_Integer mr_lua_opt_integer(lua_State *L, int arg, lua_Integer def);
const char *mr_lua_check_string(lua_State *L, int arg);
void mr_lua_check_type(lua_State *L, int arg, int t);
void mr_lua_check_any(lua_State *L, int arg);
void *mr_lua_check_udata(lua_State *L, int arg, const char *tname);

/* Value readers (args.c): a vec3 userdata or a table {x, y, z} / {x=, y=, z=}; a quat
 * userdata or {x, y, z, w}; a mat4 userdata; a colour table {r, g, b [, a]}
 * (0..1; a missing alpha is 1). 1 when the value at idx is one. */
int mr_lua_to_vec3(lua_State *L, int idx, float out[3]);
int mr_lua_to_quat(lua_State *L, int idx, float out[4]);
int mr_lua_to_mat4(lua_State *L, int idx, mat4 out);
int mr_lua_to_colour(lua_State *L, int idx, float out[4]);

/* An option table: argument arg (none or nil: every field absent). Messages
 * call its fields <name>.<field> ("opts.weight"), or just <field> when name
 * is "" (marrow.camera{target = ...}). */
typedef struct mr_lua_opts {
    int arg;                 /* the argument messages name */
    int idx;                 /* stack index of the table; 0: absent */
    const char *name;
} mr_lua_opts;

mr_lua_opts mr_lua_check_opts(lua_State *L, int arg, const char *name);
/* For (... [, value] [, opts]): an optional argument at arg, then an option
 * table; every such binding reads both through this, so they all take the
 * same forms. *present says whether argument arg holds the value (is_value:
 * the caller's test of it). A nil at arg is a placeholder: no value, the
 * options at arg + 1 (f(a, nil, opts)). A table at arg that is not a value,
 * with nothing after it, is the options in the value's place (f(a, opts)).
 * Anything else at arg counts as present, so the caller's checker raises
 * the usual bad-argument error for it. */
mr_lua_opts mr_lua_check_opts_after(lua_State *L, int arg, int is_value, const char *name, int *present);
/* THE check of an option table's keys; every binding that takes options
 * calls it once with the keys it reads (NULL-terminated), so a misspelled
 * key raises instead of being ignored:
 *   bad argument #2 to 'mixer:play' (unknown option 'looop'; did you mean 'loop'?)
 * With no known key close (mr_str_closest), the message lists the known
 * ones. A key that is not a string (a list entry, {0.5}) raises too, unless
 * known holds MR_LUA_OPTS_LIST: a table of list entries and named fields
 * (model:mask{"spine1", weight = 0.5}). An absent table (o->idx 0) passes. */
#define MR_LUA_OPTS_LIST "[]"
void mr_lua_check_option_keys(lua_State *L, const mr_lua_opts *o, const char *const known[]);
/* Pushes field key (nil when absent) and returns its type. */
int mr_lua_opt_field(lua_State *L, const mr_lua_opts *o, const char *key);
/* "<name>.<key> must be <what>, got <value>" as an argument error. */
int mr_lua_opt_error(lua_State *L, const mr_lua_opts *o, const char *key, const char *what, int value_idx);
/* Field readers: def when absent; raise naming the field otherwise. */
float mr_lua_opt_num(lua_State *L, const mr_lua_opts *o, const char *key, float def, double lo, double hi);
int mr_lua_opt_int(lua_State *L, const mr_lua_opts *o, const char *key, int def, int lo, int hi);
int mr_lua_opt_bool(lua_State *L, const mr_lua_opts *o, const char *key, int def);  /* any value: its truth */
/* One of names (NULL-terminated), as its index (luaL_checkoption for a field). */
int mr_lua_opt_enum(lua_State *L, const mr_lua_opts *o, const char *key, int def, const char *const names[]);
/* Present: 1 and out filled; absent: 0, out untouched. */
int mr_lua_opt_vec3(lua_State *L, const mr_lua_opts *o, const char *key, float out[3]);
int mr_lua_opt_mat4(lua_State *L, const mr_lua_opts *o, const char *key, mat4 out);
int mr_lua_opt_colour(lua_State *L, const mr_lua_opts *o, const char *key, float out[4]);
/* A list field: pushes it and returns its length (0..max); absent: pushes
 * nil and returns -1. */
int mr_lua_opt_list(lua_State *L, const mr_lua_opts *o, const char *key, int max);

/* ---- userdata layouts (udata.c) --------------------------------------------- */

typedef struct mr_lua_model {
    mr_model *model;         /* NULL once released; owned by the model table */
    mr_model *owner;         /* the cached model (kept after release, for the hand-over) */
} mr_lua_model;

/* skeleton and clip: a view into a model; user value 1 = the model userdata. */
typedef struct mr_lua_skeleton {
    const mr_skeleton *sk;
    mr_model *owner;
} mr_lua_skeleton;

typedef struct mr_lua_clip {
    const mr_clip *clip;
    mr_model *owner;
    mr_clip *owned;          /* a clip made by a script (marrow.additive), else NULL; freed by
                              * the hidden box in user value 2 (udata.c) */
    struct mr_clip_edit *edit;  /* an authored clip's keys (marrow.clip, anim/clip_edit.h), owned by
                              * the same box (wrap_clip_edit.c), else NULL */
    float size;              /* authored: the model size baking measures against */
} mr_lua_clip;

/* mask: weights follow this struct in the same userdata block; user value
 * 1 = the model userdata. */
typedef struct mr_lua_mask {
    mr_mask mask;
    const mr_skeleton *sk;
} mr_lua_mask;

/* pose: its arrays follow this struct in the same userdata block; user
 * value 1 = the model userdata. */
typedef struct mr_lua_pose {
    mr_pose pose;            /* pose.t NULL once released */
    const mr_skeleton *sk;
    mr_model *owner;
    mat4 *model;             /* model-space matrices, computed lazily */
    int model_valid;         /* model[] matches the pose */
    float *morph;            /* morph weights, after the arrays: every mesh's targets in mesh */
    int morph_count;         /* order (mr_draw_style's layout); the meshes' defaults at first */
    struct mr_clip_cursor *cursor;  /* clip:sample's playback cursor into this pose (made on its second */
    size_t cursor_bytes;     /* sample of a packed clip; freed by __gc/__close), counted in held_bytes; */
                             /* without a cursor, the size of one refused for --memory (0: none) */
    int packed_samples;      /* samples of packed clips before the cursor was made */
} mr_lua_pose;

/* blend space: user values 1 = the model, 2 = the list of clip userdata,
 * 3 = a scratch pose. */
typedef struct mr_lua_blendspace {
    mr_blendspace bs;
    const mr_skeleton *sk;
} mr_lua_blendspace;

/* springs (wrap_springs.c): user value 1 = the model userdata. */
struct mr_springs;
typedef struct mr_lua_springs {
    struct mr_springs *s;    /* owned; NULL once closed */
    const mr_skeleton *sk;
    mr_model *owner;
} mr_lua_springs;

/* ---- pushing and checking (udata.c) ------------------------------------------ */

float *mr_lua_push_vec3(lua_State *L, const float v[3]);
float *mr_lua_push_quat(lua_State *L, const float q[4]);
float *mr_lua_push_mat4(lua_State *L, const mat4 m);
/* Checkers: as above or raise a bad-argument error. */
void mr_lua_check_vec3(lua_State *L, int arg, float out[3]);
void mr_lua_check_quat(lua_State *L, int arg, float out[4]);
void mr_lua_check_mat4(lua_State *L, int arg, mat4 out);
void mr_lua_check_colour(lua_State *L, int arg, float out[4]);

mr_lua_model *mr_lua_check_model(lua_State *L, int arg);
mr_lua_skeleton *mr_lua_check_skeleton(lua_State *L, int arg);
mr_lua_clip *mr_lua_check_clip(lua_State *L, int arg);
mr_lua_pose *mr_lua_check_pose(lua_State *L, int arg);
/* A pose of sk's joint count (sk NULL: any). */
mr_lua_pose *mr_lua_check_pose_of(lua_State *L, int arg, const mr_skeleton *sk);
/* A mask of the given skeleton (NULL: any; raises on another joint count). */
mr_lua_mask *mr_lua_check_mask(lua_State *L, int arg, const mr_skeleton *sk);
mr_lua_blendspace *mr_lua_check_blendspace(lua_State *L, int arg, const mr_skeleton *sk);
/* A joint argument: a name or a 1-based index. Returns the 0-based index or
 * raises an error naming close matches. */
int mr_lua_check_joint(lua_State *L, int arg, const mr_skeleton *sk);
/* The same for a value at stack index idx inside argument arg (a list
 * entry): messages blame arg and start with where ("entries[2]: "). */
int mr_lua_check_joint_in(lua_State *L, int idx, int arg, const char *where, const mr_skeleton *sk);

/* Pushes a model userdata for a cached model (a new one each call). */
void mr_lua_push_model(lua_State *L, mr_model *model);
/* Views of the model userdata at model_idx. */
void mr_lua_push_skeleton(lua_State *L, int model_idx);
void mr_lua_push_clip(lua_State *L, int model_idx, const mr_clip *clip);
/* A clip userdata that owns clip (freed by a hidden box once unreachable). */
void mr_lua_push_owned_clip(lua_State *L, int model_idx, mr_clip *clip);
/* Pushes an authored clip (marrow.clip) of the model at model_idx that
 * takes edit (baked here with half of MR_CLIP_FIDELITY of the model size;
 * freed with the clip, also when this raises for want of memory). */
mr_lua_clip *mr_lua_push_authored_clip(lua_State *L, int model_idx, const char *name, struct mr_clip_edit *edit);
/* Counts the authored clip at clip_idx (its keys and bake: host memory
 * outside the Lua heap) in the host's held_bytes after an edit; raises when
 * that passes the script's --memory with its heap and models. */
void mr_lua_authored_charge(lua_State *L, int clip_idx);
/* The hand-over of an authored clip to a reloaded state T (transfer.c): a
 * copy of its keys and markers, rebaked; 1 pushed, 0 not. */
int mr_lua_clip_edit_transfer(lua_State *T, const mr_lua_clip *c);
/* New pose for the model at model_idx, set to src (or the rest pose). */
mr_lua_pose *mr_lua_push_pose(lua_State *L, int model_idx, const mr_pose *src);
/* The pose's playback cursor (anim/clip_runtime.h), made on first need and
 * counted in the host's held_bytes; NULL when it would take the script past
 * its --memory, or without memory (sampling then searches the keys). */
struct mr_clip_cursor *mr_lua_pose_cursor(lua_State *L, mr_lua_pose *p);
/* Frees the pose's cursor and uncounts it (a pose closed or collected). */
void mr_lua_pose_drop_cursor(lua_State *L, mr_lua_pose *p);
/* New mask of the model at model_idx, every weight `fill`. */
mr_lua_mask *mr_lua_push_mask(lua_State *L, int model_idx, float fill);
/* Model-space matrices of a pose, computed when stale. */
const mat4 *mr_lua_pose_model(mr_lua_pose *p);
/* Copies src's morph weights into dst when both have as many (poses of
 * one model). */
void mr_lua_pose_copy_morph(mr_lua_pose *dst, const mr_lua_pose *src);

/* ---- for the host side (draw.c, scene.c); in script.c ------------------------- */

mr_lua_host *mr_lua_host_of_ctx(mr_lua_ctx *ctx);
/* The running script's state (NULL before a start), and its path. */
lua_State *mr_lua_current_state(mr_lua_ctx *ctx);
const char *mr_lua_script(const mr_lua_ctx *ctx);

/* ---- openers (one per wrap file; each adds its functions to the module
 * table at -1 and registers its metatables) ---------------------------------- */

int mr_lua_open_marrow(lua_State *L);   /* the module table (preloaded by script.c) */

/* The C module for plain Lua (module.c): the sentinel that owns its context
 * and what the entry (src/module/marrow_so.c) keeps beside it. */
typedef struct mr_lua_module {
    mr_lua_ctx *ctx;
    void (*release)(struct mr_lua_module *m);   /* after the context is destroyed */
    void *win, *renderer;                       /* the entry's offscreen renderer, or NULL */
    int tried;                                  /* the entry tried to make it */
} mr_lua_module;
/* Pushes the marrow table for a plain Lua, making the module's context on
 * the first call; render is what marrow.render() calls (NULL: it raises). */
int mr_lua_module_open(lua_State *L, int (*render)(lua_State *L), void (*release)(mr_lua_module *m));
/* The module's sentinel in L, or NULL in a state of marrow run. */
mr_lua_module *mr_lua_module_of(lua_State *L);
void mr_lua_open_math(lua_State *L);
void mr_lua_open_model(lua_State *L);
void mr_lua_open_skeleton(lua_State *L);
void mr_lua_open_clip(lua_State *L);
void mr_lua_open_authoring(lua_State *L);  /* wrap_clip_edit.c: marrow.clip, clip:key ... (after open_clip) */
void mr_lua_open_recorder(lua_State *L);   /* wrap_recorder.c */
void mr_lua_open_ikbody(lua_State *L);    /* wrap_ik_body.c: marrow.ik_body and its solver */
void mr_lua_open_save(lua_State *L);       /* wrap_save.c */
void mr_lua_open_pose(lua_State *L);
void mr_lua_open_mask(lua_State *L);
void mr_lua_open_blendspace(lua_State *L);
void mr_lua_open_mixer(lua_State *L);
void mr_lua_open_draw(lua_State *L);
void mr_lua_open_springs(lua_State *L);    /* wrap_springs.c (after open_model and open_pose) */
void mr_lua_open_vrm(lua_State *L);        /* wrap_vrm.c: constraints and look-at (after open_springs) */

/* Pushes a springs userdata of the model at model_idx that takes s
 * (udata_springs.c; transfer.c hands springs over to a reloaded script). */
mr_lua_springs *mr_lua_push_springs(lua_State *L, int model_idx, struct mr_springs *s);

#endif
