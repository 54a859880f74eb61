/*
 * np_bench_opt.h - one option table per command: the single place an
 * option's name, type, range, default, unit, help text and destination
 * live.  The same table drives the command's parser, its generated
 * `--help`, its man page's OPTIONS and completion (tools/docgen), and
 * for a benchmark the matrix runner's plan checks, argv and configuration
 * ids (model/plan/np_matrix_plan.c), so they cannot drift apart.
 * The benchmarks, netproof-report (and its subcommands), netproof-archive
 * and netproof-validate all parse through it; it lives in common/ so the
 * programs that run no benchmark link no engine for it.
 *
 * A benchmark describes itself with a struct np_bench_optset: sections of
 * rows over one configuration struct (a section may sit inside it, e.g.
 * the relay's struct inside rudp's config, at `base`), an init hook for
 * what no option sets, and a validate hook for the cross-field rules a
 * table cannot express (payload per address family, FEC min <= max ...).
 * Row order is canonical: it is the order of a configuration's argv and of
 * the parts of its id.
 *
 * Parsing: long options "--name value" or "--name=value" (common/np_opt.h).
 * Every error is NP_EUSAGE with one line in the caller's errbuf worded
 * "--window 0: out of range 1..65536", "--backend 'x': expected uv or raw".
 * Values are stored by type at offset (or through the row's setter); the
 * configuration owns no memory, and strings point into argv or the table.
 */
#ifndef NP_BENCH_OPT_H
#define NP_BENCH_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "np_addr.h"
#include "np_err.h"

enum np_bench_opt_type {
  NP_BENCH_OPT_UINT,   /* unsigned decimal integer in umin..umax          */
  NP_BENCH_OPT_SIZE,   /* bytes, as UINT; the id shows 4194304 as 4m      */
  NP_BENCH_OPT_NUM,    /* finite number in min..max (min_open: > min)     */
  NP_BENCH_OPT_CHOICE, /* one of choices; stored as its index (an enum)   */
  NP_BENCH_OPT_STR,    /* free text, checked by the setter if any         */
  NP_BENCH_OPT_ADDR,   /* a literal IPv4 or IPv6 address; id ip4 / ip6    */
  NP_BENCH_OPT_FLAG,   /* takes no value; stores int 1                    */
  NP_BENCH_OPT_HOSTPORT /* ADDR:PORT (common/np_addr.h), port 1..65535
                           unless NP_BENCH_OPT_ANYPORT; stores the text
                           (a const char * field) or the struct np_addr */
};

enum np_bench_opt_flag {
  NP_BENCH_OPT_CORE = 1u,    /* always in a configuration's id and argv  */
  NP_BENCH_OPT_NOPLAN = 2u,  /* a plan may not set it (the runner does)  */
  NP_BENCH_OPT_COMPARE = 4u, /* varies inside a ranking group unless a
                                plan's "compare" says otherwise          */
  NP_BENCH_OPT_FIRST = 8u,   /* applied before every other option,
                                wherever it appears (--profile)          */
  NP_BENCH_OPT_HELP = 16u,   /* asks for the --help text                 */
  NP_BENCH_OPT_ANYPORT = 32u, /* HOSTPORT: port 0 (any) allowed, for a
                                socket that binds (np_addr's port-0 rule) */
  NP_BENCH_OPT_HIDDEN = 64u,  /* parsed, but not in --help, the man page or
                                 the completion (test-only knobs)       */
  NP_BENCH_OPT_VERSION = 128u, /* asks for the version (*help = 2)       */
  NP_BENCH_OPT_SHORT = 256u    /* spelt "-NAME" only (-C): a one-letter
                                  option of a program with no long form */
};

/* A parsed value, handed to setters. */
struct np_bench_val {
  const char *text; /* as given (argv, a plan's text, or the default)   */
  uint64_t u;       /* UINT/SIZE value; CHOICE index; ADDR AF_INET/6;
                       FLAG 1                                           */
  double d;         /* NUM value (UINT/SIZE too, as a double)           */
  struct np_addr addr; /* HOSTPORT: the address parsed                  */
};

struct np_bench_opt;

/* Store v for o into the section's struct sec.  0 or NP_EUSAGE with one
 * line in eb (the setter may refuse what the type allowed, e.g. "5/3"). */
typedef int (*np_bench_opt_set_fn)(void *sec, const struct np_bench_opt *o,
                                   const struct np_bench_val *v,
                                   struct np_errbuf *eb);

