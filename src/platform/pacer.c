/* pacer.c — frame pacing for windowed loops (see pacer.h). */
#include "platform/pacer.h"

#include "platform/clock.h"

void mr_pacer_init(mr_pacer *p, double cap)
{
    p->period = cap > 0 ? 1.0 / cap : 0;
    p->next = mr_clock_now();
}

void mr_pacer_wait(mr_pacer *p, int visible)
{
    double period = visible ? p->period : 1.0 / MR_PACER_IDLE_HZ;
    double now = mr_clock_now();
    p->next += period;
    if (p->next < now) p->next = now;  /* late: no burst to catch up */
    mr_clock_sleep_until(p->next);
}
