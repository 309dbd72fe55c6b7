/* fbx_cache.c — Maya geometry caches: a VertexCacheDeformer on a Geometry
 * names a channel of a Cache object, whose CacheFileName is the cache's
 * XML description (Autodesk_Cache_File: format mcx or mcc, one file, the
 * channels with their interpretation) beside a data file of the same stem
 * (.mcx: IFF with 64-bit chunk sizes, FOR8; .mc: 32-bit, FOR4). The data
 * holds, per frame, a MYCH group: TIME (ticks, 6000 a second), then per
 * channel CHNM (its name), SIZE (elements) and FVCA or DVCA (big-endian
 * float or double x y z per element). 3ds Max writes a .pc2 file instead
 * (CacheFileName names it; read_pc2). fbx_geometry.c turns a positions
 * channel into morph targets of its mesh, one per frame, and fbx_anim.c
 * into weight tracks that cross-fade between frames.
 *
 * Both files are opened inside the FBX file's folder (mr_file_read_inside).
 * A cache that cannot be read, or that does not fit its mesh, leaves the
 * mesh as the FBX file has it, with a warning; a data file that breaks its
 * own structure is refused naming the file and byte offset (exit 3). Bounds:
 * CACHE_MAX_XML and CACHE_MAX_DATA bytes read, exactly the mesh's control
 * points a frame, FBX_CACHE_MAX_FRAMES frames and FBX_CACHE_MAX_POINTS
 * points in all (a larger cache is not read, with a warning).
 */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/file.h"
#include "core/path.h"
#include "core/str.h"
#include "formats/fbx_internal.h"

/* Maya's cache time unit. */
#define CACHE_TICKS 6000.0

/* The largest description and data files read (bytes). */
#define CACHE_MAX_XML ((size_t)1 << 20)
#define CACHE_MAX_DATA ((size_t)1 << 30)

static mr_status oom(fbx_scene *s)
{
    return mr_error_set(s->err, MR_ERR_NO_MEMORY, "fbx: %s: out of memory", s->path);
}

void fbx_pcache_free(fbx_pcache *c)
{
    free(c->times);
    free(c->pos);
    free(c->channel);
    memset(c, 0, sizeof *c);
}

/* path (inside dir) into a new NUL-terminated buffer, refused above max
 * bytes; NULL with err set. */
static char *read_bounded(const char *dir, const char *path, size_t max, size_t *len, mr_error *err)
{
    size_t size = 0;
    int fd = mr_file_open_inside(dir, path, &size, err);
    if (fd < 0) return NULL;
    char *buf = NULL;
    if (size > max) {
        mr_error_set(err, MR_ERR_LIMIT, "%s: %zu bytes, more than the %zu a geometry cache file may have", path, size, max);
    } else if (!(buf = malloc(size + 1))) {
        mr_error_set(err, MR_ERR_NO_MEMORY, "%s: out of memory", path);
    } else if (mr_file_read_fd(fd, path, buf, size, err) != MR_OK) {
        free(buf);
        buf = NULL;
    } else {
        buf[size] = 0;
        *len = size;
    }
    close(fd);
    return buf;
}

/* ---- 3ds Max's point cache (.pc2) ---- */

