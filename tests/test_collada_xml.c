/* test_collada_xml.c — the plain-XML parser of the COLLADA reader
 * (src/formats/collada_xml_scan.c) against libxml2: every document it
 * builds must be the tree libxml2's events build (collada_xml.c), and
 * everything else must be declined, so that libxml2 parses it and words
 * the refusal as before. The real .dae files of ../shared/models and
 * assimp-testmodels, hand-written documents for each rule, and every
 * one-byte change of a document that uses every construct. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collada_tree_diff.h"
#include "test.h"
#include "test_files.h"

#include "core/file.h"
#include "formats/collada_internal.h"

/* How the two parsers took one document. */
typedef enum { SAME_TREE, DECLINED, DIFFERENT, ACCEPTED_ONLY_BY_SCANNER } verdict;

static verdict compare(const char *buf, size_t len, char *why, size_t cap)
{
    cl_doc lib, scan;
    mr_error elib = {0}, escan = {0};
    mr_status slib = cl_doc_open_with(&lib, "t.dae", buf, len, &elib, CL_XML_LIBXML2);
    mr_status sscan = cl_doc_open_with(&scan, "t.dae", buf, len, &escan, CL_XML_SCANNER);
    verdict v;
    if (sscan != MR_OK) {
        v = DECLINED;
        snprintf(why, cap, "%s", escan.msg);
    } else if (slib != MR_OK) {
        v = ACCEPTED_ONLY_BY_SCANNER;
        snprintf(why, cap, "libxml2: %s", elib.msg);
    } else {
        v = cl_tree_diff(&lib, &scan, why, cap) ? DIFFERENT : SAME_TREE;
    }
    if (slib == MR_OK) cl_doc_close(&lib);
    if (sscan == MR_OK) cl_doc_close(&scan);
    return v;
}

/* The scanner's decline is invisible: cl_doc_open gives libxml2's answer. */
static int auto_matches_libxml2(const char *buf, size_t len)
{
    cl_doc a, b;
    mr_error ea = {0}, eb = {0};
    mr_status sa = cl_doc_open_with(&a, "t.dae", buf, len, &ea, CL_XML_AUTO);
    mr_status sb = cl_doc_open_with(&b, "t.dae", buf, len, &eb, CL_XML_LIBXML2);
    char why[300];
    int same = sa == sb && (sa != MR_OK ? strcmp(ea.msg, eb.msg) == 0 : !cl_tree_diff(&a, &b, why, sizeof why));
    if (sa == MR_OK) cl_doc_close(&a);
    if (sb == MR_OK) cl_doc_close(&b);
    return same;
}

static void add_files_below(const char *dir, char ***files, int *n)
{
    test_find_dae(dir, files, n);
}

/* Files the scanner leaves to libxml2, and why. */
static const struct {
    const char *suffix, *why;
} expected_declines[] = {
    {"cube_UTF16LE.dae", "UTF-16"},
    {"formula.dae", "not well-formed (a tag mismatch libxml2 refuses)"},
};

TEST(every_real_file_builds_libxml2s_tree)
{
    char **files = NULL;
    int n = 0;
    add_files_below(SHARED_MODELS, &files, &n);
    add_files_below("/usr/share/assimp/models", &files, &n);
    qsort(files, (size_t)n, sizeof *files, test_cmp_str);
    CHECK_MSG(n >= 40, "expected the shared models, found %d .dae files", n);
    int same = 0, declined = 0;
    for (int i = 0; i < n; i++) {
        size_t len = 0;
        mr_error err;
        char *buf = mr_file_read(files[i], &len, &err);
        if (!buf) {
            TEST_FAIL_AT("%s: %s", files[i], err.msg);
            free(files[i]);
            continue;
        }
        char why[400];
        verdict v = compare(buf, len, why, sizeof why);
        const char *expected = NULL;
        for (size_t k = 0; k < sizeof expected_declines / sizeof *expected_declines; k++) {
            size_t fl = strlen(files[i]), sl = strlen(expected_declines[k].suffix);
            if (fl >= sl && !strcmp(files[i] + fl - sl, expected_declines[k].suffix)) expected = expected_declines[k].why;
        }
        if (v == SAME_TREE) same++;
        if (v == DECLINED) {
            declined++;
            printf("       declined %s (%s)\n", files[i], expected ? expected : "unexpected");
        }
        CHECK_MSG(v == SAME_TREE || (v == DECLINED && expected), "%s: %s", files[i], why);
        CHECK_MSG(v != SAME_TREE || !expected, "%s: expected a decline (%s)", files[i], expected);
        CHECK_MSG(auto_matches_libxml2(buf, len), "%s: cl_doc_open differs from libxml2's answer", files[i]);
        free(buf);
        free(files[i]);
    }
    free(files);
    printf("       %d built as libxml2 builds them, %d declined\n", same, declined);
}

