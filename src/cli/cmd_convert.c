/* cmd_convert.c — `marrow convert IN [ANIM...] OUT`: between MD5, COLLADA
 * and glTF (any to any; glTF is written, read through load.h), and from BVH
 * (read only) to any of them.
 * With `--retarget TARGET`: IN's clips retargeted onto TARGET (anim/
 * retarget.h), written as TARGET's model with those clips in OUT's format.
 * With `--mirror`: every clip replaced by its left/right mirror
 * (anim/mirror.h), named CLIP_mirror (after retargeting, when both).
 *
 *   .md5mesh (+ .md5anim files) -> .dae : one document with every clip
 *   .dae -> .md5mesh                     : the mesh, plus CLIP.md5anim beside
 *                                          it for every clip in the document
 *   any model -> .gltf (+ STEM.bin) / .glb: every clip as an animation
 *
 * Each writer gets the model in its format's axes: COLLADA is written in
 * the model's own axes (an MD5 model stays Z-up inches, declared as such);
 * a COLLADA model (loaded as Y-up metres) is converted to MD5's Z-up inches
 * before the MD5 writer sees it; glTF is Y-up metres, so an MD5 model is
 * converted from Z-up inches before the glTF writer sees it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anim/axes.h"
#include "anim/mirror.h"
#include "anim/retarget.h"
#include "cli/cli.h"
#include "cli/cmd.h"
#include "core/file.h"
#include "core/path.h"
#include "core/str.h"
#include "formats/collada.h"
#include "formats/gltf_write.h"
#include "formats/save.h"
#include "formats/textures.h"
#include "formats/write_check.h"
#include "formats/md5.h"

static const char convert_help[] =
    "usage: marrow convert IN [ANIM...] OUT\n"
    "\n"
    "Converts between MD5, COLLADA and glTF 2.0 (any to any), and between BVH\n"
    "motion capture and any of them: skeleton, skinned meshes, materials\n"
    "(texture references) and clips. A .bvh OUT holds the skeleton and exactly\n"
    "one clip (no mesh, no scale keys). FBX (.fbx, binary or ASCII) is read:\n"
    "  marrow convert mixamo.fbx mixamo.glb   (every animation stack a clip)\n"
    "  marrow convert bob.md5mesh walk.md5anim run.md5anim bob.dae\n"
    "  marrow convert bob.md5mesh walk.md5anim bob.glb    (.gltf: JSON plus\n"
    "                                  STEM.bin beside it; .glb: one file with\n"
    "                                  the textures embedded)\n"
    "  marrow convert astroBoy_walk.dae astroBoy.md5mesh   (also writes one\n"
    "                                  CLIP.md5anim per clip beside OUT)\n"
    "  marrow convert 01_01.bvh 01_01.glb   (a skeleton and its clip, no mesh)\n"
    "  marrow convert bob.md5mesh walk.md5anim walk.bvh   (for mocap tools)\n"
    "MD5 keeps no scale tracks and no colours; what the target cannot hold is\n"
    "noted in the written file. Exit codes: 0 ok, 1 write failed, 2 usage,\n"
    "3 the input does not load.\n"
    "\n"
    "  marrow convert SRC [ANIM...] --retarget TARGET [--feet] [--map S=T]... OUT\n"
    "plays SRC's clips on TARGET (joints paired by name across rig conventions,\n"
    "motion taken relative to each rest pose, root path scaled by the legs'\n"
    "ratio; --feet holds planted feet with IK) and writes TARGET with those\n"
    "clips. The joint map is printed. --map S=T (repeatable) gives the map\n"
    "instead: source joint S drives target joint T, and only the joints named\n"
    "(as marrow.retarget's opts.map).\n"
    "  marrow convert mannequin.md5mesh wave.md5anim --retarget Bob.md5mesh out/bob.md5mesh\n"
    "\n"
    "  marrow convert IN [ANIM...] --mirror OUT\n"
    "writes every clip mirrored left for right across the model's mid-plane\n"
    "(joints paired as --retarget pairs them and by Left/Right, L/R, .L/.R, _l/_r\n"
    "in their names; root motion mirrored), named CLIP_mirror. The pairs are\n"
    "printed; a rig without any is refused (exit 3).\n"
    "  marrow convert mannequin.md5mesh walk.md5anim --mirror out/walk_mirror.glb\n";

/* Replaces src by target carrying src's clips retargeted (its own clips
 * dropped). Frees src; returns the target model, or NULL with *code set. */
