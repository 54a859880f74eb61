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

/* "did you mean": edits, swaps, dashes, and words too far to suggest. */
static void test_suggest(void) {
  static const char *const opts[] = {"clients", "window", "payload",
                                     "seconds", "io-model", "io-threads"};
  static const char *const cmds[] = {"udp", "rudp", "serve", "relay"};
  struct np_errbuf eb = {{0}};
  ASSERT_STR_EQ(np_opt_suggest("--clinets", opts, 6), "clients"); /* swap */
  ASSERT_STR_EQ(np_opt_suggest("windw", opts, 6), "window");      /* delete */
  ASSERT_STR_EQ(np_opt_suggest("--PAYLOAD", opts, 6), "payload"); /* case */
  ASSERT_STR_EQ(np_opt_suggest("io-modle", opts, 6), "io-model");
  ASSERT_TRUE(np_opt_suggest("--zzzzzz", opts, 6) == NULL);
  ASSERT_TRUE(np_opt_suggest("--ab", opts, 6) == NULL);
  ASSERT_TRUE(np_opt_suggest("", opts, 6) == NULL);
  /* short words: fewer than half their letters may change */
  ASSERT_STR_EQ(np_opt_suggest("udpp", cmds, 4), "udp");
  ASSERT_TRUE(np_opt_suggest("tcp", cmds, 4) == NULL);
  ASSERT_EQ(np_opt_unknown(&eb, "option", "--clinets", opts, 6), NP_EUSAGE);
  ASSERT_STR_EQ(eb.msg, "unknown option '--clinets'; did you mean "
                        "--clients? (try --help)");
  ASSERT_EQ(np_opt_unknown(&eb, "command", "sreve", cmds, 4), NP_EUSAGE);
  ASSERT_STR_EQ(eb.msg, "unknown command 'sreve'; did you mean serve? (try "
                        "--help)");
  ASSERT_EQ(np_opt_unknown(&eb, "option", "--qqq", opts, 6), NP_EUSAGE);
  ASSERT_STR_EQ(eb.msg, "unknown option '--qqq' (try --help)");
}

int main(void) {
  test_numbers();
  test_names();
  test_suggest();
  puts("test_opt: ok");
  return 0;
}
