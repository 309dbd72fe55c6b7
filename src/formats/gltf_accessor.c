/* gltf_accessor.c — accessors: every component type, normalized integers,
 * byteStride, sparse substitution; min/max are never trusted (unused). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/gltf_internal.h"

static int csize(int ctype)
{
    switch (ctype) {
    case GL_BYTE:
    case GL_UBYTE: return 1;
    case GL_SHORT:
    case GL_USHORT: return 2;
    case GL_UINT:
    case GL_FLOAT: return 4;
    default: return 0;
    }
}

static const char *ctype_name(int ctype)
{
    switch (ctype) {
    case GL_BYTE: return "BYTE";
    case GL_UBYTE: return "UNSIGNED_BYTE";
    case GL_SHORT: return "SHORT";
    case GL_USHORT: return "UNSIGNED_SHORT";
    case GL_UINT: return "UNSIGNED_INT";
    default: return "FLOAT";
    }
}

/* One component as a double (normalized per the glTF spec). */
static double comp_value(const unsigned char *p, int ctype, int normalized)
{
    switch (ctype) {
    case GL_BYTE: {
        double v = (double)(int8_t)p[0];
        return normalized ? fmax(v / 127.0, -1.0) : v;
    }
    case GL_UBYTE: return normalized ? p[0] / 255.0 : p[0];
    case GL_SHORT: {
        int16_t s;
        memcpy(&s, p, 2);
        return normalized ? fmax(s / 32767.0, -1.0) : s;
    }
    case GL_USHORT: {
        uint16_t s;
        memcpy(&s, p, 2);
        return normalized ? s / 65535.0 : s;
    }
    case GL_UINT: {
        uint32_t u;
        memcpy(&u, p, 4);
        return normalized ? u / 4294967295.0 : u;
    }
    default: {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    }
}

typedef struct acc_info {
    char path[128];
    int count, comps, ctype, normalized;
    const unsigned char *data;   /* first element, or NULL (zeros) */
    size_t stride;               /* bytes between elements */
    gl_json *sparse;
    gl_acc_head *head;           /* the cached header */
} acc_info;

static int type_comps(const char *t, int *mask)
{
    static const struct { const char *name; int n, mask; } types[] = {
        {"SCALAR", 1, GL_T_SCALAR}, {"VEC2", 2, GL_T_VEC2}, {"VEC3", 3, GL_T_VEC3}, {"VEC4", 4, GL_T_VEC4},
        {"MAT2", 4, 0},             {"MAT3", 9, 0},         {"MAT4", 16, GL_T_MAT4},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(t, types[i].name)) {
            *mask = types[i].mask;
            return types[i].n;
        }
    return 0;
}

static void mask_names(int types, char *buf, size_t cap)
{
    static const char *names[] = {"SCALAR", "VEC2", "VEC3", "VEC4", "MAT4"};
    buf[0] = 0;
    for (int i = 0; i < 5; i++)
        if (types & (1 << i)) {
            size_t l = strlen(buf);
            snprintf(buf + l, cap - l, "%s%s", l ? " or " : "", names[i]);
        }
}

/* Reads accessor i's header from the JSON into h (once per accessor). */
static mr_status head_read(gl_doc *d, int i, const char *use, const char *path, gl_acc_head *h)
{
    gl_json *o;
    mr_status st = gl_elem(d, "accessors", i, use, &o);
    if (st != MR_OK) return st;
    long long ct = 0, count = 0, off = 0;
    const char *type = NULL;
    int view = -1;
    if ((st = gl_int(d, o, path, "componentType", GL_REQUIRED, 0, 1 << 20, &ct)) != MR_OK) return st;
    if (!csize((int)ct))
        return gl_fail(d, path, "'componentType': %lld (expected 5120, 5121, 5122, 5123, 5125 or 5126)", ct);
    if ((st = gl_int(d, o, path, "count", GL_REQUIRED, 1, INT32_MAX, &count)) != MR_OK) return st;
    if ((st = gl_str(d, o, path, "type", GL_REQUIRED, &type)) != MR_OK) return st;
    h->comps = type_comps(type, &h->type_mask);
    if (!h->comps) return gl_fail(d, path, "'type': \"%s\" (expected SCALAR, VEC2..4 or MAT2..4)", type);
    gl_json *norm = gl_json_get(o, "normalized");
    if (norm && !gl_json_is_boolean(norm)) return gl_fail(d, path, "'normalized': expected a boolean");
    h->normalized = norm && gl_json_is_true(norm);
    if (h->normalized && (ct == GL_FLOAT || ct == GL_UINT))
        return gl_fail(d, path, "'normalized' is true for %s components (expected BYTE, SHORT or their unsigned)",
                       ctype_name((int)ct));
    h->ctype = (int)ct;
    h->count = (int)count;
    if ((st = gl_ref(d, o, path, "bufferView", GL_OPTIONAL, "bufferViews", &view)) != MR_OK) return st;
    if ((st = gl_int(d, o, path, "byteOffset", GL_OPTIONAL, 0, INT64_MAX / 2, &off)) != MR_OK) return st;
    gl_json *sp = NULL;
    if ((st = gl_obj(d, o, path, "sparse", GL_OPTIONAL, &sp)) != MR_OK) return st;
    h->sparse = sp;
    size_t esize = (size_t)csize(h->ctype) * (size_t)h->comps;
    if (view >= 0) {
        const unsigned char *data;
        size_t len;
        int stride;
        if ((st = gl_view_get(d, view, &data, &len, &stride)) != MR_OK) return st;
        h->stride = stride ? (size_t)stride : esize;
        /* A matrix of 1- or 2-byte columns pads each column to 4 bytes; we only
         * read MAT4 of floats (inverse binds), so esize is exact there. */
        if ((unsigned long long)off > len || esize > len - (size_t)off ||
            (size_t)(h->count - 1) > (len - (size_t)off - esize) / h->stride)
            return gl_fail(d, path, "%d elements of %zu bytes (stride %zu) from byteOffset %lld run past the end of "
                           "bufferView %d (%zu bytes)", h->count, esize, h->stride, off, view, len);
        h->data = data + off;
    } else if (!sp) {
        return gl_fail(d, path, "no 'bufferView' and no 'sparse' (all zeros is allowed only with sparse)");
    }
    h->ready = 1;
    return MR_OK;
}

static mr_status acc_open(gl_doc *d, int i, int types, const char *use, acc_info *a)
{
    gl_path(a->path, sizeof a->path, "/accessors/", i, NULL);
    if (i < 0 || i >= d->accessor_count) {  /* gl_elem words the message */
        gl_json *o;
        mr_status st = gl_elem(d, "accessors", i, use, &o);
        return st != MR_OK ? st : gl_fail(d, a->path, "no such accessor");
    }
    gl_acc_head *h = &d->accessors[i];
    if (!h->ready) {
        mr_status st = head_read(d, i, use, a->path, h);
        if (st != MR_OK) return st;
    }
    if (!(h->type_mask & types)) {
        char want[64];
        const char *type = gl_json_string(gl_json_get(gl_json_at(gl_json_get(d->root, "accessors"),
                                                                            (size_t)i), "type"));
        mask_names(types, want, sizeof want);
        return gl_fail(d, a->path, "'type' is %s but %s needs %s", type ? type : "?", use, want);
    }
    a->count = h->count;
    a->comps = h->comps;
    a->ctype = h->ctype;
    a->normalized = h->normalized;
    a->data = h->data;
    a->stride = h->stride;
    a->sparse = h->sparse;
    a->head = h;
    return MR_OK;
}

/* Sparse indices and values: checked, then handed to put(). */
typedef void (*put_fn)(void *out, int comps, int index, const unsigned char *src, int ctype, int normalized);

static mr_status apply_sparse(gl_doc *d, acc_info *a, void *out, put_fn put)
{
    char path[128];
    snprintf(path, sizeof path, "%s/sparse", a->path);
    long long count = 0, ict = 0, ioff = 0, voff = 0;
    gl_json *ind, *val;
    int iview = -1, vview = -1;
    mr_status st = gl_int(d, a->sparse, path, "count", GL_REQUIRED, 1, a->count, &count);
    if (st == MR_OK) st = gl_obj(d, a->sparse, path, "indices", GL_REQUIRED, &ind);
    if (st == MR_OK) st = gl_obj(d, a->sparse, path, "values", GL_REQUIRED, &val);
    if (st != MR_OK) return st;
    char ipath[256], vpath[256];
    snprintf(ipath, sizeof ipath, "%s/indices", path);
    snprintf(vpath, sizeof vpath, "%s/values", path);
    if ((st = gl_ref(d, ind, ipath, "bufferView", GL_REQUIRED, "bufferViews", &iview)) != MR_OK) return st;
    if ((st = gl_int(d, ind, ipath, "byteOffset", GL_OPTIONAL, 0, INT64_MAX / 2, &ioff)) != MR_OK) return st;
    if ((st = gl_int(d, ind, ipath, "componentType", GL_REQUIRED, 0, 1 << 20, &ict)) != MR_OK) return st;
    if (ict != GL_UBYTE && ict != GL_USHORT && ict != GL_UINT)
        return gl_fail(d, ipath, "'componentType': %lld (expected 5121, 5123 or 5125)", ict);
    if ((st = gl_ref(d, val, vpath, "bufferView", GL_REQUIRED, "bufferViews", &vview)) != MR_OK) return st;
    if ((st = gl_int(d, val, vpath, "byteOffset", GL_OPTIONAL, 0, INT64_MAX / 2, &voff)) != MR_OK) return st;
    const unsigned char *idata, *vdata;
    size_t ilen, vlen;
    int istride, vstride;
    if ((st = gl_view_get(d, iview, &idata, &ilen, &istride)) != MR_OK) return st;
    if ((st = gl_view_get(d, vview, &vdata, &vlen, &vstride)) != MR_OK) return st;
    size_t is = (size_t)csize((int)ict), vs = (size_t)csize(a->ctype) * (size_t)a->comps;
    if ((unsigned long long)ioff > ilen || (size_t)count > (ilen - (size_t)ioff) / is)
        return gl_fail(d, ipath, "%lld indices from byteOffset %lld run past the end of bufferView %d (%zu bytes)", count,
                       ioff, iview, ilen);
    if ((unsigned long long)voff > vlen || (size_t)count > (vlen - (size_t)voff) / vs)
        return gl_fail(d, vpath, "%lld values from byteOffset %lld run past the end of bufferView %d (%zu bytes)", count,
                       voff, vview, vlen);
    long long prev = -1;
    for (long long k = 0; k < count; k++) {
        long long ix = (long long)comp_value(idata + ioff + (size_t)k * is, (int)ict, 0);
        if (ix >= a->count)
            return gl_fail(d, ipath, "index %lld (entry %lld) is out of range (accessor count %d)", ix, k, a->count);
        if (ix <= prev)
            return gl_fail(d, ipath, "index %lld (entry %lld) does not increase (expected strictly increasing)", ix, k);
        prev = ix;
        put(out, a->comps, (int)ix, vdata + voff + (size_t)k * vs, a->ctype, a->normalized);
    }
    return MR_OK;
}

static void put_float(void *out, int comps, int index, const unsigned char *src, int ctype, int normalized)
{
    float *f = (float *)out + (size_t)index * (size_t)comps;
    int cs = csize(ctype);
    for (int c = 0; c < comps; c++) f[c] = (float)comp_value(src + c * cs, ctype, normalized);
}

static void put_uint(void *out, int comps, int index, const unsigned char *src, int ctype, int normalized)
{
    uint32_t *u = (uint32_t *)out + (size_t)index * (size_t)comps;
    int cs = csize(ctype);
    for (int c = 0; c < comps; c++) u[c] = (uint32_t)comp_value(src + c * cs, ctype, 0);
    (void)normalized;
}

/* Is every float of n finite? (NaN and infinities: exponent all ones.) On
 * failure *bad gets the first one's index and *nan whether it is a NaN. */
static int all_finite(const float *f, size_t n, size_t *bad, int *nan)
{
    for (size_t k = 0; k < n; k++) {
        uint32_t bits;
        memcpy(&bits, &f[k], 4);
        if ((bits & 0x7f800000u) == 0x7f800000u) {
            *bad = k;
            *nan = (bits & 0x7fffffu) != 0;
            return 0;
        }
    }
    return 1;
}

/* Elements of a (no sparse) converted to floats into f. */
static void convert_floats(const acc_info *a, float *f)
{
    size_t comps = (size_t)a->comps;
    const unsigned char *p = a->data;
    if (a->ctype == GL_FLOAT) {
        if (a->stride == comps * 4) {
            memcpy(f, p, (size_t)a->count * comps * 4);
        } else {
            for (int k = 0; k < a->count; k++) memcpy(f + (size_t)k * comps, p + (size_t)k * a->stride, comps * 4);
        }
        return;
    }
    for (int k = 0; k < a->count; k++) put_float(f, a->comps, k, p + (size_t)k * a->stride, a->ctype, a->normalized);
}

mr_status gl_accessor_floats(gl_doc *d, int i, int types, int float_only, const char *use, gl_accessor *out)
{
    memset(out, 0, sizeof *out);
    acc_info a;
    mr_status st = acc_open(d, i, types, use, &a);
    if (st != MR_OK) return st;
    if (float_only && a.ctype != GL_FLOAT)
        return gl_fail(d, a.path, "'componentType' is %s but %s needs FLOAT", ctype_name(a.ctype), use);
    size_t n = (size_t)a.count * (size_t)a.comps;
    const float *f;
    float *owned = NULL;
    if (a.ctype == GL_FLOAT && a.data && !a.sparse && a.stride == (size_t)a.comps * 4 && !((uintptr_t)a.data & 3)) {
        f = (const float *)(const void *)a.data;  /* tightly packed and aligned: read in place */
    } else {
        if ((st = (a.data ? gl_alloc_raw : gl_alloc)(d, a.path, n, sizeof *owned, &owned)) != MR_OK) return st;
        if (a.data) convert_floats(&a, owned);
        if (a.sparse && (st = apply_sparse(d, &a, owned, put_float)) != MR_OK) {
            free(owned);
            d->spent -= n * sizeof *owned;
            return st;
        }
        f = owned;
    }
    if (a.ctype == GL_FLOAT && !(f != owned && a.head->finite)) {
        size_t bad;
        int nan;
        if (!all_finite(f, n, &bad, &nan)) {
            if (owned) {
                free(owned);
                d->spent -= n * sizeof *owned;
            }
            return gl_fail(d, a.path, "element %zu component %zu is %s (expected finite numbers)", bad / (size_t)a.comps,
                           bad % (size_t)a.comps, nan ? "NaN" : "infinite");
        }
        if (f != owned) a.head->finite = 1;
    }
    out->count = a.count;
    out->comps = a.comps;
    out->ctype = a.ctype;
    out->normalized = a.normalized;
    out->f = f;
    out->owned = owned;
    return MR_OK;
}

mr_status gl_accessor_uints(gl_doc *d, int i, int types, const char *use, gl_accessor *out)
{
    memset(out, 0, sizeof *out);
    acc_info a;
    mr_status st = acc_open(d, i, types, use, &a);
    if (st != MR_OK) return st;
    if (a.ctype != GL_UBYTE && a.ctype != GL_USHORT && a.ctype != GL_UINT)
        return gl_fail(d, a.path, "'componentType' is %s but %s needs UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT",
                       ctype_name(a.ctype), use);
    if (a.normalized) return gl_fail(d, a.path, "'normalized' is true but %s needs plain integers", use);
    size_t comps = (size_t)a.comps, n = (size_t)a.count * comps;
    if (a.ctype == GL_UINT && a.data && !a.sparse && a.stride == comps * 4 && !((uintptr_t)a.data & 3)) {
        out->u = (const uint32_t *)(const void *)a.data;  /* read in place */
    } else {
        uint32_t *u;
        if ((st = (a.data ? gl_alloc_raw : gl_alloc)(d, a.path, n, sizeof *u, &u)) != MR_OK) return st;
        const unsigned char *p = a.data;
        for (int k = 0; p && k < a.count; k++, p += a.stride) {
            uint32_t *dst = u + (size_t)k * comps;
            if (a.ctype == GL_UBYTE) {
                for (size_t c = 0; c < comps; c++) dst[c] = p[c];
            } else if (a.ctype == GL_USHORT) {
                for (size_t c = 0; c < comps; c++) {
                    uint16_t v;
                    memcpy(&v, p + 2 * c, 2);
                    dst[c] = v;
                }
            } else {
                memcpy(dst, p, comps * 4);
            }
        }
        if (a.sparse && (st = apply_sparse(d, &a, u, put_uint)) != MR_OK) {
            free(u);
            d->spent -= n * sizeof *u;
            return st;
        }
        out->u = u;
        out->owned = u;
    }
    out->count = a.count;
    out->comps = a.comps;
    out->ctype = a.ctype;
    return MR_OK;
}

void gl_accessor_free(gl_doc *d, gl_accessor *a)
{
    if (a->owned) {
        size_t bytes = (size_t)a->count * (size_t)a->comps * 4;
        d->spent -= bytes < d->spent ? bytes : d->spent;
        free(a->owned);
    }
    memset(a, 0, sizeof *a);
}
