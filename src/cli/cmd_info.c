/* cmd_info.c — `marrow info MODEL [ANIM...]`: what a model contains.
 *
 * Prints the joint tree, each joint's local axes in the rest pose, meshes (vertex/triangle counts, how many vertices
 * the file gives more than 4 and more than 8 joint influences, texture and
 * its resolution), clips (frames, rate, duration, and what their runtime
 * costs: bytes, bytes per joint per second, ratio to raw poses, largest
 * error), the frame conversion and the loader's warnings. Exit 3 when the
 * model does not load. */
#include <limits.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/file.h"
#include "core/image.h"
#include "core/path.h"
#include "anim/clip_runtime.h"
#include "anim/morph.h"
#include "anim/pose.h"
#include "anim/vrm.h"
#include "formats/cache.h"
#include "cli/cmd.h"

static const char info_help[] =
    "usage: marrow info MODEL [ANIM...]\n"
    "\n"
    "Loads MODEL (.md5mesh with any .md5anim files, .dae, .gltf, .glb, .vrm, .fbx\n"
    "with any .fbx motions of its skeleton, or .bvh)\n"
    "and prints its joint tree, each joint's local axes in the rest pose (which\n"
    "local axis points along the bone to the child, in the model's frame),\n"
    "meshes, materials, clips, the coordinate frame and warnings. For a rig\n"
    "with a left and a right upper arm (upperarm_l, LeftArm, L_UpperArm...),\n"
    "the header says its rest pose: \"rest pose: A-pose (arms 45 deg below\n"
    "horizontal), facing +X\" (T-pose, arms down) in the model's frame.\n"
    "\n"
    "Under each clip, its runtime (what sampling reads; by default the packed\n"
    "clip, keys reduced per track and quantised at 1e-4 of the size): bytes, bytes per\n"
    "joint per second, the ratio of raw poses (10 floats per joint at each\n"
    "frame of the longest track) to those bytes, and the largest error it\n"
    "leaves against the exact source curves, as a share of the model size\n"
    "(bounding-box diagonal): the farthest that any joint's origin or a point\n"
    "size / 18 along its axes strays (10 cm on a 1.8 m character, as ozz and\n"
    "ACL measure), at 4 times per key interval (121 at least). Then what the\n"
    "clip holds in memory: the runtime and the source keys, when they are\n"
    "resident.\n"
    "A VRM avatar gets a line 'vrm:' counting its humanoid bones, expressions\n"
    "(and their material binds), spring joints, node constraints by type and\n"
    "its look-at type.\n"
    "Exit codes: 0 ok, 2 usage, 3 the model or an anim does not load.\n";

static void print_joint_tree(const mr_skeleton *sk)
{
    printf("joints: %d\n", sk->joint_count);
    for (int j = 0; j < sk->joint_count; j++) {
        int depth = 0;
        for (int p = sk->parents[j]; p >= 0; p = sk->parents[p]) depth++;
        printf("  %3d %*s%s%s\n", j, 2 * depth, "", sk->names[j],
               sk->scale_comp && sk->scale_comp[j] ? "  (does not inherit its parent's scale)" : "");
    }
}

/* A material's image: a file (path), or bytes embedded in the model file
 * (a .glb buffer view, a data: URI; path is then only its name), which the
 * renderer decodes from memory the same way. */
/* Each joint's local axes in the rest pose, in the model's frame: which
 * local axis (+X, -Y, ...) runs along the bone to its first child, the
 * bone's direction and how far the axis is off it, and where local X, Y
 * and Z point. What a script needs for pose:rotate(j, q) in local space
 * or for an aim axis, on rigs whose conventions it does not know. */
/* v rounded for two decimals without a "-0.00". */
static double r2(float v) { return fabsf(v) < 0.005f ? 0.0 : (double)v; }

