/* fuzz_collada.c — libFuzzer entry point for the COLLADA reader
 * (src/formats/collada_*.c). Built and run by `make fuzz` / `make fuzz-smoke`
 * (see fuzz.h).
 *
 * fuzz-seeds: dae
 *
 * Each input is parsed; a model that loads is validated and exercised the
 * way the runtime uses it (fuzz_exercise), so a loader that lets bad indices
 * or NaNs through is caught too. A failure must leave *out NULL and give a
 * one-line message that starts with "collada: ".
 */
#include "fuzz.h"
#include "formats/collada.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mr_model *m = NULL;
    mr_error err;
    mr_status st = mr_collada_parse("fuzz.dae", (const char *)data, size, &m, &err);
    fuzz_check_parse(st, m, &err, "collada: ", 0);
    return 0;
}
