/*
 * fec_alloc_count.h - the FEC no-allocation tests' malloc interposer:
 * malloc, calloc and realloc counted in g_allocs, glibc's __libc_* doing
 * the work.  Defines functions: include it from ONE test program's
 * source, which is the whole program (tests only; not registered under
 * the sanitizers, whose allocators it would bypass).
 */
#ifndef FEC_ALLOC_COUNT_H
#define FEC_ALLOC_COUNT_H

#include <stdlib.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t s);
extern void *__libc_realloc(void *p, size_t n);

/* Test-only counter; the library under test has no globals. */
static unsigned long g_allocs;

void *malloc(size_t n) {
  g_allocs++;
  return __libc_malloc(n);
}
void *calloc(size_t n, size_t s) {
  g_allocs++;
  return __libc_calloc(n, s);
}
void *realloc(void *p, size_t n) {
  g_allocs++;
  return __libc_realloc(p, n);
}

#endif /* FEC_ALLOC_COUNT_H */
