/* cmd_pose.c — `marrow pose MODEL [ANIM...] --clip NAME --time T --obj OUT.obj`:
 * the posed, CPU-skinned mesh in the model's own coordinates, as OBJ (a model
 * without meshes, such as a BVH file: its posed joints and bones).
 *
 * Skinning uses exactly the (up to 8) influences per vertex the renderer uploads
 * (mr_mesh_skin), so this is the reference the GPU image is checked against.
 * Morph targets (anim/morph.h) are applied before skinning with the clip's
 * weights at that time (the meshes' default weights without a clip or
 * channel), then overridden by --morph. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "anim/morph.h"
#include "anim/vrm_constraints.h"
#include "core/alloc.h"

static const char pose_help[] =
    "usage: marrow pose MODEL [ANIM...] [--clip NAME] [--time T] [--loop] [--rest | --bind]\n"
    "                   [--skinning linear|dq] [--morph NAME=W]... --obj OUT.obj\n"
    "\n"
    "Samples clip NAME at time T seconds (default 0; clamped to the clip unless\n"
    "--loop; --time or --loop without --clip sample the first clip), skins the\n"
    "meshes on the CPU with up to 8 influences per vertex and writes them as OBJ\n"
    "(v, vn, vt, f; one 'o' group per mesh) in the model's own coordinates.\n"
    "With none of --clip, --time, --loop, or with --rest, it writes the rest\n"
    "pose: the skeleton as the file places it (COLLADA: the scene's node\n"
    "transforms), as `marrow view` draws it with no clip. --bind gives the bind pose: the mesh as it was bound to the\n"
    "skeleton, written as loaded. For MD5 and BVH the two are the same.\n"
    "A model without meshes (BVH) is written as its skeleton: one v per joint\n"
    "(model space, skeleton order, each after a '# joint I NAME' line) and one\n"
    "l element per bone.\n"
    "A VRM avatar's node constraints (VRMC_node_constraint) are applied to the\n"
    "clip or rest pose, as `marrow view` does (not to --bind).\n"
    "--skinning dq skins with dual quaternions (no collapse at twisted joints;\n"
    "scale is applied before the rigid part, see mesh.h), --skinning linear\n"
    "linearly; without it each mesh is skinned as its file says (FBX\n"
    "SkinningType: DualQuaternion, or Blend mixing the two per vertex), else\n"
    "linearly.\n"
    "Morph targets are applied before skinning with the clip's weights at T (the\n"
    "meshes' default weights without a clip; none with --bind); --morph NAME=W\n"
    "sets target NAME's weight on every mesh that has it (repeatable).\n"
    "Exit codes: 0 ok, 2 usage, 3 the model does not load or the clip is unknown.\n";

/* A model without meshes (BVH) is written as its skeleton: a "# joint I
 * NAME" line and a v line (model-space position) per joint, in skeleton
 * order, then one l line per bone (parent to child). */
static void write_joints(FILE *f, const mr_skeleton *sk, const mat4 *joints)
{
    fprintf(f, "# no meshes: the skeleton, one vertex per joint, one line element per bone\n");
    fprintf(f, "o skeleton\n");
    for (int j = 0; j < sk->joint_count; j++) {
        fprintf(f, "# joint %d %s\n", j, sk->names[j]);
        fprintf(f, "v %.9g %.9g %.9g\n", joints[j][3][0], joints[j][3][1], joints[j][3][2]);
    }
    for (int j = 0; j < sk->joint_count; j++)
        if (sk->parents[j] >= 0) fprintf(f, "l %d %d\n", sk->parents[j] + 1, j + 1);
}

/* Writes every mesh, posed with skin (NULL: the bind pose, as loaded), to an
 * OBJ file; a model without meshes gets its joints (model-space matrices
 * `joints`) instead. */
/* What write_obj applies before and while skinning. */
typedef struct pose_opts {
    mr_skinning skinning;
    int skinning_given;    /* --skinning: else each mesh's own (mr_mesh.skinning, dq_blend) */
    const mr_clip *clip;   /* morph weights from its channels, or NULL */
    float time;
    mr_wrap wrap;
    int morph;             /* apply morph targets (not for --bind) */
    int override_count;
    char **override_names; /* --morph NAME=W */
    float *override_weights;
} pose_opts;

