/* pacer.h — the pacing of windowed frame loops (`marrow run`, `marrow view`).
 *
 * Pacing. A window asks for vsync, but many setups do not honour it (Xvfb,
 * llvmpipe, some compositors), and a loop that never waits then renders as
 * fast as it can: a core or more for a window nobody is looking at. So a
 * windowed loop sleeps at the end of each frame until the frame's deadline:
 * deadlines are 1/cap apart (default cap 60 fps; --fps-cap N, 0 = none),
 * absolute (a frame that took longer is not made up for by a burst: the
 * next deadline then starts from now), and the sleep is a real sleep
 * (clock_nanosleep), never a spin. Where vsync works at 60 Hz or less the
 * swap already waits and the sleep is ~0. While the window cannot be seen
 * (hidden, minimised) the loop only polls events and files and runs
 * update() at MR_PACER_IDLE_HZ, without drawing. */
#ifndef MR_PLATFORM_PACER_H
#define MR_PLATFORM_PACER_H

#define MR_PACER_DEFAULT_CAP 60.0   /* frames per second when no --fps-cap is given */
#define MR_PACER_IDLE_HZ 20.0       /* loop rate while the window cannot be seen */

typedef struct mr_pacer {
    double period;             /* seconds per frame when visible; 0 = uncapped */
    double next;               /* deadline of the frame being made */
    int waiting;               /* mr_pacer_wait_fd returned early: next is still the deadline */
} mr_pacer;

/* A pacer for cap frames per second (0: no cap), starting now. */
void mr_pacer_init(mr_pacer *p, double cap);
/* Ends a frame: sleeps until its deadline (see above) and sets the next one.
 * visible = 0 paces at MR_PACER_IDLE_HZ whatever the cap. Returns early when
 * a stop was requested (platform/stop.h). */
void mr_pacer_wait(mr_pacer *p, int visible);
/* mr_pacer_wait that also watches fd (< 0: none, as mr_pacer_wait): when fd
 * becomes readable before the deadline it returns 1 at once, keeping the
 * deadline, so that the caller handles what came (a saved file: the
 * watcher's descriptor, platform/watch.h) and calls again to sleep the rest
 * of the frame; 0 when the deadline came and the next one is set. */
int mr_pacer_wait_fd(mr_pacer *p, int visible, int fd);

#endif
