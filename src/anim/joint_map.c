/* joint_map.c — pairing joints of two skeletons by role or by given names
 * (see joint_map.h). */
#include "anim/joint_map.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/pose.h"
#include "core/alloc.h"

static const char *const role_names[MR_ROLE_COUNT] = {
    "hips", "spine", "neck", "head", "clavicle", "upperarm", "forearm", "hand",
    "thigh", "calf", "foot", "toe",
};

const char *mr_joint_role_name(mr_joint_role role)
{
    return role >= 0 && role < MR_ROLE_COUNT ? role_names[role] : "";
}

/* Words naming each role, matched against the whole core of a name. */
static const struct { const char *word; mr_joint_role role; } words[] = {
    {"hips", MR_ROLE_HIPS}, {"pelvis", MR_ROLE_HIPS},
    {"spine", MR_ROLE_SPINE}, {"chest", MR_ROLE_SPINE}, {"upperchest", MR_ROLE_SPINE},
    {"lowerback", MR_ROLE_SPINE}, {"abdomen", MR_ROLE_SPINE}, {"torso", MR_ROLE_SPINE},
    {"head", MR_ROLE_HEAD},
    {"clavicle", MR_ROLE_CLAVICLE}, {"collar", MR_ROLE_CLAVICLE},
    {"upperarm", MR_ROLE_UPPERARM}, {"arm", MR_ROLE_UPPERARM}, {"uparm", MR_ROLE_UPPERARM},
    {"humerus", MR_ROLE_UPPERARM},
    {"forearm", MR_ROLE_FOREARM}, {"lowerarm", MR_ROLE_FOREARM}, {"elbow", MR_ROLE_FOREARM},
    {"lowarm", MR_ROLE_FOREARM},
    {"hand", MR_ROLE_HAND}, {"wrist", MR_ROLE_HAND},
    {"upleg", MR_ROLE_THIGH}, {"thigh", MR_ROLE_THIGH}, {"upperleg", MR_ROLE_THIGH},
    {"femur", MR_ROLE_THIGH},
    {"leg", MR_ROLE_CALF}, {"calf", MR_ROLE_CALF}, {"shin", MR_ROLE_CALF}, {"knee", MR_ROLE_CALF},
    {"lowerleg", MR_ROLE_CALF}, {"lowleg", MR_ROLE_CALF},
    {"foot", MR_ROLE_FOOT}, {"ankle", MR_ROLE_FOOT},
    {"toe", MR_ROLE_TOE}, {"toes", MR_ROLE_TOE}, {"toebase", MR_ROLE_TOE}, {"ball", MR_ROLE_TOE},
    {"toeball", MR_ROLE_TOE},
};

static int is_sep(char c) { return c == '_' || c == '.' || c == ' ' || c == '-'; }

static int prefix_ci(const char *s, const char *p)
{
    for (; *p; s++, p++)
        if (tolower((unsigned char)*s) != *p) return 0;
    return 1;
}

