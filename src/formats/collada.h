/* collada.h — COLLADA 1.4 / 1.5 (.dae) models: read and write.
 *
 * READING
 *   mr_collada_load / mr_collada_parse build an mr_model from one document
 *   (libxml2's SAX2 parser building a light element tree of marrow's own;
 *   see collada_internal.h for the file-by-file layout).
 *
 * Frame. The model comes out in marrow's frame, Y-up metres:
 *   model->frame = {MR_UP_Y, 1}, model->format = "collada", and
 *   model->axes_note says what was converted ("COLLADA Z_UP, unit 0.01 m:
 *   converted to Y-up metres"). <up_axis> Z_UP maps (x, y, z) to (x, z, -y),
 *   X_UP to (-y, x, z); <unit meter> scales. Everything is converted, not
 *   just a root: vertex data, every joint's rest transform, inverse binds and
 *   clip tracks (transforms T become C T C^-1).
 *
 * Geometry. <mesh> with <source>/<float_array>/<accessor> (count, stride,
 *   offset), <vertices>, and <triangles>, <polylist>, <polygons> (holes
 *   dropped), <tristrips>, <trifans>; inputs may use separate index streams.
 *   One mr_mesh per primitive element (so per material), named
 *   "geometry/material-symbol" when a geometry has several. Vertices are
 *   de-duplicated per (position, normal, texcoord) index tuple; polygons are
 *   split as fans; missing normals are computed (area-weighted). The first
 *   TEXCOORD set is used; uvs keep COLLADA's convention, which is marrow's
 *   (origin bottom-left). Lines are skipped with a warning.
 *
 * Materials. <profile_COMMON> phong / blinn / lambert / constant colours and
 *   shininess; a diffuse <texture> is followed through <sampler2D> and
 *   <surface> (1.4) or <instance_image> (1.5) to <image><init_from>. Image
 *   paths are URL-decoded; absolute and file:// paths are reduced to their
 *   base name; the file is looked for relative to the model, then by base
 *   name beside it, then by a name that matches ignoring case, spaces, '_'
 *   and '-'. A texture not found keeps the joined path and adds a warning
 *   (ThinMatrix's "character%20Texture.png" does).
 *
 * Skeleton. The instanced <visual_scene> (with <library_nodes> through
 *   <instance_node>; a cycle is an error) is flattened depth-first. Joints
 *   are: every node a skin names, every node holding <instance_geometry>,
 *   every type="JOINT" node, and every ancestor of those, in document order
 *   (parent before child). Joint names are the node's name, else id, else
 *   sid, made unique with "#2", "#3". The rest pose is each node's transform
 *   stack (<matrix>, <translate>, <rotate>, <scale>, <lookat>, <skew>, in
 *   document order) split into translation, rotation, scale; a transform
 *   with shear (skew) cannot be split exactly and is approximated, with a
 *   warning.
 *
 * Skins. Joints named in a Name_array are searched under the instance's
 *   <skeleton> roots (all of them; the whole scene when there are none, or
 *   when the name is not under them) by sid, then id, then name; an
 *   IDREF_array names ids. A joint's inverse bind is the skin's
 *   INV_BIND_MATRIX (else the inverse of its rest world transform). The
 *   <bind_shape_matrix> is baked into positions and normals, so mesh
 *   positions are bind-pose model space and skin = model * inverse_bind
 *   (mr_pose_skinning) applies unchanged. Weights: zero weights are
 *   dropped; more than 8 influences keep the 8 heaviest, renormalised (one
 *   warning, counting source vertices; equal weights by the tie rule of
 *   anim/mesh.h); a weight on joint -1, or whatever a
 *   vertex's weights leave short of 1, stays on the bind shape — the mesh
 *   where its node puts it — as the Khronos conformance references show
 *   (skin_4_influence); weights above 1 in total are normalised. When a
 *   second skin binds a joint with another inverse bind than the first, its
 *   vertices are re-expressed in the skeleton's bind space (exact when a
 *   vertex's joints agree on the difference; otherwise a weighted average
 *   and one warning). Static geometry becomes meshes rigidly bound (weight
 *   1) to its node's joint, so node transforms and node animation move it.
 *   A <morph> (NORMALIZED or RELATIVE; instanced, or the source of a
 *   skin) gives its mesh morph targets (anim/morph.h): position deltas per
 *   target (NORMALIZED: target - base; RELATIVE: the target as given),
 *   named as the target <geometry>, with MORPH_WEIGHT as default weights.
 *   Targets share the base's index streams, so their POSITION sources must
 *   have the base's count; normal deltas are not read. A morph whose
 *   source is a skin controller is read as that skin over the morph (exact
 *   at the bind pose; a warning says so). Weight channels
 *   ("CONTROLLER/SID(k)", e.g. MORPH_WEIGHT_ARRAY(0) or morph-weights(0),
 *   or "CONTROLLER/SID" with every weight per key) become the clip's morph
 *   weight tracks (collada_morph.c, collada_anim.c).
 *
 * Animation. <library_animations> (nested too). Samplers are evaluated as
 *   COLLADA defines them, per component and per key segment: STEP holds,
 *   LINEAR lerps, BEZIER uses (time, value) control points when tangents
 *   carry two values per component (the curve parameter is solved from
 *   time, control times clamped into the segment); one-value tangents are
 *   offsets from the keys, C0 = P0 + OUT_TANGENT, C1 = P1 - IN_TANGENT,
 *   the parameter linear in time (FCollada 1.x, 1.4.0-era Maya and Max;
 *   the Khronos CTS Blessed frames agree, tests/test_collada_cts.c).
 *   HERMITE treats tangents as slopes per segment (the specification; the
 *   CTS Blessed frames of animation_interpolation_hermite show LINEAR
 *   playback, a renderer without HERMITE). Channel targets: "node/sid"
 *   (whole element), ".X .Y .Z .ANGLE" members, "(i)" (flat index) and
 *   "(i)(j)" elements of a <matrix>. (i)(j) is (row)(column) as COLLADA
 *   says, or (column)(row) as FCollada exporters (3ds Max's ColladaMax)
 *   write it, decided once per document from the data: the reading that
 *   keeps the bottom row's (3)(0..2) at 0, then the one under which the
 *   first keys reproduce the static <matrix>, then the authoring tool
 *   (FCollada, ColladaMax, ColladaMaya: column first); column first is
 *   warned with a target and its line. A <matrix> animated by elements
 *   keeps (0, 0, 0, 1) as bottom row (Max bakes it as 0 0 0 0; anything
 *   else than that or 0 0 0 1 is warned and ignored). A whole
 *   <matrix> channel with LINEAR keys is decomposed at its keys and played
 *   like marrow's LINEAR tracks (lerp, shortest-path slerp, as assimp
 *   plays them), not as an element-wise matrix lerp (which shrinks limbs
 *   between sparse keys).
 *   Targets that are not node transforms (materials, cameras, Maya's
 *   blendParent) are skipped with one warning.
 *
 *   Tracks: for each animated joint the node's transform stack is rebuilt
 *   at every key time of its channels and split into translation, rotation,
 *   scale. STEP-only joints get STEP tracks. Where LINEAR tracks between
 *   those keys reproduce the exact curves within the tolerance, they are
 *   kept (baked matrices, linear translations). Otherwise (Bezier, Hermite,
 *   rotations about several axes) the tracks are CUBIC: Hermite tangents
 *   per segment fitted so the curve passes through the exact values at 1/3
 *   and 2/3 of the segment, checked at 1/8 and 7/8, and any segment off
 *   by more than the tolerance split at its midpoint (down to ~1 ms). The
 *   tolerance is 1e-5 of the model's size (bounding-box diagonal) as the
 *   displacement of a point at that distance from the joint. Measured on a
 *   dense grid (121 times per clip, every animated shared file, tests
 *   resampled_tracks_stay_within_tolerance): at most 0.0004% of the model
 *   size between the posed mesh and the exact curves.
 *
 * Clips. Each <animation_clip> of <library_animation_clips> becomes a clip
 *   of its name with the channels of its <instance_animation>s (and their
 *   nested animations); without clips, one clip of every channel named after
 *   the file's stem ("default" when there is none). Clip time is the
 *   document's: t = 0 is time 0 even when the first key is later (Maya
 *   starts at frame 1); the clip lasts until its last key, or its end=.
 *   `rate` is set when all keys are evenly spaced.
 *
 * Errors. Malformed input fails with MR_ERR_BAD_FILE and one line:
 *     collada: FILE: /COLLADA/library_geometries/geometry[@id='x']/mesh/source (line N): what was wrong
 *   (element path with ids, or [k] among same-named siblings; "FILE: line N:
 *   ..." for XML syntax, using libxml2's line). That covers: not XML, an
 *   HTML page or a git-lfs pointer saved as .dae, a root other than
 *   <COLLADA>, versions other than 1.4/1.5, counts that disagree with the
 *   data (an array holding fewer values than its count), accessors
 *   reading past their array, dangling or external (#-less or other-file)
 *   references, indices out of range, NaN/inf/non-numbers, <instance_node>
 *   cycles, bad up_axis/unit, samplers whose times go backwards or whose
 *   outputs do not fit the target. MR_ERR_LIMIT for documents that would
 *   need more than MR_MAX_JOINTS joints, 100000 node instances or 256
 *   levels; MR_ERR_IO / MR_ERR_NO_MEMORY as named. Nothing is printed:
 *   libxml2's own messages are captured. Documents are parsed with
 *   XML_PARSE_NONET and without XML_PARSE_NOENT / XML_PARSE_DTDLOAD:
 *   entities are never substituted (a "billion laughs" document is refused
 *   by libxml2's loop check without expanding) and external entities and
 *   DTDs are never read. UTF-16, BOMs, XML escapes in names, empty
 *   elements and COLLADA 1.5's namespace load normally.
 *
 *   Quirks accepted with a warning ("FILE: element 'id' (line N): ..."):
 *   a <float_array>, <Name_array> or <IDREF_array> holding MORE values than
 *   its count keeps the first count values (one Blender export writes extra
 *   floats, another repeats the last joint name). The count comes first in
 *   the file and the values are read in order, so which ones are meant is
 *   unambiguous; accessors and indices are then checked against the kept
 *   count, so nothing can point at the ignored ones (an accessor or a
 *   joint index that reaches them is refused as above). FEWER values than
 *   the count stays an error: which value is missing cannot be known.
 *   A document whose <unit meter> is written with one decimal comma and no
 *   point ("0,010000": the FBX COLLADA exporter under a comma locale) has
 *   every number read with ',' as its decimal point (a list never
 *   separates values by commas, so "21,920870" can only be 21.92087); one
 *   warning names the <unit> line. Without that declaration a comma in a
 *   number is refused ("1,5" could be a typo for "1 5", or 15), as is a
 *   meter with more than one comma. An <instance_material> whose target
 *   names no element of the file (an empty <library_materials>) gets the
 *   default material: only the look is unknown. A target naming another
 *   kind of element, like every other dangling reference (geometry,
 *   skeleton, joint, source), stays an error: what it shapes is unknown.
 *
 * Speed. libxml2 parses (SAX2, fed the document in pieces); the events
 *   build cl_el elements in a few arena blocks (no per-node malloc/free,
 *   no text nodes), numbers are parsed from each array's joined text into
 *   the nearest float. Measurements against assimp and their history:
 *   docs/PERFORMANCE.md; live figures: `marrow bench --only load`.
 *
 * WRITING
 *   mr_collada_write writes a model as COLLADA 1.4.1 in the model's own
 *   frame: <up_axis> from model->frame.up and <unit meter> from its
 *   meters_per_unit, numbers unchanged — an MD5 model (Z-up inches) is
 *   written Z_UP with unit 0.0254 and reads back converted to Y-up metres
 *   like any COLLADA file; mr_axes_convert_model (anim/frame.h) takes it
 *   back to MD5's frame. Joints become JOINT nodes (id/sid "J<index>", the
 *   name in name=) with their rest pose as <matrix>; skinned meshes go
 *   through <controller><skin> (all joints, their inverse binds, identity
 *   bind shape), static ones through <instance_geometry>; morph targets as
 *   a RELATIVE <morph> controller (target <geometry>s of position deltas,
 *   default weights; a skinned mesh's skin takes the morph as its source)
 *   and weight tracks as one channel per target; one phong effect
 *   and material per mesh (diffuse map relative to the written file); per
 *   clip and animated joint one <animation> of matrix keys at the joint's
 *   key times, and <library_animation_clips> naming every clip (start 0,
 *   end = duration). LINEAR and STEP tracks are written key for key; CUBIC
 *   tracks as LINEAR keys refined until within 1e-4 of the model size.
 *   Floats are written with the fewest digits that read back exactly. Read
 *   back, every joint, vertex and key matches within 1e-5 (relative);
 *   joints come back in depth-first order (the same names and parents).
 */
#ifndef MR_FORMATS_COLLADA_H
#define MR_FORMATS_COLLADA_H

#include <stddef.h>

#include "anim/model.h"

/* Reads the file at path into a new model (*out; the caller frees it with
 * mr_model_destroy). model->path is path; textures are looked up beside it.
 * On failure *out stays NULL and err says why (see above). */
mr_status mr_collada_load(const char *path, mr_model **out, mr_error *err);

/* Same from memory: name is used in messages, as model->path and for the
 * texture lookup; buf holds len bytes (no terminator needed) and is only
 * read during the call. */
mr_status mr_collada_parse(const char *name, const char *buf, size_t len, mr_model **out, mr_error *err);

/* Writes model to path (replaced atomically). The model is only read.
 * MR_ERR_INVALID_ARGUMENT when the model itself is inconsistent (invalid
 * skeleton, a vertex bound to a joint that does not exist), MR_ERR_IO when
 * the file cannot be written, MR_ERR_NO_MEMORY. */
mr_status mr_collada_write(const mr_model *model, const char *path, mr_error *err);

#endif
