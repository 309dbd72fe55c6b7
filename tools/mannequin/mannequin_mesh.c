/* mannequin_mesh.c — the mannequin's skinned surface.
 *
 * Every part (torso, neck, head, nose, each arm, hand, thumb, leg and foot)
 * is a closed surface swept along a straight axis: rings of vertices whose
 * cross-section is a superellipse (exponent 2 is an ellipse, larger is
 * boxier), with centre offsets and radii read from a small profile table and
 * interpolated by a cubic spline, rounded off at both ends by elliptical caps
 * and closed by a single pole vertex at each end. No vertex is duplicated
 * along the texture seam, so the normals the loader computes are smooth
 * everywhere (the uvs are cylindrical: u around the axis, v along it, and
 * jump back to 0 across the seam at the back of each part).
 *
 * Skinning: along a part's axis the weight passes from one joint to the next
 * with a smoothstep over a band centred on the joint (the knee blends thigh
 * and calf over 19.8 +- 2 in, for example); "blobs" then pull vertices near a
 * point partly towards another joint (the shoulders of the torso towards the
 * clavicles, the hips towards the thighs). At most 4 influences remain.
 */
#include "mannequin/mannequin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"

#define PI 3.14159265358979323846

typedef struct key {
    float s;             /* inches along the axis from the start point */
    float du, dv;        /* centre offset along u and v */
    float ru, rv;        /* half extents along u and v */
} key;

typedef struct band {
    float s, half;       /* the joint takes over around s, over s +- half */
    int joint;
} band;

typedef struct blob {
    int joint;
    vec3 c;              /* centre, model space */
    float r0, r1;        /* full pull inside r0, none beyond r1 */
    float wmax;          /* weight of the joint at full pull */
} blob;

typedef struct part {
    vec3 a, b;           /* axis from a (s = 0) to b */
    vec3 u;              /* direction of ru (made perpendicular to the axis) */
    float cap_a, cap_b;  /* lengths of the rounded ends */
    float expo;          /* superellipse exponent of the cross-section */
    int segments;        /* vertices per ring */
    float step;          /* spacing of rings along the straight middle */
    const key *keys;
    int key_count;
    const band *bands;   /* bands[0].joint owns the start; its s is unused */
    int band_count;
    const blob *blobs;
    int blob_count;
} part;

/* Growable vertex and index arrays of one mesh. */
typedef struct builder {
    int nv, ni;
    size_t cap_v, cap_i, cap_j, cap_w, cap_uv;
    vec3 *pos;
    vec2 *uv;
    uint16_t (*joints)[MR_MAX_INFLUENCES];
    float (*weights)[MR_MAX_INFLUENCES];
    uint32_t *idx;
    int failed;
} builder;

static double smoothstep(double e0, double e1, double x)
{
    if (x <= e0) return 0.0;
    if (x >= e1) return 1.0;
    double t = (x - e0) / (e1 - e0);
    return t * t * (3.0 - 2.0 * t);
}

/* sign(c) * |c|^p: the superellipse's coordinate. */
static double spow(double c, double p)
{
    double m = pow(fabs(c), p);
    return c < 0 ? -m : m;
}

/* Profile at s: a cubic Hermite spline through the keys with tangents from
 * the neighbouring keys (clamped to the ends). */
static void profile_at(const part *p, double s, double out[4])
{
    const key *k = p->keys;
    int n = p->key_count;
    if (s <= k[0].s || n == 1) {
        out[0] = k[0].du; out[1] = k[0].dv; out[2] = k[0].ru; out[3] = k[0].rv;
        return;
    }
    if (s >= k[n - 1].s) {
        out[0] = k[n - 1].du; out[1] = k[n - 1].dv; out[2] = k[n - 1].ru; out[3] = k[n - 1].rv;
        return;
    }
    int i = 0;
    while (i < n - 2 && s > k[i + 1].s) i++;
    double h = k[i + 1].s - k[i].s;
    double t = (s - k[i].s) / h, t2 = t * t, t3 = t2 * t;
    double h00 = 2 * t3 - 3 * t2 + 1, h10 = t3 - 2 * t2 + t, h01 = -2 * t3 + 3 * t2, h11 = t3 - t2;
    for (int c = 0; c < 4; c++) {
        const float *v0 = &k[i].du, *v1 = &k[i + 1].du;
        double m0 = 0, m1 = 0;
        if (i > 0) m0 = (v1[c] - (&k[i - 1].du)[c]) / (k[i + 1].s - k[i - 1].s) * h;
        else m0 = v1[c] - v0[c];
        if (i + 2 < n) m1 = ((&k[i + 2].du)[c] - v0[c]) / (k[i + 2].s - k[i].s) * h;
        else m1 = v1[c] - v0[c];
        out[c] = h00 * v0[c] + h10 * m0 + h01 * v1[c] + h11 * m1;
    }
}

