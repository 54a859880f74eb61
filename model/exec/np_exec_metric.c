/*
 * np_exec_metric.c - metric specs and bounds parsed, metrics evaluated
 * over a program's output (see np_exec_metric.h for the rules).  Pure:
 * text in, value or reason out, so the benchmark and the self-check get
 * the same answer from the same bytes.
 */
#include "np_exec_metric.h"

#define PCRE2_CODE_UNIT_WIDTH 8

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcre2.h>

#include "np_json.h"

/* Bounds on one evaluation: PCRE2's backtracking and how many matches are
 * counted before "more than once" is certain anyway. */
#define NP_EXEC_MATCH_LIMIT 10000000u
#define NP_EXEC_MAX_COUNT 1000000u

static const char *const np_exec_fail_names[NP_EXEC_FAIL_COUNT_] = {
    "ok",       "missing",  "non-numeric", "non-finite",
    "multiple", "not-json", "unreadable",  "truncated"};

const char *np_exec_fail_name(enum np_exec_fail f) {
  return f < NP_EXEC_FAIL_COUNT_ ? np_exec_fail_names[f] : "?";
}

static int name_ok(const char *s, size_t n) {
  if (n == 0 || n > NP_EXEC_NAME_MAX || !(s[0] >= 'a' && s[0] <= 'z'))
    return 0;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
          s[i] == '_'))
      return 0;
  return 1;
}

/* Empty, or a unit word: [A-Za-z%][A-Za-z0-9%/_.-]{0,14}. */
static int unit_ok(const char *s) {
  size_t n = strlen(s);
  if (n == 0)
    return 1;
  if (n > NP_EXEC_UNIT_MAX || !(isalpha((unsigned char)s[0]) || s[0] == '%'))
    return 0;
  for (size_t i = 0; i < n; i++)
    if (!(isalnum((unsigned char)s[i]) || strchr("%/_.-", s[i])))
      return 0;
  return 1;
}

/* Compile a metric pattern; NULL with the reason in why. */
static pcre2_code *compile(const char *pattern, char *why, size_t len) {
  int err = 0;
  PCRE2_SIZE off = 0;
  pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                                 PCRE2_MULTILINE, &err, &off, NULL);
  if (re == NULL) {
    PCRE2_UCHAR msg[160];
    pcre2_get_error_message(err, msg, sizeof msg);
    snprintf(why, len, "pattern does not compile at offset %zu: %s",
             (size_t)off, (const char *)msg);
    return NULL;
  }
  uint32_t groups = 0;
  pcre2_pattern_info(re, PCRE2_INFO_CAPTURECOUNT, &groups);
  if (groups != 1) {
    snprintf(why, len,
             "the pattern has %u capture groups; a metric needs exactly one "
             "(use (?:...) for the others)",
             groups);
    pcre2_code_free(re);
    return NULL;
  }
  return re;
}

/* rest = "EXPR[:unit]" into s->expr and s->unit. */
static int split_unit(const char *rest, struct np_exec_metric_spec *s) {
  const char *colon = strrchr(rest, ':');
  size_t n = strlen(rest);
  if (colon != NULL && unit_ok(colon + 1)) {
    snprintf(s->unit, sizeof s->unit, "%s", colon + 1);
    n = (size_t)(colon - rest);
  }
  if (n > NP_EXEC_EXPR_MAX)
    return -1;
  memcpy(s->expr, rest, n);
  s->expr[n] = '\0';
  return 0;
}

