/*
 * test_bench_opts.c - every option of every table (udp, rudp, relay) is
 * walked, proving the command's parser, its --help and the matrix agree on
 * name, range and default:
 *   - each numeric option just inside and just outside each end of its
 *     range, through the command's parser and through a plan (expanded
 *     in-process as `matrix --dry-run` does), refused with the same
 *     message by both;
 *   - each choice option with every allowed value and a disallowed one,
 *     each free-text option with a good and a bad sample;
 *   - options a plan may not set (--output, --quiet, --help) are refused
 *     by a plan as "the runner sets it";
 *   - the table's defaults are valid, parse to the configuration no option
 *     gives, and are what a plan's exclusion matches when a row leaves the
 *     option out;
 *   - `--help` has one line per option with its range and [default].
 * The relay's own rows are walked through its option set; rudp composes
 * the impairment rows, so plans reach them through rudp.
 * argv[1]: netproof-bench.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_matrix_plan.h"
#include "np_relay.h"
#include "np_rudp_options.h"
#include "np_test.h"
#include "np_udp_options.h"

/* Free-text options: one value the command takes, one it refuses. */
static const struct {
  const char *name, *good, *bad;
} samples[] = {
    {"address", "::1", "localhost"},
    {"agent", "127.0.0.1:7000", "localhost:7000"},
    {"token-file", "token", ""},
    {"agent-relay", "loss-percent=5,delay-ms=20", "listen=127.0.0.1:9"},
    {"burst-loss", "3/100", "5/3"},
    {"connect", "127.0.0.1:9000", "localhost:9000"},
    {"reo-wnd-max-ms", "25", "x"},
    {"relay", "127.0.0.1:9000", "localhost:9000"},
    {"relay-stats", "relay.jsonl", ""},
    {"reo-wnd-fec-ms", "8", "x"},
};

/* Options that need companions to reach an end of their range: up to
 * four (name, value) pairs, NULL-terminated. */
#define STREAM "mode", "stream", "backend", "raw", "io-model", "split"
static const struct {
  const char *command, *name;
  const char *with[9];
} context[] = {
    {"udp", "payload", {"address", "::1"}}, /* 65527 is IPv6's maximum */
    {"udp", "io-threads", {"io-model", "pool"}},
    {"udp", "arrivals", {"rate", "1000"}},
    {"udp", "max-outstanding", {"rate", "1000"}},
    {"udp", "mode", {"backend", "raw", "io-model", "split"}},
    {"udp", "bitrate", {STREAM}},
    {"udp", "packet-rate", {STREAM}},
    /* --gso is a whole number of --payload segments: 65,507 = 13 x 5,039 */
    {"udp", "gso", {STREAM, "payload", "5039"}},
    {"udp", "gro", {STREAM}},
    {"udp", "batch", {STREAM}},
    {"udp", "reply-timeout-ms", {"connect", "127.0.0.1:9000"}},
    {"rudp", "io-threads", {"io-model", "pool"}},
    {"rudp", "relay", {"relay-stats", "relay.jsonl"}}, /* they go together */
    {"rudp", "relay-stats", {"relay", "127.0.0.1:9000"}},
    {"udp", "agent", {"token-file", "token"}}, /* they go together */
    {"udp", "token-file", {"agent", "127.0.0.1:7000"}},
    {"udp", "agent-relay", {"agent", "127.0.0.1:7000", "token-file", "token"}},
    {"rudp", "agent", {"token-file", "token"}},
    {"rudp", "token-file", {"agent", "127.0.0.1:7000"}},
    {"rudp", "agent-relay", {"agent", "127.0.0.1:7000", "token-file", "token"}},
};

static const char *const *context_for(const struct np_bench_optset *s,
                                      const char *name) {
  for (size_t i = 0; i < sizeof context / sizeof context[0]; i++)
    if (!strcmp(context[i].command, s->command) &&
        !strcmp(context[i].name, name))
      return context[i].with;
  return NULL;
}

