/* file.h — whole-file reads and writes.
 *
 * Paths are plain '/'-separated strings. Returned strings are owned by the
 * caller (free()) unless the function says it returns a pointer into its input.
 */
#ifndef MR_CORE_FILE_H
#define MR_CORE_FILE_H

#include <stddef.h>

#include "core/error.h"

/* Reads a whole file into a new NUL-terminated buffer; *size (may be NULL)
 * gets the byte count without the terminator. On failure returns NULL and
 * sets err (MR_ERR_IO, message naming the path and the system's reason). */
char *mr_file_read(const char *path, size_t *size, mr_error *err);

/* Writes len bytes to path (via a temporary file and rename, so a failed
 * write never leaves half a file). Returns MR_OK, or MR_ERR_IO /
 * MR_ERR_NO_MEMORY with err naming the path and the system's reason. */
mr_status mr_file_write(const char *path, const void *data, size_t len, mr_error *err);

int mr_file_exists(const char *path);

/* The name of the entry of folder dir closest to name (mr_str_distance,
 * within max_distance; ties: the first in name order), for "did you mean"
 * messages; hidden entries are skipped. A new string (free()), or NULL when
 * none is that close or dir cannot be read. */
char *mr_file_closest(const char *dir, const char *name, int max_distance);

#endif
