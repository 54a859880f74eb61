/*
 * summarize.c - test helper: write DIR/summary.json with the matrix
 * runner's own summary (np_matrix_summarize), for sets a test generates
 * (large_set.py).  usage: np_test_summarize DIR
 */
#include <stdio.h>

#include "np_json.h"
#include "np_matrix_summary.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: np_test_summarize DIR\n");
    return 2;
  }
  cJSON *sum = NULL;
  struct np_errbuf eb = {{0}};
  char path[4096];
  int rc = np_matrix_summarize(argv[1], &sum, &eb);
  snprintf(path, sizeof path, "%s/summary.json", argv[1]);
  if (rc == 0)
    rc = np_json_write_atomic(path, sum, 1, &eb);
  cJSON_Delete(sum);
  if (rc != 0)
    fprintf(stderr, "np_test_summarize: %s\n", eb.msg);
  return rc == 0 ? 0 : 1;
}