/* A document using every construct the scanner reads. */
static const char rich_doc[] =
    "\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
    "<!-- exported - a comment -->\n"
    "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\"\r\n"
    "   xmlns:x=\"urn:x\">\r\n"
    "  <asset><unit meter=\"0.01\"\tname=\"c&amp;m\"/><up_axis>Y_UP</up_axis></asset>\r\n"
    "  <library_geometries>\n"
    "    <geometry id=\"g&#35;1\" name='caf\xC3\xA9 &lt;1&gt; &quot;q&quot; &apos;a&apos; &#x1F600;'>\n"
    "      <x:extra x:kind=\"a\nb\">text &amp; more<!-- inside -->after]] > ok</x:extra>\n"
    "      <float_array id=\"a\" count=\"4\">1 2\r\n3 4</float_array>\n"
    "      <p>0 1 2</p\n   >\n"
    "      <empty\n    a=\"1\"\n    />\n"
    "    </geometry>\n"
    "  </library_geometries>\n"
    "</COLLADA>\n<!-- after -->\n";

TEST(a_document_with_every_construct_builds_libxml2s_tree)
{
    char why[400];
    verdict v = compare(rich_doc, sizeof rich_doc - 1, why, sizeof why);
    CHECK_MSG(v == SAME_TREE, "%d: %s", (int)v, why);
    cl_doc d;
    mr_error err;
    CHECK(cl_doc_open_with(&d, "t.dae", rich_doc, sizeof rich_doc - 1, &err, CL_XML_SCANNER) == MR_OK);
    if (d.root) {
        cl_el *geo = cl_find_id(&d, "g#1", 3);
        CHECK(geo && !strcmp(cl_attr(geo, "name"), "caf\xC3\xA9 <1> \"q\" 'a' \xF0\x9F\x98\x80"));
        cl_el *extra = geo ? cl_child(geo, "extra") : NULL;
        CHECK(extra && extra->ns && !strcmp(extra->ns, "urn:x"));
        CHECK(extra && !strcmp(extra->text, "text & moreafter]] > ok"));
        CHECK(extra && !strcmp(cl_attr(extra, "kind"), "a b"));
        cl_el *arr = cl_find_id(&d, "a", 1);
        CHECK(arr && !strcmp(arr->text, "1 2\n3 4"));
        cl_el *empty = geo ? cl_child(geo, "empty") : NULL;
        CHECK(empty && empty->line == 16); /* where its start tag ends, as libxml2 counts */
        cl_doc_close(&d);
    }
}

/* Documents the scanner must leave to libxml2 (which then builds or
 * refuses them as before). */
