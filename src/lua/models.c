/* models.c — the table of loaded models (see models.h). */
#include "lua/models.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"

mr_model *mr_lua_models_lookup(const mr_lua_models *c, const char *key)
{
    for (size_t i = 0; i < c->count; i++)
        if (!strcmp(c->entries[i].key, key)) return c->entries[i].model;
    return NULL;
}

mr_status mr_lua_models_insert(mr_lua_models *c, const char *key, mr_model *model, int loaded)
{
    if (mr_alloc_reserve((void **)&c->entries, &c->cap, c->count + 1, sizeof *c->entries))
        return MR_ERR_NO_MEMORY;
    char *copy = mr_str_dup(key);
    if (!copy) return MR_ERR_NO_MEMORY;
    c->entries[c->count++] = (mr_lua_models_entry){copy, model};
    c->loads += loaded;
    return MR_OK;
}

void mr_lua_models_clear(mr_lua_models *c)
{
    for (size_t i = 0; i < c->count; i++) {
        mr_model_destroy(c->entries[i].model);
        free(c->entries[i].key);
    }
    free(c->entries);
    *c = (mr_lua_models){0};
}