static int grow(builder *b, int nv, int ni)
{
    if (b->failed) return -1;
    size_t v = (size_t)(b->nv + nv), i = (size_t)(b->ni + ni);
    if (mr_alloc_reserve((void **)&b->pos, &b->cap_v, v, sizeof *b->pos) ||
        mr_alloc_reserve((void **)&b->uv, &b->cap_uv, v, sizeof *b->uv) ||
        mr_alloc_reserve((void **)&b->joints, &b->cap_j, v, sizeof *b->joints) ||
        mr_alloc_reserve((void **)&b->weights, &b->cap_w, v, sizeof *b->weights) ||
        mr_alloc_reserve((void **)&b->idx, &b->cap_i, i, sizeof *b->idx)) {
        b->failed = 1;
        return -1;
    }
    return 0;
}

/* Skin weights of a vertex at axis position s and model position q. */
static void weigh(const part *p, double s, const vec3 q, uint16_t out_j[MR_MAX_INFLUENCES],
                  float out_w[MR_MAX_INFLUENCES])
{
    int js[16];
    float ws[16];
    int n = 0;
    js[n] = p->bands[0].joint;
    ws[n++] = 1.0f;
    for (int k = 1; k < p->band_count && n < 16; k++) {
        const band *bd = &p->bands[k];
        float t = (float)smoothstep(bd->s - bd->half, bd->s + bd->half, s);
        for (int i = 0; i < n; i++) ws[i] *= 1.0f - t;
        js[n] = bd->joint;
        ws[n++] = t;
    }
    for (int k = 0; k < p->blob_count && n < 16; k++) {
        const blob *bl = &p->blobs[k];
        float d = glm_vec3_distance((float *)q, (float *)bl->c);
        float f = bl->wmax * (1.0f - (float)smoothstep(bl->r0, bl->r1, d));
        for (int i = 0; i < n; i++) ws[i] *= 1.0f - f;
        js[n] = bl->joint;
        ws[n++] = f;
    }
    /* Merge repeated joints before keeping the 4 heaviest (the mannequin is
     * built for 4-influence runtimes; its joint order is its own, so index
     * order breaks ties). */
    for (int i = 0; i < n; i++)
        for (int k = i + 1; k < n; k++)
            if (js[k] == js[i] && ws[k] > 0) {
                ws[i] += ws[k];
                ws[k] = 0;
            }
    mr_mesh_pack_influences(js, ws, n, &(mr_influence_rule){.max = MR_INFLUENCE_SET}, out_j, out_w);
}

static void add_vertex(builder *b, const part *p, const vec3 q, double s, double len, double around)
{
    int v = b->nv++;
    glm_vec3_copy((float *)q, b->pos[v]);
    b->uv[v][0] = (float)around;
    b->uv[v][1] = (float)(s / len);
    weigh(p, s, q, b->joints[v], b->weights[v]);
}

