/*
 * np_bench_opt.c - the table-driven option parser (see np_bench_opt.h):
 * lookup, value checks by type, storage by offset, the two-pass apply
 * (FIRST rows before the others) and the whole-command parse.  Value
 * syntax and its wording come from common/np_opt.h, so every benchmark
 * says "--window 0: out of range 1..65536" the same way.
 */
#include "np_bench_opt.h"

#include <arpa/inet.h>
#include <float.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "np_opt.h"

size_t np_bench_opt_count(const struct np_bench_optset *s) {
  size_t n = 0;
  for (size_t k = 0; k < s->nsections; k++)
    n += s->sections[k].n;
  return n;
}

const char *const np_bench_summary_choices[] = {"text", "json", NULL};

const struct np_bench_opt *np_bench_opt_at(const struct np_bench_optset *s,
                                           size_t i, size_t *base) {
  for (size_t k = 0; k < s->nsections; k++) {
    if (i < s->sections[k].n) {
      if (base != NULL)
        *base = s->sections[k].base;
      return &s->sections[k].opts[i];
    }
    i -= s->sections[k].n;
  }
  return NULL;
}

int np_bench_opt_find(const struct np_bench_optset *s, const char *name) {
  if (strncmp(name, "--", 2) == 0)
    name += 2;
  size_t n = np_bench_opt_count(s);
  for (size_t i = 0; i < n; i++)
    if (strcmp(np_bench_opt_at(s, i, NULL)->name, name) == 0)
      return (int)i;
  return -1;
}

int np_bench_opt_given(const struct np_bench_optset *s,
                       const struct np_bench_given *g, const char *name) {
  int i = np_bench_opt_find(s, name);
  return i >= 0 && i < NP_BENCH_OPT_MAX && g->given[i];
}

int np_bench_opt_offers(const struct np_bench_opt *o, size_t i) {
  return o->choice_mask == 0 || (i < 32 && (o->choice_mask >> i) & 1u);
}

void np_bench_opt_range(const struct np_bench_opt *o, char *buf, size_t len) {
  buf[0] = '\0';
  if (o->range_text != NULL) {
    snprintf(buf, len, "%s", o->range_text);
  } else if (o->type == NP_BENCH_OPT_UINT || o->type == NP_BENCH_OPT_SIZE) {
    snprintf(buf, len, "%" PRIu64 "..%" PRIu64, o->umin, o->umax);
  } else if (o->type == NP_BENCH_OPT_NUM) {
    snprintf(buf, len, "%s%g..%g", o->min_open ? ">" : "", o->min, o->max);
  } else if (o->type == NP_BENCH_OPT_CHOICE) {
    size_t off = 0;
    for (size_t i = 0; o->choices[i] != NULL && off < len; i++)
      if (np_bench_opt_offers(o, i))
        off += (size_t)snprintf(buf + off, len - off, "%s%s",
                                off ? " | " : "", o->choices[i]);
  }
}

/* "expected a, b or c" for a choice row. */
static int bad_choice(const struct np_bench_opt *o, const char *text,
                      struct np_errbuf *eb) {
  char list[256];
  if (o->refusal != NULL)
    return np_errbuf_set(eb, NP_EUSAGE, o->refusal, text);
  size_t off = 0, n = 0, k = 0;
  for (size_t i = 0; o->choices[i] != NULL; i++)
    n += (size_t)np_bench_opt_offers(o, i);
  list[0] = '\0';
  for (size_t i = 0; o->choices[i] != NULL && off < sizeof list; i++) {
    if (!np_bench_opt_offers(o, i))
      continue;
    off += (size_t)snprintf(list + off, sizeof list - off, "%s%s",
                            k == 0 ? "" : k + 1 == n ? " or " : ", ",
                            o->choices[i]);
    k++;
  }
  return np_errbuf_set(eb, NP_EUSAGE, "--%s '%s': expected %s", o->name, text,
                       list);
}

static int out_of_range(const struct np_bench_opt *o, const char *text,
                        struct np_errbuf *eb) {
  char range[256];
  if (o->refusal != NULL)
    return np_errbuf_set(eb, NP_EUSAGE, o->refusal, text);
  np_bench_opt_range(o, range, sizeof range);
  return np_errbuf_set(eb, NP_EUSAGE, "--%s %s: out of range %s", o->name,
                       text, range);
}

