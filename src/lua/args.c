/* args.c — argument and option checking for the bindings (see wrap.h).
 *
 * Lua's luaL_argerror names a C function by how it was called ('?' when
 * called through pcall or a table two levels down, a local's name
 * otherwise). Bindings registered here are closures whose upvalues hold
 * their full name ("marrow.quat.axis_angle", "pose:rotate") and how many
 * leading arguments messages skip, so every message names the function the
 * way the reference does, however it was called.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/str.h"
#include "lua/wrap.h"

/* ---- names ------------------------------------------------------------------ */

void mr_lua_pushfunc(lua_State *L, lua_CFunction f, const char *name, int shift)
{
    lua_pushstring(L, name);
    lua_pushinteger(L, shift);
    lua_pushcclosure(L, f, 2);
}

void mr_lua_setfuncs(lua_State *L, const char *prefix, const luaL_Reg *l)
{
    size_t n = strlen(prefix);
    int shift = n > 0 && prefix[n - 1] == ':';
    for (; l->name; l++) {
        if (!l->func) {
            lua_pushboolean(L, 0);     /* placeholder, as luaL_setfuncs */
        } else {
            lua_pushfstring(L, "%s%s", prefix, l->name);
            mr_lua_pushfunc(L, l->func, lua_tostring(L, -1), shift);
            lua_remove(L, -2);
        }
        lua_setfield(L, -2, l->name);
    }
}

void mr_lua_newtype(lua_State *L, const char *tname, const luaL_Reg *meta, const luaL_Reg *methods)
{
    char prefix[64];
    luaL_newmetatable(L, tname);
    snprintf(prefix, sizeof prefix, "%s.", tname);
    mr_lua_setfuncs(L, prefix, meta);
    if (methods) {
        lua_newtable(L);
        snprintf(prefix, sizeof prefix, "%s:", tname);
        mr_lua_setfuncs(L, prefix, methods);
        lua_setfield(L, -2, "__index");
    }
    lua_pop(L, 1);
}

void mr_lua_add_methods(lua_State *L, const char *tname, const luaL_Reg *methods)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s:", tname);
    luaL_getmetatable(L, tname);
    lua_getfield(L, -1, "__index");
    mr_lua_setfuncs(L, prefix, methods);
    lua_pop(L, 2);
}

/* The running binding's name and shift; NULL for a function not registered here. */
static const char *func_name(lua_State *L, int *shift)
{
    if (lua_type(L, lua_upvalueindex(1)) != LUA_TSTRING || lua_type(L, lua_upvalueindex(2)) != LUA_TNUMBER)
        return NULL;
    *shift = (int)lua_tointeger(L, lua_upvalueindex(2));
    return lua_tostring(L, lua_upvalueindex(1));
}

/* ---- errors ----------------------------------------------------------------- */

int mr_lua_arg_error(lua_State *L, int arg, const char *msg)
{
    int shift = 0;
    const char *name = func_name(L, &shift);
    if (!name) return luaL_argerror(L, arg, msg);
    arg -= shift;
    if (arg <= 0 && shift) return luaL_error(L, "calling '%s' on bad self (%s)", name, msg);
    return luaL_error(L, "bad argument #%d to '%s' (%s)", arg, name, msg);
}

static const char *type_name(lua_State *L, int idx)
{
    if (luaL_getmetafield(L, idx, "__name") == LUA_TSTRING) {
        const char *s = lua_tostring(L, -1);
        lua_pop(L, 1);                 /* the metatable keeps the string alive */
        return s;
    }
    if (lua_type(L, idx) == LUA_TLIGHTUSERDATA) return "light userdata";
    return luaL_typename(L, idx);
}

