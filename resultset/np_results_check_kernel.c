/*
 * np_results_check_kernel.c - a record's kernel evidence re-derived
 * (docs/formats.md, "Kernel cross-checks").
 *
 * 1. kernel.delta = kernel.after - kernel.before, by np_kernel_delta_json
 *    over the record's own snapshots: rebuilt with np_kernel_from_json
 *    when inline, or from a reference ({"snapshot_sha256": hex,
 *    "changed": {...}}, np_ksnap.h): the kernel-snapshots/ file it names
 *    (in the set, hashing to its name: np_results_check_snap.c) parsed,
 *    with the changed counters replaced.
 * 2. The runner's snapshots (the kernel-snapshots/ files rep-N.cmd.txt
 *    refers to, or a 0.2 set's rep-N.kernel-before/after.txt, taken outside
 *    the child, before it started and after it ended) enclose the
 *    child's: for every counter of the delta list (monotone counters)
 *    runner before <= record before <= record after <= runner after; the
 *    socket-buffer sysctls and lo's MTU are equal in all four.
 * 3. The kernel's counts cover what the record claims, in both windows
 *    (the runner's: the whole child; the record's: the measurement, for
 *    udp; all rounds, for rudp).  Other traffic on the machine can only
 *    add, so the rule is >=, with Udp and Udp6 added:
 *      udp:  InDatagrams  >= server_received + received
 *            OutDatagrams >= sent + server_replied
 *            (measurement in the record's window; plus the warm-up in the
 *            runner's) - InDatagrams counts datagrams an application read
 *            and OutDatagrams datagrams the kernel accepted, exactly what
 *            the counters count;
 *      rudp: every message datagram crosses the stack through the relay:
 *            endpoint -> relay (1 out, 1 in when the relay reads it) and,
 *            when the relay forwards it, relay -> endpoint (1 out; the in
 *            is not counted, since a datagram still queued when a socket
 *            closes is never read), so per round and direction
 *            InDatagrams >= relay received and OutDatagrams >= relay
 *            received + relay forwarded, summed over both directions and
 *            every round;
 *      both: sockets.kernel_drops (per-socket sk_drops) <= RcvbufErrors +
 *            MemErrors (Udp and Udp6): the two counters a socket's receive
 *            drop is charged to.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_kind.h"
#include "np_ksnap.h"
#include "np_relay_config.h"
#include "np_results_check_int.h"

/* Counters that must not change during a run. */
static const char *const fixed_counters[] = {
    "sysctl.net.core.rmem_max",         "sysctl.net.core.rmem_default",
    "sysctl.net.core.wmem_max",         "sysctl.net.core.wmem_default",
    "sysctl.net.core.netdev_max_backlog", "sysctl.net.ipv4.udp_mem.min",
    "sysctl.net.ipv4.udp_mem.pressure", "sysctl.net.ipv4.udp_mem.max",
    "sysctl.net.ipv4.udp_rmem_min",     "lo.mtu"};

/* Sum of the named counters present in k; 0 with *have = 0 when none. */
static int64_t total(const struct np_kernel *k, const char *const *names,
                     size_t n, int *have) {
  int64_t s = 0, v;
  *have = 0;
  for (size_t i = 0; k && i < n; i++)
    if (np_kernel_get(k, names[i], &v) == 0) {
      s += v;
      *have = 1;
    }
  return s;
}

static const char *const in_names[] = {"Udp.InDatagrams",
                                       "Udp6.Udp6InDatagrams"};
static const char *const out_names[] = {"Udp.OutDatagrams",
                                        "Udp6.Udp6OutDatagrams"};
static const char *const drop_names[] = {"Udp.RcvbufErrors", "Udp.MemErrors",
                                         "Udp6.Udp6RcvbufErrors",
                                         "Udp6.Udp6MemErrors"};

/* What the record claims crossed the stack. */
struct claims {
  double in_window, out_window; /* in the record's own window            */
  double in_child, out_child;   /* in the whole child (runner's window)  */
  double drops;                 /* per-socket drops                      */
};

static void udp_claims(const cJSON *d, struct claims *cl) {
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(d, "counters");
  const cJSON *w = np_json_pointer(d, "/warmup/counters");
  cl->in_window = np_json_get_number(m, "server_received", 0) +
                  np_json_get_number(m, "received", 0);
  cl->out_window = np_json_get_number(m, "sent", 0) +
                   np_json_get_number(m, "server_replied", 0);
  cl->in_child = cl->in_window + np_json_get_number(w, "server_received", 0) +
                 np_json_get_number(w, "received", 0);
  cl->out_child = cl->out_window + np_json_get_number(w, "sent", 0) +
                  np_json_get_number(w, "server_replied", 0);
}

