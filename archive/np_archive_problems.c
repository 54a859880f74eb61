/*
 * np_archive_problems.c - the problem collector every check of a bundle
 * reports through (np_archive_problems.h): it prefixes the bundle name,
 * drops exact repeats and stops reporting after NP_ARCHIVE_MAX_PROBLEMS.
 * It depends on nothing else in the archive, so the reader, the content
 * checks and the self-check seam all call down into it.
 */
#include "np_archive_problems.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void np_problems_init(struct np_problems *p, const char *bundle,
                      np_archive_problem_fn fn, void *ctx) {
  memset(p, 0, sizeof(*p));
  p->bundle = bundle;
  p->fn = fn;
  p->ctx = ctx;
}

void np_problems_free(struct np_problems *p) {
  for (size_t i = 0; i < p->nseen; i++)
    free(p->seen[i]);
  free(p->seen);
  p->seen = NULL;
  p->nseen = p->cap = 0;
}

void np_problem(struct np_problems *p, const char *entry, const char *fmt,
                ...) {
  char where[4400], reason[1024], line[5500];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof(reason), fmt, ap);
  va_end(ap);
  if (entry != NULL)
    snprintf(where, sizeof(where), "%s: %s", p->bundle, entry);
  else
    snprintf(where, sizeof(where), "%s", p->bundle);
  snprintf(line, sizeof(line), "%s\n%s", where, reason);
  for (size_t i = 0; i < p->nseen; i++)
    if (strcmp(p->seen[i], line) == 0)
      return;
  if (p->count > NP_ARCHIVE_MAX_PROBLEMS)
    return;
  p->count++;
  if (p->count > NP_ARCHIVE_MAX_PROBLEMS) {
    if (p->fn)
      p->fn(p->ctx, p->bundle, "too many problems; stopped reporting");
    return;
  }
  if (p->nseen == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 16;
    char **v = realloc(p->seen, cap * sizeof(*v));
    if (v != NULL) {
      p->seen = v;
      p->cap = cap;
    }
  }
  if (p->nseen < p->cap && (p->seen[p->nseen] = strdup(line)) != NULL)
    p->nseen++;
  if (p->fn)
    p->fn(p->ctx, where, reason);
}
