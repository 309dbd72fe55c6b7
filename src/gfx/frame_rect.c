/* frame_rect.c — the window rectangles that limit passes to the part of
 * the frame they can change: where the floor can show a shadow
 * (gfx_shadow_footprint_rect) and where FXAA has edges to smooth
 * (gfx_fxaa_rect), and a box's area on screen (gfx_screen_area); see
 * internal.h. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "gfx/internal.h"

/* Keeps the part of the convex polygon p (n points, 4 floats each) where
 * dot(plane, point) >= 0; returns the new count (at most n + 1, out holds
 * room for it). */
static int clip_polygon(const float (*p)[4], int n, const float plane[4], float (*out)[4])
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        const float *a = p[i], *b = p[(i + 1) % n];
        float da = plane[0] * a[0] + plane[1] * a[1] + plane[2] * a[2] + plane[3] * a[3];
        float db = plane[0] * b[0] + plane[1] * b[1] + plane[2] * b[2] + plane[3] * b[3];
        if (da >= 0) memcpy(out[m++], a, sizeof out[0]);
        if ((da >= 0) != (db >= 0)) {
            float t = da / (da - db);
            for (int k = 0; k < 4; k++) out[m][k] = a[k] + (b[k] - a[k]) * t;
            m++;
        }
    }
    return m;
}

/* A window rectangle grown one clip-space point at a time (GL pixels, y
 * up), for the passes that only need part of the frame. */
typedef struct screen_box {
    float x0, y0, x1, y1;
    int unbounded;       /* a point on or behind the camera plane */
} screen_box;
#define SCREEN_BOX_EMPTY {FLT_MAX, FLT_MAX, -FLT_MAX, -FLT_MAX, 0}

static void screen_box_add(screen_box *b, const mr_renderer *r, const float clip[4])
{
    if (!(clip[3] > 1e-7f)) {
        b->unbounded = 1;
        return;
    }
    float x = (clip[0] / clip[3] * 0.5f + 0.5f) * (float)r->width;
    float y = (clip[1] / clip[3] * 0.5f + 0.5f) * (float)r->height;
    b->x0 = fminf(b->x0, x);
    b->y0 = fminf(b->y0, y);
    b->x1 = fmaxf(b->x1, x);
    b->y1 = fmaxf(b->y1, y);
}

/* The box padded by pad pixels and cut to the window as {x0, y0, x1, y1}
 * (x1/y1 exclusive). Returns 1 with rect set, 0 when it holds no pixel, -1
 * when it is unbounded on screen. */
static int screen_box_rect(const screen_box *b, const mr_renderer *r, float pad, int rect[4])
{
    if (b->unbounded) return -1;
    float x0 = fmaxf(floorf(b->x0) - pad, 0.0f);
    float y0 = fmaxf(floorf(b->y0) - pad, 0.0f);
    float x1 = fminf(ceilf(b->x1) + pad, (float)r->width);
    float y1 = fminf(ceilf(b->y1) + pad, (float)r->height);
    if (!(x1 > x0 && y1 > y0)) return 0;
    rect[0] = (int)x0;
    rect[1] = (int)y0;
    rect[2] = (int)x1;
    rect[3] = (int)y1;
    return 1;
}

/* Adds to box the floor pixels whose shadow lookups fall in the light's
 * NDC rectangle (lx0, ly0)-(lx1, ly1), cut to the light's box: the
 * rectangle taken along the light (dir, per unit of NDC z; inv: the light's
 * inverse view-projection) to the plane the lookups use (lookup_y), cut to
 * the floor square (alpha 0 beyond it) and at the camera's near plane.
 * Returns -1 when a corner cannot be placed on the plane, else 0. */
