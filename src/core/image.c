/* image.c — bounded image decoding through stb_image (see image.h). */
#include "core/image.h"

#include <limits.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

/* stb_image is compiled here from Debian's header (libstb-dev: the code
 * libstb is built from, 2.27), its functions static to this file, with its
 * assertions and allocations routed through it: stb_image ends the process
 * with an assertion on some corrupt files (a JPEG whose decoding reads
 * state an earlier decode left: fuzz_image found one). Here a failed
 * assertion ends the decode instead, the file is refused, and everything
 * stb had allocated for it is freed (each block is on a list while its
 * decode runs). */
static void stb_failed(void);
static void *stb_malloc(size_t n);
static void *stb_realloc(void *p, size_t n);
static void stb_free(void *p);
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#define STBI_NO_STDIO
#define STBI_ASSERT(x) ((x) ? (void)0 : stb_failed())
#define STBI_MALLOC(n) stb_malloc(n)
#define STBI_REALLOC(p, n) stb_realloc(p, n)
#define STBI_FREE(p) stb_free(p)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#pragma GCC diagnostic ignored "-Wtype-limits"
#include <stb_image.h>
#pragma GCC diagnostic pop
/* stb_image 2.27 declares this one and defines it as stbi__unpremultiply_on_load_thread:
 * a body for the static declaration. */
__attribute__((unused)) static void stbi_set_unpremultiply_on_load_thread(int flag)
{
    stbi__unpremultiply_on_load_thread(flag);
}

/* A block stb allocated: while a decode runs on this thread, on its list. */
typedef union stb_block {
    struct {
        union stb_block *prev, *next;
    } link;
    max_align_t align;   /* what follows is aligned as malloc's */
} stb_block;

static _Thread_local stb_block *stb_live;     /* the running decode's blocks */
static _Thread_local jmp_buf *stb_decoding;   /* where a failed assertion goes */

static void stb_link(stb_block *b)
{
    b->link.prev = NULL;
    b->link.next = stb_decoding ? stb_live : NULL;
    if (!stb_decoding) return;
    if (stb_live) stb_live->link.prev = b;
    stb_live = b;
}

static void stb_unlink(stb_block *b)
{
    if (b->link.prev) b->link.prev->link.next = b->link.next;
    else if (stb_live == b) stb_live = b->link.next;
    if (b->link.next) b->link.next->link.prev = b->link.prev;
    b->link.prev = b->link.next = NULL;
}

static void *stb_malloc(size_t n)
{
    stb_block *b = n <= SIZE_MAX - sizeof *b ? malloc(sizeof *b + n) : NULL;
    if (!b) return NULL;
    stb_link(b);
    return b + 1;
}

static void stb_free(void *p)
{
    if (!p) return;
    stb_block *b = (stb_block *)p - 1;
    stb_unlink(b);
    free(b);
}

static void *stb_realloc(void *p, size_t n)
{
    if (!p) return stb_malloc(n);
    stb_block *b = (stb_block *)p - 1;
    stb_unlink(b);
    stb_block *grown = n <= SIZE_MAX - sizeof *b ? realloc(b, sizeof *b + n) : NULL;
    if (!grown) {   /* the old block stays stb's */
        stb_link(b);
        return NULL;
    }
    stb_link(grown);
    return grown + 1;
}

/* A failed assertion outside a guarded call is a bug of this file: abort. */
static void stb_failed(void)
{
    if (!stb_decoding) abort();
    longjmp(*stb_decoding, 1);
}

/* Ends a guarded call: what stb still holds leaves the list (the pixels it
 * returns), or, after a failed assertion, is freed. */
static void stb_end(int failed)
{
    while (stb_live) {
        stb_block *b = stb_live;
        stb_unlink(b);
        if (failed) free(b);
    }
    stb_decoding = NULL;
}

/* A DHT segment's tables (payload p, n bytes) as stb_image 2.27 needs them
 * to stay in bounds: at most 256 codes a table (it overruns its arrays
 * past that), code lengths that a canonical Huffman code can have, and DC
 * categories of at most 15 (a larger one trips its assertions). 0 when a
 * table breaks one of these. */
