/*
 * np_bench_ctl_main.c - parse, open the output, run, build, validate,
 * commit, summarise: once for every benchmark kind (see
 * np_bench_ctl_main.h).
 */
#include "np_bench_ctl_main.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_bench_output.h"
#include "np_bench_progress.h"
#include "np_bench_summary.h"
#include "np_schema.h"

/* The record goes to stdout, and stdout is a terminal: ~30 KB of JSON is
 * no use to a person there, so the record is not written (a file or a pipe
 * still gets it) and the flow says how to get it. */
static int record_to_terminal(const struct np_bench_cli *cli) {
  return !cli->summary_json && strcmp(cli->output, "-") == 0 &&
         isatty(STDOUT_FILENO);
}

/* --summary json: the summary as one line, on stdout (through the output
 * when it is stdout, so no record precedes it); the record, if it goes to
 * a file, is committed there first. */
static int commit(struct np_bench_output *out, const struct np_bench_cli *cli,
                  const cJSON *doc, struct np_errbuf *eb) {
  if (record_to_terminal(cli))
    return 0;
  if (!cli->summary_json)
    return np_bench_output_commit_json(out, doc, eb);
  int to_stdout = strcmp(cli->output, "-") == 0, rc = 0;
  if (!to_stdout && (rc = np_bench_output_commit_json(out, doc, eb)) != 0)
    return rc;
  cJSON *sum = np_bench_summary_of(doc);
  if (sum == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "summary: out of memory");
  struct np_errbuf inner = {{0}}; /* its schema, like the record's */
  if ((rc = np_schema_validate_tagged(sum, &inner)) != 0) {
    cJSON_Delete(sum);
    return np_errbuf_set(eb, rc, "summary: %s", inner.msg);
  }
  char *txt = cJSON_PrintUnformatted(sum);
  cJSON_Delete(sum);
  if (txt == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "summary: out of memory");
  size_t n = strlen(txt);
  char *line = realloc(txt, n + 2);
  if (line == NULL) {
    free(txt);
    return np_errbuf_set(eb, NP_ENOMEM, "summary: out of memory");
  }
  line[n] = '\n';
  line[n + 1] = '\0';
  if (to_stdout)
    rc = np_bench_output_commit(out, line, n + 1, eb);
  else if (fputs(line, stdout) == EOF || fflush(stdout) != 0)
    rc = np_errbuf_set(eb, NP_EIO, "summary: cannot write to stdout");
  free(line);
  return rc;
}

/* msg without a leading "<command>: " that repeats the prefix's own last
 * word (a library's "relay: bind ..." under "netproof-bench relay: "). */
static const char *unprefixed(const char *prog, const char *msg) {
  const char *cmd = strrchr(prog, ' ');
  cmd = cmd != NULL ? cmd + 1 : prog;
  size_t n = strlen(cmd);
  return strncmp(msg, cmd, n) == 0 && strncmp(msg + n, ": ", 2) == 0
             ? msg + n + 2
             : msg;
}

int np_bench_ctl_main(const struct np_bench_kind *k, int argc, char **argv,
                      const struct np_bench_ctl_hooks *hooks) {
  struct np_errbuf eb = {{0}};
  struct np_bench_cli cli = {.output = "-"};
  struct np_bench_ctl ctl;
  struct np_bench_output *out = NULL;
  struct np_bench_verdict v;
  cJSON *doc = NULL;
  int rc, code;
  void *ctx = calloc(1, k->ctx_size);
  if (ctx == NULL) {
    fprintf(stderr, "%s: out of memory\n", k->prog);
    return NP_EXIT_RUNTIME;
  }
  if (k->parse(ctx, argc, argv, &cli, &eb) != 0) {
    fprintf(stderr, "%s: %s\n", k->prog, unprefixed(k->prog, eb.msg));
    code = NP_EXIT_USAGE;
    goto free_ctx;
  }
  if (cli.help) {
    k->usage(stdout);
    code = NP_EXIT_OK;
    goto free_ctx;
  }
  if (np_bench_ctl_open(&ctl, hooks, &eb) != 0) {
    fprintf(stderr, "%s: %s\n", k->prog, unprefixed(k->prog, eb.msg));
    code = NP_EXIT_RUNTIME;
    goto free_ctx;
  }
  if ((rc = np_bench_output_open(cli.output, &out, &eb)) != 0) {
    fprintf(stderr, "%s: %s %s\n", k->prog,
            cli.output_opt ? cli.output_opt : "--output", eb.msg);
    code = rc == NP_EUSAGE ? NP_EXIT_USAGE : NP_EXIT_RUNTIME;
    goto close_ctl;
  }
  struct np_bench_progress *pg = NULL;
  if (!cli.quiet)
    np_bench_progress_start(stderr, k->prog, cli.planned_seconds,
                            cli.planned_is_bound, &ctl, cli.live_unit, &pg);
  rc = k->run(ctx, &ctl, &eb);
  np_bench_progress_stop(pg);
  if (rc != 0) {
    fprintf(stderr, "%s: %s\n", k->prog, unprefixed(k->prog, eb.msg));
    code = rc == NP_EUSAGE ? NP_EXIT_USAGE : NP_EXIT_RUNTIME;
    goto close_output;
  }
  rc = k->build(ctx, argc, argv, &doc, &v, &eb);
  if (rc == 0)
    rc = np_bench_record_validate(doc, &eb);
  if (rc == 0)
    rc = commit(out, &cli, doc, &eb);
  if (rc != 0) {
    fprintf(stderr, "%s: %s\n", k->prog, unprefixed(k->prog, eb.msg));
    code = NP_EXIT_RUNTIME;
  } else {
    code = v.exit_code;
    if (!cli.quiet)
      k->summary(ctx, v.status);
    if (record_to_terminal(&cli))
      fprintf(stderr, "%s: record not shown on a terminal: %s FILE writes "
              "it, or pipe stdout (| jq .)\n", k->prog,
              cli.output_opt ? cli.output_opt : "--output");
  }
  cJSON_Delete(doc);
  k->free_result(ctx);
close_output:
  np_bench_output_close(out);
close_ctl:
  np_bench_ctl_close(&ctl);
free_ctx:
  free(ctx);
  return code;
}
