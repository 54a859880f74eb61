/*
 * np_docgen_bash.c - the bash completion of the four programs, generated
 * from the same sources as the man pages: netproof-bench's command table
 * and option tables (every option, its value kind, a choice row's values),
 * the programs' own tables (np_docgen_tables: netproof-report,
 * netproof-archive, netproof-validate, netproof-bench itself) the same
 * way; a program's subcommands are its page's COMMANDS terms.
 *
 * Three bash functions are written into the template's @TABLES@ line:
 * _netproof_subcommands PROG, _netproof_options PROG SUB and
 * _netproof_value PROG SUB OPTION, each setting REPLY (the words; for a
 * value "=WORDS", "@file", "@dir" or "@text"; "" for a flag).  The logic
 * that uses them is plain bash in completions/netproof.bash.in.
 */
#include "np_docgen.h"

#include <stdlib.h>
#include <string.h>

/* Only these characters reach the script, inside single quotes. */
static int safe_word(const char *s) {
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
          (*s >= '0' && *s <= '9') || strchr("._/+=-", *s) != NULL))
      return 0;
  return 1;
}

/* The tables being written: one memstream per function body. */
struct tables {
  FILE *subs, *opts, *vals;  /* case arms of the three functions      */
  struct np_errbuf *eb;
  int rc;                    /* first error                           */
};

static void check(struct tables *t, const char *where, const char *word) {
  if (t->rc == 0 && !safe_word(word))
    t->rc = np_errbuf_set(t->eb, NP_EPARSE,
                          "%s: '%s': not a word a completion can offer",
                          where, word);
}

static void value_arm(struct tables *t, const char *prog, const char *sub,
                      const char *opt, enum np_docgen_value kind,
                      const char *const *choices, unsigned mask) {
  static const char *const names[] = {"", "", "@file", "@dir", "@text"};
  if (kind == NP_DOCGEN_NONE)
    return;
  fprintf(t->vals, "\t'%s %s %s') REPLY='", prog, sub, opt);
  if (kind == NP_DOCGEN_WORDS) {
    fputc('=', t->vals);
    /* mask: the indexes offered (np_bench_opt.choice_mask), 0 = all */
    for (size_t k = 0, w = 0; choices[k] != NULL; k++) {
      if (mask != 0 && (k >= 32 || !((mask >> k) & 1u)))
        continue;
      check(t, opt, choices[k]);
      fprintf(t->vals, "%s%s", w++ ? " " : "", choices[k]);
    }
  } else {
    fputs(names[kind], t->vals);
  }
  fputs("' ;;\n", t->vals);
}

/* A program's own table (np_docgen_tables): every documented row and its
 * other spellings, each with its value kind and a choice row's values. */
static void table_program(struct tables *t, const char *prog,
                          const char *sub, const struct np_bench_optset *s) {
  size_t n = np_bench_opt_count(s);
  int first = 1;
  fprintf(t->opts, "\t'%s %s') REPLY='", prog, sub);
  for (size_t pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < n; i++) {
      const struct np_bench_opt *o = np_bench_opt_at(s, i, NULL);
      if (o->flags & NP_BENCH_OPT_HIDDEN)
        continue;
      /* the spellings: dashes and name, then the aliases */
      char sp[8][72];
      size_t k = 0;
      snprintf(sp[k++], sizeof sp[0], "%s%s", np_bench_opt_dashes(o), o->name);
      for (const char *a = o->alias; a != NULL && *a && k < 8;) {
        int l = (int)strcspn(a, " ");
        snprintf(sp[k++], sizeof sp[0], "%.*s", l, a);
        a += l;
        a += strspn(a, " ");
      }
      for (size_t j = 0; j < k; j++) {
        check(t, prog, sp[j]);
        if (pass == 0) {
          fprintf(t->opts, "%s%s", first ? "" : " ", sp[j]);
          first = 0;
          continue;
        }
        enum np_docgen_value kind =
            o->type == NP_BENCH_OPT_CHOICE ? NP_DOCGEN_WORDS
            : o->type == NP_BENCH_OPT_FLAG
                ? NP_DOCGEN_NONE
                : np_docgen_value_of(np_bench_opt_metavar(o));
        value_arm(t, prog, sub, sp[j], kind, o->choices, o->choice_mask);
      }
    }
    if (pass == 0)
      fputs("' ;;\n", t->opts);
  }
}

