/* fuzz_fbx_cache.c — libFuzzer entry point for FBX geometry caches
 * (src/formats/fbx_cache.c): the files a model names beside itself, which
 * a pull request can replace. Built and run by `make fuzz` / `make
 * fuzz-smoke` (see fuzz.h).
 *
 * fuzz-seeds: mcx mc pc2 xml
 *
 * Two ufbx conformance models with caches are read once from
 * ../shared/models into memory: maya_cache_sine (a cache description
 * pCubeShape1.xml beside its data pCubeShape1.mcx) and max_cache_box (a
 * .pc2 file). They and their folders are rebuilt in a private temporary
 * folder (the cache of the second cube, pCubeShape2, left out), and
 * each input replaces one file there, chosen by what it starts with:
 * "POINTCACHE2" the .pc2, "FOR8" the .mcx, "FOR4" a .mc (the description
 * then says Format="mcc"), '<' the description itself; any other input's
 * first byte picks one of the four and the rest is the file. The model is
 * then parsed from memory under its path in that folder, so the cache
 * reader opens the fuzzed file exactly as it opens a user's. The checks are
 * every reader's (fuzz_check_parse): a cache that does not fit is only a
 * warning, a broken one a one-line "fbx: " refusal, never a crash, leak or
 * out-of-bounds read. The replaced file is written back after each input.
 */
#define FUZZ_OWN_INIT
#include "fuzz.h"

#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "formats/fbx.h"

#ifndef MR_FUZZ_ROOT
#define MR_FUZZ_ROOT "."
#endif

#define UFBX MR_FUZZ_ROOT "/../shared/models/ufbx-data/"
#define SINE "maya_cache_sine_7500_binary"
#define BOX "max_cache_box_7500_binary"

typedef struct {
    char *bytes;
    size_t len;
} blob;

static char tmp_dir[] = "/tmp/marrow-fuzz-cache-XXXXXX";
static blob sine_fbx, box_fbx, sine_xml, sine_mcx, box_pc2, sine_xml_mcc;

static blob load(const char *path)
{
    mr_error err;
    blob b = {0};
    b.bytes = mr_file_read(path, &b.len, &err);
    if (!b.bytes) {
        fprintf(stderr, "fuzz_fbx_cache: %s\n", err.msg);
        exit(1);
    }
    return b;
}

static char *in_tmp(const char *rel)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, rel);
    return path;
}

static void put(const char *rel, const void *bytes, size_t len)
{
    const char *path = in_tmp(rel);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bytes, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "fuzz_fbx_cache: cannot write %s\n", path);
        exit(1);
    }
}

static void cleanup(void)
{
    static const char *files[] = {SINE "_fpc/pCubeShape1.xml", SINE "_fpc/pCubeShape1.mcx", SINE "_fpc/pCubeShape1.mc",
                                  BOX "_fpc/max_cache_box.pc2", SINE "_fpc", BOX "_fpc", SINE ".fbx", BOX ".fbx"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) remove(in_tmp(files[i]));
    rmdir(tmp_dir);
}

enum kind { PC2, MCX, MC, XML, ALL };

/* The real files, as the models' folders hold them: the one an input of
 * kind replaced, or ALL. */
