/* fuzz.h — shared by the libFuzzer entry points in tests/fuzz (one per
 * reader, plus fuzz_lua.c for the Lua API).
 *
 * Built by `make fuzz` (clang, -fsanitize=fuzzer,address,undefined) into
 * build/fuzz/fuzz/; `make fuzz-smoke` runs each for a bounded time on seed
 * corpora (tests/fuzz/smoke.sh). Each target's source names the seed files it
 * wants on a line "fuzz-seeds: EXT ..." that smoke.sh reads.
 *
 * Built with -DMR_FUZZ_STANDALONE (gcc, no libFuzzer) a target gets a main
 * that runs the entry point once per file named on the command line, for
 * replaying a crash under valgrind or gdb.
 *
 * fuzz_exercise uses a model the way the runtime does (every clip sampled,
 * posed and skinned, then optimised and sampled through a cursor), and
 * aborts when a loader let through what it promises to refuse (bad joint or
 * vertex indices, invalid clips) or a cursor disagrees with the sampler; a
 * VRM avatar's node constraints and look-at run on each pose and must leave
 * no NaN.
 */
#ifndef MR_FUZZ_H
#define MR_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/clip_runtime.h"
#include "anim/model.h"
#include "anim/vrm_constraints.h"
#include "anim/vrm_look_at.h"
#include "core/alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline void fuzz_exercise_clip(const mr_model *m, const mr_clip *clip, mr_pose *pose,
                               mat4 *model, mat4 *skin)
{
    const mr_skeleton *sk = &m->skeleton;
    for (int k = 0; k < 3; k++) {
        if (clip) mr_clip_sample(clip, sk, clip->duration * (float)k / 2, MR_WRAP_CLAMP, pose);
        else mr_pose_set_rest(pose, sk);
        if (m->vrm) {                /* a VRM avatar's constraints and look-at: finite rotations */
            double yaw, pitch;
            const float target[3] = {0.3f, 1.5f, 1.0f};
            mr_vrm_constraints_apply(sk, m->vrm, pose);
            if (mr_vrm_look_at_angles(sk, m->vrm, pose, target, &yaw, &pitch) == MR_OK)
                mr_vrm_look_at_eyes(sk, m->vrm, pose, yaw, pitch);
            for (int j = 0; j < sk->joint_count; j++)
                for (int c = 0; c < 4; c++)
                    if (!(pose->r[j][c] == pose->r[j][c])) {
                        fprintf(stderr, "fuzz: a VRM constraint or look-at left a NaN rotation on joint %d\n", j);
                        abort();
                    }
        }
        mr_pose_to_model(sk, pose, model);
        mr_pose_skinning(sk, model, skin);
        for (int i = 0; i < m->mesh_count; i++) {
            const mr_mesh *me = &m->meshes[i];
            vec3 *pos = mr_alloc_array((size_t)me->vertex_count + 1, sizeof *pos);
            vec3 *nrm = mr_alloc_array((size_t)me->vertex_count + 1, sizeof *nrm);
            if (pos && nrm) mr_mesh_skin(me, skin, pos, nrm);
            free(pos);
            free(nrm);
        }
        if (!clip) break;
    }
}

/* Optimises clip (anim/clip_pack.h; repack 0: plays the runtime it has)
 * and samples it through a playback cursor and without one at a few
 * times: the two must agree (the cursor's promise), and neither may read
 * outside the pack (ASan). */
static inline void fuzz_exercise_pack(const mr_model *m, mr_clip *clip, mr_pose *a, mr_pose *b, int repack)
{
    const mr_skeleton *sk = &m->skeleton;
    if (repack && mr_clip_optimize(clip, 0.0f) != MR_OK) return;
    mr_clip_cursor *cur = mr_clip_cursor_create(sk->joint_count);
    static const float at[] = {0.0f, 0.37f, 0.5f, 1.0f, 0.12f, 2.0f};
    for (size_t k = 0; cur && k < sizeof at / sizeof *at; k++) {
        float t = clip->duration * at[k];
        if (mr_clip_sample_with(clip, sk, t, MR_WRAP_CLAMP, a, cur) != MR_OK) break;
        if (mr_clip_sample(clip, sk, t, MR_WRAP_CLAMP, b) != MR_OK) abort();
        for (int j = 0; j < sk->joint_count; j++)
            for (int e = 0; e < 4; e++)
                if (a->r[j][e] != b->r[j][e] || (e < 3 && (a->t[j][e] != b->t[j][e] || a->s[j][e] != b->s[j][e])))
                    abort();   /* NaN never passes: loaders refuse it */
    }
    mr_clip_cursor_destroy(cur);
}

