/*
 * np_results_check_rudp_fec.c - self-check rules for the sliding-window
 * FEC part of a rudp round (`--fec window`, rounds[].fec.window; docs/fec.md
 * "Sliding window"), re-derived from the round's own counters:
 *   - the window object is there exactly when fec.mode is "window", and
 *     its W agrees with both sides' counters and the config's fec_params;
 *   - repairs = parity_sent, repair_percent_of_sources = 100 x repairs /
 *     data_shards_sent, tail repairs <= repairs;
 *   - every source datagram carries the 3-byte header, every repair at
 *     least its 6-byte header and a 3-byte payload, the ARQ reserve is 8;
 *   - decoding: a repair that was neither redundant nor late adds one
 *     equation, and each rebuilt datagram consumes one, so recoveries <=
 *     repairs received - redundant - late + the equations held when the
 *     counters were reset.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "np_json.h"
#include "np_results_check_int.h"

static double num(const cJSON *o, const char *key) {
  return np_json_get_number(o, key, NAN);
}

void np_chk__rudp_fec_window(const struct np_chk_rec *r, const cJSON *rd,
                            const char *base) {
  char p[160];
  const cJSON *fec = cJSON_GetObjectItemCaseSensitive(rd, "fec");
  const cJSON *w = cJSON_GetObjectItemCaseSensitive(fec, "window");
  const char *mode = np_json_get_string(fec, "mode", "");
  int is_window = strcmp(mode, "window") == 0;
  snprintf(p, sizeof p, "%s/fec/window", base);
  if (is_window != (w != NULL)) {
    np_chk__problem(r->c, r->file, p,
                    is_window ? "missing although fec.mode is \"window\""
                              : "present although fec.mode is \"%s\"",
                    mode);
    return;
  }
  if (!is_window)
    return;
  const cJSON *cl = cJSON_GetObjectItemCaseSensitive(fec, "client");
  const cJSON *sv = cJSON_GetObjectItemCaseSensitive(fec, "server");
  double W = num(w, "window");
  const char *side[2] = {"client", "server"};
  const cJSON *sides[2] = {cl, sv};
  for (int i = 0; i < 2; i++) {
    double sw = num(sides[i], "window");
    if (isfinite(sw) && isfinite(W) && sw != W) {
      snprintf(p, sizeof p, "%s/fec/%s/window", base, side[i]);
      np_chk__problem(r->c, r->file, p, "%g, but fec.window.window is %g", sw,
                      W);
    }
  }
  double cfgw = np_results_num(r->doc, "/config/fec_params/window");
  if (isfinite(cfgw) && isfinite(W) && cfgw != W) {
    snprintf(p, sizeof p, "%s/fec/window/window", base);
    np_chk__problem(r->c, r->file, p, "%g, but config.fec_params.window is %g",
                    W, cfgw);
  }
  double reps = num(w, "repairs"), psent = num(fec, "parity_sent");
  snprintf(p, sizeof p, "%s/fec/window/repairs", base);
  if (isfinite(reps) && isfinite(psent) && reps != psent)
    np_chk__problem(r->c, r->file, p, "%.0f, but fec.parity_sent is %.0f", reps,
                    psent);
  double tail = num(w, "repairs_tail");
  snprintf(p, sizeof p, "%s/fec/window/repairs_tail", base);
  if (isfinite(tail) && isfinite(reps) && tail > reps)
    np_chk__problem(r->c, r->file, p, "%.0f tail repairs of %.0f repairs", tail,
                    reps);
  double src = num(fec, "data_shards_sent");
  double pct = num(w, "repair_percent_of_sources");
  snprintf(p, sizeof p, "%s/fec/window/repair_percent_of_sources", base);
  if (isfinite(pct) && isfinite(src) && isfinite(reps) && src > 0 &&
      fabs(pct - 100.0 * reps / src) > 1e-6 * fmax(1.0, pct))
    np_chk__problem(r->c, r->file, p,
                    "%.6g, but 100 x repairs / data_shards_sent = %.6g", pct,
                    100.0 * reps / src);
  double hdr = num(fec, "header_bytes");
  snprintf(p, sizeof p, "%s/fec/header_bytes", base);
  if (isfinite(hdr) && isfinite(src) && hdr != 3 * src)
    np_chk__problem(r->c, r->file, p,
                    "%.0f, but %.0f source datagrams carry 3 B each", hdr, src);
  double pbytes = num(fec, "parity_bytes");
  snprintf(p, sizeof p, "%s/fec/parity_bytes", base);
  if (isfinite(pbytes) && isfinite(reps) && pbytes < 9 * reps)
    np_chk__problem(r->c, r->file, p,
                    "%.0f B for %.0f repairs: below 6 B header + 3 B each",
                    pbytes, reps);
  double reserve = np_results_num(r->doc, "/rudp/header/fec_reserve_bytes");
  if (isfinite(reserve) && reserve != 8)
    np_chk__problem(r->c, r->file, "/rudp/header/fec_reserve_bytes",
                    "%g, but --fec window leaves 8 B (6 B repair header + "
                    "2 B length)",
                    reserve);
  double rin = num(cl, "parity_in") + num(sv, "parity_in");
  double useless = num(w, "repairs_redundant") + num(w, "repairs_late");
  double held = num(w, "equations_at_start");
  double rec = num(fec, "recoveries");
  snprintf(p, sizeof p, "%s/fec/recoveries", base);
  if (isfinite(rin) && isfinite(useless) && isfinite(rec) &&
      isfinite(held) && rec > rin - useless + held)
    np_chk__problem(r->c, r->file, p,
                    "%.0f rebuilt, but only %.0f of the %.0f repairs received "
                    "were neither redundant nor late (one equation each), "
                    "with %.0f equations held at the start",
                    rec, rin - useless, rin, held);
}
