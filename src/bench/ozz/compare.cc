// compare.cc — marrow beside ozz-animation on the same skeleton and keys
// (`make bench-ozz OZZ_SRC=DIR`; not part of `make` or `make test`;
// `marrow bench` runs it, with --quick, when it has been built).
//
// ozz-animation is not packaged by Debian, so this program is built only
// against an ozz built from source: the runtime and offline libraries of
// ozz-animation 0.16.0 (https://github.com/guillaumeblanc/ozz-animation,
// tag 0.16.0). `make bench-ozz OZZ_SRC=DIR` builds them from the source tree
// DIR into build/ozz once (scripts/build-ozz.sh: ozz's Release build,
// libraries only) and compiles this file with the SIMD flags ozz was built
// with (OZZ_SIMD_FLAGS, default none); `make bench-ozz OZZ_DIR=PREFIX`
// uses an ozz install instead (built with -Dozz_build_postfix=OFF).
//
// It loads an MD5 model and two of its clips with marrow, hands the same
// skeleton and the same keys to ozz (RawSkeleton, RawAnimation, then ozz's
// builders), and prints, for the clip 'forward':
//   memory and error of each library's clip, raw keys and optimised:
//     bytes: marrow's mr_clip_runtime_bytes, ozz's Animation::size() (which
//     also counts the Animation object itself, about 200 bytes);
//     error: the farthest a virtual point strays from the exact pose of the
//     source keys (LINEAR rotations slerped) at 121 evenly spaced times, as
//     a fraction of the model size, the points being each joint's origin and
//     the points 1/18 of the model size (ozz's 10 cm on a 1.8 m character:
//     MR_CLIP_POINT_DISTANCE) along its x, y and z axes, taken to
//     model space. marrow's is mr_clip_runtime_error; ozz's is measured here
//     the same way (this program checks that its measure gives marrow's
//     figure for marrow's clip, and says so when not);
//     optimised: marrow's mr_clip_optimize at its default, 1e-4 of the model
//     size (sampled through a playback cursor, as ozz through its context,
//     straight to model matrices: mr_clip_sample_model, which leaves the
//     local transforms in the cursor's rows as ozz's SamplingJob leaves them
//     in its SoA output), against
//     ozz's AnimationOptimizer at its defaults (1 mm at 10 cm) scaled from a
//     1.8 m character to the model's size; and marrow optimised to the
//     error ozz's clip leaves (measured in this run), which compares the
//     two at equal fidelity;
// and times, in alternating turns, in thread CPU time, nanoseconds per
// joint, time stepped by 1/60 s and looped:
//   sample + local-to-model   raw keys: mr_clip_sample + mr_pose_to_model
//                             against SamplingJob + LocalToModelJob; then
//                             each library's optimised clip; then marrow's
//                             clip optimised to ozz's error, against ozz's
//                             optimised clip timed again;
//   blend + local-to-model    two clips sampled, blended 0.6 / 0.4 and
//                             taken to model space (mr_blend_run against
//                             BlendingJob);
//   blend step alone          the blend of two sampled poses.
// Before timing, it checks that both libraries pose the model alike: the
// largest distance between marrow's and ozz's model-space joint positions
// over the clip, as a fraction of the model size (ozz stores keys quantised,
// so expect about 1e-4, not 0).
//
// marrow is used through its public API only (model loading, mr_clip_sample,
// mr_clip_optimize, mr_clip_runtime_bytes, mr_clip_runtime_error, the source
// tracks and mr_track_sample), so it measures whatever runtime clip marrow
// has.
//
//   ozz_compare [--models DIR] [--quick]   (DIR: ../shared/models; --quick:
//                                           3 runs of 200, a few seconds)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <algorithm>
#include <vector>

extern "C" {
#include "anim/blend.h"
#include "anim/clip_runtime.h"
#include "anim/model.h"
#include "core/cpu.h"
#include "formats/load.h"
}

#include "ozz/animation/offline/animation_builder.h"
#include "ozz/animation/offline/animation_optimizer.h"
#include "ozz/animation/offline/raw_animation.h"
#include "ozz/animation/offline/raw_skeleton.h"
#include "ozz/animation/offline/skeleton_builder.h"
#include "ozz/animation/runtime/animation.h"
#include "ozz/animation/runtime/blending_job.h"
#include "ozz/animation/runtime/local_to_model_job.h"
#include "ozz/animation/runtime/sampling_job.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/soa_transform.h"

