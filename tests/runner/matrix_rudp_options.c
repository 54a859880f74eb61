/*
 * matrix_rudp_options.c - the rudp option table the matrix reads agrees
 * with `netproof-bench rudp` itself: every option a plan may set is
 * accepted by the command's parser at the table's default, minimum and
 * maximum; every option `rudp --help` lists is in the table (--output,
 * --quiet and --help being the runner's); every configuration of every
 * shipped rudp plan parses as the exact argv the runner would spawn; and
 * the rudp-main ids follow the documented pattern.
 * argv[1]: netproof-bench, argv[2]: source tree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <inttypes.h>

#include "matrix_util.h"
#include "np_matrix_plan.h"
#include "np_rudp_config.h"
#include "np_rudp_options.h"
#include "np_test.h"

/* Parse "rudp --name value" (plus any extra args) with the command's own
 * parser; 0 when accepted, the error text into eb otherwise. */
static int cli_accepts(char **args, int n, struct np_errbuf *eb) {
  char *argv[64];
  int argc = 0;
  argv[argc++] = "rudp";
  for (int i = 0; i < n && argc < 63; i++)
    argv[argc++] = args[i];
  argv[argc] = NULL;
  struct np_rudp_config cfg;
  int help = 0;
  return np_rudp_config_parse(argc, argv, &cfg, &help, eb);
}

static void value_text(const struct np_bench_opt *o, double v, uint64_t u,
                       char *buf, size_t len) {
  if (o->type == NP_BENCH_OPT_NUM)
    snprintf(buf, len, "%.17g", v);
  else
    snprintf(buf, len, "%" PRIu64, u);
}

static void check_table(void) {
  size_t n = np_bench_opt_count(&np_rudp_optset), plan_opts = 0;
  for (size_t i = 0; i < n; i++) {
    const struct np_bench_opt *o = np_bench_opt_at(&np_rudp_optset, i, NULL);
    if (o->flags & NP_BENCH_OPT_NOPLAN)
      continue;
    plan_opts++;
    char name[64], val[64];
    snprintf(name, sizeof name, "--%s", o->name);
    char *args[6] = {name, val, NULL, NULL, NULL, NULL};
    int nargs = 2;
    /* io-threads above 1 needs the pool model; --relay and --relay-stats
     * go together, and --agent and --token-file (--agent-relay needs
     * both) */
    if (strcmp(o->name, "io-threads") == 0) {
      args[2] = "--io-model";
      args[3] = "pool";
      nargs = 4;
    } else if (strcmp(o->name, "relay") == 0 ||
               strcmp(o->name, "relay-stats") == 0) {
      args[2] = strcmp(o->name, "relay") == 0 ? "--relay-stats" : "--relay";
      args[3] = strcmp(o->name, "relay") == 0 ? "relay.jsonl"
                                              : "127.0.0.1:9000";
      nargs = 4;
    } else if (strcmp(o->name, "agent") == 0 ||
               strcmp(o->name, "token-file") == 0) {
      args[2] = strcmp(o->name, "agent") == 0 ? "--token-file" : "--agent";
      args[3] = strcmp(o->name, "agent") == 0 ? "token" : "127.0.0.1:7000";
      nargs = 4;
    } else if (strcmp(o->name, "agent-relay") == 0) {
      args[2] = "--agent";
      args[3] = "127.0.0.1:7000";
      args[4] = "--token-file";
      args[5] = "token";
      nargs = 6;
    }
    struct np_errbuf eb = {{0}};
    if (o->type == NP_BENCH_OPT_HOSTPORT) { /* both families, both ports */
      static const char *const ok[] = {"127.0.0.1:9000", "[::1]:65535"};
      for (size_t c = 0; c < 2; c++) {
        snprintf(val, sizeof val, "%s", ok[c]);
        ASSERT_OK(cli_accepts(args, nargs, &eb));
      }
      snprintf(val, sizeof val, "%s", "127.0.0.1:0"); /* a peer: no any */
      ASSERT_EQ(cli_accepts(args, nargs, &eb),
                o->flags & NP_BENCH_OPT_ANYPORT ? 0 : NP_EUSAGE);
      continue;
    }
    if (o->type == NP_BENCH_OPT_CHOICE || o->type == NP_BENCH_OPT_STR) {
      for (size_t c = 0; o->choices != NULL && o->choices[c] != NULL; c++) {
        snprintf(val, sizeof val, "%s", o->choices[c]);
        int rc = cli_accepts(args, nargs, &eb);
        if (rc != 0)
          fprintf(stderr, "%s %s: %s\n", name, val, eb.msg);
        ASSERT_OK(rc);
      }
      if (o->choices == NULL) {
        snprintf(val, sizeof val, "%s",
                 strcmp(o->name, "burst-loss") == 0 ? "3/100"
                 : strcmp(o->name, "reo-wnd-max-ms") == 0 ||
                         strcmp(o->name, "reo-wnd-fec-ms") == 0
                     ? "auto"
                     : "x");
        ASSERT_OK(cli_accepts(args, nargs, &eb));
      }
      continue;
    }
    /* an open lower bound is probed just above it */
    double lo = o->type == NP_BENCH_OPT_NUM
                    ? o->min + (o->min_open ? 0.001 : 0) : (double)o->umin;
    double hi = o->type == NP_BENCH_OPT_NUM ? o->max : (double)o->umax;
    double probes[3] = {lo, hi, o->dflt ? atof(o->dflt) : lo};
    uint64_t uprobes[3] = {o->umin, o->umax,
                           o->dflt ? strtoull(o->dflt, NULL, 10) : o->umin};
    for (int k = 0; k < 3; k++) {
      value_text(o, probes[k], uprobes[k], val, sizeof val);
      int rc = cli_accepts(args, nargs, &eb);
      if (rc != 0)
        fprintf(stderr, "table says %s %s is valid; the CLI says: %s\n", name,
                val, eb.msg);
      ASSERT_OK(rc);
    }
  }
  ASSERT_GT(plan_opts, 30);
}

