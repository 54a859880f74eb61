/*
 * np_fec_int.h - private state of an FEC endpoint, shared by np_fec.c
 * (lifecycle, timers, stats), np_fec_tx.c (encoder) and np_fec_rx.c
 * (decoder).  Not installed; nothing outside bench/fec includes it.
 */
#ifndef NP_FEC_INT_H
#define NP_FEC_INT_H

#include "np_fec.h"
#include "np_fec_rs.h"
#include "np_fec_win.h"

#define FEC_KIND_MASK 0xc0u
#define FEC_KIND_DATA 0x00u
#define FEC_KIND_PARITY 0x40u
#define FEC_KIND_REPORT 0x80u
#define FEC_KIND_WINDOW 0xc0u /* window mode; 0x20 set: repair      */
#define FEC_WIN_REPAIR 0x20u
#define FEC_WIN_BARE 0x01u   /* source: sent at repair rate 0, no copies */
#define FEC_INDEX_MASK 0x0fu

/* Window mode (np_fec_window.c): the RLC codec and the repair rate. */
struct fec_win {
  struct np_fec_win_enc *enc;
  struct np_fec_win_dec *dec;
  unsigned m;                      /* repairs per window of W sources     */
  uint64_t changes;                /* times m changed                     */
  int credit;                      /* += m per source, a repair costs W   */
  unsigned unprotected;            /* sources since the last repair       */
  uint64_t first_unprot_ns;        /* oldest unprotected source: tail timer */
  uint64_t tag[NP_FEC_WIN_MAX_W];  /* caller's tags of unprotected sources */
  uint8_t *rep;                    /* repair datagram scratch             */
  uint64_t nsrc;                   /* sources sent                        */
  double run_len;                  /* EWMA mean loss-run length (peer's)  */
  int have_run;
  struct np_fec_win_dec_stats seen;/* decoder counters already in st      */
};

/* Send side: the one open group. */
struct fec_tx {
  int open;                        /* a group is accumulating             */
  uint16_t gid;                    /* its id                              */
  uint16_t next_gid;               /* id of the next group to open        */
  unsigned k;                      /* data shards so far                  */
  uint64_t opened_ns;              /* first shard's time (wait timer)     */
  uint8_t *buf[NP_FEC_MAX_GROUP];  /* [byte0][u16 len][datagram][pad]:
                                      shard at buf+1, cap mtu bytes       */
  uint16_t len[NP_FEC_MAX_GROUP];  /* true datagram lengths               */
  uint64_t tag[NP_FEC_MAX_GROUP];  /* the caller's tags (cb.on_parity)    */
  int bare;                        /* planned without parity: no copies   */
  size_t retained;                 /* sum of 2 + len over the group       */
  uint8_t *par[NP_FEC_MAX_PARITY]; /* parity datagram scratch, cap mtu    */
};

enum fec_slot_state {
  SLOT_FREE,   /* never used                                              */
  SLOT_ACTIVE, /* collecting shards, may hold buffers                     */
  SLOT_DONE,   /* all data present or rebuilt, buffers released, still
                  counting arrivals for the loss figures                  */
  SLOT_FINAL   /* accounted; gid kept to recognise late shards            */
};

struct fec_rx_slot {
  uint8_t state;                 /* enum fec_slot_state                   */
  uint8_t k, m;                  /* 0 until a parity shard tells          */
  uint8_t max_idx;               /* 1 + highest data index seen           */
  uint16_t gid;
  uint16_t L;                    /* parity payload length, 0 unknown      */
  uint16_t have;                 /* shards that arrived (bit = row)       */
  uint16_t rebuilt;              /* data rows rebuilt                     */
  int16_t buf[NP_FEC_RS_MAX_N];  /* pool index or -1                      */
  uint16_t blen[NP_FEC_RS_MAX_N];/* stored bytes (data 2+len, parity L)   */
  uint64_t first_ns;             /* first shard's arrival                 */
};

