/* test_opt_table.c - what the option tables give the programs that are
 * not benchmarks (common/np_bench_opt.h): operands after the options
 * ("--" ends them too), a short alias (-h), a VERSION row, hidden rows
 * left out of --help, the generated usage line with the program's name,
 * one-line errors with suggestions, and a numeric row's own refusal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_bench_opt.h"
#include "np_test.h"

struct cfg {
  const char *schema;
  int check;
  uint64_t max;
};

static const struct np_bench_opt rows[] = {
    {.name = "schema", .type = NP_BENCH_OPT_STR, .metavar = "FILE",
     .help = "schema file", NP_BENCH_AT(struct cfg, schema),
     .set = np_bench_opt_set_path},
    {.name = "check", .type = NP_BENCH_OPT_FLAG, .help = "check",
     NP_BENCH_AT(struct cfg, check)},
    {.name = "max-bytes", .type = NP_BENCH_OPT_UINT, .umin = 1, .umax = 99,
     .help = "secret knob", NP_BENCH_AT(struct cfg, max),
     .flags = NP_BENCH_OPT_HIDDEN},
    {.name = "help", .type = NP_BENCH_OPT_FLAG, .alias = "-h",
     .help = "this text", .flags = NP_BENCH_OPT_HELP},
    {.name = "version", .type = NP_BENCH_OPT_FLAG, .help = "version",
     .flags = NP_BENCH_OPT_VERSION},
};
static const struct np_bench_opt_section secs[] = {{NULL, rows, 5, 0}};
static void init(void *c) { memset(c, 0, sizeof(struct cfg)); }
static const struct np_bench_optset set = {
    .program = "netproof-x", .command = "", .operands = "FILE...",
    .summary = "X things.\n", .exits = "exit: 0 ok\n", .sections = secs,
    .nsections = 1, .cfg_size = sizeof(struct cfg), .init = init};

static int parse(int argc, char **argv, struct cfg *c, int *help, int *first,
                 struct np_errbuf *eb) {
  return np_bench_opt_parse_operands(&set, argc, argv, c, help, first, eb);
}

static void test_operands(void) {
  struct cfg c;
  struct np_errbuf eb = {{0}};
  int help = 9, first = 0;
  char *a[] = {"x", "--schema", "s.json", "--max-bytes=5", "a.json",
               "--check", NULL};
  ASSERT_OK(parse(6, a, &c, &help, &first, &eb));
  ASSERT_EQ(help, 0);
  ASSERT_EQ(first, 4); /* a.json and everything after are operands */
  ASSERT_STR_EQ(c.schema, "s.json");
  ASSERT_EQ(c.check, 0);
  ASSERT_UINT_EQ(c.max, 5);
  char *b[] = {"x", "--check", "--", "--odd-name.json", NULL};
  ASSERT_OK(parse(4, b, &c, &help, &first, &eb));
  ASSERT_EQ(first, 3);
  ASSERT_EQ(c.check, 1);
  char *n[] = {"x", "--check", NULL};
  ASSERT_OK(parse(2, n, &c, &help, &first, &eb));
  ASSERT_EQ(first, 2); /* none: argc */
  char *dash[] = {"x", "-", NULL};
  ASSERT_OK(parse(2, dash, &c, &help, &first, &eb));
  ASSERT_EQ(first, 1); /* "-" is an operand (stdin) */
  /* without operands the same argument is refused */
  ASSERT_EQ(np_bench_opt_parse(&set, 6, a, &c, &help, &eb), NP_EUSAGE);
  ASSERT_STR_EQ(eb.msg, "unexpected argument 'a.json'");
}

