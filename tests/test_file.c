/* test_file.c — core/file.h's calls for folders whose content is untrusted
 * (issue 40): descriptor-relative opens that follow no link and never hang
 * on a FIFO, exclusive temporary files renamed into place, all-or-nothing
 * batches, mkdirs that checks the whole path first, sizes on disk. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "test.h"

static char root[256];

static char *at(const char *name)
{
    static char buf[8][512];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, 512, "%s/%s", root, name);
    return p;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int same_text(const char *path, const char *text)
{
    size_t n = 0;
    char *got = mr_file_read(path, &n, NULL);
    int ok = got && n == strlen(text) && !memcmp(got, text, n);
    free(got);
    return ok;
}

static int is_link(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

/* Entries of dir whose names start with '.' other than . and .. */
static int hidden_entries(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -c '^\\.' > '%s/count' 2>/dev/null", dir, root);
    if (system(cmd) < 0) return -1;
    size_t n = 0;
    char *t = mr_file_read(at("count"), &n, NULL);
    int c = t ? atoi(t) : -1;
    free(t);
    unlink(at("count"));
    return c;
}

TEST(write_at_replaces_a_link_and_never_writes_through_it)
{
    put(at("victim.txt"), "secret");
    mkdir(at("g"), 0777);
    symlink(at("victim.txt"), at("g/0000.pose.json"));
    symlink(at("victim.txt"), at("g/0000.pose.json.tmp"));
    int dfd = mr_file_dir_open(at("g"), NULL);
    CHECK(dfd >= 0);
    mr_error err = {0};
    CHECK(mr_file_write_at(dfd, "0000.pose.json", "g/0000.pose.json", "new", 3, &err) == MR_OK);
    close(dfd);
    CHECK(same_text(at("victim.txt"), "secret"));
    CHECK(!is_link(at("g/0000.pose.json")));
    CHECK(same_text(at("g/0000.pose.json"), "new"));
    CHECK(hidden_entries(at("g")) == 0);   /* no temporary left */
}

TEST(write_through_a_path_replaces_a_final_link)
{
    put(at("victim2.txt"), "keep");
    symlink(at("victim2.txt"), at("out.png"));
    CHECK(mr_file_write(at("out.png"), "png", 3, NULL) == MR_OK);
    CHECK(same_text(at("victim2.txt"), "keep"));
    CHECK(same_text(at("out.png"), "png"));
}

