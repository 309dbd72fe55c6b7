/* pixel_mask.h — the pixels of a shot left out of the image comparison
 * (scene.ignore, lua/scene.h): one byte per pixel, non-zero = ignored,
 * top row first like the RGBA frames of testkit/compare.h. Ignored pixels
 * are drawn hatched in diff.png so a reader sees what was not compared.
 */
#ifndef MR_TESTKIT_PIXEL_MASK_H
#define MR_TESTKIT_PIXEL_MASK_H

#include <stdint.h>

/* Marks the rectangle x, y, rw, rh (y down; cut to the w*h frame; nothing
 * when rw or rh <= 0). */
void mr_pixel_mask_rect(uint8_t *mask, int w, int h, int x, int y, int rw, int rh);

/* Number of marked pixels. */
long mr_pixel_mask_count(const uint8_t *mask, int w, int h);

/* Hatches the marked pixels of an RGBA8 image: dark and light grey stripes
 * running down to the right, 4 pixels wide. */
void mr_pixel_mask_hatch(const uint8_t *mask, uint8_t *rgba, int w, int h);

#endif
