/* image.h — decoding image files (PNG, JPEG, TGA, BMP ... through stb_image)
 * within named limits: the one path every texture, `marrow info` and the
 * glTF writer take from a file's bytes to pixels.
 *
 * A decoder's output is bounded before it runs: the header's dimensions
 * (MR_IMAGE_MAX_SIDE per side, MR_IMAGE_MAX_PIXELS in all) and, for a JPEG,
 * the number of scans (MR_IMAGE_MAX_JPEG_SCANS: a progressive JPEG of 20,000
 * scans took 44 s to decode; one of 208 bytes claimed 3.6 GB of pixels). A
 * file over a limit is refused with MR_ERR_LIMIT, the message naming the
 * file, what it holds and the limit; callers draw their stand-in (the
 * renderer's checker) and warn.
 *
 * Files are read with core/file.h: a model's images with mr_file_read_inside
 * (regular files inside the model's folder), never by the decoder itself.
 */
#ifndef MR_CORE_IMAGE_H
#define MR_CORE_IMAGE_H

#include <stddef.h>

#include "core/error.h"

#define MR_IMAGE_MAX_PIXELS (64 * 1024 * 1024)  /* 64 Mpixel: 256 MiB of RGBA8 */
#define MR_IMAGE_MAX_SIDE 16384                 /* the largest texture GL implementations take */
#define MR_IMAGE_MAX_JPEG_SCANS 64              /* a progressive JPEG has about 10 */

/* Reads the header of encoded image bytes: *w, *h and *comp (channels in the
 * file; each may be NULL). MR_ERR_BAD_FILE when stb_image knows no such
 * format, MR_ERR_LIMIT above a limit (above). name is for the message. */
mr_status mr_image_info(const unsigned char *bytes, size_t len, const char *name, int *w, int *h, int *comp,
                        mr_error *err);

/* mr_image_info without the PNG's inflation: the header's format, size
 * and limits (and a JPEG's tables and scans), all that mr_image_decode
 * checks before it decodes. For a caller that needs the size before it
 * decodes (mr_image_decode bounds a PNG's inflation itself); a PNG whose
 * data is a bomb passes here and is refused by mr_image_decode. */
mr_status mr_image_header(const unsigned char *bytes, size_t len, const char *name, int *w, int *h, int *comp,
                          mr_error *err);

/* Decodes bytes to RGBA8 (rows top first) after mr_image_info's checks:
 * *out (free with mr_image_free) holds w * h * 4 bytes; *comp gets the
 * file's channel count. On failure *out is NULL and err says why. */
mr_status mr_image_decode(const unsigned char *bytes, size_t len, const char *name, unsigned char **out, int *w,
                          int *h, int *comp, mr_error *err);

/* The JPEG's scan count (SOS markers, walking the marker segments and the
 * entropy-coded data between them), or -1 when bytes is no JPEG. */
int mr_image_jpeg_scans(const unsigned char *bytes, size_t len);

void mr_image_free(unsigned char *pixels);

#endif
