/*
 * np_validate_cli.c - netproof-validate (see np_validate_cli.h): check
 * JSON documents against a JSON Schema 2020-12.
 *
 *   netproof-validate [--schema FILE] FILE...
 *   netproof-validate --check-schemas SCHEMA...
 *
 * Without --schema each document is checked against the shipped schema its
 * own "schema" field names ("netproof/run/1" -> run.schema.json).
 * Exit 0: all valid ("FILE: valid" on stdout).  Exit 1: some document is
 * invalid (every error on stdout as "FILE: /json/pointer: keyword: reason").
 * Exit 2: usage error or unreadable input (one "FILE: reason" line on
 * stderr).  --check-schemas compiles each file as a schema instead (every
 * keyword supported, every $ref resolved, every pattern valid): exit 0 all
 * compile, 1 some do not.  Nothing is ever written to disk.  The hidden option
 * --max-bytes N lowers the input size limit (for tests).  The options are
 * a table (np_validate_optset), as every program's are.
 */
#include "np_validate_cli.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_identity.h"
#include "np_json.h"
#include "np_schema.h"
#include "np_text.h"

#define PROG "netproof-validate"

struct validate_opts {
  const char *schema_path;      /* --schema, or NULL for the tag lookup */
  const char *output;           /* --output: the verdict lines, or NULL */
  int check_schemas;            /* --check-schemas: FILEs are schemas   */
  uint64_t max_bytes;           /* --max-bytes: 0 = the library's limit */
  struct np_json_limits limits; /* input limits                         */
};

#define CFG struct validate_opts

static const struct np_bench_opt validate_opts[] = {
    {.name = "schema", .type = NP_BENCH_OPT_STR, .metavar = "FILE",
     .help = "validate every document against this schema file",
     NP_BENCH_AT(CFG, schema_path), .set = np_bench_opt_set_path},
    {.name = "check-schemas", .type = NP_BENCH_OPT_FLAG,
     .help = "treat every FILE as a schema and compile it: every keyword "
             "supported, every $ref resolved, every pattern valid",
     NP_BENCH_AT(CFG, check_schemas)},
    {.name = "output", .type = NP_BENCH_OPT_STR, .metavar = "FILE",
     .help = "write the verdict lines to FILE instead of standard output "
             "(its folder must exist)",
     NP_BENCH_AT(CFG, output), .set = np_bench_opt_set_path},
    {.name = "max-bytes", .type = NP_BENCH_OPT_UINT, .umin = 1,
     .umax = UINT32_MAX, .help = "input size limit (tests)",
     NP_BENCH_AT(CFG, max_bytes), .flags = NP_BENCH_OPT_HIDDEN},
    {.name = "help", .type = NP_BENCH_OPT_FLAG, .alias = "-h",
     .help = "print the usage and exit", .flags = NP_BENCH_OPT_HELP},
    {.name = "version", .type = NP_BENCH_OPT_FLAG,
     .help = "print the version and build identity and exit",
     .flags = NP_BENCH_OPT_VERSION},
};

static const struct np_bench_opt_section validate_sections[] = {
    {NULL, validate_opts, sizeof validate_opts / sizeof validate_opts[0], 0},
};

static void validate_init(void *cfg) { memset(cfg, 0, sizeof(CFG)); }

const struct np_bench_optset np_validate_optset = {
    .program = PROG,
    .command = "",
    .operands = "FILE...",
    .summary = "Check JSON documents against a JSON Schema (draft 2020-12).  "
               "Without --schema,\nthe shipped schema named by each "
               "document's \"schema\" field is used.\n",
    .doc = "docs/formats.md",
    .exits = "exit: 0 all valid, 1 some document invalid, 2 usage error or "
             "unreadable input,\n      3 run-time error\n",
    .sections = validate_sections,
    .nsections = sizeof validate_sections / sizeof validate_sections[0],
    .cfg_size = sizeof(CFG),
    .init = validate_init,
};

struct print_ctx {
  const char *file;
};

static void print_error(void *ctx, const char *pointer, const char *keyword,
                        const char *reason) {
  const struct print_ctx *pc = ctx;
  np_text_printf(stdout, "%s: %s: %s: %s\n", pc->file,
                 *pointer ? pointer : "(root)", keyword, reason);
}

