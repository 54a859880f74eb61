/*
 * main.c - netproof-archive: argument parsing over np_archive.
 *
 *   netproof-archive pack DIR... -o BUNDLE.tar.gz [--name NAME] [--zlib]
 *   netproof-archive verify BUNDLE.tar.gz [LIMITS]
 *   netproof-archive list BUNDLE.tar.gz [LIMITS]
 *   netproof-archive extract BUNDLE.tar.gz -C DEST [LIMITS]
 *   netproof-archive snapshot -o DIR
 * LIMITS: --max-entries N --max-file-bytes N --max-bytes N --max-ratio N
 * Exit: 0 valid/done, 1 invalid bundle, 2 usage or unreadable input,
 * 3 run-time failure (I/O while writing, memory).
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_archive.h"
#include "np_identity.h"

#define MAX_DIRS 256

struct cli {
  const char *cmd;
  const char *bundle;      /* verify/list/extract */
  const char *out;         /* -o */
  const char *dest;        /* -C */
  const char *name;        /* --name */
  int use_zlib;            /* --zlib */
  const char *dirs[MAX_DIRS];
  size_t ndirs;
  struct np_archive_limits lim;
};

static void usage(FILE *fp) {
  fputs("usage: netproof-archive pack DIR... -o BUNDLE.tar.gz [--name NAME] [--zlib]\n"
        "       netproof-archive verify BUNDLE.tar.gz [LIMITS]\n"
        "       netproof-archive list BUNDLE.tar.gz [LIMITS]\n"
        "       netproof-archive extract BUNDLE.tar.gz -C DEST [LIMITS]\n"
        "       netproof-archive snapshot -o DIR\n"
        "       netproof-archive --help | --version\n"
        "LIMITS: --max-entries N (200000)  --max-file-bytes N (268435456)\n"
        "        --max-bytes N (1073741824)  --max-ratio N (200)\n"
        "exit: 0 ok/valid, 1 invalid bundle, 2 usage or unreadable input, "
        "3 run-time error\n",
        fp);
}

/* One positive integer option value: 0 or NP_EUSAGE (message printed). */
static int parse_u64(const char *flag, const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s ? s : "", &end, 10);
  if (s == NULL || *s == '\0' || *s == '-' || *end != '\0' || errno != 0 ||
      v == 0) {
    fprintf(stderr, "netproof-archive: %s: expected a positive integer\n",
            flag);
    return NP_EUSAGE;
  }
  *out = v;
  return 0;
}

/* argv into c: 0 or NP_EUSAGE (one line printed). */
static int parse_args(int argc, char **argv, struct cli *c) {
  np_archive_limits_default(&c->lim);
  c->cmd = argv[1];
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int takes = 1, rc = 0;
    if (strcmp(a, "-o") == 0 && v)
      c->out = v;
    else if (strcmp(a, "-C") == 0 && v)
      c->dest = v;
    else if (strcmp(a, "--name") == 0 && v)
      c->name = v;
    else if (strcmp(a, "--zlib") == 0) {
      c->use_zlib = 1;
      takes = 0;
    } else if (strcmp(a, "--max-entries") == 0)
      rc = parse_u64(a, v, &c->lim.max_entries);
    else if (strcmp(a, "--max-file-bytes") == 0)
      rc = parse_u64(a, v, &c->lim.max_file_bytes);
    else if (strcmp(a, "--max-bytes") == 0)
      rc = parse_u64(a, v, &c->lim.max_total_bytes);
    else if (strcmp(a, "--max-ratio") == 0)
      rc = parse_u64(a, v, &c->lim.max_ratio);
    else if (a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, "netproof-archive: unknown option or missing value: "
                      "%s\n", a);
      return NP_EUSAGE;
    } else {
      takes = 0;
      if (c->ndirs == MAX_DIRS) {
        fprintf(stderr, "netproof-archive: too many arguments\n");
        return NP_EUSAGE;
      }
      c->dirs[c->ndirs++] = a;
    }
    if (rc != 0)
      return NP_EUSAGE;
    i += takes;
  }
  if (c->ndirs > 0)
    c->bundle = c->dirs[0];
  return 0;
}

static void print_problem(void *ctx, const char *where, const char *reason) {
  (void)ctx;
  fprintf(stderr, "%s: %s\n", where, reason);
}

/* Exit code for a library result. */
static int exit_for(int rc) {
  switch (rc) {
  case 0:
    return NP_EXIT_OK;
  case NP_ECORRUPT:
    return NP_EXIT_FAIL;
  case NP_EUSAGE:
  case NP_EINVAL:
  case NP_ENOENT:
  case NP_EACCES:
  case NP_EISDIR:
  case NP_ENOTDIR:
  case NP_EEXIST:
  case NP_ETOOBIG:
  case NP_EIO:
    return NP_EXIT_USAGE;
  default:
    return NP_EXIT_RUNTIME;
  }
}

