/* image.c — bounded image decoding through stb_image (see image.h). */
#include "core/image.h"

#include <setjmp.h>
#include <signal.h>
#include <string.h>

#include <zlib.h>

#include <limits.h>
#include <stdint.h>

#include <stb_image.h>

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
    if (len < 4 || b[0] != 0xFF || b[1] != 0xD8) return -1;
    int scans = 0;
    size_t i = 2;
    while (i + 1 < len) {
        if (b[i] != 0xFF) return scans;           /* not a marker: the decoder stops here too */
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

mr_status mr_image_info(const unsigned char *bytes, size_t len, const char *name, int *w, int *h, int *comp,
                        mr_error *err)
{
    int iw = 0, ih = 0, ic = 0;
    if (!bytes || len > (size_t)INT_MAX)
        return mr_error_set(err, MR_ERR_LIMIT, "%s: %zu bytes, more than an image file may hold (%d)", name, len,
                            INT_MAX);
    if (!stbi_info_from_memory(bytes, (int)len, &iw, &ih, &ic)) {
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
    int bad_tables = 0, scans = jpeg_walk(bytes, len, &bad_tables);
    if (scans > MR_IMAGE_MAX_JPEG_SCANS)
        return mr_error_set(err, MR_ERR_LIMIT, "%s: a JPEG of %d scans, more than %d (MR_IMAGE_MAX_JPEG_SCANS)",
                            name, scans, MR_IMAGE_MAX_JPEG_SCANS);
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
    if (bad_tables)
        return mr_error_set(err, MR_ERR_BAD_FILE, "%s: a JPEG Huffman table (DHT) that is not a valid code (more "
                            "than 256 codes, lengths no code can have, a DC category above 15) or a scan that "
                            "uses a table no DHT defined", name);
    return MR_OK;
}

/* stb_image 2.27 ends the process with an assertion on some corrupt files
 * (a JPEG whose decoding reads state an earlier decode left: fuzz_image
 * found one). A failed assertion calls abort(); while this thread decodes,
 * SIGABRT jumps back here instead and the file is refused. What stb had
 * allocated for that file is lost (a leak per such file, not a crash). */
static unsigned char asserted;
#define ASSERTED (&asserted)
static _Thread_local sigjmp_buf *decoding;

static void on_abort(int sig)
{
    if (decoding) siglongjmp(*decoding, 1);
    signal(sig, SIG_DFL);              /* not ours: abort as asked */
    raise(sig);
}

static unsigned char *guarded_load(const unsigned char *bytes, int len, int *w, int *h, int *comp)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_abort;
    sigemptyset(&sa.sa_mask);
    sigjmp_buf here;
    sigaction(SIGABRT, &sa, &old);
    unsigned char *volatile px = NULL;
    if (sigsetjmp(here, 1) == 0) {
        decoding = &here;
        px = stbi_load_from_memory(bytes, len, w, h, comp, 4);
    } else {
        px = ASSERTED;
    }
    decoding = NULL;
    sigaction(SIGABRT, &old, NULL);
    return px;
}

mr_status mr_image_decode(const unsigned char *bytes, size_t len, const char *name, unsigned char **out, int *w,
                          int *h, int *comp, mr_error *err)
{
    *out = NULL;
    int iw, ih, ic;
    mr_status st = mr_image_info(bytes, len, name, &iw, &ih, &ic, err);
    if (st != MR_OK) return st;
    unsigned char *px = guarded_load(bytes, (int)len, &iw, &ih, &ic);
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
