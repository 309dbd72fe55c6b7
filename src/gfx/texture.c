/* texture.c — image textures cached by path (core/image.h), and the magenta
 * checker drawn in place of any texture that cannot be read.
 *
 * Mesh uvs follow OpenGL's convention ((0,0) = the image's bottom-left), and
 * GL's first texel row is t = 0, so rows are flipped on upload: the image's
 * bottom row goes first. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/image.h"
#include "core/str.h"
#include "gfx/internal.h"
#include "gfx/mipmap.h"

static GLuint make_texture(const uint8_t *rgba, int w, int h, int mipmaps)
{
    GLuint tex;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, mipmaps ? GL_LINEAR : GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER,
                    mipmaps ? GL_LINEAR_MIPMAP_LINEAR : GL_NEAREST);
    if (mipmaps) {
        /* The levels made here (gfx/mipmap.h); GL's own when there is no
         * memory for them. */
        uint8_t *chain = malloc(mr_mip_chain_bytes(w, h) + 1);
        if (chain) {
            mr_mip_chain(rgba, w, h, chain);
            const uint8_t *level = chain;
            for (int l = 1; w > 1 || h > 1; l++) {
                w = mr_mip_side(w);
                h = mr_mip_side(h);
                glTexImage2D(GL_TEXTURE_2D, l, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, level);
                level += (size_t)w * (size_t)h * 4;
            }
            free(chain);
        } else {
            glGenerateMipmap(GL_TEXTURE_2D);
        }
    }
    glBindTexture(GL_TEXTURE_2D, 0);
    return tex;
}

int gfx_textures_init(mr_renderer *r)
{
    /* 8x8 cells of magenta and dark grey, 64x64 texels: unmistakably "missing". */
    enum { N = 64, CELL = 8 };
    static uint8_t px[N * N * 4];
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) {
            uint8_t *p = &px[(y * N + x) * 4];
            int on = ((x / CELL) + (y / CELL)) & 1;
            p[0] = on ? 255 : 40;
            p[1] = on ? 0 : 40;
            p[2] = on ? 255 : 40;
            p[3] = 255;
        }
    r->checker_tex = make_texture(px, N, N, 0);
    return r->checker_tex != 0;
}

void gfx_textures_free(mr_renderer *r)
{
    for (size_t i = 0; i < r->textures.count; i++) {
        gfx_texture *t = &r->textures.data[i];
        if (t->tex != r->checker_tex) glDeleteTextures(1, &t->tex);
        free(t->path);
        free(t->dir);
    }
    free(r->textures.data);
    memset(&r->textures, 0, sizeof r->textures);
    r->texture_pixels = 0;
    if (r->checker_tex) glDeleteTextures(1, &r->checker_tex);
    r->checker_tex = 0;
}

static size_t texture_budget(const mr_renderer *r)
{
    return r->desc.max_texture_pixels ? r->desc.max_texture_pixels : MR_RENDERER_MAX_TEXTURE_PIXELS;
}

GLuint gfx_texture_get(mr_renderer *r, const char *dir, const char *path, const unsigned char *bytes, size_t len,
                       int *cutout)
{
    if (cutout) *cutout = 0;
    const char *folder = dir ? dir : "";
    for (size_t i = 0; i < r->textures.count; i++)
        if (strcmp(r->textures.data[i].path, path) == 0 && strcmp(r->textures.data[i].dir, folder) == 0) {
            if (cutout) *cutout = r->textures.data[i].cutout;
            return r->textures.data[i].tex;
        }

    gfx_texture t = {0};
    t.path = mr_str_dup(path);
    t.dir = mr_str_dup(folder);
    int w = 0, h = 0, comp = 0;
    GLint max_size = 0;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
    uint8_t *img = NULL;
    /* The file through core/file (a regular file inside the model's
     * folder), then the header: a file claiming a giant image, or a JPEG of
     * thousands of scans, is refused before anything is decoded (a PNG's
     * data is inflated once, by the decoder, which stops a bomb itself). */
    mr_error err = {0};
    char *file = bytes ? NULL : mr_file_read_inside(dir, path, &len, &err);
    const unsigned char *data = bytes ? bytes : (const unsigned char *)file;
    if (!data)
        gfx_warn(r, "texture '%s' cannot be read (%s); drawing a checker instead", path, err.msg);
    else if (mr_image_header(data, len, path, &w, &h, &comp, &err) == MR_OK && (w > max_size || h > max_size))
        gfx_warn(r, "texture '%s' is %dx%d, larger than this GL allows (%d); drawing a checker "
                 "instead", path, w, h, max_size);
    else if (err.status == MR_OK && (size_t)w * (size_t)h > texture_budget(r) - r->texture_pixels)
        gfx_warn(r, "texture '%s' (%dx%d) would pass the %zu Mpixel all textures may decode to; drawing a "
                 "checker instead", path, w, h, texture_budget(r) >> 20);
    else if (err.status != MR_OK || mr_image_decode(data, len, path, &img, &w, &h, &comp, &err) != MR_OK)
        gfx_warn(r, "texture '%s' refused (%s); drawing a checker instead", path, err.msg);
    free(file);
    if (!img) {
        t.tex = r->checker_tex;
    } else {
        size_t row = (size_t)w * 4;
        uint8_t *tmp = malloc(row);
        for (int y = 0; tmp && y < h / 2; y++) {
            uint8_t *a = img + (size_t)y * row, *b = img + (size_t)(h - 1 - y) * row;
            memcpy(tmp, a, row);
            memcpy(a, b, row);
            memcpy(b, tmp, row);
        }
        free(tmp);
        /* Alpha testing only when the image really has see-through texels. */
        if (comp == 2 || comp == 4) {
            size_t n = (size_t)w * (size_t)h, transparent = 0;
            for (size_t i = 0; i < n; i++) transparent += img[i * 4 + 3] < 128;
            t.cutout = transparent > 0;
        }
        t.tex = make_texture(img, w, h, 1);
        r->texture_pixels += (size_t)w * (size_t)h;
        mr_image_free(img);
    }
    if (t.path && t.dir && GFX_RESERVE(r->textures, r->textures.count + 1) == 0) {
        r->textures.data[r->textures.count++] = t;
    } else {
        free(t.path);  /* not cached: at worst loaded again */
        free(t.dir);
    }
    if (cutout) *cutout = t.cutout;
    return t.tex;
}

void gfx_warn(mr_renderer *r, const char *fmt, ...)
{
    r->stats.warnings++;
    if (r->desc.quiet) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "marrow: warning: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}