int mr_lua_type_error(lua_State *L, int arg, const char *tname)
{
    /* A nil where a model goes is most often a marrow.model that failed
     * without assert: say why that one failed. */
    const char *why = mr_lua_host_of(L)->model_error;
    if (lua_isnoneornil(L, arg) && why[0] && strstr(tname, MR_LUA_MODEL))
        return mr_lua_arg_error(L, arg, lua_pushfstring(L, "model is nil (marrow.model returned nil, %s)", why));
    return mr_lua_arg_error(L, arg, lua_pushfstring(L, "%s expected, got %s", tname, type_name(L, arg)));
}

int mr_lua_raise(lua_State *L, const char *fmt, ...)
{
    int shift = 0;
    const char *name = func_name(L, &shift);
    luaL_where(L, 1);
    if (name) lua_pushfstring(L, "%s: ", name);
    else lua_pushliteral(L, "");
    va_list ap;
    va_start(ap, fmt);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    lua_concat(L, 3);
    return lua_error(L);
}

const char *mr_lua_describe(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    switch (lua_type(L, idx)) {
    case LUA_TNUMBER:
    case LUA_TBOOLEAN:
    case LUA_TNIL: return luaL_tolstring(L, idx, NULL);
    case LUA_TSTRING: return lua_pushfstring(L, "'%s'", lua_tostring(L, idx));
    case LUA_TTABLE: {
        lua_Integer n = (lua_Integer)lua_rawlen(L, idx), numbers = 0;
        for (lua_Integer i = 1; i <= n && i <= 16; i++) {
            numbers += lua_rawgeti(L, idx, i) == LUA_TNUMBER;
            lua_pop(L, 1);
        }
        if (n > 0 && numbers == n) return lua_pushfstring(L, "a table of %d number%s", (int)n, n == 1 ? "" : "s");
        return lua_pushliteral(L, "a table");
    }
    default: return lua_pushfstring(L, "a %s", type_name(L, idx));
    }
}

/* ---- arguments ------------------------------------------------------------------ */

void mr_lua_check_max_args(lua_State *L, int max)
{
    int top = lua_gettop(L);
    if (top <= max) return;
    int shift = 0;
    func_name(L, &shift);
    mr_lua_arg_error(L, max + 1, lua_pushfstring(L, "at most %d argument%s expected, got %d", max - shift,
                                                 max - shift == 1 ? "" : "s", top - shift));
}

lua_Number mr_lua_check_number(lua_State *L, int arg)
{
    int isnum;
    lua_Number v = lua_tonumberx(L, arg, &isnum);
    if (!isnum) mr_lua_type_error(L, arg, "number");
    return v;
}

lua_Number mr_lua_opt_number(lua_State *L, int arg, lua_Number def)
{
    return lua_isnoneornil(L, arg) ? def : mr_lua_check_number(L, arg);
}

lua_Number mr_lua_check_range(lua_State *L, int arg, const char *what, double lo, double hi)
{
    lua_Number v = mr_lua_check_number(L, arg);
    if (!(v >= lo && v <= hi)) {
        char buf[160];
        if (hi >= 1e6) snprintf(buf, sizeof buf, "%s must be a finite number >= %g", what, lo);
        else snprintf(buf, sizeof buf, "%s must be within %g..%g", what, lo, hi);
        mr_lua_arg_error(L, arg, buf);
    }
    return v;
}

lua_Integer mr_lua_check_integer(lua_State *L, int arg)
{
    int isint;
    lua_Integer v = lua_tointegerx(L, arg, &isint);
    if (!isint) {
        if (lua_isnumber(L, arg)) mr_lua_arg_error(L, arg, "number has no integer representation");
        else mr_lua_type_error(L, arg, "number");
    }
    return v;
}

lua_Integer mr_lua_opt_integer(lua_State *L, int arg, lua_Integer def)
{
    return lua_isnoneornil(L, arg) ? def : mr_lua_check_integer(L, arg);
}

