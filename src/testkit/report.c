/* report.c — report.html and junit.xml of a `marrow test` run (see
 * report.h). The HTML page is self-contained: inline CSS and a few lines of
 * inline JS (blink and slider views), images by relative path, so it opens
 * from disk in any browser with no server. The table takes the window's
 * width (up to 1400 pixels) and the images scale with their columns, so a
 * 1200-pixel window shows every column without scrolling sideways. */
#include "testkit/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testkit/approve.h"

static int shot_failed(const mr_scene_result *r, const mr_shot_result *s)
{
    return s->status == MR_SHOT_FAIL || s->status == MR_SHOT_MISSING || s->status == MR_SHOT_NOT_RUN ||
           (s->status == MR_SHOT_FLAKY && r->fail_flaky);
}

int mr_report_flaky(const mr_scene_result *r, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        for (int s = 0; s < r[i].shot_count; s++) k += r[i].shots[s].status == MR_SHOT_FLAKY;
    return k;
}

int mr_report_should_retry(const mr_scene_result *r)
{
    int missing = 0;
    for (int s = 0; s < r->shot_count; s++) {
        if (r->shots[s].status == MR_SHOT_FAIL) return 1;
        missing += r->shots[s].status == MR_SHOT_MISSING;
    }
    return r->error && !missing;
}

/* Copies the first line of src into dst (n bytes). */
static void first_line(char *dst, size_t n, const char *src)
{
    size_t len = strcspn(src, "\n");
    if (len >= n) len = n - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

void mr_scene_result_deinit(mr_scene_result *r)
{
    free(r->shots);
    r->shots = NULL;
    r->shot_count = 0;
}

void mr_report_merge_retry(mr_scene_result *now, const mr_scene_result *before)
{
    now->attempts = before->attempts + 1;
    if (now->error) return;
    for (int s = 0; s < now->shot_count; s++)
        if (now->shots[s].status != MR_SHOT_PASS) return;
    for (int s = 0; s < now->shot_count; s++) {
        mr_shot_result *sh = &now->shots[s];
        const mr_shot_result *old = s < before->shot_count && before->shots[s].frame == sh->frame
                                    ? &before->shots[s] : NULL;
        int was_bad = !old || old->status == MR_SHOT_FAIL || old->status == MR_SHOT_NOT_RUN ||
                      old->status == MR_SHOT_FLAKY || before->error;
        if (!was_bad) continue;
        char why[600];
        if (old && (old->status == MR_SHOT_FAIL || old->status == MR_SHOT_FLAKY)) first_line(why, sizeof why, old->msg);
        else first_line(why, sizeof why, before->message);
        char line[1200];
        snprintf(line, sizeof line, "%s frame %d: flaky: passed on attempt %d after failing: %s", now->name,
                 sh->frame, now->attempts, why);
        first_line(sh->msg, sizeof sh->msg, line);
        sh->status = MR_SHOT_FLAKY;
    }
}

void mr_report_count(const mr_scene_result *r, int n, int *passed, int *failed)
{
    *passed = *failed = 0;
    for (int i = 0; i < n; i++) {
        if (r[i].shot_count == 0) {
            (*failed)++;           /* failed before its shots were known */
            continue;
        }
        for (int s = 0; s < r[i].shot_count; s++) {
            int bad = shot_failed(&r[i], &r[i].shots[s]) ||
                      (r[i].error && r[i].shots[s].status != MR_SHOT_FAIL && r[i].shots[s].status != MR_SHOT_MISSING);
            /* A scene error after its shots ran (unload() failed) fails them all. */
            if (bad) (*failed)++;
            else (*passed)++;
        }
    }
}

/* Text for HTML and XML: & < > " escaped. */
static void esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default:
            if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') fputc('?', f);
            else fputc(*s, f);
        }
    }
}