static void print_axes(const mr_model *m)
{
    const mr_skeleton *sk = &m->skeleton;
    if (sk->joint_count <= 0) return;
    mr_pose rest;
    mat4 *model = malloc(sizeof(mat4) * (size_t)sk->joint_count);
    if (!model || mr_pose_init(&rest, sk->joint_count) != MR_OK) {
        free(model);
        return;
    }
    mr_pose_set_rest(&rest, sk);
    mr_pose_to_model(sk, &rest, model);
    static const char *up[] = {"Y", "Z", "X"};
    printf("axes: the local axis along each bone, rest pose, directions in the model's frame (%s-up)\n",
           up[m->axes.up]);
    for (int j = 0; j < sk->joint_count; j++) {
        vec3 col[3];
        for (int k = 0; k < 3; k++) {
            glm_vec3_copy(model[j][k], col[k]);
            if (glm_vec3_norm(col[k]) > 1e-12f) glm_vec3_normalize(col[k]);
        }
        int child = -1, children = 0;
        for (int c = j + 1; c < sk->joint_count; c++)
            if (sk->parents[c] == j && children++ == 0) child = c;
        printf("  %3d %s: ", j, sk->names[j]);
        vec3 bone;
        if (child >= 0) glm_vec3_sub(model[child][3], model[j][3], bone);
        if (child < 0) {
            printf("end joint");
        } else if (glm_vec3_norm(bone) < 1e-6f * (1.0f + glm_vec3_norm(model[j][3]))) {
            printf("%s at the joint itself", sk->names[child]);
        } else {
            glm_vec3_normalize(bone);
            int best = 0;
            float dot = 0;
            for (int k = 0; k < 3; k++) {
                float d = glm_vec3_dot(col[k], bone);
                if (fabsf(d) > fabsf(dot)) {
                    dot = d;
                    best = k;
                }
            }
            double off = acos(fmin(1.0, fabs((double)dot))) * 180.0 / GLM_PI;
            printf("%c%c -> %s (%.2f, %.2f, %.2f), %.0f deg off", dot < 0 ? '-' : '+', "XYZ"[best],
                   sk->names[child], r2(bone[0]), r2(bone[1]), r2(bone[2]), off);
            if (children > 1) printf(" (first of %d children)", children);
        }
        printf("; X (%.2f, %.2f, %.2f) Y (%.2f, %.2f, %.2f) Z (%.2f, %.2f, %.2f)\n", r2(col[0][0]),
               r2(col[0][1]), r2(col[0][2]), r2(col[1][0]), r2(col[1][1]), r2(col[1][2]), r2(col[2][0]),
               r2(col[2][1]), r2(col[2][2]));
    }
    mr_pose_deinit(&rest);
    free(model);
}

/* Which side an arm joint's name says (lower case): 'l', 'r' or 0. Names
 * the common rigs use: upperarm_l, UpperArm.L, l_upperarm, LeftArm (Mixamo),
 * Left_Arm. Forearms, lower arms, hands and twist joints are not upper arms. */
static int upper_arm_side(const char *name)
{
    char n[64];
    size_t len = strlen(name);
    if (len >= sizeof n) return 0;
    for (size_t i = 0; i <= len; i++) n[i] = (char)tolower((unsigned char)name[i]);
    const char *colon = strrchr(n, ':');     /* "mixamorig:leftarm" */
    const char *b = colon ? colon + 1 : n;
    if (!strstr(b, "arm") || strstr(b, "fore") || strstr(b, "lower") || strstr(b, "hand") || strstr(b, "twist"))
        return 0;
    size_t bl = strlen(b);
    if (strstr(b, "left") || !strncmp(b, "l_", 2) || (bl > 2 && (!strcmp(b + bl - 2, "_l") || !strcmp(b + bl - 2, ".l"))))
        return 'l';
    if (strstr(b, "right") || !strncmp(b, "r_", 2) || (bl > 2 && (!strcmp(b + bl - 2, "_r") || !strcmp(b + bl - 2, ".r"))))
        return 'r';
    return 0;
}

/* "rest pose: A-pose (arms 45 deg below horizontal), facing +X" for a rig
 * with a left and a right upper arm (the first of each by name), from the
 * rest pose in the model's frame: the arms' angle below the plane
 * perpendicular to the up axis, and the facing direction (the left arm's
 * side crossed with up, as a right-handed character faces). Nothing for
 * other rigs. */
