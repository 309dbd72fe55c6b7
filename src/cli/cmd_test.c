/* cmd_test.c — `marrow test`: runs regression scenes headless and compares
 * their shots with golden PNGs (see the help text below and README.md); the
 * checking of one scene's shots is testkit/check.h.
 *
 * Scenes run in worker processes made with fork() before this process
 * touches OpenGL; --jobs N keeps N of them. A worker opens its GL context
 * and renderer once (testkit/scene.h: a runner) and runs the scenes the
 * parent hands it one after another, each with a fresh Lua state, so the
 * driver load, shader compile and llvmpipe JIT are paid once per worker
 * instead of once per scene. The parent sends a scene's index (and whether
 * to keep its passing shots' files: --keep-images, or a retry, whose
 * actuals --approve takes for flaky shots) on the worker's task pipe; the
 * worker writes its mr_scene_result to OUT/SCENE/.result, then the scene's
 * index on its done pipe.
 * A scene that crashes its worker (or passes --timeout, which kills it)
 * fails alone: the parent reports it from the exit status and starts a new
 * worker for the scenes left. Progress is printed in scene order, so the
 * output does not depend on which worker finishes first.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include "cli/cli.h"
#include "formats/cache.h"
#include "cli/cmd.h"
#include "core/alloc.h"
#include "core/error.h"
#include "core/file.h"
#include "core/path.h"
#include "core/str.h"
#include "platform/clock.h"
#include "platform/stop.h"
#include "testkit/approve.h"
#include "testkit/check.h"
#include "testkit/report.h"
#include "testkit/scene.h"

static const char test_help[] =
    "usage: marrow test [options] [DIR|SCENE.lua ...]\n"
    "       marrow test --approve OUT [SCENE ...]\n"
    "\n"
    "Runs every regression scene (*.lua; _*.lua are helper modules) in the\n"
    "given folders (default tests/scenes) and scene files, headless and\n"
    "deterministically, and compares each shot the scene declares with its\n"
    "goldens beside the scene: the image NAME.golden/FRAME.png (FRAME = frame\n"
    "number, 4 digits: walk.golden/0045.png) and the poses drawn,\n"
    "NAME.golden/FRAME.pose.json (every joint of every marrow.draw and\n"
    "draw_skeleton in model space; a failure names the joints that moved\n"
    "most: \"hand_l moved 4.1 cm, lowerarm_l 2.0 cm\").\n"
    "A scene declares what to capture in a global table:\n"
    "  scene = {size = {320, 240}, fps = 30, frames = 60, shots = {0, 30, 59},\n"
    "           tolerance = {threshold = 3, max_diff = 0.0005, max_aa = 0.01,\n"
    "                        pose = 0.02, pose_angle = 0.05},\n"
    "           ignore = {{250, 4, 66, 20}, \"text\"}}\n"
    "tolerance.pose is in model units (default 0.5 mm), pose_angle in degrees;\n"
    "ignore lists pixel rectangles {x, y, w, h} (y down) and the layer \"text\"\n"
    "(every marrow.text string) left out of the image comparison, hatched in\n"
    "diff.png.\n"
    "\n"
    "options:\n"
    "  --update        write (or refresh) the goldens of the scenes run instead\n"
    "                  of comparing; name scene files to approve only those\n"
    "  --approve OUT   copy the actuals (images and poses) of the finished run\n"
    "                  in OUT into the goldens of its failed, new or flaky\n"
    "                  shots, without rendering; SCENE names (or globs) choose\n"
    "                  scenes, none = all of them. report.html shows the command\n"
    "  --retries N     run a failing scene up to N more times; shots that fail,\n"
    "                  then pass are reported flaky and do not fail the run\n"
    "  --fail-flaky    flaky shots fail the run\n"
    "  --out DIR       actual/expected/diff PNGs of the shots that did not\n"
    "                  pass, report.html, junit.xml (default out/test)\n"
    "  --keep-images   write the actual/expected/diff PNGs and actual poses of\n"
    "                  passing shots too (by default a passing shot writes no\n"
    "                  files: encoding them is much of a scene's time)\n"
    "  --jobs N        run N scenes at once, in N worker processes (default 1)\n"
    "  --shard K/N     run only scenes whose index in the sorted list % N == K-1\n"
    "  --filter PAT    only scenes whose name contains PAT (or matches it as a\n"
    "                  glob when PAT has * ? or [)\n"
    "  --timeout S     a scene running longer is stopped and fails (default 600)\n"
    "\n"
    "Each shot is one test; the run ends with 'N passed, N failed' (flaky\n"
    "shots count as passed unless --fail-flaky).\n"
    "Models: scenes never use your model cache. A run keeps its own in a\n"
    "temporary folder ($TMPDIR, else /tmp), removed at its end, so a model\n"
    "several scenes load is read and packed once; a cached model is the same\n"
    "model. The summary says how many loads came from it.\n"
    "Goldens are untrusted input: NAME.golden must be a folder inside the\n"
    "scene's folder (a link is refused), goldens must be regular files (links,\n"
    "FIFOs and devices fail their shot), and are written through temporary\n"
    "files renamed into place.\n"
    "Exit codes: 0 all passed, 1 something failed, 2 usage, 130/143 stopped by\n"
    "SIGINT/SIGTERM (the scenes' processes end with the run).\n";

typedef struct test_opts {
    int update, jobs, shard_k, shard_n, keep_images;
    int before_shard;        /* scenes left by --filter, of which --shard kept count */
    int retries, fail_flaky;
    const char *approve;     /* --approve OUT: names are scenes of that run */
    float timeout;           /* seconds a scene may run before it is killed */
    const char *out, *filter;
    char **paths;            /* scene scripts, owned */
    int count, cap;
} test_opts;