/* A path component in a URL: everything but [A-Za-z0-9._-] percent-encoded. */
static void url(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
            c == '-')
            fputc(c, f);
        else
            fprintf(f, "%%%02X", c);
    }
}

static const char *status_word(const mr_scene_result *r, const mr_shot_result *s)
{
    switch (s->status) {
    case MR_SHOT_PASS: return r->error ? "error" : "pass";
    case MR_SHOT_FAIL: return "fail";
    case MR_SHOT_MISSING: return "no golden";
    case MR_SHOT_UPDATED: return r->error ? "error" : "updated";
    case MR_SHOT_FLAKY: return r->fail_flaky ? "flaky (failing)" : "flaky";
    default: return "not run";
    }
}

static void img(FILE *f, const mr_scene_result *r, const mr_shot_result *s, const char *file, const char *cls)
{
    fputs("<img class=\"", f);
    fputs(cls, f);
    fputs("\" src=\"", f);
    url(f, r->name);
    fprintf(f, "/%04d/%s\" alt=\"%s\">", s->frame, file, file);
}

static const char css_js[] =
    "<style>\n"
    "body{font:14px/1.4 sans-serif;margin:16px;background:#fafafa;color:#222;max-width:1400px}\n"
    "table{border-collapse:collapse;width:100%;table-layout:fixed}th:first-child{width:20%}\n"
    "td,th{border:1px solid #ccc;padding:6px;vertical-align:top;text-align:left;overflow-wrap:anywhere}\n"
    "tr.fail td.st,tr.error td.st,tr.nogolden td.st,tr.notrun td.st{background:#f4c7c3;font-weight:bold}\n"
    "tr.pass td.st,tr.updated td.st{background:#c8e6c9}\n"
    "tr.flaky td.st{background:#fff3b0}tr.flakyfailing td.st{background:#f4c7c3}\n"
    "pre.approve{background:#eee;padding:4px 8px;margin:4px 0;user-select:all;white-space:pre-wrap}\n"
    "img{width:100%;height:auto;display:block;image-rendering:pixelated}\n"
    ".stack{position:relative;display:block}.stack img.top{position:absolute;left:0;top:0}\n"
    "input[type=range]{width:60%}\n"
    ".msg{font-family:monospace;white-space:pre-wrap;word-break:break-all;font-size:11px}\n"
    "</style>\n<script>\n"
    "function slide(r){var t=r.parentNode.querySelector('img.top');t.style.clipPath='inset(0 '+(100-r.value)+'% 0 0)';}\n"
    "function blink(b){var t=b.parentNode.querySelector('img.top');\n"
    " if(b.timer){clearInterval(b.timer);b.timer=null;t.style.visibility='';b.textContent='blink';return;}\n"
    " b.textContent='stop';b.timer=setInterval(function(){t.style.visibility=t.style.visibility=='hidden'?'':'hidden';},500);}\n"
    "</script>\n";

/* 1 when the scene has shots whose actuals --approve would copy. */
static int approvable(const mr_scene_result *sc)
{
    for (int s = 0; s < sc->shot_count; s++) {
        int st = sc->shots[s].status;
        if (st == MR_SHOT_FAIL || st == MR_SHOT_MISSING || st == MR_SHOT_FLAKY) return 1;
    }
    return 0;
}

/* A shell word: as is when plain, else in single quotes. */
static void shell_word(FILE *f, const char *s)
{
    if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/+=:,") == strlen(s)) {
        esc(f, s);
        return;
    }
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputs("'\\''", f);
        else {
            char c[2] = {*s, 0};
            esc(f, c);
        }
    }
    fputc('\'', f);
}

static void approve_command(FILE *f, const char *out_abs, const char *scene)
{
    fputs("<pre class=\"approve\">marrow test --approve ", f);
    shell_word(f, out_abs);
    if (scene) {
        fputc(' ', f);
        shell_word(f, scene);
    }
    fputs("</pre>", f);
}

