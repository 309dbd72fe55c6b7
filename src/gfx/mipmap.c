/* mipmap.c — a texture's smaller levels, made on the CPU (see mipmap.h). */
#include "gfx/mipmap.h"

#include <stdlib.h>

int mr_mip_side(int side) { return side > 1 ? side / 2 : 1; }

size_t mr_mip_chain_bytes(int w, int h)
{
    size_t bytes = 0;
    while (w > 1 || h > 1) {
        w = mr_mip_side(w);
        h = mr_mip_side(h);
        bytes += (size_t)w * (size_t)h * 4;
    }
    return bytes;
}

/* The texels of a side of s that texel i of the side d = mr_mip_side(s)
 * covers, and how much of each: along the side scaled by d, source texel k
 * spans [k d, (k + 1) d) and texel i spans [i s, (i + 1) s), so the weights
 * are whole numbers that add up to s. At most three (s / d <= 3). */
typedef struct mip_taps {
    int n, k[3];
    uint32_t w[3];
} mip_taps;

static mip_taps side_taps(int s, int d, int i)
{
    mip_taps t = {0};
    uint64_t lo = (uint64_t)i * (uint64_t)s, hi = lo + (uint64_t)s;
    for (uint64_t k = lo / (uint64_t)d; k < (uint64_t)s && k * (uint64_t)d < hi && t.n < 3; k++) {
        uint64_t a = k * (uint64_t)d > lo ? k * (uint64_t)d : lo;
        uint64_t b = (k + 1) * (uint64_t)d < hi ? (k + 1) * (uint64_t)d : hi;
        t.k[t.n] = (int)k;
        t.w[t.n++] = (uint32_t)(b - a);
    }
    return t;
}

/* Both sides even: each texel the rounded mean of a 2 x 2 box (what the
 * weights below give there, to the bit). */
static void half_even(const uint8_t *src, int w, int h, uint8_t *dst)
{
    int dw = w / 2, dh = h / 2;
    size_t row = (size_t)w * 4;
    for (int y = 0; y < dh; y++) {
        const uint8_t *a = src + (size_t)(2 * y) * row, *b = a + row;
        uint8_t *o = dst + (size_t)y * (size_t)dw * 4;
        for (int x = 0; x < dw; x++, a += 8, b += 8, o += 4)
            for (int c = 0; c < 4; c++) o[c] = (uint8_t)((a[c] + a[c + 4] + b[c] + b[c + 4] + 2) >> 2);
    }
}

void mr_mip_half(const uint8_t *src, int w, int h, uint8_t *dst)
{
    if (w % 2 == 0 && h % 2 == 0) {
        half_even(src, w, h, dst);
        return;
    }
    int dw = mr_mip_side(w), dh = mr_mip_side(h);
    uint64_t whole = (uint64_t)w * (uint64_t)h;   /* the weights of a texel add up to this */
    for (int y = 0; y < dh; y++) {
        mip_taps ty = side_taps(h, dh, y);
        uint8_t *o = dst + (size_t)y * (size_t)dw * 4;
        for (int x = 0; x < dw; x++, o += 4) {
            mip_taps tx = side_taps(w, dw, x);
            uint64_t sum[4] = {0};
            for (int j = 0; j < ty.n; j++) {
                const uint8_t *r = src + ((size_t)ty.k[j] * (size_t)w) * 4;
                for (int i = 0; i < tx.n; i++) {
                    uint64_t wt = (uint64_t)ty.w[j] * tx.w[i];
                    const uint8_t *p = r + (size_t)tx.k[i] * 4;
                    for (int c = 0; c < 4; c++) sum[c] += wt * p[c];
                }
            }
            for (int c = 0; c < 4; c++) o[c] = (uint8_t)((sum[c] + whole / 2) / whole);
        }
    }
}

void mr_mip_chain(const uint8_t *src, int w, int h, uint8_t *chain)
{
    while (w > 1 || h > 1) {
        mr_mip_half(src, w, h, chain);
        src = chain;
        w = mr_mip_side(w);
        h = mr_mip_side(h);
        chain += (size_t)w * (size_t)h * 4;
    }
}
