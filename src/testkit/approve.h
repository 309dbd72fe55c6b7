/* approve.h — `marrow test --approve OUT [SCENE...]`: makes the reviewed
 * actuals of a finished run the goldens, without rendering again.
 *
 * Every run writes OUT/results.tsv (mr_report_write): one line per shot,
 *   scene <TAB> script (absolute path) <TAB> frame <TAB> status
 * with status pass, fail, missing, flaky, updated, notrun or error, after a
 * '#' header line. Approving copies, for each shot of the chosen scenes
 * whose status is fail, missing or flaky,
 *   OUT/SCENE/FRAME/actual.png        -> SCRIPT-without-.lua.golden/FRAME.png
 *   OUT/SCENE/FRAME/actual.pose.json  -> ....golden/FRAME.pose.json
 * Shots that passed keep their goldens; shots that never ran have no
 * actuals and are reported. Scenes are chosen by name (or a glob over names,
 * or a path ending in NAME.lua); none = every scene with such shots.
 */
#ifndef MR_TESTKIT_APPROVE_H
#define MR_TESTKIT_APPROVE_H

#include <stdio.h>

#include "core/error.h"
#include "testkit/report.h"

/* Writes OUT/results.tsv for the n results. */
mr_status mr_approve_write_results(const char *out_dir, const mr_scene_result *r, int n, mr_error *err);

/* Approves as above, printing one line per file copied (and per shot that
 * could not be) to log. Returns MR_OK with *copied shots approved, or an
 * error: no results.tsv in out_dir (MR_ERR_IO), a named scene that is not in
 * the run (MR_ERR_INVALID_ARGUMENT; the message suggests the run's closest
 * scene name, mr_str_closest), a copy that failed (MR_ERR_IO). */
mr_status mr_approve(const char *out_dir, const char *const *scenes, int scene_count, FILE *log, int *copied,
                     mr_error *err);

#endif
