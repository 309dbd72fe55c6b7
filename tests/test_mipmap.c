/* test_mipmap.c — the renderer's mipmap levels (gfx/mipmap.h): sizes of
 * GL's chain, the 2 x 2 box on even sides, fractional weights across odd
 * ones, checked against an area integral written here in doubles. */
#include <stdint.h>
#include <stdlib.h>

#include "gfx/mipmap.h"
#include "test.h"

/* The texel of the next level by its definition: the mean over the area
 * [x w / dw, (x + 1) w / dw] x [y h / dh, (y + 1) h / dh] of the source,
 * each source texel a unit square of constant value. */
static double area_mean(const uint8_t *src, int w, int h, int x, int y, int c)
{
    int dw = w > 1 ? w / 2 : 1, dh = h > 1 ? h / 2 : 1;
    double x0 = (double)x * w / dw, x1 = (double)(x + 1) * w / dw;
    double y0 = (double)y * h / dh, y1 = (double)(y + 1) * h / dh;
    double sum = 0;
    for (int j = 0; j < h; j++)
        for (int i = 0; i < w; i++) {
            double ox = fmin(x1, i + 1.0) - fmax(x0, (double)i), oy = fmin(y1, j + 1.0) - fmax(y0, (double)j);
            if (ox > 0 && oy > 0) sum += ox * oy * src[((size_t)j * w + i) * 4 + c];
        }
    return sum / ((x1 - x0) * (y1 - y0));
}

TEST(levels_halve_to_one_texel_as_gl_counts_them)
{
    CHECK(mr_mip_side(1) == 1);
    CHECK(mr_mip_side(2) == 1);
    CHECK(mr_mip_side(5) == 2);
    CHECK(mr_mip_side(1024) == 512);
    CHECK(mr_mip_chain_bytes(1, 1) == 0);
    CHECK(mr_mip_chain_bytes(2, 2) == 4);
    /* 5x3 -> 2x1 -> 1x1 */
    CHECK(mr_mip_chain_bytes(5, 3) == (2 * 1 + 1 * 1) * 4);
    /* 1024x256 -> 512x128 ... 4x1 -> 2x1 -> 1x1: 11 levels after the first */
    size_t want = 0;
    for (int w = 1024, h = 256; w > 1 || h > 1;) {
        w = w > 1 ? w / 2 : 1;
        h = h > 1 ? h / 2 : 1;
        want += (size_t)w * h * 4;
    }
    CHECK(mr_mip_chain_bytes(1024, 256) == want);
}

TEST(even_sides_take_the_rounded_mean_of_a_two_by_two_box)
{
    const uint8_t src[2 * 2 * 4] = {0, 10, 255, 1, 1, 11, 255, 2, 2, 12, 255, 0, 4, 14, 255, 0};
    uint8_t dst[4] = {0};
    mr_mip_half(src, 2, 2, dst);
    CHECK(dst[0] == 2);     /* 7 / 4 = 1.75 */
    CHECK(dst[1] == 12);    /* 47 / 4 = 11.75 */
    CHECK(dst[2] == 255);
    CHECK(dst[3] == 1);     /* 3 / 4 = 0.75 */
}

TEST(an_odd_side_weighs_its_middle_texel_in_both_halves)
{
    /* 5 -> 2: texel 0 covers source 0, 1 and half of 2; texel 1 the other
     * half of 2, then 3 and 4. */
    uint8_t src[5 * 4] = {0};
    const uint8_t v[5] = {0, 50, 100, 200, 250};
    for (int i = 0; i < 5; i++) src[i * 4] = src[i * 4 + 1] = src[i * 4 + 2] = src[i * 4 + 3] = v[i];
    uint8_t dst[2 * 4];
    mr_mip_half(src, 5, 1, dst);
    CHECK(dst[0] == 40);    /* (0 + 50 + 100 / 2) / 2.5 */
    CHECK(dst[4] == 200);   /* (100 / 2 + 200 + 250) / 2.5 */
    /* 3 -> 1: the mean of all three, none dropped */
    const uint8_t three[3 * 4] = {0, 0, 0, 0, 90, 90, 90, 90, 255, 255, 255, 255};
    mr_mip_half(three, 3, 1, dst);
    CHECK(dst[0] == 115);
}

TEST(every_level_matches_the_area_mean_of_the_one_before)
{
    uint32_t seed = 12345;
    int worst = 0;
    double worst_off = 0;
    for (int w = 1; w <= 19; w++)
        for (int h = 1; h <= 19; h++) {
            uint8_t *src = malloc((size_t)w * h * 4), *chain = malloc(mr_mip_chain_bytes(w, h) + 1);
            for (int i = 0; i < w * h * 4; i++) {
                seed = seed * 1664525u + 1013904223u;
                src[i] = (uint8_t)(seed >> 24);
            }
            mr_mip_chain(src, w, h, chain);
            const uint8_t *prev = src, *cur = chain;
            int pw = w, ph = h;
            while (pw > 1 || ph > 1) {
                int cw = pw > 1 ? pw / 2 : 1, ch = ph > 1 ? ph / 2 : 1;
                for (int y = 0; y < ch; y++)
                    for (int x = 0; x < cw; x++)
                        for (int c = 0; c < 4; c++) {
                            double want = area_mean(prev, pw, ph, x, y, c);
                            double off = fabs(cur[((size_t)y * cw + x) * 4 + c] - want);
                            if (off > worst_off) worst_off = off;
                            if (off > 0.5 + 1e-9) worst++;
                        }
                prev = cur;
                cur += (size_t)cw * ch * 4;
                pw = cw;
                ph = ch;
            }
            free(src);
            free(chain);
        }
    CHECK_MSG(worst == 0, "%d texels more than half a step from the area mean (worst %.3f)", worst, worst_off);
}

TEST(a_flat_image_stays_flat_at_every_level)
{
    for (int w = 1; w <= 33; w += 4)
        for (int h = 1; h <= 33; h += 3) {
            uint8_t *src = malloc((size_t)w * h * 4), *chain = malloc(mr_mip_chain_bytes(w, h) + 1);
            for (int i = 0; i < w * h; i++) {
                src[i * 4] = 7;
                src[i * 4 + 1] = 128;
                src[i * 4 + 2] = 254;
                src[i * 4 + 3] = 255;
            }
            mr_mip_chain(src, w, h, chain);
            int bad = 0;
            for (size_t i = 0; i < mr_mip_chain_bytes(w, h) / 4; i++)
                bad += chain[i * 4] != 7 || chain[i * 4 + 1] != 128 || chain[i * 4 + 2] != 254 || chain[i * 4 + 3] != 255;
            CHECK_MSG(bad == 0, "%dx%d: %d texels changed", w, h, bad);
            free(src);
            free(chain);
        }
}

int main(void)
{
    RUN(levels_halve_to_one_texel_as_gl_counts_them);
    RUN(even_sides_take_the_rounded_mean_of_a_two_by_two_box);
    RUN(an_odd_side_weighs_its_middle_texel_in_both_halves);
    RUN(every_level_matches_the_area_mean_of_the_one_before);
    RUN(a_flat_image_stays_flat_at_every_level);
    return test_summary("mipmap");
}
