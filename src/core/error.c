/* error.c — status strings and message formatting for mr_error. */
#include "core/error.h"

#include <stdio.h>

mr_status mr_error_setv(mr_error *err, mr_status status, const char *fmt, va_list ap)
{
    if (err) {
        err->status = status;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    }
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
    }
    return "unknown status";
}
