/* fuzz_md5.c — libFuzzer entry point for the MD5 readers (not built by
 * default). The input is parsed as an .md5mesh; when that succeeds, the same
 * bytes are also parsed as an .md5anim for the mesh's own skeleton, and in
 * every case as an .md5anim for a fixed two-joint skeleton.
 *
 *   clang -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -g -O1 \
 *       -fsanitize=fuzzer,address,undefined -Isrc tests/fuzz/fuzz_md5.c \
 *       src/formats/md5_*.c $(find src/anim src/core -name '*.c') -lcglm -lm -o fuzz_md5
 *   ./fuzz_md5 -max_len=65536 tests/bad/md5 ../shared/models/assimp/test/models/MD5
 *
 * Any crash, sanitizer report, leak, or error message not of the form
 * "md5: NAME:LINE: expected ..." is a bug.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/md5.h"

/* In a directory that does not exist, so texture lookups fail at once. */
#define FUZZ_MESH "/nonexistent/fuzz.md5mesh"
#define FUZZ_ANIM "/nonexistent/fuzz.md5anim"

static const char PAIR[] =
    "MD5Version 10 numJoints 2 numMeshes 0 joints {\n"
    "\"root\" -1 ( 0 0 0 ) ( 0 0 0 )\n"
    "\"child\" 0 ( 0 0 10 ) ( 0 0 0 )\n"
    "}\n";

static void check_error(mr_status st, const mr_error *e, const char *name)
{
    if (st == MR_OK || st == MR_ERR_NO_MEMORY) return;
    size_t n = strlen(name);
    if (st != MR_ERR_BAD_FILE || strncmp(e->msg, "md5: ", 5) != 0 ||
        strncmp(e->msg + 5, name, n) != 0 || e->msg[5 + n] != ':' || !strstr(e->msg, ": expected ") ||
        strchr(e->msg, '\n'))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    mr_error e;
    mr_model *m = NULL;
    mr_status st = mr_md5_parse_mesh(FUZZ_MESH, text, size, &m, &e);
    check_error(st, &e, FUZZ_MESH);
    if (m) {
        st = mr_md5_parse_anim(m, FUZZ_ANIM, NULL, text, size, &e);
        check_error(st, &e, FUZZ_ANIM);
        mr_model_free(m);
    }

    mr_model *pair = NULL;
    if (mr_md5_parse_mesh("pair.md5mesh", PAIR, sizeof PAIR - 1, &pair, &e) == MR_OK) {
        st = mr_md5_parse_anim(pair, FUZZ_ANIM, NULL, text, size, &e);
        check_error(st, &e, FUZZ_ANIM);
        mr_model_free(pair);
    }
    free(text);
    return 0;
}