TEST(open_at_refuses_links_fifos_and_folders_at_once)
{
    mkdir(at("r"), 0777);
    put(at("r/ok.txt"), "fine");
    symlink("/etc/passwd", at("r/link.txt"));
    mkfifo(at("r/fifo.png"), 0666);
    mkdir(at("r/dir.png"), 0777);
    int dfd = mr_file_dir_open(at("r"), NULL);
    mr_error err = {0};
    size_t n = 0;
    char *t = mr_file_read_at(dfd, "ok.txt", "r/ok.txt", 100, &n, &err);
    CHECK(t && n == 4 && !strcmp(t, "fine"));
    free(t);
    CHECK(mr_file_read_at(dfd, "link.txt", "r/link.txt", 1 << 20, NULL, &err) == NULL);
    CHECK(err.status == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(err.msg, "symbolic link");
    CHECK(mr_file_open_at(dfd, "fifo.png", "r/fifo.png", NULL, &err) < 0);   /* a hang would stop the test here */
    CHECK_STR_CONTAINS(err.msg, "a FIFO");
    CHECK(mr_file_open_at(dfd, "dir.png", "r/dir.png", NULL, &err) < 0);
    CHECK_STR_CONTAINS(err.msg, "a folder");
    CHECK(mr_file_open_at(dfd, "none.png", "r/none.png", NULL, &err) < 0);
    CHECK(err.status == MR_ERR_IO && errno == ENOENT);
    CHECK(mr_file_open_at(dfd, "../r/ok.txt", "x", NULL, &err) < 0);   /* one name, no path */
    CHECK(mr_file_read_at(dfd, "ok.txt", "r/ok.txt", 3, NULL, &err) == NULL);
    CHECK(err.status == MR_ERR_LIMIT);
    close(dfd);
}

TEST(dir_open_at_refuses_a_linked_folder_and_makes_a_missing_one)
{
    mkdir(at("elsewhere"), 0777);
    mkdir(at("scene"), 0777);
    symlink(at("elsewhere"), at("scene/a.golden"));
    int sfd = mr_file_dir_open(at("scene"), NULL);
    mr_error err = {0};
    CHECK(mr_file_dir_open_at(sfd, "a.golden", 1, "scene/a.golden", &err) < 0);
    CHECK(err.status == MR_ERR_BAD_FILE);
    CHECK_STR_CONTAINS(err.msg, "symbolic link");
    CHECK(mr_file_dir_open_at(sfd, "b.golden", 0, "scene/b.golden", &err) < 0 && errno == ENOENT);
    int g = mr_file_dir_open_at(sfd, "b.golden", 1, "scene/b.golden", &err);
    CHECK(g >= 0);
    if (g >= 0) close(g);
    close(sfd);
}

TEST(mkdirs_inside_checks_the_whole_path_before_making_anything)
{
    mkdir(at("out"), 0777);
    char climb[400];
    snprintf(climb, sizeof climb, "%s/fresh1/fresh2/../../../../../../../../tmp/x", at("out"));
    mr_error err = {0};
    CHECK(mr_file_mkdirs_inside(at("out"), climb, &err) == MR_ERR_INVALID_ARGUMENT);
    CHECK(access(at("out/fresh1"), F_OK) != 0);   /* nothing made on the way */
    symlink(at("elsewhere"), at("out/away"));
    CHECK(mr_file_mkdirs_inside(at("out"), at("out/away/deeper"), &err) == MR_ERR_INVALID_ARGUMENT);
    CHECK(access(at("elsewhere/deeper"), F_OK) != 0);
    CHECK(mr_file_mkdirs_inside(at("out"), at("out/a/b/c"), &err) == MR_OK);
    struct stat st;
    CHECK(stat(at("out/a/b/c"), &st) == 0 && S_ISDIR(st.st_mode));
    CHECK(mr_file_mkdirs_inside(at("out"), at("out/a/b/c"), &err) == MR_OK);   /* again: there already */
}

TEST(batch_is_all_or_nothing)
{
    mkdir(at("b"), 0777);
    CHECK(mr_file_batch_begin() == MR_OK);
    CHECK(mr_file_batch_begin() == MR_ERR_INVALID_ARGUMENT);   /* one at a time */
    CHECK(mr_file_write(at("b/m.md5mesh"), "mesh", 4, NULL) == MR_OK);
    CHECK(mr_file_write(at("b/walk.md5anim"), "anim", 4, NULL) == MR_OK);
    CHECK(access(at("b/m.md5mesh"), F_OK) != 0);               /* not yet in place */
    CHECK(mr_file_batch_size() >= 8);
    mr_file_batch_abort();
    CHECK(access(at("b/m.md5mesh"), F_OK) != 0 && access(at("b/walk.md5anim"), F_OK) != 0);
    CHECK(hidden_entries(at("b")) == 0);
    CHECK(mr_file_batch_begin() == MR_OK);
    CHECK(mr_file_write(at("b/m.md5mesh"), "mesh", 4, NULL) == MR_OK);
    CHECK(mr_file_write(at("b/walk.md5anim"), "anim", 4, NULL) == MR_OK);
    CHECK(mr_file_batch_commit(NULL) == MR_OK);
    CHECK(same_text(at("b/m.md5mesh"), "mesh") && same_text(at("b/walk.md5anim"), "anim"));
    CHECK(hidden_entries(at("b")) == 0);
}

TEST(allocated_counts_a_sparse_file_extent)
{
    int fd = open(at("sparse.bin"), O_RDWR | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    CHECK(lseek(fd, (off_t)1 << 30, SEEK_SET) == (off_t)1 << 30);
    CHECK(write(fd, "x", 1) == 1);
    CHECK(mr_file_allocated(fd) >= (1LL << 30) + 1);
    close(fd);
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/marrow-test-file-XXXXXX");
    if (!mkdtemp(root)) return 1;
    RUN(write_at_replaces_a_link_and_never_writes_through_it);
    RUN(write_through_a_path_replaces_a_final_link);
    RUN(open_at_refuses_links_fifos_and_folders_at_once);
    RUN(dir_open_at_refuses_a_linked_folder_and_makes_a_missing_one);
    RUN(mkdirs_inside_checks_the_whole_path_before_making_anything);
    RUN(batch_is_all_or_nothing);
    RUN(allocated_counts_a_sparse_file_extent);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) printf("could not remove %s\n", root);
    return test_summary("file");
}
