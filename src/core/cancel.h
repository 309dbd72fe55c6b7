/* cancel.h — a stop request that long C work polls: how a script's time
 * budget (and SIGINT/SIGTERM) reaches work a binding runs outside Lua,
 * where the budget's hook never runs (reducing a recording, fitting a
 * save's frame rate, measuring a clip).
 *
 * The Lua host (src/lua/sandbox.c) installs a check for the calling thread
 * while such work runs; the work calls mr_cancel_requested() every so
 * often (every round, clip or few thousand samples) and, when it says 1,
 * frees what it made and returns MR_ERR_LIMIT. With no check installed
 * (tools, tests, a plain Lua) it always says 0.
 */
#ifndef MR_CORE_CANCEL_H
#define MR_CORE_CANCEL_H

/* The check of the calling thread (fn NULL: none); returns the one it
 * replaces through *old_fn / *old_user (each may be NULL), to put back. */
void mr_cancel_set(int (*fn)(void *user), void *user, int (**old_fn)(void *user), void **old_user);

/* 1 when the work in progress should stop now (the installed check says
 * so), else 0. Cheap: one call of the check. */
int mr_cancel_requested(void);

#endif
