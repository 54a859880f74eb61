/*
 * np_results_selfcheck_hist.c - the histogram rule of the self-check (see
 * np_results_hist.h): walk the record, decode each histogram object with
 * common/np_hist_codec.c and recompute the summary it names with
 * np_hist_summary_json, the function that wrote it.  The same integer
 * counts through the same code give the same doubles, but cJSON prints a
 * double with 15 digits when that reads back within its epsilon, so
 * numbers agree when within 4 ulps (relative 4 x DBL_EPSILON).
 */
#include "np_results_hist.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "np_hist_codec.h"
#include "np_json.h"

#define ENCODING "HdrHistogram V2 compressed, base64"
#define PTR_MAX 512

struct walk {
  np_results_hist_problem_fn fn; /* caller's callback                    */
  void *ctx;                     /* its context                          */
  size_t problems;               /* reported so far                      */
};

static void problem(struct walk *w, const char *ptr, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void problem(struct walk *w, const char *ptr, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  w->problems++;
  if (w->fn)
    w->fn(w->ctx, ptr, msg);
}

/* Equal up to cJSON's printing (see the top). */
static int same(double a, double b) {
  return fabs(a - b) <= 4 * DBL_EPSILON * fmax(fabs(a), fabs(b));
}

/* The summary `name` beside the histogram at hptr (in parent) against
 * want, member by member. */
static void compare_summary(struct walk *w, const cJSON *parent,
                            const char *hptr, const char *name,
                            const cJSON *want) {
  const cJSON *have = cJSON_GetObjectItemCaseSensitive(parent, name);
  char sptr[PTR_MAX];
  const char *slash = strrchr(hptr, '/');
  snprintf(sptr, sizeof sptr, "%.*s/%s", (int)(slash ? slash - hptr : 0),
           hptr, name);
  if (!cJSON_IsObject(have)) {
    problem(w, hptr, "summarizes %s, which is not beside it", name);
    return;
  }
  const cJSON *e;
  cJSON_ArrayForEach(e, want) {
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(have, e->string);
    char p[PTR_MAX + 16];
    snprintf(p, sizeof p, "%s/%s", sptr, e->string);
    if (cJSON_IsNull(e)) {
      if (h && !cJSON_IsNull(h))
        problem(w, p, "%g, but the histogram's %llu samples cannot support "
                "it (null)", h->valuedouble,
                (unsigned long long)np_json_get_number(want, "count", 0));
    } else if (!cJSON_IsNumber(h) || !same(h->valuedouble, e->valuedouble)) {
      if (cJSON_IsNumber(h))
        problem(w, p, "%.17g, the histogram gives %.17g", h->valuedouble,
                e->valuedouble);
      else
        problem(w, p, "missing or null, the histogram gives %.17g",
                e->valuedouble);
    }
  }
}

static void check_one(struct walk *w, const cJSON *parent, const cJSON *o,
                      const char *ptr) {
  struct np_hist *h = NULL;
  struct np_errbuf eb = {{0}};
  if (np_hist_from_json(o, &h, &eb) != 0) {
    char p[PTR_MAX];
    /* eb starts with the member's pointer ("/data: ...") */
    const char *colon = strchr(eb.msg, ':');
    size_t k = colon ? (size_t)(colon - eb.msg) : 0;
    snprintf(p, sizeof p, "%s%.*s", ptr, (int)k, eb.msg);
    problem(w, p, "%s", colon ? colon + 2 : eb.msg);
    return;
  }
  const char *sptr = np_json_get_string(o, "summarizes", NULL);
  if (sptr) {
    cJSON *want = np_hist_summary_json(h, 1000.0);
    if (want)
      compare_summary(w, parent, ptr, sptr, want);
    else
      problem(w, ptr, "out of memory recomputing the summary");
    cJSON_Delete(want);
  }
  np_hist_free(h);
}

static void walk(struct walk *w, const cJSON *parent, const cJSON *o,
                 char *ptr, size_t len) {
  if (cJSON_IsObject(o)) {
    const char *enc = np_json_get_string(o, "encoding", NULL);
    if (enc && strcmp(enc, ENCODING) == 0) {
      check_one(w, parent, o, ptr);
      return;
    }
  }
  if (!cJSON_IsObject(o) && !cJSON_IsArray(o))
    return;
  size_t base = strlen(ptr), i = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, o) {
    if (!cJSON_IsObject(e) && !cJSON_IsArray(e)) { /* no histogram below */
      i++;
      continue;
    }
    if (cJSON_IsObject(o))
      snprintf(ptr + base, len - base, "/%s", e->string);
    else
      snprintf(ptr + base, len - base, "/%zu", i);
    i++;
    walk(w, o, e, ptr, len);
    ptr[base] = '\0';
  }
}

size_t np_results_check_hist(const cJSON *record,
                             np_results_hist_problem_fn fn, void *ctx) {
  struct walk w = {.fn = fn, .ctx = ctx};
  char ptr[PTR_MAX] = "";
  walk(&w, NULL, record, ptr, sizeof ptr);
  return w.problems;
}