/* Every "--name" the help text lists is a table option (or runner-owned). */
static void check_help(const char *bench, const char *tmp) {
  char cmd[4096], out[512];
  snprintf(out, sizeof out, "%s/help.txt", tmp);
  snprintf(cmd, sizeof cmd, "'%s' rudp --help > '%s'", bench, out);
  ASSERT_EQ(system(cmd), 0);
  char *text = mx_read(out);
  size_t n = np_bench_opt_count(&np_rudp_optset), seen = 0;
  for (char *s = strstr(text, "--"); s != NULL; s = strstr(s + 2, "--")) {
    char name[64];
    size_t len = strspn(s + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
    if (len == 0 || len >= sizeof name || (s > text && s[-1] != ' ' &&
                                           s[-1] != '/' && s[-1] != '\n'))
      continue;
    memcpy(name, s + 2, len);
    name[len] = '\0';
    if (strcmp(name, "output") == 0 || strcmp(name, "quiet") == 0 ||
        strcmp(name, "help") == 0)
      continue;
    int idx = np_bench_opt_find(&np_rudp_optset, name);
    if (idx < 0)
      fprintf(stderr, "rudp --help lists --%s; the matrix table does not\n",
              name);
    ASSERT_GE(idx, 0);
    seen++;
  }
  ASSERT_GE(seen, n - 3); /* names may repeat in the help, never be
                             missing; less --output, --quiet, --help */
  free(text);
}

/* Each configuration's argv, exactly as spawned, parses. */
static void check_plan(const char *src, const char *file) {
  char path[4096];
  snprintf(path, sizeof path, "%s/bench/plans/%s", src, file);
  struct np_matrix_plan *p = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_matrix_plan_load(path, &p, &eb));
  ASSERT_STR_EQ(p->protocol, "rudp");
  for (size_t i = 0; i < p->nconfigs; i++) {
    const struct np_matrix_config *cf = &p->configs[i];
    int rc = cli_accepts(cf->argv, (int)cf->argc, &eb);
    if (rc != 0)
      fprintf(stderr, "%s: %s: %s\n", file, cf->id, eb.msg);
    ASSERT_OK(rc);
    ASSERT_EQ(strncmp(cf->id, "rudp-p", 6), 0);
    ASSERT_NOT_NULL(strstr(cf->id, "-fec"));
  }
  printf("%s: %zu configurations parse as rudp command lines\n", file,
         p->nconfigs);
  np_matrix_plan_free(p);
}

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 3);
  char tmp[256];
  mx_tmpdir(tmp, sizeof tmp);
  check_table();
  check_help(argv[1], tmp);
  check_plan(argv[2], "rudp-main.json");
  check_plan(argv[2], "rudp-payload-window.json");
  check_plan(argv[2], "rudp-sustained.json");
  /* the documented id pattern, and strategies ranked within a condition */
  char path[4096];
  snprintf(path, sizeof path, "%s/bench/plans/rudp-main.json", argv[2]);
  struct np_matrix_plan *p = NULL;
  struct np_errbuf eb = {{0}};
  ASSERT_OK(np_matrix_plan_load(path, &p, &eb));
  const struct np_matrix_config *a =
      np_matrix_plan_find(p, "rudp-p1024-c4-w16-single-fecnone-bbr-random");
  const struct np_matrix_config *b =
      np_matrix_plan_find(p, "rudp-p1024-c4-w16-single-fecadaptive-bbr-random");
  const struct np_matrix_config *c =
      np_matrix_plan_find(p, "rudp-p1024-c4-w16-single-fecnone-bbr-burst");
  ASSERT_NOT_NULL(a);
  ASSERT_NOT_NULL(b);
  ASSERT_NOT_NULL(c);
  ASSERT_STR_EQ(a->group, b->group);
  ASSERT_TRUE(strcmp(a->group, c->group) != 0);
  /* 3 rounds of 2 + 3 s each: the estimate and timeout count the rounds */
  ASSERT_TRUE(a->est_seconds > 15.5);
  ASSERT_TRUE(a->timeout_seconds > 2 * 15.5);
  np_matrix_plan_free(p);
  mx_rm_rf(tmp);
  return 0;
}
