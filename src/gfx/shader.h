/* shader.h — gfx-internal: GLSL programs read from the shader directory.
 *
 * A source file may pull in another with a line `#include "name.glsl"`
 * (one level, resolved in the same directory), so the skinning and shadow
 * code is written once. Errors name the file and carry the GLSL log. */
#ifndef MR_GFX_SHADER_H
#define MR_GFX_SHADER_H

#include <epoxy/gl.h>

#include "core/error.h"

/* Compiles dir/vert_name and dir/frag_name and links them, binding the
 * vertex attributes named in attribs (index = position in the array,
 * NULL-terminated). defines (may be NULL) is GLSL put right after each
 * file's #version line, e.g. "#define MR_SHADOWS 0\n": how one source
 * becomes several variants; the log's line numbers stay the file's.
 * Returns the program or 0 with err set. */
GLuint mr_shader_program(const char *dir, const char *vert_name, const char *frag_name, const char *defines,
                         const char *const *attribs, mr_error *err);

/* dir/name's text with its #include lines expanded (a new string; NULL
 * with err set), so that programs built later are built from the files as
 * they were read then. */
char *mr_shader_source(const char *dir, const char *name, mr_error *err);

/* mr_shader_program from texts mr_shader_source read; dir and the names
 * name the files in errors. */
GLuint mr_shader_program_text(const char *vert_src, const char *frag_src, const char *dir, const char *vert_name,
                              const char *frag_name, const char *defines, const char *const *attribs, mr_error *err);

#endif
