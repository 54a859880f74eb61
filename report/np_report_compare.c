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
#include "np_bench_opt.h"
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
  char metrics[256];     /* --metrics LIST, split at ',' in place     */
  struct np_results_compare_opts o;
};

static const char *label_of(const char *dir) {
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/')
    n--;
  const char *p = dir + n;
  while (p > dir && p[-1] != '/')
    p--;
  return p;
}

/* A number in lo..hi for --alpha / --threshold, in compare's words. */
static int number_arg(const char *name, const char *v, double lo, double hi,
                      int lo_open, double *out, struct np_errbuf *eb) {
  char *end;
  errno = 0;
  double d = strtod(v, &end);
  if (end == v || *end != '\0' || errno != 0 || !isfinite(d) ||
      (lo_open ? d <= lo : d < lo) || d >= hi)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--%s %s: expected a number %s %g and below %g", name,
                         v, lo_open ? "above" : "from", lo, hi);
  *out = d;
  return 0;
}

#define CFG struct cmp_cli

/* The options --check takes from the file: each marks stats_opts. */
static int set_stat(void *sec, const struct np_bench_opt *o,
                    const struct np_bench_val *v, struct np_errbuf *eb) {
  CFG *c = sec;
  double d = 0;
  c->stats_opts = 1;
  if (strcmp(o->name, "alpha") == 0) {
    if (number_arg(o->name, v->text, 0, 1, 1, &d, eb) != 0)
      return NP_EUSAGE;
    c->o.alpha = d;
  } else if (strcmp(o->name, "threshold") == 0) {
    if (number_arg(o->name, v->text, 0, 100, 0, &d, eb) != 0)
      return NP_EUSAGE;
    c->o.threshold = d / 100;
  } else if (strcmp(o->name, "metrics") == 0) {
    /* "a,b" into o.metrics (pointers into c->metrics) */
    if (strlen(v->text) >= sizeof c->metrics)
      return np_errbuf_set(eb, NP_EUSAGE, "--metrics: too long");
    snprintf(c->metrics, sizeof c->metrics, "%s", v->text);
    c->o.nmetrics = 0;
    char *save = NULL;
    for (char *t = strtok_r(c->metrics, ",", &save); t != NULL;
         t = strtok_r(NULL, ",", &save)) {
      if (c->o.nmetrics == NP_COMPARE_MAX_METRICS)
        return np_errbuf_set(eb, NP_EUSAGE, "--metrics: at most %d",
                             NP_COMPARE_MAX_METRICS);
      c->o.metrics[c->o.nmetrics++] = t;
    }
    if (c->o.nmetrics == 0)
      return np_errbuf_set(eb, NP_EUSAGE, "--metrics: empty list");
  } else if (strcmp(o->name, "base-only") == 0) {
    c->o.base_only = v->text;
  } else if (strcmp(o->name, "new-only") == 0) {
    c->o.new_only = v->text;
  } else { /* map */
    snprintf(c->map, sizeof c->map, "%s", v->text);
    char *eq = strchr(c->map, '=');
    if (eq == NULL || eq == c->map)
      return np_errbuf_set(eb, NP_EUSAGE,
                           "--map %s: expected FROM=TO (FROM not empty)",
                           v->text);
    *eq = '\0';
    c->o.map_from = c->map;
    c->o.map_to = eq + 1;
  }
  return 0;
}

/* --base-label / --new-label: not empty. */
static int set_label(void *sec, const struct np_bench_opt *o,
                     const struct np_bench_val *v, struct np_errbuf *eb) {
  CFG *c = sec;
  if (v->text[0] == '\0')
    return np_errbuf_set(eb, NP_EUSAGE, "--%s needs a value", o->name);
  if (strcmp(o->name, "base-label") == 0)
    c->o.base_label = v->text;
  else
    c->o.new_label = v->text;
  return 0;
}

static const char *const format_choices[] = {"md", "html", NULL};