/* The command line "--name text [--with value]" through the parser. */
static int cli(const struct np_bench_optset *s, const char *name,
               const char *text, struct np_errbuf *eb) {
  char opt[80], with[4][80];
  const char *const *w = context_for(s, name);
  char *argv[12] = {(char *)s->command, opt, (char *)text};
  int argc = 3;
  snprintf(opt, sizeof opt, "--%s", name);
  for (int k = 0; w != NULL && k < 4 && w[2 * k] != NULL; k++) {
    snprintf(with[k], sizeof with[k], "--%s", w[2 * k]);
    argv[argc++] = with[k];
    argv[argc++] = (char *)w[2 * k + 1];
  }
  memset(eb, 0, sizeof *eb);
  return np_bench_opt_check(s, argc, argv, eb);
}

/* A plan with one configuration {name: v [, with: value]} (v is taken),
 * optionally an exclusion; expanded as the runner does. */
static int plan(const struct np_bench_optset *s, const char *name, cJSON *v,
                cJSON *exclude, struct np_errbuf *eb) {
  cJSON *d = cJSON_CreateObject();
  cJSON_AddStringToObject(d, "schema", "netproof/plan/1");
  cJSON_AddStringToObject(d, "suite", "t");
  cJSON_AddStringToObject(d, "protocol", s->command);
  cJSON *row = cJSON_CreateObject();
  cJSON_AddItemToArray(cJSON_AddArrayToObject(d, "configurations"), row);
  if (v != NULL) {
    cJSON_AddItemToObject(row, name, v);
    const char *const *w = context_for(s, name);
    for (int k = 0; w != NULL && k < 4 && w[2 * k] != NULL; k++) {
      const char *wval = w[2 * k + 1];
      char *end;
      double num = strtod(wval, &end);
      if (end != wval && *end == '\0') /* a numeric companion */
        cJSON_AddNumberToObject(row, w[2 * k], num);
      else
        cJSON_AddStringToObject(row, w[2 * k], wval);
    }
  }
  if (exclude != NULL)
    cJSON_AddItemToArray(cJSON_AddArrayToObject(d, "exclude"), exclude);
  struct np_matrix_plan *p = NULL;
  memset(eb, 0, sizeof *eb);
  int rc = np_matrix_plan_from_json(d, "plan.json", &p, eb);
  np_matrix_plan_free(p);
  cJSON_Delete(d);
  return rc;
}

/* text is what a plan's number d becomes on the child's command line. */
static void number_text(double d, char *buf, size_t len) {
  if (d == floor(d) && fabs(d) < 9007199254740992.0)
    snprintf(buf, len, "%.0f", d);
  else
    snprintf(buf, len, "%.15g", d);
}

/* One probe: accepted by both, or refused by both with the CLI's words. */
static void probe(const struct np_bench_optset *s, const struct np_bench_opt *o,
                  const char *text, cJSON *pv, int want_ok) {
  struct np_errbuf ce, pe;
  int crc = cli(s, o->name, text, &ce);
  if ((crc == 0) != want_ok)
    NP_TEST_FAIL_("%s --%s %s: parser says %d (%s), want %s", s->command,
                  o->name, text, crc, ce.msg, want_ok ? "ok" : "refused");
  if (pv == NULL || !strcmp(s->command, "relay")) {
    cJSON_Delete(pv); /* JSON cannot carry the value / the relay set has no
                         plans of its own (rudp's reach its rows) */
    return;
  }
  int prc = plan(s, o->name, pv, NULL, &pe);
  if ((prc == 0) != want_ok)
    NP_TEST_FAIL_("%s --%s %s: plan says %d (%s), want %s", s->command,
                  o->name, text, prc, pe.msg, want_ok ? "ok" : "refused");
  if (!want_ok && strstr(pe.msg, ce.msg) == NULL)
    NP_TEST_FAIL_("%s --%s %s: plan message '%s' lacks the parser's '%s'",
                  s->command, o->name, text, pe.msg, ce.msg);
}

