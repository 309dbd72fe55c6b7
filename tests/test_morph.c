/* test_morph.c — morph targets (anim/morph.h: apply, weight channels,
 * sampling) and the skinning modes of mr_mesh_skin_with (mesh.h): a
 * twisted two-joint cylinder built here keeps its cross-section with dual
 * quaternions and collapses with linear skinning. */
#include <math.h>
#include <stdlib.h>

#include "anim/mixer.h"
#include "anim/model.h"
#include "anim/morph.h"
#include "test.h"

enum { RINGS = 41, SIDES = 16 };
#define RADIUS 0.1f
#define LENGTH 2.0f

/* A cylinder along +X from 0 to LENGTH: RINGS rings of SIDES vertices,
 * bound to joint 0 (origin) and joint 1 (at x = 1): weight of joint 1
 * rises linearly from 0 at x = 0.5 to 1 at x = 1.5. */
static void make_limb(mr_mesh *m)
{
    CHECK(mr_mesh_init(m, RINGS * SIDES, 0, 1) == MR_OK);
    for (int r = 0; r < RINGS; r++) {
        float x = LENGTH * (float)r / (RINGS - 1);
        float w1 = fminf(fmaxf(x - 0.5f, 0.0f), 1.0f);
        for (int s = 0; s < SIDES; s++) {
            int v = r * SIDES + s;
            float a = 2.0f * (float)M_PI * (float)s / SIDES;
            m->positions[v][0] = x;
            m->positions[v][1] = RADIUS * cosf(a);
            m->positions[v][2] = RADIUS * sinf(a);
            m->normals[v][0] = 0;
            m->normals[v][1] = cosf(a);
            m->normals[v][2] = sinf(a);
            m->joints[v][0] = 0;
            m->joints[v][1] = 1;
            m->weights[v][0] = 1.0f - w1;
            m->weights[v][1] = w1;
        }
    }
}

/* Skin matrices: joint 0 fixed, joint 1 twisted by deg about the X axis
 * around its origin (1, 0, 0). */
static void twist_skin(float deg, mat4 skin[2])
{
    glm_mat4_identity(skin[0]);
    mat4 to, rot, back;
    glm_translate_make(to, (vec3){1, 0, 0});
    glm_rotate_make(rot, glm_rad(deg), (vec3){1, 0, 0});
    glm_translate_make(back, (vec3){-1, 0, 0});
    glm_mat4_mulN((mat4 *[]){&to, &rot, &back}, 3, skin[1]);
}

/* The smallest mean distance from the X axis over the rings. */
static float thinnest_ring(const vec3 *pos)
{
    float thinnest = INFINITY;
    for (int r = 0; r < RINGS; r++) {
        float sum = 0;
        for (int s = 0; s < SIDES; s++) {
            const float *p = pos[r * SIDES + s];
            sum += sqrtf(p[1] * p[1] + p[2] * p[2]);
        }
        thinnest = fminf(thinnest, sum / SIDES);
    }
    return thinnest;
}

static float max_dist(const vec3 *a, const vec3 *b, int n)
{
    float d = 0;
    for (int i = 0; i < n; i++) d = fmaxf(d, glm_vec3_distance((float *)a[i], (float *)b[i]));
    return d;
}

