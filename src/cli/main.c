/* main.c — the marrow command: dispatches to the subcommands (cmd_*.c). */
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "core/error.h"
#include "core/version.h"
#include "core/heap.h"

static const mr_command commands[] = {
    {"run", mr_cmd_run, "[--headless] SCRIPT.lua [--frames N --fps F --size WxH --out DIR]",
     "run a Lua script; live-reloaded in a window, deterministic headless"},
    {"view", mr_cmd_view, "MODEL [ANIM...] [--headless --time T --out FILE.png]",
     "play a model's clips in a window, or render PNGs"},
    {"info", mr_cmd_info, "MODEL [ANIM...]", "skeleton, meshes, clips, frame, warnings"},
    {"pose", mr_cmd_pose, "MODEL [ANIM...] [--clip NAME] [--time T] --obj OUT.obj",
     "the posed, CPU-skinned mesh as OBJ"},
    {"convert", mr_cmd_convert, "IN [ANIM...] OUT",
     "between MD5, COLLADA, glTF and BVH (in and out); FBX (.fbx) in"},
    {"plot", mr_cmd_plot, "MODEL [ANIM...] [--joint NAME --clip NAME --out FILE.png]",
     "a joint's curves in a clip, drawn as a chart (PNG)"},
    {"bench", mr_cmd_bench, "[--quick]", "performance figures"},
    {"test", mr_cmd_test, "[DIR|SCENE.lua ...] [--update --out DIR --jobs N ...]",
     "regression scenes vs golden PNGs"},
    {NULL, NULL, NULL, NULL},
};

static void usage(FILE *out)
{
    fprintf(out, "marrow — Lua-scriptable skeletal animation sandbox\n\nusage:\n");
    for (const mr_command *c = commands; c->name; c++)
        fprintf(out, "  marrow %s %s\n        %s\n", c->name, c->args, c->summary);
    fprintf(out, "  marrow --version\n        the version\n");
    fprintf(out, "\n'marrow COMMAND --help' describes a command. Exit codes: 0 ok, 1 failed check,\n"
                 "2 usage, 3 bad input file, 4 script error.\n"
                 "\nLoaded models are cached as binary files in $MARROW_CACHE_DIR, else\n"
                 "$XDG_CACHE_HOME/marrow, else ~/.cache/marrow: a second load reads one file\n"
                 "(checked against the source's size and times, or its content when it changed\n"
                 "recently). MARROW_CACHE=0 turns the cache off, MARROW_CACHE=hash checks every\n"
                 "source's content on every load; 'marrow test' never uses it. The folder is kept\n"
                 "under 1 GiB (MARROW_CACHE_MAX_MB=N), least recently used files going first.\n");
}

int main(int argc, char **argv)
{
    mr_heap_keep_freed();
    if (argc < 2) {
        usage(stderr);
        return MR_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return MR_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("marrow %s\n", MR_VERSION);
        return MR_EXIT_OK;
    }
    for (const mr_command *c = commands; c->name; c++)
        if (!strcmp(argv[1], c->name)) return c->run(argc - 1, argv + 1);
    fprintf(stderr, "marrow: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return MR_EXIT_USAGE;
}