/* ---- collecting scenes ------------------------------------------------------- */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

static int add_path(test_opts *o, char *p)
{
    if (!p) return -1;
    for (int i = 0; i < o->count; i++)
        if (!strcmp(o->paths[i], p)) {
            free(p);
            return 0;
        }
    size_t cap = (size_t)o->cap;
    if (mr_alloc_reserve((void **)&o->paths, &cap, (size_t)o->count + 1, sizeof *o->paths)) {
        free(p);
        return -1;
    }
    o->cap = (int)cap;
    o->paths[o->count++] = p;
    return 0;
}

/* Whether a scene file's name can name a scene: no control characters (a
 * tab or a newline would forge lines of results.tsv, which --approve reads). */
static int plain_scene_name(const char *path)
{
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        if (*p < 0x20 || *p == 0x7f) return 0;
    return 1;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Adds the *.lua files of dir, sorted by name; names starting with '_' are
 * helper modules, not scenes (so are files in subfolders). */
static int add_dir(test_opts *o, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int first = o->count;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && e->d_name[0] != '_' && ends_with(e->d_name, ".lua")) {
            if (!plain_scene_name(e->d_name)) {
                fprintf(stderr, "marrow test: skipping a scene in %s whose file name has control characters\n", dir);
                continue;
            }
            size_t len = strlen(dir);
            const char *sep = len && dir[len - 1] == '/' ? "" : "/";
            if (add_path(o, mr_str_fmt("%s%s%s", dir, sep, e->d_name))) break;
        }
    closedir(d);
    qsort(o->paths + first, (size_t)(o->count - first), sizeof *o->paths, cmp_str);
    return 0;
}

static void scene_name(const char *path, char *out, size_t n)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (ends_with(base, ".lua")) len -= 4;
    if (len >= n) len = n - 1;
    memcpy(out, base, len);
    out[len] = '\0';
}

static int matches(const char *name, const char *pat)
{
    if (!pat) return 1;
    if (strpbrk(pat, "*?[")) return fnmatch(pat, name, 0) == 0;
    return strstr(name, pat) != NULL;
}

/* ---- arguments ------------------------------------------------------------------- */

