/* compare.h — tolerant comparison of two RGBA8 images of the same size,
 * as used by `marrow test` against golden PNGs.
 *
 * A pixel differs when its colour distance (the largest absolute difference
 * of its R, G, B channels, 0..255; alpha is ignored) is above tol.threshold.
 * A differing pixel is counted as anti-aliasing (AA) rather than as a real
 * difference when
 *   - its colour in one image is within the threshold of one of its 8
 *     neighbours in the other image (an edge moved by up to one pixel), or
 *   - it lies on a high-contrast edge of the expected image (some neighbour
 *     in the 3x3 block differs from the pixel by MR_COMPARE_EDGE_CONTRAST or
 *     more; rasterisers disagree most along such edges).
 * The images match when the share of real differences is <= tol.max_diff and
 * the share of AA differences is <= tol.max_aa (shares of all pixels).
 *
 * Another CPU's SIMD path changes single pixels by 1, which the default
 * threshold absorbs; a one-pixel shift of an edge becomes AA; a changed
 * region (a moved arm) produces real differences inside it.
 */
#ifndef MR_TESTKIT_COMPARE_H
#define MR_TESTKIT_COMPARE_H

#include <stdint.h>

#define MR_COMPARE_EDGE_CONTRAST 96   /* 3x3 channel contrast that makes an edge */

typedef struct mr_compare_tol {
    int threshold;     /* colour distance a pixel may differ by [3]; < 0 = default */
    double max_diff;   /* share of pixels allowed to differ for real [0.0005]; < 0 = default */
    double max_aa;     /* share of pixels allowed to differ as AA [0.01]; < 0 = default */
} mr_compare_tol;

typedef struct mr_compare_result {
    long total;        /* pixels compared (not masked) */
    long masked;       /* pixels left out by the mask */
    long diff;         /* real differences */
    long aa;           /* differences counted as anti-aliasing */
    int max_delta;     /* largest colour distance of any pixel, 0..255 */
    double diff_share, aa_share;
    int box[4];        /* x0, y0, x1, y1 (inclusive) of the real differences; x0 = -1 when none */
    int pass;          /* 1 when within the tolerance */
} mr_compare_result;

/* The default tolerance. */
mr_compare_tol mr_compare_default_tol(void);

/* Compares actual with expected (both w*h RGBA8, top row first) under tol
 * (NULL or negative fields take the defaults) and fills *out. When diff is
 * not NULL (w*h*4 bytes, caller-owned) it receives the diff image: a faded
 * grey copy of expected with real differences in red and AA differences in
 * magenta. Allocates nothing. Returns out->pass. */
int mr_compare_images(const uint8_t *expected, const uint8_t *actual, int w, int h,
                     const mr_compare_tol *tol, uint8_t *diff, mr_compare_result *out);

/* The same with mask (w*h bytes, non-zero = ignored; NULL = none, see
 * testkit/pixel_mask.h): ignored pixels are neither compared nor counted (shares
 * are of the pixels compared) and are hatched in the diff image. A pixel
 * next to an ignored one is still compared with all its neighbours. */
int mr_compare_images_masked(const uint8_t *expected, const uint8_t *actual, int w, int h,
                            const mr_compare_tol *tol, const uint8_t *mask, uint8_t *diff,
                            mr_compare_result *out);

#endif