static uint32_t le4(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float le_float(const unsigned char *p)
{
    uint32_t bits = le4(p);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* A .pc2 file: "POINTCACHE2\0", version, points, start frame, frames per
 * sample, samples (little-endian), then samples x points x (x y z) floats;
 * sample i is at frame start + i * rate of the FBX file's frame rate. */
static mr_status read_pc2(fbx_scene *s, const char *path, const unsigned char *p, size_t len, size_t cps, fbx_pcache *out,
                          int *fits)
{
    *fits = 1;
    if (len < 32 || memcmp(p, "POINTCACHE2", 12))
        return mr_error_set(s->err, MR_ERR_BAD_FILE, "fbx: %s: geometry cache %s: byte 0: expected \"POINTCACHE2\"", s->path,
                            path);
    uint32_t points = le4(p + 16), samples = le4(p + 28);
    double start = le_float(p + 20), rate = le_float(p + 24);
    if (!isfinite(start) || !(rate > 0) || !isfinite(rate))
        return mr_error_set(s->err, MR_ERR_BAD_FILE,
                            "fbx: %s: geometry cache %s: byte 20: expected a finite start frame and a positive frame step",
                            s->path, path);
    if ((uint64_t)samples * points * 12 > len - 32)
        return mr_error_set(s->err, MR_ERR_BAD_FILE,
                            "fbx: %s: geometry cache %s: byte 32: expected %llu bytes of points (%u samples of %u), the "
                            "file has %zu",
                            s->path, path, (unsigned long long)samples * points * 12, samples, points, len - 32);
    if (points != cps) {
        *fits = 0;
        return MR_OK;
    }
    if (samples > FBX_CACHE_MAX_FRAMES || (uint64_t)samples * points > FBX_CACHE_MAX_POINTS) {
        *fits = 2;
        return MR_OK;
    }
    if (!samples) return MR_OK;
    out->times = mr_alloc_array(samples, sizeof *out->times);
    out->pos = mr_alloc_array((size_t)samples * cps * 3 + 1, sizeof *out->pos);
    if (!out->times || !out->pos) return oom(s);
    double fps = s->fps > 0 ? s->fps : 30.0;
    for (uint32_t i = 0; i < samples; i++) {
        out->times[i] = (start + i * rate) / fps;
        for (size_t k = 0; k < cps * 3; k++) {
            size_t at = 32 + ((size_t)i * cps * 3 + k) * 4;
            float v = le_float(p + at);
            if (!isfinite(v))
                return mr_error_set(s->err, MR_ERR_BAD_FILE, "fbx: %s: geometry cache %s: byte %zu: expected finite positions",
                                    s->path, path, at);
            out->pos[(size_t)i * cps * 3 + k] = v;
        }
        out->frames = (int)i + 1;
    }
    return MR_OK;
}

/* ---- the XML description ---- */

typedef struct cache_desc {
    int mcx;                     /* 1: .mcx (FOR8), 0: .mc (FOR4) */
    int one_file;
    int positions;               /* the channel is a positions channel */
    char name[256];              /* its name in the data (the deformer's, or the only channel's) */
} cache_desc;

static int attr_is(xmlNode *n, const char *name, const char *value)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    int is = v && !strcmp((const char *)v, value);
    xmlFree(v);
    return is;
}

/* Reads what the description says about channel; 0 when it is no cache
 * description or does not list the channel. A description of one channel
 * gives it whatever its name (Marvelous Designer names the deformer's
 * channel after the mesh, the cache's after its pattern: Maya plays it). */
static int read_desc(const char *xml, size_t len, const char *channel, cache_desc *out)
{
    memset(out, 0, sizeof *out);
    xmlDoc *doc = xmlReadMemory(xml, (int)len, "cache.xml", NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc) return 0;
    xmlNode *root = xmlDocGetRootElement(doc);
    int found = 0, count = 0;
    xmlNode *only = NULL;
    if (root && !strcmp((const char *)root->name, "Autodesk_Cache_File")) {
        for (xmlNode *n = root->children; n; n = n->next) {
            if (n->type != XML_ELEMENT_NODE) continue;
            if (!strcmp((const char *)n->name, "cacheType")) {
                out->mcx = attr_is(n, "Format", "mcx");
                out->one_file = attr_is(n, "Type", "OneFile");
            } else if (!strcmp((const char *)n->name, "Channels")) {
                for (xmlNode *c = n->children; c; c = c->next) {
                    if (c->type != XML_ELEMENT_NODE) continue;
                    count++;
                    only = c;
                    if (!found && attr_is(c, "ChannelName", channel)) {
                        found = 1;
                        out->positions = attr_is(c, "ChannelInterpretation", "positions");
                        snprintf(out->name, sizeof out->name, "%s", channel);
                    }
                }
            }
        }
    }
    if (!found && count == 1) {
        xmlChar *v = xmlGetProp(only, (const xmlChar *)"ChannelName");
        if (v && strlen((const char *)v) < sizeof out->name) {
            found = 1;
            out->positions = attr_is(only, "ChannelInterpretation", "positions");
            snprintf(out->name, sizeof out->name, "%s", (const char *)v);
        }
        xmlFree(v);
    }
    xmlFreeDoc(doc);
    return found;
}

/* ---- the IFF data ---- */

typedef struct iff {
    const unsigned char *p;
    size_t len;
    int wide;                    /* FOR8: 8-byte sizes after 4 bytes of padding, 8-byte alignment */
    const char *path;
    fbx_scene *s;
} iff;

static uint64_t be(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | p[i];
    return v;
}

/* Walks the file as Maya writes it, one tag after another: a group
 * (FOR4/FOR8 and its size) is followed by its form type (CACH, MYCH) and
 * then its contents; a data chunk by its size (after 4 bytes of padding in
 * a FOR8 file) and its data, padded to 4 (FOR4) or 8 (FOR8) bytes. TIME
 * sets the time of the channels that follow, CHNM the channel, FVCA or
 * DVCA hold its points. Keeps channel's points. */
static mr_status read_frames(iff *f, const char *channel, size_t cps, fbx_pcache *out, int *fits)
{
    *fits = 1;
    size_t at = 0;
    int cap = 0, matched = 0;
    double t = NAN;
    f->wide = f->len >= 4 && !memcmp(f->p, "FOR8", 4);
    while (at < f->len) {
        size_t start = at;
        if (f->len - at < 4) break;
        char tag[5];
        memcpy(tag, f->p + at, 4);
        tag[4] = 0;
        for (int i = 0; i < 4; i++)   /* a message shows it on one printable line */
            if (tag[i] < 0x20 || tag[i] > 0x7e) tag[i] = '?';
        at += 4;
        if (!strcmp(tag, "CACH") || !strcmp(tag, "MYCH")) continue;
        size_t head = f->wide ? 12 : 4, align = f->wide ? 8 : 4;
        if (f->len - at < head)
            return mr_error_set(f->s->err, MR_ERR_BAD_FILE, "fbx: %s: geometry cache %s: byte %zu: expected the size of %s",
                                f->s->path, f->path, start, tag);
        uint64_t size = f->wide ? be(f->p + at + 4, 8) : be(f->p + at, 4);
        at += head;
        if (!strcmp(tag, "FOR4") || !strcmp(tag, "FOR8")) continue;   /* its contents follow */
        if (size > f->len - at)
            return mr_error_set(f->s->err, MR_ERR_BAD_FILE,
                                "fbx: %s: geometry cache %s: byte %zu: %s of %llu bytes runs past the end (%zu)",
                                f->s->path, f->path, start, tag, (unsigned long long)size, f->len);
        size_t cd = at, cs = (size_t)size;
        at += cs + (align - cs % align) % align;
        if (at > f->len) at = f->len;
        if (!strcmp(tag, "TIME") || !strcmp(tag, "STIM")) {
            if (cs < 4)
                return mr_error_set(f->s->err, MR_ERR_BAD_FILE, "fbx: %s: geometry cache %s: byte %zu: expected 4 bytes of %s",
                                    f->s->path, f->path, start, tag);
            t = (double)(int32_t)be(f->p + cd, 4) / CACHE_TICKS;
        } else if (!strcmp(tag, "CHNM")) {
            size_t n = strnlen((const char *)f->p + cd, cs);
            matched = n == strlen(channel) && !memcmp(f->p + cd, channel, n);
        } else if (!strcmp(tag, "FVCA") || !strcmp(tag, "DVCA")) {
            if (!matched) continue;
            matched = 0;
            int dbl = tag[0] == 'D';
            size_t elem = dbl ? 24 : 12;
            if (cs / elem != cps) {
                *fits = 0;   /* another topology than the mesh's */
                return MR_OK;
            }
            if (out->frames && !(t > out->times[out->frames - 1]))
                return mr_error_set(f->s->err, MR_ERR_BAD_FILE,
                                    "fbx: %s: geometry cache %s: byte %zu: frame at %g s is not after the previous one's %g s "
                                    "(expected ascending times)",
                                    f->s->path, f->path, start, t, out->times[out->frames - 1]);
            if (out->frames >= FBX_CACHE_MAX_FRAMES || (size_t)(out->frames + 1) * cps > FBX_CACHE_MAX_POINTS) {
                *fits = 2;   /* more than marrow takes */
                return MR_OK;
            }
            if (out->frames == cap) {
                int nc = cap ? cap * 2 : 16;
                double *nt = realloc(out->times, sizeof *nt * (size_t)nc);
                if (nt) out->times = nt;
                float *np = nt ? realloc(out->pos, sizeof *np * ((size_t)nc * cps * 3 + 1)) : NULL;
                if (!nt || !np) return oom(f->s);
                out->pos = np;
                cap = nc;
            }
            float *dst = out->pos + (size_t)out->frames * cps * 3;
            for (size_t i = 0; i < cps * 3; i++) {
                double v;
                if (dbl) {
                    uint64_t bits = be(f->p + cd + i * 8, 8);
                    memcpy(&v, &bits, sizeof v);
                } else {
                    uint32_t bits = (uint32_t)be(f->p + cd + i * 4, 4);
                    float fv;
                    memcpy(&fv, &bits, sizeof fv);
                    v = fv;
                }
                if (!isfinite(v))
                    return mr_error_set(f->s->err, MR_ERR_BAD_FILE,
                                        "fbx: %s: geometry cache %s: byte %zu: expected finite positions", f->s->path,
                                        f->path, cd + i * (dbl ? 8 : 4));
                dst[i] = (float)v;
            }
            out->times[out->frames++] = isfinite(t) ? t : 0;
        } else if (strcmp(tag, "VRSN") && strcmp(tag, "ETIM") && strcmp(tag, "SIZE") && strcmp(tag, "FBCA") &&
                   strcmp(tag, "DBCA") && strcmp(tag, "DBLA")) {
            return mr_error_set(f->s->err, MR_ERR_BAD_FILE, "fbx: %s: geometry cache %s: byte %zu: unknown chunk \"%s\" (expected FOR4, FOR8, "
                                "CACH, MYCH, TIME, CHNM, SIZE, FVCA or DVCA)",
                                f->s->path, f->path, start, tag);
        }
    }
    return MR_OK;
}

mr_status fbx_pcache_read(fbx_scene *s, int owner, size_t cps, fbx_pcache *out)
{
    memset(out, 0, sizeof *out);
    int cache = -1;
    int first, n = fbx_children(s, owner, &first);
    mr_status st = MR_OK;
    char *dir = NULL, *xml_path = NULL, *xml = NULL, *data_path = NULL, *data = NULL;
    /* every cache deformer of owner: the one whose channel holds positions */
    for (int k = 0; k < n && !out->frames && st == MR_OK; k++) {
        int d = s->conns[s->conn_by_parent[first + k]].child;
        if (strcmp(s->objs[d].cls, "Deformer") || strcmp(s->objs[d].sub, "VertexCacheDeformer")) continue;
        cache = -1;
        int f2, n2 = fbx_children(s, d, &f2);
        for (int q = 0; q < n2 && cache < 0; q++) {
            int c = s->conns[s->conn_by_parent[f2 + q]].child;
            if (!strcmp(s->objs[c].cls, "Cache")) cache = c;
        }
        const char *channel = fbx_prop_str(s, d, "ChannelName"), *file = cache >= 0 ? fbx_prop_str(s, cache, "CacheFileName") : NULL;
        if (!file || !file[0]) continue;
        size_t flen = strlen(file);
        int pc2 = flen > 4 && !strcmp(file + flen - 4, ".pc2");
        if (!pc2 && (!channel || !channel[0])) continue;
        if (!channel || !channel[0]) channel = "cache";
        free(dir);
        free(xml_path);
        free(xml);
        free(data_path);
        free(data);
        data_path = data = xml = NULL;
        dir = mr_file_model_dir(s->path);
        if (!dir) {
            mr_model_warn(s->model, "%s: geometry cache \"%s\" not read: the model has no folder to find it in", s->path, file);
            continue;
        }
        char *rel = mr_str_dup(file);
        if (!rel) {
            st = oom(s);
            break;
        }
        for (char *c = rel; *c; c++)
            if (*c == '\\') *c = '/';
        xml_path = mr_path_join(dir, rel);
        free(rel);
        if (!xml_path) {
            st = oom(s);
            break;
        }
        size_t len;
        mr_error ferr = {0};
        int fits = 1;
        if (pc2) {   /* no description: the data itself */
            data = read_bounded(dir, xml_path, CACHE_MAX_DATA, &len, &ferr);
            if (!data) {
                mr_model_warn(s->model, "%s: geometry cache data %s not read (%s): the mesh keeps its own points", s->path,
                              xml_path, ferr.msg);
                continue;
            }
            if (!(out->channel = mr_str_dup(channel))) {
                st = oom(s);
                break;
            }
            data_path = mr_str_dup(xml_path);
            st = data_path ? read_pc2(s, data_path, (const unsigned char *)data, len, cps, out, &fits) : oom(s);
            goto read;
        }
        xml = read_bounded(dir, xml_path, CACHE_MAX_XML, &len, &ferr);
        if (!xml) {
            mr_model_warn(s->model, "%s: geometry cache \"%s\" of channel %s not read (%s): the mesh keeps its own points",
                          s->path, file, channel, ferr.msg);
            continue;
        }
        cache_desc desc;
        if (!read_desc(xml, len, channel, &desc) || !desc.positions) continue;
        if (!desc.one_file) {
            mr_model_warn(s->model, "%s: geometry cache \"%s\": one file per frame is not read: the mesh keeps its own points",
                          s->path, file);
            continue;
        }
        size_t stem = strlen(xml_path);
        if (stem > 4 && !strcmp(xml_path + stem - 4, ".xml")) stem -= 4;
        data_path = mr_str_fmt("%.*s%s", (int)stem, xml_path, desc.mcx ? ".mcx" : ".mc");
        if (!data_path) {
            st = oom(s);
            break;
        }
        data = read_bounded(dir, data_path, CACHE_MAX_DATA, &len, &ferr);
        if (!data) {
            mr_model_warn(s->model, "%s: geometry cache data %s not read (%s): the mesh keeps its own points", s->path,
                          data_path, ferr.msg);
            continue;
        }
        iff f = {(const unsigned char *)data, len, desc.mcx, data_path, s};
        out->channel = mr_str_dup(desc.name);
        if (!out->channel) {
            st = oom(s);
            break;
        }
        st = read_frames(&f, desc.name, cps, out, &fits);
    read:
        if (st == MR_OK && (fits != 1 || !out->frames)) {
            char why[128];
            if (fits == 2)
                snprintf(why, sizeof why, "holds more than %d frames or %d points in all", FBX_CACHE_MAX_FRAMES,
                         FBX_CACHE_MAX_POINTS);
            else
                snprintf(why, sizeof why, "%s", fits ? "has no frames" : "does not hold one point per control point of its mesh");
            mr_model_warn(s->model, "%s: geometry cache %s: channel %s %s: the mesh keeps its own points", s->path, data_path,
                          channel, why);
            fbx_pcache_free(out);
        }
        if (st == MR_OK && out->frames) out->points = cps;
    }
    if (st != MR_OK) fbx_pcache_free(out);
    free(dir);
    free(xml_path);
    free(xml);
    free(data_path);
    free(data);
    return st;
}