const char *mr_lua_check_string(lua_State *L, int arg)
{
    size_t len = 0;
    const char *s = lua_tolstring(L, arg, &len);
    if (!s) mr_lua_type_error(L, arg, "string");
    /* Names and paths go on as C strings: one with a NUL inside would be cut there, silently. */
    if (strlen(s) != len)
        mr_lua_arg_error(L, arg, lua_pushfstring(L, "a string without NUL bytes expected (it has one at byte %d, "
                                                 "where a name or path would be cut)", (int)strlen(s) + 1));
    return s;
}

void mr_lua_check_type(lua_State *L, int arg, int t)
{
    if (lua_type(L, arg) != t) mr_lua_type_error(L, arg, lua_typename(L, t));
}

void mr_lua_check_any(lua_State *L, int arg)
{
    if (lua_type(L, arg) == LUA_TNONE) mr_lua_arg_error(L, arg, "value expected");
}

void *mr_lua_check_udata(lua_State *L, int arg, const char *tname)
{
    void *p = luaL_testudata(L, arg, tname);
    if (!p) mr_lua_type_error(L, arg, tname);
    return p;
}

/* ---- math values: userdata or tables ------------------------------------------ */

/* Reads n numbers from the table at idx: t[1..n], else t.<keys[i]>. With
 * optional_last the last one may be absent (left as it is). */
static int table_floats(lua_State *L, int idx, int n, const char *const keys[], int optional_last, float *out)
{
    idx = lua_absindex(L, idx);
    int by_index = lua_geti(L, idx, 1) != LUA_TNIL;
    lua_pop(L, 1);
    for (int i = 0; i < n; i++) {
        if (by_index) lua_geti(L, idx, i + 1);
        else lua_getfield(L, idx, keys[i]);
        int isnum, nil = lua_isnil(L, -1);
        lua_Number v = lua_tonumberx(L, -1, &isnum);
        lua_pop(L, 1);
        if (optional_last && i == n - 1 && nil) break;
        if (!isnum) return 0;
        out[i] = (float)v;
    }
    return 1;
}

static const char *const xyzw[4] = {"x", "y", "z", "w"};

static int to_floats(lua_State *L, int idx, int n, const char *tname, float *out)
{
    const float *f = luaL_testudata(L, idx, tname);
    if (f) {
        memcpy(out, f, sizeof(float) * (size_t)n);
        return 1;
    }
    float tmp[4];
    if (lua_type(L, idx) != LUA_TTABLE || !table_floats(L, idx, n, xyzw, 0, tmp)) return 0;
    memcpy(out, tmp, sizeof(float) * (size_t)n);
    return 1;
}

int mr_lua_to_vec3(lua_State *L, int idx, float out[3]) { return to_floats(L, idx, 3, MR_LUA_VEC3, out); }
int mr_lua_to_quat(lua_State *L, int idx, float out[4]) { return to_floats(L, idx, 4, MR_LUA_QUAT, out); }

int mr_lua_to_mat4(lua_State *L, int idx, mat4 out)
{
    const float *f = luaL_testudata(L, idx, MR_LUA_MAT4);
    if (f) memcpy(out, f, sizeof(float) * 16);
    return f != NULL;
}

int mr_lua_to_colour(lua_State *L, int idx, float out[4])
{
    static const char *const rgba[4] = {"r", "g", "b", "a"};
    float c[4] = {0, 0, 0, 1};
    if (lua_type(L, idx) != LUA_TTABLE || !table_floats(L, idx, 4, rgba, 1, c)) return 0;
    memcpy(out, c, sizeof c);
    return 1;
}

/* ---- option tables -------------------------------------------------------------- */

mr_lua_opts mr_lua_check_opts(lua_State *L, int arg, const char *name)
{
    mr_lua_opts o = {arg, 0, name};
    if (lua_isnoneornil(L, arg)) return o;
    mr_lua_check_type(L, arg, LUA_TTABLE);
    o.idx = lua_absindex(L, arg);
    return o;
}