int np_bench_opt_value(const struct np_bench_opt *o, const char *text,
                       struct np_bench_val *v, struct np_errbuf *eb) {
  struct np_bench_val r;
  memset(&r, 0, sizeof r);
  r.text = text;
  char opt[80];
  int rc = 0;
  snprintf(opt, sizeof opt, "--%s", o->name);
  if (o->type == NP_BENCH_OPT_FLAG) {
    r.u = 1;
    *v = r;
    return 0;
  }
  if (text == NULL)
    return np_errbuf_set(eb, NP_EUSAGE, "%s needs a value", opt);
  switch (o->type) {
  case NP_BENCH_OPT_UINT:
  case NP_BENCH_OPT_SIZE:
    if ((rc = np_opt_u64(opt, text, 0, UINT64_MAX, &r.u, eb)) != 0)
      return o->refusal != NULL ? out_of_range(o, text, eb) : rc;
    if (r.u < o->umin || r.u > o->umax)
      return out_of_range(o, text, eb);
    r.d = (double)r.u;
    break;
  case NP_BENCH_OPT_NUM: {
    const char *what =
        o->unit != NULL && strcmp(o->unit, "s") == 0 ? "seconds" : "a number";
    if ((rc = np_opt_double(opt, text, what, -DBL_MAX, 0, DBL_MAX, &r.d,
                            eb)) != 0)
      return o->refusal != NULL ? out_of_range(o, text, eb) : rc;
    if ((o->min_open ? r.d <= o->min : r.d < o->min) || r.d > o->max)
      return out_of_range(o, text, eb);
    break;
  }
  case NP_BENCH_OPT_CHOICE: {
    size_t i = 0;
    while (o->choices[i] != NULL && strcmp(o->choices[i], text) != 0)
      i++;
    if (o->choices[i] == NULL || !np_bench_opt_offers(o, i))
      return bad_choice(o, text, eb);
    r.u = i;
    break;
  }
  case NP_BENCH_OPT_ADDR: {
    unsigned char tmp[16];
    if (inet_pton(AF_INET, text, tmp) == 1)
      r.u = AF_INET;
    else if (inet_pton(AF_INET6, text, tmp) == 1)
      r.u = AF_INET6;
    else
      return np_errbuf_set(eb, NP_EUSAGE,
                           "%s '%s': expected a literal IPv4 or IPv6 address "
                           "such as 127.0.0.1 or ::1", opt, text);
    break;
  }
  case NP_BENCH_OPT_HOSTPORT:
    if ((rc = np_addr_parse(opt, text,
                            o->flags & NP_BENCH_OPT_ANYPORT ? NP_ADDR_ANY_PORT
                                                            : 0,
                            &r.addr, eb)) != 0)
      return rc;
    r.u = (uint64_t)np_addr_family(&r.addr);
    break;
  case NP_BENCH_OPT_STR:
    if (text[0] == '\0' && o->set == NULL)
      return np_errbuf_set(eb, NP_EUSAGE, "%s: empty value", opt);
    break;
  case NP_BENCH_OPT_FLAG:
    break;
  }
  *v = r;
  return 0;
}

