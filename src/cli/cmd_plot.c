/* cmd_plot.c — `marrow plot`: the curves of one joint of a clip as a PNG
 * (keys are easier seen than read). It runs marrow's scripts/plot.lua
 * headless through `marrow run` (the same sandbox and exit codes), which
 * draws the chart with scripts/curves.lua. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/defaults.h"
#include "cli/cli.h"
#include "cli/cmd.h"
#include "core/path.h"
#include "core/str.h"
#include "lua/script.h"

static const char plot_help[] =
    "usage: marrow plot MODEL [ANIM...] [--joint NAME] [--clip NAME] [--out FILE.png] [--size WxH]\n"
    "\n"
    "Draws the curves of one joint of one clip as a chart: its local rotation\n"
    "as Euler degrees x, y, z above, its translation below, over the clip's\n"
    "duration, and writes it as a PNG (headless). --joint defaults to the root,\n"
    "--clip to the model's first clip, --out to JOINT.png, --size to " MR_DEFAULT_SIZE_TEXT ".\n"
    "  marrow plot models/mannequin.md5mesh models/walk.md5anim --joint upperarm_l --out arm.png\n"
    "  marrow plot saved.glb --clip bow --joint spine_02\n"
    "Exit codes: 0 ok, 2 usage, 4 the model, clip or joint could not be plotted\n"
    "(the message says which).\n";

int mr_cmd_plot(int argc, char **argv)
{
    if (mr_cli_wants_help(argc, argv)) {
        fputs(plot_help, stdout);
        return MR_EXIT_OK;
    }
    const char *joint = "", *clip = "", *out = NULL, *size = MR_DEFAULT_SIZE_TEXT;
    const char *files[64];
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], **opt = !strcmp(a, "--joint") ? &joint : !strcmp(a, "--clip") ? &clip
                                        : !strcmp(a, "--out") ? &out : !strcmp(a, "--size") ? &size : NULL;
        if (opt) {
            if (i + 1 >= argc) return mr_cli_usage_error("plot", "%s needs a value", a);
            *opt = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            return mr_cli_usage_error("plot", "unknown option '%s'", a);
        } else if (nfiles < 64) {
            files[nfiles++] = a;
        } else {
            return mr_cli_usage_error("plot", "too many files (at most a model and 63 anims)");
        }
    }
    if (!nfiles) return mr_cli_usage_error("plot", "no model given");
    char *png = out ? mr_str_dup(out) : mr_str_fmt("%s.png", *joint ? joint : "plot");
    char *dir = png ? mr_path_dirname(png) : NULL;
    char *script = mr_str_fmt("%s/plot.lua", mr_lua_scripts_dir());
    const char *name = png ? mr_path_basename(png) : NULL;
    /* marrow run --headless plot.lua --frames 2 --size S --out DIR -- PNG MODEL JOINT CLIP ANIM... */
    char *run_argv[16 + 64];
    int n = 0;
    run_argv[n++] = "run";
    run_argv[n++] = "--headless";
    run_argv[n++] = script;
    run_argv[n++] = "--frames";
    run_argv[n++] = "2";
    run_argv[n++] = "--size";
    run_argv[n++] = (char *)size;
    run_argv[n++] = "--out";
    run_argv[n++] = dir;
    run_argv[n++] = "--";
    run_argv[n++] = (char *)name;
    run_argv[n++] = (char *)files[0];
    run_argv[n++] = (char *)joint;
    run_argv[n++] = (char *)clip;
    for (int i = 1; i < nfiles; i++) run_argv[n++] = (char *)files[i];
    run_argv[n] = NULL;
    int rc = png && dir && script ? mr_cmd_run(n, run_argv) : MR_EXIT_FAILED;
    if (rc == MR_EXIT_OK) printf("wrote %s\n", png);
    free(png);
    free(dir);
    free(script);
    return rc;
}