static void test_help_version_errors(void) {
  struct cfg c;
  struct np_errbuf eb = {{0}};
  int help = 0, first = 0;
  char *h[] = {"x", "-h", "--bogus", NULL};
  ASSERT_OK(parse(3, h, &c, &help, &first, &eb));
  ASSERT_EQ(help, 1);
  char *v[] = {"x", "--version", NULL};
  ASSERT_OK(parse(2, v, &c, &help, &first, &eb));
  ASSERT_EQ(help, 2);
  char *u[] = {"x", "--schmea", "s", "f", NULL};
  ASSERT_EQ(parse(4, u, &c, &help, &first, &eb), NP_EUSAGE);
  ASSERT_STR_EQ(eb.msg, "unknown option '--schmea'; did you mean --schema? "
                        "(try --help)");
  char *s[] = {"x", "-q", "f", NULL};
  ASSERT_EQ(parse(3, s, &c, &help, &first, &eb), NP_EUSAGE);
  ASSERT_STR_EQ(eb.msg, "unknown option '-q' (try --help)");
  char *m[] = {"x", "--schema", NULL};
  ASSERT_EQ(parse(2, m, &c, &help, &first, &eb), NP_EUSAGE);
  ASSERT_STR_EQ(eb.msg, "--schema needs a value");
  char *r[] = {"x", "--max-bytes", "0", "f", NULL};
  ASSERT_EQ(parse(4, r, &c, &help, &first, &eb), NP_EUSAGE);
  ASSERT_STR_EQ(eb.msg, "--max-bytes 0: out of range 1..99");
}

static void test_help_text(void) {
  char *buf = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&buf, &len);
  ASSERT_NOT_NULL(fp);
  np_bench_opt_help(&set, fp);
  fclose(fp);
  ASSERT_TRUE(strncmp(buf, "usage: netproof-x [options] FILE...\nX things.\n",
                      46) == 0);
  ASSERT_TRUE(strstr(buf, "  --schema FILE") != NULL);
  ASSERT_TRUE(strstr(buf, "  --version") != NULL);
  ASSERT_TRUE(strstr(buf, "max-bytes") == NULL); /* hidden */
  ASSERT_TRUE(strstr(buf, "exit: 0 ok\n") != NULL);
  free(buf);
}

/* Interleaved operands (pack DIR --output B DIR2), a SHORT row (-C) and
 * aliases (-o, --out, --out=x). */
struct icfg {
  const char *out, *dest;
  int zlib;
};
static const struct np_bench_opt irows[] = {
    {.name = "output", .type = NP_BENCH_OPT_STR, .metavar = "FILE",
     .alias = "-o --out", .help = "out", NP_BENCH_AT(struct icfg, out)},
    {.name = "C", .type = NP_BENCH_OPT_STR, .metavar = "DEST", .help = "dest",
     NP_BENCH_AT(struct icfg, dest), .flags = NP_BENCH_OPT_SHORT},
    {.name = "zlib", .type = NP_BENCH_OPT_FLAG, .help = "zlib",
     NP_BENCH_AT(struct icfg, zlib)},
};
static const struct np_bench_opt_section isecs[] = {{NULL, irows, 3, 0}};
static const struct np_bench_optset iset = {
    .program = "netproof-y", .command = "pack", .operands = "DIR...",
    .interleaved = 1, .sections = isecs, .nsections = 1,
    .cfg_size = sizeof(struct icfg)};