/* A subcommand's own table (@OPTIONS-SUB@ of prog's page): its options
 * under "prog sub"; the subcommands themselves, when the page has no
 * COMMANDS section to name them. */
static void subcommand_tables(struct tables *t, const struct np_docgen_page *pg,
                              const char *prog) {
  int first = 1;
  for (size_t i = 0; np_docgen_tables[i].page != NULL; i++) {
    const struct np_docgen_table *d = &np_docgen_tables[i];
    if (strcmp(d->page, prog) != 0 || strncmp(d->marker, "OPTIONS-", 8) != 0)
      continue;
    char sub[64];
    size_t k = 0;
    for (const char *m = d->marker + 8; *m && k + 1 < sizeof sub; m++)
      sub[k++] = (char)(*m >= 'A' && *m <= 'Z' ? *m - 'A' + 'a' : *m);
    sub[k] = '\0';
    table_program(t, prog, sub, d->opts);
    if (strstr(pg->text, "\n# COMMANDS\n") != NULL)
      continue;
    check(t, prog, sub);
    if (first)
      fprintf(t->subs, "\t%s) REPLY='%s", prog, sub);
    else
      fprintf(t->subs, " %s", sub);
    first = 0;
  }
  if (!first)
    fputs("' ;;\n", t->subs);
}

/* The table of page prog's @OPTIONS@, or NULL. */
static const struct np_bench_optset *program_table(const char *prog) {
  for (size_t i = 0; np_docgen_tables[i].page != NULL; i++)
    if (strcmp(np_docgen_tables[i].page, prog) == 0 &&
        strcmp(np_docgen_tables[i].marker, "OPTIONS") == 0)
      return np_docgen_tables[i].opts;
  return NULL;
}

/* The next bold word at *p ("*--output*" -> "--output"), unescaped, up to
 * a space inside it; *p moves past the closing '*'.  0 when none. */
static int bold_word(const char **p, char *word, size_t len) {
  const char *s = *p;
  size_t n = 0;
  int in_word = 1;
  if (*s != '*')
    return 0;
  for (s++; *s && *s != '*' && *s != '\n'; s++) {
    if (*s == '\\' && s[1] != '\0')
      s++;
    if (*s == ' ')
      in_word = 0;
    if (in_word && n + 1 < len)
      word[n++] = *s;
  }
  word[n] = '\0';
  if (*s != '*')
    return 0;
  *p = s + 1;
  return n > 0;
}

/* A program's subcommands: the "*WORD*" term lines of its page's
 * COMMANDS section (between "# COMMANDS" and the next "# " heading). */
static void command_terms(struct tables *t, const struct np_docgen_page *pg,
                          const char *prog) {
  const char *line = pg->text;
  int in = 0, first = 1;
  while (*line) {
    const char *eol = strchr(line, '\n');
    const char *next = eol ? eol + 1 : line + strlen(line);
    if (line[0] == '#' && line[1] == ' ')
      in = strncmp(line + 2, "COMMANDS", 8) == 0 &&
           (line[10] == '\n' || line[10] == '\0');
    char word[128];
    const char *p = line;
    if (in && bold_word(&p, word, sizeof word) && word[0] != '-') {
      check(t, pg->name, word);
      if (first)
        fprintf(t->subs, "\t%s) REPLY='%s", prog, word);
      else
        fprintf(t->subs, " %s", word);
      first = 0;
    }
    line = next;
  }
  if (!first)
    fputs("' ;;\n", t->subs);
}

static void write_tables(struct tables *t, const struct np_docgen_pages *pages) {
  fputs("\tnetproof-bench) REPLY='", t->subs);
  for (size_t i = 0; i < np_bench_ncommands; i++) {
    check(t, "netproof-bench", np_bench_commands[i].name);
    fprintf(t->subs, "%s%s", i ? " " : "", np_bench_commands[i].name);
  }
  fputs("' ;;\n", t->subs);
  for (size_t i = 0; i < np_bench_ncommands; i++) {
    const struct np_bench_command *c = &np_bench_commands[i];
    if (c->opts == NULL && t->rc == 0)
      t->rc = np_errbuf_set(t->eb, NP_EPARSE, "netproof-bench %s: no option "
                            "table (bench/np_bench_commands.c)", c->name);
    else if (c->opts != NULL)
      table_program(t, "netproof-bench", c->name, c->opts);
  }
  for (size_t i = 0; np_docgen_programs[i] != NULL; i++) {
    const char *prog = np_docgen_programs[i];
    const struct np_docgen_page *pg = np_docgen_page_find(pages, prog);
    if (pg == NULL)
      continue;
    if (program_table(prog) == NULL && t->rc == 0)
      t->rc = np_errbuf_set(t->eb, NP_EPARSE, "%s: no option table "
                            "(np_docgen_tables)", prog);
    else if (program_table(prog) != NULL)
      table_program(t, prog, "", program_table(prog));
    if (strcmp(prog, "netproof-bench") != 0)
      command_terms(t, pg, prog);
    subcommand_tables(t, pg, prog);
  }
}