static int write_html(const char *path, const char *out_abs, const mr_scene_result *r, int n, double seconds,
                      const char *label)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    int passed, failed;
    mr_report_count(r, n, &passed, &failed);
    fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>marrow test%s%s%s: %d passed, %d "
               "failed</title>\n%s</head><body>\n", label ? " (" : "", label ? label : "", label ? ")" : "",
            passed, failed, css_js);
    fprintf(f, "<h1>marrow test%s", label ? " (" : "");
    if (label) esc(f, label);
    fprintf(f, "%s: %d passed, %d failed</h1>\n<p>%d scene%s in %.1f s; failing scenes first. Expected is the golden "
               "image, actual is this run, diff shows real differences in red and anti-aliasing "
               "differences in magenta over a faded copy of expected. The last column shows actual over "
               "expected: drag the slider or press blink.</p>\n",
            label ? ")" : "", passed, failed, n, n == 1 ? "" : "s", seconds);
    int to_approve = 0;
    for (int i = 0; i < n; i++) to_approve += approvable(&r[i]);
    if (to_approve > 1) {
        fputs("<p>After reviewing, approve the actuals of every failing scene (images and poses become the "
              "goldens, nothing is rendered again):</p>", f);
        approve_command(f, out_abs, NULL);
    }
    fputs("<table><tr><th>scene, frame, result</th><th>expected</th><th>actual</th><th>diff</th>"
          "<th>actual over expected</th></tr>\n", f);
    /* Failing scenes first, each group in run order. */
    for (int pass = 0; pass < 2 * n; pass++) {
        const mr_scene_result *sc = &r[pass % n];
        int ok_shots, bad_shots;
        mr_report_count(sc, 1, &ok_shots, &bad_shots);
        if ((pass < n) != (bad_shots > 0)) continue;
        if (sc->error || sc->shot_count == 0) {
            fputs("<tr class=\"error\"><td class=\"st\">", f);
            esc(f, sc->name);
            fputs("<br>error</td><td colspan=\"4\"><div class=\"msg\" style=\"width:auto\">", f);
            esc(f, sc->message);
            fprintf(f, "</div>%.2f s</td></tr>\n", sc->seconds);
        }
        if (approvable(sc)) {
            fputs("<tr class=\"approve\"><td colspan=\"5\"><b>", f);
            esc(f, sc->name);
            fputs("</b>: if the actuals below are right, approve them with", f);
            approve_command(f, out_abs, sc->name);
            fputs("</td></tr>\n", f);
        }
        for (int s = 0; s < sc->shot_count; s++) {
            const mr_shot_result *sh = &sc->shots[s];
            const char *word = status_word(sc, sh);
            char cls[16];
            int k = 0;
            for (const char *p = word; *p && k < 15; p++)
                if ((*p >= 'a' && *p <= 'z')) cls[k++] = *p;
            cls[k] = '\0';
            fprintf(f, "<tr class=\"%s\"><td class=\"st\"><b>", cls);
            esc(f, sc->name);
            fprintf(f, "</b> frame %04d: %s<br>scene %.2f s", sh->frame, word, sc->seconds);
            if (sc->attempts > 1) fprintf(f, " (attempt %d)", sc->attempts);
            if (sh->masked) fprintf(f, "<br>%ld pixels ignored (hatched in diff)", sh->masked);
            fputs("<div class=\"msg\">", f);
            esc(f, sh->msg);
            fputs("</div></td><td>", f);
            if (sh->has_expected) img(f, sc, sh, "expected.png", "e");
            fputs("</td><td>", f);
            if (sh->has_actual) img(f, sc, sh, "actual.png", "a");
            fputs("</td><td>", f);
            if (sh->has_diff) img(f, sc, sh, "diff.png", "d");
            fputs("</td><td>", f);
            if (sh->has_expected && sh->has_actual) {
                fputs("<div class=\"stack\">", f);
                img(f, sc, sh, "expected.png", "under");
                img(f, sc, sh, "actual.png", "top");
                fputs("</div><br><input type=\"range\" min=\"0\" max=\"100\" value=\"100\" oninput=\"slide(this)\">"
                      " <button onclick=\"blink(this)\">blink</button>", f);
            }
            fputs("</td></tr>\n", f);
        }
    }
    fputs("</table>\n</body></html>\n", f);
    return fclose(f) == 0 ? 0 : -1;
}

