/* pose_golden.c — recording, writing, reading and comparing the poses a
 * shot drew (see pose_golden.h). The reader accepts the JSON this file
 * writes, with any whitespace, key order and unknown keys (skipped). */
#include "testkit/pose_golden.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "anim/morph.h"
#include "core/alloc.h"
#include "core/file.h"
#include "core/path.h"
#include "core/str.h"

/* ---- building ----------------------------------------------------------------------------- */

static void draw_deinit(mr_pose_draw *d)
{
    for (int j = 0; j < d->joint_count; j++) free(d->joints[j].name);
    free(d->joints);
    for (int k = 0; k < d->morph_count; k++) free(d->morph_names[k]);
    free(d->morph_names);
    free(d->morph);
    free(d->model);
    memset(d, 0, sizeof *d);
}

void mr_pose_shot_clear(mr_pose_shot *s)
{
    for (int i = 0; i < s->draw_count; i++) draw_deinit(&s->draws[i]);
    s->draw_count = 0;
}

void mr_pose_shot_deinit(mr_pose_shot *s)
{
    mr_pose_shot_clear(s);
    free(s->draws);
    memset(s, 0, sizeof *s);
}

static mr_pose_draw *new_draw(mr_pose_shot *s)
{
    size_t cap = (size_t)s->draw_cap;
    if (mr_alloc_reserve((void **)&s->draws, &cap, (size_t)s->draw_count + 1, sizeof *s->draws)) return NULL;
    s->draw_cap = (int)cap;
    mr_pose_draw *d = &s->draws[s->draw_count++];
    memset(d, 0, sizeof *d);
    return d;
}

/* Position, rotation (w >= 0) and scale of an affine matrix, rounded the way
 * the file stores them, so a recorded pose compares with its file exactly. */
static void decompose(const mat4 m, float v[10])
{
    vec4 t;
    mat4 r;
    vec3 s;
    glm_decompose((vec4 *)m, t, r, s);
    versor q;
    glm_mat4_quat(r, q);
    glm_quat_normalize(q);
    if (q[3] < 0) glm_vec4_negate(q);
    float all[10] = {t[0], t[1], t[2], q[0], q[1], q[2], q[3], s[0], s[1], s[2]};
    for (int i = 0; i < 10; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%.6g", (double)all[i]);
        v[i] = strtof(buf, NULL);
        if (v[i] == 0) v[i] = 0;   /* no -0 */
    }
}

/* Appends morph weight `name` = w to d unless it has that name. */
static int add_morph(mr_pose_draw *d, const char *name, float w)
{
    for (int k = 0; k < d->morph_count; k++)
        if (!strcmp(d->morph_names[k], name)) return 0;
    char **nn = realloc(d->morph_names, sizeof *nn * ((size_t)d->morph_count + 1));
    if (nn) d->morph_names = nn;
    float *nw = realloc(d->morph, sizeof *nw * ((size_t)d->morph_count + 1));
    if (nw) d->morph = nw;
    char *dup = nn && nw ? mr_str_dup(name) : NULL;
    if (!dup) return -1;
    d->morph_names[d->morph_count] = dup;
    d->morph[d->morph_count++] = w;
    return 0;
}

mr_status mr_pose_shot_add(mr_pose_shot *s, const mr_model *model, const mat4 *joints, mr_error *err)
{
    return mr_pose_shot_add_morph(s, model, joints, NULL, -1, err);
}