static int parse(int argc, char **argv, test_opts *o)
{
    *o = (test_opts){.jobs = 1, .out = "out/test", .timeout = 600};
    const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
    int ninputs = 0;
    if (!inputs) return mr_cli_usage_error("test", "out of memory");
    int rc = 0;
    for (int i = 1; i < argc && !rc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(test_help, stdout);
            rc = -1;
        } else if (!strcmp(a, "--update")) {
            o->update = 1;
        } else if (!strcmp(a, "--approve")) {
            if (!v || !*v) rc = mr_cli_usage_error("test", "--approve needs the --out folder of a finished run");
            o->approve = v;
            i++;
        } else if (!strcmp(a, "--retries")) {
            if (mr_cli_int(v, &o->retries) || o->retries < 0 || o->retries > 100)
                rc = mr_cli_usage_error("test", "--retries needs a count in 0..100");
            i++;
        } else if (!strcmp(a, "--keep-images")) {
            o->keep_images = 1;
        } else if (!strcmp(a, "--fail-flaky")) {
            o->fail_flaky = 1;
        } else if (!strcmp(a, "--out")) {
            if (!v || !*v) rc = mr_cli_usage_error("test", "--out needs a directory");
            o->out = v;
            i++;
        } else if (!strcmp(a, "--jobs") || !strcmp(a, "-j")) {
            if (mr_cli_int(v, &o->jobs) || o->jobs < 1 || o->jobs > 256)
                rc = mr_cli_usage_error("test", "--jobs needs a count in 1..256");
            i++;
        } else if (!strcmp(a, "--shard")) {
            char tail;
            if (!v || sscanf(v, "%d/%d%c", &o->shard_k, &o->shard_n, &tail) != 2 || o->shard_n < 1 ||
                o->shard_k < 1 || o->shard_k > o->shard_n)
                rc = mr_cli_usage_error("test", "--shard needs K/N with 1 <= K <= N, e.g. 2/4");
            i++;
        } else if (!strcmp(a, "--timeout")) {
            if (mr_cli_float(v, &o->timeout) || !(o->timeout > 0 && o->timeout <= 86400))
                rc = mr_cli_usage_error("test", "--timeout needs seconds in (0, 86400]");
            i++;
        } else if (!strcmp(a, "--filter")) {
            if (!v) rc = mr_cli_usage_error("test", "--filter needs a pattern");
            o->filter = v;
            i++;
        } else if (a[0] == '-') {
            rc = mr_cli_usage_error("test", "unknown option '%s'", a);
        } else {
            inputs[ninputs++] = a;
        }
    }
    if (!rc && o->approve) {
        if (o->update) rc = mr_cli_usage_error("test", "--approve and --update do not go together");
        /* The inputs are scene names of the approved run: kept as they are. */
        for (int i = 0; i < ninputs && !rc; i++)
            if (add_path(o, mr_str_dup(inputs[i]))) rc = mr_cli_usage_error("test", "out of memory");
        free(inputs);
        return rc;
    }
    if (!rc && !ninputs) inputs[ninputs++] = "tests/scenes";
    for (int i = 0; i < ninputs && !rc; i++) {
        struct stat st;
        if (stat(inputs[i], &st) != 0) {
            rc = mr_cli_usage_error("test", "'%s' does not exist", inputs[i]);
        } else if (S_ISDIR(st.st_mode)) {
            if (add_dir(o, inputs[i])) rc = mr_cli_usage_error("test", "cannot read folder '%s'", inputs[i]);
        } else if (!plain_scene_name(inputs[i])) {
            rc = mr_cli_usage_error("test", "a scene's path may not have control characters");
        } else if (!ends_with(inputs[i], ".lua")) {
            rc = mr_cli_usage_error("test", "'%s' is not a folder or a .lua scene", inputs[i]);
        } else if (add_path(o, mr_str_dup(inputs[i]))) {
            rc = mr_cli_usage_error("test", "out of memory");
        }
    }
    free(inputs);
    if (rc) return rc;
    /* --filter, then --shard over what is left (both keep the order). */
    int kept = 0, index = 0;
    for (int i = 0; i < o->count; i++) {
        char name[128];
        scene_name(o->paths[i], name, sizeof name);
        int keep = matches(name, o->filter);
        if (keep && o->shard_n) keep = index++ % o->shard_n == o->shard_k - 1;
        if (keep) o->paths[kept++] = o->paths[i];
        else free(o->paths[i]);
    }
    o->before_shard = index;
    o->count = kept;
    /* Outputs go to OUT/NAME: two scenes may not share a name. */
    for (int i = 0; i < o->count; i++)
        for (int j = i + 1; j < o->count; j++) {
            char a[128], b[128];
            scene_name(o->paths[i], a, sizeof a);
            scene_name(o->paths[j], b, sizeof b);
            if (!strcmp(a, b))
                return mr_cli_usage_error("test", "two scenes are named '%s': %s and %s", a, o->paths[i],
                                          o->paths[j]);
        }
    return 0;
}

/* ---- one scene (in the child) ------------------------------------------------------ */

