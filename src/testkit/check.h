/* check.h — checking a regression scene's shots against its goldens: the
 * image and pose comparison of `marrow test`, as one call the cli runs per
 * scene (in its worker process).
 *
 * For each shot of the scene at SCRIPT (a .lua file; goldens beside it in
 * SCRIPT-without-.lua.golden/FRAME.png and FRAME.pose.json, FRAME 4 digits)
 * mr_check_scene either
 *   - update: writes under scene_dir (OUT/SCENE, see report.h)
 *     FRAME/actual.png and actual.pose.json and the goldens from them
 *     (MR_SHOT_UPDATED), or
 *   - compares, in memory: the poses drawn with the pose golden
 *     (tolerance.pose and pose_angle of the scene table) and the image with
 *     the golden PNG (compare.h, the scene's tolerance, its `ignore`
 *     rectangles and text masked); MR_SHOT_PASS, MR_SHOT_FAIL, or
 *     MR_SHOT_MISSING when a golden is absent. A shot that did not pass (or
 *     any shot with keep_passing) then gets FRAME/actual.png,
 *     actual.pose.json, expected.png (the golden's own bytes) and diff.png;
 *     a shot that passed gets no files (encoding them is most of what a
 *     passing shot costs beside its rendering), and what an earlier run left
 *     in its FRAME folder is removed. Each shot's msg says what was found,
 *     poses first when they differ; has_actual, has_expected and has_diff
 *     say which files were written.
 * Shots the scene never reached (it failed first) are MR_SHOT_NOT_RUN.
 */
#ifndef MR_TESTKIT_CHECK_H
#define MR_TESTKIT_CHECK_H

#include "testkit/report.h"
#include "testkit/scene.h"

/* Runs the scene at script with runner and checks its shots into res
 * (shots, shot_count, error, message; res->name and res->path name the
 * scene in messages and must be set); keep_passing writes the files of
 * passing shots too. Returns 0 when the scene ran to its
 * end (its shots may still fail), -1 when it failed (res->message says
 * why). */
int mr_check_scene(mr_scene_runner *runner, const char *script, const char *scene_dir, int update,
                   int keep_passing, mr_scene_result *res);

#endif
