/* error.c — status strings and message formatting for mr_error. */
#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A message longer than mr_error.msg keeps its start and its end around
 * MR_ERROR_CUT (" ... "): a long path or name in the middle loses its
 * middle, not the line number and expectation after it. Cuts fall between
 * UTF-8 characters. */
#define MR_ERROR_CUT " ... "
#define MR_ERROR_HEAD 600

mr_status mr_error_setv(mr_error *err, mr_status status, const char *fmt, va_list ap)
{
    if (!err) return status;
    err->status = status;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    if (n >= (int)sizeof err->msg) {
        char *whole = malloc((size_t)n + 1);
        if (whole && vsnprintf(whole, (size_t)n + 1, fmt, again) == n) {
            size_t cut = sizeof MR_ERROR_CUT - 1;
            size_t head = MR_ERROR_HEAD, tail = sizeof err->msg - 1 - head - cut;
            while (head > 0 && ((unsigned char)whole[head] & 0xC0) == 0x80) head--;
            size_t from = (size_t)n - tail;
            while (from < (size_t)n && ((unsigned char)whole[from] & 0xC0) == 0x80) from++;
            memcpy(err->msg, whole, head);
            memcpy(err->msg + head, MR_ERROR_CUT, cut);
            memcpy(err->msg + head + cut, whole + from, (size_t)n - from + 1);
        }
        free(whole);
    }
    va_end(again);
    return status;
}

mr_status mr_error_set(mr_error *err, mr_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mr_error_setv(err, status, fmt, ap);
    va_end(ap);
    return status;
}

const char *mr_status_string(mr_status status)
{
    switch (status) {
    case MR_OK: return "ok";
    case MR_ERR_INVALID_ARGUMENT: return "invalid argument";
    case MR_ERR_JOINT_COUNT: return "joint count mismatch";
    case MR_ERR_BAD_TIME: return "time is not a finite number";
    case MR_ERR_EMPTY_CLIP: return "empty clip";
    case MR_ERR_BAD_FILE: return "malformed file";
    case MR_ERR_IO: return "cannot read file";
    case MR_ERR_NO_MEMORY: return "out of memory";
    case MR_ERR_LIMIT: return "limit exceeded";
    case MR_ERR_SCRIPT: return "script error";
    case MR_ERR_GL: return "OpenGL error";
    }
    return "unknown status";
}
