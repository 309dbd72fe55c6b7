/* load_work.c — the calling thread's load-work hooks (see load_work.h). */
#include "core/load_work.h"

#include <stddef.h>

static _Thread_local mr_load_work_hooks current;

void mr_load_work_set(const mr_load_work_hooks *hooks, mr_load_work_hooks *old)
{
    if (old) *old = current;
    current = hooks ? *hooks : (mr_load_work_hooks){0};
}

double mr_load_work_begin(void)
{
    return current.depth++ == 0 && current.begin ? current.begin(current.user) : 0.0;
}

void mr_load_work_end(double token)
{
    if (current.depth > 0 && --current.depth == 0 && current.end) current.end(current.user, token);
}

int mr_load_work_running(void) { return current.depth > 0; }
