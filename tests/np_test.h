/*
 * np_test.h - assertion macros for netproof tests (after libuv's ASSERT_*).
 *
 * Each failing assertion prints file:line, the expression and both values,
 * then aborts; they do not vanish under NDEBUG.  A test program is a main()
 * calling test functions; ctest runs each program in its own process.
 */
#ifndef NP_TEST_H
#define NP_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NP_TEST_FAIL_(...)                                                  \
  do {                                                                      \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                         \
    fprintf(stderr, __VA_ARGS__);                                           \
    fputc('\n', stderr);                                                    \
    abort();                                                                \
  } while (0)

#define ASSERT_TRUE(e)                                                      \
  do {                                                                      \
    if (!(e))                                                               \
      NP_TEST_FAIL_("assertion failed: %s", #e);                            \
  } while (0)

#define ASSERT_INT_OP_(a, op, b)                                            \
  do {                                                                      \
    int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);                           \
    if (!(a_ op b_))                                                        \
      NP_TEST_FAIL_("%s %s %s: %" PRId64 " vs %" PRId64, #a, #op, #b, a_,   \
                    b_);                                                    \
  } while (0)

#define ASSERT_EQ(a, b) ASSERT_INT_OP_(a, ==, b)
#define ASSERT_NE(a, b) ASSERT_INT_OP_(a, !=, b)
#define ASSERT_LT(a, b) ASSERT_INT_OP_(a, <, b)
#define ASSERT_LE(a, b) ASSERT_INT_OP_(a, <=, b)
#define ASSERT_GT(a, b) ASSERT_INT_OP_(a, >, b)
#define ASSERT_GE(a, b) ASSERT_INT_OP_(a, >=, b)

#define ASSERT_UINT_EQ(a, b)                                                \
  do {                                                                      \
    uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                        \
    if (a_ != b_)                                                           \
      NP_TEST_FAIL_("%s == %s: %" PRIu64 " vs %" PRIu64, #a, #b, a_, b_);   \
  } while (0)

#define ASSERT_DBL_NEAR(a, b, tol)                                          \
  do {                                                                      \
    double a_ = (double)(a), b_ = (double)(b), t_ = (double)(tol);          \
    if (!(a_ - b_ <= t_ && b_ - a_ <= t_))                                  \
      NP_TEST_FAIL_("%s ~= %s (tol %g): %.17g vs %.17g", #a, #b, t_, a_,    \
                    b_);                                                    \
  } while (0)

#define ASSERT_STR_EQ(a, b)                                                 \
  do {                                                                      \
    const char *a_ = (a), *b_ = (b);                                        \
    if (a_ == NULL || b_ == NULL || strcmp(a_, b_) != 0)                    \
      NP_TEST_FAIL_("%s == %s: \"%s\" vs \"%s\"", #a, #b,                   \
                    a_ ? a_ : "(null)", b_ ? b_ : "(null)");                \
  } while (0)

#define ASSERT_NOT_NULL(p)                                                  \
  do {                                                                      \
    if ((p) == NULL)                                                        \
      NP_TEST_FAIL_("%s is NULL", #p);                                      \
  } while (0)

/* ASSERT_OK(call): call returns 0 or a negative NP_E* code. */
#define ASSERT_OK(e)                                                        \
  do {                                                                      \
    int r_ = (e);                                                           \
    if (r_ != 0)                                                            \
      NP_TEST_FAIL_("%s failed: %d", #e, r_);                               \
  } while (0)

#endif /* NP_TEST_H */
