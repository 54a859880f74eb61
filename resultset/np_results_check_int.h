/*
 * np_results_check_int.h - state shared by the self-check's parts
 * (internal to resultset/; not a public interface).
 *
 * The engine (np_results_check.c) gathers the files of one run, then
 * np_chk__run_check (np_results_check_run.c) checks them and leaves a
 * compact struct np_chk_run; the cross-file checks at the end
 * (np_results_check_suite.c, np_results_check_summary.c,
 * np_results_check_ids.c) see only those, suite.json and summary.json.
 */
#ifndef NP_RESULTS_CHECK_INT_H
#define NP_RESULTS_CHECK_INT_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "np_bench_record.h"
#include "np_kernel.h"
#include "np_matrix_plan.h"
#include "np_results.h"
#include "np_results_selfcheck.h"
#include "np_schema.h"

#define NP_CHK_PATH_MAX 1024
#define NP_CHK_SESSION_LEN 32
#define NP_CHK_NO_TIME INT64_MIN
#define NP_CHK_OTHERS 16 /* other files one repetition may have */

/* The files of one repetition, by suffix. */
enum np_chk_file {
  NP_CHK_CMD,     /* rep-N.cmd.txt           */
  NP_CHK_JSON,    /* rep-N.json              */
  NP_CHK_KAFTER,  /* rep-N.kernel-after.txt  */
  NP_CHK_KBEFORE, /* rep-N.kernel-before.txt */
  NP_CHK_STDERR,  /* rep-N.stderr.txt        */
  NP_CHK_NFILES
};

/* Suffix of each (".cmd.txt", ...). */
extern const char *const np_chk__suffix[NP_CHK_NFILES];

/* One repetition's files as fed (copies, freed after the run's check). */
struct np_chk_cur {
  int active;                  /* a run is being gathered              */
  char stem[NP_CHK_PATH_MAX];  /* "runs/<cid>/rep-<n>"                  */
  char cid[NP_RESULTS_ID_MAX]; /* configuration id                      */
  long rep;                    /* repetition number                     */
  char *data[NP_CHK_NFILES];   /* file contents (NUL-terminated) or NULL */
  size_t len[NP_CHK_NFILES];   /* their lengths                         */
  int tmp_record;              /* rep-N.json.tmp present                */
  int child_tmp;               /* a child's rep-N.json.tmp.tmp.<pid>     */
  struct np_chk_other {        /* any other rep-N.* file (an exec record's
                                  kept output: rep-N.program.stdout.txt) */
    char suffix[64];           /* after the stem                        */
    char *data;                /* contents (NUL-terminated)             */
    size_t len;
    int used;                  /* a record named it                     */
  } other[NP_CHK_OTHERS];
  size_t nother;
  /* the runner's snapshots as cmd.txt refers to them (np_ksnap.h): the
   * text is put into data[NP_CHK_KBEFORE / KAFTER]; kfile names where it
   * came from (kernel-snapshots/<sha256>.txt, or the 0.2 file) */
  int kref[NP_CHK_NFILES];     /* 1: cmd.txt has the reference          */
  char kfile[NP_CHK_NFILES][NP_CHK_PATH_MAX + 32];
};

/* The bytes of the repetition's file at path (a set path beside the
 * record), marked used; NULL when it has no such file. */
const char *np_chk__cur_other(struct np_chk_cur *cur, const char *path,
                              size_t *len);

/* rep-N.cmd.txt, parsed. */
struct np_chk_cmd {
  int ok;                /* the file parsed                               */
  char **argv;           /* the shell-unquoted command (malloc'd)         */
  int argc;              /* entries of argv                               */
  int64_t start, end;    /* started_at / ended_at, ms (NP_CHK_NO_TIME)    */
  int start_whole, end_whole; /* written with whole seconds               */
  double wall;           /* wall_seconds, NAN when absent                 */
  char outcome[128];     /* "exit 0", "signal 9 (KILL)", ...; "" absent   */
};

