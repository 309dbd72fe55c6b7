/* image.c — PNG encoding of frames with libpng, written atomically through
 * core/file. Every PNG marrow writes (screenshots, goldens, the regression
 * runner's actual/expected/diff images) goes through mr_gfx_write_png.
 *
 * Speed over size: zlib level 1 and one fixed row filter (Up) instead of
 * libpng's per-row filter search. On rendered frames that is several times
 * faster than stb_image_write's level-8 encoder with every filter tried, for
 * files about as large; the pixels are the same (PNG is lossless). */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "core/alloc.h"
#include "core/file.h"
#include "gfx/renderer.h"

typedef struct png_buf {
    unsigned char *data;
    size_t len, cap;
    int failed;
} png_buf;

static void png_append(png_structp png, png_bytep data, size_t size)
{
    png_buf *b = png_get_io_ptr(png);
    if (b->failed || size == 0) return;
    if (mr_alloc_reserve((void **)&b->data, &b->cap, b->len + size, 1) != 0) {
        b->failed = 1;
        return;
    }
    memcpy(b->data + b->len, data, size);
    b->len += size;
}

static void png_flush_none(png_structp png) { (void)png; }

/* Encodes into b; 0 on success. Kept apart from the caller so nothing the
 * caller owns lives across libpng's longjmp. */
static int encode(png_buf *b, const uint8_t *rgba, int width, int height)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    if (!png) return -1;
    png_infop info = png_create_info_struct(png);
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return -1;
    }
    png_set_write_fn(png, b, png_append, png_flush_none);
    png_set_compression_level(png, 1);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGBA,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    png_write_info(png, info);
    for (int y = 0; y < height; y++)
        png_write_row(png, (png_const_bytep)(rgba + (size_t)y * (size_t)width * 4));
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return b->failed ? -1 : 0;
}

mr_status mr_gfx_encode_png(const uint8_t *rgba, int width, int height, unsigned char **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    if (width <= 0 || height <= 0 || !rgba) return MR_ERR_INVALID_ARGUMENT;
    png_buf b = {0};
    if (encode(&b, rgba, width, height) != 0) {
        free(b.data);
        return MR_ERR_NO_MEMORY;
    }
    *data = b.data;
    *len = b.len;
    return MR_OK;
}

mr_status mr_gfx_write_png(const char *path, const uint8_t *rgba, int width, int height,
                           mr_error *err)
{
    if (width <= 0 || height <= 0 || !rgba)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "png: %s: empty image", path);
    png_buf b = {0};
    if (encode(&b, rgba, width, height) != 0) {
        free(b.data);
        return mr_error_set(err, MR_ERR_NO_MEMORY, "png: %s: cannot encode %dx%d image", path,
                            width, height);
    }
    int rc = mr_file_write(path, b.data, b.len, err);
    free(b.data);
    return rc == 0 ? MR_OK : MR_ERR_IO;
}
