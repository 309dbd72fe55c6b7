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
 *
 * The same input also goes to the plain-XML parser (collada_xml_scan.c)
 * and to libxml2 on their own: whatever the first builds, the second must
 * build the same tree from (collada_tree_diff.h), or the target aborts.
 */
#include "fuzz.h"
#include "formats/collada.h"
#include "formats/collada_internal.h"
#include "../collada_tree_diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mr_model *m = NULL;
    mr_error err;
    mr_status st = mr_collada_parse("fuzz.dae", (const char *)data, size, &m, &err);
    fuzz_check_parse(st, m, &err, "collada: ", 0);

    cl_doc scan, lib;
    mr_error escan, elib;
    if (cl_doc_open_with(&scan, "fuzz.dae", (const char *)data, size, &escan, CL_XML_SCANNER) == MR_OK) {
        if (cl_doc_open_with(&lib, "fuzz.dae", (const char *)data, size, &elib, CL_XML_LIBXML2) != MR_OK) {
            fprintf(stderr, "the plain-XML parser built a tree libxml2 refuses: %s\n", elib.msg);
            abort();
        }
        char why[400];
        if (cl_tree_diff(&scan, &lib, why, sizeof why)) {
            fprintf(stderr, "the plain-XML parser's tree differs from libxml2's: %s\n", why);
            abort();
        }
        cl_doc_close(&lib);
        cl_doc_close(&scan);
    }
    return 0;
}
