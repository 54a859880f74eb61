/* test_err.c - the error vocabulary: every code has a name and message,
 * codes are unique and negative, errno translation covers the edges and
 * agrees with NP_ERRNO_TABLE row by row. */
#include <errno.h>

#include "np_err.h"
#include "np_test.h"

static void test_names_and_messages(void) {
  for (int c = -1; c >= NP_ERR_MIN_; c--) {
    ASSERT_TRUE(strcmp(np_err_name(c), "NP_UNKNOWN") != 0);
    ASSERT_TRUE(strcmp(np_strerror(c), "unknown error") != 0);
    for (int d = c - 1; d >= NP_ERR_MIN_; d--)
      ASSERT_TRUE(strcmp(np_err_name(c), np_err_name(d)) != 0);
  }
  ASSERT_STR_EQ(np_err_name(NP_EINVAL), "NP_EINVAL");
  ASSERT_STR_EQ(np_err_name(0), "NP_OK");
  ASSERT_STR_EQ(np_err_name(-9999), "NP_UNKNOWN");
  ASSERT_STR_EQ(np_strerror(1), "unknown error");
}

static void test_errno_map(void) {
  ASSERT_EQ(np_err_from_errno(0), 0);
  ASSERT_EQ(np_err_from_errno(ENOENT), NP_ENOENT);
  ASSERT_EQ(np_err_from_errno(EPERM), NP_EACCES);
  ASSERT_EQ(np_err_from_errno(ENOBUFS), NP_ENOBUFS);
  ASSERT_EQ(np_err_from_errno(EFBIG), NP_ETOOBIG);
  ASSERT_EQ(np_err_from_errno(ENOTTY), NP_ESYS);
  ASSERT_STR_EQ(np_errno_name(EMSGSIZE), "EMSGSIZE");
  ASSERT_STR_EQ(np_errno_name(12345), "EOTHER");
}

/* Every errno of NP_ERRNO_TABLE maps to its NP code and to its own name,
 * from the same list the two functions are generated from. */
static void test_errno_table(void) {
  static const struct {
    int e;
    int code;
    const char *name;
  } table[] = {
#define NP_ERRNO_ROW_(e, code) {e, code, #e},
      NP_ERRNO_TABLE(NP_ERRNO_ROW_)
#undef NP_ERRNO_ROW_
  };
  size_t n = sizeof table / sizeof table[0];
  ASSERT_GE(n, 27);
  for (size_t i = 0; i < n; i++) {
    if (np_err_from_errno(table[i].e) != table[i].code)
      NP_TEST_FAIL_("%s: %s, not %s", table[i].name,
                    np_err_name(np_err_from_errno(table[i].e)),
                    np_err_name(table[i].code));
    ASSERT_STR_EQ(np_errno_name(table[i].e), table[i].name);
    ASSERT_GT(table[i].e, 0);
    ASSERT_LT(table[i].code, 0);
    ASSERT_TRUE(strcmp(np_err_name(table[i].code), "NP_UNKNOWN") != 0);
    for (size_t j = i + 1; j < n; j++)
      ASSERT_NE(table[i].e, table[j].e);
  }
  /* an NP code named after an errno translates from that errno */
#define NP_ERR_SAME_(sym, val, msg)                                          \
  for (size_t i = 0; i < n; i++)                                             \
    if (strcmp(table[i].name, #sym) == 0)                                    \
      ASSERT_EQ(table[i].code, NP_##sym);
  NP_ERRNO_MAP(NP_ERR_SAME_)
#undef NP_ERR_SAME_
  /* unlisted values */
  ASSERT_EQ(np_err_from_errno(ENOTTY), NP_ESYS);
  ASSERT_STR_EQ(np_errno_name(ENOTTY), "EOTHER");
  ASSERT_STR_EQ(np_errno_name(0), "EOTHER");
}

static void test_errbuf(void) {
  struct np_errbuf eb;
  ASSERT_EQ(np_errbuf_set(&eb, NP_EPARSE, "%s: %d", "x", 7), NP_EPARSE);
  ASSERT_STR_EQ(eb.msg, "x: 7");
  ASSERT_EQ(np_errbuf_set(NULL, NP_EIO, "ignored"), NP_EIO);
}

int main(void) {
  test_names_and_messages();
  test_errno_map();
  test_errno_table();
  test_errbuf();
  puts("test_err: ok");
  return 0;
}
