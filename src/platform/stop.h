/* stop.h — SIGINT and SIGTERM as a request to stop, not a kill.
 *
 * mr_stop_install sets handlers that only record the signal; the programs'
 * frame loops (marrow run, marrow view) check mr_stop_requested once per
 * frame and end the way closing the window does: the script's unload()
 * runs, files are flushed and closed, and the program exits with
 * 128 + the signal number (130 for SIGINT, 143 for SIGTERM).
 *
 * A second SIGINT or SIGTERM while the first is being handled ends the
 * process at once (the handlers are one-shot: SA_RESETHAND), so a hung
 * unload() can still be stopped.
 *
 * Waits in the loops go through mr_clock_sleep_until (clock.h), which returns as
 * soon as a stop was requested and never sleeps more than 50 ms at a time,
 * so a stop is seen within one frame even when the signal went to another
 * thread (the GL driver's).
 */
#ifndef MR_PLATFORM_STOP_H
#define MR_PLATFORM_STOP_H

/* Installs the SIGINT and SIGTERM handlers (idempotent). A signal that is
 * ignored when this is called (SIGINT of a job started with & by a
 * non-interactive shell, for one) is left ignored. */
void mr_stop_install(void);
/* The signal number that asked to stop, or 0. */
int mr_stop_requested(void);
/* The exit code for a run stopped by sig: 128 + sig. */
int mr_stop_exit_code(int sig);

#endif
