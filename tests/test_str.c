/* test_str.c — new strings and the "did you mean" measure (src/core/str.c). */
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "test.h"

TEST(str_distance_counts_edits_ignoring_case)
{
    CHECK(mr_str_distance("update", "update") == 0);
    CHECK(mr_str_distance("Load", "load") == 0);           /* case does not count */
    CHECK(mr_str_distance("updte", "update") == 1);        /* a deletion */
    CHECK(mr_str_distance("drwa", "draw") == 2);           /* a swap is two edits */
    CHECK(mr_str_distance("manequin.md5mesh", "mannequin.md5mesh") == 1);
    CHECK(mr_str_distance("", "abc") == 3);
    CHECK(mr_str_distance("abc", "") == 3);
    CHECK(mr_str_distance("kitten", "sitting") == 3);
}

TEST(str_distance_cuts_long_names_at_63_bytes)
{
    char a[200], b[200];
    memset(a, 'x', sizeof a - 1);
    a[sizeof a - 1] = '\0';
    memcpy(b, a, sizeof b);
    b[150] = 'y';                     /* past the 63 compared bytes */
    CHECK(mr_str_distance(a, b) == 0);
    b[10] = 'y';
    CHECK(mr_str_distance(a, b) == 1);
}

TEST(str_closest_picks_the_nearest_within_the_limit)
{
    const char *const names[] = {"load", "update", NULL, "draw", "unload"};
    CHECK(mr_str_closest("updte", names, 5, 2) == 1);
    CHECK(mr_str_closest("Draw", names, 5, 2) == 3);
    CHECK(mr_str_closest("unlod", names, 5, 2) == 4);      /* 1 from unload, 2 from load */
    CHECK(mr_str_closest("keypressed", names, 5, 2) == -1);
    CHECK(mr_str_closest("x", names, 0, 9) == -1);
    const char *const ties[] = {"ab", "ba"};
    CHECK(mr_str_closest("aa", ties, 2, 1) == 0);          /* a tie goes to the first */
}

TEST(str_dup_and_fmt)
{
    char *s = mr_str_fmt("%s-%d", "a", 7);
    CHECK(s && !strcmp(s, "a-7"));
    free(s);
    s = mr_str_ndup("abcdef", 3);
    CHECK(s && !strcmp(s, "abc"));
    free(s);
    CHECK(mr_str_dup(NULL) == NULL);
}

int main(void)
{
    RUN(str_distance_counts_edits_ignoring_case);
    RUN(str_distance_cuts_long_names_at_63_bytes);
    RUN(str_closest_picks_the_nearest_within_the_limit);
    RUN(str_dup_and_fmt);
    return test_summary("str");
}
