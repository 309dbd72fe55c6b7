/* window.h — where marrow draws: a GLFW window, or a headless EGL context.
 *
 * mr_window_create makes an OpenGL 3.3 core context current on the calling
 * thread and gives the object that owns it:
 *
 *   - headless (desc.headless, or automatically when DISPLAY and
 *     WAYLAND_DISPLAY are both unset, or when GLFW cannot start or open a
 *     window): a surfaceless EGL context on Mesa (EGL_PLATFORM_SURFACELESS_MESA,
 *     EGL_NO_CONFIG_KHR). It has no default framebuffer: everything is drawn
 *     into framebuffer objects (the renderer always does). The automatic
 *     fallback says why on stderr, once per process.
 *   - windowed: a GLFW window (GLX/Wayland) of the asked size, vsync asked
 *     for (swap interval 1). Many setups do not honour it (Xvfb, llvmpipe,
 *     some compositors), so frame loops pace themselves as well (platform/pacer.h).
 *
 * Input (mr_window_poll) is collected from GLFW callbacks between polls; a
 * headless window reports no input. Only one window may be open at a time
 * (GLFW state is global). Everything here runs on the thread that opened it.
 */
#ifndef MR_PLATFORM_WINDOW_H
#define MR_PLATFORM_WINDOW_H

#include "core/error.h"

typedef enum mr_key {
    MR_KEY_NONE = 0,
    MR_KEY_SPACE, MR_KEY_LEFT, MR_KEY_RIGHT, MR_KEY_UP, MR_KEY_DOWN,
    MR_KEY_S, MR_KEY_W, MR_KEY_F, MR_KEY_R, MR_KEY_F12, MR_KEY_ESCAPE,
    MR_KEY_COUNT
} mr_key;

typedef struct mr_input {
    int pressed[MR_KEY_COUNT]; /* presses (and auto-repeats) since the last poll */
    float drag_dx, drag_dy;    /* pixels moved with the left button held */
    float pan_dx, pan_dy;      /* pixels moved with the right or middle button held */
    float scroll;              /* wheel steps; positive = towards the screen (zoom in) */
    int close;                 /* the user asked to close the window (or pressed Escape) */
    int refresh;               /* the window's contents were lost (uncovered,
                                * shown again): present the frame again */
} mr_input;

typedef struct mr_window_desc {
    int width, height;         /* window size in pixels; 0: MR_DEFAULT_WIDTH x HEIGHT (core/defaults.h) */
    const char *title;         /* NULL: "marrow" */
    int headless;              /* 1: never open a window */
    int hidden;                /* 1: a real window that is not shown (tests) */
} mr_window_desc;

typedef struct mr_window mr_window;

/* Opens a window or a headless context (see above) into *out and makes its
 * GL context current. When no context at all can be made, *out is NULL and
 * err says why (MR_ERR_GL, MR_ERR_NO_MEMORY). Free with mr_window_destroy. */
mr_status mr_window_create(const mr_window_desc *desc, mr_window **out, mr_error *err);
void mr_window_destroy(mr_window *win);

int mr_window_is_headless(const mr_window *win);
/* Size in pixels of the window's default framebuffer (the desc size when
 * headless). */
void mr_window_framebuffer_size(const mr_window *win, int *width, int *height);
/* Handles pending window events and fills *in with what happened since the
 * last call. Headless: *in is zeroed. */
void mr_window_poll(mr_window *win, mr_input *in);
/* 1 when what is drawn can be seen: the window is mapped, not minimised and
 * has a framebuffer larger than 0x0. A hidden or minimised window need not
 * be drawn. Always 1 headless (there everything drawn goes to files). */
int mr_window_visible(const mr_window *win);
/* Shows what was drawn into the default framebuffer (no-op headless). */
void mr_window_swap(mr_window *win);
/* GL_RENDERER / GL_VERSION of the current context, for messages. */
const char *mr_window_gl_renderer(void);

#endif
