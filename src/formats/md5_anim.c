/* md5_anim.c — the .md5anim reader: one clip per file.
 *
 * A joint's flags say which of its six components (Tx Ty Tz Qx Qy Qz, bits
 * 1..32) each frame animates, read in that order from startIndex on; the
 * others come from the baseframe. Frame values are local (parent-relative),
 * so they map onto local translation and rotation tracks directly: keys at
 * i / frameRate, linear. A channel group with no animated bit gets a single
 * key holding the baseframe value (which may differ from the mesh's bind).
 *
 * The hierarchy must match the model's skeleton joint for joint (names and
 * parents); the first difference is the error. Components of different
 * joints may not overlap, which bounds the tracks' size by the file's.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/file.h"
#include "core/path.h"
#include "formats/md5.h"
#include "formats/md5_lex.h"

/* Smallest bytes per frame ("frame i{}": the bounds entry may be missing)
 * and per joint (hierarchy line + baseframe entry) in a valid file. */
enum { MIN_FRAME = 9, MIN_JOINT = 20 };

typedef struct anim_joint {
    int flags;           /* animated components, bits 1..32 = Tx Ty Tz Qx Qy Qz */
    int start;           /* first component in each frame */
    float base[6];       /* baseframe Tx Ty Tz Qx Qy Qz */
} anim_joint;

typedef struct anim_reader {
    md5_lex lx;
    const mr_skeleton *sk;
    int frames, joints, components;
    float rate;
    int rate_line;
    anim_joint *aj;      /* joints entries */
    int *owner;          /* components entries: joint using the component, or -1 */
    float *values;       /* one frame's components */
    float *times;        /* frames key times */
    mr_clip *clip;
    int trailing_line;   /* line of text found after the last frame, or 0 */
    int bounds;          /* bounds entries read (numFrames in a tidy file) */
    int bounds_extra_line;  /* line of the first entry beyond numFrames, or 0 */
    int bounds_end_line; /* line of the bounds block's '}' */
} anim_reader;

static int out_of_memory(anim_reader *r)
{
    return md5_out_of_memory(&r->lx);
}

static int popcount6(int flags)
{
    int n = 0;
    for (int b = 0; b < 6; b++) n += (flags >> b) & 1;
    return n;
}

static int read_vec3(md5_lex *lx, float v[3], const char *what)
{
    if (md5_punct(lx, '(', what)) return -1;
    for (int k = 0; k < 3; k++)
        if (md5_float(lx, &v[k], "a number")) return -1;
    return md5_punct(lx, ')', what);
}

static int read_header(anim_reader *r)
{
    md5_lex *lx = &r->lx;
    if (md5_header(lx)) return -1;
    if (md5_word(lx, "numFrames", "after the version")) return -1;
    if (md5_int(lx, &r->frames, "a frame count")) return -1;
    if (r->frames < 1) return md5_fail(lx, "numFrames of 1 or more");
    if ((size_t)r->frames > md5_left(lx) / MIN_FRAME)
        return md5_fail(lx, "numFrames that fits the file (at most %zu in the %zu bytes left)",
                        md5_left(lx) / MIN_FRAME, md5_left(lx));
    if (md5_word(lx, "numJoints", "after numFrames")) return -1;
    if (md5_int(lx, &r->joints, "a joint count")) return -1;
    if (r->joints < 1 || r->joints > MR_MAX_JOINTS)
        return md5_fail(lx, "numJoints from 1 to %d", MR_MAX_JOINTS);
    if ((size_t)r->joints > md5_left(lx) / MIN_JOINT)
        return md5_fail(lx, "numJoints that fits the file (at most %zu in the %zu bytes left)",
                        md5_left(lx) / MIN_JOINT, md5_left(lx));
    if (md5_word(lx, "frameRate", "after numJoints")) return -1;
    if (md5_float(lx, &r->rate, "a number (frames per second)")) return -1;
    r->rate_line = lx->tok_line;
    if (!(r->rate > 0) || !(r->rate <= 1.0 / MR_CLIP_MIN_KEY_INTERVAL))
        return md5_fail(lx, "a frameRate above 0 and at most %g (frames at least %g s apart)",
                        1.0 / MR_CLIP_MIN_KEY_INTERVAL, MR_CLIP_MIN_KEY_INTERVAL);
    if (md5_word(lx, "numAnimatedComponents", "after frameRate")) return -1;
    if (md5_int(lx, &r->components, "a component count")) return -1;
    if (r->components < 0) return md5_fail(lx, "numAnimatedComponents of 0 or more");
    /* Every frame holds that many numbers of at least 2 bytes each. */
    if ((uint64_t)r->components * (uint64_t)r->frames > md5_left(lx) / 2)
        return md5_fail(lx, "numAnimatedComponents that fits the file (%d frames of %d numbers, "
                            "%zu bytes left)", r->frames, r->components, md5_left(lx));
    return 0;
}

