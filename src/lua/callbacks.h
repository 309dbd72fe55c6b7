/* callbacks.h — the global functions marrow calls in a script (internal to
 * src/lua): their names, and the check that warns about a global function
 * that is none of them but looks like one (`function Load()`,
 * `function updte(dt)`), since such a function is silently never called.
 */
#ifndef MR_LUA_CALLBACKS_H
#define MR_LUA_CALLBACKS_H

#include <lua.h>

/* Every callback a script may define, NULL-terminated: load, update, draw,
 * unload, keypressed, mousemoved, resize. */
extern const char *const mr_lua_callback_names[];

/* Looks at the globals of L after the script's chunk ran: for each Lua
 * function (C functions, e.g. Lua's own `load`, are never the script's)
 * whose name is not a callback but equals one ignoring case, or is within
 * an edit distance of 2 of one (mr_str_distance), issues one Lua warning
 * (lua_warning, so it goes where the script's warnings go) naming both:
 *   script.lua: 'Load' looks like 'load' (callbacks are lower case)
 *   script.lua: 'updte' looks like 'update' (a misspelled callback is never called)
 * in name order, at most MR_LUA_CALLBACK_WARNINGS of them. script names
 * the file in the message. Returns the number of warnings. Allocates
 * nothing on the Lua heap, but call it inside a protected call. */
#define MR_LUA_CALLBACK_WARNINGS 16
int mr_lua_callbacks_check(lua_State *L, const char *script);

#endif
