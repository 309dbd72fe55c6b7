/* fuzz_bvh.c — libFuzzer entry point for the BVH reader (src/formats/bvh.c).
 * Built and run by `make fuzz` / `make fuzz-smoke` (see fuzz.h).
 *
 * fuzz-seeds: bvh
 *
 * Each input is parsed; a model that loads is validated and exercised the
 * way the runtime uses it (fuzz_exercise: every clip sampled and posed). A
 * failure must leave *out NULL and give one line
 * "bvh: fuzz.bvh:LINE: expected ...".
 */
#include "fuzz.h"
#include "formats/bvh.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mr_model *m = NULL;
    mr_error err;
    mr_status st = mr_bvh_parse("fuzz.bvh", (const char *)data, size, &m, &err);
    if (st == MR_OK) {
        if (!m || m->mesh_count != 0 || m->clip_count > 1) abort();
        fuzz_exercise(m, 0);
        mr_model_destroy(m);
    } else if (m) {
        abort();  /* failures leave *out NULL */
    } else if (st != MR_ERR_NO_MEMORY &&
               (strncmp(err.msg, "bvh: fuzz.bvh:", 14) != 0 || !strstr(err.msg, ": expected ") ||
                strchr(err.msg, '\n'))) {
        abort();  /* every refusal is one located line */
    }
    return 0;
}
