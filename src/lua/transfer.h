/* transfer.h — the reload hand-over (internal to src/lua): copies the value
 * unload() returned from the old Lua state into the new one, so load(state)
 * gets the script's own state back after a live reload.
 *
 * Copied: nil, booleans, numbers, strings, tables (shared and cyclic tables
 * stay shared and cyclic), and the userdata types transfer.c lists (math
 * values, models, skeletons, clips, poses). Not copied, because they belong
 * to the old state's code: functions, coroutines and other userdata; they
 * become nil and are counted. Table keys of other types than string, number
 * and boolean are skipped the same way. Metatables of tables are not copied
 * (they usually hold functions). Depth is limited to 64 and size to
 * 1,000,000 values.
 */
#ifndef MR_LUA_TRANSFER_H
#define MR_LUA_TRANSFER_H

#include <stddef.h>

#include <lua.h>

#define MR_LUA_TRANSFER_MAX 16

/* The metatables of the types a state can hand over, noted once per state
 * (the copy may only make allocation-free calls on the old state). */
typedef struct mr_lua_transfer_types {
    const void *mt[MR_LUA_TRANSFER_MAX];
} mr_lua_transfer_types;

/* Notes the metatables of L (its marrow module must be open). */
void mr_lua_transfer_prepare(lua_State *L, mr_lua_transfer_types *types);

/* Copies the value at from_idx of `from` onto the top of `to` (must run
 * inside a protected call on `to`; any error there is a Lua error). Values
 * that cannot be copied are counted in *dropped, the first one's path
 * written to where. */
void mr_lua_transfer(lua_State *from, const mr_lua_transfer_types *types, int from_idx, lua_State *to,
                     int *dropped, char *where, size_t where_size);

#endif
