/*
 * np_matrix_int.h - pieces shared between the matrix runner's files:
 * repetition files and spawning (np_matrix_rep.c), stability samples
 * (np_matrix_stability.c) and time helpers.  Not a public interface.
 */
#ifndef NP_MATRIX_INT_H
#define NP_MATRIX_INT_H

#include <signal.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_matrix_plan.h"

#define NP_MATRIX_PATH_MAX 4096

/* How one child process ended. */
struct np_matrix_outcome {
  int exited;      /* 1: exit_code valid                               */
  int exit_code;
  int signo;       /* signal that ended it, 0 if none                  */
  int timed_out;   /* runner killed it at the timeout                  */
  int interrupted; /* SIGINT/SIGTERM asked the runner to stop, else 0   */
  int lost;        /* waitpid failed: the child's end is unknown         */
  double wall;     /* seconds from spawn to reap                       */
};

/* Everything one repetition needs; paths are filled by np_matrix_rep_paths. */
struct np_matrix_rep {
  const struct np_matrix_config *cf;
  const char *protocol;     /* subcommand: "udp"                          */
  const char *binary;       /* absolute path of the program to spawn      */
  int n;                    /* 1-based repetition number                  */
  char dir[NP_MATRIX_PATH_MAX];    /* DIR/runs/<id>                       */
  char base[NP_MATRIX_PATH_MAX];   /* DIR/runs/<id>/rep-<n>               */
  const sigset_t *blocked;  /* signals the runner waits on; child unblocks */
  const sigset_t *oldmask;  /* mask to restore in the child               */
};

/* Fill r->dir and r->base under out_dir.  NP_ERANGE when too long. */
int np_matrix_rep_paths(struct np_matrix_rep *r, const char *out_dir);

/* "<base><suffix>" into buf. */
void np_matrix_rep_file(const struct np_matrix_rep *r, const char *suffix,
                        char *buf, size_t len);

/* 1 when rep-<n>.json exists and parses as a JSON object. */
int np_matrix_rep_complete(const struct np_matrix_rep *r);

/* Remove every rep-<n>.* file (a partial repetition) in r->dir. */
int np_matrix_rep_discard(const struct np_matrix_rep *r, struct np_errbuf *eb);

/* Run one repetition end to end: command file, kernel snapshot, spawn,
 * wait (timeout, signals), snapshot, record (the child's, or a failed one
 * written by the runner).  rep-<n>.json is written last, so its presence
 * means the repetition is complete.  On interruption the partial files
 * are removed and NP_EINTR returned.  *status receives the record's status
 * and *headline its round trips/s (or -1). */
int np_matrix_rep_run(const struct np_matrix_rep *r,
                      struct np_matrix_outcome *oc, char *status,
                      size_t status_len, double *headline,
                      struct np_errbuf *eb);

/* Current UTC time as "2026-11-30T04:56:43Z". */
void np_matrix_utc_now(char *buf, size_t len);

/* Monotonic seconds. */
double np_matrix_mono(void);

/* Stability observations across a suite (BenchExec/pyperf style). */
struct np_matrix_stability;
int np_matrix_stability_new(struct np_matrix_stability **out);
/* Sample load, swap counters and governor now (before a repetition). */
void np_matrix_stability_sample(struct np_matrix_stability *s);
/* {"samples", "cores", "load_max", "load_above_cores", "swap_in_delta",
 *  "swap_out_delta", "governors": [...], "governor_changed", "flags": [..]} */
cJSON *np_matrix_stability_json(const struct np_matrix_stability *s);
void np_matrix_stability_free(struct np_matrix_stability *s);

#endif /* NP_MATRIX_INT_H */
