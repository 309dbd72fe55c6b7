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
    mr_status st = mr_gltf_parse("/nonexistent-fuzz-dir/fuzz.gltf", data, size, &m, &err);
    if (st == MR_OK) {
        fuzz_exercise(m, 0);
        mr_model_destroy(m);
    } else if (m) {
        abort();  /* failures leave *out NULL */
    } else if (st != MR_ERR_NO_MEMORY && (strncmp(err.msg, "gltf: ", 6) != 0 || strchr(err.msg, '\n'))) {
        abort();  /* every refusal is one line naming the reader */
    }
    return 0;
}