/* Axis positions and cap factors of the rings (without the poles). */
static int ring_stations(const part *p, double len, double *s, double *f, int max)
{
    int n = 0;
    double body = len - p->cap_a - p->cap_b;
    int ca = (int)ceil(p->cap_a * PI / 2 / p->step), cb = (int)ceil(p->cap_b * PI / 2 / p->step);
    if (ca < 3) ca = 3;
    if (cb < 3) cb = 3;
    int nb = (int)ceil(body / p->step - 0.5);
    if (nb < 1) nb = 1;
    for (int k = 1; k <= ca && n < max; k++, n++) {
        double th = k * (PI / 2) / ca;
        s[n] = p->cap_a * (1 - cos(th));
        f[n] = sin(th);
    }
    for (int k = 1; k < nb && n < max; k++, n++) {
        s[n] = p->cap_a + body * k / nb;
        f[n] = 1.0;
    }
    /* Without a straight middle the two caps meet in one shared ring. */
    for (int k = body > 1e-3 ? cb : cb - 1; k >= 1 && n < max; k--, n++) {
        double th = k * (PI / 2) / cb;
        s[n] = len - p->cap_b * (1 - cos(th));
        f[n] = sin(th);
    }
    return n;
}

static void add_part(builder *b, const part *p)
{
    enum { MAX_RINGS = 128 };
    double s[MAX_RINGS], f[MAX_RINGS];
    vec3 w, u, v;
    glm_vec3_sub((float *)p->b, (float *)p->a, w);
    double len = glm_vec3_norm(w);
    glm_vec3_normalize(w);
    /* u made perpendicular to the axis; v = w x u completes a right-handed
     * frame, so the ring runs u -> v counter-clockwise seen from b. */
    glm_vec3_copy((float *)p->u, u);
    float d = glm_vec3_dot(u, w);
    glm_vec3_muladds(w, -d, u);
    glm_vec3_normalize(u);
    glm_vec3_cross(w, u, v);

    int rings = ring_stations(p, len, s, f, MAX_RINGS);
    int seg = p->segments;
    if (grow(b, rings * seg + 2, 6 * seg * rings)) return;
    int base = b->nv;
    double e = 2.0 / p->expo;
    double prof[4];

    vec3 q;
    profile_at(p, 0.0, prof);
    glm_vec3_copy((float *)p->a, q);
    glm_vec3_muladds(u, (float)prof[0], q);
    glm_vec3_muladds(v, (float)prof[1], q);
    add_vertex(b, p, q, 0.0, len, 0.5);
    for (int r = 0; r < rings; r++) {
        profile_at(p, s[r], prof);
        for (int j = 0; j < seg; j++) {
            /* Start at -u (the back of most parts) so the seam is out of sight. */
            double phi = PI + 2 * PI * j / seg;
            double cu = prof[0] + f[r] * prof[2] * spow(cos(phi), e);
            double cv = prof[1] + f[r] * prof[3] * spow(sin(phi), e);
            glm_vec3_copy((float *)p->a, q);
            glm_vec3_muladds(w, (float)s[r], q);
            glm_vec3_muladds(u, (float)cu, q);
            glm_vec3_muladds(v, (float)cv, q);
            add_vertex(b, p, q, s[r], len, (double)j / seg);
        }
    }
    profile_at(p, len, prof);
    glm_vec3_copy((float *)p->b, q);
    glm_vec3_muladds(u, (float)prof[0], q);
    glm_vec3_muladds(v, (float)prof[1], q);
    add_vertex(b, p, q, len, len, 0.5);

    /* Counter-clockwise seen from outside: around x along points outwards. */
    uint32_t first = (uint32_t)base + 1, last = (uint32_t)base + 1 + (uint32_t)((rings - 1) * seg);
    uint32_t pole_b = (uint32_t)(base + 1 + rings * seg);
    uint32_t *ix = b->idx + b->ni;
    for (int j = 0; j < seg; j++) {
        uint32_t j1 = (uint32_t)((j + 1) % seg);
        *ix++ = (uint32_t)base;
        *ix++ = first + j1;
        *ix++ = first + (uint32_t)j;
        for (int r = 0; r + 1 < rings; r++) {
            uint32_t r0 = first + (uint32_t)(r * seg), r1 = r0 + (uint32_t)seg;
            *ix++ = r0 + (uint32_t)j; *ix++ = r0 + j1; *ix++ = r1 + (uint32_t)j;
            *ix++ = r0 + j1; *ix++ = r1 + j1; *ix++ = r1 + (uint32_t)j;
        }
        *ix++ = pole_b;
        *ix++ = last + (uint32_t)j;
        *ix++ = last + j1;
    }
    b->ni = (int)(ix - b->idx);
}

