/*
 * np_report_compare.c - `netproof-report compare BASE NEW --output DIR`
 * and `... --check DIR`: arguments, the two sets (each must pass its
 * self-check; an incomplete one is compared and said so), the comparison
 * (resultset/np_results_compare.h), its files (np_report_compare_out.c)
 * and the exit code - 1 when a configuration regresses beyond the noise
 * threshold, so the command can gate a CI job; 5 when nothing regresses
 * but the run counts could not have shown a regression (a gate that
 * cannot fail does not pass; --allow-inconclusive makes that 0).
 *
 * --check DIR proves a comparison on file: compare.json is rebuilt from
 * the two sets' records with the options it states and compared field by
 * field, and every other file of DIR must be byte for byte what compare
 * writes from the rebuilt document.
 */
#include "np_report_compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_json.h"
#include "np_opt.h"
#include "np_text.h"
#include "np_report.h"
#include "np_results_compare.h"
#include "np_results_selfcheck.h"

#define ME "netproof-report compare"

struct cmp_cli {
  const char *dirs[2];   /* BASE, NEW folders                         */
  size_t ndirs;
  const char *output;    /* --output DIR                              */
  const char *check;     /* --check DIR                               */
  int html;              /* --format html: compare.html too           */
  int stats_opts;        /* an option that --check takes from the file */
  int allow_inconclusive; /* --allow-inconclusive: that gate exits 0    */
  char map[256];         /* --map FROM=TO, split at '=' in place      */
  struct np_results_compare_opts o;
};

static void usage(FILE *f) {
  fputs("usage: netproof-report compare BASE NEW --output DIR\n"
        "           [--alpha A] [--threshold PCT] [--metrics LIST]\n"
        "           [--base-only GLOB] [--new-only GLOB] [--map FROM=TO]\n"
        "           [--base-label TEXT] [--new-label TEXT] "
        "[--allow-inconclusive] [--format md|html]\n"
        "       netproof-report compare BASE NEW --check DIR\n"
        "Compares the result set NEW with BASE configuration by "
        "configuration:\n"
        "ratio of medians with a 95 % bootstrap interval, Mann-Whitney U "
        "test,\n"
        "Holm's correction, a verdict per metric (docs/statistics.md).\n"
        "  --alpha A        significance level after Holm (default 0.05)\n"
        "  --threshold PCT  noise threshold in percent (default 2)\n"
        "  --metrics LIST   comma-separated: roundtrips_per_sec, "
        "rtt_p50_us,\n"
        "                   rtt_p99_us, cpu_percent (default "
        "roundtrips_per_sec,rtt_p99_us)\n"
        "  --base-only GLOB, --new-only GLOB  configuration ids to take\n"
        "  --map FROM=TO    in NEW's ids, FROM reads as TO (compare uv with "
        "raw\n"
        "                   of one set: --map raw=uv)\n"
        "  --check DIR      rebuild DIR's comparison from the records and "
        "compare\n"
        "  --allow-inconclusive  exit 0, not 5, when the gate is "
        "inconclusive\n"
        "  --format html    also compare.html, the comparison as one offline "
        "page\n"
        "exit: 0 no regression (check: clean); 1 a configuration regresses "
        "beyond\n"
        "      the threshold, a set fails its self-check, or (check) DIR "
        "differs;\n"
        "      2 usage or unreadable input; 3 run-time error; 5 inconclusive: "
        "no\n"
        "      regression, but too few runs a side to have shown one at "
        "alpha\n",
        f);
}

static const char *label_of(const char *dir) {
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/')
    n--;
  const char *p = dir + n;
  while (p > dir && p[-1] != '/')
    p--;
  return p;
}

static int number_arg(const char *name, const char *v, double lo, double hi,
                      int lo_open, double *out) {
  char *end;
  errno = 0;
  double d = strtod(v, &end);
  if (end == v || *end != '\0' || errno != 0 || !isfinite(d) ||
      (lo_open ? d <= lo : d < lo) || d >= hi) {
    fprintf(stderr, ME ": %s %s: expected a number %s %g and below %g\n",
            name, v, lo_open ? "above" : "from", lo, hi);
    return NP_EUSAGE;
  }
  *out = d;
  return 0;
}

/* "a,b" into o->metrics (pointers into s, which is modified). */
static int metrics_arg(struct cmp_cli *c, char *s) {
  for (char *t = strtok(s, ","); t != NULL; t = strtok(NULL, ",")) {
    if (c->o.nmetrics == NP_COMPARE_MAX_METRICS) {
      fprintf(stderr, ME ": --metrics: at most %d\n", NP_COMPARE_MAX_METRICS);
      return NP_EUSAGE;
    }
    c->o.metrics[c->o.nmetrics++] = t;
  }
  if (c->o.nmetrics == 0) {
    fprintf(stderr, ME ": --metrics: empty list\n");
    return NP_EUSAGE;
  }
  return 0;
}

