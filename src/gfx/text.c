/* text.c — HUD text: printable ASCII baked once from a TrueType font with
 * stb_truetype into a one-channel atlas, drawn as screen-space quads with a
 * dark drop shadow. Without the font, text calls draw nothing (one warning). */
#include <stdlib.h>
#include <string.h>

#include <stb_truetype.h>

#include "core/file.h"
#include "gfx/internal.h"

#define FONT_FIRST 32
#define FONT_COUNT 95      /* ' ' .. '~' */
#define DEFAULT_FONT "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

void gfx_font_init(mr_renderer *r)
{
    const char *path = r->desc.font_path ? r->desc.font_path : DEFAULT_FONT;
    r->font_px = r->desc.font_px > 4 ? r->desc.font_px : 15.0f;
    mr_error err = {0};
    size_t size = 0;
    unsigned char *ttf = (unsigned char *)mr_file_read(path, &size, &err);
    if (!ttf) {
        gfx_warn(r, "no font for on-screen text (%s; install fonts-dejavu-core); text is skipped",
                 err.msg);
        return;
    }
    int w = 512, h = 512;
    unsigned char *bitmap = calloc((size_t)w, (size_t)h);
    stbtt_bakedchar *baked = calloc(FONT_COUNT, sizeof *baked);
    stbtt_fontinfo info;
    int ok = bitmap && baked && stbtt_GetNumberOfFonts(ttf) > 0 &&
             stbtt_InitFont(&info, ttf, stbtt_GetFontOffsetForIndex(ttf, 0));
    int used_rows = 0;
    if (ok) ok = (used_rows = stbtt_BakeFontBitmap(ttf, 0, r->font_px, bitmap, w, h, FONT_FIRST, FONT_COUNT, baked)) > 0;
    if (!ok) {
        gfx_warn(r, "font '%s' cannot be used (not a TrueType font, or too large for the atlas); "
                 "text is skipped", path);
        free(ttf);
        free(bitmap);
        free(baked);
        return;
    }
    int ascent, descent, gap;
    stbtt_GetFontVMetrics(&info, &ascent, &descent, &gap);
    float scale = stbtt_ScaleForPixelHeight(&info, r->font_px);
    r->font_ascent = (float)ascent * scale;
    r->font_line = (float)(ascent - descent + gap) * scale;
    free(ttf);

    /* One solid texel in the corner no glyph reached: panels sample it. */
    if (used_rows < h) {
        bitmap[(size_t)(h - 1) * (size_t)w + (size_t)(w - 1)] = 255;
        r->has_solid = 1;
    }

    glGenTextures(1, &r->font_tex);
    glBindTexture(GL_TEXTURE_2D, r->font_tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, w, h, 0, GL_RED, GL_UNSIGNED_BYTE, bitmap);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glBindTexture(GL_TEXTURE_2D, 0);
    free(bitmap);
    r->baked = baked;
    r->font_w = w;
    r->font_h = h;
    r->has_font = 1;

    glGenVertexArrays(1, &r->text_vao);
    glGenBuffers(1, &r->text_vbo);
    glBindVertexArray(r->text_vao);
    glBindBuffer(GL_ARRAY_BUFFER, r->text_vbo);
    GLsizei stride = sizeof(gfx_text_vertex);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, stride, (void *)offsetof(gfx_text_vertex, pos));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, stride, (void *)offsetof(gfx_text_vertex, uv));
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(2, 4, GL_FLOAT, GL_FALSE, stride, (void *)offsetof(gfx_text_vertex, colour));
    glBindVertexArray(0);
}

void gfx_font_free(mr_renderer *r)
{
    if (r->font_tex) glDeleteTextures(1, &r->font_tex);
    if (r->text_vao) glDeleteVertexArrays(1, &r->text_vao);
    if (r->text_vbo) glDeleteBuffers(1, &r->text_vbo);
    free(r->baked);
    free(r->text.data);
    memset(&r->text, 0, sizeof r->text);
    r->baked = NULL;
    r->has_font = 0;
    r->has_solid = 0;
}

float mr_renderer_text_height(const mr_renderer *r)
{
    return r->has_font ? r->font_line : 0.0f;
}

float mr_renderer_text_width(const mr_renderer *r, const char *s, size_t n)
{
    if (!r->has_font) return 0.0f;
    float x = 0.0f, y = 0.0f;
    for (size_t i = 0; i < n && s[i] && s[i] != '\n'; i++) {
        unsigned char c = (unsigned char)s[i];
        int ch = (c >= FONT_FIRST && c < FONT_FIRST + FONT_COUNT) ? c : '?';
        stbtt_aligned_quad q;
        stbtt_GetBakedQuad(r->baked, r->font_w, r->font_h, ch - FONT_FIRST, &x, &y, &q, 1);
    }
    return x;
}