static void walk_numeric(const struct np_bench_optset *s,
                         const struct np_bench_opt *o) {
  char t[64];
  if (o->type == NP_BENCH_OPT_NUM) {
    double in_lo = o->min_open ? o->min + 0.001 : o->min;
    double out_lo = o->min_open ? o->min : o->min - 0.001;
    double vals[4] = {in_lo, o->max, out_lo, o->max + 0.001};
    for (int k = 0; k < 4; k++) {
      number_text(vals[k], t, sizeof t);
      probe(s, o, t, cJSON_CreateNumber(vals[k]), k < 2);
    }
    return;
  }
  /* integers: a plan's JSON number holds them exactly up to 2^53 */
  const double exact = 9007199254740992.0;
  snprintf(t, sizeof t, "%" PRIu64, o->umin);
  probe(s, o, t, cJSON_CreateNumber((double)o->umin), 1);
  snprintf(t, sizeof t, "%" PRIu64, o->umax);
  probe(s, o, t, (double)o->umax < exact ? cJSON_CreateNumber((double)o->umax)
                                         : NULL, 1);
  if (o->umin > 0)
    snprintf(t, sizeof t, "%" PRIu64, o->umin - 1);
  else
    snprintf(t, sizeof t, "-1");
  probe(s, o, t, cJSON_CreateNumber((double)o->umin - 1), 0);
  if (o->umax < UINT64_MAX)
    snprintf(t, sizeof t, "%" PRIu64, o->umax + 1);
  else
    snprintf(t, sizeof t, "18446744073709551616");
  probe(s, o, t, (double)o->umax + 1 < exact
                     ? cJSON_CreateNumber((double)o->umax + 1) : NULL, 0);
}

static void walk_text(const struct np_bench_optset *s,
                      const struct np_bench_opt *o) {
  if (o->type == NP_BENCH_OPT_CHOICE) {
    /* offered choices are accepted, the table's others refused (serve's
     * io-model offers two of the five) */
    for (size_t c = 0; o->choices[c] != NULL; c++)
      probe(s, o, o->choices[c], cJSON_CreateString(o->choices[c]),
            np_bench_opt_offers(o, c));
    probe(s, o, "no-such-choice", cJSON_CreateString("no-such-choice"), 0);
    return;
  }
  size_t i = 0;
  while (i < sizeof samples / sizeof samples[0] &&
         strcmp(samples[i].name, o->name) != 0)
    i++;
  if (i == sizeof samples / sizeof samples[0])
    NP_TEST_FAIL_("--%s: add a good and a bad sample to this test", o->name);
  probe(s, o, samples[i].good, cJSON_CreateString(samples[i].good), 1);
  probe(s, o, samples[i].bad, cJSON_CreateString(samples[i].bad), 0);
}

/* The defaults are valid, are what no option gives, and are what the
 * matrix assumes for an option a row leaves out. */
