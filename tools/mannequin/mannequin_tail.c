/* mannequin_tail.c — the mannequin with a ponytail (mannequin.h): the same
 * skeleton and meshes, six ponytail joints after them and a hair mesh. */
#include "mannequin/mannequin.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"

mr_status mr_mannequin_ponytail(mr_model **out)
{
    *out = NULL;
    mr_model *base = NULL, *m = NULL;
    mr_status st = mr_mannequin_build(&base);
    if (st != MR_OK) return st;
    if ((st = mr_model_create("mannequin_tail", "mannequin", &m)) != MR_OK) goto done;
    m->axes = base->axes;
    int n = MR_MQ_JOINT_COUNT + MR_MQ_PONYTAIL_JOINTS;
    mr_skeleton *sk = &m->skeleton;
    if ((st = mr_skeleton_init(sk, n)) != MR_OK) goto done;
    for (int j = 0; j < MR_MQ_JOINT_COUNT; j++) {
        sk->names[j] = mr_str_dup(base->skeleton.names[j]);
        sk->parents[j] = base->skeleton.parents[j];
        glm_vec3_copy(base->skeleton.rest_t[j], sk->rest_t[j]);
    }
    /* from the back of the skull (x = -3.6, z = 67 in; the head joint is at
     * x = 0.5, z = 61.8), down and back, 2.8 in a bone */
    static const float offsets[MR_MQ_PONYTAIL_JOINTS][3] = {
        {-4.1f, 0, 5.2f}, {-1.4f, 0, -2.4f}, {-0.9f, 0, -2.65f}, {-0.5f, 0, -2.75f}, {-0.2f, 0, -2.8f}, {0, 0, -2.8f},
    };
    for (int k = 0; k < MR_MQ_PONYTAIL_JOINTS; k++) {
        int j = MR_MQ_JOINT_COUNT + k;
        sk->names[j] = mr_str_fmt("ponytail_%02d", k + 1);
        sk->parents[j] = k ? j - 1 : MR_MQ_HEAD;
        memcpy(sk->rest_t[j], offsets[k], sizeof offsets[k]);
    }
    for (int j = 0; j < n; j++)
        if (!sk->names[j]) { st = MR_ERR_NO_MEMORY; goto done; }
    mr_skeleton_compute_inverse_bind(sk);
    m->meshes = mr_alloc_array((size_t)base->mesh_count + 1, sizeof *m->meshes);
    if (!m->meshes) { st = MR_ERR_NO_MEMORY; goto done; }
    /* the body and shoes move over (their joints keep their indices) */
    for (int i = 0; i < base->mesh_count; i++) m->meshes[m->mesh_count++] = base->meshes[i];
    base->mesh_count = 0;
    st = mr_mannequin_hair_mesh(sk, MR_MQ_JOINT_COUNT, MR_MQ_PONYTAIL_JOINTS, &m->meshes[m->mesh_count]);
    if (st == MR_OK) m->mesh_count++;
done:
    mr_model_destroy(base);
    if (st != MR_OK) {
        mr_model_destroy(m);
        return st;
    }
    *out = m;
    return MR_OK;
}
