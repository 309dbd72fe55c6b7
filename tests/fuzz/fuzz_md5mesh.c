/* fuzz_md5mesh.c — libFuzzer entry point for the .md5mesh reader
 * (src/formats/md5_mesh.c, md5_lex.c). Built and run by `make fuzz` /
 * `make fuzz-smoke` (see fuzz.h).
 *
 * fuzz-seeds: md5mesh
 *
 * A mesh that loads is exercised (fuzz_exercise). Any crash, sanitizer
 * report, leak, or error message not of the form
 * "md5: NAME:LINE: expected ..." is a bug.
 */
#include "fuzz.h"
#include "fuzz_md5.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    mr_error e;
    mr_model *m = NULL;
    mr_status st = mr_md5_parse_mesh(FUZZ_MESH, text, size, &m, &e);
    fuzz_md5_check_error(st, &e, FUZZ_MESH);
    if (st == MR_OK) {
        fuzz_exercise(m, 0);
        mr_model_destroy(m);
    } else if (m) {
        abort();  /* failures leave *out NULL */
    }
    free(text);
    return 0;
}
