/* compare.c — per-pixel colour distance with an anti-aliasing
 * allowance, and the diff image (see compare.h). */
#include "testkit/compare.h"

#include <stdlib.h>

#include "testkit/pixel_mask.h"

mr_compare_tol mr_compare_default_tol(void)
{
    return (mr_compare_tol){.threshold = 3, .max_diff = 0.0005, .max_aa = 0.01};
}

static int dist(const uint8_t *a, const uint8_t *b)
{
    int m = 0;
    for (int c = 0; c < 3; c++) {
        int d = abs((int)a[c] - (int)b[c]);
        if (d > m) m = d;
    }
    return m;
}

/* 1 when pixel (x, y) of img is within threshold of one of the 3x3 block
 * around (x, y) in other, the centre excluded. */
static int near_in(const uint8_t *px, const uint8_t *other, int w, int h, int x, int y, int threshold)
{
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int nx = x + dx, ny = y + dy;
            if ((!dx && !dy) || nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
            if (dist(px, other + ((size_t)ny * w + nx) * 4) <= threshold) return 1;
        }
    return 0;
}

static int on_edge(const uint8_t *img, int w, int h, int x, int y)
{
    const uint8_t *p = img + ((size_t)y * w + x) * 4;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int nx = x + dx, ny = y + dy;
            if ((!dx && !dy) || nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
            if (dist(p, img + ((size_t)ny * w + nx) * 4) >= MR_COMPARE_EDGE_CONTRAST) return 1;
        }
    return 0;
}

int mr_compare_images(const uint8_t *expected, const uint8_t *actual, int w, int h,
                     const mr_compare_tol *tol, uint8_t *diff, mr_compare_result *out)
{
    return mr_compare_images_masked(expected, actual, w, h, tol, NULL, diff, out);
}

int mr_compare_images_masked(const uint8_t *expected, const uint8_t *actual, int w, int h,
                            const mr_compare_tol *tol, const uint8_t *mask, uint8_t *diff,
                            mr_compare_result *out)
{
    mr_compare_tol t = mr_compare_default_tol();
    if (tol) {
        if (tol->threshold >= 0) t.threshold = tol->threshold;
        if (tol->max_diff >= 0) t.max_diff = tol->max_diff;
        if (tol->max_aa >= 0) t.max_aa = tol->max_aa;
    }
    *out = (mr_compare_result){.total = (long)w * h, .box = {-1, -1, -1, -1}};
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t i = ((size_t)y * w + x) * 4;
            const uint8_t *e = expected + i, *a = actual + i;
            if (mask && mask[i / 4]) {
                out->masked++;
                continue;
            }
            int d = dist(e, a);
            if (d > out->max_delta) out->max_delta = d;
            int kind = 0;                  /* 0 same, 1 AA, 2 real */
            if (d > t.threshold) {
                int aa = (near_in(a, expected, w, h, x, y, t.threshold) &&
                          near_in(e, actual, w, h, x, y, t.threshold)) ||
                         on_edge(expected, w, h, x, y);
                kind = aa ? 1 : 2;
            }
            if (kind == 1) out->aa++;
            if (kind == 2) {
                out->diff++;
                if (out->box[0] < 0) {
                    out->box[0] = out->box[2] = x;
                    out->box[1] = out->box[3] = y;
                }
                if (x < out->box[0]) out->box[0] = x;
                if (x > out->box[2]) out->box[2] = x;
                if (y > out->box[3]) out->box[3] = y;
            }
            if (diff) {
                uint8_t *o = diff + i;
                if (kind == 2) {
                    o[0] = 255; o[1] = 0; o[2] = 0;
                } else if (kind == 1) {
                    o[0] = 255; o[1] = 0; o[2] = 255;
                } else {
                    int lum = (e[0] * 77 + e[1] * 150 + e[2] * 29) >> 8;
                    uint8_t g = (uint8_t)(160 + lum * 80 / 255);  /* faded: 160..240 */
                    o[0] = o[1] = o[2] = g;
                }
                o[3] = 255;
            }
        }
    out->total -= out->masked;
    if (mask && diff) mr_pixel_mask_hatch(mask, diff, w, h);
    out->diff_share = out->total ? (double)out->diff / (double)out->total : 0;
    out->aa_share = out->total ? (double)out->aa / (double)out->total : 0;
    out->pass = out->diff_share <= t.max_diff && out->aa_share <= t.max_aa;
    return out->pass;
}