static const char *const declined_docs[] = {
    "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><COLLADA version=\"1.4.1\"/>",
    "<?xml version=\"1.1\"?><COLLADA version=\"1.4.1\"/>",
    "<!DOCTYPE COLLADA [<!ENTITY e \"x\">]><COLLADA version=\"1.4.1\">&e;</COLLADA>",
    "<COLLADA version=\"1.4.1\"><![CDATA[ a ]]></COLLADA>",
    "<COLLADA version=\"1.4.1\"><?pi data?></COLLADA>",
    "<COLLADA version=\"1.4.1\">\r</COLLADA>",
    "<COLLADA version=\"1.4.1\" a=\"x\ry\"/>",
    "<COLLADA version=\"1.4.1\"><caf\xC3\xA9/></COLLADA>",
    "<COLLADA version=\"1.4.1\"><y:a/></COLLADA>",
    "<COLLADA version=\"1.4.1\" xml:lang=\"en\"/>",
    "<COLLADA version=\"1.4.1\" a=\"1\" a=\"2\"/>",
    "<COLLADA version=\"1.4.1\" xmlns:a=\"u\" xmlns:b=\"u\" a:x=\"1\" b:x=\"2\"/>",
    "<COLLADA version=\"1.4.1\" xmlns=\"\"/>",
    "<COLLADA version=\"1.4.1\"><a></b></COLLADA>",
    "<COLLADA version=\"1.4.1\">]]></COLLADA>",
    "<COLLADA version=\"1.4.1\">&unknown;</COLLADA>",
    "<COLLADA version=\"1.4.1\">&#0;</COLLADA>",
    "<COLLADA version=\"1.4.1\">&#xD800;</COLLADA>",
    "<COLLADA version=\"1.4.1\">\xC0\x80</COLLADA>",
    "<COLLADA version=\"1.4.1\">\xEF\xBF\xBE</COLLADA>",
    "<COLLADA version=\"1.4.1\">\x01</COLLADA>",
    "<COLLADA version=\"1.4.1\"><!-- a -- b --></COLLADA>",
    "<COLLADA version=\"1.4.1\"><!-- a ---></COLLADA>",
    "<COLLADA version=\"1.4.1\"/><COLLADA version=\"1.4.1\"/>",
    "<COLLADA version=\"1.4.1\"/>text",
    "<COLLADA version=\"1.4.1\"a=\"1\"/>",
    "<COLLADA version=\"1.4.1\" a=\"<\"/>",
    "<COLLADA version=\"1.4.1\">",
    " <?xml version=\"1.0\"?><COLLADA version=\"1.4.1\"/>",
    "\xFF\xFE<\0C\0/\0>\0",
};

TEST(what_the_scanner_does_not_read_goes_to_libxml2)
{
    for (size_t i = 0; i < sizeof declined_docs / sizeof *declined_docs; i++) {
        const char *doc = declined_docs[i];
        size_t len = i + 1 == sizeof declined_docs / sizeof *declined_docs ? 10 : strlen(doc);
        char why[400];
        verdict v = compare(doc, len, why, sizeof why);
        CHECK_MSG(v == DECLINED, "document %zu (%.60s): verdict %d, %s", i, doc, (int)v, why);
        CHECK_MSG(auto_matches_libxml2(doc, len), "document %zu: cl_doc_open differs from libxml2", i);
    }
}

/* Nesting: the scanner declines past 200 levels; libxml2 refuses past 256. */
TEST(deep_nesting_is_libxml2s_to_judge)
{
    for (int depth = 150; depth <= 300; depth += 50) {
        size_t cap = (size_t)depth * 8 + 64;
        char *doc = malloc(cap);
        size_t n = (size_t)snprintf(doc, cap, "<COLLADA version=\"1.4.1\">");
        for (int i = 0; i < depth; i++) n += (size_t)snprintf(doc + n, cap - n, "<a>");
        for (int i = 0; i < depth; i++) n += (size_t)snprintf(doc + n, cap - n, "</a>");
        n += (size_t)snprintf(doc + n, cap - n, "</COLLADA>");
        char why[400];
        verdict v = compare(doc, n, why, sizeof why);
        CHECK_MSG(depth < 200 ? v == SAME_TREE : v == DECLINED, "depth %d: verdict %d, %s", depth, (int)v, why);
        CHECK(auto_matches_libxml2(doc, n));
        free(doc);
    }
}

/* The scanner's bounds (collada_xml_scan.c): past each, a document is
 * libxml2's to judge, and cl_doc_open answers as libxml2 alone does. A
 * name longer than 1,000 bytes, a value or a comment over 1 MB, an
 * attribute value that never closes ahead of 2 MB of text, and more than
 * 64 attributes on one element or namespace declarations in scope. */
static char *grow(char *buf, size_t *len, size_t *cap, const char *add, size_t n)
{
    if (*len + n + 1 > *cap) {
        while (*len + n + 1 > *cap) *cap = *cap ? *cap * 2 : 4096;
        buf = realloc(buf, *cap);
    }
    memcpy(buf + *len, add, n);
    *len += n;
    buf[*len] = '\0';
    return buf;
}

static char *repeated(const char *head, const char *unit, size_t times, const char *tail, size_t *len)
{
    size_t cap = 0;
    char *buf = NULL;
    *len = 0;
    buf = grow(buf, len, &cap, head, strlen(head));
    for (size_t i = 0; i < times; i++) buf = grow(buf, len, &cap, unit, strlen(unit));
    return grow(buf, len, &cap, tail, strlen(tail));
}

