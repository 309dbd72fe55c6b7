/* window.c — chooses between a GLFW window and a headless EGL context, and
 * gives both the same small interface (window.h). */
#include <epoxy/gl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/defaults.h"
#include "platform/context.h"
#include "platform/window.h"

struct mr_window {
    mr_egl *egl;               /* headless */
    mr_glfw *glfw;             /* windowed */
    int width, height;         /* asked size (headless framebuffer size) */
};

static int said_headless;     /* the automatic fallback is explained once */

static void say_headless(const char *why)
{
    if (said_headless) return;
    said_headless = 1;
    fprintf(stderr, "marrow: %s; rendering headless\n", why);
}

static int have_display(void)
{
    const char *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    return (x && *x) || (wl && *wl);
}

mr_status mr_window_create(const mr_window_desc *desc_in, mr_window **out, mr_error *err)
{
    *out = NULL;
    mr_window_desc desc = desc_in ? *desc_in : (mr_window_desc){0};
    if (desc.width <= 0) desc.width = MR_DEFAULT_WIDTH;
    if (desc.height <= 0) desc.height = MR_DEFAULT_HEIGHT;
    if (!desc.title) desc.title = "marrow";

    mr_window *win = calloc(1, sizeof *win);
    if (!win) return mr_error_set(err, MR_ERR_NO_MEMORY, "window: out of memory");
    win->width = desc.width;
    win->height = desc.height;

    if (!desc.headless) {
        if (!have_display()) {
            say_headless("no display (DISPLAY and WAYLAND_DISPLAY are unset)");
        } else {
            mr_error why = {0};
            if (mr_glfw_create(&desc, &win->glfw, &why) == MR_OK) {
                *out = win;
                return MR_OK;
            }
            char msg[1100];
            snprintf(msg, sizeof msg, "%s", why.msg);
            say_headless(msg);
        }
    }
    mr_status st = mr_egl_create(&win->egl, err);
    if (st != MR_OK) {
        free(win);
        return st;
    }
    *out = win;
    return MR_OK;
}

void mr_window_destroy(mr_window *win)
{
    if (!win) return;
    if (win->glfw) mr_glfw_destroy(win->glfw);
    if (win->egl) mr_egl_destroy(win->egl);
    free(win);
}

int mr_window_is_headless(const mr_window *win)
{
    return win->glfw == NULL;
}

void mr_window_framebuffer_size(const mr_window *win, int *w, int *h)
{
    if (win->glfw) {
        mr_glfw_framebuffer_size(win->glfw, w, h);
    } else {
        *w = win->width;
        *h = win->height;
    }
}

void mr_window_poll(mr_window *win, mr_input *in)
{
    memset(in, 0, sizeof *in);
    if (win->glfw) mr_glfw_poll(win->glfw, in);
}

int mr_window_visible(const mr_window *win)
{
    return win->glfw ? mr_glfw_visible(win->glfw) : 1;
}

void mr_window_swap(mr_window *win)
{
    if (win->glfw) mr_glfw_swap(win->glfw);
}

const char *mr_window_gl_renderer(void)
{
    static char buf[256];
    const char *r = (const char *)glGetString(GL_RENDERER);
    const char *v = (const char *)glGetString(GL_VERSION);
    snprintf(buf, sizeof buf, "%s, OpenGL %s", r ? r : "?", v ? v : "?");
    return buf;
}