static void run_scene(const test_opts *o, mr_scene_runner **runner, const char *path, int keep, mr_scene_result *res)
{
    char scene_dir[1200];
    snprintf(scene_dir, sizeof scene_dir, "%s/%s", o->out, res->name);
    mr_file_mkdirs(scene_dir, NULL);
    /* The scene's own output (print, warnings) goes to OUT/SCENE/log.txt. */
    char log[1300];
    snprintf(log, sizeof log, "%s/log.txt", scene_dir);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
    fflush(NULL);
    if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
    }
    double t0 = mr_clock_now();
    mr_cache_stats before;
    mr_cache_get_stats(&before);
    if (!*runner) {        /* the worker's first scene opens the context (its errors go to this scene) */
        mr_error e = {0};
        if (mr_scene_runner_create(runner, &e) != MR_OK) {
            snprintf(res->message, sizeof res->message, "%s", e.msg);
            *runner = NULL;
        }
    }
    /* The scene file itself is untrusted too: a regular file, not a link
     * (to a file outside, whose first bytes a syntax error would show) nor
     * a FIFO (Lua's loader would wait on it until --timeout). */
    mr_error se = {0};
    char *folder = mr_path_dirname(path);
    int dfd = folder ? mr_file_dir_open(folder, &se) : -1;
    int sfd = dfd >= 0 ? mr_file_open_at(dfd, mr_path_basename(path), path, NULL, &se) : -1;
    free(folder);
    if (dfd >= 0) close(dfd);
    if (sfd >= 0) close(sfd);
    if (sfd < 0) {
        snprintf(res->message, sizeof res->message, "%s", se.msg[0] ? se.msg : "cannot open the scene");
        res->shot_count = 0;
        res->error = 1;
    } else if (*runner) {
        mr_check_scene(*runner, path, scene_dir, o->update, keep, res);
    } else {
        res->shot_count = 0;
        res->error = 1;
    }
    fflush(NULL);
    res->seconds = mr_clock_now() - t0;
    mr_cache_stats after;
    mr_cache_get_stats(&after);
    res->models_cached = after.hits - before.hits;
    res->models_built = after.misses - before.misses;
}

/* ---- the parent: children, progress, summary ------------------------------------------- */

static void result_path(const test_opts *o, const mr_scene_result *r, char *out, size_t n)
{
    snprintf(out, n, "%s/%s/.result", o->out, r->name);
}

/* A worker process: runs the scenes whose indices it reads from its task
 * pipe, answering each with the index on its done pipe. */
typedef struct worker {
    pid_t pid;               /* 0: none */
    int task_fd, done_fd;    /* the parent's ends; task_fd -1 once closed (the worker ends) */
    int current;             /* scene being run, or -1 */
} worker;

static void close_fd(int *fd)
{
    if (*fd >= 0) close(*fd);
    *fd = -1;
}

static int write_int(int fd, int v)
{
    ssize_t n;
    do n = write(fd, &v, sizeof v);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof v ? 0 : -1;
}

static int read_int(int fd, int *v)
{
    ssize_t n;
    do n = read(fd, v, sizeof *v);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof *v ? 0 : -1;
}

/* A task for a worker: the scene's index and whether to keep the files of
 * its passing shots (one write, so it arrives whole). */
static int write_task(int fd, int index, int keep)
{
    int t[2] = {index, keep};
    ssize_t n;
    do n = write(fd, t, sizeof t);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof t ? 0 : -1;
}

static int read_task(int fd, int *index, int *keep)
{
    int t[2];
    ssize_t n;
    do n = read(fd, t, sizeof t);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof t) return -1;
    *index = t[0];
    *keep = t[1];
    return 0;
}

/* The worker's body (never returns). */
static void worker_main(const test_opts *o, mr_scene_result *res, int n, int task_fd, int done_fd)
{
    mr_scene_runner *runner = NULL;
    /* Room for any scene's shots while it runs; the result file then holds
     * the result and its shot_count shots. */
    static mr_shot_result shots[MR_SCENE_MAX_SHOTS];
    int i, keep;
    while (read_task(task_fd, &i, &keep) == 0 && i >= 0 && i < n) {
        mr_scene_result *r = &res[i];
        mr_scene_result fresh = {0};          /* a retry starts from nothing */
        memcpy(fresh.name, r->name, sizeof fresh.name);
        memcpy(fresh.path, r->path, sizeof fresh.path);
        *r = fresh;                           /* the fork's copy of r->shots is the parent's, not freed here */
        memset(shots, 0, sizeof shots);
        r->shots = shots;
        run_scene(o, &runner, r->path, keep, r);
        char rp[1300];
        result_path(o, r, rp, sizeof rp);
        FILE *f = fopen(rp, "wb");
        int ok = f && fwrite(r, sizeof *r, 1, f) == 1 &&
                 fwrite(shots, sizeof *shots, (size_t)r->shot_count, f) == (size_t)r->shot_count;
        if (f && fclose(f) != 0) ok = 0;
        if (!ok || write_int(done_fd, i) != 0) break;
    }
    mr_scene_runner_destroy(runner);
    _exit(0);
}

/* pipe(2) whose ends close on exec: a process a scene started never holds
 * them, so the runner does not wait for it to end. */