/* The morphed bind vertices of mesh i (pos/nrm), as pose_opts says. */
static void morph_mesh(const mr_model *m, int i, const pose_opts *po, vec3 *pos, vec3 *nrm)
{
    const mr_mesh *mesh = &m->meshes[i];
    if (!po->morph || !mesh->morph) {  /* no targets, or --bind: the mesh as loaded */
        memcpy(pos, mesh->positions, (size_t)mesh->vertex_count * sizeof *pos);
        memcpy(nrm, mesh->normals, (size_t)mesh->vertex_count * sizeof *nrm);
        return;
    }
    float *w = mr_alloc_array((size_t)mesh->morph->count, sizeof *w);
    if (w) {
        mr_morph_sample(po->clip, mesh, i, po->time, po->wrap, w);
        for (int k = 0; k < po->override_count; k++) {
            int t = mr_morph_set_find(mesh->morph, po->override_names[k]);
            if (t >= 0) w[t] = po->override_weights[k];
        }
    }
    mr_morph_apply(mesh, w, pos, nrm);
    free(w);
}

static int write_obj(const mr_model *m, const mat4 *skin, const mat4 *joints, const char *path,
                     const char *what, const pose_opts *po)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return MR_EXIT_FAILED;
    }
    fprintf(f, "# marrow pose: %s, %s\n", m->path, what);
    if (m->mesh_count == 0 && joints) write_joints(f, &m->skeleton, joints);
    int base = 1;
    for (int i = 0; i < m->mesh_count; i++) {
        const mr_mesh *mesh = &m->meshes[i];
        size_t n = (size_t)mesh->vertex_count;
        vec3 *pos = mr_alloc_array(n, sizeof *pos);
        vec3 *nrm = mr_alloc_array(n, sizeof *nrm);
        if (!pos || !nrm) {
            free(pos);
            free(nrm);
            fclose(f);
            fprintf(stderr, "marrow pose: out of memory\n");
            return MR_EXIT_FAILED;
        }
        morph_mesh(m, i, po, pos, nrm);
        if (skin) {
            mr_skin_opts so = {.mode = po->skinning, .positions = pos, .normals = nrm};
            if (!po->skinning_given) {
                so.mode = mesh->skinning;
                so.blend = mesh->skinning == MR_SKINNING_DUAL_QUATERNION ? mesh->dq_blend : NULL;
            }
            mr_mesh_skin_with(mesh, skin, &so, pos, nrm);
        }
        fprintf(f, "o %s\n", mesh->name ? mesh->name : "mesh");
        for (size_t v = 0; v < n; v++) fprintf(f, "v %.9g %.9g %.9g\n", pos[v][0], pos[v][1], pos[v][2]);
        for (size_t v = 0; v < n; v++) fprintf(f, "vn %.6f %.6f %.6f\n", nrm[v][0], nrm[v][1], nrm[v][2]);
        for (size_t v = 0; v < n; v++) fprintf(f, "vt %.6f %.6f\n", mesh->uvs[v][0], mesh->uvs[v][1]);
        for (int t = 0; t + 2 < mesh->index_count; t += 3) {
            int a = base + (int)mesh->indices[t], b = base + (int)mesh->indices[t + 1],
                c = base + (int)mesh->indices[t + 2];
            fprintf(f, "f %d/%d/%d %d/%d/%d %d/%d/%d\n", a, a, a, b, b, b, c, c, c);
        }
        base += mesh->vertex_count;
        free(pos);
        free(nrm);
    }
    if (fclose(f) != 0) {
        perror(path);
        return MR_EXIT_FAILED;
    }
    return MR_EXIT_OK;
}

