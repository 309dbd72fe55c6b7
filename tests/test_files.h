/* test_files.h — finding model files on disk for tests that sweep
 * ../shared/models (test_collada.c, test_slerp_fidelity.c), and removing
 * the folders tests write into. */
#ifndef MR_TEST_FILES_H
#define MR_TEST_FILES_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "core/path.h"

/* Appends every .dae below dir to *out (new strings, *n of them; the
 * caller frees each and the array). Order is the directory's: sort with
 * test_cmp_str for a stable one. */
static inline void test_find_dae(const char *dir, char ***out, int *n)
{
    DIR *dp = opendir(dir);
    if (!dp) return;
    struct dirent *e;
    while ((e = readdir(dp))) {
        if (e->d_name[0] == '.') continue;
        char *p = mr_path_join(dir, e->d_name);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            test_find_dae(p, out, n);
            free(p);
        } else if (strlen(p) > 4 && !strcmp(p + strlen(p) - 4, ".dae")) {
            *out = realloc(*out, (size_t)(*n + 1) * sizeof **out);
            (*out)[(*n)++] = p;
        } else {
            free(p);
        }
    }
    closedir(dp);
}

/* Removes dir and everything under it (a test's own temporary folder;
 * links are removed, never followed). */
static inline void test_remove_tree(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp) return;
    struct dirent *e;
    while ((e = readdir(dp))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char *p = mr_path_join(dir, e->d_name);
        struct stat st;
        if (p && lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) test_remove_tree(p);
        else if (p) remove(p);
        free(p);
    }
    closedir(dp);
    rmdir(dir);
}

/* qsort comparator for an array of strings. */
static inline int test_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

#endif
