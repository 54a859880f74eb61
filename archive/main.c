/*
 * main.c - netproof-archive: argument parsing over np_archive.
 *
 *   netproof-archive pack DIR... --output BUNDLE.tar.gz [--name NAME] [--zlib]
 *   netproof-archive verify BUNDLE.tar.gz [--pubkey PUB.pem] [LIMITS]
 *   netproof-archive list BUNDLE.tar.gz [--pubkey PUB.pem] [LIMITS]
 *   netproof-archive extract BUNDLE.tar.gz -C DEST [--pubkey PUB.pem] [LIMITS]
 *   netproof-archive keygen --out KEY.pem
 *   netproof-archive sign BUNDLE.tar.gz --key KEY.pem [--sig FILE]
 *   netproof-archive snapshot --output DIR
 * (-o and --out are --output's other spellings.)  A usage error is one
 * line ending "(try --help)"; --help prints the whole usage.
 * LIMITS: --max-entries N --max-file-bytes N --max-bytes N --max-ratio N
 * Exit: 0 valid/done, 1 invalid bundle or a set that fails its self-check,
 * 2 usage or unreadable input, 3 run-time failure (I/O while writing,
 * memory), 4 an incomplete result set (pack without --allow-incomplete;
 * verify of a bundle packed with it).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "np_archive.h"
#include "np_archive_triage.h"
#include "np_identity.h"
#include "np_opt.h"
#include "np_text.h"

#define MAX_DIRS 256

struct cli {
  const char *cmd;
  const char *bundle;      /* verify/list/extract */
  const char *out;         /* --output (-o, --out) */
  const char *dest;        /* -C */
  const char *name;        /* --name */
  const char *key;         /* --key (sign) */
  const char *pubkey;      /* --pubkey (verify, list, extract) */
  const char *sig;         /* --sig (sign, verify, list, extract) */
  int use_zlib;            /* --zlib */
  int allow_incomplete;    /* --allow-incomplete (pack) */
  const char *dirs[MAX_DIRS];
  size_t ndirs;
  struct np_archive_limits lim;
};

/* The commands, and the one-line usage a usage error of each repeats. */
static const struct {
  const char *name, *synopsis;
} commands[] = {
    {"pack", "DIR... --output BUNDLE.tar.gz [--name NAME] [--zlib] "
             "[--allow-incomplete]"},
    {"verify", "BUNDLE.tar.gz [--pubkey PUB.pem [--sig FILE]] [LIMITS]"},
    {"list", "BUNDLE.tar.gz [--pubkey PUB.pem [--sig FILE]] [LIMITS]"},
    {"extract", "BUNDLE.tar.gz -C DEST [--pubkey PUB.pem [--sig FILE]] "
                "[LIMITS]"},
    {"keygen", "--output KEY.pem"},
    {"sign", "BUNDLE.tar.gz --key KEY.pem [--sig FILE]"},
    {"snapshot", "--output DIR"},
};
#define NCOMMANDS (sizeof commands / sizeof *commands)

/* The options parse_args takes, for "did you mean". */
static const char *const options[] = {
    "--output", "-o", "--out", "--key", "--pubkey", "--sig",
    "--allow-incomplete", "-C", "--name", "--zlib", "--max-entries",
    "--max-file-bytes", "--max-bytes", "--max-ratio", "--help", "--version"};

static int is_option(const char *a) {
  for (size_t i = 0; i < sizeof options / sizeof *options; i++)
    if (strcmp(a, options[i]) == 0)
      return 1;
  return 0;
}