static mr_model *retarget_into(mr_model *src, const char *target_path, int feet, char *const *maps, int map_count,
                               int *code)
{
    mr_model *dst = mr_cli_load_model(target_path, NULL, 0, code);
    if (!dst) {
        mr_model_destroy(src);
        return NULL;
    }
    mr_joint_map map;
    mr_error err = {0};
    if (map_count > 0) {
        /* --map S=T pairs, split in copies of the arguments */
        const char **pairs = calloc((size_t)map_count * 2, sizeof *pairs);
        char **copies = calloc((size_t)map_count, sizeof *copies);
        mr_status st = pairs && copies ? MR_OK : mr_error_set(&err, MR_ERR_NO_MEMORY, "out of memory");
        for (int i = 0; st == MR_OK && i < map_count; i++) {
            char *eq = (copies[i] = mr_str_dup(maps[i])) ? strchr(copies[i], '=') : NULL;
            if (!eq || eq == copies[i] || !eq[1]) {
                st = mr_error_set(&err, MR_ERR_INVALID_ARGUMENT, "--map %s: expected SOURCE_JOINT=TARGET_JOINT", maps[i]);
                break;
            }
            *eq = '\0';
            pairs[2 * i] = copies[i];
            pairs[2 * i + 1] = eq + 1;
        }
        if (st == MR_OK) st = mr_joint_map_pairs(&map, &src->skeleton, &dst->skeleton, pairs, map_count, &err);
        for (int i = 0; copies && i < map_count; i++) free(copies[i]);
        free(copies);
        free(pairs);
        if (st != MR_OK) {
            fprintf(stderr, "marrow convert: %s\n", err.msg);
            *code = MR_EXIT_USAGE;
            mr_model_destroy(src);
            mr_model_destroy(dst);
            return NULL;
        }
    } else if (mr_joint_map_auto(&map, &src->skeleton, &dst->skeleton, &err) != MR_OK) {
        goto fail;
    }
    char *report = mr_joint_map_report(&map, &src->skeleton, &dst->skeleton);
    if (report) fputs(report, stdout);
    free(report);
    for (int i = 0; i < dst->clip_count; i++) mr_clip_destroy(dst->clips[i]);
    dst->clip_count = 0;
    mr_retarget_opts opts = {.feet = feet};
    for (int i = 0; i < src->clip_count; i++) {
        mr_clip *clip = NULL;
        mr_retarget_info info;
        if (mr_retarget_clip(src->clips[i], src, dst, &map, &opts, &clip, &info, &err) != MR_OK) {
            mr_joint_map_deinit(&map);
            goto fail;
        }
        printf("retargeted %s: %d keys, root path scale %.4g", clip->name, info.keys, (double)info.scale);
        if (feet) printf(", %d contacts held, %d keys out of reach", info.contact_count, info.unreached);
        printf("\n");
        if (mr_model_add_clip(dst, clip) != MR_OK) {
            mr_clip_destroy(clip);
            mr_joint_map_deinit(&map);
            mr_error_set(&err, MR_ERR_NO_MEMORY, "out of memory");
            goto fail;
        }
    }
    mr_joint_map_deinit(&map);
    mr_model_destroy(src);
    return dst;
fail:
    fprintf(stderr, "marrow convert: %s\n", err.msg);
    *code = MR_EXIT_FAILED;
    mr_model_destroy(src);
    mr_model_destroy(dst);
    return NULL;
}

/* Textures beside OUT (formats/textures.h), each copy and failure said. */
static void texture_note(void *user, const char *copied, const char *warning)
{
    (void)user;
    if (copied) printf("wrote %s (texture)\n", copied);
    else fprintf(stderr, "marrow convert: warning: %s\n", warning);
}

