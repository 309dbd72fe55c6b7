/* file.h — whole-file reads and writes: the one place that opens a file
 * for a loader.
 *
 * Paths are plain '/'-separated strings. Returned strings are owned by the
 * caller (free()) unless the function says it returns a pointer into its input.
 *
 * Every read opens with O_RDONLY | O_NONBLOCK | O_CLOEXEC and checks, with
 * fstat on the opened descriptor, that it is a regular file: a FIFO, a
 * device (../../dev/stdin, /dev/zero) or a folder is refused at once instead
 * of hanging or never ending. A file a model names (a glTF buffer or image,
 * a COLLADA <init_from>, an MD5 shader's texture) is read with
 * mr_file_read_inside, which resolves the real paths of the file and of the
 * model's folder first (symbolic links, '..') and refuses what lies outside.
 */
#ifndef MR_CORE_FILE_H
#define MR_CORE_FILE_H

#include <stddef.h>

#include "core/error.h"

/* Reads a whole file into a new NUL-terminated buffer; *size (may be NULL)
 * gets the byte count without the terminator. On failure returns NULL and
 * sets err (MR_ERR_IO, message naming the path and the system's reason). */
char *mr_file_read(const char *path, size_t *size, mr_error *err);

/* Opens path for reading (O_RDONLY | O_NONBLOCK | O_CLOEXEC, plus O_NOFOLLOW
 * when nofollow is set: a link as the last component is refused) and checks
 * with fstat that it is a regular file. Returns the descriptor (the caller
 * closes it) and its size in *size (may be NULL), or -1 with err set
 * (MR_ERR_IO: missing, unreadable, "not a regular file"). */
int mr_file_open_regular(const char *path, int nofollow, size_t *size, mr_error *err);

/* Reads exactly len bytes from fd into buf (what mr_file_open_regular
 * returned); path names the file in err. MR_ERR_IO on a short read. */
mr_status mr_file_read_fd(int fd, const char *path, void *buf, size_t len, mr_error *err);

/* The folder a model's files are confined to (new string): the folder of
 * model_path when that is a file, NULL for a model made in code (the
 * mannequin, a test fixture), whose files are read where they are named. */
char *mr_file_model_dir(const char *model_path);

/* The real path (links and '..' resolved, new string) of path when it lies
 * inside the real folder dir ("": the working directory; NULL: anywhere,
 * for a model made in code, see mr_file_model_dir); NULL with
 * err set otherwise: MR_ERR_IO when path cannot be resolved (missing),
 * MR_ERR_BAD_FILE "... resolves to X, outside the model's folder Y". */
char *mr_file_real_inside(const char *dir, const char *path, mr_error *err);

/* What mr_file_open_inside would say, without opening: MR_OK for a regular
 * file inside dir, MR_ERR_IO when path is missing, MR_ERR_BAD_FILE when it
 * lies outside dir or is no regular file (a FIFO, a device, a folder);
 * err names the path and why. Loaders use it to warn at load time, naming
 * the element that led to the file. */
mr_status mr_file_check_inside(const char *dir, const char *path, mr_error *err);

/* mr_file_open_regular on the real path of path, refused unless it lies
 * inside dir (mr_file_real_inside); the last component is opened with
 * O_NOFOLLOW, so a link swapped in after the check is refused too. */
int mr_file_open_inside(const char *dir, const char *path, size_t *size, mr_error *err);

/* mr_file_read for a file a model names: mr_file_open_inside, then the whole
 * file into a new NUL-terminated buffer (free()). */
char *mr_file_read_inside(const char *dir, const char *path, size_t *size, mr_error *err);

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
/* Whether a and b name the same existing file (same device and inode:
 * another spelling, a hard or symbolic link); 0 when either is missing. */
int mr_file_same(const char *a, const char *b);

/* Copies the file from to the file to, byte for byte, written as
 * mr_file_write does (never half a file). MR_OK, or the status of the read
 * (MR_ERR_IO, MR_ERR_BAD_FILE, MR_ERR_NO_MEMORY: err names from) or of the
 * write (err names to). */
mr_status mr_file_copy(const char *from, const char *to, mr_error *err);

/* mkdir -p: creates dir and its missing parents (mode 0777 before umask).
 * MR_OK when it exists as a folder afterwards, else MR_ERR_IO naming it. */
mr_status mr_file_mkdirs(const char *dir, mr_error *err);

#endif
