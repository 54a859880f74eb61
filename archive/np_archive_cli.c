/*
 * np_archive_cli.c - netproof-archive's command line (see
 * np_archive_cli.h): one option table for every command (the parser,
 * --help, the man page's OPTIONS and the completion), then the command.
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
#include "np_archive_cli.h"

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

#define PROG "netproof-archive"
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

/* Each command's operands and options: the one-line usage a usage error
 * repeats, and the lines of --help. */
#define PACK_USE "DIR... --output BUNDLE.tar.gz [--name NAME] [--zlib] " \
                 "[--allow-incomplete]"
#define VERIFY_USE "BUNDLE.tar.gz [--pubkey PUB.pem [--sig FILE]] [LIMITS]"
#define EXTRACT_USE "BUNDLE.tar.gz -C DEST [--pubkey PUB.pem [--sig FILE]] " \
                    "[LIMITS]"
#define KEYGEN_USE "--output KEY.pem"
#define SIGN_USE "BUNDLE.tar.gz --key KEY.pem [--sig FILE]"
#define SNAPSHOT_USE "--output DIR"

static const struct {
  const char *name, *synopsis;
} commands[] = {
    {"pack", PACK_USE},       {"verify", VERIFY_USE},
    {"list", VERIFY_USE},     {"extract", EXTRACT_USE},
    {"keygen", KEYGEN_USE},   {"sign", SIGN_USE},
    {"snapshot", SNAPSHOT_USE},
};
#define NCOMMANDS (sizeof commands / sizeof *commands)

#define CFG struct cli
#define LIMIT(nm, field, df, what)                                          \
  {.name = nm, .type = NP_BENCH_OPT_UINT, .umin = 1, .umax = UINT64_MAX,    \
   .range_text = ">= 1", .dflt = df, .help = what,                          \
   NP_BENCH_AT(CFG, lim.field)}

/* The defaults of the limits are np_archive_limits_default's
 * (tests/archive/test_archive_unit.c holds the two together). */
static const struct np_bench_opt archive_opts[] = {
    {.name = "output", .type = NP_BENCH_OPT_STR, .metavar = "FILE",
     .alias = "-o --out",
     .help = "the bundle to write (pack), the folder (snapshot), or the "
             "private key (keygen; the public key goes beside it)",
     NP_BENCH_AT(CFG, out)},
    {.name = "key", .type = NP_BENCH_OPT_STR, .metavar = "KEY.pem",
     .help = "the private key to sign with (sign): an unencrypted Ed25519 "
             "PEM key file of mode 0600 or stricter",
     NP_BENCH_AT(CFG, key)},
    {.name = "pubkey", .type = NP_BENCH_OPT_STR, .metavar = "PUB.pem",
     .help = "check the bundle's signature with this public key before "
             "everything else (verify, list, extract)",
     NP_BENCH_AT(CFG, pubkey)},
    {.name = "sig", .type = NP_BENCH_OPT_STR, .metavar = "FILE",
     .help = "the signature file to write (sign) or check (with --pubkey); "
             "default BUNDLE.tar.gz.sig",
     NP_BENCH_AT(CFG, sig)},
    {.name = "C", .type = NP_BENCH_OPT_STR, .metavar = "DEST",
     .help = "the folder to extract into", NP_BENCH_AT(CFG, dest),
     .flags = NP_BENCH_OPT_SHORT},
    {.name = "name", .type = NP_BENCH_OPT_STR, .metavar = "NAME",
     .help = "the bundle's top folder and identifier (default: the bundle's "
             "file name without .tar.gz or .tgz)",
     NP_BENCH_AT(CFG, name)},
    {.name = "allow-incomplete", .type = NP_BENCH_OPT_FLAG,
     .help = "pack a result set the self-check finds incomplete "
             "(repetitions missing, nothing else wrong); evidence.json marks "
             "the suite incomplete, and verify of the bundle then exits 4",
     NP_BENCH_AT(CFG, allow_incomplete)},
    {.name = "zlib", .type = NP_BENCH_OPT_FLAG,
     .help = "compress with zlib (level 6) instead of ISA-L: smaller, and "
             "the same bytes on every CPU, but about four times slower",
     NP_BENCH_AT(CFG, use_zlib)},
    LIMIT("max-entries", max_entries, "200000", "at most N tar entries"),
    LIMIT("max-file-bytes", max_file_bytes, "268435456",
          "at most N bytes in one file"),
    LIMIT("max-bytes", max_total_bytes, "1073741824",
          "at most N bytes in all files together"),
    LIMIT("max-ratio", max_ratio, "200",
          "at most N times as many bytes inflated as compressed"),
    {.name = "help", .type = NP_BENCH_OPT_FLAG, .alias = "-h",
     .help = "print the usage and exit", .flags = NP_BENCH_OPT_HELP},
    {.name = "version", .type = NP_BENCH_OPT_FLAG,
     .help = "print the version and build identity and exit",
     .flags = NP_BENCH_OPT_VERSION},
};

