/* morph.h — morph targets (blend shapes) on meshes, and their weight tracks
 * on clips.
 *
 * A mesh with morph targets has mesh->morph (an mr_morph_set, owned by the
 * mesh): per target a position delta per vertex, optionally a normal delta
 * per vertex, and a name; and the mesh's default weights (glTF's mesh
 * `weights`, zeros when the file gives none). The morphed vertex is
 *     p = p_bind + sum_k w_k * dp_k      n = normalize(n_bind + sum_k w_k * dn_k)
 * in the mesh's bind space, before skinning (glTF 2.0, "Morph Targets").
 * Targets whose weight is 0 cost nothing (mr_morph_apply skips them).
 *
 * Loaders store deltas in the same space as the mesh's positions: where a
 * loader moves the base vertices (glTF places a node's rigid mesh with its
 * bind matrix), it moves the deltas with the same linear part, and scales
 * normal deltas so that the renormalised sum is the file's morphed normal
 * transformed like the base normal.
 *
 * A clip may carry morph weight tracks (clip->morph, an mr_morph_tracks
 * owned by the clip): channels, each driving all the targets of one mesh
 * (index into the model's meshes), with ascending key times and per key
 * target_count weights. STEP holds the previous key, LINEAR lerps, CUBIC is
 * glTF's cubic spline (per key: target_count in-tangents, values,
 * out-tangents; tangents scaled by the key interval). Times outside the keys
 * hold the end keys; a looping clip wraps time into [0, duration] first, as
 * mr_clip_sample does.
 */
#ifndef MR_ANIM_MORPH_H
#define MR_ANIM_MORPH_H

#include "anim/clip.h"
#include "anim/mesh.h"

typedef struct mr_morph_target {
    char *name;          /* owned; never NULL ("target0" when the file names none) */
    vec3 *positions;     /* vertex_count position deltas (owned) */
    vec3 *normals;       /* vertex_count normal deltas (owned), or NULL */
} mr_morph_target;

typedef struct mr_morph_set {
    int count;                /* targets */
    int vertex_count;         /* the mesh's */
    mr_morph_target *targets; /* count entries (owned) */
    float *weights;           /* count default weights (owned) */
} mr_morph_set;

/* A new set of count targets for vertex_count vertices: zero deltas, no
 * normal deltas, names "target0"..., default weights 0. MR_ERR_NO_MEMORY or
 * MR_ERR_INVALID_ARGUMENT (count < 1, vertex_count < 0); *out NULL then.
 * Free with mr_morph_set_destroy (mr_mesh_deinit does, for mesh->morph). */
mr_status mr_morph_set_create(int count, int vertex_count, mr_morph_set **out);
void mr_morph_set_destroy(mr_morph_set *set);

/* Gives target k normal deltas (zeroed). MR_ERR_NO_MEMORY. */
mr_status mr_morph_set_add_normals(mr_morph_set *set, int k);

/* The target index of name in set, or -1. */
int mr_morph_set_find(const mr_morph_set *set, const char *name);

/* Writes the morphed bind-pose vertices of mesh with weights (set->count
 * floats; NULL: the set's defaults) to out_pos/out_nrm (vertex_count each,
 * caller-owned). A mesh without morph targets is copied unchanged. Zero
 * weights are skipped; a non-finite weight counts as 0. Normals that got a
 * delta are renormalised. */
void mr_morph_apply(const mr_mesh *mesh, const float *weights, vec3 *out_pos, vec3 *out_nrm);

typedef struct mr_morph_channel {
    int mesh;            /* index into the model's meshes */
    int target_count;    /* weights per key: the mesh's target count */
    int key_count;       /* >= 1 */
    mr_interp interp;
    float *times;        /* key_count ascending seconds (owned) */
    float *values;       /* key_count * target_count (CUBIC: * 3), owned */
} mr_morph_channel;

typedef struct mr_morph_tracks {
    int channel_count;
    mr_morph_channel *channels;  /* owned */
} mr_morph_tracks;

/* Appends a channel for mesh with key_count keys (times and values zeroed,
 * to be filled by the caller), creating *tracks when it is NULL. Returns
 * the channel, valid until the next add (the array grows), or NULL when
 * out of memory or an argument is out of range (*tracks unchanged then). */
mr_morph_channel *mr_morph_tracks_add(mr_morph_tracks **tracks, int mesh, int target_count, int key_count,
                                      mr_interp interp);
void mr_morph_tracks_destroy(mr_morph_tracks *tracks);

/* The channel driving mesh, or NULL (tracks may be NULL). */
const mr_morph_channel *mr_morph_tracks_find(const mr_morph_tracks *tracks, int mesh);

/* Samples a channel at time (seconds, already wrapped by the caller) into
 * out (target_count floats). */
void mr_morph_channel_sample(const mr_morph_channel *ch, float time, float *out);

/* The weights of model mesh `mesh` for clip at time (wrap as
 * mr_clip_sample): the clip's channel for that mesh when it has one, else
 * the mesh's default weights; clip may be NULL. out has the mesh's target
 * count entries; nothing is written for a mesh without morph targets. */
void mr_morph_sample(const mr_clip *clip, const mr_mesh *mesh, int mesh_index, float time, mr_wrap wrap,
                     float *out);


/* Checks a channel: key times finite and ascending, weights finite.
 * Fills err ("morph channel of mesh M: key K ...") and returns
 * MR_ERR_BAD_FILE on the first problem. */
mr_status mr_morph_channel_validate(const mr_morph_channel *ch, mr_error *err);

#endif