static const struct np_bench_opt compare_opts[] = {
    {.name = "output", .type = NP_BENCH_OPT_STR, .metavar = "DIR",
     .help = "write the comparison (compare.md, .csv, .json, charts) here",
     NP_BENCH_AT(CFG, output)},
    {.name = "check", .type = NP_BENCH_OPT_STR, .metavar = "DIR",
     .help = "rebuild DIR's comparison from the records and compare",
     NP_BENCH_AT(CFG, check)},
    {.name = "alpha", .type = NP_BENCH_OPT_STR, .metavar = "A",
     .help = "significance level after Holm (default 0.05)", .set = set_stat},
    {.name = "threshold", .type = NP_BENCH_OPT_STR, .metavar = "PCT",
     .help = "noise threshold in percent (default 2)", .set = set_stat},
    {.name = "metrics", .type = NP_BENCH_OPT_STR, .metavar = "LIST",
     .help = "comma-separated: roundtrips_per_sec, rtt_p50_us, rtt_p99_us, "
             "cpu_percent (default roundtrips_per_sec,rtt_p99_us)",
     .set = set_stat},
    {.name = "base-only", .type = NP_BENCH_OPT_STR, .metavar = "GLOB",
     .help = "BASE's configuration ids to take", .set = set_stat},
    {.name = "new-only", .type = NP_BENCH_OPT_STR, .metavar = "GLOB",
     .help = "NEW's configuration ids to take", .set = set_stat},
    {.name = "map", .type = NP_BENCH_OPT_STR, .metavar = "FROM=TO",
     .help = "in NEW's ids, FROM reads as TO (compare uv with raw of one "
             "set: --map raw=uv)",
     .set = set_stat},
    {.name = "allow-inconclusive", .type = NP_BENCH_OPT_FLAG,
     .help = "exit 0, not 5, when the gate is inconclusive",
     NP_BENCH_AT(CFG, allow_inconclusive)},
    {.name = "base-label", .type = NP_BENCH_OPT_STR, .metavar = "TEXT",
     .help = "BASE's display name (default: its folder's name)",
     .set = set_label},
    {.name = "new-label", .type = NP_BENCH_OPT_STR, .metavar = "TEXT",
     .help = "NEW's display name (default: its folder's name)",
     .set = set_label},
    {.name = "format", .type = NP_BENCH_OPT_CHOICE, .choices = format_choices,
     .metavar = "md|html", .dflt = "md",
     .refusal = "--format %s: expected md (compare.md, .csv, .json and "
                "charts) or html (those and compare.html)",
     .help = "html: also compare.html, the comparison as one offline page",
     NP_BENCH_AT(CFG, html)},
    {.name = "help", .type = NP_BENCH_OPT_FLAG, .alias = "-h",
     .help = "print the usage and exit", .flags = NP_BENCH_OPT_HELP},
};

static const struct np_bench_opt_section compare_sections[] = {
    {NULL, compare_opts, sizeof compare_opts / sizeof compare_opts[0], 0},
};

static void compare_init(void *cfg) {
  CFG *c = cfg;
  memset(c, 0, sizeof *c);
  np_results_compare_opts_init(&c->o);
  c->o.base_label = c->o.new_label = NULL;
}

const struct np_bench_optset np_report_compare_optset = {
    .program = "netproof-report",
    .command = "compare",
    .operands = "BASE NEW",
    .interleaved = 1,
    .summary = "Compares the result set NEW with BASE configuration by "
               "configuration:\nratio of medians with a 95 % bootstrap "
               "interval, Mann-Whitney U test,\nHolm's correction, a verdict "
               "per metric.  Give --output DIR, or --check DIR.\n",
    .doc = "docs/statistics.md",
    .exits = "exit: 0 no regression (check: clean); 1 a configuration "
             "regresses beyond\n      the threshold, a set fails its "
             "self-check, or (check) DIR differs;\n      2 usage or "
             "unreadable input; 3 run-time error; 5 inconclusive: no\n"
             "      regression, but too few runs a side to have shown one at "
             "alpha\n",
    .sections = compare_sections,
    .nsections = sizeof compare_sections / sizeof compare_sections[0],
    .cfg_size = sizeof(CFG),
    .init = compare_init,
};

/* argv into c: 0, NP_EUSAGE (one line printed) or 1 (--help printed). */
static int parse(struct cmp_cli *c, int argc, char **argv) {
  struct np_errbuf eb = {{0}};
  int help = 0, first = argc;
  if (np_bench_opt_parse_operands(&np_report_compare_optset, argc, argv, c,
                                  &help, &first, &eb) != 0) {
    fprintf(stderr, ME ": %s%s\n", eb.msg,
            strstr(eb.msg, "try --help") ? "" : " (try --help)");
    return NP_EUSAGE;
  }
  if (help) {
    np_bench_opt_help(&np_report_compare_optset, stdout);
    return 1;
  }
  for (int i = first; i < argc; i++) {
    if (c->ndirs == 2) {
      fprintf(stderr, ME ": %s: a third result set (give BASE and NEW) "
                         "(try --help)\n", argv[i]);
      return NP_EUSAGE;
    }
    c->dirs[c->ndirs++] = argv[i];
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
  int prc = parse(&c, argc, argv);
  if (prc != 0) /* one line said why, or --help */
    return prc == 1 ? NP_EXIT_OK : NP_EXIT_USAGE;
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