static int parse(struct cmp_cli *c, int argc, char **argv) {
  np_results_compare_opts_init(&c->o);
  c->o.base_label = c->o.new_label = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int has = i + 1 < argc;
    double d;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      exit(NP_EXIT_OK);
    } else if (strcmp(a, "--output") == 0 && has) {
      c->output = argv[++i];
    } else if (strcmp(a, "--check") == 0 && has) {
      c->check = argv[++i];
    } else if (strcmp(a, "--alpha") == 0 && has) {
      if (number_arg(a, argv[++i], 0, 1, 1, &d) != 0)
        return NP_EUSAGE;
      c->o.alpha = d;
      c->stats_opts = 1;
    } else if (strcmp(a, "--threshold") == 0 && has) {
      if (number_arg(a, argv[++i], 0, 100, 0, &d) != 0)
        return NP_EUSAGE;
      c->o.threshold = d / 100;
      c->stats_opts = 1;
    } else if (strcmp(a, "--metrics") == 0 && has) {
      if (metrics_arg(c, argv[++i]) != 0)
        return NP_EUSAGE;
      c->stats_opts = 1;
    } else if (strcmp(a, "--base-only") == 0 && has) {
      c->o.base_only = argv[++i];
      c->stats_opts = 1;
    } else if (strcmp(a, "--new-only") == 0 && has) {
      c->o.new_only = argv[++i];
      c->stats_opts = 1;
    } else if (strcmp(a, "--map") == 0 && has) {
      snprintf(c->map, sizeof c->map, "%s", argv[++i]);
      char *eq = strchr(c->map, '=');
      if (eq == NULL || eq == c->map) {
        fprintf(stderr, ME ": --map %s: expected FROM=TO (FROM not empty)\n",
                argv[i]);
        return NP_EUSAGE;
      }
      *eq = '\0';
      c->o.map_from = c->map;
      c->o.map_to = eq + 1;
      c->stats_opts = 1;
    } else if (strcmp(a, "--format") == 0 && has) {
      const char *v = argv[++i];
      if (strcmp(v, "html") != 0 && strcmp(v, "md") != 0) {
        fprintf(stderr, ME ": --format %s: expected md (compare.md, .csv, "
                           ".json and charts) or html (those and "
                           "compare.html)\n", v);
        return NP_EUSAGE;
      }
      c->html = strcmp(v, "html") == 0;
    } else if (strcmp(a, "--allow-inconclusive") == 0) {
      c->allow_inconclusive = 1;
    } else if (strcmp(a, "--base-label") == 0 && has && argv[i + 1][0]) {
      c->o.base_label = argv[++i];
    } else if (strcmp(a, "--new-label") == 0 && has && argv[i + 1][0]) {
      c->o.new_label = argv[++i];
    } else if (a[0] != '-' && c->ndirs < 2) {
      c->dirs[c->ndirs++] = a;
    } else {
      static const char *const opts[] = {
          "--output", "--check", "--alpha", "--threshold", "--metrics",
          "--base-only", "--new-only", "--map", "--allow-inconclusive",
          "--base-label", "--new-label", "--format", "--help"};
      struct np_errbuf eb = {{0}};
      int known = 0;
      for (size_t k = 0; k < sizeof opts / sizeof *opts; k++)
        known |= strcmp(a, opts[k]) == 0;
      if (a[0] != '-')
        fprintf(stderr, ME ": %s: a third result set (give BASE and NEW) "
                           "(try --help)\n", a);
      else if (known)
        fprintf(stderr, ME ": %s needs a value (try --help)\n", a);
      else if (np_opt_unknown(&eb, "option", a, opts,
                              sizeof opts / sizeof *opts) != 0)
        fprintf(stderr, ME ": %s\n", eb.msg);
      return NP_EUSAGE;
    }
  }
  if (c->ndirs != 2) {
    fprintf(stderr, ME ": give two result sets, BASE and NEW (try --help)\n");
    return NP_EUSAGE;
  }
  if ((c->output == NULL) == (c->check == NULL)) {
    fprintf(stderr, ME ": give one of --output DIR and --check DIR (try "
                       "--help)\n");
    return NP_EUSAGE;
  }
  if (c->check && c->stats_opts) {
    fprintf(stderr, ME ": --check takes its options from the comparison's "
                    "compare.json; give none\n");
    return NP_EUSAGE;
  }
  if (c->o.base_label == NULL)
    c->o.base_label = label_of(c->dirs[0]);
  if (c->o.new_label == NULL)
    c->o.new_label = label_of(c->dirs[1]);
  return 0;
}