static void rudp_claims(const struct np_chk_rec *r, const cJSON *d,
                        struct claims *cl) {
  const cJSON *rd;
  int i = 0;
  double in = 0, out = 0;
  cJSON_ArrayForEach(rd, np_json_pointer(d, "/rudp/rounds")) {
    const cJSON *rl = cJSON_GetObjectItemCaseSensitive(rd, "relay");
    for (int k = 0; k < 2; k++) {
      const cJSON *dir =
          cJSON_GetObjectItemCaseSensitive(rl, k ? "s2c" : "c2s");
      double rec = np_json_get_number(dir, "received", 0);
      in += rec;
      out += rec + np_json_get_number(dir, "forwarded", 0);
    }
    /* The relay sends runs of copies as one UDP_SEGMENT message: the
     * sending kernel counts OutDatagrams once per message (one skb,
     * split after the count), the receiving side every datagram.  So
     * the sent claim is the datagrams less those that left inside a
     * group beyond its first (gso_datagrams - gso_sends). */
    const cJSON *io = np_json_pointer(rl, "/stats/io");
    double gd = np_json_get_number(io, "gso_datagrams", 0);
    double gs = np_json_get_number(io, "gso_sends", 0);
    double sd = np_json_get_number(io, "send_datagrams", 0);
    /* a group holds 2..NP_RELAY_BATCH copies (a single copy is sent as
     * an ordinary datagram), and every grouped copy is a sent datagram */
    if (2 * gs > gd || gd > NP_RELAY_BATCH * gs || gd > sd) {
      char ptr[96];
      snprintf(ptr, sizeof ptr, "/rudp/rounds/%d/relay/stats/io", i);
      np_chk__problem(r->c, r->file, ptr,
                      "2 x gso_sends %.0f <= gso_datagrams %.0f <= %u x "
                      "gso_sends and <= send_datagrams %.0f does not hold",
                      gs, gd, NP_RELAY_BATCH, sd);
    } else
      out -= gd - gs;
    i++;
  }
  cl->in_window = cl->in_child = in;
  cl->out_window = cl->out_child = out;
}

/* One window's coverage: counts between before and after >= the claims. */
static void coverage(const struct np_chk_rec *r, const char *file,
                     const char *ptr, const char *window,
                     const struct np_kernel *b, const struct np_kernel *a,
                     double in, double out, double drops) {
  int h1, h2;
  int64_t din = total(a, in_names, 2, &h1) - total(b, in_names, 2, &h2);
  if (h1 && h2 && (double)din < in)
    np_chk__problem(r->c, file, ptr,
                    "%s: the kernel counted %" PRId64 " UDP datagrams read "
                    "(InDatagrams, Udp + Udp6), but %s claims at least %.0f",
                    window, din, r->file, in);
  int64_t dout = total(a, out_names, 2, &h1) - total(b, out_names, 2, &h2);
  if (h1 && h2 && (double)dout < out)
    np_chk__problem(r->c, file, ptr,
                    "%s: the kernel counted %" PRId64 " UDP datagrams sent "
                    "(OutDatagrams, Udp + Udp6), but %s claims at least %.0f",
                    window, dout, r->file, out);
  int64_t ddrop = total(a, drop_names, 4, &h1) - total(b, drop_names, 4, &h2);
  if (h1 && h2 && (double)ddrop < drops)
    np_chk__problem(r->c, file, ptr,
                    "%s: the kernel charged %" PRId64 " receive drops "
                    "(RcvbufErrors + MemErrors, Udp + Udp6), fewer than the "
                    "%.0f per-socket drops %s claims (/sockets/kernel_drops)",
                    window, ddrop, drops, r->file);
}

/* Runner before <= record before <= record after <= runner after. */
static void enclosure(const struct np_chk_rec *r, const struct np_kernel *rb,
                      const struct np_kernel *ra) {
  const char *fb = r->kb_file, *fa = r->ka_file;
  for (size_t i = 0;; i++) {
    const char *name = np_kernel_delta_name(i);
    if (name == NULL)
      break;
    int64_t kb, b, a, ka;
    int hkb = r->kb && np_kernel_get(r->kb, name, &kb) == 0;
    int hb = np_kernel_get(rb, name, &b) == 0;
    int ha = np_kernel_get(ra, name, &a) == 0;
    int hka = r->ka && np_kernel_get(r->ka, name, &ka) == 0;
    if (hkb && hb && kb > b)
      np_chk__problem(r->c, fb, "",
                      "%s %" PRId64 ", above the record's kernel.before "
                      "(%" PRId64 "): the runner's snapshot before the child "
                      "cannot count more than the child's own",
                      name, kb, b);
    if (hb && ha && b > a)
      np_chk__problem(r->c, r->file, "/kernel/after/counters",
                      "%s %" PRId64 " is below kernel.before's %" PRId64
                      " (a counter only grows)",
                      name, a, b);
    if (hka && ha && ka < a)
      np_chk__problem(r->c, fa, "",
                      "%s %" PRId64 ", below the record's kernel.after "
                      "(%" PRId64 "): the runner's snapshot after the child "
                      "cannot count less than the child's own",
                      name, ka, a);
  }
  for (size_t i = 0; i < sizeof fixed_counters / sizeof *fixed_counters; i++) {
    const char *name = fixed_counters[i];
    int64_t v[4];
    const struct np_kernel *k[4] = {r->kb, rb, ra, r->ka};
    const char *where[4] = {fb, r->file, r->file, fa};
    int have[4];
    for (int j = 0; j < 4; j++)
      have[j] = k[j] && np_kernel_get(k[j], name, &v[j]) == 0;
    for (int j = 1; j < 4; j++)
      if (have[0] && have[j] && v[j] != v[0])
        np_chk__problem(r->c, where[j],
                        j == 1   ? "/kernel/before/counters"
                        : j == 2 ? "/kernel/after/counters"
                                 : "",
                        "%s %" PRId64 ", but %" PRId64 " in the runner's "
                        "snapshot before the run (a setting the run cannot "
                        "change)",
                        name, v[j], v[0]);
  }
}