static void usage(FILE *fp) {
  fputs("usage: netproof-archive pack DIR... --output BUNDLE.tar.gz "
        "[--name NAME] [--zlib] [--allow-incomplete]\n"
        "       netproof-archive verify BUNDLE.tar.gz [SIGNATURE] [LIMITS]\n"
        "       netproof-archive list BUNDLE.tar.gz [SIGNATURE] [LIMITS]\n"
        "       netproof-archive extract BUNDLE.tar.gz -C DEST [SIGNATURE] "
        "[LIMITS]\n"
        "       netproof-archive keygen --out KEY.pem   (also writes "
        "KEY.pub.pem)\n"
        "       netproof-archive sign BUNDLE.tar.gz --key KEY.pem [--sig "
        "FILE]\n"
        "       netproof-archive snapshot --output DIR\n"
        "       netproof-archive --help | --version\n"
        "--output FILE (also -o, or --out for keygen) names what is "
        "written\n"
        "pack runs the result-set self-check on every DIR and refuses a set "
        "that fails it\n"
        "SIGNATURE: --pubkey PUB.pem [--sig FILE]  (FILE defaults to "
        "BUNDLE.tar.gz.sig)\n"
        "LIMITS: --max-entries N (200000)  --max-file-bytes N (268435456)\n"
        "        --max-bytes N (1073741824)  --max-ratio N (200)\n"
        "exit: 0 ok/valid, 1 invalid bundle, bad signature or a set that "
        "fails its self-check,\n"
        "      2 usage or unreadable input, 3 run-time error, 4 an "
        "incomplete result set\n"
        "      (pack refuses one unless --allow-incomplete; verify of a "
        "bundle that holds one)\n",
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
    if ((strcmp(a, "-o") == 0 || strcmp(a, "--out") == 0 ||
         strcmp(a, "--output") == 0) && v)
      c->out = v;
    else if (strcmp(a, "--key") == 0 && v)
      c->key = v;
    else if (strcmp(a, "--pubkey") == 0 && v)
      c->pubkey = v;
    else if (strcmp(a, "--sig") == 0 && v)
      c->sig = v;
    else if (strcmp(a, "--allow-incomplete") == 0) {
      c->allow_incomplete = 1;
      takes = 0;
    }
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
      struct np_errbuf eb = {{0}};
      if (is_option(a))
        np_errbuf_set(&eb, NP_EUSAGE, "%s needs a value (try --help)", a);
      else
        np_opt_unknown(&eb, "option", a, options,
                       sizeof options / sizeof *options);
      fprintf(stderr, "netproof-archive: %s\n", eb.msg);
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


/* A self-check problem, in netproof-report --self-check's form. */
static void print_check_problem(void *ctx, const char *file,
                                const char *pointer, const char *reason) {
  (void)ctx;
  np_text_printf(stderr, "%s: %s: %s\n", file, pointer[0] ? pointer : "/",
                 reason);
}

/* Exit code for a library result. */
static int exit_for(int rc) {
  switch (rc) {
  case 0:
    return NP_EXIT_OK;
  case NP_ECORRUPT:
  case NP_ECHECK:
    return NP_EXIT_FAIL;
  case NP_EINCOMPLETE:
    return NP_EXIT_INCOMPLETE;
  case NP_EUSAGE:
  case NP_EINVAL:
  case NP_ENOENT:
  case NP_EACCES:
  case NP_EISDIR:
  case NP_ENOTDIR:
  case NP_EEXIST:
  case NP_ETOOBIG:
  case NP_EIO:
  case NP_EUNSUPPORTED:
    return NP_EXIT_USAGE;
  default:
    return NP_EXIT_RUNTIME;
  }
}

/* pack: SOURCE_DATE_EPOCH, then np_archive_pack. */
static int run_pack(const struct cli *c, struct np_errbuf *eb) {
  const char *sde = getenv("SOURCE_DATE_EPOCH");
  struct np_archive_pack_opts o = {.dirs = c->dirs, .ndirs = c->ndirs,
                                   .out = c->out, .name = c->name,
                                   .max_total_bytes = c->lim.max_total_bytes,
                                   .use_zlib = c->use_zlib,
                                   .allow_incomplete = c->allow_incomplete,
                                   .on_problem = print_check_problem};
  if (sde != NULL && sde[0] != '\0') {
    char *end;
    long long v = strtoll(sde, &end, 10);
    if (*end != '\0' || v < 0)
      return np_errbuf_set(eb, NP_EUSAGE, "SOURCE_DATE_EPOCH: not a "
                                          "non-negative integer");
    o.has_source_date_epoch = 1;
    o.source_date_epoch = v;
  }
  struct np_archive_verdict v;
  int rc = np_archive_pack(&o, &v, eb);
  if (rc == 0 && v.incomplete > 0)
    fprintf(stderr, "netproof-archive: %s: packed with --allow-incomplete "
                    "(%zu incomplete result set(s), marked in evidence.json)"
                    "\n", v.incomplete_note, v.incomplete);
  return rc;
}

/* verify: the verdict line on stdout when valid. */
static int run_verify(const struct cli *c,
                      const struct np_archive_sigcheck *sc,
                      struct np_triage *tri, struct np_errbuf *eb) {
  struct np_archive_verdict v;
  int rc = np_archive_verify_ex(c->bundle, &c->lim, sc, np_triage_add, tri,
                                &v, eb);
  if (rc != 0)
    return rc;
  if (v.signer_sha256[0] != '\0' && v.sig_version == 1)
    printf("%s: valid, signed by key sha256 %s (%s), signed with the 0.2 "
           "rule (the tag manifest, not the bundle's bytes)\n",
           c->bundle, v.signer_sha256, c->pubkey);
  else if (v.signer_sha256[0] != '\0')
    printf("%s: valid, signed by key sha256 %s (%s)\n", c->bundle,
           v.signer_sha256, c->pubkey);
  else
    printf("%s: valid\n", c->bundle);
  if (v.incomplete > 0) { /* packed with --allow-incomplete, and marked */
    printf("%s: %zu incomplete result set(s): %s\n", c->bundle, v.incomplete,
           v.incomplete_note);
    return NP_EINCOMPLETE;
  }
  return 0;
}

/* A command given with the wrong operands: its synopsis, on one line; an
 * unknown command: the closest one. */
static int usage_error(const char *cmd) {
  const char *names[NCOMMANDS];
  for (size_t i = 0; i < NCOMMANDS; i++) {
    names[i] = commands[i].name;
    if (strcmp(cmd, commands[i].name) == 0) {
      fprintf(stderr, "netproof-archive %s: expected %s %s (try --help)\n",
              cmd, cmd, commands[i].synopsis);
      return NP_EXIT_USAGE;
    }
  }
  struct np_errbuf eb = {{0}};
  if (cmd[0] == '-')
    np_opt_unknown(&eb, "option", cmd, options,
                   sizeof options / sizeof *options);
  else
    np_opt_unknown(&eb, "command", cmd, names, NCOMMANDS);
  fprintf(stderr, "netproof-archive: %s\n", eb.msg);
  return NP_EXIT_USAGE;
}

static int run(struct cli *c, struct np_triage *tri) {
  struct np_errbuf eb = {{0}};
  int rc;
  const char *cmd = c->cmd;
  int one = c->ndirs == 1;
  struct np_archive_sigcheck sc = {.pubkey = c->pubkey, .sig = c->sig};
  const struct np_archive_sigcheck *scp = c->pubkey ? &sc : NULL;
  int reads = strcmp(cmd, "verify") == 0 || strcmp(cmd, "list") == 0 ||
              strcmp(cmd, "extract") == 0;
  if ((c->pubkey && !reads) || (c->sig && !reads && strcmp(cmd, "sign")) ||
      (c->sig && reads && !c->pubkey) ||
      (c->key && strcmp(cmd, "sign") != 0) ||
      (c->allow_incomplete && strcmp(cmd, "pack") != 0)) {
    fprintf(stderr, "netproof-archive %s: --pubkey goes with verify, list "
                    "and extract (--sig with it or with sign), --key with "
                    "sign, --allow-incomplete with pack\n", cmd);
    return NP_EXIT_USAGE;
  }
  if (strcmp(cmd, "pack") == 0 && c->ndirs > 0 && c->out) {
    rc = run_pack(c, &eb);
  } else if (strcmp(cmd, "verify") == 0 && one) {
    rc = run_verify(c, scp, tri, &eb);
  } else if (strcmp(cmd, "list") == 0 && one) {
    rc = np_archive_list(c->bundle, &c->lim, scp, np_triage_add, tri, &eb);
  } else if (strcmp(cmd, "extract") == 0 && one && c->dest) {
    rc = np_archive_extract(c->bundle, c->dest, &c->lim, scp, np_triage_add,
                            tri, &eb);
  } else if (strcmp(cmd, "keygen") == 0 && c->ndirs == 0 && c->out) {
    rc = np_archive_keygen(c->out, &eb);
  } else if (strcmp(cmd, "sign") == 0 && one && c->key) {
    rc = np_archive_sign(c->bundle, c->key, c->sig, &c->lim, np_triage_add,
                         tri, &eb);
  } else if (strcmp(cmd, "snapshot") == 0 && c->ndirs == 0 && c->out) {
    rc = np_archive_snapshot(c->out, &eb);
  } else {
    return usage_error(cmd);
  }
  np_triage_print(tri, stderr); /* the most serious first, repeats folded */
  if (rc != 0 && eb.msg[0] != '\0')
    fprintf(stderr, "netproof-archive: %s\n", eb.msg);
  return exit_for(rc);
}

int main(int argc, char **argv) {
  /* a closed reader (| head -1) is EPIPE on a write, not death */
  signal(SIGPIPE, SIG_IGN);
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
  if (argc < 2) {
    fputs("netproof-archive: missing command: pack, verify, list, extract, "
          "keygen, sign or snapshot (try --help)\n", stderr);
    return NP_EXIT_USAGE;
  }
  if (parse_args(argc, argv, &c) != 0)
    return NP_EXIT_USAGE; /* parse_args printed the line */
  struct np_triage *tri = np_triage_new();
  if (tri == NULL) {
    fputs("netproof-archive: out of memory\n", stderr);
    return NP_EXIT_RUNTIME;
  }
  int code = run(&c, tri);
  np_triage_free(tri);
  return code;
}
