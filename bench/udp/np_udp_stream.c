/*
 * np_udp_stream.c - the stream's sockets, threads and phases (see
 * np_udp_stream.h).
 *
 * Phases on the controller: [warm-up -> warm-up drain ->] measurement ->
 * drain -> stop.  The sender stamps each datagram with its phase, so the
 * receiver counts it where it belongs however late it arrives.  Sockets
 * are plain blocking ones with time-outs (sends 100 ms, receives 10 ms,
 * so every loop notices a phase change), not the echo transports: GRO's
 * segment size arrives as a control message the transports do not pass
 * on.  Times: the sender stamps CLOCK_REALTIME just before each sendmmsg
 * call (a retry of what a call left unsent is stamped again) and the
 * receiver takes the kernel's receive timestamp (SO_TIMESTAMPNS, the same
 * clock: the kernel offers no monotonic one) per datagram, so one-way
 * delay and jitter do not depend on when the receiver thread ran.  A
 * datagram received before its send time (the clock stepped back) is
 * counted in negative_delay and left out of the delay histograms.  The
 * drain ends when every datagram sent is received or dropped by the
 * receiving socket, or after 200 ms without progress (at most 1 s).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "np_udp_stream_int.h"

static int64_t real_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint32_t check_of(uint64_t seed, uint32_t id, uint64_t seq, int64_t t) {
  uint64_t x = seed ^ ((uint64_t)id << 40) ^ seq * 0x9e3779b97f4a7c15ull ^
               (uint64_t)t;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return (uint32_t)x;
}

static void put_le(uint8_t *p, uint64_t v, int n) {
  for (int i = 0; i < n; i++, v >>= 8)
    p[i] = (uint8_t)v;
}

static uint64_t get_le(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

static void note_errno(struct np_udp_stream_counters *c, int e, uint64_t n) {
  for (int i = 0; i < 4; i++)
    if (c->errno_counts[i] == 0 || c->errnos[i] == e || i == 3) {
      c->errnos[i] = e;
      c->errno_counts[i] += n;
      return;
    }
}

/* ---- sender ---- */

/* Send time and check into the datagrams of units [from, to) of bufs
 * (their sequence and stream id are in place): stamped just before each
 * sendmmsg call, so a retry of what a call left unsent carries the time
 * of the call that sends it. */
static void stamp(uint8_t *bufs, size_t unit, unsigned segs, unsigned from,
                  unsigned to, const struct np_udp_config *cfg, uint32_t id) {
  int64_t now = real_ns();
  for (unsigned m = from; m < to; m++)
    for (unsigned g = 0; g < segs; g++) {
      uint8_t *p = bufs + m * unit + (size_t)g * cfg->payload;
      put_le(p + 12, check_of(cfg->seed, id, get_le(p, 8), now), 4);
      put_le(p + 16, (uint64_t)now, 8);
    }
}