static int add_light_rect(screen_box *box, const mr_renderer *r, const mat4 inv, const vec4 dir,
                          float lookup_y, float lx0, float ly0, float lx1, float ly1)
{
    const mr_scene *s = &r->scene;
    lx0 = fmaxf(lx0, -1.0f);
    ly0 = fmaxf(ly0, -1.0f);
    lx1 = fminf(lx1, 1.0f);
    ly1 = fminf(ly1, 1.0f);
    if (!(lx1 > lx0 && ly1 > ly0)) return 0;
    float poly[12][4];
    const float corners[4][2] = {{lx0, ly0}, {lx1, ly0}, {lx1, ly1}, {lx0, ly1}};
    for (int i = 0; i < 4; i++) {
        vec4 base;
        glm_mat4_mulv((vec4 *)inv, (vec4){corners[i][0], corners[i][1], 0, 1}, base);
        float t = (lookup_y - base[1]) / dir[1];
        poly[i][0] = base[0] + dir[0] * t;
        poly[i][1] = s->floor_y;
        poly[i][2] = base[2] + dir[2] * t;
        poly[i][3] = 1.0f;
        if (!isfinite(poly[i][0]) || !isfinite(poly[i][2])) return -1;
    }
    int n = 4;
    float tmp[12][4];
    const float cx = s->floor_center[0], cz = s->floor_center[1], e = s->floor_extent;
    const float square[4][4] = {{1, 0, 0, e - cx}, {-1, 0, 0, e + cx}, {0, 0, 1, e - cz},
                                {0, 0, -1, e + cz}};
    for (int k = 0; k < 4 && n > 0; k++) {
        n = clip_polygon((const float (*)[4])poly, n, square[k], tmp);
        memcpy(poly, tmp, sizeof(float[4]) * (size_t)n);
    }
    /* to clip space, then cut at the near plane (z >= -w), as GL does */
    for (int i = 0; i < n; i++) {
        vec4 c;
        glm_mat4_mulv((vec4 *)r->view_proj, poly[i], c);
        memcpy(poly[i], c, sizeof c);
    }
    const float near_plane[4] = {0, 0, 1, 1};
    n = clip_polygon((const float (*)[4])poly, n, near_plane, tmp);
    for (int i = 0; i < n; i++) screen_box_add(box, r, tmp[i]);
    return 0;
}

/* The window rectangle {x0, y0, x1, y1} (GL pixels, y up, x1/y1 exclusive)
 * holding every floor pixel whose shadow lookup can see a caster. Everywhere
 * else lighting.glsl's answer is exactly "lit", as the unshadowed program
 * computes: outside the light's box it returns 1 without a lookup, and
 * where the map holds no caster all four taps compare against the cleared
 * depth and pass. Every skinned vertex lies in the convex hull of the
 * cast spheres of its joints (gfx_model.cast_spheres; grown by a hundredth
 * of the frame's bounds, bmin and bmax, for rounding), so the casters lie
 * in the rectangle those spheres cover in the light's view, grown by the
 * taps' reach of two texels; add_light_rect takes it to the floor and the
 * window, and the rectangle is padded by two pixels for the rasteriser's
 * rounding and MSAA's off-centre edge fragments.
 * Returns 1 with rect set, 0 when no floor pixel can be in shadow, -1 when
 * the footprint cannot be bounded (a light grazing the floor plane). */
