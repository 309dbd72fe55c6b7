/* run_record.h — `marrow run --record OUT`: what the script drew, saved.
 *
 * While attached (a draw watcher, lua/draw.h), every model draw (and every
 * skeleton draw of a model without meshes) is captured at the frame's
 * simulated time: the model-space joint matrices put through the draw's
 * transform (brought into the model's axes, so travelling is root motion),
 * split back into local translation, rotation and scale. The k-th draw of
 * a model in a frame feeds that model's k-th recording, so two characters
 * sharing a model are two recordings.
 *
 * At the end (mr_run_record_save) each recording with 2 or more frames
 * becomes a clip (anim/record.h, default tolerance: 0.01 % of the model
 * size, measured) named after the script, and is written by OUT's
 * extension (formats/save.h): ONE FILE PER RECORDING, the first to OUT, the
 * next to STEM-2.EXT, STEM-3.EXT ... beside it, in the order the
 * recordings were first drawn. Each written file is printed with its
 * frames, kept keys and measured error.
 */
#ifndef MR_CLI_RUN_RECORD_H
#define MR_CLI_RUN_RECORD_H

#include "lua/script.h"

typedef struct mr_run_record mr_run_record;

/* Checks OUT's extension (a usage error otherwise: 0 ok, else the message
 * in err) and starts watching ctx's draws. */
mr_status mr_run_record_create(mr_lua_ctx *ctx, const char *out, const char *script, mr_run_record **rec,
                               mr_error *err);
/* Saves every recording (see above); returns the number of files written,
 * -1 when one failed (printed on stderr). */
int mr_run_record_save(mr_run_record *rec);
void mr_run_record_destroy(mr_run_record *rec);

#endif