static void joint_pos(const mr_skeleton *sk, int j, vec3 out)
{
    mat4 bind;
    glm_mat4_inv(sk->inverse_bind[j], bind);
    glm_vec3_copy(bind[3], out);
}

/* p + k * dir */
static void along(const vec3 p, const vec3 dir, float k, vec3 out)
{
    glm_vec3_copy((float *)p, out);
    glm_vec3_muladds((float *)dir, k, out);
}

static void add_torso(builder *b, const mr_skeleton *sk)
{
    /* Vertical, u = +X (depth), v = +Y (width); s = z - 32 (the crotch). */
    static const key keys[] = {
        {0.0f, -0.5f, 0, 3.6f, 5.4f},  {1.5f, -0.6f, 0, 4.2f, 6.2f},
        {4.0f, -0.8f, 0, 4.7f, 6.7f},  {6.5f, -0.5f, 0, 4.5f, 6.5f},
        {9.0f, -0.1f, 0, 4.1f, 6.0f},  {11.5f, 0.0f, 0, 4.0f, 5.9f},
        {15.0f, 0.3f, 0, 4.5f, 6.5f},  {18.5f, 0.5f, 0, 5.0f, 7.1f},
        {22.0f, 0.3f, 0, 4.7f, 7.5f},  {24.5f, 0.0f, 0, 4.0f, 7.3f},
        {27.0f, -0.1f, 0, 3.4f, 6.4f},
    };
    static const band bands[] = {
        {0, 0, MR_MQ_PELVIS}, {42.0f - 32, 1.5f, MR_MQ_SPINE_01},
        {46.5f - 32, 2.0f, MR_MQ_SPINE_02}, {51.0f - 32, 2.0f, MR_MQ_SPINE_03},
    };
    blob blobs[4] = {
        {MR_MQ_CLAVICLE_L, {0.0f, 6.2f, 55.5f}, 1.0f, 4.5f, 0.8f},
        {MR_MQ_CLAVICLE_R, {0.0f, -6.2f, 55.5f}, 1.0f, 4.5f, 0.8f},
        {MR_MQ_THIGH_L, {0.0f, 4.6f, 33.0f}, 1.0f, 4.5f, 0.5f},
        {MR_MQ_THIGH_R, {0.0f, -4.6f, 33.0f}, 1.0f, 4.5f, 0.5f},
    };
    part p = {{0, 0, 32.0f}, {0, 0, 59.0f}, {1, 0, 0}, 2.5f, 2.6f, 2.5f, 20, 1.4f,
              keys, 11, bands, 4, blobs, 4};
    (void)sk;
    add_part(b, &p);
}

