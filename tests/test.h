/*
 * test.h - the few assertion macros our unit tests share. Each failed check
 * prints file:line and the expression; test_report() prints the totals and
 * gives main's exit status.
 */
#ifndef CDDLGEN_TEST_H
#define CDDLGEN_TEST_H

#include <stdio.h>
#include <string.h>

static int test_checks_run;
static int test_checks_failed;

#define CHECK(cond)                                                          \
    do {                                                                     \
        ++test_checks_run;                                                   \
        if (!(cond)) {                                                       \
            ++test_checks_failed;                                            \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                  \
        }                                                                    \
    } while (0)

#define CHECK_INT(a, b)                                                        \
    do {                                                                       \
        long long test_a_ = (long long)(a), test_b_ = (long long)(b);          \
        ++test_checks_run;                                                     \
        if (test_a_ != test_b_) {                                              \
            ++test_checks_failed;                                              \
            fprintf(stderr, "%s:%d: check failed: %s == %s (%lld != %lld)\n",  \
                    __FILE__, __LINE__, #a, #b, test_a_, test_b_);             \
        }                                                                      \
    } while (0)

#define CHECK_STR(a, b)                                                       \
    do {                                                                      \
        const char *test_a_ = (a), *test_b_ = (b);                            \
        ++test_checks_run;                                                    \
        if (test_a_ == NULL || test_b_ == NULL || strcmp(test_a_, test_b_)) { \
            ++test_checks_failed;                                             \
            fprintf(stderr, "%s:%d: check failed: %s == %s (\"%s\" != \"%s\")\n", \
                    __FILE__, __LINE__, #a, #b, test_a_ ? test_a_ : "(null)", \
                    test_b_ ? test_b_ : "(null)");                            \
        }                                                                     \
    } while (0)

/* Prints "N passed, M failed" and returns main's exit status. */
static int test_report(void)
{
    printf("%d passed, %d failed\n", test_checks_run - test_checks_failed,
           test_checks_failed);
    return test_checks_failed == 0 && test_checks_run > 0 ? 0 : 1;
}

#endif
