/* approve.c — results.tsv and `marrow test --approve` (see approve.h). */
#include "testkit/approve.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "core/path.h"
#include "core/str.h"

static const char *status_name(const mr_scene_result *r, const mr_shot_result *s)
{
    switch (s->status) {
    case MR_SHOT_PASS: return r->error ? "error" : "pass";
    case MR_SHOT_FAIL: return "fail";
    case MR_SHOT_MISSING: return "missing";
    case MR_SHOT_UPDATED: return r->error ? "error" : "updated";
    case MR_SHOT_FLAKY: return "flaky";
    default: return "notrun";
    }
}

mr_status mr_approve_write_results(const char *out_dir, const mr_scene_result *r, int n, mr_error *err)
{
    char *path = mr_str_fmt("%s/results.tsv", out_dir);
    FILE *f = path ? fopen(path, "w") : NULL;
    if (!f) {
        mr_error_set(err, MR_ERR_IO, "cannot write %s/results.tsv: %s", out_dir, strerror(errno));
        free(path);
        return MR_ERR_IO;
    }
    fputs("# marrow test results: scene\tscript\tframe\tstatus\n", f);
    for (int i = 0; i < n; i++) {
        char abs[PATH_MAX];
        if (!realpath(r[i].path, abs)) snprintf(abs, sizeof abs, "%s", r[i].path);
        for (int s = 0; s < r[i].shot_count; s++)
            fprintf(f, "%s\t%s\t%d\t%s\n", r[i].name, abs, r[i].shots[s].frame, status_name(&r[i], &r[i].shots[s]));
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        mr_error_set(err, MR_ERR_IO, "cannot write %s", path);
        free(path);
        return MR_ERR_IO;
    }
    free(path);
    return MR_OK;
}

/* Copies one shot's actuals (img, pose: files of the run's --out folder)
 * into the golden folder beside script: NAME.golden right inside the
 * script's folder, opened (made) without following a link, the files
 * written through fresh temporary files renamed into place, so a link
 * planted in a pull request's scene folder is never written through. */
static mr_status approve_shot(const char *name, const char *script, const char *golden, const char *img,
                              const char *pose, const char *gimg, const char *gpose, int frame, mr_error *err)
{
    /* The scene's name is its script's file name: results.tsv names both. */
    const char *base = mr_path_basename(script);
    size_t nlen = strlen(name);
    int named = strncmp(base, name, nlen) == 0 && !strcmp(base + nlen, ".lua");
    for (const char *p = name; named && *p; p++) named = (unsigned char)*p >= 0x20;
    if (!named)
        return mr_error_set(err, MR_ERR_BAD_FILE, "scene '%s' frame %d: its script %s is not NAME.lua (results.tsv "
                            "edited?); not approved", name, frame, script);
    char *folder = mr_path_dirname(script);
    int dfd = folder ? mr_file_dir_open(folder, err) : -1;
    free(folder);
    if (dfd < 0) return err && err->status ? err->status : MR_ERR_IO;
    int gfd = mr_file_dir_open_at(dfd, mr_path_basename(golden), 1, golden, err);
    close(dfd);
    if (gfd < 0) return err && err->status ? err->status : MR_ERR_IO;
    mr_status st = MR_OK;
    const char *from[2] = {img, pose}, *to[2] = {gimg, gpose};
    for (int i = 0; i < 2 && st == MR_OK; i++) {
        size_t size = 0;
        mr_error e = {0};
        char *data = mr_file_read(from[i], &size, &e);
        st = data ? mr_file_write_at(gfd, mr_path_basename(to[i]), to[i], data, size, &e) : e.status;
        if (st != MR_OK && err) *err = e;
        free(data);
    }
    close(gfd);
    return st;
}

/* 1 when scene `name` was asked for: by name, glob, or a path to NAME.lua. */
static int chosen(const char *name, const char *arg)
{
    if (!strcmp(name, arg)) return 1;
    if (strpbrk(arg, "*?[") && fnmatch(arg, name, 0) == 0) return 1;
    const char *base = mr_path_basename(arg);
    size_t len = strlen(name);
    return !strncmp(base, name, len) && !strcmp(base + len, ".lua");
}

