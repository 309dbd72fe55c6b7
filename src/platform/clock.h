/* clock.h — monotonic time and sleeping, for frame timing and pacing. */
#ifndef MR_PLATFORM_CLOCK_H
#define MR_PLATFORM_CLOCK_H

/* Monotonic seconds, for frame timing. */
double mr_clock_now(void);
/* Sleeps until mr_clock_now() >= deadline, in steps of at most 50 ms;
 * returns early when a stop was requested (platform/stop.h). */
void mr_clock_sleep_until(double deadline);
/* The same, returning early too when fd (a descriptor; < 0: none) becomes
 * readable: 1 then, 0 once the deadline came (or a stop was requested). */
int mr_clock_sleep_until_fd(double deadline, int fd);

#endif