static int dht_valid(const unsigned char *p, size_t n, unsigned char defined[2][4])
{
    size_t i = 0;
    while (i < n) {
        if (i + 17 > n || (p[i] >> 4) > 1 || (p[i] & 15) > 3) return 0;
        int dc = (p[i] >> 4) == 0;
        defined[!dc][p[i] & 3] = 1;
        unsigned count = 0, code = 0;
        for (int j = 0; j < 16; j++) {
            count += p[i + 1 + j];
            code = (code + p[i + 1 + j]);
            if (code > (1u << (j + 1))) return 0;   /* more codes of this length than there are */
            code <<= 1;
        }
        if (count > 256 || i + 17 + count > n) return 0;
        for (unsigned k = 0; dc && k < count; k++)
            if (p[i + 17 + k] > 15) return 0;
        i += 17 + count;
    }
    return 1;
}

/* A PNG's image data inflated by zlib without keeping it, counting its
 * bytes: 1 when it inflates to more than `most` (a compression bomb:
 * stb_image 2.27 grows its buffer for all of it, 1 KB of file took
 * 256 MiB), 2 when zlib finds it no valid stream (stb's own inflater takes
 * some of those, bombs included) or a chunk claims more bytes than the file
 * has left (stb allocates what an IDAT claims first: 1 KB asked for 1.9 GB),
 * else 0. */
static int png_inflates_past(const unsigned char *b, size_t len, size_t most)
{
    if (len < 8 || memcmp(b, "\x89PNG\r\n\x1a\n", 8) != 0) return 0;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK) return 0;
    unsigned char scratch[65536];
    int past = 0, done = 0;
    for (size_t i = 8; !past && !done && i + 12 <= len;) {
        size_t n = (size_t)b[i] << 24 | (size_t)b[i + 1] << 16 | (size_t)b[i + 2] << 8 | b[i + 3];
        if (n > len - i - 12) {                    /* a chunk longer than the file: stb would */
            past = 2;                              /* allocate all it claims before it looks */
            break;
        }
        if (!memcmp(b + i + 4, "IDAT", 4)) {
            z.next_in = (unsigned char *)(b + i + 8);
            z.avail_in = (uInt)n;
            while (z.avail_in && !past && !done) {
                z.next_out = scratch;
                z.avail_out = sizeof scratch;
                int st = inflate(&z, Z_NO_FLUSH);
                if (z.total_out > most) past = 1;
                if (st == Z_STREAM_END) done = 1;
                else if (st != Z_OK && st != Z_BUF_ERROR) past = 2;
                if (st == Z_BUF_ERROR && z.avail_out) break;
            }
        } else if (!memcmp(b + i + 4, "IEND", 4)) {
            break;
        }
        i += 12 + n;
    }
    inflateEnd(&z);
    return past;
}

/* Whether an SOS segment (payload p, n bytes) uses only Huffman tables a DHT
 * defined before it: stb_image 2.27 reads an undefined table from memory
 * it never set (whatever an earlier decode left there). A progressive DC
 * scan uses DC tables only (none when it refines), an AC scan AC tables
 * only; a baseline scan both. */
static int sos_tables_defined(const unsigned char *p, size_t n, int progressive, unsigned char defined[2][4])
{
    if (n < 1) return 0;
    size_t ns = p[0];
    if (n < 1 + 2 * ns + 3) return 0;
    int ss = p[1 + 2 * ns], ah = p[3 + 2 * ns] >> 4;
    int need_dc = !progressive || (ss == 0 && ah == 0), need_ac = !progressive || ss > 0;
    for (size_t c = 0; c < ns; c++) {
        int td = p[2 + 2 * c] >> 4, ta = p[2 + 2 * c] & 15;
        if (need_dc && (td > 3 || !defined[0][td])) return 0;
        if (need_ac && (ta > 3 || !defined[1][ta])) return 0;
    }
    return 1;
}

/* Walks a JPEG's marker segments: the scan count, and in *bad_tables
 * whether its Huffman tables are ones stb_image cannot decode safely. */
