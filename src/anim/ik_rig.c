/* ik_rig.c — a full-body IK rig from joint names (see ik_rig.h). */
#include "anim/ik_rig.h"

#include <string.h>

#include "anim/joint_map.h"

/* The deepest joint that is an ancestor of (or equal to) both a and b, or -1. */
static int common_ancestor(const mr_skeleton *sk, int a, int b)
{
    for (int x = a; x >= 0; x = sk->parents[x])
        for (int y = b; y >= 0; y = sk->parents[y])
            if (x == y) return x;
    return -1;
}

static int is_below(const mr_skeleton *sk, int a, int d)
{
    for (int k = sk->parents[d]; k >= 0; k = sk->parents[k])
        if (k == a) return 1;
    return 0;
}

mr_status mr_ik_rig_find(const mr_skeleton *sk, mr_ik_rig *rig, mr_error *err)
{
    if (!sk || !rig) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "IK rig: needs a skeleton");
    memset(rig, 0, sizeof *rig);
    rig->pelvis = rig->head = -1;
    static const mr_joint_role roles[MR_IK_LIMB_COUNT][3] = {
        {MR_ROLE_UPPERARM, MR_ROLE_FOREARM, MR_ROLE_HAND}, {MR_ROLE_UPPERARM, MR_ROLE_FOREARM, MR_ROLE_HAND},
        {MR_ROLE_THIGH, MR_ROLE_CALF, MR_ROLE_FOOT},       {MR_ROLE_THIGH, MR_ROLE_CALF, MR_ROLE_FOOT},
    };
    int found = 0;
    for (int l = 0; l < MR_IK_LIMB_COUNT; l++) {
        mr_joint_side side = (l == MR_IK_ARM_L || l == MR_IK_LEG_L) ? MR_SIDE_LEFT : MR_SIDE_RIGHT;
        int j[3];
        for (int k = 0; k < 3; k++) j[k] = mr_joint_map_find_role(sk, roles[l][k], side);
        int ok = j[0] >= 0 && j[1] >= 0 && j[2] >= 0 && is_below(sk, j[0], j[1]) && is_below(sk, j[1], j[2]);
        for (int k = 0; k < 3; k++) rig->limb[l][k] = ok ? j[k] : -1;
        found += ok;
    }
    if (!found) {
        memset(rig, 0, sizeof *rig);
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT,
                            "IK rig: found no arm (upper arm, forearm, hand) and no leg (thigh, calf, foot) by name");
    }
    int hips = mr_joint_map_find_role(sk, MR_ROLE_HIPS, MR_SIDE_CENTRE);
    int tl = rig->limb[MR_IK_LEG_L][0], tr = rig->limb[MR_IK_LEG_R][0];
    if (tl >= 0 && tr >= 0) {
        int ca = common_ancestor(sk, tl, tr);
        if (hips < 0 || (ca >= 0 && !is_below(sk, hips, ca) && hips != ca)) hips = ca;
    }
    rig->head = mr_joint_map_find_role(sk, MR_ROLE_HEAD, MR_SIDE_CENTRE);
    int ul = rig->limb[MR_IK_ARM_L][0], ur = rig->limb[MR_IK_ARM_R][0];
    int chest = ul >= 0 && ur >= 0 ? common_ancestor(sk, ul, ur) : -1;
    /* the legs and the spine must hang from the pelvis: astroBoy's "hips"
     * carries only the legs, its "root" both */
    if (hips >= 0 && chest >= 0 && !is_below(sk, hips, chest)) hips = common_ancestor(sk, hips, chest);
    rig->pelvis = hips;
    if (chest >= 0 && rig->pelvis >= 0 && is_below(sk, rig->pelvis, chest)) {
        int path[MR_MAX_JOINTS], n = 0;
        for (int k = chest; k != rig->pelvis && k >= 0; k = sk->parents[k]) path[n++] = k;
        int keep = n < MR_IK_RIG_MAX_SPINE ? n : MR_IK_RIG_MAX_SPINE;
        for (int i = 0; i < keep; i++) rig->spine[i] = path[keep - 1 - i];
        rig->spine_count = keep;
    }
    return MR_OK;
}