static void print_problem(void *ctx, const char *file, const char *pointer,
                          const char *reason) {
  size_t *n = ctx;
  if (n != NULL)
    (*n)++;
  /* names and labels from the sets: escaped, never acting on a terminal */
  np_text_printf(stdout, "%s: %s: %s\n", file, pointer[0] ? pointer : "/",
                 reason);
}

/* Load dir and self-check it: 0, or the exit code (1: problems). */
static int load_set(const char *dir, struct np_results_set **out) {
  struct np_ftree *t = NULL;
  struct np_errbuf eb = {{0}};
  const char *label = label_of(dir);
  int rc = np_ftree_load_dir(dir, 0, &t, &eb);
  if (rc == 0)
    rc = np_results_load(t, label, out, &eb);
  if (rc != 0) {
    np_ftree_free(t);
    fprintf(stderr, ME ": %s\n", eb.msg);
    return rc == NP_ENOMEM ? NP_EXIT_RUNTIME : NP_EXIT_USAGE;
  }
  size_t problems = 0;
  struct np_results_outcome oc;
  rc = np_results_check_tree(t, label, print_problem, &problems, &oc);
  np_ftree_free(t);
  fflush(stdout);
  if (rc == NP_ECHECK) {
    np_text_printf(stderr, ME ": %s: self-check found %zu %s; not comparing "
                           "it\n", label, problems,
                   problems == 1 ? "problem" : "problems");
    return NP_EXIT_FAIL;
  }
  if (rc == NP_EINCOMPLETE)
    fprintf(stderr, ME ": %s: %s (compared as it is)\n", label, oc.note);
  else if (rc != 0) {
    fprintf(stderr, ME ": %s: self-check: %s\n", label, np_strerror(rc));
    return NP_EXIT_RUNTIME;
  }
  return 0;
}

/* The gate first, one line per metric on stderr, and the differences in
 * conditions. */
static void say(const cJSON *doc) {
  const cJSON *x, *tot = cJSON_GetObjectItemCaseSensitive(doc, "totals");
  const char *gate = np_json_get_string(doc, "gate", "?");
  if (strcmp(gate, "inconclusive") == 0)
    fprintf(stderr, ME ": gate inconclusive: no regression, but these run "
                    "counts could not have shown one\n");
  cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(doc,
                                                         "gate_inconclusive"))
    fprintf(stderr, ME ": inconclusive: %s\n", cJSON_GetStringValue(x));
  cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(doc, "differences"))
    fprintf(stderr, ME ": not the same conditions: %s\n",
            cJSON_GetStringValue(x));
  fprintf(stderr, ME ": %.0f configurations compared",
          np_json_get_number(tot, "compared", 0));
  cJSON_ArrayForEach(x, np_json_pointer(doc, "/options/metrics")) {
    const struct np_results_compare_metric *mt =
        np_results_compare_metric_find(cJSON_GetStringValue(x));
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(tot, mt ? mt->name
                                                             : "");
    if (mt != NULL)
      fprintf(stderr, "; %s: %.0f %s, %.0f %s, %.0f no significant change",
              mt->name, np_json_get_number(t, mt->better, 0), mt->better,
              np_json_get_number(t, mt->worse, 0), mt->worse,
              np_json_get_number(t, "no significant change", 0));
    if (mt != NULL && np_json_get_number(t, "inconclusive", 0) > 0)
      fprintf(stderr, ", %.0f inconclusive",
              np_json_get_number(t, "inconclusive", 0));
  }
  fprintf(stderr, "; gate %s\n", gate);
}

/* Every file of DIR against the rendered tree t (compare.json only when
 * its fields agreed: otherwise its lines were printed already). */
