/*
 * np_bench_opt_help.c - the generated `--help` of a benchmark command:
 * usage line, the command's summary, one line per option (its value
 * placeholder, help text, range and unit, [default]) under the section
 * headings, and the exit codes every benchmark shares.  Written from the
 * same table the parser reads, so the help cannot promise what the parser
 * refuses.
 */
#include "np_bench_opt.h"

#include <string.h>

const char *np_bench_opt_metavar(const struct np_bench_opt *o) {
  if (o->metavar != NULL)
    return o->metavar;
  switch (o->type) {
  case NP_BENCH_OPT_UINT:
    return "N";
  case NP_BENCH_OPT_SIZE:
    return "BYTES";
  case NP_BENCH_OPT_NUM:
    return o->unit != NULL && strcmp(o->unit, "s") == 0 ? "S" : "X";
  case NP_BENCH_OPT_CHOICE:
    return "NAME";
  case NP_BENCH_OPT_ADDR:
    return "ADDR";
  case NP_BENCH_OPT_HOSTPORT:
    return "ADDR:PORT";
  case NP_BENCH_OPT_STR:
    return "TEXT";
  case NP_BENCH_OPT_FLAG:
    break;
  }
  return "";
}

/* One line per other spelling of o ("-o FILE   the same as --output"). */
static void alias_lines(const struct np_bench_opt *o, FILE *fp) {
  const char *mv = np_bench_opt_metavar(o);
  for (const char *a = o->alias; a != NULL && *a;) {
    char left[96];
    int l = (int)strcspn(a, " ");
    snprintf(left, sizeof left, "%.*s%s%s", l, a, mv[0] ? " " : "", mv);
    fprintf(fp, "  %-30s the same as %s%s\n", left, np_bench_opt_dashes(o),
            o->name);
    a += l;
    a += strspn(a, " ");
  }
}

static void help_line(const struct np_bench_opt *o, FILE *fp) {
  char left[96], range[256];
  const char *mv = np_bench_opt_metavar(o);
  snprintf(left, sizeof left, "%s%s%s%s", np_bench_opt_dashes(o), o->name,
           mv[0] ? " " : "", mv);
  np_bench_opt_range(o, range, sizeof range);
  fprintf(fp, "  %-30s %s", left, o->help != NULL ? o->help : "");
  if (range[0] != '\0')
    fprintf(fp, " (%s%s%s)", range, o->unit != NULL ? " " : "",
            o->unit != NULL ? o->unit : "");
  if (o->dflt != NULL)
    fprintf(fp, " [%s]", o->dflt);
  fputc('\n', fp);
  alias_lines(o, fp);
}

void np_bench_opt_help_rows(const struct np_bench_optset *s, FILE *fp) {
  for (size_t k = 0; k < s->nsections; k++) {
    const struct np_bench_opt_section *sec = &s->sections[k];
    if (sec->heading != NULL)
      fprintf(fp, "%s\n", sec->heading);
    for (size_t i = 0; i < sec->n; i++)
      if (!(sec->opts[i].flags & NP_BENCH_OPT_HIDDEN))
        help_line(&sec->opts[i], fp);
  }
}

void np_bench_opt_help(const struct np_bench_optset *s, FILE *fp) {
  fprintf(fp, "usage: %s%s%s [options]%s%s\n%s\n",
          s->program != NULL ? s->program : "netproof-bench",
          s->command[0] ? " " : "", s->command,
          s->operands != NULL ? " " : "",
          s->operands != NULL ? s->operands : "",
          s->summary != NULL ? s->summary : "");
  np_bench_opt_help_rows(s, fp);
  fprintf(fp, "\n%s", s->exits != NULL
                          ? s->exits
                          : "exit: 0 passed, 1 a data check failed (record "
                            "written, status failed),\n"
                            "      2 usage, 3 environment/run-time error, "
                            "130/143 interrupted\n");
  fprintf(fp, "See %s.\n", s->doc != NULL ? s->doc : "docs/");
}
