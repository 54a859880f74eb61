/* test_archive_cli.c - netproof-archive's option table
 * (archive/np_archive_cli.c): the limits' defaults it prints and documents
 * are the library's (np_archive_limits_default), every command's --help
 * is the usage (it was "--help needs a value"), and options before a
 * command are options, not a command ("--zlib" alone was "unknown option
 * '--zlib'; did you mean --zlib?"). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_archive.h"
#include "np_archive_cli.h"
#include "np_test.h"

static void test_defaults(void) {
  struct np_archive_limits lib;
  np_archive_limits_default(&lib);
  static const struct {
    const char *name;
    size_t off;
  } rows[] = {
      {"max-entries", offsetof(struct np_archive_limits, max_entries)},
      {"max-file-bytes", offsetof(struct np_archive_limits, max_file_bytes)},
      {"max-bytes", offsetof(struct np_archive_limits, max_total_bytes)},
      {"max-ratio", offsetof(struct np_archive_limits, max_ratio)}};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    int k = np_bench_opt_find(&np_archive_optset, rows[i].name);
    ASSERT_GE(k, 0);
    const struct np_bench_opt *o = np_bench_opt_at(&np_archive_optset,
                                                   (size_t)k, NULL);
    uint64_t want;
    memcpy(&want, (const char *)&lib + rows[i].off, sizeof want);
    ASSERT_NOT_NULL(o->dflt);
    if (strtoull(o->dflt, NULL, 10) != want)
      NP_TEST_FAIL_("--%s: the table says %s, the library %llu",
                    rows[i].name, o->dflt, (unsigned long long)want);
  }
}

static int run(int argc, char **argv) {
  fflush(stdout);
  return np_archive_cli_main(argc, argv);
}

static void test_help_and_leading_options(void) {
  char *help[] = {"netproof-archive", "pack", "--help", NULL};
  ASSERT_EQ(run(3, help), 0);
  char *h[] = {"netproof-archive", "verify", "b.tar.gz", "-h", NULL};
  ASSERT_EQ(run(4, h), 0);
  char *lead[] = {"netproof-archive", "--zlib", NULL};
  ASSERT_EQ(run(2, lead), 2);
  char *bad[] = {"netproof-archive", "verify", "b.tar.gz", "--max-ratio",
                 "0", NULL};
  ASSERT_EQ(run(5, bad), 2);
}

int main(void) {
  test_defaults();
  test_help_and_leading_options();
  return 0;
}
