/* bvh.c — the .bvh reader (bvh.h): HIERARCHY into a skeleton, MOTION into
 * one clip.
 *
 * The text is read by a small tokenizer bounded by an end pointer: tokens
 * are the punctuation { } : and runs of other non-space bytes; lines end at
 * LF, CRLF or a lone CR. Frames are line-based: the tokenizer remembers
 * whether a line break came before each token, so a frame line with a
 * number too few or too many is named by its own line.
 *
 * Numbers go through md5_parse_float (md5_lex.h): the same decimal parser
 * as the MD5 readers, equal to strtof, with no locale and no nan/inf.
 */
#include "formats/bvh.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/alloc.h"
#include "core/file.h"
#include "core/path.h"
#include "core/str.h"
#include "formats/md5_lex.h"

/* Channel codes: position X Y Z, rotation X Y Z. */
enum { CH_XPOS, CH_YPOS, CH_ZPOS, CH_XROT, CH_YROT, CH_ZROT, CH_COUNT };
static const char *const channel_names[CH_COUNT] = {
    "Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation",
};

typedef struct bvh_joint {
    char *name;          /* owned */
    int parent;          /* index, -1 for a root */
    float offset[3];
    int channels;        /* 0..6 */
    unsigned char ch[CH_COUNT];  /* channel codes in file order */
    int column;          /* first number of this joint in a frame line */
    int end_site;        /* 1 for an End Site */
    int line;            /* where it was declared */
} bvh_joint;

typedef struct bvh_reader {
    const char *name;    /* file name for messages */
    const char *p, *end; /* next unread byte, one past the last */
    int line;            /* line of p, from 1 */
    const char *tok;     /* last token (tok_len bytes; 0 at end of file) */
    size_t tok_len;
    int tok_line;
    int tok_newline;     /* a line break came before the last token */
    mr_error *err;
    int failed, no_memory;
    bvh_joint *joints;
    int joint_count;
    size_t joint_cap;
    int columns;         /* numbers per frame line: all joints' channels */
    int frames;
    float frame_time;
    int frame_time_line;
    mr_clip *clip;
    int trailing_line;   /* first line after the last frame that holds text, or 0 */
    int trailing_lines;  /* lines with text from there on */
} bvh_reader;

/* ---- tokenizer -------------------------------------------------------- */

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' || c == '\n';
}

static int is_punct(char c)
{
    return c == '{' || c == '}' || c == ':';
}

/* Reads the next token into r->tok; tok_len 0 at the end of the file. */
static void next(bvh_reader *r)
{
    r->tok_newline = 0;
    while (r->p < r->end && is_space(*r->p)) {
        if (*r->p == '\n' || (*r->p == '\r' && (r->p + 1 >= r->end || r->p[1] != '\n'))) {
            r->line++;
            r->tok_newline = 1;
        }
        r->p++;
    }
    r->tok = r->p;
    r->tok_line = r->line;
    if (r->p < r->end && is_punct(*r->p)) r->p++;
    else
        while (r->p < r->end && !is_space(*r->p) && !is_punct(*r->p)) r->p++;
    r->tok_len = (size_t)(r->p - r->tok);
}

static int at_eof(const bvh_reader *r)
{
    return r->tok_len == 0;
}

static int tok_is(const bvh_reader *r, const char *word)
{
    size_t n = strlen(word);
    return r->tok_len == n && strncasecmp(r->tok, word, n) == 0;
}

/* The last token for messages: 'word' (cut at 40 bytes, control bytes as
 * \xNN) or end of file. */
static void describe(const bvh_reader *r, char *buf, size_t size)
{
    if (at_eof(r)) {
        snprintf(buf, size, "end of file");
        return;
    }
    size_t o = 0, n = r->tok_len < 40 ? r->tok_len : 40;
    buf[o++] = '\'';
    for (size_t i = 0; i < n && o + 8 < size; i++) {
        unsigned char b = (unsigned char)r->tok[i];
        if (b >= 0x20 && b < 0x7f) buf[o++] = (char)b;
        else o += (size_t)snprintf(buf + o, size - o, "\\x%02x", b);
    }
    if (n < r->tok_len && o + 5 < size) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o++] = '\'';
    buf[o] = '\0';
}