/* Appends the glyph quads of s at (x, y) (top-left) in colour c; returns the
 * widest line's width. */
static float emit(mr_renderer *r, float x, float y, const char *s, const float *c)
{
    const stbtt_bakedchar *baked = r->baked;
    float pen_x = x, pen_y = y + r->font_ascent, widest = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\n') {
            if (pen_x - x > widest) widest = pen_x - x;
            pen_x = x;
            pen_y += r->font_line;
            continue;
        }
        int ch = (*p >= FONT_FIRST && *p < FONT_FIRST + FONT_COUNT) ? *p : '?';
        stbtt_aligned_quad q;
        stbtt_GetBakedQuad(baked, r->font_w, r->font_h, ch - FONT_FIRST, &pen_x, &pen_y, &q, 1);
        if (ch == ' ') continue;
        if (GFX_RESERVE(r->text, r->text.count + 6) != 0) break;
        const float quad[6][4] = {
            {q.x0, q.y0, q.s0, q.t0}, {q.x1, q.y0, q.s1, q.t0}, {q.x1, q.y1, q.s1, q.t1},
            {q.x0, q.y0, q.s0, q.t0}, {q.x1, q.y1, q.s1, q.t1}, {q.x0, q.y1, q.s0, q.t1},
        };
        for (int i = 0; i < 6; i++) {
            gfx_text_vertex *v = &r->text.data[r->text.count++];
            v->pos[0] = quad[i][0];
            v->pos[1] = quad[i][1];
            v->uv[0] = quad[i][2];
            v->uv[1] = quad[i][3];
            memcpy(v->colour, c, sizeof v->colour);
        }
    }
    if (pen_x - x > widest) widest = pen_x - x;
    return widest;
}

float mr_renderer_text(mr_renderer *r, float x, float y, const char *s, const mr_text_style *style)
{
    if (!r->has_font || !r->in_frame || !s) return 0.0f;
    float colour[4] = {1, 1, 1, 1};
    if (style && (style->colour[0] || style->colour[1] || style->colour[2] || style->colour[3]))
        memcpy(colour, style->colour, sizeof colour);
    if (!style || !style->no_shadow) {
        const float shadow[4] = {0, 0, 0, 0.75f * colour[3]};
        emit(r, x + 1, y + 1, s, shadow);
    }
    return emit(r, x, y, s, colour);
}

void mr_renderer_panel(mr_renderer *r, float x, float y, float w, float h, const float colour[4])
{
    if (!r->has_solid || !r->in_frame || !(w > 0) || !(h > 0)) return;
    if (GFX_RESERVE(r->text, r->text.count + 6) != 0) return;
    /* The centre of the solid texel: bilinear filtering reads it alone. */
    float s = ((float)r->font_w - 0.5f) / (float)r->font_w, t = ((float)r->font_h - 0.5f) / (float)r->font_h;
    const float quad[6][2] = {{x, y}, {x + w, y}, {x + w, y + h}, {x, y}, {x + w, y + h}, {x, y + h}};
    for (int i = 0; i < 6; i++) {
        gfx_text_vertex *v = &r->text.data[r->text.count++];
        v->pos[0] = quad[i][0];
        v->pos[1] = quad[i][1];
        v->uv[0] = s;
        v->uv[1] = t;
        memcpy(v->colour, colour, sizeof v->colour);
    }
}

void gfx_text_draw(mr_renderer *r)
{
    if (!r->has_font || r->text.count == 0) return;
    size_t bytes = r->text.count * sizeof *r->text.data;
    glBindBuffer(GL_ARRAY_BUFFER, r->text_vbo);
    if (bytes > r->text_vbo_cap) {
        size_t cap = r->text_vbo_cap ? r->text_vbo_cap : 16384;
        while (cap < bytes) cap *= 2;
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)cap, NULL, GL_STREAM_DRAW);
        r->text_vbo_cap = cap;
    }
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)bytes, r->text.data);
    glUseProgram(r->prog.text);
    glUniform2f(glGetUniformLocation(r->prog.text, "u_screen"), (float)r->width, (float)r->height);
    glUniform1i(glGetUniformLocation(r->prog.text, "u_font"), 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, r->font_tex);
    glBindVertexArray(r->text_vao);
    glDrawArrays(GL_TRIANGLES, 0, (GLsizei)r->text.count);
    glBindVertexArray(0);
    r->stats.glyphs = (int)(r->text.count / 6);
}
