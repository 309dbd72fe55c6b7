/* ik_limits.h — internal to src/lua: reads an option table's `limits`
 * field, joint limits for chain IK (pose:ik_chain) and full-body IK
 * (ik_body:solve):
 *   limits = {[joint] = {cone = deg [, twist = {min, max}]}
 *                    or {hinge = vec3, min = deg, max = deg}, ...}
 * keyed by joint name (or 1-based index), each relative to the joint's rest
 * rotation (anim/ik_chain.h). Every error names the field, the joint and
 * the closest joint name for an unknown one. */
#ifndef MR_LUA_IK_LIMITS_H
#define MR_LUA_IK_LIMITS_H

#include "anim/ik_chain.h"
#include "lua/wrap.h"

/* Fills lim[0..n) for the joints chain[0..n) (zero: no limit) from the
 * field `limits` of o (absent: no limits); a limit on a joint that is not in
 * chain raises ("is not on the chain"). */
void mr_lua_ik_limits(lua_State *L, const mr_lua_opts *o, const mr_skeleton *sk, const int *chain, int n,
                      mr_ik_limit *lim);

#endif