static int read_hierarchy(anim_reader *r)
{
    md5_lex *lx = &r->lx;
    const mr_skeleton *sk = r->sk;
    r->aj = mr_alloc_array((size_t)r->joints, sizeof *r->aj);
    r->owner = mr_alloc_array((size_t)r->components, sizeof *r->owner);
    if (!r->aj || !r->owner) return out_of_memory(r);
    for (int c = 0; c < r->components; c++) r->owner[c] = -1;
    if (md5_word(lx, "hierarchy", "after the header")) return -1;
    if (md5_punct(lx, '{', "after 'hierarchy'")) return -1;
    for (int i = 0; i < r->joints; i++) {
        anim_joint *j = &r->aj[i];
        if (md5_peek_char(lx) != '"')
            return md5_fail_next(lx, "a joint name in quotes (joint %d of %d, numJoints)", i,
                                 r->joints);
        const char *s;
        size_t n;
        int parent;
        if (md5_string(lx, &s, &n, "a joint name in quotes")) return -1;
        if (i >= sk->joint_count)
            return md5_fail(lx, "no joint beyond the model's %d (the hierarchy differs from the "
                                "skeleton)", sk->joint_count);
        if (strlen(sk->names[i]) != n || memcmp(sk->names[i], s, n) != 0)
            return md5_fail(lx, "joint '%s' (joint %d of the model's skeleton)", sk->names[i], i);
        if (md5_int(lx, &parent, "a parent joint index")) return -1;
        if (parent != sk->parents[i])
            return md5_fail(lx, "parent %d for joint '%s' (as in the model's skeleton)",
                            sk->parents[i], sk->names[i]);
        if (md5_int(lx, &j->flags, "joint flags")) return -1;
        if (j->flags < 0 || j->flags > 63) return md5_fail(lx, "joint flags from 0 to 63");
        if (md5_int(lx, &j->start, "a startIndex")) return -1;
        int used = popcount6(j->flags);
        if (j->start < 0 || (long long)j->start + used > r->components)
            return md5_fail(lx, "a startIndex from 0 to %d (%d components from it within "
                                "numAnimatedComponents %d)",
                            r->components - used, used, r->components);
        for (int c = j->start; c < j->start + used; c++) {
            if (r->owner[c] >= 0)
                return md5_fail(lx, "a startIndex whose components no other joint uses "
                                    "(component %d is joint '%s''s)",
                                c, sk->names[r->owner[c]]);
            r->owner[c] = i;
        }
    }
    if (r->joints < sk->joint_count)
        return md5_fail_next(lx, "joint '%s' (joint %d of the model's %d; numJoints is %d)",
                             sk->names[r->joints], r->joints, sk->joint_count, r->joints);
    return md5_punct(lx, '}', "after the hierarchy (numJoints)");
}

/* Bounds entries are read and dropped: nothing in marrow uses them (the
 * viewer and the writer compute their own from the skinned mesh). Real
 * exporters write one more than numFrames (a Blender exporter for
 * Sauerbraten models) or fewer; since the block ends at its '}' and every
 * entry is two triples, any number of them is unambiguous and accepted
 * (the reader remembers where, for the warning). Anything else inside the
 * block is an error. */
