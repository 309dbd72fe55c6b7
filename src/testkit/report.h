/* report.h — results of a `marrow test` run, and the files made from them:
 * report.html (for people: one row per shot with expected, actual and diff
 * side by side, a blink view, pass/fail and timings; no external resources,
 * image paths relative to the report) and junit.xml (for CI systems: one
 * test suite per scene, one test case per shot).
 *
 * Output layout under the output folder OUT:
 *   OUT/report.html  OUT/junit.xml
 *   OUT/SCENE/FRAME/actual.png, expected.png, diff.png   (FRAME: 4 digits)
 *   OUT/SCENE/FRAME/actual.pose.json                     the poses drawn (testkit/pose_golden.h)
 *     for each shot that failed, has no golden, was updated or ran in a
 *     retry; a shot that passed leaves no FRAME folder unless the run kept
 *     them (`marrow test --keep-images`, testkit/check.h)
 *   OUT/SCENE/log.txt                                    what the scene printed
 *   OUT/results.tsv                 what `marrow test --approve OUT` reads (testkit/approve.h)
 *
 * A scene run again by --retries that passes the second time has its shots
 * that failed before marked flaky: they count as passed unless the run asked
 * for --fail-flaky (fail_flaky in every result).
 */
#ifndef MR_TESTKIT_REPORT_H
#define MR_TESTKIT_REPORT_H

#include "lua/scene.h"

enum mr_shot_status {
    MR_SHOT_PASS,            /* matches its golden within the tolerance */
    MR_SHOT_FAIL,            /* differs, or has another size */
    MR_SHOT_MISSING,         /* no golden image yet */
    MR_SHOT_UPDATED,         /* --update wrote the golden */
    MR_SHOT_NOT_RUN,         /* the scene failed before this shot */
    MR_SHOT_FLAKY,           /* failed, then passed when the scene ran again */
};

typedef struct mr_shot_result {
    int frame;
    int status;              /* enum mr_shot_status */
    long diff, aa;           /* pixel counts (see testkit/compare.h) */
    double diff_share, aa_share;
    int max_delta;
    int has_actual;          /* actual.png and actual.pose.json were written */
    int has_expected, has_diff;  /* expected.png / diff.png were written */
    long masked;             /* pixels left out by scene.ignore */
    int pose_failed;         /* the poses drawn differ from the pose golden */
    char msg[1024];          /* one line for the terminal and the report */
} mr_shot_result;

typedef struct mr_scene_result {
    char name[128];          /* file name without .lua */
    char path[1024];         /* the scene script */
    int error;               /* 1: the scene itself failed (message says why) */
    char message[2048];
    double seconds;          /* wall time of the scene's run (the last attempt) */
    int attempts;            /* runs of the scene (1 + retries used) */
    int fail_flaky;          /* flaky shots count as failed (--fail-flaky) */
    int models_built;        /* models the scene loaded from their files */
    int models_cached;       /* ... and from the run's model cache (cmd_test.c) */
    int shot_count;
    mr_shot_result *shots;   /* shot_count entries; the parent's copy owns them
                              * (mr_scene_result_deinit). Not the full
                              * MR_SCENE_MAX_SHOTS: a result of that size is
                              * 70 KB, and a run keeps one per scene. */
} mr_scene_result;

/* Frees r's shots (r may hold none); r keeps its name and path. */
void mr_scene_result_deinit(mr_scene_result *r);

/* Shots counted as passed/failed: each shot is one test; a scene that fails
 * before its shots are known counts as one failed test. */
void mr_report_count(const mr_scene_result *r, int n, int *passed, int *failed);

/* Shots marked flaky in r[0..n). */
int mr_report_flaky(const mr_scene_result *r, int n);

/* Whether a finished run of a scene should be run again under --retries:
 * a shot failed, or the scene failed, for a reason other than a missing
 * golden. */
int mr_report_should_retry(const mr_scene_result *r);

/* Folds the result of a scene's retry (now) with what the attempts before
 * it left (before): when now passes, the shots that had failed become
 * MR_SHOT_FLAKY, their message saying how they failed. */
void mr_report_merge_retry(mr_scene_result *now, const mr_scene_result *before);

/* Writes OUT/report.html, OUT/junit.xml and OUT/results.tsv. Returns MR_OK,
 * or a status with the message in err ("cannot write OUT/junit.xml"). */
mr_status mr_report_write(const char *out_dir, const mr_scene_result *r, int n, double seconds, mr_error *err);
/* The same with a label naming what the run covered (NULL: none), in the
 * report's title and heading and junit.xml's testsuites name: a sharded run
 * says "shard 2/4: 6 of 24 scenes". Failing scenes come first in
 * report.html either way. */
mr_status mr_report_write_labelled(const char *out_dir, const mr_scene_result *r, int n, double seconds,
                                   const char *label, mr_error *err);

#endif