/* Replaces every clip of m by its mirror. Returns 0, or an exit code. */
static int mirror_clips(mr_model *m)
{
    mr_mirror_map map;
    mr_error err = {0};
    if (mr_mirror_map_find(&map, &m->skeleton, NULL, 0, &err) != MR_OK) {
        fprintf(stderr, "marrow convert: %s: %s\n", m->path, err.msg);
        return MR_EXIT_BAD_INPUT;
    }
    printf("mirror: %d left/right pairs, mid-plane normal (%g, %g, %g) at %g\n", map.pair_count,
           (double)map.normal[0], (double)map.normal[1], (double)map.normal[2], (double)map.offset);
    for (int j = 0; j < m->skeleton.joint_count; j++)
        if (map.partner[j] > j)
            printf("  %s <-> %s\n", m->skeleton.names[j], m->skeleton.names[map.partner[j]]);
    for (int i = 0; i < m->clip_count; i++) {
        mr_clip *clip = NULL;
        if (mr_mirror_clip(m->clips[i], &m->skeleton, &map, NULL, &clip, &err) != MR_OK) {
            fprintf(stderr, "marrow convert: %s\n", err.msg);
            mr_mirror_map_deinit(&map);
            return MR_EXIT_FAILED;
        }
        printf("mirrored %s -> %s\n", m->clips[i]->name, clip->name);
        mr_clip_finish(clip);
        mr_clip_destroy(m->clips[i]);
        m->clips[i] = clip;
    }
    mr_mirror_map_deinit(&map);
    return 0;
}

static void copy_textures(mr_model *m, const char *out_dir, int redirect)
{
    mr_textures_copy(m, out_dir, redirect, texture_note, NULL);
}

/* The .md5anim written beside OUT for clip i (a new string): clip names may
 * hold characters a file name cannot. */
static char *anim_path(const char *dir, const mr_clip *clip)
{
    char *name = mr_str_fmt("%s.md5anim", clip->name);
    for (char *c = name; c && *c; c++)
        if (*c == '/' || *c == '\\' || *c == ':' || (unsigned char)*c < 32) *c = '_';
    char *path = name ? mr_path_join(dir, name) : NULL;
    free(name);
    return path;
}

/* inputs (n of them, NULL entries skipped) are never overwritten: not by
 * OUT (checked by the caller) and not by an anim written beside it. */
static int write_md5(mr_model *m, const char *out, char *const *inputs, int n)
{
    mr_error err = {0};
    mr_axes md5_frame = {MR_UP_Z, 0.0254f};
    char *dir = mr_path_dirname(out);
    if (!dir) return MR_EXIT_FAILED;
    for (int i = 0; i < m->clip_count; i++) {
        char *path = anim_path(dir, m->clips[i]);
        for (int k = 0; path && k < n; k++)
            if (inputs[k] && mr_file_same(inputs[k], path)) {
                int code = mr_cli_usage_error("convert", "clip '%s' would be written to '%s', which is the input "
                                              "'%s' (expected OUT in another folder)", m->clips[i]->name, path,
                                              inputs[k]);
                free(path);
                free(dir);
                return code;
            }
        free(path);
    }
    if (mr_axes_convert_model(m, md5_frame, &err) != MR_OK ||
        mr_md5_write_mesh(m, out, &err) != MR_OK) {   /* checks the clips too: nothing half-written */
        fprintf(stderr, "marrow convert: %s\n", err.msg);
        free(dir);
        return err.status == MR_ERR_BAD_FILE ? MR_EXIT_BAD_INPUT : MR_EXIT_FAILED;
    }
    printf("wrote %s\n", out);
    int code = MR_EXIT_OK;
    copy_textures(m, dir, 0);
    for (int i = 0; code == MR_EXIT_OK && i < m->clip_count; i++) {
        char *path = anim_path(dir, m->clips[i]);
        if (!path || mr_md5_write_anim(m, m->clips[i], path, &err) != MR_OK) {
            fprintf(stderr, "marrow convert: %s\n", path ? err.msg : "out of memory");
            code = MR_EXIT_FAILED;
        } else {
            printf("wrote %s (clip %s)\n", path, m->clips[i]->name);
        }
        free(path);
    }
    free(dir);
    return code;
}

static int convert(int argc, char **argv, const char *retarget, int feet, char *const *maps, int map_count,
                   int mirror);

/* glTF is Y-up metres: the model is converted to that frame first. */
/* glTF, COLLADA and MD5 skin linearly: a mesh its file skins with dual
 * quaternions (FBX SkinningType) is written with its linear weights. */