/* What the end of the check needs of one repetition. */
struct np_chk_run {
  char cid[NP_RESULTS_ID_MAX]; /* configuration id (runs/<cid>/)           */
  long rep;                    /* repetition number                        */
  char file[NP_CHK_PATH_MAX + 8]; /* the record's path in the set          */
  int have_record;             /* the record parsed as a JSON object       */
  int partial;                 /* no record, but other files of the rep    */
  int runner_written;          /* the matrix runner wrote it ("failure")   */
  char status[16];             /* the record's status                      */
  char protocol[16];           /* config.protocol ("udp-external", ...)    */
  int64_t cmd_start, cmd_end;  /* cmd.txt's window (ms, NP_CHK_NO_TIME)    */
  int cmd_whole;               /* cmd.txt times in whole seconds           */
  int64_t rec_start, rec_end;  /* the record's started_at / ended_at       */
  int rec_whole;               /* record times in whole seconds            */
  char session[NP_CHK_SESSION_LEN + 1]; /* runner.session or ""            */
  char *args;          /* the command's options (after the protocol,
                          without --output), '\x1f'-joined; malloc'd     */
  char *rec_args;      /* the record's own config.command, the same way  */
  char *out_prefix;    /* --output's folder before "runs/<cid>/...";
                          malloc'd or NULL                                */
  char *binary;        /* cmd.txt's program path; malloc'd or NULL       */
  char *identity;      /* machine identity fields, '\x1f'-joined; or NULL */
  cJSON *options;      /* runner-written records: config without protocol
                          and command (plan names restored); or NULL     */
  int src_hash, bin_hash; /* interned tool hashes (-1: absent)            */
  int meas_hash;          /* tool.measuring_source_sha256 (-1: absent)    */
  long plan_idx;          /* its configuration in the plan (-1: none)     */
  uint64_t fingerprint;   /* identifies one run's data (copies)           */
  cJSON *entry;           /* its summary.json entry (np_results_summary_rep) */
  double rps;             /* measurement.roundtrips_per_sec, or NAN (a
                             plan's capacity, np_matrix_capacity.h)     */
};

struct np_results_check {
  char label[256];           /* prefix of file names in problems          */
  np_results_problem_fn fn;  /* caller's callback                         */
  void *ctx;                 /* caller's context                          */
  size_t problems;           /* problems reported so far                  */
  struct np_schema *schema_run, *schema_suite, *schema_summary; /* lazily */
  const char *vfile;         /* file being validated (schema callback)    */
  struct np_chk_cur cur;     /* the repetition being gathered             */
  struct np_chk_run *runs;   /* checked repetitions, in feed order        */
  size_t nruns, cap;
  char last[NP_CHK_PATH_MAX]; /* the previous path fed                    */
  cJSON *suite, *summary;    /* parsed (NULL when absent or broken)       */
  int suite_seen, summary_seen; /* present in the set                     */
  char **kept;               /* kept/... record paths                     */
  size_t nkept;
  int lock_seen;             /* .netproof-matrix.lock present             */
  char **hashes;             /* interned tool hashes                      */
  size_t nhashes;
  struct np_chk_snap {       /* kernel-snapshots/<sha256>.txt, as fed     */
    char hex[65];            /* its name's hash                           */
    char *data;              /* its text (NULL: the content does not hash
                                to the name, reported when fed)           */
    size_t len;
    int used;                /* a cmd.txt or a record refers to it        */
  } *snaps;
  size_t nsnaps, capsnaps;
  int finished;              /* finish was called                         */
  int oom;                   /* an allocation failed: finish says so      */
};

/* A record's number as a count: NaN, negative or absent give 0, a value
 * beyond the type its largest value (no undefined conversion on hostile
 * input). */
static inline uint64_t np_chk_u64(double v) {
  return !(v > 0) ? 0 : v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v;
}
static inline int64_t np_chk_i64(double v) {
  return v != v                      ? 0
         : v >= 9223372036854775807.0 ? INT64_MAX
         : v <= -9223372036854775807.0 ? -INT64_MAX
                                       : (int64_t)v;
}

/* Report one problem about file (relative to the set), JSON pointer ptr
 * ("" for the whole file). */
