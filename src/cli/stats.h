/* stats.h — resource counters printed while a program runs, for soak runs
 * (scripts/soak.sh): with MARROW_STATS_EVERY=N in the environment, `marrow
 * run` prints one line to stderr every N frames (and at frame 0):
 *
 *   stats: frame=F rss_kb=R heap_kb=H fds=D lua_kb=L gl_buffers=B
 *          gl_textures=T gl_vaos=V gl_fbos=FB gl_rbos=RB gl_programs=P
 *          gl_shaders=S
 *
 * (one line). rss_kb and fds come from /proc/self; heap_kb is what malloc
 * has handed out and not had back (glibc's mallinfo2: all arenas and mmapped
 * blocks; -1 elsewhere), which fragmentation does not move; the GL counts are the
 * names for which glIsBuffer, glIsTexture, ... answer true in the current
 * context (probed upwards past the name the driver would hand out next, then
 * until 4096 names in a row are free), -1 without a context. Nothing is printed when the variable is unset.
 */
#ifndef MR_CLI_STATS_H
#define MR_CLI_STATS_H

#include <stdint.h>

#include "lua/script.h"

/* Prints the line for frame when MARROW_STATS_EVERY asks for it. has_gl: a
 * GL context is current. */
void mr_stats_tick(const mr_lua_ctx *ctx, uint64_t frame, int has_gl);

#endif
