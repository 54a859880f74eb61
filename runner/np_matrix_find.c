/*
 * np_matrix_find.c - a plan given by name resolved to its file (the
 * lookup order is in np_matrix_find.h).  The folders come from the caller
 * so tests can point every step at a folder of their own; the CLI passes
 * the compiled-in ones (NP_PLANS_REL, NP_PLANS_DIR from
 * cmake/np_install.cmake).
 */
#include "np_matrix_find.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_file.h"

#ifndef NP_PLANS_REL
#define NP_PLANS_REL "../share/netproof/plans"
#endif
#ifndef NP_PLANS_DIR
#define NP_PLANS_DIR "/usr/local/share/netproof/plans"
#endif

#define MAX_DIRS 3

void np_matrix_find_dirs_default(struct np_matrix_find_dirs *d,
                                 const char *override) {
  memset(d, 0, sizeof *d);
  d->override = override;
  d->rel = NP_PLANS_REL;
  d->installed = NP_PLANS_DIR;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

int np_matrix_find_is_name(const char *arg) {
  return strchr(arg, '/') == NULL && !ends_with(arg, ".json");
}

static int name_ok(const char *s) {
  if (s[0] == '\0' || s[0] == '.')
    return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
          (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-'))
      return 0;
  return 1;
}

/* The folders to try, in order, without repeats. */
struct tried {
  char dir[MAX_DIRS][PATH_MAX];
  size_t n;
};

static void add_dir(struct tried *t, const char *dir) {
  char a[PATH_MAX], b[PATH_MAX];
  const char *ra = realpath(dir, a) ? a : dir;
  for (size_t i = 0; i < t->n; i++) {
    const char *rb = realpath(t->dir[i], b) ? b : t->dir[i];
    if (strcmp(ra, rb) == 0)
      return; /* the same folder twice (rel and installed agree) */
  }
  if (t->n < MAX_DIRS &&
      (size_t)snprintf(t->dir[t->n], PATH_MAX, "%s", dir) < PATH_MAX)
    t->n++;
}

/* The source tree named by the build-tree mark in exe_dir, into src;
 * 0 when there is none (an installed program). */
static int source_tree(const char *exe_dir, char *src, size_t len) {
  char mark[PATH_MAX];
  char *text = NULL;
  size_t n = 0;
  if ((size_t)snprintf(mark, sizeof mark, "%s/%s", exe_dir,
                       NP_MATRIX_SOURCE_MARK) >= sizeof mark ||
      np_file_read_all(mark, PATH_MAX, &text, &n, NULL) != 0)
    return 0;
  while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
    text[--n] = '\0';
  int ok = n > 0 && text[0] == '/' && strchr(text, '\n') == NULL &&
           (size_t)snprintf(src, len, "%s", text) < len;
  free(text);
  return ok;
}

static void collect(const struct np_matrix_find_dirs *d, struct tried *t) {
  char exe[PATH_MAX], src[PATH_MAX], dir[PATH_MAX];
  if (d->override != NULL) {
    add_dir(t, d->override);
    return;
  }
  if (realpath(d->exe != NULL ? d->exe : "/proc/self/exe", exe) != NULL) {
    char *slash = strrchr(exe, '/');
    if (slash != NULL)
      *(slash == exe ? slash + 1 : slash) = '\0';
    if (source_tree(exe, src, sizeof src)) {
      if ((size_t)snprintf(dir, sizeof dir, "%s/bench/plans", src) <
          sizeof dir)
        add_dir(t, dir);
      return; /* a build tree uses its own sources' plans only */
    }
    if (d->rel != NULL &&
        (size_t)snprintf(dir, sizeof dir, "%s/%s", exe, d->rel) < sizeof dir)
      add_dir(t, dir);
  }
  if (d->installed != NULL)
    add_dir(t, d->installed);
}

int np_matrix_find_plan(const char *arg, const struct np_matrix_find_dirs *d,
                        char *path, size_t len, struct np_errbuf *eb) {
  if (!np_matrix_find_is_name(arg)) {
    if (d->override != NULL)
      return np_errbuf_set(eb, NP_EUSAGE,
                           "--plans-dir %s: applies to a plan given by name, "
                           "and '%s' is a path",
                           d->override, arg);
    if (strlen(arg) >= len)
      return np_errbuf_set(eb, NP_ERANGE, "%s: path too long", arg);
    memcpy(path, arg, strlen(arg) + 1);
    return 0;
  }
  if (!name_ok(arg))
    return np_errbuf_set(eb, NP_EUSAGE,
                         "plan name '%s': expected letters, digits, '.', '_' "
                         "or '-', not starting with '.' (or a path to a "
                         ".json file)",
                         arg);
  struct tried *t = calloc(1, sizeof *t);
  if (t == NULL)
    return np_errbuf_set(eb, NP_ENOMEM, "out of memory");
  collect(d, t);
  char cand[PATH_MAX];
  for (size_t i = 0; i < t->n; i++) {
    if ((size_t)snprintf(cand, sizeof cand, "%s/%s.json", t->dir[i], arg) >=
        sizeof cand)
      continue;
    if (access(cand, F_OK) == 0) {
      int rc = strlen(cand) < len
                   ? 0
                   : np_errbuf_set(eb, NP_ERANGE, "%s: path too long", cand);
      if (rc == 0)
        memcpy(path, cand, strlen(cand) + 1);
      free(t);
      return rc;
    }
  }
  char where[3 * 160] = "";
  for (size_t i = 0; i < t->n; i++) {
    size_t used = strlen(where);
    snprintf(where + used, sizeof where - used, "%s%s", i ? ", " : "",
             t->dir[i]);
  }
  int rc = np_errbuf_set(eb, NP_ENOENT,
                         "plan '%s': no %s.json in %s (a path, or "
                         "--plans-dir DIR, reads another)",
                         arg, arg, t->n ? where : "any plans folder");
  free(t);
  return rc;
}
