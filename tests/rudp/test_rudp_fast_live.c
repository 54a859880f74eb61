/*
 * test_rudp_fast_live.c - issue 20 end to end: `netproof-bench rudp` over
 * loopback sockets and the relay.
 *
 *   unordered  --delivery unordered under the random profile: every check
 *              passes (each echo exactly once, right bytes), messages did
 *              overtake lost ones, the record says which mode ran; the same
 *              run in order overtakes none.
 *   batching   4 clients x window 16 with --batch 32: more than one
 *              datagram per recvmmsg and per sendmmsg on average, and every
 *              datagram the endpoints put out went through a counted call
 *              (datagrams sent = taken + refused, exactly).
 *   batch1     --batch 1: one datagram per call, exactly.
 *   fec_bare   adaptive FEC on a clean path: parity ~0 (only before the
 *              first loss report), bare groups, nothing retained after.
 *   bad        the new options' bad input: exit 2 and one line naming it.
 *
 * Live runs assert invariants and exact counter equalities, never speed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_test.h"
#include "rudp_live_util.h"

#define NARGS(a) ((int)(sizeof(a) / sizeof((a)[0])))

static cJSON *run(const char *tag, const char *const *extra, int nextra) {
  char out[128];
  const char *args[64];
  int n = 0;
  static const char *const base[] = {"--seconds", "0.8", "--warmup", "0.3",
                                     "--rounds", "1", "--quiet"};
  rl_tmp_path(out, sizeof out, tag);
  for (int i = 0; i < NARGS(base); i++)
    args[n++] = base[i];
  for (int i = 0; i < nextra; i++)
    args[n++] = extra[i];
  args[n++] = "--output";
  args[n++] = out;
  ASSERT_EQ(rl_run(args, n), 0);
  cJSON *doc = rl_load(out);
  unlink(out);
  rl_validate(doc, NULL);
  ASSERT_STR_EQ(rl_get(doc, "status")->valuestring, "passed");
  rl_check_passed(doc, "content");
  rl_check_passed(doc, "order");
  rl_check_passed(doc, "send_completion");
  rl_check_passed(doc, "shutdown");
  ASSERT_EQ(rl_num(doc, "counters/sequence_errors"), 0);
  ASSERT_EQ(rl_num(doc, "counters/content_errors"), 0);
  ASSERT_EQ(rl_num(doc, "counters/lost"), 0);
  /* every datagram an endpoint put out went through a counted call */
  const cJSON *r = rl_get(doc, "rudp/rounds/0");
  ASSERT_EQ(rl_num(r, "arq/datagrams_sent"),
            rl_num(r, "io/send_datagrams") + rl_num(r, "io/send_refused"));
  ASSERT_EQ(rl_num(r, "io/truncated"), 0);
  return doc;
}

static void test_unordered(void) {
  const char *u[] = {"--profile", "random", "--delivery", "unordered",
                     "--clients", "2", "--window", "8", "--payload", "3000"};
  cJSON *doc = run("unord", u, NARGS(u));
  ASSERT_STR_EQ(rl_get(doc, "rudp/delivery")->valuestring, "unordered");
  ASSERT_STR_EQ(rl_get(doc, "config/delivery")->valuestring, "unordered");
  ASSERT_GT(rl_num(doc, "rudp/rounds/0/arq/retransmits"), 0);
  ASSERT_GT(rl_num(doc, "rudp/rounds/0/arq/messages_delivered_early"), 0);
  double rt = rl_num(doc, "measurement/roundtrips");
  ASSERT_GT(rt, 20);
  cJSON_Delete(doc);
  const char *o[] = {"--profile", "random", "--clients", "2", "--window",
                     "8", "--payload", "3000"};
  doc = run("ord", o, NARGS(o));
  ASSERT_STR_EQ(rl_get(doc, "rudp/delivery")->valuestring, "ordered");
  ASSERT_EQ(rl_num(doc, "rudp/rounds/0/arq/messages_delivered_early"), 0);
  cJSON_Delete(doc);
}

