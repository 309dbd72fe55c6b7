/* test.h — the tiny unit-test harness used by every tests/test_*.c.
 *
 *   TEST(name) { CHECK(x == 1); CHECK_NEAR(a, b, 1e-6); }
 *   int main(void) { RUN(name); ...; return test_summary("pose"); }
 *
 * Each test prints "ok" or "FAIL" with the failing expression and line;
 * test_summary prints "N passed, N failed" and returns the exit status.
 * tests/run.sh adds up the per-binary counts.
 */
#ifndef MR_TEST_H
#define MR_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int test_passed, test_failed, test_current_failed;
static const char *test_current;

#define TEST(name) static void test_##name(void)

#define RUN(name) do { \
    test_current = #name; test_current_failed = 0; \
    test_##name(); \
    if (test_current_failed) test_failed++; else { test_passed++; printf("  ok   %s\n", #name); } \
} while (0)

#define TEST_FAIL_AT(...) do { \
    if (!test_current_failed) printf("  FAIL %s\n", test_current); \
    test_current_failed = 1; \
    printf("       %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); \
} while (0)

#define CHECK(cond) do { if (!(cond)) TEST_FAIL_AT("CHECK(%s)", #cond); } while (0)
#define CHECK_MSG(cond, ...) do { if (!(cond)) TEST_FAIL_AT(__VA_ARGS__); } while (0)
#define CHECK_NEAR(a, b, eps) do { double a_ = (a), b_ = (b); \
    if (!(fabs(a_ - b_) <= (eps))) TEST_FAIL_AT("CHECK_NEAR(%s, %s): %.9g vs %.9g", #a, #b, a_, b_); } while (0)
#define CHECK_STR_CONTAINS(hay, needle) do { const char *h_ = (hay); \
    if (!h_ || !strstr(h_, (needle))) TEST_FAIL_AT("\"%s\" does not contain \"%s\"", h_ ? h_ : "(null)", needle); } while (0)

static inline int test_summary(const char *suite)
{
    printf("%s: %d passed, %d failed\n", suite, test_passed, test_failed);
    return test_failed ? 1 : 0;
}

/* Path of a file in ../shared/models, relative to the project root. */
#define SHARED_MODELS "../shared/models/"

#endif
