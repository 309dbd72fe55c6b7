/* gltf_doc.c — the glTF container: .glb chunks or plain JSON (gltf_json.c),
 * errors with JSON paths, typed member access, buffers, buffer views and
 * the allocation budget (gltf_internal.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <meshoptimizer.h>

#include "core/alloc.h"
#include "core/file.h"
#include "core/path.h"
#include "formats/gltf_internal.h"

mr_status gl_fail_status(gl_doc *d, mr_status status, const char *path, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (char *c = msg; *c; c++)  /* file-supplied text (uris, jansson's "near ...") stays one line */
        if ((unsigned char)*c < 32) *c = '?';
    if (path && *path) return mr_error_set(d->err, status, "gltf: %s: %s: %s", d->name, path, msg);
    return mr_error_set(d->err, status, "gltf: %s: %s", d->name, msg);
}

mr_status gl_fail(gl_doc *d, const char *path, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gl_fail_status(d, MR_ERR_BAD_FILE, path, "%s", msg);
}

mr_status gl_charge(gl_doc *d, const char *path, size_t count, size_t size)
{
    size_t cap = d->budget + GL_BUDGET_FACTOR * d->input_bytes;
    if (size && count > (cap - (d->spent < cap ? d->spent : cap)) / size)
        return gl_fail_status(d, MR_ERR_LIMIT, path,
                              "needs %zu x %zu bytes, more than this file's data can describe "
                              "(limit %d x the input + %zu bytes)", count, size, GL_BUDGET_FACTOR,
                              (size_t)GL_BUDGET_CONST);
    d->spent += count * size;
    return MR_OK;
}

mr_status gl_alloc_raw(gl_doc *d, const char *path, size_t count, size_t size, void *out_ptr)
{
    void **out = out_ptr;
    *out = NULL;
    mr_status st = gl_charge(d, path, count, size);
    if (st != MR_OK) return st;
    size_t bytes = count * size;  /* no overflow: gl_charge kept it under the cap */
    *out = malloc(bytes ? bytes : 1);
    if (!*out) {
        d->spent -= count * size;
        return gl_fail_status(d, MR_ERR_NO_MEMORY, path, "out of memory");
    }
    return MR_OK;
}

mr_status gl_alloc(gl_doc *d, const char *path, size_t count, size_t size, void *out_ptr)
{
    void **out = out_ptr;
    *out = NULL;
    size_t cap = d->budget + GL_BUDGET_FACTOR * d->input_bytes;
    if (size && count > (cap - (d->spent < cap ? d->spent : cap)) / size)
        return gl_fail_status(d, MR_ERR_LIMIT, path,
                              "needs %zu x %zu bytes, more than this file's data can describe "
                              "(limit %d x the input + %zu bytes)", count, size, GL_BUDGET_FACTOR,
                              (size_t)GL_BUDGET_CONST);
    *out = mr_alloc_array(count, size);
    if (!*out) return gl_fail_status(d, MR_ERR_NO_MEMORY, path, "out of memory");
    d->spent += count * size;
    return MR_OK;
}

/* ---- member access ------------------------------------------------------ */

