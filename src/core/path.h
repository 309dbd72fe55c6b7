/* path.h — path strings: base name, directory, stem, extension, join.
 *
 * Paths are plain '/'-separated strings. Returned strings are owned by the
 * caller (free()) unless the function says it returns a pointer into its input.
 */
#ifndef MR_CORE_PATH_H
#define MR_CORE_PATH_H

#include <stddef.h>

/* Pointer into path after the last '/'. */
const char *mr_path_basename(const char *path);
/* Directory part of path ("." when none), new string. */
char *mr_path_dirname(const char *path);
/* Base name without its last extension ("walk" for "a/walk.md5anim"), new string. */
char *mr_path_stem(const char *path);
/* Extension after the last '.', lower-cased into buf ("" when none). */
const char *mr_path_ext(const char *path, char *buf, size_t bufsize);
/* dir + "/" + name, or name alone when name is absolute or dir is empty. */
char *mr_path_join(const char *dir, const char *name);

/* Absolute form of path (relative ones against the working directory) with
 * "." and ".." resolved textually, new string; NULL without memory or
 * working directory. */
char *mr_path_absolute(const char *path);
/* target relative to the directory dir ("../tex/a.png"), new string; target
 * itself when either cannot be made absolute. */
char *mr_path_relative(const char *dir, const char *target);

/* s with %XX escapes decoded (others kept as written), new string; *len
 * (may be NULL) gets the decoded length, which tells a %00 apart. */
char *mr_path_url_decode(const char *s, size_t *len);

#endif
