/* version.h — marrow's version, in this one place: `marrow --version`,
 * marrow.version in Lua, the man page, the .deb and the rockspec (the
 * Makefile reads it from this line). */
#ifndef MR_CORE_VERSION_H
#define MR_CORE_VERSION_H

#define MR_VERSION "0.1"

#endif
