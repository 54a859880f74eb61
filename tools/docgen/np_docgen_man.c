/*
 * np_docgen_man.c - man page templates expanded into scdoc (markers in
 * man/README.md).  The OPTIONS of a table command are written row by row
 * from its option table - placeholder, help, range or choices, unit,
 * default, in the table's order and sections - the same rows --help
 * prints, so the two cannot disagree.  Every netproof-bench command gets
 * a page: its own template, else the generic one.
 */
#include "np_docgen.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#define PAGE_SUFFIX ".1.scd"
#define GENERIC_TEMPLATE "netproof-bench-command.1.scd.in"
#define BENCH_PAGE_PREFIX "netproof-bench-"
#define MAX_INCLUDE_DEPTH 4
#define MAX_PAGES 64

/* What one template is expanded with. */
struct expand {
  const char *page;                   /* the page's name                 */
  const char *tmpl_dir;               /* man/                            */
  const char *tmpl;                   /* template file name, for messages */
  const struct np_bench_command *cmd; /* the page's command, or NULL     */
  FILE *out;                          /* the expanded text               */
  struct np_errbuf *eb;
  int depth;                          /* @include nesting                */
};

static int expand_text(struct expand *x, const char *text);

/* text with newlines as spaces and no trailing blank, escaped. */
static void paragraph(FILE *fp, const char *text) {
  size_t n = strlen(text);
  while (n > 0 && isspace((unsigned char)text[n - 1]))
    n--;
  char *p = strndup(text, n);
  if (p == NULL)
    return;
  for (char *q = p; *q; q++)
    if (*q == '\n')
      *q = ' ';
  np_docgen_escape(fp, p);
  free(p);
}

/* A term line: "*--name* _MV_" (spelling: dashes and name, or an alias). */
static void term(FILE *fp, const char *spelling, const char *mv) {
  fputc('*', fp);
  np_docgen_escape(fp, spelling);
  fputc('*', fp);
  if (mv[0] != '\0') {
    fputs(" _", fp);
    np_docgen_escape(fp, mv);
    fputc('_', fp);
  }
  fputs("\n\t", fp);
}

/* One option row: term line, then its indented description; then a term
 * per other spelling ("The same as *--output*."). */
static void option_row(FILE *fp, const struct np_bench_opt *o) {
  const char *mv = np_bench_opt_metavar(o);
  char spelling[80];
  snprintf(spelling, sizeof spelling, "%s%s", np_bench_opt_dashes(o),
           o->name);
  term(fp, spelling, mv);
  const char *help = o->help != NULL ? o->help : "";
  if (help[0] != '\0') {
    char first[2] = {(char)toupper((unsigned char)help[0]), '\0'};
    if (strchr("-.#|:[;", first[0]) != NULL)
      fputc('\\', fp);
    np_docgen_escape(fp, first);
    np_docgen_escape(fp, help + 1);
    if (help[strlen(help) - 1] != '.')
      fputc('.', fp);
  }
  if (o->type == NP_BENCH_OPT_CHOICE) {
    fputs(" One of:", fp);
    for (size_t k = 0, w = 0; o->choices[k] != NULL; k++) {
      if (!np_bench_opt_offers(o, k))
        continue;
      fprintf(fp, "%s *", w++ ? "," : "");
      np_docgen_escape(fp, o->choices[k]);
      fputc('*', fp);
    }
    fputc('.', fp);
  } else {
    char range[256];
    np_bench_opt_range(o, range, sizeof range);
    if (range[0] != '\0') {
      fputs(" Range: ", fp);
      np_docgen_escape(fp, range);
      if (o->unit != NULL) {
        fputc(' ', fp);
        np_docgen_escape(fp, o->unit);
      }
      fputc('.', fp);
    }
  }
  if (o->dflt != NULL) {
    fputs(" Default: ", fp);
    np_docgen_escape(fp, o->dflt);
    if (o->unit != NULL && isdigit((unsigned char)o->dflt[0])) {
      fputc(' ', fp);
      np_docgen_escape(fp, o->unit);
    }
    fputc('.', fp);
  }
  fputs("\n\n", fp);
  for (const char *a = o->alias; a != NULL && *a;) {
    char other[80];
    int l = (int)strcspn(a, " ");
    snprintf(other, sizeof other, "%.*s", l, a);
    term(fp, other, mv);
    fputs("The same as *", fp);
    np_docgen_escape(fp, spelling);
    fputs("*.\n\n", fp);
    a += l;
    a += strspn(a, " ");
  }
}