TEST(skin_dq_twisted_limb_keeps_its_cross_section_linear_collapses)
{
    mr_mesh m;
    make_limb(&m);
    int n = m.vertex_count;
    vec3 *pos = calloc((size_t)n, sizeof *pos), *nrm = calloc((size_t)n, sizeof *nrm);
    mat4 skin[2];
    twist_skin(150, skin);
    mr_skin_opts dq = {.mode = MR_SKINNING_DUAL_QUATERNION};
    mr_mesh_skin_with(&m, skin, &dq, pos, nrm);
    float thin_dq = thinnest_ring(pos);
    CHECK_MSG(thin_dq >= 0.9f * RADIUS, "dq: thinnest ring %g of rest radius %g", thin_dq, RADIUS);
    /* Ends stay where their single joint puts them; twist only, no stretch. */
    CHECK_NEAR(pos[0][1], RADIUS, 1e-6);
    for (int i = 0; i < n; i++) CHECK_NEAR(pos[i][0], m.positions[i][0], 1e-5);
    mr_mesh_skin_with(&m, skin, NULL, pos, nrm);
    float thin_lin = thinnest_ring(pos);
    CHECK_MSG(thin_lin < 0.5f * RADIUS, "linear: thinnest ring %g of rest radius %g", thin_lin, RADIUS);
    /* At 150 degrees a 50/50 ring collapses to |cos 75 deg| of the radius. */
    CHECK_NEAR(thin_lin, RADIUS * cosf(glm_rad(75)), 2e-3);
    free(pos);
    free(nrm);
    mr_mesh_deinit(&m);
}

TEST(skin_dq_rigid_poses_equal_linear)
{
    mr_mesh m;
    make_limb(&m);
    int n = m.vertex_count;
    vec3 *a = calloc((size_t)n, sizeof *a), *an = calloc((size_t)n, sizeof *an);
    vec3 *b = calloc((size_t)n, sizeof *b), *bn = calloc((size_t)n, sizeof *bn);
    mat4 skin[2];
    /* Both joints moved by the same rigid transform; then the rest pose. */
    glm_translate_make(skin[0], (vec3){0.3f, -2, 5});
    glm_rotate(skin[0], glm_rad(123), (vec3){0.2f, 0.9f, -0.4f});
    glm_mat4_copy(skin[0], skin[1]);
    for (int pass = 0; pass < 2; pass++) {
        mr_mesh_skin_with(&m, skin, NULL, a, an);
        mr_mesh_skin_with(&m, skin, &(mr_skin_opts){.mode = MR_SKINNING_DUAL_QUATERNION}, b, bn);
        CHECK_MSG(max_dist(a, b, n) < 1e-5f, "pass %d: positions differ by %g", pass, max_dist(a, b, n));
        CHECK_MSG(max_dist(an, bn, n) < 1e-5f, "pass %d: normals differ by %g", pass, max_dist(an, bn, n));
        glm_mat4_identity(skin[0]);
        glm_mat4_identity(skin[1]);
    }
    free(a); free(an); free(b); free(bn);
    mr_mesh_deinit(&m);
}

TEST(skin_dq_scale_is_applied_before_the_rigid_part)
{
    mr_mesh m;
    make_limb(&m);
    int n = m.vertex_count;
    vec3 *a = calloc((size_t)n, sizeof *a), *an = calloc((size_t)n, sizeof *an);
    vec3 *b = calloc((size_t)n, sizeof *b), *bn = calloc((size_t)n, sizeof *bn);
    mat4 skin[2];
    /* The same non-uniform scale, rotation and move on both joints: linear
     * skinning is exact there, and dq must agree (a dual quaternion alone
     * would drop the scale). */
    glm_translate_make(skin[0], (vec3){1, 2, 3});
    glm_rotate(skin[0], glm_rad(40), (vec3){0, 0, 1});
    glm_scale(skin[0], (vec3){2, 0.5f, 3});
    glm_mat4_copy(skin[0], skin[1]);
    mr_mesh_skin_with(&m, skin, NULL, a, an);
    mr_mesh_skin_with(&m, skin, &(mr_skin_opts){.mode = MR_SKINNING_DUAL_QUATERNION}, b, bn);
    CHECK_MSG(max_dist(a, b, n) < 1e-5f * 4, "scaled: positions differ by %g", max_dist(a, b, n));
    /* A mirroring joint falls back to linear skinning. */
    glm_mat4_identity(skin[0]);
    glm_scale_make(skin[1], (vec3){-1, 1, 1});
    mr_mesh_skin_with(&m, skin, NULL, a, an);
    mr_mesh_skin_with(&m, skin, &(mr_skin_opts){.mode = MR_SKINNING_DUAL_QUATERNION}, b, bn);
    CHECK(max_dist(a, b, n) == 0.0f);
    free(a); free(an); free(b); free(bn);
    mr_mesh_deinit(&m);
}