static int jpeg_walk(const unsigned char *b, size_t len, int *bad_tables)
{
    *bad_tables = 0;
    unsigned char defined[2][4] = {{0}};
    int progressive = 0;
    /* SOI, after as many fill bytes as stb_image skips */
    size_t i = 1;
    while (i < len && b[i] == 0xFF) i++;
    if (len < 4 || b[0] != 0xFF || i >= len || b[i] != 0xD8) return -1;
    int scans = 0;
    i++;
    while (i + 1 < len) {
        if (b[i] != 0xFF) {   /* not a marker: stb_image skips it as padding, looking for the next */
            while (i < len && b[i] != 0xFF) i++;
            continue;
        }
        while (i + 1 < len && b[i + 1] == 0xFF) i++;  /* fill bytes */
        if (i + 1 >= len) break;
        unsigned m = b[i + 1];
        i += 2;
        if (m == 0xD9) break;                     /* EOI */
        if (m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7)) continue;  /* no length */
        if (i + 2 > len) break;
        size_t seg = (size_t)b[i] << 8 | b[i + 1];
        if (seg < 2) return scans;
        size_t have = (i + seg <= len ? seg : len - i) - 2;   /* the payload present */
        if (m == 0xC2 || m == 0xC6 || m == 0xCA || m == 0xCE) progressive = 1;
        if (m == 0xC4 && !dht_valid(b + i + 2, have, defined)) *bad_tables = 1;
        if (m == 0xDA && !sos_tables_defined(b + i + 2, have, progressive, defined)) *bad_tables = 1;
        i += seg;
        if (m != 0xDA) continue;
        /* SOS: the entropy-coded data runs to the next marker that is
         * neither a stuffed FF00 nor a restart marker RSTn. */
        scans++;
        while (i + 1 < len) {
            if (b[i] == 0xFF && b[i + 1] != 0x00 && !(b[i + 1] >= 0xD0 && b[i + 1] <= 0xD7) && b[i + 1] != 0xFF)
                break;
            i++;
        }
    }
    return scans;
}

int mr_image_jpeg_scans(const unsigned char *b, size_t len)
{
    int bad;
    return jpeg_walk(b, len, &bad);
}

/* stbi_load_from_memory with its assertions guarded (stb_failed): a
 * failed one gives ASSERTED, and stb_end has freed what stb held. */
static unsigned char asserted;
#define ASSERTED (&asserted)

static unsigned char *guarded_load(const unsigned char *bytes, int len, int *w, int *h, int *comp)
{
    jmp_buf here;
    unsigned char *volatile px = NULL;
    if (setjmp(here) == 0) {
        stb_decoding = &here;
        px = stbi_load_from_memory(bytes, len, w, h, comp, 4);
        stb_end(0);
    } else {
        stb_end(1);
        px = ASSERTED;
    }
    return px;
}

/* stbi_info_from_memory, guarded alike: -1 when an assertion failed. */
static int guarded_info(const unsigned char *bytes, int len, int *w, int *h, int *comp)
{
    jmp_buf here;
    volatile int ok = -1;
    if (setjmp(here) == 0) {
        stb_decoding = &here;
        ok = stbi_info_from_memory(bytes, len, w, h, comp);
        stb_end(0);
    } else {
        stb_end(1);
    }
    return ok;
}

/* ---- plain PNGs by zlib ------------------------------------------------------ */

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static unsigned char paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return (unsigned char)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

/* Undoes the PNG row filters of raw (h rows of 1 filter byte + stride
 * bytes, bpp bytes a pixel) in place; 0 on a filter type above 4. */
static int unfilter(unsigned char *raw, int h, size_t stride, int bpp)
{
    const unsigned char *prior = NULL;
    for (int y = 0; y < h; y++) {
        unsigned char *row = raw + (size_t)y * (stride + 1);
        int f = row[0];
        unsigned char *x = row + 1;
        switch (f) {
        case 0: break;
        case 1: for (size_t i = (size_t)bpp; i < stride; i++) x[i] = (unsigned char)(x[i] + x[i - (size_t)bpp]); break;
        case 2:
            if (prior) for (size_t i = 0; i < stride; i++) x[i] = (unsigned char)(x[i] + prior[i]);
            break;
        case 3:
            for (size_t i = 0; i < stride; i++) {
                int a = i >= (size_t)bpp ? x[i - (size_t)bpp] : 0, b = prior ? prior[i] : 0;
                x[i] = (unsigned char)(x[i] + ((a + b) >> 1));
            }
            break;
        case 4:
            for (size_t i = 0; i < stride; i++) {
                int a = i >= (size_t)bpp ? x[i - (size_t)bpp] : 0, b = prior ? prior[i] : 0;
                int c = prior && i >= (size_t)bpp ? prior[i - (size_t)bpp] : 0;
                x[i] = (unsigned char)(x[i] + paeth(a, b, c));
            }
            break;
        default: return 0;
        }
        prior = x;
    }
    return 1;
}

/* The pixels (RGBA8, freed by mr_image_free) of a plain PNG: 8-bit RGB or
 * RGBA, not interlaced, no chunk stb_image would read beyond IHDR, IDAT and
 * IEND (no tRNS, no unknown critical chunk), with a w x h header (checked
 * by check_header); zlib inflates its data straight into the rows, never
 * past their size, and the filters are undone in place (PNG spec, 9). This
 * is every PNG marrow writes (goldens, screenshots) and most textures, in
 * one inflation where the bomb check and stb_image took two. NULL for any
 * other file or any fault: the caller then takes the general path, whose
 * checks and messages stay the only ones. *comp: 3 or 4. */
