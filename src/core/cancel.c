/* cancel.c — the calling thread's stop check (see cancel.h). */
#include "core/cancel.h"

#include <stddef.h>

static _Thread_local int (*check)(void *user);
static _Thread_local void *check_user;

void mr_cancel_set(int (*fn)(void *user), void *user, int (**old_fn)(void *user), void **old_user)
{
    if (old_fn) *old_fn = check;
    if (old_user) *old_user = check_user;
    check = fn;
    check_user = user;
}

int mr_cancel_requested(void) { return check ? check(check_user) != 0 : 0; }