int np_exec_metric_parse(const char *text, struct np_exec_metric_spec *out,
                         struct np_errbuf *eb) {
  struct np_exec_metric_spec s;
  char why[256];
  memset(&s, 0, sizeof s);
  const char *eq = strchr(text, '=');
  if (eq == NULL)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--metric '%s': expected NAME=json:/pointer, "
                         "NAME=regex:PATTERN or NAME=file:PATH:json:/pointer",
                         text);
  if (!name_ok(text, (size_t)(eq - text)))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--metric '%s': the name must be [a-z][a-z0-9_]*, "
                         "at most %d characters",
                         text, NP_EXEC_NAME_MAX);
  memcpy(s.name, text, (size_t)(eq - text));
  const char *spec = eq + 1;
  if (strncmp(spec, "file:", 5) == 0) {
    const char *p = spec + 5;
    const char *j = strstr(p, ":json:"), *r = strstr(p, ":regex:");
    const char *cut = j && (!r || j < r) ? j : r;
    if (cut == NULL || cut == p || (size_t)(cut - p) > NP_EXEC_PATH_MAX)
      return np_errbuf_set(eb, NP_EUSAGE,
                           "--metric '%s': expected file:PATH:json:/pointer "
                           "or file:PATH:regex:PATTERN",
                           text);
    s.source = NP_EXEC_SOURCE_FILE;
    memcpy(s.path, p, (size_t)(cut - p));
    spec = cut + 1;
  }
  const char *rest;
  if (strncmp(spec, "json:", 5) == 0) {
    s.kind = NP_EXEC_KIND_JSON;
    rest = spec + 5;
  } else if (strncmp(spec, "regex:", 6) == 0) {
    s.kind = NP_EXEC_KIND_REGEX;
    rest = spec + 6;
  } else {
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--metric '%s': unknown source (json:, regex: or "
                         "file:)",
                         text);
  }
  if (split_unit(rest, &s) != 0)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--metric '%s': longer than %d characters", text,
                         NP_EXEC_EXPR_MAX);
  if (s.kind == NP_EXEC_KIND_JSON && s.expr[0] != '\0' && s.expr[0] != '/')
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--metric '%s': a JSON pointer starts with '/' "
                         "(RFC 6901)",
                         text);
  if (s.kind == NP_EXEC_KIND_REGEX) {
    if (s.expr[0] == '\0')
      return np_errbuf_set(eb, NP_EUSAGE, "--metric '%s': empty pattern",
                           text);
    pcre2_code *re = compile(s.expr, why, sizeof why);
    if (re == NULL)
      return np_errbuf_set(eb, NP_EUSAGE, "--metric '%s': %s", text, why);
    pcre2_code_free(re);
  }
  *out = s;
  return 0;
}

void np_exec_metric_spec_text(const struct np_exec_metric_spec *s, char *buf,
                              size_t len) {
  snprintf(buf, len, "%s%s%s%s:%s:%s",
           s->source == NP_EXEC_SOURCE_FILE ? "file:" : "",
           s->source == NP_EXEC_SOURCE_FILE ? s->path : "",
           s->source == NP_EXEC_SOURCE_FILE ? ":" : "",
           s->kind == NP_EXEC_KIND_JSON ? "json" : "regex", s->expr, s->unit);
}

/* Spelled NaN or Infinity (any case, optional sign)? */
static int nonfinite_word(const char *t) {
  if (*t == '+' || *t == '-')
    t++;
  return strcasecmp(t, "nan") == 0 || strcasecmp(t, "inf") == 0 ||
         strcasecmp(t, "infinity") == 0;
}

/* A plain decimal number: [+-]? (d+ [. d*] | . d+) ([eE] [+-]? d+)?. */
static int decimal_ok(const char *t) {
  const char *p = t;
  int digits = 0;
  if (*p == '+' || *p == '-')
    p++;
  while (isdigit((unsigned char)*p)) {
    p++;
    digits++;
  }
  if (*p == '.') {
    p++;
    while (isdigit((unsigned char)*p)) {
      p++;
      digits++;
    }
  }
  if (digits == 0)
    return 0;
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-')
      p++;
    if (!isdigit((unsigned char)*p))
      return 0;
    while (isdigit((unsigned char)*p))
      p++;
  }
  return *p == '\0';
}

/* fmt has one %s: a, cut to leave room for the rest of the line. */
static void set_fail(struct np_exec_metric_val *v, enum np_exec_fail f,
                     const char *fmt, const char *a) {
  char cut[160];
  size_t n = strlen(a);
  if (n >= sizeof cut) {
    memcpy(cut, a, sizeof cut - 4);
    memcpy(cut + sizeof cut - 4, "...", 4);
  } else {
    memcpy(cut, a, n + 1);
  }
  v->fail = f;
  snprintf(v->reason, sizeof v->reason, fmt, cut);
}

/* The captured text (whitespace trimmed) as a number, or why not. */
static void number_from_text(const char *text, size_t n,
                             struct np_exec_metric_val *v) {
  char t[64];
  while (n > 0 && isspace((unsigned char)*text)) {
    text++;
    n--;
  }
  while (n > 0 && isspace((unsigned char)text[n - 1]))
    n--;
  size_t k = n < sizeof t - 1 ? n : sizeof t - 1;
  memcpy(t, text, k);
  t[k] = '\0';
  snprintf(v->raw, sizeof v->raw, "%s", t);
  if (n >= sizeof t) {
    set_fail(v, NP_EXEC_NONNUMERIC, "captured '%s...' is not a number", t);
    return;
  }
  if (nonfinite_word(t)) {
    set_fail(v, NP_EXEC_NONFINITE, "captured '%s' is not finite", t);
    return;
  }
  if (!decimal_ok(t)) {
    set_fail(v, NP_EXEC_NONNUMERIC,
             "captured '%s' is not a plain decimal number", t);
    return;
  }
  double d = strtod(t, NULL);
  if (!isfinite(d)) {
    set_fail(v, NP_EXEC_NONFINITE, "captured '%s' overflows a double", t);
    return;
  }
  v->fail = NP_EXEC_OK;
  v->value = d;
}

