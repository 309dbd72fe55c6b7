/* pattern.h — Lua 5.4's string.find, string.match, string.gmatch and
 * string.gsub with a step budget (internal to src/lua).
 *
 * Lua's own matcher (lstrlib.c) backtracks without bound inside one C call,
 * where the sandbox's instruction-count hook never runs:
 * string.rep("a", 5000):find(".-.-.-.-.-.-b") runs for many minutes. These
 * versions match exactly as Lua 5.4 does — the same results, the same
 * errors word for word, raised through luaL_error / luaL_argerror as the
 * stock functions raise them — but count their steps and call a tick
 * callback every so often, which may raise a Lua error to stop the match.
 *
 * A step is one call of the matching routine (one position tried for the
 * rest of the pattern) or one subject character scanned by a repetition,
 * a %b or a back reference. The step count runs across all the matches of
 * one find/match/gsub call and of one gmatch iterator call.
 *
 * Deliberate difference from stock: a gmatch iterator called again after it
 * raised an error starts with a fresh recursion limit (stock carries the
 * unwound depth over, which can disable its "pattern too complex" check).
 *
 * Memory: the matcher keeps its state on the C stack, on the Lua stack and
 * in luaL_Buffer (and, for gmatch, in a Lua userdata); it holds nothing from
 * malloc, so a tick or replacement function that raises (a longjmp through
 * the matcher) leaks nothing.
 */
#ifndef MR_LUA_PATTERN_H
#define MR_LUA_PATTERN_H

#include <lua.h>

/* Most matcher steps between two calls of the tick callback. */
#define MR_LUA_PATTERN_TICK 4096

/* Replaces find, match, gmatch and gsub in the table at index idx (the
 * string library table, which is also the string metatable's __index) with
 * budgeted versions. tick(L) is called at least every MR_LUA_PATTERN_TICK
 * matcher steps (a step = one call of the matching loop / one character
 * tried); it may raise a Lua error to stop the match. tick may be NULL.
 * The stack is left as it was; the functions keep tick as an upvalue, so
 * it must stay callable as long as the state lives. */
void mr_lua_pattern_install(lua_State *L, int idx, void (*tick)(lua_State *L));

#endif