static int pipe_cloexec(int fds[2])
{
    if (pipe(fds) != 0) return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return 0;
}

/* Starts a worker in slot w; 0, or -1 with errno set. The new process
 * closes the other workers' pipes, so each worker sees the end of its task
 * pipe when the parent closes it. */
static int start_worker(const test_opts *o, mr_scene_result *res, int n, worker *ws, int nw, int w)
{
    int task[2], done[2];
    if (pipe_cloexec(task) != 0) return -1;
    if (pipe_cloexec(done) != 0) {
        close(task[0]);
        close(task[1]);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(task[0]);
        close(task[1]);
        close(done[0]);
        close(done[1]);
        errno = e;
        return -1;
    }
    if (pid == 0) {
        /* A worker ends at once on SIGINT/SIGTERM (the parent's handlers only
         * record the signal; the parent then ends its workers and itself). */
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        for (int k = 0; k < nw; k++)
            if (ws[k].pid > 0) {
                close_fd(&ws[k].task_fd);
                close_fd(&ws[k].done_fd);
            }
        close(task[1]);
        close(done[0]);
        worker_main(o, res, n, task[0], done[1]);
    }
    close(task[0]);
    close(done[1]);
    ws[w] = (worker){.pid = pid, .task_fd = task[1], .done_fd = done[0], .current = -1};
    return 0;
}

static void finish_child(const test_opts *o, mr_scene_result *r, int status, double seconds, int timed_out)
{
    char rp[1300];
    result_path(o, r, rp, sizeof rp);
    FILE *f = fopen(rp, "rb");
    mr_scene_result got = {0};
    int ok = f && fread(&got, sizeof got, 1, f) == 1 && got.path[sizeof got.path - 1] == '\0' &&
             !strcmp(got.path, r->path) && got.shot_count >= 0 && got.shot_count <= MR_SCENE_MAX_SHOTS;
    got.shots = NULL;                     /* the worker's pointer; its shots follow in the file */
    if (ok && got.shot_count > 0) {
        got.shots = calloc((size_t)got.shot_count, sizeof *got.shots);
        ok = got.shots && fread(got.shots, sizeof *got.shots, (size_t)got.shot_count, f) == (size_t)got.shot_count;
    }
    if (f) fclose(f);
    unlink(rp);
    if (ok) {
        got.attempts = r->attempts;       /* the worker's copy does not count retries */
        got.fail_flaky = r->fail_flaky;
        mr_scene_result_deinit(r);
        *r = got;
        return;
    }
    free(got.shots);
    r->error = 1;
    r->seconds = seconds;
    if (timed_out)
        snprintf(r->message, sizeof r->message, "%s: ran past --timeout %g s and was stopped", r->path, o->timeout);
    else if (WIFSIGNALED(status))
        snprintf(r->message, sizeof r->message, "%s: the scene's process died of signal %d (%s); see %s/%s/log.txt",
                 r->path, WTERMSIG(status), strsignal(WTERMSIG(status)), o->out, r->name);
    else
        snprintf(r->message, sizeof r->message, "%s: the scene's process ended (exit %d) without a result; "
                 "see %s/%s/log.txt", r->path, WIFEXITED(status) ? WEXITSTATUS(status) : -1, o->out, r->name);
}

static const char *scene_verdict(const mr_scene_result *r)
{
    if (r->error) return "ERROR";
    int missing = 0, updated = 0;
    for (int i = 0; i < r->shot_count; i++) {
        if (r->shots[i].status == MR_SHOT_FAIL) return "FAIL";
        missing += r->shots[i].status == MR_SHOT_MISSING;
        updated += r->shots[i].status == MR_SHOT_UPDATED;
    }
    if (missing) return "NO GOLDEN";
    if (mr_report_flaky(r, 1)) return r->fail_flaky ? "FLAKY" : "flaky";
    return updated ? "updated" : "ok";
}

static void print_result(int i, int n, const mr_scene_result *r)
{
    char tries[32] = "";
    if (r->attempts > 1) snprintf(tries, sizeof tries, ", %d attempts", r->attempts);
    printf("[%d/%d] %s ... %s (%.1f s%s)\n", i + 1, n, r->name, scene_verdict(r), r->seconds, tries);
    if (r->error) {
        /* The message and the first lines of its traceback, indented. */
        const char *m = r->message;
        for (int line = 0; *m && line < 8; line++) {
            const char *nl = strchr(m, '\n');
            int len = nl ? (int)(nl - m) : (int)strlen(m);
            printf("    %.*s\n", len, m);
            m = nl ? nl + 1 : m + len;
        }
    }
    for (int s = 0; s < r->shot_count; s++) {
        const mr_shot_result *sh = &r->shots[s];
        if (sh->status == MR_SHOT_FAIL || sh->status == MR_SHOT_MISSING || sh->status == MR_SHOT_FLAKY)
            printf("    %s\n", sh->msg);
    }
    fflush(stdout);
}