mr_joint_role mr_joint_role_of(const char *name, mr_joint_side *side_out, int *ambiguous)
{
    mr_joint_side side = MR_SIDE_CENTRE;
    if (side_out) *side_out = side;
    if (ambiguous) *ambiguous = 0;
    if (!name) return MR_ROLE_NONE;
    /* Namespaces and rig prefixes: "mixamorig:", "Armature|", "Bip01 ". */
    for (const char *c = name; *c; c++)
        if (*c == ':' || *c == '|') name = c + 1;
    if (prefix_ci(name, "mixamorig")) name += 9;
    if (prefix_ci(name, "bip0")) {
        while (*name && !is_sep(*name)) name++;
    }
    while (is_sep(*name)) name++;
    size_t len = strlen(name);
    if (len == 0 || len > 120) return MR_ROLE_NONE;
    char buf[128];
    memcpy(buf, name, len + 1);
    char *s = buf, *e = buf + len;
    /* Side in front. */
    if (prefix_ci(s, "left")) { side = MR_SIDE_LEFT; s += 4; }
    else if (prefix_ci(s, "right")) { side = MR_SIDE_RIGHT; s += 5; }
    else if ((s[0] == 'L' || s[0] == 'l' || s[0] == 'R' || s[0] == 'r') && is_sep(s[1])) {
        side = tolower((unsigned char)s[0]) == 'l' ? MR_SIDE_LEFT : MR_SIDE_RIGHT;
        s += 2;
    } else if ((s[0] == 'L' || s[0] == 'R') && isupper((unsigned char)s[1])) {
        side = s[0] == 'L' ? MR_SIDE_LEFT : MR_SIDE_RIGHT;
        s += 1;
    }
    /* Side at the end. */
    if (side == MR_SIDE_CENTRE) {
        size_t n = (size_t)(e - s);
        if (n > 5 && is_sep(e[-5]) && prefix_ci(e - 4, "left")) { side = MR_SIDE_LEFT; e -= 5; }
        else if (n > 6 && is_sep(e[-6]) && prefix_ci(e - 5, "right")) { side = MR_SIDE_RIGHT; e -= 6; }
        else if (n > 2 && is_sep(e[-2]) && (e[-1] == 'l' || e[-1] == 'L')) { side = MR_SIDE_LEFT; e -= 2; }
        else if (n > 2 && is_sep(e[-2]) && (e[-1] == 'r' || e[-1] == 'R')) { side = MR_SIDE_RIGHT; e -= 2; }
    }
    /* Core: lowercase letters only. */
    char core[128];
    size_t k = 0;
    for (char *c = s; c < e; c++)
        if (isalpha((unsigned char)*c)) core[k++] = (char)tolower((unsigned char)*c);
    core[k] = 0;
    if (side_out) *side_out = side;
    if (!strcmp(core, "shoulder")) {
        if (side == MR_SIDE_CENTRE) return MR_ROLE_NONE;
        if (ambiguous) *ambiguous = 1;
        return MR_ROLE_CLAVICLE;
    }
    if (!strcmp(core, "hip")) return side == MR_SIDE_CENTRE ? MR_ROLE_HIPS : MR_ROLE_THIGH;
    /* Neck chains carry letters after the word too ("neck01e"). */
    if (!strncmp(core, "neck", 4) && side == MR_SIDE_CENTRE && strlen(core) <= 5) return MR_ROLE_NECK;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!strcmp(core, words[i].word)) {
            mr_joint_role r = words[i].role;
            int sided = r >= MR_ROLE_CLAVICLE;
            if (sided != (side != MR_SIDE_CENTRE)) return MR_ROLE_NONE;
            return r;
        }
    return MR_ROLE_NONE;
}

static int depth_of(const mr_skeleton *sk, int j)
{
    int d = 0;
    for (int k = sk->parents[j]; k >= 0; k = sk->parents[k]) d++;
    return d;
}

/* Per joint: role and side, with "shoulder" resolved against the
 * skeleton's clavicles. */
static void classify(const mr_skeleton *sk, signed char *role, signed char *side)
{
    int has_clavicle[3] = {0, 0, 0};
    int amb[MR_MAX_JOINTS];
    for (int j = 0; j < sk->joint_count; j++) {
        mr_joint_side sd;
        role[j] = (signed char)mr_joint_role_of(sk->names[j], &sd, &amb[j]);
        side[j] = (signed char)sd;
        if (role[j] == MR_ROLE_CLAVICLE && !amb[j]) has_clavicle[sd] = 1;
    }
    for (int j = 0; j < sk->joint_count; j++)
        if (amb[j] && has_clavicle[(int)side[j]]) role[j] = MR_ROLE_UPPERARM;
}

/* The joints of one role and side, in depth-first order (at most max). */
static int collect(const mr_skeleton *sk, const signed char *role, const signed char *side, int r, int sd,
                   int *out, int max)
{
    int n = 0;
    for (int j = 0; j < sk->joint_count && n < max; j++)
        if (role[j] == r && side[j] == sd) out[n++] = j;
    return n;
}

/* The candidate nearest the root (ties: the first). */
static int shallowest(const mr_skeleton *sk, const int *c, int n)
{
    int best = -1, bd = 1 << 30;
    for (int i = 0; i < n; i++) {
        int d = depth_of(sk, c[i]);
        if (d < bd) { bd = d; best = c[i]; }
    }
    return best;
}

int mr_joint_map_find_role(const mr_skeleton *sk, mr_joint_role role, mr_joint_side side)
{
    signed char *buf = malloc(2 * (size_t)(sk->joint_count + 1));
    int *c = mr_alloc_array((size_t)(sk->joint_count + 1), sizeof *c);
    int found = -1;
    if (buf && c) {
        classify(sk, buf, buf + sk->joint_count);
        int n = collect(sk, buf, buf + sk->joint_count, role, side, c, sk->joint_count);
        found = shallowest(sk, c, n);
    }
    free(buf);
    free(c);
    return found;
}

static mr_status map_alloc(mr_joint_map *map, const mr_skeleton *source, const mr_skeleton *target,
                           mr_error *err)
{
    memset(map, 0, sizeof *map);
    map->source_of = mr_alloc_array((size_t)(target->joint_count ? target->joint_count : 1), sizeof(int));
    map->role_of = mr_alloc_array((size_t)(target->joint_count ? target->joint_count : 1), 1);
    if (!map->source_of || !map->role_of) {
        mr_joint_map_deinit(map);
        return mr_error_set(err, MR_ERR_NO_MEMORY, "joint map: out of memory");
    }
    map->source_count = source->joint_count;
    map->target_count = target->joint_count;
    for (int j = 0; j < target->joint_count; j++) {
        map->source_of[j] = -1;
        map->role_of[j] = MR_ROLE_NONE;
    }
    return MR_OK;
}

