/* image.c — PNG encoding of frames with stb_image_write, written atomically
 * through core/file. */
#include <stdlib.h>
#include <string.h>

#include <stb_image_write.h>

#include "core/alloc.h"
#include "core/file.h"
#include "gfx/renderer.h"

typedef struct png_buf {
    unsigned char *data;
    size_t len, cap;
    int failed;
} png_buf;

static void png_append(void *ctx, void *data, int size)
{
    png_buf *b = ctx;
    if (b->failed || size <= 0) return;
    if (mr_alloc_reserve((void **)&b->data, &b->cap, b->len + (size_t)size, 1) != 0) {
        b->failed = 1;
        return;
    }
    memcpy(b->data + b->len, data, (size_t)size);
    b->len += (size_t)size;
}

mr_status mr_gfx_write_png(const char *path, const uint8_t *rgba, int width, int height,
                           mr_error *err)
{
    if (width <= 0 || height <= 0 || !rgba)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "png: %s: empty image", path);
    png_buf b = {0};
    int ok = stbi_write_png_to_func(png_append, &b, width, height, 4, rgba, width * 4);
    if (!ok || b.failed) {
        free(b.data);
        return mr_error_set(err, MR_ERR_NO_MEMORY, "png: %s: cannot encode %dx%d image", path,
                            width, height);
    }
    int rc = mr_file_write(path, b.data, b.len, err);
    free(b.data);
    return rc == 0 ? MR_OK : MR_ERR_IO;
}
