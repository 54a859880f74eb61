/*
 * np_results_check_kinds.c - the self-check's part of each record kind's
 * descriptor (model/np_kind.h): the checks of a record of that kind,
 * keyed by the same enum np_kind_id, and the one way a record's
 * config.command is turned back into the configuration it ran with.
 */
#include <stdlib.h>

#include "np_kind.h"
#include "np_results_check_int.h"

/* udp --connect: the client side, then the far host's part (--agent) */
static void external_record(const struct np_chk_rec *r) {
  np_chk__external_record(r);
  np_chk__far_record(r);
}

/* NULL: the kind has no checks of its own beyond what every record gets
 * (histograms, kernel snapshots, the runner's command line). */
static void (*const record_checks[NP_KIND_N])(const struct np_chk_rec *) = {
    [NP_KIND_UDP] = np_chk__udp_record,
    [NP_KIND_UDP_EXTERNAL] = external_record,
    [NP_KIND_UDP_STREAM] = np_chk__stream_record,
    [NP_KIND_RUDP] = np_chk__rudp_record,
    [NP_KIND_EXEC] = np_chk__exec_record,
};

void np_chk__kind_record(const struct np_kind *k, const struct np_chk_rec *r) {
  if (k != NULL && record_checks[k->id] != NULL)
    record_checks[k->id](r);
}

int np_chk__config_argv(const struct np_chk_rec *r, const struct np_kind *k,
                        void *cfg, char ***argv, int *argc) {
  char **v = NULL;
  int n = 0, help = 0;
  if (np_chk__record_argv(r->doc, &v, &n) != 0 || n < 1) {
    np_chk__problem(r->c, r->file, "/config/command",
                    "not the argument vector the benchmark ran");
    np_chk__argv_free(v, n);
    return -1;
  }
  struct np_errbuf eb = {{0}};
  if (k->parse(n, v, cfg, &help, &eb) != 0) {
    np_chk__problem(r->c, r->file, "/config/command",
                    "netproof-bench %s refuses it: %s", k->command, eb.msg);
    np_chk__argv_free(v, n);
    return -1;
  }
  *argv = v;
  *argc = n;
  return 0;
}
