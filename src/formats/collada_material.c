/* collada_material.c — <material> -> <effect> -> mr_material, and finding
 * the texture files a model references.
 *
 * Colours come from the <profile_COMMON> technique (phong, blinn, lambert
 * or constant). A diffuse <texture> is followed through its <sampler2D>
 * and <surface> newparams (COLLADA 1.4) or <instance_image> (1.5) to the
 * <image>'s <init_from>. Image paths are URL-decoded and looked up beside
 * the model: the path relative to the model's directory, then the base
 * name in that directory, then a file there whose name matches ignoring
 * case, spaces, '_' and '-'. Absolute and file:// paths (an exporter's
 * machine) are reduced to their base name first. A texture that cannot be
 * found keeps the joined path and adds a model warning; it never fails.
 */
#include "formats/collada_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/file.h"
#include "core/path.h"
#include "core/str.h"

/* ---- texture files ------------------------------------------------------ */

/* Lower-cased name without spaces, '_' and '-' (for the fuzzy match). */
static void fuzzy_key(const char *s, char *out, size_t cap)
{
    size_t j = 0;
    for (; *s && j + 1 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == ' ' || c == '_' || c == '-') continue;
        out[j++] = (char)tolower(c);
    }
    out[j] = '\0';
}

static char *find_fuzzy(const char *dir, const char *base)
{
    char want[256], have[256];
    fuzzy_key(base, want, sizeof want);
    if (!want[0]) return NULL;
    DIR *dp = opendir(dir);
    if (!dp) return NULL;
    char *found = NULL;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        fuzzy_key(e->d_name, have, sizeof have);
        if (strcmp(have, want) == 0) {
            char *p = mr_path_join(dir, e->d_name);
            if (p && mr_file_exists(p)) {
                found = p;
                break;
            }
            free(p);
        }
    }
    closedir(dp);
    return found;
}

/* path, after a model warning when it exists but is refused to readers
 * (outside the model's folder once links are resolved, or no regular file). */
static char *checked(cl_doc *d, const char *ref, cl_el *at, char *path)
{
    mr_error ferr = {0};
    if (path && d->model && mr_file_check_inside(d->dir, path, &ferr) == MR_ERR_BAD_FILE)
        mr_model_warn(d->model, "texture '%s' (line %ld) refused: %s; drawn as a checker", ref, at ? cl_line(at) : 0L,
                      ferr.msg);
    return path;
}

static char *resolve_texture(cl_doc *d, const char *ref, cl_el *at);

/* A reference resolved before (its path, or NULL: none), kept in the
 * document's arena: every primitive that uses a material asks again, and
 * each answer checks the file system (the folder check resolves links). */
typedef struct cl_texture_seen {
    const char *ref, *path;
    struct cl_texture_seen *next;
} cl_texture_seen;

char *cl_texture_path(cl_doc *d, const char *ref, cl_el *at)
{
    for (const cl_texture_seen *s = d->textures_seen; s; s = s->next)
        if (!strcmp(s->ref, ref)) return s->path ? mr_str_dup(s->path) : NULL;
    char *path = resolve_texture(d, ref, at);   /* warns once, for the first that asks */
    cl_texture_seen *s = cl_arena_alloc(d, sizeof *s);
    if (s) {
        s->ref = cl_arena_strndup(d, ref, strlen(ref));
        s->path = path ? cl_arena_strndup(d, path, strlen(path)) : NULL;
        s->next = d->textures_seen;
        if (s->ref && (s->path || !path)) d->textures_seen = s;
    }
    return path;
}

