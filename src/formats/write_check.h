/* write_check.h — what every writer checks before it writes a byte: that
 * marrow's own readers will take the file back. A model with a value that
 * is not a finite number (a key, a vertex, a rest pose: unit conversion of
 * huge values overflows to inf) or a name longer than MR_WRITE_MAX_NAME is
 * refused with MR_ERR_BAD_FILE naming the first such element, and nothing
 * is written.
 */
#ifndef MR_FORMATS_WRITE_CHECK_H
#define MR_FORMATS_WRITE_CHECK_H

#include "anim/model.h"
#include "core/error.h"

/* Longest joint, mesh, material or clip name a writer writes (bytes): far
 * above any real name, far below what an XML or JSON reader refuses. */
#define MR_WRITE_MAX_NAME 4096

/* The skeleton, meshes and every clip of model; path names the file in err. */
mr_status mr_write_check_model(const mr_model *model, const char *path, mr_error *err);
/* One clip of model (a writer of a single clip, .md5anim). */
mr_status mr_write_check_clip(const mr_model *model, const mr_clip *clip, const char *path, mr_error *err);

#endif
