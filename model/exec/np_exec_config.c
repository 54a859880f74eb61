/*
 * np_exec_config.c - the command line after the options: "--", PROGRAM
 * resolved the way execvp would (but through the program's own PATH, not
 * ours), and where the kept output goes (see np_exec_config.h).
 */
#include "np_exec_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int np_exec_config_split(int argc, char **argv, int *nopts,
                         struct np_errbuf *eb) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") != 0)
      continue;
    if (i + 1 >= argc)
      return np_errbuf_set(eb, NP_EUSAGE,
                           "nothing after '--': give the program to run "
                           "(exec [options] -- PROGRAM [ARGS...])");
    *nopts = i;
    return 0;
  }
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0) {
      *nopts = argc; /* --help alone needs no program */
      return 0;
    }
  return np_errbuf_set(eb, NP_EUSAGE,
                       "no program: exec [options] -- PROGRAM [ARGS...]");
}

const char *np_exec_config_path_var(const struct np_exec_config *cfg) {
  for (unsigned i = cfg->nenv; i-- > 0;) /* the last --env PATH= wins */
    if (strncmp(cfg->env[i], "PATH=", 5) == 0)
      return cfg->env[i] + 5;
  for (unsigned i = 0; i < cfg->nkeep_env; i++)
    if (strcmp(cfg->keep_env[i], "PATH") == 0 && getenv("PATH") != NULL)
      return getenv("PATH");
  return NP_EXEC_DEFAULT_PATH;
}

const struct np_exec_metric_spec *
np_exec_config_metric(const struct np_exec_config *cfg, const char *name) {
  for (unsigned i = 0; i < cfg->nmetric; i++)
    if (strcmp(cfg->metric[i].name, name) == 0)
      return &cfg->metric[i];
  return NULL;
}

/* 0 when path is an executable regular file; else the reason. */
static const char *runnable(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0)
    return strerror(errno);
  if (!S_ISREG(st.st_mode))
    return "not a regular file";
  if (access(path, X_OK) != 0)
    return "not executable";
  return NULL;
}

/* A name without '/' through the PATH list; *out the first hit. */
static int search(const char *name, const char *pathvar, char *out,
                  size_t len) {
  const char *p = pathvar;
  while (*p) {
    size_t n = strcspn(p, ":");
    char cand[PATH_MAX];
    /* an empty entry means the working directory, as in execvp */
    int k = n == 0 ? snprintf(cand, sizeof cand, "./%s", name)
                   : snprintf(cand, sizeof cand, "%.*s/%s", (int)n, p, name);
    if (k > 0 && (size_t)k < sizeof cand && runnable(cand) == NULL) {
      snprintf(out, len, "%s", cand);
      return 0;
    }
    p += n;
    if (*p == ':')
      p++;
  }
  return -1;
}

int np_exec_config_program(struct np_exec_config *cfg, int argc,
                           char *const *argv, struct np_errbuf *eb) {
  const char *prog = argv[0];
  char found[PATH_MAX];
  errno = 0;
  if (prog[0] == '\0')
    return np_errbuf_set(eb, NP_EUSAGE, "PROGRAM '': empty name");
  if (strchr(prog, '/') != NULL) {
    const char *why = runnable(prog);
    if (why != NULL)
      return np_errbuf_set(eb, NP_EUSAGE, "PROGRAM '%s': %s", prog, why);
    snprintf(found, sizeof found, "%s", prog);
  } else if (search(prog, np_exec_config_path_var(cfg), found,
                    sizeof found) != 0) {
    return np_errbuf_set(eb, NP_EUSAGE,
                         "PROGRAM '%s': not found in the program's PATH (%s)",
                         prog, np_exec_config_path_var(cfg));
  }
  struct stat st;
  if (cfg->cwd != NULL && (stat(cfg->cwd, &st) != 0 || !S_ISDIR(st.st_mode)))
    return np_errbuf_set(eb, NP_EUSAGE, "--cwd %s: %s", cfg->cwd,
                         errno ? strerror(errno) : "not a folder");
  if (realpath(found, cfg->path) == NULL)
    return np_errbuf_set(eb, NP_EUSAGE, "PROGRAM '%s': %s", prog,
                         strerror(errno));
  const char *keep = cfg->keep;
  size_t n;
  if (keep == NULL) {
    if (cfg->output == NULL || strcmp(cfg->output, "-") == 0) {
      cfg->keep_prefix[0] = '\0'; /* a temporary folder, made at run time
                                    * by the CLI (np_exec_cli.c) */
      cfg->prog_argv = argv;
      cfg->prog_argc = argc;
      return 0;
    }
    keep = cfg->output;
    n = strlen(keep);
    if (n > 5 && strcmp(keep + n - 5, ".json") == 0)
      n -= 5;
  } else {
    n = strlen(keep);
  }
  if (n + 32 >= sizeof cfg->keep_prefix)
    return np_errbuf_set(eb, NP_EUSAGE, "--keep '%s': too long", keep);
  memcpy(cfg->keep_prefix, keep, n);
  cfg->keep_prefix[n] = '\0';
  cfg->prog_argv = argv;
  cfg->prog_argc = argc;
  return 0;
}
