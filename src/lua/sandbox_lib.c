/* sandbox_lib.c — the global environment of a script (see sandbox.h): built
 * from an allow-list of the standard library, with the functions that could
 * leave the sandbox or its budget replaced by guarded versions. With
 * desc.trust the whole standard library stays (only print, os.exit, the
 * headless clock and require's searcher are marrow's).
 */
#include "lua/sandbox_internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "core/file.h"
#include "core/str.h"
#include "lua/pattern.h"

#define HEADLESS_SEED 20240101
#define TICK_STEPS 4096               /* loop steps between budget checks */

/* ---- print, exit, clock ------------------------------------------------------------------ */

static int l_print(lua_State *L)
{
    mr_lua_sandbox *s = mr_lua_sandbox_of(L);
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        if (i > 1) luaL_addchar(&b, '\t');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    size_t len = 0;
    const char *text = lua_tolstring(L, -1, &len);
    if (memchr(text, '\0', len)) {
        /* The line goes on as a C string: an embedded NUL is shown as \0
         * instead of cutting the rest of the line off. */
        luaL_Buffer e;
        luaL_buffinit(L, &e);
        for (size_t i = 0; i < len; i++) {
            if (text[i]) luaL_addchar(&e, text[i]);
            else luaL_addstring(&e, "\\0");
        }
        luaL_pushresult(&e);
        text = lua_tostring(L, -1);
    }
    s->desc.print(s->desc.user, text, 0);
    return 0;
}

static int l_exit(lua_State *L)
{
    mr_lua_sandbox *s = mr_lua_sandbox_of(L);
    int code = lua_isboolean(L, 1) ? !lua_toboolean(L, 1) : (int)luaL_optinteger(L, 1, 0);
    s->desc.exit(s->desc.user, code);
    return 0;
}

/* Headless: the clock is the simulated time, never the wall clock. */
static int l_clock(lua_State *L)
{
    lua_pushnumber(L, *mr_lua_sandbox_of(L)->desc.clock);
    return 1;
}