static const char *type_name(const gl_json *v)
{
    switch (v->type) {
    case GL_JSON_OBJECT: return "an object";
    case GL_JSON_ARRAY: return "an array";
    case GL_JSON_STRING: return "a string";
    case GL_JSON_INTEGER: return "an integer";
    case GL_JSON_REAL: return "a number";
    case GL_JSON_TRUE:
    case GL_JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

static gl_json *member(gl_doc *d, gl_json *o, const char *path, const char *key, int required, mr_status *st)
{
    *st = MR_OK;
    gl_json *v = o ? gl_json_get(o, key) : NULL;
    if (!v && required) *st = gl_fail(d, path, "missing required member '%s'", key);
    return v;
}

const char *gl_path(char *buf, size_t cap, const char *prefix, long long i, const char *suffix)
{
    char digits[24];
    int n = 0;
    unsigned long long u = i < 0 ? 0ull - (unsigned long long)i : (unsigned long long)i;
    do digits[n++] = (char)('0' + u % 10);
    while ((u /= 10) > 0);
    if (i < 0) digits[n++] = '-';
    if (!cap) return buf;
    size_t o = strlen(prefix), sl = suffix ? strlen(suffix) : 0;
    if (o > cap - 1) o = cap - 1;
    memmove(buf, prefix, o);
    while (n > 0 && o + 1 < cap) buf[o++] = digits[--n];
    if (sl > cap - 1 - o) sl = cap - 1 - o;
    memcpy(buf + o, suffix ? suffix : "", sl);
    buf[o + sl] = 0;
    return buf;
}

/* Top-level arrays are looked up in the root object once; the few keys
 * the reader asks for are kept in d->tops. */
mr_status gl_top(gl_doc *d, const char *key, gl_json **out, int *count)
{
    *out = NULL;
    *count = 0;
    for (int k = 0; k < d->top_count; k++)
        if (d->tops[k].key == key || (d->tops[k].key[0] == key[0] && !strcmp(d->tops[k].key, key))) {
            *out = d->tops[k].arr;
            *count = d->tops[k].count;
            return MR_OK;
        }
    gl_json *v = gl_json_get(d->root, key);
    if (v && !gl_json_is_array(v)) return gl_fail(d, "", "/%s: expected an array, found %s", key, type_name(v));
    if (v && gl_json_size(v) > (size_t)1 << 24)
        return gl_fail_status(d, MR_ERR_LIMIT, "", "/%s: more than 2^24 entries", key);
    *out = v;
    *count = v ? (int)gl_json_size(v) : 0;
    if (d->top_count < GL_TOP_CACHE) d->tops[d->top_count++] = (gl_top_entry){key, *out, *count};
    return MR_OK;
}

mr_status gl_elem(gl_doc *d, const char *key, int i, const char *from, gl_json **out)
{
    gl_json *arr;
    int n;
    mr_status st = gl_top(d, key, &arr, &n);
    if (st != MR_OK) return st;
    if (i < 0 || i >= n)
        return gl_fail(d, from, "index %d is out of range (/%s has %d entries)", i, key, n);
    gl_json *v = gl_json_at(arr, (size_t)i);
    if (!gl_json_is_object(v)) return gl_fail(d, "", "/%s/%d: expected an object, found %s", key, i, type_name(v));
    *out = v;
    return MR_OK;
}

/* The member key of o when it has JSON type `type` (named `what` in the error). */
static mr_status typed_member(gl_doc *d, gl_json *o, const char *path, const char *key, int required,
                              gl_json_type type, const char *what, gl_json **out)
{
    mr_status st;
    gl_json *v = member(d, o, path, key, required, &st);
    if (!v) return st;
    if (v->type != type) return gl_fail(d, path, "'%s': expected %s, found %s", key, what, type_name(v));
    *out = v;
    return MR_OK;
}

mr_status gl_obj(gl_doc *d, gl_json *o, const char *path, const char *key, int required, gl_json **out)
{
    return typed_member(d, o, path, key, required, GL_JSON_OBJECT, "an object", out);
}

mr_status gl_arr(gl_doc *d, gl_json *o, const char *path, const char *key, int required, gl_json **out)
{
    return typed_member(d, o, path, key, required, GL_JSON_ARRAY, "an array", out);
}

mr_status gl_int(gl_doc *d, gl_json *o, const char *path, const char *key, int required, long long min,
                 long long max, long long *out)
{
    mr_status st;
    gl_json *v = member(d, o, path, key, required, &st);
    if (!v) return st;
    long long x;
    if (gl_json_is_integer(v)) x = gl_json_integer(v);
    else if (gl_json_is_real(v) && gl_json_real(v) == floor(gl_json_real(v)) && fabs(gl_json_real(v)) < 9e15)
        x = (long long)gl_json_real(v);
    else return gl_fail(d, path, "'%s': expected an integer, found %s", key, type_name(v));
    if (x < min || x > max)
        return gl_fail(d, path, "'%s': %lld is out of range (expected %lld..%lld)", key, x, min, max);
    *out = x;
    return MR_OK;
}

mr_status gl_ref(gl_doc *d, gl_json *o, const char *path, const char *key, int required, const char *into,
                 int *out)
{
    long long x = -1;
    mr_status st = gl_int(d, o, path, key, required, 0, INT32_MAX, &x);
    if (st != MR_OK || x < 0) return st;
    gl_json *arr;
    int n;
    if ((st = gl_top(d, into, &arr, &n)) != MR_OK) return st;
    if (x >= n) return gl_fail(d, path, "'%s': index %lld is out of range (/%s has %d entries)", key, x, into, n);
    *out = (int)x;
    return MR_OK;
}

mr_status gl_num(gl_doc *d, gl_json *o, const char *path, const char *key, int required, double *out)
{
    mr_status st;
    gl_json *v = member(d, o, path, key, required, &st);
    if (!v) return st;
    if (!gl_json_is_number(v)) return gl_fail(d, path, "'%s': expected a number, found %s", key, type_name(v));
    *out = gl_json_number(v);
    return MR_OK;
}

mr_status gl_nums(gl_doc *d, gl_json *o, const char *path, const char *key, int required, int n, float *out)
{
    gl_json *a = NULL;
    mr_status st = gl_arr(d, o, path, key, required, &a);
    if (st != MR_OK || !a) return st;
    if (gl_json_size(a) != (size_t)n)
        return gl_fail(d, path, "'%s': expected %d numbers, found %zu", key, n, gl_json_size(a));
    float tmp[16];
    for (int i = 0; i < n; i++) {
        gl_json *v = gl_json_at(a, (size_t)i);
        if (!gl_json_is_number(v))
            return gl_fail(d, path, "'%s'[%d]: expected a number, found %s", key, i, type_name(v));
        double x = gl_json_number(v);
        if (!isfinite(x) || fabs(x) > 3.4e38) return gl_fail(d, path, "'%s'[%d]: not a finite float", key, i);
        tmp[i] = (float)x;
    }
    memcpy(out, tmp, (size_t)n * sizeof *out);
    return MR_OK;
}

mr_status gl_str(gl_doc *d, gl_json *o, const char *path, const char *key, int required, const char **out)
{
    mr_status st;
    gl_json *v = member(d, o, path, key, required, &st);
    if (!v) return st;
    if (!gl_json_is_string(v)) return gl_fail(d, path, "'%s': expected a string, found %s", key, type_name(v));
    *out = gl_json_string(v);
    return MR_OK;
}

/* ---- URIs ----------------------------------------------------------------- */

static int b64_value(int c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
}

mr_status gl_data_uri(gl_doc *d, const char *path, const char *uri, unsigned char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    const char *comma = strchr(uri, ',');
    if (strncmp(uri, "data:", 5) != 0 || !comma)
        return gl_fail(d, path, "'uri': a data: URI without ',' (expected data:<type>;base64,<data>)");
    size_t hl = (size_t)(comma - uri);
    if (hl < 7 || memcmp(comma - 7, ";base64", 7) != 0)
        return gl_fail(d, path, "'uri': data: URI is not base64 (expected ';base64,' before the data)");
    const char *s = comma + 1;
    size_t n = strlen(s);
    while (n > 0 && s[n - 1] == '=') n--;
    unsigned char *buf;
    mr_status st = gl_alloc(d, path, n / 4 * 3 + 3, 1, &buf);
    if (st != MR_OK) return st;
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        int v = b64_value((unsigned char)s[i]);
        if (v < 0) {
            free(buf);
            return gl_fail(d, path, "'uri': data: URI has a character that is not base64 at offset %zu ('%c')",
                           (size_t)(s - uri) + i, s[i] >= 32 && s[i] < 127 ? s[i] : '?');
        }
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            buf[o++] = (unsigned char)(acc >> bits);
        }
    }
    if (n % 4 == 1) {
        free(buf);
        return gl_fail(d, path, "'uri': truncated base64 data (length %zu is not a whole number of bytes)", n);
    }
    *out = buf;
    *len = o;
    return MR_OK;
}