static char *resolve_texture(cl_doc *d, const char *ref, cl_el *at)
{
    char *path = mr_path_url_decode(ref, NULL);
    if (!path) return NULL;
    /* Trim, turn backslashes into slashes, drop a file:// scheme. */
    char *p = path;
    while (*p && isspace((unsigned char)*p)) p++;
    memmove(path, p, strlen(p) + 1);
    size_t n = strlen(path);
    while (n && isspace((unsigned char)path[n - 1])) path[--n] = '\0';
    for (char *c = path; *c; c++)
        if (*c == '\\') *c = '/';
    if (!strncasecmp(path, "file://", 7)) {
        const char *rest = path + 7;
        if (rest[0] == '/' && isalpha((unsigned char)rest[1]) && rest[2] == ':') rest++;  /* file:///C:/ */
        memmove(path, rest, strlen(rest) + 1);
    }
    while (path[0] == '.' && path[1] == '/') memmove(path, path + 2, strlen(path + 2) + 1);
    int absolute = path[0] == '/' || (isalpha((unsigned char)path[0]) && path[1] == ':');
    const char *base = mr_path_basename(path);

    char *cand = NULL;
    if (!absolute && path[0]) {
        cand = mr_path_join(d->dir, path);
        if (cand && mr_file_exists(cand)) {
            free(path);
            return checked(d, ref, at, cand);
        }
        free(cand);
    }
    if (base[0]) {
        cand = mr_path_join(d->dir, base);
        if (cand && mr_file_exists(cand)) {
            free(path);
            return checked(d, ref, at, cand);
        }
        free(cand);
        cand = find_fuzzy(d->dir, base);
        if (cand) {
            free(path);
            return checked(d, ref, at, cand);
        }
    }
    char *fallback = mr_path_join(d->dir, absolute ? base : path);
    struct stat sb;
    if (fallback && stat(fallback, &sb) == 0) {
        /* there, but no regular file: a FIFO, a device (../../dev/stdin) */
        free(path);
        return checked(d, ref, at, fallback);
    }
    if (d->model) {
        char where[64] = "";
        if (at) snprintf(where, sizeof where, " (line %ld)", cl_line(at));
        mr_model_warn(d->model, "texture '%s'%s not found beside the model; kept as '%s'", ref, where,
                      fallback ? fallback : "?");
    }
    free(path);
    return fallback;
}

/* ---- effects ------------------------------------------------------------- */

/* <newparam sid="sid"> in the profile, then in the effect. */
static cl_el *find_newparam(cl_el *profile, cl_el *effect, const char *sid)
{
    cl_el *scopes[2] = {profile, effect};
    for (int k = 0; k < 2; k++) {
        if (!scopes[k]) continue;
        for (cl_el *c = cl_child(scopes[k], "newparam"); c; c = cl_next(c, "newparam")) {
            const char *s = cl_attr(c, "sid");
            if (s && !strcmp(s, sid)) return c;
        }
    }
    return NULL;
}

static char *trimmed_text(cl_el *el)
{
    if (!el) return NULL;
    char *owned;
    size_t len;
    const char *t = cl_text(el, &len, &owned);
    if (!t) return NULL;
    while (len && isspace((unsigned char)*t)) t++, len--;
    while (len && isspace((unsigned char)t[len - 1])) len--;
    char *out = mr_str_ndup(t, len);
    free(owned);
    return out;
}

/* Path text of an <image>: <init_from>path</init_from> (1.4) or
 * <init_from><ref>path</ref></init_from> (1.5). */
static char *image_ref(cl_el *image)
{
    cl_el *init = cl_child(image, "init_from");
    if (!init) return NULL;
    cl_el *ref = cl_child(init, "ref");
    return trimmed_text(ref ? ref : init);
}

/* Resolves <texture texture="X"> to its <image>, or NULL. */
static cl_el *texture_image(cl_doc *d, cl_el *profile, cl_el *effect, const char *tex)
{
    cl_el *np = find_newparam(profile, effect, tex);
    if (np) {
        cl_el *sampler = cl_child(np, "sampler2D");
        if (!sampler) return NULL;
        cl_el *ii = cl_child(sampler, "instance_image");  /* 1.5 */
        if (ii) return cl_lookup(d, cl_attr(ii, "url"));
        char *surf_sid = trimmed_text(cl_child(sampler, "source"));
        if (!surf_sid) return NULL;
        cl_el *sp = find_newparam(profile, effect, surf_sid);
        free(surf_sid);
        cl_el *surface = sp ? cl_child(sp, "surface") : NULL;
        char *img_id = trimmed_text(surface ? cl_child(surface, "init_from") : NULL);
        if (!img_id) return NULL;
        cl_el *img = cl_find_id(d, img_id, strlen(img_id));
        free(img_id);
        return img && cl_is(img, "image") ? img : NULL;
    }
    /* Some exporters name the image directly. */
    cl_el *img = cl_find_id(d, tex, strlen(tex));
    return img && cl_is(img, "image") ? img : NULL;
}