void np_exec_metric_number(const char *text, size_t n,
                           struct np_exec_metric_val *v) {
  memset(v, 0, sizeof *v);
  number_from_text(text, n, v);
}

static int eval_regex(const struct np_exec_metric_spec *s, const char *data,
                      size_t len, struct np_exec_metric_val *v) {
  char why[256];
  pcre2_code *re = compile(s->expr, why, sizeof why);
  if (re == NULL)
    return NP_EINVAL;
  pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
  pcre2_match_context *mc = pcre2_match_context_create(NULL);
  if (md == NULL || mc == NULL) {
    pcre2_match_data_free(md);
    pcre2_match_context_free(mc);
    pcre2_code_free(re);
    return NP_ENOMEM;
  }
  pcre2_set_match_limit(mc, NP_EXEC_MATCH_LIMIT);
  PCRE2_SIZE at = 0, cap_lo = 0, cap_hi = 0;
  int cap_set = 0, limit_hit = 0;
  unsigned count = 0;
  while (at <= len && count < NP_EXEC_MAX_COUNT) {
    int rc = pcre2_match(re, (PCRE2_SPTR)data, len, at, 0, md, mc);
    if (rc == PCRE2_ERROR_NOMATCH)
      break;
    if (rc < 0) {
      limit_hit = 1;
      break;
    }
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    if (count++ == 0 && ov[2] != PCRE2_UNSET) {
      cap_lo = ov[2];
      cap_hi = ov[3];
      cap_set = 1;
    }
    at = ov[1] > ov[0] ? ov[1] : ov[0] + 1; /* an empty match moves on */
  }
  pcre2_match_data_free(md);
  pcre2_match_context_free(mc);
  pcre2_code_free(re);
  v->matches = count;
  if (limit_hit) {
    set_fail(v, NP_EXEC_MISSING,
             "the pattern exceeded PCRE2's match limit%s", "");
  } else if (count == 0) {
    set_fail(v, NP_EXEC_MISSING, "the pattern does not match%s", "");
  } else if (count > 1) {
    char n[32];
    snprintf(n, sizeof n, "%u", count);
    set_fail(v, NP_EXEC_MULTIPLE,
             "the pattern matches %s times (a metric must match once)", n);
  } else if (!cap_set) {
    set_fail(v, NP_EXEC_MISSING, "the capture group took no part in the "
                                 "match%s", "");
  } else {
    number_from_text(data + cap_lo, cap_hi - cap_lo, v);
  }
  return 0;
}

static int eval_json(const struct np_exec_metric_spec *s, const char *data,
                     size_t len, struct np_exec_metric_val *v) {
  cJSON *doc = NULL;
  struct np_errbuf eb = {{0}};
  int rc = len == 0 ? NP_EPARSE : np_json_parse(data, len, NULL, &doc, &eb);
  if (rc == NP_ENOMEM)
    return rc;
  if (rc != 0) {
    set_fail(v, NP_EXEC_NOTJSON, "not one JSON document: %s",
             len == 0 ? "empty output" : eb.msg);
    return 0;
  }
  const cJSON *x = np_json_pointer(doc, s->expr);
  if (x == NULL) {
    set_fail(v, NP_EXEC_MISSING, "%s: not in the document",
             s->expr[0] ? s->expr : "(root)");
  } else if (cJSON_IsNumber(x)) {
    snprintf(v->raw, sizeof v->raw, "%.15g", x->valuedouble);
    if (strtod(v->raw, NULL) != x->valuedouble) /* the shortest that holds */
      snprintf(v->raw, sizeof v->raw, "%.17g", x->valuedouble);
    v->fail = NP_EXEC_OK;
    v->value = x->valuedouble;
  } else if (cJSON_IsString(x)) {
    snprintf(v->raw, sizeof v->raw, "%s", x->valuestring);
    if (nonfinite_word(x->valuestring))
      set_fail(v, NP_EXEC_NONFINITE, "the string \"%s\" is not finite",
               v->raw);
    else
      set_fail(v, NP_EXEC_NONNUMERIC, "the string \"%s\" is not a number",
               v->raw);
  } else {
    set_fail(v, NP_EXEC_NONNUMERIC, "%s, not a number",
             cJSON_IsNull(x)     ? "null"
             : cJSON_IsBool(x)   ? "a boolean"
             : cJSON_IsArray(x)  ? "an array"
                                 : "an object");
  }
  cJSON_Delete(doc);
  return 0;
}

