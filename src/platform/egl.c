/* egl.c — headless OpenGL 3.3 core context through EGL on Mesa, surfaceless.
 *
 * The sequence is the one that works on Mesa's llvmpipe without a display:
 * eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA) — the core
 * eglGetPlatformDisplay aborts through epoxy — then eglBindAPI(EGL_OPENGL_API)
 * (context creation fails without it), a 3.3 core context without a config
 * (EGL_NO_CONFIG_KHR) and a make-current with no surfaces. */
#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <stdlib.h>

#include "platform/context.h"

struct mr_egl {
    EGLDisplay dpy;
    EGLContext ctx;
};

static const char *egl_error_name(EGLint e)
{
    switch (e) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    default: return "EGL error";
    }
}

mr_status mr_egl_create(mr_egl **out, mr_error *err)
{
    *out = NULL;
    mr_egl *egl = calloc(1, sizeof *egl);
    if (!egl) return mr_error_set(err, MR_ERR_NO_MEMORY, "egl: out of memory");
    mr_status st;
    egl->dpy = EGL_NO_DISPLAY;
    egl->ctx = EGL_NO_CONTEXT;

    if (!epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_MESA_platform_surfaceless")) {
        st = mr_error_set(err, MR_ERR_GL, "egl: EGL_MESA_platform_surfaceless is not available "
                     "(install libegl-mesa0 and libgl1-mesa-dri)");
        goto fail;
    }
    egl->dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (egl->dpy == EGL_NO_DISPLAY) {
        st = mr_error_set(err, MR_ERR_GL, "egl: no surfaceless display (%s)", egl_error_name(eglGetError()));
        goto fail;
    }
    EGLint major = 0, minor = 0;
    if (!eglInitialize(egl->dpy, &major, &minor)) {
        st = mr_error_set(err, MR_ERR_GL, "egl: eglInitialize failed (%s)", egl_error_name(eglGetError()));
        egl->dpy = EGL_NO_DISPLAY;
        goto fail;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        st = mr_error_set(err, MR_ERR_GL, "egl: desktop OpenGL is not available (%s)",
                     egl_error_name(eglGetError()));
        goto fail;
    }
    static const EGLint attribs[] = {
        EGL_CONTEXT_MAJOR_VERSION, 3,
        EGL_CONTEXT_MINOR_VERSION, 3,
        EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
        EGL_NONE,
    };
    egl->ctx = eglCreateContext(egl->dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attribs);
    if (egl->ctx == EGL_NO_CONTEXT) {
        st = mr_error_set(err, MR_ERR_GL, "egl: cannot create an OpenGL 3.3 core context (%s)",
                     egl_error_name(eglGetError()));
        goto fail;
    }
    if (!eglMakeCurrent(egl->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, egl->ctx)) {
        st = mr_error_set(err, MR_ERR_GL, "egl: surfaceless eglMakeCurrent failed (%s)",
                     egl_error_name(eglGetError()));
        goto fail;
    }
    if (epoxy_gl_version() < 33) {
        st = mr_error_set(err, MR_ERR_GL, "egl: context reports OpenGL %d.%d, need 3.3",
                     epoxy_gl_version() / 10, epoxy_gl_version() % 10);
        goto fail;
    }
    *out = egl;
    return MR_OK;
fail:
    mr_egl_destroy(egl);
    return st;
}

void mr_egl_destroy(mr_egl *egl)
{
    if (!egl) return;
    if (egl->dpy != EGL_NO_DISPLAY) {
        eglMakeCurrent(egl->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        if (egl->ctx != EGL_NO_CONTEXT) eglDestroyContext(egl->dpy, egl->ctx);
        /* No eglTerminate: the display is a per-process singleton that the
         * next mr_egl_create gets back already initialised, and terminating
         * it unloads Mesa's driver, which leaks its own allocations. */
    }
    free(egl);
}
