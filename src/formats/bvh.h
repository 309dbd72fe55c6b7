/* bvh.h — Biovision Hierarchy (.bvh) motion capture: read.
 *
 * A BVH file is a model with a skeleton, one clip and no mesh:
 *   model->format = "bvh", mesh_count = 0, one clip named after the file's
 *   base name ("01_01" for ".../01_01.bvh"), with rate = 1 / Frame Time.
 *
 * What is read:
 *   HIERARCHY, then one or more ROOT blocks. A ROOT or JOINT is
 *     ROOT|JOINT NAME { OFFSET x y z  CHANNELS n c1 .. cn  children }
 *   where children are JOINT blocks and End Site { OFFSET x y z } blocks.
 *   A channel is one of Xposition Yposition Zposition Xrotation Yrotation
 *   Zrotation; a joint has from 0 to 6 of them, each at most once, in any
 *   order (the CMU files give the root 6 and every other joint 3). Keywords
 *   and channel names are matched ignoring letter case; a joint name is one
 *   word (no spaces), unique in the file.
 *   MOTION, Frames: N, Frame Time: T (seconds, > 0), then N lines of numbers,
 *   one line per frame, each holding exactly as many numbers as there are
 *   channels, in the order the joints and their channels were written.
 *
 * What the reader does with it:
 *   - joints in file order (depth-first, parents first); an End Site becomes
 *     a joint named "<parent>_end" (made unique with a number when the name
 *     is taken) with no channels: it carries the length and direction of a
 *     leaf bone (head top, toe and finger tips), which the skeleton overlay
 *     and retargeting use;
 *   - rest pose: translation = OFFSET, rotation identity, scale 1 (BVH's
 *     zero pose, a T-pose for the CMU files), except that a root with
 *     position channels rests at its frame-0 position: a root's OFFSET is
 *     usually 0 while its motion is absolute (hips about a leg's length
 *     above the floor), so the zero pose would stand half under the floor
 *     the motion stands on, and anything taking motion relative to the rest
 *     pose (retargeting) would count the hip height twice;
 *   - frame f is a key at f * Frame Time (linear). A joint with position
 *     channels gets a translation track: each channel REPLACES that component
 *     of OFFSET (the root's position is absolute, as assimp and Blender read
 *     it; files with 6 channels on every joint repeat the offset there);
 *     components without a channel keep the OFFSET value. A joint with
 *     rotation channels gets a rotation track: R = R_c1 * R_c2 * R_c3 in the
 *     order the channels are written (for "Zrotation Xrotation Yrotation",
 *     R = Rz Rx Ry, so the last-written axis acts on a vector first), angles
 *     in degrees, made a quaternion in double precision and kept on the same
 *     hemisphere as the previous frame's. Joints without channels (End
 *     Sites) have no tracks and keep the rest pose;
 *   - a file with no channels at all, or "Frames: 0", gives no clip (a
 *     warning says so).
 *
 * Axes and unit. BVH states neither. marrow assumes Y-up (what the CMU
 * conversion, MotionBuilder and Blender's exporter write) and keeps the
 * numbers as written (model->axes.up = MR_UP_Y). The unit is a documented
 * guess: the one of metres, centimetres, inches, millimetres and CMU
 * units that makes the rest pose's height (Y extent of the joints, End
 * Sites included) nearest to a 1.7 m person (by ratio). CMU units are the
 * CMU motion-capture database's: its ASF skeletons say "length 0.45", one
 * unit being 1/0.45 inch (MR_BVH_CMU_UNIT), and the BVH conversions of
 * the database keep those numbers; so its 25.65-unit-tall 01_01.bvh is a
 * 1.45 m joint extent (about 1.7 m to the top of the head), and
 * Boxing_Toes.bvh is in centimetres. A skeleton with no height is taken to
 * be in centimetres. model->axes_note (`marrow info`) says what was
 * assumed and why.
 *
 * Errors are one line, "bvh: FILE:LINE: expected X, found 'Y'", status
 * MR_ERR_BAD_FILE (MR_ERR_NO_MEMORY when an allocation fails). Refused:
 * a missing keyword or brace, a channel count outside 0..6 or that
 * disagrees with the names after it, an unknown or repeated channel, a
 * duplicate joint name, more than MR_MAX_JOINTS joints, a missing MOTION,
 * Frames or Frame Time, a Frame Time that is not above 0, a frame line
 * with more or fewer numbers than the channels, fewer lines than Frames,
 * numbers after the last frame, anything that is not a finite decimal
 * number (nan, inf, 1e99). Frames is checked against the bytes left in the
 * file before anything is allocated for the frames (every number takes at
 * least two bytes), so no allocation is bigger than the file justifies.
 * On failure nothing is leaked and *out stays NULL.
 */
#ifndef MR_FORMATS_BVH_H
#define MR_FORMATS_BVH_H

#include <stddef.h>

#include "anim/model.h"

/* Metres per unit of the CMU database's skeletons ("length 0.45": 1/0.45 inch). */
#define MR_BVH_CMU_UNIT (0.0254f / 0.45f)

/* Reads a .bvh file into a new model (caller frees with mr_model_destroy). */
mr_status mr_bvh_load(const char *path, mr_model **out, mr_error *err);

/* Same from memory: len bytes of text (no terminator needed; a NUL byte is
 * just a bad character). name is used in messages, as model->path and for
 * the clip's name (its base name without extension). */
mr_status mr_bvh_parse(const char *name, const char *text, size_t len, mr_model **out,
                       mr_error *err);

#endif