void *np_udp__stream_sender(void *arg) {
  struct np_udp_st *s = arg;
  const struct np_udp_config *cfg = s->cfg;
  unsigned batch = cfg->batch, segs = (unsigned)s->segs;
  size_t unit = (size_t)segs * cfg->payload;
  uint8_t *bufs = calloc(batch, unit);
  struct mmsghdr *mm = calloc(batch, sizeof *mm);
  struct iovec *iov = calloc(batch, sizeof *iov);
  uint64_t (*seq)[2] = calloc(cfg->clients, sizeof *seq);
  double pps = cfg->packet_rate > 0 ? cfg->packet_rate
               : cfg->bitrate > 0   ? cfg->bitrate / (8.0 * cfg->payload)
                                    : 0;
  double unit_ns = pps > 0 ? 1e9 * segs / pps : 0;
  int last = PH_IDLE;
  int64_t t0 = 0;
  uint64_t units = 0, call = 0;
  if (!bufs || !mm || !iov || !seq)
    goto free_bufs;
  for (;;) {
    int ph = atomic_load_explicit(&s->phase, memory_order_acquire);
    if (ph == PH_STOP)
      break;
    int sending = ph == PH_WARMUP || ph == PH_MEASURE;
    /* release: the last pub_sent store comes before idle (the drain reads
     * idle, then pub_sent) */
    atomic_store_explicit(&s->sender_idle, !sending, memory_order_release);
    if (!sending) {
      struct timespec ts = {0, 200000};
      nanosleep(&ts, NULL);
      last = ph;
      continue;
    }
    if (ph != last) {
      last = ph;
      t0 = mono_ns();
      units = 0;
    }
    unsigned k = batch;
    if (unit_ns > 0) {
      int64_t now = mono_ns();
      uint64_t due = (uint64_t)((double)(now - t0) / unit_ns) + 1;
      if (due <= units) {
        int64_t next = t0 + (int64_t)((double)units * unit_ns);
        struct timespec ts = {next / 1000000000, next % 1000000000};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        continue;
      }
      if (due - units < k)
        k = (unsigned)(due - units);
    }
    int set = ph == PH_MEASURE;
    uint32_t id = (uint32_t)(call++ % cfg->clients);
    for (unsigned m = 0; m < k; m++) {
      uint8_t *u = bufs + m * unit;
      for (unsigned g = 0; g < segs; g++) {
        uint8_t *p = u + (size_t)g * cfg->payload;
        put_le(p, seq[id][set]++, 8);
        put_le(p + 8, id, 4);
        p[24] = (uint8_t)set;
      }
      iov[m] = (struct iovec){u, unit};
      memset(&mm[m], 0, sizeof mm[m]);
      mm[m].msg_hdr.msg_iov = &iov[m];
      mm[m].msg_hdr.msg_iovlen = 1;
    }
    struct np_udp_stream_counters *c = &s->ctr[set];
    unsigned done = 0;
    while (done < k) {
      stamp(bufs, unit, segs, done, k, cfg, id); /* this call's send time */
      int n = sendmmsg(s->tx_fd[id], mm + done, k - done, 0);
      c->send_calls++;
      if (n > 0) {
        c->sent += (uint64_t)n * segs;
        done += (unsigned)n;
        continue;
      }
      if (n < 0 && errno == EINTR)
        continue;
      /* that unit was not sent: its datagrams are refused, counted */
      c->send_errors += segs;
      note_errno(c, n < 0 ? errno : EIO, segs);
      /* the run's first send refused, in whichever phase came first
       * (with --warmup 0 that is the measurement): GSO not taken */
      if (s->res->gso_segments && s->ctr[0].sent == 0 && s->ctr[1].sent == 0)
        s->res->gso_accepted = 0;
      done++;
      /* their sequences stay skipped: the receiver sees a gap that the
         send errors account for */
    }
    units += k;
    atomic_store_explicit(&s->pub_sent[set], c->sent, memory_order_release);
  }
free_bufs:
  atomic_store(&s->sender_idle, 1);
  free(seq);
  free(iov);
  free(mm);
  free(bufs);
  return NULL;
}

/* ---- receiver ---- */

static void rx_segment(struct np_udp_st *s, const uint8_t *p, size_t len,
                       int64_t arrived) {
  const struct np_udp_config *cfg = s->cfg;
  int set = len >= 25 && p[24] == 1;
  struct np_udp_stream_counters *c = &s->ctr[set];
  c->bytes += len;
  if (len != cfg->payload || p[24] > 1) {
    c->content_errors++;
    return;
  }
  uint64_t seq = get_le(p, 8);
  uint32_t id = (uint32_t)get_le(p + 8, 4);
  int64_t sent = (int64_t)get_le(p + 16, 8);
  if (id >= cfg->clients ||
      (uint32_t)get_le(p + 12, 4) != check_of(cfg->seed, id, seq, sent)) {
    c->content_errors++;
    return;
  }
  int64_t d;
  /* negative: received before it was sent, CLOCK_REALTIME stepped back;
   * counted by the stream, kept out of the delay histograms (which would
   * clamp it to their lowest value, 1 ns, and hide it) */
  int negative = np_udp_stream_rx_add(&s->rx[set][id], seq, sent, arrived,
                                      &d);
  if (set == 1) {
    if (!negative)
      np_hist_record(s->res->delay_ns, arrived - sent);
    if (d >= 0)
      np_hist_record(s->res->transit_delta_ns, d);
    if (s->iv_hist && !negative)
      np_hist_record(s->iv_hist, arrived - sent);
  }
}

