/* datadir.h — where marrow's own files are: the folder that holds its
 * shaders/, scripts/ (helper Lua modules) and models/ (the sample models).
 *
 * Found from the executable's own location, so a checkout, an installed
 * tree and a copy of an installed tree moved elsewhere all work from any
 * working directory. Candidates, first match wins:
 *
 *   checkout:  EXE/../..     build/release/marrow (./marrow links there)
 *              EXE/../../..  build/release/tests/test_x, build/fuzz/fuzz/x
 *              EXE/..  EXE   a program one level down, or beside the tree
 *   installed: EXE/../share/marrow   PREFIX/bin/marrow (make install, the .deb)
 *              EXE/../../../share/marrow  PREFIX/lib/lua/5.4/marrow.so (the Lua module)
 * (EXE is the running program, or for the Lua module in a plain lua5.4,
 * the marrow.so it loaded.)
 *
 * A candidate qualifies when it holds shaders/model.vert and a scripts/
 * folder. Callers keep their own environment overrides (MARROW_SHADERS,
 * MARROW_SCRIPTS) in front of this.
 */
#ifndef MR_CORE_DATADIR_H
#define MR_CORE_DATADIR_H

#include <stddef.h>

/* The data folder for an executable at exe (an absolute path, links
 * resolved), as a real path written into out (size bytes). Returns 1 when
 * one was found, 0 when no candidate qualifies or out is too small (out is
 * then ""). */
int mr_datadir_for_exe(const char *exe, char *out, size_t size);

/* The data folder of the running program (/proc/self/exe), or NULL when
 * none is found. The string is static, computed once. */
const char *mr_datadir_root(void);

#endif
