/* cli.c — argument parsing helpers and the standard model-loading path. */
#include "cli/cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/datadir.h"
#include "core/file.h"
#include "core/str.h"
#include "formats/load.h"

int mr_cli_float(const char *s, float *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno || !isfinite(v)) return -1;
    *out = (float)v;
    return 0;
}

int mr_cli_int(const char *s, int *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || errno || v < 0 || v > 1000000000L) return -1;
    *out = (int)v;
    return 0;
}

int mr_cli_size(const char *s, int *w, int *h)
{
    if (!s) return -1;
    int a, b;
    char tail;
    if (sscanf(s, "%dx%d%c", &a, &b, &tail) != 2) return -1;
    if (a < 1 || b < 1 || a > 16384 || b > 16384) return -1;
    *w = a;
    *h = b;
    return 0;
}

int mr_cli_aa(const char *s, int *samples, int *no_fxaa)
{
    if (!s) return -1;
    int n = 4;
    char tail;
    if (!strcmp(s, "fxaa")) *samples = 1, *no_fxaa = 0;
    else if (!strcmp(s, "none")) *samples = 1, *no_fxaa = 1;
    else if (!strcmp(s, "msaa") || (sscanf(s, "msaa%d%c", &n, &tail) == 1 && n >= 2 && n <= 64))
        *samples = n, *no_fxaa = 0;
    else return -1;
    return 0;
}

void mr_cli_screenshot_name(char *buf, size_t size)
{
    for (int i = 1; i < 10000; i++) {
        snprintf(buf, size, "marrow-%04d.png", i);
        if (!mr_file_exists(buf)) return;
    }
}

int mr_cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
    return 0;
}

int mr_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "marrow %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nsee 'marrow %s --help'\n", cmd);
    va_end(ap);
    return MR_EXIT_USAGE;
}

/* A relative path that is not found as given is looked for in marrow's own
 * folder (core/datadir.h: the checkout, or PREFIX/share/marrow when
 * installed), as scripts' marrow.model does: `marrow view
 * models/mannequin.md5mesh` works from any folder. Returns path or, when
 * only the second exists, that one in buf. */
static const char *find_input(const char *path, char *buf, size_t size)
{
    if (!path || path[0] == '/' || mr_file_exists(path)) return path;
    const char *root = mr_datadir_root();
    if (root && (size_t)snprintf(buf, size, "%s/%s", root, path) < size && mr_file_exists(buf)) return buf;
    return path;
}

mr_model *mr_cli_load_model(const char *path, const char *const *anims, int anim_count,
                            int *exit_code)
{
    mr_model *model = NULL;
    mr_error err = {0};
    char buf[PATH_MAX];
    const char *found = find_input(path, buf, sizeof buf);
    char *model_path = mr_str_dup(found);
    const char **found_anims = anim_count > 0 ? calloc((size_t)anim_count, sizeof *found_anims) : NULL;
    int ok = model_path && (anim_count <= 0 || found_anims);
    for (int i = 0; ok && i < anim_count; i++) {
        found_anims[i] = mr_str_dup(find_input(anims[i], buf, sizeof buf));
        ok = found_anims[i] != NULL;
    }
    mr_status st = ok ? mr_load_model(model_path, found_anims, anim_count, &model, &err)
                      : mr_error_set(&err, MR_ERR_NO_MEMORY, "%s: out of memory", path);
    if (st != MR_OK) {
        /* A file found nowhere: say where it was looked for. */
        const char *missing = !mr_file_exists(model_path) ? path : NULL;
        for (int i = 0; !missing && found_anims && i < anim_count; i++)
            if (found_anims[i] && !mr_file_exists(found_anims[i])) missing = anims[i];
        const char *root = mr_datadir_root();
        if (missing && missing[0] != '/' && root)
            fprintf(stderr, "%s; looked for '%s' and '%s/%s'\n", err.msg, missing, root, missing);
        else
            fprintf(stderr, "%s\n", err.msg);
        *exit_code = MR_EXIT_BAD_INPUT;
    } else {
        *exit_code = MR_EXIT_OK;
    }
    for (int i = 0; found_anims && i < anim_count; i++) free((char *)found_anims[i]);
    free(found_anims);
    free(model_path);
    return model;
}