/* The record's own snapshot kernel.<which>, inline or by reference, into
 * *out; a problem reported (and -1) when it cannot be had. */
static int record_snapshot(const struct np_chk_rec *r, const cJSON *kj,
                           const char *which, struct np_kernel **out) {
  const cJSON *snap = cJSON_GetObjectItemCaseSensitive(kj, which);
  char ptr[32], hex[NP_SHA256_HEX_SIZE];
  struct np_errbuf eb = {{0}};
  snprintf(ptr, sizeof ptr, "/kernel/%s", which);
  int ref = np_ksnap_record_ref(snap, hex);
  if (ref < 0) {
    np_chk__problem(r->c, r->file, ptr,
                    NP_KSNAP_REF
                    ": not 64 lowercase hex "
                    "digits (the SHA-256 of a file of " NP_KSNAP_DIR "/)");
    return -1;
  }
  if (ref == 0) {
    if (np_kernel_from_json(snap, out, &eb) == 0)
      return 0;
    np_chk__problem(r->c, r->file, ptr, "%s", eb.msg);
    return -1;
  }
  const struct np_chk_snap *s = np_chk__snap_use(r->c, hex);
  if (s == NULL) {
    np_chk__problem(r->c, r->file, ptr,
                    NP_KSNAP_REF " %s: no " NP_KSNAP_DIR "/%s.txt in the set",
                    hex, hex);
    return -1;
  }
  if (s->data == NULL)
    return -1; /* its hash is wrong: reported when fed */
  if (np_ksnap_record_resolve(snap, s->data, s->len, out, &eb) == 0)
    return 0;
  np_chk__problem(r->c, r->file, ptr, NP_KSNAP_DIR "/%s.txt: %s", hex, eb.msg);
  return -1;
}

void np_chk__kernel(const struct np_chk_rec *r) {
  const cJSON *kj = cJSON_GetObjectItemCaseSensitive(r->doc, "kernel");
  struct np_kernel *rb = NULL, *ra = NULL;
  /* both resolved before either failure returns: each reference marks
   * its file as referred to */
  int bad = record_snapshot(r, kj, "before", &rb);
  bad |= record_snapshot(r, kj, "after", &ra);
  if (bad) {
    np_kernel_free(rb);
    np_kernel_free(ra);
    return;
  }
  cJSON *delta = np_kernel_delta_json(rb, ra);
  if (delta == NULL)
    r->c->oom = 1;
  else
    np_chk__diff(r->c, r->file, "/kernel/delta",
                 cJSON_GetObjectItemCaseSensitive(kj, "delta"), delta,
                 "kernel.after - kernel.before", 8);
  cJSON_Delete(delta);
  enclosure(r, rb, ra);
  /* the coverage rule for the loopback benchmarks only: an exec record
   * claims no datagrams, and a udp --connect client's server may be on
   * another host */
  const struct np_kind *kind = np_kind_find(np_json_get_string(
      cJSON_GetObjectItemCaseSensitive(r->doc, "config"), "protocol", ""));
  if (kind == NULL || !kind->loopback) {
    np_kernel_free(rb);
    np_kernel_free(ra);
    return;
  }
  struct claims cl;
  int rudp = cJSON_HasObjectItem(r->doc, "rudp");
  if (rudp)
    rudp_claims(r, r->doc, &cl);
  else
    udp_claims(r->doc, &cl);
  cl.drops = np_results_num(r->doc, "/sockets/kernel_drops");
  if (!isfinite(cl.drops))
    cl.drops = 0;
  coverage(r, r->file, "/kernel",
           rudp ? "the record's own snapshots (all rounds)"
                : "the record's own snapshots (measurement and drain)",
           rb, ra, cl.in_window, cl.out_window, cl.drops);
  if (r->kb != NULL && r->ka != NULL) {
    int ref = strncmp(r->ka_file, NP_KSNAP_DIR "/", sizeof NP_KSNAP_DIR) == 0;
    coverage(r, r->ka_file, "",
             ref ? "the runner's snapshots around the child (cmd.txt's "
                   NP_KSNAP_BEFORE " to " NP_KSNAP_AFTER ")"
                 : "the runner's snapshots around the child (kernel-before.txt "
                   "to kernel-after.txt)",
             r->kb, r->ka, cl.in_child, cl.out_child, cl.drops);
  }
  np_kernel_free(rb);
  np_kernel_free(ra);
}
