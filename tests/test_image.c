/* test_image.c — core/image: the limits checked before any image is
 * decoded (dimensions, JPEG scans), and core/file's reads of what a model
 * names (regular files only, real paths inside the model's folder). */
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb_image_write.h>

#include "core/file.h"
#include "core/image.h"
#include "core/path.h"
#include "test.h"

#include <zlib.h>

static size_t put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24); p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8); p[3] = (unsigned char)v;
    return 4;
}

typedef struct buf { unsigned char *p; size_t n; } buf;
static void append(void *ctx, void *data, int size)
{
    buf *b = ctx;
    unsigned char *np = realloc(b->p, b->n + (size_t)size);
    if (!np) return;
    memcpy(np + b->n, data, (size_t)size);
    b->p = np;
    b->n += (size_t)size;
}

/* A PNG of w x h RGB pixels, all black (stb_image_write's encoder). */
static unsigned char *png_of(int w, int h, size_t *len)
{
    unsigned char *px = calloc((size_t)w * (size_t)h, 3);
    buf b = {0};
    if (px) stbi_write_png_to_func(append, &b, w, h, 3, px, w * 3);
    free(px);
    *len = b.n;
    return b.p;
}

/* A progressive 8x8 grey JPEG header, one DC Huffman table (one code), then
 * `scans` DC scans. */
static unsigned char *jpeg_of(int scans, size_t *len)
{
    static const unsigned char sof[] = {0xFF, 0xC2, 0, 11, 8, 0, 8, 0, 8, 1, 1, 0x11, 0,
                                        0xFF, 0xC4, 0, 20, 0x00, 1, 0, 0, 0, 0, 0, 0, 0,
                                        0, 0, 0, 0, 0, 0, 0, 0, 0};
    static const unsigned char sos[] = {0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 0x3F, 0,
                                        0x12, 0xFF, 0x00, 0x34, 0xFF, 0xD0, 0x56};  /* FF00 and RST0 inside */
    unsigned char *p = malloc(4 + sizeof sof + (size_t)scans * sizeof sos);
    size_t o = 0;
    p[o++] = 0xFF; p[o++] = 0xD8;
    memcpy(p + o, sof, sizeof sof); o += sizeof sof;
    for (int i = 0; i < scans; i++) { memcpy(p + o, sos, sizeof sos); o += sizeof sos; }
    p[o++] = 0xFF; p[o++] = 0xD9;
    *len = o;
    return p;
}

/* A 4x4 RGB PNG whose one IDAT inflates to `raw` bytes of zeros (a valid
 * stream: a compression bomb when raw is far more than 4 rows of 13). The
 * CRCs are not checked by the readers, so they are left 0. */
static unsigned char *png_bomb(size_t raw, size_t *len)
{
    unsigned char *zeros = calloc(raw, 1);
    uLongf zlen = compressBound(raw);
    unsigned char *z = malloc(zlen);
    compress2(z, &zlen, zeros, raw, 9);
    free(zeros);
    static const unsigned char head[] = {0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0, 0, 0, 13, 'I', 'H', 'D', 'R',
                                         0, 0, 0, 4, 0, 0, 0, 4, 8, 2, 0, 0, 0, 0, 0, 0, 0};
    unsigned char *p = malloc(sizeof head + 12 + zlen + 12);
    size_t o = 0;
    memcpy(p, head, sizeof head);
    o = sizeof head;
    p[o++] = (unsigned char)(zlen >> 24); p[o++] = (unsigned char)(zlen >> 16);
    p[o++] = (unsigned char)(zlen >> 8); p[o++] = (unsigned char)zlen;
    memcpy(p + o, "IDAT", 4); o += 4;
    memcpy(p + o, z, zlen); o += zlen;
    memset(p + o, 0, 4); o += 4;
    static const unsigned char iend[] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
    memcpy(p + o, iend, sizeof iend); o += sizeof iend;
    free(z);
    *len = o;
    return p;
}

