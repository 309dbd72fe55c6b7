/* fuzz_md5.h — what the MD5 fuzz targets share: file names and the check
 * that a refusal is the reader's one-line "md5: NAME:LINE: expected ..." */
#ifndef MR_FUZZ_MD5_H
#define MR_FUZZ_MD5_H

#include "formats/md5.h"

/* In a directory that does not exist, so texture lookups fail at once. */
#define FUZZ_MESH "/nonexistent/fuzz.md5mesh"
#define FUZZ_ANIM "/nonexistent/fuzz.md5anim"

static inline void fuzz_md5_check_error(mr_status st, const mr_error *e, const char *name)
{
    if (st == MR_OK || st == MR_ERR_NO_MEMORY) return;
    size_t n = strlen(name);
    if (st != MR_ERR_BAD_FILE || strncmp(e->msg, "md5: ", 5) != 0 ||
        strncmp(e->msg + 5, name, n) != 0 || e->msg[5 + n] != ':' || !strstr(e->msg, ": expected ") ||
        strchr(e->msg, '\n'))
        abort();
}

#endif
