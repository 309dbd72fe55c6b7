/* stats.c — resource counters for soak runs (see stats.h). */
#include <epoxy/gl.h>

#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/stats.h"

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return -1;
    long pages = 0, resident = 0;
    int n = fscanf(f, "%ld %ld", &pages, &resident);
    fclose(f);
    return n == 2 ? resident * (sysconf(_SC_PAGESIZE) / 1024) : -1;
}

/* Bytes malloc has handed out and not had back (all arenas, mmapped blocks
 * included): unlike rss_kb, this does not move with fragmentation or with
 * pages the allocator keeps, so a leak shows as a steady climb. */
static long heap_kb(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 mi = mallinfo2();
    return (long)((mi.uordblks + mi.hblkhd) / 1024);
#else
    return -1;
#endif
}

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n - 1;  /* the directory's own descriptor */
}

/* Live names of one GL object kind: probes 1, 2, ... up to `next` (the
 * name the driver hands out now) and on until 4096 names in a row are not
 * objects. Mesa hands out names above the highest ever used, so after many
 * reloads (programs and shaders are made anew on each shader reload) every
 * live name can sit above 4096 dead ones: a gap rule alone counted 0. */
static long gl_count(GLboolean (*is)(GLuint), GLuint next)
{
    long count = 0;
    GLuint gap = 0;
    for (GLuint name = 1; name <= next || gap < 4096; name++) {
        if (is(name)) {
            count++;
            gap = 0;
        } else {
            gap++;
        }
    }
    return count;
}

static GLboolean is_buffer(GLuint n) { return glIsBuffer(n); }
static GLboolean is_texture(GLuint n) { return glIsTexture(n); }
static GLboolean is_vao(GLuint n) { return glIsVertexArray(n); }
static GLboolean is_fbo(GLuint n) { return glIsFramebuffer(n); }
static GLboolean is_rbo(GLuint n) { return glIsRenderbuffer(n); }
static GLboolean is_program(GLuint n) { return glIsProgram(n); }
static GLboolean is_shader(GLuint n) { return glIsShader(n); }

/* The name the driver would hand out next, for each kind: made and deleted
 * at once (a name made by glGen* and never bound is no object). */
static GLuint next_buffer(void) { GLuint n = 0; glGenBuffers(1, &n); glDeleteBuffers(1, &n); return n; }
static GLuint next_texture(void) { GLuint n = 0; glGenTextures(1, &n); glDeleteTextures(1, &n); return n; }
static GLuint next_vao(void) { GLuint n = 0; glGenVertexArrays(1, &n); glDeleteVertexArrays(1, &n); return n; }
static GLuint next_fbo(void) { GLuint n = 0; glGenFramebuffers(1, &n); glDeleteFramebuffers(1, &n); return n; }
static GLuint next_rbo(void) { GLuint n = 0; glGenRenderbuffers(1, &n); glDeleteRenderbuffers(1, &n); return n; }
static GLuint next_program(void) { GLuint n = glCreateProgram(); glDeleteProgram(n); return n; }
static GLuint next_shader(void) { GLuint n = glCreateShader(GL_VERTEX_SHADER); glDeleteShader(n); return n; }

void mr_stats_tick(const mr_lua_ctx *ctx, uint64_t frame, int has_gl)
{
    static long every = -1;
    if (every < 0) {
        const char *env = getenv("MARROW_STATS_EVERY");
        every = env ? atol(env) : 0;
        if (every < 0) every = 0;
    }
    if (every == 0 || frame % (uint64_t)every != 0) return;
    long gl[7] = {-1, -1, -1, -1, -1, -1, -1};
    if (has_gl) {
        GLboolean (*is[7])(GLuint) = {is_buffer, is_texture, is_vao, is_fbo, is_rbo, is_program, is_shader};
        GLuint (*next[7])(void) = {next_buffer, next_texture, next_vao, next_fbo, next_rbo, next_program,
                                   next_shader};
        for (int i = 0; i < 7; i++) gl[i] = gl_count(is[i], next[i]());
    }
    fprintf(stderr,
            "stats: frame=%llu rss_kb=%ld heap_kb=%ld fds=%d lua_kb=%zu gl_buffers=%ld gl_textures=%ld gl_vaos=%ld "
            "gl_fbos=%ld gl_rbos=%ld gl_programs=%ld gl_shaders=%ld\n",
            (unsigned long long)frame, rss_kb(), heap_kb(), open_fds(), ctx ? mr_lua_memory(ctx) / 1024 : 0, gl[0], gl[1],
            gl[2], gl[3], gl[4], gl[5], gl[6]);
    fflush(stderr);
}
