/* target.c — the framebuffers a frame is drawn into: the colour + depth
 * target the scene is drawn in (multisampled renderbuffers, or with FXAA a
 * single-sampled colour texture the post-process pass reads), the
 * single-sample target the frame ends in (read back, or blitted to a
 * window), the sky and backdrop images, and the shadow map's depth
 * texture. */
#include <string.h>

#include "gfx/internal.h"

static const char *fbo_status_name(GLenum s)
{
    switch (s) {
    case GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT: return "incomplete attachment";
    case GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT: return "missing attachment";
    case GL_FRAMEBUFFER_UNSUPPORTED: return "unsupported";
    case GL_FRAMEBUFFER_INCOMPLETE_MULTISAMPLE: return "incomplete multisample";
    default: return "incomplete";
    }
}

void gfx_targets_free(mr_renderer *r)
{
    if (r->draw_fbo) glDeleteFramebuffers(1, &r->draw_fbo);
    if (r->draw_colour) glDeleteRenderbuffers(1, &r->draw_colour);
    if (r->draw_tex) glDeleteTextures(1, &r->draw_tex);
    if (r->draw_depth) glDeleteRenderbuffers(1, &r->draw_depth);
    if (r->resolve_fbo) glDeleteFramebuffers(1, &r->resolve_fbo);
    if (r->resolve_colour) glDeleteRenderbuffers(1, &r->resolve_colour);
    if (r->resolve_stencil) glDeleteRenderbuffers(1, &r->resolve_stencil);
    r->draw_fbo = r->draw_colour = r->draw_tex = r->draw_depth = r->resolve_fbo = r->resolve_colour = 0;
    r->resolve_stencil = 0;
    if (r->sky_fbo) glDeleteFramebuffers(1, &r->sky_fbo);
    if (r->sky_colour) glDeleteRenderbuffers(1, &r->sky_colour);
    r->sky_fbo = r->sky_colour = 0;
    r->sky_valid = 0;
    if (r->backdrop_fbo) glDeleteFramebuffers(1, &r->backdrop_fbo);
    if (r->backdrop_colour) glDeleteRenderbuffers(1, &r->backdrop_colour);
    if (r->backdrop_depth) glDeleteRenderbuffers(1, &r->backdrop_depth);
    r->backdrop_fbo = r->backdrop_colour = r->backdrop_depth = 0;
    r->backdrop_valid = 0;
    memset(&r->last_key, 0, sizeof r->last_key);
}

/* A framebuffer of one RGBA8 colour renderbuffer and, when depth is not
 * NULL, a DEPTH_COMPONENT24 one, of draw_fbo's samples (0: single): its
 * formats, so copies between them are plain memory copies. */
static GLenum make_image(int width, int height, int samples, GLuint *fbo, GLuint *colour, GLuint *depth)
{
    glGenRenderbuffers(1, colour);
    glBindRenderbuffer(GL_RENDERBUFFER, *colour);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_RGBA8, width, height);
    glGenFramebuffers(1, fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, *colour);
    if (depth) {
        glGenRenderbuffers(1, depth);
        glBindRenderbuffer(GL_RENDERBUFFER, *depth);
        glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_DEPTH_COMPONENT24, width, height);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, *depth);
    }
    return glCheckFramebufferStatus(GL_FRAMEBUFFER);
}