mr_status gl_local_path(gl_doc *d, const char *path, const char *uri, char **out)
{
    *out = NULL;
    size_t o = 0;
    char *dec = mr_path_url_decode(uri, &o);
    if (!dec) return gl_fail_status(d, MR_ERR_NO_MEMORY, path, "out of memory");
    const char *why = NULL;
    if (o == 0) why = "it is empty";
    else if (strlen(dec) != o) why = "it holds a NUL byte";
    else if (dec[0] == '/' || dec[0] == '\\') why = "it is an absolute path";
    else {
        const char *colon = strchr(dec, ':'), *slash = strchr(dec, '/');
        if (colon && (!slash || colon < slash)) why = "it names a scheme or drive (only relative paths are read)";
        for (const char *p = dec; !why && *p;) {
            const char *e = p + strcspn(p, "/\\");
            if (e - p == 2 && p[0] == '.' && p[1] == '.') why = "it climbs out of the model's folder ('..')";
            p = *e ? e + 1 : e;
        }
    }
    if (why) {
        mr_status st = gl_fail(d, path, "'uri': \"%s\" refused: %s", uri, why);
        free(dec);
        return st;
    }
    *out = mr_path_join(d->dir, dec);
    free(dec);
    if (!*out) return gl_fail_status(d, MR_ERR_NO_MEMORY, path, "out of memory");
    return MR_OK;
}