/* --check-schemas: one schema file; returns the exit status it deserves. */
static int check_schema_file(const char *path) {
  struct np_errbuf eb = {{0}};
  struct np_schema *s = NULL;
  int rc = np_schema_load_file(path, &s, &eb);
  if (rc == 0) {
    printf("%s: schema compiles\n", path);
    np_schema_free(s);
    return NP_EXIT_OK;
  }
  np_text_printf(stdout, "%s\n", eb.msg);
  return NP_EXIT_FAIL;
}

/* One document: returns the exit status it deserves. */
static int check_file(const char *path, const struct np_schema *given,
                      const struct validate_opts *o) {
  struct np_errbuf eb = {{0}};
  cJSON *doc = NULL;
  struct np_schema *own = NULL;
  int status = NP_EXIT_USAGE;
  int rc = np_json_load_file(path, &o->limits, &doc, &eb);
  if (rc != 0) {
    np_text_printf(stderr, "%s\n", eb.msg);
    return NP_EXIT_USAGE;
  }
  const struct np_schema *s = given;
  if (!s) {
    const cJSON *tag = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    if (!cJSON_IsString(tag)) {
      fprintf(stderr,
              "%s: /schema: no \"schema\" string naming the document's "
              "schema (use --schema FILE)\n",
              path);
      goto free_doc;
    }
    if (np_schema_builtin(tag->valuestring, &own, &eb) != 0) {
      np_text_printf(stderr, "%s: /schema: %s\n", path, eb.msg);
      goto free_doc;
    }
    s = own;
  }
  struct print_ctx pc = {path};
  rc = np_schema_validate(s, doc, print_error, &pc);
  if (rc == 0) {
    printf("%s: valid\n", path);
    status = NP_EXIT_OK;
  } else if (rc == NP_ESCHEMA || rc == NP_ETOODEEP || rc == NP_ERANGE) {
    status = NP_EXIT_FAIL;
  } else {
    fprintf(stderr, "%s: %s\n", path, np_strerror(rc));
    status = NP_EXIT_RUNTIME;
  }
  np_schema_free(own);
free_doc:
  cJSON_Delete(doc);
  return status;
}

int np_validate_cli_main(int argc, char **argv) {
  struct validate_opts o;
  struct np_errbuf eb = {{0}};
  int help = 0, first = argc;
  signal(SIGPIPE, SIG_IGN); /* a closed reader is EPIPE, not death */
  if (np_bench_opt_parse_operands(&np_validate_optset, argc, argv, &o, &help,
                                  &first, &eb) != 0) {
    fprintf(stderr, PROG ": %s%s\n", eb.msg,
            strstr(eb.msg, "try --help") ? "" : " (try --help)");
    return NP_EXIT_USAGE;
  }
  if (help == 1) {
    np_bench_opt_help(&np_validate_optset, stdout);
    return NP_EXIT_OK;
  }
  if (help == 2) {
    np_identity_print_version(stdout, PROG);
    return NP_EXIT_OK;
  }
  if (o.max_bytes > 0)
    o.limits.max_bytes = (size_t)o.max_bytes;
  if (first >= argc) {
    fprintf(stderr, PROG ": missing FILE: usage: " PROG " [--schema FILE] "
                    "FILE... (try --help)\n");
    return NP_EXIT_USAGE;
  }
  if (o.output != NULL && freopen(o.output, "w", stdout) == NULL) {
    fprintf(stderr, PROG ": --output %s: %s\n", o.output, strerror(errno));
    return NP_EXIT_USAGE;
  }
  if (o.check_schemas) {
    int worst = NP_EXIT_OK;
    for (int i = first; i < argc; i++) {
      int st = check_schema_file(argv[i]);
      if (st > worst)
        worst = st;
    }
    return worst;
  }
  struct np_schema *given = NULL;
  if (o.schema_path) {
    if (np_schema_load_file(o.schema_path, &given, &eb) != 0) {
      np_text_printf(stderr, "%s\n", eb.msg);
      return NP_EXIT_USAGE;
    }
  }
  int worst = NP_EXIT_OK;
  for (int i = first; i < argc; i++) {
    int st = check_file(argv[i], given, &o);
    if (st > worst)
      worst = st;
  }
  np_schema_free(given);
  return worst;
}