mr_status mr_pose_shot_add_morph(mr_pose_shot *s, const mr_model *model, const mat4 *joints, const float *morph,
                                 int morph_count, mr_error *err)
{
    const mr_skeleton *sk = &model->skeleton;
    mr_pose_draw *d = new_draw(s);
    if (!d || !(d->model = mr_str_dup(mr_path_basename(model->path))) ||
        !(d->joints = calloc((size_t)(sk->joint_count ? sk->joint_count : 1), sizeof *d->joints))) {
        if (d) draw_deinit(d), s->draw_count--;
        return mr_error_set(err, MR_ERR_NO_MEMORY, "out of memory recording a pose");
    }
    d->metres_per_unit = model->axes.meters_per_unit;
    for (int j = 0; j < sk->joint_count; j++) {
        mr_pose_joint *pj = &d->joints[d->joint_count];
        if (!(pj->name = mr_str_dup(sk->names[j] ? sk->names[j] : ""))) {
            draw_deinit(d);
            s->draw_count--;
            return mr_error_set(err, MR_ERR_NO_MEMORY, "out of memory recording a pose");
        }
        d->joint_count++;
        mat4 m;
        if (joints) glm_mat4_copy((vec4 *)joints[j], m);
        else glm_mat4_inv(sk->inverse_bind[j], m);
        decompose(m, pj->v);
    }
    for (int i = 0, off = 0; morph_count >= 0 && i < model->mesh_count; i++) {
        const mr_morph_set *set = model->meshes[i].morph;
        for (int k = 0; set && k < set->count; k++) {
            float w = morph && off + k < morph_count ? morph[off + k] : set->weights[k];
            if (add_morph(d, set->targets[k].name, w)) {
                draw_deinit(d);
                s->draw_count--;
                return mr_error_set(err, MR_ERR_NO_MEMORY, "out of memory recording a pose");
            }
        }
        off += set ? set->count : 0;
    }
    /* The same model in the same pose again (a skeleton over its model): listed once. */
    for (int i = 0; i < s->draw_count - 1; i++) {
        const mr_pose_draw *o = &s->draws[i];
        int same = o->joint_count == d->joint_count && !strcmp(o->model, d->model);
        for (int j = 0; same && j < d->joint_count; j++)
            same = !strcmp(o->joints[j].name, d->joints[j].name) &&
                   !memcmp(o->joints[j].v, d->joints[j].v, sizeof d->joints[j].v);
        /* A skeleton draw records no weights: the model's draw gives them. */
        if (same && o->morph_count == 0 && d->morph_count > 0) {
            mr_pose_draw *keep = &s->draws[i];
            keep->morph_count = d->morph_count;
            keep->morph_names = d->morph_names;
            keep->morph = d->morph;
            d->morph_count = 0;
            d->morph_names = NULL;
            d->morph = NULL;
        }
        same = same && (d->morph_count == 0 || (o->morph_count == d->morph_count &&
                                                !memcmp(o->morph, d->morph, sizeof *d->morph * (size_t)d->morph_count)));
        if (same) {
            draw_deinit(d);
            s->draw_count--;
            break;
        }
    }
    return MR_OK;
}

/* ---- writing -------------------------------------------------------------------------------- */

static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void put_number(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.6g", v);
    else fputs("null", f);
}

/* The pose file of s at frame as text (a new buffer, *len bytes), or NULL
 * without memory. */
static char *format_shot(const mr_pose_shot *s, int frame, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f) return NULL;
    fprintf(f, "{\"marrow_pose\": 1, \"frame\": %d, \"draws\": [", frame);
    for (int i = 0; i < s->draw_count; i++) {
        const mr_pose_draw *d = &s->draws[i];
        fputs(i ? ",\n {\"model\": " : "\n {\"model\": ", f);
        put_string(f, d->model);
        fputs(", \"metres_per_unit\": ", f);
        put_number(f, d->metres_per_unit);
        fputs(", \"joints\": {", f);
        for (int j = 0; j < d->joint_count; j++) {
            const float *v = d->joints[j].v;
            fputs(j ? ",\n  " : "\n  ", f);
            put_string(f, d->joints[j].name);
            fputs(": [", f);
            int n = fabsf(v[7] - 1) > 1e-5f || fabsf(v[8] - 1) > 1e-5f || fabsf(v[9] - 1) > 1e-5f ? 10 : 7;
            for (int k = 0; k < n; k++) {
                if (k) fputs(", ", f);
                put_number(f, v[k]);
            }
            fputc(']', f);
        }
        fputs("\n }", f);
        if (d->morph_count) {
            fputs(", \"morph\": {", f);
            for (int k = 0; k < d->morph_count; k++) {
                fputs(k ? ", " : "", f);
                put_string(f, d->morph_names[k]);
                fputs(": ", f);
                put_number(f, d->morph[k]);
            }
            fputc('}', f);
        }
        fputs("}", f);
    }
    fputs("\n]}\n", f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        free(text);
        return NULL;
    }
    return text;
}

