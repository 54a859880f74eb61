/*
 * np_matrix_progress.c - what the runner tells a person while a suite runs.
 *
 * Each repetition gets its own line when it ends, naming its own
 * configuration and result ("[3/12] udp-p1024-c16-w1-single-uv rep 2/3:
 * passed, 139,328 round trips/s, 1.07 s" or "...: failed: <first
 * reason>"), so a log never pairs one run's number with another's name.
 * Only on a terminal does a live line show the running repetition, the
 * elapsed time and an estimate of what is left, rewritten in place and
 * replaced by the repetition's own line.  The end summary counts the
 * configurations from summary.json (the same numbers the report shows),
 * shows each configuration's headline in a table (runs passed, median
 * round trips/s or an exec suite's first metric, median p99), says where
 * suite.json and summary.json are, and gives the report command to run
 * next.  --quiet prints none of it.
 */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "np_json.h"
#include "np_matrix_int.h"
#include "np_time.h"

void np_matrix__fmt_dur(double s, char *buf, size_t len) {
  long t = s < 0 ? 0 : (long)(s + 0.5);
  if (t >= 3600)
    snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
  else if (t >= 60)
    snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
  else
    snprintf(buf, len, "%lds", t);
}

/* 139328.4 -> "139,328". */
static void fmt_count(double v, char *buf, size_t len) {
  char digits[32];
  snprintf(digits, sizeof digits, "%.0f", isfinite(v) && v >= 0 ? v : 0);
  size_t n = strlen(digits), w = 0;
  for (size_t i = 0; i < n && w + 2 < len; i++) {
    if (i > 0 && (n - i) % 3 == 0)
      buf[w++] = ',';
    buf[w++] = digits[i];
  }
  buf[w] = '\0';
}

/* Clear a live line before printing a whole one. */
static void clear_live(struct np_matrix_progress *pg) {
  if (pg->live)
    fputs("\r\033[K", pg->fp);
  pg->live = 0;
}

void np_matrix__progress_live(struct np_matrix_progress *pg, size_t ci,
                              size_t nc, const struct np_matrix_config *cf,
                              int rep, int reps) {
  if (pg->quiet || !pg->tty)
    return;
  char el[32], eta[32];
  double elapsed = np_time_mono_s() - pg->t0;
  double ratio = pg->est_done > 0 ? elapsed / pg->est_done : 1;
  np_matrix__fmt_dur(elapsed, el, sizeof el);
  np_matrix__fmt_dur(pg->est_left * ratio, eta, sizeof eta);
  fprintf(pg->fp, "\r\033[K[%zu/%zu] %s rep %d/%d running  elapsed %s  eta %s",
          ci, nc, cf->id, rep, reps, el, eta);
  pg->live = 1;
  fflush(pg->fp);
}

void np_matrix__progress_rep(struct np_matrix_progress *pg, size_t ci,
                             size_t nc, const struct np_matrix_config *cf,
                             int rep, int reps,
                             const struct np_matrix_outcome *oc,
                             const struct np_matrix_rep_end *end) {
  if (pg->quiet)
    return;
  clear_live(pg);
  fprintf(pg->fp, "[%zu/%zu] %s rep %d/%d: ", ci, nc, cf->id, rep, reps);
  if (strcmp(end->status, "passed") == 0) {
    fputs(cf->expect_fail ? "passed (expected to fail)" : "passed", pg->fp);
    if (end->headline >= 0) {
      char rt[48];
      fmt_count(end->headline, rt, sizeof rt);
      fprintf(pg->fp, ", %s round trips/s", rt);
    }
    fprintf(pg->fp, ", %.2f s\n", oc->wall);
  } else {
    fprintf(pg->fp, "%s%s%s%s\n", end->status,
            cf->expect_fail && strcmp(end->status, "failed") == 0
                ? " as expected"
                : "",
            end->reason[0] ? ": " : "", end->reason);
  }
  fflush(pg->fp);
}

void np_matrix__progress_note(struct np_matrix_progress *pg, const char *fmt,
                              ...) {
  if (pg->quiet)
    return;
  clear_live(pg);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(pg->fp, fmt, ap);
  va_end(ap);
  fputc('\n', pg->fp);
  fflush(pg->fp);
}

static const char *plural(double n, const char *one, const char *many) {
  return n == 1 ? one : many;
}

#define END_ROWS_MAX 40 /* table rows; the rest are counted, not shown */
#define END_ID_MAX 48   /* configuration column width at most        */

/* A configuration's headline: the median round trips/s, else (an exec
 * suite) the median of its first metric, named in what.  0 when none. */
static int headline(const cJSON *cf, char *what, size_t wlen, double *v) {
  const cJSON *stats = cJSON_GetObjectItemCaseSensitive(cf, "stats"), *s;
  const cJSON *m = np_json_pointer(stats, "/roundtrips_per_sec/median");
  if (cJSON_IsNumber(m)) {
    snprintf(what, wlen, "rt/s");
    *v = m->valuedouble;
    return 1;
  }
  cJSON_ArrayForEach(s, stats) {
    m = cJSON_GetObjectItemCaseSensitive(s, "median");
    if (s->string != NULL && strncmp(s->string, "exec.", 5) == 0 &&
        cJSON_IsNumber(m)) {
      snprintf(what, wlen, "%s", s->string + 5);
      *v = m->valuedouble;
      return 1;
    }
  }
  return 0;
}

