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
 * The same input is also opened as a document twice, as cl_doc_open does
 * it (the plain-XML parser, collada_xml_scan.c, then libxml2 for what it
 * declines) and by libxml2 alone: both must give the same answer, the same
 * tree (collada_tree_diff.h) or the same refusal in the same words, or the
 * target aborts.
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

    cl_doc first, lib;
    mr_error efirst = {0}, elib = {0};
    mr_status sfirst = cl_doc_open_with(&first, "fuzz.dae", (const char *)data, size, &efirst, CL_XML_AUTO);
    mr_status slib = cl_doc_open_with(&lib, "fuzz.dae", (const char *)data, size, &elib, CL_XML_LIBXML2);
    if (sfirst != slib || (sfirst != MR_OK && strcmp(efirst.msg, elib.msg) != 0)) {
        fprintf(stderr, "cl_doc_open (%d: %s) differs from libxml2 alone (%d: %s)\n", sfirst,
                sfirst == MR_OK ? "a tree" : efirst.msg, slib, slib == MR_OK ? "a tree" : elib.msg);
        abort();
    }
    if (sfirst == MR_OK) {
        char why[400];
        if (cl_tree_diff(&first, &lib, why, sizeof why)) {
            fprintf(stderr, "the plain-XML parser's tree differs from libxml2's: %s\n", why);
            abort();
        }
        cl_doc_close(&lib);
        cl_doc_close(&first);
    }
    return 0;
}
