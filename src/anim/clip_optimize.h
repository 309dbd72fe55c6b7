/* clip_optimize.h — key thinning, a step of the runtime clip's builder
 * (clip_runtime.h; internal to src/anim): dropping the keys that
 * interpolation reproduces within a tolerance in model units, so sampling
 * touches fewer keys (the job of ozz-animation's AnimationOptimizer).
 *
 * When: whenever a runtime has a tolerance (mr_clip_optimize, or
 * mr_model_add_clip, which gives every clip of a model MR_CLIP_FIDELITY),
 * and only for the clips the packed form (clip_pack.h, which reduces keys
 * per track and quantises them) does not take: CUBIC keys, more than 65535
 * key times (docs/PERFORMANCE.md has the figures on the shared models). Shared time lines thin
 * poorly (a key goes only when every joint lets it go), and the SIMD bake
 * samples in the same time whatever its row count. Thinning pays for
 * separate time lines (binary search over fewer keys, less memory) and at
 * looser tolerances. The tolerance stays on the runtime clip
 * (thin_tolerance) and applies at every later mr_clip_finish. Like the slerp
 * refinement, thinning writes the runtime's played keys only: the source
 * tracks, key counts, `info`, writers, Lua and mr_track_sample keep the
 * file's keys.
 *
 * Error, judged per joint chain. A key is dropped only when, at every
 * checkpoint (each candidate key and the quarter points between candidate
 * keys), what mr_clip_sample returns from the remaining keys (lerp, and
 * nlerp for rotations, exactly as the sampler computes it) stays within the
 * joint's budget of the EXACT curve of the source keys (lerp, slerp),
 * with f = tolerance / MR_CLIP_FIDELITY:
 *   rotation     angle <= f * max_angle[j]          (the refinement's budget at f = 1)
 *   translation  |d|   <= f * max_move[j]           (model units; 0 without max_move)
 *   scale        max |d_k| <= f * max_angle[j] / 2  (relative)
 * A rotation error e at joint j moves what j carries by at most e * reach_j,
 * a scale error by e * reach_j, a translation error by e, and errors add
 * down a chain. mr_model_add_clip sets max_angle[j] = B / S_j (clip_runtime.h) and
 * max_move[j] = max_angle[j] * reach_j / 2, so along any root-to-leaf chain
 * rotations add at most f B, translations f B/2 and scales f B/2: every
 * vertex stays within 2 f B = tolerance times the model size (the
 * bounding-box diagonal) of the exact curves, nlerp error included. The
 * default tolerance is MR_CLIP_FIDELITY, 1e-4 of the model size (0.2 mm on
 * a 2 m character; ozz-animation's default, 1 mm at 10 cm from each joint
 * and judged per joint, is about 10x looser). Clips outside a model have
 * the default max_angle and no max_move (translations thinned only where
 * interpolation is exact).
 *
 * Time lines. A clip whose tracks share one LINEAR time line (every MD5
 * clip, baked exports) is thinned as a whole: a shared key goes only when
 * every joint allows it, so the time line stays shared and the SIMD bake
 * (clip_dense.h) keeps working on fewer rows. Otherwise each LINEAR track
 * is thinned on its own. STEP and CUBIC tracks are never thinned. The first
 * and last keys always stay. Cost: load time, O(keys * log(run)) checks
 * per channel, no allocation when sampling. */
#ifndef MR_ANIM_CLIP_OPTIMIZE_H
#define MR_ANIM_CLIP_OPTIMIZE_H

#include "anim/clip_runtime.h"

/* Thins the runtime's played keys (mr_clip_finish calls it after the
 * refinement; nothing happens while rt->thin_tolerance is 0). rt must be
 * clip->runtime; reads the source tracks, writes only rt. *dropped (may be
 * NULL) gets the keys dropped over all tracks (also added to
 * rt->keys_dropped). MR_ERR_NO_MEMORY leaves each track a valid one, thinned
 * or not. */
mr_status mr_clip_thin(const mr_clip *clip, mr_clip_runtime *rt, int *dropped);

#endif
