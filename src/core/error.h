/* error.h — status codes and error messages shared by every module.
 *
 * Functions that can fail on bad input take an `mr_error *err` (may be NULL)
 * and write one human-readable line into it, for example
 *   "md5: bob.md5mesh:42: expected '{' after 'mesh', found 'joints'".
 * The caller owns the mr_error; nothing is allocated.
 */
#ifndef MR_CORE_ERROR_H
#define MR_CORE_ERROR_H

#include <stdarg.h>

typedef enum mr_status {
    MR_OK = 0,
    MR_ERR_INVALID_ARGUMENT,   /* programmer or script passed something unusable */
    MR_ERR_JOINT_COUNT,        /* skeleton/pose/clip joint counts differ */
    MR_ERR_BAD_TIME,           /* NaN or infinite time */
    MR_ERR_EMPTY_CLIP,         /* clip has no joints or no keys at all */
    MR_ERR_BAD_FILE,           /* malformed input file */
    MR_ERR_IO,                 /* file missing or unreadable */
    MR_ERR_NO_MEMORY,          /* allocation failed or size overflowed */
    MR_ERR_LIMIT,              /* input exceeds a documented limit */
    MR_ERR_SCRIPT,             /* a Lua script raised an error */
    MR_ERR_GL,                 /* OpenGL failed: no usable context, a GL error, an incomplete framebuffer */
} mr_status;

/* Exit codes of the marrow program (the README lists them). */
enum {
    MR_EXIT_OK = 0,
    MR_EXIT_FAILED = 1,        /* a check or test failed */
    MR_EXIT_USAGE = 2,
    MR_EXIT_BAD_INPUT = 3,
    MR_EXIT_SCRIPT = 4,
};

typedef struct mr_error {
    mr_status status;
    char msg[1024];
} mr_error;

/* Records status and a printf-style message; does nothing when err is NULL.
 * A message longer than msg keeps its first 600 bytes and its end, joined
 * by " ... ", so the place and the expectation after a long path or name
 * survive.
 * Returns status so callers can write `return mr_error_set(err, ...)`. */
mr_status mr_error_set(mr_error *err, mr_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
mr_status mr_error_setv(mr_error *err, mr_status status, const char *fmt, va_list ap);

/* A short constant description of a status code ("joint count mismatch"). */
const char *mr_status_string(mr_status status);

#endif
