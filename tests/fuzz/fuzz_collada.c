/* fuzz_collada.c — libFuzzer entry point for the COLLADA reader.
 *
 * Not built by `make`. With clang:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *       $(pkg-config --cflags libxml-2.0 cglm) tests/fuzz/fuzz_collada.c \
 *       $(find src/core src/anim src/formats -name '*.c' ! -name 'load.c' ! -name 'md5*.c') \
 *       $(pkg-config --libs libxml-2.0 cglm) -lm -o fuzz_collada
 *   ./fuzz_collada -max_len=65536 corpus/ tests/bad/collada/
 * Seed the corpus with small .dae files (tests/bad/collada, and the small
 * files of ../shared/models copied into a scratch directory, never into the
 * project). Without clang, -DMR_FUZZ_STANDALONE builds a main that runs the
 * entry point once per file named on the command line (gcc, for replaying
 * crashes).
 *
 * Each input is parsed; a model that loads is validated and exercised the
 * way the runtime uses it (every clip sampled, posed and skinned), so a
 * loader that lets bad indices or NaNs through is caught here too.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "formats/collada.h"

static void exercise(const mr_model *m)
{
    const mr_skeleton *sk = &m->skeleton;
    mr_error err;
    if (mr_skeleton_validate(sk, &err) != MR_OK) abort();  /* the loader must not return this */
    mr_pose pose;
    if (mr_pose_make(&pose, sk->joint_count) != MR_OK) return;
    mat4 *model = mr_alloc_array((size_t)sk->joint_count + 1, sizeof *model);
    mat4 *skin = mr_alloc_array((size_t)sk->joint_count + 1, sizeof *skin);
    for (int c = -1; c < m->clip_count && model && skin; c++) {
        if (c >= 0 && mr_clip_validate(m->clips[c], &err) != MR_OK) abort();
        for (int k = 0; k < 3; k++) {
            if (c >= 0) mr_clip_sample(m->clips[c], sk, m->clips[c]->duration * (float)k / 2, MR_WRAP_CLAMP, &pose);
            else mr_pose_set_rest(&pose, sk);
            mr_pose_to_model(sk, &pose, model);
            mr_pose_skinning(sk, model, skin);
            for (int i = 0; i < m->mesh_count; i++) {
                const mr_mesh *me = &m->meshes[i];
                for (int v = 0; me->joints && v < me->vertex_count; v++)
                    for (int q = 0; q < MR_MAX_INFLUENCES; q++)
                        if (me->joints[v][q] >= sk->joint_count) abort();
                for (int q = 0; q < me->index_count; q++)
                    if (me->indices[q] >= (uint32_t)me->vertex_count) abort();
                vec3 *pos = mr_alloc_array((size_t)me->vertex_count + 1, sizeof *pos);
                vec3 *nrm = mr_alloc_array((size_t)me->vertex_count + 1, sizeof *nrm);
                if (pos && nrm) mr_mesh_skin(me, skin, pos, nrm);
                free(pos);
                free(nrm);
            }
            if (c < 0) break;
        }
    }
    free(model);
    free(skin);
    mr_pose_destroy(&pose);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mr_model *m = NULL;
    mr_error err;
    if (mr_collada_parse("fuzz.dae", (const char *)data, size, &m, &err) == MR_OK) {
        exercise(m);
        mr_model_free(m);
    } else if (m) {
        abort();  /* failures leave *out NULL */
    }
    return 0;
}

#ifdef MR_FUZZ_STANDALONE
#include "core/file.h"

int main(int argc, char **argv)
{
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