static void print_rest_pose(const mr_model *m)
{
    const mr_skeleton *sk = &m->skeleton;
    int arm[2] = {-1, -1}, child[2] = {-1, -1};
    for (int j = 0; j < sk->joint_count; j++) {
        int side = upper_arm_side(sk->names[j]);
        int k = side == 'l' ? 0 : side == 'r' ? 1 : -1;
        if (k >= 0 && arm[k] < 0) arm[k] = j;
    }
    if (arm[0] < 0 || arm[1] < 0) return;
    for (int k = 0; k < 2; k++)
        for (int c = arm[k] + 1; c < sk->joint_count && child[k] < 0; c++)
            if (sk->parents[c] == arm[k]) child[k] = c;
    if (child[0] < 0 || child[1] < 0) return;
    mr_pose rest;
    mat4 *model = malloc(sizeof(mat4) * (size_t)sk->joint_count);
    if (!model || mr_pose_init(&rest, sk->joint_count) != MR_OK) {
        free(model);
        return;
    }
    mr_pose_set_rest(&rest, sk);
    mr_pose_to_model(sk, &rest, model);
    vec3 up = {0, 0, 0}, side, facing;
    up[m->axes.up == MR_UP_Y ? 1 : m->axes.up == MR_UP_Z ? 2 : 0] = 1.0f;
    double below = 0;
    for (int k = 0; k < 2; k++) {
        vec3 bone;
        glm_vec3_sub(model[child[k]][3], model[arm[k]][3], bone);
        if (glm_vec3_norm(bone) > 1e-9f) glm_vec3_normalize(bone);
        below += 0.5 * asin(fmax(-1.0, fmin(1.0, -(double)glm_vec3_dot(bone, up)))) * 180.0 / GLM_PI;
    }
    glm_vec3_sub(model[arm[0]][3], model[arm[1]][3], side);
    glm_vec3_cross(side, up, facing);
    int best = 0;
    for (int k = 1; k < 3; k++)
        if (fabsf(facing[k]) > fabsf(facing[best])) best = k;
    const char *kind = fabs(below) < 10 ? "T-pose" : below > 60 ? "arms down" : below > 10 ? "A-pose" : "arms raised";
    if (glm_vec3_norm(facing) > 1e-9f)
        printf("rest pose: %s (arms %.0f deg %s horizontal), facing %c%c\n", kind, fabs(below),
               below >= 0 ? "below" : "above", facing[best] < 0 ? '-' : '+', "XYZ"[best]);
    mr_pose_deinit(&rest);
    free(model);
}

/* The texture's size as the renderer would read it: bytes embedded in the
 * model file (a .glb buffer view, a data: URI; path is then only its name),
 * or a regular file inside the model's folder (dir), within core/image.h's
 * limits. */
static void print_texture(const char *label, const char *dir, const char *path, const unsigned char *bytes,
                          size_t bytes_len)
{
    if (!path) return;
    int w, h;
    mr_error err = {0};
    if (bytes) {
        if (mr_image_info(bytes, bytes_len, path, &w, &h, NULL, &err) == MR_OK)
            printf("      %s %s (%dx%d, embedded)\n", label, path, w, h);
        else
            printf("      %s %s (embedded, %zu bytes, refused: %s)\n", label, path, bytes_len, err.msg);
        return;
    }
    size_t len = 0;
    char *data = mr_file_read_inside(dir, path, &len, &err);
    if (data && mr_image_info((const unsigned char *)data, len, path, &w, &h, NULL, &err) == MR_OK)
        printf("      %s %s (%dx%d)\n", label, path, w, h);
    else if (err.status == MR_ERR_IO || (data && err.status == MR_ERR_BAD_FILE))
        printf("      %s %s (missing or unreadable)\n", label, path);
    else
        printf("      %s %s (refused: %s)\n", label, path, err.msg);
    free(data);
}

