/* fuzz_gltf.c — libFuzzer entry point for the glTF reader
 * (src/formats/gltf_*.c). Built and run by `make fuzz` / `make fuzz-smoke`
 * (see fuzz.h).
 *
 * fuzz-seeds: gltf glb
 *
 * Each input is parsed as a .gltf or .glb from memory under a name whose
 * folder does not exist, so an external uri can never open a file; a model
 * that loads is validated and exercised the way the runtime uses it
 * (fuzz_exercise). A failure must leave *out NULL and give a one-line
 * message that starts with "gltf: ".
 */
#include "fuzz.h"
#include "formats/gltf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mr_model *m = NULL;
    mr_error err;
    mr_status st = mr_gltf_parse("/nonexistent-fuzz-dir/fuzz.gltf", data, size, &m, &err);
    fuzz_check_parse(st, m, &err, "gltf: ", 0);
    return 0;
}