/* Validates m and runs every clip (from clip index first_clip on) through
 * sample, pose, skinning and CPU skinning, then packs it again (repack 0:
 * the runtime it came with, as a cache file's packs) and compares cursor
 * and search. */
static inline void fuzz_exercise_with(const mr_model *m, int first_clip, int repack)
{
    const mr_skeleton *sk = &m->skeleton;
    mr_error err;
    if (mr_skeleton_validate(sk, &err) != MR_OK) abort();  /* the loader must not return this */
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_mesh *me = &m->meshes[i];
        for (int v = 0; me->joints && v < me->vertex_count; v++)
            for (int q = 0; q < MR_MAX_INFLUENCES; q++)
                if (me->joints[v][q] >= sk->joint_count) abort();
        for (int q = 0; q < me->index_count; q++)
            if (me->indices[q] >= (uint32_t)me->vertex_count) abort();
    }
    mr_pose pose;
    if (mr_pose_init(&pose, sk->joint_count) != MR_OK) return;
    mat4 *model = mr_alloc_array((size_t)sk->joint_count + 1, sizeof *model);
    mat4 *skin = mr_alloc_array((size_t)sk->joint_count + 1, sizeof *skin);
    if (model && skin) {
        if (first_clip == 0) fuzz_exercise_clip(m, NULL, &pose, model, skin);
        for (int c = first_clip; c < m->clip_count; c++) {
            if (mr_clip_validate(m->clips[c], &err) != MR_OK) abort();
            fuzz_exercise_clip(m, m->clips[c], &pose, model, skin);
        }
        mr_pose other;
        if (mr_pose_init(&other, sk->joint_count) == MR_OK) {
            for (int c = first_clip; c < m->clip_count; c++) fuzz_exercise_pack(m, m->clips[c], &pose, &other, repack);
            mr_pose_deinit(&other);
        }
    }
    free(model);
    free(skin);
    mr_pose_deinit(&pose);
}

static inline void fuzz_exercise(const mr_model *m, int first_clip) { fuzz_exercise_with(m, first_clip, 1); }

/* A target with set-up defines FUZZ_OWN_INIT before including this header
 * and its own LLVMFuzzerInitialize; the others get this one, which does
 * nothing (the standalone main calls it too). */
#ifndef FUZZ_OWN_INIT
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}
#else
int LLVMFuzzerInitialize(int *argc, char ***argv);
#endif

/* The checks every reader target makes on one parse: a model that loads is
 * exercised (fuzz_exercise) and freed; a refusal leaves the model NULL and
 * its message is one line starting with prefix and, when located is set,
 * holding ": expected " (out of memory excepted). Aborts on a violation. */
static inline void fuzz_check_parse(mr_status st, mr_model *m, const mr_error *err, const char *prefix,
                                    int located)
{
    if (st == MR_OK) {
        fuzz_exercise(m, 0);
        mr_model_destroy(m);
    } else if (m) {
        abort();  /* failures leave *out NULL */
    } else if (st != MR_ERR_NO_MEMORY &&
               (strncmp(err->msg, prefix, strlen(prefix)) != 0 || strchr(err->msg, '\n') ||
                (located && !strstr(err->msg, ": expected ")))) {
        abort();  /* every refusal is one line naming the reader */
    }
}

#ifdef MR_FUZZ_STANDALONE
#include "core/file.h"


int main(int argc, char **argv)
{
    LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        size_t len;
        mr_error err;
        char *buf = mr_file_read(argv[i], &len, &err);
        if (!buf) {
            fprintf(stderr, "%s\n", err.msg);
            continue;
        }
        LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
        free(buf);
    }
    printf("%d inputs ran\n", argc - 1);
    return 0;
}
#endif

#endif