mr_status mr_pose_shot_write(const mr_pose_shot *s, int frame, const char *path, mr_error *err)
{
    size_t len = 0;
    char *text = format_shot(s, frame, &len);
    if (!text) return mr_error_set(err, MR_ERR_NO_MEMORY, "cannot write %s: out of memory", path);
    mr_status st = mr_file_write(path, text, len, err);
    free(text);
    return st;
}

mr_status mr_pose_shot_write_at(const mr_pose_shot *s, int frame, int dirfd, const char *name, const char *shown,
                                mr_error *err)
{
    size_t len = 0;
    char *text = format_shot(s, frame, &len);
    if (!text) return mr_error_set(err, MR_ERR_NO_MEMORY, "cannot write %s: out of memory", shown);
    mr_status st = mr_file_write_at(dirfd, name, shown, text, len, err);
    free(text);
    return st;
}

/* ---- reading -------------------------------------------------------------------------------- */

typedef struct reader {
    const char *path, *p, *start;
    mr_error *err;
    int failed;
} reader;

static int line_of(const reader *r)
{
    int line = 1;
    for (const char *q = r->start; q < r->p; q++) line += *q == '\n';
    return line;
}

static int fail(reader *r, const char *what)
{
    if (!r->failed) {
        char found[24];
        int n = 0;
        for (const char *q = r->p; *q && *q != '\n' && n < 16; q++) found[n++] = *q;
        found[n] = '\0';
        mr_error_set(r->err, MR_ERR_BAD_FILE, "%s:%d: expected %s, found '%s'", r->path, line_of(r), what,
                     n ? found : "end of file");
    }
    r->failed = 1;
    return -1;
}

static void skip_ws(reader *r)
{
    while (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r') r->p++;
}

static int expect(reader *r, char c)
{
    skip_ws(r);
    if (*r->p != c) {
        char what[8] = {'\'', c, '\'', 0};
        return fail(r, what);
    }
    r->p++;
    return 0;
}

/* A JSON string into a new buffer (escapes \" \\ \/ \n \t \uXXXX below 0x80). */
static char *get_string(reader *r)
{
    skip_ws(r);
    if (*r->p != '"') return fail(r, "a string"), NULL;
    r->p++;
    size_t cap = 32, n = 0;
    char *s = malloc(cap);
    while (s && *r->p != '"') {
        char c = *r->p;
        if (!c || c == '\n') return free(s), fail(r, "the end of the string"), NULL;
        r->p++;
        if (c == '\\') {
            c = *r->p++;
            if (c == 'n') c = '\n';
            else if (c == 't') c = '\t';
            else if (c == 'u') {
                unsigned v = 0;
                for (int k = 0; k < 4; k++) {
                    char h = *r->p++;
                    int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                                                  : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                    if (d < 0) return free(s), fail(r, "4 hex digits after \\u"), NULL;
                    v = v * 16 + (unsigned)d;
                }
                c = v < 0x80 ? (char)v : '?';
            } else if (c != '"' && c != '\\' && c != '/') {
                r->p--;
                return free(s), fail(r, "an escape (\\\" \\\\ \\n \\t \\u)"), NULL;
            }
        }
        if (n + 2 > cap) {
            char *g = realloc(s, cap *= 2);
            if (!g) free(s);
            s = g;
        }
        if (s) s[n++] = c;
    }
    if (!s) {
        mr_error_set(r->err, MR_ERR_NO_MEMORY, "%s: out of memory", r->path);
        r->failed = 1;
        return NULL;
    }
    r->p++;
    s[n] = '\0';
    return s;
}

static int get_number(reader *r, double *v)
{
    skip_ws(r);
    if (!strncmp(r->p, "null", 4)) {
        r->p += 4;
        *v = NAN;
        return 0;
    }
    char *end;
    *v = strtod(r->p, &end);
    if (end == r->p || !((*r->p >= '0' && *r->p <= '9') || *r->p == '-')) return fail(r, "a number");
    r->p = end;
    return 0;
}

/* Skips one value of any kind (unknown keys), nesting at most 64 deep. */
static int skip_value(reader *r, int depth)
{
    skip_ws(r);
    if (depth > 64) return fail(r, "less nesting");
    char c = *r->p;
    if (c == '"') {
        char *s = get_string(r);
        free(s);
        return s ? 0 : -1;
    }
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        r->p++;
        skip_ws(r);
        if (*r->p == close) return r->p++, 0;
        for (;;) {
            if (c == '{') {
                char *k = get_string(r);
                free(k);
                if (!k || expect(r, ':')) return -1;
            }
            if (skip_value(r, depth + 1)) return -1;
            skip_ws(r);
            if (*r->p == ',') {
                r->p++;
                continue;
            }
            return expect(r, close);
        }
    }
    for (const char *w = "true\0false\0null\0"; *w; w += strlen(w) + 1)
        if (!strncmp(r->p, w, strlen(w))) return r->p += strlen(w), 0;
    double v;
    return get_number(r, &v);
}