static int run(struct cli *c) {
  struct np_errbuf eb = {{0}};
  int rc;
  const char *cmd = c->cmd;
  int one = c->ndirs == 1;
  if (strcmp(cmd, "pack") == 0 && c->ndirs > 0 && c->out) {
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    struct np_archive_pack_opts o = {.dirs = c->dirs, .ndirs = c->ndirs,
                                     .out = c->out, .name = c->name,
                                     .max_total_bytes = c->lim.max_total_bytes,
                                     .use_zlib = c->use_zlib};
    if (sde != NULL && sde[0] != '\0') {
      char *end;
      long long v = strtoll(sde, &end, 10);
      if (*end != '\0' || v < 0) {
        fprintf(stderr, "netproof-archive: SOURCE_DATE_EPOCH: not a "
                        "non-negative integer\n");
        return NP_EXIT_USAGE;
      }
      o.has_source_date_epoch = 1;
      o.source_date_epoch = v;
    }
    rc = np_archive_pack(&o, &eb);
  } else if (strcmp(cmd, "verify") == 0 && one) {
    rc = np_archive_verify(c->bundle, &c->lim, print_problem, NULL, &eb);
    if (rc == 0)
      printf("%s: valid\n", c->bundle);
  } else if (strcmp(cmd, "list") == 0 && one) {
    rc = np_archive_list(c->bundle, &c->lim, print_problem, NULL, &eb);
  } else if (strcmp(cmd, "extract") == 0 && one && c->dest) {
    rc = np_archive_extract(c->bundle, c->dest, &c->lim, print_problem, NULL,
                            &eb);
  } else if (strcmp(cmd, "snapshot") == 0 && c->ndirs == 0 && c->out) {
    rc = np_archive_snapshot(c->out, &eb);
  } else {
    usage(stderr);
    return NP_EXIT_USAGE;
  }
  if (rc != 0 && eb.msg[0] != '\0')
    fprintf(stderr, "netproof-archive: %s\n", eb.msg);
  return exit_for(rc);
}

/* The bundle lives in memory while it is packed or verified; on VMs a page
 * fault per 4 KiB of it costs more than the hashing and inflating together
 * (measured: verify of 100 MiB 1.04 s -> 0.40 s CPU).  glibc backs malloc
 * with transparent huge pages only when told at start-up, so the process
 * re-executes itself once with that tunable set; if that fails it simply
 * carries on.  NP_ARCHIVE_NO_THP=1 disables this. */
static void maybe_reexec_with_thp(char **argv) {
  const char *cur = getenv("GLIBC_TUNABLES");
  if (getenv("NP_ARCHIVE_NO_THP") != NULL || getenv("NP_ARCHIVE_THP") != NULL ||
      (cur != NULL && strstr(cur, "glibc.malloc.hugetlb") != NULL))
    return;
  char val[1024];
  if (cur != NULL && cur[0] != '\0')
    snprintf(val, sizeof(val), "%s:glibc.malloc.hugetlb=1", cur);
  else
    snprintf(val, sizeof(val), "glibc.malloc.hugetlb=1");
  if (setenv("GLIBC_TUNABLES", val, 1) != 0 ||
      setenv("NP_ARCHIVE_THP", "1", 1) != 0)
    return;
  execv("/proc/self/exe", argv); /* returns only on failure */
}

int main(int argc, char **argv) {
  if (argc >= 2 && (strcmp(argv[1], "pack") == 0 ||
                    strcmp(argv[1], "verify") == 0 ||
                    strcmp(argv[1], "list") == 0 ||
                    strcmp(argv[1], "extract") == 0))
  {
    maybe_reexec_with_thp(argv);
    /* Grow the heap in 64 MiB steps: fewer brk/madvise calls while the
     * bundle is loaded file by file. */
    mallopt(M_TOP_PAD, 64 << 20);
  }
  if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
    np_identity_print_version(stdout, "netproof-archive");
    return NP_EXIT_OK;
  }
  if (argc >= 2 && (strcmp(argv[1], "--help") == 0 ||
                    strcmp(argv[1], "-h") == 0)) {
    usage(stdout);
    return NP_EXIT_OK;
  }
  struct cli c = {0};
  if (argc < 2 || parse_args(argc, argv, &c) != 0) {
    usage(stderr);
    return NP_EXIT_USAGE;
  }
  return run(&c);
}
