/* fuzz_cache.c — libFuzzer entry point for the model cache's reader
 * (src/formats/cache_read.c: cache_read_block), which takes whatever file
 * it finds in the cache folder as untrusted. Built and run by `make fuzz` /
 * `make fuzz-smoke` (see fuzz.h).
 *
 * fuzz-seeds:
 *
 * The set-up loads three of the project's models (MD5 mesh and anim with
 * packed clips, glTF, COLLADA) with the cache on, into a private folder,
 * and keeps the cache file each load wrote. An input's first byte picks
 * one (or, when the rest begins with the cache's magic, the rest is the
 * file itself); the rest is patches, four bytes each: a 16-bit position, a
 * mode byte (odd: counted from the model record, where the counts and
 * offsets are; even: spread over the whole file) and a byte XORed there.
 * The payload's checksum is then computed again, so that the checks behind
 * it are reached, and the block goes through every check but the
 * sources' (key, paths, stamps: a real file would need them to match). A
 * model that comes back is validated and exercised the way the runtime
 * uses it, its clips played from the packs the file held, by search and
 * through a cursor (fuzz_exercise_with): reading outside the block, an
 * index the reader let through, cursor and search disagreeing, or a
 * sanitizer report is a failure.
 */
#define FUZZ_OWN_INIT
#include "fuzz.h"

#include <unistd.h>

#include "core/file.h"
#include "formats/cache.h"
#include "formats/cache_internal.h"
#include "formats/load.h"

#ifndef MR_FUZZ_ROOT
#define MR_FUZZ_ROOT "."
#endif

#define BASES 3
static unsigned char *bases[BASES];
static size_t base_size[BASES];

/* Loads path (with anim, or none) through the cache and keeps the file it
 * wrote. */
static void keep_cache_file(int i, const char *path, const char *anim)
{
    const char *anims[1] = {anim};
    mr_model *m = NULL;
    mr_error err = {0};
    if (mr_load_model(path, anims, anim ? 1 : 0, &m, &err) != MR_OK) {
        fprintf(stderr, "fuzz_cache: %s: %s\n", path, err.msg);
        abort();
    }
    mr_model_destroy(m);
    char *file = mr_cache_file(path, anims, anim ? 1 : 0);
    bases[i] = file ? (unsigned char *)mr_file_read(file, &base_size[i], &err) : NULL;
    if (!bases[i] || base_size[i] < sizeof(file_header)) {
        fprintf(stderr, "fuzz_cache: no cache file for %s\n", path);
        abort();
    }
    free(file);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char dir[] = "/tmp/marrow-fuzz-cache-XXXXXX";
    if (!mkdtemp(dir)) abort();
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = dir});
    keep_cache_file(0, MR_FUZZ_ROOT "/models/mannequin.md5mesh", MR_FUZZ_ROOT "/models/idle.md5anim");
    keep_cache_file(1, MR_FUZZ_ROOT "/models/mannequin.glb", NULL);
    keep_cache_file(2, MR_FUZZ_ROOT "/models/mannequin.dae", NULL);
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_OFF});
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "fuzz_cache: could not remove %s\n", dir);
    /* the files as written pass */
    for (int i = 0; i < BASES; i++) {
        unsigned char *block = aligned_alloc(64, (base_size[i] + 63) / 64 * 64);
        if (!block) abort();
        memcpy(block, bases[i], base_size[i]);
        mr_model *m = cache_read_block(block, base_size[i], NULL, "fuzz.md5mesh", NULL);
        if (!m) {
            fprintf(stderr, "fuzz_cache: base %d refused: %s\n", i, mr_cache_rejection());
            abort();
        }
        mr_model_destroy(m);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    int pick = data[0] % BASES;
    const uint8_t *rest = data + 1;
    size_t left = size - 1, n = base_size[pick];
    int whole = left >= sizeof(file_header) && memcmp(rest, CACHE_MAGIC, 8) == 0;
    if (whole) n = left;
    /* 64-byte aligned, as the reader allocates it */
    unsigned char *block = aligned_alloc(64, (n + 63) / 64 * 64);
    if (!block) return 0;
    if (whole) {
        memcpy(block, rest, n);
    } else {
        memcpy(block, bases[pick], n);
        file_header h;
        memcpy(&h, block, sizeof h);
        for (size_t i = 0; i + 4 <= left; i += 4) {
            size_t pos = (size_t)(rest[i] | rest[i + 1] << 8);
            size_t at = rest[i + 2] & 1 ? (size_t)(h.model + pos) % n : pos * n / 65536;
            block[at] ^= rest[i + 3];
        }
    }
    file_header h;
    memcpy(&h, block, sizeof h);
    h.payload_hash = mr_cache_hash(block + sizeof h, n - sizeof h);
    memcpy(block, &h, sizeof h);
    mr_model *m = cache_read_block(block, n, NULL, "fuzz.md5mesh", NULL);   /* takes the block */
    if (m) {
        fuzz_exercise_with(m, 0, 0);   /* its own packs: packing again is fuzz_clip_pack's */
        mr_model_destroy(m);
    }
    return 0;
}
