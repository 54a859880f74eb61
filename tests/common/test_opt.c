/* test_opt.c - numeric option values and "--name[=value]" splitting, the
 * shared wording of every CLI's usage errors. */
#include "np_opt.h"
#include "np_test.h"

static void test_numbers(void) {
  struct np_errbuf eb;
  uint64_t u = 7;
  double d = 7;
  ASSERT_OK(np_opt_u64("--n", "42", 1, 100, &u, &eb));
  ASSERT_UINT_EQ(u, 42);
  ASSERT_EQ(np_opt_u64("--n", "-1", 1, 100, &u, &eb), NP_EUSAGE);
  ASSERT_STR_EQ(eb.msg, "--n '-1': expected an integer");
  ASSERT_EQ(np_opt_u64("--n", "101", 1, 100, &u, &eb), NP_EUSAGE);
  ASSERT_STR_EQ(eb.msg, "--n 101: out of range 1..100");
  ASSERT_EQ(np_opt_u64("--n", "4x", 1, 100, &u, &eb), NP_EUSAGE);
  ASSERT_UINT_EQ(u, 42); /* untouched on failure */
  ASSERT_OK(np_opt_double("--s", "0.5", "seconds", 0, 1, 10, &d, &eb));
  ASSERT_DBL_NEAR(d, 0.5, 0);
  ASSERT_EQ(np_opt_double("--s", "0", "seconds", 0, 1, 10, &d, &eb),
            NP_EUSAGE);
  ASSERT_STR_EQ(eb.msg, "--s 0: out of range >0..10");
  ASSERT_EQ(np_opt_double("--s", "nan", "seconds", 0, 1, 10, &d, &eb),
            NP_EUSAGE);
  ASSERT_STR_EQ(eb.msg, "--s 'nan': expected seconds");
}

static void test_names(void) {
  struct np_errbuf eb;
  char *argv[] = {"prog", "--a=1", "--b", "2", "x", "--c", NULL};
  int argc = 6, i = 1;
  char name[8];
  const char *inl, *val;
  ASSERT_OK(np_opt_name(argv, i, name, sizeof name, &inl, &eb));
  ASSERT_STR_EQ(name, "--a");
  ASSERT_OK(np_opt_value(argc, argv, &i, name, inl, &val, &eb));
  ASSERT_STR_EQ(val, "1");
  ASSERT_EQ(i, 1);
  i = 2;
  ASSERT_OK(np_opt_name(argv, i, name, sizeof name, &inl, &eb));
  ASSERT_TRUE(inl == NULL);
  ASSERT_OK(np_opt_value(argc, argv, &i, name, inl, &val, &eb));
  ASSERT_STR_EQ(val, "2");
  ASSERT_EQ(i, 3);
  ASSERT_EQ(np_opt_name(argv, 4, name, sizeof name, &inl, &eb), NP_EUSAGE);
  ASSERT_STR_EQ(eb.msg, "unexpected argument 'x'");
  i = 5;
  ASSERT_OK(np_opt_name(argv, i, name, sizeof name, &inl, &eb));
  ASSERT_EQ(np_opt_value(argc, argv, &i, name, inl, &val, &eb), NP_EUSAGE);
  ASSERT_STR_EQ(eb.msg, "--c needs a value");
  char *longer[] = {"prog", "--much-too-long"};
  ASSERT_EQ(np_opt_name(longer, 1, name, sizeof name, &inl, &eb), NP_EUSAGE);
  ASSERT_STR_EQ(eb.msg, "unknown option '--much-too-long'");
}

int main(void) {
  test_numbers();
  test_names();
  puts("test_opt: ok");
  return 0;
}