/* "bvh: FILE:LINE: expected <fmt>, found <last token>" at line; -1. */
static int fail_at(bvh_reader *r, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_at(bvh_reader *r, int line, const char *fmt, ...)
{
    if (r->failed) return -1;
    r->failed = 1;
    char what[512], found[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    describe(r, found, sizeof found);
    mr_error_set(r->err, MR_ERR_BAD_FILE, "bvh: %s:%d: expected %s, found %s", r->name, line, what, found);
    return -1;
}

#define fail(r, ...) fail_at((r), (r)->tok_line, __VA_ARGS__)

static int out_of_memory(bvh_reader *r)
{
    if (r->failed) return -1;
    r->failed = r->no_memory = 1;
    mr_error_set(r->err, MR_ERR_NO_MEMORY, "bvh: %s:%d: out of memory", r->name, r->tok_line);
    return -1;
}

/* Reads the keyword (case ignored); context says where, for the message. */
static int keyword(bvh_reader *r, const char *word, const char *context)
{
    next(r);
    if (tok_is(r, word)) return 0;
    return fail(r, "'%s'%s%s", word, context ? " " : "", context ? context : "");
}

/* The current token as a finite float: 0, or 1 when it is not a number,
 * 2 when it does not fit a float. */
static int tok_number(const bvh_reader *r, float *out)
{
    const char *stop;
    float v;
    if (at_eof(r) || md5_parse_float(r->tok, r->tok + r->tok_len, &v, &stop) != 0 ||
        stop != r->tok + r->tok_len)
        return 1;
    if (!isfinite(v)) return 2;
    *out = v;
    return 0;
}

/* The failure for tok_number's answer `bad` (1 or 2), expecting `what`. */
static int number_failure(bvh_reader *r, int bad, const char *what)
{
    return bad == 1 ? fail(r, "%s", what) : fail(r, "%s that fits a float", what);
}

/* tok_number, failing with `what` (the number expected) when it is not one. */
static int tok_float(bvh_reader *r, float *out, const char *what)
{
    int bad = tok_number(r, out);
    return bad ? number_failure(r, bad, what) : 0;
}

static int read_float(bvh_reader *r, float *out, const char *what)
{
    next(r);
    return tok_float(r, out, what);
}

/* A decimal integer from 0 to INT_MAX. */
static int read_count(bvh_reader *r, int *out, const char *what)
{
    next(r);
    long long v = 0;
    if (at_eof(r)) return fail(r, "%s", what);
    for (size_t i = 0; i < r->tok_len; i++) {
        unsigned d = (unsigned)(r->tok[i] - '0');
        if (d > 9) return fail(r, "%s", what);
        v = v * 10 + d;
        if (v > INT32_MAX) return fail(r, "%s of at most %d", what, INT32_MAX);
    }
    *out = (int)v;
    return 0;
}

/* ---- HIERARCHY -------------------------------------------------------- */

static int find_joint(const bvh_reader *r, const char *name, size_t n)
{
    for (int i = 0; i < r->joint_count; i++)
        if (strlen(r->joints[i].name) == n && memcmp(r->joints[i].name, name, n) == 0) return i;
    return -1;
}

/* Appends a joint named [name, name + n) under parent. */
static int add_joint(bvh_reader *r, const char *name, size_t n, int parent, int line)
{
    if (r->joint_count >= MR_MAX_JOINTS)
        return fail_at(r, line, "at most %d joints (End Sites included)", MR_MAX_JOINTS);
    if (mr_alloc_reserve((void **)&r->joints, &r->joint_cap, (size_t)r->joint_count + 1, sizeof *r->joints))
        return out_of_memory(r);
    bvh_joint *j = &r->joints[r->joint_count];
    memset(j, 0, sizeof *j);
    j->name = mr_str_ndup(name, n);
    if (!j->name) return out_of_memory(r);
    j->parent = parent;
    j->line = line;
    r->joint_count++;
    return 0;
}

static int read_offset(bvh_reader *r, bvh_joint *j, const char *whose)
{
    if (keyword(r, "OFFSET", whose)) return -1;
    for (int k = 0; k < 3; k++)
        if (read_float(r, &j->offset[k], "a number (OFFSET x y z)")) return -1;
    return 0;
}

static int read_channels(bvh_reader *r, bvh_joint *j)
{
    char ctx[300];
    snprintf(ctx, sizeof ctx, "after the OFFSET of joint '%s'", j->name);
    if (keyword(r, "CHANNELS", ctx)) return -1;
    int n;
    if (read_count(r, &n, "a channel count from 0 to 6")) return -1;
    if (n > CH_COUNT) return fail(r, "a channel count from 0 to 6");
    j->channels = n;
    j->column = r->columns;
    int seen = 0;
    for (int c = 0; c < n; c++) {
        next(r);
        int code = -1;
        for (int k = 0; k < CH_COUNT && code < 0; k++)
            if (tok_is(r, channel_names[k])) code = k;
        if (code < 0)
            return fail(r, "channel %d of %d (CHANNELS %d) of joint '%s': Xposition, Yposition, "
                           "Zposition, Xrotation, Yrotation or Zrotation", c + 1, n, n, j->name);
        if (seen & (1 << code))
            return fail(r, "a channel joint '%s' does not have yet (each at most once)", j->name);
        seen |= 1 << code;
        j->ch[c] = (unsigned char)code;
    }
    r->columns += n;
    return 0;
}

/* After ROOT/JOINT: NAME { OFFSET CHANNELS. */
static int read_joint_head(bvh_reader *r, int parent, const char *kind)
{
    next(r);
    int line = r->tok_line;
    if (at_eof(r) || is_punct(r->tok[0]))
        return fail(r, "a joint name after '%s'", kind);
    if (memchr(r->tok, '\0', r->tok_len))
        return fail(r, "a joint name without a NUL byte (it would cut the name short)");
    int other = find_joint(r, r->tok, r->tok_len);
    if (other >= 0)
        return fail(r, "a joint name not used before (line %d has it%s)", r->joints[other].line,
                    r->joints[other].end_site ? " for an End Site" : "");
    if (add_joint(r, r->tok, r->tok_len, parent, line)) return -1;
    bvh_joint *j = &r->joints[r->joint_count - 1];
    char ctx[300];
    snprintf(ctx, sizeof ctx, "after joint name '%s'", j->name);
    if (keyword(r, "{", ctx)) return -1;
    snprintf(ctx, sizeof ctx, "at the start of joint '%s'", j->name);
    if (read_offset(r, j, ctx)) return -1;
    return read_channels(r, j);
}

/* End Site { OFFSET x y z }, after "End": a joint "<parent>_end". */
static int read_end_site(bvh_reader *r, int parent)
{
    int line = r->tok_line;
    if (keyword(r, "Site", "after 'End'")) return -1;
    const char *pname = r->joints[parent].name;
    char *name = mr_str_fmt("%s_end", pname);
    for (int k = 2; name && find_joint(r, name, strlen(name)) >= 0; k++) {
        free(name);
        name = mr_str_fmt("%s_end%d", pname, k);
    }
    if (!name) return out_of_memory(r);
    int st = add_joint(r, name, strlen(name), parent, line);
    free(name);
    if (st) return -1;
    bvh_joint *j = &r->joints[r->joint_count - 1];
    j->end_site = 1;
    char ctx[300];
    snprintf(ctx, sizeof ctx, "after 'End Site' (in joint '%s')", pname);
    if (keyword(r, "{", ctx)) return -1;
    if (read_offset(r, j, "in an End Site")) return -1;
    return keyword(r, "}", "after the End Site's OFFSET");
}

/* HIERARCHY up to and including MOTION. Joints nest with braces; the open
 * ones form a stack (the last open joint is the parent of what follows), so
 * file order is depth-first with parents before children. */
static int read_hierarchy(bvh_reader *r)
{
    if (keyword(r, "HIERARCHY", "at the start of the file")) return -1;
    int open = -1;   /* innermost open joint, -1 at the top level */
    for (;;) {
        next(r);
        if (open < 0) {
            if (tok_is(r, "ROOT")) {
                if (read_joint_head(r, -1, "ROOT")) return -1;
                open = r->joint_count - 1;
            } else if (tok_is(r, "MOTION") && r->joint_count > 0) {
                return 0;
            } else {
                return fail(r, r->joint_count ? "'ROOT' or 'MOTION'" : "'ROOT'");
            }
        } else if (tok_is(r, "JOINT")) {
            if (read_joint_head(r, open, "JOINT")) return -1;
            open = r->joint_count - 1;
        } else if (tok_is(r, "End")) {
            if (read_end_site(r, open)) return -1;
        } else if (tok_is(r, "}")) {
            open = r->joints[open].parent;
        } else {
            const bvh_joint *j = &r->joints[open];
            for (int k = 0; k < CH_COUNT; k++)
                if (tok_is(r, channel_names[k]) && !j->end_site)
                    return fail(r, "'JOINT', 'End Site' or '}' in joint '%s' (its CHANNELS %d names "
                                   "fewer channels than follow it)", j->name, j->channels);
            return fail(r, "'JOINT', 'End Site' or '}' in joint '%s'", j->name);
        }
    }
}

/* ---- MOTION ----------------------------------------------------------- */

/* "Frames: N" and "Frame Time: T", ':' optional. */
static int read_motion_header(bvh_reader *r)
{
    if (keyword(r, "Frames", "after MOTION")) return -1;
    next(r);
    if (!tok_is(r, ":")) r->p = r->tok, r->line = r->tok_line;  /* no ':': read it again */
    if (read_count(r, &r->frames, "a frame count (Frames: N)")) return -1;
    /* Every number of a frame takes at least two bytes (a digit and a
     * separator; the very last may lack the separator): check the count
     * against the bytes left before allocating anything for the frames. */
    size_t left = (size_t)(r->end - r->p);
    if (r->columns > 0 && (uint64_t)r->frames * (uint64_t)r->columns > ((uint64_t)left + 1) / 2)
        return fail(r, "a frame count that fits the file (Frames %d of %d numbers each; %zu bytes left)",
                    r->frames, r->columns, left);
    if (keyword(r, "Frame", "after Frames (Frame Time: T)")) return -1;
    next(r);
    if (!tok_is(r, "Time:") && !tok_is(r, "Time")) return fail(r, "'Time' after 'Frame'");
    next(r);
    if (!tok_is(r, ":")) r->p = r->tok, r->line = r->tok_line;
    if (read_float(r, &r->frame_time, "a number of seconds (Frame Time: T)")) return -1;
    r->frame_time_line = r->tok_line;
    if (!(r->frame_time >= MR_CLIP_MIN_KEY_INTERVAL && r->frame_time <= FLT_MAX))
        return fail(r, "a finite Frame Time of at least %g seconds", MR_CLIP_MIN_KEY_INTERVAL);
    return 0;
}

static void axis_quat(int axis, double degrees, double q[4])
{
    double h = degrees * (3.14159265358979323846 / 360.0);  /* half angle, radians */
    q[0] = q[1] = q[2] = 0;
    q[axis] = sin(h);
    q[3] = cos(h);
}

/* a = a * b (x, y, z, w). */
static void quat_mul(double a[4], const double b[4])
{
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    a[0] = x;
    a[1] = y;
    a[2] = z;
    a[3] = w;
}

/* Allocates the clip: a translation track for joints with position
 * channels, a rotation track for joints with rotation channels, Frames
 * keys each (bounded by the file size, checked above). */
static int make_clip(bvh_reader *r, const char *clip_name)
{
    mr_clip_create(clip_name, r->joint_count, &r->clip);
    if (!r->clip) return out_of_memory(r);
    r->clip->rate = 1.0f / r->frame_time;
    for (int i = 0; i < r->joint_count; i++) {
        const bvh_joint *j = &r->joints[i];
        int pos = 0, rot = 0;
        for (int c = 0; c < j->channels; c++) {
            if (j->ch[c] <= CH_ZPOS) pos = 1;
            else rot = 1;
        }
        mr_joint_tracks *jt = &r->clip->tracks[i];
        if ((pos && mr_track_init(&jt->t, r->frames, MR_INTERP_LINEAR) != MR_OK) ||
            (rot && mr_track_init(&jt->r, r->frames, MR_INTERP_LINEAR) != MR_OK))
            return out_of_memory(r);
    }
    for (int f = 0; f < r->frames; f++) {
        float t = (float)((double)f * r->frame_time);
        if (!isfinite(t) || (f > 0 && !(t > (float)((double)(f - 1) * r->frame_time)))) {
            char ctx[64];
            snprintf(ctx, sizeof ctx, "%g", r->frame_time);
            return fail_at(r, r->frame_time_line, "a Frame Time that gives %d distinct frame times "
                           "(%s s)", r->frames, ctx);
        }
        for (int i = 0; i < r->joint_count; i++) {
            mr_joint_tracks *jt = &r->clip->tracks[i];
            if (jt->t.key_count) jt->t.times[f] = t;
            if (jt->r.key_count) jt->r.times[f] = t;
        }
        if (f == r->frames - 1) r->clip->duration = t;
    }
    return 0;
}

/* Stores one frame line (row: r->columns numbers) as keys f. */
static void store_frame(bvh_reader *r, int f, const float *row)
{
    for (int i = 0; i < r->joint_count; i++) {
        const bvh_joint *j = &r->joints[i];
        if (!j->channels) continue;
        mr_joint_tracks *jt = &r->clip->tracks[i];
        float *t = jt->t.key_count ? jt->t.values + 3 * (size_t)f : NULL;
        if (t) memcpy(t, j->offset, 3 * sizeof *t);
        double q[4] = {0, 0, 0, 1}, a[4];
        for (int c = 0; c < j->channels; c++) {
            float v = row[j->column + c];
            int code = j->ch[c];
            if (code <= CH_ZPOS) {
                t[code] = v;
            } else {
                axis_quat(code - CH_XROT, v, a);
                quat_mul(q, a);
            }
        }
        if (!jt->r.key_count) continue;
        float *out = jt->r.values + 4 * (size_t)f;
        double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (f > 0) {   /* same hemisphere as the previous key */
            const float *prev = out - 4;
            if (q[0] * prev[0] + q[1] * prev[1] + q[2] * prev[2] + q[3] * prev[3] < 0) n = -n;
        }
        for (int k = 0; k < 4; k++) out[k] = (float)(q[k] / n);
    }
}

static int read_frames(bvh_reader *r)
{
    float *row = mr_alloc_array((size_t)r->columns, sizeof *row);
    if (!row) return out_of_memory(r);
    int st = 0, row_line = 0;
    for (int f = 0; f < r->frames && !st; f++) {
        for (int c = 0; c < r->columns; c++) {
            next(r);
            if (c == 0 && !at_eof(r) && !r->tok_newline) {
                if (f == 0) st = fail(r, "the end of line after the Frame Time (frames start on the next line)");
                else st = fail(r, "the end of line after %d numbers (frame %d has one number per channel)",
                               r->columns, f - 1);
                break;
            }
            if (c == 0) row_line = r->tok_line;
            if (at_eof(r) || (c > 0 && r->tok_newline)) {
                if (c == 0) st = fail(r, "frame %d of %d (Frames): %d lines of numbers", f, r->frames, r->frames);
                else st = fail_at(r, row_line, "%d numbers in frame %d of %d (one per channel), the line has %d",
                                  r->columns, f, r->frames, c);
                break;
            }
            int bad = tok_number(r, &row[c]);
            if (bad) {   /* the message only now: formatting it per number cost 40% of a load */
                char what[96];
                snprintf(what, sizeof what, "a number (frame %d, channel %d of %d)", f, c + 1, r->columns);
                st = number_failure(r, bad, what);
                break;
            }
        }
        if (!st) store_frame(r, f, row);
    }
    free(row);
    if (st) return -1;
    next(r);
    if (!at_eof(r)) {
        if (!r->tok_newline)
            return fail(r, "the end of line after %d numbers (frame %d has one number per channel)",
                        r->columns, r->frames - 1);
        /* Real files have more frame lines than Frames says
         * (Boxing_Toes.bvh: one). Frames decides, as in assimp; the rest
         * is counted for the warning. */
        r->trailing_line = r->tok_line;
        r->trailing_lines = 1;
        for (next(r); !at_eof(r); next(r)) r->trailing_lines += r->tok_newline;
    }
    return 0;
}

/* ---- model ------------------------------------------------------------ */

/* The unit guess of bvh.h: the rest pose's Y extent nearest 1.7 m. */
static void guess_unit(mr_model *m)
{
    static const struct { const char *name; float mpu; } units[] = {
        {"metres", 1.0f}, {"centimetres", 0.01f}, {"inches", 0.0254f}, {"millimetres", 0.001f},
        {"CMU units (1/0.45 inch)", MR_BVH_CMU_UNIT},
    };
    const mr_skeleton *sk = &m->skeleton;
    double lo = 0, hi = 0;
    for (int i = 0; i < sk->joint_count; i++) {
        double y = 0;   /* rest rotations are identity: positions add up */
        for (int j = i; j >= 0; j = sk->parents[j]) y += sk->rest_t[j][1];
        if (i == 0 || y < lo) lo = y;
        if (i == 0 || y > hi) hi = y;
    }
    double h = hi - lo;
    int best = 1;
    if (h > 0 && isfinite(h)) {
        double err = INFINITY;
        for (int k = 0; k < (int)(sizeof units / sizeof units[0]); k++) {
            double e = fabs(log(h * units[k].mpu / 1.7));
            if (e < err) err = e, best = k;
        }
        m->axes_note = mr_str_fmt("BVH states no axes or unit: Y-up assumed, numbers kept as written, "
                                  "unit guessed as %s (the rest pose is %.4g units tall, %.2f m in %s; "
                                  "the unit nearest a 1.7 m figure)",
                                  units[best].name, h, h * units[best].mpu, units[best].name);
    } else {
        m->axes_note = mr_str_fmt("BVH states no axes or unit: Y-up assumed, numbers kept as written, "
                                  "unit taken as centimetres (the rest pose has no height to guess from)");
    }
    m->axes.up = MR_UP_Y;
    m->axes.meters_per_unit = units[best].mpu;
}

static int build_model(bvh_reader *r, mr_model *m)
{
    mr_skeleton *sk = &m->skeleton;
    if (mr_skeleton_init(sk, r->joint_count) != MR_OK) return out_of_memory(r);
    for (int i = 0; i < r->joint_count; i++) {
        sk->names[i] = r->joints[i].name;
        r->joints[i].name = NULL;
        sk->parents[i] = r->joints[i].parent;
        memcpy(sk->rest_t[i], r->joints[i].offset, sizeof sk->rest_t[i]);
        /* A root with position channels rests where frame 0 puts it (bvh.h). */
        if (sk->parents[i] < 0 && r->clip && r->clip->tracks[i].t.key_count)
            memcpy(sk->rest_t[i], r->clip->tracks[i].t.values, sizeof sk->rest_t[i]);
    }
    mr_skeleton_compute_inverse_bind(sk);
    mr_error verr;
    if (mr_skeleton_validate(sk, &verr) != MR_OK)
        return fail_at(r, 1, "a valid skeleton (%s)", verr.msg);
    guess_unit(m);
    if (!m->axes_note) return out_of_memory(r);
    return 0;
}

mr_status mr_bvh_parse(const char *name, const char *text, size_t len, mr_model **out, mr_error *err)
{
    if (out) *out = NULL;
    if (!name || !text || !out)
        return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "bvh: no file name, text or output");
    bvh_reader r;
    memset(&r, 0, sizeof r);
    r.name = name;
    r.p = text;
    r.end = text + len;
    r.line = 1;
    r.err = err;
    mr_model *m = NULL;
    mr_model_create(name, "bvh", &m);
    char *stem = mr_path_stem(name);
    if (!m || !stem) {
        out_of_memory(&r);
    } else if (!read_hierarchy(&r) && !read_motion_header(&r)) {
        int clip = r.frames > 0 && r.columns > 0;
        if ((!clip || (!make_clip(&r, stem) && !read_frames(&r))) && !build_model(&r, m)) {
            if (!clip)
                mr_model_warn(m, "%s:%d: no clip: %s", name, r.frame_time_line,
                              r.columns ? "Frames is 0" : "no joint has channels");
            else {
                mr_error verr;
                for (int i = 0; i < r.joint_count; i++) {
                    mr_track_finish(&r.clip->tracks[i].t);
                    mr_track_finish(&r.clip->tracks[i].r);
                }
                if (mr_clip_validate(r.clip, &verr) != MR_OK)
                    fail_at(&r, r.frame_time_line, "a valid clip (%s)", verr.msg);
                else if (mr_model_add_clip(m, r.clip) != MR_OK)
                    out_of_memory(&r);
                else
                    r.clip = NULL;   /* the model owns it */
                if (r.trailing_line)
                    mr_model_warn(m, "%s:%d: %d line%s after the last frame (Frames %d) ignored", name,
                                  r.trailing_line, r.trailing_lines, r.trailing_lines == 1 ? "" : "s",
                                  r.frames);
            }
        }
    }
    for (int i = 0; i < r.joint_count; i++) free(r.joints[i].name);
    free(r.joints);
    free(stem);
    mr_clip_destroy(r.clip);
    if (r.failed) {
        mr_model_destroy(m);
        return r.no_memory ? MR_ERR_NO_MEMORY : MR_ERR_BAD_FILE;
    }
    *out = m;
    return MR_OK;
}

mr_status mr_bvh_load(const char *path, mr_model **out, mr_error *err)
{
    if (out) *out = NULL;
    if (!path || !out) return mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "bvh: no path or output");
    size_t len;
    mr_error ferr;
    char *text = mr_file_read(path, &len, &ferr);
    if (!text) return mr_error_set(err, ferr.status, "bvh: %s", ferr.msg);
    mr_status st = mr_bvh_parse(path, text, len, out, err);
    free(text);
    return st;
}