static int read_bounds_and_base(anim_reader *r)
{
    md5_lex *lx = &r->lx;
    float v[3];
    if (md5_word(lx, "bounds", "after the hierarchy")) return -1;
    if (md5_punct(lx, '{', "after 'bounds'")) return -1;
    for (int f = 0;; f++) {
        int c = md5_peek_char(lx);
        if (c == '}') break;
        if (c != '(') {
            if (f < r->frames)
                return md5_fail_next(lx, "'(' (bounds of frame %d of %d, numFrames)", f, r->frames);
            return md5_fail_next(lx, "'}' after the bounds (numFrames %d, %d entries read)", r->frames, f);
        }
        if (f == r->frames) r->bounds_extra_line = lx->line;
        if (read_vec3(lx, v, "around the bounds minimum") ||
            read_vec3(lx, v, "around the bounds maximum"))
            return -1;
        r->bounds = f + 1;
    }
    if (md5_punct(lx, '}', "after the bounds (numFrames)")) return -1;
    r->bounds_end_line = lx->tok_line;
    if (md5_word(lx, "baseframe", "after the bounds")) return -1;
    if (md5_punct(lx, '{', "after 'baseframe'")) return -1;
    for (int i = 0; i < r->joints; i++) {
        anim_joint *j = &r->aj[i];
        if (md5_peek_char(lx) != '(')
            return md5_fail_next(lx, "'(' (baseframe of joint %d of %d, numJoints)", i, r->joints);
        if (read_vec3(lx, j->base, "around the base position") ||
            read_vec3(lx, j->base + 3, "around the base rotation"))
            return -1;
        float q[4];
        if (md5_quat_from_xyz(j->base + 3, q) > MD5_QUAT_SLACK) {
            char found[128];
            snprintf(found, sizeof found, "'( %g %g %g )'", j->base[3], j->base[4], j->base[5]);
            return md5_fail_at(lx, lx->tok_line, found,
                               "a unit quaternion for joint '%s' (x, y, z of length at most 1)",
                               r->sk->names[i]);
        }
    }
    return md5_punct(lx, '}', "after the baseframe (numJoints)");
}

/* Allocates every track: frames keys for animated groups, one otherwise. */
static int make_tracks(anim_reader *r, const char *clip_name)
{
    mr_clip_create(clip_name, r->joints, &r->clip);
    r->times = mr_alloc_array((size_t)r->frames, sizeof *r->times);
    r->values = mr_alloc_array((size_t)r->components, sizeof *r->values);
    if (!r->clip || !r->times || !r->values) return out_of_memory(r);
    for (int f = 0; f < r->frames; f++) {
        r->times[f] = (float)((double)f / r->rate);
        if (!isfinite(r->times[f]) || (f > 0 && !(r->times[f] > r->times[f - 1]))) {
            char found[64];
            snprintf(found, sizeof found, "'%g'", r->rate);
            return md5_fail_at(&r->lx, r->rate_line, found,
                               "a frameRate that gives %d distinct frame times", r->frames);
        }
    }
    r->clip->rate = r->rate;
    r->clip->duration = r->times[r->frames - 1];
    for (int i = 0; i < r->joints; i++) {
        const anim_joint *j = &r->aj[i];
        mr_track *t = &r->clip->tracks[i].t, *q = &r->clip->tracks[i].r;
        int nt = (j->flags & 7) ? r->frames : 1, nq = (j->flags & 56) ? r->frames : 1;
        if (mr_track_init(t, nt, MR_INTERP_LINEAR) != MR_OK ||
            mr_track_init(q, nq, MR_INTERP_LINEAR) != MR_OK)
            return out_of_memory(r);
        memcpy(t->times, r->times, (size_t)nt * sizeof *t->times);
        memcpy(q->times, r->times, (size_t)nq * sizeof *q->times);
        memcpy(t->values, j->base, 3 * sizeof *t->values);
        md5_quat_from_xyz(j->base + 3, q->values);
    }
    return 0;
}

/* Stores frame f's components into the animated tracks. */
static int store_frame(anim_reader *r, int f, int line)
{
    for (int i = 0; i < r->joints; i++) {
        const anim_joint *j = &r->aj[i];
        if (!j->flags) continue;
        float c[6];
        memcpy(c, j->base, sizeof c);
        int k = j->start;
        for (int b = 0; b < 6; b++)
            if (j->flags & (1 << b)) c[b] = r->values[k++];
        mr_joint_tracks *jt = &r->clip->tracks[i];
        if (j->flags & 7) memcpy(jt->t.values + 3 * (size_t)f, c, 3 * sizeof *c);
        if (j->flags & 56) {
            if (md5_quat_from_xyz(c + 3, jt->r.values + 4 * (size_t)f) > MD5_QUAT_SLACK) {
                char found[128];
                snprintf(found, sizeof found, "'( %g %g %g )'", c[3], c[4], c[5]);
                return md5_fail_at(&r->lx, line, found,
                                   "a unit quaternion for joint '%s' in frame %d (x, y, z of length at most 1)",
                                   r->sk->names[i], f);
            }
        }
    }
    return 0;
}

