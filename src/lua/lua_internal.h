/* lua_internal.h — shared by the files of src/lua only: the context and
 * per-state structs, the userdata layouts and their checkers.
 *
 * Every lua_State made by script.c keeps a pointer to its mr_lua_state in
 * the state's extra space (lua_getextraspace), so bindings reach the context
 * without a registry lookup.
 */
#ifndef MR_LUA_INTERNAL_H
#define MR_LUA_INTERNAL_H

#include <lauxlib.h>
#include <lua.h>

#include "anim/mask.h"
#include "anim/model.h"
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

/* ---- model cache (lua_model.c) ------------------------------------------ */

typedef struct mr_cache_entry {
    char *key;               /* resolved path + "\n" + resolved anims */
    mr_model *model;         /* owned */
    uint32_t gpu_id;         /* renderer handle (lua_draw.c), 0 until uploaded */
    int gpu_failed;          /* upload failed once: don't retry every frame */
} mr_cache_entry;

/* ---- userdata layouts ----------------------------------------------------- */

typedef struct mr_lua_model {
    mr_model *model;         /* NULL once released */
    mr_cache_entry *entry;   /* the cache entry (models come from the cache) */
} mr_lua_model;

/* skeleton and clip: a view into a model; user value 1 = the model userdata. */
typedef struct mr_lua_skeleton {
    const mr_skeleton *sk;
    mr_cache_entry *entry;
} mr_lua_skeleton;

typedef struct mr_lua_clip {
    const mr_clip *clip;
    mr_cache_entry *entry;
    mr_clip *owned;          /* a clip made by a script (marrow.additive), else NULL; freed by
                              * the hidden box in user value 2 (lua_model.c) */
} mr_lua_clip;

/* mask: weights follow this struct in the same userdata block (lua_mask.c);
 * user value 1 = the model userdata. */
typedef struct mr_lua_mask {
    mr_mask mask;
    const mr_skeleton *sk;
    mr_cache_entry *entry;
} mr_lua_mask;

/* pose: its arrays follow this struct in the same userdata block (see
 * lua_pose.c); user value 1 = the model userdata. */
typedef struct mr_lua_pose {
    mr_pose pose;            /* pose.t NULL once released */
    const mr_skeleton *sk;
    mr_cache_entry *entry;
    mat4 *model;             /* model-space matrices, computed lazily */
    int model_valid;         /* model[] matches the pose */
} mr_lua_pose;

/* ---- per-state and per-run structs --------------------------------------- */

typedef struct mr_lua_state {
    lua_State *L;
    mr_lua_ctx *ctx;
    size_t mem_used, mem_limit;  /* capped allocator */
    double deadline;         /* mr_lua_budget_clock() seconds; 0 = no budget running */
    double budget;           /* the budget of the current call, for messages */
    int timed_out;
    const char *what;        /* callback being run ("update()"), for messages */
    char **required;         /* module files found by require */
    int required_count, required_cap;
    int unload_ref;          /* registry ref of unload()'s result, or LUA_NOREF */
    const void *mt[7];       /* metatables of our types, for the reload copy */
} mr_lua_state;

struct mr_lua_gfx;           /* drawing glue state, lua_draw.c */

struct mr_lua_ctx {
    mr_lua_desc desc;        /* strings below own copies */
    char *script, *script_dir, *root_dir, *out_dir, *scripts_dir;
    char **argv;
    mr_cache_entry **cache;
    int cache_count, cache_cap, cache_loads;
    mr_lua_state *cur;       /* the last good script, NULL before the first */
    char *error;             /* shown error, NULL when none */
    int error_count;
    char console[MR_LUA_CONSOLE_LINES][160];
    double console_time[MR_LUA_CONSOLE_LINES];  /* script time each line was added */
    int console_head, console_count;
    int console_hidden;      /* marrow.console(false) */
    char **watched;          /* cur + last failed attempt's module files */
    int watched_count, watched_cap;
    double time;             /* simulated seconds */
    double pending_dt;       /* dt of the frame being made, added at its end */
    uint64_t frame;
    int width, height;
    int quit, quit_code;
    struct mr_lua_gfx *gfx;
};

static inline mr_lua_state *mr_lua_state_of(lua_State *L)
{
    return *(mr_lua_state **)lua_getextraspace(L);
}

/* Openers, one per file (each registers its metatables and returns nothing
 * except luaopen_marrow, which returns the module table). */