mr_lua_opts mr_lua_check_opts_after(lua_State *L, int arg, int is_value, const char *name, int *present)
{
    *present = 0;
    if (lua_isnoneornil(L, arg)) return mr_lua_check_opts(L, arg + 1, name);
    if (!is_value && lua_type(L, arg) == LUA_TTABLE && lua_isnoneornil(L, arg + 1))
        return mr_lua_check_opts(L, arg, name);
    *present = 1;
    return mr_lua_check_opts(L, arg + 1, name);
}

/* Within this edit distance a known key is offered as the one meant
 * (callbacks.c's measure for misspelled callback names is the same idea). */
#define OPTION_LOOKALIKE_DISTANCE 2

void mr_lua_check_option_keys(lua_State *L, const mr_lua_opts *o, const char *const known[])
{
    if (!o->idx) return;
    int count = 0;
    while (known[count]) count++;
    lua_pushnil(L);
    while (lua_next(L, o->idx)) {
        lua_pop(L, 1);                              /* the value; the key stays for lua_next */
        int key_idx = lua_gettop(L);
        const char *key = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        int found = 0;
        for (int i = 0; key && i < count && !found; i++) found = !strcmp(key, known[i]);
        for (int i = 0; !key && i < count && !found; i++)
            found = !strcmp(known[i], MR_LUA_OPTS_LIST) && lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1;
        if (found) continue;
        const char *where = o->name[0] && strcmp(o->name, "opts") ? lua_pushfstring(L, " in %s", o->name) : "";
        if (!key) {
            const char *k = lua_type(L, key_idx) == LUA_TNUMBER ? lua_pushfstring(L, "%I", lua_tointeger(L, key_idx))
                                                                : mr_lua_describe(L, key_idx);
            return (void)mr_lua_arg_error(L, o->arg, lua_pushfstring(L, "unexpected entry [%s]%s: options are "
                                                                       "named fields (%s = ...)", k, where,
                                                                       count ? known[0] : "name"));
        }
        int close = mr_str_closest(key, known, count, OPTION_LOOKALIKE_DISTANCE);
        if (close >= 0 && !strcmp(known[close], MR_LUA_OPTS_LIST)) close = -1;
        if (close >= 0)
            return (void)mr_lua_arg_error(L, o->arg, lua_pushfstring(L, "unknown option '%s'%s; did you mean '%s'?",
                                                                       key, where, known[close]));
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        for (int i = 0, n = 0; i < count; i++) {
            if (!strcmp(known[i], MR_LUA_OPTS_LIST)) continue;
            if (n++) luaL_addstring(&b, ", ");
            luaL_addstring(&b, known[i]);
        }
        luaL_pushresult(&b);
        return (void)mr_lua_arg_error(L, o->arg, lua_pushfstring(L, "unknown option '%s'%s; known: %s", key, where,
                                                                   count ? lua_tostring(L, -1) : "none"));
    }
}

int mr_lua_opt_field(lua_State *L, const mr_lua_opts *o, const char *key)
{
    if (!o->idx) {
        lua_pushnil(L);
        return LUA_TNIL;
    }
    return lua_getfield(L, o->idx, key);
}

int mr_lua_opt_error(lua_State *L, const mr_lua_opts *o, const char *key, const char *what, int value_idx)
{
    value_idx = lua_absindex(L, value_idx);
    const char *got = mr_lua_describe(L, value_idx);
    return mr_lua_arg_error(L, o->arg, lua_pushfstring(L, "%s%s%s must be %s, got %s", o->name,
                                                       o->name[0] ? "." : "", key, what, got));
}

float mr_lua_opt_num(lua_State *L, const mr_lua_opts *o, const char *key, float def, double lo, double hi)
{
    float v = def;
    if (mr_lua_opt_field(L, o, key) != LUA_TNIL) {
        int isnum;
        lua_Number n = lua_tonumberx(L, -1, &isnum);
        if (!isnum || !(n >= lo && n <= hi)) {
            char what[80];
            if (hi >= 1e6 && lo <= -1e6) snprintf(what, sizeof what, "a finite number");
            else if (hi >= 1e6) snprintf(what, sizeof what, "a finite number >= %g", lo);
            else snprintf(what, sizeof what, "a number within %g..%g", lo, hi);
            mr_lua_opt_error(L, o, key, what, -1);
        }
        v = (float)n;
    }
    lua_pop(L, 1);
    return v;
}

