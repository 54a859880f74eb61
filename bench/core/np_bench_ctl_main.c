/*
 * np_bench_ctl_main.c - parse, open the output, run, build, validate,
 * commit, summarise: once for every benchmark kind (see
 * np_bench_ctl_main.h).
 */
#include "np_bench_ctl_main.h"

#include <stdlib.h>

#include "np_bench_output.h"

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
    fprintf(stderr, "%s: %s\n", k->prog, eb.msg);
    code = NP_EXIT_USAGE;
    goto free_ctx;
  }
  if (cli.help) {
    k->usage(stdout);
    code = NP_EXIT_OK;
    goto free_ctx;
  }
  if (np_bench_ctl_open(&ctl, hooks, &eb) != 0) {
    fprintf(stderr, "%s: %s\n", k->prog, eb.msg);
    code = NP_EXIT_RUNTIME;
    goto free_ctx;
  }
  if ((rc = np_bench_output_open(cli.output, &out, &eb)) != 0) {
    fprintf(stderr, "%s: %s %s\n", k->prog,
            cli.output_opt ? cli.output_opt : "--output", eb.msg);
    code = rc == NP_EUSAGE ? NP_EXIT_USAGE : NP_EXIT_RUNTIME;
    goto close_ctl;
  }
  if ((rc = k->run(ctx, &ctl, &eb)) != 0) {
    fprintf(stderr, "%s: %s\n", k->prog, eb.msg);
    code = rc == NP_EUSAGE ? NP_EXIT_USAGE : NP_EXIT_RUNTIME;
    goto close_output;
  }
  rc = k->build(ctx, argc, argv, &doc, &v, &eb);
  if (rc == 0)
    rc = np_bench_record_validate(doc, &eb);
  if (rc == 0)
    rc = np_bench_output_commit_json(out, doc, &eb);
  if (rc != 0) {
    fprintf(stderr, "%s: %s\n", k->prog, eb.msg);
    code = NP_EXIT_RUNTIME;
  } else {
    code = v.exit_code;
    if (!cli.quiet)
      k->summary(ctx, v.status);
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