void np_chk__problem(struct np_results_check *c, const char *file,
                     const char *ptr, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Parse data as JSON, check its "schema" tag and validate it (problems
 * reported on file).  Returns the document, or NULL when it does not
 * parse (then reported); *valid is 0 when the tag or the schema failed. */
cJSON *np_chk__json(struct np_results_check *c, const char *file,
                    const char *data, size_t len, const char *tag, int *valid);

/* A timestamp (np_time_parse) in ms, NP_CHK_NO_TIME when s is NULL or
 * not one; *whole = 1 when it has no fraction (sets before 0.2). */
int64_t np_chk__time(const char *s, int *whole);

/* a <= b, allowing the second a whole-second timestamp hides. */
int np_chk__time_le(int64_t a, int a_whole, int64_t b, int b_whole);

/* Compare have (the file's) with want (re-derived) recursively; every
 * difference becomes one problem at base + its pointer, "<have>, but
 * <what> gives <want>" (numbers equal within 1e-9 relative).  Returns the
 * number of differences reported (at most max; then one more line says
 * how many were left out). */
size_t np_chk__diff(struct np_results_check *c, const char *file,
                    const char *base, const cJSON *have, const cJSON *want,
                    const char *what, size_t max);

/* np_chk__diff for a record's config against the one its command gives:
 * fields the record does not hold (added by later versions) and rules in
 * words ("drain_rule", "work_unit": each version's own text) are not
 * compared; every other field is, including any the record adds. */
size_t np_chk__diff_subset(struct np_results_check *c, const char *file,
                           const char *base, const cJSON *have,
                           const cJSON *want, const char *what, size_t max);

/* JSON pointer base + "/" + escaped key into buf. */
void np_chk__ptr(char *buf, size_t len, const char *base, const char *key);

/* Index of the interned copy of s (added when new), -1 for NULL. */
int np_chk__intern(struct np_results_check *c, const char *s);

/* Split a shell-quoted command line (the runner's quoting: plain words
 * and '...' with '\'' for a quote) into *argv (malloc'd array and strings;
 * free with np_chk__argv_free).  0 or NP_EPARSE / NP_ENOMEM. */
int np_chk__shell_split(const char *line, char ***argv, int *argc);
void np_chk__argv_free(char **argv, int argc);

/* Parse rep-N.cmd.txt into *out (out->ok 0 when it has no command line). */
void np_chk__cmd_parse(const char *text, size_t len, struct np_chk_cmd *out);
void np_chk__cmd_free(struct np_chk_cmd *cmd);

/* The checks of one repetition's files into run (np_results_check_run.c). */
void np_chk__run_check(struct np_results_check *c, struct np_chk_cur *cur,
                       struct np_chk_run *run);

/* What the record-level checks of one record share. */
struct np_chk_rec {
  struct np_results_check *c;
  const char *file;          /* the record's path                       */
  const char *stem;          /* "runs/<cid>/rep-<n>"                     */
  const cJSON *doc;          /* the record                              */
  const struct np_kernel *kb, *ka; /* runner's snapshots (NULL: absent)  */
  const char *kb_file, *ka_file; /* the files they were read from         */
  const char *stderr_text;   /* rep-N.stderr.txt or NULL                */
  size_t stderr_len;
  struct np_chk_cur *cur;    /* all the repetition's files              */
};

/* Content-addressed kernel snapshots (np_results_check_snap.c): a file
 * of kernel-snapshots/ fed (its name checked against its SHA-256, its
 * text kept; NP_ENOMEM); the references of the gathered repetition's
 * cmd.txt resolved into cur (a missing or malformed one reported; a 0.2
 * repetition's files kept as they are); at the end, every snapshot no
 * cmd.txt referred to reported; everything freed. */
int np_chk__snap_add(struct np_results_check *c, const char *path,
                    const void *data, size_t len);
void np_chk__snap_resolve(struct np_results_check *c, struct np_chk_cur *cur);
void np_chk__snap_finish(struct np_results_check *c);
/* The snapshot named hex, marked as referred to; NULL when the set has
 * none (its data NULL when its content does not hash to its name). */
const struct np_chk_snap *np_chk__snap_use(struct np_results_check *c,
                                          const char *hex);
void np_chk__snap_free(struct np_results_check *c);

/* The kind's own record checks (np_results_check_kinds.c: the table of
 * hooks keyed by the kind's id, model/np_kind.h); nothing for NULL or a
 * kind without any. */
struct np_kind;
void np_chk__kind_record(const struct np_kind *k, const struct np_chk_rec *r);

/* The record's config.command through its kind's parser into cfg
 * (k->cfg_size bytes; k->parse not NULL): 0 with the argv (free with
 * np_chk__argv_free), or -1 after reporting at /config/command why it is
 * not the command the benchmark ran. */
int np_chk__config_argv(const struct np_chk_rec *r, const struct np_kind *k,
                        void *cfg, char ***argv, int *argc);

/* udp records: counters, legs, percentiles, rates; checks[], status and
 * reasons derived by np_udp_checks; sockets sums; config from the command
 * (np_results_check_udp.c). */
void np_chk__udp_record(const struct np_chk_rec *r);
/* udp and udp-external: the "timeouts" section (0.3.0 on) against the
 * counters and config it derives from; nothing when absent. */
void np_chk__udp_timeouts(const struct np_chk_rec *r);

/* exec records: the kept output beside the record, every metric
 * re-derived from it by np_exec_metric, every bound and check verdict
 * (np_results_check_exec.c). */
void np_chk__exec_record(const struct np_chk_rec *r);

/* udp-external records (udp --connect): attribution and reply kinds add
 * up, check verdicts follow their counts (np_results_check_external.c). */
void np_chk__external_record(const struct np_chk_rec *r);

/* udp-stream records: checks, status and reasons from the stream part by
 * np_udp_stream_checks, loss and drop sums (np_results_check_stream.c). */
void np_chk__stream_record(const struct np_chk_rec *r);

/* Two-host records (udp --agent, np_results_far.h): both machine
 * identities, far kernel deltas, server counters, legs, attribution and
 * clocks; nothing without a far part (np_results_check_far.c). */
void np_chk__far_record(const struct np_chk_rec *r);

/* rudp records: per-round invariants, round and record checks, reasons,
 * relay sums and applied rates, config from the command
 * (np_results_check_rudp.c; relay: np_results_check_relay.c). */
void np_chk__rudp_record(const struct np_chk_rec *r);
/* np_results_check_rudp_fec.c: rounds[].fec.window (--fec window). */
void np_chk__rudp_fec_window(const struct np_chk_rec *r, const cJSON *rd,
                             const char *base);
void np_chk__relay_round(const struct np_chk_rec *r, const cJSON *round,
                         const cJSON *relay_cfg, int i);

/* The record's verdict against the re-derived checks (n of them): its
 * checks[] as np_bench_record_checks writes them, its status by
 * np_bench_status_of with the signal its first reason names, and its
 * reasons[] by np_bench_record_reasons (kind_reasons: the kind's own list,
 * consumed; NULL for one line per failed check)
 * (np_results_check_verdict.c). */
void np_chk__verdict(const struct np_chk_rec *r,
                     const struct np_bench_check *checks, unsigned n,
                     cJSON *kind_reasons);

/* Every line of want[0..n) is a whole line of the record's stderr file;
 * prefix ("netproof-bench udp: ") finds the line shown instead. */
/* 1 when a line of the record's kept stderr starts with prefix and
 * contains sub. */
int np_chk__stderr_has_sub(const struct np_chk_rec *r, const char *prefix,
                           const char *sub);
void np_chk__stderr_lines(const struct np_chk_rec *r, char *const *want,
                          size_t n, const char *prefix);

/* The record's config.command as a malloc'd argv (np_chk__argv_free).
 * 0, NP_EPARSE (not all strings) or NP_ENOMEM. */
int np_chk__record_argv(const cJSON *doc, char ***argv, int *argc);

/* 1 when version v ("0.1.0") is older than ref ("0.2.0"), comparing the
 * dotted numbers in turn; an empty or unreadable v counts as older. */
int np_chk__version_before(const char *v, const char *ref);

/* A phase measured for `measured` s against `configured` s: at least the
 * configured time (unless the record is interrupted), at most 5 % + 0.5 s
 * more; a problem at ptr otherwise. */
void np_chk__phase_seconds(const struct np_chk_rec *r, const char *ptr,
                           double measured, double configured);

/* Kernel evidence of one record: kernel.delta = after - before, the
 * record's snapshots inside the runner's, and the datagrams the record
 * claims covered by the kernel's counts (np_results_check_kernel.c). */
void np_chk__kernel(const struct np_chk_rec *r);

/* Each session's services against its runs: the plan's names, every
 * passed run inside each service's ready_at .. ended_at, none ended by
 * itself in a complete session (np_results_check_services.c).  of[i]:
 * run i's index in suite.json's sessions, or -1. */
void np_chk__services(struct np_results_check *c, const long *of);

/* Cross-file checks at the end (np_results_check_suite.c): fills out. */
void np_chk__suite(struct np_results_check *c,
                   const struct np_matrix_plan *plan,
                   struct np_results_outcome *out);

/* planned[ci]: the repetitions configuration ci of the plan calls for -
 * repetitions, or for an until_stable plan where its rule stops given the
 * runs' records (their entries' round trips/s; the maximum when the
 * records end first) - with a problem for every record past that stop
 * (np_results_check_stable.c).  idx[i]: run i's configuration or -1. */
void np_chk__stable(struct np_results_check *c,
                    const struct np_matrix_plan *plan, const long *idx,
                    size_t *planned);

/* summary.json rebuilt from the runs' entries and compared
 * (np_results_check_summary.c). */
void np_chk__summary(struct np_results_check *c,
                     const struct np_matrix_plan *plan);

/* Duplicated ids, copies, config against the folder's id
 * (np_results_check_ids.c). */
void np_chk__ids(struct np_results_check *c);

/* The fields that name one machine (hostname, cpu_model, logical_cores,
 * mem_total_bytes, kernel_release, os_pretty_name, arch, hypervisor) as
 * "key=value" joined by '\x1f' (malloc'd; NULL on no memory). */
char *np_chk__identity(const cJSON *machine);

/* Every run's plan_idx: the index of its configuration in the plan, or
 * -1 (plan NULL, or not one of its ids). */
void np_chk__plan_index_all(struct np_results_check *c,
                            const struct np_matrix_plan *p);

#endif /* NP_RESULTS_CHECK_INT_H */
