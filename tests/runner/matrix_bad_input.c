/*
 * matrix_bad_input.c - every kind of bad input gives exit 2, one clear
 * line naming the file and JSON pointer, and runs nothing (no output
 * folder appears, an existing one is left untouched).  Option values and
 * whole configurations are refused with the benchmark command's own
 * message, exactly where its child would refuse them.
 * argv[1]: the fake bench script.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix_util.h"
#include "np_test.h"

#define GOOD_HEAD "{\"schema\":\"netproof/plan/1\",\"suite\":\"t\",\"protocol\":\"udp\","

struct bad_case {
  const char *name;
  const char *plan;   /* plan text                                    */
  const char *want;   /* substring of the one-line error              */
};

static const struct bad_case cases[] = {
    {"schema: missing suite",
     "{\"schema\":\"netproof/plan/1\",\"protocol\":\"udp\","
     "\"dimensions\":{\"payload\":[64]}}",
     "suite"},
    {"schema: unknown protocol",
     "{\"schema\":\"netproof/plan/1\",\"suite\":\"t\",\"protocol\":\"tcp\","
     "\"dimensions\":{\"payload\":[64]}}",
     "/protocol"},
    {"schema: repetitions not an integer",
     GOOD_HEAD "\"repetitions\":1.5,\"dimensions\":{\"payload\":[64]}}",
     "/repetitions"},
    {"schema: unknown top-level field",
     GOOD_HEAD "\"dimension\":{\"payload\":[64]}}", ""},
    {"unknown option in base",
     GOOD_HEAD "\"base\":{\"paylod\":64},\"dimensions\":{\"clients\":[1]}}",
     "/base/paylod: unknown udp option \"paylod\""},
    {"unknown option in dimensions",
     GOOD_HEAD "\"dimensions\":{\"io_model\":[\"single\"]}}",
     "/dimensions/io_model: unknown udp option \"io_model\""},
    {"unknown option in a dimension bundle",
     GOOD_HEAD "\"dimensions\":{\"m\":[{\"io-model\":\"pool\",\"thread\":2}]}}",
     "/dimensions/m/0/thread: unknown udp option"},
    {"runner-owned option",
     GOOD_HEAD "\"base\":{\"output\":\"x.json\"},\"dimensions\":{\"clients\":[1]}}",
     "the runner sets it"},
    {"bad option value",
     GOOD_HEAD "\"dimensions\":{\"backend\":[\"dpdk\"]}}",
     "/dimensions/backend/0: --backend 'dpdk': expected uv, raw or uring"},
    {"payload out of range",
     GOOD_HEAD "\"configurations\":[{\"payload\":70000}]}",
     "/configurations/0/payload: --payload 70000: out of range 1..65507"},
    {"empty dimension",
     GOOD_HEAD "\"dimensions\":{\"payload\":[64],\"clients\":[]}}",
     "/dimensions/clients: minItems"},
    {"empty product after exclusion",
     GOOD_HEAD "\"dimensions\":{\"payload\":[64]},\"exclude\":[{\"payload\":64}]}",
     "empty product"},
    {"duplicate configuration",
     GOOD_HEAD "\"configurations\":[{\"payload\":64},{\"payload\":64}]}",
     "/configurations/1: duplicate configuration id udp-p64-c16-w1-single-uv"},
    {"udp option in a rudp plan",
     "{\"schema\":\"netproof/plan/1\",\"suite\":\"t\",\"protocol\":\"rudp\","
     "\"dimensions\":{\"backend\":[\"uv\"]}}",
     "/dimensions/backend: unknown rudp option \"backend\""},
    {"not JSON", "{\"schema\": ", ""},
    /* what the old second option table let through and every child then
     * refused: now refused at load, with the child's own message */
    {"drift: io-threads 256",
     GOOD_HEAD "\"dimensions\":{\"io-model\":[\"pool\"],\"io-threads\":[256]}}",
     "/dimensions/io-threads/0: --io-threads 256: out of range 1..64"},
    {"drift: work 1e9",
     GOOD_HEAD "\"base\":{\"work\":1e9},\"dimensions\":{\"clients\":[1]}}",
     "/base/work: --work 1000000000: out of range 0..1000000"},
    {"drift: warmup 3600",
     GOOD_HEAD "\"configurations\":[{\"warmup\":3600}]}",
     "/configurations/0/warmup: --warmup 3600: out of range 0..60"},
    /* rules across options, from the child's parser on the whole argv */
    {"io-threads with the single model",
     GOOD_HEAD "\"configurations\":[{\"io-threads\":2}]}",
     "/configurations/0: udp-p1024-c16-w1-single-uv-t2: --io-threads 2: the "
     "single model uses 1 thread(s)"},
    {"window beyond a 1-byte payload's sequence bits",
     GOOD_HEAD "\"dimensions\":{\"payload\":[1],\"window\":[257]}}",
     "/dimensions: udp-p1-c16-w257-single-uv: --window 257: a 1-byte payload "
     "carries 8 sequence bits"},
    {"IPv4 payload maximum",
     GOOD_HEAD "\"configurations\":[{\"payload\":65527}]}",
     "--payload 65527: out of range 1..65507 for IPv4"},
    {"rudp: FEC min parity above max",
     "{\"schema\":\"netproof/plan/1\",\"suite\":\"t\",\"protocol\":\"rudp\","
     "\"configurations\":[{\"fec-min-parity\":3,\"fec-max-parity\":2}]}",
     "--fec-min-parity 3: above --fec-max-parity 2"},
    {"rudp: relay option out of range",
     "{\"schema\":\"netproof/plan/1\",\"suite\":\"t\",\"protocol\":\"rudp\","
     "\"base\":{\"loss-percent\":101},\"configurations\":[{}]}",
     "/base/loss-percent: --loss-percent 101: out of range 0..100"},
    {"a number given as a string",
     GOOD_HEAD "\"configurations\":[{\"payload\":\"1024\"}]}",
     "/configurations/0/payload: --payload: expected a JSON number"},
    {"a runner flag in a dimension",
     GOOD_HEAD "\"dimensions\":{\"quiet\":[1]}}",
     "/dimensions/quiet: unknown udp option \"quiet\" (the runner sets it)"},
    {"unknown option in compare",
     GOOD_HEAD "\"dimensions\":{\"clients\":[1]},\"compare\":[\"modle\"]}",
     "/compare/0: unknown udp option \"modle\""},
};

