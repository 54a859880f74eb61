/*
 * np_matrix_int.h - pieces shared between the matrix runner's files:
 * repetition files and spawning (np_matrix_rep.c), the runner's session id
 * and folder lock (np_matrix_session.c), progress lines and the end summary
 * (np_matrix_progress.c), stability samples (np_matrix_stability.c).  Not
 * a public interface.
 */
#ifndef NP_MATRIX_INT_H
#define NP_MATRIX_INT_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "np_err.h"
#include "np_matrix.h"
#include "np_matrix_plan.h"

#define NP_MATRIX_PATH_MAX 4096

/* A runner session id: 128 random bits as lowercase hex, and its NUL. */
#define NP_MATRIX_SESSION_LEN 32

/* The environment variable that hands the session id to every child. */
#define NP_MATRIX_SESSION_ENV "NETPROOF_RUNNER_SESSION"

/* The lock file inside the output folder (removed when the runner ends). */
#define NP_MATRIX_LOCK_FILE ".netproof-matrix.lock"

/* How one child process ended. */
struct np_matrix_services; /* np_matrix_services.h */

struct np_matrix_outcome {
  int exited;      /* 1: exit_code valid                               */
  int exit_code;   /* the child's exit status when exited              */
  int signo;       /* signal that ended it, 0 if none                  */
  int timed_out;   /* runner killed it at the timeout                  */
  int interrupted; /* SIGINT/SIGTERM asked the runner to stop, else 0   */
  int lost;        /* waitpid failed: the child's end is unknown         */
  double wall;     /* seconds from spawn to reap                       */
};

/* What a finished repetition's record says, for the progress line. */
struct np_matrix_rep_end {
  char status[32];  /* the record's status: passed, failed, interrupted  */
  double headline;  /* measurement.roundtrips_per_sec, or -1             */
  char reason[192]; /* first of reasons[], else failure.reason, else ""  */
  char kept[NP_MATRIX_PATH_MAX]; /* a complete child record moved to kept/
                                    (relative to DIR), or ""             */
  char lost[400];   /* a service ended or lost its port during the run:
                       why (the record went to kept/, no rep-N.json), or "" */
};

/* Everything one repetition needs; paths are filled by np_matrix__rep_paths. */
struct np_matrix_rep {
  const struct np_matrix_config *cf;
  const char *protocol;     /* subcommand: "udp"                          */
  const char *binary;       /* absolute path of the program to spawn      */
  int n;                    /* 1-based repetition number                  */
  const char *out_dir;      /* DIR (set by np_matrix__rep_paths)           */
  char dir[NP_MATRIX_PATH_MAX];    /* DIR/runs/<id>                       */
  char base[NP_MATRIX_PATH_MAX];   /* DIR/runs/<id>/rep-<n>               */
  const sigset_t *blocked;  /* signals the runner waits on; child unblocks */
  const sigset_t *oldmask;  /* mask to restore in the child               */
  const char *session;      /* this runner's session id (32 hex)          */
  char *const *envp;        /* the child's environment (with the session) */
  struct np_matrix_services *services; /* the plan's services, or NULL    */
};

/* Fill r->out_dir, r->dir and r->base under out_dir (borrowed).
 * NP_ERANGE when too long. */
int np_matrix__rep_paths(struct np_matrix_rep *r, const char *out_dir);

/* "<base><suffix>" into buf. */
void np_matrix__rep_file(const struct np_matrix_rep *r, const char *suffix,
                         char *buf, size_t len);

/* Remove the files of out_dir's kernel-snapshots/ no runs/<id>/rep-N.cmd.txt
 * refers to (np_matrix_snap.c).  0 or NP_E* with detail in eb. */
int np_matrix__snap_sweep(const char *out_dir, struct np_errbuf *eb);

/* 1 when rep-<n>.json exists and parses as a JSON object. */
int np_matrix__rep_complete(const struct np_matrix_rep *r);

/* Remove every rep-<n>.* file (a partial repetition) in r->dir. */
int np_matrix__rep_discard(const struct np_matrix_rep *r,
                           struct np_errbuf *eb);

/* When rep-<n>.json.tmp holds a complete record (it parses and has a
 * status) that will not become rep-<n>.json - a runner stopped by a full
 * disk kept it there, or its child timed out after writing it - move it to
 * DIR/kept/<config-id>/rep-<n>.<session>.json, session being the one the
 * record names (runner.session) or else r->session.  Returns 1 with the
 * path relative to DIR in rel, 0 when there is nothing to keep, or a
 * negative NP_E* code when it cannot be moved (then nothing is deleted). */
int np_matrix__rep_keep(const struct np_matrix_rep *r, char *rel,
                        size_t rel_len, struct np_errbuf *eb);