TEST(png_that_inflates_past_its_image_is_refused)
{
    size_t len;
    unsigned char *ok = png_bomb(4 * 13, &len);          /* exactly its rows */
    mr_error err = {0};
    CHECK_MSG(mr_image_info(ok, len, "ok.png", NULL, NULL, NULL, &err) == MR_OK, "%s", err.msg);
    free(ok);
    unsigned char *bomb = png_bomb((size_t)64 << 20, &len);   /* 64 MiB of zeros in ~64 KB */
    CHECK(mr_image_info(bomb, len, "bomb.png", NULL, NULL, NULL, &err) == MR_ERR_LIMIT);
    CHECK_STR_CONTAINS(err.msg, "bomb.png: its PNG data inflates to more than");
    CHECK(len < ((size_t)1 << 20));
    /* The renderer reads only the header before it decodes (one inflation,
     * not two): the bomb passes there and the decoder refuses it. */
    int w = 0, h = 0;
    err = (mr_error){0};
    CHECK(mr_image_header(bomb, len, "bomb.png", &w, &h, NULL, &err) == MR_OK && w == 4 && h == 4);
    unsigned char *px = (unsigned char *)&w;
    CHECK(mr_image_decode(bomb, len, "bomb.png", &px, &w, &h, NULL, &err) == MR_ERR_LIMIT && px == NULL);
    CHECK_STR_CONTAINS(err.msg, "bomb.png: its PNG data inflates to more than");
    free(bomb);
}

/* stb_image 2.27 overruns its arrays on a table of more than 256 codes and
 * reads a table no DHT defined from memory it never set (an assertion, or
 * whatever an earlier decode left): both are refused before it runs. */
