/* pose_golden.c — recording, writing, reading and comparing the poses a
 * shot drew (see pose_golden.h). The reader (jansson) accepts the JSON
 * this file writes, with any whitespace, key order and unknown keys
 * (skipped). */
#include "testkit/pose_golden.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

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

/* The JSON is read by jansson (as the glTF reader's messages are): syntax
 * errors name the line and column, the rest the JSON pointer of the value
 * ("/draws/0/joints/hand_l"). Unknown keys are skipped; a key given twice
 * is refused. */
static int bad(mr_error *err, const char *path, const char *where, const char *what, const json_t *found)
{
    static const char *const kinds[] = {"an object", "an array", "a string", "an integer", "a number",
                                        "true", "false", "null"};
    mr_error_set(err, MR_ERR_BAD_FILE, "%s: %s: expected %s, found %s", path, where, what,
                 found ? kinds[json_typeof(found)] : "nothing");
    return -1;
}

/* A number, or null (written for a non-finite value): NAN. */
static int read_number(const json_t *v, double *out)
{
    if (json_is_null(v)) *out = NAN;
    else if (json_is_number(v)) *out = json_number_value(v);
    else return -1;
    return 0;
}

static int read_draw(mr_pose_draw *d, const json_t *o, const char *path, int i, mr_error *err)
{
    char where[320];
    snprintf(where, sizeof where, "/draws/%d", i);
    if (!json_is_object(o)) return bad(err, path, where, "an object", o);
    const json_t *v = json_object_get(o, "model");
    snprintf(where, sizeof where, "/draws/%d/model", i);
    if (!json_is_string(v)) return bad(err, path, where, "a string", v);
    if (!(d->model = mr_str_dup(json_string_value(v)))) return bad(err, path, where, "less data (out of memory)", v);
    if ((v = json_object_get(o, "metres_per_unit")) && read_number(v, &d->metres_per_unit))
        return snprintf(where, sizeof where, "/draws/%d/metres_per_unit", i), bad(err, path, where, "a number", v);
    const json_t *joints = json_object_get(o, "joints");
    snprintf(where, sizeof where, "/draws/%d/joints", i);
    if (joints && !json_is_object(joints)) return bad(err, path, where, "an object", joints);
    const char *key;
    json_t *val;
    size_t n = joints ? json_object_size(joints) : 0;
    if (n && !(d->joints = mr_alloc_array(n, sizeof *d->joints))) return bad(err, path, where, "less data", joints);
    json_object_foreach((json_t *)joints, key, val) {
        snprintf(where, sizeof where, "/draws/%d/joints/%s", i, key);
        mr_pose_joint *j = &d->joints[d->joint_count];
        memset(j, 0, sizeof *j);
        j->v[6] = j->v[7] = j->v[8] = j->v[9] = 1;
        size_t count = json_is_array(val) ? json_array_size(val) : 0;
        if (count != 7 && count != 10)
            return bad(err, path, where, "7 or 10 numbers for a joint (position, rotation[, scale])", val);
        for (size_t k = 0; k < count; k++) {
            double x;
            if (read_number(json_array_get(val, k), &x)) return bad(err, path, where, "numbers", json_array_get(val, k));
            j->v[k] = (float)x;
        }
        if (!(j->name = mr_str_dup(key))) return bad(err, path, where, "less data (out of memory)", val);
        d->joint_count++;
    }
    const json_t *morph = json_object_get(o, "morph");
    snprintf(where, sizeof where, "/draws/%d/morph", i);
    if (morph && !json_is_object(morph)) return bad(err, path, where, "an object", morph);
    json_object_foreach((json_t *)morph, key, val) {
        double w;
        snprintf(where, sizeof where, "/draws/%d/morph/%s", i, key);
        if (read_number(val, &w)) return bad(err, path, where, "a number", val);
        if (add_morph(d, key, (float)w)) return bad(err, path, where, "less data (out of memory)", val);
    }
    return 0;
}

static int read_shot(mr_pose_shot *s, const char *text, const char *path, mr_error *err)
{
    json_error_t je;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        mr_error_set(err, MR_ERR_BAD_FILE, "%s:%d:%d: %s", path, je.line, je.column, je.text);
        return -1;
    }
    int rc = 0;
    const json_t *draws = json_object_get(root, "draws");
    if (!json_is_object(root)) rc = bad(err, path, "/", "an object", root);
    else if (!json_is_array(draws)) rc = bad(err, path, "/draws", "an array", draws);
    for (size_t i = 0; !rc && i < json_array_size(draws); i++) {
        mr_pose_draw *d = new_draw(s);
        if (!d) rc = bad(err, path, "/draws", "less data (out of memory)", draws);
        else rc = read_draw(d, json_array_get(draws, i), path, (int)i, err);
    }
    json_decref(root);
    return rc;
}

/* Parses text (NUL-terminated, freed here) into s; path names it. */
static mr_status parse_shot(mr_pose_shot *s, char *text, const char *path, mr_error *err)
{
    int rc = read_shot(s, text, path, err);
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