static void options_block(FILE *fp, const struct np_bench_optset *s) {
  for (size_t k = 0; k < s->nsections; k++) {
    const struct np_bench_opt_section *sec = &s->sections[k];
    if (sec->heading != NULL) {
      size_t n = strlen(sec->heading);
      while (n > 0 && (sec->heading[n - 1] == ':' || sec->heading[n - 1] == ' '))
        n--;
      char *h = strndup(sec->heading, n);
      if (h == NULL)
        return;
      h[0] = (char)toupper((unsigned char)h[0]);
      fputs("## ", fp);
      np_docgen_escape(fp, h);
      fputs("\n\n", fp);
      free(h);
    }
    for (size_t i = 0; i < sec->n; i++)
      if (!(sec->opts[i].flags & NP_BENCH_OPT_HIDDEN))
        option_row(fp, &sec->opts[i]);
  }
}

static void commands_block(FILE *fp) {
  for (size_t i = 0; i < np_bench_ncommands; i++) {
    const struct np_bench_command *c = &np_bench_commands[i];
    fprintf(fp, "*%s*\n\t", c->name);
    char first[2] = {(char)toupper((unsigned char)c->summary[0]), '\0'};
    np_docgen_escape(fp, first);
    np_docgen_escape(fp, c->summary + 1);
    fprintf(fp, "; see *netproof-bench-%s*(1).\n\n", c->name);
  }
}

static void command_pages(FILE *fp) {
  for (size_t i = 0; i < np_bench_ncommands; i++)
    fprintf(fp, "%s*netproof-bench-%s*(1)", i ? ", " : "",
            np_bench_commands[i].name);
}

/* Where the command's documentation is, relative to the docs folder. */
static const char *doc_of(const struct np_bench_optset *s) {
  const char *d = s->doc != NULL ? s->doc : "README.md";
  return strncmp(d, "docs/", 5) == 0 ? d + 5 : d;
}

static int include(struct expand *x, const char *name) {
  char path[4096];
  char *text = NULL;
  if (x->depth >= MAX_INCLUDE_DEPTH)
    return np_errbuf_set(x->eb, NP_EPARSE, "%s: @include %s@: nested too deep",
                         x->tmpl, name);
  if ((size_t)snprintf(path, sizeof path, "%s/include/%s", x->tmpl_dir,
                       name) >= sizeof path)
    return np_errbuf_set(x->eb, NP_ERANGE, "%s: path too long", x->tmpl_dir);
  int rc = np_docgen_read(path, &text, x->eb);
  if (rc != 0)
    return rc;
  x->depth++;
  rc = expand_text(x, text);
  x->depth--;
  free(text);
  return rc;
}

/* Markers that expand to whole lines (and stand on a line of their own). */
static int is_block(const char *m) {
  return strncmp(m, "OPTIONS", 7) == 0 || strcmp(m, "COMMANDS") == 0 ||
         strncmp(m, "include ", 8) == 0;
}

/* The program table for marker m of page, or NULL. */
static const struct np_bench_optset *program_table(const char *page,
                                                   const char *m) {
  for (size_t t = 0; np_docgen_tables[t].page != NULL; t++)
    if (strcmp(np_docgen_tables[t].page, page) == 0 &&
        strcmp(np_docgen_tables[t].marker, m) == 0)
      return np_docgen_tables[t].opts;
  return NULL;
}

/* A marker the template names; what it needs is checked here. */
static int marker(struct expand *x, const char *m, int own_line) {
  const struct np_bench_command *c = x->cmd;
  if (is_block(m) && !own_line)
    return np_errbuf_set(x->eb, NP_EPARSE, "%s: @%s@ must be a line of its own",
                         x->tmpl, m);
  if (strncmp(m, "include ", 8) == 0)
    return include(x, m + 8);
  if (strcmp(m, "COMMANDS") == 0) {
    commands_block(x->out);
    return 0;
  }
  if (strcmp(m, "COMMAND-PAGES") == 0) {
    command_pages(x->out);
    return 0;
  }
  if (c == NULL && strncmp(m, "OPTIONS", 7) == 0) {
    const struct np_bench_optset *s = program_table(x->page, m);
    if (s == NULL)
      return np_errbuf_set(x->eb, NP_EPARSE,
                           "%s: @%s@: no option table for page %s "
                           "(np_docgen_tables)",
                           x->tmpl, m, x->page);
    options_block(x->out, s);
    return 0;
  }
  int needs_table = strcmp(m, "COMMAND") != 0 && strcmp(m, "SUMMARY") != 0;
  if (c == NULL || (needs_table && c->opts == NULL))
    return np_errbuf_set(x->eb, NP_EPARSE,
                         "%s: @%s@ needs a netproof-bench command%s", x->tmpl,
                         m, c == NULL ? "" : " with an option table");
  if (strcmp(m, "COMMAND") == 0)
    fputs(c->name, x->out);
  else if (strcmp(m, "SUMMARY") == 0)
    np_docgen_escape(x->out, c->summary);
  else if (strcmp(m, "SYNOPSIS") == 0) {
    fprintf(x->out, "*netproof-bench %s* [_options_]", c->name);
    if (c->opts->operands != NULL) {
      fputc(' ', x->out);
      np_docgen_escape(x->out, c->opts->operands);
    }
  } else if (strcmp(m, "DESCRIPTION") == 0)
    paragraph(x->out, c->opts->summary != NULL ? c->opts->summary : "");
  else if (strcmp(m, "OPTIONS") == 0)
    options_block(x->out, c->opts);
  else if (strcmp(m, "DOC") == 0)
    np_docgen_escape(x->out, doc_of(c->opts));
  else
    return np_errbuf_set(x->eb, NP_EPARSE, "%s: unknown marker @%s@", x->tmpl,
                         m);
  return 0;
}

