/*
 * netproof-validate - check JSON documents against a JSON Schema 2020-12.
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
 * --max-bytes N lowers the input size limit (for tests).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "np_identity.h"
#include "np_json.h"
#include "np_opt.h"
#include "np_schema.h"
#include "np_text.h"

#define PROG "netproof-validate"

struct validate_opts {
  const char *schema_path;      /* --schema, or NULL for the tag lookup */
  const char *output;           /* --output: the verdict lines, or NULL */
  int check_schemas;            /* --check-schemas: FILEs are schemas   */
  struct np_json_limits limits; /* input limits                         */
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

static void usage(void) {
  printf(
          "usage: " PROG " [--schema FILE] [--output FILE] FILE...\n"
          "Check JSON documents against a JSON Schema (draft 2020-12).\n"
          "Without --schema, the shipped schema named by each document's\n"
          "\"schema\" field is used.\n"
          "  --schema FILE  validate against this schema file\n"
          "  --check-schemas  treat every FILE as a schema and compile it\n"
          "  --output FILE  write the verdict lines to FILE, not stdout\n"
          "  --help         this text\n"
          "  --version      version and build identity\n"
          "exit: 0 all valid, 1 some document invalid, 2 usage error or\n"
          "unreadable input\n");
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

int main(int argc, char **argv) {
  struct validate_opts o = {0};
  signal(SIGPIPE, SIG_IGN); /* a closed reader is EPIPE, not death */
  int first = argc;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage();
      return NP_EXIT_OK;
    } else if (strcmp(a, "--version") == 0) {
      np_identity_print_version(stdout, PROG);
      return NP_EXIT_OK;
    } else if (strcmp(a, "--check-schemas") == 0) {
      o.check_schemas = 1;
    } else if (strcmp(a, "--schema") == 0 && i + 1 < argc) {
      o.schema_path = argv[++i];
    } else if (strcmp(a, "--output") == 0 && i + 1 < argc) {
      o.output = argv[++i];
    } else if (strcmp(a, "--max-bytes") == 0 && i + 1 < argc) {
      char *end = NULL;
      errno = 0;
      unsigned long long n = strtoull(argv[++i], &end, 10);
      if (errno || !end || *end || n == 0) {
        fprintf(stderr, PROG ": --max-bytes: expected a positive integer\n");
        return NP_EXIT_USAGE;
      }
      o.limits.max_bytes = (size_t)n;
    } else if (strcmp(a, "--") == 0) {
      first = i + 1;
      break;
    } else if (a[0] == '-' && a[1] != '\0') {
      static const char *const opts[] = {"--schema", "--output",
                                         "--check-schemas", "--max-bytes",
                                         "--help", "--version"};
      struct np_errbuf eb = {{0}};
      size_t k = 0;
      while (k < sizeof opts / sizeof *opts && strcmp(a, opts[k]) != 0)
        k++;
      if (k < sizeof opts / sizeof *opts)
        np_errbuf_set(&eb, NP_EUSAGE, "%s needs a value (try --help)", a);
      else
        np_opt_unknown(&eb, "option", a, opts, sizeof opts / sizeof *opts);
      fprintf(stderr, PROG ": %s\n", eb.msg);
      return NP_EXIT_USAGE;
    } else {
      first = i;
      break;
    }
  }
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
    struct np_errbuf eb = {{0}};
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
