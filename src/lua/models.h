/* models.h — the table of loaded models of a script context (internal to
 * src/lua): models loaded once per key (resolved path + "\n" + resolved anims) and
 * shared by every script state, so a reload loads nothing. The table owns
 * its models until mr_lua_models_clear; a model pointer stays valid that long
 * (bindings and the drawing glue rely on it). It holds no GPU state: the
 * drawing glue keeps its own map from model to GPU handle. */
#ifndef MR_LUA_MODELS_H
#define MR_LUA_MODELS_H

#include "anim/model.h"

typedef struct mr_lua_models_entry {
    char *key;
    mr_model *model;         /* owned */
} mr_lua_models_entry;

typedef struct mr_lua_models {
    mr_lua_models_entry *entries;
    size_t count, cap;
    int loads;               /* models loaded from disk (mr_lua_models_insert with loaded = 1) */
} mr_lua_models;

/* The model under key, or NULL. */
mr_model *mr_lua_models_lookup(const mr_lua_models *c, const char *key);
/* Adds model under key (the table takes it; counted as a load when
 * loaded). MR_OK, or MR_ERR_NO_MEMORY (model not taken). */
mr_status mr_lua_models_insert(mr_lua_models *c, const char *key, mr_model *model, int loaded);
/* Frees every model and the tables. */
void mr_lua_models_clear(mr_lua_models *c);

#endif