/* Calls fn for each key of an object, with the value next in the input. */
static int each_key(reader *r, int (*fn)(reader *, const char *key, void *ud), void *ud)
{
    if (expect(r, '{')) return -1;
    skip_ws(r);
    if (*r->p == '}') return r->p++, 0;
    for (;;) {
        char *k = get_string(r);
        if (!k) return -1;
        int rc = expect(r, ':') ? -1 : fn(r, k, ud);
        free(k);
        if (rc) return -1;
        skip_ws(r);
        if (*r->p == ',') {
            r->p++;
            continue;
        }
        return expect(r, '}');
    }
}

static int joint_key(reader *r, const char *key, void *ud)
{
    mr_pose_draw *d = ud;
    mr_pose_joint *nj = realloc(d->joints, sizeof *d->joints * ((size_t)d->joint_count + 1));
    if (!nj) return fail(r, "less data (out of memory)");
    d->joints = nj;
    mr_pose_joint *j = &d->joints[d->joint_count];
    memset(j, 0, sizeof *j);
    j->v[6] = j->v[7] = j->v[8] = j->v[9] = 1;
    if (!(j->name = mr_str_dup(key))) return fail(r, "less data (out of memory)");
    d->joint_count++;
    if (expect(r, '[')) return -1;
    int n = 0;
    for (;;) {
        double v;
        if (n == 10) return fail(r, "']' after 10 numbers");
        if (get_number(r, &v)) return -1;
        j->v[n++] = (float)v;
        skip_ws(r);
        if (*r->p == ',') {
            r->p++;
            continue;
        }
        if (expect(r, ']')) return -1;
        break;
    }
    if (n != 7 && n != 10) return fail(r, "7 or 10 numbers for a joint (position, rotation[, scale])");
    return 0;
}

static int morph_key(reader *r, const char *key, void *ud)
{
    mr_pose_draw *d = ud;
    double v;
    if (get_number(r, &v)) return -1;
    for (int k = 0; k < d->morph_count; k++)
        if (!strcmp(d->morph_names[k], key)) return fail(r, "each morph target once");
    return add_morph(d, key, (float)v) ? fail(r, "less data (out of memory)") : 0;
}

static int draw_key(reader *r, const char *key, void *ud)
{
    mr_pose_draw *d = ud;
    if (!strcmp(key, "model")) {
        free(d->model);
        return (d->model = get_string(r)) ? 0 : -1;
    }
    if (!strcmp(key, "metres_per_unit")) return get_number(r, &d->metres_per_unit);
    if (!strcmp(key, "joints")) return each_key(r, joint_key, d);
    if (!strcmp(key, "morph")) return each_key(r, morph_key, d);
    return skip_value(r, 1);
}

