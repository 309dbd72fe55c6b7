/* fuzz_image.c — libFuzzer entry point for the bounded image decoder
 * (src/core/image.c), the path every texture takes from a file's bytes to
 * pixels. Built and run by `make fuzz` / `make fuzz-smoke` (see fuzz.h).
 *
 * fuzz-seeds: png jpg jpeg tga bmp
 *
 * Each input goes through mr_image_info (dimensions, JPEG scan count) and,
 * when small enough, mr_image_decode. An accepted header must be within
 * the limits of image.h; a decoded image must have the size its header
 * gave; a refusal must say which file. Images above 4 Mpixel are checked
 * but not decoded here, so libFuzzer's allocation limit (smoke.sh's
 * FUZZ_MALLOC_MB) measures stb_image, not MR_IMAGE_MAX_PIXELS.
 *
 * LeakSanitizer watches the decode too: when stb_image fails one of its
 * own assertions on a corrupt file, image.c ends the decode and frees
 * what stb had allocated (stb_end; four JPEGs of the grown corpus once
 * lost 370 KB there).
 */
#include "fuzz.h"
#include "core/image.h"

#define FUZZ_DECODE_PIXELS (4 * 1024 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int w = 0, h = 0, comp = 0;
    mr_error err = {0};
    mr_status st = mr_image_info(data, size, "fuzz.img", &w, &h, &comp, &err);
    if (st != MR_OK) {
        if (!strstr(err.msg, "fuzz.img")) abort();
        return 0;
    }
    if (w < 1 || h < 1 || w > MR_IMAGE_MAX_SIDE || h > MR_IMAGE_MAX_SIDE ||
        (long long)w * h > MR_IMAGE_MAX_PIXELS || mr_image_jpeg_scans(data, size) > MR_IMAGE_MAX_JPEG_SCANS)
        abort();
    if ((long long)w * h > FUZZ_DECODE_PIXELS) return 0;
    unsigned char *px = NULL;
    int dw = 0, dh = 0;
    st = mr_image_decode(data, size, "fuzz.img", &px, &dw, &dh, &comp, &err);
    if (st == MR_OK) {
        if (!px || dw != w || dh != h) abort();
        /* every row is there: ASan checks the last byte */
        if (px[(size_t)dw * dh * 4 - 1] != 255 && comp != 2 && comp != 4) abort();
        mr_image_free(px);
    } else if (px || !strstr(err.msg, "fuzz.img")) {
        abort();
    }
    return 0;
}