struct np_bench_opt {
  const char *name;            /* command-line name without "--"         */
  enum np_bench_opt_type type;
  uint64_t umin, umax;         /* UINT, SIZE: inclusive range            */
  double min, max;             /* NUM: inclusive range ...               */
  int min_open;                /* ... with min itself excluded (S > 0)   */
  const char *range_text;      /* shown for the range in --help and in
                                  out-of-range messages; NULL: "min..max" */
  const char *const *choices;  /* CHOICE: NULL-terminated, index = value */
  const char *refusal;         /* CHOICE: the line for a value not offered,
                                  a printf format of the value ("--x %s:
                                  expected a (why) or b (why)"); NULL:
                                  "--x 'v': expected a or b".  UINT, SIZE,
                                  NUM: the line for a value that is not a
                                  number or out of range (the same format);
                                  NULL: "--x 7: out of range 1..5"      */
  unsigned choice_mask;        /* CHOICE: the indexes this command offers
                                  (bit i), e.g. serve's io-model; 0 = all */
  const char *dflt;            /* default as text; NULL: none, or derived
                                  (the help text says from what)         */
  const char *unit;            /* "s", "ms", "%", ... for --help, or NULL */
  const char *metavar;         /* "FILE", "N/M"; NULL: from the type      */
  const char *help;            /* one line for --help                    */
  const char *alias;           /* other spellings the parser takes, --help,
                                  the man page and the completion show,
                                  space-separated ("-o --out"), or NULL  */
  size_t offset;               /* where the value goes in the section   */
  size_t size;                 /* sizeof that field (checked on store)  */
  np_bench_opt_set_fn set;     /* stores instead of offset, or NULL     */
  const char *tag;             /* configuration id tag ("p" -> p1024);
                                  "" = the value alone                  */
  unsigned flags;              /* enum np_bench_opt_flag bits           */
};

/* Does choice row o offer choices[i] (its choice_mask)? */
int np_bench_opt_offers(const struct np_bench_opt *o, size_t i);

/* offset and size of a field, for a row: NP_BENCH_AT(struct cfg, payload). */
#define NP_BENCH_AT(st, member)                                              \
  .offset = offsetof(st, member), .size = sizeof(((st *)0)->member)

/* The --summary values, index = the stored value: "text" (the human line
 * on stderr only), "json" (np_bench_opt.c; bench/core/np_bench_summary.h
 * writes them). */
extern const char *const np_bench_summary_choices[];

/* The rows every benchmark command ends with, the runner's and never a
 * plan's: --output FILE (the run record, "-" = stdout), --summary
 * text|json (json: the one-object summary on stdout, instead of the record
 * when --output is not given), --quiet, --help.  cfgtype has `const char
 * *output`, `int summary` (enum np_bench_summary_kind) and `int quiet`. */
#define NP_BENCH_OPT_RUNNER_ROWS(cfgtype)                                    \
  {.name = "output", .type = NP_BENCH_OPT_STR, .dflt = "-",                 \
   .metavar = "FILE",                                                       \
   .help = "run record (JSON); - = stdout (a terminal gets none)",          \
   NP_BENCH_AT(cfgtype, output), .set = np_bench_opt_set_path,              \
   .flags = NP_BENCH_OPT_NOPLAN},                                           \
  {.name = "summary", .type = NP_BENCH_OPT_CHOICE,                          \
   .choices = np_bench_summary_choices, .dflt = "text", .metavar = "KIND",  \
   .help = "json: one-object summary on stdout (instead of the record "     \
           "when no --output is given)",                                    \
   NP_BENCH_AT(cfgtype, summary), .flags = NP_BENCH_OPT_NOPLAN},            \
  {.name = "quiet", .type = NP_BENCH_OPT_FLAG,                              \
   .help = "no summary on stderr", NP_BENCH_AT(cfgtype, quiet),             \
   .flags = NP_BENCH_OPT_NOPLAN},                                           \
  {.name = "help", .type = NP_BENCH_OPT_FLAG, .help = "this text",          \
   .flags = NP_BENCH_OPT_NOPLAN | NP_BENCH_OPT_HELP}

/* Rows over one struct that starts base bytes into the configuration. */
struct np_bench_opt_section {
  const char *heading;           /* --help line above the rows, or NULL */
  const struct np_bench_opt *opts;
  size_t n;
  size_t base;                   /* offsetof the section's struct       */
};

#define NP_BENCH_OPT_MAX 96 /* rows per option set (parse refuses more) */

/* Which options a command line gave, by flat row index. */
struct np_bench_given {
  unsigned char given[NP_BENCH_OPT_MAX];
};

struct np_bench_optset {
  const char *program;   /* the program for the usage line; NULL =
                            "netproof-bench"                            */
  const char *command;   /* subcommand and plan protocol ("udp"); "" for
                            a program without subcommands               */
  const char *operands;  /* usage after "[options]" ("-- PROGRAM ..."),
                            or NULL for none                            */
  int interleaved;       /* parse_operands: operands may stand between
                            options (pack DIR --output B DIR2)          */
  const char *summary;   /* --help paragraph (lines end in '\n')         */
  const char *doc;       /* "docs/udp-benchmark.md" for the help footer  */
  const char *exits;     /* --help's exit-code lines ('\n'-ended); NULL =
                            the benchmarks' (0, 1, 2, 3, 130/143)        */
  const struct np_bench_opt_section *sections;
  size_t nsections;
  size_t cfg_size;       /* sizeof the configuration struct              */
  /* Everything no row's default sets (memset, library defaults).        */
  void (*init)(void *cfg);
  /* Cross-field rules and derived fields, after every option is stored;
   * given says which options the command line named.  NP_EUSAGE.        */
  int (*validate)(void *cfg, const struct np_bench_given *given,
                  struct np_errbuf *eb);
};