static void restore(enum kind kind)
{
    if (kind == XML || kind == MC || kind == ALL) put(SINE "_fpc/pCubeShape1.xml", sine_xml.bytes, sine_xml.len);
    if (kind == MCX || kind == ALL) put(SINE "_fpc/pCubeShape1.mcx", sine_mcx.bytes, sine_mcx.len);
    if (kind == MC) remove(in_tmp(SINE "_fpc/pCubeShape1.mc"));
    if (kind == PC2 || kind == ALL) put(BOX "_fpc/max_cache_box.pc2", box_pc2.bytes, box_pc2.len);
    if (kind == ALL) {   /* caches are looked for beside a model file that exists */
        put(SINE ".fbx", sine_fbx.bytes, sine_fbx.len);
        put(BOX ".fbx", box_fbx.bytes, box_fbx.len);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    sine_fbx = load(UFBX SINE ".fbx");
    box_fbx = load(UFBX BOX ".fbx");
    sine_xml = load(UFBX SINE "_fpc/pCubeShape1.xml");
    sine_mcx = load(UFBX SINE "_fpc/pCubeShape1.mcx");
    box_pc2 = load(UFBX BOX "_fpc/max_cache_box.pc2");
    /* the same description naming a .mc (FOR4) data file */
    const char *fmt = strstr(sine_xml.bytes, "Format=\"mcx\"");
    if (!fmt || !(sine_xml_mcc.bytes = malloc(sine_xml.len + 1))) exit(1);
    memcpy(sine_xml_mcc.bytes, sine_xml.bytes, sine_xml.len + 1);
    memcpy(sine_xml_mcc.bytes + (fmt - sine_xml.bytes), "Format=\"mcc\"", 12);
    sine_xml_mcc.len = sine_xml.len;
    if (!mkdtemp(tmp_dir) || mkdir(in_tmp(SINE "_fpc"), 0700) != 0 || mkdir(in_tmp(BOX "_fpc"), 0700) != 0) {
        fprintf(stderr, "fuzz_fbx_cache: cannot make a temporary folder\n");
        exit(1);
    }
    atexit(cleanup);
    restore(ALL);
    /* the unfuzzed folders must give both models their caches' morph
     * targets, or the inputs would never reach the cache reader */
    const blob *fbx[] = {&sine_fbx, &box_fbx};
    const char *name[] = {SINE ".fbx", BOX ".fbx"};
    for (int i = 0; i < 2; i++) {
        mr_model *m = NULL;
        mr_error err;
        if (mr_fbx_parse_model(in_tmp(name[i]), (const uint8_t *)fbx[i]->bytes, fbx[i]->len, &m, &err) != MR_OK) {
            fprintf(stderr, "fuzz_fbx_cache: %s\n", err.msg);
            exit(1);
        }
        int cached = 0;
        for (int k = 0; k < m->mesh_count; k++) cached |= m->meshes[k].morph != NULL;
        if (!cached) {
            fprintf(stderr, "fuzz_fbx_cache: %s did not read its geometry cache in %s\n", name[i], tmp_dir);
            for (int w = 0; w < m->warning_count; w++) fprintf(stderr, "  %s\n", m->warnings[w]);
            exit(1);
        }
        mr_model_destroy(m);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum kind kind;
    if (size >= 11 && !memcmp(data, "POINTCACHE2", 11)) kind = PC2;
    else if (size >= 4 && !memcmp(data, "FOR8", 4)) kind = MCX;
    else if (size >= 4 && !memcmp(data, "FOR4", 4)) kind = MC;
    else if (size >= 1 && data[0] == '<') kind = XML;
    else if (size >= 1) {
        kind = (enum kind)(data[0] % 4);
        data++;
        size--;
    } else return 0;

    const blob *fbx = &sine_fbx;
    const char *name = SINE ".fbx";
    switch (kind) {
    case PC2:
        put(BOX "_fpc/max_cache_box.pc2", data, size);
        fbx = &box_fbx;
        name = BOX ".fbx";
        break;
    case MCX: put(SINE "_fpc/pCubeShape1.mcx", data, size); break;
    case MC:
        put(SINE "_fpc/pCubeShape1.xml", sine_xml_mcc.bytes, sine_xml_mcc.len);
        put(SINE "_fpc/pCubeShape1.mc", data, size);
        break;
    case XML: put(SINE "_fpc/pCubeShape1.xml", data, size); break;
    case ALL: return 0;   /* not an input's kind */
    }
    mr_model *m = NULL;
    mr_error err;
    mr_status st = mr_fbx_parse_model(in_tmp(name), (const uint8_t *)fbx->bytes, fbx->len, &m, &err);
    fuzz_check_parse(st, m, &err, "fbx: ", 0);
    restore(kind);
    return 0;
}