TEST(skin_blend_per_vertex_between_linear_and_dq)
{
    mr_mesh m;
    make_limb(&m);
    int n = m.vertex_count;
    vec3 *lin = calloc((size_t)n, sizeof *lin), *ln = calloc((size_t)n, sizeof *ln);
    vec3 *dq = calloc((size_t)n, sizeof *dq), *dn = calloc((size_t)n, sizeof *dn);
    vec3 *mix = calloc((size_t)n, sizeof *mix), *mn = calloc((size_t)n, sizeof *mn);
    float *blend = calloc((size_t)n, sizeof *blend);
    mat4 skin[2];
    twist_skin(150, skin);
    mr_mesh_skin_with(&m, skin, NULL, lin, ln);
    mr_mesh_skin_with(&m, skin, &(mr_skin_opts){.mode = MR_SKINNING_DUAL_QUATERNION}, dq, dn);
    for (int i = 0; i < n; i++) blend[i] = i < n / 2 ? 0.0f : i < 3 * n / 4 ? 1.0f : 0.5f;
    mr_mesh_skin_with(&m, skin, &(mr_skin_opts){.blend = blend}, mix, mn);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        vec3 want;
        glm_vec3_lerp(lin[i], dq[i], blend[i], want);
        bad += glm_vec3_distance(want, mix[i]) > 1e-6f;
        if (blend[i] == 0.0f) bad += memcmp(lin[i], mix[i], sizeof(vec3)) != 0;
        if (blend[i] == 1.0f) bad += memcmp(dq[i], mix[i], sizeof(vec3)) != 0;
    }
    CHECK_MSG(bad == 0, "%d vertices off the per-vertex blend", bad);
    /* A mask per joint: joint 0 linear, joint 1 dual quaternions; a vertex
     * mixes by its weight on joint 1. */
    mr_mesh_skin_with(&m, skin, &(mr_skin_opts){.joint_blend = (const float[]){0, 1}}, mix, mn);
    bad = 0;
    for (int i = 0; i < n; i++) {
        vec3 want;
        glm_vec3_lerp(lin[i], dq[i], m.weights[i][1], want);
        bad += glm_vec3_distance(want, mix[i]) > 1e-6f;
    }
    CHECK_MSG(bad == 0, "%d vertices off the per-joint blend", bad);
    free(lin); free(ln); free(dq); free(dn); free(mix); free(mn); free(blend);
    mr_mesh_deinit(&m);
}

TEST(skin_linear_with_default_opts_is_mr_mesh_skin)
{
    mr_mesh m;
    make_limb(&m);
    int n = m.vertex_count;
    vec3 *a = calloc((size_t)n, sizeof *a), *an = calloc((size_t)n, sizeof *an);
    vec3 *b = calloc((size_t)n, sizeof *b), *bn = calloc((size_t)n, sizeof *bn);
    mat4 skin[2];
    twist_skin(70, skin);
    mr_mesh_skin(&m, skin, a, an);
    mr_mesh_skin_with(&m, skin, &(mr_skin_opts){.positions = m.positions, .normals = m.normals}, b, bn);
    CHECK(memcmp(a, b, (size_t)n * sizeof *a) == 0 && memcmp(an, bn, (size_t)n * sizeof *an) == 0);
    /* In place: inputs and outputs the same arrays. */
    memcpy(b, m.positions, (size_t)n * sizeof *b);
    memcpy(bn, m.normals, (size_t)n * sizeof *bn);
    mr_mesh_skin_with(&m, skin, &(mr_skin_opts){.positions = b, .normals = bn}, b, bn);
    CHECK(memcmp(a, b, (size_t)n * sizeof *a) == 0);
    free(a); free(an); free(b); free(bn);
    mr_mesh_deinit(&m);
}