/* ---- buffers and views ---------------------------------------------------- */

static mr_status read_external(gl_doc *d, const char *path, const char *uri, size_t need, gl_buffer *b)
{
    char *file;
    mr_status st = gl_local_path(d, path, uri, &file);
    if (st != MR_OK) return st;
    /* Opened through its real path, inside the model's folder (a link in
     * it to /etc/passwd is refused), a regular file (no FIFO, no device). */
    mr_error ferr = {0};
    size_t size = 0;
    int fd = mr_file_open_inside(d->dir, file, &size, &ferr);
    if (fd < 0) {
        st = gl_fail_status(d, ferr.status == MR_ERR_BAD_FILE ? MR_ERR_BAD_FILE : MR_ERR_IO, path,
                            "'uri': cannot read \"%s\" (%s)", uri, ferr.msg);
        free(file);
        return st;
    }
    if (size < need) {
        close(fd);
        st = gl_fail(d, path, "'byteLength' is %zu but '%s' holds only %zu bytes", need, file, size);
        free(file);
        return st;
    }
    d->input_bytes += need;
    b->owned = mr_alloc_array(need, 1);
    if (!b->owned) {
        close(fd);
        free(file);
        return gl_fail_status(d, MR_ERR_NO_MEMORY, path, "out of memory");
    }
    d->spent += need;
    st = mr_file_read_fd(fd, file, b->owned, need, &ferr);
    close(fd);
    if (st != MR_OK) st = gl_fail_status(d, MR_ERR_IO, path, "'uri': %s", ferr.msg);
    free(file);
    if (st != MR_OK) return st;
    b->data = b->owned;
    return MR_OK;
}

mr_status gl_buffer_get(gl_doc *d, int i, const unsigned char **data, size_t *len)
{
    char path[128];
    gl_path(path, sizeof path, "/buffers/", i, NULL);
    if (i < 0 || i >= d->buffer_count) return gl_fail(d, path, "no such buffer");
    gl_buffer *b = &d->buffers[i];
    if (!b->loaded) {
        gl_json *o;
        mr_status st = gl_elem(d, "buffers", i, path, &o);
        long long bl = 0;
        const char *uri = NULL;
        if (st == MR_OK) st = gl_int(d, o, path, "byteLength", GL_REQUIRED, 1, INT64_MAX / 2, &bl);
        if (st == MR_OK) st = gl_str(d, o, path, "uri", GL_OPTIONAL, &uri);
        if (st != MR_OK) return st;
        gl_json *ext = gl_json_get(gl_json_get(o, "extensions"), "EXT_meshopt_compression");
        if (!uri) {
            if (i == 0 && d->bin) {
                if ((unsigned long long)bl > d->bin_len)
                    return gl_fail(d, path, "'byteLength' is %lld but the GLB BIN chunk holds %zu bytes", bl, d->bin_len);
                b->data = d->bin;
            } else if (ext && gl_json_is_true(gl_json_get(ext, "fallback"))) {
                return gl_fail(d, path, "is an EXT_meshopt_compression fallback buffer without data, but "
                               "a buffer view that is not compressed reads it");
            } else {
                return gl_fail(d, path, "no 'uri' (expected a uri, or the BIN chunk of a .glb for buffer 0)");
            }
        } else if (!strncmp(uri, "data:", 5)) {
            size_t got;
            if ((st = gl_data_uri(d, path, uri, &b->owned, &got)) != MR_OK) return st;
            if (got < (unsigned long long)bl)
                return gl_fail(d, path, "'byteLength' is %lld but its data: URI holds %zu bytes", bl, got);
            b->data = b->owned;
        } else {
            if ((st = read_external(d, path, uri, (size_t)bl, b)) != MR_OK) return st;
        }
        b->len = (size_t)bl;
        b->loaded = 1;
    }
    *data = b->data;
    *len = b->len;
    return MR_OK;
}

/* Bytes [off, off + len) of buffer buf in *out, or an error at path when
 * they are not all inside it. */