int gfx_shadow_footprint_rect(const mr_renderer *r, const mat4 light_vp, float texel_world,
                              const vec3 bmin, const vec3 bmax, int rect[4])
{
    const mr_scene *s = &r->scene;
    mat4 inv;
    glm_mat4_inv((vec4 *)light_vp, inv);
    /* lighting.glsl's lookup point for the floor's normal (0, 1, 0) */
    float slope = 1.0f - fmaxf(s->lights[0].direction[1], 0.0f);
    float lookup_y = s->floor_y + texel_world * 1.5f * (0.5f + 1.5f * slope);
    vec4 dir;
    glm_mat4_mulv(inv, (vec4){0, 0, 1, 0}, dir);  /* along the light, per unit of NDC z */
    if (fabsf(dir[1]) < 1e-6f * glm_vec3_norm(dir)) return -1;
    float grow = 0.01f * glm_vec3_distance((float *)bmin, (float *)bmax);
    float ndc_per_world = 2.0f / (texel_world * (float)r->shadow_size);   /* the light's box is square */
    float reach = 2.0f * 2.0f / (float)r->shadow_size;                   /* two texels in NDC */
    float lx0 = FLT_MAX, ly0 = FLT_MAX, lx1 = -FLT_MAX, ly1 = -FLT_MAX;
    for (size_t i = 0; i < r->draws.count; i++) {
        const gfx_draw *d = &r->draws.data[i];
        if (!d->cast_shadow) continue;
        const gfx_model *g = &r->models[d->slot];
        const mat4 *skin = d->palette_offset >= 0 ? r->palette.data + d->palette_offset : NULL;
        for (int j = 0; j <= g->joint_count; j++) {
            vec4 sp, c;
            if (!gfx_model_sphere(g, 1, skin, d->world, j, sp)) continue;
            glm_mat4_mulv((vec4 *)light_vp, (vec4){sp[0], sp[1], sp[2], 1.0f}, c);
            float h = (sp[3] + grow) * ndc_per_world + reach;
            lx0 = fminf(lx0, c[0] - h);
            ly0 = fminf(ly0, c[1] - h);
            lx1 = fmaxf(lx1, c[0] + h);
            ly1 = fmaxf(ly1, c[1] + h);
        }
    }
    screen_box box = SCREEN_BOX_EMPTY;
    if (add_light_rect(&box, r, inv, dir, lookup_y, lx0, ly0, lx1, ly1) < 0) return -1;
    return screen_box_rect(&box, r, 2.0f, rect);
}

/* Adds the world-space points of a line array (and their size in pixels
 * to *pad) to box. */
static void add_line_points(screen_box *box, const mr_renderer *r, const gfx_line_array *lines, float *pad)
{
    for (size_t i = 0; i < lines->count; i++) {
        const gfx_line_vertex *v = &lines->data[i];
        vec4 c;
        glm_mat4_mulv((vec4 *)r->view_proj, (vec4){v->pos[0], v->pos[1], v->pos[2], 1.0f}, c);
        screen_box_add(box, r, c);
        *pad = fmaxf(*pad, 2.0f + 0.5f * v->size);
    }
}

/* Adds the 8 corners of the box bmin..bmax to box. */
static void add_box_corners(screen_box *box, const mr_renderer *r, const vec3 bmin, const vec3 bmax)
{
    for (int i = 0; i < 8; i++) {
        vec4 c, q = {i & 1 ? bmax[0] : bmin[0], i & 2 ? bmax[1] : bmin[1], i & 4 ? bmax[2] : bmin[2], 1.0f};
        glm_mat4_mulv((vec4 *)r->view_proj, q, c);
        screen_box_add(box, r, c);
    }
}

double gfx_screen_area(const mr_renderer *r, const vec3 bmin, const vec3 bmax)
{
    screen_box box = SCREEN_BOX_EMPTY;
    add_box_corners(&box, r, bmin, bmax);
    int rect[4];
    int inside = screen_box_rect(&box, r, 0.0f, rect);
    if (inside < 0) return (double)r->width * r->height;
    return inside ? (double)(rect[2] - rect[0]) * (rect[3] - rect[1]) : 0.0;
}

/* The window rectangle FXAA has to run in: the models (their bounds, bmin
 * and bmax, which the per-joint spheres make generous), the lines and the
 * points, padded by two pixels for the pixel outside each edge. Nothing
 * else drawn before FXAA has a hard edge: floor.frag anti-aliases its grid
 * and fades the floor's rim into the sky colour, the sky is a vertical
 * gradient and shadow edges are filtered; FXAA would only soften the grid
 * a shade there, and its passes pay for every pixel they cover. Returns 1
 * with rect set, 0 when nothing needs it, -1 for the whole window. */
int gfx_fxaa_rect(const mr_renderer *r, int have_bounds, const vec3 bmin, const vec3 bmax, int rect[4])
{
    screen_box box = SCREEN_BOX_EMPTY;
    float pad = 2.0f;
    if (have_bounds) add_box_corners(&box, r, bmin, bmax);
    add_line_points(&box, r, &r->lines, &pad);
    add_line_points(&box, r, &r->overlay_lines, &pad);
    add_line_points(&box, r, &r->points, &pad);
    return screen_box_rect(&box, r, pad, rect);
}