static void warn_skinning(const mr_model *m, const char *out)
{
    for (int i = 0; i < m->mesh_count; i++)
        if (m->meshes[i].skinning == MR_SKINNING_DUAL_QUATERNION && m->meshes[i].joints) {
            fprintf(stderr, "marrow convert: warning: %s: mesh '%s' is skinned with dual quaternions%s in %s; the output "
                    "format holds linear skinning only: written with linear skinning\n", out,
                    m->meshes[i].name ? m->meshes[i].name : "", m->meshes[i].dq_blend ? " (blended per vertex)" : "",
                    m->path);
            return;
        }
}

/* Every writer's format composes a joint with its parent's whole transform:
 * joints that undo their parent's scale (skeleton.h "Inherit modes", FBX
 * Rrs/RrSs under a non-uniformly scaled parent) are written with their
 * locals as they are, which a reader composes plainly (sheared by that
 * scale where marrow's pose is not). */
static void warn_inherit(const mr_model *m, const char *out)
{
    const mr_skeleton *sk = &m->skeleton;
    int count = 0, first = -1;
    for (int j = 0; sk->scale_comp && j < sk->joint_count; j++)
        if (sk->scale_comp[j] && !count++) first = j;
    if (count)
        fprintf(stderr, "marrow convert: warning: %s: %d joints (first '%s') of %s do not inherit their parent's scale "
                "(FBX InheritType Rrs/RrSs); the output format composes every joint with its parent's full transform: "
                "written with their own locals, so they differ where a parent's scale is not uniform\n", out, count,
                sk->names[first], m->path);
}

static int write_gltf(mr_model *m, const char *out)
{
    mr_error err = {0};
    mr_axes gltf_frame = {MR_UP_Y, 1.0f};
    if (mr_axes_convert_model(m, gltf_frame, &err) != MR_OK || mr_gltf_write(m, out, &err) != MR_OK) {
        fprintf(stderr, "marrow convert: %s\n", err.msg);
        return err.status == MR_ERR_BAD_FILE ? MR_EXIT_BAD_INPUT : MR_EXIT_FAILED;
    }
    printf("wrote %s (%d joints, %d meshes, %d clips)\n", out, m->skeleton.joint_count, m->mesh_count, m->clip_count);
    return MR_EXIT_OK;
}

int mr_cmd_convert(int argc, char **argv)
{
    if (mr_cli_wants_help(argc, argv)) {
        fputs(convert_help, stdout);
        return MR_EXIT_OK;
    }
    /* --retarget TARGET, --feet, --map S=T and --mirror may stand anywhere; the rest is positional. */
    const char *retarget = NULL;
    int feet = 0, mirror = 0, n = 0, map_count = 0;
    char **pos = calloc((size_t)argc + 1, sizeof *pos), **maps = calloc((size_t)argc + 1, sizeof *maps);
    if (!pos || !maps) {
        free(pos);
        free(maps);
        return MR_EXIT_FAILED;
    }
    for (int i = 0; i < argc; i++) {
        if (i > 0 && !strcmp(argv[i], "--retarget")) {
            if (i + 1 >= argc) {
                free(pos);
                free(maps);
                return mr_cli_usage_error("convert", "--retarget needs a TARGET model");
            }
            retarget = argv[++i];
        } else if (i > 0 && !strcmp(argv[i], "--map")) {
            if (i + 1 >= argc) {
                free(pos);
                free(maps);
                return mr_cli_usage_error("convert", "--map needs SOURCE_JOINT=TARGET_JOINT");
            }
            maps[map_count++] = argv[++i];
        } else if (i > 0 && !strcmp(argv[i], "--feet")) {
            feet = 1;
        } else if (i > 0 && !strcmp(argv[i], "--mirror")) {
            mirror = 1;
        } else {
            pos[n++] = argv[i];
        }
    }
    int code = convert(n, pos, retarget, feet, maps, map_count, mirror);
    free(pos);
    free(maps);
    return code;
}