static int name_eq_ci(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    return *a == *b;
}

/* +1 when the joints named left lie on the character's left (its feet
 * point forward, its head up), -1 when the names are mirrored, 0 when the
 * skeleton lacks hips or head, thighs, feet or toes to tell. */
static int handedness(const mr_skeleton *sk)
{
    int top = mr_joint_map_find_role(sk, MR_ROLE_HEAD, MR_SIDE_CENTRE);
    if (top < 0) top = mr_joint_map_find_role(sk, MR_ROLE_NECK, MR_SIDE_CENTRE);
    int hips = mr_joint_map_find_role(sk, MR_ROLE_HIPS, MR_SIDE_CENTRE);
    int j[6];
    for (int k = 0; k < 2; k++) {
        mr_joint_side sd = k ? MR_SIDE_RIGHT : MR_SIDE_LEFT;
        j[3 * k] = mr_joint_map_find_role(sk, MR_ROLE_THIGH, sd);
        j[3 * k + 1] = mr_joint_map_find_role(sk, MR_ROLE_FOOT, sd);
        j[3 * k + 2] = mr_joint_map_find_role(sk, MR_ROLE_TOE, sd);
    }
    if (top < 0 || hips < 0) return 0;
    for (int k = 0; k < 6; k++)
        if (j[k] < 0) return 0;
    mr_pose rest = {0};
    mat4 *m = mr_alloc_array((size_t)sk->joint_count, sizeof *m);
    int result = 0;
    if (m && mr_pose_init(&rest, sk->joint_count) == MR_OK && mr_pose_set_rest(&rest, sk) == MR_OK &&
        mr_pose_to_model(sk, &rest, m) == MR_OK) {
        vec3 up, fwd = {0, 0, 0}, across, d, side;
        glm_vec3_sub(m[top][3], m[hips][3], up);
        for (int k = 0; k < 2; k++) {
            glm_vec3_sub(m[j[3 * k + 2]][3], m[j[3 * k + 1]][3], d);
            glm_vec3_add(fwd, d, fwd);
        }
        glm_vec3_sub(m[j[0]][3], m[j[3]][3], across);
        glm_vec3_cross(up, fwd, side);      /* the character's left */
        float dot = glm_vec3_dot(side, across);
        float scale = glm_vec3_norm(side) * glm_vec3_norm(across);
        if (scale > 0 && fabsf(dot) > 0.3f * scale) result = dot > 0 ? 1 : -1;
    }
    mr_pose_deinit(&rest);
    free(m);
    return result;
}

mr_status mr_joint_map_auto(mr_joint_map *map, const mr_skeleton *source, const mr_skeleton *target,
                            mr_error *err)
{
    mr_status st = map_alloc(map, source, target, err);
    if (st != MR_OK) return st;
    signed char *sr = malloc(4 * MR_MAX_JOINTS);
    unsigned char *used = calloc((size_t)source->joint_count + 1, 1);
    if (!sr || !used) {
        free(sr);
        free(used);
        mr_joint_map_deinit(map);
        return mr_error_set(err, MR_ERR_NO_MEMORY, "joint map: out of memory");
    }
    signed char *ss = sr + MR_MAX_JOINTS, *tr = sr + 2 * MR_MAX_JOINTS, *ts = sr + 3 * MR_MAX_JOINTS;
    classify(source, sr, ss);
    classify(target, tr, ts);
    int hs = handedness(source), ht = handedness(target);
    map->swapped_sides = hs * ht < 0;
    int sc[MR_MAX_JOINTS], tc[MR_MAX_JOINTS];
    for (int r = 0; r < MR_ROLE_COUNT; r++)
        for (int sd = 0; sd < 3; sd++) {
            int ssd = map->swapped_sides && sd != MR_SIDE_CENTRE ? 3 - sd : sd;
            int ns = collect(source, sr, ss, r, ssd, sc, MR_MAX_JOINTS);
            int nt = collect(target, tr, ts, r, sd, tc, MR_MAX_JOINTS);
            if (ns == 0 || nt == 0) continue;
            if (r == MR_ROLE_SPINE || r == MR_ROLE_NECK) {
                /* Chains by rank: the shorter one's joints each take one of the
                 * longer's, ends with ends; a chain of one takes the last (the
                 * joint the arms or the head hang from). */
                int n = ns < nt ? ns : nt;
                for (int i = 0; i < n; i++) {
                    int is = n == 1 ? ns - 1 : (int)((double)i * (ns - 1) / (n - 1) + 0.5);
                    int it = n == 1 ? nt - 1 : (int)((double)i * (nt - 1) / (n - 1) + 0.5);
                    map->source_of[tc[it]] = sc[is];
                    map->role_of[tc[it]] = (signed char)r;
                    used[sc[is]] = 1;
                }
            } else {
                int s = shallowest(source, sc, ns), t = shallowest(target, tc, nt);
                map->source_of[t] = s;
                map->role_of[t] = (signed char)r;
                used[s] = 1;
            }
        }
    /* Leftovers by equal names. */
    for (int t = 0; t < target->joint_count; t++) {
        if (map->source_of[t] >= 0) continue;
        for (int s = 0; s < source->joint_count; s++)
            if (!used[s] && name_eq_ci(source->names[s], target->names[t])) {
                map->source_of[t] = s;
                used[s] = 1;
                break;
            }
    }
    free(sr);
    free(used);
    return MR_OK;
}