TEST(morph_apply_adds_weighted_deltas_skips_zero_and_nan)
{
    mr_mesh m;
    CHECK(mr_mesh_init(&m, 2, 0, 0) == MR_OK);
    glm_vec3_copy((vec3){1, 0, 0}, m.positions[1]);
    glm_vec3_copy((vec3){0, 0, 1}, m.normals[0]);
    glm_vec3_copy((vec3){0, 0, 1}, m.normals[1]);
    CHECK(mr_morph_set_create(2, 2, &m.morph) == MR_OK);
    glm_vec3_copy((vec3){0, 1, 0}, m.morph->targets[0].positions[0]);
    glm_vec3_copy((vec3){0, 0, 2}, m.morph->targets[1].positions[1]);
    CHECK(mr_morph_set_add_normals(m.morph, 1) == MR_OK);
    glm_vec3_copy((vec3){1, 0, -1}, m.morph->targets[1].normals[1]);
    free(m.morph->targets[1].name);
    m.morph->targets[1].name = strdup("smile");
    m.morph->weights[0] = 0.5f;
    CHECK(mr_morph_set_find(m.morph, "smile") == 1 && mr_morph_set_find(m.morph, "frown") == -1);
    vec3 pos[2], nrm[2];
    mr_morph_apply(&m, NULL, pos, nrm);  /* defaults: 0.5, 0 */
    CHECK_NEAR(pos[0][1], 0.5, 1e-7);
    CHECK_NEAR(pos[1][2], 0.0, 0);
    mr_morph_apply(&m, (float[]){NAN, 1.0f}, pos, nrm);
    CHECK_NEAR(pos[0][1], 0.0, 0);  /* NaN counts as 0 */
    CHECK_NEAR(pos[1][2], 2.0, 1e-7);
    CHECK_NEAR(nrm[1][0], 1.0, 1e-6);  /* (0,0,1) + (1,0,-1), renormalised */
    CHECK_NEAR(nrm[1][2], 0.0, 1e-6);
    mr_mesh_deinit(&m);  /* frees the set (ASan checks) */
}