static mr_status buffer_range(gl_doc *d, const char *path, int buf, long long off, long long len,
                              const unsigned char **out)
{
    const unsigned char *b;
    size_t blen;
    mr_status st = gl_buffer_get(d, buf, &b, &blen);
    if (st != MR_OK) return st;
    if ((unsigned long long)off > blen || (unsigned long long)len > blen - (size_t)off)
        return gl_fail(d, path, "bytes %lld..%lld are past the end of buffer %d (%zu bytes)", off, off + len, buf,
                       blen);
    *out = b + off;
    return MR_OK;
}

static mr_status meshopt_decode(gl_doc *d, const char *path, gl_json *ext, long long view_len, gl_view *v)
{
    char epath[256];
    snprintf(epath, sizeof epath, "%s/extensions/EXT_meshopt_compression", path);
    int buf = -1;
    long long off = 0, len = 0, stride = 0, count = 0;
    const char *mode = NULL, *filter = "NONE";
    mr_status st = gl_ref(d, ext, epath, "buffer", GL_REQUIRED, "buffers", &buf);
    if (st == MR_OK) st = gl_int(d, ext, epath, "byteOffset", GL_OPTIONAL, 0, INT64_MAX / 2, &off);
    if (st == MR_OK) st = gl_int(d, ext, epath, "byteLength", GL_REQUIRED, 0, INT64_MAX / 2, &len);
    if (st == MR_OK) st = gl_int(d, ext, epath, "byteStride", GL_REQUIRED, 1, 256, &stride);
    if (st == MR_OK) st = gl_int(d, ext, epath, "count", GL_REQUIRED, 0, INT32_MAX, &count);
    if (st == MR_OK) st = gl_str(d, ext, epath, "mode", GL_REQUIRED, &mode);
    if (st == MR_OK) st = gl_str(d, ext, epath, "filter", GL_OPTIONAL, &filter);
    if (st != MR_OK) return st;
    const unsigned char *src;
    if ((st = buffer_range(d, epath, buf, off, len, &src)) != MR_OK) return st;
    if ((unsigned long long)count * (unsigned long long)stride > (unsigned long long)view_len)
        return gl_fail(d, epath, "count %lld x byteStride %lld is more than the view's byteLength %lld", count, stride,
                       view_len);
    int attrs = !strcmp(mode, "ATTRIBUTES"), tris = !strcmp(mode, "TRIANGLES"), idx = !strcmp(mode, "INDICES");
    if (!attrs && !tris && !idx)
        return gl_fail(d, epath, "'mode': \"%s\" (expected ATTRIBUTES, TRIANGLES or INDICES)", mode);
    if (attrs && stride % 4) return gl_fail(d, epath, "'byteStride' %lld is not a multiple of 4", stride);
    if (!attrs && stride != 2 && stride != 4) return gl_fail(d, epath, "'byteStride' %lld (expected 2 or 4)", stride);
    if (tris && count % 3) return gl_fail(d, epath, "'count' %lld is not a multiple of 3 for TRIANGLES", count);
    if ((st = gl_alloc(d, epath, (size_t)view_len, 1, &v->owned)) != MR_OK) return st;
    int rc = attrs ? meshopt_decodeVertexBuffer(v->owned, (size_t)count, (size_t)stride, src, (size_t)len)
           : tris ? meshopt_decodeIndexBuffer(v->owned, (size_t)count, (size_t)stride, src, (size_t)len)
                  : meshopt_decodeIndexSequence(v->owned, (size_t)count, (size_t)stride, src, (size_t)len);
    if (rc != 0) return gl_fail(d, epath, "meshopt data does not decode (libmeshoptimizer error %d)", rc);
    if (!strcmp(filter, "OCTAHEDRAL")) {
        if (stride != 4 && stride != 8) return gl_fail(d, epath, "OCTAHEDRAL filter needs byteStride 4 or 8");
        meshopt_decodeFilterOct(v->owned, (size_t)count, (size_t)stride);
    } else if (!strcmp(filter, "QUATERNION")) {
        if (stride != 8) return gl_fail(d, epath, "QUATERNION filter needs byteStride 8");
        meshopt_decodeFilterQuat(v->owned, (size_t)count, (size_t)stride);
    } else if (!strcmp(filter, "EXPONENTIAL")) {
        meshopt_decodeFilterExp(v->owned, (size_t)count, (size_t)stride);
    } else if (strcmp(filter, "NONE") != 0) {
        return gl_fail(d, epath, "'filter': \"%s\" (expected NONE, OCTAHEDRAL, QUATERNION or EXPONENTIAL)", filter);
    }
    v->decoded = 1;
    return MR_OK;
}

