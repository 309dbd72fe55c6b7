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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mr_model *m = NULL;
    mr_error err;
    mr_status st = mr_bvh_parse("fuzz.bvh", (const char *)data, size, &m, &err);
    if (st == MR_OK && (!m || m->mesh_count != 0 || m->clip_count > 1)) abort();  /* a skeleton and one clip */
    fuzz_check_parse(st, m, &err, "bvh: fuzz.bvh:", 1);
    return 0;
}
