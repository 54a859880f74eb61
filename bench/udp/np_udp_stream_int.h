/*
 * np_udp_stream_int.h - state shared by the stream's threads
 * (np_udp_stream.c) and its controller (np_udp_stream_run.c).  Internal.
 */
#ifndef NP_UDP_STREAM_INT_H
#define NP_UDP_STREAM_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "np_udp_stream.h"

#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

enum { PH_IDLE, PH_WARMUP, PH_WDRAIN, PH_MEASURE, PH_DRAIN, PH_STOP };

#define RX_BUF 65536u /* a GRO receive holds up to 64 KiB */

struct np_udp_st {
  const struct np_udp_config *cfg;
  int rx_fd;
  int *tx_fd;                          /* cfg->clients sockets          */
  _Atomic int phase;                   /* the controller's              */
  _Atomic int sender_idle;             /* 1 between sending phases      */
  _Atomic uint64_t pub_sent[2];        /* datagrams sent, per set       */
  _Atomic uint64_t pub_unique[2];      /* distinct datagrams received   */
  _Atomic uint64_t pub_bytes;          /* measurement, for --interval   */
  _Atomic uint64_t pub_skipped;        /* measurement's sequences skipped,
                                          never decreasing (--interval) */
  _Atomic int rx_stop;
  struct np_udp_stream_counters ctr[2]; /* [set]: sender + receiver    */
  struct np_udp_stream_rx *rx[2];       /* [set][client]               */
  struct np_hist *iv_hist, *iv_pub;     /* --interval hand-over        */
  pthread_mutex_t iv_lock;
  _Atomic unsigned iv_req, iv_ack;
  struct np_udp_stream_result *res;
  int segs;                            /* datagrams per send unit       */
};

void *np_udp__stream_sender(void *arg);   /* thread: struct np_udp_st * */
void *np_udp__stream_receiver(void *arg); /* thread: struct np_udp_st * */

#endif /* NP_UDP_STREAM_INT_H */
