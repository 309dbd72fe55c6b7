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
    static const int sigs[] = {SIGINT, SIGTERM};
    for (int i = 0; i < 2; i++) {
        struct sigaction old;
        /* A signal ignored when marrow started (a background job's SIGINT,
         * nohup) stays ignored, as the shell meant. */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

int mr_stop_requested(void) { return (int)stop_signal; }

int mr_stop_exit_code(int sig) { return 128 + sig; }