static int write_junit(const char *path, const mr_scene_result *r, int n, double seconds, const char *label)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    int passed, failed;
    mr_report_count(r, n, &passed, &failed);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"marrow test", f);
    if (label) {
        fputs(" (", f);
        esc(f, label);
        fputc(')', f);
    }
    fprintf(f, "\" tests=\"%d\" failures=\"%d\" time=\"%.3f\">\n", passed + failed, failed, seconds);
    for (int i = 0; i < n; i++) {
        const mr_scene_result *sc = &r[i];
        int p, fl;
        mr_report_count(sc, 1, &p, &fl);
        fputs("  <testsuite name=\"", f);
        esc(f, sc->name);
        fprintf(f, "\" tests=\"%d\" failures=\"%d\" time=\"%.3f\">\n", p + fl, fl, sc->seconds);
        if (sc->shot_count == 0) {
            fputs("    <testcase classname=\"marrow.scenes.", f);
            esc(f, sc->name);
            fprintf(f, "\" name=\"scene\" time=\"%.3f\"><failure message=\"scene error\">", sc->seconds);
            esc(f, sc->message);
            fputs("</failure></testcase>\n", f);
        }
        for (int s = 0; s < sc->shot_count; s++) {
            const mr_shot_result *sh = &sc->shots[s];
            fputs("    <testcase classname=\"marrow.scenes.", f);
            esc(f, sc->name);
            fprintf(f, "\" name=\"frame %04d\" time=\"%.3f\">", sh->frame, sc->seconds / sc->shot_count);
            int bad = shot_failed(sc, sh) || (sc->error && sh->status != MR_SHOT_FAIL && sh->status != MR_SHOT_MISSING);
            if (!bad && sh->status == MR_SHOT_FLAKY) {
                /* Surefire's element for a test that failed, then passed on a rerun. */
                fputs("<flakyFailure message=\"", f);
                esc(f, sh->msg);
                fputs("\"/>", f);
            }
            if (bad) {
                fputs("<failure message=\"", f);
                esc(f, sh->msg);
                fputs("\">", f);
                esc(f, sh->status == MR_SHOT_FAIL || sh->status == MR_SHOT_MISSING ? sh->msg : sc->message);
                fputs("</failure>", f);
            }
            fputs("</testcase>\n", f);
        }
        fputs("  </testsuite>\n", f);
    }
    fputs("</testsuites>\n", f);
    return fclose(f) == 0 ? 0 : -1;
}

mr_status mr_report_write(const char *out_dir, const mr_scene_result *r, int n, double seconds, mr_error *err)
{
    return mr_report_write_labelled(out_dir, r, n, seconds, NULL, err);
}

mr_status mr_report_write_labelled(const char *out_dir, const mr_scene_result *r, int n, double seconds,
                                   const char *label, mr_error *err)
{
    char path[4096], out_abs[4096];
    if (!realpath(out_dir, out_abs)) snprintf(out_abs, sizeof out_abs, "%s", out_dir);
    snprintf(path, sizeof path, "%s/report.html", out_dir);
    if (write_html(path, out_abs, r, n, seconds, label)) return mr_error_set(err, MR_ERR_IO, "cannot write %s", path);
    snprintf(path, sizeof path, "%s/junit.xml", out_dir);
    if (write_junit(path, r, n, seconds, label)) return mr_error_set(err, MR_ERR_IO, "cannot write %s", path);
    return mr_approve_write_results(out_dir, r, n, err);
}
