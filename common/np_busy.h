/*
 * np_busy.h - when is a set of threads CPU-bound?  One rule, shared by the
 * benchmark that writes the flag (`udp --connect` / `--agent`:
 * external.client_cpu.client_saturated) and the self-check that re-derives it.
 *
 * A thread is busy for the fraction of a wall-clock window it spent on a
 * CPU (user + system time of that thread, CLOCK_THREAD_CPUTIME_ID).  The
 * client is saturated when its busiest lane was busy for at least
 * NP_BUSY_SATURATED of the measured window: that lane could not have sent
 * faster, so the rate measures the client at least as much as the server.
 * The busiest lane, not the mean: a closed loop's clients on one lane wait
 * for that lane even when another lane idles.
 */
#ifndef NP_BUSY_H
#define NP_BUSY_H

#define NP_BUSY_SATURATED 0.90
#define NP_BUSY_STR_(x) #x
#define NP_BUSY_STR(x) NP_BUSY_STR_(x)

/* the record's rule text, with the threshold above written into it */
#define NP_BUSY_RULE                                                      \
  "busiest_fraction = the largest of lane_cpu_seconds / window_seconds "  \
  "(thread CPU time over the measured window, without warm-up and "       \
  "drain); client_saturated = busiest_fraction >= " NP_BUSY_STR(                 \
      NP_BUSY_SATURATED) ": the busiest lane was on a CPU nearly all the "  \
  "time, so the client, not only the server, may have bounded the rate"

/* busy fraction of a thread that used cpu_seconds in window_seconds
 * (0 for an empty window) */
static inline double np_busy_fraction(double cpu_seconds,
                                      double window_seconds) {
  return window_seconds > 0 ? cpu_seconds / window_seconds : 0.0;
}

static inline int np_busy_saturated(double fraction) {
  return fraction >= NP_BUSY_SATURATED;
}

#endif /* NP_BUSY_H */