static int top_key(reader *r, const char *key, void *ud)
{
    mr_pose_shot *s = ud;
    if (strcmp(key, "draws")) return skip_value(r, 1);
    if (expect(r, '[')) return -1;
    skip_ws(r);
    if (*r->p == ']') return r->p++, 0;
    for (;;) {
        mr_pose_draw *d = new_draw(s);
        if (!d) return fail(r, "less data (out of memory)");
        if (each_key(r, draw_key, d)) return -1;
        if (!d->model) return fail(r, "a \"model\" in every draw before this point");
        skip_ws(r);
        if (*r->p == ',') {
            r->p++;
            continue;
        }
        return expect(r, ']');
    }
}

/* Parses text (NUL-terminated, freed here) into s; path names it. */
static mr_status parse_shot(mr_pose_shot *s, char *text, const char *path, mr_error *err)
{
    reader r = {.path = path, .p = text, .start = text, .err = err};
    int rc = each_key(&r, top_key, s);
    if (!rc) {
        skip_ws(&r);
        if (*r.p) rc = fail(&r, "the end of the file");
    }
    free(text);
    if (rc) {
        mr_pose_shot_clear(s);
        return err ? err->status : MR_ERR_BAD_FILE;
    }
    return MR_OK;
}

mr_status mr_pose_shot_read(mr_pose_shot *s, const char *path, mr_error *err)
{
    char *text = mr_file_read(path, NULL, err);
    if (!text) return MR_ERR_IO;
    return parse_shot(s, text, path, err);
}

mr_status mr_pose_shot_read_at(mr_pose_shot *s, int dirfd, const char *name, const char *shown, mr_error *err)
{
    mr_error e = {0};
    char *text = mr_file_read_at(dirfd, name, shown, MR_POSE_FILE_MAX, NULL, &e);
    if (!text) {
        if (err) *err = e;
        return e.status == MR_ERR_IO && errno == ENOENT ? MR_ERR_IO : e.status == MR_ERR_IO ? MR_ERR_BAD_FILE
                                                                                           : e.status;
    }
    return parse_shot(s, text, shown, err);
}

/* ---- comparing ------------------------------------------------------------------------------ */

typedef struct joint_diff {
    int index;
    double moved;            /* model units */
    double turned;           /* degrees */
    double scaled;           /* relative */
} joint_diff;

static int by_moved(const void *a, const void *b)
{
    const joint_diff *x = a, *y = b;
    if (x->moved != y->moved) return x->moved < y->moved ? 1 : -1;
    return x->index - y->index;
}

/* Larger turns first, in steps of 0.01 degree so that equal turns (a chain
 * turned as one) come root-most first. */
static int by_turned(const void *a, const void *b)
{
    const joint_diff *x = a, *y = b;
    double qx = isfinite(x->turned) ? floor(x->turned * 100) : 1e9;
    double qy = isfinite(y->turned) ? floor(y->turned * 100) : 1e9;
    if (qx != qy) return qx < qy ? 1 : -1;
    return x->index - y->index;
}

/* Appends to msg (snprintf-style, never past n). */
static void add(char *msg, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *msg, size_t n, const char *fmt, ...)
{
    size_t len = strlen(msg);
    if (len + 1 >= n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + len, n - len, fmt, ap);
    va_end(ap);
}

static void add_distance(char *msg, size_t n, double units, double mpu)
{
    if (!(mpu > 0)) {
        add(msg, n, "%.3g units", units);
        return;
    }
    double m = units * mpu;
    if (m < 0.01) add(msg, n, "%.1f mm", m * 1000);
    else if (m < 1) add(msg, n, "%.1f cm", m * 100);
    else add(msg, n, "%.2f m", m);
}

static double turn_degrees(const float *a, const float *b)
{
    double dot = 0, na = 0, nb = 0;
    for (int k = 3; k < 7; k++) {
        dot += (double)a[k] * b[k];
        na += (double)a[k] * a[k];
        nb += (double)b[k] * b[k];
    }
    if (!(na > 0 && nb > 0)) return 180;
    dot = fabs(dot) / sqrt(na * nb);
    if (dot > 1) dot = 1;
    return 2 * acos(dot) * 180 / GLM_PI;
}