static int l_time(lua_State *L)
{
    if (lua_isnoneornil(L, 1)) {
        lua_pushinteger(L, (lua_Integer)*mr_lua_sandbox_of(L)->desc.clock);
        return 1;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* ---- require: Lua source files from the search folders ------------------------------ */

static void record_required(mr_lua_sandbox *s, const char *path)
{
    mr_str_list_add_unique(&s->required, &s->required_count, &s->required_cap, path);   /* best effort */
}

/* The file for module name in dir (dir/a/b.lua or dir/a/b/init.lua for
 * "a.b"), pushed, or nothing pushed and 0. Only a regular file whose real
 * path stays inside dir counts: a link out of the folder is not followed. */
static int find_module(lua_State *L, const char *dir, const char *name)
{
    char *real_dir = realpath(dir, NULL);
    if (!real_dir) return 0;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (const char *c = name; *c; c++) luaL_addchar(&b, *c == '.' ? '/' : *c);
    luaL_pushresult(&b);
    static const char *const forms[] = {"%s/%s.lua", "%s/%s/init.lua"};
    for (int i = 0; i < 2; i++) {
        lua_pushfstring(L, forms[i], dir, lua_tostring(L, -1));
        char *real = realpath(lua_tostring(L, -1), NULL);
        struct stat st;
        int ok = real && mr_lua_sandbox_path_inside(real, real_dir) && stat(real, &st) == 0 && S_ISREG(st.st_mode);
        free(real);
        if (ok) {
            lua_remove(L, -2);
            free(real_dir);
            return 1;
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    free(real_dir);
    return 0;
}

/* package.searchers[2]: text chunks only (a binary chunk is refused: Lua
 * never verifies bytecode). */
static int search_lua(lua_State *L)
{
    mr_lua_sandbox *s = mr_lua_sandbox_of(L);
    const char *name = luaL_checkstring(L, 1);
    for (int i = 0; i < 2; i++) {
        if (!s->desc.search_dirs[i] || !find_module(L, s->desc.search_dirs[i], name)) continue;
        const char *path = lua_tostring(L, -1);
        char *real = realpath(path, NULL);
        mr_error err = {0};
        size_t len = 0;
        char *src = real ? mr_file_read(real, &len, &err) : NULL;   /* a regular file only */
        free(real);
        if (!src)
            return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, path,
                              err.msg[0] ? err.msg : "it vanished");
        lua_pushfstring(L, "@%s", path);
        int st = luaL_loadbufferx(L, src, len, lua_tostring(L, -1), "t");
        free(src);
        if (st != LUA_OK)
            return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, path,
                              lua_tostring(L, -1));
        record_required(s, path);
        lua_pushstring(L, path);       /* the loader's second argument, as Lua's searcher gives */
        return 2;
    }
    const char *file = luaL_gsub(L, name, ".", "/");
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 0; i < 2; i++) {
        if (!s->desc.search_dirs[i]) continue;
        lua_pushfstring(L, "%sno file '%s/%s.lua'\n\tno file '%s/%s/init.lua'", i ? "\n\t" : "",
                        s->desc.search_dirs[i], file, s->desc.search_dirs[i], file);
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    return 1;
}

/* The package table: preload, then our searcher (then, trusted, Lua's C
 * searchers); nothing that opens a file by itself stays in a sandbox. */
static void setup_package(lua_State *L, int trust)
{
    const mr_lua_sandbox_desc *d = &mr_lua_sandbox_of(L)->desc;
    lua_getglobal(L, LUA_LOADLIBNAME);
    lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;%s/?.lua;%s/?/init.lua", d->search_dirs[0], d->search_dirs[0],
                    d->search_dirs[1], d->search_dirs[1]);
    lua_setfield(L, -2, "path");
    lua_getfield(L, -1, "searchers");
    if (trust) {                       /* ours first, then all of Lua's but preload */
        for (lua_Integer i = (lua_Integer)lua_rawlen(L, -1); i >= 2; i--) {
            lua_rawgeti(L, -1, i);
            lua_rawseti(L, -2, i + 1);
        }
        lua_pushcfunction(L, search_lua);
        lua_rawseti(L, -2, 2);
    } else {
        lua_pushcfunction(L, search_lua);
        lua_rawseti(L, -2, 2);
        lua_pushnil(L);
        lua_rawseti(L, -2, 4);
        lua_pushnil(L);
        lua_rawseti(L, -2, 3);
        static const char *const gone[] = {"loadlib", "searchpath", "cpath", NULL};
        for (int i = 0; gone[i]; i++) {
            lua_pushnil(L);
            lua_setfield(L, -3, gone[i]);
        }
    }
    lua_pop(L, 1);
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, d->preload);
    lua_setfield(L, -2, d->preload_name);
    lua_pop(L, 2);
}

/* ---- base functions ---------------------------------------------------------------- */

/* setmetatable that refuses __gc: finalizers run with hooks off, so a
 * looping one could never be stopped by the time budget. Upvalue 1: Lua's. */
static int l_setmetatable(lua_State *L)
{
    if (lua_istable(L, 2)) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL)
            return luaL_error(L, "setmetatable: __gc metamethods are disabled in marrow scripts "
                                 "(a finalizer cannot be stopped if it loops)");
        lua_pop(L, 1);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/* The message handler of xpcall, around the script's (upvalue 1). An error
 * the budget raised comes from its hook, where hooks are off: the script's
 * handler would run unbounded, so it is not called then. */
