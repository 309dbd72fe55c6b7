/* file.h — whole-file reads and writes: the one place that opens, creates
 * and copies files (for loaders, writers, the sandbox and the test runner).
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

/* Writes len bytes to path through mr_file_write_at in path's folder (a
 * unique temporary file created exclusively, then renamed: a failed write
 * never leaves half a file, and a link planted where a temporary name would
 * be is never followed). The folder part of path is followed as named; a
 * link as the last component is replaced, not written through. Returns
 * MR_OK, or MR_ERR_IO / MR_ERR_NO_MEMORY with err naming the path and the
 * system's reason. Inside mr_file_batch_begin/commit the rename waits for
 * the commit. */
mr_status mr_file_write(const char *path, const void *data, size_t len, mr_error *err);

/* ---- descriptor-relative calls: for folders whose content is untrusted -------
 *
 * The regression runner reads and writes goldens beside scenes that arrive
 * in pull requests: every entry there may be a link, a FIFO or a folder
 * where a file is expected. These calls work on an open folder descriptor
 * and one name inside it (no '/'), so nothing is resolved twice, no link is
 * followed and nothing outside the folder is reached. `shown` names the
 * file in messages (the path the user knows). */

/* Opens the folder path (links in it followed: a folder the user named)
 * for the calls below; -1 with err set (MR_ERR_IO). Close it with close(). */
int mr_file_dir_open(const char *path, mr_error *err);

/* Opens the folder `name` inside dirfd, refusing a link (O_NOFOLLOW) or
 * anything but a folder; with create, makes it first when missing. -1 with
 * err set: MR_ERR_IO when missing (errno ENOENT) or unreadable,
 * MR_ERR_BAD_FILE when it is a link or no folder. */
int mr_file_dir_open_at(int dirfd, const char *name, int create, const char *shown, mr_error *err);

/* Opens the regular file `name` inside dirfd for reading: no link followed,
 * non-blocking open (a FIFO never hangs), fstat on the descriptor says it is
 * a regular file. The descriptor (blocking again) and *size (may be NULL),
 * or -1 with err set: MR_ERR_IO when missing (errno ENOENT),
 * MR_ERR_BAD_FILE when it is a link, a FIFO, a device or a folder. */
int mr_file_open_at(int dirfd, const char *name, const char *shown, size_t *size, mr_error *err);

/* mr_file_open_at, then the whole file into a new NUL-terminated buffer
 * (free()); a file over max bytes is refused with MR_ERR_LIMIT unread. */
char *mr_file_read_at(int dirfd, const char *name, const char *shown, size_t max, size_t *size, mr_error *err);

/* Writes len bytes as `name` inside dirfd: a temporary ".NAME.XXXXXX" made
 * with O_CREAT | O_EXCL | O_NOFOLLOW (a fresh name, retried while taken),
 * written whole, then renamed over name (a link or file there is replaced,
 * never written through). Nothing is left behind on failure. */
mr_status mr_file_write_at(int dirfd, const char *name, const char *shown, const void *data, size_t len,
                           mr_error *err);

/* Several files written all or nothing (a save of a mesh and its clips):
 * between begin and commit, mr_file_write and mr_file_write_at leave each
 * file under its temporary name; commit renames them all into place, abort
 * (or a failed commit) removes them, and those already renamed. One batch
 * at a time per thread: begin while one is open returns
 * MR_ERR_INVALID_ARGUMENT (the outer batch then holds the files).
 * mr_file_batch_size is what the files written so far take on disk (see
 * mr_file_allocated), for a write quota checked before the commit. */
mr_status mr_file_batch_begin(void);
long long mr_file_batch_size(void);
mr_status mr_file_batch_commit(mr_error *err);
void mr_file_batch_abort(void);

/* The space a file takes on its file system, for write quotas:
 * max(st_size, st_blocks * 512), so a sparse file counts its whole extent
 * and a full one the blocks really allocated. 0 when it cannot be read. */
long long mr_file_allocated(int fd);

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

/* Removes a scratch folder this process made (mkdtemp): the files
 * directly in it (unlink), then the
 * folder itself when that left it empty. Subfolders are not entered. */
void mr_file_remove_scratch(const char *dir);

/* mkdir -p for a folder that must lie inside the real folder root (a
 * script's output folder), with the whole path checked before anything is
 * made: the deepest part of dir that exists must resolve inside root, the
 * missing rest may not name '.' or '..', and each missing folder is made and
 * entered without following links (mkdirat + O_NOFOLLOW). MR_OK when dir
 * then exists inside root; MR_ERR_INVALID_ARGUMENT with err saying why
 * (nothing made), or MR_ERR_IO. */
mr_status mr_file_mkdirs_inside(const char *root, const char *dir, mr_error *err);

#endif