/* Name of draw i for messages: the model, with its draw number when the
 * model is drawn more than once. */
static void draw_name(const mr_pose_shot *s, int i, char *out, size_t n)
{
    int same = 0, nth = 0;
    for (int k = 0; k < s->draw_count; k++)
        if (!strcmp(s->draws[k].model, s->draws[i].model)) {
            same++;
            if (k <= i) nth++;
        }
    if (same > 1) snprintf(out, n, "%s (draw %d of %d)", s->draws[i].model, nth, same);
    else snprintf(out, n, "%s", s->draws[i].model);
}

/* Compares one draw; returns 1 when it matches, else appends what differs. */
static int compare_draw(const mr_pose_shot *es, const mr_pose_shot *as, int i, const mr_pose_tol *tol,
                        char *msg, size_t n)
{
    const mr_pose_draw *e = &es->draws[i], *a = &as->draws[i];
    char name[300];
    draw_name(as, i, name, sizeof name);
    double mpu = a->metres_per_unit;
    double dist_tol = tol && tol->distance >= 0 ? tol->distance
                      : MR_POSE_DEFAULT_METRES / (mpu > 0 ? mpu : 1);
    double angle_tol = tol && tol->angle >= 0 ? tol->angle : MR_POSE_DEFAULT_ANGLE;
    joint_diff *d = calloc((size_t)(e->joint_count ? e->joint_count : 1), sizeof *d);
    if (!d) {
        add(msg, n, "out of memory comparing the poses of %s", name);
        return 0;
    }
    int count = 0, missing = 0, first_missing = -1, hint = 0;
    for (int j = 0; j < e->joint_count; j++) {
        const mr_pose_joint *ej = &e->joints[j], *aj = NULL;
        if (hint < a->joint_count && !strcmp(a->joints[hint].name, ej->name)) aj = &a->joints[hint];
        for (int k = 0; !aj && k < a->joint_count; k++)
            if (!strcmp(a->joints[k].name, ej->name)) aj = &a->joints[hint = k];
        hint++;
        if (!aj) {
            if (first_missing < 0) first_missing = j;
            missing++;
            continue;
        }
        joint_diff jd = {.index = j};
        double sq = 0;
        for (int k = 0; k < 3; k++) sq += ((double)aj->v[k] - ej->v[k]) * ((double)aj->v[k] - ej->v[k]);
        jd.moved = sqrt(sq);
        jd.turned = turn_degrees(aj->v, ej->v);
        for (int k = 7; k < 10; k++) {
            double rel = fabs((double)aj->v[k] - ej->v[k]) / fmax(fabs((double)ej->v[k]), 1e-6);
            if (rel > jd.scaled) jd.scaled = rel;
        }
        if (isnan(jd.moved)) jd.moved = INFINITY;     /* sorts first, prints as non-finite */
        if (isnan(jd.turned)) jd.turned = INFINITY;
        if (!isfinite(jd.moved) || !isfinite(jd.turned) || !isfinite(jd.scaled) || jd.moved > dist_tol ||
            jd.turned > angle_tol || jd.scaled > MR_POSE_SCALE_TOL)
            d[count++] = jd;
    }
    int extra = a->joint_count - (e->joint_count - missing);
    /* Morph weights by name: the first that differs, or is on one side only. */
    char morph_msg[300] = "";
    for (int k = 0; k < e->morph_count && !morph_msg[0]; k++) {
        int found = -1;
        for (int q = 0; q < a->morph_count && found < 0; q++)
            if (!strcmp(a->morph_names[q], e->morph_names[k])) found = q;
        if (found < 0)
            snprintf(morph_msg, sizeof morph_msg, "morph target '%s' of the golden not drawn", e->morph_names[k]);
        else if (!(fabsf(a->morph[found] - e->morph[k]) <= MR_POSE_MORPH_TOL))
            snprintf(morph_msg, sizeof morph_msg, "morph weight '%s' is %g, %g in the golden", e->morph_names[k],
                     a->morph[found], e->morph[k]);
    }
    if (!morph_msg[0] && a->morph_count > e->morph_count)
        snprintf(morph_msg, sizeof morph_msg, "%d morph weight%s not in the golden", a->morph_count - e->morph_count,
                 a->morph_count - e->morph_count == 1 ? "" : "s");
    if (!count && !missing && !extra && !morph_msg[0]) {
        free(d);
        return 1;
    }
    if (!count && !missing && !extra) {
        add(msg, n, "pose of %s differs: %s", name, morph_msg);
        free(d);
        return 0;
    }
    add(msg, n, "pose of %s differs", name);
    if (count) add(msg, n, " in %d of %d joints:", count, e->joint_count);
    /* The joints that moved most, then those that only turned (the joint a
     * change was made at turns without moving: its children move). */
    qsort(d, (size_t)count, sizeof *d, by_moved);
    int listed = 0;
    for (int k = 0; k < count && listed < 4; k++) {
        if (!(d[k].moved > dist_tol) && isfinite(d[k].moved)) break;
        add(msg, n, "%s %s %s", listed ? "," : "", e->joints[d[k].index].name, listed ? "" : "moved ");
        if (isfinite(d[k].moved)) add_distance(msg, n, d[k].moved, mpu);
        else add(msg, n, "to a non-finite place");
        listed++;
    }
    joint_diff *turned = d + listed;
    int nturned = count - listed;
    qsort(turned, (size_t)nturned, sizeof *d, by_turned);
    int shown = 0;
    for (int k = 0; k < nturned && shown < 2; k++) {
        if (!(turned[k].turned > angle_tol)) continue;
        add(msg, n, "%s %s turned %.1f°", listed + shown ? (shown ? "," : ";") : "", e->joints[turned[k].index].name,
            turned[k].turned);
        shown++;
    }
    for (int k = 0; k < nturned && !shown; k++)
        if (turned[k].scaled > MR_POSE_SCALE_TOL) {
            add(msg, n, "%s %s scaled by %.2f%%", listed ? ";" : "", e->joints[turned[k].index].name,
                100 * turned[k].scaled);
            shown++;
        }
    if (missing)
        add(msg, n, "%s %d joint%s of the golden missing (%s)", count ? ";" : ":", missing, missing == 1 ? "" : "s",
            e->joints[first_missing].name);
    if (extra > 0) add(msg, n, "%s %d joint%s not in the golden", count || missing ? ";" : ":", extra,
                       extra == 1 ? "" : "s");
    if (morph_msg[0]) add(msg, n, "; %s", morph_msg);
    free(d);
    return 0;
}