static int guarded_handler(lua_State *L)
{
    if (mr_lua_sandbox_of(L)->timed_out) return 1;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int xpcall_done(lua_State *L, int status, lua_KContext ctx)
{
    (void)status;
    (void)ctx;
    return lua_gettop(L);
}

/* Upvalue 1: Lua's xpcall. */
static int l_xpcall(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, guarded_handler, 1);
    lua_replace(L, 2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_callk(L, n, LUA_MULTRET, 0, xpcall_done);
    return xpcall_done(L, LUA_OK, 0);
}

/* load of text chunks only, whatever mode is asked for. Upvalue 1: Lua's. */
/* load's reader for a big string chunk: the next LOAD_PIECE bytes, with a
 * budget check before each (the parser runs in C between them, where the
 * count hook does not). Upvalues: the string, the offset read so far. */
#define LOAD_PIECE (64 * 1024)
static int load_piece(lua_State *L)
{
    mr_lua_sandbox_tick(L);
    size_t len = 0;
    const char *text = lua_tolstring(L, lua_upvalueindex(1), &len);
    size_t at = (size_t)lua_tointeger(L, lua_upvalueindex(2));
    if (at >= len) return 0;
    size_t n = len - at < LOAD_PIECE ? len - at : LOAD_PIECE;
    lua_pushinteger(L, (lua_Integer)(at + n));
    lua_replace(L, lua_upvalueindex(2));
    lua_pushlstring(L, text + at, n);
    return 1;
}

static int l_load(lua_State *L)
{
    int n = lua_gettop(L);
    if (n >= 3 && !lua_isnil(L, 3)) {
        const char *mode = luaL_checkstring(L, 3);
        if (!strchr(mode, 't')) {
            luaL_pushfail(L);
            lua_pushliteral(L, "load: binary chunks are disabled in marrow scripts (mode must allow 't')");
            return 2;
        }
    }
    if (n < 3) lua_settop(L, 3);
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    if (lua_type(L, 1) == LUA_TSTRING && lua_rawlen(L, 1) > LOAD_PIECE) {
        /* A big chunk is parsed piece by piece, under the budget. Its name
         * stays what stock load gives a string: the string itself. */
        if (lua_isnil(L, 2)) {
            lua_pushvalue(L, 1);
            lua_replace(L, 2);
        }
        lua_pushvalue(L, 1);
        lua_pushinteger(L, 0);
        lua_pushcclosure(L, load_piece, 2);
        lua_replace(L, 1);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n < 3 ? 3 : n, LUA_MULTRET);
    return lua_gettop(L);
}

/* ---- coroutines --------------------------------------------------------------------- */

static int killed(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    lua_getfield(L, LUA_REGISTRYINDEX, MR_SANDBOX_KILLED);
    lua_pushvalue(L, idx);
    int k = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 2);
    return k;
}

/* Lists co among the running coroutines (so a poke reaches its hook) and
 * gives it the current hook; returns the slot to give back. */
static int running_push(lua_State *L, int idx)
{
    mr_lua_sandbox *s = mr_lua_sandbox_of(L);
    lua_State *co = lua_tothread(L, idx);
    int n = atomic_load(&s->nrunning);
    if (!co || n >= MR_SANDBOX_NEST) return -1;
    lua_getfield(L, LUA_REGISTRYINDEX, MR_SANDBOX_RUNNING);
    lua_pushvalue(L, idx);
    lua_rawseti(L, -2, n + 1);
    lua_pop(L, 1);
    s->running[n] = co;
    atomic_store(&s->nrunning, n + 1);
    lua_sethook(co, lua_gethook(L), lua_gethookmask(L), lua_gethookcount(L));
    return n;
}

static void running_pop(lua_State *L, int slot)
{
    if (slot >= 0) atomic_store(&mr_lua_sandbox_of(L)->nrunning, slot);
}

