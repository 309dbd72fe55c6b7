/* pacer.c — frame pacing for windowed loops (see pacer.h). */
#include "platform/pacer.h"

#include "platform/clock.h"

void mr_pacer_init(mr_pacer *p, double cap)
{
    p->period = cap > 0 ? 1.0 / cap : 0;
    p->next = mr_clock_now();
    p->waiting = 0;
}

void mr_pacer_wait(mr_pacer *p, int visible)
{
    mr_pacer_wait_fd(p, visible, -1);
}

int mr_pacer_wait_fd(mr_pacer *p, int visible, int fd)
{
    if (!p->waiting) {                 /* a new frame's wait: its deadline */
        double period = visible ? p->period : 1.0 / MR_PACER_IDLE_HZ;
        double now = mr_clock_now();
        p->next += period;
        if (p->next < now) p->next = now;  /* late: no burst to catch up */
    }
    p->waiting = mr_clock_sleep_until_fd(p->next, fd);
    return p->waiting;
}
