/* fuzz_clip_pack.c — libFuzzer entry point for the packed clip's checks
 * (mr_clip_pack_valid, src/anim/clip_pack.c), what the model cache runs on
 * a pack it reads from disk before anything samples it. Built and run by
 * `make fuzz` / `make fuzz-smoke` (see fuzz.h).
 *
 * fuzz-seeds:
 *
 * The set-up packs three clips of a three-joint chain (tracks of every
 * kind: point indices, a bitmap, uniform keys, one-width and segmented
 * keys, a rotation whose segments each rebuild their own component, with
 * skips). An input's first byte picks one of them (or, when the rest
 * begins with the pack's magic at offset 4, the rest is the block itself);
 * the rest is patches, three bytes each: a 16-bit offset (modulo the
 * block's size) and a byte XORed there. A block that passes the checks is
 * sampled at 16 times by search and through a cursor, forward then back,
 * then through a cursor to model matrices without a pose at 96 times
 * forward (a playhead's steps: the cursor's runs of keys decoded ahead,
 * its copies from them, and rows kept for joints nothing moves):
 * reading outside the block, or a sanitizer report, is a failure.
 */
#define FUZZ_OWN_INIT
#include "fuzz.h"

#include "anim/clip_pack.h"
#include "../anim_fixture.h"

#define PACKS 3
static mr_clip_pack *packs[PACKS];
static mr_model *chain;

static mr_model *chain_model(void)
{
    mr_model *m = NULL;
    if (mr_model_create("chain", "fuzz", &m) != MR_OK) abort();
    fixture_chain(&m->skeleton);   /* root, a, b: each child 1 unit along x */
    return m;
}

/* Clip `which` of the chain: 0 a short arm (zig-zag, a line, a bump),
 * 1 mocap-like jittered keys (a turn refined into a bitmap track), 2 a
 * spin about a slanted axis over 601 keys (segments, PACK_EACH, skips). */
static void add_clip(mr_model *m, int which)
{
    static const int keys[PACKS] = {9, 61, 601};
    int n = keys[which];
    mr_clip *c = NULL;
    if (mr_clip_create("fuzz", 3, &c) != MR_OK) abort();
    c->duration = (float)(n - 1) / 60.0f;
    unsigned seed = 7u + (unsigned)which;
    vec3 axis = {1.0f, 1.0f, 1.0f};
    glm_vec3_normalize(axis);
    for (int j = 0; j < 3; j++) {
        mr_track *r = &c->tracks[j].r, *t = &c->tracks[j].t;
        mr_track_init(r, n, MR_INTERP_LINEAR);
        if (j == 0) mr_track_init(t, n, MR_INTERP_LINEAR);
        for (int i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            float jitter = (float)(seed >> 16 & 0x7fff) / 32767.0f - 0.5f, time = (float)((double)i / 60.0);
            float deg = which == 0 ? (i % 2 ? 20.0f : -20.0f) * (j == 0)
                        : which == 1 ? 2.0f * jitter + (j == 1 && i >= 20 ? 150.0f : 0.0f) + 2.0f * (float)i * (j == 0)
                                     : 1.5f * (float)i * (j == 0) + jitter;
            r->times[i] = time;
            glm_quatv(r->values + 4 * i, glm_rad(deg), which == 2 ? axis : (vec3){0, 0, 1});
            if (j == 0) {
                t->times[i] = time;
                t->values[3 * i] = 0.1f * (float)i + (which == 1 ? 0.01f * jitter : 0.0f);
                t->values[3 * i + 1] = t->values[3 * i + 2] = 0.0f;
            }
        }
    }
    if (mr_model_add_clip(m, c) != MR_OK) abort();
    if (mr_clip_optimize(c, 0.0f) != MR_OK || !c->runtime || !c->runtime->pack) abort();
    const mr_clip_pack *p = c->runtime->pack;
    packs[which] = malloc(p->bytes);
    if (!packs[which]) abort();
    memcpy(packs[which], p, p->bytes);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    chain = chain_model();
    for (int i = 0; i < PACKS; i++) add_clip(chain, i);
    for (int i = 0; i < PACKS; i++)
        if (!mr_clip_pack_valid(packs[i], packs[i]->bytes, 3)) abort();   /* the builder's own packs pass */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const mr_clip_pack *from = packs[data[0] % PACKS];
    const uint8_t *rest = data + 1;
    size_t left = size - 1, n = from->bytes;
    uint32_t magic = MR_CLIP_PACK_MAGIC;
    int whole = left >= 8 && memcmp(rest + 4, &magic, 4) == 0;
    if (whole) n = left;
    /* a copy of its own size (4-aligned, as the cache keeps packs), so
     * that the sanitizers see any read past it */
    uint32_t *block = malloc(n + 4);
    if (!block) return 0;
    if (whole) {
        memcpy(block, rest, n);
    } else {
        memcpy(block, from, n);
        for (size_t i = 0; i + 3 <= left; i += 3) {
            size_t at = (size_t)(rest[i] | rest[i + 1] << 8) % n;
            ((uint8_t *)block)[at] ^= rest[i + 2];
        }
    }
    if (mr_clip_pack_valid(block, n, 3)) {
        const mr_clip_pack *pack = (const mr_clip_pack *)block;
        const mr_skeleton *sk = &chain->skeleton;
        mr_pose pose;
        mr_pose_init(&pose, 3);
        mr_clip_cursor *cur = mr_clip_cursor_create(0);
        static unsigned long long serial = 1u << 20;   /* a new name each: the cursor binds afresh */
        serial++;
        for (int s = 0; s < 32; s++) {
            float t = 12.0f * (float)(s < 16 ? s : 31 - s) / 15.0f - 1.0f;
            mr_clip_pack_sample(pack, sk, t, &pose);
            if (cur) mr_clip_cursor_sample(cur, pack, serial, sk, t, &pose);
        }
        mat4 model[3];
        for (int s = 0; cur && s < 96; s++)
            mr_clip_cursor_sample_model(cur, pack, serial, sk, 12.0f * (float)s / 95.0f - 1.0f, NULL, model);
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) (void)mr_clip_pack_track_keys(pack, j, k);
        mr_clip_cursor_destroy(cur);
        mr_pose_deinit(&pose);
    }
    free(block);
    return 0;
}