/* Length of a marker's name at p (just after '@') up to its closing '@',
 * or 0 when p does not start one: upper-case letters and '-', or
 * "include " and a file name. */
static size_t marker_len(const char *p) {
  size_t n = 0;
  if (strncmp(p, "include ", 8) == 0) {
    n = 8;
    while (isalnum((unsigned char)p[n]) || p[n] == '-' || p[n] == '.' ||
           p[n] == '_')
      n++;
    return n > 8 && p[n] == '@' ? n : 0;
  }
  while (isupper((unsigned char)p[n]) || (n > 0 && p[n] == '-'))
    n++;
  return n > 0 && p[n] == '@' ? n : 0;
}

static int expand_text(struct expand *x, const char *text) {
  for (const char *p = text; *p; p++) {
    size_t n = *p == '@' ? marker_len(p + 1) : 0;
    if (n == 0) {
      fputc(*p, x->out);
      continue;
    }
    char *m = strndup(p + 1, n);
    if (m == NULL)
      return np_errbuf_set(x->eb, NP_ENOMEM, "out of memory");
    const char *end = p + n + 2;
    int own_line = (p == text || p[-1] == '\n') && (*end == '\n' || !*end);
    int rc = marker(x, m, own_line);
    int block = is_block(m);
    free(m);
    if (rc != 0)
      return rc;
    p = end - 1;
    if (block && *end == '\n')
      p++; /* a block brings its own line ends */
  }
  return 0;
}

/* Expand template tmpl into page name. */
static int page_new(const char *tmpl_dir, const char *tmpl, const char *name,
                    const struct np_bench_command *cmd,
                    struct np_docgen_page *pg, struct np_errbuf *eb) {
  char path[4096];
  char *text = NULL, *buf = NULL;
  size_t len = 0;
  if ((size_t)snprintf(path, sizeof path, "%s/%s", tmpl_dir, tmpl) >=
      sizeof path)
    return np_errbuf_set(eb, NP_ERANGE, "%s: path too long", tmpl_dir);
  int rc = np_docgen_read(path, &text, eb);
  if (rc != 0)
    return rc;
  struct expand x = {name, tmpl_dir, tmpl, cmd, open_memstream(&buf, &len),
                     eb, 0};
  if (x.out == NULL) {
    free(text);
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  }
  rc = expand_text(&x, text);
  free(text);
  if (fclose(x.out) != 0 && rc == 0)
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  if (rc == 0 && (pg->name = strdup(name)) == NULL)
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  if (rc != 0) {
    free(buf);
    return rc;
  }
  pg->text = buf;
  pg->cmd = cmd;
  return 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const struct np_docgen_page *)a)->name,
                ((const struct np_docgen_page *)b)->name);
}

/* The page templates in tmpl_dir: file names ending in .1.scd, sorted. */
static int list_templates(const char *tmpl_dir, char **names, size_t *n,
                          struct np_errbuf *eb) {
  DIR *d = opendir(tmpl_dir);
  if (d == NULL)
    return np_errbuf_set(eb, NP_ENOENT, "%s: cannot open", tmpl_dir);
  struct dirent *e;
  int rc = 0;
  *n = 0;
  while (rc == 0 && (e = readdir(d)) != NULL) {
    size_t l = strlen(e->d_name), sl = strlen(PAGE_SUFFIX);
    if (l <= sl || strcmp(e->d_name + l - sl, PAGE_SUFFIX) != 0)
      continue;
    if (*n == MAX_PAGES)
      rc = np_errbuf_set(eb, NP_ERANGE, "%s: more than %d pages", tmpl_dir,
                         MAX_PAGES);
    else if ((names[(*n)++] = strndup(e->d_name, l - sl)) == NULL)
      rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  }
  closedir(d);
  return rc;
}

