/*
 * fec-bench - thin main over np_fec_bench: parse options, print JSON.
 * usage: fec-bench [--k 8] [--m 2] [--shard 1194] [--lose 2] [--seconds 1]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_fec_bench.h"
#include "np_json.h"

static int parse_num(const char *s, double lo, double hi, double *out) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end != '\0' || !(v >= lo) || !(v <= hi))
    return NP_EUSAGE;
  *out = v;
  return 0;
}

int main(int argc, char **argv) {
  struct np_fec_bench_config cfg;
  np_fec_bench_config_defaults(&cfg);
  for (int i = 1; i < argc; i++) {
    double v;
    if (i + 1 >= argc || parse_num(argv[i + 1], 0, 1e6, &v) != 0) {
      fprintf(stderr, "fec-bench: %s: expected a number argument\n", argv[i]);
      return NP_EXIT_USAGE;
    }
    if (strcmp(argv[i], "--k") == 0)
      cfg.k = (unsigned)v;
    else if (strcmp(argv[i], "--m") == 0)
      cfg.m = (unsigned)v;
    else if (strcmp(argv[i], "--shard") == 0)
      cfg.shard = (unsigned)v;
    else if (strcmp(argv[i], "--lose") == 0)
      cfg.lose = (unsigned)v;
    else if (strcmp(argv[i], "--seconds") == 0)
      cfg.seconds = v;
    else {
      fprintf(stderr, "fec-bench: unknown option %s\n", argv[i]);
      return NP_EXIT_USAGE;
    }
    i++;
  }
  struct np_errbuf eb = {{0}};
  cJSON *doc = NULL;
  int rc = np_fec_bench_run(&cfg, &doc, &eb);
  if (rc != 0) {
    fprintf(stderr, "%s\n", eb.msg);
    return rc == NP_EUSAGE ? NP_EXIT_USAGE : NP_EXIT_RUNTIME;
  }
  char *txt = np_json_print(doc, 1);
  cJSON_Delete(doc);
  if (txt == NULL)
    return NP_EXIT_RUNTIME;
  fputs(txt, stdout);
  free(txt);
  return NP_EXIT_OK;
}