static mr_status read_color(cl_doc *d, cl_el *slot, float out[4])
{
    cl_el *color = cl_child(slot, "color");
    if (!color) return MR_OK;
    float v[4] = {0, 0, 0, 1};
    /* RGB or RGBA, read like every other number of the document (values
     * past the fourth are ignored, as they always were). */
    long n;
    mr_status st = cl_some_floats(d, color, v, 4, &n);
    if (st != MR_OK) return st;
    if (n < 3) return cl_fail(d, color, "expected 3 or 4 numbers, found %ld", n);
    memcpy(out, v, sizeof v);
    return MR_OK;
}

mr_status cl_material_read(cl_doc *d, cl_el *material, mr_material *mat)
{
    const char *name = cl_attr(material, "name");
    if (!name) name = cl_attr(material, "id");
    free(mat->name);
    mat->name = mr_str_dup(name ? name : "material");
    cl_el *ie = cl_child(material, "instance_effect");
    if (!ie) return MR_OK;
    cl_el *effect;
    mr_status st = cl_ref(d, ie, "url", "effect", &effect);
    if (st != MR_OK) return st;
    cl_el *profile = cl_child(effect, "profile_COMMON");
    if (!profile) return MR_OK;  /* only shader profiles: keep defaults */
    cl_el *tech = cl_child(profile, "technique");
    cl_el *model = NULL;
    for (cl_el *c = tech ? cl_first_elem(tech) : NULL; c; c = cl_next_elem(c))
        if (cl_is(c, "phong") || cl_is(c, "blinn") || cl_is(c, "lambert") || cl_is(c, "constant")) {
            model = c;
            break;
        }
    if (!model) return MR_OK;
    static const char *slots[4] = {"emission", "ambient", "diffuse", "specular"};
    float *dst[4] = {mat->emission, mat->ambient, mat->diffuse, mat->specular};
    for (int k = 0; k < 4; k++) {
        cl_el *slot = cl_child(model, slots[k]);
        if (slot && (st = read_color(d, slot, dst[k])) != MR_OK) return st;
    }
    if (cl_is(model, "lambert") || cl_is(model, "constant")) memcpy(mat->specular, (float[4]){0, 0, 0, 1}, sizeof mat->specular);
    if (cl_is(model, "constant")) {
        memcpy(mat->diffuse, mat->emission, sizeof mat->diffuse);
        mat->diffuse[3] = 1.0f;
    }
    cl_el *shin = cl_child(model, "shininess");
    cl_el *f = shin ? cl_child(shin, "float") : NULL;
    if (f) {
        float v;
        if ((st = cl_fixed_floats(d, f, &v, 1)) != MR_OK) return st;
        mat->shininess = v;
    }
    cl_el *diffuse = cl_child(model, "diffuse");
    cl_el *tex = diffuse ? cl_child(diffuse, "texture") : NULL;
    const char *tex_name = tex ? cl_attr(tex, "texture") : NULL;
    if (tex_name) {
        cl_el *img = texture_image(d, profile, effect, tex_name);
        char *ref = img ? image_ref(img) : NULL;
        if (ref && ref[0]) {
            free(mat->diffuse_map);
            mat->diffuse_map = cl_texture_path(d, ref, img);
            memcpy(mat->diffuse, (float[4]){1, 1, 1, 1}, sizeof mat->diffuse);
        } else if (d->model) {
            mr_model_warn(d->model, "material '%s': diffuse texture '%s' (line %ld) does not lead to an image",
                          mat->name, tex_name, cl_line(tex));
        }
        free(ref);
    }
    return MR_OK;
}
