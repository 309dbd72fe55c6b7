/* bvh_write.h — writing a skeleton and one clip as BVH (what Blender's,
 * MotionBuilder's and assimp's importers and marrow's own reader take).
 *
 * What is written (the model must already be in the axes it should have in
 * the file; formats/save.c converts to Y-up centimetres, which marrow's
 * reader guesses back for a person-sized skeleton, bvh.h):
 *   HIERARCHY   one ROOT block per root joint, JOINT blocks in joint order
 *               (depth-first, as the skeleton keeps them); names with
 *               characters other than A-Z a-z 0-9 _ - . : get '_' for them.
 *               OFFSET = the joint's rest translation. Roots, and joints
 *               whose translation moves in the clip, have 6 channels
 *               "Xposition Yposition Zposition Zrotation Xrotation
 *               Yrotation" (the CMU order Blender's exporter also writes;
 *               positions are absolute, replacing OFFSET, as every importer
 *               reads them); other joints "Zrotation Xrotation Yrotation".
 *               A leaf joint gets an End Site whose OFFSET is its own rest
 *               translation (a bone as long as the one leading to it:
 *               importers need a tail; marrow's reader adds it as a joint
 *               named "<leaf>_end").
 *   MOTION      Frames = round(duration * rate) + 1 at the clip's rate (30
 *               when it has none), Frame Time = 1 / rate; frame f is the
 *               clip sampled at min(f / rate, duration). Rotations are the
 *               joint's whole local rotation (BVH has no rest rotation) as
 *               Euler angles in degrees with R = Rz Rx Ry, each angle kept
 *               within 180 degrees of the previous frame's (no flips for
 *               importers that interpolate Euler curves). Numbers with 9
 *               significant digits.
 * Refused (MR_ERR_INVALID_ARGUMENT, nothing written): no joints, a clip of
 * another joint count, scale keys other than 1 (BVH has no scale: the
 * message names the clip, joint and time). The file goes through
 * mr_file_write (temp + rename). Messages start "bvh: PATH: ".
 */
#ifndef MR_FORMATS_BVH_WRITE_H
#define MR_FORMATS_BVH_WRITE_H

#include "anim/model.h"

mr_status mr_bvh_write(const mr_model *model, const mr_clip *clip, const char *path, mr_error *err);

/* Euler angles (degrees, x, y, z) with R = Rz(z) Rx(x) Ry(y) for a unit
 * quaternion q (x, y, z, w); near x = +-90 degrees y is 0. */
void mr_bvh_euler_zxy(const float q[4], double out[3]);

#endif
