/* mirror.h — left/right mirroring of clips across a model's mid-plane
 * (offline, whole-model work: it reads the skeleton's names and rest pose).
 *
 * Pairs: joints are paired left with right the way retargeting reads names
 * (joint_map.h): first the body roles (the nearest-the-root thigh, calf,
 * foot, toe, clavicle, upper arm, forearm and hand of each side), then any
 * joint whose name has a side token swapped ("Left"/"Right", "left"/
 * "right", a lone L/R/l/r between separators, a capital L/R in front of a
 * capital as in CMU's "LHipJoint", ".L"/"_r" at the end): "LeftHandIndex1"
 * with "RightHandIndex1", "finger1.L" with "finger1.R". Given pairs come
 * first and take those joints out of the automatic pairing. A joint
 * without a partner mirrors onto itself (the spine, the head).
 *
 * The mid-plane is found from the bind pose (the skeleton's inverse bind
 * matrices; a COLLADA node rest is often a frame of motion): its normal is
 * the mean of (left - right) over the pairs' model-space positions, a pair
 * weighing 1 / level^2 (level: how many paired joints lead down to it from
 * the centre line; clavicles and hip joints 1, upper arms and thighs 2:
 * the hands may be posed anywhere), snapped to a coordinate axis when within
 * 2 degrees of one (a capture's skeleton is rarely exactly symmetric),
 * through the mean of their midpoints.
 *
 * The mirrored clip: for each joint j with partner p, at every key time of
 * the clip (the union of its tracks' times),
 *   - rotation in model space relative to rest: p's model-space turn from
 *     its rest, D = Q_p * Qrest_p^-1, is reflected (H D H) and applied to
 *     j's rest: Q'_j = H D H * Qrest_j. Rest maps to rest, so joints whose
 *     rest frames are not mirror images of each other mirror correctly;
 *   - position: j goes where p was, reflected across the plane (the root's
 *     path and any animated translation follow, and on a skeleton whose
 *     sides differ in length the bones take the other side's lengths, so
 *     the mirrored left foot walks exactly the reflected right foot path);
 *   - scale: p's local scale.
 * Locals follow from those model-space values (double precision). A channel
 * is keyed where its partner's was or where the result leaves the rest
 * value; a channel whose keys are all equal keeps one key. Keys are LINEAR
 * (STEP when every source track steps): rotation slerp and translation
 * lerp commute with the mirror, so between keys the mirror of a LINEAR clip
 * is exact as well; a CUBIC source is mirrored at its keys and played
 * linearly between them. Markers are kept; morph weight tracks are not
 * copied. Mirroring twice gives the original back within float rounding.
 */
#ifndef MR_ANIM_MIRROR_H
#define MR_ANIM_MIRROR_H

#include "anim/clip.h"

typedef struct mr_mirror_map {
    int joint_count;
    int *partner;            /* joint_count entries: the other side's joint, or the joint itself */
    int pair_count;          /* left/right pairs found */
    vec3 normal;             /* the mid-plane's unit normal, model space */
    float offset;            /* the plane: dot(normal, x) = offset */
} mr_mirror_map;

/* Finds the pairs and the plane of sk. pairs: pair_count pairs of joint
 * names (pairs[2i], pairs[2i+1]) that replace the automatic pairing for
 * those joints; may be NULL. Fails on a name that is no joint, a joint
 * given twice, or no pair at all (the message asks for a map). Deinit with
 * mr_mirror_map_deinit; allocates one array. */
mr_status mr_mirror_map_find(mr_mirror_map *map, const mr_skeleton *sk, const char *const *pairs, int pair_count,
                             mr_error *err);
void mr_mirror_map_deinit(mr_mirror_map *map);

/* The name with one side token swapped into out (size bytes), trying the
 * k-th token place (k = 0, 1, ...): 1 when there is a k-th, 0 when not. */
int mr_mirror_swap_name(const char *name, int k, char *out, size_t size);

/* A new clip (in *out, NULL on failure) of the same skeleton: clip
 * mirrored by map. name NULL: the clip's name + "_mirror". Fails on a clip
 * of another joint count, no memory, or more keys than MR_MIRROR_MAX_KEYS
 * (the union of the key times). The caller owns the clip (mr_clip_destroy);
 * it has no runtime yet (mr_clip_finish). */
#define MR_MIRROR_MAX_KEYS 1000000
mr_status mr_mirror_clip(const mr_clip *clip, const mr_skeleton *sk, const mr_mirror_map *map, const char *name,
                         mr_clip **out, mr_error *err);

#endif