int mr_lua_opt_int(lua_State *L, const mr_lua_opts *o, const char *key, int def, int lo, int hi)
{
    int v = def;
    if (mr_lua_opt_field(L, o, key) != LUA_TNIL) {
        int isint;
        lua_Integer n = lua_tointegerx(L, -1, &isint);
        if (!isint || n < lo || n > hi) {
            char what[80];
            snprintf(what, sizeof what, "a whole number within %d..%d", lo, hi);
            mr_lua_opt_error(L, o, key, what, -1);
        }
        v = (int)n;
    }
    lua_pop(L, 1);
    return v;
}

int mr_lua_opt_bool(lua_State *L, const mr_lua_opts *o, const char *key, int def)
{
    int v = mr_lua_opt_field(L, o, key) == LUA_TNIL ? def : lua_toboolean(L, -1);
    lua_pop(L, 1);
    return v;
}

int mr_lua_opt_enum(lua_State *L, const mr_lua_opts *o, const char *key, int def, const char *const names[])
{
    int v = def;
    if (mr_lua_opt_field(L, o, key) != LUA_TNIL) {
        const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        v = -1;
        for (int i = 0; s && names[i]; i++)
            if (!strcmp(names[i], s)) v = i;
        if (v < 0) {
            luaL_Buffer b;
            luaL_buffinit(L, &b);
            for (int i = 0; names[i]; i++) {
                if (i) luaL_addstring(&b, names[i + 1] ? ", '" : " or '");
                else luaL_addchar(&b, '\'');
                luaL_addstring(&b, names[i]);
                luaL_addchar(&b, '\'');
            }
            luaL_pushresult(&b);
            mr_lua_opt_error(L, o, key, lua_tostring(L, -1), -2);
        }
    }
    lua_pop(L, 1);
    return v;
}

int mr_lua_opt_vec3(lua_State *L, const mr_lua_opts *o, const char *key, float out[3])
{
    int present = mr_lua_opt_field(L, o, key) != LUA_TNIL;
    if (present && !mr_lua_to_vec3(L, -1, out)) mr_lua_opt_error(L, o, key, "a vec3", -1);
    lua_pop(L, 1);
    return present;
}

int mr_lua_opt_mat4(lua_State *L, const mr_lua_opts *o, const char *key, mat4 out)
{
    int present = mr_lua_opt_field(L, o, key) != LUA_TNIL;
    if (present && !mr_lua_to_mat4(L, -1, out)) mr_lua_opt_error(L, o, key, "a mat4", -1);
    lua_pop(L, 1);
    return present;
}

int mr_lua_opt_colour(lua_State *L, const mr_lua_opts *o, const char *key, float out[4])
{
    int present = mr_lua_opt_field(L, o, key) != LUA_TNIL;
    if (present && !mr_lua_to_colour(L, -1, out))
        mr_lua_opt_error(L, o, key, "a colour {r, g, b [, a]} of numbers 0..1", -1);
    lua_pop(L, 1);
    return present;
}

int mr_lua_opt_list(lua_State *L, const mr_lua_opts *o, const char *key, int max)
{
    if (mr_lua_opt_field(L, o, key) == LUA_TNIL) return -1;
    if (!lua_istable(L, -1)) mr_lua_opt_error(L, o, key, "a list", -1);
    lua_Integer n = luaL_len(L, -1);
    if (n < 0 || n > max) {
        char what[64];
        snprintf(what, sizeof what, "a list of at most %d entries", max);
        mr_lua_opt_error(L, o, key, what, -1);
    }
    return (int)n;
}
