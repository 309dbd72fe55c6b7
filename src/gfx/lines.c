/* lines.c — debug lines and point markers: recorded in world space during a
 * frame, streamed into one vertex buffer and drawn by renderer.c's passes. */
#include <string.h>

#include "gfx/internal.h"

void gfx_lines_init(mr_renderer *r)
{
    glGenVertexArrays(1, &r->line_vao);
    glGenBuffers(1, &r->line_vbo);
    glBindVertexArray(r->line_vao);
    glBindBuffer(GL_ARRAY_BUFFER, r->line_vbo);
    GLsizei stride = sizeof(gfx_line_vertex);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, stride, (void *)offsetof(gfx_line_vertex, pos));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, stride, (void *)offsetof(gfx_line_vertex, colour));
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(2, 1, GL_FLOAT, GL_FALSE, stride, (void *)offsetof(gfx_line_vertex, size));
    glBindVertexArray(0);
    r->line_vbo_cap = 0;
}

void gfx_lines_free(mr_renderer *r)
{
    glDeleteVertexArrays(1, &r->line_vao);
    glDeleteBuffers(1, &r->line_vbo);
    free(r->lines.data);
    free(r->overlay_lines.data);
    free(r->points.data);
    memset(&r->lines, 0, sizeof r->lines);
    memset(&r->overlay_lines, 0, sizeof r->overlay_lines);
    memset(&r->points, 0, sizeof r->points);
}

static void push(gfx_line_array *arr, const float *p, const float *c, float size)
{
    if (GFX_RESERVE(*arr, arr->count + 1) != 0) return;
    gfx_line_vertex *v = &arr->data[arr->count++];
    memcpy(v->pos, p, sizeof v->pos);
    memcpy(v->colour, c, sizeof v->colour);
    v->size = size;
}

void mr_renderer_line(mr_renderer *r, const vec3 a, const vec3 b, const float colour[4], int flags)
{
    if (!r->in_frame) return;
    gfx_line_array *arr = (flags & MR_LINE_OVERLAY) ? &r->overlay_lines : &r->lines;
    if (GFX_RESERVE(*arr, arr->count + 2) != 0) return;
    push(arr, a, colour, 1.0f);
    push(arr, b, colour, 1.0f);
}

void mr_renderer_point(mr_renderer *r, const vec3 p, const float colour[4], float size)
{
    if (!r->in_frame) return;
    push(&r->points, p, colour, size > 0 ? size : 6.0f);
}

/* Uploads verts into the shared stream buffer, growing it when needed. */
static void stream(mr_renderer *r, const gfx_line_vertex *verts, size_t n)
{
    size_t bytes = n * sizeof *verts;
    glBindBuffer(GL_ARRAY_BUFFER, r->line_vbo);
    if (bytes > r->line_vbo_cap) {
        size_t cap = r->line_vbo_cap ? r->line_vbo_cap : 4096;
        while (cap < bytes) cap *= 2;
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)cap, NULL, GL_STREAM_DRAW);
        r->line_vbo_cap = cap;
    }
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)bytes, verts);
}

void gfx_lines_draw(mr_renderer *r, int overlay)
{
    glUseProgram(r->prog.line);
    glUniformMatrix4fv(glGetUniformLocation(r->prog.line, "u_view_proj"), 1, GL_FALSE,
                       (const float *)r->view_proj);
    glBindVertexArray(r->line_vao);
    if (!overlay) {
        if (r->lines.count) {
            stream(r, r->lines.data, r->lines.count);
            glDrawArrays(GL_LINES, 0, (GLsizei)r->lines.count);
        }
    } else {
        if (r->overlay_lines.count) {
            stream(r, r->overlay_lines.data, r->overlay_lines.count);
            glDrawArrays(GL_LINES, 0, (GLsizei)r->overlay_lines.count);
        }
        if (r->points.count) {
            /* glBufferSubData after a draw from the same buffer is ordered by GL. */
            stream(r, r->points.data, r->points.count);
            glEnable(GL_PROGRAM_POINT_SIZE);
            glDrawArrays(GL_POINTS, 0, (GLsizei)r->points.count);
            glDisable(GL_PROGRAM_POINT_SIZE);
        }
    }
    glBindVertexArray(0);
    r->stats.lines += (int)((overlay ? r->overlay_lines.count : r->lines.count) / 2);
}
