/*
 * np_bag.c - the bag model and its file lists (see np_bag.h).
 */
#include "np_bag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int np_bag_name_ok(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > 200 || s[0] == '.')
    return 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
      return 0;
  }
  return 1;
}

int np_bag_new(const char *name, struct np_bag **out) {
  struct np_bag *b = calloc(1, sizeof(*b));
  if (b == NULL)
    return NP_ENOMEM;
  b->name = strdup(name);
  if (b->name == NULL || np_ftree_new(&b->tags) != 0) {
    np_bag_free(b);
    return NP_ENOMEM;
  }
  *out = b;
  return 0;
}

void np_bag_free(struct np_bag *b) {
  if (b == NULL)
    return;
  for (size_t i = 0; i < b->nsuites; i++) {
    free(b->suites[i].name);
    np_ftree_free(b->suites[i].tree);
  }
  free(b->suites);
  np_ftree_free(b->tags);
  free(b->name);
  free(b);
}

/* Index where name is or would be inserted; *found set when present. */
static size_t bag_suite_pos(const struct np_bag *b, const char *name,
                            int *found) {
  size_t lo = 0, hi = b->nsuites;
  *found = 0;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(b->suites[mid].name, name);
    if (c == 0) {
      *found = 1;
      return mid;
    }
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int bag_suite_insert(struct np_bag *b, size_t pos, const char *name,
                            struct np_ftree *tree) {
  if (b->nsuites == b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 8;
    struct np_bag_suite *v = realloc(b->suites, cap * sizeof(*v));
    if (v == NULL)
      return NP_ENOMEM;
    b->suites = v;
    b->cap = cap;
  }
  char *copy = strdup(name);
  if (copy == NULL)
    return NP_ENOMEM;
  memmove(&b->suites[pos + 1], &b->suites[pos],
          (b->nsuites - pos) * sizeof(b->suites[0]));
  b->suites[pos].name = copy;
  b->suites[pos].tree = tree;
  b->nsuites++;
  return 0;
}

int np_bag_suite(struct np_bag *b, const char *name, struct np_ftree **out) {
  if (!np_bag_name_ok(name))
    return NP_EINVAL;
  int found;
  size_t pos = bag_suite_pos(b, name, &found);
  if (found) {
    *out = b->suites[pos].tree;
    return 0;
  }
  struct np_ftree *t;
  int rc = np_ftree_new(&t);
  if (rc != 0)
    return rc;
  rc = bag_suite_insert(b, pos, name, t);
  if (rc != 0) {
    np_ftree_free(t);
    return rc;
  }
  *out = t;
  return 0;
}

int np_bag_suite_adopt(struct np_bag *b, const char *name,
                       struct np_ftree *tree) {
  if (!np_bag_name_ok(name))
    return NP_EINVAL;
  int found;
  size_t pos = bag_suite_pos(b, name, &found);
  if (found)
    return NP_EEXIST;
  return bag_suite_insert(b, pos, name, tree);
}

static int bag_file_cmp(const void *a, const void *b) {
  return strcmp(((const struct np_bag_file *)a)->path,
                ((const struct np_bag_file *)b)->path);
}

/* Make room for one more entry. */
static int bag_files_grow(struct np_bag_files *f) {
  if (f->n < f->cap)
    return 0;
  size_t ncap = f->cap ? f->cap * 2 : 64;
  struct np_bag_file *v = realloc(f->v, ncap * sizeof(*v));
  if (v == NULL)
    return NP_ENOMEM;
  f->v = v;
  f->cap = ncap;
  return 0;
}

static int bag_files_add(struct np_bag_files *f, const char *prefix,
                         const char *path, const char *data, size_t len) {
  if (bag_files_grow(f) != 0)
    return NP_ENOMEM;
  struct np_bag_file *e = &f->v[f->n];
  size_t need = strlen(prefix) + strlen(path) + 1;
  e->path = malloc(need);
  if (e->path == NULL)
    return NP_ENOMEM;
  snprintf(e->path, need, "%s%s", prefix, path);
  e->data = data;
  e->len = len;
  e->facts = NULL;
  int rc = np_sha256_buf(data, len, e->sha256);
  if (rc != 0) {
    free(e->path);
    return rc;
  }
  f->n++;
  f->bytes += len;
  return 0;
}

int np_bag_files_push(struct np_bag_files *f, const char *path, size_t len,
                      const char sha256[NP_SHA256_HEX_SIZE], cJSON *facts) {
  char *copy = strdup(path);
  if (copy == NULL || bag_files_grow(f) != 0) {
    free(copy);
    cJSON_Delete(facts);
    return NP_ENOMEM;
  }
  struct np_bag_file *e = &f->v[f->n++];
  e->path = copy;
  e->data = NULL;
  e->len = len;
  memcpy(e->sha256, sha256, NP_SHA256_HEX_SIZE);
  e->facts = facts;
  f->bytes += len;
  return 0;
}

static int bag_files_add_tree(struct np_bag_files *f, const char *prefix,
                              const struct np_ftree *t) {
  size_t n = np_ftree_count(t);
  for (size_t i = 0; i < n; i++) {
    const char *p = np_ftree_path_at(t, i);
    size_t len = 0;
    const char *d = np_ftree_get(t, p, &len);
    int rc = bag_files_add(f, prefix, p, d, len);
    if (rc != 0)
      return rc;
  }
  return 0;
}

int np_bag_files_list(const struct np_bag *b, int with_tags,
                      struct np_bag_files *out) {
  struct np_bag_files f = {0};
  int rc = 0;
  if (with_tags) {
    rc = bag_files_add_tree(&f, "", b->tags);
  } else {
    for (size_t i = 0; i < b->nsuites && rc == 0; i++) {
      char prefix[256];
      snprintf(prefix, sizeof(prefix), "data/%s/", b->suites[i].name);
      rc = bag_files_add_tree(&f, prefix, b->suites[i].tree);
    }
  }
  if (rc != 0) {
    np_bag_files_free(&f);
    return rc;
  }
  np_bag_files_sort(&f);
  *out = f;
  return 0;
}

void np_bag_files_sort(struct np_bag_files *f) {
  if (f->n > 1)
    qsort(f->v, f->n, sizeof(f->v[0]), bag_file_cmp);
}

void np_bag_files_free(struct np_bag_files *f) {
  if (f == NULL)
    return;
  for (size_t i = 0; i < f->n; i++) {
    free(f->v[i].path);
    cJSON_Delete(f->v[i].facts);
  }
  free(f->v);
  f->v = NULL;
  f->n = f->cap = 0;
  f->bytes = 0;
}

const struct np_bag_file *np_bag_files_find(const struct np_bag_files *f,
                                            const char *path) {
  size_t lo = 0, hi = f->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(f->v[mid].path, path);
    if (c == 0)
      return &f->v[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}
