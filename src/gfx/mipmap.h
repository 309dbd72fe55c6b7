/* mipmap.h — a texture's smaller levels, made on the CPU.
 *
 * The renderer makes a texture's mipmaps itself instead of asking GL
 * (glGenerateMipmap). On Mesa's llvmpipe, the one driver of headless runs
 * and CI, glGenerateMipmap draws each level with a blit shader that LLVM
 * compiles anew in every process (Mesa's shader cache does not keep it):
 * about 120 ms before a textured model's first frame, in every `marrow
 * run --headless` and every `marrow test` worker. The levels here are the
 * same on every driver, so a picture does not depend on how a driver
 * filters its mipmaps either.
 *
 * Each level halves the one before, rounding down, to 1 x 1 (GL's chain).
 * A texel of the smaller level is the mean of the texels of the larger one
 * that its area covers, each weighted by the part it covers: a 2 x 2 box on
 * even sides, three texels with fractional weights across an odd side (so
 * an odd image's last row or column is not dropped). Channels are filtered
 * alike (straight alpha, as glGenerateMipmap does) and rounded to nearest.
 */
#ifndef MR_GFX_MIPMAP_H
#define MR_GFX_MIPMAP_H

#include <stddef.h>
#include <stdint.h>

/* The next level's side: max(1, side / 2). */
int mr_mip_side(int side);

/* Bytes of every level after the first of a w x h RGBA8 image, all
 * together (what mr_mip_chain fills); 0 for a 1 x 1 image. */
size_t mr_mip_chain_bytes(int w, int h);

/* Writes the next level of src (w x h RGBA8, rows in any order: they keep
 * it) to dst, mr_mip_side(w) x mr_mip_side(h) texels. */
void mr_mip_half(const uint8_t *src, int w, int h, uint8_t *dst);

/* Writes every level after the first of src (w x h RGBA8) to chain, one
 * after another, level 1 first: chain holds mr_mip_chain_bytes(w, h). */
void mr_mip_chain(const uint8_t *src, int w, int h, uint8_t *chain);

#endif