static const struct np_bench_opt_section archive_sections[] = {
    {NULL, archive_opts, sizeof archive_opts / sizeof archive_opts[0], 0},
};

static void archive_init(void *cfg) {
  memset(cfg, 0, sizeof(CFG));
  np_archive_limits_default(&((CFG *)cfg)->lim);
}

const struct np_bench_optset np_archive_optset = {
    .program = PROG,
    .command = "",
    .operands = "COMMAND ARGS...",
    .interleaved = 1,
    .summary =
        "Reproducible, verifiable BagIt bundles of netproof evidence.\n"
        "       " PROG " pack " PACK_USE "\n"
        "       " PROG " verify " VERIFY_USE "\n"
        "       " PROG " list " VERIFY_USE "\n"
        "       " PROG " extract " EXTRACT_USE "\n"
        "       " PROG " keygen " KEYGEN_USE "   (also writes KEY.pub.pem)\n"
        "       " PROG " sign " SIGN_USE "\n"
        "       " PROG " snapshot " SNAPSHOT_USE "\n"
        "pack runs the result-set self-check on every DIR and refuses a set "
        "that fails it.\n",
    .doc = "docs/archive-format.md",
    .exits = "exit: 0 ok/valid, 1 invalid bundle, bad signature or a set that "
             "fails its self-check,\n"
             "      2 usage or unreadable input, 3 run-time error, 4 an "
             "incomplete result set\n"
             "      (pack refuses one unless --allow-incomplete; verify of a "
             "bundle that holds one)\n",
    .sections = archive_sections,
    .nsections = sizeof archive_sections / sizeof archive_sections[0],
    .cfg_size = sizeof(CFG),
    .init = archive_init,
};

/* One line for a usage error the table found. */
static int usage_line(const char *cmd, const char *msg) {
  fprintf(stderr, PROG "%s%s: %s%s\n", cmd ? " " : "", cmd ? cmd : "", msg,
          strstr(msg, "try --help") ? "" : " (try --help)");
  return NP_EXIT_USAGE;
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
                                   .max_entries = c->lim.max_entries,
                                   .max_file_bytes = c->lim.max_file_bytes,
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
      fprintf(stderr, PROG " %s: expected %s %s (try --help)\n", cmd, cmd,
              commands[i].synopsis);
      return NP_EXIT_USAGE;
    }
  }
  struct np_errbuf eb = {{0}};
  np_opt_unknown(&eb, "command", cmd, names, NCOMMANDS);
  fprintf(stderr, PROG ": %s\n", eb.msg);
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
    fprintf(stderr, PROG " %s: --pubkey goes with verify, list "
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

int np_archive_cli_main(int argc, char **argv) {
  /* a closed reader (| head -1) is EPIPE on a write, not death */
  signal(SIGPIPE, SIG_IGN);
  struct cli c;
  struct np_errbuf eb = {{0}};
  int help = 0, first = 0;
  if (argc < 2) {
    fputs(PROG ": missing command: pack, verify, list, extract, keygen, sign "
               "or snapshot (try --help)\n", stderr);
    return NP_EXIT_USAGE;
  }
  /* options before any command (--help, --version), else the command's
   * own: argv[1] is then the table's argv[0] */
  int lead = argv[1][0] == '-';
  int rc = lead ? np_bench_opt_parse_operands(&np_archive_optset, argc, argv,
                                              &c, &help, &first, &eb)
                : np_bench_opt_parse_operands(&np_archive_optset, argc - 1,
                                              argv + 1, &c, &help, &first,
                                              &eb);
  if (rc != 0)
    return usage_line(lead ? NULL : argv[1], eb.msg);
  if (help == 1) {
    np_bench_opt_help(&np_archive_optset, stdout);
    return NP_EXIT_OK;
  }
  if (help == 2) {
    np_identity_print_version(stdout, PROG);
    return NP_EXIT_OK;
  }
  if (lead)
    return usage_line(NULL, "missing command: pack, verify, list, extract, "
                            "keygen, sign or snapshot");
  c.cmd = argv[1];
  for (int i = first; i < argc - 1; i++) {
    if (c.ndirs == MAX_DIRS) {
      fprintf(stderr, PROG ": too many arguments\n");
      return NP_EXIT_USAGE;
    }
    c.dirs[c.ndirs++] = argv[1 + i];
  }
  if (c.ndirs > 0)
    c.bundle = c.dirs[0];
  struct np_triage *tri = np_triage_new();
  if (tri == NULL) {
    fputs(PROG ": out of memory\n", stderr);
    return NP_EXIT_RUNTIME;
  }
  int code = run(&c, tri);
  np_triage_free(tri);
  return code;
}