struct fec_rx {
  struct fec_rx_slot *slots;     /* rx_slots, indexed by gid & mask       */
  unsigned mask;
  uint8_t *pool;                 /* rx_buffers x mtu bytes                */
  int16_t *free_stack;           /* free pool indices                     */
  unsigned nfree;
  uint8_t *out[NP_FEC_MAX_GROUP];/* decode output scratch, mtu each       */
  uint16_t newest;               /* newest gid seen                       */
  int have_newest;
  size_t retained;               /* bytes held in pool buffers            */
  unsigned nlive;                /* slots ACTIVE or DONE                  */
  uint64_t cum_expected, cum_lost;    /* what we report to the peer       */
  uint64_t reported_expected;         /* cum_expected at the last report  */
  uint64_t next_report_ns;
  uint64_t reported_ns;               /* when the last report left        */
  uint32_t peer_expected, peer_lost;  /* last report taken from the peer  */
  /* final groups with parity, and of those the ones that lost more than
   * i shards (cumulative, reported mod 2^16) - the burst-aware part of
   * the report (np_fec_policy.h) */
  uint64_t cum_groups, cum_over[NP_FEC_MAX_PARITY + 1];
  uint16_t peer_groups, peer_over[NP_FEC_MAX_PARITY + 1];
  int have_peer;
};

struct np_fec {
  struct np_fec_config cfg;
  struct np_fec_callbacks cb;
  uint32_t data_max;             /* mtu - NP_FEC_RESERVE                  */
  struct np_fec_rs *rs;
  struct np_fec_policy pol;
  struct fec_tx tx;
  struct fec_rx rx;
  struct fec_win win;            /* window mode only                      */
  struct np_fec_stats st;        /* counters; gauges filled on read       */
  uint64_t parity_sum;           /* sum of m over encoded groups          */
  struct np_fec_rs_stats rs_base;/* cache counters at the last reset      */
  int in_call;                   /* re-entry guard for input / timer      */
};

static inline void fec_put16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}
static inline uint16_t fec_get16(const uint8_t *p) {
  return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}
static inline void fec_put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}
static inline uint32_t fec_get32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         p[3];
}

/* Retained bytes of both directions; updates the peak. */
void np_fec__note_retained(struct np_fec *f);
static inline size_t fec_retained(const struct np_fec *f) {
  return f->tx.retained + f->rx.retained;
}
/* Emit one datagram through cb.output, counting failures. */
void np_fec__output(struct np_fec *f, const uint8_t *buf, size_t len);

/* np_fec_tx.c */
int np_fec__tx_init(struct np_fec *f);
void np_fec__tx_free(struct np_fec *f);
void np_fec__tx_close(struct np_fec *f, uint64_t now_ns, int by_timer);
uint64_t np_fec__tx_deadline(const struct np_fec *f);

/* np_fec_rx.c */
int np_fec__rx_init(struct np_fec *f, uint64_t now_ns);
void np_fec__rx_free(struct np_fec *f);
int np_fec__rx_input(struct np_fec *f, const uint8_t *buf, size_t len,
                     uint64_t now_ns, const uint8_t **out, size_t *out_len);
void np_fec__rx_timer(struct np_fec *f, uint64_t now_ns);
uint64_t np_fec__rx_deadline(const struct np_fec *f);

/* np_fec_window.c */
int np_fec__win_init(struct np_fec *f);
void np_fec__win_free(struct np_fec *f);
int np_fec__win_send(struct np_fec *f, const uint8_t *buf, size_t len,
                     uint64_t now_ns, uint64_t tag);
int np_fec__win_input(struct np_fec *f, const uint8_t *buf, size_t len,
                      const uint8_t **out, size_t *out_len);
uint64_t np_fec__win_deadline(const struct np_fec *f);
void np_fec__win_timer(struct np_fec *f, uint64_t now_ns);
void np_fec__win_flush(struct np_fec *f);
void np_fec__win_loss(struct np_fec *f); /* re-choose m after a report */
/* A report's loss runs: of `lost` missing sources, `runs` runs. */
void np_fec__win_runs(struct np_fec *f, uint64_t lost, uint64_t runs);
void np_fec__win_stats(const struct np_fec *f, struct np_fec_stats *out);
void np_fec__win_reset(struct np_fec *f);

#endif /* NP_FEC_INT_H */
