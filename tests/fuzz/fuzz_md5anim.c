/* fuzz_md5anim.c — libFuzzer entry point for the .md5anim reader
 * (src/formats/md5_anim.c, md5_lex.c). Built and run by `make fuzz` /
 * `make fuzz-smoke` (see fuzz.h).
 *
 * fuzz-seeds: md5anim
 *
 * Each input is parsed as an anim of the project's mannequin (whose clips are
 * the seeds, so mutations reach deep into the frames) and of a fixed
 * two-joint skeleton. A clip that loads is validated and sampled, then taken
 * off again so every input sees the same model. Refusals must be
 * "md5: NAME:LINE: expected ..." and leave the model as it was.
 */
#define FUZZ_OWN_INIT
#include "fuzz.h"
#include "fuzz_md5.h"

#ifndef MR_FUZZ_ROOT
#define MR_FUZZ_ROOT "."
#endif

static const char PAIR[] =
    "MD5Version 10 numJoints 2 numMeshes 0 joints {\n"
    "\"root\" -1 ( 0 0 0 ) ( 0 0 0 )\n"
    "\"child\" 0 ( 0 0 10 ) ( 0 0 0 )\n"
    "}\n";

static mr_model *models[2];  /* mannequin (when found), pair */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    mr_error e;
    if (mr_md5_load_mesh(MR_FUZZ_ROOT "/models/mannequin.md5mesh", &models[0], &e) != MR_OK)
        fprintf(stderr, "fuzz_md5anim: %s (fuzzing with the two-joint skeleton only)\n", e.msg);
    if (mr_md5_parse_mesh("pair.md5mesh", PAIR, sizeof PAIR - 1, &models[1], &e) != MR_OK) abort();
    return 0;
}

/* Takes clips and warnings added since (clips, warnings) off m again. */
static void restore(mr_model *m, int clips, int warnings)
{
    while (m->clip_count > clips) mr_clip_destroy(m->clips[--m->clip_count]);
    while (m->warning_count > warnings) free(m->warnings[--m->warning_count]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    for (int i = 0; i < 2; i++) {
        mr_model *m = models[i];
        if (!m) continue;
        int clips = m->clip_count, warnings = m->warning_count;
        mr_error e;
        mr_status st = mr_md5_parse_anim(m, FUZZ_ANIM, NULL, text, size, &e);
        fuzz_md5_check_error(st, &e, FUZZ_ANIM);
        if (st == MR_OK) {
            if (m->clip_count != clips + 1) abort();
            fuzz_exercise(m, clips);
        } else if (m->clip_count != clips) {
            abort();  /* a refused anim leaves the model unchanged */
        }
        restore(m, clips, warnings);
    }
    free(text);
    return 0;
}