static void test_interleaved(void) {
  struct icfg c;
  struct np_errbuf eb = {{0}};
  int help = 0, first = 0;
  char *a[] = {"pack", "d1", "--output", "b.tgz", "d2", "--zlib", "-C", "x",
               "--", "--d3", NULL};
  memset(&c, 0, sizeof c);
  ASSERT_OK(np_bench_opt_parse_operands(&iset, 10, a, &c, &help, &first, &eb));
  ASSERT_STR_EQ(c.out, "b.tgz");
  ASSERT_STR_EQ(c.dest, "x");
  ASSERT_EQ(c.zlib, 1);
  ASSERT_EQ(first, 7);
  ASSERT_STR_EQ(a[6], "--"); /* the options, then "--", then operands */
  ASSERT_STR_EQ(a[7], "d1");
  ASSERT_STR_EQ(a[8], "d2");
  ASSERT_STR_EQ(a[9], "--d3");
  char *b[] = {"pack", "-o", "b1", "d1", NULL};
  ASSERT_OK(np_bench_opt_parse_operands(&iset, 4, b, &c, &help, &first, &eb));
  ASSERT_STR_EQ(c.out, "b1");
  ASSERT_EQ(first, 3);
  char *d[] = {"pack", "--out=b2", NULL};
  ASSERT_OK(np_bench_opt_parse_operands(&iset, 2, d, &c, &help, &first, &eb));
  ASSERT_STR_EQ(c.out, "b2");
  ASSERT_EQ(first, 2);
  char *e[] = {"pack", "d1", "-o", NULL};
  ASSERT_EQ(np_bench_opt_parse_operands(&iset, 3, e, &c, &help, &first, &eb),
            NP_EUSAGE);
  ASSERT_STR_EQ(eb.msg, "-o needs a value");
  char *buf = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&buf, &len);
  ASSERT_NOT_NULL(fp);
  np_bench_opt_help(&iset, fp);
  fclose(fp);
  ASSERT_TRUE(strstr(buf, "usage: netproof-y pack [options] DIR...\n"));
  ASSERT_TRUE(strstr(buf, "  -o FILE                        the same as "
                          "--output\n"));
  ASSERT_TRUE(strstr(buf, "  --out FILE"));
  ASSERT_TRUE(strstr(buf, "  -C DEST"));
  free(buf);
}

/* A numeric row's refusal replaces both "not a number" and "out of
 * range" with its own line (the matrix's --until-stable and --min-reps);
 * a row without one keeps the parser's wording. */
struct ncfg {
  double pct;
  uint64_t reps;
  uint64_t plain;
};
static const struct np_bench_opt nrows[] = {
    {.name = "pct", .type = NP_BENCH_OPT_NUM, .min = 0, .min_open = 1,
     .max = 100, .refusal = "--pct %s: expected a percentage, > 0 and <= 100",
     NP_BENCH_AT(struct ncfg, pct)},
    {.name = "reps", .type = NP_BENCH_OPT_UINT, .umin = 5, .umax = 1000,
     .refusal = "--reps %s: expected a whole number from 5 to 1000",
     NP_BENCH_AT(struct ncfg, reps)},
    {.name = "plain", .type = NP_BENCH_OPT_UINT, .umin = 1, .umax = 9,
     NP_BENCH_AT(struct ncfg, plain)},
};
static const struct np_bench_opt_section nsecs[] = {{NULL, nrows, 3, 0}};
static const struct np_bench_optset nset = {
    .program = "netproof-z", .command = "", .sections = nsecs,
    .nsections = 1, .cfg_size = sizeof(struct ncfg)};

static void test_numeric_refusal(void) {
  struct ncfg c;
  struct np_errbuf eb = {{0}};
  int help = 0;
  static const struct {
    const char *opt, *val, *msg;
  } cases[] = {
      {"--pct", "0", "--pct 0: expected a percentage, > 0 and <= 100"},
      {"--pct", "abc", "--pct abc: expected a percentage, > 0 and <= 100"},
      {"--pct", "100.5", "--pct 100.5: expected a percentage, > 0 and <= 100"},
      {"--reps", "4", "--reps 4: expected a whole number from 5 to 1000"},
      {"--reps", "5.0", "--reps 5.0: expected a whole number from 5 to 1000"},
      {"--plain", "10", "--plain 10: out of range 1..9"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *a[] = {"z", (char *)cases[i].opt, (char *)cases[i].val, NULL};
    memset(&c, 0, sizeof c);
    ASSERT_EQ(np_bench_opt_parse(&nset, 3, a, &c, &help, &eb), NP_EUSAGE);
    ASSERT_STR_EQ(eb.msg, cases[i].msg);
  }
  char *ok[] = {"z", "--pct", "2.5", "--reps", "1000", NULL};
  ASSERT_OK(np_bench_opt_parse(&nset, 5, ok, &c, &help, &eb));
  ASSERT_TRUE(c.pct == 2.5);
  ASSERT_UINT_EQ(c.reps, 1000);
}

int main(void) {
  test_numeric_refusal();
  test_interleaved();
  test_operands();
  test_help_version_errors();
  test_help_text();
  return 0;
}
