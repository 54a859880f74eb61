/*
 * np_archive_triage.c - order and fold a bundle's problems for a person
 * (see np_archive_triage.h).  Severity comes from one table of reason
 * phrases the checks use (np_archive_verify.c, np_bagit.c, ...).
 */
#include "np_archive_triage.h"

#include <stdlib.h>
#include <string.h>

#include "np_text.h"

struct problem {
  char *where, *reason;
  size_t seq;   /* order of arrival           */
  size_t group; /* first seq with this reason */
  int rank;     /* severity, 0 = most serious */
};

struct np_triage {
  struct problem *v;
  size_t n, cap;
  size_t lost; /* not kept: out of memory */
};

/* What a reason says, most serious first; a reason matching none ranks 2. */
static const struct {
  const char *phrase;
  int rank;
} severity[] = {
    {"checksum mismatch", 0}, {"signature", 0},      {"digest", 0},
    {"missing", 1},           {"does not match", 1}, {"not in the manifest", 1},
    {"not listed", 1},        {"unexpected", 1},     {"out of order", 3},
    {"mtime", 3},             {"mode", 3},           {"owner", 3},
};

static int rank_of(const char *reason) {
  for (size_t i = 0; i < sizeof severity / sizeof *severity; i++)
    if (strstr(reason, severity[i].phrase) != NULL)
      return severity[i].rank;
  return 2;
}

struct np_triage *np_triage_new(void) { return calloc(1, sizeof(struct np_triage)); }

size_t np_triage_count(const struct np_triage *t) { return t->n + t->lost; }

void np_triage_add(void *ctx, const char *where, const char *reason) {
  struct np_triage *t = ctx;
  if (t->n == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 64;
    struct problem *v = realloc(t->v, cap * sizeof *v);
    if (v == NULL) {
      t->lost++;
      return;
    }
    t->v = v;
    t->cap = cap;
  }
  struct problem *p = &t->v[t->n];
  p->where = strdup(where);
  p->reason = strdup(reason);
  if (p->where == NULL || p->reason == NULL) {
    free(p->where);
    free(p->reason);
    t->lost++;
    return;
  }
  p->seq = t->n;
  p->group = t->n;
  for (size_t i = 0; i < t->n; i++)
    if (strcmp(t->v[i].reason, reason) == 0) {
      p->group = t->v[i].group;
      break;
    }
  p->rank = rank_of(reason);
  t->n++;
}

static int by_severity(const void *a, const void *b) {
  const struct problem *x = a, *y = b;
  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  if (x->group != y->group)
    return x->group < y->group ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Length of where's part up to and including its first ": ", or 0. */
static size_t prefix_len(const char *where) {
  const char *c = strstr(where, ": ");
  return c != NULL ? (size_t)(c - where) + 2 : 0;
}

#define GROUP_NAMED 3 /* entries a folded line names */

/* The group v[0..n): one line naming its first entries. */
static void print_group(const struct problem *v, size_t n, FILE *fp) {
  size_t pl = prefix_len(v[0].where);
  for (size_t i = 1; i < n && pl > 0; i++)
    if (strncmp(v[i].where, v[0].where, pl) != 0)
      pl = 0;
  /* names from the bundle: escaped for the terminal (np_text.h) */
  if (pl > 0)
    np_text_printf(fp, "%.*s", (int)pl, v[0].where);
  np_text_printf(fp, "%s (%zu entries: ", v[0].reason, n);
  for (size_t i = 0; i < n && i < GROUP_NAMED; i++)
    np_text_printf(fp, "%s%s", i ? ", " : "", v[i].where + pl);
  if (n > GROUP_NAMED)
    fprintf(fp, " and %zu more", n - GROUP_NAMED);
  fputs(")\n", fp);
}

void np_triage_print(struct np_triage *t, FILE *fp) {
  if (t->n == 0) /* qsort must not be given NULL, even for 0 items */
    return;
  qsort(t->v, t->n, sizeof *t->v, by_severity);
  for (size_t i = 0; i < t->n;) {
    size_t j = i;
    while (j < t->n && t->v[j].group == t->v[i].group)
      j++;
    if (j - i >= NP_TRIAGE_GROUP) {
      print_group(t->v + i, j - i, fp);
    } else {
      for (size_t k = i; k < j; k++)
        np_text_printf(fp, "%s: %s\n", t->v[k].where, t->v[k].reason);
    }
    i = j;
  }
  if (t->lost > 0)
    fprintf(fp, "(%zu more problem(s) not shown: out of memory)\n", t->lost);
  for (size_t i = 0; i < t->n; i++) {
    free(t->v[i].where);
    free(t->v[i].reason);
  }
  t->n = t->lost = 0;
}

void np_triage_free(struct np_triage *t) {
  if (t == NULL)
    return;
  for (size_t i = 0; i < t->n; i++) {
    free(t->v[i].where);
    free(t->v[i].reason);
  }
  free(t->v);
  free(t);
}