TEST(morph_channel_sample_step_linear_cubic)
{
    mr_morph_tracks *t = NULL;
    mr_morph_channel *lin = mr_morph_tracks_add(&t, 3, 1, 2, MR_INTERP_LINEAR);
    CHECK(lin && t && t->channel_count == 1);
    lin->times[0] = 1; lin->times[1] = 3;
    lin->values[0] = 0; lin->values[1] = 1;
    float w;
    mr_morph_channel_sample(lin, 2.5f, &w);
    CHECK_NEAR(w, 0.75, 1e-7);
    mr_morph_channel_sample(lin, 0.0f, &w);
    CHECK_NEAR(w, 0.0, 0);  /* before the first key: the first */
    mr_morph_channel_sample(lin, 9.0f, &w);
    CHECK_NEAR(w, 1.0, 0);
    mr_morph_channel *step = mr_morph_tracks_add(&t, 4, 1, 2, MR_INTERP_STEP);
    step->times[0] = 0; step->times[1] = 1;
    step->values[0] = 0.2f; step->values[1] = 0.9f;
    mr_morph_channel_sample(step, 0.99f, &w);
    CHECK_NEAR(w, 0.2, 1e-7);
    mr_morph_channel *cub = mr_morph_tracks_add(&t, 5, 1, 2, MR_INTERP_CUBIC);
    cub->times[0] = 0; cub->times[1] = 2;
    /* key 0: in 0, value 0, out 1; key 1: in -1, value 1, out 0 */
    float v[] = {0, 0, 1, -1, 1, 0};
    memcpy(cub->values, v, sizeof v);
    mr_morph_channel_sample(cub, 0.5f, &w);
    /* u = 0.25, dt = 2: h10 dt 1 + h01 1 + h11 dt (-1) */
    float u = 0.25f, h10 = u * u * u - 2 * u * u + u, h01 = -2 * u * u * u + 3 * u * u, h11 = u * u * u - u * u;
    CHECK_NEAR(w, h10 * 2 + h01 - h11 * 2, 1e-6);
    step = &t->channels[1];  /* adding grows the array: earlier pointers are stale */
    CHECK(mr_morph_tracks_find(t, 4) == step && mr_morph_tracks_find(t, 7) == NULL);
    mr_error err;
    CHECK(mr_morph_channel_validate(cub, &err) == MR_OK);
    cub->values[4] = NAN;
    CHECK(mr_morph_channel_validate(cub, &err) == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(err.msg, "morph channel of mesh 5: key 1 weight 1 is not a finite number");
    step->times[1] = -1;
    CHECK(mr_morph_channel_validate(step, &err) == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(err.msg, "key 1 time -1 is before key 0's 0");
    CHECK(mr_morph_tracks_add(&t, 1, 0, 2, MR_INTERP_LINEAR) == NULL);  /* no targets */
    CHECK(t->channel_count == 3);
    mr_morph_tracks_destroy(t);
}

TEST(morph_sample_uses_the_clip_channel_or_mesh_defaults_and_wraps)
{
    mr_mesh m;
    CHECK(mr_mesh_init(&m, 1, 0, 0) == MR_OK);
    CHECK(mr_morph_set_create(1, 1, &m.morph) == MR_OK);
    m.morph->weights[0] = 0.3f;
    mr_clip *clip = NULL;
    CHECK(mr_clip_create("c", 1, &clip) == MR_OK);
    clip->duration = 2;
    float w = -1;
    mr_morph_sample(clip, &m, 0, 1.0f, MR_WRAP_CLAMP, &w);
    CHECK_NEAR(w, 0.3, 1e-7);  /* no channel: the default */
    mr_morph_channel *ch = mr_morph_tracks_add(&clip->morph, 0, 1, 2, MR_INTERP_LINEAR);
    ch->times[0] = 0; ch->times[1] = 2;
    ch->values[0] = 0; ch->values[1] = 1;
    mr_morph_sample(clip, &m, 0, 2.5f, MR_WRAP_LOOP, &w);
    CHECK_NEAR(w, 0.25, 1e-6);
    mr_morph_sample(clip, &m, 0, 2.5f, MR_WRAP_CLAMP, &w);
    CHECK_NEAR(w, 1.0, 0);
    mr_morph_sample(clip, &m, 1, 1.0f, MR_WRAP_CLAMP, &w);  /* another mesh index: defaults */
    CHECK_NEAR(w, 0.3, 1e-7);
    mr_clip_destroy(clip);  /* frees the tracks */
    mr_mesh_deinit(&m);
}

/* A one-joint model with one mesh of two targets (defaults 0.1, 0) and
 * clips "a" (weights 1, 0 throughout) and "b" (0, 1), 2 s each. */
static mr_model *mix_model(void)
{
    mr_model *m = NULL;
    mr_model_create("mix", "test", &m);
    mr_skeleton_init(&m->skeleton, 1);
    m->skeleton.names[0] = strdup("root");
    m->skeleton.parents[0] = -1;
    m->mesh_count = 1;
    m->meshes = calloc(1, sizeof *m->meshes);
    mr_mesh_init(&m->meshes[0], 1, 0, 0);
    mr_morph_set_create(2, 1, &m->meshes[0].morph);
    m->meshes[0].morph->weights[0] = 0.1f;
    const char *names[] = {"a", "b", "none"};
    for (int c = 0; c < 3; c++) {
        mr_clip *clip = NULL;
        mr_clip_create(names[c], 1, &clip);
        clip->duration = 2;
        if (c < 2) {
            mr_morph_channel *ch = mr_morph_tracks_add(&clip->morph, 0, 2, 2, MR_INTERP_LINEAR);
            ch->times[1] = 2;
            ch->values[c] = ch->values[2 + c] = 1;
        }
        mr_model_add_clip(m, clip);
    }
    return m;
}

TEST(morph_mix_samples_crossfades_and_layers_like_joints)
{
    mr_model *m = mix_model();
    mr_mixer *mx = NULL;
    CHECK(mr_mixer_create(&m->skeleton, MR_UP_Y, NULL, &mx, NULL) == MR_OK);
    float w[2];
    mr_mixer_morph(mx, m->meshes, m->mesh_count, w, 2);
    CHECK_NEAR(w[0], 0.1, 1e-7);  /* nothing plays: the defaults */
    mr_play_opts loop = {.loop = MR_LOOP_REPEAT};
    CHECK(mr_mixer_play(mx, 0, mr_model_find_clip(m, "a"), &loop, NULL) == MR_OK);
    mr_mixer_update(mx, 0.1f, NULL);
    mr_mixer_morph(mx, m->meshes, m->mesh_count, w, 2);
    CHECK_NEAR(w[0], 1, 1e-6);
    CHECK_NEAR(w[1], 0, 1e-6);
    /* Cross-fade a -> b over 1 s, linear: halfway after 0.5 s. */
    CHECK(mr_mixer_crossfade(mx, 0, mr_model_find_clip(m, "b"), 1.0f, MR_CURVE_LINEAR, &loop, NULL) == MR_OK);
    mr_mixer_update(mx, 0.5f, NULL);
    mr_mixer_morph(mx, m->meshes, m->mesh_count, w, 2);
    CHECK_NEAR(w[0], 0.5, 1e-5);
    CHECK_NEAR(w[1], 0.5, 1e-5);
    mr_mixer_update(mx, 1.0f, NULL);
    /* Track 1 at weight 0.5 plays "a" over track 0's "b". */
    CHECK(mr_mixer_play(mx, 1, mr_model_find_clip(m, "a"), &(mr_play_opts){.loop = MR_LOOP_REPEAT, .weight = 0.5f},
                        NULL) == MR_OK);
    mr_mixer_update(mx, 0.1f, NULL);
    mr_mixer_morph(mx, m->meshes, m->mesh_count, w, 2);
    CHECK_NEAR(w[0], 0.5, 1e-5);
    CHECK_NEAR(w[1], 0.5, 1e-5);
    /* A clip without weight tracks on top leaves the weights below. */
    CHECK(mr_mixer_play(mx, 1, mr_model_find_clip(m, "none"), &loop, NULL) == MR_OK);
    mr_mixer_update(mx, 0.1f, NULL);
    mr_mixer_morph(mx, m->meshes, m->mesh_count, w, 2);
    CHECK_NEAR(w[0], 0.0, 1e-5);
    CHECK_NEAR(w[1], 1.0, 1e-5);
    mr_mixer_destroy(mx);
    /* The model's size counts the deltas and weight keys (Lua's --memory). */
    size_t with = mr_model_bytes(m);
    mr_morph_tracks_destroy(m->clips[0]->morph);
    m->clips[0]->morph = NULL;
    mr_morph_set_destroy(m->meshes[0].morph);
    m->meshes[0].morph = NULL;
    CHECK(with == mr_model_bytes(m) + 2 * sizeof(vec3) + 2 * (1 + 2) * sizeof(float));
    mr_model_destroy(m);
}

int main(void)
{
    RUN(skin_dq_twisted_limb_keeps_its_cross_section_linear_collapses);
    RUN(skin_dq_rigid_poses_equal_linear);
    RUN(skin_dq_scale_is_applied_before_the_rigid_part);
    RUN(skin_blend_per_vertex_between_linear_and_dq);
    RUN(skin_linear_with_default_opts_is_mr_mesh_skin);
    RUN(morph_apply_adds_weighted_deltas_skips_zero_and_nan);
    RUN(morph_channel_sample_step_linear_cubic);
    RUN(morph_sample_uses_the_clip_channel_or_mesh_defaults_and_wraps);
    RUN(morph_mix_samples_crossfades_and_layers_like_joints);
    return test_summary("test_morph");
}
