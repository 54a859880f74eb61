/*
 * np_exec_env.h - the environment a program runs with under
 * `netproof-bench exec`: nothing of ours but the documented minimal set
 * (PATH=NP_EXEC_DEFAULT_PATH, HOME = ours or "/", LC_ALL=C so numbers
 * print with a '.'), the variables --keep-env names (those we do not have
 * are listed as unset), then --env NAME=VALUE.  The record lists every
 * entry.
 *
 * Ownership: the entries are malloc'd and freed by np_exec_env_free.
 */
#ifndef NP_EXEC_ENV_H
#define NP_EXEC_ENV_H

#include <stddef.h>

#include "np_err.h"
#include "np_exec_config.h"

#define NP_EXEC_ENV_SLOTS (NP_EXEC_MAX_ENV + 3) /* + the minimal set */

struct np_exec_env {
  char *vars[NP_EXEC_ENV_SLOTS + 1];   /* "NAME=VALUE", sorted, NULL-ended */
  size_t n;                            /* entries in vars                  */
  const char *unset[NP_EXEC_MAX_ENV];  /* --keep-env names we do not have  */
  size_t nunset;                       /* entries in unset                 */
};

/* Build it for cfg into *out (written on success).  NP_ENOMEM. */
int np_exec_env_build(const struct np_exec_config *cfg,
                      struct np_exec_env *out, struct np_errbuf *eb);

/* Free the entries and zero *e; accepts NULL. */
void np_exec_env_free(struct np_exec_env *e);

#endif /* NP_EXEC_ENV_H */
