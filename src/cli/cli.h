/* cli.h — small helpers shared by the subcommands: number parsing, usage
 * errors, and loading a model with the error printed the standard way. */
#ifndef MR_CLI_CLI_H
#define MR_CLI_CLI_H

#include <stddef.h>

#include "anim/model.h"

/* Parses a whole string as a finite float / positive int; 0 on success. */
int mr_cli_float(const char *s, float *out);
int mr_cli_int(const char *s, int *out);
/* Parses "WxH" (both 1..16384). */
int mr_cli_size(const char *s, int *w, int *h);
/* Parses an anti-aliasing mode for --aa into renderer settings (renderer.h):
 * "fxaa" (the post-process pass, the default), "msaa" (4 samples, or
 * "msaaN" for N), "none". Returns 0, or -1 for anything else. */
int mr_cli_aa(const char *s, int *samples, int *no_fxaa);

/* The next free "marrow-NNNN.png" (NNNN from 0001) in the current
 * directory, into buf: where F12 in a window (`run`, `view`) writes. */
void mr_cli_screenshot_name(char *buf, size_t size);

/* True when argv[i] is --help or -h. */
int mr_cli_wants_help(int argc, char **argv);

/* Prints "marrow CMD: message" and "see 'marrow CMD --help'" to stderr;
 * returns MR_EXIT_USAGE. */
int mr_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Loads path (+ anims) through mr_load_model. A relative path not found as
 * given is looked for in marrow's folder (core/datadir.h: the checkout, or
 * PREFIX/share/marrow), for every command that loads a model (info, view,
 * pose, convert and its --retarget TARGET). On failure prints the
 * loader's one-line error to stderr (for a file found nowhere, with where it
 * was looked for) and returns NULL with *exit_code = MR_EXIT_BAD_INPUT. */
mr_model *mr_cli_load_model(const char *path, const char *const *anims, int anim_count,
                            int *exit_code);

#endif