static void add_neck_head(builder *b, const mr_skeleton *sk)
{
    vec3 neck, head;
    joint_pos(sk, MR_MQ_NECK, neck);
    joint_pos(sk, MR_MQ_HEAD, head);
    static const key nkeys[] = {
        {0.0f, 0, 0, 2.5f, 2.7f}, {3.0f, 0, 0, 2.3f, 2.4f}, {6.5f, 0.2f, 0, 2.2f, 2.3f},
    };
    band nb[] = {{0, 0, MR_MQ_SPINE_03}, {58.3f - 56.0f, 1.0f, MR_MQ_NECK},
                 {61.8f - 56.0f, 0.8f, MR_MQ_HEAD}};
    part np = {{0.1f, 0, 56.0f}, {0.3f, 0, 62.5f}, {1, 0, 0}, 1.2f, 1.2f, 2.0f, 14, 1.1f,
               nkeys, 3, nb, 3, NULL, 0};
    add_part(b, &np);

    /* Head: one egg from the chin (z = 60) to the crown (70), deeper than
     * wide, the jaw narrow and forward, the skull round at the back.
     * s = z - 60. */
    static const key hkeys[] = {
        {0.0f, 1.6f, 0, 1.6f, 1.6f},   {1.2f, 1.2f, 0, 2.6f, 2.2f}, {2.8f, 0.7f, 0, 3.4f, 2.7f},
        {4.8f, 0.35f, 0, 3.85f, 3.0f}, {6.8f, 0.1f, 0, 3.95f, 3.15f}, {10.0f, 0.0f, 0, 3.6f, 2.9f},
    };
    band hb[] = {{0, 0, MR_MQ_HEAD}};
    part hp = {{0.0f, 0, 60.0f}, {0.0f, 0, 70.0f}, {1, 0, 0}, 1.5f, 3.8f, 2.2f, 18, 1.0f,
               hkeys, 6, hb, 1, NULL, 0};
    add_part(b, &hp);

    /* Nose: shows which way the figure faces. */
    static const key nose_keys[] = {{0.0f, 0, 0, 0.55f, 0.45f}, {1.9f, 0, 0, 0.42f, 0.34f}};
    part nose = {{3.4f, 0, 65.2f}, {4.9f, 0, 64.0f}, {0, 0, 1}, 0.5f, 0.45f, 2.0f, 8, 0.5f,
                 nose_keys, 2, hb, 1, NULL, 0};
    add_part(b, &nose);
}

static void add_arm(builder *b, const mr_skeleton *sk, int side)
{
    int cl = side ? MR_MQ_CLAVICLE_R : MR_MQ_CLAVICLE_L;
    vec3 sh, el, wr, d;
    joint_pos(sk, cl + 1, sh);
    joint_pos(sk, cl + 2, el);
    joint_pos(sk, cl + 3, wr);
    glm_vec3_sub(wr, sh, d);
    glm_vec3_normalize(d);
    float le = glm_vec3_distance(sh, el), lw = glm_vec3_distance(sh, wr);
    /* s measured from 1.5 in inside the shoulder joint. */
    float o = 2.0f;
    key keys[] = {
        {0.0f, 0, 0, 2.1f, 2.1f},         {o, 0, 0, 2.35f, 2.3f},
        {o + 4.0f, 0, 0, 2.0f, 1.95f},     {o + 8.5f, 0, 0, 1.8f, 1.7f},
        {o + le, 0, 0, 1.55f, 1.5f},       {o + le + 3.0f, 0, 0, 1.7f, 1.6f},
        {o + le + 7.0f, 0, 0, 1.4f, 1.25f}, {o + lw, 0, 0, 1.25f, 0.95f},
        {o + lw + 0.6f, 0, 0, 1.2f, 0.9f},
    };
    band bands[] = {{0, 0, cl}, {o + 0.3f, 1.6f, cl + 1}, {o + le, 1.8f, cl + 2},
                    {o + lw, 0.7f, cl + 3}};
    part p = {{0}, {0}, {1, 0, 0}, 2.3f, 0.9f, 2.0f, 12, 1.2f, keys, 9, bands, 4, NULL, 0};
    along(sh, d, -o, p.a);
    along(wr, d, 0.6f, p.b);
    add_part(b, &p);

    /* Hand: a flat mitten in the plane of the arm and +X (palm towards the
     * body), from just inside the wrist to the finger tips. */
    static const key hkeys[] = {
        {0.0f, 0, 0, 1.2f, 0.75f}, {2.0f, 0.05f, 0, 1.55f, 0.72f}, {4.0f, 0.1f, 0, 1.65f, 0.6f},
        {5.6f, 0.1f, 0, 1.5f, 0.48f}, {7.6f, 0.1f, 0, 1.3f, 0.4f},
    };
    band hb[] = {{0, 0, cl + 2}, {0.4f, 0.6f, cl + 3}};
    part h = {{0}, {0}, {1, 0, 0}, 0.6f, 1.6f, 2.6f, 10, 0.9f, hkeys, 5, hb, 2, NULL, 0};
    along(wr, d, -0.2f, h.a);
    along(wr, d, 7.4f, h.b);
    add_part(b, &h);

    /* Thumb: from the heel of the palm, forwards and along the hand. */
    static const key tkeys[] = {{0.0f, 0, 0, 0.5f, 0.45f}, {2.8f, 0, 0, 0.38f, 0.34f}};
    band tb[] = {{0, 0, cl + 3}};
    vec3 td = {0.8f, 0, 0};
    glm_vec3_muladds(d, 1.0f, td);
    glm_vec3_normalize(td);
    vec3 t0;
    along(wr, d, 1.0f, t0);
    t0[0] += 0.9f;
    part t = {{0}, {0}, {0, 0, 1}, 0.5f, 0.4f, 2.0f, 6, 0.7f, tkeys, 2, tb, 1, NULL, 0};
    glm_vec3_copy(t0, t.a);
    along(t0, td, 3.0f, t.b);
    add_part(b, &t);
}