int np_bench_opt_put(const struct np_bench_opt *o, void *sec,
                     const struct np_bench_val *v, struct np_errbuf *eb) {
  char *dst = (char *)sec + o->offset;
  switch (o->type) {
  case NP_BENCH_OPT_UINT:
  case NP_BENCH_OPT_SIZE:
    if (o->size == 8) {
      uint64_t x = v->u;
      memcpy(dst, &x, sizeof x);
      return 0;
    }
    if ((o->size == 4 && o->umax <= UINT32_MAX) ||
        (o->size == 2 && o->umax <= UINT16_MAX) ||
        (o->size == 1 && o->umax <= UINT8_MAX)) {
      uint32_t x32 = (uint32_t)v->u;
      uint16_t x16 = (uint16_t)v->u;
      uint8_t x8 = (uint8_t)v->u;
      memcpy(dst, o->size == 4 ? (void *)&x32 : o->size == 2 ? (void *)&x16
                                                             : (void *)&x8,
             o->size);
      return 0;
    }
    break;
  case NP_BENCH_OPT_NUM:
    if (o->size == sizeof(double)) {
      memcpy(dst, &v->d, sizeof v->d);
      return 0;
    }
    break;
  case NP_BENCH_OPT_CHOICE:
  case NP_BENCH_OPT_FLAG:
    if (o->size == sizeof(int)) {
      int x = (int)v->u;
      memcpy(dst, &x, sizeof x);
      return 0;
    }
    break;
  case NP_BENCH_OPT_HOSTPORT: /* the address, or the text as STR stores it */
    if (o->size == sizeof(struct np_addr)) {
      memcpy(dst, &v->addr, sizeof v->addr);
      return 0;
    }
    if (o->size == sizeof(const char *)) {
      memcpy(dst, &v->text, sizeof v->text);
      return 0;
    }
    break;
  case NP_BENCH_OPT_STR:
  case NP_BENCH_OPT_ADDR:
    if (o->size == sizeof(const char *)) {
      memcpy(dst, &v->text, sizeof v->text);
      return 0;
    }
    break;
  }
  return np_errbuf_set(eb, NP_EINVAL,
                       "--%s: the option table's field (%zu bytes) does not "
                       "hold this type and range", o->name, o->size);
}

int np_bench_opt_set_path(void *sec, const struct np_bench_opt *o,
                          const struct np_bench_val *v, struct np_errbuf *eb) {
  if (v->text == NULL || v->text[0] == '\0')
    return np_errbuf_set(eb, NP_EUSAGE, "--%s: empty path", o->name);
  return np_bench_opt_put(o, sec, v, eb);
}

static int store(const struct np_bench_opt *o, void *sec, const char *text,
                 struct np_errbuf *eb) {
  struct np_bench_val v;
  int rc = np_bench_opt_value(o, text, &v, eb);
  if (rc == 0)
    rc = o->set != NULL ? o->set(sec, o, &v, eb)
                        : np_bench_opt_put(o, sec, &v, eb);
  return rc;
}

int np_bench_opt_apply(const struct np_bench_optset *s, void *cfg, size_t n,
                       const int *idx, const char *const *texts,
                       struct np_bench_given *given, struct np_errbuf *eb) {
  size_t count = np_bench_opt_count(s);
  for (int pass = 0; pass < 2; pass++) {
    for (size_t k = 0; k < n; k++) {
      size_t base = 0;
      if (idx[k] < 0 || (size_t)idx[k] >= count)
        return np_errbuf_set(eb, NP_EINVAL, "option index %d out of range",
                             idx[k]);
      const struct np_bench_opt *o = np_bench_opt_at(s, (size_t)idx[k], &base);
      int first = (o->flags & NP_BENCH_OPT_FIRST) != 0;
      if (first != (pass == 0))
        continue;
      int rc = store(o, (char *)cfg + base, texts[k], eb);
      if (rc != 0)
        return rc;
      if (given != NULL && idx[k] < NP_BENCH_OPT_MAX)
        given->given[idx[k]] = 1;
    }
  }
  return 0;
}

/* init, then every row's default (FIRST rows first). */
static int start(const struct np_bench_optset *s, void *cfg,
                 struct np_errbuf *eb) {
  int idx[NP_BENCH_OPT_MAX];
  const char *texts[NP_BENCH_OPT_MAX];
  size_t n = 0, count = np_bench_opt_count(s);
  if (count > NP_BENCH_OPT_MAX)
    return np_errbuf_set(eb, NP_EINVAL, "%s: %zu options, more than %d",
                         s->command, count, NP_BENCH_OPT_MAX);
  if (s->init != NULL)
    s->init(cfg);
  for (size_t i = 0; i < count; i++) {
    const struct np_bench_opt *o = np_bench_opt_at(s, i, NULL);
    if (o->dflt != NULL && o->type != NP_BENCH_OPT_FLAG) {
      idx[n] = (int)i;
      texts[n++] = o->dflt;
    }
  }
  return np_bench_opt_apply(s, cfg, n, idx, texts, NULL, eb);
}