namespace oa = ozz::animation;
namespace off = ozz::animation::offline;

static const char *kMesh = "tomatenquark-essential/packages/models/snoutx10k/snoutx10k.md5mesh";
static const char *kAnims[] = {"tomatenquark-essential/packages/models/snoutx10k/forward.md5anim",
                               "tomatenquark-essential/packages/models/snoutx10k/idle.md5anim"};

static double cpu_now()
{
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// ---- ozz's side: the same skeleton and keys --------------------------------

struct OzzRig {
    ozz::unique_ptr<oa::Skeleton> skeleton;
    std::vector<int> to_marrow;                   // ozz joint -> marrow joint
    std::vector<int> to_ozz;                      // marrow joint -> ozz joint
    ozz::vector<ozz::math::SoaTransform> local[3];   // clip a, clip b, blended
    ozz::vector<ozz::math::Float4x4> model;
    oa::SamplingJob::Context context[2];
};

static void add_joint(const mr_skeleton *sk, int j, const std::vector<std::vector<int>> &children,
                      off::RawSkeleton::Joint *out)
{
    out->name = sk->names[j];
    out->transform.translation = ozz::math::Float3(sk->rest_t[j][0], sk->rest_t[j][1], sk->rest_t[j][2]);
    out->transform.rotation =
        ozz::math::Quaternion(sk->rest_r[j][0], sk->rest_r[j][1], sk->rest_r[j][2], sk->rest_r[j][3]);
    out->transform.scale = ozz::math::Float3(sk->rest_s[j][0], sk->rest_s[j][1], sk->rest_s[j][2]);
    out->children.resize(children[j].size());
    for (size_t k = 0; k < children[j].size(); k++) add_joint(sk, children[j][k], children, &out->children[k]);
}

static bool make_rig(const mr_skeleton *sk, OzzRig *rig)
{
    std::vector<std::vector<int>> children((size_t)sk->joint_count);
    off::RawSkeleton raw;
    std::vector<int> roots;
    for (int j = 0; j < sk->joint_count; j++) {
        if (sk->parents[j] < 0) roots.push_back(j);
        else children[(size_t)sk->parents[j]].push_back(j);
    }
    raw.roots.resize(roots.size());
    for (size_t i = 0; i < roots.size(); i++) add_joint(sk, roots[i], children, &raw.roots[i]);
    if (!raw.Validate()) return false;
    rig->skeleton = off::SkeletonBuilder()(raw);
    if (!rig->skeleton || rig->skeleton->num_joints() != sk->joint_count) return false;
    rig->to_marrow.assign((size_t)sk->joint_count, -1);
    rig->to_ozz.assign((size_t)sk->joint_count, -1);
    for (int i = 0; i < sk->joint_count; i++) {
        for (int j = 0; j < sk->joint_count; j++)
            if (!strcmp(rig->skeleton->joint_names()[(size_t)i], sk->names[j])) rig->to_marrow[(size_t)i] = j;
        if (rig->to_marrow[(size_t)i] < 0) return false;   // joint names must be unique
        rig->to_ozz[(size_t)rig->to_marrow[(size_t)i]] = i;
    }
    for (auto &l : rig->local) l.resize((size_t)rig->skeleton->num_soa_joints());
    rig->model.resize((size_t)rig->skeleton->num_joints());
    for (auto &c : rig->context) c.Resize(rig->skeleton->num_joints());
    return true;
}

// The clip's source keys as an ozz RawAnimation; a channel without keys
// gets one key at the rest value (ozz reads an empty track as identity).
static void raw_animation(const mr_clip *c, const mr_skeleton *sk, const OzzRig &rig, off::RawAnimation *raw)
{
    raw->duration = c->duration;
    raw->tracks.resize((size_t)sk->joint_count);
    for (int i = 0; i < sk->joint_count; i++) {
        int j = rig.to_marrow[(size_t)i];
        const mr_joint_tracks &src = c->tracks[j];
        off::RawAnimation::JointTrack &dst = raw->tracks[(size_t)i];
        const float *t = sk->rest_t[j], *r = sk->rest_r[j], *s = sk->rest_s[j];
        if (!src.t.key_count) dst.translations.push_back({0.0f, ozz::math::Float3(t[0], t[1], t[2])});
        for (int k = 0; k < src.t.key_count; k++) {
            const float *v = src.t.values + 3 * k;
            dst.translations.push_back({src.t.times[k], ozz::math::Float3(v[0], v[1], v[2])});
        }
        if (!src.r.key_count) dst.rotations.push_back({0.0f, ozz::math::Quaternion(r[0], r[1], r[2], r[3])});
        for (int k = 0; k < src.r.key_count; k++) {
            const float *v = src.r.values + 4 * k;
            dst.rotations.push_back({src.r.times[k], ozz::math::Quaternion(v[0], v[1], v[2], v[3])});
        }
        if (!src.s.key_count) dst.scales.push_back({0.0f, ozz::math::Float3(s[0], s[1], s[2])});
        for (int k = 0; k < src.s.key_count; k++) {
            const float *v = src.s.values + 3 * k;
            dst.scales.push_back({src.s.times[k], ozz::math::Float3(v[0], v[1], v[2])});
        }
    }
}

static int raw_keys(const off::RawAnimation &raw)
{
    size_t n = 0;
    for (const auto &t : raw.tracks) n += t.translations.size() + t.rotations.size() + t.scales.size();
    return (int)n;
}

// Builds the runtime animation, thinned by ozz's optimiser when tolerance > 0.
static ozz::unique_ptr<oa::Animation> ozz_clip(const mr_clip *c, const mr_skeleton *sk, const OzzRig &rig,
                                              float tolerance, float distance, int *keys)
{
    off::RawAnimation raw;
    raw_animation(c, sk, rig, &raw);
    if (!raw.Validate()) return nullptr;
    if (tolerance > 0) {
        off::AnimationOptimizer optimizer;
        optimizer.setting.tolerance = tolerance;
        optimizer.setting.distance = distance;
        off::RawAnimation thinned;
        if (!optimizer(raw, *rig.skeleton, &thinned)) return nullptr;
        raw = thinned;
    }
    *keys = raw_keys(raw);
    return off::AnimationBuilder()(raw);
}

static void ozz_sample(OzzRig &rig, const oa::Animation &a, float t, int slot)
{
    float d = a.duration();
    float ratio = d > 0 ? std::fmod(t, d) / d : 0.0f;
    oa::SamplingJob job;
    job.animation = &a;
    job.context = &rig.context[slot];
    job.ratio = ratio < 0 ? ratio + 1.0f : ratio;
    job.output = ozz::make_span(rig.local[slot]);
    job.Run();
}

static void ozz_to_model(OzzRig &rig, int slot)
{
    oa::LocalToModelJob job;
    job.skeleton = rig.skeleton.get();
    job.input = ozz::make_span(static_cast<const ozz::vector<ozz::math::SoaTransform> &>(rig.local[slot]));
    job.output = ozz::make_span(rig.model);
    job.Run();
}

static void ozz_blend(OzzRig &rig, float wa, float wb)
{
    oa::BlendingJob::Layer layers[2];
    layers[0].weight = wa;
    layers[0].transform = ozz::make_span(static_cast<const ozz::vector<ozz::math::SoaTransform> &>(rig.local[0]));
    layers[1].weight = wb;
    layers[1].transform = ozz::make_span(static_cast<const ozz::vector<ozz::math::SoaTransform> &>(rig.local[1]));
    oa::BlendingJob job;
    job.layers = ozz::span<const oa::BlendingJob::Layer>(layers, 2);
    job.rest_pose = rig.skeleton->joint_rest_poses();
    job.output = ozz::make_span(rig.local[2]);
    job.Run();
}

static void ozz_position(const OzzRig &rig, int marrow_joint, float out[3])
{
    ozz::math::Store3PtrU(rig.model[(size_t)rig.to_ozz[(size_t)marrow_joint]].cols[3], out);
}

// ---- marrow's side ------------------------------------------------------------

struct MarrowRig {
    const mr_skeleton *sk;
    mr_pose a, b, blended;
    mat4 *model;         // joint_count matrices (calloc)
};

// ---- the comparison ----------------------------------------------------------

enum { CASE_SAMPLE, CASE_THIN, CASE_MATCHED, CASE_BLEND, CASE_BLEND_STEP, CASE_COUNT };
static const char *kCaseNames[CASE_COUNT] = {"sample + local-to-model, raw keys",
                                             "sample + local-to-model, optimised clips",
                                             "same, marrow optimised to ozz's error",
                                             "two-clip blend + local-to-model", "blend step alone"};

struct Subjects {
    MarrowRig m;
    OzzRig o;
    const mr_clip *walk, *idle, *walk_thin;
    const mr_clip *walk_matched;   // optimised to the error ozz's optimiser leaves
    mr_clip_cursor *cursor;   // marrow's playback cursors, as ozz samples through its context
    mr_clip_cursor *matched_cursor;
    ozz::unique_ptr<oa::Animation> o_walk, o_idle, o_walk_thin;
};

static void run_marrow(Subjects &s, int which, float t)
{
    MarrowRig &m = s.m;
    switch (which) {
    case CASE_SAMPLE:
        mr_clip_sample(s.walk, m.sk, t, MR_WRAP_LOOP, &m.a);
        mr_pose_to_model(m.sk, &m.a, m.model);
        break;
    case CASE_THIN:   // the locals stay in the cursor's rows, as ozz's in its SoA output
        mr_clip_sample_model(s.walk_thin, m.sk, t, MR_WRAP_LOOP, nullptr, m.model, s.cursor);
        break;
    case CASE_MATCHED:
        mr_clip_sample_model(s.walk_matched, m.sk, t, MR_WRAP_LOOP, nullptr, m.model, s.matched_cursor);
        break;
    case CASE_BLEND:
    case CASE_BLEND_STEP: {
        if (which == CASE_BLEND) {
            mr_clip_sample(s.walk, m.sk, t, MR_WRAP_LOOP, &m.a);
            mr_clip_sample(s.idle, m.sk, t, MR_WRAP_LOOP, &m.b);
        }
        mr_blend_layer layers[2] = {{&m.a, 0.6f, nullptr}, {&m.b, 0.4f, nullptr}};
        mr_blend_job job = {m.sk, layers, 2, 0.0f, &m.blended};
        mr_blend_run(&job, nullptr);
        if (which == CASE_BLEND) mr_pose_to_model(m.sk, &m.blended, m.model);
        break;
    }
    }
}

static void run_ozz(Subjects &s, int which, float t)
{
    OzzRig &o = s.o;
    switch (which) {
    case CASE_SAMPLE:
    case CASE_THIN:
    case CASE_MATCHED:   // ozz's optimised clip again, timed in the same turns
        ozz_sample(o, which == CASE_SAMPLE ? *s.o_walk : *s.o_walk_thin, t, 0);
        ozz_to_model(o, 0);
        break;
    case CASE_BLEND:
        ozz_sample(o, *s.o_walk, t, 0);
        ozz_sample(o, *s.o_idle, t, 1);
        ozz_blend(o, 0.6f, 0.4f);
        ozz_to_model(o, 2);
        break;
    case CASE_BLEND_STEP:
        ozz_blend(o, 0.6f, 0.4f);
        break;
    }
}

// Largest distance between the two libraries' model-space joint positions
// over the clip, sampled every 1/30 s.
static float pose_difference(Subjects &s, float *at)
{
    float worst = 0;
    *at = 0;
    for (float t = 0; t <= s.walk->duration; t += 1.0f / 30.0f) {
        run_marrow(s, CASE_SAMPLE, t);
        run_ozz(s, CASE_SAMPLE, t);
        for (int j = 0; j < s.m.sk->joint_count; j++) {
            float p[3];
            ozz_position(s.o, j, p);
            float d = std::sqrt((p[0] - s.m.model[(size_t)j][3][0]) * (p[0] - s.m.model[(size_t)j][3][0]) +
                                (p[1] - s.m.model[(size_t)j][3][1]) * (p[1] - s.m.model[(size_t)j][3][1]) +
                                (p[2] - s.m.model[(size_t)j][3][2]) * (p[2] - s.m.model[(size_t)j][3][2]));
            if (d > worst) {
                worst = d;
                *at = t;
            }
        }
    }
    return worst;
}

// ---- memory and error ---------------------------------------------------------

static const int kErrorSamples = 121;
static const float kErrorDistance = (float)MR_CLIP_POINT_DISTANCE;   // of the model size: ozz's 10 cm at 1.8 m

// Keys of the clip's source tracks (as the file gave them).
static int source_keys(const mr_clip *c)
{
    int n = 0;
    for (int j = 0; j < c->joint_count; j++)
        n += c->tracks[j].t.key_count + c->tracks[j].r.key_count + c->tracks[j].s.key_count;
    return n;
}

// The time of error sample i, as mr_clip_runtime_error takes it.
static float error_time(const mr_clip *c, int i)
{
    float t = (float)((double)c->duration * i / (kErrorSamples - 1));
    return mr_clip_wrap_time(c, t, MR_WRAP_CLAMP);
}

// Largest distance between the virtual points of two joint matrices (columns
// x, y, z axes and origin): the origin and d along each axis.
static double points_apart(const float a[4][4], const float b[4][4], float d)
{
    double worst = 0;
    for (int p = 0; p < 4; p++) {
        double d2 = 0;
        for (int r = 0; r < 3; r++) {
            double pa = a[3][r], pb = b[3][r];
            if (p > 0) {
                pa += (double)d * a[p - 1][r];
                pb += (double)d * b[p - 1][r];
            }
            d2 += (pa - pb) * (pa - pb);
        }
        worst = std::max(worst, d2);
    }
    return std::sqrt(worst);
}

// Model-space matrices of the exact pose of the clip's source keys
// (mr_track_sample; untracked channels at rest) at each error sample time:
// kErrorSamples * joint_count matrices, aligned for cglm; free() them.
static mat4 *exact_poses(const mr_clip *c, const mr_skeleton *sk)
{
    size_t n = (size_t)sk->joint_count, bytes = (size_t)kErrorSamples * n * sizeof(mat4);
    mat4 *out = static_cast<mat4 *>(aligned_alloc(32, (bytes + 31) / 32 * 32));
    mr_pose pose;
    if (!out || mr_pose_init(&pose, sk->joint_count) != MR_OK) {
        free(out);
        return nullptr;
    }
    for (int i = 0; i < kErrorSamples; i++) {
        float t = error_time(c, i);
        for (int j = 0; j < sk->joint_count; j++) {
            const mr_joint_tracks &jt = c->tracks[j];
            if (jt.t.key_count) mr_track_sample(&jt.t, t, pose.t[j]);
            else glm_vec3_copy(const_cast<float *>(sk->rest_t[j]), pose.t[j]);
            if (jt.r.key_count) mr_track_sample(&jt.r, t, pose.r[j]);
            else glm_vec4_copy(const_cast<float *>(sk->rest_r[j]), pose.r[j]);
            if (jt.s.key_count) mr_track_sample(&jt.s, t, pose.s[j]);
            else glm_vec3_copy(const_cast<float *>(sk->rest_s[j]), pose.s[j]);
        }
        mr_pose_to_model(sk, &pose, out + (size_t)i * n);
    }
    mr_pose_deinit(&pose);
    return out;
}

// This program's error measure applied to marrow's clip c: must give what
// mr_clip_runtime_error gives (the check that ozz is measured alike).
static double marrow_error(MarrowRig &m, const mr_clip *c, const mat4 *exact, float d)
{
    double worst = 0;
    size_t n = (size_t)m.sk->joint_count;
    for (int i = 0; i < kErrorSamples; i++) {
        mr_clip_sample(c, m.sk, error_time(c, i), MR_WRAP_CLAMP, &m.a);
        mr_pose_to_model(m.sk, &m.a, m.model);
        for (size_t j = 0; j < n; j++) worst = std::max(worst, points_apart(m.model[j], exact[(size_t)i * n + j], d));
    }
    return worst;
}

// The same measure for ozz's runtime animation a (SamplingJob at the same
// times, as ratios of its duration, then LocalToModelJob).
static double ozz_error(OzzRig &rig, const oa::Animation &a, const mr_clip *c, const mat4 *exact, float d)
{
    double worst = 0;
    size_t n = (size_t)rig.skeleton->num_joints();
    for (int i = 0; i < kErrorSamples; i++) {
        float t = error_time(c, i), dur = a.duration();
        oa::SamplingJob job;
        job.animation = &a;
        job.context = &rig.context[0];
        job.ratio = dur > 0 ? std::min(std::max(t / dur, 0.0f), 1.0f) : 0.0f;
        job.output = ozz::make_span(rig.local[0]);
        if (!job.Run()) return -1;
        ozz_to_model(rig, 0);
        for (size_t k = 0; k < n; k++) {
            float m[4][4];
            for (int col = 0; col < 4; col++) ozz::math::StorePtrU(rig.model[k].cols[col], m[col]);
            worst = std::max(worst, points_apart(m, exact[(size_t)i * n + (size_t)rig.to_marrow[k]], d));
        }
    }
    return worst;
}

// The SIMD code ozz's headers chose (simd_math_config.h), with the flags
// this file was compiled with: the same as ozz's build (Makefile).
static const char *ozz_simd()
{
#if defined(OZZ_SIMD_REF)
    return "scalar reference (OZZ_SIMD_REF)";
#elif defined(OZZ_SIMD_AVX2) && defined(OZZ_SIMD_FMA)
    return "AVX2 + FMA";
#elif defined(OZZ_SIMD_AVX2)
    return "AVX2";
#elif defined(OZZ_SIMD_AVX)
    return "AVX";
#elif defined(OZZ_SIMD_SSE4_2)
    return "SSE4.2";
#elif defined(OZZ_SIMD_SSE4_1)
    return "SSE4.1";
#elif defined(OZZ_SIMD_SSSE3)
    return "SSSE3";
#elif defined(OZZ_SIMD_SSE3)
    return "SSE3";
#else
    return "SSE2";
#endif
}

static mr_model *load(const char *root)
{
    char mesh[4096], anims[2][4096];
    snprintf(mesh, sizeof mesh, "%s/%s", root, kMesh);
    for (int i = 0; i < 2; i++) snprintf(anims[i], sizeof anims[i], "%s/%s", root, kAnims[i]);
    const char *list[2] = {anims[0], anims[1]};
    mr_model *m = nullptr;
    mr_error err;
    if (mr_load_model(mesh, list, 2, &m, &err) != MR_OK) {
        fprintf(stderr, "ozz_compare: %s\n", err.msg);
        return nullptr;
    }
    return m;
}

int main(int argc, char **argv)
{
    const char *root = "../shared/models";
    bool quick = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--models") && i + 1 < argc) root = argv[++i];
        else if (!strcmp(argv[i], "--quick")) quick = true;
        else {
            fprintf(stderr, "usage: ozz_compare [--models DIR] [--quick]\n");
            return 2;
        }
    }
    // Three copies of the model: one keeps every key, the others are thinned
    // (mr_clip_optimize changes the clip it is given): at marrow's default
    // and to the error ozz's optimiser leaves.
    mr_model *model = load(root), *thin_model = load(root), *matched_model = load(root);
    if (!model || !thin_model || !matched_model) return 3;
    Subjects s;
    const mr_skeleton *sk = &model->skeleton;
    s.walk = mr_model_find_clip(model, "forward");
    s.idle = mr_model_find_clip(model, "idle");
    mr_clip *walk_thin = mr_model_find_clip(thin_model, "forward");
    if (!s.walk || !s.idle || !walk_thin) {
        fprintf(stderr, "ozz_compare: clips 'forward' and 'idle' not found\n");
        return 3;
    }
    vec3 bmin, bmax;
    mr_model_bounds(model, bmin, bmax);
    float size = glm_vec3_distance(bmin, bmax);
    const float marrow_tolerance = MR_CLIP_FIDELITY;   // marrow's default: 1e-4 of the model size
    if (!(size > 0) || mr_clip_optimize(walk_thin, marrow_tolerance) != MR_OK) {
        fprintf(stderr, "ozz_compare: marrow could not optimise the clip 'forward'\n");
        return 1;
    }
    s.walk_thin = walk_thin;
    s.cursor = mr_clip_cursor_create(sk->joint_count);
    s.matched_cursor = mr_clip_cursor_create(sk->joint_count);
    if (!s.cursor || !s.matched_cursor) return 1;

    if (!make_rig(sk, &s.o)) {
        fprintf(stderr, "ozz_compare: ozz's SkeletonBuilder refused the skeleton\n");
        return 1;
    }
    int ozz_keys = 0, ozz_thin_keys = 0, unused = 0;
    // ozz's defaults, 1 mm at 10 cm, are for a character about 1.8 m tall
    float tolerance = 1e-3f / 1.8f * size, distance = 0.1f / 1.8f * size;
    s.o_walk = ozz_clip(s.walk, sk, s.o, 0, 0, &ozz_keys);
    s.o_idle = ozz_clip(s.idle, sk, s.o, 0, 0, &unused);
    s.o_walk_thin = ozz_clip(s.walk, sk, s.o, tolerance, distance, &ozz_thin_keys);
    if (!s.o_walk || !s.o_idle || !s.o_walk_thin) {
        fprintf(stderr, "ozz_compare: ozz's AnimationBuilder refused a clip\n");
        return 1;
    }
    s.m.sk = sk;
    mr_pose_init(&s.m.a, sk->joint_count);
    mr_pose_init(&s.m.b, sk->joint_count);
    mr_pose_init(&s.m.blended, sk->joint_count);
    s.m.model = static_cast<mat4 *>(calloc((size_t)sk->joint_count, sizeof(mat4)));

    float at = 0;
    float diff = pose_difference(s, &at);
    static const char *kMarrowSimd[] = {"SSE2", "AVX", "AVX2", "AVX-512"};
    mr_simd_level level = mr_simd();
    printf("== marrow beside ozz-animation 0.16: snoutx10k, %d joints, clip 'forward' %.2f s\n", sk->joint_count,
           s.walk->duration);
    printf("  SIMD: ozz %s (its headers' choice from the compiler flags of its build); marrow %s (picked\n"
           "  at run time, MARROW_SIMD=sse2 caps it)\n",
           ozz_simd(), level >= MR_SIMD_SSE2 && level <= MR_SIMD_AVX512 ? kMarrowSimd[level] : "?");
    printf("  same pose check: joints differ by at most %.2g of the model size (%.4g units at t = %.3f s)\n",
           diff / size, diff, at);

    // Memory and error of each library's clips, against one exact pose.
    float d = kErrorDistance * size;
    mat4 *exact = exact_poses(s.walk, sk);
    if (!exact) {
        fprintf(stderr, "ozz_compare: out of memory\n");
        return 1;
    }
    const mr_clip *m_clip[2] = {s.walk, s.walk_thin};
    const oa::Animation *o_clip[2] = {s.o_walk.get(), s.o_walk_thin.get()};
    double m_err[2], o_err[2];
    for (int k = 0; k < 2; k++) {
        if (mr_clip_runtime_error(m_clip[k], sk, d, kErrorSamples, &m_err[k]) != MR_OK) {
            fprintf(stderr, "ozz_compare: mr_clip_runtime_error failed\n");
            return 1;
        }
        double mine = marrow_error(s.m, m_clip[k], exact, d);
        if (std::fabs(mine - m_err[k]) > 1e-6 * size + 1e-3 * m_err[k])
            printf("  NOTE: this program measures %.3g of the size for marrow's clip where mr_clip_runtime_error\n"
                   "        says %.3g: ozz's error below is not measured as marrow's is\n",
                   mine / size, m_err[k] / size);
        o_err[k] = ozz_error(s.o, *o_clip[k], s.walk, exact, d);
    }
    // marrow optimised to ozz's error: equal fidelity, compared
    mr_clip *walk_matched = mr_model_find_clip(matched_model, "forward");
    double matched_err = 0;
    float matched_tolerance = (float)(o_err[1] / size);
    if (!walk_matched || !(matched_tolerance > 0) || mr_clip_optimize(walk_matched, matched_tolerance) != MR_OK ||
        mr_clip_runtime_error(walk_matched, sk, d, kErrorSamples, &matched_err) != MR_OK) {
        fprintf(stderr, "ozz_compare: marrow could not optimise the clip 'forward' to ozz's error (%.3g)\n",
                (double)matched_tolerance);
        return 1;
    }
    s.walk_matched = walk_matched;
    free(exact);
    printf("  optimised: marrow mr_clip_optimize at %g of the model size; ozz AnimationOptimizer at its\n"
           "  defaults (1 mm at 10 cm) scaled to the model: %.3g units at %.3g (size %.4g units)\n",
           (double)marrow_tolerance, tolerance, distance, size);
    printf("  memory and largest error (virtual points size / 18 along each joint's axes, %d times,\n"
           "  against the exact pose of the source keys; error as a fraction of the model size)\n",
           kErrorSamples);
    printf("  %-40s %12s %9s %12s %9s %14s\n", "", "marrow bytes", "error", "ozz bytes", "error", "marrow / ozz");
    static const char *kClipNames[3] = {"raw keys", "optimised", "marrow optimised to ozz's error"};
    const mr_clip *m_row[3] = {s.walk, s.walk_thin, s.walk_matched};
    double m_row_err[3] = {m_err[0], m_err[1], matched_err};
    for (int k = 0; k < 3; k++) {
        const oa::Animation *o = o_clip[k < 1 ? 0 : 1];
        double oe = o_err[k < 1 ? 0 : 1];
        size_t mb = mr_clip_runtime_bytes(m_row[k]), ob = o->size();
        printf("  %-40s %12zu %9.2g %12zu %9.2g %13.2fx\n", kClipNames[k], mb, m_row_err[k] / size, ob,
               oe < 0 ? -1.0 : oe / size, (double)mb / (double)ob);
    }
    printf("  keys: source %d; ozz raw %d, optimised %d\n", source_keys(s.walk), ozz_keys, ozz_thin_keys);
    {   // the optimised clips as `marrow info` words them: per joint and second, and against raw poses
        double raw = (double)mr_clip_key_count(s.walk) * s.walk->joint_count * 10 * sizeof(float);
        double per = s.walk->duration > 0 ? s.walk->duration * s.walk->joint_count : 1.0;
        size_t mb = mr_clip_runtime_bytes(s.walk_thin), ob = s.o_walk_thin->size();
        printf("  optimised, per joint per second: marrow %.1f bytes, ozz %.1f; against raw 10-float poses: "
               "marrow %.1f:1, ozz %.1f:1\n", (double)mb / per, (double)ob / per, raw / (double)mb, raw / (double)ob);
    }

    // Blend-step inputs: both libraries hold a sampled pose pair.
    run_marrow(s, CASE_BLEND, 0.3f);
    run_ozz(s, CASE_BLEND, 0.3f);

    int runs = quick ? 3 : 21, iters = quick ? 200 : 4000;
    std::vector<double> ns[CASE_COUNT][2];
    float clock[CASE_COUNT][2] = {};
    volatile float sink = 0;
    for (int run = 0; run < runs; run++)
        for (int c = 0; c < CASE_COUNT; c++)
            for (int lib = 0; lib < 2; lib++) {
                int who = (run + c) % 2 ? 1 - lib : lib;   // which library goes first alternates
                double t0 = cpu_now();
                for (int i = 0; i < iters; i++) {
                    clock[c][who] += 1.0f / 60.0f;
                    if (who == 0) {
                        run_marrow(s, c, clock[c][who]);
                        sink = sink + s.m.blended.t[0][0] + s.m.model[0][3][0];
                    } else {
                        run_ozz(s, c, clock[c][who]);
                        sink = sink + ozz::math::GetX(s.o.model[0].cols[3]);
                    }
                }
                ns[c][who].push_back((cpu_now() - t0) * 1e9 / ((double)iters * sk->joint_count));
            }
    printf("  ns per joint, median of %d runs of %d evaluations, thread CPU time, turns alternating\n", runs, iters);
    printf("  %-40s %10s %10s %14s\n", "", "marrow", "ozz", "marrow / ozz");
    for (int c = 0; c < CASE_COUNT; c++) {
        double m = median(ns[c][0]), o = median(ns[c][1]);
        printf("  %-40s %10.2f %10.2f %13.2fx\n", kCaseNames[c], m, o, m / o);
    }
    mr_pose_deinit(&s.m.a);
    mr_pose_deinit(&s.m.b);
    mr_pose_deinit(&s.m.blended);
    free(s.m.model);
    mr_clip_cursor_destroy(s.cursor);
    mr_clip_cursor_destroy(s.matched_cursor);
    mr_model_destroy(model);
    mr_model_destroy(thin_model);
    mr_model_destroy(matched_model);
    return 0;
}