static size_t check_files(const char *dir, const struct np_ftree *t,
                          int json_ok) {
  struct np_ftree *have = NULL;
  struct np_errbuf eb = {{0}};
  size_t bad = 0;
  const char *label = label_of(dir);
  if (np_ftree_load_dir(dir, 0, &have, &eb) != 0) {
    printf("%s: /: %s\n", label, eb.msg);
    return 1;
  }
  for (size_t i = 0; i < np_ftree_count(t); i++) {
    const char *p = np_ftree_path_at(t, i);
    size_t wl, hl;
    const char *w = np_ftree_get(t, p, &wl), *h = np_ftree_get(have, p, &hl);
    if (strcmp(p, "compare.json") == 0 && !json_ok)
      continue;
    if (h == NULL)
      printf("%s/%s: /: missing (compare writes it)\n", label, p), bad++;
    else if (hl != wl || memcmp(h, w, wl) != 0)
      printf("%s/%s: /: differs from what compare writes for these sets\n",
             label, p), bad++;
  }
  for (size_t i = 0; i < np_ftree_count(have); i++) {
    const char *p = np_ftree_path_at(have, i);
    if (np_ftree_get(t, p, NULL) == NULL)
      printf("%s/%s: /: not a file compare writes for these sets\n", label,
             p), bad++;
  }
  np_ftree_free(have);
  return bad;
}

static int run_check(const struct cmp_cli *c, struct np_results_set *const *s) {
  char path[4096], file[512];
  cJSON *doc = NULL, *want = NULL;
  struct np_ftree *t = NULL;
  struct np_errbuf eb = {{0}};
  snprintf(path, sizeof path, "%s/compare.json", c->check);
  snprintf(file, sizeof file, "%s/compare.json", label_of(c->check));
  if (np_json_load_file(path, NULL, &doc, &eb) != 0) {
    fprintf(stderr, ME ": %s\n", eb.msg);
    return NP_EXIT_USAGE;
  }
  size_t problems = 0;
  int rc = np_results_check_compare(doc, file, s[0], s[1], print_problem,
                                    &problems, &want);
  cJSON_Delete(doc);
  if (rc == NP_ENOMEM) {
    fprintf(stderr, ME ": %s\n", np_strerror(rc));
    return NP_EXIT_RUNTIME;
  }
  char html[4096];
  snprintf(html, sizeof html, "%s/compare.html", c->check);
  FILE *hf = fopen(html, "rb"); /* a page there is rebuilt and held too */
  int with_html = hf != NULL;
  if (hf)
    fclose(hf);
  if (want != NULL && (np_report_compare_render(want, &t, &eb) != 0 ||
                       (with_html && np_report_compare_html(want, t, &eb)))) {
    cJSON_Delete(want);
    fprintf(stderr, ME ": %s\n", eb.msg);
    return NP_EXIT_RUNTIME;
  }
  if (t != NULL)
    problems += check_files(c->check, t, rc == 0);
  np_ftree_free(t);
  cJSON_Delete(want);
  fflush(stdout);
  fprintf(stderr, ME ": check of %s: %s\n", label_of(c->check),
          problems ? "found problems" : "clean");
  return problems ? NP_EXIT_FAIL : NP_EXIT_OK;
}

int np_report_compare_cli(int argc, char **argv) {
  struct cmp_cli c;
  memset(&c, 0, sizeof c);
  if (parse(&c, argc, argv) != 0) /* one line said why */
    return NP_EXIT_USAGE;
  struct np_results_set *s[2] = {NULL, NULL};
  cJSON *doc = NULL;
  struct np_ftree *t = NULL;
  struct np_errbuf eb = {{0}};
  int code = 0, rc;
  for (int i = 0; i < 2 && code == 0; i++)
    code = load_set(c.dirs[i], &s[i]);
  if (code != 0)
    goto free_sets;
  if (c.check != NULL) {
    code = run_check(&c, s);
    goto free_sets;
  }
  rc = np_results_compare(s[0], s[1], &c.o, &doc, &eb);
  if (rc == 0)
    rc = np_report_compare_render(doc, &t, &eb);
  if (rc == 0 && c.html)
    rc = np_report_compare_html(doc, t, &eb);
  if (rc == 0)
    rc = np_report_write_tree(t, c.output, &eb);
  if (rc != 0) {
    fprintf(stderr, ME ": %s\n", eb.msg[0] ? eb.msg : np_strerror(rc));
    code = rc == NP_EINVAL ? NP_EXIT_USAGE : NP_EXIT_RUNTIME;
  } else {
    say(doc);
    fprintf(stderr, ME ": wrote %zu files to %s\n", np_ftree_count(t),
            c.output);
    const char *gate = np_json_get_string(doc, "gate", "");
    code = strcmp(gate, "fail") == 0 ? NP_EXIT_FAIL
           : strcmp(gate, "inconclusive") == 0 && !c.allow_inconclusive
               ? NP_EXIT_INCONCLUSIVE
               : NP_EXIT_OK;
  }
free_sets:
  np_ftree_free(t);
  cJSON_Delete(doc);
  np_results_free(s[0]);
  np_results_free(s[1]);
  return code;
}
