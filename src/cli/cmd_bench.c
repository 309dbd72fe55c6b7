/* cmd_bench.c — `marrow bench`: performance figures (see bench.h). */
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/bench_render.h"
#include "cli/cli.h"
#include "cli/cmd.h"

static const char bench_help[] =
    "usage: marrow bench [--quick] [--models DIR] [--only SECTION]\n"
    "\n"
    "Prints performance figures, each the median of repeated runs, with a\n"
    "baseline measured in the same run:\n"
    "  model load speed (MB/s);\n"
    "  pose evaluation (ns per joint) against a textbook implementation;\n"
    "  choreography (blends, masked and additive layers, IK) against plain sampling;\n"
    "  chain IK (10 joints, FABRIK and CCD) and full-body IK (5 goals, mannequin),\n"
    "  us per solve against local-to-model of the same pose;\n"
    "  headless rendering at 640x480, FXAA or 4x MSAA, shadows on or off (frames per\n"
    "  second, first-frame cost);\n"
    "  the Lua layer: scripted characters and mixers against the same work in C,\n"
    "  plain Lua functions (vectors, closures, patterns) against stock Lua (ratio);\n"
    "  live reload: save to the new script's load() (ms, inotify and polling);\n"
    "  assimp's import of the same files when libassimp is installed (ratio; for\n"
    "  FBX also with the welding and weight limit marrow's load does: 'same work');\n"
    "  spring chains: 100 characters x 5 chains of 8 joints, ms a frame (fixed\n"
    "  and frame step, ratio to local-to-model);\n"
    "  a clip library (the CMU takes of assimp-testmodels): bytes per joint per\n"
    "  second, ratio against raw poses, error, first and cached load times against\n"
    "  assimp; snoutx10k's default clip: bytes and ns per joint.\n"
    "Every figure is measured in this run.\n"
    "Models are read from DIR (default ../shared/models). --quick runs few\n"
    "repetitions (a smoke test, not a figure). --only runs one section: load,\n"
    "pose, choreo, ik, springs, render, lua, reload or clips.\n";

int mr_cmd_bench(int argc, char **argv)
{
    if (mr_cli_wants_help(argc, argv)) {
        fputs(bench_help, stdout);
        return MR_EXIT_OK;
    }
    mr_bench_opts o = {.quick = 0, .root = "../shared/models"};
    static const struct { const char *name; void (*run)(const mr_bench_opts *); } sections[] = {
        {"load", mr_bench_load}, {"pose", mr_bench_pose}, {"choreo", mr_bench_choreo}, {"ik", mr_bench_ik},
        {"springs", mr_bench_springs}, {"render", mr_bench_render}, {"lua", mr_bench_lua},
        {"reload", mr_bench_reload}, {"clips", mr_bench_clips},
    };
    enum { NSECTIONS = sizeof sections / sizeof sections[0] };
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) o.quick = 1;
        else if (!strcmp(argv[i], "--models") && i + 1 < argc) o.root = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else return mr_cli_usage_error("bench", "unknown argument '%s'", argv[i]);
    }
    int ran = 0;
    for (int i = 0; i < NSECTIONS; i++)
        if (!only || !strcmp(only, sections[i].name)) {
            sections[i].run(&o);
            ran++;
        }
    if (!ran)
        return mr_cli_usage_error("bench", "--only needs one of load, pose, choreo, ik, springs, render, lua, reload, clips (not '%s')", only);
    return MR_EXIT_OK;
}