mr_status mr_joint_map_pairs(mr_joint_map *map, const mr_skeleton *source, const mr_skeleton *target,
                             const char *const *pairs, int pair_count, mr_error *err)
{
    mr_status st = map_alloc(map, source, target, err);
    if (st != MR_OK) return st;
    for (int i = 0; i < pair_count; i++) {
        int s = mr_skeleton_find(source, pairs[2 * i]);
        int t = mr_skeleton_find(target, pairs[2 * i + 1]);
        if (s < 0 || t < 0 || map->source_of[t] >= 0) {
            if (s < 0)
                mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "joint map: '%s' is not a joint of the source skeleton",
                             pairs[2 * i]);
            else if (t < 0)
                mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "joint map: '%s' is not a joint of the target skeleton",
                             pairs[2 * i + 1]);
            else
                mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "joint map: target joint '%s' is given twice",
                             pairs[2 * i + 1]);
            mr_joint_map_deinit(map);
            return MR_ERR_INVALID_ARGUMENT;
        }
        map->source_of[t] = s;
    }
    return MR_OK;
}

void mr_joint_map_deinit(mr_joint_map *map)
{
    free(map->source_of);
    free(map->role_of);
    memset(map, 0, sizeof *map);
}

int mr_joint_map_count(const mr_joint_map *map)
{
    int n = 0;
    for (int j = 0; j < map->target_count; j++) n += map->source_of[j] >= 0;
    return n;
}

/* Appends to a growing string; returns 0 without memory. */
static int append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return 0;
    if (*len + (size_t)n + 1 > *cap) {
        size_t nc = (*cap + (size_t)n + 1) * 2;
        char *g = realloc(*buf, nc);
        if (!g) return 0;
        *buf = g;
        *cap = nc;
    }
    va_start(ap, fmt);
    vsnprintf(*buf + *len, *cap - *len, fmt, ap);
    va_end(ap);
    *len += (size_t)n;
    return 1;
}

char *mr_joint_map_report(const mr_joint_map *map, const mr_skeleton *source, const mr_skeleton *target)
{
    static const char *const sides[3] = {"", ", left", ", right"};
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int ok = append(&buf, &len, &cap, "mapped %d of %d target joints:\n", mr_joint_map_count(map),
                    map->target_count);
    if (ok && map->swapped_sides)
        ok = append(&buf, &len, &cap, "  (one skeleton's left and right names are mirrored: its left-named "
                                      "joints lie on its right; sides are paired by body, not by name)\n");
    unsigned char *used = calloc((size_t)map->source_count + 1, 1);
    if (!used) ok = 0;
    for (int t = 0; ok && t < map->target_count; t++) {
        int s = map->source_of[t];
        if (s < 0) continue;
        used[s] = 1;
        mr_joint_side sd;
        mr_joint_role_of(target->names[t], &sd, NULL);
        if (map->role_of[t] != MR_ROLE_NONE)
            ok = append(&buf, &len, &cap, "  %s <- %s (%s%s)\n", target->names[t], source->names[s],
                        mr_joint_role_name(map->role_of[t]), sides[sd]);
        else
            ok = append(&buf, &len, &cap, "  %s <- %s\n", target->names[t], source->names[s]);
    }
    if (ok) ok = append(&buf, &len, &cap, "unmapped target joints (keep their rest pose):");
    for (int t = 0; ok && t < map->target_count; t++)
        if (map->source_of[t] < 0) ok = append(&buf, &len, &cap, " %s", target->names[t]);
    if (ok) ok = append(&buf, &len, &cap, "\nunused source joints:");
    for (int s = 0; ok && s < map->source_count; s++)
        if (!used[s]) ok = append(&buf, &len, &cap, " %s", source->names[s]);
    if (ok) ok = append(&buf, &len, &cap, "\n");
    free(used);
    if (!ok) {
        free(buf);
        return NULL;
    }
    return buf;
}