mr_status mr_approve(const char *out_dir, const char *const *scenes, int scene_count, FILE *log, int *copied,
                     mr_error *err)
{
    *copied = 0;
    char *path = mr_str_fmt("%s/results.tsv", out_dir);
    char *text = path ? mr_file_read(path, NULL, NULL) : NULL;
    if (!text) {
        mr_error_set(err, MR_ERR_IO, "%s has no results.tsv: give the --out folder of a finished `marrow test` run",
                     out_dir);
        free(path);
        return MR_ERR_IO;
    }
    char *used = calloc((size_t)scene_count + 1, 1);
    size_t lines = 1;                  /* the run's scene names, for "did you mean" */
    for (const char *p = text; *p; p++) lines += *p == '\n';
    const char **names = calloc(lines, sizeof *names);
    int name_count = 0;
    mr_status st = used && names ? MR_OK : mr_error_set(err, MR_ERR_NO_MEMORY, "out of memory");
    int lineno = 0;
    for (char *line = text; st == MR_OK && line && *line; ) {
        char *next = strchr(line, '\n');
        if (next) *next++ = '\0';
        lineno++;
        if (line[0] == '#' || !line[0]) {
            line = next;
            continue;
        }
        char *f[4] = {line};
        int nf = 1;
        for (char *p = line; *p && nf < 4; p++)
            if (*p == '\t') {
                *p = '\0';
                f[nf++] = p + 1;
            }
        if (nf != 4 || strchr(f[3], '\t')) {
            st = mr_error_set(err, MR_ERR_BAD_FILE, "%s:%d: expected scene, script, frame and status", path, lineno);
            break;
        }
        const char *name = f[0], *script = f[1], *status = f[3];
        int frame = atoi(f[2]);
        line = next;
        if (!name_count || strcmp(names[name_count - 1], name)) names[name_count++] = name;  /* points into text */
        int want = scene_count == 0;
        for (int i = 0; i < scene_count; i++)
            if (chosen(name, scenes[i])) want = used[i] = 1;
        if (!want) continue;
        if (!strcmp(status, "notrun") || !strcmp(status, "error")) {
            if (scene_count) fprintf(log, "%s frame %d: not approved: the scene failed, so it has no actuals\n", name, frame);
            continue;
        }
        if (strcmp(status, "fail") && strcmp(status, "missing") && strcmp(status, "flaky")) continue;
        size_t len = strlen(script);
        char *golden = mr_str_fmt("%.*s.golden", (int)(len > 4 ? len - 4 : len), script);
        char *img = mr_str_fmt("%s/%s/%04d/actual.png", out_dir, name, frame);
        char *pose = mr_str_fmt("%s/%s/%04d/actual.pose.json", out_dir, name, frame);
        char *gimg = mr_str_fmt("%s/%04d.png", golden ? golden : "", frame);
        char *gpose = mr_str_fmt("%s/%04d.pose.json", golden ? golden : "", frame);
        if (!golden || !img || !pose || !gimg || !gpose) {
            st = mr_error_set(err, MR_ERR_NO_MEMORY, "out of memory");
        } else if (!mr_file_exists(img) || !mr_file_exists(pose)) {
            st = mr_error_set(err, MR_ERR_IO, "%s frame %d: %s or %s is missing: was %s cleaned since the run?", name,
                              frame, img, pose, out_dir);
        } else {
            st = approve_shot(name, script, golden, img, pose, gimg, gpose, frame, err);
            if (st == MR_OK) {
                fprintf(log, "approved %s frame %d (%s): %s and %s\n", name, frame, status, gimg, gpose);
                (*copied)++;
            }
        }
        free(golden);
        free(img);
        free(pose);
        free(gimg);
        free(gpose);
    }
    for (int i = 0; st == MR_OK && i < scene_count; i++)
        if (!used[i]) {
            char want[256];            /* the name asked for: NAME, or a path to NAME.lua */
            snprintf(want, sizeof want, "%s", mr_path_basename(scenes[i]));
            size_t n = strlen(want);
            if (n > 4 && !strcmp(want + n - 4, ".lua")) want[n - 4] = '\0';
            int close = mr_str_closest(want, names, name_count, n / 3 > 2 ? (int)(n / 3) : 2);
            st = mr_error_set(err, MR_ERR_INVALID_ARGUMENT, "no scene '%s' in the run of %s (see %s)%s%s%s",
                              scenes[i], out_dir, path, close >= 0 ? "; did you mean '" : "",
                              close >= 0 ? names[close] : "", close >= 0 ? "'?" : "");
        }
    free(names);
    free(used);
    free(text);
    free(path);
    return st;
}