int mr_cmd_pose(int argc, char **argv)
{
    if (mr_cli_wants_help(argc, argv)) {
        fputs(pose_help, stdout);
        return MR_EXIT_OK;
    }
    const char *clip_name = NULL, *obj = NULL, *model_path = NULL;
    const char **anims = calloc((size_t)argc, sizeof *anims);
    int anim_count = 0, loop = 0, rest = 0, bind = 0, time_given = 0;
    pose_opts po = {0};
    po.override_names = calloc((size_t)argc, sizeof *po.override_names);
    po.override_weights = calloc((size_t)argc, sizeof *po.override_weights);
    float time = 0.0f;
    int code = MR_EXIT_OK;
    for (int i = 1; i < argc && code == MR_EXIT_OK; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--clip") || !strcmp(a, "--time") || !strcmp(a, "--obj")) {
            if (i + 1 >= argc) { code = mr_cli_usage_error("pose", "%s needs a value", a); break; }
            const char *v = argv[++i];
            if (!strcmp(a, "--clip")) clip_name = v;
            else if (!strcmp(a, "--obj")) obj = v;
            else if (mr_cli_float(v, &time) != 0)
                code = mr_cli_usage_error("pose", "--time expects seconds, got '%s'", v);
            else time_given = 1;
        } else if (!strcmp(a, "--skinning") || !strcmp(a, "--morph")) {
            if (i + 1 >= argc) { code = mr_cli_usage_error("pose", "%s needs a value", a); break; }
            const char *v = argv[++i];
            char *eq = strrchr(v, '=');
            if (!strcmp(a, "--skinning")) {
                po.skinning_given = 1;
                if (!strcmp(v, "linear")) po.skinning = MR_SKINNING_LINEAR;
                else if (!strcmp(v, "dq") || !strcmp(v, "dual_quaternion")) po.skinning = MR_SKINNING_DUAL_QUATERNION;
                else code = mr_cli_usage_error("pose", "--skinning expects linear or dq, got '%s'", v);
            } else if (!eq || eq == v || mr_cli_float(eq + 1, &po.override_weights[po.override_count]) != 0 ||
                       !isfinite(po.override_weights[po.override_count])) {
                code = mr_cli_usage_error("pose", "--morph expects NAME=WEIGHT (a finite number), got '%s'", v);
            } else {
                po.override_names[po.override_count++] = (char *)v;
                *eq = '\0';
            }
        } else if (!strcmp(a, "--loop")) {
            loop = 1;
        } else if (!strcmp(a, "--rest")) {
            rest = 1;
        } else if (!strcmp(a, "--bind")) {
            bind = 1;
        } else if (a[0] == '-' && a[1]) {
            code = mr_cli_usage_error("pose", "unknown option '%s'", a);
        } else if (!model_path) {
            model_path = a;
        } else {
            anims[anim_count++] = a;
        }
    }
    if (code == MR_EXIT_OK && !model_path) code = mr_cli_usage_error("pose", "missing MODEL");
    if (code == MR_EXIT_OK && !obj) code = mr_cli_usage_error("pose", "missing --obj OUT.obj");
    if (code == MR_EXIT_OK && rest + bind + (clip_name != NULL) > 1)
        code = mr_cli_usage_error("pose", "--clip, --rest and --bind choose different poses: give one");
    if (!po.override_names || !po.override_weights) code = MR_EXIT_FAILED;
    if (code != MR_EXIT_OK) {
        free(anims);
        free(po.override_names);
        free(po.override_weights);
        return code;
    }

    mr_model *m = mr_cli_load_model(model_path, anims, anim_count, &code);
    free(anims);
    if (!m) {
        free(po.override_names);
        free(po.override_weights);
        return code;
    }

    const mr_clip *clip = NULL;
    if (clip_name) {
        clip = mr_model_find_clip(m, clip_name);
        if (!clip) {
            fprintf(stderr, "marrow pose: %s has no clip '%s' (clips:", m->path, clip_name);
            for (int i = 0; i < m->clip_count; i++) fprintf(stderr, " %s", m->clips[i]->name);
            fprintf(stderr, "%s)\n", m->clip_count ? "" : " none");
            mr_model_destroy(m);
            free(po.override_names);
            free(po.override_weights);
            return MR_EXIT_BAD_INPUT;
        }
    } else if (m->clip_count > 0 && (time_given || loop) && !rest && !bind) {
        clip = m->clips[0];
    }

    int n = m->skeleton.joint_count;
    mr_pose pose;
    mat4 *model_m = mr_alloc_array((size_t)n, sizeof *model_m);
    mat4 *skin = mr_alloc_array((size_t)n, sizeof *skin);
    char what[256];
    if (mr_pose_init(&pose, n) != MR_OK || !model_m || !skin) {
        fprintf(stderr, "marrow pose: out of memory\n");
        code = MR_EXIT_FAILED;
    } else {
        mr_pose_set_rest(&pose, &m->skeleton);
        if (clip) {
            mr_clip_sample(clip, &m->skeleton, time, loop ? MR_WRAP_LOOP : MR_WRAP_CLAMP, &pose);
            snprintf(what, sizeof what, "clip %s at %g s", clip->name, time);
        } else {
            snprintf(what, sizeof what, "%s pose", bind ? "bind" : "rest");
        }
        if (!bind) mr_vrm_constraints_apply(&m->skeleton, m->vrm, &pose);   /* a VRM avatar's node constraints */
        mr_pose_to_model(&m->skeleton, &pose, model_m);
        mr_pose_skinning(&m->skeleton, model_m, skin);
        /* The bind pose is written as loaded, untouched by rounding; so is a
         * model without joints (nothing can move it). */
        int as_loaded = bind || n == 0;
        /* Joints of the bind pose are where the inverse binds put them. */
        for (int j = 0; bind && j < n; j++) glm_mat4_inv(m->skeleton.inverse_bind[j], model_m[j]);
        po.clip = clip;
        po.time = time;
        po.wrap = loop ? MR_WRAP_LOOP : MR_WRAP_CLAMP;
        po.morph = !bind;
        code = write_obj(m, as_loaded ? NULL : (const mat4 *)skin, model_m, obj, what, &po);
        if (code == MR_EXIT_OK) printf("wrote %s (%s)\n", obj, what);
    }
    mr_pose_deinit(&pose);
    free(model_m);
    free(skin);
    mr_model_destroy(m);
    free(po.override_names);
    free(po.override_weights);
    return code;
}