/* tmpl with @TABLES@, @PLANS_REL@ and @PLANS_DIR@ replaced, into fp. */
static void fill(FILE *fp, const char *tmpl, const char *tables,
                 const char *plans_rel, const char *plans_dir) {
  for (const char *p = tmpl; *p; p++) {
    if (strncmp(p, "@TABLES@\n", 9) == 0) {
      fputs(tables, fp);
      p += 8;
    } else if (strncmp(p, "@PLANS_REL@", 11) == 0) {
      fputs(plans_rel, fp);
      p += 10;
    } else if (strncmp(p, "@PLANS_DIR@", 11) == 0) {
      fputs(plans_dir, fp);
      p += 10;
    } else {
      fputc(*p, fp);
    }
  }
}

static const char *const arm_heads[] = {
    "_netproof_subcommands() {\n\tcase $1 in\n",
    "_netproof_options() {\n\tcase \"$1 $2\" in\n",
    "_netproof_value() {\n\tcase \"$1 $2 $3\" in\n"};

/* The three functions into *tables (caller frees). */
static int build_tables(const struct np_docgen_pages *pages, char **tables,
                        struct np_errbuf *eb) {
  char *bufs[3] = {NULL, NULL, NULL}, *text = NULL;
  size_t lens[3] = {0, 0, 0}, len = 0;
  struct tables t = {NULL, NULL, NULL, eb, 0};
  FILE **fps[3] = {&t.subs, &t.opts, &t.vals};
  for (int i = 0; i < 3; i++)
    if ((*fps[i] = open_memstream(&bufs[i], &lens[i])) == NULL)
      t.rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  if (t.rc == 0)
    write_tables(&t, pages);
  for (int i = 0; i < 3; i++)
    if (*fps[i] != NULL && fclose(*fps[i]) != 0 && t.rc == 0)
      t.rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  FILE *fp = t.rc == 0 ? open_memstream(&text, &len) : NULL;
  if (t.rc == 0 && fp == NULL)
    t.rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  if (fp != NULL) {
    for (int i = 0; i < 3; i++)
      fprintf(fp, "%s%s\t*) REPLY='' ;;\n\tesac\n}\n\n", arm_heads[i],
              bufs[i]);
    if (fclose(fp) != 0)
      t.rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  }
  for (int i = 0; i < 3; i++)
    free(bufs[i]);
  if (t.rc != 0) {
    free(text);
    return t.rc;
  }
  *tables = text;
  return 0;
}

int np_docgen_bash(const struct np_docgen_pages *pages, const char *tmpl_path,
                   const char *plans_rel, const char *plans_dir,
                   const char *out_dir, struct np_errbuf *eb) {
  char *tmpl = NULL, *tables = NULL, *script = NULL;
  size_t slen = 0;
  if (!safe_word(plans_rel) || !safe_word(plans_dir))
    return np_errbuf_set(eb, NP_EUSAGE, "%s, %s: not plain paths", plans_rel,
                         plans_dir);
  int rc = np_docgen_read(tmpl_path, &tmpl, eb);
  if (rc != 0)
    return rc;
  if ((rc = build_tables(pages, &tables, eb)) != 0)
    goto cleanup_tmpl;
  FILE *fp = open_memstream(&script, &slen);
  if (fp == NULL) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    goto cleanup_tables;
  }
  fill(fp, tmpl, tables, plans_rel, plans_dir);
  if (fclose(fp) != 0) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    goto cleanup_script;
  }
  for (size_t i = 0; rc == 0 && np_docgen_programs[i] != NULL; i++) {
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", out_dir,
                         np_docgen_programs[i]) >= sizeof path)
      rc = np_errbuf_set(eb, NP_ERANGE, "%s: path too long", out_dir);
    else
      rc = np_docgen_write(path, script, slen, eb);
  }
cleanup_script:
  free(script);
cleanup_tables:
  free(tables);
cleanup_tmpl:
  free(tmpl);
  return rc;
}