/* ---- the table ---- */

/* Rows in canonical order across sections. */
size_t np_bench_opt_count(const struct np_bench_optset *s);

/* Row i (0 <= i < count); *base (may be NULL) gets its section's base. */
const struct np_bench_opt *np_bench_opt_at(const struct np_bench_optset *s,
                                           size_t i, size_t *base);

/* Flat index of name ("payload" or "--payload"), or -1. */
int np_bench_opt_find(const struct np_bench_optset *s, const char *name);

/* 1 when the command line named option name (which must exist). */
int np_bench_opt_given(const struct np_bench_optset *s,
                       const struct np_bench_given *g, const char *name);

/* The range as --help and messages show it: "1..64", ">0..3600", the
 * choices "uv | raw", range_text, or "" (STR, ADDR, FLAG). */
void np_bench_opt_range(const struct np_bench_opt *o, char *buf, size_t len);

/* "--", or "-" for a SHORT row: what goes before the row's name. */
const char *np_bench_opt_dashes(const struct np_bench_opt *o);

/* The value placeholder --help and the man pages show ("N", "FILE"): the
 * row's metavar, else one named for its type; "" for a FLAG. */
const char *np_bench_opt_metavar(const struct np_bench_opt *o);

/* ---- values ---- */

/* Check text against o's type and range into *v (written on success). */
int np_bench_opt_value(const struct np_bench_opt *o, const char *text,
                       struct np_bench_val *v, struct np_errbuf *eb);

/* Store v at sec + o->offset by type and size (what a row without a setter
 * does; setters may call it, e.g. once per relay direction).  NP_EINVAL
 * when the row's size does not fit its type (a table error). */
int np_bench_opt_put(const struct np_bench_opt *o, void *sec,
                     const struct np_bench_val *v, struct np_errbuf *eb);

/* A setter for file paths: refuses "" ("--output: empty path"), stores
 * the text pointer. */
int np_bench_opt_set_path(void *sec, const struct np_bench_opt *o,
                          const struct np_bench_val *v, struct np_errbuf *eb);

/* ---- parsing ---- */

/* The defaults alone: init, every row's default, validate. */
int np_bench_opt_defaults(const struct np_bench_optset *s, void *cfg,
                          struct np_errbuf *eb);

/* argv[1..argc) into cfg: init, defaults, the options (FIRST rows before
 * the others, each group in command-line order, the last value winning),
 * validate.  *help = 1 (2 for a VERSION row; 0 returned at once) when
 * --help comes before any malformed argument.  An argument that is not an
 * option is refused ("unexpected argument 'x'"). */
int np_bench_opt_parse(const struct np_bench_optset *s, int argc,
                       char **argv, void *cfg, int *help,
                       struct np_errbuf *eb);

/* The same for a command that takes operands after its options (FILE...):
 * the first argument that does not start with '-' (or "-" itself), or the
 * one after "--", ends the options; *first is its index (argc when there
 * is none).  With s->interleaved the operands may stand anywhere before a
 * "--": argv is reordered, options first, then the operands in their order
 * (a "--" dropped), and *first is where they start.  validate runs before
 * the operands are looked at. */
int np_bench_opt_parse_operands(const struct np_bench_optset *s, int argc,
                                char **argv, void *cfg, int *help,
                                int *first, struct np_errbuf *eb);

/* Apply n (row index, text) pairs to cfg: FIRST rows first, then the
 * others in order; marks them in given (may be NULL).  No init, defaults
 * or validate: for library callers such as np_relay_options_parse. */
int np_bench_opt_apply(const struct np_bench_optset *s, void *cfg, size_t n,
                       const int *idx, const char *const *texts,
                       struct np_bench_given *given, struct np_errbuf *eb);

/* 0 when the command accepts option i with text on its own (type, range
 * and the setter's own checks, on a scratch configuration). */
int np_bench_opt_try(const struct np_bench_optset *s, size_t i,
                     const char *text, struct np_errbuf *eb);

/* 0 when the command accepts argv (argv[0] = the command) as a whole:
 * np_bench_opt_parse on a scratch configuration, no side effects. */
int np_bench_opt_check(const struct np_bench_optset *s, int argc,
                       char **argv, struct np_errbuf *eb);

/* ---- help ---- */

/* The generated --help: usage line, summary, one line per option with
 * its range and [default], the exit codes, the doc to read. */
void np_bench_opt_help(const struct np_bench_optset *s, FILE *fp);

/* The option lines alone (section headings, rows, their other spellings;
 * no hidden row), for a program that writes the rest of its usage itself
 * (netproof-bench lists its commands). */
void np_bench_opt_help_rows(const struct np_bench_optset *s, FILE *fp);

#endif /* NP_BENCH_OPT_H */
