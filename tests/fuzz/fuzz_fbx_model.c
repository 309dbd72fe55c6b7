/* fuzz_fbx_model.c — libFuzzer entry point for the whole FBX reader: the
 * document parser and the scene builder (src/formats/fbx_*.c) into an
 * mr_model. Built and run by `make fuzz` / `make fuzz-smoke` (see fuzz.h).
 *
 * fuzz-seeds: fbx
 *
 * Each input is read as an .fbx from memory under a name whose folder does
 * not exist (texture paths are only names); a model that loads is
 * validated and exercised the way the runtime uses it (fuzz_exercise). A
 * failure must leave *out NULL and give a one-line message that starts
 * with "fbx: ".
 */
#include "fuzz.h"
#include "formats/fbx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mr_model *m = NULL;
    mr_error err;
    mr_status st = mr_fbx_parse_model("/nonexistent-fuzz-dir/fuzz.fbx", data, size, &m, &err);
    fuzz_check_parse(st, m, &err, "fbx: ", 0);
    return 0;
}