mr_status gfx_targets_create(mr_renderer *r, int width, int height, mr_error *err)
{
    GLint max_size = 0;
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_size);
    if (width < 1 || height < 1 || width > max_size || height > max_size)
        return mr_error_set(err, MR_ERR_LIMIT, "gfx: frame size %dx%d is outside 1x1..%dx%d", width,
                            height, max_size, max_size);
    gfx_targets_free(r);
    int samples = r->samples > 1 ? r->samples : 0;

    glGenFramebuffers(1, &r->draw_fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, r->draw_fbo);
    if (r->fxaa) {
        /* read by fxaa.frag: bilinear (its edge walk reads between texels), one level */
        glGenTextures(1, &r->draw_tex);
        glBindTexture(GL_TEXTURE_2D, r->draw_tex);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
        glBindTexture(GL_TEXTURE_2D, 0);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, r->draw_tex, 0);
    } else {
        glGenRenderbuffers(1, &r->draw_colour);
        glBindRenderbuffer(GL_RENDERBUFFER, r->draw_colour);
        glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_RGBA8, width, height);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, r->draw_colour);
    }
    glGenRenderbuffers(1, &r->draw_depth);
    glBindRenderbuffer(GL_RENDERBUFFER, r->draw_depth);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_DEPTH_COMPONENT24, width, height);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, r->draw_depth);
    GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (st != GL_FRAMEBUFFER_COMPLETE) {
        gfx_targets_free(r);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        return mr_error_set(err, MR_ERR_GL, "gfx: %dx%d %d-sample framebuffer: %s", width, height,
                            samples, fbo_status_name(st));
    }

    glGenRenderbuffers(1, &r->resolve_colour);
    glBindRenderbuffer(GL_RENDERBUFFER, r->resolve_colour);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glGenFramebuffers(1, &r->resolve_fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, r->resolve_fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, r->resolve_colour);
    if (r->fxaa) {
        /* the FXAA pass marks its edge pixels here and shades only those */
        glGenRenderbuffers(1, &r->resolve_stencil);
        glBindRenderbuffer(GL_RENDERBUFFER, r->resolve_stencil);
        glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH24_STENCIL8, width, height);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, r->resolve_stencil);
    }
    st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (st == GL_FRAMEBUFFER_COMPLETE)
        st = make_image(width, height, samples, &r->sky_fbo, &r->sky_colour, NULL);
    if (st == GL_FRAMEBUFFER_COMPLETE)
        st = make_image(width, height, samples, &r->backdrop_fbo, &r->backdrop_colour, &r->backdrop_depth);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glBindRenderbuffer(GL_RENDERBUFFER, 0);
    if (st != GL_FRAMEBUFFER_COMPLETE) {
        gfx_targets_free(r);
        return mr_error_set(err, MR_ERR_GL, "gfx: %dx%d resolve, sky or backdrop framebuffer: %s", width,
                            height, fbo_status_name(st));
    }
    r->width = width;
    r->height = height;
    /* Start from a defined image, so reading before the first frame gives
     * the clear colour rather than whatever memory held. */
    glBindFramebuffer(GL_FRAMEBUFFER, r->resolve_fbo);
    glClearColor(0, 0, 0, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    return MR_OK;
}

void gfx_shadow_free(mr_renderer *r)
{
    if (r->shadow_fbo) glDeleteFramebuffers(1, &r->shadow_fbo);
    if (r->shadow_tex) glDeleteTextures(1, &r->shadow_tex);
    r->shadow_fbo = r->shadow_tex = 0;
}

mr_status gfx_shadow_create(mr_renderer *r, mr_error *err)
{
    GLint max_tex = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_tex);
    int size = r->desc.shadow_size > 0 ? r->desc.shadow_size : 1024;
    if (size > max_tex) size = max_tex;
    glGenTextures(1, &r->shadow_tex);
    glBindTexture(GL_TEXTURE_2D, r->shadow_tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, size, size, 0, GL_DEPTH_COMPONENT,
                 GL_UNSIGNED_INT, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
    glBindTexture(GL_TEXTURE_2D, 0);
    glGenFramebuffers(1, &r->shadow_fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, r->shadow_fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, r->shadow_tex, 0);
    glDrawBuffer(GL_NONE);
    glReadBuffer(GL_NONE);
    GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (st != GL_FRAMEBUFFER_COMPLETE) {
        gfx_shadow_free(r);
        return mr_error_set(err, MR_ERR_GL, "gfx: %dx%d shadow map: %s", size, size, fbo_status_name(st));
    }
    r->shadow_size = size;
    return MR_OK;
}