static void add_leg(builder *b, const mr_skeleton *sk, int side)
{
    int th = side ? MR_MQ_THIGH_R : MR_MQ_THIGH_L;
    vec3 hip;
    joint_pos(sk, th, hip);
    /* From 2.5 in above the hip joint (inside the pelvis) to just below the
     * ankle (inside the shoe); s = 39 - z. Calf muscle bulges backwards. */
    static const key keys[] = {
        {0.0f, -0.2f, 0, 3.5f, 3.6f},   {2.5f, -0.2f, 0, 3.7f, 3.8f},
        {6.0f, 0, 0, 3.45f, 3.5f},      {12.0f, 0.1f, 0, 3.0f, 3.05f},
        {16.5f, 0.1f, 0, 2.45f, 2.5f},  {19.2f, 0.15f, 0, 2.2f, 2.2f},
        {23.0f, -0.3f, 0, 2.4f, 2.25f}, {26.0f, -0.45f, 0, 2.4f, 2.2f},
        {30.0f, -0.1f, 0, 1.75f, 1.65f}, {34.5f, 0, 0, 1.35f, 1.25f},
        {36.5f, 0, 0, 1.3f, 1.2f},
    };
    band bands[] = {{0, 0, MR_MQ_PELVIS}, {2.5f, 1.6f, th},
                    {39.0f - 19.8f, 2.0f, th + 1}, {39.0f - 3.0f, 0.8f, th + 2}};
    part p = {{hip[0], hip[1], 39.0f}, {hip[0], hip[1], 2.5f}, {1, 0, 0}, 3.0f, 1.0f, 2.0f,
              14, 1.3f, keys, 11, bands, 4, NULL, 0};
    add_part(b, &p);
}

static void add_foot(builder *b, const mr_skeleton *sk, int side)
{
    int ft = side ? MR_MQ_FOOT_R : MR_MQ_FOOT_L;
    vec3 ankle;
    joint_pos(sk, ft, ankle);
    /* Along +X from the heel (x = -2.8) to the toe tip (x = 7.6), u = +Z;
     * du == ru keeps the sole flat on z = 0. s = x + 2.8. */
    static const key keys[] = {
        {0.0f, 1.6f, 0, 1.6f, 1.35f},   {1.3f, 1.75f, 0, 1.75f, 1.45f},
        {3.3f, 2.0f, 0, 2.0f, 1.6f},    {5.3f, 1.55f, 0, 1.55f, 1.8f},
        {7.8f, 0.95f, 0, 0.95f, 1.95f}, {9.3f, 0.8f, 0, 0.8f, 1.75f},
        {10.4f, 0.7f, 0, 0.7f, 1.5f},
    };
    band bands[] = {{0, 0, ft}, {7.8f, 0.7f, ft + 1}};
    part p = {{-2.8f, ankle[1], 0}, {7.6f, ankle[1], 0}, {0, 0, 1}, 1.8f, 1.4f, 3.0f, 14, 1.0f,
              keys, 7, bands, 2, NULL, 0};
    add_part(b, &p);
}