/* --approve OUT [SCENE...] */
static int approve(const test_opts *o)
{
    mr_error err = {0};
    int copied = 0;
    mr_status st = mr_approve(o->approve, (const char *const *)o->paths, o->count, stdout, &copied, &err);
    char *tsv = mr_str_fmt("%s/results.tsv", o->approve);
    int have_run = tsv && mr_file_exists(tsv);    /* else OUT is no finished run: a usage error */
    free(tsv);
    if (st == MR_ERR_IO && !copied && !have_run) {
        fprintf(stderr, "marrow test: %s\n", err.msg);
        return MR_EXIT_USAGE;
    }
    if (st != MR_OK) {
        fprintf(stderr, "marrow test: %s\n", err.msg);
        return MR_EXIT_FAILED;
    }
    printf("%d shot%s approved\n", copied, copied == 1 ? "" : "s");
    return MR_EXIT_OK;
}

/* After scene i finished: with --retries, a scene that failed and has
 * attempts left is queued again (its result so far kept in before[i]) and 1
 * is returned; otherwise its attempts are merged into the result, 0. */
static int scene_again(const test_opts *o, mr_scene_result *res, mr_scene_result *before, int i, int *again,
                       int *again_tail)
{
    int n = o->count;
    if (before && res[i].attempts > 1) mr_report_merge_retry(&res[i], &before[i]);
    if (o->update || res[i].attempts > o->retries || !mr_report_should_retry(&res[i])) return 0;
    mr_scene_result_deinit(&before[i]);  /* an earlier attempt's, merged above */
    before[i] = res[i];                   /* its shots move to before[i] */
    memset(&res[i], 0, sizeof res[i]);
    memcpy(res[i].name, before[i].name, sizeof res[i].name);
    memcpy(res[i].path, before[i].path, sizeof res[i].path);
    res[i].fail_flaky = o->fail_flaky;
    res[i].attempts = before[i].attempts + 1;
    again[(*again_tail)++ % n] = i;
    return 1;
}

/* Mesa's llvmpipe rasterizes on a thread per core besides the drawing
 * thread: nw workers would run nw times that many. With more than one
 * worker, each gets the cores left per worker, and none past its own thread
 * when that is one core or less (2 cores, 48 scenes: --jobs 2 ran a median
 * 1.46x --jobs 1's scenes a minute with the threads, 1.53x without). A
 * LP_NUM_THREADS the user set is kept. */
static void share_cores(int nw)
{
    if (nw < 2 || getenv("LP_NUM_THREADS")) return;
    long cores = sysconf(_SC_NPROCESSORS_ONLN), per = cores > 0 ? cores / nw : 0;
    char v[24];
    snprintf(v, sizeof v, "%ld", per > 1 ? per : 0);
    setenv("LP_NUM_THREADS", v, 1);
}

/* Regression scenes never depend on (or fill) a user's model cache: they
 * share a private one, made for this run in $TMPDIR (else /tmp) and removed
 * at its end, so a model that several scenes load is built (parsed, its
 * clips packed) once per run instead of once per scene. A cached model is
 * the same model (formats/cache.h), so no result depends on which scene
 * loaded it first. No cache at all when the folder cannot be made. dir
 * gets the folder's path, "" when there is none. */
static void private_cache(char *dir, size_t n)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, n, "%s/marrow-run-models-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        dir[0] = 0;
        mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_OFF});
        return;
    }
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_ON, .dir = dir});
}