TEST(jpeg_huffman_tables_stb_cannot_take_are_refused)
{
    size_t len;
    unsigned char *ok = jpeg_of(1, &len);
    mr_error err = {0};
    CHECK(mr_image_info(ok, len, "ok.jpg", NULL, NULL, NULL, &err) == MR_OK);
    unsigned char *undefined = malloc(len);
    memcpy(undefined, ok, len);
    undefined[2 + 13 + 4] = 0x01;          /* the table defines DC 1; the scan uses DC 0 */
    CHECK(mr_image_info(undefined, len, "undef.jpg", NULL, NULL, NULL, &err) == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(err.msg, "undef.jpg: a JPEG Huffman table");
    unsigned char *overfull = malloc(len);
    memcpy(overfull, ok, len);
    overfull[2 + 13 + 5] = 3;               /* three codes of length 1 */
    CHECK(mr_image_info(overfull, len, "over.jpg", NULL, NULL, NULL, &err) == MR_ERR_BAD_FILE);
    unsigned char *category = malloc(len);
    memcpy(category, ok, len);
    category[2 + 13 + 21] = 200;            /* a DC category of 200 */
    CHECK(mr_image_info(category, len, "cat.jpg", NULL, NULL, NULL, &err) == MR_ERR_BAD_FILE);
    free(ok);
    free(undefined);
    free(overfull);
    free(category);
}

/* stb_image finds a JPEG's SOI after any number of fill bytes, and skips
 * padding after a segment to the next marker: tables there are checked
 * too (fuzz_image found both, overrunning stb's arrays once stb_image was
 * built with the sanitizers). */
TEST(jpeg_tables_after_fill_bytes_and_padding_are_checked_too)
{
    size_t len;
    unsigned char *ok = jpeg_of(1, &len);
    ok[2 + 13 + 5] = 3;                      /* three codes of length 1: overfull */
    static const unsigned char com[] = {0xFF, 0xFE, 0, 4, 'h', 'i', ' ', ' ', ' ', ' ', ' '};
    unsigned char *filled = malloc(len + 8), *padded = malloc(len + sizeof com);
    memset(filled, 0xFF, 8);
    memcpy(filled + 8, ok, len);
    memcpy(padded, ok, 2);                   /* SOI, a comment and five bytes of padding, the rest */
    memcpy(padded + 2, com, sizeof com);
    memcpy(padded + 2 + sizeof com, ok + 2, len - 2);
    mr_error err = {0};
    unsigned char *px = NULL;
    int w, h, c;
    CHECK(mr_image_decode(filled, len + 8, "filled.jpg", &px, &w, &h, &c, &err) == MR_ERR_BAD_FILE && !px);
    CHECK_STR_CONTAINS(err.msg, "filled.jpg: a JPEG Huffman table");
    CHECK(mr_image_decode(padded, len + sizeof com, "padded.jpg", &px, &w, &h, &c, &err) == MR_ERR_BAD_FILE && !px);
    CHECK_STR_CONTAINS(err.msg, "padded.jpg: a JPEG Huffman table");
    ok[2 + 13 + 5] = 1;                      /* a valid table: the same layouts are read */
    memcpy(filled + 8, ok, len);
    memcpy(padded + 2 + sizeof com, ok + 2, len - 2);
    CHECK_MSG(mr_image_info(filled, len + 8, "filled.jpg", &w, &h, &c, &err) == MR_OK, "%s", err.msg);
    CHECK_MSG(mr_image_info(padded, len + sizeof com, "padded.jpg", &w, &h, &c, &err) == MR_OK, "%s", err.msg);
    CHECK(mr_image_jpeg_scans(filled, len + 8) == 1 && mr_image_jpeg_scans(padded, len + sizeof com) == 1);
    free(ok);
    free(filled);
    free(padded);
}

TEST(image_decode_reads_a_small_png)
{
    size_t len;
    unsigned char *png = png_of(3, 2, &len);
    unsigned char *px = NULL;
    int w, h, c;
    mr_error err = {0};
    CHECK_MSG(mr_image_decode(png, len, "small.png", &px, &w, &h, &c, &err) == MR_OK, "%s", err.msg);
    CHECK(px && w == 3 && h == 2 && c == 3);
    if (px) CHECK(px[3] == 255 && px[0] == 0);
    mr_image_free(px);
    free(png);
}

/* Plain PNGs (8-bit RGB or RGBA, not interlaced: what marrow writes) are
 * inflated by zlib straight into their rows; every row filter (forced one
 * at a time in stb_image_write's encoder, which chooses per row otherwise)
 * gives back the pixels written, alpha 255 for RGB. */
TEST(image_decode_undoes_every_png_row_filter)
{
    const int w = 37, h = 23;
    unsigned char *src = malloc((size_t)w * h * 4);
    unsigned seed = 12345u;
    for (int i = 0; i < w * h * 4; i++) {
        seed = seed * 1103515245u + 12345u;
        /* smooth ramps with noise, so that each filter has work to do */
        src[i] = (unsigned char)((i % (w * 4)) * 3 + (i / (w * 4)) * 5 + (int)((seed >> 16) % 9));
    }
    for (int comp = 3; comp <= 4; comp++)
        for (int filter = -1; filter <= 4; filter++) {
            unsigned char *in = malloc((size_t)w * h * (size_t)comp);
            for (int p = 0; p < w * h; p++) memcpy(in + (size_t)p * comp, src + (size_t)p * 4, (size_t)comp);
            stbi_write_force_png_filter = filter;
            buf b = {0};
            stbi_write_png_to_func(append, &b, w, h, comp, in, w * comp);
            stbi_write_force_png_filter = -1;
            unsigned char *px = NULL;
            int gw = 0, gh = 0, gc = 0;
            mr_error err = {0};
            CHECK_MSG(mr_image_decode(b.p, b.n, "f.png", &px, &gw, &gh, &gc, &err) == MR_OK, "%s", err.msg);
            int same = px && gw == w && gh == h && gc == comp;
            for (int p = 0; same && p < w * h; p++)
                same = !memcmp(px + (size_t)p * 4, in + (size_t)p * comp, (size_t)comp) &&
                       (comp == 4 || px[(size_t)p * 4 + 3] == 255);
            CHECK_MSG(same, "comp %d, filter %d: pixels differ from those written", comp, filter);
            mr_image_free(px);
            free(b.p);
            free(in);
        }
    free(src);
}

/* A plain PNG's faults end in the general path's refusals: more data than
 * its rows (a bomb), a row filter type above 4, data cut short. */
TEST(image_decode_refuses_plain_pngs_with_faulty_data)
{
    size_t len;
    mr_error err = {0};
    unsigned char *px = NULL;
    int w, h, c;
    unsigned char *bomb = png_bomb((size_t)64 << 20, &len);
    CHECK(mr_image_decode(bomb, len, "bomb.png", &px, &w, &h, &c, &err) == MR_ERR_LIMIT && !px);
    CHECK_STR_CONTAINS(err.msg, "bomb.png: its PNG data inflates to more than");
    free(bomb);
    unsigned char *extra = png_bomb(4 * 13 + 1, &len);      /* one byte past its 4 rows */
    CHECK(mr_image_decode(extra, len, "extra.png", &px, &w, &h, &c, &err) != MR_OK || (px && w == 4));
    mr_image_free(px);
    px = NULL;
    free(extra);
    unsigned char *ok = png_bomb(4 * 13, &len);              /* 4 rows of zeros: filter 0, black */
    CHECK_MSG(mr_image_decode(ok, len, "ok.png", &px, &w, &h, &c, &err) == MR_OK, "%s", err.msg);
    CHECK(px && w == 4 && h == 4 && c == 3 && px[0] == 0 && px[3] == 255);
    mr_image_free(px);
    px = NULL;
    free(ok);
    /* filter type 7 in the first row: the same stream with one byte changed */
    unsigned char rows[4 * 13] = {7};
    uLongf zlen = compressBound(sizeof rows);
    unsigned char *z = malloc(zlen);
    compress2(z, &zlen, rows, sizeof rows, 9);
    unsigned char *bad = png_bomb(4 * 13, &len);
    size_t at = 33 + 8;                                       /* the IDAT's data */
    unsigned char *fixed = malloc(at + zlen + 12 + 12);
    memcpy(fixed, bad, 33);
    put32(fixed + 33, (uint32_t)zlen);
    memcpy(fixed + 37, "IDAT", 4);
    memcpy(fixed + at, z, zlen);
    memset(fixed + at + zlen, 0, 4);
    memcpy(fixed + at + zlen + 4, "\0\0\0\0IEND\xae\x42\x60\x82", 12);
    size_t flen = at + zlen + 16;
    CHECK(mr_image_decode(fixed, flen, "filter.png", &px, &w, &h, &c, &err) == MR_ERR_BAD_FILE && !px);
    CHECK_STR_CONTAINS(err.msg, "filter.png: cannot be decoded");
    /* the same cut inside its data */
    CHECK(mr_image_decode(fixed, at + zlen / 2, "cut.png", &px, &w, &h, &c, &err) != MR_OK && !px);
    free(fixed);
    free(bad);
    free(z);
}

/* 9000 x 9000 is under GL's 16384 per side, so only the pixel budget
 * stops a 243 MB decode (the header is enough to know). */
TEST(image_info_refuses_more_than_64_mpixel)
{
    unsigned char hdr[33];
    size_t len;
    unsigned char *png = png_of(1, 1, &len);
    memcpy(hdr, png, 33);
    free(png);
    put32(hdr + 16, 9000); put32(hdr + 20, 9000);   /* the IHDR's size (stb_image reads no CRC) */
    mr_error err = {0};
    unsigned char *px = (unsigned char *)"x";
    int w, h, c;
    CHECK(mr_image_decode(hdr, sizeof hdr, "giant.png", &px, &w, &h, &c, &err) == MR_ERR_LIMIT);
    CHECK(px == NULL);
    CHECK_STR_CONTAINS(err.msg, "giant.png: 9000x9000 pixels, more than 64 Mpixel");
    put32(hdr + 16, 20000); put32(hdr + 20, 1);
    CHECK(mr_image_info(hdr, sizeof hdr, "wide.png", &w, &h, &c, &err) == MR_ERR_LIMIT);
    CHECK_STR_CONTAINS(err.msg, "wide.png: 20000x1 pixels (expected 1 to 16384 per side");
}

TEST(image_jpeg_scans_are_counted_and_bounded)
{
    size_t len;
    unsigned char *j = jpeg_of(3, &len);
    CHECK(mr_image_jpeg_scans(j, len) == 3);   /* FF00 and RST0 do not end a scan */
    mr_error err = {0};
    CHECK(mr_image_info(j, len, "three.jpg", NULL, NULL, NULL, &err) == MR_OK);
    free(j);
    j = jpeg_of(MR_IMAGE_MAX_JPEG_SCANS + 1, &len);
    CHECK(mr_image_jpeg_scans(j, len) == MR_IMAGE_MAX_JPEG_SCANS + 1);
    CHECK(mr_image_info(j, len, "many.jpg", NULL, NULL, NULL, &err) == MR_ERR_LIMIT);
    CHECK_STR_CONTAINS(err.msg, "many.jpg: a JPEG of 65 scans, more than 64");
    free(j);
    CHECK(mr_image_jpeg_scans((const unsigned char *)"\x89PNG", 4) == -1);
}

static char tmpdir[64];

TEST(file_read_refuses_fifos_and_folders_at_once)
{
    char *fifo = mr_path_join(tmpdir, "f.png");
    CHECK(mkfifo(fifo, 0600) == 0);
    mr_error err = {0};
    size_t len;
    CHECK(mr_file_read(fifo, &len, &err) == NULL);   /* the old fopen blocked here */
    CHECK_STR_CONTAINS(err.msg, "not a regular file (a FIFO)");
    CHECK(mr_file_read(tmpdir, &len, &err) == NULL);
    CHECK_STR_CONTAINS(err.msg, "not a regular file");
    CHECK(mr_file_read("/dev/null", &len, &err) == NULL);
    CHECK_STR_CONTAINS(err.msg, "(a device)");
    CHECK(mr_file_check_inside(tmpdir, fifo, &err) == MR_ERR_BAD_FILE);
    unlink(fifo);
    free(fifo);
}

TEST(file_read_inside_resolves_links_before_the_folder_check)
{
    char *model_dir = mr_path_join(tmpdir, "model");
    char *in = mr_path_join(model_dir, "in.bin"), *leak = mr_path_join(model_dir, "leak.bin");
    char *sub = mr_path_join(model_dir, "sub"), *up = mr_path_join(model_dir, "sub/../in.bin");
    char *outside = mr_path_join(tmpdir, "secret.bin");
    mr_error err = {0};
    CHECK(mr_file_mkdirs(sub, &err) == MR_OK);
    CHECK(mr_file_write(in, "inside", 6, &err) == MR_OK);
    CHECK(mr_file_write(outside, "secret", 6, &err) == MR_OK);
    CHECK(symlink(outside, leak) == 0);
    size_t len = 0;
    char *got = mr_file_read_inside(model_dir, in, &len, &err);
    CHECK(got && len == 6 && !strcmp(got, "inside"));
    free(got);
    got = mr_file_read_inside(model_dir, up, &len, &err);   /* '..' that stays inside */
    CHECK(got != NULL);
    free(got);
    CHECK(mr_file_read_inside(model_dir, leak, &len, &err) == NULL);
    CHECK(err.status == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(err.msg, "outside the model's folder");
    CHECK(mr_file_check_inside(model_dir, leak, &err) == MR_ERR_BAD_FILE);
    CHECK(mr_file_check_inside(model_dir, in, &err) == MR_OK);
    /* A model made in code (no folder) reads where its paths point. */
    got = mr_file_read_inside(NULL, leak, &len, &err);
    CHECK(got && !strcmp(got, "secret"));
    free(got);
    CHECK(mr_file_same(in, up) && !mr_file_same(in, outside) && mr_file_same(leak, outside));
    unlink(leak); unlink(in); unlink(outside); rmdir(sub); rmdir(model_dir);
    free(model_dir); free(in); free(leak); free(sub); free(up); free(outside);
}

TEST(file_copy_and_mkdirs_are_the_one_home_of_those_chores)
{
    char *deep = mr_path_join(tmpdir, "a/b/c"), *from = mr_path_join(tmpdir, "from.bin");
    char *to = mr_path_join(tmpdir, "a/b/c/to.bin"), *missing = mr_path_join(tmpdir, "none.bin");
    mr_error err = {0};
    CHECK(mr_file_mkdirs(deep, &err) == MR_OK);
    CHECK(mr_file_mkdirs(deep, &err) == MR_OK);           /* already there */
    CHECK(mr_file_mkdirs("", &err) == MR_ERR_IO);          /* no folder named "" */
    CHECK(mr_file_write(from, "a\0b", 3, &err) == MR_OK);
    CHECK(mr_file_copy(from, to, &err) == MR_OK);
    size_t len = 0;
    char *got = mr_file_read(to, &len, &err);
    CHECK(got && len == 3 && !memcmp(got, "a\0b", 3));
    free(got);
    CHECK(mr_file_copy(missing, to, &err) == MR_ERR_IO);
    CHECK_STR_CONTAINS(err.msg, "none.bin");
    CHECK(mr_file_copy(from, deep, &err) == MR_ERR_IO);   /* a folder is in the way */
    CHECK_STR_CONTAINS(err.msg, "a/b/c");
    unlink(to); unlink(from);
    char *b = mr_path_join(tmpdir, "a/b"), *a = mr_path_join(tmpdir, "a");
    rmdir(deep); rmdir(b); rmdir(a);
    free(a); free(b); free(deep); free(from); free(to); free(missing);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/marrow_test_image.XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
    RUN(image_decode_reads_a_small_png);
    RUN(image_decode_undoes_every_png_row_filter);
    RUN(image_decode_refuses_plain_pngs_with_faulty_data);
    RUN(jpeg_huffman_tables_stb_cannot_take_are_refused);
    RUN(jpeg_tables_after_fill_bytes_and_padding_are_checked_too);
    RUN(png_that_inflates_past_its_image_is_refused);
    RUN(image_info_refuses_more_than_64_mpixel);
    RUN(image_jpeg_scans_are_counted_and_bounded);
    RUN(file_read_refuses_fifos_and_folders_at_once);
    RUN(file_read_inside_resolves_links_before_the_folder_check);
    RUN(file_copy_and_mkdirs_are_the_one_home_of_those_chores);
    rmdir(tmpdir);
    return test_summary("image");
}