static unsigned char *png_plain(const unsigned char *b, size_t len, int w, int h, int *comp)
{
    if (len < 33 + 12 || memcmp(b, "\x89PNG\r\n\x1a\n", 8) || be32(b + 8) != 13 || memcmp(b + 12, "IHDR", 4))
        return NULL;
    const unsigned char *ihdr = b + 16;
    if (be32(ihdr) != (uint32_t)w || be32(ihdr + 4) != (uint32_t)h || ihdr[8] != 8 ||
        (ihdr[9] != 2 && ihdr[9] != 6) || ihdr[10] || ihdr[11] || ihdr[12])
        return NULL;
    int c = ihdr[9] == 6 ? 4 : 3;
    size_t stride = (size_t)w * (size_t)c, size = (size_t)h * (stride + 1);   /* w, h within the limits */
    unsigned char *raw = malloc(size);
    if (!raw) return NULL;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK) {
        free(raw);
        return NULL;
    }
    z.next_out = raw;
    z.avail_out = (uInt)size;
    int ok = 1, end = 0;
    for (size_t i = 33; ok && !end;) {
        if (i + 12 > len) {
            ok = 0;
            break;
        }
        size_t n = be32(b + i);
        const unsigned char *type = b + i + 4;
        if (n > len - i - 12) {
            ok = 0;
        } else if (!memcmp(type, "IDAT", 4)) {
            if (z.total_out == size && z.avail_in == 0 && n) ok = 0;   /* data after the last row */
            z.next_in = (unsigned char *)(b + i + 8);
            z.avail_in = (uInt)n;
            while (ok && z.avail_in) {
                int st = inflate(&z, Z_NO_FLUSH);
                if (st == Z_STREAM_END) break;
                /* corrupt, or more than the rows (a trailer in the next IDAT leaves avail_in 0) */
                if (st != Z_OK || (z.avail_out == 0 && z.avail_in)) ok = 0;
            }
        } else if (!memcmp(type, "IEND", 4)) {
            end = 1;
        } else if (!(type[0] & 0x20) || !memcmp(type, "tRNS", 4)) {
            ok = 0;                                                   /* PLTE, an unknown critical chunk, tRNS */
        }
        i += 12 + n;
    }
    ok = ok && end && z.total_out == size && inflate(&z, Z_FINISH) == Z_STREAM_END;
    inflateEnd(&z);
    unsigned char *px = ok && unfilter(raw, h, stride, c) ? stb_malloc((size_t)w * (size_t)h * 4) : NULL;
    if (px) {
        for (int y = 0; y < h; y++) {
            const unsigned char *src = raw + (size_t)y * (stride + 1) + 1;
            unsigned char *dst = px + (size_t)y * (size_t)w * 4;
            if (c == 4) {
                memcpy(dst, src, stride);
            } else {
                for (int x = 0; x < w; x++, src += 3, dst += 4) {
                    dst[0] = src[0];
                    dst[1] = src[1];
                    dst[2] = src[2];
                    dst[3] = 255;
                }
            }
        }
        *comp = c;
    }
    free(raw);
    return px;
}