int np_docgen_pages_build(const char *tmpl_dir, struct np_docgen_pages *out,
                          struct np_errbuf *eb) {
  char *names[MAX_PAGES];
  char tmpl[512];
  size_t n = 0;
  struct np_docgen_pages p = {calloc(MAX_PAGES + np_bench_ncommands,
                                     sizeof(struct np_docgen_page)), 0};
  if (p.v == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  int rc = list_templates(tmpl_dir, names, &n, eb);
  for (size_t i = 0; rc == 0 && i < n; i++) {
    const struct np_bench_command *c = NULL;
    if (strncmp(names[i], BENCH_PAGE_PREFIX, strlen(BENCH_PAGE_PREFIX)) == 0 &&
        (c = np_bench_command_find(names[i] + strlen(BENCH_PAGE_PREFIX))) ==
            NULL) {
      rc = np_errbuf_set(eb, NP_EPARSE,
                         "%s/%s" PAGE_SUFFIX ": netproof-bench has no "
                         "command %s",
                         tmpl_dir, names[i], names[i] + strlen(BENCH_PAGE_PREFIX));
      break;
    }
    snprintf(tmpl, sizeof tmpl, "%s" PAGE_SUFFIX, names[i]);
    if ((rc = page_new(tmpl_dir, tmpl, names[i], c, &p.v[p.n], eb)) == 0)
      p.n++;
  }
  /* every command has a page: its own, else the generic one */
  for (size_t i = 0; rc == 0 && i < np_bench_ncommands; i++) {
    const struct np_bench_command *c = &np_bench_commands[i];
    char name[256];
    snprintf(name, sizeof name, BENCH_PAGE_PREFIX "%s", c->name);
    int have = 0;
    for (size_t k = 0; k < p.n; k++)
      have |= strcmp(p.v[k].name, name) == 0;
    if (have)
      continue;
    if (c->opts == NULL)
      rc = np_errbuf_set(eb, NP_EPARSE,
                         "%s: no option table (bench/np_bench_commands.c)",
                         c->name);
    else if ((rc = page_new(tmpl_dir, GENERIC_TEMPLATE, name, c, &p.v[p.n],
                            eb)) == 0)
      p.n++;
  }
  for (size_t i = 0; rc == 0 && np_docgen_programs[i] != NULL; i++)
    if (np_docgen_page_find(&p, np_docgen_programs[i]) == NULL)
      rc = np_errbuf_set(eb, NP_ENOENT, "%s/%s" PAGE_SUFFIX ": missing",
                         tmpl_dir, np_docgen_programs[i]);
  for (size_t i = 0; i < n; i++)
    free(names[i]);
  if (rc != 0) {
    np_docgen_pages_free(&p);
    return rc;
  }
  qsort(p.v, p.n, sizeof p.v[0], by_name);
  *out = p;
  return 0;
}

int np_docgen_generic_pages(const char *tmpl_dir, struct np_docgen_pages *out,
                            struct np_errbuf *eb) {
  struct np_docgen_pages p = {
      calloc(np_bench_ncommands + 1, sizeof(struct np_docgen_page)), 0};
  int rc = 0;
  if (p.v == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  for (size_t i = 0; rc == 0 && i < np_bench_ncommands; i++) {
    const struct np_bench_command *c = &np_bench_commands[i];
    char name[256];
    if (c->opts == NULL)
      continue;
    snprintf(name, sizeof name, BENCH_PAGE_PREFIX "%s", c->name);
    if ((rc = page_new(tmpl_dir, GENERIC_TEMPLATE, name, c, &p.v[p.n], eb)) ==
        0)
      p.n++;
  }
  if (rc != 0) {
    np_docgen_pages_free(&p);
    return rc;
  }
  *out = p;
  return 0;
}

void np_docgen_pages_free(struct np_docgen_pages *p) {
  if (p == NULL)
    return;
  for (size_t i = 0; i < p->n; i++) {
    free(p->v[i].name);
    free(p->v[i].text);
  }
  free(p->v);
  p->v = NULL;
  p->n = 0;
}

const struct np_docgen_page *
np_docgen_page_find(const struct np_docgen_pages *p, const char *name) {
  for (size_t i = 0; i < p->n; i++)
    if (strcmp(p->v[i].name, name) == 0)
      return &p->v[i];
  return NULL;
}
