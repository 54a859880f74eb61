/*
 * np_matrix_dryrun.c - `matrix --dry-run`: every selected configuration's
 * command line shell-quoted as rep-N.cmd.txt has it (so it can be
 * pasted), the services, the shard and the estimated time, in words.
 */
#include <stdio.h>

#include "np_matrix.h"
#include "np_matrix_int.h"
#include "np_matrix_services.h"

/* "5 repetitions" or "5-20 repetitions (until ...)" for the dry run. */
static void reps_text(const struct np_matrix_plan *p, char *buf, size_t len) {
  if (p->until_stable)
    snprintf(buf, len,
             "%d-%d repetitions (until the 95 %% interval of the median "
             "round trips/s is within %g %% of it)",
             p->min_repetitions, p->repetitions, p->stable_ci_percent);
  else
    snprintf(buf, len, "%d repetition%s", p->repetitions,
             p->repetitions == 1 ? "" : "s");
}

/* "9 s", "3 min 43 s", "1 h 02 min": said once, in words. */
static void words_dur(double s, char *d, size_t len) {
  long t = (long)(s + 0.5);
  if (t >= 3600)
    snprintf(d, len, "%ld h %02ld min", t / 3600, t / 60 % 60);
  else if (t >= 60)
    snprintf(d, len, "%ld min %02ld s", t / 60, t % 60);
  else
    snprintf(d, len, "%ld s", t);
}

void np_matrix__dry_run(const struct np_matrix_opts *o,
                        const struct np_matrix_plan *p, const char *binary,
                        const char *sel, FILE *out) {
  double est = 0, est_min = 0;
  size_t n = 0;
  for (size_t i = 0; i < p->nconfigs; i++) {
    if (!sel[i])
      continue;
    const struct np_matrix_config *cf = &p->configs[i];
    n++;
    est += cf->est_seconds * p->repetitions;
    est_min += cf->est_seconds * (p->until_stable ? p->min_repetitions
                                                  : p->repetitions);
    /* shell-quoted, as rep-N.cmd.txt has it: the line can be pasted */
    char path[NP_MATRIX_PATH_MAX];
    fprintf(out, "%s%s\n  ", cf->id,
            cf->expect_fail ? "  (expect: fail)" : "");
    np_matrix__fput_arg(out, binary);
    fprintf(out, " %s", p->protocol);
    for (size_t a = 0; a < cf->argc; a++) {
      fputc(' ', out);
      np_matrix__fput_arg(out, cf->argv[a]);
    }
    snprintf(path, sizeof path, "%s/runs/%s/rep-N.json.tmp",
             o->out_dir ? o->out_dir : "DIR", cf->id);
    fputs(" --output ", out);
    np_matrix__fput_arg(out, path);
    if (cf->ntail > 0) {
      snprintf(path, sizeof path, "%s/runs/%s/rep-N.program",
               o->out_dir ? o->out_dir : "DIR", cf->id);
      fputs(" --keep ", out);
      np_matrix__fput_arg(out, path);
    }
    for (size_t a = 0; a < cf->ntail; a++) {
      fputc(' ', out);
      np_matrix__fput_arg(out, cf->tail[a]);
    }
    fputc('\n', out);
  }
  np_matrix_services_describe(p, binary, out);
  if (o->shard_count) {
    double all = 0;
    for (size_t i = 0; i < p->nconfigs; i++)
      all += p->configs[i].est_seconds * p->repetitions;
    fprintf(out, "shard %u/%u: %zu of the plan's %zu configurations, "
            "estimated %.0f s of %.0f s\n",
            o->shard_index, o->shard_count, n, p->nconfigs, est, all);
  }
  char d[48], dmin[48], reps[160];
  words_dur(est, d, sizeof d);
  words_dur(est_min, dmin, sizeof dmin);
  reps_text(p, reps, sizeof reps);
  size_t runs = n * (size_t)p->repetitions;
  if (p->until_stable)
    fprintf(out,
            "suite %s: %zu configuration%s x %s = %zu to %zu runs, "
            "estimated %s to %s\nplan sha256 %s\n",
            p->suite, n, n == 1 ? "" : "s", reps,
            n * (size_t)p->min_repetitions, runs, dmin, d, p->hash);
  else
    fprintf(out,
            "suite %s: %zu configuration%s x %s = %zu run%s, estimated "
            "%s\nplan sha256 %s\n",
            p->suite, n, n == 1 ? "" : "s", reps, runs, runs == 1 ? "" : "s",
            d, p->hash);
}