mr_status gl_view_get(gl_doc *d, int i, const unsigned char **data, size_t *len, int *stride)
{
    if (i >= 0 && i < d->view_count && d->views[i].ready) {
        const gl_view *v = &d->views[i];
        *data = v->data;
        *len = v->len;
        *stride = v->stride;
        return MR_OK;
    }
    char path[128];
    gl_path(path, sizeof path, "/bufferViews/", i, NULL);
    gl_json *o;
    mr_status st = gl_elem(d, "bufferViews", i, path, &o);
    int buf = -1;
    long long off = 0, bl = 0, bs = 0;
    if (st == MR_OK) st = gl_ref(d, o, path, "buffer", GL_REQUIRED, "buffers", &buf);
    if (st == MR_OK) st = gl_int(d, o, path, "byteOffset", GL_OPTIONAL, 0, INT64_MAX / 2, &off);
    if (st == MR_OK) st = gl_int(d, o, path, "byteLength", GL_REQUIRED, 1, INT64_MAX / 2, &bl);
    if (st == MR_OK) st = gl_int(d, o, path, "byteStride", GL_OPTIONAL, 4, 252, &bs);
    if (st != MR_OK) return st;
    if (bs % 4) return gl_fail(d, path, "'byteStride' %lld is not a multiple of 4", bs);
    gl_view *v = &d->views[i];
    gl_json *ext = gl_json_get(gl_json_get(o, "extensions"), "EXT_meshopt_compression");
    if (ext) {
        if (!gl_json_is_object(ext)) return gl_fail(d, path, "extensions/EXT_meshopt_compression: expected an object");
        if (!v->decoded && (st = meshopt_decode(d, path, ext, bl, v)) != MR_OK) return st;
        v->data = v->owned;
    } else {
        if ((st = buffer_range(d, path, buf, off, bl, &v->data)) != MR_OK) return st;
    }
    v->len = (size_t)bl;
    v->stride = (int)bs;
    v->ready = 1;
    *data = v->data;
    *len = v->len;
    *stride = v->stride;
    return MR_OK;
}

/* ---- container ------------------------------------------------------------ */

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The budget counts 96 bytes per JSON value (what jansson's tree cost;
 * gltf_json.c's costs 32); a JSON of nothing but tiny values ("[0,0,0,...")
 * would cost many times its size. The values are counted (commas,
 * opening brackets, outside strings): gl_json_parse stops past the cap, and
 * then this count words the refusal. */
static size_t density_cap(const gl_doc *d) { return (GL_BUDGET_CONST + GL_BUDGET_FACTOR * d->input_bytes) / 96; }

static mr_status check_density(gl_doc *d, const unsigned char *s, size_t n)
{
    size_t cap = density_cap(d);
    /* First an upper bound (the same characters, strings included): real
     * files pass here without the exact scan below. */
    static const unsigned char counts[256] = {[','] = 1, ['['] = 1, ['{'] = 1};
    size_t bound = 0;
    for (size_t i = 0; i < n; i++) bound += counts[s[i]];
    if (bound <= cap) return MR_OK;
    size_t values = 0;
    int in_str = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (in_str) {
            if (c == '\\') i++;
            else if (c == '"') in_str = 0;
        } else if (c == '"') in_str = 1;
        else if (c == ',' || c == '[' || c == '{') values++;
    }
    if (values > cap)
        return gl_fail_status(d, MR_ERR_LIMIT, NULL, "the JSON holds about %zu values, more than the reader keeps "
                              "for a file of %zu bytes (%zu)", values, d->input_bytes, cap);
    return MR_OK;
}