static mr_status finish(builder *b, mr_mesh *mesh, const char *name, const float rgb[3])
{
    mr_status st = b->failed ? MR_ERR_NO_MEMORY : mr_mesh_init(mesh, b->nv, b->ni, 1);
    if (st == MR_OK) {
        size_t nv = (size_t)b->nv;
        memcpy(mesh->positions, b->pos, nv * sizeof *b->pos);
        memcpy(mesh->uvs, b->uv, nv * sizeof *b->uv);
        memcpy(mesh->joints, b->joints, nv * sizeof *b->joints);
        memcpy(mesh->weights, b->weights, nv * sizeof *b->weights);
        memcpy(mesh->indices, b->idx, (size_t)b->ni * sizeof *b->idx);
        mr_mesh_compute_normals(mesh);
        mesh->name = mr_str_dup(name);
        /* An empty material name: the MD5 writer turns it into an empty
         * shader, which readers take as "no texture" (a named shader would be
         * looked up as an image beside the model and, missing, be drawn as
         * the renderer's checker). MD5 keeps neither this name nor colours. */
        mesh->material.name = mr_str_dup("");
        for (int c = 0; c < 3; c++) mesh->material.diffuse[c] = rgb[c];  /* float[4]: unaligned */
        mesh->material.diffuse[3] = 1.0f;
        mesh->material.shininess = 24.0f;
        if (!mesh->name || !mesh->material.name) {
            mr_mesh_deinit(mesh);
            st = MR_ERR_NO_MEMORY;
        }
    }
    free(b->pos);
    free(b->uv);
    free(b->joints);
    free(b->weights);
    free(b->idx);
    memset(b, 0, sizeof *b);
    return st;
}

mr_status mr_mannequin_meshes(const mr_skeleton *sk, mr_mesh **meshes, int *count)
{
    *meshes = NULL;
    *count = 0;
    if (!sk || sk->joint_count != MR_MQ_JOINT_COUNT) return MR_ERR_JOINT_COUNT;
    mr_mesh *out = mr_alloc_array(2, sizeof *out);
    if (!out) return MR_ERR_NO_MEMORY;
    static const float body_rgb[3] = {0.80f, 0.76f, 0.70f};
    static const float shoe_rgb[3] = {0.22f, 0.24f, 0.28f};

    builder b = {0};
    add_torso(&b, sk);
    add_neck_head(&b, sk);
    for (int side = 0; side < 2; side++) {
        add_arm(&b, sk, side);
        add_leg(&b, sk, side);
    }
    mr_status st = finish(&b, &out[0], "body", body_rgb);
    if (st == MR_OK) {
        for (int side = 0; side < 2; side++) add_foot(&b, sk, side);
        st = finish(&b, &out[1], "shoes", shoe_rgb);
        if (st != MR_OK) mr_mesh_deinit(&out[0]);
    }
    if (st != MR_OK) {
        free(out);
        return st;
    }
    *meshes = out;
    *count = 2;
    return MR_OK;
}

/* ---- the ponytail's hair ---- */

mr_status mr_mannequin_hair_mesh(const mr_skeleton *sk, int first, int count, mr_mesh *out)
{
    static const float hair_rgb[3] = {0.36f, 0.22f, 0.12f};
    builder b = {0};
    for (int k = 0; k + 1 < count; k++) {
        vec3 a, c;
        joint_pos(sk, first + k, a);
        joint_pos(sk, first + k + 1, c);
        float len = glm_vec3_distance(a, c);
        float r0 = 1.1f - 0.13f * (float)k, r1 = 1.1f - 0.13f * (float)(k + 1);
        key keys[2] = {{0.0f, 0, 0, r0, r0 * 0.8f}, {len, 0, 0, r1, r1 * 0.8f}};
        /* each bone's piece on its joint, blending into the next one's at its end */
        band bands[2] = {{0, 0, first + k}, {len, 0.6f, first + k + 1}};
        part p = {{a[0], a[1], a[2]}, {c[0], c[1], c[2]}, {0, 1, 0}, r0 * 0.9f, r1 * 0.9f, 2.0f, 12, 0.7f,
                  keys, 2, bands, k + 2 < count ? 2 : 1, NULL, 0};
        add_part(&b, &p);
    }
    return finish(&b, out, "hair", hair_rgb);
}

/* ---- the sword prop ---- */

