/* clock.c — monotonic time and sleeping (see clock.h). */
#include "platform/clock.h"

#include <errno.h>
#include <poll.h>
#include <time.h>

#include "platform/stop.h"

double mr_clock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void mr_clock_sleep_until(double deadline)
{
    for (;;) {
        double now = mr_clock_now();
        if (now >= deadline || mr_stop_requested()) return;
        double until = deadline - now > 0.05 ? now + 0.05 : deadline;
        struct timespec ts;
        ts.tv_sec = (time_t)until;
        ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        /* Absolute: an early wake-up (EINTR) just goes round again. */
        int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        if (rc != 0 && rc != EINTR) return;
    }
}

int mr_clock_sleep_until_fd(double deadline, int fd)
{
    if (fd < 0) {
        mr_clock_sleep_until(deadline);
        return 0;
    }
    for (;;) {
        double now = mr_clock_now();
        if (now >= deadline || mr_stop_requested()) return 0;
        double left = deadline - now > 0.05 ? 0.05 : deadline - now;
        /* poll's timeout is in whole ms: rounded up, so the deadline is
         * never missed by a wake-up 1 ms short of it going round again. */
        int ms = (int)(left * 1000.0);
        if (ms < 1) ms = 1;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int rc = poll(&pfd, 1, ms);
        if (rc > 0 && (pfd.revents & (POLLIN | POLLERR | POLLHUP | POLLNVAL))) return 1;
        if (rc < 0 && errno != EINTR) {
            mr_clock_sleep_until(deadline);
            return 0;
        }
    }
}