/* mr_image_info's checks but the PNG inflation. */
static mr_status check_header(const unsigned char *bytes, size_t len, const char *name, int *w, int *h, int *comp,
                              mr_error *err)
{
    int iw = 0, ih = 0, ic = 0;
    if (!bytes || len > (size_t)INT_MAX)
        return mr_error_set(err, MR_ERR_LIMIT, "%s: %zu bytes, more than an image file may hold (%d)", name, len,
                            INT_MAX);
    /* A JPEG's tables are checked before stb_image reads the file: reading
     * only its header, stb builds them already. */
    int bad_tables = 0, scans = jpeg_walk(bytes, len, &bad_tables);
    if (scans > MR_IMAGE_MAX_JPEG_SCANS)
        return mr_error_set(err, MR_ERR_LIMIT, "%s: a JPEG of %d scans, more than %d (MR_IMAGE_MAX_JPEG_SCANS)",
                            name, scans, MR_IMAGE_MAX_JPEG_SCANS);
    if (bad_tables)
        return mr_error_set(err, MR_ERR_BAD_FILE, "%s: a JPEG Huffman table (DHT) that is not a valid code (more "
                            "than 256 codes, lengths no code can have, a DC category above 15) or a scan that "
                            "uses a table no DHT defined", name);
    int known = guarded_info(bytes, (int)len, &iw, &ih, &ic);
    if (known < 0)
        return mr_error_set(err, MR_ERR_BAD_FILE, "%s: not an image marrow reads (stb_image stopped on a failed "
                            "internal check: a corrupt file)", name);
    if (!known) {
        const char *why = stbi_failure_reason();
        return mr_error_set(err, MR_ERR_BAD_FILE, "%s: not an image marrow reads (%s; expected PNG, JPEG, TGA, "
                            "BMP, GIF, PSD, HDR, PIC or PNM)", name, why ? why : "unknown format");
    }
    if (w) *w = iw;
    if (h) *h = ih;
    if (comp) *comp = ic;
    if (iw <= 0 || ih <= 0 || iw > MR_IMAGE_MAX_SIDE || ih > MR_IMAGE_MAX_SIDE)
        return mr_error_set(err, MR_ERR_LIMIT, "%s: %dx%d pixels (expected 1 to %d per side, MR_IMAGE_MAX_SIDE)",
                            name, iw, ih, MR_IMAGE_MAX_SIDE);
    if ((int64_t)iw * ih > MR_IMAGE_MAX_PIXELS)
        return mr_error_set(err, MR_ERR_LIMIT, "%s: %dx%d pixels, more than %d Mpixel (MR_IMAGE_MAX_PIXELS)", name,
                            iw, ih, MR_IMAGE_MAX_PIXELS >> 20);
    return MR_OK;
}

/* The PNG bomb check: what the image data inflates to, bounded. */
static mr_status check_inflation(const unsigned char *bytes, size_t len, const char *name, int iw, int ih,
                                 mr_error *err)
{
    /* What a PNG's data may inflate to: every row with its filter byte at 16
     * bits a channel and 4 channels, twice over (interlacing), plus 1 MiB. */
    size_t most = 2 * (size_t)ih * (1 + (size_t)iw * 8) + ((size_t)1 << 20);
    int png = png_inflates_past(bytes, len, most);
    if (png == 1)
        return mr_error_set(err, MR_ERR_LIMIT, "%s: its PNG data inflates to more than %zu bytes, more than a "
                            "%dx%d image holds (a compression bomb)", name, most, iw, ih);
    if (png == 2)
        return mr_error_set(err, MR_ERR_BAD_FILE, "%s: its PNG data is no valid zlib stream, or a chunk is "
                            "longer than the file", name);
    return MR_OK;
}

mr_status mr_image_info(const unsigned char *bytes, size_t len, const char *name, int *w, int *h, int *comp,
                        mr_error *err)
{
    int iw = 0, ih = 0, ic = 0;
    mr_status st = check_header(bytes, len, name, &iw, &ih, &ic, err);
    if (st == MR_OK) st = check_inflation(bytes, len, name, iw, ih, err);
    if (st != MR_OK) return st;
    if (w) *w = iw;
    if (h) *h = ih;
    if (comp) *comp = ic;
    return MR_OK;
}

mr_status mr_image_header(const unsigned char *bytes, size_t len, const char *name, int *w, int *h, int *comp,
                          mr_error *err)
{
    return check_header(bytes, len, name, w, h, comp, err);
}

mr_status mr_image_decode(const unsigned char *bytes, size_t len, const char *name, unsigned char **out, int *w,
                          int *h, int *comp, mr_error *err)
{
    *out = NULL;
    int iw, ih, ic;
    mr_status st = check_header(bytes, len, name, &iw, &ih, &ic, err);
    if (st != MR_OK) return st;
    unsigned char *px = png_plain(bytes, len, iw, ih, &ic);
    if (px) {
        *out = px;
        if (w) *w = iw;
        if (h) *h = ih;
        if (comp) *comp = ic;
        return MR_OK;
    }
    if ((st = check_inflation(bytes, len, name, iw, ih, err)) != MR_OK) return st;
    px = guarded_load(bytes, (int)len, &iw, &ih, &ic);
    if (px == ASSERTED)
        return mr_error_set(err, MR_ERR_BAD_FILE, "%s: cannot be decoded (stb_image stopped on a failed internal "
                            "check: a corrupt file)", name);
    if (!px) {
        const char *why = stbi_failure_reason();
        return mr_error_set(err, MR_ERR_BAD_FILE, "%s: cannot be decoded (%s)", name, why ? why : "unknown reason");
    }
    *out = px;
    if (w) *w = iw;
    if (h) *h = ih;
    if (comp) *comp = ic;
    return MR_OK;
}

void mr_image_free(unsigned char *pixels)
{
    stbi_image_free(pixels);
}
