/* bench_reload.c — live reload latency: from the moment an editor starts
 * saving a script to the moment the new version's load() has run, as
 * `marrow run` does it (src/cli/cmd_run.c: each frame polls the watcher
 * and reloads what changed), in milliseconds.
 *
 * A thread saves the script 20 times at random moments (40-90 ms apart, so
 * a save falls anywhere in a frame): odd saves truncate the file and write
 * it in place, even ones write a temporary file and rename it over the name
 * (vim, VS Code). The main loop runs frames at 60 Hz as `marrow run`'s
 * window does: poll the watcher (platform/watch.h), mr_lua_reload on a
 * change, then sleep to the next frame's deadline in mr_pacer_wait_fd
 * (platform/pacer.h), which the watcher's descriptor wakes: a save is
 * reloaded when it completes, the frame keeps its deadline.
 * Each save's latency is taken when the reload that loaded it returns
 * (the script's load() reads which save it is from its own text). Printed:
 * median, fastest and slowest of 20, for the inotify watcher and, in the
 * same run, as baselines: the same watcher checked only once a frame (the
 * loop before the wake: half a frame, 8.3 ms on average, waits for the
 * next check) and the polling fallback (MARROW_WATCH=poll). */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "core/str.h"
#include "lua/script.h"
#include "platform/pacer.h"
#include "platform/watch.h"

#define SAVES 20
#define FRAME (1.0 / 60.0)

typedef struct saver {
    char path[256], tmp[256];
    double saved_at[SAVES + 1];  /* when save i started */
    atomic_int done;             /* saves written so far */
    unsigned seed;
} saver;

/* The script of save i: load() prints which save it is. */
static int script_text(int i, char *buf, size_t size)
{
    return snprintf(buf, size,
                    "-- save %d\n"
                    "local n = 0\n"
                    "function load() print('loaded %d') end\n"
                    "function update(dt) n = n + dt end\n",
                    i, i);
}

static void sleep_s(double s)
{
    if (s <= 0) return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static void *save_loop(void *arg)
{
    saver *sv = arg;
    char buf[512];
    for (int i = 1; i <= SAVES; i++) {
        sleep_s(0.04 + (rand_r(&sv->seed) % 50) * 0.001);
        int len = script_text(i, buf, sizeof buf);
        int rename_over = i % 2 == 0;
        sv->saved_at[i] = mr_bench_now();
        int fd = open(rename_over ? sv->tmp : sv->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) break;
        ssize_t wrote = write(fd, buf, (size_t)len);
        close(fd);
        if (wrote != len || (rename_over && rename(sv->tmp, sv->path) != 0)) break;
        atomic_store(&sv->done, i);
    }
    return NULL;
}

/* The save the script now running says it is (its last "loaded N" line). */
static int loaded_save(mr_lua_ctx *ctx)
{
    const char *last = NULL;
    for (int i = 0; mr_lua_console_line(ctx, i); i++) last = mr_lua_console_line(ctx, i);
    int n = 0;
    if (last) sscanf(last, "loaded %d", &n);
    return n;
}

enum { WOKEN, PER_FRAME, POLLING };   /* how the frame loop learns of a save */

/* Polls the watcher and reloads on a change of the script; a save's
 * latency goes to ms[*n] when the reload loaded it. */
static void check(mr_watch *w, mr_lua_ctx *ctx, saver *sv, int *seen, double *ms, int *n)
{
    if (!(mr_watch_poll(w) & 2u)) return;
    mr_lua_reload(ctx, NULL);
    double t = mr_bench_now();
    int i = loaded_save(ctx);
    if (i > *seen && i <= atomic_load(&sv->done)) {
        ms[(*n)++] = (t - sv->saved_at[i]) * 1e3;
        *seen = i;
    }
}

/* Milliseconds from save to load() for SAVES saves into ms; how many were
 * measured (a save overtaken by the next before a frame loaded it is not). */
static int measure(const char *dir, int mode, double *ms)
{
    int polling = mode == POLLING;
    saver sv = {.seed = 4242u + (unsigned)mode};
    snprintf(sv.path, sizeof sv.path, "%s/reload.lua", dir);
    snprintf(sv.tmp, sizeof sv.tmp, "%s/.reload.lua.tmp", dir);
    char buf[512];
    FILE *f = fopen(sv.path, "w");
    if (!f) return 0;
    fwrite(buf, 1, (size_t)script_text(0, buf, sizeof buf), f);
    fclose(f);
    mr_lua_desc d = {.script = sv.path, .headless = 1, .quiet = 1};
    mr_lua_ctx *ctx = NULL;
    mr_watch *w = NULL;
    if (polling) setenv("MARROW_WATCH", "poll", 1);
    mr_watch_create(&w);
    if (polling) unsetenv("MARROW_WATCH");
    int n = 0;
    if (w && mr_watch_file(w, sv.path, 1) == MR_OK && mr_lua_ctx_create(&d, &ctx) == MR_OK &&
        mr_lua_start(ctx, NULL) == MR_OK) {
        pthread_t th;
        if (pthread_create(&th, NULL, save_loop, &sv) == 0) {
            int seen = 0;
            double end = mr_bench_now() + 10.0;
            mr_pacer pacer;
            mr_pacer_init(&pacer, 1.0 / FRAME);
            int fd = mode == WOKEN ? mr_watch_fd(w) : -1;
            while (seen < SAVES && mr_bench_now() < end) {
                check(w, ctx, &sv, &seen, ms, &n);
                mr_lua_update(ctx, FRAME, NULL);
                mr_lua_end_frame(ctx);
                for (int wakes = 0; mr_pacer_wait_fd(&pacer, 1, wakes < 8 ? fd : -1); wakes++)
                    check(w, ctx, &sv, &seen, ms, &n);
            }
            pthread_join(th, NULL);
        }
    }
    mr_lua_ctx_destroy(ctx);
    mr_watch_destroy(w);
    unlink(sv.path);
    unlink(sv.tmp);
    return n;
}

void mr_bench_reload(const mr_bench_opts *o)
{
    (void)o;
    printf("== live reload: save (in place or renamed over) to the new script's load(), frames at 60 Hz\n"
           "   whose sleep the watcher wakes, as marrow run's; baselines: checked once a frame, polling;\n"
           "   ms, %d saves at random moments\n", SAVES);
    char dir[] = "/tmp/marrow_bench_reload_XXXXXX";
    if (!mkdtemp(dir)) {
        printf("  skipped: no temporary folder\n");
        return;
    }
    printf("  %-28s %8s %8s %8s %8s\n", "watcher", "saves", "median", "fastest", "slowest");
    static const char *const labels[] = {"inotify, wakes the loop", "inotify, checked per frame",
                                         "polling (MARROW_WATCH=poll)"};
    for (int mode = WOKEN; mode <= POLLING; mode++) {
        double ms[SAVES];
        int n = measure(dir, mode, ms);
        const char *label = labels[mode];
        if (n == 0) {
            printf("  %-28s no save was seen\n", label);
            continue;
        }
        double med = mr_bench_median(ms, n);   /* sorts ms */
        printf("  %-28s %8d %8.1f %8.1f %8.1f\n", label, n, med, ms[0], ms[n - 1]);
    }
    rmdir(dir);
}