mr_status gl_doc_open(gl_doc *d, const char *name, const unsigned char *buf, size_t len, mr_error *err)
{
    memset(d, 0, sizeof *d);
    d->name = name;
    d->err = err;
    d->input_bytes = len;
    d->budget = GL_BUDGET_CONST;
    d->dir = mr_path_dirname(name);
    if (!d->dir) return mr_error_set(err, MR_ERR_NO_MEMORY, "gltf: %s: out of memory", name);
    const unsigned char *json = buf;
    size_t json_len = len;
    if (len >= 4 && !memcmp(buf, "glTF", 4)) {
        if (len < 12) return gl_fail(d, NULL, "GLB header: the file is %zu bytes (expected at least 12)", len);
        uint32_t version = le32(buf + 4), total = le32(buf + 8);
        if (version != 2) return gl_fail(d, NULL, "GLB header: version %u (expected 2)", version);
        if (total != len)
            return gl_fail(d, NULL, "GLB header: length %u but the file has %zu bytes", total, len);
        size_t at = 12;
        int chunk = 0;
        json = NULL;
        while (at < len) {
            if (len - at < 8) return gl_fail(d, NULL, "GLB chunk %d at byte %zu: header cut short", chunk, at);
            uint32_t clen = le32(buf + at), ctype = le32(buf + at + 4);
            at += 8;
            if (clen > len - at)
                return gl_fail(d, NULL, "GLB chunk %d at byte %zu: length %u but only %zu bytes follow", chunk,
                               at - 8, clen, len - at);
            if (chunk == 0) {
                if (ctype != 0x4E4F534Au) return gl_fail(d, NULL, "GLB chunk 0 is not JSON (type 0x%08x)", ctype);
                json = buf + at;
                json_len = clen;
            } else if (ctype == 0x004E4942u && !d->bin) {
                d->bin = buf + at;
                d->bin_len = clen;
            }
            at += clen;
            chunk++;
        }
        if (!json) return gl_fail(d, NULL, "GLB has no JSON chunk");
    }
    /* The parser works in place on a copy and stops at the value count
     * check_density allows. What it refuses is looked at again: first by
     * check_density (too many values), then by jansson for its message
     * (line, column, what it expected). */
    mr_status st;
    d->text = malloc(json_len + 1);
    if (!d->text) return gl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    memcpy(d->text, json, json_len);
    d->text[json_len] = 0;
    d->root = gl_json_parse(d->text, json_len, density_cap(d), &d->arena);
    if (!d->root) {
        if ((st = check_density(d, json, json_len)) != MR_OK) return st;
        json_error_t je;
        json_t *j = json_loadb((const char *)json, json_len, JSON_REJECT_DUPLICATES, &je);
        if (j) {  /* jansson read it: the parser ran out of memory */
            json_decref(j);
            return gl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory");
        }
        if (len >= 4 && !memcmp(buf, "glTF", 4))
            return gl_fail(d, NULL, "JSON chunk line %d, column %d: %s", je.line, je.column, je.text);
        return gl_fail(d, NULL, "line %d, column %d: %s (expected glTF JSON or a .glb)", je.line, je.column, je.text);
    }
    if (!gl_json_is_object(d->root)) return gl_fail(d, "/", "expected a JSON object, found %s", type_name(d->root));
    gl_json *asset;
    const char *version;
    if ((st = gl_obj(d, d->root, "", "asset", GL_REQUIRED, &asset)) != MR_OK) return st;
    if ((st = gl_str(d, asset, "/asset", "version", GL_REQUIRED, &version)) != MR_OK) return st;
    if (version[0] != '2' || (version[1] && version[1] != '.'))
        return gl_fail(d, "/asset/version", "\"%s\" (expected a glTF 2.x version)", version);
    gl_json *arr;
    if ((st = gl_top(d, "buffers", &arr, &d->buffer_count)) != MR_OK) return st;
    if ((st = gl_top(d, "bufferViews", &arr, &d->view_count)) != MR_OK) return st;
    if ((st = gl_top(d, "accessors", &arr, &d->accessor_count)) != MR_OK) return st;
    d->buffers = mr_alloc_array((size_t)d->buffer_count, sizeof *d->buffers);
    d->views = mr_alloc_array((size_t)d->view_count, sizeof *d->views);
    if (!d->buffers || !d->views) return gl_fail_status(d, MR_ERR_NO_MEMORY, NULL, "out of memory");
    if ((st = gl_alloc(d, "/accessors", (size_t)d->accessor_count, sizeof *d->accessors, &d->accessors)) != MR_OK)
        return st;
    return MR_OK;
}

void gl_doc_close(gl_doc *d)
{
    for (int i = 0; d->buffers && i < d->buffer_count; i++) free(d->buffers[i].owned);
    for (int i = 0; d->views && i < d->view_count; i++) free(d->views[i].owned);
    free(d->buffers);
    free(d->views);
    free(d->accessors);
    gl_json_arena_free(d->arena);  /* the tree */
    free(d->text);
    free(d->dir);
    memset(d, 0, sizeof *d);
}
