/*
 * np_exec_env.c - the program's whole environment, built from nothing:
 * the minimal set (PATH, HOME, LC_ALL), then --keep-env copies of our
 * variables, then --env values, a later entry replacing an earlier one of
 * the same name; sorted by name so a record lists it in one order.
 */
#include "np_exec_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void np_exec_env_free(struct np_exec_env *e) {
  if (e == NULL)
    return;
  for (size_t i = 0; i < e->n; i++)
    free(e->vars[i]);
  memset(e, 0, sizeof *e);
}

/* NAME=VALUE into e, replacing NAME's earlier value. */
static int put(struct np_exec_env *e, const char *name, size_t nlen,
               const char *value) {
  size_t vlen = strlen(value);
  char *v = malloc(nlen + vlen + 2);
  if (v == NULL)
    return NP_ENOMEM;
  memcpy(v, name, nlen);
  v[nlen] = '=';
  memcpy(v + nlen + 1, value, vlen + 1);
  for (size_t i = 0; i < e->n; i++)
    if (strncmp(e->vars[i], name, nlen) == 0 && e->vars[i][nlen] == '=') {
      free(e->vars[i]);
      e->vars[i] = v;
      return 0;
    }
  if (e->n >= NP_EXEC_ENV_SLOTS) {
    free(v);
    return NP_ERANGE;
  }
  e->vars[e->n++] = v;
  e->vars[e->n] = NULL;
  return 0;
}

static int cmp_var(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int np_exec_env_build(const struct np_exec_config *cfg,
                      struct np_exec_env *out, struct np_errbuf *eb) {
  struct np_exec_env e;
  memset(&e, 0, sizeof e);
  const char *home = getenv("HOME");
  int rc = put(&e, "PATH", 4, NP_EXEC_DEFAULT_PATH);
  if (rc == 0)
    rc = put(&e, "HOME", 4, home != NULL && home[0] ? home : "/");
  if (rc == 0)
    rc = put(&e, "LC_ALL", 6, "C");
  for (unsigned i = 0; rc == 0 && i < cfg->nkeep_env; i++) {
    const char *name = cfg->keep_env[i], *val = getenv(name);
    if (val != NULL)
      rc = put(&e, name, strlen(name), val);
    else if (e.nunset < NP_EXEC_MAX_ENV)
      e.unset[e.nunset++] = name;
  }
  for (unsigned i = 0; rc == 0 && i < cfg->nenv; i++) {
    const char *eq = strchr(cfg->env[i], '=');
    rc = put(&e, cfg->env[i], (size_t)(eq - cfg->env[i]), eq + 1);
  }
  if (rc != 0) {
    np_exec_env_free(&e);
    return np_errbuf_set(eb, rc, "environment: %s", np_strerror(rc));
  }
  /* names are unique, so byte order of the entries is one fixed order */
  qsort(e.vars, e.n, sizeof e.vars[0], cmp_var);
  *out = e;
  return 0;
}
