/* image.c — bounded image decoding through stb_image (see image.h). */
#include "core/image.h"

#include <limits.h>
#include <stdint.h>

#include <stb_image.h>

int mr_image_jpeg_scans(const unsigned char *b, size_t len)
{
    if (len < 4 || b[0] != 0xFF || b[1] != 0xD8) return -1;
    int scans = 0;
    size_t i = 2;
    while (i + 1 < len) {
        if (b[i] != 0xFF) return scans;           /* not a marker: the decoder stops here too */
        while (i + 1 < len && b[i + 1] == 0xFF) i++;  /* fill bytes */
        if (i + 1 >= len) break;
        unsigned m = b[i + 1];
        i += 2;
        if (m == 0xD9) break;                     /* EOI */
        if (m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7)) continue;  /* no length */
        if (i + 2 > len) break;
        size_t seg = (size_t)b[i] << 8 | b[i + 1];
        if (seg < 2) return scans;
        i += seg;
        if (m != 0xDA) continue;
        /* SOS: the entropy-coded data runs to the next marker that is
         * neither a stuffed FF00 nor a restart marker RSTn. */
        scans++;
        while (i + 1 < len) {
            if (b[i] == 0xFF && b[i + 1] != 0x00 && !(b[i + 1] >= 0xD0 && b[i + 1] <= 0xD7) && b[i + 1] != 0xFF)
                break;
            i++;
        }
    }
    return scans;
}

mr_status mr_image_info(const unsigned char *bytes, size_t len, const char *name, int *w, int *h, int *comp,
                        mr_error *err)
{
    int iw = 0, ih = 0, ic = 0;
    if (!bytes || len > (size_t)INT_MAX)
        return mr_error_set(err, MR_ERR_LIMIT, "%s: %zu bytes, more than an image file may hold (%d)", name, len,
                            INT_MAX);
    if (!stbi_info_from_memory(bytes, (int)len, &iw, &ih, &ic)) {
        const char *why = stbi_failure_reason();
        return mr_error_set(err, MR_ERR_BAD_FILE, "%s: not an image marrow reads (%s; expected PNG, JPEG, TGA, "
                            "BMP, GIF, PSD, HDR, PIC or PNM)", name, why ? why : "unknown format");
    }
    if (w) *w = iw;
    if (h) *h = ih;
    if (comp) *comp = ic;
    if (iw <= 0 || ih <= 0 || iw > MR_IMAGE_MAX_SIDE || ih > MR_IMAGE_MAX_SIDE)
        return mr_error_set(err, MR_ERR_LIMIT, "%s: %dx%d pixels (expected 1 to %d per side, MR_IMAGE_MAX_SIDE)",
                            name, iw, ih, MR_IMAGE_MAX_SIDE);
    if ((int64_t)iw * ih > MR_IMAGE_MAX_PIXELS)
        return mr_error_set(err, MR_ERR_LIMIT, "%s: %dx%d pixels, more than %d Mpixel (MR_IMAGE_MAX_PIXELS)", name,
                            iw, ih, MR_IMAGE_MAX_PIXELS >> 20);
    int scans = mr_image_jpeg_scans(bytes, len);
    if (scans > MR_IMAGE_MAX_JPEG_SCANS)
        return mr_error_set(err, MR_ERR_LIMIT, "%s: a JPEG of %d scans, more than %d (MR_IMAGE_MAX_JPEG_SCANS)",
                            name, scans, MR_IMAGE_MAX_JPEG_SCANS);
    return MR_OK;
}

mr_status mr_image_decode(const unsigned char *bytes, size_t len, const char *name, unsigned char **out, int *w,
                          int *h, int *comp, mr_error *err)
{
    *out = NULL;
    int iw, ih, ic;
    mr_status st = mr_image_info(bytes, len, name, &iw, &ih, &ic, err);
    if (st != MR_OK) return st;
    unsigned char *px = stbi_load_from_memory(bytes, (int)len, &iw, &ih, &ic, 4);
    if (!px) {
        const char *why = stbi_failure_reason();
        return mr_error_set(err, MR_ERR_BAD_FILE, "%s: cannot be decoded (%s)", name, why ? why : "unknown reason");
    }
    *out = px;
    if (w) *w = iw;
    if (h) *h = ih;
    if (comp) *comp = ic;
    return MR_OK;
}

void mr_image_free(unsigned char *pixels)
{
    stbi_image_free(pixels);
}