static int convert(int argc, char **argv, const char *retarget, int feet, char *const *maps, int map_count,
                   int mirror)
{
    if (feet && !retarget) return mr_cli_usage_error("convert", "--feet goes with --retarget");
    if (map_count && !retarget) return mr_cli_usage_error("convert", "--map goes with --retarget");
    if (argc < 3) return mr_cli_usage_error("convert", "expected IN [ANIM...] OUT");
    for (int i = 1; i < argc; i++)
        if (argv[i][0] == '-' && argv[i][1])
            return mr_cli_usage_error("convert", "unknown option '%s'", argv[i]);
    const char *in = argv[1], *out = argv[argc - 1];
    char in_ext[16], out_ext[16];
    mr_path_ext(in, in_ext, sizeof in_ext);
    mr_path_ext(out, out_ext, sizeof out_ext);
    int to_dae = !strcmp(out_ext, "dae"), to_md5 = !strcmp(out_ext, "md5mesh");
    int to_gltf = !strcmp(out_ext, "gltf") || !strcmp(out_ext, "glb"), to_bvh = !strcmp(out_ext, "bvh");
    if (!to_dae && !to_md5 && !to_gltf && !to_bvh)
        return mr_cli_usage_error("convert", "OUT must end in .dae, .md5mesh, .gltf, .glb or .bvh, got '%s'", out);
    /* OUT is never one of the inputs, however spelled (a link, "./", "a/../") */
    for (int i = 1; i < argc; i++) {
        const char *src = i < argc - 1 ? argv[i] : retarget;
        if (src && mr_file_same(src, out))
            return mr_cli_usage_error("convert", "OUT '%s' is the input '%s' (expected a new file; converting "
                                      "would overwrite the source)", out, src);
    }
    int code;
    mr_model *m = mr_cli_load_model(in, (const char *const *)argv + 2, argc - 3, &code);
    if (m && retarget) m = retarget_into(m, retarget, feet, maps, map_count, &code);
    if (!m) return code;
    if (mirror) {
        if (m->clip_count == 0) {
            mr_model_destroy(m);
            return mr_cli_usage_error("convert", "--mirror: '%s' has no clip to mirror (give an ANIM)", in);
        }
        code = mirror_clips(m);
        if (code) {
            mr_model_destroy(m);
            return code;
        }
    }
    /* OUT's folder is made as `view --out` makes its own. */
    char *out_dir = mr_path_dirname(out);
    mr_error derr = {0};
    if (!out_dir || mr_file_mkdirs(out_dir, &derr) != MR_OK) {
        fprintf(stderr, "marrow convert: %s\n", out_dir ? derr.msg : "out of memory");
        free(out_dir);
        mr_model_destroy(m);
        return MR_EXIT_FAILED;
    }
    free(out_dir);
    if (!to_bvh) warn_skinning(m, out);
    warn_inherit(m, out);
    if (to_bvh) {
        mr_error err = {0};
        if (m->clip_count != 1) {
            fprintf(stderr, "marrow convert: %s: a .bvh holds exactly one clip; the input has %d (give one ANIM, "
                    "or write .glb for several)\n", out, m->clip_count);
            code = MR_EXIT_USAGE;
        } else if (mr_save_model(m, (const mr_clip *const *)m->clips, 1, out, NULL, &err) != MR_OK) {
            fprintf(stderr, "marrow convert: %s\n", err.msg);
            code = err.status == MR_ERR_BAD_FILE || err.status == MR_ERR_INVALID_ARGUMENT ? MR_EXIT_BAD_INPUT
                                                                                      : MR_EXIT_FAILED;
        } else {
            printf("wrote %s (%d joints, clip %s)\n", out, m->skeleton.joint_count, m->clips[0]->name);
        }
    } else if (to_dae) {
        mr_error err = {0};
        char *dir = mr_path_dirname(out);
        if (mr_write_check_model(m, out, &err) == MR_OK && dir) copy_textures(m, dir, 1);   /* not for a refusal */
        free(dir);
        if (err.status != MR_OK || mr_collada_write(m, out, &err) != MR_OK) {
            fprintf(stderr, "marrow convert: %s\n", err.msg);
            code = err.status == MR_ERR_BAD_FILE ? MR_EXIT_BAD_INPUT : MR_EXIT_FAILED;
        } else {
            printf("wrote %s (%d joints, %d meshes, %d clips)\n", out, m->skeleton.joint_count,
                   m->mesh_count, m->clip_count);
        }
    } else if (to_gltf) {
        code = write_gltf(m, out);
    } else {
        argv[argc - 1] = (char *)retarget;   /* the inputs: IN, ANIMs, TARGET */
        code = write_md5(m, out, argv + 1, argc - 1);
    }
    mr_model_destroy(m);
    return code;
}