int np_bench_opt_defaults(const struct np_bench_optset *s, void *cfg,
                          struct np_errbuf *eb) {
  struct np_bench_given none;
  memset(&none, 0, sizeof none);
  int rc = start(s, cfg, eb);
  if (rc == 0 && s->validate != NULL)
    rc = s->validate(cfg, &none, eb);
  return rc;
}

/* "unknown option '--clinets'; did you mean --clients?" from the rows. */
static int unknown_option(const struct np_bench_optset *s, const char *name,
                          struct np_errbuf *eb) {
  const char *names[NP_BENCH_OPT_MAX];
  char spelt[NP_BENCH_OPT_MAX][72]; /* "--name", "-C" */
  size_t n = np_bench_opt_count(s);
  if (n > NP_BENCH_OPT_MAX)
    n = NP_BENCH_OPT_MAX; /* start() refused such a table already */
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    const struct np_bench_opt *o = np_bench_opt_at(s, i, NULL);
    if (o->flags & NP_BENCH_OPT_HIDDEN)
      continue; /* never suggested, as never listed */
    snprintf(spelt[k], sizeof spelt[k], "%s%s", np_bench_opt_dashes(o),
             o->name);
    names[k] = spelt[k];
    k++;
  }
  return np_opt_unknown(eb, "option", name, names, k);
}

/* Row index of arg when it is a row's other spelling: a SHORT row's
 * "-C", or one of the row's aliases ("-o", "--out", "--out=x": *inline_val
 * then points after '='); -1 when none. */
static int find_alias(const struct np_bench_optset *s, const char *arg,
                      const char **inline_val) {
  size_t n = np_bench_opt_count(s);
  for (size_t i = 0; i < n; i++) {
    const struct np_bench_opt *o = np_bench_opt_at(s, i, NULL);
    if ((o->flags & NP_BENCH_OPT_SHORT) && arg[0] == '-' &&
        strcmp(arg + 1, o->name) == 0)
      return (int)i;
    for (const char *a = o->alias; a != NULL && *a;) {
      size_t l = strcspn(a, " ");
      if (strncmp(arg, a, l) == 0 &&
          (arg[l] == '\0' || (arg[l] == '=' && a[1] == '-'))) {
        *inline_val = arg[l] == '=' ? arg + l + 1 : NULL;
        return (int)i;
      }
      a += l;
      a += strspn(a, " ");
    }
  }
  return -1;
}

const char *np_bench_opt_dashes(const struct np_bench_opt *o) {
  return o->flags & NP_BENCH_OPT_SHORT ? "-" : "--";
}