static void test_batching(void) {
  const char *a[] = {"--profile", "none", "--clients", "4", "--window", "16",
                     "--batch", "32"};
  cJSON *doc = run("batch", a, NARGS(a));
  const cJSON *io = rl_get(doc, "rudp/rounds/0/io");
  double rc = rl_num(io, "recv_syscalls"), rd = rl_num(io, "recv_datagrams");
  double sc = rl_num(io, "send_syscalls"), sd = rl_num(io, "send_datagrams");
  fprintf(stderr, "batch 32: %.2f datagrams per recvmmsg, %.2f per sendmmsg, "
          "%.2f syscalls per round trip\n", rd / rc, sd / sc,
          rl_num(io, "syscalls_per_roundtrip"));
  ASSERT_EQ(rl_num(io, "batch"), 32);
  ASSERT_GT(rd, rc); /* more than one datagram per call on average */
  ASSERT_GT(sd, sc);
  /* (doubles: ASSERT_GT compares integers) */
  ASSERT_TRUE(rl_num(io, "datagrams_per_recv_syscall") > 1.0);
  ASSERT_TRUE(rl_num(io, "datagrams_per_send_syscall") > 1.0);
  ASSERT_TRUE(rl_num(io, "datagrams_per_recv_syscall") <= 32.0);
  ASSERT_TRUE(rl_num(doc, "rudp/summary/syscalls_per_roundtrip/median") >
              0.0);
  cJSON_Delete(doc);
}

static void test_batch1(void) {
  const char *a[] = {"--profile", "none", "--clients", "4", "--window", "16",
                     "--batch", "1"};
  cJSON *doc = run("batch1", a, NARGS(a));
  const cJSON *io = rl_get(doc, "rudp/rounds/0/io");
  ASSERT_EQ(rl_num(io, "send_datagrams") + rl_num(io, "send_refused"),
            rl_num(io, "send_syscalls"));
  ASSERT_EQ(rl_num(io, "recv_datagrams") + rl_num(io, "recv_empty_syscalls"),
            rl_num(io, "recv_syscalls"));
  cJSON_Delete(doc);
}

/* A clean path: adaptive FEC spends parity only until the first loss
 * report says 0 % (within the warm-up), then its groups are bare: no
 * parity in the window and no shard kept anywhere. */
static void test_fec_bare(void) {
  const char *a[] = {"--profile", "none", "--fec", "adaptive", "--warmup",
                     "0.8", "--clients", "2", "--window", "8"};
  cJSON *doc = run("bare", a, NARGS(a));
  const cJSON *f = rl_get(doc, "rudp/rounds/0/fec");
  ASSERT_EQ(rl_num(f, "parity_sent"), 0);
  ASSERT_GT(rl_num(f, "groups_bare"), 0);
  ASSERT_EQ(rl_num(f, "groups_bare"), rl_num(f, "groups_encoded"));
  ASSERT_EQ(rl_num(f, "retained/sample_max_bytes"), 0);
  ASSERT_EQ(rl_num(f, "header_bytes"), 3 * rl_num(f, "data_shards_sent"));
  cJSON_Delete(doc);
}

/* Run argv (after "rudp") and return its exit code; the message the
 * command printed goes into msg. */
static int run_capture(const char *const *args, int n, char *msg,
                       size_t len) {
  char path[128];
  snprintf(path, sizeof path, "/tmp/np_rudp_fast_%d.err", (int)getpid());
  fflush(stderr);
  int saved = dup(2), fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
  ASSERT_TRUE(saved >= 0 && fd >= 0);
  dup2(fd, 2);
  close(fd);
  int rc = rl_run(args, n);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  FILE *f = fopen(path, "r");
  ASSERT_NOT_NULL(f);
  size_t got = fread(msg, 1, len - 1, f);
  msg[got] = '\0';
  fclose(f);
  unlink(path);
  return rc;
}

static void test_bad(void) {
  static const struct {
    const char *args[6];
    int n;
    const char *names;
  } bad[] = {
      {{"--delivery", "unordered", "--payload", "8"}, 4, "--delivery"},
      {{"--delivery", "sometimes"}, 2, "--delivery"},
      {{"--batch", "0"}, 2, "--batch"},
      {{"--batch", "65"}, 2, "--batch"},
      {{"--ack-every", "0"}, 2, "--ack-every"},
      {{"--ack-delay-ms", "-1"}, 2, "--ack-delay-ms"},
      {{"--ack-delay-ms", "101"}, 2, "--ack-delay-ms"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char msg[1024];
    ASSERT_EQ(run_capture(bad[i].args, bad[i].n, msg, sizeof msg), 2);
    fprintf(stderr, "  %s", msg);
    ASSERT_TRUE(strstr(msg, bad[i].names) != NULL);
    ASSERT_TRUE(strchr(msg, '\n') == msg + strlen(msg) - 1); /* one line */
  }
}

int main(int argc, char **argv) {
  ASSERT_GE(argc, 2);
  const char *c = argv[1];
  if (!strcmp(c, "unordered"))
    test_unordered();
  else if (!strcmp(c, "batching"))
    test_batching();
  else if (!strcmp(c, "batch1"))
    test_batch1();
  else if (!strcmp(c, "fec_bare"))
    test_fec_bare();
  else if (!strcmp(c, "bad"))
    test_bad();
  else
    NP_TEST_FAIL_("unknown case %s", c);
  return 0;
}
