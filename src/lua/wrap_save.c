/* wrap_save.c — marrow.save: a model with clips written by extension
 * (formats/save.h).
 *
 *   marrow.save(path, model [, {clips = {clip, ...}}]) -> path | nil, message
 *       clips default to the model's own; each must be a clip of model
 *       (loaded, authored, recorded, retargeted onto it ...). path follows
 *       the sandbox's write rules (mr_lua_host_write_path: relative paths go
 *       under --out); the returned path is where the file went.
 *
 * Wrong argument types raise; a path the rules refuse, a format that cannot
 * hold what was asked, a save past the script's write quota (what its
 * files take on disk counts, mr_lua_host_charge_write) and a failed write
 * return nil and a message naming the argument, with nothing written: the
 * files of one save are renamed into place together or not at all.
 */
#include <stdlib.h>

#include "core/cancel.h"
#include "core/file.h"
#include "formats/save.h"
#include "lua/sandbox.h"
#include "lua/wrap.h"

#define MAX_CLIPS 1024

static int l_save(lua_State *L)
{
    mr_lua_check_string(L, 1);
    mr_lua_model *m = mr_lua_check_model(L, 2);
    mr_lua_opts o = mr_lua_check_opts(L, 3, "opts");
    static const char *const keys[] = {"clips", NULL};
    mr_lua_check_option_keys(L, &o, keys);
    const mr_clip **clips = NULL;
    int n = mr_lua_opt_list(L, &o, "clips", MAX_CLIPS);
    int list = lua_gettop(L);
    if (n >= 0) {
        clips = lua_newuserdatauv(L, sizeof *clips * (size_t)(n ? n : 1), 0);
        for (int i = 0; i < n; i++) {
            lua_geti(L, list, i + 1);
            mr_lua_clip *c = luaL_testudata(L, -1, MR_LUA_CLIP);
            if (!c) return mr_lua_opt_error(L, &o, "clips", "a list of clips", list);
            if (c->owner != m->model)
                return mr_lua_arg_error(L, 3, lua_pushfstring(L, "opts.clips[%d]: clip '%s' is not a clip of model", i + 1,
                                                              c->clip->name));
            clips[i] = c->clip;
            lua_pop(L, 1);
        }
    } else {
        n = m->model->clip_count;
        clips = lua_newuserdatauv(L, sizeof *clips * (size_t)(n ? n : 1), 0);
        for (int i = 0; i < n; i++) clips[i] = m->model->clips[i];
    }
    mr_error err = {0};
    if (mr_save_check(lua_tostring(L, 1), clips, n, &err) != MR_OK) {
        lua_pushnil(L);
        lua_pushfstring(L, "marrow.save: %s", err.msg);
        return 2;
    }
    if (!mr_lua_host_write_path(L, lua_tostring(L, 1))) {
        lua_pushnil(L);
        lua_insert(L, -2);
        return 2;
    }
    const char *path = lua_tostring(L, -1);
    if (mr_lua_host_charge_write(L, 1) != 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "marrow.save: %s: the script's write quota is spent (%d MiB in all)", path,
                        (int)(MR_SANDBOX_WRITE_QUOTA >> 20));
        return 2;
    }
    /* Every file of the save in one batch: none renamed into place until all
     * were written and their size on disk fits the write quota. */
    int batch = mr_file_batch_begin() == MR_OK;
    double token = mr_lua_host_pause(L);
    int written = 0;
    mr_status st = mr_save_model(m->model, clips, n, path, &written, &err);
    int stopped = st == MR_ERR_LIMIT && mr_cancel_requested();   /* the budget's allowance ran out (core/cancel.h) */
    mr_lua_host_resume(L, token);
    long long bytes = batch && st == MR_OK ? mr_file_batch_size() : 0;
    if (st == MR_OK && mr_lua_host_charge_write(L, bytes) != 0) {
        st = mr_error_set(&err, MR_ERR_LIMIT, "%s: %lld bytes would pass the script's write quota (%d MiB in all, "
                          "files, saves and screenshots together); nothing written", path, bytes,
                          (int)(MR_SANDBOX_WRITE_QUOTA >> 20));
    }
    if (batch && st == MR_OK && (st = mr_file_batch_commit(&err)) != MR_OK)
        mr_lua_host_charge_write(L, -bytes);   /* nothing was written after all */
    else if (batch && st != MR_OK) mr_file_batch_abort();
    if (stopped) return mr_lua_host_stop(L, "in marrow.save, writing %s (nothing written)", path);
    if (st != MR_OK) {
        lua_pushnil(L);
        lua_pushfstring(L, "marrow.save: %s", err.msg[0] ? err.msg : mr_status_string(st));
        return 2;
    }
    return 1;
}

void mr_lua_open_save(lua_State *L)
{
    mr_lua_pushfunc(L, l_save, "marrow.save", 0);
    lua_setfield(L, -2, "save");
}