TEST(past_its_bounds_the_scanner_declines)
{
    static const struct {
        const char *what, *head, *unit, *tail;
        size_t times;
    } cases[] = {
        {"a 1,001-byte name", "<COLLADA version=\"1.4.1\"><", "n", "/></COLLADA>", 1001},
        {"a value over 1 MB", "<COLLADA version=\"1.4.1\" a=\"", "0123456789abcdef", "\"/>", 65537},
        {"a comment over 1 MB", "<COLLADA version=\"1.4.1\"><!--", "0123456789abcdef", "--></COLLADA>", 65537},
        {"an unclosed value before 2 MB of text", "<COLLADA version=\"1.4.1\" a=\"1><p>", "0 1 2 3 4 5 6 7 ",
         "</p></COLLADA>", 131072},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t len;
        char *doc = repeated(cases[i].head, cases[i].unit, cases[i].times, cases[i].tail, &len);
        char why[400];
        verdict v = compare(doc, len, why, sizeof why);
        CHECK_MSG(v == DECLINED, "%s: verdict %d, %s", cases[i].what, (int)v, why);
        CHECK_MSG(auto_matches_libxml2(doc, len), "%s: cl_doc_open differs from libxml2", cases[i].what);
        free(doc);
    }
    /* attributes on one element and namespace declarations in scope: 64
     * of each are read, the 65th is declined */
    for (int kind = 0; kind < 2; kind++)
        for (int count = 64 - !kind; count <= 65 - !kind; count++) {
            size_t len = 0, cap = 0;
            char *doc = NULL, piece[64];
            const char *root = "<COLLADA version=\"1.4.1\"";
            doc = grow(doc, &len, &cap, root, strlen(root));
            for (int k = 0; k < count; k++) {
                int n = snprintf(piece, sizeof piece, kind ? " xmlns:p%d=\"urn:%d\"" : " a%d=\"%d\"", k, k);
                doc = grow(doc, &len, &cap, piece, (size_t)n);
            }
            doc = grow(doc, &len, &cap, "/>", 2);
            char why[400];
            verdict v = compare(doc, len, why, sizeof why);
            /* the root's own version attribute is one more attribute */
            int within = kind ? count <= 64 : count + 1 <= 64;
            CHECK_MSG(within ? v == SAME_TREE : v == DECLINED, "%d %s: verdict %d, %s", count,
                      kind ? "declarations" : "attributes", (int)v, why);
            CHECK(auto_matches_libxml2(doc, len));
            free(doc);
        }
}

/* Every deletion of a byte of rich_doc, and every replacement by one of
 * the bytes that matter to XML: whatever the scanner builds, libxml2
 * builds the same, and cl_doc_open's answer (a model's tree or a refusal
 * and its message) is libxml2's. */
TEST(one_byte_changes_never_build_a_different_tree)
{
    static const char repl[] = {'<', '>', '&', ';', '"', '\'', '=', '/', '!', '-', ']', '?', ':', '#',
                                'x', ' ', '\t', '\n', '\r', '\0', (char)0x80, (char)0xC3, (char)0xFF};
    size_t len = sizeof rich_doc - 1;
    char *doc = malloc(len);
    long built = 0, declined = 0, bad = 0;
    for (size_t at = 0; at < len; at++) {
        for (size_t r = 0; r <= sizeof repl; r++) {
            size_t n;
            if (r == sizeof repl) { /* deletion */
                memcpy(doc, rich_doc, at);
                memcpy(doc + at, rich_doc + at + 1, len - at - 1);
                n = len - 1;
            } else {
                if (rich_doc[at] == repl[r]) continue;
                memcpy(doc, rich_doc, len);
                doc[at] = repl[r];
                n = len;
            }
            char why[400];
            verdict v = compare(doc, n, why, sizeof why);
            if (v == SAME_TREE) built++;
            else if (v == DECLINED) declined++;
            if ((v == DIFFERENT || v == ACCEPTED_ONLY_BY_SCANNER) && bad++ < 5)
                TEST_FAIL_AT("byte %zu %s 0x%02x: %s", at, r == sizeof repl ? "deleted" : "made",
                             r == sizeof repl ? 0 : (unsigned char)repl[r], why);
            /* and cl_doc_open answers as libxml2 does, a refusal's words
             * included (a root renamed, a version broken, a tag mismatch) */
            if (!auto_matches_libxml2(doc, n) && bad++ < 5)
                TEST_FAIL_AT("byte %zu %s 0x%02x: cl_doc_open differs from libxml2's answer", at,
                             r == sizeof repl ? "deleted" : "made", r == sizeof repl ? 0 : (unsigned char)repl[r]);
        }
    }
    free(doc);
    CHECK(bad == 0);
    CHECK(built > 1000 && declined > 1000);
    printf("       %ld changed documents built as libxml2 builds them, %ld declined, %ld wrong\n", built,
           declined, bad);
}

