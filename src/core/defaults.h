/* defaults.h — the defaults every command and library call shares, in one
 * place: the frame size of a window, a headless run, the viewer, a plot
 * and the C module's renderer, and the frame rate of simulated time (a
 * headless `marrow run`, a `marrow view` sequence, a recording, a
 * regression scene). A command that takes one of these as an option says
 * the value in its --help from these constants. */
#ifndef MR_CORE_DEFAULTS_H
#define MR_CORE_DEFAULTS_H

#define MR_DEFAULT_WIDTH 960          /* frame width in pixels */
#define MR_DEFAULT_HEIGHT 540         /* frame height in pixels */
#define MR_DEFAULT_FPS 30             /* frames per second of simulated time (dt = 1/30 s) */

/* The same as text, for help strings ("960x540", "30"). */
#define MR_DEFAULT_STR_(x) #x
#define MR_DEFAULT_STR(x) MR_DEFAULT_STR_(x)
#define MR_DEFAULT_SIZE_TEXT MR_DEFAULT_STR(MR_DEFAULT_WIDTH) "x" MR_DEFAULT_STR(MR_DEFAULT_HEIGHT)
#define MR_DEFAULT_FPS_TEXT MR_DEFAULT_STR(MR_DEFAULT_FPS)

#endif