static void walk_defaults(const struct np_bench_optset *s) {
  struct np_errbuf eb = {{0}};
  char *none = calloc(1, s->cfg_size), *one = calloc(1, s->cfg_size);
  char *argv0[] = {(char *)s->command, NULL};
  int help = 0;
  ASSERT_NOT_NULL(none);
  ASSERT_NOT_NULL(one);
  ASSERT_OK(np_bench_opt_defaults(s, none, &eb));
  ASSERT_OK(np_bench_opt_parse(s, 1, argv0, one, &help, &eb));
  ASSERT_EQ(memcmp(none, one, s->cfg_size), 0);
  size_t n = np_bench_opt_count(s);
  for (size_t i = 0; i < n; i++) {
    size_t base = 0;
    const struct np_bench_opt *o = np_bench_opt_at(s, i, &base);
    if (o->dflt == NULL || o->type == NP_BENCH_OPT_FLAG)
      continue;
    char opt[80];
    snprintf(opt, sizeof opt, "--%s", o->name);
    char *argv[] = {(char *)s->command, opt, (char *)o->dflt, NULL};
    memset(one, 0, s->cfg_size);
    int rc = np_bench_opt_parse(s, 3, argv, one, &help, &eb);
    if (rc != 0)
      NP_TEST_FAIL_("%s %s %s (the default): %s", s->command, opt, o->dflt,
                    eb.msg);
    /* a path is stored as a pointer: same text, then compare the rest */
    if (o->type == NP_BENCH_OPT_STR &&
        (o->set == NULL || o->set == np_bench_opt_set_path)) {
      const char *a, *b;
      memcpy(&a, none + base + o->offset, sizeof a);
      memcpy(&b, one + base + o->offset, sizeof b);
      ASSERT_STR_EQ(a, b);
      memcpy(one + base + o->offset, &a, sizeof a);
    }
    if (memcmp(none, one, s->cfg_size) != 0)
      NP_TEST_FAIL_("%s %s %s differs from the defaults", s->command, opt,
                    o->dflt);
    if (!strcmp(s->command, "relay") || (o->flags & NP_BENCH_OPT_NOPLAN))
      continue;
    /* a row without the option matches an exclusion at its default */
    int numeric = o->type == NP_BENCH_OPT_UINT ||
                  o->type == NP_BENCH_OPT_SIZE || o->type == NP_BENCH_OPT_NUM;
    cJSON *ex = cJSON_CreateObject();
    cJSON_AddItemToObject(ex, o->name,
                          numeric ? cJSON_CreateNumber(strtod(o->dflt, NULL))
                                  : cJSON_CreateString(o->dflt));
    rc = plan(s, o->name, NULL, ex, &eb);
    if (rc == 0 || strstr(eb.msg, "empty product") == NULL)
      NP_TEST_FAIL_("%s: a plan's default of --%s is not %s: %s", s->command,
                    o->name, o->dflt, eb.msg);
  }
  free(none);
  free(one);
}

static void walk(const struct np_bench_optset *s) {
  size_t n = np_bench_opt_count(s), walked = 0;
  struct np_errbuf eb;
  ASSERT_GT(n, 0);
  for (size_t i = 0; i < n; i++) {
    const struct np_bench_opt *o = np_bench_opt_at(s, i, NULL);
    ASSERT_EQ(np_bench_opt_find(s, o->name), (int)i); /* names are unique */
    if (o->flags & NP_BENCH_OPT_NOPLAN) {
      if (!strcmp(s->command, "relay"))
        continue;
      ASSERT_EQ(plan(s, o->name, cJSON_CreateString("x"), NULL, &eb),
                NP_ESCHEMA);
      ASSERT_NOT_NULL(strstr(eb.msg, "(the runner sets it)"));
      continue;
    }
    ASSERT_TRUE(o->type != NP_BENCH_OPT_FLAG); /* plans set values */
    ASSERT_NOT_NULL(o->tag);                   /* ... named in ids */
    if (o->type == NP_BENCH_OPT_UINT || o->type == NP_BENCH_OPT_SIZE ||
        o->type == NP_BENCH_OPT_NUM)
      walk_numeric(s, o);
    else
      walk_text(s, o);
    walked++;
  }
  walk_defaults(s);
  printf("%s: %zu options, %zu walked through parser%s\n", s->command, n,
         walked, strcmp(s->command, "relay") ? " and plan" : "");
}