/* The SSE2 text scan stops where the portable one does and counts the
 * same line feeds, at every alignment and length. */
TEST(simd_text_scan_matches_the_portable_scan)
{
    static const char pool[] = "0123456789 .-e\n\n\t<&]\r\x01\x7F\x80\xC3\xFF";
    uint32_t rng = 12345;
    char buf[96];
    long mismatches = 0;
    for (int trial = 0; trial < 20000; trial++) {
        int len = (int)((rng = rng * 1103515245u + 12345u) >> 16) % 80;
        int specials = (int)((rng = rng * 1103515245u + 12345u) >> 16) % 4;
        for (int i = 0; i < len; i++) {
            rng = rng * 1103515245u + 12345u;
            size_t k = (rng >> 16) % (specials ? sizeof pool - 1 : 15);
            buf[i] = pool[k];
        }
        int off = trial % 16;
        if (off > len) off = len;
        int la = 0, lb = 0;
        const char *a = cl_scan_text(buf + off, buf + len, &la);
        const char *b = cl_scan_text_portable(buf + off, buf + len, &lb);
        if (a != b || la != lb) mismatches++;
    }
    CHECK(mismatches == 0);
    /* long runs: the lanes' line-feed counts are summed every 255 blocks */
    size_t big = 70000;
    char *text = malloc(big);
    for (size_t i = 0; i < big; i++) text[i] = i % 3 ? '\n' : '7';
    text[big - 5] = '<';
    int la = 0, lb = 0;
    const char *a = cl_scan_text(text + 1, text + big, &la);
    const char *b = cl_scan_text_portable(text + 1, text + big, &lb);
    CHECK(a == b && a == text + big - 5 && la == lb);
    memset(text, '\n', big);
    la = lb = 0;
    a = cl_scan_text(text, text + big, &la);
    b = cl_scan_text_portable(text, text + big, &lb);
    CHECK(a == b && a == text + big && la == lb && la == (int)big);
    free(text);
}

/* cl_all_space, 16 bytes a step where SSE2 is: every length from 0 to 40
 * and any offset, all white space (each of its four bytes), then one
 * byte that is not (a byte just above or below them included) at every
 * position. */
TEST(all_space_finds_the_one_byte_that_is_not)
{
    static const char ws[] = " \n\t\r", other[] = {'x', 0x08, 0x0b, 0x0c, 0x0e, 0x1f, '!', 0, (char)0xa0};
    char buf[64];
    long wrong = 0;
    for (int off = 0; off < 16; off++)
        for (int len = 0; len <= 40; len++) {
            for (int i = 0; i < len; i++) buf[off + i] = ws[(i * 7 + off) % 4];
            wrong += !cl_all_space(buf + off, (size_t)len);
            for (int at = 0; at < len; at++)
                for (size_t o = 0; o < sizeof other; o++) {
                    char keep = buf[off + at];
                    buf[off + at] = other[o];
                    wrong += cl_all_space(buf + off, (size_t)len);
                    buf[off + at] = keep;
                }
        }
    CHECK_MSG(wrong == 0, "%ld wrong answers", wrong);
}

int main(void)
{
    RUN(every_real_file_builds_libxml2s_tree);
    RUN(a_document_with_every_construct_builds_libxml2s_tree);
    RUN(what_the_scanner_does_not_read_goes_to_libxml2);
    RUN(deep_nesting_is_libxml2s_to_judge);
    RUN(past_its_bounds_the_scanner_declines);
    RUN(one_byte_changes_never_build_a_different_tree);
    RUN(simd_text_scan_matches_the_portable_scan);
    RUN(all_space_finds_the_one_byte_that_is_not);
    return test_summary("collada_xml");
}