/* Run one repetition end to end: command file, kernel snapshot, spawn,
 * wait (timeout, signals), snapshot, command file with the outcome, and
 * the record: the child's renamed into place (fsync of file and folder),
 * or a failed one written by the runner.  rep-<n>.json appears last, so
 * its presence means the repetition is complete.  When anything fails
 * after the child left a complete record, that record stays in
 * rep-<n>.json.tmp and the one line in eb says so and where.  On
 * interruption the partial files are removed (unless the child had left a
 * complete record: np_matrix__rep_keep takes it on --resume) and NP_EINTR
 * returned.  A child that timed out after writing a complete record gets
 * the runner's failed record and its own is moved to kept/ (end->kept).
 * *end is filled when 0 is returned. */
int np_matrix__rep_run(const struct np_matrix_rep *r,
                       struct np_matrix_outcome *oc,
                       struct np_matrix_rep_end *end, struct np_errbuf *eb);

/* mkdir -p. */
int np_matrix__mkdir_p(const char *path, struct np_errbuf *eb);

/* A new session id (getrandom) into id[NP_MATRIX_SESSION_LEN + 1]. */
int np_matrix__session_new(char *id, struct np_errbuf *eb);

/* 1 when s is exactly NP_MATRIX_SESSION_LEN lowercase hex characters. */
int np_matrix__session_ok(const char *s);

/* The exclusive lock on an output folder (flock on NP_MATRIX_LOCK_FILE,
 * holding "pid N\nsession S\n").  Taken before anything is written; a
 * second runner gets NP_EAGAIN and a line naming the holder's pid.  A lock
 * left by a killed runner is released by the kernel: the stale file is
 * simply taken over. */
struct np_matrix_lock;
int np_matrix__lock_take(const char *dir, const char *session,
                         struct np_matrix_lock **out, struct np_errbuf *eb);
/* Remove the lock file and release the lock; accepts NULL. */
void np_matrix__lock_release(struct np_matrix_lock *l);

/* Progress on stderr (nothing when quiet): a live in-place line while a
 * repetition runs (terminals only), one line per finished repetition, and
 * the end summary. */
struct np_matrix_progress {
  FILE *fp;              /* where lines go (stderr)                        */
  int quiet;             /* --quiet: print nothing                         */
  int tty;               /* fp is a terminal: live line allowed            */
  int live;              /* a live line is on screen (to be overwritten)   */
  size_t total, done;    /* repetitions to run now / finished              */
  double t0;             /* monotonic start                                */
  double est_left;       /* estimated seconds of the remaining runs        */
  double est_done;       /* estimated seconds of the finished runs         */
};

/* "1h02m", "3m05s", "9s". */
void np_matrix__fmt_dur(double s, char *buf, size_t len);

/* One argument as a shell reads it back: as it is when it holds only
 * [A-Za-z0-9_./:=+-,], else in single quotes ('\'' for a quote); the
 * rule of rep-N.cmd.txt's command line (np_matrix_rep.c). */
void np_matrix__fput_arg(FILE *out, const char *arg);

/* `--dry-run` of plan p for the configurations sel marks (np_matrix_dryrun.c):
 * commands, services, shard and estimate on out. */
void np_matrix__dry_run(const struct np_matrix_opts *o,
                        const struct np_matrix_plan *p, const char *binary,
                        const char *sel, FILE *out);

/* The live line for repetition rep of configuration ci of nc. */
void np_matrix__progress_live(struct np_matrix_progress *pg, size_t ci,
                              size_t nc, const struct np_matrix_config *cf,
                              int rep, int reps);

/* The finished repetition's own line. */
void np_matrix__progress_rep(struct np_matrix_progress *pg, size_t ci,
                             size_t nc, const struct np_matrix_config *cf,
                             int rep, int reps,
                             const struct np_matrix_outcome *oc,
                             const struct np_matrix_rep_end *end);

/* Any other line (resume notes), clearing a live line first. */
void np_matrix__progress_note(struct np_matrix_progress *pg, const char *fmt,
                              ...) __attribute__((format(printf, 2, 3)));

/* The end summary: status, wall time, configurations passed / failed /
 * expected-fail / excluded from rankings (from summary, which may be NULL
 * when it could not be computed), where suite.json and summary.json are. */
void np_matrix__progress_summary(struct np_matrix_progress *pg,
                                 const char *suite, const char *status,
                                 const cJSON *summary,
                                 const struct np_matrix_result *res,
                                 const char *out_dir);

/* Stability observations across a suite (BenchExec/pyperf style). */
struct np_matrix_stability;
int np_matrix__stability_new(struct np_matrix_stability **out);
/* Sample load, swap counters and governor now (before a repetition). */
void np_matrix__stability_sample(struct np_matrix_stability *s);
/* {"samples", "cores", "load_max", "load_above_cores", "swap_in_delta",
 *  "swap_out_delta", "governors": [...], "governor_changed", "flags": [..]} */
cJSON *np_matrix__stability_json(const struct np_matrix_stability *s);
void np_matrix__stability_free(struct np_matrix_stability *s);

#endif /* NP_MATRIX_INT_H */