int mr_cmd_test(int argc, char **argv)
{
    mr_cache_configure(&(mr_cache_config){.mode = MR_CACHE_OFF});   /* until the run's own (private_cache) */
    test_opts o;
    int rc = parse(argc, argv, &o);
    if (!rc && o.approve) rc = approve(&o);
    if (rc || o.approve) {
        for (int i = 0; i < o.count; i++) free(o.paths[i]);
        free(o.paths);
        return rc < 0 ? MR_EXIT_OK : rc;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    mr_stop_install();   /* SIGINT/SIGTERM end the workers, then the run (exit 128 + signal) */
    int n = o.count;
    if (n == 0) {
        fprintf(stderr, "marrow test: no scenes to run%s\n", o.filter || o.shard_n ? " (after --filter/--shard)" : "");
        printf("0 passed, 0 failed\n");
        free(o.paths);
        return MR_EXIT_OK;
    }
    mr_file_mkdirs(o.out, NULL);
    char cache_dir[4096];
    private_cache(cache_dir, sizeof cache_dir);
    mr_scene_result *res = calloc((size_t)n, sizeof *res);
    worker *workers = calloc((size_t)(o.jobs < n ? o.jobs : n), sizeof *workers);
    double *started = calloc((size_t)n, sizeof *started);
    char *done = calloc((size_t)n, 1), *timed_out = calloc((size_t)n, 1);
    /* --retries: scenes to run again (a queue), and what their attempts before left. */
    int *again = calloc((size_t)n, sizeof *again), again_head = 0, again_tail = 0;
    mr_scene_result *before = o.retries ? calloc((size_t)n, sizeof *before) : NULL;
    if (!res || !workers || !started || !done || !timed_out || !again || (o.retries && !before)) {
        fprintf(stderr, "marrow test: out of memory\n");
        rc = MR_EXIT_FAILED;
        goto out;
    }
    for (int i = 0; i < n; i++) {
        scene_name(o.paths[i], res[i].name, sizeof res[i].name);
        snprintf(res[i].path, sizeof res[i].path, "%s", o.paths[i]);
        res[i].attempts = 1;
        res[i].fail_flaky = o.fail_flaky;
    }
    double t0 = mr_clock_now();
    /* A worker that died leaves its task pipe: writing there must fail, not kill us. */
    void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
    int nw = o.jobs < n ? o.jobs : n, next = 0, printed = 0;
    share_cores(nw);   /* before the workers are made: they inherit it */
    for (;;) {
        /* Hand out scenes: idle workers first, then new workers in empty slots. */
        for (int w = 0; w < nw && (next < n || again_head < again_tail); w++) {
            int retry = again_head < again_tail;
            int i = retry ? again[again_head % n] : next;
            if (workers[w].pid == 0 && start_worker(&o, res, n, workers, nw, w) != 0) {
                res[i].error = 1;
                snprintf(res[i].message, sizeof res[i].message, "cannot start a process: %s", strerror(errno));
                done[i] = 1;
                if (retry) again_head++;
                else next++;
                continue;
            }
            if (workers[w].current >= 0 || workers[w].task_fd < 0) continue;   /* busy, or ending */
            if (retry) again_head++;
            else next++;
            char rp[1300];
            result_path(&o, &res[i], rp, sizeof rp);
            unlink(rp);
            started[i] = mr_clock_now();
            timed_out[i] = 0;
            workers[w].current = i;
            if (write_task(workers[w].task_fd, i, o.keep_images || res[i].attempts > 1) != 0) {
                kill(workers[w].pid, SIGKILL);   /* reaped below; the scene fails with its status */
            }
        }
        /* Nothing left to hand out: an idle worker ends now (closing its task
         * pipe), its exit overlapping the scenes still running. A retry queued
         * later starts a worker in its slot once it has been reaped. */
        if (next >= n && again_head == again_tail)
            for (int w = 0; w < nw; w++)
                if (workers[w].pid > 0 && workers[w].current < 0) close_fd(&workers[w].task_fd);
        while (printed < n && done[printed]) {
            print_result(printed, n, &res[printed]);
            printed++;
        }
        if (printed == n) break;
        struct pollfd pfd[256];
        int np = 0, ending = 0;
        for (int w = 0; w < nw; w++) {
            if (workers[w].pid > 0 && workers[w].task_fd >= 0)
                pfd[np++] = (struct pollfd){.fd = workers[w].done_fd, .events = POLLIN};
            ending += workers[w].pid > 0 && workers[w].task_fd < 0;   /* reaped below */
        }
        if (np == 0 && !ending) continue;  /* no worker could start: the next round fails the scenes */
        poll(pfd, (nfds_t)np, 20);
        int stop = mr_stop_requested();
        if (stop) {
            /* SIGINT/SIGTERM: the workers end now (a scene may be deep in C
             * work), and so does the run, well within a second. */
            for (int w = 0; w < nw; w++)
                if (workers[w].pid > 0) kill(workers[w].pid, SIGKILL);
            for (int w = 0; w < nw; w++)
                if (workers[w].pid > 0) {
                    while (waitpid(workers[w].pid, NULL, 0) < 0 && errno == EINTR) {
                    }
                    close_fd(&workers[w].task_fd);
                    close_fd(&workers[w].done_fd);
                    workers[w] = (worker){.current = -1};
                }
            fprintf(stderr, "marrow test: stopped by signal %d\n", stop);
            signal(SIGPIPE, old_pipe);
            rc = mr_stop_exit_code(stop);
            goto out;
        }
        /* Finished scenes. */
        for (int w = 0; w < nw; w++) {
            worker *wk = &workers[w];
            struct pollfd q = {.fd = wk->done_fd, .events = POLLIN};
            while (wk->pid > 0 && wk->current >= 0 && poll(&q, 1, 0) == 1 && (q.revents & POLLIN)) {
                int i;
                if (read_int(wk->done_fd, &i) != 0 || i != wk->current) break;
                finish_child(&o, &res[i], 0, mr_clock_now() - started[i], 0);
                done[i] = !scene_again(&o, res, before, i, again, &again_tail);
                wk->current = -1;
            }
        }
        /* Workers that ended: the scene they were running fails with their status. */
        int status;
        pid_t pid;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
            for (int w = 0; w < nw; w++) {
                worker *wk = &workers[w];
                if (wk->pid != pid) continue;
                int i = wk->current, got;
                if (i >= 0 && read_int(wk->done_fd, &got) == 0 && got == i) {
                    finish_child(&o, &res[i], 0, mr_clock_now() - started[i], 0);
                } else if (i >= 0) {
                    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) status = 3 << 8;  /* no result */
                    finish_child(&o, &res[i], status, mr_clock_now() - started[i], timed_out[i]);
                }
                if (i >= 0) done[i] = !scene_again(&o, res, before, i, again, &again_tail);
                close_fd(&wk->task_fd);
                close_fd(&wk->done_fd);
                *wk = (worker){.current = -1};
            }
        /* Scenes past --timeout: their worker is stopped (and reaped above next time). */
        double now = mr_clock_now();
        for (int w = 0; w < nw; w++) {
            int i = workers[w].current;
            if (workers[w].pid > 0 && i >= 0 && !timed_out[i] && now - started[i] > o.timeout) {
                kill(workers[w].pid, SIGKILL);
                timed_out[i] = 1;
            }
        }
    }
    /* No more scenes: closing the task pipes ends the workers. */
    for (int w = 0; w < nw; w++)
        if (workers[w].pid > 0) {
            close_fd(&workers[w].task_fd);
            close_fd(&workers[w].done_fd);
            int status;
            while (waitpid(workers[w].pid, &status, 0) < 0 && errno == EINTR) {
            }
        }
    signal(SIGPIPE, old_pipe);
    double seconds = mr_clock_now() - t0;
    int passed = 0, failed = 0;
    mr_report_count(res, n, &passed, &failed);
    int flaky = mr_report_flaky(res, n);
    if (flaky)
        printf("%d shot%s flaky (failed, then passed when run again)%s\n", flaky, flaky == 1 ? "" : "s",
               o.fail_flaky ? ": failing the run (--fail-flaky)" : "");
    mr_error werr = {0};
    char label[96] = "";
    if (o.shard_n)
        snprintf(label, sizeof label, "shard %d/%d: %d of %d scenes", o.shard_k, o.shard_n, n, o.before_shard);
    if (o.shard_n) printf("%s\n", label);
    if (mr_report_write_labelled(o.out, res, n, seconds, label[0] ? label : NULL, &werr) == MR_OK)
        printf("report: %s/report.html, %s/junit.xml\n", o.out, o.out);
    else
        fprintf(stderr, "marrow test: %s\n", werr.msg);
    printf("%d scene%s in %.1f s (%.1f scenes/min, --jobs %d)\n", n, n == 1 ? "" : "s", seconds,
           seconds > 0 ? 60.0 * n / seconds : 0.0, o.jobs);
    int built = 0, cached = 0;
    for (int i = 0; i < n; i++) {
        built += res[i].models_built;
        cached += res[i].models_cached;
    }
    if (built + cached)
        printf("models: %d loaded from their files, %d from this run's cache\n", built, cached);
    printf("%d passed, %d failed\n", passed, failed);
    rc = failed ? MR_EXIT_FAILED : MR_EXIT_OK;
out:
    for (int i = 0; res && i < n; i++) {
        mr_scene_result_deinit(&res[i]);
        if (before) mr_scene_result_deinit(&before[i]);
    }
    free(res);
    free(workers);
    free(started);
    free(done);
    free(timed_out);
    free(again);
    free(before);
    for (int i = 0; i < o.count; i++) free(o.paths[i]);
    free(o.paths);
    if (cache_dir[0]) mr_file_remove_scratch(cache_dir);
    return rc;
}