static void print_meshes(const mr_model *m)
{
    char *dir = mr_file_model_dir(m->path);
    int v, t;
    mr_model_counts(m, &v, &t);
    printf("meshes: %d (%d vertices, %d triangles)\n", m->mesh_count, v, t);
    int skinned = 0;
    long over4 = 0, over8 = 0;
    for (int i = 0; i < m->mesh_count; i++) {
        skinned |= m->meshes[i].joints != NULL;
        over4 += m->meshes[i].source_over4;
        over8 += m->meshes[i].source_over8;
    }
    /* Counted in the source file, before the loader cut to MR_MAX_INFLUENCES. */
    if (skinned)
        printf("influences: %ld vertices have more than 4, %ld more than %d (those keep the %d heaviest)\n", over4,
               over8, MR_MAX_INFLUENCES, MR_MAX_INFLUENCES);
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_mesh *mesh = &m->meshes[i];
        printf("  %d %s: %d vertices, %d triangles, %s", i, mesh->name ? mesh->name : "(unnamed)",
               mesh->vertex_count, mesh->index_count / 3, mesh->joints ? "skinned" : "static");
        if (mesh->source_over4) printf(" (%d with more than 4 influences", mesh->source_over4);
        if (mesh->source_over4 && mesh->source_over8) printf(", %d more than 8", mesh->source_over8);
        printf(mesh->source_over4 ? ")\n" : "\n");
        const float *d = mesh->material.diffuse;
        printf("      material %s: diffuse %.2f %.2f %.2f, shininess %.0f\n",
               mesh->material.name ? mesh->material.name : "(default)", d[0], d[1], d[2],
               mesh->material.shininess);
        const mr_material *mat = &mesh->material;
        print_texture("texture", dir, mat->diffuse_map, mat->diffuse_bytes, mat->diffuse_bytes_len);
        print_texture("normal map", dir, mat->normal_map, mat->normal_bytes, mat->normal_bytes_len);
        if (mesh->morph) {
            printf("      morph targets: %d (", mesh->morph->count);
            for (int k = 0; k < mesh->morph->count; k++)
                printf("%s%s %g", k ? ", " : "", mesh->morph->targets[k].name, mesh->morph->weights[k]);
            printf(")\n");
        }
    }
    free(dir);
}

/* One line on what a clip's runtime costs (see info_help). */
static void print_runtime(const mr_model *m, const mr_clip *c, const char *label)
{
    size_t bytes = mr_clip_runtime_bytes(c);
    int keys = mr_clip_key_count(c);
    double raw = (double)(keys > 0 ? keys : 1) * c->joint_count * 10 * sizeof(float);
    printf("    %s: %zu bytes", label, bytes);
    if (c->duration > 0 && c->joint_count > 0)
        printf(", %.1f bytes per joint per second", (double)bytes / c->joint_count / c->duration);
    if (bytes > 0) printf(", %.2f:1 against raw poses", raw / (double)bytes);
    vec3 lo, hi;
    double size = mr_model_bounds(m, lo, hi) ? glm_vec3_distance(lo, hi) : 0.0;
    int samples = keys > 1 ? 4 * (keys - 1) + 1 : 2;
    if (samples < 121) samples = 121;
    if (samples > 100001) samples = 100001;
    double err;
    if (size > 0 && mr_clip_runtime_error(c, &m->skeleton, (float)(MR_CLIP_POINT_DISTANCE * size), samples, &err) == MR_OK)
        printf(", largest error %.3g of the size", err / size);
    printf("\n");
}

static void print_clips(const mr_model *m)
{
    printf("clips: %d\n", m->clip_count);
    for (int i = 0; i < m->clip_count; i++) {
        const mr_clip *c = m->clips[i];
        int animated = 0;
        for (int j = 0; j < c->joint_count; j++) {
            const mr_joint_tracks *jt = &c->tracks[j];
            if (jt->t.key_count > 1 || jt->r.key_count > 1 || jt->s.key_count > 1) animated++;
        }
        if (c->rate > 0) {
            /* frames: the keys of the busiest track, but for FBX, whose
             * curves are baked into keys (more than its frames where a
             * curve bends, fewer where it is straight), the frames of the
             * file's own clock, with the keys said after */
            double f = (double)c->duration * c->rate + 1.0;
            int keys = mr_clip_key_count(c), frames = keys;
            if (m->format && !strcmp(m->format, "fbx")) frames = f < 2147483647.0 ? (int)(f + 0.5) : 2147483647;
            printf("  %s: %d frames at %g fps, %.3f s, %d joints animated", c->name, frames, c->rate, c->duration,
                   animated);
            if (keys != frames && animated) printf(" (%d keys on its busiest track)", keys);
            printf("\n");
        } else
            printf("  %s: %d keys, %.3f s, %d joints animated\n", c->name, mr_clip_key_count(c),
                   c->duration, animated);
        print_runtime(m, c, "runtime");
        printf("    held: %zu bytes\n", mr_clip_bytes(c));
        if (c->morph) printf("      morph weights: %d meshes animated\n", c->morph->channel_count);
    }
}

