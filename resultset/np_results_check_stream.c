/*
 * np_results_check_stream.c - a `netproof-bench udp --mode stream` record
 * (kind udp-stream) re-derived: checks[], status and reasons from its
 * counters, the receiver's drops and what the kernel accepted, by the
 * benchmark's own np_udp_stream_checks; loss = sent - unique; the
 * sockets' drop sums.  Its histograms are the histogram rule's
 * (np_results_selfcheck_hist.c), like every record's.
 */
#include <math.h>
#include <stdio.h>

#include "np_json.h"
#include "np_results_check_int.h"
#include "np_udp_stream_record.h"

void np_chk__stream_record(const struct np_chk_rec *r) {
  const cJSON *d = r->doc;
  struct np_udp_stream_check_input in;
  if (np_udp_stream_check_input_json(d, &in) != 0) {
    np_chk__problem(r->c, r->file, "/stream",
                    "a udp-stream record without its stream part");
    return;
  }
  double lost = np_results_num(d, "/stream/counters/lost");
  if (isfinite(lost) && lost != (double)in.sent - (double)in.unique)
    np_chk__problem(r->c, r->file, "/stream/counters/lost",
                    "%.0f, but sent - unique = %.0f", lost,
                    (double)in.sent - (double)in.unique);
  double kd = np_results_num(d, "/sockets/kernel_drops"),
         sd = np_results_num(d, "/sockets/server_drops"),
         cd = np_results_num(d, "/sockets/client_drops");
  if (isfinite(kd) && isfinite(sd) && isfinite(cd) && kd != sd + cd)
    np_chk__problem(r->c, r->file, "/sockets/kernel_drops",
                    "%.0f, not receiver %.0f + senders %.0f", kd, sd, cd);
  struct np_udp_checks cs;
  np_udp_stream_checks(&in, &cs);
  struct np_bench_check list[NP_UDP_MAX_CHECKS];
  for (unsigned i = 0; i < cs.n; i++)
    list[i] = (struct np_bench_check){cs.item[i].name, cs.item[i].passed,
                                      cs.item[i].detail};
  np_chk__verdict(r, list, cs.n, NULL);
}
