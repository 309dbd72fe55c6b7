/* glfw.c — a window with an OpenGL 3.3 core context through GLFW, and the
 * input the viewer needs (keys, mouse drag, wheel), gathered by callbacks. */
#include <epoxy/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/context.h"
#include "platform/window.h"

struct mr_glfw {
    GLFWwindow *win;
    mr_input acc;              /* input gathered since the last poll */
    double last_x, last_y;
    int have_last;
};

static char glfw_last_error[256];

static void on_error(int code, const char *desc)
{
    snprintf(glfw_last_error, sizeof glfw_last_error, "%s (GLFW error 0x%x)", desc, code);
}

static mr_key map_key(int key)
{
    switch (key) {
    case GLFW_KEY_SPACE: return MR_KEY_SPACE;
    case GLFW_KEY_LEFT: return MR_KEY_LEFT;
    case GLFW_KEY_RIGHT: return MR_KEY_RIGHT;
    case GLFW_KEY_UP: return MR_KEY_UP;
    case GLFW_KEY_DOWN: return MR_KEY_DOWN;
    case GLFW_KEY_S: return MR_KEY_S;
    case GLFW_KEY_W: return MR_KEY_W;
    case GLFW_KEY_F: return MR_KEY_F;
    case GLFW_KEY_R: return MR_KEY_R;
    case GLFW_KEY_F12: return MR_KEY_F12;
    case GLFW_KEY_ESCAPE: return MR_KEY_ESCAPE;
    default: return MR_KEY_NONE;
    }
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods)
{
    mr_glfw *g = glfwGetWindowUserPointer(w);
    mr_key k = map_key(key);
    if (k == MR_KEY_NONE || action == GLFW_RELEASE) return;
    /* Auto-repeat only for the stepping keys. */
    if (action == GLFW_REPEAT && k != MR_KEY_LEFT && k != MR_KEY_RIGHT) return;
    g->acc.pressed[k]++;
    if (k == MR_KEY_ESCAPE) g->acc.close = 1;
}

static void on_cursor(GLFWwindow *w, double x, double y)
{
    mr_glfw *g = glfwGetWindowUserPointer(w);
    if (g->have_last) {
        float dx = (float)(x - g->last_x), dy = (float)(y - g->last_y);
        if (glfwGetMouseButton(w, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS) {
            g->acc.drag_dx += dx;
            g->acc.drag_dy += dy;
        } else if (glfwGetMouseButton(w, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS ||
                   glfwGetMouseButton(w, GLFW_MOUSE_BUTTON_MIDDLE) == GLFW_PRESS) {
            g->acc.pan_dx += dx;
            g->acc.pan_dy += dy;
        }
    }
    g->last_x = x;
    g->last_y = y;
    g->have_last = 1;
}

static void on_scroll(GLFWwindow *w, double dx, double dy)
{
    mr_glfw *g = glfwGetWindowUserPointer(w);
    g->acc.scroll += (float)dy;
}

static void on_refresh(GLFWwindow *w)
{
    mr_glfw *g = glfwGetWindowUserPointer(w);
    g->acc.refresh = 1;
}

mr_status mr_glfw_create(const mr_window_desc *desc, mr_glfw **out, mr_error *err)
{
    *out = NULL;
    glfw_last_error[0] = 0;
    glfwSetErrorCallback(on_error);
    if (!glfwInit())
        return mr_error_set(err, MR_ERR_GL, "cannot start GLFW: %s",
                            glfw_last_error[0] ? glfw_last_error : "unknown reason");
    mr_glfw *g = calloc(1, sizeof *g);
    if (!g) {
        glfwTerminate();
        return mr_error_set(err, MR_ERR_NO_MEMORY, "window: out of memory");
    }
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_API);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_VISIBLE, desc->hidden ? GLFW_FALSE : GLFW_TRUE);
    /* The renderer draws into its own multisampled FBO and blits here, so
     * the window needs neither samples nor depth. */
    glfwWindowHint(GLFW_SAMPLES, 0);
    glfwWindowHint(GLFW_DEPTH_BITS, 0);
    glfwWindowHint(GLFW_STENCIL_BITS, 0);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_FALSE);
    g->win = glfwCreateWindow(desc->width, desc->height, desc->title, NULL, NULL);
    if (!g->win) {
        mr_status st = mr_error_set(err, MR_ERR_GL, "cannot open an OpenGL 3.3 core window: %s",
                                    glfw_last_error[0] ? glfw_last_error : "unknown reason");
        free(g);
        glfwTerminate();
        return st;
    }
    glfwSetWindowUserPointer(g->win, g);
    glfwSetKeyCallback(g->win, on_key);
    glfwSetCursorPosCallback(g->win, on_cursor);
    glfwSetScrollCallback(g->win, on_scroll);
    glfwSetWindowRefreshCallback(g->win, on_refresh);
    glfwMakeContextCurrent(g->win);
    glfwSwapInterval(1);
    *out = g;
    return MR_OK;
}

void mr_glfw_destroy(mr_glfw *g)
{
    if (!g) return;
    glfwDestroyWindow(g->win);
    /* No glfwTerminate: GLFW stays initialised for the process (a later
     * glfwInit is then a no-op). Terminating closes the display connection,
     * which unloads Mesa's driver, and the driver leaks its own allocations
     * on unload (LeakSanitizer reports them). */
    free(g);
}

void mr_glfw_framebuffer_size(const mr_glfw *g, int *w, int *h)
{
    glfwGetFramebufferSize(g->win, w, h);
}

void mr_glfw_poll(mr_glfw *g, mr_input *in)
{
    glfwPollEvents();
    if (glfwWindowShouldClose(g->win)) g->acc.close = 1;
    *in = g->acc;
    memset(&g->acc, 0, sizeof g->acc);
}

int mr_glfw_visible(const mr_glfw *g)
{
    int w = 0, h = 0;
    glfwGetFramebufferSize(g->win, &w, &h);
    return glfwGetWindowAttrib(g->win, GLFW_VISIBLE) && !glfwGetWindowAttrib(g->win, GLFW_ICONIFIED) &&
           w > 0 && h > 0;
}

void mr_glfw_swap(mr_glfw *g)
{
    glfwSwapBuffers(g->win);
}