int mr_pose_shot_compare(const mr_pose_shot *expected, const mr_pose_shot *actual, const mr_pose_tol *tol,
                         char *msg, size_t msg_size)
{
    msg[0] = '\0';
    if (expected->draw_count != actual->draw_count) {
        add(msg, msg_size, "the golden has %d drawn pose%s, this run %d", expected->draw_count,
            expected->draw_count == 1 ? "" : "s", actual->draw_count);
        for (int i = 0; i < actual->draw_count || i < expected->draw_count; i++) {
            const char *e = i < expected->draw_count ? expected->draws[i].model : "-";
            const char *a = i < actual->draw_count ? actual->draws[i].model : "-";
            if (strcmp(e, a)) {
                add(msg, msg_size, " (draw %d: %s in the golden, %s now)", i + 1, e, a);
                break;
            }
        }
        return 0;
    }
    int ok = 1, joints = 0;
    for (int i = 0; i < actual->draw_count; i++) {
        char one[1024] = "";
        joints += actual->draws[i].joint_count;
        if (strcmp(expected->draws[i].model, actual->draws[i].model))
            snprintf(one, sizeof one, "draw %d is %s in the golden, %s now", i + 1, expected->draws[i].model,
                     actual->draws[i].model);
        else if (compare_draw(expected, actual, i, tol, one, sizeof one))
            continue;
        add(msg, msg_size, "%s%s", ok ? "" : "; ", one);
        ok = 0;
    }
    if (ok) snprintf(msg, msg_size, "poses match (%d drawn, %d joints)", actual->draw_count, joints);
    return ok;
}
