/* shader.c — loads, expands (#include) and compiles GLSL files into programs,
 * and finds the project's shaders/ directory. */
#include "gfx/shader.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/datadir.h"
#include "core/file.h"
#include "core/path.h"
#include "core/str.h"
#include "gfx/renderer.h"

/* Reads dir/name and replaces each `#include "x"` line with dir/x's text. */
static char *load_source(const char *dir, const char *name, mr_error *err)
{
    char *path = mr_path_join(dir, name);
    if (!path) {
        mr_error_set(err, MR_ERR_NO_MEMORY, "gfx: out of memory");
        return NULL;
    }
    mr_error ioerr = {0};
    char *text = mr_file_read(path, NULL, &ioerr);
    free(path);
    if (!text) {
        mr_error_set(err, MR_ERR_IO, "gfx: cannot read shader: %s (shader directory %s; set "
                     "MARROW_SHADERS to override)", ioerr.msg, dir);
        return NULL;
    }
    char *out = NULL;
    size_t len = 0, cap = 0;
    const char *p = text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p + 1) : strlen(p);
        const char *piece = p;
        size_t piece_len = n;
        char *inc = NULL;
        const char *s = p;
        while (*s == ' ' || *s == '\t') s++;
        if (strncmp(s, "#include", 8) == 0) {
            const char *q1 = memchr(s, '"', n - (size_t)(s - p));
            const char *q2 = q1 ? memchr(q1 + 1, '"', n - (size_t)(q1 + 1 - p)) : NULL;
            if (!q2) {
                mr_error_set(err, MR_ERR_BAD_FILE, "gfx: %s/%s: expected #include \"file\"", dir, name);
                free(text);
                free(out);
                return NULL;
            }
            char *inc_name = mr_str_ndup(q1 + 1, (size_t)(q2 - q1 - 1));
            char *inc_path = inc_name ? mr_path_join(dir, inc_name) : NULL;
            inc = inc_path ? mr_file_read(inc_path, &piece_len, &ioerr) : NULL;
            free(inc_name);
            free(inc_path);
            if (!inc) {
                mr_error_set(err, MR_ERR_IO, "gfx: %s/%s: cannot include: %s", dir, name, ioerr.msg);
                free(text);
                free(out);
                return NULL;
            }
            piece = inc;
        }
        if (mr_alloc_reserve((void **)&out, &cap, len + piece_len + 2, 1) != 0) {
            free(inc);
            free(text);
            free(out);
            mr_error_set(err, MR_ERR_NO_MEMORY, "gfx: out of memory");
            return NULL;
        }
        memcpy(out + len, piece, piece_len);
        len += piece_len;
        if (inc && (piece_len == 0 || piece[piece_len - 1] != '\n')) out[len++] = '\n';
        out[len] = 0;
        free(inc);
        p += n;
    }
    free(text);
    if (!out) out = mr_str_dup("");
    return out;
}

char *mr_shader_source(const char *dir, const char *name, mr_error *err)
{
    return load_source(dir, name, err);
}

/* Compiles src (dir/name's expanded text: dir and name only name it in the
 * error). */
static GLuint compile(GLenum type, const char *src, const char *dir, const char *name, const char *defines,
                      mr_error *err)
{
    GLuint sh = glCreateShader(type);
    /* The defines go after the #version line (which must come first); a
     * #line directive keeps the log's line numbers those of the file. */
    const char *body = src;
    if (strncmp(src, "#version", 8) == 0) {
        const char *eol = strchr(src, '\n');
        body = eol ? eol + 1 : src + strlen(src);
    }
    const char *srcs[4] = {src, defines ? defines : "", body != src ? "#line 2\n" : "", body};
    GLint lens[4] = {(GLint)(body - src), -1, -1, -1};
    glShaderSource(sh, 4, srcs, lens);
    glCompileShader(sh);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[800];
        GLsizei n = 0;
        glGetShaderInfoLog(sh, sizeof log, &n, log);
        while (n > 0 && (log[n - 1] == '\n' || log[n - 1] == ' ')) log[--n] = 0;
        mr_error_set(err, MR_ERR_BAD_FILE, "gfx: shader %s/%s does not compile%s%s:\n%s", dir, name,
                     defines && *defines ? " with " : "", defines && *defines ? defines : "", log);
        glDeleteShader(sh);
        return 0;
    }
    return sh;
}

GLuint mr_shader_program_text(const char *vert_src, const char *frag_src, const char *dir, const char *vert_name,
                              const char *frag_name, const char *defines, const char *const *attribs, mr_error *err)
{
    GLuint vs = compile(GL_VERTEX_SHADER, vert_src, dir, vert_name, defines, err);
    if (!vs) return 0;
    GLuint fs = compile(GL_FRAGMENT_SHADER, frag_src, dir, frag_name, defines, err);
    if (!fs) {
        glDeleteShader(vs);
        return 0;
    }
    GLuint prog = glCreateProgram();
    glAttachShader(prog, vs);
    glAttachShader(prog, fs);
    for (int i = 0; attribs && attribs[i]; i++) glBindAttribLocation(prog, (GLuint)i, attribs[i]);
    glLinkProgram(prog);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[800];
        GLsizei n = 0;
        glGetProgramInfoLog(prog, sizeof log, &n, log);
        while (n > 0 && (log[n - 1] == '\n' || log[n - 1] == ' ')) log[--n] = 0;
        mr_error_set(err, MR_ERR_BAD_FILE, "gfx: shaders %s/%s + %s do not link:\n%s", dir,
                     vert_name, frag_name, log);
        glDeleteProgram(prog);
        return 0;
    }
    return prog;
}

GLuint mr_shader_program(const char *dir, const char *vert_name, const char *frag_name, const char *defines,
                         const char *const *attribs, mr_error *err)
{
    char *vs = load_source(dir, vert_name, err), *fs = vs ? load_source(dir, frag_name, err) : NULL;
    GLuint prog = fs ? mr_shader_program_text(vs, fs, dir, vert_name, frag_name, defines, attribs, err) : 0;
    free(vs);
    free(fs);
    return prog;
}

const char *mr_renderer_shader_dir(void)
{
    static char found[PATH_MAX];
    const char *env = getenv("MARROW_SHADERS");
    if (env && *env) return env;
    if (found[0]) return found;

    const char *root = mr_datadir_root();  /* a checkout or an installed tree (core/datadir.h) */
    if (root && (size_t)snprintf(found, sizeof found, "%s/shaders", root) < sizeof found) return found;
    snprintf(found, sizeof found, "shaders");
    return found;
}
