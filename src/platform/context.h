/* context.h — platform-internal: the two ways to get a GL context. Used only
 * by window.c; the rest of marrow goes through window.h. */
#ifndef MR_PLATFORM_CONTEXT_H
#define MR_PLATFORM_CONTEXT_H

#include "core/error.h"

/* Headless EGL (egl.c). */
typedef struct mr_egl mr_egl;
mr_status mr_egl_create(mr_egl **out, mr_error *err);
void mr_egl_destroy(mr_egl *egl);

/* GLFW window (glfw.c). Both creates leave *out NULL on failure, with err
 * saying why. */
struct mr_window_desc;
struct mr_input;
typedef struct mr_glfw mr_glfw;
mr_status mr_glfw_create(const struct mr_window_desc *desc, mr_glfw **out, mr_error *err);
void mr_glfw_destroy(mr_glfw *g);
void mr_glfw_framebuffer_size(const mr_glfw *g, int *w, int *h);
void mr_glfw_poll(mr_glfw *g, struct mr_input *in);
int mr_glfw_visible(const mr_glfw *g);
void mr_glfw_swap(mr_glfw *g);

#endif