int luaopen_marrow(lua_State *L);
void mr_lua_open_math(lua_State *L);      /* leaves vec3, quat, mat4 in the module at -1 */
void mr_lua_open_model(lua_State *L);     /* model, skeleton, clip; marrow.model */
void mr_lua_open_pose(lua_State *L);      /* pose; marrow.pose */
void mr_lua_open_draw(lua_State *L);      /* drawing functions */
void mr_lua_open_mask(lua_State *L);      /* mask, model:mask, marrow.blend, marrow.additive */
void mr_lua_open_blendspace(lua_State *L); /* marrow.blendspace1d/2d */
void mr_lua_open_mixer(lua_State *L);     /* mixer, track; marrow.mixer */
void mr_lua_open_ik(lua_State *L);        /* pose:two_bone_ik, pose:aim (after open_pose) */

/* ---- math values (lua_math.c) ------------------------------------------- */

float *mr_lua_push_vec3(lua_State *L, const float v[3]);
float *mr_lua_push_quat(lua_State *L, const float q[4]);
float *mr_lua_push_mat4(lua_State *L, const mat4 m);
/* Checkers: a vec3 userdata, or a table {x, y, z} / {x=, y=, z=}; a quat
 * userdata or a table {x, y, z, w}; a mat4 userdata. Raise "bad argument". */
void mr_lua_check_vec3(lua_State *L, int arg, float out[3]);
void mr_lua_check_quat(lua_State *L, int arg, float out[4]);
void mr_lua_check_mat4(lua_State *L, int arg, mat4 out);
/* A colour: table {r, g, b [, a]} (0..1); a missing alpha is 1. */
void mr_lua_check_colour(lua_State *L, int arg, float out[4]);

/* ---- models and poses (lua_model.c, lua_pose.c) -------------------------- */

mr_lua_model *mr_lua_check_model(lua_State *L, int arg);
mr_lua_skeleton *mr_lua_check_skeleton(lua_State *L, int arg);
mr_lua_clip *mr_lua_check_clip(lua_State *L, int arg);
mr_lua_pose *mr_lua_check_pose(lua_State *L, int arg);
/* Pushes the model userdata of a cache entry (a new one each call). */
void mr_lua_push_model(lua_State *L, mr_cache_entry *e);
void mr_lua_push_skeleton(lua_State *L, int model_idx);
void mr_lua_push_clip(lua_State *L, int model_idx, const mr_clip *clip);
/* New pose for the skeleton of the model userdata at model_idx, set to src
 * (or the rest pose when src is NULL). */
mr_lua_pose *mr_lua_push_pose(lua_State *L, int model_idx, const mr_pose *src);
/* Model-space matrices of a pose, computed when stale. */
const mat4 *mr_lua_pose_model(mr_lua_pose *p);
/* A joint argument: a name or a 1-based index. Returns the 0-based index or
 * raises an error naming close matches. */
int mr_lua_check_joint(lua_State *L, int arg, const mr_skeleton *sk);
/* A mask of the given skeleton (raises on another joint count). */
mr_lua_mask *mr_lua_check_mask(lua_State *L, int arg, const mr_skeleton *sk);
/* Pushes a clip userdata that owns clip (freed by its __gc). */
void mr_lua_push_owned_clip(lua_State *L, int model_idx, mr_clip *clip);
/* Blend space: checks arg and returns the space (lua_blendspace.c). */
struct mr_blendspace;
const struct mr_blendspace *mr_lua_check_blendspace(lua_State *L, int arg, const mr_skeleton *sk);
/* The cache entry matching a model key, loading it when absent. */
mr_cache_entry *mr_lua_cache_find(mr_lua_ctx *ctx, const char *key);

/* ---- script.c helpers used by bindings ----------------------------------- */

/* Pushes the resolved form of a relative path: as given when it exists, else
 * beside the script when it exists there, else under marrow's root when it
 * exists there, else as given. */
void mr_lua_push_resolved(lua_State *L, const char *path);
/* The clock of the time budget (thread CPU seconds). */
double mr_lua_budget_clock(void);
/* Adds the time spent in C work (model loading) back to the running budget. */
void mr_lua_budget_extend(lua_State *L, double seconds);

/* ---- the reload hand-over (lua_transfer.c) ------------------------------- */

/* Copies the value at from_idx of `from` onto the top of `to` (must run
 * inside a protected call on `to`). Data, math values, models, skeletons,
 * clips and poses are copied; functions, threads and foreign userdata become
 * nil and are counted in *dropped (the first one's path written to where). */
void mr_lua_transfer(mr_lua_state *from, int from_idx, mr_lua_state *to, int *dropped,
                     char *where, size_t where_size);

/* ---- drawing glue (lua_draw.c) -------------------------------------------- */

/* Frees the drawing state (GPU models too, when a renderer is attached). */
void mr_lua_gfx_free(mr_lua_ctx *ctx);
/* Clears what draw() recorded (called before each draw()). */
void mr_lua_gfx_begin(mr_lua_ctx *ctx);

#endif