/* A VRM avatar's extensions, one line: what `view` and scripts use. */
static void print_vrm(const mr_model *m)
{
    const mr_vrm *v = m->vrm;
    if (!v) return;
    int bones = 0, types[3] = {0, 0, 0};
    for (int b = 0; b < MR_VRM_BONE_COUNT; b++) bones += v->humanoid[b] >= 0;
    for (int i = 0; v->constraints && i < v->constraint_count; i++) types[v->constraints[i].type]++;
    printf("vrm: %s, %d humanoid bones, %d expressions (%d material binds), %d spring joints in %d chains, "
           "%d node constraints (%d roll, %d aim, %d rotation), look-at %s\n",
           v->version ? "1.0" : "0.x", bones, v->expression_count, v->material_bind_count, v->spring_joint_count,
           v->chain_count, v->constraint_count, types[MR_VRM_CONSTRAINT_ROLL], types[MR_VRM_CONSTRAINT_AIM],
           types[MR_VRM_CONSTRAINT_ROTATION],
           !v->look_at.present ? "none" : v->look_at.type == MR_VRM_LOOK_AT_BONE ? "bone" : "expression");
}

int mr_cmd_info(int argc, char **argv)
{
    if (mr_cli_wants_help(argc, argv)) {
        fputs(info_help, stdout);
        return MR_EXIT_OK;
    }
    if (argc < 2) return mr_cli_usage_error("info", "missing MODEL");
    for (int i = 1; i < argc; i++)
        if (argv[i][0] == '-' && argv[i][1])
            return mr_cli_usage_error("info", "unknown option '%s'", argv[i]);
    int code;
    mr_cache_stats before, after;
    mr_cache_get_stats(&before);
    mr_model *m = mr_cli_load_model(argv[1], (const char *const *)argv + 2, argc - 2, &code);
    if (!m) return code;
    mr_cache_get_stats(&after);

    vec3 lo, hi;
    mr_model_bounds(m, lo, hi);
    printf("model: %s (%s)\n", m->path, m->format);
    static const char *axes[] = {"Y", "Z", "X"};
    printf("frame: %s-up, %g m per unit%s%s\n", axes[m->axes.up], m->axes.meters_per_unit,
           m->axes_note ? "; " : "", m->axes_note ? m->axes_note : "");
    print_rest_pose(m);
    printf("bounds: (%.3f %.3f %.3f) .. (%.3f %.3f %.3f)\n", lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
    print_joint_tree(&m->skeleton);
    print_axes(m);
    print_meshes(m);
    print_clips(m);
    print_vrm(m);
    printf("warnings: %d\n", m->warning_count);
    for (int i = 0; i < m->warning_count; i++) printf("  %s\n", m->warnings[i]);
    /* where the load came from (formats/cache.h) */
    char *file = mr_cache_file(argv[1], (const char *const *)argv + 2, argc - 2), ext[8];
    if (!file) printf("cache: off (MARROW_CACHE=0)\n");
    else if (after.hits > before.hits) printf("cache: loaded from %s (MARROW_CACHE=0 turns the cache off)\n", file);
    else if (after.writes > before.writes && after.rejected > before.rejected)
        printf("cache: rewritten %s, the file there was rejected (%s)\n", file, mr_cache_rejection());
    else if (after.writes > before.writes) printf("cache: written to %s (MARROW_CACHE=0 turns the cache off)\n", file);
    else if (after.rejected > before.rejected)
        printf("cache: %s rejected (%s), not rewritten\n", file, mr_cache_rejection());
    else if (!strcmp(mr_path_ext(argv[1], ext, sizeof ext), "gltf"))
        printf("cache: not used (a .gltf's buffers are other files the cache does not check)\n");
    else printf("cache: not written (%s)\n", file);
    free(file);
    mr_model_destroy(m);
    return MR_EXIT_OK;
}
