/* Helpers shared by the UDP run tests: one short run, its loss and checks,
 * and a record validated with our schema validator. */
#ifndef TEST_UDP_COMMON_H
#define TEST_UDP_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_test.h"
#include "np_udp_checks.h"
#include "np_udp_record.h"
#include "np_udp_run.h"
#include "np_udp_transport.h"

struct udp_outcome {
  struct np_udp_result res;
  struct np_udp_loss loss;
  struct np_udp_checks checks;
};

/* ctest's SKIP_RETURN_CODE for the uring tests where io_uring is refused */
#define UDP_TEST_SKIP 77

/* argv[1]: uv (default), raw or uring.  For uring where this process
 * cannot have io_uring (kernel, seccomp, a container), say why and exit
 * with UDP_TEST_SKIP. */
static inline enum np_udp_backend udp_backend_arg(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "uring") == 0) {
    struct np_errbuf eb = {{0}};
    if (np_udp_uring_available(&eb) != 0) {
      fprintf(stderr, "SKIP: %s\n", eb.msg);
      exit(UDP_TEST_SKIP);
    }
    return NP_UDP_BACKEND_URING;
  }
  return argc > 1 && strcmp(argv[1], "raw") == 0 ? NP_UDP_BACKEND_RAW
                                                 : NP_UDP_BACKEND_UV;
}

/* Run cfg, evaluate checks, build and validate the record. */
static inline void udp_run(const struct np_udp_config *cfg,
                           struct udp_outcome *o) {
  struct np_errbuf eb = {{0}};
  struct np_bench_ctl ctl;
  ASSERT_OK(np_bench_ctl_open(&ctl, NULL, &eb));
  int rc = np_udp_run(cfg, &ctl, &o->res, &eb);
  np_bench_ctl_close(&ctl);
  if (rc)
    fprintf(stderr, "np_udp_run: %s\n", eb.msg);
  ASSERT_OK(rc);
  struct np_udp_check_input in;
  np_udp_check_input_of(&o->res.measure, &o->res, &in);
  np_udp_loss_compute(&in, &o->loss);
  np_udp_checks_eval(&in, &o->loss, &o->checks);
  cJSON *doc = NULL;
  struct np_bench_verdict v;
  ASSERT_OK(np_udp_record_build(cfg, &o->res, &o->loss, &o->checks, 0, NULL,
                                &doc, &v, &eb));
  ASSERT_EQ(v.status, o->checks.failed ? NP_BENCH_FAILED : NP_BENCH_PASSED);
  rc = np_bench_record_validate(doc, &eb);
  if (rc)
    fprintf(stderr, "record invalid: %s\n", eb.msg);
  ASSERT_OK(rc);
  cJSON_Delete(doc);
  fprintf(stderr,
          "%s/%s %s P=%u C=%u W=%u: sent %llu received %llu lost %lld "
          "kernel drops %llu, %u checks failed (server %llu/%llu, drain "
          "%.3f s of bound %.3f, complete %d)\n",
          np_udp_backend_name(cfg->backend),
          np_udp_io_model_name(cfg->io_model), cfg->address, cfg->payload,
          cfg->clients, cfg->window,
          (unsigned long long)o->res.measure.sent,
          (unsigned long long)o->res.measure.received,
          (long long)o->loss.lost, (unsigned long long)o->loss.kernel_drops,
          o->checks.failed, (unsigned long long)o->res.measure.server_received,
          (unsigned long long)o->res.measure.server_replied,
          o->res.drain_seconds, o->res.drain_bound_seconds,
          o->res.drain_complete);
}

static inline int udp_check_passed(const struct udp_outcome *o,
                                   const char *name) {
  for (unsigned i = 0; i < o->checks.n; i++)
    if (strcmp(o->checks.item[i].name, name) == 0)
      return o->checks.item[i].passed;
  NP_TEST_FAIL_("no check named %s", name);
  return 0;
}

static inline void udp_assert_all_passed(const struct udp_outcome *o) {
  for (unsigned i = 0; i < o->checks.n; i++)
    if (!o->checks.item[i].passed)
      NP_TEST_FAIL_("check %s failed: %s", o->checks.item[i].name,
                    o->checks.item[i].detail);
}

#endif /* TEST_UDP_COMMON_H */