/* One line per option: "  --name ...", its range and [default]. */
static void check_help_text(const struct np_bench_optset *s, const char *text) {
  size_t n = np_bench_opt_count(s);
  for (size_t i = 0; i < n; i++) {
    const struct np_bench_opt *o = np_bench_opt_at(s, i, NULL);
    char head[96], range[256], dflt[96];
    snprintf(head, sizeof head, "\n  --%s ", o->name);
    const char *line = strstr(text, head);
    if (line == NULL)
      NP_TEST_FAIL_("%s --help has no line for --%s", s->command, o->name);
    const char *end = strchr(line + 1, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    char *copy = strndup(line, len);
    np_bench_opt_range(o, range, sizeof range);
    if (range[0] && strstr(copy, range) == NULL)
      NP_TEST_FAIL_("%s --help: --%s line lacks its range %s: %s", s->command,
                    o->name, range, copy);
    snprintf(dflt, sizeof dflt, "[%s]", o->dflt ? o->dflt : "");
    if (o->dflt != NULL && strstr(copy, dflt) == NULL)
      NP_TEST_FAIL_("%s --help: --%s line lacks its default %s: %s",
                    s->command, o->name, dflt, copy);
    free(copy);
  }
}

static void check_help(const char *bench, const struct np_bench_optset *s) {
  char cmd[4096], *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  ASSERT_NOT_NULL(mem);
  if (bench != NULL) {
    snprintf(cmd, sizeof cmd, "'%s' %s --help", bench, s->command);
    FILE *p = popen(cmd, "r");
    ASSERT_NOT_NULL(p);
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, p)) > 0)
      fwrite(buf, 1, got, mem);
    ASSERT_EQ(pclose(p), 0);
  } else {
    np_bench_opt_help(s, mem);
  }
  fclose(mem);
  ASSERT_NOT_NULL(strstr(text, "usage: netproof-bench "));
  ASSERT_NOT_NULL(strstr(text, "130/143 interrupted"));
  check_help_text(s, text);
  free(text);
}

/* rudp keeps the relay's semantics: --profile first wherever it appears,
 * --ge-* switches Gilbert-Elliott on with tc's defaults. */
static void check_relay_in_rudp(void) {
  struct np_rudp_config cfg;
  struct np_errbuf eb = {{0}};
  int help = 0;
  char *argv[] = {"rudp", "--loss-percent", "7", "--ge-p", "3", "--profile",
                  "burst", NULL};
  ASSERT_OK(np_bench_opt_parse(&np_rudp_optset, 7, argv, &cfg, &help, &eb));
  ASSERT_STR_EQ(cfg.relay.profile, "burst");
  for (int d = 0; d < NP_RELAY_DIRS; d++) {
    ASSERT_DBL_NEAR(cfg.relay.dir[d].loss_pct, 7, 0);
    ASSERT_EQ(cfg.relay.dir[d].burst_n, 3);
    ASSERT_EQ(cfg.relay.dir[d].ge_enabled, 1);
    ASSERT_DBL_NEAR(cfg.relay.dir[d].ge_r, 97, 0);
    ASSERT_DBL_NEAR(cfg.relay.dir[d].ge_1h, 100, 0);
  }
  char *none[] = {"rudp", NULL};
  ASSERT_OK(np_bench_opt_parse(&np_rudp_optset, 1, none, &cfg, &help, &eb));
  ASSERT_STR_EQ(cfg.relay.profile, "random"); /* rudp's default profile */
  ASSERT_DBL_NEAR(cfg.relay.dir[0].loss_pct, 5, 0);
}

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 2);
  const struct np_bench_optset *sets[] = {&np_udp_optset, &np_rudp_optset,
                                          &np_relay_optset};
  for (size_t i = 0; i < 3; i++) {
    walk(sets[i]);
    check_help(i < 2 ? argv[1] : NULL, sets[i]);
  }
  check_relay_in_rudp();
  /* rudp composes the relay's impairment rows as they are */
  for (size_t i = 0; i < NP_RELAY_IMPAIR_NOPTS; i++) {
    int k = np_bench_opt_find(&np_rudp_optset, np_relay_impair_opts[i].name);
    ASSERT_GE(k, 0);
    ASSERT_TRUE(np_bench_opt_at(&np_rudp_optset, (size_t)k, NULL) ==
                &np_relay_impair_opts[i]);
  }
  return 0;
}