/* Blade (one mesh, steel) and hilt (grip, guard, pommel: a second mesh),
 * all on the single joint 0 at the middle of the grip; see mannequin.h. */
static void add_sword_blade(builder *b)
{
    /* A lens-shaped section (exponent < 2 sharpens the edges), wide along
     * Z, tapering to a point. s = x - 3.2. */
    static const key keys[] = {
        {0.0f, 0, 0, 0.85f, 0.16f}, {20.0f, 0, 0, 0.75f, 0.13f},
        {26.5f, 0, 0, 0.55f, 0.10f}, {29.8f, 0, 0, 0.04f, 0.03f},
    };
    static const band bands[] = {{0, 0, 0}};
    part p = {{3.2f, 0, 0}, {33.0f, 0, 0}, {0, 0, 1}, 0.1f, 0.1f, 1.25f, 16, 1.5f,
              keys, 4, bands, 1, NULL, 0};
    add_part(b, &p);
}

static void add_sword_hilt(builder *b)
{
    static const band bands[] = {{0, 0, 0}};
    /* Grip: x from -2.7 to 2.6, slightly waisted. */
    static const key grip[] = {{0.0f, 0, 0, 0.55f, 0.5f}, {2.6f, 0, 0, 0.62f, 0.56f}, {5.3f, 0, 0, 0.55f, 0.5f}};
    part g = {{-2.7f, 0, 0}, {2.6f, 0, 0}, {0, 0, 1}, 0.2f, 0.2f, 2.0f, 12, 0.6f, grip, 3, bands, 1, NULL, 0};
    add_part(b, &g);
    /* Guard: a boxy bar across Z at x = 2.9. */
    static const key guard[] = {{0.0f, 0, 0, 0.3f, 0.32f}, {3.6f, 0, 0, 0.42f, 0.4f}, {7.2f, 0, 0, 0.3f, 0.32f}};
    part gd = {{2.9f, 0, -3.6f}, {2.9f, 0, 3.6f}, {1, 0, 0}, 0.3f, 0.3f, 4.0f, 12, 0.6f, guard, 3, bands, 1, NULL, 0};
    add_part(b, &gd);
    /* Pommel: a small egg behind the grip. */
    static const key pommel[] = {{0.0f, 0, 0, 0.8f, 0.75f}};
    part pm = {{-4.1f, 0, 0}, {-2.6f, 0, 0}, {0, 0, 1}, 0.75f, 0.75f, 2.0f, 12, 0.4f, pommel, 1, bands, 1, NULL, 0};
    add_part(b, &pm);
}

mr_status mr_mannequin_sword(mr_model **out)
{
    *out = NULL;
    mr_model *m;
    if (mr_model_create("sword", "mannequin", &m) != MR_OK) return MR_ERR_NO_MEMORY;
    m->axes.up = MR_UP_Z;
    m->axes.meters_per_unit = 0.0254f;
    mr_skeleton *sk = &m->skeleton;
    mr_mesh *meshes = NULL;
    if (mr_skeleton_init(sk, 1) != MR_OK || !(sk->names[0] = mr_str_dup("sword"))) goto fail;
    sk->parents[0] = -1;
    mr_skeleton_compute_inverse_bind(sk);
    meshes = mr_alloc_array(2, sizeof *meshes);
    if (!meshes) goto fail;
    static const float steel_rgb[3] = {0.78f, 0.80f, 0.84f};
    static const float hilt_rgb[3] = {0.36f, 0.22f, 0.12f};
    builder b = {0};
    add_sword_blade(&b);
    if (finish(&b, &meshes[0], "blade", steel_rgb) != MR_OK) goto fail;
    add_sword_hilt(&b);
    if (finish(&b, &meshes[1], "hilt", hilt_rgb) != MR_OK) {
        mr_mesh_deinit(&meshes[0]);
        goto fail;
    }
    meshes[0].material.shininess = 96.0f;
    m->meshes = meshes;
    m->mesh_count = 2;
    *out = m;
    return MR_OK;
fail:
    free(meshes);
    mr_model_destroy(m);
    return MR_ERR_NO_MEMORY;
}