/* coroutine.resume. Upvalue 1: Lua's. */
static int l_resume(lua_State *L)
{
    luaL_argexpected(L, lua_type(L, 1) == LUA_TTHREAD, 1, "coroutine");
    int slot = running_push(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    running_pop(L, slot);
    return lua_gettop(L);
}

/* A function made by coroutine.wrap. Upvalues: the coroutine, resume. */
static int wrapped(lua_State *L)
{
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_rotate(L, 1, 2);
    lua_call(L, n + 1, LUA_MULTRET);
    if (lua_toboolean(L, 1)) return lua_gettop(L) - 1;
    /* An error: Lua's wrap closes the coroutine's to-be-closed variables,
     * which must not happen when the budget stopped it (hooks stay off in
     * it). The message gets the caller's position, as Lua's does. */
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    int st = lua_status(co);
    if (st != LUA_OK && st != LUA_YIELD && !killed(L, lua_upvalueindex(1))) lua_resetthread(co);
    lua_settop(L, 2);
    if (st != LUA_ERRMEM && lua_type(L, 2) == LUA_TSTRING) {
        luaL_where(L, 1);
        lua_insert(L, 2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

/* coroutine.wrap. Upvalue 1: the sandbox's resume. */
static int l_wrap(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_State *co = lua_newthread(L);
    lua_pushvalue(L, 1);
    lua_xmove(L, co, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushcclosure(L, wrapped, 2);
    return 1;
}

/* coroutine.close. Upvalue 1: Lua's. */
static int l_close(lua_State *L)
{
    luaL_argexpected(L, lua_type(L, 1) == LUA_TTHREAD, 1, "coroutine");
    if (killed(L, 1)) {
        lua_pushboolean(L, 0);         /* as Lua's close says of a coroutine that failed */
        lua_pushliteral(L, "the coroutine was stopped by the time budget; its to-be-closed variables are not closed");
        return 2;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* ---- table and string functions that loop in C ---------------------------------------- */

#define TICK(L, i) do { if (((i) & (TICK_STEPS - 1)) == 0) mr_lua_sandbox_tick(L); } while (0)

/* table.move(a1, f, e, t [, a2]), checking the budget as it goes. */
static int t_move(lua_State *L)
{
    lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3), t = luaL_checkinteger(L, 4);
    int tt = !lua_isnoneornil(L, 5) ? 5 : 1;
    if (lua_type(L, 1) != LUA_TTABLE) luaL_checktype(L, 1, LUA_TTABLE);
    if (lua_type(L, tt) != LUA_TTABLE) luaL_checktype(L, tt, LUA_TTABLE);
    if (e >= f) {
        luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3, "too many elements to move");
        lua_Integer n = e - f;
        luaL_argcheck(L, t <= LUA_MAXINTEGER - n, 4, "destination wrap around");
        if (t > e || t <= f || (tt != 1 && !lua_compare(L, 1, tt, LUA_OPEQ))) {
            for (lua_Integer i = 0; i <= n; i++) {
                TICK(L, i + 1);
                lua_geti(L, 1, f + i);
                lua_seti(L, tt, t + i);
            }
        } else {
            for (lua_Integer i = n; i >= 0; i--) {
                TICK(L, i + 1);
                lua_geti(L, 1, f + i);
                lua_seti(L, tt, t + i);
            }
        }
    }
    lua_pushvalue(L, tt);
    return 1;
}

static lua_Integer checked_len(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    return luaL_len(L, 1);
}

/* table.insert(t, [pos,] v). */
static int t_insert(lua_State *L)
{
    lua_Integer e = checked_len(L) + 1, pos;
    switch (lua_gettop(L)) {
    case 2:
        pos = e;
        break;
    case 3:
        pos = luaL_checkinteger(L, 2);
        luaL_argcheck(L, (lua_Unsigned)pos - 1u < (lua_Unsigned)e, 2, "position out of bounds");
        for (lua_Integer i = e; i > pos; i--) {
            TICK(L, i);
            lua_geti(L, 1, i - 1);
            lua_seti(L, 1, i);
        }
        break;
    default:
        return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    lua_seti(L, 1, pos);
    return 0;
}

/* table.remove(t [, pos]). */
static int t_remove(lua_State *L)
{
    lua_Integer size = checked_len(L), pos = luaL_optinteger(L, 2, size);
    if (pos != size)
        luaL_argcheck(L, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, 2, "position out of bounds");
    lua_geti(L, 1, pos);
    for (; pos < size; pos++) {
        TICK(L, pos);
        lua_geti(L, 1, pos + 1);
        lua_seti(L, 1, pos);
    }
    lua_pushnil(L);
    lua_seti(L, 1, pos);
    return 1;
}

static int less_than(lua_State *L)
{
    lua_pushboolean(L, lua_compare(L, 1, 2, LUA_OPLT));
    return 1;
}

/* table.sort: without a comparison function it compares through a C
 * function, so a poke of the watchdog (call hooks) can stop a huge sort.
 * Upvalue 1: Lua's sort. */
static int t_sort(lua_State *L)
{
    if (lua_isnoneornil(L, 2)) {
        lua_settop(L, 1);
        lua_pushcfunction(L, less_than);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 0);
    return 0;
}

/* string.rep(s, n [, sep]), checking the budget as it goes (Lua's loops n
 * times even when the result is empty). */
static int s_rep(lua_State *L)
{
    size_t l, lsep;
    const char *str = luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    const char *sep = luaL_optlstring(L, 3, "", &lsep);
    if (n <= 0 || l + lsep == 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    if (l + lsep < l || l + lsep > (size_t)(LUA_MAXINTEGER < SIZE_MAX ? LUA_MAXINTEGER : SIZE_MAX) / (size_t)n)
        return luaL_error(L, "resulting string too large");
    size_t total = l * (size_t)n + lsep * (size_t)(n - 1);
    luaL_Buffer b;
    char *p = luaL_buffinitsize(L, &b, total);   /* past the memory cap: fails here, at once */
    /* One copy of s..sep, then the filled part doubled until it is long enough. */
    size_t unit = l + lsep, done = l < total ? unit : total;
    memcpy(p, str, l);
    if (done > l) memcpy(p + l, sep, lsep);
    while (done < total) {
        mr_lua_sandbox_tick(L);
        size_t k = done < total - done ? done : total - done;
        memcpy(p + done, p, k);
        done += k;
    }
    luaL_pushresultsize(&b, total);
    return 1;
}

/* os.date with a long format: stock os.date walks the whole format in one
 * C call. A format longer than DATE_PIECE bytes is done in pieces cut
 * between conversions ("%c", "%Ec"), each through stock os.date (upvalue
 * 1) with the same time and the same '!', with a budget check between. */
#define DATE_PIECE 512
static int l_date(lua_State *L)
{
    size_t len = 0;
    const char *fmt = luaL_optlstring(L, 1, "%c", &len);
    int args = lua_gettop(L) < 2 ? 1 : 2;
    if (len <= DATE_PIECE) {
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_insert(L, 1);
        lua_call(L, lua_gettop(L) - 1, 1);
        return 1;
    }
    int utc = fmt[0] == '!';
    const char *p = fmt + utc, *end = fmt + len;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    while (p < end) {
        const char *q = p;
        while (q < end && q - p < DATE_PIECE) {
            if (*q == '%' && q + 1 < end) {
                q += 2;
                if ((q[-1] == 'E' || q[-1] == 'O') && q < end) q++;
            } else {
                q++;
            }
        }
        lua_pushvalue(L, lua_upvalueindex(1));
        lua_pushstring(L, utc ? "!" : "");
        lua_pushlstring(L, p, (size_t)(q - p));
        lua_concat(L, 2);
        if (args == 2) lua_pushvalue(L, 2);
        lua_call(L, args, 1);
        luaL_addvalue(&b);
        mr_lua_sandbox_tick(L);
        p = q;
    }
    luaL_pushresult(&b);
    return 1;
}

/* ---- building the environment --------------------------------------------------------- */

/* Copies the named fields of the table at src into a new table, pushed. */
static void copy_fields(lua_State *L, int src, const char *const *names)
{
    src = lua_absindex(L, src);
    lua_newtable(L);
    for (int i = 0; names[i]; i++) {
        lua_getfield(L, src, names[i]);
        lua_setfield(L, -2, names[i]);
    }
}

/* Pushes a new table with the named fields of library lib of the table at old. */
static void push_lib(lua_State *L, int old, const char *lib, const char *const *names)
{
    lua_getfield(L, old, lib);
    copy_fields(L, -1, names);
    lua_remove(L, -2);
}

/* t[name] = closure(f, upvalue t[name]) for the table on top. */
static void wrap_field(lua_State *L, const char *name, lua_CFunction f)
{
    lua_getfield(L, -1, name);
    lua_pushcclosure(L, f, 1);
    lua_setfield(L, -2, name);
}

/* resume, close and wrap of the coroutine table on top replaced by the
 * sandbox's: a resumed coroutine is listed where the watchdog's poke finds
 * it (each thread has its own hook), a stopped one stays stopped. */
static void wrap_coroutines(lua_State *L)
{
    wrap_field(L, "resume", l_resume);
    wrap_field(L, "close", l_close);
    lua_getfield(L, -1, "resume");
    lua_pushcclosure(L, l_wrap, 1);
    lua_setfield(L, -2, "wrap");
}

static void set_fn(lua_State *L, const char *name, lua_CFunction f)
{
    lua_pushcfunction(L, f);
    lua_setfield(L, -2, name);
}

/* ---- refusals ---------------------------------------------------------------------------- */

/* What a script meets where the sandbox left a standard function out: a
 * call raises at the script's line saying so, instead of "attempt to call a
 * nil value". The stub is a closure over two strings (the name and a hint)
 * and calls nothing: it gives no capability. */
static int l_left_out(lua_State *L)
{
    return luaL_error(L, "%s is left out of the sandbox%s; `marrow run --trust` gives it back",
                      lua_tostring(L, lua_upvalueindex(1)), lua_tostring(L, lua_upvalueindex(2)));
}

typedef struct left_out {
    const char *name, *hint;
} left_out;

/* Sets a refusal stub for each of names into the table at -1 (lib: the
 * prefix of the name in messages, NULL for globals). */
static void set_left_out(lua_State *L, const char *lib, const left_out *names)
{
    for (; names->name; names++) {
        if (lib) lua_pushfstring(L, "%s.%s", lib, names->name);
        else lua_pushstring(L, names->name);
        lua_pushstring(L, names->hint ? names->hint : "");
        lua_pushcclosure(L, l_left_out, 2);
        lua_setfield(L, -2, names->name);
    }
}

/* Builds the allow-listed library table lib from the stock one (LOADED[lib])
 * and sets it as global and LOADED entry of the new environment at env. */
static void publish(lua_State *L, int env, const char *lib)
{
    lua_pushvalue(L, -1);
    lua_setfield(L, env, lib);
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, lib);
    lua_pop(L, 2);
}

static void open_restricted(lua_State *L)
{
    static const char *const base[] = {"assert", "error", "ipairs", "next", "pairs", "pcall", "rawequal", "rawget",
                                       "rawlen", "rawset", "select", "tonumber", "tostring", "type",
                                       "getmetatable", "collectgarbage", "warn", "_VERSION", "require", "print",
                                       "setmetatable", "xpcall", "load", NULL};
    static const char *const string_fns[] = {"byte", "char", "find", "format", "gmatch", "gsub", "len", "lower",
                                             "match", "pack", "packsize", "rep", "reverse", "sub", "unpack",
                                             "upper", NULL};
    static const char *const table_fns[] = {"concat", "insert", "move", "pack", "remove", "sort", "unpack", NULL};
    static const char *const co_fns[] = {"close", "create", "isyieldable", "resume", "running", "status", "wrap",
                                         "yield", NULL};
    static const char *const os_fns[] = {"clock", "date", "difftime", "time", "exit", NULL};
    static const char *const math_fns[] = {"abs", "acos", "asin", "atan", "ceil", "cos", "deg", "exp", "floor",
                                           "fmod", "huge", "log", "max", "maxinteger", "min", "mininteger",
                                           "modf", "pi", "rad", "random", "randomseed", "sin", "sqrt", "tan",
                                           "tointeger", "type", "ult", NULL};
    static const char *const utf8_fns[] = {"char", "charpattern", "codepoint", "codes", "len", "offset", NULL};
    /* The functions of the stock libraries that the lists above leave out. */
    static const left_out base_out[] = {
        {"dofile", " (require loads a module beside the script)"},
        {"loadfile", " (require loads a module beside the script)"},
        {NULL, NULL},
    };
    static const left_out os_out[] = {
        {"execute", " (no processes)"}, {"getenv", " (pass values after `--`: they are arg[1], arg[2], ...)"},
        {"remove", " (files are written under --out with io.open)"}, {"rename", " (files are written under --out with io.open)"},
        {"tmpname", " (files are written under --out with io.open)"}, {"setlocale", NULL}, {NULL, NULL},
    };
    static const left_out io_out[] = {
        {"popen", " (no processes)"}, {"tmpfile", " (files are written under --out with io.open)"},
        {"read", " (read a file with io.open or io.lines)"}, {"input", " (read a file with io.open or io.lines)"},
        {"output", " (write a file with io.open)"}, {"close", " (close the file: f:close())"}, {NULL, NULL},
    };
    static const left_out package_out[] = {{"loadlib", " (no native code)"}, {"searchpath", NULL}, {NULL, NULL}};
    static const left_out string_out[] = {{"dump", " (no bytecode)"}, {NULL, NULL}};
    static const left_out debug_out[] = {
        {"debug", NULL}, {"gethook", NULL}, {"getinfo", NULL}, {"getlocal", NULL}, {"getmetatable", NULL},
        {"getregistry", NULL}, {"getupvalue", NULL}, {"getuservalue", NULL}, {"sethook", NULL},
        {"setlocal", NULL}, {"setmetatable", NULL}, {"setupvalue", NULL}, {"setuservalue", NULL},
        {"upvalueid", NULL}, {"upvaluejoin", NULL}, {"setcstacklimit", NULL}, {NULL, NULL},
    };

    lua_pushglobaltable(L);
    int old = lua_gettop(L);
    copy_fields(L, old, base);
    int env = lua_gettop(L);
    lua_pushvalue(L, env);
    lua_setfield(L, env, "_G");
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_pushvalue(L, env);
    lua_setfield(L, -2, "_G");
    lua_pop(L, 1);

    lua_pushvalue(L, env);
    set_left_out(L, NULL, base_out);
    wrap_field(L, "xpcall", l_xpcall);
    wrap_field(L, "load", l_load);
    lua_getfield(L, -1, "load");       /* the host tells it from a script's load() callback */
    lua_setfield(L, LUA_REGISTRYINDEX, "marrow.builtin_load");
    lua_pop(L, 1);

    push_lib(L, old, LUA_STRLIBNAME, string_fns);
    set_fn(L, "rep", s_rep);
    set_left_out(L, LUA_STRLIBNAME, string_out);
    mr_lua_pattern_install(L, lua_gettop(L), mr_lua_sandbox_tick);
    /* s:find(...) goes through the string metatable's __index. */
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    lua_pushvalue(L, -3);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 2);
    publish(L, env, LUA_STRLIBNAME);

    push_lib(L, old, LUA_TABLIBNAME, table_fns);
    set_fn(L, "move", t_move);
    set_fn(L, "insert", t_insert);
    set_fn(L, "remove", t_remove);
    wrap_field(L, "sort", t_sort);
    publish(L, env, LUA_TABLIBNAME);

    push_lib(L, old, LUA_COLIBNAME, co_fns);
    wrap_coroutines(L);
    publish(L, env, LUA_COLIBNAME);

    push_lib(L, old, LUA_OSLIBNAME, os_fns);
    wrap_field(L, "date", l_date);
    set_left_out(L, LUA_OSLIBNAME, os_out);
    publish(L, env, LUA_OSLIBNAME);

    push_lib(L, old, LUA_MATHLIBNAME, math_fns);
    publish(L, env, LUA_MATHLIBNAME);

    push_lib(L, old, LUA_UTF8LIBNAME, utf8_fns);
    publish(L, env, LUA_UTF8LIBNAME);

    lua_newtable(L);
    lua_getfield(L, old, LUA_DBLIBNAME);
    lua_getfield(L, -1, "traceback");
    lua_setfield(L, -3, "traceback");
    lua_pop(L, 1);
    set_left_out(L, LUA_DBLIBNAME, debug_out);
    publish(L, env, LUA_DBLIBNAME);

    mr_lua_sandbox_push_io(L);
    set_left_out(L, LUA_IOLIBNAME, io_out);
    publish(L, env, LUA_IOLIBNAME);

    lua_getfield(L, old, LUA_LOADLIBNAME);
    set_left_out(L, LUA_LOADLIBNAME, package_out);   /* the stock table: setup_package cleared them */
    publish(L, env, LUA_LOADLIBNAME);

    /* The new table becomes the globals of every chunk loaded from now on. */
    lua_pushvalue(L, env);
    lua_rawseti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
    lua_settop(L, old - 1);
}

void mr_lua_sandbox_open_libs(lua_State *L)
{
    mr_lua_sandbox *s = mr_lua_sandbox_of(L);
    const mr_lua_sandbox_desc *d = &s->desc;
    luaL_openlibs(L);
    lua_newtable(L);                   /* weak set of coroutines the budget stopped */
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, MR_SANDBOX_KILLED);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, MR_SANDBOX_RUNNING);

    lua_getglobal(L, "load");
    lua_setfield(L, LUA_REGISTRYINDEX, "marrow.builtin_load");
    lua_pushcfunction(L, l_print);
    lua_setglobal(L, "print");
    lua_getglobal(L, "setmetatable");
    lua_pushcclosure(L, l_setmetatable, 1);
    lua_setglobal(L, "setmetatable");
    setup_package(L, d->trust);

    /* os.exit ends the run cleanly after the frame instead of killing it. */
    lua_getglobal(L, LUA_OSLIBNAME);
    lua_pushcfunction(L, l_exit);
    lua_setfield(L, -2, "exit");
    if (d->headless) {
        lua_pushcfunction(L, l_clock);
        lua_setfield(L, -2, "clock");
        lua_getfield(L, -1, "time");
        lua_pushcclosure(L, l_time, 1);
        lua_setfield(L, -2, "time");
    }
    lua_pop(L, 1);
    if (d->headless) {
        lua_getglobal(L, LUA_MATHLIBNAME);
        lua_getfield(L, -1, "randomseed");
        lua_pushinteger(L, HEADLESS_SEED);
        lua_call(L, 1, 0);
        lua_pop(L, 1);
    }
    if (!d->trust) {
        open_restricted(L);
    } else {                           /* trusted scripts get the budgeted matcher too */
        lua_getglobal(L, LUA_STRLIBNAME);
        mr_lua_pattern_install(L, lua_gettop(L), mr_lua_sandbox_tick);
        lua_pop(L, 1);
        lua_getglobal(L, LUA_COLIBNAME);   /* coroutines the budget's poke reaches */
        wrap_coroutines(L);
        lua_pop(L, 1);
        lua_pushglobaltable(L);            /* and an xpcall whose handler a stop skips */
        wrap_field(L, "xpcall", l_xpcall);
        lua_pop(L, 1);
    }

    /* arg: arg[0] = the script, arg[1..] its arguments. */
    lua_createtable(L, d->argc, 1);
    lua_pushstring(L, d->script);
    lua_seti(L, -2, 0);
    for (int i = 0; i < d->argc; i++) {
        lua_pushstring(L, d->argv[i]);
        lua_seti(L, -2, i + 1);
    }
    lua_setglobal(L, "arg");

    luaL_requiref(L, d->preload_name, d->preload, 0);
    lua_pop(L, 1);
    if (!d->trust) mr_lua_sandbox_seal_metatables(L);
}

/* getmetatable(x) of a host type returns a copy of its metatable (its
 * fields, for introspection: __name, __index...), so a script cannot give
 * marrow's objects a __gc or change what the host relies on. */
static void seal(lua_State *L, int mt)
{
    mt = lua_absindex(L, mt);
    if (lua_getfield(L, mt, "__metatable") != LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushnil(L);
    while (lua_next(L, mt)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -4);
    }
    lua_setfield(L, mt, "__metatable");
}

void mr_lua_sandbox_seal_metatables(lua_State *L)
{
    if (mr_lua_sandbox_of(L)->desc.trust) return;
    lua_pushnil(L);
    while (lua_next(L, LUA_REGISTRYINDEX)) {
        if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TTABLE) {
            int named = lua_getfield(L, -1, "__name") == LUA_TSTRING;
            lua_pop(L, 1);
            if (named) seal(L, -1);
        }
        lua_pop(L, 1);
    }
    lua_pushliteral(L, "");
    if (lua_getmetatable(L, -1)) {
        seal(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}