static int read_frames(anim_reader *r)
{
    md5_lex *lx = &r->lx;
    for (int f = 0; f < r->frames; f++) {
        int idx;
        if (!md5_accept(lx, "frame"))
            return md5_fail_next(lx, "'frame' (frame %d of %d, numFrames)", f, r->frames);
        int line = lx->tok_line;
        if (md5_int(lx, &idx, "a frame index")) return -1;
        if (idx != f) return md5_fail(lx, "frame index %d (frames are numbered in order)", f);
        if (md5_punct(lx, '{', "after the frame index")) return -1;
        for (int c = 0; c < r->components; c++) {
            if (md5_peek_char(lx) == '}')
                return md5_fail_next(lx, "number %d of %d (numAnimatedComponents) in frame %d", c + 1,
                                     r->components, f);
            if (md5_float(lx, &r->values[c], "a number")) return -1;
        }
        if (md5_peek_char(lx) != '}')
            return md5_fail_next(lx, "'}' after %d numbers (numAnimatedComponents) in frame %d",
                                 r->components, f);
        if (md5_punct(lx, '}', NULL)) return -1;
        if (store_frame(r, f, line)) return -1;
    }
    /* More frames than numFrames is an error; other text after the last
     * frame (real exporters leave fragments of older files) is ignored with
     * a warning. */
    if (md5_peek_word(lx, "frame"))
        return md5_fail_next(lx, "end of file after %d frames (numFrames)", r->frames);
    if (!md5_at_end(lx)) {
        if (lx->failed) return -1;
        r->trailing_line = lx->line;
    }
    return 0;
}

mr_status mr_md5_parse_anim(mr_model *model, const char *name, const char *clip_name,
                            const char *text, size_t len, mr_error *err)
{
    if (!model || !name || !text)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "md5: no model, file name or text");
    anim_reader r;
    memset(&r, 0, sizeof r);
    md5_lex_init(&r.lx, name, text, len, err);
    r.sk = &model->skeleton;
    char *stem = clip_name ? NULL : mr_path_stem(name);
    if (!clip_name && !stem) return mr_error_set(err, MR_ERR_NO_MEMORY, "md5: %s: out of memory", name);
    int failed = read_header(&r) || read_hierarchy(&r) || read_bounds_and_base(&r) ||
                 make_tracks(&r, clip_name ? clip_name : stem) || read_frames(&r);
    mr_status status = r.lx.no_memory ? MR_ERR_NO_MEMORY : MR_ERR_BAD_FILE;
    if (!failed) {
        for (int i = 0; i < r.joints; i++) {
            mr_track_finish(&r.clip->tracks[i].t);
            mr_track_finish(&r.clip->tracks[i].r);
        }
        mr_error verr;
        if (mr_clip_validate(r.clip, &verr) != MR_OK) {
            mr_error_set(err, MR_ERR_BAD_FILE, "md5: %s:%d: expected a valid clip, found %s", name,
                         r.rate_line, verr.msg);
            failed = 1;
        } else if (mr_model_add_clip(model, r.clip) != MR_OK) {
            mr_error_set(err, MR_ERR_NO_MEMORY, "md5: %s: out of memory", name);
            status = MR_ERR_NO_MEMORY;
            failed = 1;
        } else {
            if (r.bounds != r.frames)
                mr_model_warn(model, "%s:%d: the bounds block holds %d entr%s for numFrames %d: "
                              "the %s %d %s (marrow does not use bounds)",
                              name, r.bounds > r.frames ? r.bounds_extra_line : r.bounds_end_line,
                              r.bounds, r.bounds == 1 ? "y" : "ies", r.frames,
                              r.bounds > r.frames ? "extra" : "missing", abs(r.bounds - r.frames),
                              r.bounds > r.frames ? "ignored" : "not needed");
            if (r.trailing_line)
                mr_model_warn(model, "%s:%d: text after the last frame (numFrames %d) was ignored",
                              name, r.trailing_line, r.frames);
            r.clip = NULL;   /* the model owns it now */
        }
    }
    mr_clip_destroy(r.clip);
    free(stem);
    free(r.aj);
    free(r.owner);
    free(r.values);
    free(r.times);
    return failed ? status : MR_OK;
}

mr_status mr_md5_load_anim(mr_model *model, const char *path, mr_error *err)
{
    if (!model || !path) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "md5: no model or path");
    size_t len;
    mr_error ferr;
    char *text = mr_file_read(path, &len, &ferr);
    if (!text) return mr_error_set(err, ferr.status, "md5: %s", ferr.msg);
    mr_status st = mr_md5_parse_anim(model, path, NULL, text, len, err);
    free(text);
    return st;
}