/* Run `matrix plan --output out`; expect exit 2 and one line on stderr. */
static void expect_refused(char **argv, const char *tmp, const char *want,
                           const char *what) {
  char err[4096];
  snprintf(err, sizeof err, "%s/err.txt", tmp);
  int rc = mx_run(argv, NULL, err);
  char *text = mx_read(err);
  fprintf(stderr, "%-40s -> %d: %s", what, rc, text);
  ASSERT_EQ(rc, 2);
  ASSERT_TRUE(strlen(text) > 0);
  ASSERT_NOT_NULL(strchr(text, '\n'));
  ASSERT_TRUE(strchr(text, '\n')[1] == '\0'); /* exactly one line */
  ASSERT_NOT_NULL(strstr(text, "netproof-bench matrix: "));
  ASSERT_NOT_NULL(strstr(text, want));
  free(text);
}

int main(int argc, char **argv) {
  ASSERT_EQ(argc, 2);
  char tmp[256], fake[512], plan[512], out[512];
  mx_tmpdir(tmp, sizeof tmp);
  mx_install_fake(argv[1], tmp, fake, sizeof fake);
  snprintf(plan, sizeof plan, "%s/plan.json", tmp);
  snprintf(out, sizeof out, "%s/out", tmp);
  char *run[] = {"matrix", plan, "--output", out, "--bench-binary", fake,
                 "--quiet", NULL};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    mx_write(plan, cases[i].plan);
    expect_refused(run, tmp, cases[i].want, cases[i].name);
    ASSERT_TRUE(!mx_exists(out)); /* nothing ran */
  }
  /* --dry-run refuses what the child would refuse (it once estimated the
   * time of a plan whose every child failed) */
  mx_write(plan, GOOD_HEAD "\"dimensions\":{\"io-model\":[\"pool\"],"
                           "\"io-threads\":[256]}}");
  char *dry[] = {"matrix", plan, "--dry-run", NULL};
  expect_refused(dry, tmp, "--io-threads 256: out of range 1..64",
                 "dry run of a drifted plan");
  /* a missing plan file */
  char *missing[] = {"matrix", "/nonexistent/plan.json", "--output", out, NULL};
  expect_refused(missing, tmp, "/nonexistent/plan.json", "missing plan");

  /* an output folder holding a different suite: refused, untouched */
  mx_write(plan, GOOD_HEAD "\"repetitions\":1,\"configurations\":[{\"payload\":64}]}");
  ASSERT_EQ(mx_run(run, NULL, NULL), 0);
  char sj[600];
  snprintf(sj, sizeof sj, "%s/suite.json", out);
  char *before = mx_read(sj);
  mx_write(plan, GOOD_HEAD "\"repetitions\":1,\"configurations\":[{\"payload\":65}]}");
  expect_refused(run, tmp, "of another plan", "folder holds another suite");
  char *resume[] = {"matrix", plan, "--output", out, "--bench-binary", fake,
                    "--resume", NULL};
  expect_refused(resume, tmp, "of another plan", "--resume with another plan");
  /* the same suite again without --resume */
  mx_write(plan, GOOD_HEAD "\"repetitions\":1,\"configurations\":[{\"payload\":64}]}");
  expect_refused(run, tmp, "add --resume", "same suite without --resume");
  char *after = mx_read(sj);
  ASSERT_STR_EQ(before, after);
  ASSERT_EQ(mx_count(out, "rep-1.json"), 1);
  free(before);
  free(after);
  /* a non-empty folder that is not a suite */
  char *into_tmp[] = {"matrix", plan, "--output", tmp, "--bench-binary", fake,
                      NULL};
  expect_refused(into_tmp, tmp, "holds no suite.json", "non-empty folder");
  ASSERT_TRUE(!mx_exists("suite.json"));
  /* --only that matches nothing */
  char out2[600];
  snprintf(out2, sizeof out2, "%s/out2", tmp);
  char *only[] = {"matrix", plan, "--output", out2, "--only", "*-p9999-*",
                  "--bench-binary", fake, NULL};
  expect_refused(only, tmp, "matches none", "--only matching nothing");
  ASSERT_TRUE(!mx_exists(out2));
  /* command-line errors */
  char *noout[] = {"matrix", plan, NULL};
  expect_refused(noout, tmp, "missing --output", "no --output");
  /* an empty folder name (the runner once walked past its end) */
  char *emptyout[] = {"matrix", plan, "--output", "", "--bench-binary", fake,
                      NULL};
  expect_refused(emptyout, tmp, "--output DIR is required", "empty --output");
  char *unk[] = {"matrix", plan, "--output", out2, "--fast", NULL};
  expect_refused(unk, tmp, "--fast", "unknown flag");
  mx_rm_rf(tmp);
  return 0;
}