/* 79575.2 -> "79,575"; 0.1311 -> "0.131" (3 significant digits). */
static void fmt_value(double v, char *buf, size_t len) {
  if (fabs(v) >= 100)
    fmt_count(v, buf, len);
  else
    snprintf(buf, len, "%.3g", v);
}

/* The end table: one row per configuration of summary.json. */
static void end_table(struct np_matrix_progress *pg, const cJSON *summary) {
  const cJSON *cfs = cJSON_GetObjectItemCaseSensitive(summary, "configurations");
  const cJSON *cf;
  int w = (int)strlen("configuration"), n = cJSON_GetArraySize(cfs), k = 0;
  if (n == 0)
    return;
  cJSON_ArrayForEach(cf, cfs) {
    int l = (int)strlen(np_json_get_string(cf, "id", "?"));
    w = l > w ? (l > END_ID_MAX ? END_ID_MAX : l) : w;
  }
  /* "μ" is two bytes and one column: its field is one byte wider */
  fprintf(pg->fp, "  %-*s  %5s  %-18s  %17s  %11s\n", w, "configuration",
          "runs", "status", "headline (median)", "p99 RTT/μs");
  cJSON_ArrayForEach(cf, cfs) {
    if (k++ == END_ROWS_MAX) {
      fprintf(pg->fp, "  ... %d more %s in summary.json\n", n - END_ROWS_MAX,
              plural(n - END_ROWS_MAX, "configuration", "configurations"));
      break;
    }
    char runs[32], status[40], head[96] = "-", p99[32] = "-", what[40], num[40];
    double v;
    snprintf(runs, sizeof runs, "%.0f/%.0f",
             np_json_get_number(cf, "repetitions_passed", 0),
             np_json_get_number(cf, "repetitions_done", 0));
    const char *st = np_json_get_string(cf, "status", "?");
    /* figures only where the report ranks them: a configuration with a
     * failed or missing run is excluded, whatever its medians */
    int ranked = strcmp(st, "passed") == 0 || strcmp(st, "unexpected-pass") == 0;
    snprintf(status, sizeof status, "%s%s",
             strcmp(st, "confirmed") == 0 ? "failed as expected" : st,
             ranked && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
                           cf, "unstable"))
                 ? ", unstable" : "");
    if (!ranked) {
      snprintf(head, sizeof head, "excluded");
    } else if (headline(cf, what, sizeof what, &v)) {
      fmt_value(v, num, sizeof num);
      snprintf(head, sizeof head, "%s %s", num, what);
    }
    const cJSON *q = np_json_pointer(cf, "/stats/rtt_p99_us/median");
    if (ranked && cJSON_IsNumber(q))
      snprintf(p99, sizeof p99, "%.2f", q->valuedouble);
    fprintf(pg->fp, "  %-*.*s  %5s  %-18s  %17s  %10s\n", w, END_ID_MAX,
            np_json_get_string(cf, "id", "?"), runs, status, head, p99);
  }
}

/* Configurations listed under rankings[].excluded. */
static int excluded_count(const cJSON *summary) {
  int n = 0;
  const cJSON *g;
  cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(summary, "rankings"))
    n += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(g, "excluded"));
  return n;
}

void np_matrix__progress_summary(struct np_matrix_progress *pg,
                                 const char *suite, const char *status,
                                 const cJSON *summary,
                                 const struct np_matrix_result *res,
                                 const char *out_dir) {
  if (pg->quiet)
    return;
  clear_live(pg);
  char wall[32];
  if (res->wall < 60)
    snprintf(wall, sizeof wall, "%.1f s", res->wall);
  else
    np_matrix__fmt_dur(res->wall, wall, sizeof wall);
  fprintf(pg->fp,
          "netproof-bench matrix: suite %s %s after %s: %zu %s run "
          "(%zu passed), %zu kept from before\n",
          suite, status, wall, res->reps_run,
          plural((double)res->reps_run, "repetition", "repetitions"),
          res->reps_passed, res->reps_kept);
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(summary, "totals");
  if (t != NULL) {
    double unexp = np_json_get_number(t, "unexpected-pass", 0);
    double incomplete = np_json_get_number(t, "incomplete", 0);
    fprintf(pg->fp,
            "  configurations: %.0f passed, %.0f failed, %.0f expected-fail, "
            "%d excluded from rankings",
            np_json_get_number(t, "passed", 0),
            np_json_get_number(t, "failed", 0),
            np_json_get_number(t, "confirmed", 0), excluded_count(summary));
    if (unexp > 0)
      fprintf(pg->fp, ", %.0f passed against expectation", unexp);
    if (incomplete > 0)
      fprintf(pg->fp, ", %.0f incomplete", incomplete);
    fprintf(pg->fp, " (of %.0f)\n", np_json_get_number(t, "configurations", 0));
  }
  if (summary != NULL)
    end_table(pg, summary);
  size_t n = strlen(out_dir); /* "out/" is "out" */
  while (n > 1 && out_dir[n - 1] == '/')
    n--;
  fprintf(pg->fp, "  suite:   %.*s/suite.json\n", (int)n, out_dir);
  if (summary != NULL) {
    fprintf(pg->fp, "  summary: %.*s/summary.json\n", (int)n, out_dir);
    fprintf(pg->fp, "  next:    netproof-report --results %.*s --output "
            "%.*s-report\n", (int)n, out_dir, (int)n, out_dir);
  } else {
    fprintf(pg->fp, "  summary: not written\n");
  }
  fflush(pg->fp);
}
