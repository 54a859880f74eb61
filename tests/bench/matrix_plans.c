/*
 * matrix_plans.c - every shipped plan (bench/plans/ *.json) validates,
 * expands to the expected number of configurations with stable ids, and
 * `matrix --dry-run` prints it with an estimate.  argv[1]: source tree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix_util.h"
#include "np_matrix_plan.h"
#include "np_test.h"

struct expect_plan {
  const char *file;
  size_t configs;   /* expected expansion                          */
  int reps;
  const char *an_id; /* one id that must exist                      */
  size_t expect_fail;
};

/* udp-io-models: 3 payloads x 2 client counts x 4 IO models x 2 backends
 * (the raw backend supports every model); payload-window: 3 x 4 x 3;
 * size-limits: 6 x 3; buffer-isolation: the reference's 7 rows; stress:
 * one 60 s run per backend; quick: 3 rows + the overflow probe. */
static const struct expect_plan plans[] = {
    {"udp-io-models.json", 48, 3, "udp-p1024-c16-w1-reuseport-raw-t2", 0},
    {"udp-payload-window.json", 36, 3, "udp-p16384-c16-w256-pool-uv-t2", 0},
    {"udp-size-limits.json", 18, 3, "udp-p65507-c16-w64-single-uv", 6},
    {"udp-buffer-isolation.json", 7, 3, "udp-p16384-c16-w64-single-uv-srb1m", 4},
    {"udp-stress.json", 2, 1, "udp-p1024-c16-w16-single-raw", 0},
    {"quick.json", 4, 3, "udp-p16384-c16-w64-single-uv-srb4m", 1},
    /* rudp-main: 3 strategies x 3 profiles x 2 IO models x 2 cc, one
     * process of 3 rounds each; payload-window: 3 x 2 x 3 strategies;
     * sustained: one 120 s run per strategy */
    {"rudp-main.json", 36, 1, "rudp-p1024-c4-w16-pool-t4-fecadaptive-newreno-burst",
     0},
    {"rudp-payload-window.json", 18, 1,
     "rudp-p64-c4-w1-single-fecadaptive-bbr-random", 0},
    {"rudp-sustained.json", 3, 1, "rudp-p4096-c4-w16-pool-fecfixed-bbr-sustained",
     0},
};

static void check_plan(const char *src, const struct expect_plan *e,
                       const char *tmp) {
  char path[4096], out[4096];
  snprintf(path, sizeof path, "%s/bench/plans/%s", src, e->file);
  struct np_matrix_plan *p = NULL;
  struct np_errbuf eb = {{0}};
  int rc = np_matrix_plan_load(path, &p, &eb);
  if (rc != 0)
    fprintf(stderr, "%s\n", eb.msg);
  ASSERT_OK(rc);
  ASSERT_EQ(p->nconfigs, e->configs);
  ASSERT_EQ(p->repetitions, e->reps);
  ASSERT_NOT_NULL(np_matrix_plan_find(p, e->an_id));
  size_t nfail = 0;
  for (size_t i = 0; i < p->nconfigs; i++) {
    nfail += p->configs[i].expect_fail != 0;
    const char *id = p->configs[i].id;
    ASSERT_EQ(strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789._-"),
              strlen(id));
  }
  ASSERT_EQ(nfail, e->expect_fail);
  /* the same plan twice: same ids, same hash (stable) */
  struct np_matrix_plan *q = NULL;
  ASSERT_OK(np_matrix_plan_load(path, &q, &eb));
  ASSERT_STR_EQ(p->hash, q->hash);
  for (size_t i = 0; i < p->nconfigs; i++)
    ASSERT_STR_EQ(p->configs[i].id, q->configs[i].id);
  np_matrix_plan_free(q);
  /* dry run: one line per configuration plus the estimate */
  snprintf(out, sizeof out, "%s/dry.txt", tmp);
  char *argv[] = {"matrix", path, "--dry-run", NULL};
  ASSERT_EQ(mx_run(argv, out, NULL), 0);
  char *text = mx_read(out);
  char want[128];
  snprintf(want, sizeof want, "%zu configurations x %d repetitions", e->configs,
           e->reps);
  ASSERT_NOT_NULL(strstr(text, want));
  ASSERT_NOT_NULL(strstr(text, "estimated"));
  ASSERT_NOT_NULL(strstr(text, e->an_id));
  ASSERT_TRUE(mx_empty_or_absent("DIR")); /* dry run creates nothing */
  printf("%s", strstr(text, "suite "));
  free(text);
  np_matrix_plan_free(p);
}

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 2);
  char tmp[256];
  mx_tmpdir(tmp, sizeof tmp);
  for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++)
    check_plan(argv[1], &plans[i], tmp);
  /* --only narrows a dry run */
  char path[4096], out[4096];
  snprintf(path, sizeof path, "%s/bench/plans/udp-io-models.json", argv[1]);
  snprintf(out, sizeof out, "%s/only.txt", tmp);
  char *a2[] = {"matrix", path, "--dry-run", "--only", "*-p64-c1-*-uv*", NULL};
  ASSERT_EQ(mx_run(a2, out, NULL), 0);
  char *text = mx_read(out);
  ASSERT_NOT_NULL(strstr(text, "4 configurations x 3 repetitions"));
  free(text);
  mx_rm_rf(tmp);
  return 0;
}