int np_exec_metric_eval(const struct np_exec_metric_spec *s, const char *data,
                        size_t len, int truncated,
                        struct np_exec_metric_val *out) {
  struct np_exec_metric_val v;
  memset(&v, 0, sizeof v);
  int rc = 0;
  if (truncated)
    set_fail(&v, NP_EXEC_TRUNCATED,
             "%s was cut at its size bound: a value from it is not trusted",
             s->source == NP_EXEC_SOURCE_FILE ? "the file" : "stdout");
  else if (s->kind == NP_EXEC_KIND_REGEX)
    rc = eval_regex(s, data, len, &v);
  else
    rc = eval_json(s, data, len, &v);
  if (rc == 0)
    *out = v;
  return rc;
}

void np_exec_metric_unreadable(const struct np_exec_metric_spec *s,
                               const char *why,
                               struct np_exec_metric_val *out) {
  memset(out, 0, sizeof *out);
  out->fail = NP_EXEC_UNREADABLE;
  snprintf(out->reason, sizeof out->reason, "%.120s: %.120s", s->path, why);
}

/* ---- bounds ------------------------------------------------------------ */

static const char *const np_exec_ops[] = {"<=", ">=", "<", ">", "=="};

const char *np_exec_op_text(enum np_exec_op op) {
  return op <= NP_EXEC_EQ ? np_exec_ops[op] : "?";
}

int np_exec_bound_parse(const char *text, struct np_exec_bound *out,
                        struct np_errbuf *eb) {
  struct np_exec_bound b;
  memset(&b, 0, sizeof b);
  size_t n = strcspn(text, "<>=");
  if (!name_ok(text, n))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--check '%s': expected METRIC<=VALUE (or >=, <, >, "
                         "==) with a metric name [a-z][a-z0-9_]*",
                         text);
  memcpy(b.metric, text, n);
  const char *p = text + n;
  int found = 0;
  for (int op = 0; op <= NP_EXEC_EQ && !found; op++) {
    size_t k = strlen(np_exec_ops[op]);
    if (strncmp(p, np_exec_ops[op], k) == 0) {
      b.op = (enum np_exec_op)op;
      p += k;
      found = 1;
    }
  }
  if (!found)
    return np_errbuf_set(eb, NP_EUSAGE,
                         "--check '%s': expected one of <= >= < > == after "
                         "the metric name",
                         text);
  if (strncmp(p, "kernel:", 7) == 0) {
    const char *c = p + 7;
    size_t cn = strlen(c);
    if (cn == 0 || cn >= sizeof b.counter ||
        strspn(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                  "0123456789._") != cn)
      return np_errbuf_set(eb, NP_EUSAGE,
                           "--check '%s': expected kernel:COUNTER "
                           "(e.g. kernel:Udp.OutDatagrams)",
                           text);
    b.kernel = 1;
    memcpy(b.counter, c, cn + 1);
  } else {
    if (nonfinite_word(p) || !decimal_ok(p))
      return np_errbuf_set(eb, NP_EUSAGE,
                           "--check '%s': '%s' is not a finite decimal "
                           "number or kernel:COUNTER",
                           text, p);
    b.value = strtod(p, NULL);
    if (!isfinite(b.value))
      return np_errbuf_set(eb, NP_EUSAGE, "--check '%s': '%s' overflows",
                           text, p);
  }
  *out = b;
  return 0;
}

void np_exec_bound_text(const struct np_exec_bound *b, char *buf, size_t len) {
  if (b->kernel)
    snprintf(buf, len, "%s%skernel:%s", b->metric, np_exec_op_text(b->op),
             b->counter);
  else
    snprintf(buf, len, "%s%s%.17g", b->metric, np_exec_op_text(b->op),
             b->value);
}

int np_exec_bound_eval(const struct np_exec_bound *b, double lhs, double rhs,
                       char *detail, size_t len) {
  char r[96];
  if (b->kernel)
    snprintf(r, sizeof r, "kernel delta %s = %.10g", b->counter, rhs);
  else
    snprintf(r, sizeof r, "%.10g", rhs);
  if (!isfinite(lhs)) {
    snprintf(detail, len, "%s has no value, so %s %s cannot hold", b->metric,
             np_exec_op_text(b->op), r);
    return 0;
  }
  if (!isfinite(rhs)) {
    snprintf(detail, len, "%s = %.10g; kernel counter %s is not in the "
             "record's kernel delta", b->metric, lhs, b->counter);
    return 0;
  }
  int ok = b->op == NP_EXEC_LE   ? lhs <= rhs
           : b->op == NP_EXEC_GE ? lhs >= rhs
           : b->op == NP_EXEC_LT ? lhs < rhs
           : b->op == NP_EXEC_GT ? lhs > rhs
                                 : lhs == rhs;
  snprintf(detail, len, "%s = %.10g %s %s", b->metric, lhs,
           ok ? np_exec_op_text(b->op) : "violates", r);
  if (!ok) {
    size_t k = strlen(detail);
    snprintf(detail + k, len > k ? len - k : 0, " (wanted %s)",
             np_exec_op_text(b->op));
  }
  return ok;
}
