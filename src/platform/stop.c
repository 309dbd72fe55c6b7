/* stop.c — SIGINT/SIGTERM handlers that only set a flag (see stop.h). */
#include "platform/stop.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
    if (!stop_signal) stop_signal = sig;
}

void mr_stop_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;   /* no SA_RESTART: a blocking wait returns EINTR */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int mr_stop_requested(void) { return (int)stop_signal; }

int mr_stop_exit_code(int sig) { return 128 + sig; }