/* The parse of both entry points; first NULL: no operands. */
static int parse(const struct np_bench_optset *s, int argc, char **argv,
                 void *cfg, int *help, int *first, struct np_errbuf *eb) {
  struct np_bench_given given;
  int *idx = NULL;
  const char **texts = NULL;
  size_t n = 0;
  int rc;
  int end = argc, nops = 0, dd = 0; /* dd: a "--" ended the options */
  char **ops = NULL;        /* interleaved: the words in their new order */
  unsigned char *op = NULL; /* interleaved: 1 for an operand's word      */
  *help = 0;
  memset(&given, 0, sizeof given);
  if ((rc = start(s, cfg, eb)) != 0)
    return rc;
  if (argc > 1) {
    idx = malloc((size_t)argc * sizeof *idx);
    texts = malloc((size_t)argc * sizeof *texts);
    if (idx == NULL || texts == NULL) {
      rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
      goto free_lists;
    }
  }
  if (first != NULL && s->interleaved && argc > 1 &&
      ((ops = malloc((size_t)argc * sizeof *ops)) == NULL ||
       (op = calloc((size_t)argc, 1)) == NULL)) {
    rc = np_errbuf_set(eb, NP_ENOMEM, "out of memory");
    goto free_lists;
  }
  for (int i = 1; i < argc; i++) {
    char name[64];
    const char *inline_val = NULL, *text = NULL;
    if (first != NULL && strcmp(argv[i], "--") == 0) {
      end = i + 1;
      dd = 1;
      break;
    }
    if (first != NULL && (argv[i][0] != '-' || argv[i][1] == '\0')) {
      if (op != NULL) {
        op[i] = 1;
        nops++;
        continue;
      }
      end = i;
      break;
    }
    int k = find_alias(s, argv[i], &inline_val);
    if (k >= 0) {
      snprintf(name, sizeof name, "%.*s", (int)strcspn(argv[i], "="),
               argv[i]);
    } else if (first != NULL && argv[i][1] != '-') { /* "-x" before FILEs */
      rc = unknown_option(s, argv[i], eb);
      goto free_lists;
    } else {
      if ((rc = np_opt_name(argv, i, name, sizeof name, &inline_val, eb)) !=
          0)
        goto free_lists;
      if ((k = np_bench_opt_find(s, name)) < 0) {
        rc = unknown_option(s, name, eb);
        goto free_lists;
      }
    }
    const struct np_bench_opt *o = np_bench_opt_at(s, (size_t)k, NULL);
    if (o->flags & (NP_BENCH_OPT_HELP | NP_BENCH_OPT_VERSION)) {
      *help = o->flags & NP_BENCH_OPT_HELP ? 1 : 2;
      goto free_lists;
    }
    if (o->type == NP_BENCH_OPT_FLAG && inline_val != NULL) {
      rc = np_errbuf_set(eb, NP_EUSAGE, "%s takes no value", name);
      goto free_lists;
    }
    if (o->type != NP_BENCH_OPT_FLAG &&
        (rc = np_opt_value(argc, argv, &i, name, inline_val, &text, eb)) != 0)
      goto free_lists;
    idx[n] = k;
    texts[n++] = text;
  }
  rc = np_bench_opt_apply(s, cfg, n, idx, texts, &given, eb);
  if (rc == 0 && s->validate != NULL)
    rc = s->validate(cfg, &given, eb);
  if (rc == 0 && op != NULL && nops > 0) {
    /* options (and a "--" that ended them) first, then every operand in
     * its order: the interleaved ones, then those after the "--" */
    int w = 0, opts_end = dd ? end - 1 : end;
    for (int i = 1; i < opts_end; i++)
      if (!op[i])
        ops[w++] = argv[i];
    if (dd)
      ops[w++] = argv[end - 1];
    int at = w; /* where the operands start, after argv[0] */
    for (int i = 1; i < opts_end; i++)
      if (op[i])
        ops[w++] = argv[i];
    for (int i = end; i < argc; i++)
      ops[w++] = argv[i];
    memcpy(argv + 1, ops, (size_t)w * sizeof *ops);
    end = at + 1;
  }
  if (rc == 0 && first != NULL)
    *first = end;
free_lists:
  free(op);
  free(ops);
  free(idx);
  free(texts);
  return rc;
}

int np_bench_opt_parse(const struct np_bench_optset *s, int argc,
                       char **argv, void *cfg, int *help,
                       struct np_errbuf *eb) {
  return parse(s, argc, argv, cfg, help, NULL, eb);
}

int np_bench_opt_parse_operands(const struct np_bench_optset *s, int argc,
                                char **argv, void *cfg, int *help,
                                int *first, struct np_errbuf *eb) {
  return parse(s, argc, argv, cfg, help, first, eb);
}

int np_bench_opt_try(const struct np_bench_optset *s, size_t i,
                     const char *text, struct np_errbuf *eb) {
  void *cfg = calloc(1, s->cfg_size);
  int idx = (int)i;
  if (cfg == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  if (s->init != NULL)
    s->init(cfg);
  int rc = np_bench_opt_apply(s, cfg, 1, &idx, &text, NULL, eb);
  free(cfg);
  return rc;
}

int np_bench_opt_check(const struct np_bench_optset *s, int argc,
                       char **argv, struct np_errbuf *eb) {
  void *cfg = calloc(1, s->cfg_size);
  int help = 0;
  if (cfg == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  int rc = np_bench_opt_parse(s, argc, argv, cfg, &help, eb);
  free(cfg);
  return rc;
}
