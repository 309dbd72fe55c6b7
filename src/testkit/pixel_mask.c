/* pixel_mask.c — ignored-pixel masks (see pixel_mask.h). */
#include "testkit/pixel_mask.h"

#include <string.h>

void mr_pixel_mask_rect(uint8_t *mask, int w, int h, int x, int y, int rw, int rh)
{
    if (rw <= 0 || rh <= 0) return;
    long x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y;
    long x1 = (long)x + rw, y1 = (long)y + rh;   /* exclusive */
    if (x1 > w) x1 = w;
    if (y1 > h) y1 = h;
    for (long row = y0; row < y1; row++)
        if (x1 > x0) memset(mask + row * w + x0, 1, (size_t)(x1 - x0));
}

long mr_pixel_mask_count(const uint8_t *mask, int w, int h)
{
    long n = 0;
    for (long i = 0; i < (long)w * h; i++) n += mask[i] != 0;
    return n;
}

void mr_pixel_mask_hatch(const uint8_t *mask, uint8_t *rgba, int w, int h)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            if (!mask[(size_t)y * w + x]) continue;
            uint8_t *p = rgba + ((size_t)y * w + x) * 4;
            uint8_t g = ((x - y) & 7) < 4 ? 70 : 200;
            p[0] = p[1] = g;
            p[2] = (uint8_t)(g + 30);
            p[3] = 255;
        }
}
