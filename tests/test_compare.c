/* test_compare.c — the golden-image comparator (src/testkit/compare.c) on
 * synthetic images: identical, one pixel off by one, a shifted edge, a real
 * change, per-scene tolerance overrides and the diff image. */
#include <stdlib.h>

#include "testkit/compare.h"
#include "testkit/pixel_mask.h"
#include "test.h"

#define W 64
#define H 48

/* A grey background with a dark square [x0, x0+20) x [12, 32). */
static void square(uint8_t *img, int x0, uint8_t shade)
{
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t *p = img + (y * W + x) * 4;
            int in = x >= x0 && x < x0 + 20 && y >= 12 && y < 32;
            p[0] = p[1] = p[2] = in ? shade : 200;
            p[3] = 255;
        }
}

static uint8_t a[W * H * 4], b[W * H * 4], d[W * H * 4];

TEST(compare_identical_images_pass_with_no_difference)
{
    square(a, 10, 30);
    square(b, 10, 30);
    mr_compare_result r;
    CHECK(mr_compare_images(a, b, W, H, NULL, d, &r) == 1);
    CHECK(r.diff == 0 && r.aa == 0 && r.max_delta == 0);
    CHECK(r.box[0] == -1);
    CHECK(r.total == W * H);
    CHECK(d[0] == d[1] && d[1] == d[2] && d[0] >= 160);  /* faded grey, no red */
}

TEST(compare_one_pixel_off_by_one_is_within_threshold)
{
    square(a, 10, 30);
    square(b, 10, 30);
    b[(5 * W + 5) * 4 + 1] += 1;
    mr_compare_result r;
    CHECK(mr_compare_images(a, b, W, H, NULL, d, &r) == 1);
    CHECK(r.max_delta == 1);
    CHECK(r.diff == 0 && r.aa == 0);
    /* ... but a zero threshold with zero allowances catches it as a real difference. */
    mr_compare_tol strict = {.threshold = 0, .max_diff = 0, .max_aa = 0};
    CHECK(mr_compare_images(a, b, W, H, &strict, NULL, &r) == 0);
    CHECK(r.diff == 1);
    CHECK(r.box[0] == 5 && r.box[1] == 5 && r.box[2] == 5 && r.box[3] == 5);
}

TEST(compare_edge_shifted_by_one_pixel_counts_as_aa)
{
    square(a, 10, 30);
    square(b, 11, 30);
    mr_compare_result r;
    mr_compare_images(a, b, W, H, NULL, d, &r);
    CHECK(r.diff == 0);
    CHECK(r.aa == 2 * 20);                /* the left and right columns of the square */
    CHECK(r.pass == 0);                   /* 40 of 3072 pixels = 1.3% > 1% AA allowance */
    mr_compare_tol loose = {.threshold = -1, .max_diff = -1, .max_aa = 0.02};
    CHECK(mr_compare_images(a, b, W, H, &loose, NULL, &r) == 1);
    /* AA pixels are magenta in the diff image. */
    const uint8_t *p = d + (20 * W + 10) * 4;
    CHECK(p[0] == 255 && p[1] == 0 && p[2] == 255);
}

TEST(compare_real_change_fails_and_is_boxed_in_red)
{
    square(a, 10, 30);
    square(b, 10, 30);
    for (int y = 16; y < 26; y++)          /* a 10x10 patch turns white inside the square */
        for (int x = 14; x < 24; x++) {
            uint8_t *p = b + (y * W + x) * 4;
            p[0] = p[1] = p[2] = 250;
        }
    mr_compare_result r;
    CHECK(mr_compare_images(a, b, W, H, NULL, d, &r) == 0);
    CHECK(r.max_delta == 220);
    CHECK(r.diff >= 8 * 8);                /* the inside of the patch at least */
    CHECK(r.diff + r.aa == 100);
    CHECK(r.box[0] >= 14 && r.box[2] <= 23 && r.box[1] >= 16 && r.box[3] <= 25);
    const uint8_t *p = d + (20 * W + 18) * 4;
    CHECK(p[0] == 255 && p[1] == 0 && p[2] == 0);
    CHECK(r.diff_share > 0.0005);
}

TEST(compare_large_threshold_accepts_a_faint_change)
{
    square(a, 10, 30);
    square(b, 10, 40);                     /* the square is 10 lighter */
    mr_compare_result r;
    CHECK(mr_compare_images(a, b, W, H, NULL, NULL, &r) == 0);
    mr_compare_tol t = {.threshold = 12, .max_diff = -1, .max_aa = -1};
    CHECK(mr_compare_images(a, b, W, H, &t, NULL, &r) == 1);
    CHECK(r.max_delta == 10);
}

TEST(compare_masked_change_passes_and_is_hatched)
{
    square(a, 10, 30);
    square(b, 10, 30);
    for (int y = 2; y < 8; y++)            /* a "clock" top-right changes */
        for (int x = 50; x < 62; x++) b[(y * W + x) * 4] = 0;
    static uint8_t mask[W * H];
    memset(mask, 0, sizeof mask);
    mr_compare_result r;
    CHECK(mr_compare_images_masked(a, b, W, H, NULL, mask, d, &r) == 0);   /* empty mask: fails */
    mr_pixel_mask_rect(mask, W, H, 48, -5, 100, 12);                       /* cut to x 48..63, y 0..6 */
    CHECK(mr_pixel_mask_count(mask, W, H) == 16 * 7);
    CHECK(mr_compare_images_masked(a, b, W, H, NULL, mask, d, &r) == 0);   /* row 7 still differs */
    mr_pixel_mask_rect(mask, W, H, 48, 7, 16, 1);
    CHECK(mr_compare_images_masked(a, b, W, H, NULL, mask, d, &r) == 1);
    CHECK(r.masked == 16 * 8);
    CHECK(r.total == W * H - 16 * 8);
    CHECK(r.diff == 0 && r.max_delta == 0);
    /* Ignored pixels are hatched in two greys; the rest is the faded copy. */
    const uint8_t *p = d + (3 * W + 55) * 4, *q = d + (3 * W + 59) * 4, *o = d + (3 * W + 40) * 4;
    CHECK(p[0] != q[0] && (p[0] == 70 || p[0] == 200) && (q[0] == 70 || q[0] == 200) && p[2] == p[0] + 30);
    CHECK(o[0] >= 160 && o[0] == o[2]);
    mr_pixel_mask_rect(mask, W, H, 0, 0, 0, 10);                           /* empty: nothing */
    CHECK(mr_pixel_mask_count(mask, W, H) == 16 * 8);
}

TEST(compare_defaults_are_documented_values)
{
    mr_compare_tol t = mr_compare_default_tol();
    CHECK(t.threshold == 3);
    CHECK_NEAR(t.max_diff, 0.0005, 1e-12);
    CHECK_NEAR(t.max_aa, 0.01, 1e-12);
}

int main(void)
{
    RUN(compare_identical_images_pass_with_no_difference);
    RUN(compare_one_pixel_off_by_one_is_within_threshold);
    RUN(compare_edge_shifted_by_one_pixel_counts_as_aa);
    RUN(compare_real_change_fails_and_is_boxed_in_red);
    RUN(compare_large_threshold_accepts_a_faint_change);
    RUN(compare_masked_change_passes_and_is_hatched);
    RUN(compare_defaults_are_documented_values);
    return test_summary("compare");
}