static void rx_publish(struct np_udp_st *s) {
  for (int set = 0; set < 2; set++) {
    uint64_t u = 0, sk = 0;
    for (uint32_t i = 0; i < s->cfg->clients; i++) {
      u += s->rx[set][i].unique;
      sk += s->rx[set][i].skipped;
    }
    atomic_store_explicit(&s->pub_unique[set], u, memory_order_release);
    if (set == 1) {
      atomic_store(&s->pub_bytes, s->ctr[1].bytes);
      atomic_store(&s->pub_skipped, sk);
    }
  }
  unsigned req = atomic_load_explicit(&s->iv_req, memory_order_acquire);
  if (s->iv_hist && req != atomic_load(&s->iv_ack)) {
    pthread_mutex_lock(&s->iv_lock);
    np_hist_merge(s->iv_pub, s->iv_hist);
    pthread_mutex_unlock(&s->iv_lock);
    np_hist_reset(s->iv_hist);
    atomic_store_explicit(&s->iv_ack, req, memory_order_release);
  }
}

void *np_udp__stream_receiver(void *arg) {
  struct np_udp_st *s = arg;
  unsigned batch = s->cfg->batch;
  uint8_t *bufs = malloc((size_t)batch * RX_BUF);
  struct mmsghdr *mm = calloc(batch, sizeof *mm);
  struct iovec *iov = calloc(batch, sizeof *iov);
  char (*ctl)[128] = calloc(batch, sizeof *ctl);
  if (!bufs || !mm || !iov || !ctl)
    goto free_bufs;
  while (!atomic_load_explicit(&s->rx_stop, memory_order_acquire)) {
    for (unsigned m = 0; m < batch; m++) {
      iov[m] = (struct iovec){bufs + (size_t)m * RX_BUF, RX_BUF};
      memset(&mm[m], 0, sizeof mm[m]);
      mm[m].msg_hdr.msg_iov = &iov[m];
      mm[m].msg_hdr.msg_iovlen = 1;
      mm[m].msg_hdr.msg_control = ctl[m];
      mm[m].msg_hdr.msg_controllen = sizeof ctl[m];
    }
    int n = recvmmsg(s->rx_fd, mm, batch, MSG_WAITFORONE, NULL);
    int64_t fallback = real_ns();
    for (int m = 0; m < n; m++) {
      struct msghdr *h = &mm[m].msg_hdr;
      size_t len = mm[m].msg_len, seg = len;
      int64_t arrived = fallback;
      for (struct cmsghdr *cm = CMSG_FIRSTHDR(h); cm; cm = CMSG_NXTHDR(h, cm)) {
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SO_TIMESTAMPNS) {
          struct timespec ts;
          memcpy(&ts, CMSG_DATA(cm), sizeof ts);
          arrived = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
        } else if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO) {
          int g;
          memcpy(&g, CMSG_DATA(cm), sizeof g);
          if (g > 0)
            seg = (size_t)g;
        }
      }
      int set = len >= 25 && ((uint8_t *)iov[m].iov_base)[24] == 1;
      if (h->msg_flags & MSG_TRUNC)
        s->ctr[set].truncated++;
      uint64_t nseg = seg ? (len + seg - 1) / seg : 0;
      if (nseg > 1) {
        s->ctr[set].gro_receives++;
        if (nseg > s->ctr[set].gro_max_segments)
          s->ctr[set].gro_max_segments = nseg;
      }
      for (size_t off = 0; off < len; off += seg)
        rx_segment(s, (uint8_t *)iov[m].iov_base + off,
                   len - off < seg ? len - off : seg, arrived);
    }
    rx_publish(s);
  }
free_bufs:
  free(ctl);
  free(iov);
  free(mm);
  free(bufs);
  return NULL;
}
